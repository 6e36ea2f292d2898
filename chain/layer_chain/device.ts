/**
 * The device half of a layer chain (docs/behaviour.md LI03-LI07): `vkCreateDevice` run down the
 * device-capable layers, and the device tables `vkSetDeviceLoaderData` writes into objects layers make.
 *
 * @module
 */

import type { CallbackOwner } from "../../ffi/callback.ts";
import { fnFromPointer } from "../../ffi/library.ts";
import { address, type Arena, type Pointer, readPointer, writePointer } from "../../ffi/memory.ts";
import type { LayerLibrary } from "../../loading/layer_library.ts";
import { nativeSetLoaderData } from "../../loading/loader_data.ts";
import type { Logger } from "../../loading/log.ts";
import { VK_ERROR_INITIALIZATION_FAILED, VK_SUCCESS } from "../../vk/generated/vk_constants.js";
import { copyWithNext } from "./call.ts";
import { callGetProcAddr } from "../../vk/proc_addr.ts";
import { buildDeviceNodes, type DeviceLink, unwrapDeviceGroup } from "./nodes.ts";

const CREATE_DEVICE = { parameters: ["pointer", "pointer", "pointer", "pointer"], result: "i32" } as const;
const SET_LOADER_DATA = { parameters: ["pointer", "pointer"], result: "i32" } as const;

/**
 * What `LayerChain.createDevice` (chain/layer_chain/chain.ts) needs from the loader core.
 *
 * @example Usage
 * ```ts ignore
 * import type { DeviceChainArgs } from "./device.ts";
 * declare const args: DeviceChainArgs;
 * console.log(args.bottom.getDeviceProcAddr);
 * ```
 */
export interface DeviceChainArgs {
  /** Terminator `vkGetInstanceProcAddr` (answering `vkCreateDevice`) and the driver's `vkGetDeviceProcAddr`. */
  readonly bottom: DeviceLink;
  /** The instance handle the layers know (chain/layer_chain/instance.ts `InstanceChainResult.instance`). */
  readonly instance: Deno.PointerValue;
  /** The physical device as the top device layer knows it. */
  readonly physicalDevice: Deno.PointerValue;
  /** The application's `VkDeviceCreateInfo` (copied; its `pNext` follows the loader nodes). */
  readonly createInfo: Deno.PointerValue;
  /** The application's `pAllocator`. */
  readonly allocator: Deno.PointerValue;
  /** The first `*pDevice` (the loader's device object, or null). */
  readonly loaderDevice: Deno.PointerValue;
  /** Maps an application physical device to the one layers know (`VkDeviceGroupDeviceCreateInfo`). */
  readonly unwrapPhysicalDevice: (physicalDevice: Deno.PointerValue) => Deno.PointerValue;
  /** Build only the layers below the layer with this `vkGetInstanceProcAddr` (`pfnLayerCreateDevice`). */
  readonly below?: Deno.PointerValue;
}

/**
 * What `LayerChain.createDevice` (chain/layer_chain/chain.ts) returns.
 *
 * @example Usage
 * ```ts ignore
 * import type { DeviceChainResult } from "./device.ts";
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
 * The device dispatch tables of one layer chain, as `vkSetDeviceLoaderData` finds them for a device-level
 * handle, and that callback (made the first time a device chain needs it; native where possible).
 *
 * @example Usage
 * ```ts ignore
 * import { DeviceLoaderData } from "./device.ts";
 * declare const callbacks: import("../../ffi/callback.ts").CallbackOwner;
 * const data = new DeviceLoaderData(callbacks, undefined, undefined);
 * const setDeviceLoaderData = data.callback();
 * ```
 */
export class DeviceLoaderData {
  readonly #callbacks: CallbackOwner;
  readonly #log: Logger | undefined;
  readonly #findDeviceTable: ((handle: Pointer) => Pointer) | undefined;
  #setDeviceLoaderData: Pointer = null;

  /**
   * The callback of a chain whose callbacks live in `callbacks`; `findDeviceTable` answers with a device's
   * dispatch table (the core knows its devices).
   */
  constructor(
    callbacks: CallbackOwner,
    log: Logger | undefined,
    findDeviceTable: ((handle: Pointer) => Pointer) | undefined,
  ) {
    this.#callbacks = callbacks;
    this.#log = log;
    this.#findDeviceTable = findDeviceTable;
  }

  /** The `vkSetDeviceLoaderData` callback the device nodes carry. */
  callback(): Pointer {
    if (this.#setDeviceLoaderData !== null) return this.#setDeviceLoaderData;
    // Native where possible: the device's first word is the loader's table (the terminator stamped it).
    this.#setDeviceLoaderData = nativeSetLoaderData();
    if (this.#setDeviceLoaderData !== null) return this.#setDeviceLoaderData;
    this.#setDeviceLoaderData = this.#callbacks.create(SET_LOADER_DATA, (device, object) => {
      if (device === null || object === null) return VK_ERROR_INITIALIZATION_FAILED;
      // The terminator stamped the table into the driver's device; a wrapping layer copies it.
      const table = this.#findDeviceTable?.(device) ?? null;
      if (table === null) {
        this.#log?.error(
          `vkSetDeviceLoaderData: device "0x${address(device).toString(16)}" is unknown`,
          "layer",
        );
        return VK_ERROR_INITIALIZATION_FAILED;
      }
      writePointer(object, 0, table);
      return VK_SUCCESS;
    }, { name: "vkSetDeviceLoaderData", onError: VK_ERROR_INITIALIZATION_FAILED }).pointer;
    return this.#setDeviceLoaderData;
  }
}

/**
 * Runs `vkCreateDevice` down `deviceLibraries` (the layers with a `vkGetDeviceProcAddr`, in chain order; those
 * below `args.below` when given) to the bottom link. The create info and nodes live in `arena`.
 *
 * @example Usage
 * ```ts ignore
 * import { type DeviceChainArgs, DeviceLoaderData, runDeviceChain } from "./device.ts";
 * declare const args: DeviceChainArgs, data: DeviceLoaderData, arena: import("../../ffi/memory.ts").Arena;
 * const { result, device, getDeviceProcAddr } = runDeviceChain([], args, arena, data, undefined);
 * ```
 */
export function runDeviceChain(
  deviceLibraries: readonly LayerLibrary[],
  args: DeviceChainArgs,
  arena: Arena,
  loaderData: DeviceLoaderData,
  log: Logger | undefined,
): DeviceChainResult {
  let layers = deviceLibraries;
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
  const setDeviceLoaderData = loaderData.callback();
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
    return { result: VK_ERROR_INITIALIZATION_FAILED, device: null, getDeviceProcAddr: topGdpa };
  }
  for (const l of layers) log?.debug(`Inserted device layer "${l.layer.name}" (${l.path})`, "layer");
  const pDevice = arena.pointerArray([args.loaderDevice]);
  const result = fnFromPointer(create, CREATE_DEVICE).call(
    args.physicalDevice,
    info,
    args.allocator,
    pDevice,
  );
  const device = readPointer(pDevice, 0);
  if (result !== VK_SUCCESS) {
    return { result, device: null, getDeviceProcAddr: topGdpa };
  }
  return { result, device, getDeviceProcAddr: topGdpa };
}
