/**
 * The loader's side of one instance's layer chains: `InstanceTerminators` implements
 * chain/layer_chain/bottom.ts `LoaderTerminators` over the loader's parts.
 *
 * @module
 */

import type { DriverMessengerTarget } from "./extensions/debug.ts";
import type { LoaderDevices } from "./device.ts";
import type { LoaderTerminators } from "./layer_chain/bottom.ts";
import type { LoaderCallbacks } from "./loader_callbacks.ts";
import type { LoaderInstance } from "./objects.ts";
import type { ChainStubs } from "./stubs.ts";
import { createDriverInstances } from "./driver_instances.ts";
import type { Pointer } from "../ffi/memory.ts";

/** The loader's parts the terminators answer from (chain/loader.ts `Loader` has them). */
export interface TerminatorParts {
  /** The terminator link's entry points and the emulations. */
  readonly callbacks: LoaderCallbacks;
  /** The process's stubs (the error function for a slot nothing fills). */
  readonly stubs: ChainStubs;
  /** The loader's devices. */
  readonly devices: LoaderDevices;
}

/**
 * The loader's side of `inst`'s chains ({@linkcode LoaderTerminators}): the terminator answers and the
 * emulations from the loader's callbacks, the drivers' instances, and the device steps from
 * chain/device.ts `LoaderDevices`. One per instance, given to its layers at `vkCreateInstance`.
 *
 * @example Usage
 * ```ts ignore
 * import { InstanceTerminators, type TerminatorParts } from "./layer_terminators.ts";
 * import type { LoaderInstance } from "./objects.ts";
 * declare const loader: TerminatorParts, inst: LoaderInstance;
 * new InstanceTerminators(loader, inst).terminatorProcAddr("vkCreateDevice");
 * ```
 */
export class InstanceTerminators implements LoaderTerminators {
  readonly #loader: TerminatorParts;
  readonly #inst: LoaderInstance;

  /** The terminators of `inst`, over `loader`'s parts. */
  constructor(loader: TerminatorParts, inst: LoaderInstance) {
    this.#loader = loader;
    this.#inst = inst;
  }

  /** See {@linkcode LoaderTerminators.terminatorProcAddr}. */
  terminatorProcAddr(name: string): Pointer {
    return this.#loader.callbacks.terminatorProcAddr(this.#inst, name);
  }

  /** See {@linkcode LoaderTerminators.terminatorPhysicalDeviceProcAddr}. */
  terminatorPhysicalDeviceProcAddr(name: string): Pointer {
    return this.#loader.callbacks.terminatorPhysicalDeviceProcAddr(this.#inst, name);
  }

  /** The terminator of vkCreateInstance (chain/driver_instances.ts), with the loader's emulations. */
  terminatorCreateInstance(pCreateInfo: Pointer, pAllocator: Pointer): number {
    const callbacks = this.#loader.callbacks;
    const stubs = this.#loader.stubs;
    return createDriverInstances(
      this.#inst,
      pCreateInfo,
      pAllocator,
      (s) => callbacks.emulation(s) ?? stubs.errorFunction,
    );
  }

  /** Drivers that enabled a debug extension get the application's messengers too (their own messages). */
  debugDriverInstances(): readonly DriverMessengerTarget[] {
    // A DriverInstance is a DriverMessengerTarget: its handle and its procAddr(name) method.
    return this.#inst.drivers.filter((d) =>
      d.enabledExtensions.includes("VK_EXT_debug_utils") ||
      d.enabledExtensions.includes("VK_EXT_debug_report")
    );
  }

  /** See {@linkcode LoaderTerminators.driverDeviceProcAddr}. */
  driverDeviceProcAddr(device: Pointer, name: string): Pointer {
    return this.#loader.devices.driverDeviceProcAddr(this.#inst, device, name);
  }

  /** See {@linkcode LoaderTerminators.unwrapPhysicalDevice}. */
  unwrapPhysicalDevice(physicalDevice: Pointer): Pointer {
    return this.#loader.devices.unwrapPhysicalDevice(physicalDevice);
  }

  /** See {@linkcode LoaderTerminators.deviceCreated}. */
  deviceCreated(device: Pointer, getDeviceProcAddr: Pointer): number {
    return this.#loader.devices.deviceCreated(this.#inst, device, getDeviceProcAddr);
  }

  /** See {@linkcode LoaderTerminators.layerDestroyedDevice}. */
  layerDestroyedDevice(device: Pointer): void {
    this.#loader.devices.layerDestroyedDevice(device);
  }

  /** See {@linkcode LoaderTerminators.deviceDispatchTable}. */
  deviceDispatchTable(device: Pointer): Pointer {
    return this.#loader.devices.deviceDispatchTable(device);
  }
}
