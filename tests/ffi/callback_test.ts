/** Callback owners: throws become error values for C, callbacks live until dispose. */

import assert from "node:assert/strict";
import { buildTestLibrary } from "../support/c_build.ts";
import { CallbackOwner } from "../../ffi/callback.ts";
import { Library } from "../../ffi/library.ts";
import { address, Arena, readCString } from "../../ffi/memory.ts";

const VK_ERROR_INITIALIZATION_FAILED = -3;
const lib = Library.open(await buildTestLibrary("stub_target"));
const callResult = lib.fn("stub_call_result_callback", {
  parameters: ["function", "pointer", "u32"],
  result: "i32",
})!;
const callPointer = lib.fn("stub_call_pointer_callback", {
  parameters: ["function", "pointer", "pointer"],
  result: "pointer",
})!;
const RESULT_DEF = { parameters: ["pointer", "u32"], result: "i32" } as const;

Deno.test("a callback that throws returns its error code to the C caller", () => {
  const reports: string[] = [];
  using callbacks = new CallbackOwner({ report: (m) => reports.push(m) });
  const cb = callbacks.create(RESULT_DEF, (_handle, value) => {
    if (value === 13) throw new Error("unlucky");
    return value * 2;
  }, { name: "terminator vkTest", onError: VK_ERROR_INITIALIZATION_FAILED });
  assert.equal(callResult.call(cb.pointer, null, 21), 42);
  assert.equal(callResult.call(cb.pointer, null, 13), VK_ERROR_INITIALIZATION_FAILED);
  assert.deepEqual(reports, ['Callback "terminator vkTest" threw: unlucky; returning -3 to C']);
});

Deno.test("a pointer callback that throws returns NULL to C", () => {
  using arena = new Arena();
  using callbacks = new CallbackOwner({ report: () => {} });
  const cb = callbacks.create({ parameters: ["pointer", "pointer"], result: "pointer" }, (_h, name) => {
    if (readCString(name) === "bad") throw new TypeError("bad name");
    return name;
  }, { name: "vkGetInstanceProcAddr" });
  const good = arena.cstring("good");
  assert.equal(address(callPointer.call(cb.pointer, null, good)), address(good));
  assert.equal(callPointer.call(cb.pointer, null, arena.cstring("bad")), null);
});

Deno.test("callbacks stay open until their owner is disposed; the live count returns to its start", () => {
  const before = CallbackOwner.liveCount;
  const callbacks = new CallbackOwner();
  for (let i = 0; i < 3; i++) {
    const cb = callbacks.create(RESULT_DEF, (_h, v) => v + i, { name: `cb${i}`, onError: -1 });
    assert.equal(callResult.call(cb.pointer, null, 1), 1 + i);
  }
  assert.equal(callbacks.size, 3);
  assert.equal(CallbackOwner.liveCount, before + 3);
  callbacks.dispose();
  assert.equal(callbacks.size, 0);
  assert.equal(CallbackOwner.liveCount, before);
  assert.throws(
    () => callbacks.create(RESULT_DEF, () => 0, { name: "late", onError: -1 }),
    /Cannot create callback "late": its owner is disposed/,
  );
});

Deno.test("a numeric callback without an error value is refused (a throw would read as VK_SUCCESS)", () => {
  using callbacks = new CallbackOwner();
  assert.throws(
    () => callbacks.create(RESULT_DEF, () => 0, { name: "vkNoErrorValue" }),
    /Cannot create callback "vkNoErrorValue": result "i32" needs an onError value/,
  );
  assert.equal(callbacks.size, 0);
});

Deno.test("a void callback that throws is reported and returns", () => {
  const reports: string[] = [];
  using callbacks = new CallbackOwner({ report: (m) => reports.push(m) });
  const cb = callbacks.create({ parameters: [], result: "void" }, () => {
    throw new Error("boom");
  }, { name: "vkDestroyThing" });
  assert.equal(cb.callback(), undefined);
  assert.deepEqual(reports, ['Callback "vkDestroyThing" threw: boom; returning nothing to C']);
});

Deno.test("a released callback is reused by the next owner asking for its signature: the new body runs, the old one never again", () => {
  const first = new CallbackOwner();
  let oldCalls = 0;
  const old = first.create(RESULT_DEF, (_h, v) => {
    oldCalls++;
    return v + 1;
  }, { name: "old", onError: -7 });
  assert.equal(callResult.call(old.pointer, null, 1), 2);
  first.dispose();
  // Called after its owner is gone (a C caller's mistake): the error value, without running the old body.
  assert.equal(callResult.call(old.pointer, null, 1), -7);
  assert.equal(oldCalls, 1);
  const reports: string[] = [];
  using second = new CallbackOwner({ report: (m) => reports.push(m) });
  const reused = second.create(RESULT_DEF, (_h, v) => {
    if (v === 0) throw new Error("zero");
    return v * 10;
  }, { name: "new", onError: -3 });
  assert.equal(address(reused.pointer), address(old.pointer), "the released callback is taken again");
  assert.equal(callResult.call(reused.pointer, null, 4), 40);
  // A throw is still contained, and reported by the owner that holds the callback now.
  assert.equal(callResult.call(reused.pointer, null, 0), -3);
  assert.deepEqual(reports, ['Callback "new" threw: zero; returning -3 to C']);
  assert.equal(oldCalls, 1);
  // Another signature gets a callback of its own.
  const pointerCb = second.create({ parameters: ["pointer", "pointer"], result: "pointer" }, (_h, p) => p, {
    name: "pointer",
  });
  assert.notEqual(address(pointerCb.pointer), address(old.pointer));
});
