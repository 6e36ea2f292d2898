// Checked mode checks the handles inside a command's struct parameters as it checks a handle parameter
// (docs/behaviour.md V08): a destroyed one, one of another loader, in a struct array, a nested struct or a
// pNext struct, throws naming the command and the member's path before the driver is called; members the spec
// ignores (per descriptorType, noautovalidity, a count of 0) are not read, and VK_NULL_HANDLE passes.
import { deepStrictEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import {
  Arena,
  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
  VK_COMMAND_BUFFER_LEVEL_PRIMARY,
  VK_COMMAND_BUFFER_LEVEL_SECONDARY,
  VK_DESCRIPTOR_TYPE_SAMPLER,
  VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
  VK_SHADER_STAGE_COMPUTE_BIT,
  Vulkan,
  writeStruct,
} from "../../mod.ts";
import type { VkApi, VkDevice } from "../../mod.ts";
import { MockDriver, mockEnvironment } from "../../testing/mod.ts";
import { writePointer, writeU64 } from "../../ffi/memory.ts";
import { COMMAND_PARAMS } from "../../vk/generated/commands.ts";
import { STRUCTS } from "../../vk/generated/structs.ts";
import { structScan } from "../../chain/struct_handles.ts";
import { withVkDevice } from "../support/vk_device.ts";

const isolated = mockEnvironment();
globalThis.addEventListener("unload", () => isolated.remove());

const hex = (h: unknown) => `0x${Deno.UnsafePointer.value(h as Deno.PointerValue).toString(16)}`;

/** Where member `member` of struct `struct` starts inside a written struct at `at` (plus `index` structs). */
function memberAt(at: Deno.PointerObject, struct: string, member: string, index = 0): Deno.PointerObject {
  const info = STRUCTS[struct]!;
  const offset = info.members.find((m) => m.name === member)!.offset;
  return Deno.UnsafePointer.offset(at, index * info.size + offset)!;
}

/** An address no valid program passes: reading through it would kill the process. */
const GARBAGE = Deno.UnsafePointer.create(0xdead0000n);

function storageSet(vk: VkApi, device: VkDevice) {
  const setLayout = vk.createDescriptorSetLayout(device, {
    pBindings: [
      {
        binding: 0,
        descriptorType: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
        descriptorCount: 1,
        stageFlags: VK_SHADER_STAGE_COMPUTE_BIT,
      },
    ],
  });
  const pool = vk.createDescriptorPool(device, {
    maxSets: 1,
    pPoolSizes: [{ type: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptorCount: 1 }],
  });
  const [set] = vk.allocateDescriptorSets(device, { descriptorPool: pool, pSetLayouts: [setLayout] });
  return { setLayout, pool, set: set! };
}

Deno.test("checked mode refuses a destroyed handle inside a descriptor write, naming the member's path", () => {
  using mock = new MockDriver({ onProblem: () => {} });
  using raw = Vulkan.load({ drivers: [mock], env: isolated.env, checked: true });
  withVkDevice(raw, (vk, device) => {
    const { setLayout, pool, set } = storageSet(vk, device);
    const live = vk.createBuffer(device, { size: 64, usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT });
    const gone = vk.createBuffer(device, { size: 64, usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT });
    // Ended through the raw commands: VkApi's own record of what it ended would refuse them first (V11).
    raw.vkDestroyBuffer(device, gone, null);
    const write = (buffer: typeof live) => ({
      dstSet: set,
      descriptorType: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
      pBufferInfo: [{ buffer, range: 64 }],
    });
    assertThrows(() => vk.updateDescriptorSets(device, [write(live), write(gone)]), {
      name: "TypeError",
      message: `vkUpdateDescriptorSets: pDescriptorWrites[1].pBufferInfo[0].buffer ${
        hex(gone)
      } was destroyed (vkDestroyBuffer)`,
    });
    assertEquals(mock.callCount("vkUpdateDescriptorSets"), 0);
    vk.updateDescriptorSets(device, [write(live)]);
    assertEquals(mock.callCount("vkUpdateDescriptorSets"), 1);
    // The set itself, ended with its pool.
    raw.vkDestroyDescriptorPool(device, pool, null);
    assertThrows(() => vk.updateDescriptorSets(device, [write(live)]), {
      name: "TypeError",
      message: `vkUpdateDescriptorSets: pDescriptorWrites[0].dstSet ${
        hex(set)
      } was destroyed with its VkDescriptorPool ${hex(pool)} (vkDestroyDescriptorPool)`,
    });
    assertEquals(mock.callCount("vkUpdateDescriptorSets"), 1);
    vk.destroyBuffer(device, live);
    vk.destroyDescriptorSetLayout(device, setLayout);
  });
});

Deno.test("checked mode refuses a freed command buffer in a VkSubmitInfo, through VkApi and the raw command", () => {
  using mock = new MockDriver({ onProblem: () => {} });
  using raw = Vulkan.load({ drivers: [mock], env: isolated.env, checked: true });
  withVkDevice(raw, (vk, device) => {
    const queue = vk.getDeviceQueue(device, 0, 0);
    const pool = vk.createCommandPool(device, { queueFamilyIndex: 0 });
    const [live, freed] = vk.allocateCommandBuffers(device, {
      commandPool: pool,
      level: VK_COMMAND_BUFFER_LEVEL_PRIMARY,
      commandBufferCount: 2,
    });
    for (const cb of [live!, freed!]) {
      vk.beginCommandBuffer(cb, {});
      vk.endCommandBuffer(cb);
    }
    using arena = new Arena();
    raw.vkFreeCommandBuffers(device, pool, 1, arena.pointerArray([freed!])); // raw, as above
    const message = `vkQueueSubmit: pSubmits[1].pCommandBuffers[1] ${
      hex(freed)
    } was freed (vkFreeCommandBuffers)`;
    const submits = [{ pCommandBuffers: [live!] }, { pCommandBuffers: [live!, freed!] }];
    assertThrows(() => vk.queueSubmit(queue, submits), { name: "TypeError", message });
    assertThrows(() => raw.vkQueueSubmit(queue, 1, writeStruct(arena, "VkSubmitInfo", submits[1]!), null), {
      name: "TypeError",
      message: `vkQueueSubmit: pSubmits[0].pCommandBuffers[1] ${hex(freed)} was freed (vkFreeCommandBuffers)`,
    });
    assertEquals(mock.callCount("vkQueueSubmit"), 0);
    vk.queueSubmit(queue, [submits[0]!]);
    assertEquals(mock.callCount("vkQueueSubmit"), 1);
    vk.destroyCommandPool(device, pool);
  });
});

Deno.test("checked mode refuses a destroyed handle in a pNext struct, naming the struct", () => {
  using mock = new MockDriver({ onProblem: () => {} });
  using raw = Vulkan.load({ drivers: [mock], env: isolated.env, checked: true });
  withVkDevice(raw, (vk, device) => {
    const gone = vk.createBuffer(device, { size: 64, usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT });
    raw.vkDestroyBuffer(device, gone, null); // raw: VkApi would refuse it first (V11)
    assertThrows(
      () =>
        vk.allocateMemory(device, {
          allocationSize: 64,
          memoryTypeIndex: 0,
          pNext: [{ type: "VkMemoryDedicatedAllocateInfo", buffer: gone }],
        }),
      {
        name: "TypeError",
        message: `vkAllocateMemory: pAllocateInfo.pNext(VkMemoryDedicatedAllocateInfo).buffer ${
          hex(gone)
        } was destroyed (vkDestroyBuffer)`,
      },
    );
    assertEquals(mock.callCount("vkAllocateMemory"), 0);
  });
});

Deno.test("checked mode refuses another loader's command buffer in a VkSubmitInfo", () => {
  using mock = new MockDriver({ onProblem: () => {} });
  using other = new MockDriver({ onProblem: () => {} });
  using raw = Vulkan.load({ drivers: [mock], env: isolated.env, checked: true });
  using rawOther = Vulkan.load({ drivers: [other], env: isolated.env, checked: true });
  withVkDevice(rawOther, (vkOther, otherDevice) => {
    const otherPool = vkOther.createCommandPool(otherDevice, { queueFamilyIndex: 0 });
    const [foreign] = vkOther.allocateCommandBuffers(otherDevice, {
      commandPool: otherPool,
      level: VK_COMMAND_BUFFER_LEVEL_PRIMARY,
      commandBufferCount: 1,
    });
    withVkDevice(raw, (vk, device) => {
      const queue = vk.getDeviceQueue(device, 0, 0);
      assertThrows(() => vk.queueSubmit(queue, [{ pCommandBuffers: [foreign!] }]), {
        name: "TypeError",
        message: `vkQueueSubmit: pSubmits[0].pCommandBuffers[0] ${
          hex(foreign)
        } belongs to another Vulkan loader`,
      });
      assertEquals(mock.callCount("vkQueueSubmit"), 0);
    });
    vkOther.destroyCommandPool(otherDevice, otherPool);
  });
});

Deno.test("checked mode passes a valid program: null optional members, members the spec ignores", () => {
  using mock = new MockDriver({ onProblem: () => {} });
  using raw = Vulkan.load({ drivers: [mock], env: isolated.env, checked: true });
  withVkDevice(raw, (vk, device) => {
    const { setLayout, pool, set } = storageSet(vk, device);
    const buffer = vk.createBuffer(device, { size: 64, usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT });
    using arena = new Arena();
    // A storage-buffer write whose pImageInfo and pTexelBufferView hold garbage: read only for image and texel
    // types. A sampler write whose image view holds garbage: read for every image type but SAMPLER.
    const sampler = vk.createSampler(device, {});
    const writes = writeStruct(arena, "VkWriteDescriptorSet", {
      dstSet: set,
      descriptorType: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
      pBufferInfo: [{ buffer, range: 64 }],
    });
    writePointer(memberAt(writes, "VkWriteDescriptorSet", "pImageInfo"), 0, GARBAGE);
    writePointer(memberAt(writes, "VkWriteDescriptorSet", "pTexelBufferView"), 0, GARBAGE);
    raw.vkUpdateDescriptorSets(device, 1, writes, 0, GARBAGE);
    const imageInfo = writeStruct(arena, "VkDescriptorImageInfo", { sampler });
    writeU64(memberAt(imageInfo, "VkDescriptorImageInfo", "imageView"), 0, 0xbad0n);
    const samplerWrite = writeStruct(arena, "VkWriteDescriptorSet", {
      dstSet: set,
      descriptorType: VK_DESCRIPTOR_TYPE_SAMPLER,
      descriptorCount: 1,
    });
    writePointer(memberAt(samplerWrite, "VkWriteDescriptorSet", "pImageInfo"), 0, imageInfo);
    raw.vkUpdateDescriptorSets(device, 1, samplerWrite, 0, null);
    // VK_NULL_HANDLE where vk.xml lets it be: a dedicated allocation's image, an inheritance's framebuffer.
    const memory = vk.allocateMemory(device, {
      allocationSize: 64,
      memoryTypeIndex: 0,
      pNext: [{ type: "VkMemoryDedicatedAllocateInfo", buffer, image: null }],
    });
    const commandPool = vk.createCommandPool(device, { queueFamilyIndex: 0 });
    const [primary] = vk.allocateCommandBuffers(device, {
      commandPool,
      level: VK_COMMAND_BUFFER_LEVEL_PRIMARY,
      commandBufferCount: 1,
    });
    const [secondary] = vk.allocateCommandBuffers(device, {
      commandPool,
      level: VK_COMMAND_BUFFER_LEVEL_SECONDARY,
      commandBufferCount: 1,
    });
    vk.beginCommandBuffer(secondary!, { pInheritanceInfo: { renderPass: null, framebuffer: null } });
    vk.endCommandBuffer(secondary!);
    vk.beginCommandBuffer(primary!, {});
    vk.cmdExecuteCommands(primary!, [secondary!]);
    vk.endCommandBuffer(primary!);
    // A submit whose semaphore arrays hold garbage behind counts of 0.
    const submit = writeStruct(arena, "VkSubmitInfo", { pCommandBuffers: [primary!] });
    writePointer(memberAt(submit, "VkSubmitInfo", "pWaitSemaphores"), 0, GARBAGE);
    writePointer(memberAt(submit, "VkSubmitInfo", "pSignalSemaphores"), 0, GARBAGE);
    const queue = vk.getDeviceQueue(device, 0, 0);
    raw.vkQueueSubmit(queue, 1, submit, null);
    vk.queueWaitIdle(queue);
    assertEquals(
      [mock.callCount("vkUpdateDescriptorSets"), mock.callCount("vkQueueSubmit")],
      [2, 1],
    );
    vk.destroyCommandPool(device, commandPool);
    vk.freeMemory(device, memory);
    vk.destroySampler(device, sampler);
    vk.destroyBuffer(device, buffer);
    vk.destroyDescriptorPool(device, pool);
    vk.destroyDescriptorSetLayout(device, setLayout);
  });
});

Deno.test("the push-descriptor commands do not read a descriptor write's dstSet, which they ignore", () => {
  using arena = new Arena();
  const buffer = Deno.UnsafePointer.create(0x2000n);
  const write = writeStruct(arena, "VkWriteDescriptorSet", {
    descriptorType: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
    pBufferInfo: [{ buffer: buffer as never, range: 64 }],
  });
  writeU64(memberAt(write, "VkWriteDescriptorSet", "dstSet"), 0, 0xbad0n);
  const found = (command: string, args: unknown[]) => {
    const params = COMMAND_PARAMS[command]!;
    const at = (name: string) => params.findIndex((p) => p.name === name);
    const scan = structScan(command, params, (p) => (a) => a[at(p.len!)] as number)!;
    const seen: string[] = [];
    scan(args, (type, key, path) => seen.push(`${path} ${type} 0x${key.toString(16)}`), true);
    return seen;
  };
  const buffers = ["pDescriptorWrites[0].pBufferInfo[0].buffer VkBuffer 0x2000"];
  assertEquals(found("vkCmdPushDescriptorSet", [null, 1, null, 0, 1, write]), buffers);
  assertEquals(found("vkUpdateDescriptorSets", [null, 1, write, 0, null]), [
    "pDescriptorWrites[0].dstSet VkDescriptorSet 0xbad0",
    ...buffers,
  ]);
});
