/**
 * One scalar reader and writer (vk/scalar.ts) serves the struct layouts and the idiomatic API: every
 * kind reads back what it writes, values a kind cannot take are refused, and both callers name the place.
 */

import { deepStrictEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import { readScalar, type ScalarKind, scalarSize, writeScalar } from "../../vk/scalar.ts";
import { Arena } from "../../ffi/memory.ts";
import { readStruct } from "../../api/structs.ts";
import { writeStruct as writeStructUntyped } from "../../vk/struct_write.ts";
import { RUNTIME } from "../../api/compile.ts";

const SAMPLES: [ScalarKind, unknown, unknown, number][] = [
  // kind, written, read back, size
  ["u8", 0x1ff, 0xff, 1],
  ["i8", -2, -2, 1],
  ["u16", 0x1ffff, 0xffff, 2],
  ["i16", -3, -3, 2],
  ["u32", -1, 0xffffffff, 4],
  ["i32", 0x80000000, -0x80000000, 4],
  ["bool", true, true, 4],
  ["f32", 0.5, 0.5, 4],
  ["f64", 1 / 3, 1 / 3, 8],
  ["u64", -1n, 0xffffffffffffffffn, 8],
  ["i64", 0xffffffffffffffffn, -1n, 8],
  ["usize", 4096n, 4096, 8],
  ["isize", 7, 7, 8],
  ["pointer", Deno.UnsafePointer.create(0x1000n), Deno.UnsafePointer.create(0x1000n), 8],
  ["function", null, null, 8],
];

Deno.test("every scalar kind reads back what it writes, in its size", () => {
  for (const [kind, written, read, size] of SAMPLES) {
    const view = new DataView(new ArrayBuffer(16));
    view.setUint8(size, 0xaa);
    assertEquals(writeScalar(view, 0, kind, written), true, kind);
    assertEquals(readScalar(view, 0, kind), read, kind);
    assertEquals(scalarSize(kind), size, kind);
    assertEquals(view.getUint8(size), 0xaa, `${kind} wrote past its size`);
  }
});

Deno.test("a bool reads as false for 0 and true for any other word", () => {
  const view = new DataView(new ArrayBuffer(4));
  assertEquals(readScalar(view, 0, "bool"), false);
  view.setUint32(0, 2, true);
  assertEquals(readScalar(view, 0, "bool"), true);
});

Deno.test("values a kind cannot take are refused and nothing is written", () => {
  const refused: [ScalarKind, unknown][] = [
    ["u32", "1"],
    ["u32", undefined],
    ["f32", {}],
    ["u64", 1.5],
    ["u64", -1],
    ["usize", 2 ** 53],
    ["u64", "1"],
    ["pointer", {}],
    ["usize", undefined],
  ];
  for (const [kind, value] of refused) {
    const view = new DataView(new ArrayBuffer(8));
    assertEquals(writeScalar(view, 0, kind, value), false, `${kind} took ${String(value)}`);
    assertEquals(view.getBigUint64(0, true), 0n);
  }
});

Deno.test("struct members and idiomatic parameters refuse a wrong scalar naming the place", () => {
  using arena = new Arena();
  const writeStruct = (name: string, value: Record<string, unknown>) =>
    writeStructUntyped(arena, name, value);
  assertThrows(
    () => writeStruct("VkViewport", { width: "64" }),
    { name: "TypeError", message: 'Cannot write "64" to member "width" of "VkViewport": expected a number' },
  );
  assertThrows(
    () => writeStruct("VkBufferCreateInfo", { size: "4096" }),
    /member "size" of "VkBufferCreateInfo": expected a bigint or a non-negative safe integer/,
  );
  const m = RUNTIME.enter(0);
  try {
    assertThrows(
      () => RUNTIME.scalars(m, "u64", [0n, "8"], -1, "vkCmdBindVertexBuffers", "pOffsets"),
      {
        name: "TypeError",
        message:
          'Cannot call "vkCmdBindVertexBuffers": parameter "pOffsets" element 1: expected a bigint or a non-negative safe integer, got "8"',
      },
    );
  } finally {
    RUNTIME.leave(m);
  }
});

Deno.test("a struct read back gives what the struct writer stored, member kinds from the layout", () => {
  using arena = new Arena();
  const writeStruct = (name: string, value: Record<string, unknown>) =>
    writeStructUntyped(arena, name, value);
  const p = writeStruct("VkViewport", {
    x: -1.5,
    y: 2,
    width: 64,
    height: 32,
    minDepth: 0,
    maxDepth: 1,
  });
  assertEquals(readStruct("VkViewport", p), {
    x: -1.5,
    y: 2,
    width: 64,
    height: 32,
    minDepth: 0,
    maxDepth: 1,
  });
  const b = writeStruct("VkBufferCreateInfo", { size: 4096n, usage: 0x80000000, sharingMode: 0 });
  const back = readStruct("VkBufferCreateInfo", b);
  assertEquals([back.size, back.usage], [4096n, 0x80000000]);
});
