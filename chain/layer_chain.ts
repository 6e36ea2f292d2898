/**
 * The layer part of the instance and device call chains (LOADER_BEHAVIOUR F11,
 * F12, LI01 to LI07, LI11): loads the active layers' libraries, runs
 * `vkCreateInstance` and `vkCreateDevice` down through them with the loader's
 * pNext nodes, and gives the caller the top of each chain to fill its
 * dispatch tables from.
 *
 * The loader core supplies the bottom links (its terminator
 * `vkGetInstanceProcAddr`, which answers `vkCreateInstance` and
 * `vkCreateDevice`; the driver's `vkGetDeviceProcAddr`) and its dispatch table
 * addresses, which `vkSetInstanceLoaderData` / `vkSetDeviceLoaderData` write
 * into the dispatchable objects layers make. A layer asking the loader to make
 * a device below it (`pfnLayerCreateDevice`) is routed back to the core
 * through {@linkcode InstanceChainArgs.createDeviceForLayer}.
 *
 * Libraries are released by {@linkcode LayerChain.release}, which the core
 * calls after `vkDestroyInstance` has gone down the chain.
 *
 * @example Loading the chain for an activation
 * ```ts ignore
 * import { LayerChain } from "./layer_chain.ts";
 * import { activateLayers } from "../discovery/layer_activation.ts";
 * import { discoverLayers } from "../discovery/layers.ts";
 * const env = { vars: {}, elevated: false };
 * const activation = activateLayers(env, discoverLayers(env), { requestedLayers: [] });
 * if (activation.ok) {
 *   using chain = LayerChain.load(activation, { requestedLayers: [] });
 *   console.log(chain.libraries.map((l) => l.layer.name));
 * }
 * ```
 *
 * @module
 */

import type { LayerActivationOk } from "../discovery/layer_activation.ts";
import type { LayerManifest } from "../discovery/layer_manifest.ts";
import type { ModuleLayerLoader } from "./module_layer_interface.ts";
import { enumerateInstanceLayerProperties, type LayerProperties } from "../discovery/layer_properties.ts";
import { CallbackRegistry } from "../ffi/callback.ts";
import { fnFromPointer } from "../ffi/library.ts";
import { address, Arena, readPointer, writePointer } from "../ffi/memory.ts";
import { VkError } from "../ffi/errors.ts";
import { LayerLibrary, LayerLoadError } from "../loading/layer_library.ts";
import {
  buildDeviceNodes,
  buildInstanceNodes,
  type DeviceLink,
  type InstanceLink,
  unwrapDeviceGroup,
} from "./layer_nodes.ts";
import { nativeSetLoaderData } from "../loading/loader_data.ts";
import type { Logger } from "../loading/log.ts";
import { VK_ERROR_INITIALIZATION_FAILED, VK_SUCCESS } from "../ffi/generated/vk_constants.js";
import { cstringBuffer } from "../ffi/libc.ts";

const GET_PROC_ADDR = { parameters: ["pointer", "buffer"], result: "pointer" } as const;
const CREATE_INSTANCE = { parameters: ["pointer", "pointer", "pointer"], result: "i32" } as const;
const CREATE_DEVICE = { parameters: ["pointer", "pointer", "pointer", "pointer"], result: "i32" } as const;
const DESTROY_DEVICE = { parameters: ["pointer", "pointer"], result: "void" } as const;
const SET_LOADER_DATA = { parameters: ["pointer", "pointer"], result: "i32" } as const;
const LAYER_CREATE_DEVICE = {
  parameters: ["pointer", "pointer", "pointer", "pointer", "pointer", "pointer", "pointer"],
  result: "i32",
} as const;
const LAYER_DESTROY_DEVICE = { parameters: ["pointer", "pointer", "pointer"], result: "void" } as const;

/**
 * Calls a `vkGetInstanceProcAddr`-shaped function pointer (cold path).
 *
 * @example Usage
 * ```ts ignore
 * import { callGetProcAddr } from "./layer_chain.ts";
 * declare const gipa: Deno.PointerObject;
 * const create = callGetProcAddr(gipa, null, "vkCreateInstance");
 * ```
 */
export function callGetProcAddr(
  gpa: Deno.PointerValue,
  handle: Deno.PointerValue,
  name: string,
): Deno.PointerValue {
  return fnFromPointer(gpa, GET_PROC_ADDR).call(handle, cstringBuffer(name));
}

/**
 * Options of {@linkcode LayerChain.load}.
 *
 * @example Usage
 * ```ts
 * import type { LayerChainOptions } from "./layer_chain.ts";
 * const o: LayerChainOptions = { requestedLayers: ["VK_LAYER_KHRONOS_validation"] };
 * ```
 */
export interface LayerChainOptions {
  /** `VkInstanceCreateInfo.ppEnabledLayerNames`: a layer named here that fails to load fails the instance. */
  readonly requestedLayers?: readonly string[];
  /** Where load failures and chain messages go. */
  readonly log?: Logger;
  /**
   * Finds the loader's device dispatch table for a device-level handle that
   * `vkSetDeviceLoaderData` is given, when its first word is not a table
   * passed to {@linkcode LayerChain.createDevice} (the core knows its devices).
   */
  readonly findDeviceTable?: (handle: Deno.PointerValue) => Deno.PointerValue;
  /** Never close the libraries (`VK_LOADER_DISABLE_DYNAMIC_LIBRARY_UNLOADING=1`). */
  readonly keepLoaded?: boolean;
  /** Loads the layers whose library is a script module (layers/module_layer.ts provides one). */
  readonly moduleLayers?: ModuleLayerLoader;
}

/**
 * What {@linkcode LayerChain.createInstance} needs from the loader core.
 *
 * @example Usage
 * ```ts ignore
 * import type { InstanceChainArgs } from "./layer_chain.ts";
 * declare const args: InstanceChainArgs;
 * console.log(args.bottom.getInstanceProcAddr);
 * ```
 */
export interface InstanceChainArgs {
  /** The terminators: `vkGetInstanceProcAddr` (answering `vkCreateInstance` for any instance) and GPDPA. */
  readonly bottom: InstanceLink;
  /** The application's `VkInstanceCreateInfo` (copied; its `pNext` follows the loader nodes). */
  readonly createInfo: Deno.PointerValue;
  /** The application's `pAllocator`. */
  readonly allocator: Deno.PointerValue;
  /** The loader's instance object: the first `*pInstance`, which the terminators find themselves by. */
  readonly loaderInstance: Deno.PointerValue;
  /** The instance dispatch table address `vkSetInstanceLoaderData` writes into layer-made objects. */
  readonly instanceTable: Deno.PointerValue;
  /**
   * Makes a device for a layer's `pfnLayerCreateDevice`: the core runs its own
   * `vkCreateDevice` path with {@linkcode LayerChain.createDevice}`({ below })`.
   * Absent: the callback answers `VK_ERROR_INITIALIZATION_FAILED`.
   */
  readonly createDeviceForLayer?: (request: LayerCreateDeviceRequest) => DeviceChainResult;
  /** Told when a layer destroyed a device through `pfnLayerDestroyDevice` (after the destroy call). */
  readonly deviceDestroyedByLayer?: (device: Deno.PointerValue) => void;
}

/**
 * A layer's `pfnLayerCreateDevice` call, as handed to the core.
 *
 * @example Usage
 * ```ts ignore
 * import type { LayerCreateDeviceRequest } from "./layer_chain.ts";
 * declare const r: LayerCreateDeviceRequest;
 * console.log(r.below);
 * ```
 */
export interface LayerCreateDeviceRequest {
  /** The instance the layer passed (null: `physicalDevice` is an application handle to unwrap). */
  readonly instance: Deno.PointerValue;
  /** The physical device the layer passed. */
  readonly physicalDevice: Deno.PointerValue;
  /** The `VkDeviceCreateInfo` it passed. */
  readonly createInfo: Deno.PointerValue;
  /** The application's `pAllocator`. */
  readonly allocator: Deno.PointerValue;
  /** The calling layer's `vkGetInstanceProcAddr`: the chain is built from the layers below it. */
  readonly below: Deno.PointerValue;
}

/**
 * What {@linkcode LayerChain.createInstance} returns.
 *
 * @example Usage
 * ```ts ignore
 * import type { InstanceChainResult } from "./layer_chain.ts";
 * declare const r: InstanceChainResult;
 * if (r.result === 0) console.log(r.instance);
 * ```
 */
export interface InstanceChainResult {
  /** The `VkResult` of the create call. */
  readonly result: number;
  /** `*pInstance` after the chain: the handle the top layer gave back (the loader's, unless it wraps). */
  readonly instance: Deno.PointerValue;
  /** The top of the chain's `vkGetInstanceProcAddr`, to fill the instance dispatch table from. */
  readonly getInstanceProcAddr: Deno.PointerValue;
}

/**
 * What {@linkcode LayerChain.createDevice} needs from the loader core.
 *
 * @example Usage
 * ```ts ignore
 * import type { DeviceChainArgs } from "./layer_chain.ts";
 * declare const args: DeviceChainArgs;
 * console.log(args.bottom.getDeviceProcAddr);
 * ```
 */
export interface DeviceChainArgs {
  /** Terminator `vkGetInstanceProcAddr` (answering `vkCreateDevice`) and the driver's `vkGetDeviceProcAddr`. */
  readonly bottom: DeviceLink;
  /** The instance handle the layers know (the chain's `instance` from {@linkcode InstanceChainResult}). */
  readonly instance: Deno.PointerValue;
  /** The physical device as the top device layer knows it. */
  readonly physicalDevice: Deno.PointerValue;
  /** The application's `VkDeviceCreateInfo` (copied; its `pNext` follows the loader nodes). */
  readonly createInfo: Deno.PointerValue;
  /** The application's `pAllocator`. */
  readonly allocator: Deno.PointerValue;
  /** The first `*pDevice` (the loader's device object, or null). */
  readonly loaderDevice: Deno.PointerValue;
  /**
   * The device dispatch table the terminator stamps into the driver's device,
   * when the core has it before the call (else `findDeviceTable` answers).
   */
  readonly deviceTable?: Deno.PointerValue;
  /** Maps an application physical device to the one layers know (`VkDeviceGroupDeviceCreateInfo`). */
  readonly unwrapPhysicalDevice: (physicalDevice: Deno.PointerValue) => Deno.PointerValue;
  /** Build only the layers below the layer with this `vkGetInstanceProcAddr` (`pfnLayerCreateDevice`). */
  readonly below?: Deno.PointerValue;
}

/**
 * What {@linkcode LayerChain.createDevice} returns.
 *
 * @example Usage
 * ```ts ignore
 * import type { DeviceChainResult } from "./layer_chain.ts";
 * declare const r: DeviceChainResult;
 * console.log(r.result, r.device);
 * ```
 */
export interface DeviceChainResult {
  /** The `VkResult` of the create call. */
  readonly result: number;
  /** The device handle from the top of the chain. */
  readonly device: Deno.PointerValue;
  /** The top of the chain's `vkGetDeviceProcAddr`, to fill the device dispatch table from. */
  readonly getDeviceProcAddr: Deno.PointerValue;
}

/**
 * The loaded layers of one instance, in chain order (first closest to the application).
 *
 * @example Usage
 * ```ts ignore
 * import { LayerChain } from "./layer_chain.ts";
 * import type { LayerActivationOk } from "../discovery/layer_activation.ts";
 * declare const activation: LayerActivationOk;
 * const chain = LayerChain.load(activation);
 * chain.release();
 * ```
 */
export class LayerChain implements Disposable {
  /** Loaded layers in the instance chain, first closest to the application. */
  readonly libraries: readonly LayerLibrary[];
  /** The activated layers as `vkEnumerateDeviceLayerProperties` lists them (F11). */
  readonly activatedLayers: readonly LayerManifest[];
  readonly #log: Logger | undefined;
  readonly #findDeviceTable: ((handle: Deno.PointerValue) => Deno.PointerValue) | undefined;
  readonly #callbacks = new CallbackRegistry();
  readonly #arenas: Arena[] = [];
  readonly #deviceTables = new Set<bigint>();
  readonly #deviceTableByHandle = new Map<bigint, bigint>();
  #released = false;

  private constructor(
    libraries: LayerLibrary[],
    activated: readonly LayerManifest[],
    options: LayerChainOptions,
  ) {
    this.libraries = libraries;
    this.activatedLayers = activated;
    this.#log = options.log;
    this.#findDeviceTable = options.findDeviceTable;
  }

  /**
   * Loads every active layer's library. A layer that fails to load is skipped
   * with a message, unless the application named it: then every library
   * loaded so far is released and `VK_ERROR_LAYER_NOT_PRESENT` is thrown (F12).
   *
   * @example Usage
   * ```ts ignore
   * import { LayerChain } from "./layer_chain.ts";
   * import type { LayerActivationOk } from "../discovery/layer_activation.ts";
   * declare const activation: LayerActivationOk;
   * LayerChain.load(activation, { requestedLayers: ["VK_LAYER_KHRONOS_validation"] }).release();
   * ```
   * @throws {VkError} `VK_ERROR_LAYER_NOT_PRESENT` when an application-requested layer cannot be loaded.
   */
  static load(activation: LayerActivationOk, options: LayerChainOptions = {}): LayerChain {
    const log = options.log;
    const requested = new Set(options.requestedLayers ?? []);
    const loaded: LayerLibrary[] = [];
    const failed = new Set<string>();
    for (const active of activation.layers) {
      try {
        loaded.push(
          options.moduleLayers?.handles(active.layer)
            ? loadModuleLayer(options.moduleLayers, active.layer)
            : LayerLibrary.load(active.layer, { log, keepLoaded: options.keepLoaded }),
        );
      } catch (error) {
        if (!(error instanceof LayerLoadError)) {
          for (const l of loaded) l.release();
          throw error;
        }
        failed.add(active.layer.name);
        const byApp = requested.has(active.layer.name) ||
          (active.via !== undefined && requested.has(active.via));
        if (byApp) {
          for (const l of loaded) l.release();
          log?.error(`Requested layer "${active.layer.name}" ${error.failure}: ${error.message}`, "layer");
          throw new VkError("VK_ERROR_LAYER_NOT_PRESENT", error.message, { cause: error });
        }
        // A layer someone asked for (VK_INSTANCE_LAYERS, VK_LOADER_LAYERS_ENABLE, the settings file) that
        // cannot be loaded is an error the user must see (issue 17, rule 7); an implicit one only informs.
        const text = `Requested layer "${active.layer.name}" ${error.failure}: ${error.message}`;
        if (active.source === "implicit") log?.info(text, "layer");
        else log?.error(text, "layer");
      }
    }
    const activated = activation.activatedLayers.filter((l) => !failed.has(l.name));
    return new LayerChain(loaded, activated, options);
  }

  /** True when no layer is loaded (the core may skip the layer path entirely). */
  get empty(): boolean {
    return this.libraries.length === 0;
  }

  /** The layers taking part in device chains (those with a `vkGetDeviceProcAddr`), in chain order. */
  get deviceLibraries(): LayerLibrary[] {
    return this.libraries.filter((l) => l.getDeviceProcAddr !== null);
  }

  /**
   * `vkEnumerateDeviceLayerProperties`: the instance's activated layers in
   * activation order (a meta layer after its components).
   *
   * @example Usage
   * ```ts ignore
   * import type { LayerChain } from "./layer_chain.ts";
   * declare const chain: LayerChain;
   * console.log(chain.enumerateDeviceLayerProperties().map((p) => p.layerName));
   * ```
   */
  enumerateDeviceLayerProperties(): LayerProperties[] {
    return enumerateInstanceLayerProperties({ layers: this.activatedLayers });
  }

  /**
   * The top of the instance chain's `vkGetInstanceProcAddr` (the first layer's, or the bottom's).
   *
   * @example Usage
   * ```ts ignore
   * import type { LayerChain } from "./layer_chain.ts";
   * import type { InstanceLink } from "./layer_nodes.ts";
   * declare const chain: LayerChain;
   * declare const bottom: InstanceLink;
   * chain.topGetInstanceProcAddr(bottom);
   * ```
   */
  topGetInstanceProcAddr(bottom: InstanceLink): Deno.PointerValue {
    return this.libraries[0]?.getInstanceProcAddr ?? bottom.getInstanceProcAddr;
  }

  /**
   * Runs `vkCreateInstance` down the chain: builds the loader nodes, asks the
   * first layer's `vkGetInstanceProcAddr` (with the loader's non-null instance,
   * as the C loader does) for `vkCreateInstance`, and calls it.
   *
   * @example Usage
   * ```ts ignore
   * import type { InstanceChainArgs, LayerChain } from "./layer_chain.ts";
   * declare const chain: LayerChain;
   * declare const args: InstanceChainArgs;
   * const { result, instance } = chain.createInstance(args);
   * ```
   * @throws {TypeError} If the chain was released.
   */
  createInstance(args: InstanceChainArgs): InstanceChainResult {
    this.#checkLive("vkCreateInstance");
    const arena = this.#arena();
    const links: InstanceLink[] = [];
    // Link i is what layer i calls down into; a layer without GPDPA passes on the one below it.
    let gpdpa = args.bottom.getPhysicalDeviceProcAddr;
    for (let i = this.libraries.length - 1; i >= 0; i--) {
      const below = this.libraries[i + 1];
      links.unshift({
        getInstanceProcAddr: below?.getInstanceProcAddr ?? args.bottom.getInstanceProcAddr,
        getPhysicalDeviceProcAddr: gpdpa,
      });
      const own = this.libraries[i]!.getPhysicalDeviceProcAddr;
      if (own !== null && this.libraries[i]!.interfaceVersion >= 2) gpdpa = own;
    }
    const callbacks = this.#instanceCallbacks(args);
    const info = copyWithNext(arena, args.createInfo, 64, (next) =>
      buildInstanceNodes(arena, {
        next,
        links,
        setInstanceLoaderData: callbacks.setInstanceLoaderData,
        layerCreateDevice: callbacks.layerCreateDevice,
        layerDestroyDevice: callbacks.layerDestroyDevice,
      }).head);
    const top = this.topGetInstanceProcAddr(args.bottom);
    const create = callGetProcAddr(top, args.loaderInstance, "vkCreateInstance");
    if (create === null) {
      this.#log?.error(`Layer "${this.libraries[0]?.layer.name}" has no vkCreateInstance`, "layer");
      return { result: VK_ERROR_INITIALIZATION_FAILED, instance: null, getInstanceProcAddr: top };
    }
    const pInstance = arena.pointerArray([args.loaderInstance]);
    for (const l of this.libraries) {
      this.#log?.debug(`Insert instance layer "${l.layer.name}" (${l.path})`, "layer");
    }
    const result = fnFromPointer(create, CREATE_INSTANCE).call(info, args.allocator, pInstance);
    return { result, instance: readPointer(pInstance, 0), getInstanceProcAddr: top };
  }

  /**
   * Runs `vkCreateDevice` down the device-capable layers (all of them, or
   * those below `args.below`) to the bottom link, with the device nodes in
   * front of the application's `pNext` and its device group unwrapped.
   *
   * @example Usage
   * ```ts ignore
   * import type { DeviceChainArgs, LayerChain } from "./layer_chain.ts";
   * declare const chain: LayerChain;
   * declare const args: DeviceChainArgs;
   * const { result, device, getDeviceProcAddr } = chain.createDevice(args);
   * ```
   * @throws {TypeError} If the chain was released.
   */
  createDevice(args: DeviceChainArgs): DeviceChainResult {
    this.#checkLive("vkCreateDevice");
    const arena = this.#arena();
    let layers = this.deviceLibraries;
    const callerGipa = args.below ?? null;
    if (callerGipa !== null) {
      const at = layers.findIndex((l) => address(l.getInstanceProcAddr) === address(callerGipa));
      layers = at >= 0 ? layers.slice(at + 1) : layers;
    }
    const links: DeviceLink[] = layers.map((_, i) => {
      const below = layers[i + 1];
      return below === undefined
        ? args.bottom
        : { getInstanceProcAddr: below.getInstanceProcAddr, getDeviceProcAddr: below.getDeviceProcAddr };
    });
    const setDeviceLoaderData = this.#deviceCallback();
    const tableKey = args.deviceTable === undefined ? undefined : address(args.deviceTable);
    if (tableKey !== undefined) this.#deviceTables.add(tableKey);
    const info = copyWithNext(arena, args.createInfo, 72, (next) =>
      buildDeviceNodes(arena, {
        next: unwrapDeviceGroup(arena, next, args.unwrapPhysicalDevice),
        links,
        setDeviceLoaderData,
      }).head);
    const topGipa = layers[0]?.getInstanceProcAddr ?? args.bottom.getInstanceProcAddr;
    const topGdpa = layers[0]?.getDeviceProcAddr ?? args.bottom.getDeviceProcAddr;
    const create = callGetProcAddr(topGipa, args.instance, "vkCreateDevice");
    if (create === null) {
      if (tableKey !== undefined) this.#deviceTables.delete(tableKey);
      return { result: VK_ERROR_INITIALIZATION_FAILED, device: null, getDeviceProcAddr: topGdpa };
    }
    for (const l of layers) this.#log?.debug(`Inserted device layer "${l.layer.name}" (${l.path})`, "layer");
    const pDevice = arena.pointerArray([args.loaderDevice]);
    const result = fnFromPointer(create, CREATE_DEVICE).call(
      args.physicalDevice,
      info,
      args.allocator,
      pDevice,
    );
    const device = readPointer(pDevice, 0);
    if (result !== VK_SUCCESS) {
      if (tableKey !== undefined) this.#deviceTables.delete(tableKey);
      return { result, device: null, getDeviceProcAddr: topGdpa };
    }
    if (tableKey !== undefined) this.#deviceTableByHandle.set(address(device), tableKey);
    return { result, device, getDeviceProcAddr: topGdpa };
  }

  /**
   * Forgets a device's dispatch table (after `vkDestroyDevice`).
   *
   * @example Usage
   * ```ts ignore
   * import type { LayerChain } from "./layer_chain.ts";
   * declare const chain: LayerChain;
   * declare const table: Deno.PointerValue;
   * chain.forgetDevice(table);
   * ```
   */
  forgetDevice(deviceTable: Deno.PointerValue): void {
    const key = address(deviceTable);
    this.#deviceTables.delete(key);
    for (const [handle, table] of this.#deviceTableByHandle) {
      if (table === key) this.#deviceTableByHandle.delete(handle);
    }
  }

  /**
   * Releases the libraries and closes the loader callbacks. Call it after
   * `vkDestroyInstance` went down the chain (or after a failed
   * `vkCreateInstance`): nothing may call into the layers afterwards.
   *
   * @example Usage
   * ```ts ignore
   * import type { LayerChain } from "./layer_chain.ts";
   * declare const chain: LayerChain;
   * chain.release();
   * ```
   */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    for (const l of this.libraries) l.release();
    this.#callbacks.dispose();
    for (const a of this.#arenas) a.dispose();
    this.#arenas.length = 0;
    this.#deviceTables.clear();
    this.#deviceTableByHandle.clear();
  }

  /** Same as {@linkcode LayerChain.release}, for `using`. */
  [Symbol.dispose](): void {
    this.release();
  }

  #checkLive(what: string): void {
    if (this.#released) throw new TypeError(`Cannot run "${what}" through a released layer chain`);
  }

  #arena(): Arena {
    // Layers may keep pointers into the create info (the validation layer copies lazily): keep it for the instance's life.
    const arena = new Arena();
    this.#arenas.push(arena);
    return arena;
  }

  #instanceCallbacks(args: InstanceChainArgs) {
    const log = this.#log;
    const table = args.instanceTable;
    // Native where possible: layers may call it from any thread (loading/loader_data.ts).
    const setInstanceLoaderData = nativeSetLoaderData() ??
      this.#callbacks.create(SET_LOADER_DATA, (_instance, object) => {
        if (object === null) return VK_ERROR_INITIALIZATION_FAILED;
        writePointer(object, 0, table);
        return VK_SUCCESS;
      }, { name: "vkSetInstanceLoaderData", onError: VK_ERROR_INITIALIZATION_FAILED }).pointer;
    const layerCreateDevice = this.#callbacks.create(
      LAYER_CREATE_DEVICE,
      (instance, physicalDevice, createInfo, allocator, pDevice, layerGipa, nextGdpa) => {
        if (args.createDeviceForLayer === undefined || pDevice === null) {
          return VK_ERROR_INITIALIZATION_FAILED;
        }
        const made = args.createDeviceForLayer({
          instance,
          physicalDevice,
          createInfo,
          allocator,
          below: layerGipa,
        });
        if (made.result !== VK_SUCCESS) return made.result;
        writePointer(pDevice, 0, made.device);
        if (nextGdpa !== null) writePointer(nextGdpa, 0, made.getDeviceProcAddr);
        return VK_SUCCESS;
      },
      { name: "pfnLayerCreateDevice", onError: VK_ERROR_INITIALIZATION_FAILED },
    ).pointer;
    const layerDestroyDevice = this.#callbacks.create(LAYER_DESTROY_DEVICE, (device, allocator, destroy) => {
      if (device === null) return;
      if (destroy !== null) fnFromPointer(destroy, DESTROY_DEVICE).call(device, allocator);
      else log?.error("pfnLayerDestroyDevice was given no destroy function", "layer");
      args.deviceDestroyedByLayer?.(device);
    }, { name: "pfnLayerDestroyDevice" }).pointer;
    return { setInstanceLoaderData, layerCreateDevice, layerDestroyDevice };
  }

  #setDeviceLoaderData: Deno.PointerValue = null;

  #deviceCallback(): Deno.PointerValue {
    if (this.#setDeviceLoaderData !== null) return this.#setDeviceLoaderData;
    // Native where possible: the device's first word is the loader's table (the terminator stamped it).
    this.#setDeviceLoaderData = nativeSetLoaderData();
    if (this.#setDeviceLoaderData !== null) return this.#setDeviceLoaderData;
    this.#setDeviceLoaderData = this.#callbacks.create(SET_LOADER_DATA, (device, object) => {
      if (device === null || object === null) return VK_ERROR_INITIALIZATION_FAILED;
      // The terminator stamped the table into the driver's device; a wrapping layer copies it.
      const word = address(readPointer(device, 0));
      let table = this.#deviceTables.has(word) ? word : this.#deviceTableByHandle.get(address(device));
      if (table === undefined && this.#findDeviceTable !== undefined) {
        const found = this.#findDeviceTable(device);
        if (found !== null) table = address(found);
      }
      if (table === undefined) {
        this.#log?.error(
          `vkSetDeviceLoaderData: device "0x${address(device).toString(16)}" is unknown`,
          "layer",
        );
        return VK_ERROR_INITIALIZATION_FAILED;
      }
      writePointer(object, 0, Deno.UnsafePointer.create(table));
      return VK_SUCCESS;
    }, { name: "vkSetDeviceLoaderData", onError: VK_ERROR_INITIALIZATION_FAILED }).pointer;
    return this.#setDeviceLoaderData;
  }
}

/** A layer whose `library_path` names a script module: its chain link, used as a library. */
function loadModuleLayer(loader: ModuleLayerLoader, layer: LayerManifest): LayerLibrary {
  try {
    // The chain reads only the ModuleLayerLink members of a LayerLibrary.
    return loader.load(layer) as unknown as LayerLibrary;
  } catch (error) {
    throw new LayerLoadError(layer.name, "failed to load", (error as Error).message, { cause: error });
  }
}

/** Copies a create info of `size` bytes and points its `pNext` at `head(original pNext)`. */
function copyWithNext(
  arena: Arena,
  createInfo: Deno.PointerValue,
  size: number,
  head: (next: Deno.PointerValue) => Deno.PointerValue,
): Deno.PointerObject {
  if (createInfo === null) throw new TypeError("Cannot build a layer chain for a null create info");
  const buf = arena.alloc(size, 8);
  buf.set(new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(createInfo, size)));
  const copy = arena.pointer(buf);
  writePointer(copy, 8, head(readPointer(createInfo, 8)));
  return copy;
}
