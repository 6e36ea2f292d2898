/**
 * Layer libraries: each opened once per process however many layers and instances use it, negotiated with
 * (interfaces 0 to 2) and closed when the last user releases it (docs/behaviour.md LI01, LI02, LM05, LI11, F12).
 *
 * @example Loading a layer
 * ```ts ignore
 * import { LayerLibrary } from "./layer_library.ts";
 * import type { LayerManifest } from "../discovery/layer_manifest.ts";
 * declare const manifest: LayerManifest;
 * using layer = LayerLibrary.load(manifest);
 * console.log(layer.interfaceVersion, layer.getDeviceProcAddr !== null);
 * ```
 *
 * @module
 */

import type { LayerManifest } from "../discovery/layer_manifest.ts";
import { Library } from "../ffi/library.ts";
import type { Logger } from "./log.ts";

/** The loader/layer interface version this loader offers. */
export const CURRENT_LOADER_LAYER_INTERFACE_VERSION = 2;
/** The oldest interface version a negotiating layer may answer. */
export const MIN_SUPPORTED_LOADER_LAYER_INTERFACE_VERSION = 1;
/** `LAYER_NEGOTIATE_INTERFACE_STRUCT`. */
export const LAYER_NEGOTIATE_INTERFACE_STRUCT = 1;

/** Byte offsets of `VkNegotiateLayerInterface` (LP64), checked against vk_layer.h by the tests. */
export const NEGOTIATE_LAYER_INTERFACE_LAYOUT = {
  size: 48,
  sType: 0,
  pNext: 8,
  loaderLayerInterfaceVersion: 16,
  pfnGetInstanceProcAddr: 24,
  pfnGetDeviceProcAddr: 32,
  pfnGetPhysicalDeviceProcAddr: 40,
} as const;

/** Why a layer could not be loaded. */
export type LayerLoadFailure = "failed to load" | "negotiation failed" | "missing vkGetInstanceProcAddr";

/**
 * A layer that cannot be loaded; `failure` says at which step.
 *
 * @example Usage
 * ```ts
 * import { LayerLoadError } from "./layer_library.ts";
 * const e = new LayerLoadError("VK_LAYER_x", "failed to load", 'Cannot load layer "VK_LAYER_x": no such file');
 * console.log(e.layerName, e.failure);
 * ```
 */
export class LayerLoadError extends Error {
  /** The layer's name. */
  readonly layerName: string;
  /** The step that failed. */
  readonly failure: LayerLoadFailure;

  /** An error for `layerName` failing at `failure`. */
  constructor(layerName: string, failure: LayerLoadFailure, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "LayerLoadError";
    this.layerName = layerName;
    this.failure = failure;
  }
}

/** What negotiation (or the interface 0/1 lookups) gave for one layer. */
export interface LayerInterface {
  /** The interface version in use: the negotiated one, or 1 without negotiation. */
  readonly interfaceVersion: number;
  /** True when the library has a negotiation function and it succeeded. */
  readonly negotiated: boolean;
  /** The layer's `vkGetInstanceProcAddr` (never null). */
  readonly getInstanceProcAddr: Deno.PointerObject;
  /** The layer's `vkGetDeviceProcAddr`; null: the layer takes no part in device chains. */
  readonly getDeviceProcAddr: Deno.PointerValue;
  /** The layer's `vk_layerGetPhysicalDeviceProcAddr` (interface 2 only), or null. */
  readonly getPhysicalDeviceProcAddr: Deno.PointerValue;
}

interface OpenLibrary {
  readonly library: Library;
  refs: number;
  /** Never closed (`VK_LOADER_DISABLE_DYNAMIC_LIBRARY_UNLOADING=1` when it was loaded). */
  pinned: boolean;
  readonly interfaces: Map<string, LayerInterface>;
}

/**
 * Options of {@linkcode LayerLibrary.load}.
 *
 * @example Usage
 * ```ts
 * import type { LayerLoadOptions } from "./layer_library.ts";
 * const o: LayerLoadOptions = { keepLoaded: true };
 * ```
 */
export interface LayerLoadOptions {
  /** Where negotiation failures and load messages go. */
  readonly log?: Logger;
  /**
   * Never close the library, even after its last release
   * (`VK_LOADER_DISABLE_DYNAMIC_LIBRARY_UNLOADING=1`, LI11): for layers whose
   * threads or destructors outlive their instance.
   */
  readonly keepLoaded?: boolean;
}

const NEGOTIATE_DEF = { parameters: ["pointer"], result: "i32" } as const;

/**
 * One use of a layer library by one instance: the library stays open until
 * every {@linkcode LayerLibrary} on it is released.
 *
 * @example Usage
 * ```ts ignore
 * import { LayerLibrary } from "./layer_library.ts";
 * import type { LayerManifest } from "../discovery/layer_manifest.ts";
 * declare const manifest: LayerManifest;
 * const a = LayerLibrary.load(manifest);
 * const b = LayerLibrary.load(manifest); // same library, not opened again
 * a.release();
 * b.release(); // closed here
 * ```
 */
export class LayerLibrary implements Disposable {
  static #open = new Map<string, OpenLibrary>();
  static #live = 0;
  readonly #entry: OpenLibrary;
  readonly #path: string;
  #released = false;
  /** The layer's manifest record. */
  readonly layer: LayerManifest;
  /** The layer's entry points and interface version. */
  readonly interface: LayerInterface;

  private constructor(layer: LayerManifest, path: string, entry: OpenLibrary, iface: LayerInterface) {
    this.layer = layer;
    this.#path = path;
    this.#entry = entry;
    this.interface = iface;
    LayerLibrary.#live++;
  }

  /**
   * Opens (or reuses) the layer's library and negotiates with it.
   *
   * @example Usage
   * ```ts ignore
   * import { LayerLibrary, LayerLoadError } from "./layer_library.ts";
   * import type { LayerManifest } from "../discovery/layer_manifest.ts";
   * declare const manifest: LayerManifest;
   * try {
   *   LayerLibrary.load(manifest).release();
   * } catch (e) {
   *   if (e instanceof LayerLoadError) console.log(e.failure);
   * }
   * ```
   * @throws {LayerLoadError} If the library cannot be opened, negotiation fails, or it has no
   * `vkGetInstanceProcAddr`.
   * @throws {TypeError} If the layer is a meta layer (it has no library).
   */
  static load(layer: LayerManifest, options: LayerLoadOptions = {}): LayerLibrary {
    const path = layer.libraryPath;
    if (path === undefined) {
      throw new TypeError(`Cannot load layer "${layer.name}": it is a meta layer and has no library`);
    }
    let entry = LayerLibrary.#open.get(path);
    let opened = false;
    if (entry === undefined) {
      let library: Library;
      try {
        library = Library.open(path);
      } catch (error) {
        throw new LayerLoadError(
          layer.name,
          "failed to load",
          `Cannot load layer "${layer.name}" ("${layer.manifestPath}"): ${(error as Error).message}`,
          { cause: error },
        );
      }
      entry = { library, refs: 0, interfaces: new Map(), pinned: false };
      opened = true;
    }
    let iface = entry.interfaces.get(layer.name);
    if (iface === undefined) {
      try {
        iface = negotiate(layer, entry.library, options.log);
      } catch (error) {
        if (opened) entry.library.close();
        throw error;
      }
      entry.interfaces.set(layer.name, iface);
    }
    if (opened) LayerLibrary.#open.set(path, entry);
    if (options.keepLoaded) entry.pinned = true;
    entry.refs++;
    options.log?.debug(
      `Loaded layer "${layer.name}" from "${path}" (interface ${iface.interfaceVersion}${
        iface.negotiated ? ", negotiated" : ""
      }${iface.getDeviceProcAddr === null ? ", instance chain only" : ""})`,
      "layer",
    );
    return new LayerLibrary(layer, path, entry, iface);
  }

  /** Uses of layer libraries not yet released, across the process. */
  static get liveCount(): number {
    return LayerLibrary.#live;
  }

  /** Paths of the layer libraries open now. */
  static openPaths(): string[] {
    return [...LayerLibrary.#open.keys()];
  }

  /** The library path as the dynamic linker got it. */
  get path(): string {
    return this.#path;
  }

  /** True once {@linkcode LayerLibrary.release} ran. */
  get released(): boolean {
    return this.#released;
  }

  /** The negotiated (or assumed) interface version. */
  get interfaceVersion(): number {
    return this.interface.interfaceVersion;
  }

  /** The layer's `vkGetInstanceProcAddr`. */
  get getInstanceProcAddr(): Deno.PointerObject {
    return this.interface.getInstanceProcAddr;
  }

  /** The layer's `vkGetDeviceProcAddr`, or null. */
  get getDeviceProcAddr(): Deno.PointerValue {
    return this.interface.getDeviceProcAddr;
  }

  /** The layer's `vk_layerGetPhysicalDeviceProcAddr`, or null. */
  get getPhysicalDeviceProcAddr(): Deno.PointerValue {
    return this.interface.getPhysicalDeviceProcAddr;
  }

  /**
   * The address of an exported symbol of the layer's library (pre-instance
   * functions), or null.
   *
   * @example Usage
   * ```ts ignore
   * import { LayerLibrary } from "./layer_library.ts";
   * declare const layer: LayerLibrary;
   * layer.symbolAddress("vkNegotiateLoaderLayerInterfaceVersion");
   * ```
   * @throws {TypeError} If this use was released.
   */
  symbolAddress(name: string): Deno.PointerValue {
    if (this.#released) {
      throw new TypeError(`Cannot look up "${name}": layer "${this.layer.name}" was released`);
    }
    return this.#entry.library.symbolAddress(name);
  }

  /**
   * Ends this use; the library is closed when it was the last one. Call it
   * only once no dispatch table or chain points into the library.
   *
   * @example Usage
   * ```ts ignore
   * import { LayerLibrary } from "./layer_library.ts";
   * declare const layer: LayerLibrary;
   * layer.release();
   * ```
   */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    LayerLibrary.#live--;
    this.#entry.refs--;
    if (this.#entry.refs > 0 || this.#entry.pinned) return;
    LayerLibrary.#open.delete(this.#path);
    this.#entry.library.close();
  }

  /** Same as {@linkcode LayerLibrary.release}, for `using`. */
  [Symbol.dispose](): void {
    this.release();
  }
}

/**
 * Runs interface negotiation (or the interface 0/1 lookups) on an open
 * library, as the loader does right after opening it.
 *
 * @example Usage
 * ```ts ignore
 * import { negotiate } from "./layer_library.ts";
 * import { Library } from "../ffi/library.ts";
 * import type { LayerManifest } from "../discovery/layer_manifest.ts";
 * declare const manifest: LayerManifest;
 * using lib = Library.open(manifest.libraryPath!);
 * console.log(negotiate(manifest, lib).interfaceVersion);
 * ```
 * @throws {LayerLoadError} If negotiation fails or no `vkGetInstanceProcAddr` is found.
 */
export function negotiate(layer: LayerManifest, library: Library, log?: Logger): LayerInterface {
  const negotiateName = layer.functions.negotiateLoaderLayerInterfaceVersion ??
    "vkNegotiateLoaderLayerInterfaceVersion";
  const negotiatePtr = library.symbolAddress(negotiateName);
  let interfaceVersion = 1;
  let negotiated = false;
  let gipa: Deno.PointerValue = null;
  let gdpa: Deno.PointerValue = null;
  let gpdpa: Deno.PointerValue = null;
  if (negotiatePtr !== null) {
    const L = NEGOTIATE_LAYER_INTERFACE_LAYOUT;
    const struct = new Uint8Array(new ArrayBuffer(L.size));
    const view = new DataView(struct.buffer);
    view.setUint32(L.sType, LAYER_NEGOTIATE_INTERFACE_STRUCT, true);
    view.setUint32(L.loaderLayerInterfaceVersion, CURRENT_LOADER_LAYER_INTERFACE_VERSION, true);
    const fn = new Deno.UnsafeFnPointer(negotiatePtr as Deno.PointerObject<never>, NEGOTIATE_DEF);
    const result = fn.call(Deno.UnsafePointer.of(struct));
    const answered = view.getUint32(L.loaderLayerInterfaceVersion, true);
    const refuse = (why: string): never => {
      const text = `Cannot load layer "${layer.name}" ("${layer.manifestPath}"): ${negotiateName} ${why}`;
      log?.warn(text, "layer");
      throw new LayerLoadError(layer.name, "negotiation failed", text);
    };
    if (result !== 0) refuse(`returned ${result}`);
    if (answered < MIN_SUPPORTED_LOADER_LAYER_INTERFACE_VERSION) {
      refuse(`answered interface version ${answered}, older than the oldest supported (1)`);
    }
    if (answered > CURRENT_LOADER_LAYER_INTERFACE_VERSION) {
      refuse(
        `answered interface version ${answered}, newer than the offered ${CURRENT_LOADER_LAYER_INTERFACE_VERSION}`,
      );
    }
    interfaceVersion = answered;
    negotiated = true;
    if (answered >= 2) {
      gipa = pointerAt(view, L.pfnGetInstanceProcAddr);
      gdpa = pointerAt(view, L.pfnGetDeviceProcAddr);
      gpdpa = pointerAt(view, L.pfnGetPhysicalDeviceProcAddr);
    }
  }
  // Names are looked up only for what negotiation did not hand over (LM05).
  if (gipa === null) {
    const name = layer.functions.getInstanceProcAddr ?? "vkGetInstanceProcAddr";
    gipa = library.symbolAddress(name);
    if (gipa === null) {
      const text =
        `Cannot load layer "${layer.name}" ("${layer.manifestPath}"): library "${layer.libraryPath}" has no "${name}"`;
      log?.error(text, "layer");
      throw new LayerLoadError(layer.name, "missing vkGetInstanceProcAddr", text);
    }
  }
  if (gdpa === null) {
    gdpa = library.symbolAddress(layer.functions.getDeviceProcAddr ?? "vkGetDeviceProcAddr");
  }
  return {
    interfaceVersion,
    negotiated,
    getInstanceProcAddr: gipa,
    getDeviceProcAddr: gdpa,
    getPhysicalDeviceProcAddr: gpdpa,
  };
}

function pointerAt(view: DataView, offset: number): Deno.PointerValue {
  return Deno.UnsafePointer.create(view.getBigUint64(offset, true));
}
