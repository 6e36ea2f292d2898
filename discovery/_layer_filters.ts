/**
 * The environment rules shared by layer discovery and activation: the
 * `VK_LOADER_LAYERS_ENABLE` / `_DISABLE` / `_ALLOW` filters (F04 to F06) and an
 * implicit layer's enable and disable variables (F08).
 *
 * @module
 */

import { type EnvironmentSnapshot, getenv, secureGetenv } from "./environment.ts";
import { matchesAnyFilter, type NameFilter, parseFilterList } from "./filter.ts";
import type { LayerManifest, LayerMessage } from "./layer_manifest.ts";

/** The three layer filter variables, parsed. */
export interface LayerFilters {
  /** `VK_LOADER_LAYERS_ENABLE`. */
  readonly enable: readonly NameFilter[];
  /** `VK_LOADER_LAYERS_DISABLE`. */
  readonly disable: readonly NameFilter[];
  /** `VK_LOADER_LAYERS_ALLOW`. */
  readonly allow: readonly NameFilter[];
  /** `~all~`, `*` or `**` in the disable list. */
  readonly disableAll: boolean;
  /** `~implicit~` in the disable list. */
  readonly disableImplicit: boolean;
  /** `~explicit~` in the disable list. */
  readonly disableExplicit: boolean;
  /** Filters dropped or cut. */
  readonly warnings: readonly LayerMessage[];
}

/** Reads the layer filter variables (with `secure_getenv`, as the C loader does). */
export function readLayerFilters(env: EnvironmentSnapshot): LayerFilters {
  const warnings: LayerMessage[] = [];
  const read = (name: string) => {
    const list = parseFilterList(secureGetenv(env, name), name);
    for (const text of list.warnings) warnings.push({ level: "warn", category: "layer", text });
    return list.filters;
  };
  const enable = read("VK_LOADER_LAYERS_ENABLE");
  const disable = read("VK_LOADER_LAYERS_DISABLE");
  const allow = read("VK_LOADER_LAYERS_ALLOW");
  const special = (value: string) => disable.some((f) => f.kind === "special" && f.value === value);
  return {
    enable,
    disable,
    allow,
    disableAll: disable.some((f) => f.kind === "all"),
    disableImplicit: special("~implicit~"),
    disableExplicit: special("~explicit~"),
    warnings,
  };
}

/** Why a layer is hidden by the filters, or undefined when it is available. */
export function layerFilterVerdict(filters: LayerFilters, layer: LayerManifest): string | undefined {
  if (matchesAnyFilter(filters.enable, layer.name)) return undefined;
  const disabled = filters.disableAll ||
    (layer.implicit ? filters.disableImplicit : filters.disableExplicit) ||
    matchesAnyFilter(filters.disable, layer.name);
  if (!disabled || matchesAnyFilter(filters.allow, layer.name)) return undefined;
  return `forced disabled because name matches filter of env var 'VK_LOADER_LAYERS_DISABLE'`;
}

/** True when `VK_LOADER_LAYERS_ENABLE` names the layer. */
export function forcedOnByFilter(filters: LayerFilters, name: string): boolean {
  return matchesAnyFilter(filters.enable, name);
}

/** The outcome of an implicit layer's own variables. */
export interface ImplicitVerdict {
  /** True when the layer is on. */
  readonly enabled: boolean;
  /** Why, as a clause: `no enable_environment (on by default)`, `disable_environment "X" is set`, ... */
  readonly reason: string;
}

/**
 * Applies an implicit layer's enable and disable variables (read with plain
 * `getenv`, so they count even when elevated): on by default without an
 * enable variable, else only when it equals the manifest value exactly; a
 * disable variable that exists (any value, even empty) turns it off and wins.
 */
export function implicitVariablesVerdict(env: EnvironmentSnapshot, layer: LayerManifest): ImplicitVerdict {
  const disable = layer.disableEnvironment;
  if (disable !== undefined && getenv(env, disable.name) !== undefined) {
    return { enabled: false, reason: `disable_environment "${disable.name}" is set` };
  }
  const enable = layer.enableEnvironment;
  if (enable === undefined) return { enabled: true, reason: "implicit layer, on by default" };
  const value = getenv(env, enable.name);
  if (value === enable.value) {
    return { enabled: true, reason: `enable_environment "${enable.name}=${enable.value}" is set` };
  }
  return {
    enabled: false,
    reason: value === undefined
      ? `enable_environment "${enable.name}" is not set (needs "${enable.value}")`
      : `enable_environment "${enable.name}" is "${value}", not "${enable.value}"`,
  };
}
