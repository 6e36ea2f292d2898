/**
 * Layer extensions in enumeration and at create time (docs/behaviour.md A02, A04, A05).
 *
 * @example Checking requested extensions
 * ```ts
 * import { firstUnsupportedExtension } from "./extensions.ts";
 * console.log(firstUnsupportedExtension(["VK_KHR_surface", "VK_EXT_x"], ["VK_KHR_surface"], [], "instance"));
 * // "VK_EXT_x"
 * ```
 *
 * @module
 */

import { implicitLayerInstanceExtensions } from "../../discovery/layer_activation.ts";
import type { LayerExtension, LayerManifest } from "../../discovery/layer_manifest.ts";
import type { LayerDiscovery } from "../../discovery/layers.ts";
import { layerExtensionProperties } from "../../discovery/layer_properties.ts";
import type { EnvironmentSnapshot } from "../../discovery/environment.ts";
import { isInstanceExtensionFilterLifted, listsLayerExtension } from "../extensions/platform.ts";
import type { ModuleLayerLoader } from "./module_interface.ts";

/**
 * `discovery` with the script-module layers' manifests described by `loader` (their layers' extensions
 * merged in): a TS layer's extensions count wherever a manifest's do.
 *
 * @example Usage
 * ```ts
 * import { withModuleLayers } from "./extensions.ts";
 * import { discoverLayers } from "../../discovery/layers.ts";
 * const discovery = discoverLayers({ vars: {}, elevated: false, root: "/nonexistent" });
 * console.log(withModuleLayers(discovery, undefined) === discovery); // true
 * ```
 */
export function withModuleLayers(
  discovery: LayerDiscovery,
  loader: ModuleLayerLoader | undefined,
): LayerDiscovery {
  const describe = loader?.describe;
  if (describe === undefined || !discovery.layers.some((l) => loader!.handles(l))) return discovery;
  return { ...discovery, layers: discovery.layers.map((l) => loader!.handles(l) ? describe(l) : l) };
}

/**
 * An extension as enumeration returns it.
 *
 * @example Usage
 * ```ts
 * import type { ExtensionEntry } from "./extensions.ts";
 * const e: ExtensionEntry = { name: "VK_EXT_debug_utils", specVersion: 2 };
 * ```
 */
export interface ExtensionEntry {
  /** `VkExtensionProperties.extensionName`. */
  readonly name: string;
  /** `VkExtensionProperties.specVersion`. */
  readonly specVersion: number;
}

/**
 * Appends the extensions of the implicit layers that would load to a global
 * instance extension list (drivers' and the loader's first; a name already
 * there keeps its first entry).
 *
 * @example Usage
 * ```ts
 * import { withImplicitLayerExtensions } from "./extensions.ts";
 * import { discoverLayers } from "../../discovery/layers.ts";
 * const env = { vars: {}, elevated: false, root: "/nonexistent" };
 * const list = withImplicitLayerExtensions([{ name: "VK_KHR_surface", specVersion: 25 }], env, discoverLayers(env));
 * console.log(list.length); // 1
 * ```
 */
export function withImplicitLayerExtensions(
  base: readonly ExtensionEntry[],
  env: EnvironmentSnapshot,
  discovery: LayerDiscovery,
): ExtensionEntry[] {
  // Other platforms' window-system extensions are dropped from layers' lists too (docs/behaviour.md LM06),
  // unless VK_LOADER_DISABLE_INST_EXT_FILTER lifts the filter (chain/extensions/platform.ts).
  const lifted = isInstanceExtensionFilterLifted(env);
  const layers = implicitLayerInstanceExtensions(env, discovery).filter((e) =>
    listsLayerExtension(e.name, lifted)
  );
  return mergeExtensions(base, layers);
}

/**
 * What `vkEnumerate{Instance,Device}ExtensionProperties(pLayerName)` returns
 * for a named layer, or `undefined` when the layer is not available
 * (`VK_ERROR_LAYER_NOT_PRESENT`).
 *
 * @example Usage
 * ```ts
 * import { layerExtensions } from "./extensions.ts";
 * import { discoverLayers } from "../../discovery/layers.ts";
 * const env = { vars: {}, elevated: false, root: "/nonexistent" };
 * console.log(layerExtensions(discoverLayers(env), "VK_LAYER_missing", "instance")); // undefined
 * ```
 */
export function layerExtensions(
  discovery: LayerDiscovery,
  layerName: string,
  kind: "instance" | "device",
): ExtensionEntry[] | undefined {
  return layerExtensionProperties(discovery, layerName, kind)?.map(toEntry);
}

/**
 * The first requested extension that neither a driver nor an enabled layer
 * offers, or `undefined` when all are available.
 *
 * @example Usage
 * ```ts ignore
 * import { firstUnsupportedExtension } from "./extensions.ts";
 * import type { LayerManifest } from "../../discovery/layer_manifest.ts";
 * declare const validation: LayerManifest; // lists VK_EXT_debug_utils
 * firstUnsupportedExtension(["VK_EXT_debug_utils"], [], [validation], "instance"); // undefined
 * ```
 */
export function firstUnsupportedExtension(
  requested: readonly string[],
  driverExtensions: Iterable<string>,
  enabledLayers: readonly LayerManifest[],
  kind: "instance" | "device",
): string | undefined {
  // Nothing asked (the common vkCreateDevice): no set of the driver's ~150 names to build.
  if (requested.length === 0) return undefined;
  const available = new Set(driverExtensions);
  for (const layer of enabledLayers) {
    for (const ext of kind === "instance" ? layer.instanceExtensions : layer.deviceExtensions) {
      available.add(ext.name);
    }
  }
  return requested.find((name) => !available.has(name));
}

/**
 * Concatenates extension lists, each name once (first entry wins).
 *
 * @example Usage
 * ```ts
 * import { mergeExtensions } from "./extensions.ts";
 * mergeExtensions([{ name: "a", specVersion: 1 }], [{ name: "a", specVersion: 2, entrypoints: [] }]);
 * // [{ name: "a", specVersion: 1 }]
 * ```
 */
export function mergeExtensions(
  ...lists: readonly (readonly (ExtensionEntry | LayerExtension)[])[]
): ExtensionEntry[] {
  const out: ExtensionEntry[] = [];
  const seen = new Set<string>();
  for (const list of lists) {
    for (const e of list) {
      if (seen.has(e.name)) continue;
      seen.add(e.name);
      out.push(toEntry(e));
    }
  }
  return out;
}

function toEntry(e: ExtensionEntry | LayerExtension): ExtensionEntry {
  return { name: e.name, specVersion: e.specVersion };
}
