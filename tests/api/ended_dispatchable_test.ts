// A dispatchable handle ended through VkApi (a device destroyed, a command buffer freed) is refused by the next
// call of a command that passed it before, with VkApi's error naming the command and the parameter: the commands
// keep the dispatchable handle that passed last only until a dispatchable handle ends (ending a buffer or a
// fence does not make them look again).
import { deepStrictEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import { VK_BUFFER_USAGE_TRANSFER_SRC_BIT, VkApi, Vulkan } from "../../mod.ts";
import { MockDriver, mockEnvironment } from "../../testing/mod.ts";

const isolated = mockEnvironment();
globalThis.addEventListener("unload", () => isolated.remove());

Deno.test("a device destroyed and a command buffer freed through VkApi are refused by a command that passed them before", () => {
  using mock = new MockDriver({ record: true, onProblem: () => {} });
  using raw = Vulkan.load({ drivers: [mock], env: isolated.env });
  const vk = VkApi.of(raw);
  const instance = vk.createInstance({});
  const [gpu] = vk.enumeratePhysicalDevices(instance);
  const device = vk.createDevice(gpu!, {
    pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
  });
  const pool = vk.createCommandPool(device, { queueFamilyIndex: 0 });
  const [cb] = vk.allocateCommandBuffers(device, { commandPool: pool, commandBufferCount: 1 });
  vk.beginCommandBuffer(cb!, {});
  vk.cmdSetLineWidth(cb!, 1);
  // Ending a buffer between two calls leaves the command buffer's check as it was.
  vk.destroyBuffer(device, vk.createBuffer(device, { size: 64n, usage: VK_BUFFER_USAGE_TRANSFER_SRC_BIT }));
  vk.cmdSetLineWidth(cb!, 1);
  assertEquals(mock.callCount("vkCmdSetLineWidth"), 2);
  vk.freeCommandBuffers(device, pool, [cb!]);
  assertThrows(() => vk.cmdSetLineWidth(cb!, 1), {
    name: "TypeError",
    message:
      /^vkCmdSetLineWidth: commandBuffer 0x[0-9a-f]+ was freed \(vkFreeCommandBuffers through VkApi\)$/,
  });
  assertEquals(mock.callCount("vkCmdSetLineWidth"), 2);

  const fence = vk.createFence(device, {});
  vk.resetFences(device, [fence]);
  vk.destroyFence(device, fence);
  vk.destroyCommandPool(device, pool);
  vk.destroyDevice(device);
  assertThrows(() => vk.getDeviceQueue(device, 0, 0), {
    name: "TypeError",
    message: /^vkGetDeviceQueue: device 0x[0-9a-f]+ was destroyed already \(through VkApi\)$/,
  });
  assertThrows(() => vk.resetFences(device, [fence]), {
    name: "TypeError",
    message: /^vkResetFences: device 0x[0-9a-f]+ was destroyed already \(through VkApi\)$/,
  });
  assertEquals(mock.callCount("vkResetFences"), 1);
  vk.destroyInstance(instance);
});
