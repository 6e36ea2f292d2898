// The native pointer helpers make the pointer objects Deno's own calls would (`UnsafePointer.offset`, a
// pointer read from memory), null for a zero word; a scratch's addresses past its cached first 4 KiB and
// its stored pointers come from them. Where objects can be emitted they are native code, else Deno's calls.
import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { loadPointer, pointerAt } from "../../ffi/pointer_helpers.ts";
import { Scratch } from "../../ffi/scratch.ts";
import { elfStubArch } from "../../ffi/host.ts";

Deno.test("pointerAt gives the address UnsafePointer.offset gives, for offsets up to 2^32 - 1", () => {
  const base = Deno.UnsafePointer.of(new Uint8Array(64))!;
  const address = Deno.UnsafePointer.value(base);
  for (const offset of [0, 1, 8, 4095, 4096, 65537, 2 ** 32 - 1]) {
    assertEquals(Deno.UnsafePointer.value(pointerAt(base, offset)), address + BigInt(offset));
    assertEquals(
      Deno.UnsafePointer.value(pointerAt(base, offset)),
      Deno.UnsafePointer.value(Deno.UnsafePointer.offset(base, offset)),
    );
  }
  // Where objects can be emitted (Linux x86-64 and arm64), the helpers are native code in a memfd of their own.
  if (elfStubArch() !== undefined) {
    assertEquals(Deno.readTextFileSync("/proc/self/maps").includes("/memfd:vkdeno-pointers"), true);
  }
});

Deno.test("loadPointer reads the stored word as a pointer object, null for 0", () => {
  const words = new BigUint64Array([0n, 0x1000n, 0xffff_ffff_ffff_fff0n]);
  const base = Deno.UnsafePointer.of(words)!;
  assertEquals(loadPointer(base, 0), null);
  assertEquals(Deno.UnsafePointer.value(loadPointer(base, 8)), 0x1000n);
  assertEquals(Deno.UnsafePointer.value(loadPointer(base, 16)), 0xffff_ffff_ffff_fff0n);
});

Deno.test("a scratch's addresses past its cache and its stored pointers come from the helpers", () => {
  const m = new Scratch(1 << 16);
  const base = Deno.UnsafePointer.value(m.at(0));
  for (const offset of [8, 4096, 4100, 60000]) {
    assertEquals(Deno.UnsafePointer.value(m.at(offset)), base + BigInt(offset));
  }
  m.u64[600] = 0x2000n;
  assertEquals([m.readPointer(8), Deno.UnsafePointer.value(m.readPointer(4800))], [null, 0x2000n]);
});
