/** Library: dlopen errors name the path and dlerror text; missing symbols are null. */

import assert from "node:assert/strict";
import { join } from "node:path";
import { buildTestLibrary } from "../support/c_build.ts";
import { fnFromPointer, Library } from "../../ffi/library.ts";

Deno.test("a missing library file names the path and the dlerror text", () => {
  const path = "/nonexistent/vkdeno/libmissing.so";
  assert.throws(
    () => Library.open(path),
    (e: unknown) =>
      e instanceof Error &&
      e.message ===
        `Cannot load library "${path}": ${path}: cannot open shared object file: No such file or directory`,
  );
});

Deno.test("a file that is not a shared object names the path and the dlerror text", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "libjunk.so");
    await Deno.writeTextFile(path, "not an ELF file");
    assert.throws(
      () => Library.open(path),
      new RegExp(`^Error: Cannot load library "${path}": .*${path}: .+`),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a missing symbol gives null, a present one its address", async () => {
  using lib = Library.open(await buildTestLibrary("stub_target"));
  assert.equal(lib.symbolAddress("vkNoSuchSymbol"), null);
  assert.equal(lib.fn("vkNoSuchSymbol", { parameters: [], result: "void" }), null);
  assert.notEqual(lib.symbolAddress("vkGetDeviceQueue"), null);
});

Deno.test("fn calls the symbol and is cached per name", () => {
  using libc = Library.open("libc.so.6");
  const def = { parameters: [], result: "i32" } as const;
  const getpid = libc.fn("getpid", def)!;
  assert.equal(getpid.call(), Deno.pid);
  assert.equal(libc.fn("getpid", def), getpid);
  assert.equal(fnFromPointer(libc.symbolAddress("getpid"), def).call(), Deno.pid);
  assert.throws(() => fnFromPointer(null, def), /Cannot call a null function pointer/);
});

Deno.test("close is idempotent, counted, and later lookups name the library", () => {
  const before = Library.liveCount;
  const lib = Library.open("libm.so.6");
  assert.equal(lib.path, "libm.so.6");
  assert.equal(Library.liveCount, before + 1);
  lib.close();
  lib.close();
  assert.equal(Library.liveCount, before);
  assert.ok(lib.closed);
  assert.throws(() => lib.symbolAddress("cos"), /Cannot look up "cos": library "libm.so.6" is closed/);
});

Deno.test("noDelete keeps a closed library mapped", async () => {
  const path = await buildTestLibrary("stub_target");
  const lib = Library.open(path, { noDelete: true });
  const fnptr = lib.symbolAddress("stub_last_call");
  lib.close();
  // Still mapped: the function can be called through its old address.
  const call = fnFromPointer(fnptr, { parameters: [], result: "pointer" });
  assert.notEqual(call.call(), null);
});
