/**
 * The memory the generated struct writers and readers (`generated/struct_*.js`) work on: one off-heap buffer
 * with a typed-array view per element type and its base address as a number, taken once, and a bump
 * allocator.
 *
 * @module
 */
import { loadPointer, pointerAt } from "./pointer_helpers.ts";

const encoder = new TextEncoder();
const CACHED = 4096;

/**
 * Thrown by {@linkcode Scratch.alloc} when the buffer is full: the caller that began the write
 * ({@linkcode writeInto}) starts again on a larger scratch.
 */
export const FULL: Error = new RangeError("The struct scratch memory is full");

/**
 * One off-heap buffer seen through a view per element type, its address taken once, allocated by bumping
 * {@linkcode Scratch.top}. Offsets are bytes from the start; a generated writer indexes the view of a
 * member's type with the offset shifted by the element size (members are naturally aligned).
 *
 * @example Usage
 * ```ts
 * import { Scratch } from "./scratch.ts";
 * const m = new Scratch(256);
 * const at = m.alloc(8, 8);
 * m.u32[at >> 2] = 7;
 * console.log(new Deno.UnsafePointerView(m.at(at)).getUint32()); // 7
 * ```
 */
export class Scratch {
  readonly u8: Uint8Array<ArrayBuffer>;
  readonly i8: Int8Array<ArrayBuffer>;
  readonly u16: Uint16Array<ArrayBuffer>;
  readonly i16: Int16Array<ArrayBuffer>;
  readonly u32: Uint32Array<ArrayBuffer>;
  readonly i32: Int32Array<ArrayBuffer>;
  readonly f32: Float32Array<ArrayBuffer>;
  readonly f64: Float64Array<ArrayBuffer>;
  readonly u64: BigUint64Array<ArrayBuffer>;
  readonly i64: BigInt64Array<ArrayBuffer>;
  /** The address of byte 0, as a number (user-space addresses fit in 53 bits). */
  readonly base: number;
  /** The first free byte. */
  top = 0;
  readonly size: number;
  readonly #pointer: Deno.PointerObject;
  #at: (Deno.PointerObject | undefined)[] = [];
  /** The end of the furthest allocation: bytes past it are still zero. */
  #used = 0;

  /**
   * A new buffer of `size` bytes (64-aligned), or, given `bytes`, views over them in place (their start must
   * be 8-aligned; `Scratch.of` copies when it is not).
   */
  constructor(size: number, bytes?: Uint8Array<ArrayBuffer>) {
    let buffer: ArrayBuffer, skew: number, raw: Deno.PointerObject | null;
    if (bytes) {
      buffer = bytes.buffer;
      skew = bytes.byteOffset;
      size = bytes.byteLength;
      raw = bytes.byteLength === 0 ? null : Deno.UnsafePointer.of(bytes);
      if (raw === null) throw new TypeError("Cannot take the address of an empty buffer");
      this.base = Number(Deno.UnsafePointer.value(raw));
      this.#pointer = raw;
    } else {
      // 64 bytes over, so the first byte can be 64-aligned (typed-array stores need natural alignment).
      buffer = new ArrayBuffer(size + 64);
      raw = Deno.UnsafePointer.of(new Uint8Array(buffer));
      if (raw === null) throw new TypeError("Cannot take the address of the struct scratch memory");
      const address = Number(Deno.UnsafePointer.value(raw));
      const pad = (64 - (address % 64)) % 64;
      this.base = address + pad;
      this.#pointer = Deno.UnsafePointer.offset(raw, pad) ?? raw;
      skew = pad;
    }
    this.size = size;
    this.u8 = new Uint8Array(buffer, skew, size);
    this.i8 = new Int8Array(buffer, skew, size);
    this.u16 = new Uint16Array(buffer, skew, size >> 1);
    this.i16 = new Int16Array(buffer, skew, size >> 1);
    this.u32 = new Uint32Array(buffer, skew, size >> 2);
    this.i32 = new Int32Array(buffer, skew, size >> 2);
    this.f32 = new Float32Array(buffer, skew, size >> 2);
    this.f64 = new Float64Array(buffer, skew, size >> 3);
    this.u64 = new BigUint64Array(buffer, skew, size >> 3);
    this.i64 = new BigInt64Array(buffer, skew, size >> 3);
  }

  /**
   * Views over `bytes` for reading (a copy when they do not start 8-aligned).
   *
   * @example Usage
   * ```ts
   * import { Scratch } from "./scratch.ts";
   * console.log(Scratch.of(new Uint8Array(new Uint32Array([5, 6]).buffer)).u32[1]); // 6
   * ```
   */
  static of(bytes: Uint8Array<ArrayBuffer>): Scratch {
    if ((bytes.byteOffset & 7) === 0) return new Scratch(0, bytes);
    const m = new Scratch((bytes.byteLength + 7) & ~7);
    m.u8.set(bytes);
    return m;
  }

  /**
   * `size` zeroed bytes aligned to `align` (a power of two up to 64): their offset.
   *
   * @example Usage
   * ```ts
   * import { Scratch } from "./scratch.ts";
   * console.log(new Scratch(64).alloc(4, 4)); // 0
   * ```
   * @throws {RangeError} {@linkcode FULL} when they do not fit.
   */
  alloc(size: number, align: number): number {
    const off = (this.top + align - 1) & -align;
    const end = off + size;
    if (end > this.size) throw FULL;
    this.top = end;
    // Bytes past the high-water mark were never handed out: still zero.
    if (off < this.#used) this.#clear(off, end);
    else this.#used = end;
    return off;
  }

  /** Zeroes the bytes from `off` to `end` that were handed out before (kept apart so `alloc` stays small). */
  #clear(off: number, end: number): void {
    const stop = end < this.#used ? end : this.#used;
    // A small struct clears faster by words than through fill() (a builtin call, ~30 ns even for 4 bytes). The
    // last word may run past `end`: those bytes are not handed out yet, so zeroing them early is harmless.
    const words = (stop + 7) & ~7;
    if (words - off <= 64 && (off & 7) === 0 && words <= this.size) {
      for (let i = off >> 3; i < words >> 3; i++) this.f64[i] = 0;
    } else this.u8.fill(0, off, stop);
    if (end > this.#used) this.#used = end;
  }

  /**
   * The address `offset` bytes in, as a pointer object (cached for multiples of 8 in the first 4 KiB, so a
   * call's fixed offsets allocate nothing; others made by a native helper, ~20 ns).
   *
   * @example Usage
   * ```ts
   * import { Scratch } from "./scratch.ts";
   * const m = new Scratch(64);
   * console.log(m.at(8) === m.at(8)); // true
   * ```
   */
  at(offset: number): Deno.PointerObject {
    if ((offset & 7) !== 0 || offset >= CACHED) return pointerAt(this.#pointer, offset);
    const i = offset >> 3;
    return this.#at[i] ??= offset === 0 ? this.#pointer : Deno.UnsafePointer.offset(this.#pointer, offset)!;
  }

  /**
   * The pointer stored at byte `offset` (8-aligned): a pointer object, or null for 0 (read by a native helper,
   * ~20 ns, where `Deno.UnsafePointer.create` of the word costs ~100-150 ns and a bigint).
   *
   * @example Usage
   * ```ts
   * import { Scratch } from "./scratch.ts";
   * const m = new Scratch(64);
   * m.u64[1] = 0x1000n;
   * console.log(m.readPointer(0), Deno.UnsafePointer.value(m.readPointer(8))); // null 4096n
   * ```
   */
  readPointer(offset: number): Deno.PointerValue {
    return loadPointer(this.#pointer, offset);
  }

  /**
   * A NUL-terminated UTF-8 copy of `s`: its offset.
   *
   * @example Usage
   * ```ts
   * import { Scratch } from "./scratch.ts";
   * const m = new Scratch(64);
   * console.log(Deno.UnsafePointerView.getCString(m.at(m.cstring("main")))); // "main"
   * ```
   * @throws {TypeError} If `s` contains a NUL character.
   */
  cstring(s: string): number {
    if (s.includes("\0")) {
      throw new TypeError(`Cannot pass "${s.replaceAll("\0", "\\0")}" as a C string: it contains NUL`);
    }
    const off = this.alloc(s.length * 3 + 1, 1);
    const { written } = encoder.encodeInto(s, this.u8.subarray(off, off + s.length * 3));
    this.top = off + written + 1;
    return off;
  }
}
