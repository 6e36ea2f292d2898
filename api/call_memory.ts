/**
 * The native memory one idiomatic call hands to C: a reused 64 KiB scratch buffer, reset at the start of
 * each call, with the call's fixed-size outputs at fixed offsets from its start (so reading a returned
 * handle allocates nothing). Calls made while one is running (from a callback) get a scratch of their own.
 *
 * @module
 */
import type { StructMemory } from "../vk/_struct_writer.ts";

const encoder = new TextEncoder();
const SIZE = 1 << 16;

/**
 * A bump allocator over one off-heap buffer, reset per call; what does not fit goes to buffers of its own,
 * kept until the next reset. Implements the allocator the struct writer takes.
 *
 * @example Usage
 * ```ts
 * import { CallMemory } from "./call_memory.ts";
 * const m = new CallMemory();
 * m.reset(8);
 * const p = m.cstring("main");
 * console.log(Deno.UnsafePointerView.getCString(p)); // "main"
 * ```
 */
export class CallMemory implements StructMemory {
  /** The scratch buffer's bytes. */
  readonly u8: Uint8Array<ArrayBuffer>;
  /** A view of the whole scratch buffer. */
  readonly view: DataView<ArrayBuffer>;
  #base: Deno.PointerObject;
  /** The base address modulo 64, so alignment needs no bigint arithmetic. */
  #skew: number;
  #top = 0;
  #extra: Uint8Array[] = [];
  #at: Deno.PointerObject[] = [];

  constructor() {
    this.u8 = new Uint8Array(new ArrayBuffer(SIZE));
    this.view = new DataView(this.u8.buffer);
    const base = Deno.UnsafePointer.of(this.u8);
    if (base === null) throw new TypeError("Cannot take the address of the call scratch buffer");
    this.#base = base;
    this.#skew = Number(BigInt(Deno.UnsafePointer.value(base)) % 64n);
  }

  /**
   * Starts a call: the first `reserved` bytes (its outputs) are zeroed, allocations follow them.
   *
   * @example Usage
   * ```ts
   * import { CallMemory } from "./call_memory.ts";
   * new CallMemory().reset(16);
   * ```
   */
  reset(reserved: number): void {
    if (this.#extra.length) this.#extra = [];
    this.u8.fill(0, 0, reserved);
    this.#top = reserved;
  }

  /**
   * The address `offset` bytes into the scratch buffer (a multiple of 8; cached, so no allocation).
   *
   * @example Usage
   * ```ts
   * import { CallMemory } from "./call_memory.ts";
   * console.log(new CallMemory().at(8) !== null); // true
   * ```
   */
  at(offset: number): Deno.PointerObject {
    return this.#at[offset >> 3] ??= offset === 0
      ? this.#base
      : Deno.UnsafePointer.offset(this.#base, offset) ?? this.#base;
  }

  /**
   * `size` zeroed bytes aligned to `align` (at most 64; scratch allocations are 8-aligned at least, so
   * their addresses come from {@linkcode CallMemory.at}'s cache).
   *
   * @example Usage
   * ```ts
   * import { CallMemory } from "./call_memory.ts";
   * console.log(new CallMemory().alloc(12, 4).byteLength); // 12
   * ```
   */
  alloc(size: number, align = 8): Uint8Array {
    const off = this.take(size, align);
    if (off >= 0) return this.u8.subarray(off, off + size);
    const raw = new Uint8Array(new ArrayBuffer(Math.max(size, 1) + align - 1));
    const skew = Number(BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(raw))) % BigInt(align));
    const pad = skew === 0 ? 0 : align - skew;
    this.#extra.push(raw);
    return raw.subarray(pad, pad + size);
  }

  /**
   * `size` zeroed bytes of the scratch buffer itself: their offset in {@linkcode CallMemory.view}, or -1
   * when they do not fit (then use {@linkcode CallMemory.alloc}).
   *
   * @example Usage
   * ```ts
   * import { CallMemory } from "./call_memory.ts";
   * const m = new CallMemory();
   * m.reset(0);
   * console.log(m.take(4)); // 0
   * ```
   */
  take(size: number, align = 8): number {
    const a = align < 8 ? 8 : align;
    const off = this.#top + ((-(this.#skew + this.#top)) & (a - 1));
    if (off + size > SIZE) return -1;
    this.#top = off + size;
    this.u8.fill(0, off, off + size);
    return off;
  }

  /**
   * The address of a buffer from {@linkcode CallMemory.alloc}.
   *
   * @example Usage
   * ```ts
   * import { CallMemory } from "./call_memory.ts";
   * const m = new CallMemory();
   * console.log(m.pointer(m.alloc(8)) !== null); // true
   * ```
   */
  pointer(buf: Uint8Array | ArrayBufferView): Deno.PointerObject {
    if (buf.buffer === this.u8.buffer && (buf.byteOffset & 7) === 0) return this.at(buf.byteOffset);
    const view = buf.byteLength === 0 ? new Uint8Array(buf.buffer, buf.byteOffset, 1) : buf;
    const p = Deno.UnsafePointer.of(view as Uint8Array<ArrayBuffer>);
    if (p === null) throw new TypeError("Cannot take the address of an empty buffer");
    return p;
  }

  /**
   * Copies `buf` into the scratch and returns its address.
   *
   * @example Usage
   * ```ts
   * import { CallMemory } from "./call_memory.ts";
   * new CallMemory().copy(new Uint32Array([1, 2]));
   * ```
   */
  copy(buf: ArrayBufferView, align = 8): Deno.PointerObject {
    const dst = this.alloc(buf.byteLength, align);
    dst.set(new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength));
    return this.pointer(dst);
  }

  /**
   * A NUL-terminated UTF-8 copy of `s`.
   *
   * @example Usage
   * ```ts
   * import { CallMemory } from "./call_memory.ts";
   * new CallMemory().cstring("main");
   * ```
   * @throws {TypeError} If `s` contains a NUL character.
   */
  cstring(s: string): Deno.PointerObject {
    if (s.includes("\0")) {
      throw new TypeError(`Cannot pass "${s.replaceAll("\0", "\\0")}" as a C string: it contains NUL`);
    }
    const buf = this.alloc(s.length * 3 + 1, 1);
    const { written } = encoder.encodeInto(s, buf);
    buf[written] = 0;
    return this.pointer(buf);
  }

  /**
   * A `const char* const*` array (null for an empty list).
   *
   * @example Usage
   * ```ts
   * import { CallMemory } from "./call_memory.ts";
   * new CallMemory().cstringArray(["VK_KHR_surface"]);
   * ```
   */
  cstringArray(list: readonly string[]): Deno.PointerValue {
    if (list.length === 0) return null;
    return this.pointerArray(list.map((s) => this.cstring(s)));
  }

  /**
   * An array of pointers; `null` entries are written as 0.
   *
   * @example Usage
   * ```ts
   * import { CallMemory } from "./call_memory.ts";
   * new CallMemory().pointerArray([null]);
   * ```
   */
  pointerArray(list: readonly Deno.PointerValue[]): Deno.PointerObject {
    const buf = this.alloc(list.length * 8, 8);
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    for (let i = 0; i < list.length; i++) {
      const p = list[i]!;
      if (p !== null) view.setBigUint64(i * 8, BigInt(Deno.UnsafePointer.value(p)), true);
    }
    return this.pointer(buf);
  }
}
