// A device destroyed through the raw commands, behind VkApi's back, is refused by VkApi's next command on it
// with a TypeError naming the command and the parameter, never passed to the driver: also when the same device
// passed that command's check on the call before (the loader keeps the handle that passed last only while
// nothing is destroyed).
import { deepStrictEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import { VkApi, Vulkan } from "../../mod.ts";
import { MockDriver, mockEnvironment } from "../../testing/mod.ts";

const isolated = mockEnvironment();
globalThis.addEventListener("unload", () => isolated.remove());

Deno.test("a device destroyed behind VkApi's back is refused by its next command, after a call that passed", () => {
  using mock = new MockDriver({ record: true, onProblem: () => {} });
  using raw = Vulkan.load({ drivers: [mock], env: isolated.env });
  const vk = VkApi.of(raw);
  const instance = vk.createInstance({});
  const [gpu] = vk.enumeratePhysicalDevices(instance);
  const device = vk.createDevice(gpu!, {
    pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
  });
  const fence = vk.createFence(device, {});
  vk.resetFences(device, [fence]);
  vk.resetFences(device, [fence]);
  assertEquals(mock.callCount("vkResetFences"), 2);
  raw.vkDestroyFence(device, fence, null);
  raw.vkDestroyDevice(device, null);
  assertThrows(() => vk.resetFences(device, [fence]), {
    name: "TypeError",
    message: /^vkResetFences: device 0x[0-9a-f]+ /,
  });
  assertEquals(mock.callCount("vkResetFences"), 2);
  vk.destroyInstance(instance);
});
