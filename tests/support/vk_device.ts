/**
 * A device for VkApi tests: an instance over the given commands, its first physical device and a device with
 * one queue of family 0, handed to the test's body and destroyed after it, whether the body throws or not.
 *
 * @module
 */
import { VkApi, type VkCommandSource, type VkDevice } from "../../mod.ts";

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
