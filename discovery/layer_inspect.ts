/**
 * The layers section of the inspect report (discovery/inspect.ts): every layer manifest with its activation
 * state and why, from layer discovery (discovery/layers.ts) and activation (discovery/layer_activation.ts),
 * and the variables that steer both. Built the way discovery/settings_inspect.ts builds the settings section.
 *
 * @module
 */

import type { EnvironmentSnapshot } from "./environment.ts";
import type { InspectEntry, InspectSection, InspectValue } from "./inspect_section.ts";
import { missingLibraryWarning } from "./inspect_section.ts";
import { activateLayers, implicitLayerState } from "./layer_activation.ts";
import { formatVersion } from "./manifest_file.ts";
import { discoverLayers } from "./layers.ts";
import { dirName } from "./search_paths.ts";

/**
 * Options for {@linkcode layerInspectSection}.
 *
 * @example Usage
 * ```ts
 * import type { LayerInspectOptions } from "./layer_inspect.ts";
 * const o: LayerInspectOptions = { executablePath: "/usr/bin/vkcube", requestedLayers: [] };
 * ```
 */
export interface LayerInspectOptions {
  /** The application's executable, for the override layer's `app_keys`. */
  readonly executablePath?: string;
  /** Layers an application would request (default none: the state the environment alone gives). */
  readonly requestedLayers?: readonly string[];
}

/** The variables that steer layer discovery and activation, for the inspect report's environment part. */
export const LAYER_VARIABLES: readonly string[] = [
  "VK_LAYER_PATH",
  "VK_ADD_LAYER_PATH",
  "VK_IMPLICIT_LAYER_PATH",
  "VK_ADD_IMPLICIT_LAYER_PATH",
  "VK_INSTANCE_LAYERS",
  "VK_LOADER_LAYERS_ENABLE",
  "VK_LOADER_LAYERS_DISABLE",
  "VK_LOADER_LAYERS_ALLOW",
];

/**
 * The layers section of the inspect report (discovery/inspect.ts): every layer
 * manifest (one entry per layer, or per unusable file), whether it is used, and
 * its activation state with the reason: `active` (and why), `inactive` (an
 * implicit layer its variables keep off) or `available` (an explicit layer
 * nothing enables).
 *
 * @example Usage
 * ```ts
 * import { layerInspectSection } from "./layer_inspect.ts";
 * const section = layerInspectSection({ vars: {}, elevated: false, root: "/nonexistent" });
 * console.log(section.title, section.entries.length); // "Layers" 0
 * ```
 */
export function layerInspectSection(
  env: EnvironmentSnapshot,
  options: LayerInspectOptions = {},
): InspectSection {
  const discovery = discoverLayers(env, { executablePath: options.executablePath });
  const activation = activateLayers(env, discovery, { requestedLayers: options.requestedLayers ?? [] });
  const activeReason = new Map<string, string>();
  if (activation.ok) {
    for (const a of activation.layers) activeReason.set(a.layer.name, a.reason);
    for (const l of activation.activatedLayers) {
      if (!activeReason.has(l.name)) activeReason.set(l.name, "components active");
    }
  }
  const entries = discovery.candidates.map((c): InspectEntry => {
    const fields: Record<string, InspectValue> = { implicit: c.implicit };
    const layer = c.layer;
    if (c.name !== undefined) fields["name"] = c.name;
    if (layer !== undefined) {
      fields["file_format_version"] = layer.fileFormatVersion;
      fields["api_version"] = formatVersion(layer.apiVersion);
      fields["implementation_version"] = layer.implementationVersion;
      if (layer.libraryPath !== undefined) fields["library"] = layer.libraryPath;
      if (layer.componentLayers !== undefined) fields["component_layers"] = layer.componentLayers.join(", ");
    }
    let reason: string;
    if (c.status !== "used" || layer === undefined) {
      reason = `${c.name === undefined ? "" : `"${c.name}" `}${c.status}: ${c.reason}`;
    } else {
      const active = activeReason.get(layer.name);
      let state: string;
      if (active !== undefined) state = `active: ${active}`;
      else if (layer.implicit) {
        state = `inactive: ${implicitLayerState(env, layer, discovery.overrideLayer).reason}`;
      } else state = "available: explicit layer, enabled only on request";
      fields["activation"] = state;
      reason = `"${layer.name}" ${state}`;
    }
    return {
      path: c.manifestPath,
      source: c.source,
      location: dirName(c.manifestPath),
      status: c.status === "used" ? "used" : "skipped",
      reason,
      fields,
      warnings: [missingLibraryWarning(c.status === "used" ? layer?.libraryPath : undefined)].filter((
        w,
      ): w is string => w !== undefined),
    };
  });
  const locations = [...discovery.locations.implicit, ...discovery.locations.explicit].map((r) => ({
    path: r.location.path,
    source: r.location.source,
    defaulted: r.location.defaulted,
    status: r.status + (r.detail === undefined ? "" : `: ${r.detail}`),
    files: r.fileCount,
  }));
  return {
    title: "Layers",
    locations,
    entries,
    used: entries.filter((e) => e.status === "used").length,
    skipped: entries.filter((e) => e.status === "skipped").length,
  };
}
