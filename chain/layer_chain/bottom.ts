/**
 * The bottom of one instance's layer chains: the loader's `vkGetInstanceProcAddr`,
 * `vk_layerGetPhysicalDeviceProcAddr` (docs/behaviour.md LI08) and `vkGetDeviceProcAddr` that the last layer
 * calls down into, as C callbacks over the core's answers (`LoaderTerminators`).
 *
 * @module
 */

import { GET_PROC_ADDR_CALLBACK } from "../../vk/proc_addr.ts";
import type { CallbackOwner } from "../../ffi/callback.ts";
import { type Pointer, readCString } from "../../ffi/memory.ts";
import { VK_ERROR_INITIALIZATION_FAILED } from "../../vk/generated/vk_constants.js";
import type { DebugMessengers, DriverMessengerTarget } from "../extensions/debug.ts";

const CREATE_INSTANCE = { parameters: ["pointer", "pointer", "pointer"], result: "i32" } as const;

/**
 * The loader core's side of one instance's chains, as the layers reach it at their bottom: the loader's
 * terminators (the answers of the terminator `vkGetInstanceProcAddr` and `vk_layerGetPhysicalDeviceProcAddr`,
 * the terminator `vkCreateInstance`), the down-call to the driver at the bottom of a device chain (the
 * driver's `vkGetDeviceProcAddr`), and the loader's steps around a device chain (unwrapping the application's
 * physical devices, filling the device dispatch table once the device came back up, a device a layer made
 * and destroyed through `pfnLayerCreateDevice` / `pfnLayerDestroyDevice`, the table
 * `vkSetDeviceLoaderData` writes). The chain defines it; the loader objects above implement it
 * (chain/layer_terminators.ts `InstanceTerminators`, over chain/device.ts `LoaderDevices`).
 *
 * @example Usage
 * ```ts ignore
 * import type { LoaderTerminators } from "./bottom.ts";
 * declare const terminators: LoaderTerminators;
 * terminators.terminatorProcAddr("vkEnumeratePhysicalDevices");
 * ```
 */
export interface LoaderTerminators {
  /** The terminator link's C entry point for `name` (`vkCreateDevice`, physical-device commands...), or null. */
  terminatorProcAddr(name: string): Pointer;
  /**
   * The terminator's entry point for a physical-device command asked through
   * `vk_layerGetPhysicalDeviceProcAddr` (the unknown-command slot's terminator
   * stub once it has one), or null (LI08).
   */
  terminatorPhysicalDeviceProcAddr(name: string): Pointer;
  /** The terminator `vkCreateInstance` body (the drivers' instances); the loader's `*pInstance` stays. */
  terminatorCreateInstance(pCreateInfo: Pointer, pAllocator: Pointer): number;
  /**
   * The drivers' instances that enabled `VK_EXT_debug_utils` / `VK_EXT_debug_report`: a messenger made
   * through the terminators is made in them too, so the drivers' own messages reach it.
   */
  debugDriverInstances(): readonly DriverMessengerTarget[];
  /** The down-call to the driver at the bottom of device chains: its `vkGetDeviceProcAddr` (WSI swapped in). */
  driverDeviceProcAddr(device: Pointer, name: string): Pointer;
  /** An application `VkPhysicalDevice` to the handle the top of the chain knows. */
  unwrapPhysicalDevice(physicalDevice: Pointer): Pointer;
  /** A device came up the chain: fill its dispatch table from `getDeviceProcAddr`; returns a `VkResult`. */
  deviceCreated(device: Pointer, getDeviceProcAddr: Pointer): number;
  /** A layer destroyed a device it made through `pfnLayerCreateDevice` (`pfnLayerDestroyDevice`). */
  layerDestroyedDevice(device: Pointer): void;
  /** The device dispatch table of a device-level handle (for `vkSetDeviceLoaderData`), or null. */
  deviceDispatchTable(device: Pointer): Pointer;
}

/**
 * One instance's bottom link. Its callbacks live in the instance's callback owner (closed with the layers).
 *
 * @example Usage
 * ```ts ignore
 * import { ChainBottom } from "./bottom.ts";
 * declare const callbacks: import("../../ffi/callback.ts").CallbackOwner;
 * declare const messengers: import("../extensions/debug.ts").DebugMessengers;
 * const bottom = new ChainBottom(callbacks, messengers);
 * console.log(bottom.deviceProcAddr); // null: no device chain yet
 * ```
 */
export class ChainBottom {
  /** The core's answers; `undefined` before `vkCreateInstance` and after release (the callbacks answer null). */
  terminators: LoaderTerminators | undefined;
  readonly #callbacks: CallbackOwner;
  readonly #messengers: DebugMessengers;
  #gipa: Pointer = null;
  #answer: ((name: string) => Pointer) | undefined;
  #gdpa: Pointer = null;
  #gpdpa: Pointer = null;

  /** A bottom link making its callbacks in `callbacks`, with `messengers`' terminators. */
  constructor(callbacks: CallbackOwner, messengers: DebugMessengers) {
    this.#callbacks = callbacks;
    this.#messengers = messengers;
  }

  /** The instance chain's bottom: what the last layer's `VkLayerInstanceLink` points at. */
  link(): { getInstanceProcAddr: Pointer; getPhysicalDeviceProcAddr: Pointer } {
    return {
      getInstanceProcAddr: this.getInstanceProcAddr(),
      getPhysicalDeviceProcAddr: this.getPhysicalDeviceProcAddr(),
    };
  }

  /** True when `p` is this bottom's `vkGetInstanceProcAddr` (the chain has no instance layer above it). */
  isOwnInstanceProcAddr(p: Pointer): boolean {
    return p === this.#gipa && this.#answer !== undefined;
  }

  /** The answers behind the `vkGetInstanceProcAddr` callback, callable without a trip through C. */
  get answer(): ((name: string) => Pointer) | undefined {
    return this.#answer;
  }

  /** The terminator `vk_layerGetPhysicalDeviceProcAddr` layers call down into (LI08). */
  getPhysicalDeviceProcAddr(): Pointer {
    if (this.#gpdpa !== null) return this.#gpdpa;
    this.#gpdpa = this.#callbacks.create(GET_PROC_ADDR_CALLBACK, (_instance, pName) => {
      const terminators = this.terminators;
      if (terminators === undefined || pName === null) return null;
      return terminators.terminatorPhysicalDeviceProcAddr(readCString(pName));
    }, { name: "terminator vk_layerGetPhysicalDeviceProcAddr" }).pointer;
    return this.#gpdpa;
  }

  /** The terminator `vkGetInstanceProcAddr` layers call down into (a C callback over the core's answers). */
  getInstanceProcAddr(): Pointer {
    if (this.#gipa !== null) return this.#gipa;
    let createInstance: Pointer = null;
    let debug: Record<string, Deno.PointerObject> | undefined;
    const answer = (name: string): Pointer => {
      const terminators = this.terminators;
      if (terminators === undefined) return null;
      if (name === "vkGetInstanceProcAddr") return this.#gipa;
      if (name === "vkCreateInstance") {
        createInstance ??= this.#callbacks.create(
          CREATE_INSTANCE,
          (pCreateInfo, pAllocator) => terminators.terminatorCreateInstance(pCreateInfo, pAllocator),
          { name: "terminator vkCreateInstance", onError: VK_ERROR_INITIALIZATION_FAILED },
        ).pointer;
        return createInstance;
      }
      const found = terminators.terminatorProcAddr(name);
      if (found !== null) return found;
      debug ??= this.#messengers.terminators(() => this.terminators?.debugDriverInstances() ?? []);
      return debug[name] ?? null;
    };
    const self = this.#callbacks.create(
      GET_PROC_ADDR_CALLBACK,
      (_instance, pName) => pName === null ? null : answer(readCString(pName)),
      { name: "terminator vkGetInstanceProcAddr" },
    );
    this.#gipa = self.pointer;
    this.#answer = answer;
    return this.#gipa;
  }

  /**
   * The loader's own `vkGetDeviceProcAddr` at the bottom of this instance's device chains (null before the
   * first device): a device whose chain's top is this has no device layers.
   */
  get deviceProcAddr(): Pointer {
    return this.#gdpa;
  }

  /** The bottom `vkGetDeviceProcAddr` of the device chains, made the first time. */
  getDeviceProcAddr(): Pointer {
    if (this.#gdpa !== null) return this.#gdpa;
    this.#gdpa = this.#callbacks.create(GET_PROC_ADDR_CALLBACK, (device, pName) => {
      const terminators = this.terminators;
      if (terminators === undefined || pName === null) return null;
      return terminators.driverDeviceProcAddr(device, readCString(pName));
    }, { name: "terminator vkGetDeviceProcAddr" }).pointer;
    return this.#gdpa;
  }
}
