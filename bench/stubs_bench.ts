/**
 * Dispatch stubs against the FFI floor: one C no-op through a native stub and table, `Deno.dlopen`,
 * `Deno.UnsafeFnPointer` and the stubs' fallback; BENCHMARKS.md divides by the `(xN)` calls per iteration.
 * Each group runs one batch size, its baseline included, so `deno bench`'s own summary compares like with like.
 */

import { buildTestLibrary } from "../tests/support/c_build.ts";
import { DispatchStubs, DispatchTable } from "../ffi/dispatch.ts";
import { Library } from "../ffi/library.ts";
import { Arena } from "../ffi/memory.ts";

/** Calls per measured iteration of the fast paths (enough to keep each iteration ~40 us). */
const CALLS = 10_000;
/** Calls per measured iteration of the slow paths. */
const SLOW_CALLS = 100;
const DEF = { parameters: ["pointer", "u32", "u32", "pointer"], result: "void" } as const;

const path = await buildTestLibrary("stub_target");
const target = Library.open(path);
const noop = target.symbolAddress("bench_noop")!;

const names = ["vkGetDeviceQueue", ...Array.from({ length: 256 }, (_, i) => `vkdeno_unknown_${i}`)];
const stubs = DispatchStubs.load(names);
const fallback = DispatchStubs.load(names, { native: false });
const table = new DispatchTable(names.length);
table.set(0, noop);
const arena = new Arena();
const handleBuf = arena.alloc(8);
new BigUint64Array(handleBuf.buffer, handleBuf.byteOffset, 1)[0] = table.address;
const device = arena.pointer(handleBuf);
const queue = arena.pointer(arena.alloc(8));

const viaStub = stubs.bind(0, DEF);
const viaFallback = fallback.bind(0, DEF);
const direct = Deno.dlopen(path, { bench_noop: DEF }).symbols.bench_noop;
const viaFnPointer = new Deno.UnsafeFnPointer(noop as Deno.PointerObject<never>, DEF);

/** The C no-op through Deno.dlopen (the group's baseline) and the native stub, `calls` per iteration. */
function floor(group: string, calls: number): void {
  Deno.bench({
    name: `C no-op declared with Deno.dlopen (x${calls})`,
    group,
    baseline: true,
    fn() {
      for (let i = 0; i < calls; i++) direct(device, 1, 2, queue);
    },
  });
  Deno.bench({
    name: `native stub -> table -> C no-op (x${calls})`,
    group,
    fn() {
      for (let i = 0; i < calls; i++) viaStub(device, 1, 2, queue);
    },
  });
}

floor("dispatch", CALLS);

// The slow paths, in batches of SLOW_CALLS beside the fast ones at the same batch size.
floor("dispatch, slow paths", SLOW_CALLS);

Deno.bench({
  name: `Deno.UnsafeFnPointer on the C no-op (x${SLOW_CALLS})`,
  group: "dispatch, slow paths",
  fn() {
    for (let i = 0; i < SLOW_CALLS; i++) viaFnPointer.call(device, 1, 2, queue);
  },
});

Deno.bench({
  name: `stub fallback (table read in TS + UnsafeFnPointer) (x${SLOW_CALLS})`,
  group: "dispatch, slow paths",
  fn() {
    for (let i = 0; i < SLOW_CALLS; i++) viaFallback(device, 1, 2, queue);
  },
});

Deno.bench({
  name: "emit + load 1,000 stubs, bind 8",
  group: "setup",
  fn() {
    const many = Array.from({ length: 1000 }, (_, i) => `vkdeno_bench_${i}`);
    using s = DispatchStubs.load(many);
    for (let i = 0; i < 8; i++) s.bind(i * 100, DEF);
  },
});
