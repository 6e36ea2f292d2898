/**
 * The unwrap stubs (ffi/unwrap_stubs.ts) the chain's physical-device objects rely on: their machine code,
 * a two-level call (trampoline object -> terminator object -> C function) with no TypeScript in between,
 * the same results through the UnsafeFnPointer fallback, and the error function for empty slots.
 */

import { deepStrictEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import { DispatchTable } from "../../ffi/dispatch.ts";
import { CallbackOwner } from "../../ffi/callback.ts";
import { emitUnwrapObject } from "../../ffi/unwrap_object.ts";
import { unwrapStubCode } from "../../ffi/unwrap_stub_code.ts";
import { UnwrapStubs } from "../../ffi/unwrap_stubs.ts";
import { STUB_SIZE } from "../../ffi/elf.ts";
import { Library } from "../../ffi/library.ts";

const SETS = [
  { prefix: "t_", tableOffset: 0, handleOffset: 8 },
  { prefix: "u_", tableOffset: 8, handleOffset: 16 },
];
const DEF = { parameters: ["pointer", "u32"], result: "u32" } as const;

Deno.test("x86-64 and aarch64 code: load the table, swap the handle, jump to the slot", () => {
  assertEquals([...unwrapStubCode(3, 8, 16, "x86_64")], [
    0x48,
    0x8b,
    0x47,
    0x08, // mov rax,[rdi+8]
    0x48,
    0x8b,
    0x7f,
    0x10, // mov rdi,[rdi+16]
    0xff,
    0xa0,
    0x18,
    0x00,
    0x00,
    0x00, // jmp [rax+24]
    0xcc,
    0xcc,
  ]);
  const words = new Uint32Array(unwrapStubCode(3, 8, 16, "aarch64").buffer);
  assertEquals([...words], [0xf9400410, 0xf9400800, 0xf9400e10, 0xd61f0200]);
  assertThrows(() => unwrapStubCode(0, 4, 8, "x86_64"), RangeError);
  assertThrows(() => unwrapStubCode(4096, 0, 8, "aarch64"), RangeError);
});

for (const native of [true, false]) {
  Deno.test(`two-level unwrap reaches the function with the innermost handle (${native ? "native" : "fallback"})`, () => {
    using callbacks = new CallbackOwner();
    const target = callbacks.create(DEF, (handle, x) => Number(Deno.UnsafePointer.value(handle)) + x, {
      name: "target",
      onError: 0,
    });
    using stubs = UnwrapStubs.load(["a", "b", "c"], SETS, { native });
    if (native && !stubs.native) return; // another OS or architecture: the fallback run covers it
    using driverTable = new DispatchTable(3);
    driverTable.set(2, target.pointer);
    using instanceTable = new DispatchTable(3);
    instanceTable.set(2, stubs.address(1, 2, DEF));
    const term = new BigUint64Array(new ArrayBuffer(24));
    term.set([instanceTable.address, driverTable.address, 1000n]);
    const tramp = new BigUint64Array(new ArrayBuffer(16));
    tramp.set([instanceTable.address, BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(term)))]);
    const call = stubs.bind(0, 2, DEF);
    assertEquals(call(Deno.UnsafePointer.of(tramp), 5), 1005);
    assertEquals(stubs.native, native);
  });
}

Deno.test("stubs left without a symbol are reached by address and bound through an object of their own", () => {
  using callbacks = new CallbackOwner();
  const target = callbacks.create(DEF, (handle, x) => Number(Deno.UnsafePointer.value(handle)) + x, {
    name: "target",
    onError: 0,
  });
  using stubs = UnwrapStubs.load(["a", "b", "c"], SETS, { exported: [1, 0] });
  if (!stubs.native) return; // another OS or architecture: nothing is emitted
  using object = Library.open(stubs.path!);
  assertEquals(object.symbolAddress("t_a") !== null, true);
  for (const name of ["t_b", "t_c", "u_a", "u_c"]) assertEquals(object.symbolAddress(name), null);
  // Addresses are STUB_SIZE apart, set after set, named or not.
  const a0 = Deno.UnsafePointer.value(stubs.address(0, 0));
  assertEquals(Deno.UnsafePointer.value(stubs.address(0, 2)), a0 + 2n * BigInt(STUB_SIZE));
  assertEquals(Deno.UnsafePointer.value(stubs.address(1, 2)), a0 + 5n * BigInt(STUB_SIZE));
  using driverTable = new DispatchTable(3);
  driverTable.set(2, target.pointer);
  using instanceTable = new DispatchTable(3);
  instanceTable.set(2, stubs.address(1, 2, DEF));
  const term = new BigUint64Array(new ArrayBuffer(24));
  term.set([instanceTable.address, driverTable.address, 1000n]);
  const tramp = new BigUint64Array(new ArrayBuffer(16));
  tramp.set([instanceTable.address, BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(term)))]);
  assertEquals(stubs.bind(0, 2, DEF)(Deno.UnsafePointer.of(tramp), 5), 1005);
  assertEquals(stubs.bind(0, 2, DEF), stubs.bind(0, 2, DEF));
});

Deno.test("an unwrap object refuses names that would give two stubs one symbol", () => {
  assertThrows(() => emitUnwrapObject(["a", "a"], SETS, "x86_64"), /Duplicate stub name "a"/);
  assertThrows(
    () => emitUnwrapObject(["a"], [SETS[0]!, { prefix: "t_x", tableOffset: 0, handleOffset: 8 }], "x86_64"),
    /prefixes "t_" and "t_x" can make the same symbol/,
  );
  assertThrows(
    () =>
      emitUnwrapObject(["unwrap_error"], [{ prefix: "vkdeno_", tableOffset: 0, handleOffset: 8 }], "x86_64"),
    /Duplicate stub name "vkdeno_unwrap_error"/,
  );
});

Deno.test("empty slots hold the error function, which returns VK_ERROR_EXTENSION_NOT_PRESENT", () => {
  using stubs = UnwrapStubs.load(["a"], SETS);
  if (!stubs.native) return;
  using table = new DispatchTable(1);
  table.set(0, stubs.errorFunction);
  const object = new BigUint64Array(new ArrayBuffer(16));
  object.set([table.address, 0n]);
  const call = stubs.bind(0, 0, { parameters: ["pointer"], result: "i32" });
  assertEquals(call(Deno.UnsafePointer.of(object)), -7);
});

for (const native of [true, false]) {
  Deno.test(`the helpers stamp non-null children with the parent's first word, read a u32 and store a pointer (${native ? "native" : "fallback"})`, () => {
    using stubs = UnwrapStubs.load(["a"], SETS, { native });
    if (native && !stubs.native) return;
    const word = (v: bigint) => {
      const b = new BigUint64Array(new ArrayBuffer(8));
      b[0] = v;
      return b;
    };
    const at = (b: BigUint64Array) => BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(b)));
    const parent = word(0xabcn);
    const kids = [word(1n), word(2n), word(3n)];
    const array = new BigUint64Array(new ArrayBuffer(24));
    array.set([at(kids[0]!), 0n, at(kids[2]!)]);
    stubs.helper("vkdeno_stamp_array")(Deno.UnsafePointer.of(parent), Deno.UnsafePointer.of(array), 3);
    assertEquals(kids.map((k) => k[0]), [0xabcn, 2n, 0xabcn]);
    const one = word(5n);
    stubs.helper("vkdeno_stamp_out")(Deno.UnsafePointer.of(parent), Deno.UnsafePointer.of(word(at(one))));
    assertEquals(one[0], 0xabcn);
    const empty = word(0n);
    stubs.helper("vkdeno_stamp_out")(Deno.UnsafePointer.of(parent), Deno.UnsafePointer.of(empty));
    assertEquals(empty[0], 0n);
    const ints = new Uint32Array(new ArrayBuffer(12));
    ints.set([7, 9, 11]);
    assertEquals(stubs.helper("vkdeno_read_u32")(Deno.UnsafePointer.of(ints), 8n), 11);
    const slot = word(0n);
    stubs.helper("vkdeno_store_pointer")(
      Deno.UnsafePointer.of(slot),
      Deno.UnsafePointer.create(0x1234_5678_9abcn),
    );
    assertEquals(slot[0], 0x1234_5678_9abcn);
  });
}

Deno.test("every unwrap stub of an emitted object is unwrapStubCode of its slot, per set, on both architectures", () => {
  // 37 names per set, two sets: each set's text is its first stub copied in doubling runs, then patched.
  const names = Array.from({ length: 37 }, (_, i) => `vkCommand${i}`);
  const sets = [
    { prefix: "a_", tableOffset: 0, handleOffset: 8 },
    { prefix: "b_", tableOffset: 16, handleOffset: 24 },
  ];
  for (const arch of ["x86_64", "aarch64"] as const) {
    const bytes = emitUnwrapObject(names, sets, arch);
    const dv = new DataView(bytes.buffer, bytes.byteOffset);
    // Section header 4 is .text; its file offset is at byte 24 of the header.
    const text = Number(dv.getBigUint64(Number(dv.getBigUint64(40, true)) + 4 * 64 + 24, true));
    sets.forEach((s, k) => {
      for (let i = 0; i < names.length; i++) {
        const at = text + (k * names.length + i) * STUB_SIZE;
        assertEquals(
          [...bytes.subarray(at, at + STUB_SIZE)],
          [...unwrapStubCode(i, s.tableOffset, s.handleOffset, arch)],
          `${arch} set ${k} stub ${i}`,
        );
      }
    });
  }
});
