/**
 * Which layers an instance gets, in chain order, and why (docs/behaviour.md F01-F10, O03, O05): a pure
 * function of the environment snapshot, the discovered layers, the requested layer names and the executable.
 *
 * @example Activating layers for an application
 * ```ts
 * import { activateLayers } from "./layer_activation.ts";
 * import { discoverLayers } from "./layers.ts";
 * const env = { vars: {}, elevated: false, root: "/nonexistent" };
 * const result = activateLayers(env, discoverLayers(env), { requestedLayers: [] });
 * console.log(result.ok && result.layers.length); // 0
 * ```
 *
 * @module
 */

import { formatVersion } from "./manifest_file.ts";
import { type EnvironmentSnapshot, getenv } from "./environment.ts";
import {
  forcedOnByFilter,
  implicitVariablesVerdict,
  type LayerFilters,
  layerFilterVerdict,
  readLayerFilters,
} from "./_layer_filters.ts";
import {
  isOverrideLayer,
  type LayerExtension,
  type LayerManifest,
  type LayerMessage,
} from "./layer_manifest.ts";
import type { LayerDiscovery } from "./layers.ts";
import { expandLayer } from "./meta_layers.ts";

/** What put a layer in the chain. */
export type LayerActivationSource =
  | "implicit"
  | "VK_INSTANCE_LAYERS"
  | "VK_LOADER_LAYERS_ENABLE"
  | "application"
  | "settings";

/**
 * One layer library in the chain.
 *
 * @example Usage
 * ```ts
 * import type { ActiveLayer } from "./layer_activation.ts";
 * const describe = (a: ActiveLayer) => `${a.layer.name}: ${a.reason}`;
 * ```
 */
export interface ActiveLayer {
  /** The layer (never a meta layer: those are expanded). */
  readonly layer: LayerManifest;
  /** What put it in the chain (for a component: what enabled its meta layer). */
  readonly source: LayerActivationSource;
  /** The meta layer it came through, when it is a component. */
  readonly via?: string;
  /** Why it is active, as a sentence fragment. */
  readonly reason: string;
}

/**
 * Success: the chain.
 *
 * @example Usage
 * ```ts
 * import type { LayerActivationOk } from "./layer_activation.ts";
 * const names = (r: LayerActivationOk) => r.layers.map((a) => a.layer.name);
 * ```
 */
export interface LayerActivationOk {
  /** Always true. */
  readonly ok: true;
  /** Layers to load, in chain order, first closest to the application. */
  readonly layers: readonly ActiveLayer[];
  /**
   * The activated layers as `vkEnumerateDeviceLayerProperties` lists them (F11):
   * libraries in chain order, each meta layer right after its components.
   */
  readonly activatedLayers: readonly LayerManifest[];
  /** Log lines (`Insert instance layer ...`, warnings) for loading/log.ts. */
  readonly messages: readonly LayerMessage[];
}

/**
 * Failure: a requested layer is not available.
 *
 * @example Usage
 * ```ts
 * import type { LayerActivationError } from "./layer_activation.ts";
 * const text = (e: LayerActivationError) => `${e.result}: ${e.message}`;
 * ```
 */
export interface LayerActivationError {
  /** Always false. */
  readonly ok: false;
  /** The `VkResult` `vkCreateInstance` returns. */
  readonly result: "VK_ERROR_LAYER_NOT_PRESENT";
  /** The requested name that failed. */
  readonly layerName: string;
  /** A sentence naming the layer and why (`Layer "X" requested by the application was not found`). */
  readonly message: string;
  /** Log lines, the error among them. */
  readonly messages: readonly LayerMessage[];
}

/** The result of {@linkcode activateLayers}. */
export type LayerActivation = LayerActivationOk | LayerActivationError;

/**
 * Options for {@linkcode activateLayers}.
 *
 * @example Usage
 * ```ts
 * import type { ActivateLayersOptions } from "./layer_activation.ts";
 * const o: ActivateLayersOptions = { requestedLayers: ["VK_LAYER_KHRONOS_validation"], apiVersion: 4206592 };
 * ```
 */
export interface ActivateLayersOptions {
  /** `VkInstanceCreateInfo.ppEnabledLayerNames`. */
  readonly requestedLayers?: readonly string[];
  /** `VkApplicationInfo.apiVersion`, packed; layers older than it only get a warning (F10). */
  readonly apiVersion?: number;
}

/**
 * Computes the layer chain for `vkCreateInstance`. Pass the discovery made
 * with the same snapshot (and executable path, for the override layer).
 *
 * @example Usage
 * ```ts
 * import { activateLayers } from "./layer_activation.ts";
 * import { discoverLayers } from "./layers.ts";
 * const env = { vars: {}, elevated: false, root: "/nonexistent" };
 * const r = activateLayers(env, discoverLayers(env), { requestedLayers: ["VK_LAYER_missing"] });
 * console.log(r.ok ? "ok" : r.result); // "VK_ERROR_LAYER_NOT_PRESENT"
 * ```
 */
export function activateLayers(
  env: EnvironmentSnapshot,
  discovery: LayerDiscovery,
  options: ActivateLayersOptions = {},
): LayerActivation {
  const messages: LayerMessage[] = [];
  const filters = readLayerFilters(env);
  const byName = new Map(discovery.layers.map((l) => [l.name, l]));
  const requested = options.requestedLayers ?? [];

  for (const name of requested) {
    if (byName.has(name)) continue;
    const message = `Layer "${name}" requested by the application ${whyMissing(discovery, name)}`;
    messages.push({ level: "error", category: "layer", text: message });
    return { ok: false, result: "VK_ERROR_LAYER_NOT_PRESENT", layerName: name, message, messages };
  }

  const chain = new ChainBuilder(env, filters, byName, discovery.overrideLayer);
  const envLayers = (getenv(env, "VK_INSTANCE_LAYERS") ?? "").split(":").filter((n) => n !== "");
  if (discovery.settingsLayers !== undefined) {
    addSettingsLayers(chain, env, filters, discovery, [...envLayers, ...requested], messages);
    return finishActivation(chain, options, messages);
  }
  const envNamed = new Set(envLayers);

  for (const layer of discovery.layers) {
    if (!layer.implicit || envNamed.has(layer.name)) continue;
    const verdict = implicitLayerVerdict(env, filters, layer, discovery.overrideLayer);
    if (verdict.enabled) chain.add(layer, "implicit", verdict.reason);
    else {messages.push({
        level: "debug",
        category: "layer",
        text: `Implicit layer "${layer.name}" is off: ${verdict.reason}`,
      });}
  }

  for (const name of envLayers) {
    const layer = byName.get(name);
    if (layer === undefined) {
      messages.push({
        level: "warn",
        category: "layer",
        text: `Layer "${name}" requested by env var VK_INSTANCE_LAYERS ${whyMissing(discovery, name)}`,
      });
      continue;
    }
    chain.add(layer, "VK_INSTANCE_LAYERS", "named in VK_INSTANCE_LAYERS");
  }

  for (const layer of discovery.layers) {
    if (layer.implicit || !forcedOnByFilter(filters, layer.name) || chain.has(layer.name)) continue;
    messages.push({
      level: "warn",
      category: "layer",
      text: `Layer "${layer.name}" forced enabled due to env var 'VK_LOADER_LAYERS_ENABLE'`,
    });
    chain.add(layer, "VK_LOADER_LAYERS_ENABLE", "matches VK_LOADER_LAYERS_ENABLE");
  }

  for (const name of requested) {
    const layer = byName.get(name);
    if (layer !== undefined) chain.add(layer, "application", "requested by the application");
  }

  return finishActivation(chain, options, messages);
}

/**
 * Settings-file order (the Khronos loader's `enable_correct_layers_from_settings`): the list in its order;
 * `on` layers always, `auto` ones when VK_LOADER_LAYERS_DISABLE spares them and VK_LOADER_LAYERS_ENABLE,
 * VK_INSTANCE_LAYERS, the application or (implicit layers) their variables enable them.
 */
function addSettingsLayers(
  chain: ChainBuilder,
  env: EnvironmentSnapshot,
  filters: LayerFilters,
  discovery: LayerDiscovery,
  named: readonly string[],
  messages: LayerMessage[],
): void {
  const controls = discovery.settingsLayers?.controls;
  const file = discovery.settingsFile?.settings?.path ?? "the loader settings file";
  for (const layer of discovery.layers) {
    const control = controls?.get(layer) ?? "auto";
    if (control === "on") {
      chain.add(layer, "settings", `on in "${file}"`);
      continue;
    }
    const verdict = layerFilterVerdict(filters, layer);
    if (verdict !== undefined) {
      messages.push({ level: "warn", category: "layer", text: `Layer "${layer.name}" ${verdict}` });
      continue;
    }
    if (forcedOnByFilter(filters, layer.name)) {
      chain.add(
        layer,
        "VK_LOADER_LAYERS_ENABLE",
        "matches VK_LOADER_LAYERS_ENABLE (auto in the settings file)",
      );
    } else if (named.includes(layer.name)) {
      chain.add(layer, "application", "requested (auto in the settings file)");
    } else if (layer.implicit) {
      const state = implicitLayerVerdict(env, filters, layer, discovery.overrideLayer);
      if (state.enabled) chain.add(layer, "implicit", `${state.reason} (auto in the settings file)`);
    }
  }
}

function finishActivation(
  chain: ChainBuilder,
  options: ActivateLayersOptions,
  messages: LayerMessage[],
): LayerActivationOk {
  if (options.apiVersion !== undefined) {
    const appMajorMinor = (options.apiVersion >>> 12) & 0x1ffff;
    for (const active of chain.layers) {
      if (((active.layer.apiVersion >>> 12) & 0x1ffff) < appMajorMinor) {
        messages.push({
          level: "warn",
          category: "layer",
          text: `Layer "${active.layer.name}" uses API version ${
            formatVersion(active.layer.apiVersion)
          } which is older than the application specified API version of ${
            formatVersion(options.apiVersion)
          }. May cause issues`,
        });
      }
    }
  }
  for (const active of chain.layers) {
    messages.push({
      level: "info",
      category: "layer",
      text: `Insert instance layer "${active.layer.name}" (${active.layer.libraryPath}): ${active.reason}`,
    });
  }
  return { ok: true, layers: chain.layers, activatedLayers: chain.activated, messages };
}

/**
 * Whether an implicit layer is on by itself (its variables, the
 * `VK_LOADER_LAYERS_ENABLE` filter, or being a component of the active
 * override layer), and why.
 *
 * @example Usage
 * ```ts
 * import { implicitLayerState } from "./layer_activation.ts";
 * import type { LayerManifest } from "./layer_manifest.ts";
 * const env = { vars: { DISABLE_X: "0" }, elevated: false };
 * const check = (layer: LayerManifest) => implicitLayerState(env, layer).enabled;
 * ```
 */
export function implicitLayerState(
  env: EnvironmentSnapshot,
  layer: LayerManifest,
  overrideLayer?: LayerManifest,
): { enabled: boolean; reason: string } {
  return implicitLayerVerdict(env, readLayerFilters(env), layer, overrideLayer);
}

/**
 * The instance extensions that enabled implicit layers add to
 * `vkEnumerateInstanceExtensionProperties(NULL)`: those of every layer the
 * implicit pass of {@linkcode activateLayers} would load, each name once.
 *
 * @example Usage
 * ```ts
 * import { implicitLayerInstanceExtensions } from "./layer_activation.ts";
 * import { discoverLayers } from "./layers.ts";
 * const env = { vars: {}, elevated: false, root: "/nonexistent" };
 * console.log(implicitLayerInstanceExtensions(env, discoverLayers(env)).length); // 0
 * ```
 */
export function implicitLayerInstanceExtensions(
  env: EnvironmentSnapshot,
  discovery: LayerDiscovery,
): LayerExtension[] {
  const filters = readLayerFilters(env);
  const byName = new Map(discovery.layers.map((l) => [l.name, l]));
  const chain = new ChainBuilder(env, filters, byName, discovery.overrideLayer);
  if (discovery.settingsLayers !== undefined) {
    // The settings file's "on" layers are always active, like enabled implicit ones.
    addSettingsLayers(chain, env, filters, discovery, [], []);
  } else {
    for (const layer of discovery.layers) {
      if (!layer.implicit) continue;
      const verdict = implicitLayerVerdict(env, filters, layer, discovery.overrideLayer);
      if (verdict.enabled) chain.add(layer, "implicit", verdict.reason);
    }
  }
  const out: LayerExtension[] = [];
  const seen = new Set<string>();
  for (const layer of chain.activated) {
    for (const ext of layer.instanceExtensions) {
      if (seen.has(ext.name)) continue;
      seen.add(ext.name);
      out.push(ext);
    }
  }
  return out;
}

function implicitLayerVerdict(
  env: EnvironmentSnapshot,
  filters: LayerFilters,
  layer: LayerManifest,
  overrideLayer: LayerManifest | undefined,
): { enabled: boolean; reason: string } {
  const verdict = implicitVariablesVerdict(env, layer);
  if (verdict.enabled) return verdict;
  if (overrideLayer !== undefined && overrideLayer.componentLayers?.includes(layer.name)) {
    return { enabled: true, reason: `component of the override layer (${verdict.reason}, ignored)` };
  }
  // The disable variable beats VK_LOADER_LAYERS_ENABLE (docs/behaviour.md F08): the current Khronos loader
  // applies the forced enable first, then turns the layer off again when disable_environment is set.
  const disable = layer.disableEnvironment;
  const disabledByVariable = disable !== undefined && getenv(env, disable.name) !== undefined;
  if (forcedOnByFilter(filters, layer.name) && !disabledByVariable) {
    return { enabled: true, reason: `forced on by VK_LOADER_LAYERS_ENABLE (${verdict.reason})` };
  }
  return verdict;
}

function whyMissing(discovery: LayerDiscovery, name: string): string {
  const candidate = discovery.candidates.find((c) => c.name === name && c.status !== "duplicate");
  if (candidate === undefined || candidate.status === "used") return "was not found";
  return `is not available: ${candidate.reason} ("${candidate.manifestPath}")`;
}

class ChainBuilder {
  readonly layers: ActiveLayer[] = [];
  readonly activated: LayerManifest[] = [];
  readonly #names = new Set<string>();
  readonly #activatedNames = new Set<string>();
  readonly #env: EnvironmentSnapshot;
  readonly #filters: LayerFilters;
  readonly #byName: ReadonlyMap<string, LayerManifest>;
  readonly #override: LayerManifest | undefined;

  constructor(
    env: EnvironmentSnapshot,
    filters: LayerFilters,
    byName: ReadonlyMap<string, LayerManifest>,
    override: LayerManifest | undefined,
  ) {
    this.#env = env;
    this.#filters = filters;
    this.#byName = byName;
    this.#override = override;
  }

  has(name: string): boolean {
    return this.#names.has(name) || this.#activatedNames.has(name);
  }

  add(layer: LayerManifest, source: LayerActivationSource, reason: string): void {
    if (layer.componentLayers === undefined) {
      this.#push(layer, source, reason);
      return;
    }
    if (this.#activatedNames.has(layer.name)) return;
    const components = expandLayer(layer, this.#byName, (component, meta) => {
      if (!component.implicit || component.componentLayers !== undefined) return true;
      if (isOverrideLayer(meta) && meta === this.#override) return true;
      return implicitLayerVerdict(this.#env, this.#filters, component, this.#override).enabled;
    });
    for (const component of components) {
      this.#push(component, source, `component of meta layer "${layer.name}" (${reason})`, layer.name);
    }
    this.#activatedNames.add(layer.name);
    this.activated.push(layer);
  }

  #push(layer: LayerManifest, source: LayerActivationSource, reason: string, via?: string): void {
    if (this.#names.has(layer.name)) return;
    this.#names.add(layer.name);
    this.#activatedNames.add(layer.name);
    this.layers.push({ layer, source, via, reason });
    this.activated.push(layer);
  }
}
