/**
 * The interface through which layers written as script modules plug into the layer chain
 * (chain/layer_chain/chain.ts): the chain defines it and layers/ implements it (layers/module_layer.ts
 * `moduleLayerLoader`), so the chain never imports the TS layer API, as wsi/ plugs in through
 * chain/wsi_interface.ts.
 *
 * @module
 */

import type { LayerManifest } from "../../discovery/layer_manifest.ts";

/**
 * A layer's chain link that is no shared library (a TS layer): the entry points a negotiated
 * `LayerLibrary` (loading/layer_library.ts) offers, which the chain reads from it the same way.
 */
export interface ModuleLayerLink extends Disposable {
  /** The layer's manifest record. */
  readonly layer: LayerManifest;
  /** Where the layer came from (its module path). */
  readonly path: string;
  /** The loader/layer interface version it speaks. */
  readonly interfaceVersion: number;
  /** Its `vkGetInstanceProcAddr`. */
  readonly getInstanceProcAddr: Deno.PointerObject;
  /** Its `vkGetDeviceProcAddr`, or null. */
  readonly getDeviceProcAddr: Deno.PointerValue;
  /** Its `vk_layerGetPhysicalDeviceProcAddr`, or null. */
  readonly getPhysicalDeviceProcAddr: Deno.PointerValue;
  /** True once released. */
  readonly released: boolean;
  /** An exported C symbol (pre-instance functions), or null. */
  symbolAddress(name: string): Deno.PointerValue;
  /** Disposes the link (after the instance is destroyed). */
  release(): void;
}

/**
 * Loads layers whose manifest's `library_path` is not a shared library. The chain defines it and layers/
 * implements it, so that the chain never imports the TS layer API.
 *
 * @example A loader that takes no manifest
 * ```ts
 * import type { ModuleLayerLoader } from "./module_interface.ts";
 * const none: ModuleLayerLoader = {
 *   handles: () => false,
 *   load: (m) => {
 *     throw new TypeError(`Cannot load layer "${m.name}"`);
 *   },
 * };
 * console.log(none.handles({ libraryPath: "/opt/mine.ts" })); // false
 * ```
 */
export interface ModuleLayerLoader {
  /** Whether `manifest`'s library is one this loader loads. */
  handles(manifest: Pick<LayerManifest, "libraryPath">): boolean;
  /**
   * The layer's chain link.
   *
   * @throws {Error} If the layer cannot be loaded (the chain reports it as a layer that failed to load).
   */
  load(manifest: LayerManifest): ModuleLayerLink;
  /**
   * `manifest` with what its module's layer declares merged in (its instance and device extensions, after
   * the manifest's own), so that enumeration and the create-time checks count them as a manifest's; the
   * manifest itself when the layer is not at hand.
   */
  describe?(manifest: LayerManifest): LayerManifest;
}
