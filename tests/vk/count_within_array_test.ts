// A struct literal's count member given beside the array it counts may not exceed the array's length: a
// RangeError naming the struct, the count and the array, where the driver would read past the array's end
// (docs/behaviour.md V15). A smaller count is written as given. A count not 0 whose array is left out or null
// is refused the same way where vk.xml does not let the array be null, and written as is where it does.
import { deepStrictEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import { Arena, readStruct, VkApi, Vulkan, writeStruct } from "../../mod.ts";
import { MockDriver, mockEnvironment } from "../../testing/mod.ts";
import { withVkDevice } from "../support/vk_device.ts";

const isolated = mockEnvironment();
globalThis.addEventListener("unload", () => isolated.remove());

const handle = (n: bigint) => Deno.UnsafePointer.create(n) as never;

Deno.test("a count above its array's length throws naming the struct, the count and the array", () => {
  using arena = new Arena();
  assertThrows(
    () => writeStruct(arena, "VkSubmitInfo", { commandBufferCount: 2, pCommandBuffers: [handle(0x1000n)] }),
    {
      name: "RangeError",
      message:
        `Cannot write 2 to member "commandBufferCount" of "VkSubmitInfo": "pCommandBuffers" has 1 element`,
    },
  );
  assertThrows(() => writeStruct(arena, "VkSubmitInfo", { waitSemaphoreCount: 3, pWaitSemaphores: [] }), {
    name: "RangeError",
    message:
      `Cannot write 3 to member "waitSemaphoreCount" of "VkSubmitInfo": "pWaitSemaphores" has 0 elements`,
  });
  assertThrows(
    () =>
      writeStruct(arena, "VkDeviceQueueCreateInfo", {
        queueFamilyIndex: 0,
        queueCount: 3,
        pQueuePriorities: [1, 0.5],
      }),
    {
      name: "RangeError",
      message: /"queueCount" of "VkDeviceQueueCreateInfo": "pQueuePriorities" has 2 elements$/,
    },
  );
  // A count of bytes (codeSize, of a uint32_t array) says bytes.
  assertThrows(
    () =>
      writeStruct(arena, "VkShaderModuleCreateInfo", { codeSize: 1000, pCode: [0x07230203, 0x10000, 0, 0] }),
    {
      name: "RangeError",
      message: 'Cannot write 1000 to member "codeSize" of "VkShaderModuleCreateInfo": "pCode" has 16 bytes',
    },
  );
  // Nested: the error comes from the element's own writer.
  assertThrows(
    () =>
      writeStruct(arena, "VkDeviceCreateInfo", {
        pQueueCreateInfos: [{ queueCount: 2, pQueuePriorities: [1] }],
      }),
    {
      name: "RangeError",
      message:
        'pQueueCreateInfos[0]: Cannot write 2 to member "queueCount" of "VkDeviceQueueCreateInfo": "pQueuePriorities" has 1 element',
    },
  );
  // The element's place, nested arrays' joined (pSubpasses[1], then its pColorAttachments[0]).
  const subpass = { pipelineBindPoint: 0, pColorAttachments: [{ attachment: 0, layuot: 2 }] };
  assertThrows(
    () =>
      writeStruct(
        arena,
        "VkRenderPassCreateInfo",
        { pSubpasses: [{ pipelineBindPoint: 0 }, subpass] } as never,
      ),
    {
      name: "TypeError",
      message: 'pSubpasses[1].pColorAttachments[0]: Unknown member "layuot" of "VkAttachmentReference" ' +
        '(did you mean "layout"?)',
    },
  );
});

Deno.test("a count up to its array's length is written as given, one left out is filled, 0 needs no array", () => {
  using arena = new Arena();
  const two = [handle(0x1000n), handle(0x2000n)];
  const count = (v: Record<string, unknown>) =>
    (readStruct("VkSubmitInfo", writeStruct(arena, "VkSubmitInfo", v as never)) as {
      commandBufferCount: number;
    })
      .commandBufferCount;
  assertEquals(count({ commandBufferCount: 1, pCommandBuffers: two }), 1);
  assertEquals(count({ commandBufferCount: 2, pCommandBuffers: two }), 2);
  assertEquals(count({ commandBufferCount: 2n, pCommandBuffers: two }), 2);
  assertEquals(count({ pCommandBuffers: two }), 2);
  assertEquals(count({ commandBufferCount: 0 }), 0);
  // Given as a raw pointer the array's length is unknown: the count is written as given.
  assertEquals(count({ commandBufferCount: 4, pCommandBuffers: Deno.UnsafePointer.create(0x3000n) }), 4);
});

Deno.test("a count not 0 with its array left out or null throws where vk.xml does not let the array be null", () => {
  using arena = new Arena();
  assertThrows(() => writeStruct(arena, "VkSubmitInfo", { commandBufferCount: 2 }), {
    name: "RangeError",
    message:
      `Cannot write 2 to member "commandBufferCount" of "VkSubmitInfo": "pCommandBuffers" has no elements (got undefined)`,
  });
  assertThrows(
    () => writeStruct(arena, "VkDeviceCreateInfo", { queueCreateInfoCount: 1, pQueueCreateInfos: null }),
    {
      name: "RangeError",
      message:
        `Cannot write 1 to member "queueCreateInfoCount" of "VkDeviceCreateInfo": "pQueueCreateInfos" has no elements (got null)`,
    },
  );
  // Two arrays share waitSemaphoreCount: filled from one, it needs the other too.
  assertThrows(() => writeStruct(arena, "VkSubmitInfo", { pWaitSemaphores: [handle(0x1000n)] }), {
    name: "RangeError",
    message:
      `Cannot fill "waitSemaphoreCount" of "VkSubmitInfo" with 1: "pWaitDstStageMask" has no elements (got undefined)`,
  });
  // pViewports and pScissors are optional="true" in vk.xml (ignored under dynamic state): counts alone pass.
  const viewport = readStruct(
    "VkPipelineViewportStateCreateInfo",
    writeStruct(arena, "VkPipelineViewportStateCreateInfo", { viewportCount: 1, scissorCount: 1 }),
  );
  assertEquals([viewport.viewportCount, viewport.pViewports, viewport.scissorCount], [1, null, 1]);
});

Deno.test("through VkApi a count without its array throws in both modes, and the driver is not called", () => {
  for (const checked of [false, true]) {
    using mock = new MockDriver({ record: true, onProblem: () => {} });
    using raw = Vulkan.load({ drivers: [mock], env: isolated.env, checked });
    const vk = VkApi.of(raw);
    const instance = vk.createInstance({});
    const [gpu] = vk.enumeratePhysicalDevices(instance);
    assertThrows(() => vk.createDevice(gpu!, { queueCreateInfoCount: 1 }), {
      name: "RangeError",
      message: 'Cannot call "vkCreateDevice": parameter "pCreateInfo": Cannot write 1 to member ' +
        '"queueCreateInfoCount" of "VkDeviceCreateInfo": "pQueueCreateInfos" has no elements (got undefined)',
    });
    assertEquals(mock.callCount("vkCreateDevice"), 0);
    vk.destroyInstance(instance);
    withVkDevice(raw, (vk, device) => {
      const queue = vk.getDeviceQueue(device, 0, 0);
      assertThrows(() => vk.queueSubmit(queue, [{ commandBufferCount: 2 }], null), {
        name: "RangeError",
        message:
          /vkQueueSubmit.*pSubmits.*"commandBufferCount" of "VkSubmitInfo": "pCommandBuffers" has no elements/s,
      });
      assertEquals(mock.callCount("vkQueueSubmit"), 0);
    });
  }
});

Deno.test("through VkApi the count is refused naming the command and the parameter, and the driver is not called", () => {
  using mock = new MockDriver({ record: true, onProblem: () => {} });
  using raw = Vulkan.load({ drivers: [mock], env: isolated.env });
  withVkDevice(raw, (vk, device) => {
    const commandPool = vk.createCommandPool(device, { queueFamilyIndex: 0 });
    const [cb] = vk.allocateCommandBuffers(device, { commandPool, commandBufferCount: 1 });
    vk.beginCommandBuffer(cb!, {});
    vk.endCommandBuffer(cb!);
    const queue = vk.getDeviceQueue(device, 0, 0);
    assertThrows(() => vk.queueSubmit(queue, [{ commandBufferCount: 2, pCommandBuffers: [cb!] }], null), {
      name: "RangeError",
      message:
        /vkQueueSubmit.*pSubmits.*"commandBufferCount" of "VkSubmitInfo": "pCommandBuffers" has 1 element/s,
    });
    assertEquals(mock.callCount("vkQueueSubmit"), 0);
    vk.queueSubmit(queue, [{ commandBufferCount: 1, pCommandBuffers: [cb!] }], null);
    assertEquals(mock.callCount("vkQueueSubmit"), 1);
    vk.queueWaitIdle(queue);
    vk.destroyCommandPool(device, commandPool);
  });
});
