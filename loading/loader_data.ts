/**
 * A native `vkSetInstanceLoaderData` / `vkSetDeviceLoaderData` (docs/behaviour.md LI05): machine code, so
 * layers may call it from any thread.
 *
 * @example Usage
 * ```ts
 * import { nativeSetLoaderData } from "./loader_data.ts";
 * const fn = nativeSetLoaderData();
 * console.log(fn === null || Deno.UnsafePointer.value(fn) !== 0n); // true
 * ```
 *
 * @module
 */

import { emitStubObject, STUB_SIZE } from "../ffi/elf.ts";
import { EmittedObject } from "../ffi/emitted_object.ts";
import { hasX86_64Helpers } from "../ffi/host.ts";
import { emitterIdentity } from "../ffi/dispatch.ts";
import { cachedBytes, codeIdentity } from "../ffi/persistent_cache.ts";

const SYMBOL = "vkdeno_set_loader_data";

/**
 * `test rdi,rdi; jz fail; test rsi,rsi; jz fail; mov rax,[rdi]; mov [rsi],rax;
 * xor eax,eax; ret; fail: mov eax,-3; ret` (25 bytes: two stub slots).
 */
const X86_64_CODE = new Uint8Array([
  0x48,
  0x85,
  0xff,
  0x74,
  0x0e,
  0x48,
  0x85,
  0xf6,
  0x74,
  0x09,
  0x48,
  0x8b,
  0x07,
  0x48,
  0x89,
  0x06,
  0x31,
  0xc0,
  0xc3,
  0xb8,
  0xfd,
  0xff,
  0xff,
  0xff,
  0xc3,
]);

let loaded: { fn: Deno.PointerValue; keep: unknown } | undefined;

/**
 * The native function's address, loaded on first use; null where it cannot
 * be made (not x86-64 Linux, or loading failed).
 *
 * @example Usage
 * ```ts
 * import { nativeSetLoaderData } from "./loader_data.ts";
 * console.log(nativeSetLoaderData() === nativeSetLoaderData()); // true
 * ```
 */
export function nativeSetLoaderData(): Deno.PointerValue {
  if (loaded) return loaded.fn;
  loaded = { fn: null, keep: undefined };
  if (!hasX86_64Helpers()) return null;
  try {
    // Kept in the persistent cache: the emitter's first run cost a first instance ~1 ms of CPU, where the
    // two stub objects come from the cache (docs/performance.md).
    const key = `${emitterIdentity()}${codeIdentity([new URL(import.meta.url)])}`;
    const bytes = cachedBytes("stubs-loader-data-x86_64", key, () => {
      const { bytes, textAddress } = emitStubObject([SYMBOL, `${SYMBOL}_tail`], "x86_64");
      if (X86_64_CODE.length > 2 * STUB_SIZE) throw new RangeError("set-loader-data code does not fit");
      bytes.fill(0xcc, textAddress, textAddress + 2 * STUB_SIZE);
      bytes.set(X86_64_CODE, textAddress);
      return bytes;
    });
    // Never closed: layers may keep the pointer.
    const object = EmittedObject.open(bytes, { name: "vkdeno-loader-data", permanent: true });
    const fn = object.library.symbolAddress(SYMBOL);
    loaded = { fn, keep: object };
    return fn;
  } catch {
    return null;
  }
}
