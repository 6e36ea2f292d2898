/**
 * The bottom of `vkCreateInstance`: the drivers' own instances, each made with a create info rewritten for
 * that driver, the drivers lacking required entry points dropped (LOADER_BEHAVIOUR.md I08, I11), and the
 * drivers' function tables that terminator physical devices jump through.
 *
 * @module
 */

import { Arena, pointerFromAddress } from "../ffi/memory.ts";
import { driverCreateInfo, readInstanceCreateInfo } from "./driver_instance.ts";
import { DriverInstance, type LoaderInstance } from "./objects.ts";
import { chainStubs } from "./stubs.ts";
import { fillPhysicalDeviceCommands } from "./table_fill.ts";
import { VK } from "../loading/_layout.ts";

type P = Deno.PointerValue;

/** Physical-device commands the loader must see at instance creation (LOADER_BEHAVIOUR.md I08). */
export const REQUIRED_DRIVER_COMMANDS: readonly string[] = [
  "vkDestroyInstance",
  "vkEnumeratePhysicalDevices",
  "vkGetPhysicalDeviceFeatures",
  "vkGetPhysicalDeviceFormatProperties",
  "vkGetPhysicalDeviceImageFormatProperties",
  "vkGetPhysicalDeviceProperties",
  "vkGetPhysicalDeviceQueueFamilyProperties",
  "vkGetPhysicalDeviceMemoryProperties",
  "vkGetPhysicalDeviceSparseImageFormatProperties",
  "vkCreateDevice",
  "vkEnumerateDeviceExtensionProperties",
  "vkGetDeviceProcAddr",
];

/**
 * The terminator of `vkCreateInstance`: every held driver's `vkCreateInstance` with its own create info
 * (driver_instance.ts), failures skipped with a log line; drivers lacking a required command dropped;
 * each survivor's function table filled (`missing` answers the slots the driver leaves empty).
 *
 * @example Usage
 * ```ts ignore
 * const result = createDriverInstances(inst, pCreateInfo, null, () => null);
 * ```
 */
export function createDriverInstances(
  inst: LoaderInstance,
  pCreateInfo: P,
  pAllocator: P,
  missing: (slot: number) => P,
): number {
  inst.terminatorReached = true;
  const info = readInstanceCreateInfo(pCreateInfo);
  using arena = new Arena();
  for (const driver of inst.heldDrivers) {
    // The settings file's device list is matched through Vulkan 1.1 properties (chain/order/configurations.ts).
    const ci = driverCreateInfo(arena, info, driver, {
      raiseTo11: inst.devicePolicy.deviceConfigurations !== undefined,
    });
    const out = new BigUint64Array(new ArrayBuffer(8));
    const result = driver.createInstance(ci.pointer, pAllocator, out);
    if (result === VK.ERROR_OUT_OF_HOST_MEMORY) {
      destroyDriverInstances(inst, pAllocator);
      return result;
    }
    if (result < 0 || out[0] === 0n) {
      inst.log.warn(
        `Driver "${driver.name}": vkCreateInstance failed with "${result}", skipping it`,
        "driver",
      );
      continue;
    }
    const d = new DriverInstance(
      driver,
      inst.drivers.length,
      pointerFromAddress(out[0]!) as Deno.PointerObject,
      ci.extensions,
    );
    const lacking = REQUIRED_DRIVER_COMMANDS.find((n) => d.procAddr(n) === null);
    if (lacking !== undefined) {
      inst.log.warn(`Driver "${driver.name}" lacks "${lacking}": skipping it`, "driver");
      d.fn("vkDestroyInstance")?.(d.handle, pAllocator);
      d.dispose();
      continue;
    }
    fillDriverTable(d, missing);
    inst.drivers.push(d);
  }
  if (inst.drivers.length === 0) {
    inst.log.error("vkCreateInstance: found no drivers whose vkCreateInstance succeeded");
    return VK.ERROR_INCOMPATIBLE_DRIVER;
  }
  // Layers fill their dispatch from the terminators right after this returns: WSI must be ready.
  inst.startWsi();
  // Physical devices are not asked for here: as in the Khronos loader, the drivers enumerate them (and the
  // sort keys are read from them, at terminator level, unseen by layers) when the application first asks.
  // Lavapipe makes its device on first enumeration, which costs an instance that never asks ~1 ms.
  return VK.SUCCESS;
}

/**
 * Destroys the drivers' instances once (a layer may already have had the terminator do it).
 *
 * @example Usage
 * ```ts ignore
 * destroyDriverInstances(inst, null);
 * ```
 */
export function destroyDriverInstances(inst: LoaderInstance, pAllocator: P): void {
  if (inst.driverInstancesDestroyed) return;
  inst.driverInstancesDestroyed = true;
  for (const d of inst.drivers) d.fn("vkDestroyInstance")?.(d.handle, pAllocator);
}

/**
 * The driver's functions for every physical-device slot (its `vkGetInstanceProcAddr` asked for each name and
 * alias, in one native call: chain/table_fill.ts); `missing` answers the empty ones.
 */
function fillDriverTable(d: DriverInstance, missing: (slot: number) => P): void {
  d.setTable(fillPhysicalDeviceCommands(chainStubs(), d.driver.getInstanceProcAddr, d.handle), missing);
}
