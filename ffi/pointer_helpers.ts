/**
 * Pointer objects made by two native helpers in an emitted object of their own: an address plus an offset,
 * and the pointer stored at an address plus an offset; a third reads a `uint32_t` there. A fast FFI call that
 * returns a pointer costs ~20 ns; Deno's `UnsafePointer.offset`, `UnsafePointer.create` and
 * `UnsafePointerView.getPointer` cost 80-280 ns, and its `getUint32` (which checks a permission) ~50 ns.
 *
 * @module
 */

import { emitStubObject, type StubArch } from "./elf.ts";
import { EmittedObject } from "./emitted_object.ts";
import { elfStubArch } from "./host.ts";

/**
 * The helpers' C shapes: `void* at(void* base, uint32_t offset)`, `void* load(void* base, uint32_t offset)`,
 * `uint32_t load32(void* base, uint32_t offset)`.
 */
const DEFS = {
  vkdeno_pointer_at: { parameters: ["pointer", "u32"], result: "pointer" },
  vkdeno_pointer_load: { parameters: ["pointer", "u32"], result: "pointer" },
  vkdeno_pointer_load32: { parameters: ["pointer", "u32"], result: "u32" },
} as const satisfies Deno.ForeignLibraryInterface;

/** Their machine code, in the order of {@linkcode DEFS}. */
const CODE: Readonly<Record<StubArch, readonly (readonly number[])[]>> = {
  x86_64: [
    [0x89, 0xf0, 0x48, 0x01, 0xf8, 0xc3], // mov eax,esi; add rax,rdi; ret
    [0x89, 0xf0, 0x48, 0x8b, 0x04, 0x07, 0xc3], // mov eax,esi; mov rax,[rdi+rax]; ret
    [0x89, 0xf0, 0x8b, 0x04, 0x07, 0xc3], // mov eax,esi; mov eax,[rdi+rax]; ret
  ],
  aarch64: [
    [0x00, 0x40, 0x21, 0x8b, 0xc0, 0x03, 0x5f, 0xd6], // add x0, x0, w1, uxtw; ret
    [0x00, 0x48, 0x61, 0xf8, 0xc0, 0x03, 0x5f, 0xd6], // ldr x0, [x0, w1, uxtw]; ret
    [0x00, 0x48, 0x61, 0xb8, 0xc0, 0x03, 0x5f, 0xd6], // ldr w0, [x0, w1, uxtw]; ret
  ],
};

interface Helpers {
  at(base: Deno.PointerObject, offset: number): Deno.PointerValue;
  load(base: Deno.PointerObject, offset: number): Deno.PointerValue;
  load32(base: Deno.PointerObject, offset: number): number;
}

/** Deno's own calls, where no object can be emitted (Windows, macOS) or loading it failed. */
const FALLBACK: Helpers = {
  at: (base, offset) => Deno.UnsafePointer.offset(base, offset),
  load: (base, offset) => new Deno.UnsafePointerView(base).getPointer(offset),
  load32: (base, offset) => new Deno.UnsafePointerView(base).getUint32(offset),
};

let helpers: Helpers | undefined;

/** Emits and loads the helpers' object once per isolate (kept for the life of the process). */
function bind(): Helpers {
  const arch = elfStubArch();
  if (arch === undefined) return FALLBACK;
  try {
    const names = Object.keys(DEFS);
    const { bytes } = emitStubObject(names, arch, (out, at, i) => out.set(CODE[arch][i]!, at));
    const object = EmittedObject.open(bytes, { name: "vkdeno-pointers", permanent: true });
    const { symbols } = Deno.dlopen(object.path, DEFS);
    return {
      at: symbols.vkdeno_pointer_at,
      load: symbols.vkdeno_pointer_load,
      load32: symbols.vkdeno_pointer_load32,
    };
  } catch {
    return FALLBACK;
  }
}

/**
 * `base + offset` as a pointer object (`offset` below 2^32).
 *
 * @example Usage
 * ```ts
 * import { pointerAt } from "./pointer_helpers.ts";
 * const base = Deno.UnsafePointer.of(new Uint8Array(64))!;
 * console.log(Deno.UnsafePointer.value(pointerAt(base, 16)) - Deno.UnsafePointer.value(base)); // 16n
 * ```
 */
export function pointerAt(base: Deno.PointerObject, offset: number): Deno.PointerObject {
  return (helpers ??= bind()).at(base, offset)!;
}

/**
 * The pointer stored at `base + offset` (8-aligned, `offset` below 2^32): a pointer object, or null for 0.
 *
 * @example Usage
 * ```ts
 * import { loadPointer } from "./pointer_helpers.ts";
 * const words = new BigUint64Array([0n, 0x1000n]);
 * const base = Deno.UnsafePointer.of(words)!;
 * console.log(loadPointer(base, 0), Deno.UnsafePointer.value(loadPointer(base, 8))); // null 4096n
 * ```
 */
export function loadPointer(base: Deno.PointerObject, offset: number): Deno.PointerValue {
  return (helpers ??= bind()).load(base, offset);
}

/**
 * The `uint32_t` stored at `base + offset` (4-aligned, `offset` below 2^32).
 *
 * @example Usage
 * ```ts
 * import { loadU32 } from "./pointer_helpers.ts";
 * const base = Deno.UnsafePointer.of(new Uint32Array([7, 0xffffffff]))!;
 * console.log(loadU32(base, 0), loadU32(base, 4)); // 7 4294967295
 * ```
 */
export function loadU32(base: Deno.PointerObject, offset: number): number {
  return (helpers ??= bind()).load32(base, offset);
}
