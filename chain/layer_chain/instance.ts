/**
 * The instance half of a layer chain (docs/behaviour.md LI01-LI07): the links layers call down into, the
 * loader's instance nodes and callbacks, and `vkCreateInstance` run down from the first layer.
 *
 * @module
 */

import type { CallbackOwner } from "../../ffi/callback.ts";
import { fnFromPointer } from "../../ffi/library.ts";
import { type Arena, type Pointer, readPointer, writePointer } from "../../ffi/memory.ts";
import type { LayerLibrary } from "../../loading/layer_library.ts";
import { nativeSetLoaderData } from "../../loading/loader_data.ts";
import type { Logger } from "../../loading/log.ts";
import { VK_ERROR_INITIALIZATION_FAILED, VK_SUCCESS } from "../../vk/generated/vk_constants.js";
import { copyWithNext } from "./call.ts";
import { callGetProcAddr } from "../../vk/proc_addr.ts";
import type { DeviceChainResult } from "./device.ts";
import { buildInstanceNodes, type InstanceLink } from "./nodes.ts";

const CREATE_INSTANCE = { parameters: ["pointer", "pointer", "pointer"], result: "i32" } as const;
const DESTROY_DEVICE = { parameters: ["pointer", "pointer"], result: "void" } as const;
const SET_LOADER_DATA = { parameters: ["pointer", "pointer"], result: "i32" } as const;
const LAYER_CREATE_DEVICE = {
  parameters: ["pointer", "pointer", "pointer", "pointer", "pointer", "pointer", "pointer"],
  result: "i32",
} as const;
const LAYER_DESTROY_DEVICE = { parameters: ["pointer", "pointer", "pointer"], result: "void" } as const;

/**
 * What `LayerChain.createInstance` (chain/layer_chain/chain.ts) needs from the loader core.
 *
 * @example Usage
 * ```ts ignore
 * import type { InstanceChainArgs } from "./instance.ts";
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
   * `vkCreateDevice` path with `LayerChain.createDevice``({ below })`.
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
 * import type { LayerCreateDeviceRequest } from "./instance.ts";
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
 * What `LayerChain.createInstance` (chain/layer_chain/chain.ts) returns.
 *
 * @example Usage
 * ```ts ignore
 * import type { InstanceChainResult } from "./instance.ts";
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
 * Runs `vkCreateInstance` down `libraries` (in chain order): builds the loader nodes, asks the first
 * layer's `vkGetInstanceProcAddr` (with the loader's non-null instance, as the C loader does) for
 * `vkCreateInstance`, and calls it. The create info and nodes live in `arena`; the loader's callbacks are
 * made in `callbacks`.
 *
 * @example Usage
 * ```ts ignore
 * import { type InstanceChainArgs, runInstanceChain } from "./instance.ts";
 * declare const args: InstanceChainArgs, arena: import("../../ffi/memory.ts").Arena;
 * declare const callbacks: import("../../ffi/callback.ts").CallbackOwner;
 * const { result, instance } = runInstanceChain([], args, arena, callbacks, undefined);
 * ```
 */
export function runInstanceChain(
  libraries: readonly LayerLibrary[],
  args: InstanceChainArgs,
  arena: Arena,
  callbacks: CallbackOwner,
  log: Logger | undefined,
): InstanceChainResult {
  const links: InstanceLink[] = [];
  // Link i is what layer i calls down into; a layer without GPDPA passes on the one below it.
  let gpdpa = args.bottom.getPhysicalDeviceProcAddr;
  for (let i = libraries.length - 1; i >= 0; i--) {
    const below = libraries[i + 1];
    links.unshift({
      getInstanceProcAddr: below?.getInstanceProcAddr ?? args.bottom.getInstanceProcAddr,
      getPhysicalDeviceProcAddr: gpdpa,
    });
    const own = libraries[i]!.getPhysicalDeviceProcAddr;
    if (own !== null && libraries[i]!.interfaceVersion >= 2) gpdpa = own;
  }
  const loaderCallbacks = instanceCallbacks(args, callbacks, log);
  const info = copyWithNext(arena, args.createInfo, 64, (next) =>
    buildInstanceNodes(arena, {
      next,
      links,
      setInstanceLoaderData: loaderCallbacks.setInstanceLoaderData,
      layerCreateDevice: loaderCallbacks.layerCreateDevice,
      layerDestroyDevice: loaderCallbacks.layerDestroyDevice,
    }).head);
  const top = libraries[0]?.getInstanceProcAddr ?? args.bottom.getInstanceProcAddr;
  const create = callGetProcAddr(top, args.loaderInstance, "vkCreateInstance");
  if (create === null) {
    log?.error(`Layer "${libraries[0]?.layer.name}" has no vkCreateInstance`, "layer");
    return { result: VK_ERROR_INITIALIZATION_FAILED, instance: null, getInstanceProcAddr: top };
  }
  const pInstance = arena.pointerArray([args.loaderInstance]);
  for (const l of libraries) {
    log?.debug(`Insert instance layer "${l.layer.name}" (${l.path})`, "layer");
  }
  const result = fnFromPointer(create, CREATE_INSTANCE).call(info, args.allocator, pInstance);
  return { result, instance: readPointer(pInstance, 0), getInstanceProcAddr: top };
}

/** The loader's callbacks the instance nodes carry. */
interface InstanceNodeCallbacks {
  readonly setInstanceLoaderData: Pointer;
  readonly layerCreateDevice: Pointer;
  readonly layerDestroyDevice: Pointer;
}

/**
 * The callbacks layers call back into through the instance nodes, made in `callbacks` (closed with the
 * chain): `vkSetInstanceLoaderData` (native where possible), `pfnLayerCreateDevice` routed to
 * `args.createDeviceForLayer`, and `pfnLayerDestroyDevice`.
 */
function instanceCallbacks(
  args: InstanceChainArgs,
  callbacks: CallbackOwner,
  log: Logger | undefined,
): InstanceNodeCallbacks {
  const table = args.instanceTable;
  // Native where possible: layers may call it from any thread (loading/loader_data.ts).
  const setInstanceLoaderData = nativeSetLoaderData() ??
    callbacks.create(SET_LOADER_DATA, (_instance, object) => {
      if (object === null) return VK_ERROR_INITIALIZATION_FAILED;
      writePointer(object, 0, table);
      return VK_SUCCESS;
    }, { name: "vkSetInstanceLoaderData", onError: VK_ERROR_INITIALIZATION_FAILED }).pointer;
  const layerCreateDevice = callbacks.create(
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
  const layerDestroyDevice = callbacks.create(LAYER_DESTROY_DEVICE, (device, allocator, destroy) => {
    if (device === null) return;
    if (destroy !== null) fnFromPointer(destroy, DESTROY_DEVICE).call(device, allocator);
    else log?.error("pfnLayerDestroyDevice was given no destroy function", "layer");
    args.deviceDestroyedByLayer?.(device);
  }, { name: "pfnLayerDestroyDevice" }).pointer;
  return { setInstanceLoaderData, layerCreateDevice, layerDestroyDevice };
}
