/**
 * Child process of tools/gpu_check.ts: the physical devices a loader lists, in its order, with `deviceUUID`
 * and PCI address; prints `GPU_DEVICES <json>`.
 *
 * @module
 */

import { Arena, readPointer } from "../ffi/memory.ts";
import {
  allocStruct,
  check,
  enumerate,
  makeApiVersion,
  readChain,
  readStruct,
  writeStruct,
} from "../api/structs.ts";
import { deviceTypeName } from "../examples/_helpers.ts";
import { openLoader } from "../examples/_loader.ts";
import type { Commands } from "../bench/_vulkan.ts";

/** One listed device. */
export interface ListedDevice {
  name: string;
  type: string;
  /** 32 hex digits. */
  uuid: string;
  /** "dddd:bb:dd.f", when the device has VK_EXT_pci_bus_info. */
  pci?: string;
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, "0");

async function list(loader: string): Promise<ListedDevice[]> {
  using vk0 = await openLoader(loader);
  const vk = vk0 as unknown as Commands;
  using arena = new Arena();
  const slot = arena.pointer(arena.alloc(8));
  check(
    vk.vkCreateInstance!(
      writeStruct(arena, "VkInstanceCreateInfo", {
        pApplicationInfo: { pApplicationName: "vkdeno gpu_check", apiVersion: makeApiVersion(1, 1) },
      }),
      null,
      slot,
    ),
    "vkCreateInstance",
  );
  const instance = readPointer(slot);
  try {
    return (enumerate(vk.vkEnumeratePhysicalDevices!, [instance]) as Deno.PointerValue[]).map((pd) => {
      const extensions = enumerate(vk.vkEnumerateDeviceExtensionProperties!, [pd, null], {
        struct: "VkExtensionProperties",
        name: "vkEnumerateDeviceExtensionProperties",
      }).map((e) => e.extensionName as string);
      const hasPci = extensions.includes("VK_EXT_pci_bus_info");
      const props = allocStruct(arena, "VkPhysicalDeviceProperties2", {
        pNext: [
          { type: "VkPhysicalDeviceIDProperties" },
          ...(hasPci ? [{ type: "VkPhysicalDevicePCIBusInfoPropertiesEXT" as const }] : []),
        ],
      });
      vk.vkGetPhysicalDeviceProperties2!(pd, props);
      const p = readStruct("VkPhysicalDeviceProperties2", props).properties as Record<string, unknown>;
      const chain = readChain(props);
      const id = chain.find((c) => c.type === "VkPhysicalDeviceIDProperties");
      const pci = chain.find((c) => c.type === "VkPhysicalDevicePCIBusInfoPropertiesEXT");
      const uuid = Array.from(id?.deviceUUID as ArrayLike<number> ?? [], (b) => hex(b, 2)).join("");
      return {
        name: p.deviceName as string,
        type: deviceTypeName(p.deviceType as number),
        uuid,
        ...(pci
          ? {
            pci: `${hex(pci.pciDomain as number, 4)}:${hex(pci.pciBus as number, 2)}:${
              hex(pci.pciDevice as number, 2)
            }.${hex(pci.pciFunction as number, 1)}`,
          }
          : {}),
      };
    });
  } finally {
    vk.vkDestroyInstance!(instance, null);
  }
}

if (import.meta.main) {
  console.log(`GPU_DEVICES ${JSON.stringify(await list(Deno.args[0] ?? "vkdeno"))}`);
}
