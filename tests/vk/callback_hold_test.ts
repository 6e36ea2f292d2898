/**
 * A callback a live object holds (docs/behaviour.md V10): it cannot be closed through its `VkCallback` while
 * held (the error names the holder), and its native address is not handed to a new owner while held.
 */

import { deepStrictEqual as assertEquals, notStrictEqual, throws as assertThrows } from "node:assert/strict";
import { CallbackOwner, holdCallback, holdersOf } from "../../ffi/callback.ts";
import { makeCallback } from "../../vk/vk_callback.ts";
import { Arena, create, enumerate, Vulkan, writeStruct } from "../../mod.ts";
import { MockDriver, mockEnvironment } from "../../testing/mod.ts";

Deno.test("a held callback refuses to close, naming its holder, and closes once released", () => {
  const cb = makeCallback("PFN_vkDebugUtilsMessengerCallbackEXT", () => false);
  const release = holdCallback(cb.pointer, "VkDebugUtilsMessengerEXT 0x1");
  assertThrows(() => cb.dispose(), {
    name: "TypeError",
    message:
      /^PFN_vkDebugUtilsMessengerCallbackEXT: cannot close callback 0x[0-9a-f]+: held by VkDebugUtilsMessengerEXT 0x1; destroy it first$/,
  });
  assertEquals(cb.open, true);
  release();
  release(); // twice is harmless
  assertEquals(holdersOf(cb.pointer), []);
  cb.dispose();
  assertEquals(cb.open, false);
});

Deno.test("a released callback still held is not pooled: the next callback of its signature gets another address", () => {
  const def = { parameters: ["u32"], result: "void" } as const;
  const first = new CallbackOwner();
  const held = first.create(def, () => {}, { name: "held" }).pointer;
  const release = holdCallback(held, "VkDebugReportCallbackEXT 0x2");
  first.dispose();
  using second = new CallbackOwner();
  const next = second.create(def, () => {}, { name: "next" }).pointer;
  notStrictEqual(Deno.UnsafePointer.value(next), Deno.UnsafePointer.value(held));
  release();
});

Deno.test("the allocation callbacks of vkCreateInstance and vkCreateDevice are held until that object is destroyed", () => {
  using mock = new MockDriver();
  using isolated = mockEnvironment();
  using vk = Vulkan.load({ drivers: [mock], env: isolated.env });
  using arena = new Arena();
  const allocation = makeCallback("PFN_vkAllocationFunction", () => null);
  const reallocation = makeCallback("PFN_vkReallocationFunction", () => null);
  const free = makeCallback("PFN_vkFreeFunction", () => {});
  const pAllocator = writeStruct(arena, "VkAllocationCallbacks", {
    pfnAllocation: allocation.pointer,
    pfnReallocation: reallocation.pointer,
    pfnFree: free.pointer,
  });
  const instance = create(vk, "vkCreateInstance", [
    writeStruct(arena, "VkInstanceCreateInfo", {}),
    pAllocator,
  ]);
  const [gpu] = enumerate(vk.vkEnumeratePhysicalDevices, [instance]);
  const device = create(vk, "vkCreateDevice", [
    gpu!,
    writeStruct(arena, "VkDeviceCreateInfo", {
      pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
    }),
    pAllocator,
  ]);
  assertEquals(holdersOf(free.pointer).map((h) => h.split(" ")[0]), ["VkInstance", "VkDevice"]);
  assertThrows(() => free.dispose(), {
    name: "TypeError",
    message: /held by VkInstance 0x[0-9a-f]+, VkDevice/,
  });
  vk.vkDestroyDevice(device, pAllocator);
  assertEquals(holdersOf(free.pointer).map((h) => h.split(" ")[0]), ["VkInstance"]);
  vk.vkDestroyInstance(instance, pAllocator);
  assertEquals(holdersOf(allocation.pointer), []);
  for (const cb of [allocation, reallocation, free]) cb.dispose();
  assertEquals(free.open, false);
});
