// A struct literal's 32-bit integer member takes an integer that fits, or throws a RangeError naming the
// struct and the member, never keeping the low bits of a number silently (docs/behaviour.md V14). A negative
// bitwise result for an unsigned member is refused too, with the message saying how to make it unsigned.
import { deepStrictEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import { Arena, readStruct, Vulkan, writeStruct } from "../../mod.ts";
import { MockDriver, mockEnvironment } from "../../testing/mod.ts";
import { withVkDevice } from "../support/vk_device.ts";

const isolated = mockEnvironment();
globalThis.addEventListener("unload", () => isolated.remove());

const UNSIGNED = "expected an integer from 0 to 4294967295 (uint32_t)";
const SIGNED = "expected an integer from -2147483648 to 2147483647 (int32_t)";

Deno.test("a uint32_t member refuses a number that does not fit 32 bits or is not an integer", () => {
  using arena = new Arena();
  for (const usage of [2 ** 32 + 5, 2 ** 32, -(2 ** 31) - 1, 1.5, NaN, Infinity]) {
    assertThrows(() => writeStruct(arena, "VkBufferCreateInfo", { size: 16n, usage } as never), {
      name: "RangeError",
      message: `Cannot write "${usage}" to member "usage" of "VkBufferCreateInfo": ${UNSIGNED}`,
    });
  }
  assertThrows(() => writeStruct(arena, "VkBufferCreateInfo", { size: 16n, usage: 2n ** 32n } as never), {
    name: "RangeError",
    message: `Cannot write "4294967296n" to member "usage" of "VkBufferCreateInfo": ${UNSIGNED}`,
  });
  // ~0 and a flag with bit 31 combined by `|` are negative in JavaScript: refused, saying how to fix them.
  for (const index of [~0, 0x80000000 | 1]) {
    assertThrows(() => writeStruct(arena, "VkCommandPoolCreateInfo", { queueFamilyIndex: index }), {
      name: "RangeError",
      message:
        `Cannot write "${index}" to member "queueFamilyIndex" of "VkCommandPoolCreateInfo": ${UNSIGNED}; \`x >>> 0\` makes a bitwise result unsigned`,
    });
  }
});

Deno.test("a uint32_t member takes 0 to 2^32 - 1, booleans and bigints in range", () => {
  using arena = new Arena();
  const written = (queueFamilyIndex: unknown) =>
    readStruct(
      "VkCommandPoolCreateInfo",
      writeStruct(arena, "VkCommandPoolCreateInfo", { queueFamilyIndex } as never),
    ).queueFamilyIndex;
  assertEquals(
    [written(0), written(4294967295), written(~0 >>> 0), written(true), written(7n)],
    [0, 4294967295, 4294967295, 1, 7],
  );
});

Deno.test("an int32_t member refuses what does not fit int32_t, in arrays of numbers and nested structs too", () => {
  using arena = new Arena();
  const offset = (x: number) => ({ offset: { x, y: 0 }, extent: { width: 1, height: 1 } });
  assertThrows(() => writeStruct(arena, "VkRect2D", offset(2 ** 31)), {
    name: "RangeError",
    message: `Cannot write "2147483648" to member "x" of "VkOffset2D": ${SIGNED}`,
  });
  assertEquals(readStruct("VkOffset2D", writeStruct(arena, "VkOffset2D", { x: -(2 ** 31), y: -1 })), {
    x: -(2 ** 31),
    y: -1,
  });
  // An array member of uint32_t (pQueueFamilyIndices): each element is checked.
  assertThrows(
    () =>
      writeStruct(
        arena,
        "VkBufferCreateInfo",
        { size: 16n, usage: 1, pQueueFamilyIndices: [0, 0.5] } as never,
      ),
    {
      name: "RangeError",
      message: `Cannot write "0.5" to member "pQueueFamilyIndices" of "VkBufferCreateInfo": ${UNSIGNED}`,
    },
  );
});

Deno.test("an idiomatic command given an out-of-range member throws naming the command and parameter, and the driver is not called", () => {
  using mock = new MockDriver({ record: true, onProblem: () => {} });
  using raw = Vulkan.load({ drivers: [mock], env: isolated.env });
  withVkDevice(raw, (vk, device) => {
    assertThrows(() => vk.createBuffer(device, { size: 16n, usage: 2 ** 32 + 5 } as never), {
      name: "RangeError",
      message:
        `Cannot call "vkCreateBuffer": parameter "pCreateInfo": Cannot write "4294967301" to member "usage" of "VkBufferCreateInfo": ${UNSIGNED}`,
    });
  });
  assertEquals(mock.callCount("vkCreateBuffer"), 0);
});
