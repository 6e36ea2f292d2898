/**
 * "Unwrap" stubs: native stubs that swap the first argument for a handle the
 * object points to, then jump through a table the object also points to.
 *
 * Stub N of a set with table offset `A` and handle offset `B` does
 * `table = [arg0 + A]; arg0 = [arg0 + B]; jump [table + 8N]`:
 *
 * - x86-64: `mov rax,[rdi+A]; mov rdi,[rdi+B]; jmp [rax+8N]` (clobbers rax)
 * - aarch64: `ldr x16,[x0,#A]; ldr x0,[x0,#B]; ldr x16,[x16,#8N]; br x16`
 *
 * A loader object `{ word0: table, word1: next handle }` (A=0, B=8) then
 * forwards a call to the next level with no JavaScript in between; the same
 * shape with other offsets reaches a driver's own function table and handle.
 * The object file also holds one "error" function returning
 * `VK_ERROR_EXTENSION_NOT_PRESENT` (-7): what an empty table slot points to,
 * instead of a NULL that would crash the caller.
 *
 * The ELF file comes from {@linkcode emitStubObject} (`ffi/elf.ts`), whose
 * stubs are then rewritten in place: same size, same symbols.
 *
 * Without native stubs (another OS or architecture, or `native: false`) the
 * same forwarding runs in TypeScript through `Deno.UnsafeFnPointer`.
 *
 * @module
 */

import { CallbackRegistry } from "./callback.ts";
import { nativeStubArch } from "./dispatch.ts";
import { emitStubObject, STUB_SIZE, type StubArch, validateNames } from "./elf.ts";
import { EmittedObject } from "./emitted_object.ts";

/** What the error function returns: `VK_ERROR_EXTENSION_NOT_PRESENT`. */
export const UNWRAP_ERROR_RESULT = -7;

/** One set of unwrap stubs inside an object file. */
export interface UnwrapSet {
  /** Symbol prefix: stub N of the set is `<prefix><names[N]>`. */
  readonly prefix: string;
  /** Byte offset of the table pointer inside the object the first argument points to. */
  readonly tableOffset: number;
  /** Byte offset of the next handle inside that object. */
  readonly handleOffset: number;
}

/** Options of {@linkcode UnwrapStubs.load}. */
export interface UnwrapStubsOptions {
  /** `false` forces the TypeScript fallback. Default: native where supported. */
  native?: boolean;
  /**
   * Per set, how many leading names get a symbol (default all). The others are code only: their addresses
   * are computed, and binding one loads a one-stub object of its own (see `DispatchStubsOptions.exported`).
   */
  exported?: readonly number[];
}

const ERROR_SYMBOL = "vkdeno_unwrap_error";

/**
 * The machine code of an unwrap stub for slot `index`, {@linkcode STUB_SIZE} bytes.
 *
 * @example x86-64
 * ```ts
 * import { unwrapStubCode } from "./unwrap_stubs.ts";
 * // mov rax,[rdi+0]; mov rdi,[rdi+8]; jmp [rax+0x10]
 * console.log(unwrapStubCode(2, 0, 8, "x86_64").subarray(0, 14));
 * ```
 * @throws {RangeError} If an offset or the index cannot be encoded.
 */
export function unwrapStubCode(index: number, tableOffset: number, handleOffset: number, arch: StubArch) {
  for (const [what, v] of [["table offset", tableOffset], ["handle offset", handleOffset]] as const) {
    if (!Number.isInteger(v) || v < 0 || v > 120 || v % 8 !== 0) {
      throw new RangeError(`Invalid unwrap ${what} "${v}": expected a multiple of 8 from 0 to 120`);
    }
  }
  if (!Number.isInteger(index) || index < 0 || index > 4095) {
    throw new RangeError(`Invalid unwrap stub index "${index}": expected 0 to 4095`);
  }
  const out = new Uint8Array(STUB_SIZE);
  const dv = new DataView(out.buffer);
  if (arch === "x86_64") {
    out.fill(0xcc);
    // mov rax,[rdi+disp8]; mov rdi,[rdi+disp8]; jmp [rax+disp32]
    out.set([0x48, 0x8b, 0x47, tableOffset, 0x48, 0x8b, 0x7f, handleOffset, 0xff, 0xa0]);
    dv.setInt32(10, index * 8, true);
  } else {
    const words = [
      (0xf9400010 | ((tableOffset / 8) << 10)) >>> 0, // ldr x16, [x0, #A]
      (0xf9400000 | ((handleOffset / 8) << 10)) >>> 0, // ldr x0, [x0, #B]
      (0xf9400210 | (index << 10)) >>> 0, // ldr x16, [x16, #8*index]
      0xd61f0200, // br x16
    ];
    words.forEach((w, i) => dv.setUint32(i * 4, w, true));
  }
  return out;
}

/** The code of the error function: returns -7 in the result register. */
function errorCode(arch: StubArch): Uint8Array {
  const out = new Uint8Array(STUB_SIZE);
  if (arch === "x86_64") {
    out.fill(0xcc);
    out.set([0xb8, 0xf9, 0xff, 0xff, 0xff, 0xc3]); // mov eax,-7; ret
  } else {
    const dv = new DataView(out.buffer);
    [0x128000c0, 0xd65f03c0, 0xd4200000, 0xd4200000].forEach((w, i) => dv.setUint32(i * 4, w, true)); // movn w0,#6; ret
  }
  return out;
}

/** Little helpers the loader's trampolines call after a stub, so that stamping needs no JavaScript memory access. */
export const UNWRAP_HELPERS = {
  /** `void stamp_out(void** parent, void*** pChild)`: `if (*pChild) **pChild = *parent`. */
  vkdeno_stamp_out: { parameters: ["pointer", "pointer"], result: "void" },
  /** `void stamp_array(void** parent, void*** array, uint32_t n)`: stamps each non-null `array[i]`. */
  vkdeno_stamp_array: { parameters: ["pointer", "pointer", "u32"], result: "void" },
  /** `uint32_t read_u32(const void* p, size_t offset)`. */
  vkdeno_read_u32: { parameters: ["pointer", "usize"], result: "u32" },
} as const satisfies Record<string, Deno.ForeignFunction>;

/**
 * Native `vkGetDeviceQueue` and `vkGetDeviceQueue2` for a loader's device tables (x86-64 only; elsewhere the
 * loader stamps in TypeScript): each calls the command's next function, kept in a hidden table word after
 * the named slots ({@linkcode stampedQueueCode}), then writes the device's first word (its table) into
 * the new queue, as libvulkan's trampolines do. The table's own slot for the command points here, so the
 * public command is a plain dispatch stub with no JavaScript per call.
 */
export const STAMPED_QUEUE_SYMBOLS = ["vkdeno_get_queue_stamped", "vkdeno_get_queue2_stamped"] as const;

/**
 * The code of stamped-queue helper `which` (0: `vkGetDeviceQueue`, queue pointer in the 4th argument;
 * 1: `vkGetDeviceQueue2`, 3rd argument) calling table word `nextSlot`; undefined where not written (aarch64).
 *
 * @example Usage
 * ```ts
 * import { stampedQueueCode } from "./unwrap_stubs.ts";
 * console.log(stampedQueueCode(0, 1237, "x86_64")?.length); // 48
 * ```
 */
export function stampedQueueCode(which: 0 | 1, nextSlot: number, arch: StubArch): Uint8Array | undefined {
  if (arch !== "x86_64") return undefined;
  const disp = nextSlot * 8;
  const code = [
    0x53, // push rbx
    0x41,
    0x54, // push r12
    0x48,
    0x83,
    0xec,
    0x08, // sub rsp,8 (the call below needs a 16-byte aligned stack)
    0x48,
    0x89,
    0xfb, // mov rbx,rdi (device)
    ...(which === 0 ? [0x49, 0x89, 0xcc] : [0x49, 0x89, 0xd4]), // mov r12,rcx or rdx (pQueue)
    0x48,
    0x8b,
    0x07, // mov rax,[rdi] (the device's table)
    0xff,
    0x90,
    disp & 0xff,
    (disp >> 8) & 0xff,
    (disp >> 16) & 0xff,
    (disp >>> 24) & 0xff, // call [rax+disp32]
    0x49,
    0x8b,
    0x0c,
    0x24, // mov rcx,[r12] (the queue)
    0x48,
    0x85,
    0xc9, // test rcx,rcx
    0x74,
    0x06, // je +6
    0x48,
    0x8b,
    0x03, // mov rax,[rbx]
    0x48,
    0x89,
    0x01, // mov [rcx],rax
    0x48,
    0x83,
    0xc4,
    0x08, // add rsp,8
    0x41,
    0x5c, // pop r12
    0x5b, // pop rbx
    0xc3, // ret
  ];
  const out = new Uint8Array(Math.ceil(code.length / STUB_SIZE) * STUB_SIZE).fill(0xcc);
  out.set(code);
  return out;
}

/** Symbol of the native table filler ({@linkcode fillTableCode}). */
export const FILL_TABLE_SYMBOL = "vkdeno_fill_table";

/** FFI definition of the native table filler. */
export const FILL_TABLE_DEF = {
  parameters: ["pointer", "pointer", "pointer", "u32", "buffer"],
  result: "void",
} as const satisfies Deno.ForeignFunction;

/**
 * The code of `void fill_table(PFN_vkGetDeviceProcAddr gpa, void* handle, const char* const* names,
 * uint32_t count, void** out)`: `out[i] = gpa(handle, names[i])` for each name, in native code, so that
 * filling a device table is one foreign call instead of ~1,000 `UnsafeFnPointer` round trips (~1.5 us
 * each). Undefined where not written (aarch64: the loader loops in TypeScript).
 *
 * @example Usage
 * ```ts
 * import { fillTableCode } from "./unwrap_stubs.ts";
 * console.log(fillTableCode("x86_64")?.length); // 64
 * ```
 */
export function fillTableCode(arch: StubArch): Uint8Array | undefined {
  if (arch !== "x86_64") return undefined;
  const code = [
    0x53, // push rbx
    0x41,
    0x54, // push r12
    0x41,
    0x55, // push r13
    0x41,
    0x56, // push r14
    0x41,
    0x57, // push r15 (five pushes: the stack is 16-byte aligned for the calls)
    0x48,
    0x89,
    0xfb, // mov rbx,rdi (gpa)
    0x49,
    0x89,
    0xf4, // mov r12,rsi (handle)
    0x49,
    0x89,
    0xd5, // mov r13,rdx (names)
    0x41,
    0x89,
    0xce, // mov r14d,ecx (count)
    0x4d,
    0x89,
    0xc7, // mov r15,r8 (out)
    // loop:
    0x45,
    0x85,
    0xf6, // test r14d,r14d
    0x74,
    0x19, // je done
    0x4c,
    0x89,
    0xe7, // mov rdi,r12
    0x49,
    0x8b,
    0x75,
    0x00, // mov rsi,[r13]
    0xff,
    0xd3, // call rbx
    0x49,
    0x89,
    0x07, // mov [r15],rax
    0x49,
    0x83,
    0xc5,
    0x08, // add r13,8
    0x49,
    0x83,
    0xc7,
    0x08, // add r15,8
    0x41,
    0xff,
    0xce, // dec r14d
    0xeb,
    0xe2, // jmp loop
    // done:
    0x41,
    0x5f, // pop r15
    0x41,
    0x5e, // pop r14
    0x41,
    0x5d, // pop r13
    0x41,
    0x5c, // pop r12
    0x5b, // pop rbx
    0xc3, // ret
  ];
  const out = new Uint8Array(Math.ceil(code.length / STUB_SIZE) * STUB_SIZE).fill(0xcc);
  out.set(code);
  return out;
}

/** Helper name to its machine code (each padded to whole stub slots) for `arch`. */
function helperCode(name: keyof typeof UNWRAP_HELPERS, arch: StubArch): Uint8Array {
  const x86: Record<keyof typeof UNWRAP_HELPERS, number[]> = {
    // mov rax,[rdi]; mov rcx,[rsi]; test rcx,rcx; je +3; mov [rcx],rax; ret
    vkdeno_stamp_out: [
      0x48,
      0x8b,
      0x07,
      0x48,
      0x8b,
      0x0e,
      0x48,
      0x85,
      0xc9,
      0x74,
      0x03,
      0x48,
      0x89,
      0x01,
      0xc3,
    ],
    // mov rax,[rdi]; test edx,edx; je done; loop: mov rcx,[rsi]; test rcx,rcx; je +3; mov [rcx],rax;
    // add rsi,8; dec edx; jne loop; done: ret
    vkdeno_stamp_array: [
      0x48,
      0x8b,
      0x07,
      0x85,
      0xd2,
      0x74,
      0x13,
      0x48,
      0x8b,
      0x0e,
      0x48,
      0x85,
      0xc9,
      0x74,
      0x03,
      0x48,
      0x89,
      0x01,
      0x48,
      0x83,
      0xc6,
      0x08,
      0xff,
      0xca,
      0x75,
      0xed,
      0xc3,
    ],
    // mov eax,[rdi+rsi]; ret
    vkdeno_read_u32: [0x8b, 0x04, 0x37, 0xc3],
  };
  const a64: Record<keyof typeof UNWRAP_HELPERS, number[]> = {
    // ldr x16,[x0]; ldr x17,[x1]; cbz x17,+8; str x16,[x17]; ret
    vkdeno_stamp_out: [0xf9400010, 0xf9400031, 0xb4000051, 0xf9000230, 0xd65f03c0],
    // ldr x16,[x0]; cbz w2,done; loop: ldr x17,[x1],#8; cbz x17,+8; str x16,[x17]; subs w2,w2,#1;
    // b.ne loop; done: ret
    vkdeno_stamp_array: [
      0xf9400010,
      0x340000c2,
      0xf8408431,
      0xb4000051,
      0xf9000230,
      0x71000442,
      0x54ffff81,
      0xd65f03c0,
    ],
    // ldr w0,[x0,x1]; ret
    vkdeno_read_u32: [0xb8616800, 0xd65f03c0],
  };
  if (arch === "x86_64") {
    const code = x86[name];
    const out = new Uint8Array(Math.ceil(code.length / STUB_SIZE) * STUB_SIZE).fill(0xcc);
    out.set(code);
    return out;
  }
  const words = a64[name];
  const out = new Uint8Array(Math.ceil((words.length * 4) / STUB_SIZE) * STUB_SIZE);
  const dv = new DataView(out.buffer);
  for (let i = 0; i < out.length / 4; i++) dv.setUint32(i * 4, words[i] ?? 0xd4200000, true); // brk #0 padding
  return out;
}

/**
 * Checks the symbols an unwrap object would hold without hashing every joined name (a Set of ~1,500
 * strings joined from a prefix and a name cost ~4 ms cold): the names are checked, no set's prefix may
 * start another's (so two sets never make the same symbol), and the fixed symbols must not be a set's.
 */
function validateSymbols(names: readonly string[], sets: readonly UnwrapSet[]): void {
  validateNames(names);
  for (const a of sets) {
    for (const b of sets) {
      if (a !== b && b.prefix.startsWith(a.prefix)) {
        throw new TypeError(`Unwrap set prefixes "${a.prefix}" and "${b.prefix}" can make the same symbol`);
      }
    }
  }
  const fixed = [ERROR_SYMBOL, ...Object.keys(UNWRAP_HELPERS), ...STAMPED_QUEUE_SYMBOLS, FILL_TABLE_SYMBOL];
  for (const f of fixed) {
    for (const s of sets) {
      // A linear search, made only for a fixed symbol that starts with a prefix: no Set of every name.
      if (f.startsWith(s.prefix) && names.includes(f.slice(s.prefix.length))) {
        throw new TypeError(`Duplicate stub name "${f}"`);
      }
    }
  }
}

/**
 * Emits an ELF object with every set's stubs for `names` (in set order), then the error function and
 * the {@linkcode UNWRAP_HELPERS}. Stub `i` of set `k` gets the symbol `<prefix><names[i]>` when `i` is below
 * `exported[k]` (default: every name); the others are code only, found by address.
 *
 * @example Usage
 * ```ts
 * import { emitUnwrapObject } from "./unwrap_stubs.ts";
 * const bytes = emitUnwrapObject(["vkGetPhysicalDeviceProperties"], [
 *   { prefix: "tramp_", tableOffset: 0, handleOffset: 8 },
 * ], "x86_64");
 * console.log(bytes.length > 0);
 * ```
 */
export function emitUnwrapObject(
  names: readonly string[],
  sets: readonly UnwrapSet[],
  arch: StubArch,
  exported?: readonly number[],
): Uint8Array {
  const perSet = names.length;
  const stubs = sets.length * perSet;
  if (perSet > 4096) throw new RangeError(`Invalid unwrap stub index "${perSet - 1}": expected 0 to 4095`);
  validateSymbols(names, sets);
  const symbols: string[] = [];
  const positions: number[] = [];
  sets.forEach((s, k) => {
    const count = Math.min(perSet, exported?.[k] ?? perSet);
    for (let i = 0; i < count; i++) {
      symbols.push(`${s.prefix}${names[i]}`);
      positions.push(k * perSet + i);
    }
  });
  let at = stubs;
  symbols.push(ERROR_SYMBOL);
  positions.push(at++);
  // Helpers longer than a slot take the following ones too, under filler names.
  const helpers = (Object.keys(UNWRAP_HELPERS) as (keyof typeof UNWRAP_HELPERS)[]).map((name) => ({
    name,
    code: helperCode(name, arch),
    at: 0,
  }));
  // The stamped-queue helpers call the hidden table words right after the named slots.
  STAMPED_QUEUE_SYMBOLS.forEach((name, which) => {
    const code = stampedQueueCode(which as 0 | 1, names.length + which, arch);
    if (code) helpers.push({ name: name as keyof typeof UNWRAP_HELPERS, code, at: 0 });
  });
  const fill = fillTableCode(arch);
  if (fill) helpers.push({ name: FILL_TABLE_SYMBOL as keyof typeof UNWRAP_HELPERS, code: fill, at: 0 });
  for (const h of helpers) {
    h.at = at;
    symbols.push(h.name);
    positions.push(at++);
    for (let k = 1; k < h.code.length / STUB_SIZE; k++) {
      symbols.push(`${h.name}_part${k}`);
      positions.push(at++);
    }
  }
  // Each set's first stub is built (and its offsets checked) once; the others differ only in the slot.
  const firsts = sets.map((s) => unwrapStubCode(0, s.tableOffset, s.handleOffset, arch));
  let dv: DataView | undefined;
  const { bytes, textAddress } = emitStubObject(
    symbols,
    arch,
    (out, at, n) => {
      if (n >= stubs) return; // the error function and helpers are written below
      const i = n % perSet;
      out.set(firsts[(n - i) / perSet]!, at);
      if (i === 0) return;
      if (arch === "x86_64") {
        (dv ??= new DataView(out.buffer, out.byteOffset)).setInt32(at + 10, i * 8, true);
      } else {
        const s = sets[(n - i) / perSet]!;
        out.set(unwrapStubCode(i, s.tableOffset, s.handleOffset, arch), at);
      }
    },
    { stubs: at, positions, validated: true },
  );
  bytes.set(errorCode(arch), textAddress + stubs * STUB_SIZE);
  for (const h of helpers) bytes.set(h.code, textAddress + h.at * STUB_SIZE);
  return bytes;
}

const view = (p: Deno.PointerValue) => new Deno.UnsafePointerView(p as Deno.PointerObject);

/** The helpers in TypeScript, for the fallback mode. */
const HELPER_FALLBACKS: Record<keyof typeof UNWRAP_HELPERS, (...args: never[]) => unknown> = {
  vkdeno_stamp_out: (parent: Deno.PointerValue, pChild: Deno.PointerValue) => {
    if (parent === null || pChild === null) return;
    const child = view(pChild).getPointer(0);
    if (child === null) return;
    new DataView(Deno.UnsafePointerView.getArrayBuffer(child, 8)).setBigUint64(
      0,
      view(parent).getBigUint64(0),
      true,
    );
  },
  vkdeno_stamp_array: (parent: Deno.PointerValue, array: Deno.PointerValue, n: number) => {
    for (let i = 0; i < n && array !== null; i++) {
      HELPER_FALLBACKS.vkdeno_stamp_out(parent as never, Deno.UnsafePointer.offset(array, i * 8) as never);
    }
  },
  vkdeno_read_u32: (p: Deno.PointerValue, offset: number | bigint) => view(p).getUint32(Number(offset)),
};

/**
 * Unwrap stubs for a list of slot names, in one or more sets (offset pairs).
 *
 * @example Usage
 * ```ts
 * import { UnwrapStubs } from "./unwrap_stubs.ts";
 * using stubs = UnwrapStubs.load(["vkGetPhysicalDeviceFeatures"], [
 *   { prefix: "tramp_", tableOffset: 0, handleOffset: 8 },
 * ]);
 * console.log(stubs.address(0, 0) !== null, stubs.native);
 * ```
 */
export class UnwrapStubs implements Disposable {
  #names: readonly string[];
  #sets: readonly UnwrapSet[];
  #loaded: EmittedObject | undefined;
  #bound = new Map<string, unknown>();
  #libraries: Deno.DynamicLibrary<Deno.ForeignLibraryInterface>[] = [];
  /** One-stub objects made to bind stubs that have no symbol in the main object. */
  #singles: EmittedObject[] = [];
  #addresses = new Map<string, Deno.PointerObject>();
  #stub0: bigint | undefined;
  #callbacks = new CallbackRegistry();
  #disposed = false;
  readonly #fallbackReason: string | undefined;

  private constructor(
    names: readonly string[],
    sets: readonly UnwrapSet[],
    loaded?: EmittedObject,
    reason?: string,
  ) {
    this.#names = names;
    this.#sets = sets;
    this.#loaded = loaded;
    this.#fallbackReason = loaded ? undefined : reason ?? "no stub object";
  }

  /**
   * Emits and loads the stubs, or sets up the TypeScript fallback.
   *
   * @example Usage
   * ```ts
   * import { UnwrapStubs } from "./unwrap_stubs.ts";
   * using stubs = UnwrapStubs.load(["a"], [{ prefix: "t_", tableOffset: 8, handleOffset: 16 }], { native: false });
   * console.log(stubs.native); // false
   * ```
   */
  static load(
    names: readonly string[],
    sets: readonly UnwrapSet[],
    options: UnwrapStubsOptions = {},
  ): UnwrapStubs {
    const arch = nativeStubArch();
    const bytes = emitUnwrapObject(names, sets, arch ?? "x86_64", options.exported);
    if (options.native === false) {
      return new UnwrapStubs(names, sets, undefined, "native stubs were turned off");
    }
    if (arch === undefined) {
      return new UnwrapStubs(
        names,
        sets,
        undefined,
        `no native stubs for "${Deno.build.os}" on "${Deno.build.arch}"`,
      );
    }
    try {
      return new UnwrapStubs(names, sets, EmittedObject.open(bytes, { name: "vkdeno-unwrap" }));
    } catch (error) {
      return new UnwrapStubs(names, sets, undefined, error instanceof Error ? error.message : String(error));
    }
  }

  /** True when the stubs are native code. */
  get native(): boolean {
    return this.#loaded !== undefined;
  }

  /** Why the fallback is used; `undefined` when native. */
  get fallbackReason(): string | undefined {
    return this.#fallbackReason;
  }

  /** The object file's path (`/proc/self/fd/N`), when native. */
  get path(): string | undefined {
    return this.#loaded?.path;
  }

  #symbol(set: number, index: number): string {
    if (this.#disposed) throw new TypeError("Cannot use disposed unwrap stubs");
    const s = this.#sets[set];
    const name = this.#names[index];
    if (s === undefined) throw new RangeError(`Unwrap set "${set}" is out of range`);
    if (name === undefined) throw new RangeError(`Unwrap stub index "${index}" is out of range`);
    return `${s.prefix}${name}`;
  }

  /**
   * The JavaScript function for stub `index` of set `set`, declared with `def` (bound once, cached).
   *
   * @example Usage
   * ```ts
   * import { UnwrapStubs } from "./unwrap_stubs.ts";
   * using stubs = UnwrapStubs.load(["f"], [{ prefix: "t_", tableOffset: 0, handleOffset: 8 }]);
   * const f = stubs.bind(0, 0, { parameters: ["pointer"], result: "void" });
   * console.log(typeof f); // "function"
   * ```
   */
  bind<const T extends Deno.ForeignFunction>(
    set: number,
    index: number,
    def: T,
  ): Deno.StaticForeignSymbol<T> {
    const symbol = this.#symbol(set, index);
    const cached = this.#bound.get(symbol);
    if (cached !== undefined) return cached as Deno.StaticForeignSymbol<T>;
    let fn: unknown;
    if (this.#loaded) {
      let path = this.#loaded.path;
      if (this.#loaded.library.symbolAddress(symbol) === null) {
        // A stub without a symbol: Deno.dlopen binds by name, so give it an object of its own, same code.
        const arch = nativeStubArch() ?? "x86_64";
        const s = this.#sets[set]!;
        const code = unwrapStubCode(index, s.tableOffset, s.handleOffset, arch);
        const single = EmittedObject.open(
          emitStubObject([symbol], arch, (out, at) => out.set(code, at)).bytes,
          { name: "vkdeno-unwrap-stub", from: "memfd-or-tempfile" },
        );
        this.#singles.push(single);
        path = single.path;
      }
      const lib = Deno.dlopen(path, { [symbol]: def } as Deno.ForeignLibraryInterface);
      this.#libraries.push(lib);
      fn = lib.symbols[symbol];
    } else {
      fn = this.#fallback(this.#sets[set]!, index, def);
    }
    this.#bound.set(symbol, fn);
    return fn as Deno.StaticForeignSymbol<T>;
  }

  /**
   * The C address of stub `index` of set `set`. In fallback mode a callback declared with `def` (required).
   *
   * @example Usage
   * ```ts
   * import { UnwrapStubs } from "./unwrap_stubs.ts";
   * using stubs = UnwrapStubs.load(["f"], [{ prefix: "t_", tableOffset: 0, handleOffset: 8 }]);
   * if (stubs.native) console.log(stubs.address(0, 0) !== null); // true
   * ```
   * @throws {TypeError} In fallback mode without `def`.
   */
  address(set: number, index: number, def?: Deno.UnsafeCallbackDefinition): Deno.PointerObject {
    const symbol = this.#symbol(set, index);
    const cached = this.#addresses.get(symbol);
    if (cached) return cached;
    let ptr: Deno.PointerValue;
    if (this.#loaded) {
      // Stubs are STUB_SIZE apart, set after set; the error function follows the last one.
      if (this.#stub0 === undefined) {
        const error = this.errorFunction;
        if (error === null) throw new Error(`Unwrap stub "${symbol}" is missing from "${this.#loaded.path}"`);
        this.#stub0 = Deno.UnsafePointer.value(error) -
          BigInt(this.#sets.length * this.#names.length * STUB_SIZE);
      }
      const n = set * this.#names.length + index;
      ptr = Deno.UnsafePointer.create(this.#stub0 + BigInt(n * STUB_SIZE))!;
    } else {
      if (!def) {
        throw new TypeError(
          `Cannot take the address of "${symbol}" without native stubs: pass its definition`,
        );
      }
      const call = this.#fallback(this.#sets[set]!, index, def) as (...a: unknown[]) => unknown;
      ptr = this.#callbacks.create(def, call as never, {
        name: symbol,
        onError:
          (def.result === "i32" ? UNWRAP_ERROR_RESULT : def.result === "void" ? undefined : 0) as never,
      }).pointer;
    }
    this.#addresses.set(symbol, ptr);
    return ptr;
  }

  /**
   * The error function (returns -7): what empty slots point to. `null` in fallback mode.
   *
   * @example Usage
   * ```ts
   * import { UnwrapStubs } from "./unwrap_stubs.ts";
   * using stubs = UnwrapStubs.load([], []);
   * console.log(stubs.native ? stubs.errorFunction !== null : true); // true
   * ```
   */
  get errorFunction(): Deno.PointerValue {
    if (!this.#loaded) return null;
    const cached = this.#addresses.get(ERROR_SYMBOL);
    if (cached) return cached;
    const ptr = this.#loaded.library.symbolAddress(ERROR_SYMBOL);
    if (ptr) this.#addresses.set(ERROR_SYMBOL, ptr);
    return ptr;
  }

  /**
   * The native table filler ({@linkcode fillTableCode}), or undefined where there is none (fallback mode,
   * aarch64).
   */
  get fillTable(): Deno.StaticForeignSymbol<typeof FILL_TABLE_DEF> | undefined {
    if (!this.#loaded || this.#disposed) return undefined;
    if (this.#fill !== undefined) return this.#fill ?? undefined;
    const p = this.#loaded.library.symbolAddress(FILL_TABLE_SYMBOL);
    if (p === null) {
      this.#fill = null;
      return undefined;
    }
    // Called a few times per instance or device, each call filling a whole table: a slow call (~2 us) costs
    // nothing there, where declaring a fast-call symbol costs every start ~0.4 ms.
    const fn = new Deno.UnsafeFnPointer(p as Deno.PointerObject<never>, FILL_TABLE_DEF);
    this.#fill = fn.call.bind(fn) as unknown as Deno.StaticForeignSymbol<typeof FILL_TABLE_DEF>;
    return this.#fill;
  }

  #fill: Deno.StaticForeignSymbol<typeof FILL_TABLE_DEF> | null | undefined;

  /**
   * The address of stamped-queue helper `which` ({@linkcode STAMPED_QUEUE_SYMBOLS}), or null where there is
   * none (fallback mode, aarch64).
   */
  stampedQueueAddress(which: 0 | 1): Deno.PointerValue {
    if (!this.#loaded) return null;
    const name = STAMPED_QUEUE_SYMBOLS[which];
    const cached = this.#addresses.get(name);
    if (cached) return cached;
    let ptr: Deno.PointerValue = null;
    try {
      ptr = this.#loaded.library.symbolAddress(name);
    } catch {
      return null;
    }
    if (ptr) this.#addresses.set(name, ptr);
    return ptr;
  }

  /**
   * One of the {@linkcode UNWRAP_HELPERS} as a JavaScript function: native code, or a TypeScript
   * equivalent in fallback mode.
   *
   * @example Usage
   * ```ts
   * import { UnwrapStubs } from "./unwrap_stubs.ts";
   * using stubs = UnwrapStubs.load([], []);
   * const read = stubs.helper("vkdeno_read_u32");
   * console.log(read(Deno.UnsafePointer.of(new Uint32Array([7, 9])), 4n)); // 9
   * ```
   */
  helper<const K extends keyof typeof UNWRAP_HELPERS>(
    name: K,
  ): Deno.StaticForeignSymbol<(typeof UNWRAP_HELPERS)[K]> {
    if (this.#disposed) throw new TypeError("Cannot use disposed unwrap stubs");
    const cached = this.#bound.get(name);
    if (cached !== undefined) return cached as Deno.StaticForeignSymbol<(typeof UNWRAP_HELPERS)[K]>;
    let fn: unknown;
    if (this.#loaded) {
      const lib = Deno.dlopen(
        this.#loaded.path,
        { [name]: UNWRAP_HELPERS[name] } as Deno.ForeignLibraryInterface,
      );
      this.#libraries.push(lib);
      fn = lib.symbols[name];
    } else {
      fn = HELPER_FALLBACKS[name];
    }
    this.#bound.set(name, fn);
    return fn as Deno.StaticForeignSymbol<(typeof UNWRAP_HELPERS)[K]>;
  }

  #fallback(set: UnwrapSet, index: number, def: Deno.ForeignFunction): (...args: unknown[]) => unknown {
    const fns = new Map<bigint, Deno.UnsafeFnPointer<Deno.ForeignFunction>>();
    const callDef = { parameters: def.parameters, result: def.result };
    return (...args: unknown[]) => {
      const object = args[0] as Deno.PointerValue;
      if (object === null) throw new TypeError("Cannot unwrap a null handle");
      const view = new Deno.UnsafePointerView(object);
      const table = view.getPointer(set.tableOffset);
      if (table === null) throw new TypeError("Cannot unwrap a handle without a table");
      const fp = new Deno.UnsafePointerView(table).getPointer(index * 8);
      if (fp === null) return def.result === "i32" ? UNWRAP_ERROR_RESULT : undefined;
      const key = Deno.UnsafePointer.value(fp);
      let fn = fns.get(key);
      if (!fn) {
        fn = new Deno.UnsafeFnPointer(fp as Deno.PointerObject<never>, callDef);
        fns.set(key, fn);
      }
      const next = [...args];
      next[0] = view.getPointer(set.handleOffset);
      return (fn.call as (...a: unknown[]) => unknown)(...next);
    };
  }

  /**
   * Unloads the stubs. Nothing may call them afterwards.
   *
   * @example Usage
   * ```ts
   * import { UnwrapStubs } from "./unwrap_stubs.ts";
   * UnwrapStubs.load(["f"], [{ prefix: "t_", tableOffset: 0, handleOffset: 8 }]).dispose();
   * ```
   */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const lib of this.#libraries) lib.close();
    this.#libraries = [];
    for (const single of this.#singles) single.close();
    this.#singles = [];
    this.#bound.clear();
    this.#addresses.clear();
    this.#callbacks.dispose();
    this.#loaded?.close();
  }

  /** Same as {@linkcode UnwrapStubs.dispose}. */
  [Symbol.dispose](): void {
    this.dispose();
  }
}
