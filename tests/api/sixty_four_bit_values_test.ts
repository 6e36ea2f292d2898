// 64-bit integers (`VkDeviceSize`, `uint64_t`, `size_t`, ...) follow one rule in struct literals and in
// idiomatic parameters alike (docs/api.md, "64-bit values"): a bigint, or a number that is a safe integer
// (not negative for an unsigned type); any other number throws before the driver is called, naming the
// command or struct, the parameter or member and the value. The type level says the same: `typeLevel`
// below is type-checked by `deno test`/`deno task check` and never called.
import { deepStrictEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import {
  Arena,
  readStruct,
  VK_BUFFER_USAGE_TRANSFER_DST_BIT,
  VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
  VK_WHOLE_SIZE,
  VkApi,
  type VkBuffer,
  type VkCommandBuffer,
  type VkDevice,
  type VkFence,
  type VkQueryPool,
  Vulkan,
  writeStruct,
} from "../../mod.ts";
import { MockDriver, mockEnvironment } from "../../testing/mod.ts";

const isolated = mockEnvironment();
globalThis.addEventListener("unload", () => isolated.remove());

export function typeLevel(
  vk: VkApi,
  device: VkDevice,
  cb: VkCommandBuffer,
  buffer: VkBuffer,
  fence: VkFence,
  pool: VkQueryPool,
) {
  vk.createBuffer(device, { size: 4096, usage: VK_BUFFER_USAGE_TRANSFER_DST_BIT });
  vk.cmdFillBuffer(cb, buffer, 0, 4096, 0);
  vk.cmdFillBuffer(cb, buffer, 0n, VK_WHOLE_SIZE, 0);
  vk.cmdBindVertexBuffers(cb, 0, [buffer, buffer], [0, 256n]);
  vk.waitForFences(device, [fence], true, 1_000_000);
  // @ts-expect-error a size is a number or a bigint, not a string
  vk.cmdFillBuffer(cb, buffer, 0, "4096", 0);
  // @ts-expect-error nor in a struct literal
  vk.createBuffer(device, { size: "4096", usage: VK_BUFFER_USAGE_TRANSFER_DST_BIT });
  // @ts-expect-error 64-bit flags stay strict: a bare number is no VkPipelineStageFlags2
  vk.cmdWriteTimestamp2(cb, 0x10, pool, 0);
}

function setup() {
  const mock = new MockDriver({ record: true });
  const raw = Vulkan.load({ drivers: [mock], env: isolated.env });
  const vk = VkApi.of(raw).scope(); // destroys what it creates, last first
  const instance = vk.createInstance({});
  const [gpu] = vk.enumeratePhysicalDevices(instance);
  const device = vk.createDevice(gpu!, {
    pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
  });
  const usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  const buffer = vk.createBuffer(device, { size: 4096, usage });
  const pool = vk.createCommandPool(device, { queueFamilyIndex: 0 });
  const [cb] = vk.allocateCommandBuffers(device, { commandPool: pool, commandBufferCount: 1 });
  vk.beginCommandBuffer(cb!, {});
  return {
    mock,
    vk,
    device,
    buffer,
    cb: cb!,
    [Symbol.dispose]() {
      vk[Symbol.dispose]();
      raw[Symbol.dispose]();
      mock[Symbol.dispose]();
    },
  };
}

/** The decoded arguments of the last recorded call of `command`. */
function lastArgs(mock: MockDriver, command: string) {
  return mock.calls.findLast((c) => c.command === command)?.args;
}

Deno.test("a 64-bit member or parameter given as a number reaches the driver as the same bigint would", () => {
  using t = setup();
  const { vk, mock, cb, buffer } = t;
  const sizes = mock.calls.filter((c) => c.command === "vkCreateBuffer").map((c) => c.args.pCreateInfo);
  assertEquals(JSON.stringify(sizes).includes('"size":"4096"'), true, JSON.stringify(sizes));
  vk.cmdFillBuffer(cb, buffer, 256, 1024, 7);
  const asNumbers = lastArgs(mock, "vkCmdFillBuffer");
  vk.cmdFillBuffer(cb, buffer, 256n, 1024n, 7);
  assertEquals(asNumbers, lastArgs(mock, "vkCmdFillBuffer"));
  assertEquals([asNumbers?.dstOffset, asNumbers?.size], ["256", "1024"]);
  vk.cmdFillBuffer(cb, buffer, 0, VK_WHOLE_SIZE, 7);
  assertEquals(lastArgs(mock, "vkCmdFillBuffer")?.size, String(VK_WHOLE_SIZE));
  // Offsets in an array, mixed.
  const vb = vk.createBuffer(t.device, { size: 4096n, usage: VK_BUFFER_USAGE_VERTEX_BUFFER_BIT });
  vk.cmdBindVertexBuffers(cb, 0, [vb, vb], [0, 256n]);
  assertEquals(lastArgs(mock, "vkCmdBindVertexBuffers")?.pOffsets, ["0", "256"]);
});

Deno.test("a number that is not a safe integer, or negative for an unsigned type, is refused naming the place", () => {
  using t = setup();
  const { vk, mock, cb, buffer } = t;
  const fills = mock.callCount("vkCmdFillBuffer");
  for (const [size, shown] of [[-1, "-1"], [1.5, "1.5"], [2 ** 53, String(2 ** 53)], [NaN, "NaN"]] as const) {
    assertThrows(() => vk.cmdFillBuffer(cb, buffer, 0, size, 0), {
      name: "TypeError",
      message:
        `Cannot call "vkCmdFillBuffer": parameter "size" expected a bigint or a non-negative safe integer, got ${shown}`,
    });
  }
  assertThrows(
    () => vk.cmdFillBuffer(cb, buffer, "0" as unknown as number, 4, 0),
    /parameter "dstOffset".* got "0"/,
  );
  assertEquals(mock.callCount("vkCmdFillBuffer"), fills, "a refused call reached the driver");
  const creates = mock.callCount("vkCreateBuffer");
  assertThrows(
    () => vk.createBuffer(t.device, { size: -4096, usage: VK_BUFFER_USAGE_TRANSFER_DST_BIT }),
    (e: Error) =>
      e instanceof TypeError && e.message.includes('"vkCreateBuffer"') &&
      e.message.includes('Cannot write -4096 to member "size" of "VkBufferCreateInfo"') &&
      e.message.includes("expected a bigint or a non-negative safe integer"),
  );
  assertEquals(mock.callCount("vkCreateBuffer"), creates, "a refused call reached the driver");
  assertThrows(
    () => vk.cmdBindVertexBuffers(cb, 0, [buffer, buffer], [0, -256]),
    {
      message:
        'Cannot call "vkCmdBindVertexBuffers": parameter "pOffsets" element 1: expected a bigint or a non-negative safe integer, got -256',
    },
  );
});

Deno.test("a signed 64-bit member takes a negative safe integer; a bigint is converted as C converts it", () => {
  using arena = new Arena();
  const drm = writeStruct(arena, "VkPhysicalDeviceDrmPropertiesEXT", {
    primaryMajor: -1,
    renderMinor: 2n ** 63n,
  });
  const back = readStruct("VkPhysicalDeviceDrmPropertiesEXT", drm);
  assertEquals([back.primaryMajor, back.renderMinor], [-1n, -(2n ** 63n)]);
  assertThrows(
    () => writeStruct(arena, "VkPhysicalDeviceDrmPropertiesEXT", { primaryMajor: -(2 ** 60) }),
    /member "primaryMajor" of "VkPhysicalDeviceDrmPropertiesEXT": expected a bigint or a safe integer/,
  );
  const info = writeStruct(arena, "VkBufferCreateInfo", {
    size: -1n,
    usage: VK_BUFFER_USAGE_TRANSFER_DST_BIT,
  });
  assertEquals(readStruct("VkBufferCreateInfo", info).size, VK_WHOLE_SIZE);
});
