/**
 * Layer discovery on Linux (docs/behaviour.md L01-L07, F05, F06, O02-O06): which layer manifests exist,
 * which layers they hold, and which of those the loader shows to the application.
 *
 * @example Discovering the layers of a fake root
 * ```ts
 * import { discoverLayers } from "./layers.ts";
 * const found = discoverLayers({ vars: {}, elevated: false, root: "/tmp/no-such-root" });
 * console.log(found.layers.length); // 0
 * ```
 *
 * @module
 */

import { type EnvironmentSnapshot, secureGetenv } from "./environment.ts";
import {
  forcedOnByFilter,
  implicitVariablesVerdict,
  layerFilterVerdict,
  readLayerFilters,
} from "./_layer_filters.ts";
import { isOverrideLayer, type LayerManifest, type LayerMessage } from "./layer_manifest.ts";
import {
  type LayerFileRead,
  type LayerManifestReadCounts,
  persistentLayerManifests,
  readLayerManifestCached,
} from "./layer_manifest_cache.ts";
import type { PersistentManifestScan } from "./persistent_manifests.ts";
import { validateMetaLayers } from "./meta_layers.ts";
import { RACY_WINDOW_MS as SCAN_RACY_WINDOW_MS, ScanMemo, snapshotKey } from "./scan_memo.ts";
import { readLoaderSettings, type SettingsFileResult } from "./settings_file.ts";
import { combineSettingsLayers, type SettingsLayerCombination } from "./settings_layers.ts";
import { platformRules } from "./platforms.ts";
import {
  defaultSearchLocations,
  type FoundManifestFile,
  isLayerManifestName,
  type LocationReport,
  pathListLocations,
  readRefusal,
  scanSearchLocations,
  type SearchLocation,
} from "./search_paths.ts";

/** Files changed this recently are re-read even when their stat looks unchanged. */
export const RACY_WINDOW_MS: number = SCAN_RACY_WINDOW_MS;

/**
 * What became of a manifest file or of one layer in it.
 *
 * - `used`: the layer is in `layers`.
 * - `skipped`: the file or the layer is defective (the reason names the field).
 * - `duplicate`: another layer of the same name was found first.
 * - `disabled`: hidden by `VK_LOADER_LAYERS_DISABLE`.
 * - `blacklisted`: named by the override layer's `blacklisted_layers`.
 * - `invalid`: a meta layer whose components are missing, loop, or are too old.
 * - `not applied`: an override layer whose `app_keys` do not name this
 *   application, or that lost to another override layer.
 */
export type LayerCandidateStatus =
  | "used"
  | "skipped"
  | "duplicate"
  | "disabled"
  | "blacklisted"
  | "invalid"
  | "not applied";

/**
 * One manifest file, or one layer of it, and what became of it.
 *
 * @example Usage
 * ```ts
 * import type { LayerCandidate } from "@vkdeno/loader/discovery";
 * const c: LayerCandidate = {
 *   manifestPath: "/usr/share/vulkan/implicit_layer.d/MangoHud.json",
 *   name: "VK_LAYER_MANGOHUD_overlay",
 *   implicit: true,
 *   source: "XDG_DATA_DIRS",
 *   status: "used",
 *   reason: "found",
 * };
 * ```
 */
export interface LayerCandidate {
  /** The manifest file. */
  readonly manifestPath: string;
  /** The layer's name; absent when the whole file was unusable. */
  readonly name?: string;
  /** True when found in an implicit layer folder. */
  readonly implicit: boolean;
  /** The variable or default that led to the file (`VK_LAYER_PATH`, `XDG_DATA_DIRS`, ...). */
  readonly source: string;
  /** What became of it. */
  readonly status: LayerCandidateStatus;
  /** A clause saying why. */
  readonly reason: string;
  /** The parsed layer, when the manifest held one by that name. */
  readonly layer?: LayerManifest;
}

/**
 * The result of {@linkcode discoverLayers}.
 *
 * @example Usage
 * ```ts
 * import { discoverLayers, type LayerDiscovery } from "@vkdeno/loader/discovery";
 * const d: LayerDiscovery = discoverLayers({ vars: {}, elevated: false, root: "/nonexistent" });
 * console.log(d.candidates.length); // 0
 * ```
 */
export interface LayerDiscovery {
  /** The layers the loader shows, implicit ones first, in discovery order, names unique. */
  readonly layers: readonly LayerManifest[];
  /** Every manifest file and layer seen, in discovery order, with its status. */
  readonly candidates: readonly LayerCandidate[];
  /** The override layer that applies to this application and is enabled, if any. */
  readonly overrideLayer?: LayerManifest;
  /** Every searched location: implicit ones, then explicit ones. */
  readonly locations: {
    readonly implicit: readonly LocationReport[];
    readonly explicit: readonly LocationReport[];
  };
  /** Log lines for loading/log.ts, in discovery order. */
  readonly messages: readonly LayerMessage[];
  /** How many manifest files were parsed, and how many came unchanged from the cache. */
  readonly manifestReads: { readonly parsed: number; readonly cached: number };
  /** The loader settings file search and the settings in force (settings_file.ts). */
  readonly settingsFile?: SettingsFileResult;
  /**
   * Set when the settings in force have a `layers` list: `layers` above is then
   * that list combined with the found layers (settings_layers.ts), in chain order.
   */
  readonly settingsLayers?: SettingsLayerCombination;
}

/**
 * Options for {@linkcode discoverLayers}.
 *
 * @example Usage
 * ```ts
 * import type { DiscoverLayersOptions } from "@vkdeno/loader/discovery";
 * const o: DiscoverLayersOptions = { executablePath: "/usr/bin/vkcube" };
 * ```
 */
export interface DiscoverLayersOptions {
  /** The application's executable path, matched against the override layer's `app_keys`. */
  readonly executablePath?: string;
  /** The process's pointer size for `library_arch` (default 64). */
  readonly pointerBits?: 32 | 64;
  /** False to parse every manifest again instead of using the per-process cache (default true). */
  readonly cache?: boolean;
  /** The settings file result to apply (default: `readLoaderSettings(env)`); `null` ignores the file. */
  readonly settings?: SettingsFileResult | null;
}

/**
 * Finds the layers, as `vkEnumerateInstanceLayerProperties` would see them.
 * Never throws; never loads a library.
 *
 * @example Usage
 * ```ts
 * import { discoverLayers } from "@vkdeno/loader/discovery";
 * const env = { vars: { VK_LAYER_PATH: "/nonexistent" }, elevated: false, root: "/nonexistent" };
 * console.log(discoverLayers(env).locations.explicit[0]?.status); // "missing"
 * ```
 */
export function discoverLayers(
  env: EnvironmentSnapshot,
  options: DiscoverLayersOptions = {},
): LayerDiscovery {
  if (options.cache === false || options.settings !== undefined) return scanLayers(env, options);
  const key = `${options.executablePath ?? ""}\0${options.pointerBits ?? 64}\0${snapshotKey(env)}`;
  const { value, reused } = layerMemo.get(key, () => scanLayers(env, options));
  if (!reused) return value;
  // Nothing was parsed this time: every manifest came from the kept scan.
  const { parsed, cached } = value.manifestReads;
  return { ...value, manifestReads: { parsed: 0, cached: parsed + cached } };
}

/** Layer discoveries per snapshot and options, reused while every path they read is unchanged. */
const layerMemo = new ScanMemo<LayerDiscovery>();

function scanLayers(env: EnvironmentSnapshot, options: DiscoverLayersOptions): LayerDiscovery {
  const messages: LayerMessage[] = [];
  const candidates: LayerCandidate[] = [];
  const filters = readLayerFilters(env);
  messages.push(...filters.warnings);
  const reader = new ManifestReader(options, messages, candidates);

  const implicitLocations = layerSearchLocations(env, true, messages);
  const rules = platformRules(env.os);
  const implicitScan = scanSearchLocations(implicitLocations, rules, isLayerManifestName);
  const found: LayerManifest[] = reader.readAll(implicitScan.files, true);

  // The override layer decides the explicit search, so it is settled before that search.
  const overrides = found.filter(isOverrideLayer);
  const chosen = chooseOverrideLayer(overrides, options.executablePath, candidates, messages);
  const kept = found.filter((l) => !isOverrideLayer(l) || l === chosen);
  // Its override_paths and blacklist only count while it is on (its variables, or forced on).
  const override = chosen !== undefined && layerFilterVerdict(filters, chosen) === undefined &&
      (implicitVariablesVerdict(env, chosen).enabled || forcedOnByFilter(filters, chosen.name))
    ? chosen
    : undefined;

  let explicitLocations: SearchLocation[];
  if (override !== undefined && override.overridePaths.length > 0) {
    if (secureGetenv(env, "VK_LAYER_PATH") !== undefined) {
      messages.push(
        info(`Ignoring VK_LAYER_PATH: the override layer "${override.manifestPath}" sets override_paths`),
      );
    }
    explicitLocations = pathListLocations(
      env,
      override.overridePaths.join(rules.pathListSeparator),
      "override_paths",
      isLayerManifestName,
    );
  } else {
    explicitLocations = layerSearchLocations(env, false, messages);
  }
  const explicitScan = scanSearchLocations(explicitLocations, rules, isLayerManifestName);
  kept.push(...reader.readAll(explicitScan.files, false));
  reader.finish();
  const refusal = readRefusal([...implicitScan.locations, ...explicitScan.locations], "layer");
  if (refusal !== undefined) messages.push(refusal);

  // First occurrence of a name wins (L05).
  const byName = new Map<string, LayerManifest>();
  const unique: LayerManifest[] = [];
  const statusOf = new Map<LayerManifest, { status: LayerCandidateStatus; reason: string }>();
  for (const layer of kept) {
    const first = byName.get(layer.name);
    if (first !== undefined) {
      const reason = `it is a duplicate of "${layer.name}" from "${first.manifestPath}"`;
      // The same file found twice yields the same cached object: its second candidate is marked below.
      if (first !== layer) statusOf.set(layer, { status: "duplicate", reason });
      messages.push(info(`Removing layer "${layer.name}" ("${layer.manifestPath}") because ${reason}`));
      continue;
    }
    byName.set(layer.name, layer);
    unique.push(layer);
  }

  let visible: LayerManifest[] = [];
  for (const layer of unique) {
    const verdict = layerFilterVerdict(filters, layer);
    if (verdict !== undefined) {
      statusOf.set(layer, { status: "disabled", reason: verdict });
      messages.push({ level: "warn", category: "layer", text: `Layer "${layer.name}" ${verdict}` });
    } else {
      visible.push(layer);
    }
  }

  let activeOverride = override !== undefined && visible.includes(override) ? override : undefined;
  for (let pass = 0; pass < 2; pass++) {
    const validation = validateMetaLayers(visible);
    for (const { layer, reason } of validation.removed) {
      statusOf.set(layer, { status: "invalid", reason: `invalid meta layer: ${reason}` });
      messages.push({
        level: "warn",
        category: "layer",
        text: `Removing meta layer "${layer.name}": ${reason}`,
      });
    }
    visible = [...validation.layers];
    if (activeOverride !== undefined && !visible.includes(activeOverride)) activeOverride = undefined;
    // The blacklist applies once the override layer is known to be valid; removing
    // blacklisted layers may invalidate meta layers, hence the second pass.
    if (pass > 0 || activeOverride === undefined || activeOverride.blacklistedLayers.length === 0) break;
    const blacklist = new Set(activeOverride.blacklistedLayers);
    const before = visible.length;
    visible = visible.filter((layer) => {
      if (!blacklist.has(layer.name) || layer === activeOverride) return true;
      statusOf.set(layer, {
        status: "blacklisted",
        reason: `named in blacklisted_layers of the override layer "${activeOverride?.manifestPath}"`,
      });
      messages.push(info(`Layer "${layer.name}" is blacklisted by the override layer`));
      return false;
    });
    if (visible.length === before) break;
  }

  const marked = new Set<LayerManifest>();
  for (const candidate of candidates) {
    if (candidate.layer === undefined || candidate.status !== "used") continue;
    if (marked.has(candidate.layer)) {
      const reason = `it is a duplicate of "${candidate.layer.name}" from "${candidate.manifestPath}"`;
      Object.assign(candidate, { status: "duplicate", reason });
      continue;
    }
    marked.add(candidate.layer);
    const status = statusOf.get(candidate.layer);
    if (status !== undefined) Object.assign(candidate, status);
  }
  const settingsFile = options.settings === null ? undefined : options.settings ?? readLoaderSettings(env);
  const base: LayerDiscovery = {
    layers: visible,
    candidates,
    overrideLayer: activeOverride,
    locations: { implicit: implicitScan.locations, explicit: explicitScan.locations },
    messages,
    manifestReads: { parsed: reader.parsed, cached: reader.cached },
    ...(settingsFile === undefined ? {} : { settingsFile }),
  };
  return settingsFile === undefined ? base : applySettingsFile(base, settingsFile, options);
}

/** The settings file's messages, and its `layers` list when it has one (settings_layers.ts). */
function applySettingsFile(
  base: LayerDiscovery,
  settingsFile: SettingsFileResult,
  options: DiscoverLayersOptions,
): LayerDiscovery {
  const messages: LayerMessage[] = settingsFile.messages.map((m) => ({ ...m, category: "layer" }));
  const settings = settingsFile.settings;
  if (settings?.layers === undefined) {
    return { ...base, messages: [...messages, ...base.messages] };
  }
  const combined = combineSettingsLayers(settings.layers, base.layers, {
    pointerBits: options.pointerBits,
    file: settings.path,
  });
  const candidates: LayerCandidate[] = base.candidates.map((c) => {
    const why = c.layer === undefined || c.status !== "used" ? undefined : combined.hidden.get(c.layer);
    return why === undefined ? c : { ...c, status: why.status, reason: why.reason };
  });
  for (const outcome of combined.outcomes) {
    if (outcome.entry.control === "unordered_layer_location") continue;
    candidates.push({
      manifestPath: outcome.entry.path ?? settings.path,
      ...(outcome.entry.name === undefined ? {} : { name: outcome.entry.name }),
      implicit: outcome.entry.treatAsImplicit,
      source: "loader settings file",
      status: outcome.status === "skipped"
        ? "skipped"
        : outcome.entry.control === "off"
        ? "disabled"
        : "used",
      reason: outcome.reason,
      ...(outcome.layer === undefined ? {} : { layer: outcome.layer }),
    });
  }
  return {
    ...base,
    layers: combined.layers,
    candidates,
    overrideLayer: base.overrideLayer !== undefined && combined.layers.includes(base.overrideLayer)
      ? base.overrideLayer
      : undefined,
    messages: [...messages, ...base.messages, ...combined.messages],
    settingsLayers: combined,
  };
}

/**
 * The search locations for implicit or explicit layer manifests (without the
 * override layer's `override_paths`, which {@linkcode discoverLayers} applies).
 *
 * @example Usage
 * ```ts
 * import { layerSearchLocations } from "./layers.ts";
 * const env = { vars: { VK_LAYER_PATH: "/opt/layers:/opt/x.json" }, elevated: false };
 * layerSearchLocations(env, false).map((l) => l.path); // ["/opt/layers", "/opt/x.json"]
 * ```
 */
export function layerSearchLocations(
  env: EnvironmentSnapshot,
  implicit: boolean,
  messages: LayerMessage[] = [],
): SearchLocation[] {
  const replace = implicit ? "VK_IMPLICIT_LAYER_PATH" : "VK_LAYER_PATH";
  const add = implicit ? "VK_ADD_IMPLICIT_LAYER_PATH" : "VK_ADD_LAYER_PATH";
  if (env.elevated) {
    for (const name of [replace, add]) {
      if (env.vars[name] !== undefined) messages.push(info(`Ignoring ${name}: the process runs elevated`));
    }
  }
  // Set to the empty string is set (docs/behaviour.md D12): the search is replaced with nothing.
  const replacement = secureGetenv(env, replace);
  if (replacement !== undefined) {
    if (secureGetenv(env, add) !== undefined) {
      messages.push(info(`Ignoring ${add} because ${replace} is set`));
    }
    if (replacement === "") {
      messages.push({
        level: "warn",
        category: "layer",
        text: `${replace} is set to the empty string: no ${
          implicit ? "implicit" : "explicit"
        } layer manifest is searched`,
      });
    }
    return pathListLocations(env, replacement, replace, isLayerManifestName);
  }
  return [
    ...pathListLocations(env, secureGetenv(env, add), add, isLayerManifestName),
    ...defaultSearchLocations(env, implicit ? "implicit_layer" : "explicit_layer"),
  ];
}

function chooseOverrideLayer(
  overrides: readonly LayerManifest[],
  executablePath: string | undefined,
  candidates: LayerCandidate[],
  messages: LayerMessage[],
): LayerManifest | undefined {
  if (overrides.length === 0) return undefined;
  const applies = (l: LayerManifest) => l.appKeys.length === 0 || l.appKeys.includes(executablePath ?? "");
  const specific = overrides.find((l) => l.appKeys.length > 0 && applies(l));
  const chosen = specific ?? overrides.find(applies);
  for (const layer of overrides) {
    if (layer === chosen) continue;
    const reason = !applies(layer)
      ? `its app_keys do not name this application ("${executablePath ?? "unknown"}")`
      : `the override layer "${chosen?.manifestPath}" applies instead`;
    markCandidate(candidates, layer, "not applied", reason);
    messages.push(info(`Override layer "${layer.manifestPath}" not applied: ${reason}`));
  }
  return chosen;
}

function markCandidate(
  candidates: LayerCandidate[],
  layer: LayerManifest,
  status: LayerCandidateStatus,
  reason: string,
): void {
  const candidate = candidates.find((c) => c.layer === layer);
  if (candidate !== undefined) Object.assign(candidate, { status, reason });
}
class ManifestReader implements LayerManifestReadCounts {
  parsed = 0;
  cached = 0;
  readonly #useCache: boolean;
  readonly #pointerBits: 32 | 64;
  readonly #messages: LayerMessage[];
  readonly #candidates: LayerCandidate[];
  readonly #persistent: PersistentManifestScan<LayerFileRead> | undefined;

  constructor(options: DiscoverLayersOptions, messages: LayerMessage[], candidates: LayerCandidate[]) {
    this.#useCache = options.cache ?? true;
    this.#persistent = this.#useCache ? persistentLayerManifests() : undefined;
    this.#pointerBits = options.pointerBits ?? 64;
    this.#messages = messages;
    this.#candidates = candidates;
  }

  readAll(files: readonly FoundManifestFile[], implicit: boolean): LayerManifest[] {
    const out: LayerManifest[] = [];
    const now = Date.now();
    for (const file of files) {
      const { result, fileReason } = readLayerManifestCached(
        file.path,
        implicit,
        this.#pointerBits,
        this.#useCache,
        now,
        this,
        this.#persistent,
      );
      const source = file.location.source;
      if (fileReason !== undefined) {
        this.#candidates.push({
          manifestPath: file.path,
          implicit,
          source,
          status: "skipped",
          reason: fileReason,
        });
        this.#messages.push({
          level: "warn",
          category: "layer",
          text: `Skipping layer manifest "${file.path}": ${fileReason}`,
        });
        continue;
      }
      this.#messages.push(...result.messages);
      for (const skipped of result.skipped) {
        this.#candidates.push({
          manifestPath: file.path,
          name: skipped.name,
          implicit,
          source,
          status: "skipped",
          reason: skipped.reason,
        });
      }
      for (const layer of result.layers) {
        this.#candidates.push({
          manifestPath: file.path,
          name: layer.name,
          implicit,
          source,
          status: "used",
          reason: "found",
          layer,
        });
        out.push(layer);
      }
    }
    return out;
  }

  /** Keeps what this scan parsed for the next process (persistent_manifests.ts). */
  finish(): void {
    this.#persistent?.finish();
  }
}

function info(text: string): LayerMessage {
  return { level: "info", category: "layer", text };
}
