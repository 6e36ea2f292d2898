/**
 * The native helpers that keep JavaScript off device creation and queue retrieval (ffi/native_helpers.ts):
 * the table filler asks one `vkGetDeviceProcAddr` for every name in a single foreign call, and the stamped
 * `vkGetDeviceQueue`/`vkGetDeviceQueue2` call the next function kept in the table's hidden words, then write
 * the device's first word into the new queue. x86-64 only; elsewhere the loader does both in TypeScript.
 */

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { DispatchTable } from "../../ffi/dispatch.ts";
import { readCString } from "../../ffi/memory.ts";
import { UnwrapStubs } from "../../ffi/unwrap_stubs.ts";
import { hasX86_64Helpers } from "../../ffi/host.ts";

const SETS = [{ prefix: "t_", tableOffset: 0, handleOffset: 8 }];
const addr = (b: ArrayBufferView) => BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(b)));

function cstrings(names: string[]): { array: BigUint64Array<ArrayBuffer>; keep: Uint8Array[] } {
  const keep = names.map((n) => new TextEncoder().encode(n + "\0"));
  const array = new BigUint64Array(new ArrayBuffer(8 * names.length));
  keep.forEach((s, i) => array[i] = addr(s));
  return { array, keep };
}

Deno.test("the native filler stores gpa(handle, name) for every name, in order, in one call", () => {
  using stubs = UnwrapStubs.load(["a"], SETS);
  const fill = stubs.fillTable;
  if (!hasX86_64Helpers() || !stubs.native) {
    assertEquals(fill, undefined);
    return;
  }
  const asked: [bigint, string][] = [];
  const gpa = new Deno.UnsafeCallback(
    { parameters: ["pointer", "pointer"], result: "pointer" } as const,
    (handle, name) => {
      const text = readCString(name);
      asked.push([BigInt(Deno.UnsafePointer.value(handle)), text]);
      return text === "vkMissing" ? null : Deno.UnsafePointer.create(0x1000n + BigInt(text.length));
    },
  );
  try {
    const names = ["vkQueueSubmit", "vkMissing", "vkCmdDraw"];
    const { array } = cstrings(names);
    const out = new BigUint64Array(names.length).fill(7n);
    fill!(gpa.pointer, Deno.UnsafePointer.create(0xd0n), Deno.UnsafePointer.of(array), names.length, out);
    assertEquals(asked, names.map((n) => [0xd0n, n]));
    assertEquals([...out], [0x1000n + 13n, 0n, 0x1000n + 9n]);
    // A count of zero asks nothing.
    asked.length = 0;
    fill!(gpa.pointer, null, Deno.UnsafePointer.of(array), 0, out);
    assertEquals(asked, []);
  } finally {
    gpa.close();
  }
});

Deno.test("stamped vkGetDeviceQueue and vkGetDeviceQueue2 call the hidden next word, then stamp the queue", () => {
  using stubs = UnwrapStubs.load(["a"], SETS);
  const helpers = [stubs.stampedQueueAddress(0), stubs.stampedQueueAddress(1)];
  if (!hasX86_64Helpers() || !stubs.native) {
    assertEquals(helpers, [null, null]);
    return;
  }
  // One named slot: the hidden words are slots 1 (vkGetDeviceQueue) and 2 (vkGetDeviceQueue2).
  using table = new DispatchTable(3);
  const device = new BigUint64Array(new ArrayBuffer(8));
  device[0] = table.address;
  const queue = new BigUint64Array(new ArrayBuffer(8));
  queue[0] = 0x5eedn;
  const seen: unknown[][] = [];
  const next = new Deno.UnsafeCallback(
    { parameters: ["pointer", "u32", "u32", "pointer"], result: "void" } as const,
    (d, family, index, pQueue) => {
      seen.push([BigInt(Deno.UnsafePointer.value(d)), family, index]);
      new BigUint64Array(Deno.UnsafePointerView.getArrayBuffer(pQueue!, 8))[0] = family === 9
        ? 0n
        : addr(queue);
    },
  );
  const next2 = new Deno.UnsafeCallback(
    { parameters: ["pointer", "pointer", "pointer"], result: "void" } as const,
    (_d, info, pQueue) => {
      seen.push([BigInt(Deno.UnsafePointer.value(info))]);
      new BigUint64Array(Deno.UnsafePointerView.getArrayBuffer(pQueue!, 8))[0] = addr(queue);
    },
  );
  try {
    table.set(1, next.pointer);
    table.set(2, next2.pointer);
    const getQueue = new Deno.UnsafeFnPointer(helpers[0]! as Deno.PointerObject<never>, next.definition);
    const getQueue2 = new Deno.UnsafeFnPointer(helpers[1]! as Deno.PointerObject<never>, next2.definition);
    const out = new BigUint64Array(new ArrayBuffer(8));
    getQueue.call(Deno.UnsafePointer.of(device), 2, 3, Deno.UnsafePointer.of(out));
    assertEquals(seen, [[addr(device), 2, 3]]);
    assertEquals([out[0], queue[0]], [addr(queue), table.address]);
    // A null queue (the driver had none) is left alone.
    queue[0] = 0x5eedn;
    getQueue.call(Deno.UnsafePointer.of(device), 9, 0, Deno.UnsafePointer.of(out));
    assertEquals([out[0], queue[0]], [0n, 0x5eedn]);
    getQueue2.call(
      Deno.UnsafePointer.of(device),
      Deno.UnsafePointer.create(0x1f0n),
      Deno.UnsafePointer.of(out),
    );
    assertEquals(seen.at(-1), [0x1f0n]);
    assertEquals(queue[0], table.address);
  } finally {
    next.close();
    next2.close();
  }
});
