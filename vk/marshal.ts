/**
 * Entry points over the generated struct writers and readers (`generated/struct_marshal.js`): a struct's
 * entry by name, and writing top-level structs into a {@linkcode Scratch}, starting again on a larger one
 * when they do not fit. What `writeStruct`, `readStruct` and the idiomatic API share.
 *
 * @module
 */
import { FULL, Scratch } from "../ffi/scratch.ts";
import { setStructEntries, type StructEntry } from "./_struct_runtime.ts";
import { structEntry } from "./generated/struct_marshal.js";

export type { StructEntry };
/** The pNext chain writer and pointer reader of the generated code, for the idiomatic API's compiled calls. */
export { getPointer, writeChain } from "./_struct_runtime.ts";

/**
 * Struct `name`'s generated writer, reader, size and alignment (aliases followed).
 *
 * @example Usage
 * ```ts
 * import { entryOf } from "./marshal.ts";
 * console.log(entryOf("VkExtent2D")[2]); // 8
 * ```
 * @throws {TypeError} If vk.xml has no struct or union of that name.
 */
export function entryOf(name: string): StructEntry {
  let entry = entries.get(name);
  if (entry === undefined) {
    entry = structEntry(name);
    if (!entry) throw new TypeError(`Unknown struct "${name}": not in the generated layouts`);
    entries.set(name, entry);
  }
  return entry;
}

/** Entries by name (aliases too) once asked for: the generated tables are large objects, slower to search. */
const entries = new Map<string, StructEntry>();
setStructEntries((name) => entries.get(name) ?? structEntry(name));

/** Throws the writer's error for an array element that is not an object. */
function notObject(name: string, i: number): never {
  throw new TypeError(`Cannot write element ${i} of "${name}[]": expected an object`);
}

/**
 * Writes `values` as consecutive structs of `entry` into `m`: the first one's offset (for no values, one
 * zeroed struct with its sType).
 *
 * @throws {RangeError} {@linkcode FULL} when they do not fit (the caller starts again on a larger scratch).
 */
export function writeArrayInto(
  m: Scratch,
  entry: StructEntry,
  name: string,
  values: readonly unknown[],
): number {
  const [write, , size, align] = entry;
  const n = values.length;
  const c = m.alloc(size * (n === 0 ? 1 : n), align);
  if (n === 0) write(m, c, {}, 0);
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (typeof v !== "object" || v === null || Array.isArray(v)) notObject(name, i);
    write(m, c + i * size, v, 0);
  }
  return c;
}

/**
 * Writes one struct `v` of `entry` into `m`: its offset.
 *
 * @throws {RangeError} {@linkcode FULL} when it does not fit.
 */
export function writeOneInto(m: Scratch, entry: StructEntry, v: unknown): number {
  const c = m.alloc(entry[2], entry[3]);
  entry[0](m, c, v, 0);
  return c;
}

/**
 * Runs `write` on `m`, or, when what it writes does not fit, on new scratches twice as large as the last
 * until it fits (each handed to `keep`, which must keep it alive as long as C may read it). Returns the
 * scratch it fitted in and the offset `write` returned.
 */
export function writeGrowing<T>(
  m: Scratch,
  write: (m: Scratch) => number,
  keep: (m: Scratch) => void,
  out: (m: Scratch, offset: number) => T,
): T {
  const top = m.top;
  try {
    return out(m, write(m));
  } catch (e) {
    if (e !== FULL) throw e;
    m.top = top;
  }
  for (let size = Math.max(4096, m.size * 2);; size *= 2) {
    const big = new Scratch(size);
    try {
      const offset = write(big);
      keep(big);
      return out(big, offset);
    } catch (e) {
      if (e !== FULL) throw e;
    }
  }
}
