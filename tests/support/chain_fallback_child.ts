/**
 * Child process of tests/chain/fallback_test.ts: the whole chain on the UnsafeFnPointer fallback (the
 * first load of the process asks for it), over the environment given as JSON in the first argument.
 * Prints one JSON line of results.
 *
 * @module
 */

import { Vulkan } from "../../vulkan.ts";
import { Arena, readU32 } from "../../ffi/memory.ts";
import { writeStruct } from "../../api/structs.ts";
import { readHandle } from "../../vk/handle.ts";

const env = JSON.parse(Deno.args[0]!);
using vk = Vulkan.load({ env, nativeStubs: false });
using arena = new Arena();
const out = () => arena.pointer(arena.alloc(8));
const pInstance = out();
const ci = writeStruct(arena, "VkInstanceCreateInfo", {
  pApplicationInfo: writeStruct(arena, "VkApplicationInfo", { apiVersion: (1 << 22) | (3 << 12) }),
});
const results: Record<string, unknown> = { native: vk.native };
results.createInstance = vk.vkCreateInstance(ci, null, pInstance);
const instance = readHandle("VkInstance", pInstance, 0)!;
const count = arena.pointer(arena.alloc(4));
const pds = arena.pointer(arena.alloc(64));
results.enumerate = vk.vkEnumeratePhysicalDevices(instance, count, null);
vk.vkEnumeratePhysicalDevices(instance, count, pds);
results.count = readU32(count, 0);
const pd = readHandle("VkPhysicalDevice", pds, 0)!;
const props = arena.pointer(arena.alloc(1024));
vk.vkGetPhysicalDeviceProperties(pd, props);
results.deviceName = new Deno.UnsafePointerView(props).getCString(20);
const queue = writeStruct(arena, "VkDeviceQueueCreateInfo", {
  queueCount: 1,
  pQueuePriorities: arena.copy(new Float32Array([1])),
});
const pDevice = out();
results.createDevice = vk.vkCreateDevice(
  pd,
  writeStruct(arena, "VkDeviceCreateInfo", { queueCreateInfoCount: 1, pQueueCreateInfos: queue }),
  null,
  pDevice,
);
const device = readHandle("VkDevice", pDevice, 0)!;
const pQueue = out();
vk.vkGetDeviceQueue(device, 0, 0, pQueue);
results.queueWaitIdle = vk.vkQueueWaitIdle(readHandle("VkQueue", pQueue, 0)!);
results.deviceWaitIdle = vk.vkDeviceWaitIdle(device);
vk.vkDestroyDevice(device, null);
vk.vkDestroyInstance(instance, null);
console.log(JSON.stringify(results));
