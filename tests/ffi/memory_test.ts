/** Arena memory: aligned, zeroed, kept alive until dispose; C strings and pointer arrays. */

import assert from "node:assert/strict";
import {
  address,
  Arena,
  nativeBytes,
  pointerFromAddress,
  readCString,
  readPointer,
  readU32,
  readU64,
  writeI32,
  writePointer,
  writeU32,
  writeU64,
} from "../../ffi/memory.ts";

Deno.test("alloc returns zeroed memory at the requested alignment", () => {
  using arena = new Arena();
  for (const align of [1, 8, 16, 64, 256, 4096]) {
    const buf = arena.alloc(24, align);
    assert.equal(buf.length, 24);
    assert.equal(address(arena.pointer(buf)) % BigInt(align), 0n, `align ${align}`);
    assert.ok(buf.every((b) => b === 0));
  }
  assert.throws(() => arena.alloc(8, 3), /Invalid alignment "3": must be a power of two/);
  assert.throws(() => arena.alloc(-1), RangeError);
});

Deno.test("a zero-length allocation still has an address", () => {
  using arena = new Arena();
  assert.notEqual(address(arena.pointer(arena.alloc(0))), 0n);
});

Deno.test("memory stays valid while the arena lives, even after garbage collection", () => {
  using arena = new Arena();
  const strings = Array.from({ length: 200 }, (_, i) => arena.cstring(`VK_LAYER_test_${i}`));
  // Churn the heap: unreferenced buffers would be freed and reused here.
  for (let i = 0; i < 200; i++) new Uint8Array(64 * 1024).fill(0xee);
  (globalThis as { gc?: () => void }).gc?.();
  strings.forEach((p, i) => assert.equal(readCString(p), `VK_LAYER_test_${i}`));
});

Deno.test("cstring round-trips UTF-8 and refuses NUL", () => {
  using arena = new Arena();
  assert.equal(readCString(arena.cstring("héllo ✓")), "héllo ✓");
  assert.equal(readCString(arena.cstring("")), "");
  assert.throws(() => arena.cstring("a\0b"), /Cannot pass "a\\0b" as a C string: it contains NUL/);
});

Deno.test("readCString stops at maxBytes for fixed-size char arrays, and reads null as empty", () => {
  using arena = new Arena();
  const layerName = arena.alloc(256); // char layerName[VK_MAX_EXTENSION_NAME_SIZE]
  layerName.set(new TextEncoder().encode("VK_LAYER_KHRONOS_validation"));
  const p = arena.pointer(layerName);
  assert.equal(readCString(p, 256), "VK_LAYER_KHRONOS_validation");
  assert.equal(readCString(p, 8), "VK_LAYER");
  layerName.fill(0x41); // no NUL within the array: stop at its end
  assert.equal(readCString(p, 256), "A".repeat(256));
  assert.equal(readCString(null), "");
});

Deno.test("cstringArray is a const char* const* array; empty lists are null", () => {
  using arena = new Arena();
  const names = ["VK_KHR_surface", "VK_KHR_xcb_surface", "VK_EXT_debug_utils"];
  const list = arena.cstringArray(names);
  names.forEach((n, i) => assert.equal(readCString(readPointer(list, i * 8)), n));
  assert.equal(arena.cstringArray([]), null);
});

Deno.test("pointerArray writes addresses and nulls", () => {
  using arena = new Arena();
  const a = arena.cstring("a");
  const list = arena.pointerArray([a, null, pointerFromAddress(0x1234n)]);
  assert.equal(address(readPointer(list, 0)), address(a));
  assert.equal(readPointer(list, 8), null);
  assert.equal(readU64(list, 16), 0x1234n);
});

Deno.test("raw reads and writes at addresses", () => {
  using arena = new Arena();
  const p = arena.pointer(arena.alloc(32));
  writeU32(p, 0, 0xdeadbeef);
  writeI32(p, 4, -6);
  writeU64(p, 8, 0xffff_ffff_ffff_fffen);
  writePointer(p, 16, p);
  assert.equal(readU32(p, 0), 0xdeadbeef);
  assert.equal(readU32(p, 4), 0xfffffffa);
  assert.equal(readU64(p, 8), 0xffff_ffff_ffff_fffen);
  assert.equal(address(readPointer(p, 16)), address(p));
  assert.deepEqual([...nativeBytes(p, 4)], [0xef, 0xbe, 0xad, 0xde]);
  assert.equal(pointerFromAddress(0n), null);
  assert.throws(() => readPointer(null), /Cannot read a pointer through a null pointer/);
});

Deno.test("arenas are counted until disposed, and a disposed arena refuses to allocate", () => {
  const before = Arena.liveCount;
  const arena = new Arena();
  arena.copy(new Uint32Array([1, 2, 3]));
  assert.equal(Arena.liveCount, before + 1);
  assert.ok(arena.byteLength >= 12);
  arena.dispose();
  arena.dispose();
  assert.equal(Arena.liveCount, before);
  assert.ok(arena.disposed);
  assert.throws(() => arena.alloc(1), /Cannot allocate from a disposed arena/);
});
