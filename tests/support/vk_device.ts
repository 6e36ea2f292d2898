/**
 * A device for VkApi tests: an instance over the given commands, its first physical device and a device with
 * one queue of family 0, handed to the test's body and destroyed after it, whether the body throws or not;
 * and a command buffer of it, recording.
 *
 * @module
 */
import {
  VK_COMMAND_BUFFER_LEVEL_PRIMARY,
  VkApi,
  type VkCommandBuffer,
  type VkCommandPool,
  type VkCommandSource,
  type VkDevice,
} from "../../mod.ts";

/**
 * Runs `body` with a device made through `VkApi.of(raw)`, then destroys the device and its instance.
 *
 * @example A test body on the mock driver
 * ```ts ignore
 * withVkDevice(raw, (vk, device) => vk.destroyFence(device, vk.createFence(device, {})));
 * ```
 */
export function withVkDevice(raw: VkCommandSource, body: (vk: VkApi, device: VkDevice) => void): void {
  const vk = VkApi.of(raw);
  const instance = vk.createInstance({});
  const [gpu] = vk.enumeratePhysicalDevices(instance);
  const device = vk.createDevice(gpu!, {
    pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
  });
  try {
    body(vk, device);
  } finally {
    vk.destroyDevice(device);
    vk.destroyInstance(instance);
  }
}

/**
 * A primary command buffer of `device` from a new pool of queue family 0, begun; destroy the pool to end both.
 *
 * @example A test recording a command
 * ```ts ignore
 * const { commandPool, cb } = recording(vk, device);
 * vk.cmdDispatch(cb, 1, 1, 1);
 * vk.destroyCommandPool(device, commandPool);
 * ```
 */
export function recording(vk: VkApi, device: VkDevice): { commandPool: VkCommandPool; cb: VkCommandBuffer } {
  const commandPool = vk.createCommandPool(device, { queueFamilyIndex: 0 });
  const [cb] = vk.allocateCommandBuffers(device, {
    commandPool,
    level: VK_COMMAND_BUFFER_LEVEL_PRIMARY,
    commandBufferCount: 1,
  });
  vk.beginCommandBuffer(cb!, {});
  return { commandPool, cb: cb! };
}
