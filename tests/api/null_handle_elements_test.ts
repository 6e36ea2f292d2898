// An idiomatic command's array of handles takes a null element only where vk.xml lets the elements be
// VK_NULL_HANDLE (its `optional` list's second value, or valid usage written by hand: `noautovalidity`);
// elsewhere a null throws before the driver is called, naming the command, the parameter and the index
// (docs/behaviour.md V12); a struct literal's array of handles is typed by the same rule. `typeLevel` below
// is type-checked by `deno test`/`deno task check`, never called.
import { deepStrictEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import {
  type Arena,
  VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
  VkApi,
  type VkBuffer,
  type VkCommandBuffer,
  type VkCommandPool,
  type VkDevice,
  type VkFence,
  Vulkan,
  writeStruct,
} from "../../mod.ts";
import { MockDriver, mockEnvironment } from "../../testing/mod.ts";

const isolated = mockEnvironment();
globalThis.addEventListener("unload", () => isolated.remove());

export function typeLevel(
  vk: VkApi,
  device: VkDevice,
  fence: VkFence,
  cb: VkCommandBuffer,
  pool: VkCommandPool,
  buffer: VkBuffer,
  arena: Arena,
) {
  vk.resetFences(device, [fence]);
  vk.cmdBindVertexBuffers(cb, 0, [buffer, null], [0n, 0n]); // optional="false,true"
  vk.freeCommandBuffers(device, pool, [cb, null]); // "each element ... valid or NULL"
  // @ts-expect-error vkResetFences' pFences are "valid VkFence handles"
  vk.resetFences(device, [null]);
  // @ts-expect-error nor may vkWaitForFences' be null
  vk.waitForFences(device, [fence, null], true, 0n);
  // A struct literal's array of handles, typed by the same rule.
  writeStruct(arena, "VkPipelineLayoutCreateInfo", { pSetLayouts: [null] }); // optional="false,true"
  // @ts-expect-error VkSubmitInfo's pCommandBuffers are "valid VkCommandBuffer handles"
  writeStruct(arena, "VkSubmitInfo", { pCommandBuffers: [cb, null] });
}

Deno.test("a null element where vk.xml requires valid handles throws naming the command, parameter and index; where it allows VK_NULL_HANDLE it reaches the driver", () => {
  using mock = new MockDriver({ record: true, onProblem: () => {} });
  using raw = Vulkan.load({ drivers: [mock], env: isolated.env });
  using vk = VkApi.of(raw).scope();
  const instance = vk.createInstance({});
  const [gpu] = vk.enumeratePhysicalDevices(instance);
  const device = vk.createDevice(gpu!, {
    pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
  });
  const fence = vk.createFence(device, {});
  const untyped = vk as unknown as Record<string, (...args: unknown[]) => unknown>;
  assertThrows(() => untyped.resetFences!(device, [null]), {
    name: "TypeError",
    message:
      'Cannot call "vkResetFences": parameter "pFences" element 0: expected a VkFence handle, got null (VK_NULL_HANDLE is not valid here)',
  });
  assertThrows(
    () => untyped.waitForFences!(device, [fence, undefined], true, 0n),
    /"vkWaitForFences": parameter "pFences" element 1: expected a VkFence handle, got undefined/,
  );
  assertEquals([mock.callCount("vkResetFences"), mock.callCount("vkWaitForFences")], [0, 0]);
  vk.resetFences(device, [fence]);
  assertEquals(mock.callCount("vkResetFences"), 1);

  const pool = vk.createCommandPool(device, { queueFamilyIndex: 0 });
  const [cb, spare] = vk.allocateCommandBuffers(device, { commandPool: pool, commandBufferCount: 2 });
  const buffer = vk.createBuffer(device, { size: 64n, usage: VK_BUFFER_USAGE_VERTEX_BUFFER_BIT });
  vk.beginCommandBuffer(cb!, {});
  vk.cmdBindVertexBuffers(cb!, 0, [buffer, null], [0n, 0n]);
  const bound = mock.calls.findLast((c) => c.command === "vkCmdBindVertexBuffers")!.args.pBuffers;
  assertEquals((bound as unknown[])[1], null);
  vk.freeCommandBuffers(device, pool, [spare!, null]);
  assertEquals(mock.callCount("vkFreeCommandBuffers"), 1);
});
