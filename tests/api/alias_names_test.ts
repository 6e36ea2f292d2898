// A command called by an alias (vkCmdSetLineStippleEXT, bound to vkCmdSetLineStipple's function) names the
// alias in its errors, what the caller wrote, not the core command it resolves to; the name is fixed when the
// function is bound, so the core command bound beside it keeps its own name.
import { deepStrictEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import {
  VK_API_VERSION_1_4,
  VK_ERROR_OUT_OF_DEVICE_MEMORY,
  VK_FORMAT_R8G8B8A8_UNORM,
  VK_IMAGE_TILING_OPTIMAL,
  VK_IMAGE_TYPE_2D,
  VK_IMAGE_USAGE_SAMPLED_BIT,
  VkApi,
  VkError,
  Vulkan,
} from "../../mod.ts";
import { MockDriver, mockEnvironment } from "../../testing/mod.ts";
import { recording, withVkDevice } from "../support/vk_device.ts";

const isolated = mockEnvironment();
globalThis.addEventListener("unload", () => isolated.remove());

Deno.test("an alias's misuse is named by the alias called, the core command's by its own name", () => {
  // vkCmdSetLineStipple is Vulkan 1.4 core; vkCmdSetLineStippleEXT its alias.
  using mock = new MockDriver({
    devices: [{ apiVersion: VK_API_VERSION_1_4 }],
    record: true,
    onProblem: () => {},
  });
  using raw = Vulkan.load({ drivers: [mock], env: isolated.env });
  withVkDevice(raw, (vk, device) => {
    const { commandPool, cb } = recording(vk, device);
    const range = `parameter "lineStipplePattern" expected an integer from 0 to 65535 (uint16_t), got 65536`;
    assertThrows(() => vk.cmdSetLineStippleEXT(cb, 1, 0x10000), {
      name: "RangeError",
      message: `Cannot call "vkCmdSetLineStippleEXT": ${range}`,
    });
    assertThrows(() => vk.cmdSetLineStipple(cb, 1, 0x10000), {
      name: "RangeError",
      message: `Cannot call "vkCmdSetLineStipple": ${range}`,
    });
    vk.cmdSetLineStippleEXT(cb, 1, 0xffff);
    assertEquals(mock.callCount("vkCmdSetLineStipple"), 1);
    vk.endCommandBuffer(cb);
    vk.destroyCommandPool(device, commandPool);
    // A command buffer ended with its pool, given to the alias.
    assertThrows(() => vk.cmdSetLineStippleEXT(cb, 1, 1), {
      name: "TypeError",
      message: /^vkCmdSetLineStippleEXT: commandBuffer 0x[0-9a-f]+ was destroyed with its VkCommandPool/,
    });
  });
});

Deno.test("a failing alias throws a VkError naming the alias", () => {
  using mock = new MockDriver({ onProblem: () => {} });
  mock.fail("vkGetPhysicalDeviceImageFormatProperties2", VK_ERROR_OUT_OF_DEVICE_MEMORY);
  using raw = Vulkan.load({ drivers: [mock], env: isolated.env });
  using vk = VkApi.of(raw).scope();
  const [gpu] = vk.enumeratePhysicalDevices(vk.createInstance({}));
  const info = {
    format: VK_FORMAT_R8G8B8A8_UNORM,
    type: VK_IMAGE_TYPE_2D,
    tiling: VK_IMAGE_TILING_OPTIMAL,
    usage: VK_IMAGE_USAGE_SAMPLED_BIT,
  };
  assertThrows(
    () => vk.getPhysicalDeviceImageFormatProperties2KHR(gpu!, info),
    (e: unknown) =>
      e instanceof VkError && e.code === VK_ERROR_OUT_OF_DEVICE_MEMORY &&
      e.message ===
        `Command "vkGetPhysicalDeviceImageFormatProperties2KHR" failed with "VK_ERROR_OUT_OF_DEVICE_MEMORY"`,
  );
});

Deno.test("the handle checks name the alias called: a null handle, and in checked mode a handle of the wrong kind", () => {
  for (const checked of [false, true]) {
    using mock = new MockDriver({ devices: [{ apiVersion: VK_API_VERSION_1_4 }], onProblem: () => {} });
    using raw = Vulkan.load({ drivers: [mock], env: isolated.env, checked });
    withVkDevice(raw, (vk, device) => {
      assertThrows(() => vk.cmdSetLineStippleEXT(null as never, 1, 1), {
        name: "TypeError",
        message: "vkCmdSetLineStippleEXT: commandBuffer is null",
      });
      if (!checked) return;
      const fence = vk.createFence(device, {});
      const wrongKind =
        /^vkCmdSetLineStippleEXT: commandBuffer 0x[0-9a-f]+ is a VkFence, not a VkCommandBuffer$/;
      assertThrows(() => vk.cmdSetLineStippleEXT(fence as never, 1, 1), {
        name: "TypeError",
        message: wrongKind,
      });
      assertThrows(() => raw.vkCmdSetLineStippleEXT(fence as never, 1, 1), {
        name: "TypeError",
        message: wrongKind,
      });
      vk.destroyFence(device, fence);
    });
  }
});
