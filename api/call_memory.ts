/**
 * The native memory one idiomatic call hands to C: a reused 64 KiB {@linkcode Scratch} (the generated struct
 * writers' memory), reset at the start of each call, with the call's fixed-size outputs at fixed offsets from
 * its start (so reading a returned handle allocates nothing). Calls made while one is running (from a
 * callback) get a scratch of their own.
 *
 * @module
 */
import { FULL, Scratch } from "../ffi/scratch.ts";

const SIZE = 1 << 16;

/**
 * A {@linkcode Scratch} reset per call; what does not fit goes to buffers of its own, kept until the next
 * reset.
 *
 * @example Usage
 * ```ts
 * import { CallMemory } from "./call_memory.ts";
 * const m = new CallMemory();
 * m.reset(8);
 * console.log(Deno.UnsafePointerView.getCString(m.at(m.cstring("main")))); // "main"
 * ```
 */
export class CallMemory extends Scratch {
  /** A view of the whole scratch buffer (offsets as in the typed-array views). */
  readonly view: DataView<ArrayBuffer>;
  #extra: object[] = [];

  constructor() {
    super(SIZE);
    this.view = new DataView(this.u8.buffer, this.u8.byteOffset, this.u8.byteLength);
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
    this.top = 0;
    if (reserved !== 0) this.alloc(reserved, 8);
  }

  /**
   * Keeps `value` (a larger scratch a write moved to, a buffer) alive until the next reset.
   *
   * @example Usage
   * ```ts
   * import { CallMemory } from "./call_memory.ts";
   * new CallMemory().keep(new Uint8Array(8));
   * ```
   */
  keep(value: object): void {
    this.#extra.push(value);
  }

  /**
   * `size` zeroed bytes aligned to `align` (at most 64): in the scratch buffer when they fit, else in a
   * buffer of their own kept until the next reset.
   *
   * @example Usage
   * ```ts
   * import { CallMemory } from "./call_memory.ts";
   * console.log(new CallMemory().bytes(12, 4).byteLength); // 12
   * ```
   */
  bytes(size: number, align = 8): Uint8Array<ArrayBuffer> {
    try {
      const off = this.alloc(size, align < 8 ? 8 : align);
      return this.u8.subarray(off, off + size);
    } catch (e) {
      if (e !== FULL) throw e;
    }
    const raw = new Uint8Array(new ArrayBuffer(Math.max(size, 1) + align - 1));
    const skew = Number(Deno.UnsafePointer.value(Deno.UnsafePointer.of(raw)) % BigInt(align));
    const pad = skew === 0 ? 0 : align - skew;
    this.#extra.push(raw);
    return raw.subarray(pad, pad + size);
  }

  /**
   * The address of a buffer from {@linkcode CallMemory.bytes}.
   *
   * @example Usage
   * ```ts
   * import { CallMemory } from "./call_memory.ts";
   * const m = new CallMemory();
   * console.log(m.pointer(m.bytes(8)) !== null); // true
   * ```
   */
  pointer(buf: Uint8Array | ArrayBufferView): Deno.PointerObject {
    if (buf.buffer === this.u8.buffer) return this.at(buf.byteOffset - this.u8.byteOffset);
    const view = buf.byteLength === 0 ? new Uint8Array(buf.buffer, buf.byteOffset, 1) : buf;
    const p = Deno.UnsafePointer.of(view as Uint8Array<ArrayBuffer>);
    if (p === null) throw new TypeError("Cannot take the address of an empty buffer");
    return p;
  }
}
