/**
 * Emits the dispatch stubs as a tiny ELF64 shared object, with no compiler (x86-64 and aarch64).
 *
 * @module
 */

/** The architectures stubs can be emitted for. */
export type StubArch = "x86_64" | "aarch64";

/** Bytes per stub: stub N starts at the text section's start plus `N * STUB_SIZE`. */
export const STUB_SIZE = 16;

const EM_X86_64 = 62;
const EM_AARCH64 = 183;
const PT_LOAD = 1;
const PT_DYNAMIC = 2;
const PT_GNU_STACK = 0x6474e551;
const PF_X = 1, PF_W = 2, PF_R = 4;
const SHT_PROGBITS = 1, SHT_STRTAB = 3, SHT_HASH = 5, SHT_DYNAMIC = 6, SHT_DYNSYM = 11;
const SHF_WRITE = 1, SHF_ALLOC = 2, SHF_EXECINSTR = 4;
const DT_NULL = 0, DT_HASH = 4, DT_STRTAB = 5, DT_SYMTAB = 6, DT_STRSZ = 10, DT_SYMENT = 11;
const STB_GLOBAL = 1, STT_FUNC = 2;
const EHDR_SIZE = 64, PHDR_SIZE = 56, SHDR_SIZE = 64, SYM_SIZE = 24, DYN_SIZE = 16;

/** Section header indices, in emission order. */
const SEC = { hash: 1, dynsym: 2, dynstr: 3, text: 4, dynamic: 5, shstrtab: 6 } as const;

function alignUp(n: number, a: number): number {
  return Math.ceil(n / a) * a;
}

/**
 * The SysV ELF symbol hash (`DT_HASH`).
 *
 * @example Usage
 * ```ts
 * import { elfHash } from "./elf.ts";
 * console.log(elfHash("printf").toString(16)); // "77905a6"
 * ```
 */
export function elfHash(name: string | Uint8Array): number {
  const bytes = typeof name === "string" ? new TextEncoder().encode(name) : name;
  // An indexed loop: this runs once per stub name at startup, mostly before the JIT warms up.
  let h = 0;
  for (let i = 0; i < bytes.length; i++) {
    h = ((h << 4) + bytes[i]!) >>> 0;
    const g = h & 0xf0000000;
    if (g !== 0) h ^= g >>> 24;
    h = (h & ~g) >>> 0;
  }
  return h;
}

/**
 * Frozen name lists found valid: they cannot change, so each is checked once. The chain's ~1,240 slot names
 * are checked by both stub objects at every start (~0.2-0.5 ms a check, cold).
 */
const checkedLists = new WeakSet<readonly string[]>();

/**
 * Checks stub names: none empty, none holding NUL, none repeated. A frozen list found valid is not
 * checked again.
 *
 * @example Usage
 * ```ts
 * import { validateNames } from "./elf.ts";
 * validateNames(["vkA", "vkB"]);
 * ```
 * @throws {TypeError} Naming the first name at fault.
 */
export function validateNames(names: readonly string[]): void {
  if (checkedLists.has(names)) return;
  const seen = new Set<string>();
  for (const n of names) {
    if (n.length === 0 || n.includes("\0")) throw new TypeError(`Invalid stub name "${n}"`);
    if (seen.has(n)) throw new TypeError(`Duplicate stub name "${n}"`);
    seen.add(n);
  }
  if (Object.isFrozen(names)) checkedLists.add(names);
}

/**
 * The {@linkcode elfHash} of the NUL-terminated name at byte `at` of `bytes`. A function of its own, called
 * once per name: V8 compiles a small function called thousands of times sooner than it replaces a long
 * loop already running, and emission runs once per process, mostly before anything is optimised.
 */
function elfHashAt(bytes: Uint8Array, at: number): number {
  let h = 0;
  for (let c = bytes[at]!; c !== 0; c = bytes[++at]!) {
    h = (h << 4) + c;
    const g = h & 0xf0000000;
    h = (h ^ (g >>> 24)) & ~g;
  }
  return h >>> 0;
}

/**
 * The machine code of stub `index`, padded to {@linkcode STUB_SIZE} bytes.
 *
 * @example x86-64
 * ```ts
 * import { stubCode } from "./elf.ts";
 * // mov rax,[rdi]; jmp [rax+0x18]; int3 padding
 * console.log(stubCode(3, "x86_64").subarray(0, 9)); // 48 8b 07 ff a0 18 00 00 00
 * ```
 * @throws {RangeError} If `index` cannot be encoded.
 */
export function stubCode(index: number, arch: StubArch): Uint8Array {
  if (!Number.isInteger(index) || index < 0) throw new RangeError(`Invalid stub index "${index}"`);
  const out = new Uint8Array(STUB_SIZE);
  const dv = new DataView(out.buffer);
  if (arch === "x86_64") {
    if (index * 8 > 0x7fffffff) throw new RangeError(`Stub index "${index}" is too large for x86-64`);
    out.fill(0xcc); // int3: never reached, traps if it is
    out.set([0x48, 0x8b, 0x07, 0xff, 0xa0]); // mov rax,[rdi]; jmp [rax+disp32]
    dv.setInt32(5, index * 8, true);
  } else {
    if (index > 0xffff) throw new RangeError(`Stub index "${index}" is too large for aarch64`);
    const words = index <= 4095
      ? [
        0xf9400010, // ldr x16, [x0]
        (0xf9400210 | (index << 10)) >>> 0, // ldr x16, [x16, #8*index]
        0xd61f0200, // br x16
        0xd4200000, // brk #0: padding, never reached
      ]
      : [
        0xf9400010, // ldr x16, [x0]
        (0xd2800011 | (index << 5)) >>> 0, // movz x17, #index
        0xf8717a10, // ldr x16, [x16, x17, lsl #3]
        0xd61f0200, // br x16
      ];
    words.forEach((w, i) => dv.setUint32(i * 4, w, true));
  }
  return out;
}

/**
 * Layout facts of an emitted stub object, for callers that compute addresses
 * from the load base.
 */
export interface StubObject {
  /** The ELF file. */
  readonly bytes: Uint8Array;
  /** Virtual address (from the load base) of stub 0; stub N is at `textAddress + N * STUB_SIZE`. */
  readonly textAddress: number;
}

/** Options of {@linkcode emitStubObject}: how many stubs, and which one each name labels. */
export interface StubLayout {
  /** Stubs in the object (default one per name). */
  stubs?: number;
  /** The stub each name labels (default: name K labels stub K). */
  positions?: readonly number[];
  /**
   * The caller checked the names ({@linkcode validateNames}). Checking ~1,500 names made by joining a prefix
   * and a name cost ~4 ms cold: a Set hashes each joined string after flattening it.
   */
  validated?: boolean;
  /**
   * The {@linkcode elfHash} of name K, where the caller has it (`undefined` or past the end: hashed here).
   * The chain's command symbols come hashed from tools/gen.ts (vk/generated/stub_hashes.ts): hashing
   * ~1,500 names here ran one small function ~40,000 times, and that alone made V8 compile it with
   * TurboFan, which touched ~2 MiB more of Deno's code at every start.
   */
  hashes?: ArrayLike<number | undefined>;
  /**
   * `false`: the caller writes the stubs' code itself (from `textAddress`, after emission), where a
   * `write` callback would run once per stub: a small function run ~3,000 times is compiled by Maglev, and
   * the process's first optimising compile pages in ~2.4 MiB of Deno's code.
   */
  writeText?: boolean;
}

/**
 * Emits an ELF64 `ET_DYN` object exporting one stub per name: stub N (named
 * `names[N]`) jumps to slot N of the table its first argument points to.
 * With `layout.stubs` past `names.length`, some stubs are code only, found by
 * address (`textAddress + N * STUB_SIZE` from the load base): each symbol
 * costs every start a name to hash and write. `layout.positions[K]` is then
 * the stub that name K labels (default K).
 *
 * @example Usage
 * ```ts
 * import { emitStubObject } from "./elf.ts";
 * const { bytes } = emitStubObject(["vkGetDeviceQueue", "vkQueueSubmit"], "x86_64");
 * console.log(bytes.subarray(0, 4)); // 7f 45 4c 46 ("\x7fELF")
 * ```
 * @throws {TypeError} If a name is empty, repeated, or contains NUL.
 */
export function emitStubObject(
  names: readonly string[],
  arch: StubArch,
  write?: (out: Uint8Array, at: number, index: number) => void,
  layout: StubLayout = {},
): StubObject {
  const { stubs = names.length, positions } = layout;
  if (!Number.isInteger(stubs) || stubs < names.length) {
    throw new RangeError(`Invalid stub count "${stubs}": expected at least the ${names.length} names`);
  }
  // An inline loop, not `some` with a callback: a small function run ~3,000 times is compiled by Maglev.
  let badPosition = positions !== undefined && positions.length !== names.length;
  for (let i = 0; positions && !badPosition && i < positions.length; i++) {
    badPosition = !(positions[i]! >= 0 && positions[i]! < stubs);
  }
  if (badPosition) {
    throw new RangeError(`Invalid stub positions: expected one from 0 to ${stubs - 1} per name`);
  }
  const enc = new TextEncoder();
  const page = arch === "aarch64" ? 0x10000 : 0x1000;
  if (!layout.validated) validateNames(names);

  // .dynstr: "\0" then every name, each NUL-terminated, encoded in one call (the names are ASCII here: one
  // encode per name cost ~1 ms of every start for the ~2,500 chain stub names).
  const joined = `\0${names.join("\0")}\0`;
  const dynstr = enc.encode(joined);
  const nameOffsets = new Int32Array(names.length);
  if (dynstr.length === joined.length) {
    for (let i = 0, at = 1; i < names.length; at += names[i]!.length + 1, i++) nameOffsets[i] = at;
  } else {
    // Some name is not ASCII: UTF-8 lengths differ from string lengths, so find each NUL.
    for (let i = 0, at = 1; i < names.length; i++) {
      nameOffsets[i] = at;
      at = dynstr.indexOf(0, at) + 1;
    }
  }
  const strSize = dynstr.length;

  const nsyms = names.length + 1; // symbol 0 is the undefined symbol
  const nbucket = Math.max(1, Math.ceil(names.length / 2)) | 1;
  const phnum = 4;
  const hashOff = EHDR_SIZE + phnum * PHDR_SIZE;
  const hashSize = 4 * (2 + nbucket + nsyms);
  const dynsymOff = alignUp(hashOff + hashSize, 8);
  const dynstrOff = dynsymOff + nsyms * SYM_SIZE;
  const textOff = alignUp(dynstrOff + strSize, 16);
  const textSize = stubs * STUB_SIZE;
  const rxEnd = textOff + textSize;
  const dynOff = alignUp(rxEnd, 8);
  // Same offset within a page as in the file, but on a page of its own.
  const dynAddr = alignUp(dynOff, page) + (dynOff % page);
  const dynEntries: [number, number][] = [
    [DT_HASH, hashOff],
    [DT_STRTAB, dynstrOff],
    [DT_SYMTAB, dynsymOff],
    [DT_STRSZ, strSize],
    [DT_SYMENT, SYM_SIZE],
    [DT_NULL, 0],
  ];
  const dynSize = dynEntries.length * DYN_SIZE;
  const shstr = ["", ".hash", ".dynsym", ".dynstr", ".text", ".dynamic", ".shstrtab"];
  const shstrOffsets: number[] = [];
  let shstrSize = 0;
  for (const s of shstr) {
    shstrOffsets.push(shstrSize);
    shstrSize += enc.encode(s).length + 1;
  }
  const shstrOff = dynOff + dynSize;
  const shOff = alignUp(shstrOff + shstrSize, 8);
  const shnum = shstr.length;
  const total = shOff + shnum * SHDR_SIZE;

  const out = new Uint8Array(total);
  const dv = new DataView(out.buffer);
  const u16 = (o: number, v: number) => dv.setUint16(o, v, true);
  const u32 = (o: number, v: number) => dv.setUint32(o, v, true);
  const u64 = (o: number, v: number) => {
    dv.setUint32(o, v >>> 0, true);
    dv.setUint32(o + 4, Math.floor(v / 0x100000000), true);
  };

  // ELF header
  out.set([0x7f, 0x45, 0x4c, 0x46, 2, /* ELFCLASS64 */ 1, /* little endian */ 1, /* EV_CURRENT */ 0]);
  u16(16, 3); // ET_DYN
  u16(18, arch === "aarch64" ? EM_AARCH64 : EM_X86_64);
  u32(20, 1);
  u64(24, 0); // e_entry
  u64(32, EHDR_SIZE); // e_phoff
  u64(40, shOff);
  u32(48, 0); // e_flags
  u16(52, EHDR_SIZE);
  u16(54, PHDR_SIZE);
  u16(56, phnum);
  u16(58, SHDR_SIZE);
  u16(60, shnum);
  u16(62, SEC.shstrtab);

  const phdr = (
    i: number,
    type: number,
    flags: number,
    off: number,
    addr: number,
    size: number,
    align: number,
  ) => {
    const o = EHDR_SIZE + i * PHDR_SIZE;
    u32(o, type);
    u32(o + 4, flags);
    u64(o + 8, off);
    u64(o + 16, addr);
    u64(o + 24, addr);
    u64(o + 32, size);
    u64(o + 40, size);
    u64(o + 48, align);
  };
  phdr(0, PT_LOAD, PF_R | PF_X, 0, 0, rxEnd, page);
  phdr(1, PT_LOAD, PF_R | PF_W, dynOff, dynAddr, dynSize, page);
  phdr(2, PT_DYNAMIC, PF_R | PF_W, dynOff, dynAddr, dynSize, 8);
  phdr(3, PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 16);

  // .hash, .dynsym and .dynstr, through 32-bit views (ELF here is little-endian, as every host Deno runs on).
  const words = new Uint32Array(out.buffer);
  words[hashOff / 4] = nbucket;
  words[hashOff / 4 + 1] = nsyms;
  const bucket = hashOff / 4 + 2;
  const chain = bucket + nbucket;
  // Plain loops below: emission runs once per process, mostly before the JIT warms up.
  const known = layout.hashes;
  for (let i = 0; i < names.length; i++) {
    const sym = i + 1;
    const b = bucket + ((known?.[i] ?? elfHashAt(dynstr, nameOffsets[i]!)) % nbucket);
    // Prepend to the bucket's chain.
    words[chain + sym] = words[b]!;
    words[b] = sym;
  }
  for (let i = 0; i < names.length; i++) {
    const o = dynsymOff + (i + 1) * SYM_SIZE;
    const w = o / 4;
    words[w] = nameOffsets[i]!;
    out[o + 4] = (STB_GLOBAL << 4) | STT_FUNC;
    out[o + 5] = 0; // STV_DEFAULT
    out[o + 6] = SEC.text;
    words[w + 2] = textOff + (positions ? positions[i]! : i) * STUB_SIZE; // st_value (the high word stays 0)
    words[w + 4] = STUB_SIZE; // st_size
  }
  out.set(dynstr, dynstrOff);

  // .text: stub 0, copied over the rest in doubling runs, then each stub's slot offset (x86-64 encodes it
  // in a 32-bit displacement; aarch64 in instruction bits, so each stub is built there). The loop is inline:
  // a per-stub function is run often enough for Maglev to compile it.
  if (layout.writeText === false) {
    // The caller writes the code.
  } else if (write) {
    for (let i = 0; i < stubs; i++) write(out, textOff + i * STUB_SIZE, i);
  } else if (arch === "x86_64" && stubs * 8 <= 0x7fffffff) {
    out.set(stubCode(0, arch), textOff);
    for (let n = 1; n < stubs; n *= 2) {
      out.copyWithin(textOff + n * STUB_SIZE, textOff, textOff + Math.min(n, stubs - n) * STUB_SIZE);
    }
    for (let i = 1; i < stubs; i++) dv.setInt32(textOff + i * STUB_SIZE + 5, i * 8, true);
  } else {
    for (let i = 0; i < stubs; i++) out.set(stubCode(i, arch), textOff + i * STUB_SIZE);
  }

  // .dynamic
  dynEntries.forEach(([tag, val], i) => {
    u64(dynOff + i * DYN_SIZE, tag);
    u64(dynOff + i * DYN_SIZE + 8, val);
  });

  // .shstrtab and section headers
  shstr.forEach((s, i) => out.set(enc.encode(s), shstrOff + shstrOffsets[i]!));
  const shdr = (
    i: number,
    type: number,
    flags: number,
    addr: number,
    off: number,
    size: number,
    link: number,
    info: number,
    align: number,
    entsize: number,
  ) => {
    const o = shOff + i * SHDR_SIZE;
    u32(o, shstrOffsets[i]!);
    u32(o + 4, type);
    u64(o + 8, flags);
    u64(o + 16, addr);
    u64(o + 24, off);
    u64(o + 32, size);
    u32(o + 40, link);
    u32(o + 44, info);
    u64(o + 48, align);
    u64(o + 56, entsize);
  };
  shdr(SEC.hash, SHT_HASH, SHF_ALLOC, hashOff, hashOff, hashSize, SEC.dynsym, 0, 8, 4);
  shdr(SEC.dynsym, SHT_DYNSYM, SHF_ALLOC, dynsymOff, dynsymOff, nsyms * SYM_SIZE, SEC.dynstr, 1, 8, SYM_SIZE);
  shdr(SEC.dynstr, SHT_STRTAB, SHF_ALLOC, dynstrOff, dynstrOff, strSize, 0, 0, 1, 0);
  shdr(SEC.text, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, textOff, textOff, textSize, 0, 0, 16, 0);
  shdr(SEC.dynamic, SHT_DYNAMIC, SHF_ALLOC | SHF_WRITE, dynAddr, dynOff, dynSize, SEC.dynstr, 0, 8, DYN_SIZE);
  shdr(SEC.shstrtab, SHT_STRTAB, 0, 0, shstrOff, shstrSize, 0, 0, 1, 0);

  return { bytes: out, textAddress: textOff };
}
