/**
 * Dispatch stubs: every signature class reaches the right table slot with the
 * right arguments, natively and through the UnsafeFnPointer fallback.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { buildTestLibrary } from "../support/c_build.ts";
import { DispatchStubs, DispatchTable, nativeStubArch } from "../../ffi/dispatch.ts";
import { noStubsReason } from "../../ffi/host.ts";
import { elfHash, emitStubObject, STUB_SIZE, stubCode, validateNames } from "../../ffi/elf.ts";
import { EmittedObject } from "../../ffi/emitted_object.ts";
import { Library } from "../../ffi/library.ts";
import { COMMANDS } from "../../vk/generated/commands.ts";
import { commandNameHashes, TRAMP_SYMBOL_PREFIX, trampSymbolHashes } from "../../vk/generated/stub_hashes.ts";
import { address, Arena, readCString, readPointer, readU64 } from "../../ffi/memory.ts";

/**
 * The signatures the generator must produce (handles and pointers "pointer",
 * enums and flags "u32", VkDeviceSize "u64", float "f32", VkResult "i32"):
 * the tests bind the generated ones and first check they match these.
 */
const EXPECTED = {
  vkGetDeviceQueue: { parameters: ["pointer", "u32", "u32", "pointer"], result: "void" },
  vkCmdSetLineWidth: { parameters: ["pointer", "f32"], result: "void" },
  vkCmdSetBlendConstants: { parameters: ["pointer", "pointer"], result: "void" },
  vkCmdSetDepthBias: { parameters: ["pointer", "f32", "f32", "f32"], result: "void" },
  vkCmdPipelineBarrier: {
    parameters: ["pointer", "u32", "u32", "u32", "u32", "pointer", "u32", "pointer", "u32", "pointer"],
    result: "void",
  },
  vkCmdBlitImage: {
    parameters: ["pointer", "pointer", "u32", "pointer", "u32", "u32", "pointer", "u32"],
    result: "void",
  },
  vkCmdFillBuffer: { parameters: ["pointer", "pointer", "u64", "u64", "u32"], result: "void" },
  vkWaitForFences: { parameters: ["pointer", "u32", "pointer", "u32", "u64"], result: "i32" },
  vkGetBufferDeviceAddress: { parameters: ["pointer", "pointer"], result: "u64" },
  vkGetDeviceProcAddr: { parameters: ["pointer", "pointer"], result: "pointer" },
} as const satisfies Record<string, Deno.ForeignFunction>;

type Name = keyof typeof EXPECTED;
const COMMAND_NAMES = Object.keys(EXPECTED) as Name[];
const SIGNATURES = Object.fromEntries(
  COMMAND_NAMES.map((name) => [name, COMMANDS.find((c) => c.name === name)!.ffi]),
) as unknown as typeof EXPECTED; // same shapes: checked by the first test
const UNKNOWN_NAMES = Array.from({ length: 256 }, (_, i) => `vkdeno_unknown_${i}`);
const ALL_NAMES = [...COMMAND_NAMES, ...UNKNOWN_NAMES];

const target = Library.open(await buildTestLibrary("stub_target"));
const lastCallFn = target.fn("stub_last_call", { parameters: [], result: "pointer" })!;
const lastCall = () => readCString(lastCallFn.call());
const hex = (p: Deno.PointerValue) => p === null ? "(nil)" : `0x${address(p).toString(16)}`;
const fake = (a: bigint) => Deno.UnsafePointer.create(a);

/** A loader-owned dispatchable object: its first word is the table address. */
function makeHandle(arena: Arena, table: DispatchTable): Deno.PointerObject {
  const handle = arena.alloc(16);
  new BigUint64Array(handle.buffer, handle.byteOffset, 1)[0] = table.address;
  return arena.pointer(handle);
}

function fillTable(table: DispatchTable): void {
  COMMAND_NAMES.forEach((name, i) => table.set(i, target.symbolAddress(name)));
}

const MODES = nativeStubArch() ? [true, false] : [false];

Deno.test("generated signatures match the FFI classes these tests exercise", () => {
  for (const name of COMMAND_NAMES) {
    assert.deepEqual(SIGNATURES[name], EXPECTED[name], name);
  }
});

for (const native of MODES) {
  const mode = native ? "native stubs" : "UnsafeFnPointer fallback";

  Deno.test(`${mode}: every signature class reaches its slot with its arguments`, () => {
    using stubs = DispatchStubs.load(ALL_NAMES, { native });
    assert.equal(stubs.native, native);
    using table = new DispatchTable(ALL_NAMES.length);
    fillTable(table);
    using arena = new Arena();
    const h = makeHandle(arena, table);
    const bind = <N extends Name>(name: N) => stubs.bind(stubs.indexOf(name)!, SIGNATURES[name]);

    const queue = arena.pointer(arena.alloc(8));
    bind("vkGetDeviceQueue")(h, 3, 5, queue);
    assert.equal(lastCall(), `vkGetDeviceQueue(${hex(h)}, 3, 5)`);
    assert.equal(address(readPointer(queue)), 0x1000n + 3n * 16n + 5n);

    bind("vkCmdSetLineWidth")(h, 2.5);
    assert.equal(lastCall(), `vkCmdSetLineWidth(${hex(h)}, 2.500)`);

    const constants = arena.copy(new Float32Array([0.25, 0.5, 0.75, 1]));
    bind("vkCmdSetBlendConstants")(h, constants);
    assert.equal(lastCall(), `vkCmdSetBlendConstants(${hex(h)}, [0.250, 0.500, 0.750, 1.000])`);

    bind("vkCmdSetDepthBias")(h, 1.25, -3.5, 0.125);
    assert.equal(lastCall(), `vkCmdSetDepthBias(${hex(h)}, 1.250, -3.500, 0.125)`);

    const [m, b, i] = [fake(0x1110n), fake(0x2220n), fake(0x3330n)];
    bind("vkCmdPipelineBarrier")(h, 0x10, 0x20, 1, 2, m, 3, b, 4, i);
    assert.equal(lastCall(), `vkCmdPipelineBarrier(${hex(h)}, 16, 32, 1, 2, 0x1110, 3, 0x2220, 4, 0x3330)`);

    bind("vkCmdBlitImage")(h, fake(0xaa0n), 6, fake(0xbb0n), 7, 1, fake(0xcc0n), 1);
    assert.equal(lastCall(), `vkCmdBlitImage(${hex(h)}, 0xaa0, 6, 0xbb0, 7, 1, 0xcc0, 1)`);

    bind("vkCmdFillBuffer")(h, fake(0xb0n), 0x1_0000_0004n, 0xffff_ffff_ffff_fff0n, 0xdeadbeef);
    assert.equal(
      lastCall(),
      `vkCmdFillBuffer(${hex(h)}, 0xb0, ${0x1_0000_0004n}, ${0xffff_ffff_ffff_fff0n}, ${0xdeadbeef})`,
    );

    assert.equal(bind("vkWaitForFences")(h, 1, fake(0xf0n), 1, 0n), 2);
    assert.equal(bind("vkWaitForFences")(h, 1, fake(0xf0n), 0, 18446744073709551615n), -4);
    assert.equal(lastCall(), `vkWaitForFences(${hex(h)}, 1, 0xf0, 0, 18446744073709551615)`);

    assert.equal(bind("vkGetBufferDeviceAddress")(h, fake(0x10n)), 0xfedcba9876543210n);
    assert.equal(lastCall(), `vkGetBufferDeviceAddress(${hex(h)}, 0x10)`);

    const gdpa = bind("vkGetDeviceProcAddr");
    assert.equal(
      address(gdpa(h, arena.cstring("vkGetDeviceQueue"))),
      address(target.symbolAddress("vkGetDeviceQueue")),
    );
    assert.equal(gdpa(h, arena.cstring("vkNoSuchCommand")), null);
    assert.equal(lastCall(), `vkGetDeviceProcAddr(${hex(h)}, vkNoSuchCommand)`);
  });

  Deno.test(`${mode}: reserved unknown-command slots dispatch like named ones`, () => {
    using stubs = DispatchStubs.load(ALL_NAMES, { native });
    using table = new DispatchTable(ALL_NAMES.length);
    const index = stubs.indexOf("vkdeno_unknown_255")!;
    table.set(index, target.symbolAddress("vkCmdSetDepthBias"));
    using arena = new Arena();
    const h = makeHandle(arena, table);
    stubs.bind(index, SIGNATURES.vkCmdSetDepthBias)(h, 1, 2, 3);
    assert.equal(lastCall(), `vkCmdSetDepthBias(${hex(h)}, 1.000, 2.000, 3.000)`);
  });

  Deno.test(`${mode}: reserved slots left without a symbol dispatch like named ones`, () => {
    using stubs = DispatchStubs.load(ALL_NAMES, { native, exported: COMMAND_NAMES.length });
    using table = new DispatchTable(ALL_NAMES.length);
    const index = stubs.indexOf("vkdeno_unknown_200")!;
    table.set(index, target.symbolAddress("vkCmdSetDepthBias"));
    using arena = new Arena();
    const h = makeHandle(arena, table);
    stubs.bind(index, SIGNATURES.vkCmdSetDepthBias)(h, 4, 5, 6);
    assert.equal(lastCall(), `vkCmdSetDepthBias(${hex(h)}, 4.000, 5.000, 6.000)`);
    if (!native) return;
    using object = Library.open(stubs.path!);
    assert.equal(object.symbolAddress("vkdeno_unknown_200"), null);
    assert.notEqual(object.symbolAddress(COMMAND_NAMES[0]!), null);
    // The address handed to C is the reserved stub in the main object, where its symbol would be.
    const first = address(stubs.address(0));
    assert.equal(address(stubs.address(index)), first + BigInt(index * STUB_SIZE));
    const viaC = new Deno.UnsafeFnPointer(
      stubs.address(index) as Deno.PointerObject<never>,
      SIGNATURES.vkCmdSetDepthBias,
    );
    viaC.call(h, 7, 8, 9);
    assert.equal(lastCall(), `vkCmdSetDepthBias(${hex(h)}, 7.000, 8.000, 9.000)`);
  });

  Deno.test(`${mode}: two handles with different tables reach different functions`, () => {
    using stubs = DispatchStubs.load(ALL_NAMES, { native });
    using t1 = new DispatchTable(ALL_NAMES.length);
    using t2 = new DispatchTable(ALL_NAMES.length);
    const index = stubs.indexOf("vkdeno_unknown_0")!;
    t1.set(index, target.symbolAddress("vkCmdSetLineWidth"));
    t2.set(index, target.symbolAddress("vkCmdSetDepthBias"));
    using arena = new Arena();
    const [h1, h2] = [makeHandle(arena, t1), makeHandle(arena, t2)];
    const call = stubs.bind(index, { parameters: ["pointer", "f32", "f32", "f32"], result: "void" });
    call(h1, 4, 0, 0);
    assert.equal(lastCall(), `vkCmdSetLineWidth(${hex(h1)}, 4.000)`);
    call(h2, 4, 5, 6);
    assert.equal(lastCall(), `vkCmdSetDepthBias(${hex(h2)}, 4.000, 5.000, 6.000)`);
  });

  Deno.test(`${mode}: the address handed to C dispatches through the table`, () => {
    using stubs = DispatchStubs.load(ALL_NAMES, { native });
    using table = new DispatchTable(ALL_NAMES.length);
    fillTable(table);
    using arena = new Arena();
    const h = makeHandle(arena, table);
    const index = stubs.indexOf("vkGetDeviceQueue")!;
    const fnptr = stubs.address(index, SIGNATURES.vkGetDeviceQueue);
    assert.equal(stubs.address(index, SIGNATURES.vkGetDeviceQueue), fnptr);
    const callFromC = target.fn("stub_call_get_device_queue", {
      parameters: ["function", "pointer", "u32", "u32", "pointer"],
      result: "void",
    })!;
    const queue = arena.pointer(arena.alloc(8));
    callFromC.call(fnptr, h, 1, 2, queue);
    assert.equal(lastCall(), `vkGetDeviceQueue(${hex(h)}, 1, 2)`);
    assert.equal(readU64(queue), 0x1000n + 16n + 2n);
  });

  Deno.test(`${mode}: a worker calls the main thread's stubs on its handles`, async () => {
    using stubs = DispatchStubs.load(ALL_NAMES, { native });
    using table = new DispatchTable(ALL_NAMES.length);
    fillTable(table);
    using arena = new Arena();
    const h = makeHandle(arena, table);
    const worker = new Worker(import.meta.resolve("../support/stubs_worker.ts"), { type: "module" });
    try {
      const reply = new Promise<string>((resolve) => worker.onmessage = (e) => resolve(e.data));
      worker.postMessage({
        path: stubs.path,
        names: ALL_NAMES,
        index: stubs.indexOf("vkCmdSetLineWidth"),
        handle: address(h),
      });
      assert.equal(await reply, "done");
      assert.equal(lastCall(), `vkCmdSetLineWidth(${hex(h)}, 9.500)`);
    } finally {
      worker.terminate();
    }
  });
}

Deno.test("native stubs: the stub address is the symbol's and lies in the stub object", () => {
  if (!nativeStubArch()) return;
  using stubs = DispatchStubs.load(ALL_NAMES);
  using lib = Library.open(stubs.path!);
  for (const i of [0, 5, ALL_NAMES.length - 1]) {
    assert.equal(address(stubs.address(i)), address(lib.symbolAddress(ALL_NAMES[i]!)));
  }
  assert.equal(address(stubs.address(1)) - address(stubs.address(0)), BigInt(STUB_SIZE));
});

Deno.test("an undisposed table that JavaScript no longer references survives garbage collection", async () => {
  if (!nativeStubArch()) return;
  // A subprocess, so the GC can be forced and a crash does not take the test runner down.
  const dir = await Deno.makeTempDir();
  try {
    const script = join(dir, "gc.ts");
    await Deno.writeTextFile(
      script,
      `import { DispatchStubs, DispatchTable } from ${
        JSON.stringify(import.meta.resolve("../../ffi/dispatch.ts"))
      };
import { Library } from ${JSON.stringify(import.meta.resolve("../../ffi/library.ts"))};
import { Arena, readCString } from ${JSON.stringify(import.meta.resolve("../../ffi/memory.ts"))};
const target = Library.open(Deno.args[0]);
const stubs = DispatchStubs.load(["vkCmdSetLineWidth"]);
const arena = new Arena();
const handle = arena.alloc(8);
(() => {
  const table = new DispatchTable(2);
  table.set(0, target.symbolAddress("vkCmdSetLineWidth"));
  new BigUint64Array(handle.buffer, handle.byteOffset, 1)[0] = table.address;
})();
for (let i = 0; i < 5; i++) {
  globalThis.gc();
  for (let j = 0; j < 1000; j++) new BigUint64Array(new ArrayBuffer(16));
}
stubs.bind(0, { parameters: ["pointer", "f32"], result: "void" })(arena.pointer(handle), 7);
console.log(readCString(target.fn("stub_last_call", { parameters: [], result: "pointer" }).call()));
`,
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", "--no-check", "--v8-flags=--expose-gc", script, target.path],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    assert.ok(out.success, `exit code ${out.code}: ${new TextDecoder().decode(out.stderr)}`);
    assert.match(stdout, /^vkCmdSetLineWidth\(0x[0-9a-f]+, 7\.000\)$/m);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("native stubs load from a memfd that stays open until dispose", () => {
  if (!nativeStubArch()) return;
  const stubs = DispatchStubs.load(["vkA"]);
  const path = stubs.path!;
  assert.match(path, /^\/proc\/self\/fd\/\d+$/);
  assert.match(Deno.readLinkSync(path), /^\/memfd:vkdeno-stubs/);
  stubs.dispose();
  let target = "";
  try {
    target = Deno.readLinkSync(path);
  } catch {
    // closed
  }
  assert.doesNotMatch(target, /memfd:vkdeno-stubs/);
  assert.throws(() => stubs.bind(0, { parameters: ["pointer"], result: "void" }), /disposed dispatch stubs/);
});

Deno.test("native stubs load from a temp file when asked, removed on dispose", () => {
  if (!nativeStubArch()) return;
  const stubs = DispatchStubs.load(["vkCmdSetLineWidth"], { source: "tempfile" });
  const path = stubs.path!;
  assert.ok(stubs.native);
  assert.match(path, /vkdeno-stubs-.*\.so$/);
  using table = new DispatchTable(1);
  table.set(0, target.symbolAddress("vkCmdSetLineWidth"));
  using arena = new Arena();
  const h = makeHandle(arena, table);
  stubs.bind(0, SIGNATURES.vkCmdSetLineWidth)(h, 3);
  assert.equal(lastCall(), `vkCmdSetLineWidth(${hex(h)}, 3.000)`);
  stubs.dispose();
  assert.throws(() => Deno.statSync(path), Deno.errors.NotFound);
});

Deno.test("the fallback says why it is used; native stubs give no reason", () => {
  using off = DispatchStubs.load(["vkA"], { native: false });
  assert.equal(off.fallbackReason, "native stubs were turned off");
  using on = DispatchStubs.load(["vkA"]);
  assert.equal(
    on.fallbackReason,
    nativeStubArch() ? undefined : noStubsReason(),
  );
});

Deno.test("fallback: the address needs the command's definition", () => {
  using stubs = DispatchStubs.load(["vkQueueWaitIdle"], { native: false });
  assert.throws(
    () => stubs.address(0),
    /Cannot take the address of stub "vkQueueWaitIdle" without native stubs/,
  );
});

Deno.test("fallback: an empty slot throws in TypeScript and returns an error code to C", () => {
  using stubs = DispatchStubs.load(["vkQueueWaitIdle"], { native: false });
  using table = new DispatchTable(1);
  using arena = new Arena();
  const h = makeHandle(arena, table);
  const def = { parameters: ["pointer", "u32"], result: "i32" } as const;
  assert.throws(() => stubs.bind(0, def)(h, 0), /Cannot call "vkQueueWaitIdle": dispatch slot 0 is empty/);
  const callFromC = target.fn("stub_call_result_callback", {
    parameters: ["function", "pointer", "u32"],
    result: "i32",
  })!;
  const original = console.error;
  const reports: unknown[] = [];
  console.error = (m: unknown) => reports.push(m);
  try {
    assert.equal(callFromC.call(stubs.address(0, def), h, 0), -3);
  } finally {
    console.error = original;
  }
  assert.equal(reports.length, 1);
});

Deno.test("stubs: bind rejects a first parameter that cannot be a handle", () => {
  using stubs = DispatchStubs.load(["vkFoo"]);
  assert.throws(
    () => stubs.bind(0, { parameters: ["u32"], result: "void" }),
    /Cannot bind stub "vkFoo": its first parameter must be "pointer"/,
  );
  assert.throws(() => stubs.bind(1, { parameters: ["pointer"], result: "void" }), RangeError);
});

Deno.test("stubs: repeated or empty names are refused", () => {
  assert.throws(() => DispatchStubs.load(["vkA", "vkA"]), /Duplicate stub name "vkA"/);
  assert.throws(() => emitStubObject([""], "x86_64"), /Invalid stub name ""/);
});

Deno.test("stubs: a kept stub object never vouches for a list of names that would be refused", async () => {
  // Only an emission checks the names; a list with a repeated name must not find the entry of a valid
  // list whose names join to the same text (["a", "a\nb", "c"] and ["a", "a", "b\nc"] by newlines).
  using folder = {
    path: Deno.makeTempDirSync(),
    [Symbol.dispose]: () => Deno.removeSync(folder.path, { recursive: true }),
  };
  const dispatch = new URL("../../ffi/dispatch.ts", import.meta.url).href;
  const script = `import { DispatchStubs } from ${JSON.stringify(dispatch)};
    DispatchStubs.load(["a", "a\\nb", "c"])[Symbol.dispose]();
    try { DispatchStubs.load(["a", "a", "b\\nc"]); console.log("loaded"); }
    catch (error) { console.log(error.message); }`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", script],
    env: { VKDENO_CACHE: folder.path },
    stdout: "piped",
    stderr: "inherit",
  }).output();
  assert.ok(out.success);
  if (nativeStubArch() !== undefined) {
    assert.ok(Deno.readDirSync(folder.path).some((e) => e.name.startsWith("stubs-dispatch")));
  }
  assert.equal(new TextDecoder().decode(out.stdout).trim(), 'Duplicate stub name "a"');
});

Deno.test("stubs: only a frozen name list is checked once; a list that can change is checked at every use", () => {
  const open = ["vkA", "vkB"];
  validateNames(open);
  open.push("vkA");
  assert.throws(() => validateNames(open), /Duplicate stub name "vkA"/);
  const frozenBad = Object.freeze(["vkA", "vkA"]);
  assert.throws(() => validateNames(frozenBad), /Duplicate stub name "vkA"/);
  assert.throws(
    () => validateNames(frozenBad),
    /Duplicate stub name "vkA"/,
    "a bad list is never remembered",
  );
  const frozen = Object.freeze(["vkA", "vkB"]);
  validateNames(frozen);
  assert.doesNotThrow(() => emitStubObject(frozen, "x86_64"));
});

Deno.test("every name is in its SysV hash bucket's chain, and the dynamic linker finds each one", () => {
  // The chain's real name list (three sets of ~1,240) and names that are not ASCII (UTF-8 in .dynstr).
  const names = [...ALL_NAMES, ...ALL_NAMES.map((n) => `vkdeno_tramp_${n}`), "vkdéno_ünïcode", "vk_日本"];
  const { bytes } = emitStubObject(names, "x86_64");
  const dv = new DataView(bytes.buffer);
  const hashOff = 64 + 4 * 56;
  const nbucket = dv.getUint32(hashOff, true);
  const nchain = dv.getUint32(hashOff + 4, true);
  assert.equal(nchain, names.length + 1);
  for (const [i, name] of names.entries()) {
    let sym = dv.getUint32(hashOff + 8 + 4 * (elfHash(name) % nbucket), true);
    while (sym !== 0 && sym !== i + 1) sym = dv.getUint32(hashOff + 8 + 4 * nbucket + 4 * sym, true);
    assert.equal(sym, i + 1, `"${name}" is not in its bucket's chain`);
  }
  if (nativeStubArch() !== "x86_64") return;
  using object = EmittedObject.open(bytes, { name: "vkdeno-hash-test" });
  for (const name of [names[0]!, names[names.length - 3]!, "vkdéno_ünïcode", "vk_日本"]) {
    assert.notEqual(object.library.symbolAddress(name), null, name);
  }
});

Deno.test("the chain's stub symbols come hashed from the generator, and the hashes given are the ones used", () => {
  const names = COMMANDS.map((c) => c.name);
  const tramp = names.map((n) => `${TRAMP_SYMBOL_PREFIX}${n}`);
  assert.deepEqual(commandNameHashes(), names.map((n) => elfHash(n)));
  assert.deepEqual(trampSymbolHashes(), tramp.map((n) => elfHash(n)));
  // A given hash places its name, a missing one is computed: with every given hash wrong by one bucket,
  // no given name is where the true hash puts it, and the last (not given) one is.
  const given = names.slice(0, 40).map((n) => elfHash(n) + 1);
  const { bytes } = emitStubObject(names.slice(0, 41), "x86_64", undefined, { hashes: given });
  const dv = new DataView(bytes.buffer);
  const hashOff = 64 + 4 * 56;
  const nbucket = dv.getUint32(hashOff, true);
  const head = (h: number) => dv.getUint32(hashOff + 8 + 4 * (h % nbucket), true);
  const inChain = (h: number, sym: number) => {
    for (let s = head(h); s !== 0; s = dv.getUint32(hashOff + 8 + 4 * nbucket + 4 * s, true)) {
      if (s === sym) return true;
    }
    return false;
  };
  for (let i = 0; i < 40; i++) {
    assert.ok(inChain(given[i]!, i + 1), `"${names[i]}" is in the given hash's chain`);
    assert.ok(!inChain(elfHash(names[i]!), i + 1), `"${names[i]}" is not in its true hash's chain`);
  }
  assert.ok(inChain(elfHash(names[40]!), 41));
});

Deno.test("readelf -Ws lists every stub as a global function in a real section", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "stubs.so");
    await Deno.writeFile(path, emitStubObject(ALL_NAMES, "x86_64").bytes);
    const out = await new Deno.Command("readelf", { args: ["-Ws", path], stdout: "piped" }).output();
    assert.ok(out.success);
    const rows = new TextDecoder().decode(out.stdout).split("\n").map((l) => l.trim().split(/\s+/))
      .filter((f) => f.length === 8 && /^\d+:$/.test(f[0]!));
    const listed = new Map(rows.map((f) => [f[7]!, f]));
    for (const [i, name] of ALL_NAMES.entries()) {
      const row = listed.get(name);
      assert.ok(row, `readelf does not list "${name}"`);
      assert.deepEqual(row.slice(2, 6), [String(STUB_SIZE), "FUNC", "GLOBAL", "DEFAULT"]);
      assert.notEqual(row[6], "ABS");
      assert.notEqual(row[6], "UND");
      if (i > 0) {
        const prev = listed.get(ALL_NAMES[i - 1]!)!;
        assert.equal(parseInt(row[1]!, 16) - parseInt(prev[1]!, 16), STUB_SIZE);
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("x86-64 stub N is mov rax,[rdi]; jmp [rax+8N]", () => {
  assert.deepEqual(
    [...stubCode(0, "x86_64")],
    [0x48, 0x8b, 0x07, 0xff, 0xa0, 0, 0, 0, 0, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc],
  );
  assert.deepEqual([...stubCode(300, "x86_64").subarray(0, 9)], [
    0x48,
    0x8b,
    0x07,
    0xff,
    0xa0,
    0x60,
    0x09,
    0,
    0,
  ]);
});

Deno.test("aarch64 stub N is ldr x16,[x0]; ldr x16,[x16,#8N]; br x16, with a register offset past 4095", () => {
  const words = (i: number) => {
    const b = stubCode(i, "aarch64");
    return [0, 4, 8, 12].map((o) => new DataView(b.buffer).getUint32(o, true));
  };
  // Encodings cross-checked with llvm-objdump.
  assert.deepEqual(words(0), [0xf9400010, 0xf9400210, 0xd61f0200, 0xd4200000]);
  assert.deepEqual(words(1), [0xf9400010, 0xf9400610, 0xd61f0200, 0xd4200000]); // ldr x16,[x16,#8]
  assert.deepEqual(words(4095), [0xf9400010, 0xf97ffe10, 0xd61f0200, 0xd4200000]); // #32760
  // movz x17,#4096; ldr x16,[x16,x17,lsl #3]
  assert.deepEqual(words(4096), [0xf9400010, 0xd2820011, 0xf8717a10, 0xd61f0200]);
  assert.throws(() => stubCode(0x10000, "aarch64"), RangeError);
});

Deno.test("aarch64 object: e_machine 183, 64 KiB segment alignment, one symbol per stub", () => {
  const { bytes, textAddress } = emitStubObject(["vkA", "vkB"], "aarch64");
  const dv = new DataView(bytes.buffer);
  assert.equal(dv.getUint16(18, true), 183);
  const phnum = dv.getUint16(56, true);
  const loads = Array.from({ length: phnum }, (_, i) => 64 + i * 56)
    .filter((o) => dv.getUint32(o, true) === 1)
    .map((o) => dv.getBigUint64(o + 48, true));
  assert.deepEqual(loads, [0x10000n, 0x10000n]);
  assert.deepEqual([...bytes.subarray(textAddress + STUB_SIZE, textAddress + STUB_SIZE + 4)], [
    0x10,
    0,
    0x40,
    0xf9,
  ]);
});

Deno.test("dispatch table: slots read back, out-of-range slots are refused, live count returns", () => {
  const before = DispatchTable.liveCount;
  const table = new DispatchTable(3);
  assert.equal(DispatchTable.liveCount, before + 1);
  table.set(0, fake(0x1234n));
  table.set(2, 0xffff_0000_0000n);
  assert.equal(address(table.get(0)), 0x1234n);
  assert.equal(table.get(1), null);
  assert.equal(address(table.get(2)), 0xffff_0000_0000n);
  assert.equal(readU64(table.pointer, 16), 0xffff_0000_0000n);
  assert.throws(() => table.set(3, null), /Dispatch slot "3" is out of range 0..2/);
  assert.throws(() => table.get(-1), RangeError);
  table.dispose();
  assert.equal(DispatchTable.liveCount, before);
});

Deno.test("dispatch table: setAll writes every listed slot, the empty function where the address is 0, and nothing when a slot is out of range", () => {
  using table = new DispatchTable(4);
  // Addresses above 32 bits: both halves of each word are copied.
  table.setAll(Uint32Array.of(3, 0, 1), BigUint64Array.of(0x7f12_3456_7890n, 0n, 0x10n), 0xdead_0000_beefn);
  assert.equal(readU64(table.pointer, 24), 0x7f12_3456_7890n);
  assert.equal(readU64(table.pointer, 0), 0xdead_0000_beefn);
  assert.equal(readU64(table.pointer, 8), 0x10n);
  assert.equal(table.get(2), null, "a slot not listed is left alone");
  assert.throws(
    () => table.setAll(Uint32Array.of(1, 4), BigUint64Array.of(0x20n, 0x30n), null),
    /Dispatch slot "4" is out of range 0..3/,
  );
  assert.equal(readU64(table.pointer, 8), 0x10n, "nothing written when a slot is refused");
  assert.throws(() => table.setAll(Uint32Array.of(1), BigUint64Array.of(), null), /1 slots for 0 functions/);
  table.setAll(Uint32Array.of(2), BigUint64Array.of(0n), null);
  assert.equal(table.get(2), null, "a null empty function leaves 0");
});

Deno.test("dispatch table: a disposed table's memory goes to the next table of its size, zeroed, and the disposed one refuses slots", () => {
  const size = 7; // a size no other test uses, so its released memory is this test's own
  const first = new DispatchTable(size);
  first.set(3, 0x1234n);
  const address = first.address;
  first.dispose();
  assert.throws(() => first.set(3, 0x5678n), RangeError);
  assert.throws(() => first.get(3), RangeError);
  using second = new DispatchTable(size);
  assert.equal(second.address, address, "the released memory is taken again");
  assert.equal(second.slots, size);
  for (let i = 0; i < size; i++) assert.equal(second.get(i), null, `slot ${i} is zeroed`);
  using other = new DispatchTable(size + 1);
  assert.notEqual(other.address, address);
});

Deno.test("every stub of an emitted object's text is stubCode of its slot, on both architectures", () => {
  // 77 stubs, 41 named: the text is copied in doubling runs (1, 2, 4, ... 64, then the last 13) and patched.
  const names = COMMANDS.slice(0, 41).map((c) => c.name);
  for (const arch of ["x86_64", "aarch64"] as const) {
    const { bytes, textAddress } = emitStubObject(names, arch, undefined, { stubs: 77 });
    for (let i = 0; i < 77; i++) {
      const at = textAddress + i * STUB_SIZE;
      assert.deepEqual([...bytes.subarray(at, at + STUB_SIZE)], [...stubCode(i, arch)], `${arch} stub ${i}`);
    }
  }
});
