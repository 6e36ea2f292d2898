// A handle VkApi ended (destroyed, freed, or ended with its pool) is refused inside a struct literal too, by
// default: a TypeError naming the command, the parameter, the struct member (and element) and why, and the
// driver is not called (docs/behaviour.md V11). A new object at an ended one's address is live.
import { deepStrictEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import {
  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
  VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
  VK_SHADER_STAGE_COMPUTE_BIT,
  type VkBuffer,
  Vulkan,
} from "../../mod.ts";
import { MockDriver, mockEnvironment } from "../../testing/mod.ts";
import { withVkDevice } from "../support/vk_device.ts";

const isolated = mockEnvironment();
globalThis.addEventListener("unload", () => isolated.remove());

const hex = (h: unknown) => `0x${Deno.UnsafePointer.value(h as Deno.PointerValue).toString(16)}`;

Deno.test("a buffer, a descriptor set and a command buffer VkApi ended are refused as struct members", () => {
  using mock = new MockDriver({ record: true, onProblem: () => {}, reuseHandles: true });
  using raw = Vulkan.load({ drivers: [mock], env: isolated.env });
  withVkDevice(raw, (vk, device) => {
    const descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    const setLayout = vk.createDescriptorSetLayout(device, {
      pBindings: [{
        binding: 0,
        descriptorType,
        descriptorCount: 1,
        stageFlags: VK_SHADER_STAGE_COMPUTE_BIT,
      }],
    });
    const pool = vk.createDescriptorPool(device, {
      maxSets: 1,
      pPoolSizes: [{ type: descriptorType, descriptorCount: 1 }],
    });
    const [set] = vk.allocateDescriptorSets(device, { descriptorPool: pool, pSetLayouts: [setLayout] });
    const info = { size: 256n, usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT };
    const write = (buffer: VkBuffer) =>
      vk.updateDescriptorSets(device, [{
        dstSet: set!,
        descriptorType,
        pBufferInfo: [{ buffer, range: 256n }],
      }]);

    const buffer = vk.createBuffer(device, info);
    vk.destroyBuffer(device, buffer);
    assertThrows(() => write(buffer), {
      name: "TypeError",
      message:
        `Cannot call "vkUpdateDescriptorSets": parameter "pDescriptorWrites": pBufferInfo[0]: Cannot write member "buffer" of ` +
        `"VkDescriptorBufferInfo": ${hex(buffer)} was destroyed already (through VkApi)`,
    });
    // The mock gives the next buffer the destroyed one's address: a new value, live.
    const again = vk.createBuffer(device, info);
    assertEquals(hex(again), hex(buffer));
    write(again);
    assertEquals(mock.callCount("vkUpdateDescriptorSets"), 1);

    vk.destroyDescriptorPool(device, pool);
    assertThrows(() => write(again), {
      name: "TypeError",
      message: new RegExp(
        `member "dstSet" of "VkWriteDescriptorSet": ${hex(set)} was destroyed with its VkDescriptorPool ${
          hex(pool)
        }`,
      ),
    });
    assertEquals(mock.callCount("vkUpdateDescriptorSets"), 1);

    const commandPool = vk.createCommandPool(device, { queueFamilyIndex: 0 });
    const [cb] = vk.allocateCommandBuffers(device, { commandPool, commandBufferCount: 1 });
    vk.beginCommandBuffer(cb!, {});
    vk.endCommandBuffer(cb!);
    vk.freeCommandBuffers(device, commandPool, [cb!]);
    assertThrows(() => vk.queueSubmit(vk.getDeviceQueue(device, 0, 0), [{ pCommandBuffers: [cb!] }]), {
      name: "TypeError",
      message:
        `Cannot call "vkQueueSubmit": parameter "pSubmits": Cannot write member "pCommandBuffers" of ` +
        `"VkSubmitInfo" element 0: ${hex(cb)} was freed (vkFreeCommandBuffers through VkApi)`,
    });
    assertEquals(mock.callCount("vkQueueSubmit"), 0);
    vk.destroyBuffer(device, again);
    vk.destroyCommandPool(device, commandPool);
    vk.destroyDescriptorSetLayout(device, setLayout);
  });
});
