// A descriptor set or command buffer VkApi ended (its pool destroyed or reset, or the handle freed) is refused
// wherever a command takes it, not only as the first parameter, by default (docs/behaviour.md V11): the error
// names the command, the parameter with its index and the pool, and the driver is not called.
import { deepStrictEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import {
  VK_COMMAND_BUFFER_LEVEL_PRIMARY,
  VK_COMMAND_BUFFER_LEVEL_SECONDARY,
  VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT,
  VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
  VK_PIPELINE_BIND_POINT_COMPUTE,
  Vulkan,
} from "../../mod.ts";
import type { VkCommandBufferLevel, VkCommandPool } from "../../mod.ts";
import { MockDriver, mockEnvironment } from "../../testing/mod.ts";
import { withVkDevice } from "../support/vk_device.ts";

const isolated = mockEnvironment();
globalThis.addEventListener("unload", () => isolated.remove());

const hex = (h: unknown) => `0x${Deno.UnsafePointer.value(h as Deno.PointerValue).toString(16)}`;

Deno.test("a descriptor set or command buffer ended with its pool is refused in an array or as a later parameter", () => {
  using mock = new MockDriver({ record: true, onProblem: () => {} });
  using raw = Vulkan.load({ drivers: [mock], env: isolated.env });
  withVkDevice(raw, (vk, device) => {
    const setLayout = vk.createDescriptorSetLayout(device, {
      pBindings: [{ binding: 0, descriptorType: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptorCount: 1 }],
    });
    const layout = vk.createPipelineLayout(device, { pSetLayouts: [setLayout] });
    const descriptorPool = () =>
      vk.createDescriptorPool(device, {
        flags: VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT,
        maxSets: 2,
        pPoolSizes: [{ type: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptorCount: 2 }],
      });
    const allocate = (commandPool: VkCommandPool, level: VkCommandBufferLevel) =>
      vk.allocateCommandBuffers(device, { commandPool, level, commandBufferCount: 1 })[0]!;
    const commandPool = vk.createCommandPool(device, { queueFamilyIndex: 0 });
    const primary = allocate(commandPool, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
    vk.beginCommandBuffer(primary, {});
    const bind = (set: unknown) =>
      vk.cmdBindDescriptorSets(primary, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, [set as never], []);

    const pool = descriptorPool();
    const [set, other] = vk.allocateDescriptorSets(device, {
      descriptorPool: pool,
      pSetLayouts: [setLayout, setLayout],
    });
    bind(set);
    bind(set); // the element that passed last, at this epoch
    vk.destroyDescriptorPool(device, pool);
    const withPool = `was destroyed with its VkDescriptorPool ${
      hex(pool)
    } (vkDestroyDescriptorPool through VkApi)`;
    assertThrows(() => bind(set), {
      name: "TypeError",
      message: `vkCmdBindDescriptorSets: pDescriptorSets[0] ${hex(set)} ${withPool}`,
    });
    // The destroyed pool, an earlier parameter, is named first.
    assertThrows(() => vk.freeDescriptorSets(device, pool, [other!, set!]), {
      name: "TypeError",
      message: `vkFreeDescriptorSets: descriptorPool ${hex(pool)} was destroyed already (through VkApi)`,
    });
    assertEquals([mock.callCount("vkCmdBindDescriptorSets"), mock.callCount("vkFreeDescriptorSets")], [2, 0]);

    // Freed: refused too, even right after it passed.
    const pool2 = descriptorPool();
    const [set2] = vk.allocateDescriptorSets(device, { descriptorPool: pool2, pSetLayouts: [setLayout] });
    bind(set2);
    vk.freeDescriptorSets(device, pool2, [set2!]);
    assertThrows(() => bind(set2), {
      name: "TypeError",
      message: `vkCmdBindDescriptorSets: pDescriptorSets[0] ${
        hex(set2)
      } was freed (vkFreeDescriptorSets through VkApi)`,
    });
    vk.destroyDescriptorPool(device, pool2);

    const secondaryPool = vk.createCommandPool(device, { queueFamilyIndex: 0 });
    const secondary = allocate(secondaryPool, VK_COMMAND_BUFFER_LEVEL_SECONDARY);
    vk.destroyCommandPool(device, secondaryPool);
    assertThrows(() => vk.cmdExecuteCommands(primary, [secondary]), {
      name: "TypeError",
      message: `vkCmdExecuteCommands: pCommandBuffers[0] ${
        hex(secondary)
      } was destroyed with its VkCommandPool ${hex(secondaryPool)} (vkDestroyCommandPool through VkApi)`,
    });
    assertEquals(mock.callCount("vkCmdExecuteCommands"), 0);
    vk.destroyCommandPool(device, commandPool);
    vk.destroyPipelineLayout(device, layout);
    vk.destroyDescriptorSetLayout(device, setLayout);
  });
});
