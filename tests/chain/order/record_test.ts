// What the physical-device sort reads of each driver device: driverID (a vkGetPhysicalDeviceProperties2
// call on a device without VK_EXT_pci_bus_info) only when the instance's policy has a driver id filter.
import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { type PolicyDriverInstance, recordOf } from "../../../chain/order/policy.ts";
import { readDeviceRecord } from "../../../chain/order/record.ts";
import { readDevicePolicy } from "../../../discovery/device_selection.ts";
import { readPointer, writeI32, writeU32 } from "../../../ffi/memory.ts";
import { offsetOf } from "../../../vk/struct_layout.ts";

const V1_3 = (1 << 22) | (3 << 12);
const PROPS = "VkPhysicalDeviceProperties";
const DRIVER_ID_VENDOR_MESA_LLVMPIPE = 13;

const PCI_BUS_INFO_STYPE = 1000212000;
const DRIVER_PROPERTIES_STYPE = 1000196000;

/**
 * A 1.3 driver with one 1.3 device offering `extensions`; its vkGetPhysicalDeviceProperties2 answers PCI bus
 * 0000:07:00.0 and driverID 13, and counts its calls.
 */
function driver(extensions: readonly string[] = []): PolicyDriverInstance & { properties2Calls: number } {
  const d = {
    index: 0,
    enabledExtensions: [] as string[],
    driver: { apiVersion: V1_3 },
    properties2Calls: 0,
    fn(name: string): ((...args: unknown[]) => unknown) | null {
      if (name === "vkGetPhysicalDeviceProperties") {
        return (_pd, p) => writeU32(p as Deno.PointerObject, offsetOf(PROPS, "apiVersion"), V1_3);
      }
      if (name === "vkEnumerateDeviceExtensionProperties") {
        return (_pd, _layer, pCount, pList) => {
          writeU32(pCount as Deno.PointerObject, 0, extensions.length);
          extensions.forEach((name, i) => {
            if (pList === null) return;
            const entry = Deno.UnsafePointerView.getArrayBuffer(pList as Deno.PointerObject, 260, i * 260);
            new Uint8Array(entry).set(new TextEncoder().encode(name + "\0"));
          });
          return 0;
        };
      }
      if (name === "vkGetPhysicalDeviceProperties2") {
        return (_pd, p) => {
          d.properties2Calls++;
          // The chain: sType at 0, pNext at 8; PCI domain, bus, device, function at 16-28; driverID at 16.
          for (let s = readPointer(p as Deno.PointerObject, 8); s !== null; s = readPointer(s, 8)) {
            const sType = new Deno.UnsafePointerView(s).getInt32(0);
            if (sType === PCI_BUS_INFO_STYPE) writeU32(s, 20, 7);
            if (sType === DRIVER_PROPERTIES_STYPE) writeI32(s, 16, DRIVER_ID_VENDOR_MESA_LLVMPIPE);
          }
        };
      }
      return null;
    },
  };
  return d;
}

const handle = Deno.UnsafePointer.create(0x40n);

Deno.test("a record asked without driverID makes no vkGetPhysicalDeviceProperties2 call", () => {
  const d = driver();
  const record = readDeviceRecord(d, handle, { properties2: true, driverID: false });
  assertEquals(record.driverID, undefined);
  assertEquals(d.properties2Calls, 0);
  // By default (deno task info) it is read.
  assertEquals(readDeviceRecord(d, handle, { properties2: true }).driverID, DRIVER_ID_VENDOR_MESA_LLVMPIPE);
  assertEquals(d.properties2Calls, 1);
});

Deno.test("the enumeration reads driverID only when VK_LOADER_DRIVER_ID_FILTER is set", () => {
  for (
    const [vars, driverID, calls] of [[{}, undefined, 0], [
      { VK_LOADER_DRIVER_ID_FILTER: "13" },
      13,
      1,
    ]] as const
  ) {
    const d = driver();
    const inst = {
      apiVersion: V1_3,
      devicePolicy: readDevicePolicy({ vars, elevated: false }),
      drivers: [d],
      log: { logAll() {} },
    };
    const record = recordOf(inst, { driverInstance: d, driverHandle: handle });
    assertEquals([record.driverID, d.properties2Calls], [driverID, calls]);
  }
});

Deno.test("PCI bus info is read only for a device listing VK_EXT_pci_bus_info itself, not a longer name", () => {
  const longer = driver(["VK_KHR_swapchain", "VK_EXT_pci_bus_info_extra", "VK_EXT_pci_bus_inf"]);
  assertEquals(readDeviceRecord(longer, handle, { properties2: true, driverID: false }).pciBus, undefined);
  assertEquals(longer.properties2Calls, 0);
  const exact = driver(["VK_KHR_swapchain", "VK_EXT_pci_bus_info_extra", "VK_EXT_pci_bus_info"]);
  const record = readDeviceRecord(exact, handle, { properties2: true, driverID: false });
  assertEquals(record.pciBus, { domain: 0, bus: 7, device: 0, function: 0 });
  assertEquals(record.driverID, undefined);
});
