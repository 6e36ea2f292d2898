/**
 * Native memory that TypeScript hands to C: arenas (which keep every buffer alive until disposed), C strings,
 * pointer arrays, raw reads and writes.
 *
 * @module
 */

/**
 * A native pointer as Deno's FFI passes it: a pointer object, or `null` for NULL.
 *
 * @example Usage
 * ```ts
 * import type { Pointer } from "./memory.ts";
 * const none: Pointer = null;
 * ```
 */
export type Pointer = Deno.PointerValue;

import { Scratch } from "./scratch.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

let scratchOf: (arena: Arena) => Scratch;
let keepScratch: (arena: Arena, m: Scratch) => void;

/** The scratch chunk `arena` hands to the generated struct writers (a new one once it is disposed throws). */
export function arenaScratch(arena: Arena): Scratch {
  return scratchOf(arena);
}

/** Makes `m` `arena`'s chunk from now on, and keeps it alive as long as the arena. */
export function arenaKeep(arena: Arena, m: Scratch): void {
  keepScratch(arena, m);
}

/**
 * Owns native memory handed to C. Every buffer stays referenced (and so at a
 * stable, valid address) until {@linkcode Arena.dispose} is called.
 *
 * @example Usage
 * ```ts
 * import { Arena, readCString } from "@vkdeno/loader";
 * using arena = new Arena();
 * const name = arena.cstring("VK_LAYER_KHRONOS_validation");
 * console.log(readCString(name)); // "VK_LAYER_KHRONOS_validation"
 * ```
 */
export class Arena implements Disposable {
  static #live = 0;
  #buffers: Uint8Array[] = [];
  /** The chunk the generated struct writers fill (kept in #buffers once full). */
  #scratch: Scratch | undefined;

  static {
    scratchOf = (arena) => {
      arena.#checkLive();
      return arena.#scratch ??= arena.#keep(new Scratch(4096));
    };
    keepScratch = (arena, m) => {
      arena.#scratch = arena.#keep(m);
    };
  }

  #keep(m: Scratch): Scratch {
    this.#buffers.push(m.u8);
    return m;
  }
  #disposed = false;

  constructor() {
    Arena.#live++;
  }

  /** How many arenas are alive (created and not yet disposed): leak tests expect it back at its start value. */
  static get liveCount(): number {
    return Arena.#live;
  }

  /** Bytes handed out so far, including alignment padding. */
  get byteLength(): number {
    let n = 0;
    for (const b of this.#buffers) n += b.buffer.byteLength;
    return n;
  }

  /** True once {@linkcode Arena.dispose} ran. */
  get disposed(): boolean {
    return this.#disposed;
  }

  /**
   * Allocates `size` zeroed bytes whose address is a multiple of `align`.
   *
   * @example Allocate a struct
   * ```ts
   * import { Arena } from "@vkdeno/loader";
   * using arena = new Arena();
   * const info = arena.alloc(64);
   * new DataView(info.buffer, info.byteOffset).setUint32(0, 1, true);
   * ```
   * @throws {RangeError} If `align` is not a power of two or `size` is negative.
   */
  alloc(size: number, align?: number): Uint8Array {
    align ??= 8;
    this.#checkLive();
    if (!Number.isInteger(size) || size < 0) throw new RangeError(`Invalid allocation size "${size}"`);
    if (!Number.isInteger(align) || align <= 0 || (align & (align - 1)) !== 0) {
      throw new RangeError(`Invalid alignment "${align}": must be a power of two`);
    }
    // Zero-length buffers have no address, and C may still be given the pointer.
    // An explicit ArrayBuffer is always off the V8 heap, so the garbage
    // collector never moves it (small typed arrays may start on the heap).
    const raw = new Uint8Array(new ArrayBuffer(Math.max(size, 1) + align - 1));
    const base = Deno.UnsafePointer.value(Deno.UnsafePointer.of(raw));
    const skew = Number(BigInt(base) % BigInt(align));
    const pad = skew === 0 ? 0 : align - skew;
    this.#buffers.push(raw);
    return raw.subarray(pad, pad + size);
  }

  /**
   * The address of a buffer (normally one from {@linkcode Arena.alloc}).
   *
   * @example Usage
   * ```ts
   * import { Arena } from "@vkdeno/loader";
   * using arena = new Arena();
   * const p = arena.pointer(arena.alloc(16));
   * ```
   * @throws {TypeError} If the buffer has no address (zero length).
   */
  pointer(buf: Uint8Array | ArrayBufferView): Deno.PointerObject {
    const view = buf.byteLength === 0 ? new Uint8Array(buf.buffer, buf.byteOffset, 1) : buf;
    const p = Deno.UnsafePointer.of(view as Uint8Array<ArrayBuffer>);
    if (p === null) throw new TypeError("Cannot take the address of an empty buffer");
    return p;
  }

  /**
   * Copies `buf` into the arena and returns its address.
   *
   * @example Usage
   * ```ts
   * import { Arena } from "@vkdeno/loader";
   * using arena = new Arena();
   * const p = arena.copy(new Uint32Array([1, 2, 3]));
   * ```
   */
  copy(buf: ArrayBufferView, align?: number): Deno.PointerObject {
    align ??= 8;
    const dst = this.alloc(buf.byteLength, align);
    dst.set(new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength));
    return this.pointer(dst);
  }

  /**
   * A NUL-terminated UTF-8 copy of `s` (a `const char*`).
   *
   * @example Usage
   * ```ts
   * import { Arena } from "@vkdeno/loader";
   * using arena = new Arena();
   * const p = arena.cstring("vkCreateInstance");
   * ```
   * @throws {TypeError} If `s` contains a NUL character.
   */
  cstring(s: string): Deno.PointerObject {
    if (s.includes("\0")) {
      throw new TypeError(`Cannot pass "${s.replaceAll("\0", "\\0")}" as a C string: it contains NUL`);
    }
    const bytes = encoder.encode(s);
    const buf = this.alloc(bytes.length + 1, 1);
    buf.set(bytes);
    return this.pointer(buf);
  }

  /**
   * A `const char* const*` array of C strings; `null` for an empty list (as
   * Vulkan accepts for a zero count).
   *
   * @example Usage
   * ```ts
   * import { Arena } from "@vkdeno/loader";
   * using arena = new Arena();
   * const names = arena.cstringArray(["VK_KHR_surface", "VK_KHR_xcb_surface"]);
   * ```
   */
  cstringArray(list: readonly string[]): Deno.PointerValue {
    if (list.length === 0) return null;
    return this.pointerArray(list.map((s) => this.cstring(s)));
  }

  /**
   * An array of pointers (`void* const*`); `null` entries are written as 0.
   *
   * @example Usage
   * ```ts
   * import { Arena } from "@vkdeno/loader";
   * using arena = new Arena();
   * const list = arena.pointerArray([arena.cstring("a"), null]);
   * ```
   */
  pointerArray(list: readonly Deno.PointerValue[]): Deno.PointerObject {
    const buf = this.alloc(list.length * 8, 8);
    const words = new BigUint64Array(buf.buffer, buf.byteOffset, list.length);
    list.forEach((p, i) => words[i] = BigInt(Deno.UnsafePointer.value(p)));
    return this.pointer(buf);
  }

  /**
   * Drops every buffer: C must not read them any more.
   *
   * @example Usage
   * ```ts
   * import { Arena } from "@vkdeno/loader";
   * const arena = new Arena();
   * arena.cstring("x");
   * arena.dispose();
   * ```
   */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#buffers = [];
    this.#scratch = undefined;
    Arena.#live--;
  }

  /** Same as {@linkcode Arena.dispose}, for `using`. */
  [Symbol.dispose](): void {
    this.dispose();
  }

  #checkLive(): void {
    if (this.#disposed) throw new TypeError("Cannot allocate from a disposed arena");
  }
}

/**
 * The numeric address of a pointer (0n for null).
 *
 * @example Usage
 * ```ts
 * import { address } from "./memory.ts";
 * console.log(address(null)); // 0n
 * ```
 */
export function address(ptr: Deno.PointerValue): bigint {
  return BigInt(Deno.UnsafePointer.value(ptr));
}

/**
 * The pointer at a numeric address (`null` for 0).
 *
 * @example Usage
 * ```ts
 * import { pointerFromAddress } from "./memory.ts";
 * console.log(pointerFromAddress(0n)); // null
 * ```
 */
export function pointerFromAddress(a: bigint | number): Deno.PointerValue {
  return Deno.UnsafePointer.create(BigInt(a));
}

function nonNull(ptr: Deno.PointerValue, what: string): Deno.PointerObject {
  if (ptr === null) throw new TypeError(`Cannot ${what} through a null pointer`);
  return ptr;
}

/**
 * Reads a NUL-terminated UTF-8 string, reading at most `maxBytes` bytes
 * (for fixed-size char arrays such as `layerName[256]`). `null` reads as "".
 *
 * @example Usage
 * ```ts
 * import { Arena, readCString } from "@vkdeno/loader";
 * using arena = new Arena();
 * console.log(readCString(arena.cstring("abc"), 2)); // "ab"
 * ```
 */
export function readCString(ptr: Deno.PointerValue, maxBytes?: number): string {
  if (ptr === null) return "";
  if (maxBytes === undefined) return Deno.UnsafePointerView.getCString(ptr);
  const bytes = new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(ptr, maxBytes));
  const end = bytes.indexOf(0);
  return decoder.decode(end < 0 ? bytes : bytes.subarray(0, end));
}

/**
 * A writable view of `length` native bytes at `ptr + offset`. The view does
 * not own the memory: it must not outlive it.
 *
 * @example Usage
 * ```ts
 * import { Arena, nativeBytes } from "./memory.ts";
 * using arena = new Arena();
 * const p = arena.pointer(arena.alloc(4));
 * nativeBytes(p, 4)[0] = 7;
 * ```
 */
export function nativeBytes(ptr: Deno.PointerValue, length: number, offset = 0): Uint8Array {
  if (length === 0) return new Uint8Array(0);
  return new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(nonNull(ptr, "access memory"), length, offset));
}

function view(ptr: Deno.PointerValue, offset: number, size: number): DataView {
  return new DataView(Deno.UnsafePointerView.getArrayBuffer(nonNull(ptr, "access memory"), size, offset));
}

/**
 * Reads the pointer stored at `ptr + offset`.
 *
 * @example Usage
 * ```ts
 * import { Arena, readPointer } from "@vkdeno/loader";
 * using arena = new Arena();
 * const list = arena.pointerArray([null]);
 * console.log(readPointer(list, 0)); // null
 * ```
 */
export function readPointer(ptr: Deno.PointerValue, offset?: number): Deno.PointerValue {
  offset ??= 0;
  return new Deno.UnsafePointerView(nonNull(ptr, "read a pointer")).getPointer(offset);
}

/**
 * Writes a pointer at `ptr + offset`.
 *
 * @example Usage
 * ```ts
 * import { Arena, readPointer, writePointer } from "./memory.ts";
 * using arena = new Arena();
 * const slot = arena.pointer(arena.alloc(8));
 * writePointer(slot, 0, slot);
 * ```
 */
export function writePointer(ptr: Deno.PointerValue, offset: number, value: Deno.PointerValue): void {
  view(ptr, offset, 8).setBigUint64(0, address(value), true);
}

/**
 * Reads a `uint32_t` at `ptr + offset`.
 *
 * @example Usage
 * ```ts
 * import { Arena, readU32 } from "./memory.ts";
 * using arena = new Arena();
 * console.log(readU32(arena.copy(new Uint32Array([5])), 0)); // 5
 * ```
 */
export function readU32(ptr: Deno.PointerValue, offset = 0): number {
  return new Deno.UnsafePointerView(nonNull(ptr, "read")).getUint32(offset);
}

/**
 * Writes a `uint32_t` at `ptr + offset`.
 *
 * @example Usage
 * ```ts
 * import { Arena, writeU32 } from "./memory.ts";
 * using arena = new Arena();
 * writeU32(arena.pointer(arena.alloc(4)), 0, 5);
 * ```
 */
export function writeU32(ptr: Deno.PointerValue, offset: number, value: number): void {
  view(ptr, offset, 4).setUint32(0, value, true);
}

/**
 * Writes an `int32_t` at `ptr + offset` (a `VkResult`, for example).
 *
 * @example Usage
 * ```ts
 * import { Arena, writeI32 } from "./memory.ts";
 * using arena = new Arena();
 * writeI32(arena.pointer(arena.alloc(4)), 0, -7);
 * ```
 */
export function writeI32(ptr: Deno.PointerValue, offset: number, value: number): void {
  view(ptr, offset, 4).setInt32(0, value, true);
}

/**
 * Reads a `uint64_t` at `ptr + offset`.
 *
 * @example Usage
 * ```ts
 * import { Arena, readU64 } from "./memory.ts";
 * using arena = new Arena();
 * console.log(readU64(arena.copy(new BigUint64Array([5n])), 0)); // 5n
 * ```
 */
export function readU64(ptr: Deno.PointerValue, offset = 0): bigint {
  return new Deno.UnsafePointerView(nonNull(ptr, "read")).getBigUint64(offset);
}

/**
 * Writes a `uint64_t` at `ptr + offset`.
 *
 * @example Usage
 * ```ts
 * import { Arena, writeU64 } from "./memory.ts";
 * using arena = new Arena();
 * writeU64(arena.pointer(arena.alloc(8)), 0, 5n);
 * ```
 */
export function writeU64(ptr: Deno.PointerValue, offset: number, value: bigint): void {
  view(ptr, offset, 8).setBigUint64(0, value, true);
}

/**
 * True for anything that holds bytes: an `ArrayBuffer` or any view of one.
 *
 * @example Usage
 * ```ts
 * import { isBytes } from "./memory.ts";
 * console.log(isBytes(new Float32Array(2)), isBytes([1, 2])); // true false
 * ```
 */
export function isBytes(x: unknown): x is ArrayBufferView | ArrayBuffer {
  return ArrayBuffer.isView(x) || x instanceof ArrayBuffer;
}

/**
 * The bytes of an `ArrayBuffer` or a view, as a `Uint8Array` over the same memory (no copy).
 *
 * @example Usage
 * ```ts
 * import { bytesOf } from "./memory.ts";
 * console.log(bytesOf(new Uint32Array([1])).length); // 4
 * ```
 */
export function bytesOf(x: ArrayBufferView | ArrayBuffer): Uint8Array {
  return x instanceof Uint8Array
    ? x
    : x instanceof ArrayBuffer
    ? new Uint8Array(x)
    : new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
}
