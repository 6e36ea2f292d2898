// Checked mode checks each handle of an input array as it checks a handle parameter (docs/behaviour.md V08): a
// destroyed element, one of another kind, or one a destroyed pool ended throws naming the command, the
// parameter and the index, before the driver is called.
import { deepStrictEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import {
  Arena,
  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
  VK_COMMAND_BUFFER_LEVEL_PRIMARY,
  VK_COMMAND_BUFFER_LEVEL_SECONDARY,
  VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
  VK_PIPELINE_BIND_POINT_COMPUTE,
  Vulkan,
} from "../../mod.ts";
import type { VkCommandBufferLevel, VkFence } from "../../mod.ts";
import { MockDriver, mockEnvironment } from "../../testing/mod.ts";
import { withVkDevice } from "../support/vk_device.ts";

const isolated = mockEnvironment();
globalThis.addEventListener("unload", () => isolated.remove());

const hex = (h: unknown) => `0x${Deno.UnsafePointer.value(h as Deno.PointerValue).toString(16)}`;

Deno.test("checked mode refuses a destroyed handle or one of another kind inside an input array, naming its index", () => {
  using mock = new MockDriver({ record: true, onProblem: () => {} });
  using raw = Vulkan.load({ drivers: [mock], env: isolated.env, checked: true });
  withVkDevice(raw, (vk, device) => {
    const live = vk.createFence(device, {});
    const gone = vk.createFence(device, {});
    vk.destroyFence(device, gone);
    // The raw command, so that checked mode's own check answers (VkApi refuses an element it ended first).
    using arena = new Arena();
    assertThrows(() => raw.vkWaitForFences(device, 2, arena.pointerArray([live, gone]), 1, 0n), {
      name: "TypeError",
      message: `vkWaitForFences: pFences[1] ${hex(gone)} was destroyed (vkDestroyFence)`,
    });
    const buffer = vk.createBuffer(device, { size: 64, usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT });
    assertThrows(() => vk.resetFences(device, [buffer as unknown as VkFence]), {
      name: "TypeError",
      message: `vkResetFences: pFences[0] ${hex(buffer)} is a VkBuffer, not a VkFence`,
    });
    assertEquals(mock.callCount("vkWaitForFences") + mock.callCount("vkResetFences"), 0);
    // Live elements pass.
    vk.resetFences(device, [live]);
    assertEquals(mock.callCount("vkResetFences"), 1);
    vk.destroyBuffer(device, buffer);
    vk.destroyFence(device, live);
  });
});

Deno.test("checked mode refuses a descriptor set or a command buffer in an array once its pool was destroyed", () => {
  using mock = new MockDriver({ record: true, onProblem: () => {} });
  using raw = Vulkan.load({ drivers: [mock], env: isolated.env, checked: true });
  withVkDevice(raw, (vk, device) => {
    const setLayout = vk.createDescriptorSetLayout(device, {
      pBindings: [{ binding: 0, descriptorType: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptorCount: 1 }],
    });
    const layout = vk.createPipelineLayout(device, { pSetLayouts: [setLayout] });
    const pool = vk.createDescriptorPool(device, {
      maxSets: 1,
      pPoolSizes: [{ type: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptorCount: 1 }],
    });
    const [set] = vk.allocateDescriptorSets(device, { descriptorPool: pool, pSetLayouts: [setLayout] });
    const commandPool = vk.createCommandPool(device, { queueFamilyIndex: 0 });
    const secondaryPool = vk.createCommandPool(device, { queueFamilyIndex: 0 });
    const allocate = (commandPool: typeof secondaryPool, level: VkCommandBufferLevel) =>
      vk.allocateCommandBuffers(device, { commandPool, level, commandBufferCount: 1 })[0]!;
    const primary = allocate(commandPool, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
    const secondary = allocate(secondaryPool, VK_COMMAND_BUFFER_LEVEL_SECONDARY);
    vk.beginCommandBuffer(primary, {});
    vk.cmdBindDescriptorSets(primary, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, [set!], []);
    vk.destroyDescriptorPool(device, pool);
    // The raw commands, so that checked mode's own check answers (VkApi refuses these itself first).
    using arena = new Arena();
    assertThrows(
      () =>
        raw.vkCmdBindDescriptorSets(
          primary,
          VK_PIPELINE_BIND_POINT_COMPUTE,
          layout,
          0,
          1,
          arena.pointerArray([set!]),
          0,
          null,
        ),
      {
        name: "TypeError",
        message: `vkCmdBindDescriptorSets: pDescriptorSets[0] ${
          hex(set)
        } was destroyed with its VkDescriptorPool ${hex(pool)} (vkDestroyDescriptorPool)`,
      },
    );
    vk.destroyCommandPool(device, secondaryPool);
    assertThrows(() => raw.vkCmdExecuteCommands(primary, 1, arena.pointerArray([secondary])), {
      name: "TypeError",
      message: `vkCmdExecuteCommands: pCommandBuffers[0] ${
        hex(secondary)
      } was destroyed with its VkCommandPool ${hex(secondaryPool)} (vkDestroyCommandPool)`,
    });
    assertEquals([mock.callCount("vkCmdBindDescriptorSets"), mock.callCount("vkCmdExecuteCommands")], [1, 0]);
    vk.destroyCommandPool(device, commandPool);
    vk.destroyPipelineLayout(device, layout);
    vk.destroyDescriptorSetLayout(device, setLayout);
  });
});
