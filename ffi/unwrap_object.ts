/**
 * The layout of the unwrap object file: every set's stubs for a list of names, set after set, then the
 * error function, then the native helpers (`ffi/native_helpers.ts`). The ELF file comes from
 * {@linkcode emitStubObject} (`ffi/elf.ts`), whose stubs are then rewritten in place: same size, same
 * symbols. `UnwrapStubs` (`ffi/unwrap_stubs.ts`) computes stub addresses from this order.
 *
 * @module
 */

import { emitStubObject, STUB_SIZE, type StubArch, validateNames } from "./elf.ts";
import {
  FILL_TABLE_SYMBOL,
  fillTableCode,
  helperCode,
  STAMPED_QUEUE_SYMBOLS,
  stampedQueueCode,
  UNWRAP_HELPERS,
} from "./native_helpers.ts";
import { errorCode, unwrapStubCode } from "./unwrap_stub_code.ts";

/** One set of unwrap stubs inside an object file. */
export interface UnwrapSet {
  /** Symbol prefix: stub N of the set is `<prefix><names[N]>`. */
  readonly prefix: string;
  /** Byte offset of the table pointer inside the object the first argument points to. */
  readonly tableOffset: number;
  /** Byte offset of the next handle inside that object. */
  readonly handleOffset: number;
  /** The `elfHash` of `<prefix><names[N]>` for each N, where the caller has it (see `StubLayout.hashes`). */
  readonly hashes?: ArrayLike<number>;
}

/** Symbol of the error function that empty table slots point to. */
export const UNWRAP_ERROR_SYMBOL = "vkdeno_unwrap_error";

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
  const fixed = [
    UNWRAP_ERROR_SYMBOL,
    ...Object.keys(UNWRAP_HELPERS),
    ...STAMPED_QUEUE_SYMBOLS,
    FILL_TABLE_SYMBOL,
  ];
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
 * import { emitUnwrapObject } from "./unwrap_object.ts";
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
  const hashes: (number | undefined)[] = [];
  // Plain loops in this function's body (not per-set callbacks): a small function looping ~1,500 times is
  // compiled by Maglev.
  for (let k = 0; k < sets.length; k++) {
    const s = sets[k]!;
    const count = Math.min(perSet, exported?.[k] ?? perSet);
    for (let i = 0; i < count; i++) {
      symbols.push(`${s.prefix}${names[i]}`);
      positions.push(k * perSet + i);
      hashes.push(s.hashes?.[i]);
    }
  }
  let at = stubs;
  symbols.push(UNWRAP_ERROR_SYMBOL);
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
  const { bytes, textAddress } = emitStubObject(symbols, arch, undefined, {
    stubs: at,
    positions,
    validated: true,
    hashes,
    writeText: false,
  });
  // Each set's stubs: the first built (and its offsets checked) once, copied over the rest in doubling runs,
  // then each one's slot offset patched; inline loops, where a per-stub callback ran ~3,000 times and was
  // compiled by Maglev (the process's first optimising compile pages in ~2.4 MiB of Deno's code).
  const dv = new DataView(bytes.buffer, bytes.byteOffset);
  for (let k = 0; k < sets.length; k++) {
    const s = sets[k]!;
    const base = textAddress + k * perSet * STUB_SIZE;
    if (arch === "x86_64") {
      bytes.set(unwrapStubCode(0, s.tableOffset, s.handleOffset, arch), base);
      for (let n = 1; n < perSet; n *= 2) {
        bytes.copyWithin(base + n * STUB_SIZE, base, base + Math.min(n, perSet - n) * STUB_SIZE);
      }
      for (let i = 1; i < perSet; i++) dv.setInt32(base + i * STUB_SIZE + 10, i * 8, true);
    } else {
      for (let i = 0; i < perSet; i++) {
        bytes.set(unwrapStubCode(i, s.tableOffset, s.handleOffset, arch), base + i * STUB_SIZE);
      }
    }
  }
  bytes.set(errorCode(arch), textAddress + stubs * STUB_SIZE);
  for (const h of helpers) bytes.set(h.code, textAddress + h.at * STUB_SIZE);
  return bytes;
}
