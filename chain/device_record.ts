/**
 * Reads what the physical-device policy needs ({@linkcode DeviceRecord}) from a driver, the way the
 * Khronos loader does before sorting: `vkGetPhysicalDeviceProperties` for the IDs, type and name; PCI
 * bus info only when the device advertises `VK_EXT_pci_bus_info` and the driver can answer
 * `vkGetPhysicalDeviceProperties2` for this instance; `driverID` only when the device is 1.2+ or offers
 * `VK_KHR_driver_properties`, through the same query.
 *
 * @example In an enumeration terminator
 * ```ts ignore
 * import { readDeviceRecord, supportsProperties2 } from "./device_record.ts";
 * const record = readDeviceRecord(driverInstance, driverPhysicalDevice, {
 *   properties2: supportsProperties2(appApiVersion, driver.apiVersion, driverInstance.enabledExtensions),
 * });
 * ```
 *
 * @module
 */

import { Arena } from "../ffi/memory.ts";
import { allocStruct, enumerate, readChain, readStruct } from "../ffi/structs.ts";
import type { DeviceRecord } from "./device_sort.ts";

/** A driver's instance-level functions, callable from TypeScript (e.g. `DriverInstance.fn`). */
export interface DriverFunctions {
  /** The driver's command `name` (or an alias), or null when it has none. */
  fn(name: string): ((...args: unknown[]) => unknown) | null;
}

/** A {@linkcode DeviceRecord} with the rest of what reports show. */
export interface PhysicalDeviceRecord extends DeviceRecord {
  /** `deviceName`. */
  readonly name: string;
  /** `VkPhysicalDeviceProperties::apiVersion`. */
  readonly apiVersion: number;
}

const GPDP2 = "VK_KHR_get_physical_device_properties2";

function atLeast11(v: number): boolean {
  const major = (v >>> 22) & 0x7f;
  const minor = (v >>> 12) & 0x3ff;
  return major > 1 || (major === 1 && minor >= 1);
}

/**
 * Whether a driver answers `vkGetPhysicalDeviceProperties2` for an instance: the application asked for
 * Vulkan 1.1+ and the driver is 1.1+, or `VK_KHR_get_physical_device_properties2` is enabled on it.
 *
 * @example Usage
 * ```ts
 * import { supportsProperties2 } from "./device_record.ts";
 * supportsProperties2(0x400000, 0x403000, ["VK_KHR_get_physical_device_properties2"]); // true
 * ```
 */
export function supportsProperties2(
  appApiVersion: number,
  driverApiVersion: number,
  enabledExtensions: readonly string[],
): boolean {
  return (atLeast11(appApiVersion) && atLeast11(driverApiVersion)) || enabledExtensions.includes(GPDP2);
}

/**
 * Reads one driver physical device's record (cold path: a few FFI calls).
 *
 * @example Usage
 * ```ts ignore
 * const record = readDeviceRecord(driverInstance, handle, { properties2: true });
 * console.log(record.name, record.pciBus, record.driverID);
 * ```
 */
export function readDeviceRecord(
  driver: DriverFunctions,
  physicalDevice: Deno.PointerValue,
  options: { readonly properties2: boolean },
): PhysicalDeviceRecord {
  using arena = new Arena();
  const getProperties = driver.fn("vkGetPhysicalDeviceProperties");
  if (!getProperties) {
    throw new TypeError("Cannot read a physical device: the driver has no vkGetPhysicalDeviceProperties");
  }
  const props = allocStruct(arena, "VkPhysicalDeviceProperties");
  getProperties(physicalDevice, props);
  const p = readStruct("VkPhysicalDeviceProperties", props);
  const record = {
    name: p.deviceName as string,
    vendorID: p.vendorID as number,
    deviceID: p.deviceID as number,
    deviceType: p.deviceType as number,
    apiVersion: p.apiVersion as number,
  };
  const getProperties2 = options.properties2 ? driver.fn("vkGetPhysicalDeviceProperties2") : null;
  if (!getProperties2) return record;
  const enumerateExtensions = driver.fn("vkEnumerateDeviceExtensionProperties");
  let extensions: string[] = [];
  if (enumerateExtensions) {
    try {
      extensions = enumerate(enumerateExtensions, [physicalDevice, null], {
        struct: "VkExtensionProperties",
        name: "vkEnumerateDeviceExtensionProperties",
      }).map((e) => e.extensionName as string);
    } catch {
      // A device that cannot list its extensions is sorted without PCI info, as in the Khronos loader.
    }
  }
  const wantPci = extensions.includes("VK_EXT_pci_bus_info");
  const major = (record.apiVersion >>> 22) & 0x7f, minor = (record.apiVersion >>> 12) & 0x3ff;
  const wantDriver = major > 1 || (major === 1 && minor >= 2) ||
    extensions.includes("VK_KHR_driver_properties");
  if (!wantPci && !wantDriver) return record;
  const chain = [
    ...(wantPci ? [{ type: "VkPhysicalDevicePCIBusInfoPropertiesEXT" as const }] : []),
    ...(wantDriver ? [{ type: "VkPhysicalDeviceDriverProperties" as const }] : []),
  ];
  const props2 = allocStruct(arena, "VkPhysicalDeviceProperties2", { pNext: chain });
  getProperties2(physicalDevice, props2);
  const out: { pciBus?: DeviceRecord["pciBus"]; driverID?: number } = {};
  for (const link of readChain(props2)) {
    if (link.type === "VkPhysicalDevicePCIBusInfoPropertiesEXT") {
      out.pciBus = {
        domain: link.pciDomain as number,
        bus: link.pciBus as number,
        device: link.pciDevice as number,
        function: link.pciFunction as number,
      };
    } else if (link.type === "VkPhysicalDeviceDriverProperties") {
      out.driverID = link.driverID as number;
    }
  }
  return { ...record, ...out };
}
