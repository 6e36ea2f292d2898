/**
 * A first instance as a user's script makes it, for the persistent cache's tests (tests/ffi/persistent_cache_test.ts):
 * loads the loader from the process environment, creates an instance, prints the physical devices' names
 * and whether the dispatch stubs are native, as one JSON line.
 *
 * @module
 */
import { Arena, asHandle, check, enumerate, readStruct, Vulkan, writeStruct } from "../../mod.ts";
import { chainStubs } from "../../chain/stubs.ts";

using vk = Vulkan.load();
using arena = new Arena();
const slot = arena.pointer(arena.alloc(8));
check(vk.vkCreateInstance(writeStruct(arena, "VkInstanceCreateInfo", {}), null, slot), "vkCreateInstance");
const instance = asHandle("VkInstance", new Deno.UnsafePointerView(slot!).getPointer())!;
const devices: string[] = [];
for (const gpu of enumerate(vk.vkEnumeratePhysicalDevices, [instance])) {
  const properties = arena.alloc(1024);
  vk.vkGetPhysicalDeviceProperties(gpu, arena.pointer(properties));
  devices.push(readStruct("VkPhysicalDeviceProperties", properties).deviceName as string);
}
vk.vkDestroyInstance(instance, null);
const stubs = chainStubs();
console.log(JSON.stringify({ devices, native: stubs.dispatch.native && stubs.unwrap.native }));
