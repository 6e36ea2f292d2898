/**
 * Thread guards: native entry points in front of JS callbacks that only the isolate's thread may run; a
 * call from another thread fails fast (one stderr line, an error value) instead of waiting on a blocked
 * isolate. x86-64 Linux only; the code is described in docs/internals.md.
 *
 * @module
 */

import { emitStubObject, STUB_SIZE } from "./elf.ts";
import { EmittedObject } from "./emitted_object.ts";
import { hasX86_64Helpers } from "./host.ts";
import { Arena } from "./memory.ts";

/** Slots (of {@linkcode STUB_SIZE} bytes) one guard's code takes. */
const GUARD_SLOTS = 6;
/** `owner`, `target`, `reported`, message length, `result`, `forward`; the message follows. */
const DATA_HEADER = 40;
const encoder = new TextEncoder();

/** `mov rax, fs:[0x10]; ret`: the calling thread's id as glibc keeps it. */
const THREAD_SELF = [0x64, 0x48, 0x8b, 0x04, 0x25, 0x10, 0x00, 0x00, 0x00, 0xc3];

function imm64(value: bigint): number[] {
  const out: number[] = [];
  for (let i = 0n; i < 8n; i++) out.push(Number((value >> (8n * i)) & 0xffn));
  return out;
}

/** The x86-64 code of a guard whose data block is at `data`. */
export function guardCode(data: bigint): Uint8Array {
  const loadData = [0x49, 0xbb, ...imm64(data)]; // movabs r11, data
  const code = [
    ...loadData,
    ...THREAD_SELF.slice(0, 9), // mov rax, fs:[0x10]
    0x49,
    0x3b,
    0x03, // cmp rax, [r11]
    0x75,
    0x04, // jne foreign
    0x41,
    0xff,
    0x63,
    0x08, // jmp [r11+8]
    // foreign:
    0xb8,
    0x01,
    0x00,
    0x00,
    0x00, // mov eax, 1
    0x41,
    0x87,
    0x43,
    0x10, // xchg [r11+16], eax
    0x85,
    0xc0, // test eax, eax
    0x75,
    0x26, // jne done
    0x57,
    0x56,
    0x52,
    0x51, // push rdi, rsi, rdx, rcx (the syscall takes the first three and clobbers rcx)
    0xb8,
    0x01,
    0x00,
    0x00,
    0x00, // mov eax, 1 (SYS_write)
    0xbf,
    0x02,
    0x00,
    0x00,
    0x00, // mov edi, 2
    0x49,
    0x8d,
    0x73,
    0x28, // lea rsi, [r11+40]
    0x41,
    0x8b,
    0x53,
    0x14, // mov edx, [r11+20]
    0x0f,
    0x05, // syscall (clobbers rcx, r11)
    0x59,
    0x5a,
    0x5e,
    0x5f, // pop rcx, rdx, rsi, rdi
    ...loadData,
    // done:
    0x49,
    0x8b,
    0x43,
    0x20, // mov rax, [r11+32]
    0x48,
    0x85,
    0xc0, // test rax, rax
    0x74,
    0x02, // je refuse
    0xff,
    0xe0, // jmp rax (the next link, with the caller's arguments)
    // refuse:
    0x49,
    0x8b,
    0x43,
    0x18, // mov rax, [r11+24]
    0xc3, // ret
  ]; // deno-fmt-ignore
  const out = new Uint8Array(GUARD_SLOTS * STUB_SIZE).fill(0xcc);
  out.set(code);
  return out;
}

/**
 * A set of thread guards owned by the calling thread, in one emitted object.
 *
 * @example Usage
 * ```ts
 * import { ThreadGuards } from "./thread_guard.ts";
 * using guards = ThreadGuards.create(1);
 * console.log(guards === undefined || guards.capacity === 1); // true
 * ```
 */
export class ThreadGuards implements Disposable {
  readonly #object: EmittedObject;
  readonly #arena: Arena;
  readonly #blocks: Uint8Array[];
  readonly #base: bigint;
  readonly #owner: bigint;
  #used = 0;

  private constructor(object: EmittedObject, arena: Arena, blocks: Uint8Array[]) {
    this.#object = object;
    this.#arena = arena;
    this.#blocks = blocks;
    this.#base = BigInt(Deno.UnsafePointer.value(object.library.symbolAddress("vkdeno_thread_guard")));
    const self = new Deno.UnsafeFnPointer(
      object.library.symbolAddress("vkdeno_thread_self") as Deno.PointerObject<never>,
      { parameters: [], result: "u64" },
    );
    this.#owner = self.call() as bigint;
  }

  /**
   * `capacity` guards owned by the calling thread, each with room for a message of `messageBytes`; undefined
   * where guards are not written (not x86-64 Linux) or the object cannot be loaded.
   */
  static create(capacity: number, messageBytes = 512): ThreadGuards | undefined {
    if (!hasX86_64Helpers() || capacity < 1) return undefined;
    const arena = new Arena();
    const blocks = Array.from({ length: capacity }, () => arena.alloc(DATA_HEADER + messageBytes, 16));
    const addresses = blocks.map((b) => BigInt(Deno.UnsafePointer.value(arena.pointer(b))));
    const { bytes } = emitStubObject(
      ["vkdeno_thread_self", "vkdeno_thread_guard"],
      "x86_64",
      (out, at, index) => {
        if (index === 0) out.set(THREAD_SELF, at);
        else if ((index - 1) % GUARD_SLOTS === 0) {
          out.set(guardCode(addresses[(index - 1) / GUARD_SLOTS]!), at);
        }
      },
      { stubs: 1 + capacity * GUARD_SLOTS, positions: [0, 1] },
    );
    try {
      return new ThreadGuards(EmittedObject.open(bytes, { name: "vkdeno-thread-guard" }), arena, blocks);
    } catch {
      arena.dispose();
      return undefined;
    }
  }

  /** How many guards the set holds. */
  get capacity(): number {
    return this.#blocks.length;
  }

  /**
   * The next free guard, in front of `target`: other threads write `message` on stderr once, then go to
   * `forward` with their arguments untouched, or without one get `result` (a 64-bit pattern: `-13n` for
   * `VK_ERROR_UNKNOWN`, `0n` for null).
   *
   * @throws {RangeError} If every guard is taken.
   */
  guard(
    target: Deno.PointerObject,
    message: string,
    result: bigint,
    forward: Deno.PointerValue = null,
  ): Deno.PointerObject {
    const index = this.#used;
    const block = this.#blocks[index];
    if (block === undefined) {
      throw new RangeError(`Cannot make thread guard ${index + 1}: the set holds ${this.capacity}`);
    }
    this.#used++;
    const view = new DataView(block.buffer, block.byteOffset, block.byteLength);
    const text = encoder.encode(message).subarray(0, block.byteLength - DATA_HEADER);
    view.setBigUint64(0, this.#owner, true);
    view.setBigUint64(8, BigInt(Deno.UnsafePointer.value(target)), true);
    view.setUint32(16, 0, true);
    view.setUint32(20, text.length, true);
    view.setBigUint64(24, BigInt.asUintN(64, result), true);
    view.setBigUint64(32, BigInt(Deno.UnsafePointer.value(forward)), true);
    block.set(text, DATA_HEADER);
    return Deno.UnsafePointer.create(this.#base + BigInt(index * GUARD_SLOTS * STUB_SIZE))!;
  }

  /** Unloads the code and frees the data: nothing may call a guard afterwards. */
  dispose(): void {
    this.#object.close();
    this.#arena.dispose();
  }

  /** Same as {@linkcode ThreadGuards.dispose}. */
  [Symbol.dispose](): void {
    this.dispose();
  }
}
