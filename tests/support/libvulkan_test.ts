/** openLibvulkan (libvulkan.ts): the reference loader behind vkdeno's command-object shape. */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { Arena, readPointer } from "../../ffi/memory.ts";
import { allocStruct, check, enumerate, makeApiVersion, readStruct, writeStruct } from "../../api/structs.ts";
import { COMMAND_INDEX } from "../../vk/generated/commands.ts";
import { openLibvulkan } from "./libvulkan.ts";
import { readHandle } from "../../vk/handle.ts";
import { LAVAPIPE } from "./lavapipe.ts";
import { onLibvulkan } from "./libvulkan_half.ts";

function createInstance(vk: ReturnType<typeof openLibvulkan>, arena: Arena, extensions: string[] = []) {
  const slot = arena.pointer(arena.alloc(8));
  check(
    vk.vkCreateInstance(
      writeStruct(arena, "VkInstanceCreateInfo", {
        pApplicationInfo: { apiVersion: makeApiVersion(1, 3) },
        ppEnabledExtensionNames: extensions,
      }),
      null,
      slot,
    ),
    "vkCreateInstance",
  );
  return readHandle("VkInstance", slot)!;
}

Deno.test("every generated command name is a method; libvulkan's exports are fast symbols", () => {
  using vk = openLibvulkan();
  for (const name of Object.keys(COMMAND_INDEX)) {
    assertEquals(typeof (vk as unknown as Record<string, unknown>)[name], "function", name);
  }
  assert(vk.exported.has("vkCreateInstance") && vk.exported.has("vkCmdDispatch"));
  assert(!vk.exported.has("vkCreateDebugUtilsMessengerEXT"));
  assert(vk.exported.size > 200, `${vk.exported.size} exports`);
});

Deno.test("commands libvulkan does not export resolve through vkGetInstanceProcAddr on first call", (t) =>
  onLibvulkan(t, { VK_DRIVER_FILES: LAVAPIPE }, () => {
    using arena = new Arena();
    using vk = openLibvulkan();
    const instance = createInstance(vk, arena, ["VK_KHR_get_physical_device_properties2"]);
    try {
      const [device] = enumerate(vk.vkEnumeratePhysicalDevices!, [instance]);
      const direct = allocStruct(arena, "VkPhysicalDeviceProperties");
      vk.vkGetPhysicalDeviceProperties(device!, direct);
      const viaKhr = allocStruct(arena, "VkPhysicalDeviceProperties2");
      assert(!vk.exported.has("vkGetPhysicalDeviceProperties2KHR"));
      vk.vkGetPhysicalDeviceProperties2KHR(device!, viaKhr);
      const name = readStruct("VkPhysicalDeviceProperties", direct).deviceName;
      assertEquals(
        (readStruct("VkPhysicalDeviceProperties2", viaKhr).properties as { deviceName: string }).deviceName,
        name,
      );
    } finally {
      vk.vkDestroyInstance(instance, null);
    }
  }));

Deno.test("deviceTable holds the device's commands: exports, and enabled extensions through vkGetDeviceProcAddr", (t) =>
  onLibvulkan(t, { VK_DRIVER_FILES: LAVAPIPE }, () => {
    using arena = new Arena();
    using vk = openLibvulkan();
    const instance = createInstance(vk, arena);
    try {
      const [physicalDevice] = enumerate(vk.vkEnumeratePhysicalDevices!, [instance]);
      const slot = arena.pointer(arena.alloc(8));
      check(
        vk.vkCreateDevice(
          physicalDevice!,
          writeStruct(arena, "VkDeviceCreateInfo", {
            pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
            ppEnabledExtensionNames: ["VK_KHR_push_descriptor"],
          }),
          null,
          slot,
        ),
        "vkCreateDevice",
      );
      const device = readHandle("VkDevice", slot)!;
      const table = vk.deviceTable(device);
      assertEquals(table.vkGetDeviceQueue!, vk.vkGetDeviceQueue);
      assertEquals(typeof table.vkCmdPushDescriptorSetKHR, "function");
      assertEquals(table.vkCreateSwapchainKHR, undefined);
      assertEquals((table as Record<string, unknown>).vkCreateInstance, undefined);
      const queue = arena.pointer(arena.alloc(8));
      table.vkGetDeviceQueue!(device, 0, 0, queue);
      assert(readPointer(queue) !== null);
      table.vkDestroyDevice!(device, null);
    } finally {
      vk.vkDestroyInstance(instance, null);
    }
  }));
