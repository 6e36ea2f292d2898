/** VkApi.mapMemory: the ArrayBuffer it returns is detached when the memory is unmapped or freed through it. */
import { deepEqual as assertEquals } from "node:assert/strict";
import { VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, VK_WHOLE_SIZE, VkApi, Vulkan } from "../../mod.ts";
import type { VkDevice, VkDeviceMemory } from "../../mod.ts";
import { MockDriver, mockEnvironment } from "../../testing/mod.ts";

/** A mock device and a host-visible allocation of 64 bytes through `vk`. */
function setUp(vk: VkApi): { device: VkDevice; alloc(): VkDeviceMemory } {
  const instance = vk.createInstance({});
  const [gpu] = vk.enumeratePhysicalDevices(instance);
  const device = vk.createDevice(gpu!, {
    pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
  });
  const memoryTypeIndex = vk.getPhysicalDeviceMemoryProperties(gpu!).memoryTypes
    .findIndex((t) => (t.propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) !== 0);
  return { device, alloc: () => vk.allocateMemory(device, { allocationSize: 64n, memoryTypeIndex }) };
}

Deno.test("a mapped ArrayBuffer reads 0 bytes after unmapMemory, freeMemory or the scope's free, never unmapped memory", () => {
  using mock = new MockDriver();
  using isolated = mockEnvironment();
  using raw = Vulkan.load({ drivers: [mock], env: isolated.env });
  using vk = VkApi.of(raw).scope();
  const { device, alloc } = setUp(vk);

  const memory = alloc();
  const mapped = vk.mapMemory(device, memory, 0n, VK_WHOLE_SIZE);
  const view = new Uint32Array(mapped);
  view.fill(7);
  assertEquals([mapped.byteLength, view.length], [64, 16]);
  vk.unmapMemory(device, memory);
  assertEquals([mapped.byteLength, mapped.detached, view.length], [0, true, 0]);
  view[0] = 1; // out of range of a detached view: ignored, no write into unmapped memory

  const again = vk.mapMemory(device, memory, 16n, 16n);
  assertEquals([...new Uint32Array(again)], [7, 7, 7, 7]);
  vk.freeMemory(device, memory); // freed while mapped
  assertEquals(again.byteLength, 0);

  const scoped = alloc();
  const last = vk.mapMemory(device, scoped, 0n, 8n);
  vk.dispose(); // the scope frees what it allocated
  assertEquals(last.byteLength, 0);
});
