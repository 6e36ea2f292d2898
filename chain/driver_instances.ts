/**
 * The bottom of `vkCreateInstance`: the drivers' own instances (chain/objects.ts `DriverInstance`), each made
 * with the application's `VkInstanceCreateInfo` read and rewritten for that driver (LDP_LOADER_7,
 * LDP_LOADER_9), the drivers lacking required entry points dropped (docs/behaviour.md I08, I11), and the
 * drivers' function tables that terminator physical devices jump through.
 *
 * @module
 */

import { Arena, type Pointer, pointerFromAddress, readCString, readPointer, readU32 } from "../ffi/memory.ts";
import type { Driver } from "../loading/driver.ts";
import { skipLoaderNodes } from "./layer_chain/nodes.ts";
import { DriverInstance, type LoaderInstance } from "./objects.ts";
import { chainStubs } from "./stubs.ts";
import { fillPhysicalDeviceCommands } from "./table_fill.ts";
import { offsetOf, sizeOf } from "../vk/struct_layout.ts";
import { structureType } from "../vk/names.ts";
import { majorMinor } from "../vk/api_version.ts";
import {
  VK_API_VERSION_1_0,
  VK_API_VERSION_1_1,
  VK_ERROR_INCOMPATIBLE_DRIVER,
  VK_ERROR_OUT_OF_HOST_MEMORY,
  VK_SUCCESS,
} from "../vk/generated/vk_constants.js";

/** `VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR`. */
export const ENUMERATE_PORTABILITY_BIT = 0x1;

/** A `VkInstanceCreateInfo` as the loader reads it. */
export interface InstanceCreateInfo {
  readonly pointer: Deno.PointerObject;
  readonly pNext: Deno.PointerValue;
  readonly flags: number;
  readonly pApplicationInfo: Deno.PointerValue;
  /** `pApplicationInfo->apiVersion`, 0 when there is no application info. */
  readonly appApiVersion: number;
  readonly layers: readonly string[];
  readonly extensions: readonly string[];
}

function strings(array: Deno.PointerValue, count: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < count && array !== null; i++) out.push(readCString(readPointer(array, i * 8)));
  return out;
}

/**
 * Reads a `VkInstanceCreateInfo`.
 *
 * @example Usage
 * ```ts ignore
 * const info = readInstanceCreateInfo(pCreateInfo);
 * console.log(info.extensions);
 * ```
 * @throws {TypeError} If the pointer is null.
 */
export function readInstanceCreateInfo(p: Deno.PointerValue): InstanceCreateInfo {
  if (p === null) throw new TypeError("vkCreateInstance: pCreateInfo is NULL");
  const s = "VkInstanceCreateInfo";
  const app = readPointer(p, offsetOf(s, "pApplicationInfo"));
  return {
    pointer: p,
    pNext: readPointer(p, offsetOf(s, "pNext")),
    flags: readU32(p, offsetOf(s, "flags")),
    pApplicationInfo: app,
    appApiVersion: app === null ? 0 : readU32(app, offsetOf("VkApplicationInfo", "apiVersion")),
    layers: strings(
      readPointer(p, offsetOf(s, "ppEnabledLayerNames")),
      readU32(p, offsetOf(s, "enabledLayerCount")),
    ),
    extensions: strings(
      readPointer(p, offsetOf(s, "ppEnabledExtensionNames")),
      readU32(p, offsetOf(s, "enabledExtensionCount")),
    ),
  };
}

/** What a driver's `vkCreateInstance` gets, and why. */
export interface DriverCreateInfo {
  readonly pointer: Deno.PointerObject;
  readonly extensions: readonly string[];
  readonly apiVersion: number;
}

/**
 * The create info for one driver: only the extensions it offers (plus
 * `VK_KHR_get_physical_device_properties2` where the app or the driver is 1.0 and the driver has it), no
 * layers, the portability bit only for drivers offering `VK_KHR_portability_enumeration`, and for a 1.0
 * driver a copy of `VkApplicationInfo` with `apiVersion` 1.0. With `raiseTo11` (the settings file has
 * `device_configurations`, which are matched through Vulkan 1.1 properties) a 1.0 application's instance
 * is made at 1.1 on every 1.1+ driver, as the Khronos loader does.
 *
 * @example Usage
 * ```ts ignore
 * const { pointer } = driverCreateInfo(arena, info, driver);
 * ```
 */
export function driverCreateInfo(
  arena: Arena,
  info: InstanceCreateInfo,
  driver: Driver,
  options: { readonly raiseTo11?: boolean } = {},
): DriverCreateInfo {
  const offered = new Set(driver.instanceExtensions().map((e) => e.name));
  const extensions = info.extensions.filter((e) => offered.has(e));
  const gpdp2 = "VK_KHR_get_physical_device_properties2";
  const appIs10 = info.appApiVersion === 0 || majorMinor(info.appApiVersion) < majorMinor(VK_API_VERSION_1_1);
  if ((appIs10 || driver.isVulkan10) && offered.has(gpdp2) && !extensions.includes(gpdp2)) {
    extensions.push(gpdp2);
  }
  let flags = info.flags;
  if (!offered.has("VK_KHR_portability_enumeration")) flags &= ~ENUMERATE_PORTABILITY_BIT;

  let app = info.pApplicationInfo;
  let apiVersion = info.appApiVersion;
  if (app !== null && driver.isVulkan10 && info.appApiVersion !== 0) {
    const size = sizeOf("VkApplicationInfo");
    const copy = arena.alloc(size);
    copy.set(new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(app, size)));
    new DataView(copy.buffer, copy.byteOffset).setUint32(
      offsetOf("VkApplicationInfo", "apiVersion"),
      VK_API_VERSION_1_0,
      true,
    );
    app = arena.pointer(copy);
    apiVersion = VK_API_VERSION_1_0;
  } else if (options.raiseTo11 && appIs10 && !driver.isVulkan10) {
    app = applicationInfoAt(arena, app, VK_API_VERSION_1_1);
    apiVersion = VK_API_VERSION_1_1;
  }

  const s = "VkInstanceCreateInfo";
  const buf = arena.alloc(sizeOf(s));
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const ptr = (o: number, p: Deno.PointerValue) =>
    dv.setBigUint64(o, BigInt(Deno.UnsafePointer.value(p)), true);
  dv.setUint32(offsetOf(s, "sType"), structureType("VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO"), true);
  // The loader's layer nodes stop at the terminator: drivers get the application's chain.
  ptr(offsetOf(s, "pNext"), skipLoaderNodes(info.pNext));
  dv.setUint32(offsetOf(s, "flags"), flags, true);
  ptr(offsetOf(s, "pApplicationInfo"), app);
  dv.setUint32(offsetOf(s, "enabledExtensionCount"), extensions.length, true);
  ptr(offsetOf(s, "ppEnabledExtensionNames"), arena.cstringArray(extensions));
  return { pointer: arena.pointer(buf), extensions, apiVersion };
}

/** A copy of the application's `VkApplicationInfo` (a blank one when it gave none) with `apiVersion` set. */
function applicationInfoAt(arena: Arena, app: Deno.PointerValue, apiVersion: number): Deno.PointerObject {
  const size = sizeOf("VkApplicationInfo");
  const copy = arena.alloc(size);
  const dv = new DataView(copy.buffer, copy.byteOffset, size);
  if (app !== null) copy.set(new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(app, size)));
  else {dv.setUint32(
      offsetOf("VkApplicationInfo", "sType"),
      structureType("VK_STRUCTURE_TYPE_APPLICATION_INFO"),
      true,
    );}
  dv.setUint32(offsetOf("VkApplicationInfo", "apiVersion"), apiVersion, true);
  return arena.pointer(copy);
}

/** Physical-device commands the loader must see at instance creation (docs/behaviour.md I08). */
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
 * ({@linkcode driverCreateInfo}), failures skipped with a log line; drivers lacking a required command dropped;
 * each survivor's function table filled (`missing` answers the slots the driver leaves empty).
 *
 * @example Usage
 * ```ts ignore
 * const result = createDriverInstances(inst, pCreateInfo, null, () => null);
 * ```
 */
export function createDriverInstances(
  inst: LoaderInstance,
  pCreateInfo: Pointer,
  pAllocator: Pointer,
  missing: (slot: number) => Pointer,
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
    if (result === VK_ERROR_OUT_OF_HOST_MEMORY) {
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
    return VK_ERROR_INCOMPATIBLE_DRIVER;
  }
  // Layers fill their dispatch from the terminators right after this returns: WSI must be ready.
  inst.startWsi();
  // Physical devices are not asked for here: as in the Khronos loader, the drivers enumerate them (and the
  // sort keys are read from them, at terminator level, unseen by layers) when the application first asks.
  // Lavapipe makes its device on first enumeration, which costs an instance that never asks ~1 ms.
  return VK_SUCCESS;
}

/**
 * Destroys the drivers' instances once (a layer may already have had the terminator do it).
 *
 * @example Usage
 * ```ts ignore
 * destroyDriverInstances(inst, null);
 * ```
 */
export function destroyDriverInstances(inst: LoaderInstance, pAllocator: Pointer): void {
  if (inst.driverInstancesDestroyed) return;
  inst.driverInstancesDestroyed = true;
  for (const d of inst.drivers) d.fn("vkDestroyInstance")?.(d.handle, pAllocator);
}

/**
 * The driver's functions for every physical-device slot (its `vkGetInstanceProcAddr` asked for each name and
 * alias, in one native call: chain/table_fill.ts); `missing` answers the empty ones.
 */
function fillDriverTable(d: DriverInstance, missing: (slot: number) => Pointer): void {
  d.setTable(fillPhysicalDeviceCommands(chainStubs(), d.driver.getInstanceProcAddr, d.handle), missing);
}
