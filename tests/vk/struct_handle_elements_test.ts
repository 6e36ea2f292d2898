// An array of handles inside a struct literal takes a null (or undefined) element only where vk.xml lets the
// elements be VK_NULL_HANDLE (the member's `optional` list's second value, or `noautovalidity`); elsewhere the
// write throws naming the struct, the member and the index, and through VkApi the command and the parameter
// too, before the driver is called (docs/behaviour.md V12).
import { deepStrictEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import { Arena, readPointer, readStruct, Vulkan, writeStruct } from "../../mod.ts";
import { MockDriver, mockEnvironment } from "../../testing/mod.ts";
import { withVkDevice } from "../support/vk_device.ts";

const isolated = mockEnvironment();
globalThis.addEventListener("unload", () => isolated.remove());

const NULL_ELEMENT = (struct: string, member: string, i: number, type: string, got: string) =>
  `Cannot write member "${member}" of "${struct}" element ${i}: expected a ${type} handle, got ${got} (VK_NULL_HANDLE is not valid here)`;

Deno.test("writeStruct refuses a null or undefined element of a handle array whose elements vk.xml requires valid", () => {
  using arena = new Arena();
  const handle = Deno.UnsafePointer.create(0x1000n);
  assertThrows(() => writeStruct(arena, "VkSubmitInfo", { pCommandBuffers: [null] } as never), {
    name: "TypeError",
    message: NULL_ELEMENT("VkSubmitInfo", "pCommandBuffers", 0, "VkCommandBuffer", "null"),
  });
  assertThrows(
    () => writeStruct(arena, "VkSubmitInfo", { pWaitSemaphores: [handle, undefined] } as never),
    {
      name: "TypeError",
      message: NULL_ELEMENT("VkSubmitInfo", "pWaitSemaphores", 1, "VkSemaphore", "undefined"),
    },
  );
  // An allocate info's set layouts must be valid too (the index names the element).
  assertThrows(
    () =>
      writeStruct(arena, "VkDescriptorSetAllocateInfo", {
        descriptorPool: handle,
        pSetLayouts: [handle, null],
      } as never),
    {
      name: "TypeError",
      message: NULL_ELEMENT("VkDescriptorSetAllocateInfo", "pSetLayouts", 1, "VkDescriptorSetLayout", "null"),
    },
  );
  // Valid handles are written, and so is an empty array.
  const info = readStruct(
    "VkSubmitInfo",
    writeStruct(arena, "VkSubmitInfo", { pCommandBuffers: [handle] } as never),
  );
  assertEquals(info.commandBufferCount, 1);
  assertEquals(Deno.UnsafePointer.value(readPointer(info.pCommandBuffers)), 0x1000n);
});

Deno.test("writeStruct writes VK_NULL_HANDLE where vk.xml lets the elements be null", () => {
  using arena = new Arena();
  const handle = Deno.UnsafePointer.create(0x2000n);
  // VkPipelineLayoutCreateInfo's pSetLayouts: optional="false,true".
  const layout = readStruct(
    "VkPipelineLayoutCreateInfo",
    writeStruct(arena, "VkPipelineLayoutCreateInfo", { pSetLayouts: [null, handle] } as never),
  );
  assertEquals(layout.setLayoutCount, 2);
  assertEquals([
    readPointer(layout.pSetLayouts, 0),
    Deno.UnsafePointer.value(readPointer(layout.pSetLayouts, 8)),
  ], [
    null,
    0x2000n,
  ]);
  // VkFramebufferCreateInfo's pAttachments: noautovalidity (ignored for an imageless framebuffer).
  const framebuffer = readStruct(
    "VkFramebufferCreateInfo",
    writeStruct(arena, "VkFramebufferCreateInfo", { renderPass: handle, pAttachments: [null] } as never),
  );
  assertEquals([framebuffer.attachmentCount, readPointer(framebuffer.pAttachments, 0)], [1, null]);
});

Deno.test("an idiomatic command given a struct with a null handle element throws naming the command and parameter, and the driver is not called", () => {
  using mock = new MockDriver({ record: true, onProblem: () => {} });
  using raw = Vulkan.load({ drivers: [mock], env: isolated.env });
  withVkDevice(raw, (vk, device) => {
    const queue = vk.getDeviceQueue(device, 0, 0);
    const untyped = vk as unknown as Record<string, (...args: unknown[]) => unknown>;
    assertThrows(() => untyped.queueSubmit!(queue, [{ pCommandBuffers: [null] }], null), {
      name: "TypeError",
      message: `Cannot call "vkQueueSubmit": parameter "pSubmits": ${
        NULL_ELEMENT("VkSubmitInfo", "pCommandBuffers", 0, "VkCommandBuffer", "null")
      }`,
    });
  });
  assertEquals(mock.callCount("vkQueueSubmit"), 0);
});
