// Every handle parameter of an idiomatic command, and every element of an array of handles, refuses a handle
// VkApi ended, by default (docs/behaviour.md V11): a TypeError naming the command, the parameter and why, and
// the driver is not called; a handle that passed while live is refused once it ends. A live handle, a new
// object at an ended one's address and a null where vk.xml allows one still go through.
import { deepStrictEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import {
  VK_BUFFER_USAGE_TRANSFER_DST_BIT,
  type VkApi,
  type VkCommandBuffer,
  type VkDevice,
  type VkDeviceMemory,
  Vulkan,
} from "../../mod.ts";
import { MockDriver, mockEnvironment } from "../../testing/mod.ts";
import { recording, withVkDevice } from "../support/vk_device.ts";

const isolated = mockEnvironment();
globalThis.addEventListener("unload", () => isolated.remove());

const hex = (h: unknown) => `0x${Deno.UnsafePointer.value(h as Deno.PointerValue).toString(16)}`;
const DESTROYED = "was destroyed already (through VkApi)";
const info = { size: 256n, usage: VK_BUFFER_USAGE_TRANSFER_DST_BIT };

interface Fixture {
  vk: VkApi;
  device: VkDevice;
  memory: VkDeviceMemory;
  cb: VkCommandBuffer;
  mock: MockDriver;
}

/** Runs `body` on the mock (its handle addresses reused) with memory and a recording command buffer. */
function withFixture(body: (f: Fixture) => void): void {
  using mock = new MockDriver({ record: true, onProblem: () => {}, reuseHandles: true });
  using raw = Vulkan.load({ drivers: [mock], env: isolated.env });
  withVkDevice(raw, (vk, device) => {
    const memory = vk.allocateMemory(device, { allocationSize: 4096n, memoryTypeIndex: 0 });
    const { commandPool, cb } = recording(vk, device);
    body({ vk, device, memory, cb, mock });
    vk.destroyCommandPool(device, commandPool);
    vk.freeMemory(device, memory);
  });
}

Deno.test("a destroyed buffer is refused by bindBufferMemory, even after it passed while live", () => {
  withFixture(({ vk, device, memory, mock }) => {
    const buffer = vk.createBuffer(device, info);
    const bind = () => vk.bindBufferMemory(device, buffer, memory, 0n);
    bind(); // the handle that passed last, at this epoch
    vk.destroyBuffer(device, buffer);
    assertThrows(bind, {
      name: "TypeError",
      message: `vkBindBufferMemory: buffer ${hex(buffer)} ${DESTROYED}`,
    });
    assertEquals(mock.callCount("vkBindBufferMemory"), 1);
  });
});

Deno.test("a destroyed buffer is refused by getBufferMemoryRequirements", () => {
  withFixture(({ vk, device, mock }) => {
    const buffer = vk.createBuffer(device, info);
    vk.destroyBuffer(device, buffer);
    assertThrows(() => vk.getBufferMemoryRequirements(device, buffer), {
      name: "TypeError",
      message: `vkGetBufferMemoryRequirements: buffer ${hex(buffer)} ${DESTROYED}`,
    });
    assertEquals(mock.callCount("vkGetBufferMemoryRequirements"), 0);
  });
});

Deno.test("a destroyed buffer is refused by cmdFillBuffer as its dstBuffer", () => {
  withFixture(({ vk, device, cb, mock }) => {
    const buffer = vk.createBuffer(device, info);
    vk.cmdFillBuffer(cb, buffer, 0n, 64n, 0);
    vk.destroyBuffer(device, buffer);
    assertThrows(() => vk.cmdFillBuffer(cb, buffer, 0n, 64n, 0), {
      name: "TypeError",
      message: `vkCmdFillBuffer: dstBuffer ${hex(buffer)} ${DESTROYED}`,
    });
    assertEquals(mock.callCount("vkCmdFillBuffer"), 1);
  });
});

Deno.test("a destroyed fence is refused as an array's element, its index named", () => {
  withFixture(({ vk, device, mock }) => {
    const fence = vk.createFence(device, {});
    const live = vk.createFence(device, {});
    vk.waitForFences(device, [fence], true, 0n);
    vk.destroyFence(device, fence);
    assertThrows(() => vk.waitForFences(device, [fence], true, 0n), {
      name: "TypeError",
      message: `vkWaitForFences: pFences[0] ${hex(fence)} ${DESTROYED}`,
    });
    assertThrows(() => vk.resetFences(device, [live, fence]), {
      name: "TypeError",
      message: `vkResetFences: pFences[1] ${hex(fence)} ${DESTROYED}`,
    });
    assertEquals([mock.callCount("vkWaitForFences"), mock.callCount("vkResetFences")], [1, 0]);
    vk.destroyFence(device, live);
  });
});

Deno.test("freed memory is refused as a later parameter; the destroy command's own check is unchanged", () => {
  withFixture(({ vk, device, mock }) => {
    const freed = vk.allocateMemory(device, { allocationSize: 4096n, memoryTypeIndex: 0 });
    vk.freeMemory(device, freed);
    const buffer = vk.createBuffer(device, info);
    assertThrows(() => vk.bindBufferMemory(device, buffer, freed, 0n), {
      name: "TypeError",
      message: `vkBindBufferMemory: memory ${hex(freed)} ${DESTROYED}`,
    });
    vk.destroyBuffer(device, buffer);
    assertThrows(() => vk.destroyBuffer(device, buffer), {
      name: "TypeError",
      message: `vkDestroyBuffer: buffer ${hex(buffer)} ${DESTROYED}`,
    });
    assertEquals([mock.callCount("vkBindBufferMemory"), mock.callCount("vkDestroyBuffer")], [0, 1]);
  });
});

Deno.test("a live handle, a new object at an ended one's address and an allowed null still go through", () => {
  withFixture(({ vk, device, memory, cb, mock }) => {
    const buffer = vk.createBuffer(device, info);
    vk.destroyBuffer(device, buffer);
    const again = vk.createBuffer(device, info);
    assertEquals(hex(again), hex(buffer));
    vk.bindBufferMemory(device, again, memory, 0n);
    vk.getBufferMemoryRequirements(device, again);
    vk.cmdFillBuffer(cb, again, 0n, 64n, 0);
    const fences = [vk.createFence(device, {}), vk.createFence(device, {})];
    vk.resetFences(device, fences);
    vk.waitForFences(device, [fences[0]!], true, 0n);
    vk.queueSubmit(vk.getDeviceQueue(device, 0, 0), [], null);
    assertEquals(
      ["vkBindBufferMemory", "vkGetBufferMemoryRequirements", "vkCmdFillBuffer", "vkResetFences"]
        .map((c) => mock.callCount(c as "vkResetFences")),
      [1, 1, 1, 1],
    );
    assertEquals([mock.callCount("vkWaitForFences"), mock.callCount("vkQueueSubmit")], [1, 1]);
    for (const f of fences) vk.destroyFence(device, f);
    vk.destroyBuffer(device, again);
  });
});
