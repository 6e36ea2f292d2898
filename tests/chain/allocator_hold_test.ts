/**
 * Allocation callbacks held by the objects made with them (docs/behaviour.md V10): in checked mode every
 * create or allocate command's `pAllocator` is held until its object is destroyed, freed, or ended with its
 * parent; with checked mode off only the instance's and the device's are (the other commands are bare stubs).
 */

import { deepStrictEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import { holdersOf } from "../../ffi/callback.ts";
import {
  Arena,
  create,
  enumerate,
  makeCallback,
  VK_BUFFER_USAGE_TRANSFER_DST_BIT,
  Vulkan,
  writeStruct,
} from "../../mod.ts";
import { MockDriver, mockEnvironment } from "../../testing/mod.ts";

/** A mock driver's loader, instance and device (made without allocation callbacks), and an allocator. */
function setup(checked: boolean) {
  // The test that leaves objects to their device checks the mock's report itself.
  const mock = new MockDriver({ onProblem: () => {} });
  const isolated = mockEnvironment();
  const vk = Vulkan.load({ drivers: [mock], env: isolated.env, checked });
  const arena = new Arena();
  const instance = create(vk, "vkCreateInstance", [writeStruct(arena, "VkInstanceCreateInfo", {}), null]);
  const [gpu] = enumerate(vk.vkEnumeratePhysicalDevices, [instance]);
  const device = create(vk, "vkCreateDevice", [
    gpu!,
    writeStruct(arena, "VkDeviceCreateInfo", {
      pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
    }),
    null,
  ]);
  const callbacks = [
    makeCallback("PFN_vkAllocationFunction", () => null),
    makeCallback("PFN_vkReallocationFunction", () => null),
    makeCallback("PFN_vkFreeFunction", () => {}),
  ] as const;
  const pAllocator = writeStruct(arena, "VkAllocationCallbacks", {
    pfnAllocation: callbacks[0].pointer,
    pfnReallocation: callbacks[1].pointer,
    pfnFree: callbacks[2].pointer,
  });
  const buffer = () =>
    create(vk, "vkCreateBuffer", [
      device,
      writeStruct(arena, "VkBufferCreateInfo", { size: 256n, usage: VK_BUFFER_USAGE_TRANSFER_DST_BIT }),
      pAllocator,
    ]);
  return {
    mock,
    vk,
    arena,
    instance,
    device,
    callbacks,
    pAllocator,
    buffer,
    [Symbol.dispose]() {
      vk.dispose();
      arena.dispose();
      isolated[Symbol.dispose]();
      mock[Symbol.dispose]();
    },
  };
}

/** Who holds the free callback, addresses left out. */
const holders = (pointer: Deno.PointerValue) =>
  holdersOf(pointer).map((h) => h.replaceAll(/ 0x[0-9a-f]+/g, ""));

Deno.test("checked mode: a buffer's allocation callbacks refuse to close, naming buffer and command, until it is destroyed", () => {
  using t = setup(true);
  const { vk, device, callbacks, pAllocator } = t;
  const buffer = t.buffer();
  const at = Deno.UnsafePointer.value(buffer).toString(16);
  for (const cb of callbacks) {
    assertThrows(() => cb.dispose(), {
      name: "TypeError",
      message: new RegExp(
        `^${cb.type}: cannot close callback 0x[0-9a-f]+: held by VkBuffer 0x${at} \\(vkCreateBuffer\\)`,
      ),
    });
    assertEquals(cb.open, true);
  }
  vk.vkDestroyBuffer(device, buffer, pAllocator);
  assertEquals(holders(callbacks[2].pointer), []);
  for (const cb of callbacks) cb.dispose();
  assertEquals(callbacks[0].open, false);
  vk.vkDestroyDevice(device, null);
  vk.vkDestroyInstance(t.instance, null);
  assertEquals(t.mock.problems, []);
});

Deno.test("checked mode: allocated memory holds them until freed, a pool until its device is destroyed", () => {
  using t = setup(true);
  const { vk, device, callbacks, pAllocator, arena } = t;
  const memory = create(vk, "vkAllocateMemory", [
    device,
    writeStruct(arena, "VkMemoryAllocateInfo", { allocationSize: 256n, memoryTypeIndex: 0 }),
    pAllocator,
  ]);
  create(vk, "vkCreateCommandPool", [
    device,
    writeStruct(arena, "VkCommandPoolCreateInfo", { queueFamilyIndex: 0 }),
    pAllocator,
  ]);
  const buffer = t.buffer();
  assertEquals(holders(callbacks[2].pointer), [
    "VkDeviceMemory (vkAllocateMemory), VkCommandPool (vkCreateCommandPool), VkBuffer (vkCreateBuffer)",
  ]);
  vk.vkFreeMemory(device, memory, pAllocator);
  assertEquals(holders(callbacks[2].pointer), [
    "VkCommandPool (vkCreateCommandPool), VkBuffer (vkCreateBuffer)",
  ]);
  // Destroying the device ends what was made on it, whatever the application forgot to destroy.
  vk.vkDestroyDevice(device, null);
  assertEquals(holders(callbacks[2].pointer), []);
  assertEquals(t.mock.problems.length, 1);
  assertEquals(/VkCommandPool x1, VkBuffer x1/.test(t.mock.problems[0]!), true, t.mock.problems[0]);
  void buffer;
  for (const cb of callbacks) cb.dispose();
  vk.vkDestroyInstance(t.instance, null);
});

Deno.test("checked mode off: only the instance's and the device's allocation callbacks are held (the rest are bare stubs)", () => {
  using t = setup(false);
  const { vk, device, callbacks, pAllocator } = t;
  const buffer = t.buffer();
  assertEquals(holders(callbacks[2].pointer), []);
  vk.vkDestroyBuffer(device, buffer, pAllocator);
  for (const cb of callbacks) cb.dispose();
  vk.vkDestroyDevice(device, null);
  vk.vkDestroyInstance(t.instance, null);
});

Deno.test("checked mode: a device made with allocation callbacks is their holder once, as with checked mode off", () => {
  using t = setup(true);
  const { vk, callbacks, pAllocator, arena } = t;
  const [gpu] = enumerate(vk.vkEnumeratePhysicalDevices, [t.instance]);
  const device = create(vk, "vkCreateDevice", [
    gpu!,
    writeStruct(arena, "VkDeviceCreateInfo", {
      pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
    }),
    pAllocator,
  ]);
  assertEquals(holders(callbacks[2].pointer), ["VkDevice"]);
  vk.vkDestroyDevice(device, pAllocator);
  assertEquals(holders(callbacks[2].pointer), []);
  for (const cb of callbacks) cb.dispose();
  vk.vkDestroyDevice(t.device, null);
  vk.vkDestroyInstance(t.instance, null);
});

Deno.test("checked mode: many objects on one allocator are named three at a time, and each destroy releases its own", () => {
  using t = setup(true);
  const { vk, device, callbacks, pAllocator } = t;
  const buffers = Array.from({ length: 1000 }, () => t.buffer());
  assertEquals(holders(callbacks[0].pointer), [
    "VkBuffer (vkCreateBuffer), VkBuffer (vkCreateBuffer), VkBuffer (vkCreateBuffer) and 997 more",
  ]);
  for (const b of buffers.slice(0, 999)) vk.vkDestroyBuffer(device, b, pAllocator);
  const last = Deno.UnsafePointer.value(buffers[999]!).toString(16);
  assertThrows(() => callbacks[0].dispose(), {
    message: new RegExp(`held by VkBuffer 0x${last} \\(vkCreateBuffer\\); destroy it first$`),
  });
  vk.vkDestroyBuffer(device, buffers[999]!, pAllocator);
  for (const cb of callbacks) cb.dispose();
  vk.vkDestroyDevice(device, null);
  vk.vkDestroyInstance(t.instance, null);
  assertEquals(t.mock.problems, []);
});

Deno.test("checked mode: objects made with two allocators in turn each hold their own allocator's callbacks", () => {
  using t = setup(true);
  const { vk, device, callbacks, pAllocator, arena } = t;
  const free = makeCallback("PFN_vkFreeFunction", () => {});
  const other = writeStruct(arena, "VkAllocationCallbacks", {
    pfnAllocation: callbacks[0].pointer,
    pfnReallocation: callbacks[1].pointer,
    pfnFree: free.pointer,
  });
  const info = writeStruct(arena, "VkBufferCreateInfo", {
    size: 256n,
    usage: VK_BUFFER_USAGE_TRANSFER_DST_BIT,
  });
  const made = [pAllocator, other, pAllocator, other].map((a) =>
    create(vk, "vkCreateBuffer", [device, info, a])
  );
  const name = (i: number) =>
    `VkBuffer 0x${Deno.UnsafePointer.value(made[i]!).toString(16)} (vkCreateBuffer)`;
  assertEquals(holdersOf(callbacks[2].pointer), [`${name(0)}, ${name(2)}`]);
  assertEquals(holdersOf(free.pointer), [`${name(1)}, ${name(3)}`]);
  assertEquals(holdersOf(callbacks[0].pointer), [`${name(0)}, ${name(2)}`, `${name(1)}, ${name(3)}`]);
  vk.vkDestroyBuffer(device, made[1]!, other);
  vk.vkDestroyBuffer(device, made[3]!, other);
  assertEquals(holdersOf(free.pointer), []);
  assertEquals(holdersOf(callbacks[0].pointer), [`${name(0)}, ${name(2)}`]);
  free.dispose();
  vk.vkDestroyDevice(device, null);
  for (const cb of callbacks) cb.dispose();
  vk.vkDestroyInstance(t.instance, null);
});
