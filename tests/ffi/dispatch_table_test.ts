/**
 * `DispatchTable.setAll` (ffi/dispatch.ts): the one loop that writes a whole dispatch table writes every slot
 * it is given, the last one included, puts the empty function where no address was found, leaves the other
 * slots alone, and refuses lists that do not fit before writing anything.
 */

import { deepStrictEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import { DispatchTable } from "../../ffi/dispatch.ts";

const read = (table: DispatchTable, slots: number) =>
  Array.from({ length: slots }, (_, i) => BigInt(Deno.UnsafePointer.value(table.get(i))));

Deno.test("setAll writes each given slot, the last included, and the empty function where none was found", () => {
  using table = new DispatchTable(6);
  table.set(2, 0x77n);
  table.setAll(Uint32Array.of(5, 0, 3, 1), BigUint64Array.of(0x5000n, 0x1000n, 0n, 0x3_0000_1000n), 0xeen);
  assertEquals(read(table, 6), [0x1000n, 0x3_0000_1000n, 0x77n, 0xeen, 0n, 0x5000n]);
  // Every slot of a table, in slot order: the last slot is written too.
  const all = Uint32Array.from({ length: 6 }, (_, i) => i);
  table.setAll(all, BigUint64Array.from({ length: 6 }, (_, i) => BigInt(0x100 * (i + 1))), null);
  assertEquals(read(table, 6), [0x100n, 0x200n, 0x300n, 0x400n, 0x500n, 0x600n]);
});

Deno.test("setAll refuses lists of different lengths or a slot out of range, writing nothing", () => {
  using table = new DispatchTable(2);
  assertThrows(() => table.setAll(Uint32Array.of(0, 1), BigUint64Array.of(1n), 0n), RangeError);
  assertThrows(() => table.setAll(Uint32Array.of(0, 2), BigUint64Array.of(1n, 2n), 0n), RangeError);
  assertEquals(read(table, 2), [0n, 0n]);
});
