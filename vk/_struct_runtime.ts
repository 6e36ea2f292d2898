/**
 * What the generated struct writers and readers (`generated/struct_*.js`) call: the checked stores of one
 * member (small, so V8 inlines them into each writer's monomorphic code), arrays, strings and pNext structs
 * written in place into a {@linkcode Scratch}, and the errors naming the struct and member.
 *
 * @module
 */
import {
  integerExpected,
  integerHint,
  type IntegerKind,
  integerValue,
  isBitMask,
  isPointerObject,
  isWideNumber,
  scalarExpects,
  shownValue,
} from "./scalar.ts";
import { FULL, type Scratch } from "../ffi/scratch.ts";
import { bytesOf, isBytes } from "../ffi/memory.ts";
import { findLayout, layoutOf } from "./struct_layout.ts";
import { ENDED_HANDLES } from "./handle.ts";

/** A generated writer: `v` as the struct at byte `o` of `m`; `k` extra keys allowed (a pNext struct's type). */
export type StructWriterFn = (m: Scratch, o: number, v: unknown, k: number) => void;
/** A generated reader: the struct at byte `o` of `m` as a plain object. */
export type StructReaderFn = (m: Scratch, o: number) => Record<string, unknown>;
/** A struct's generated writer and reader, with its size and alignment. */
export type StructEntry = readonly [StructWriterFn, StructReaderFn, number, number];

const TWO_32 = 4294967296;

/** A struct's entry by name: set by vk/marshal.ts, which imports the generated index. */
let entryOf: (name: string) => StructEntry | undefined = () => undefined;

/** Where the generated writers find other structs' entries (extending structs, structs of another file). */
export function setStructEntries(lookup: (name: string) => StructEntry | undefined): void {
  entryOf = lookup;
}

function named(name: string): StructEntry {
  const entry = entryOf(name);
  if (!entry) throw new TypeError(`Unknown struct "${name}": not in the generated layouts`);
  return entry;
}

/** Writes struct `name` (of another generated file) at byte `o`. */
export function writeNamed(name: string, m: Scratch, o: number, x: unknown, k: number): void {
  named(name)[0](m, o, x, k);
}

/** Reads struct `name` (of another generated file) at byte `o`. */
export function readNamed(name: string, m: Scratch, o: number): Record<string, unknown> {
  return named(name)[1](m, o);
}

/**
 * Writes a pNext chain (a pointer, one extending struct `{ type, ...members }` or a list of them) and its
 * address at byte `o`.
 */
export function writeChain(m: Scratch, o: number, x: unknown, owner: string): void {
  if (x === null || typeof x !== "object" || isPointerObject(x)) {
    putPointer(m, o, x, owner, "pNext");
    return;
  }
  chainLinks(m, o, x, owner, entryOf);
}

/** Writes a member holding an array of pointers to structs `name` (`const T* const*`): its length. */
export function structPointers(
  m: Scratch,
  o: number,
  x: unknown,
  name: string,
  owner: string,
  member: string,
): number {
  return pointerLinks(m, o, x, entryOf(name), owner, member);
}
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function where(struct: string, member: string): string {
  return `member "${member}" of "${struct}"`;
}

/** Throws the writer's error for a value member `member` of `struct` cannot take. */
export function badValue(struct: string, member: string, value: unknown, expected: string): never {
  throw new TypeError(`Cannot write ${shownValue(value)} to ${where(struct, member)}: expected ${expected}`);
}

/**
 * Throws for a member literal `v` of `struct` must give (docs/behaviour.md V13), given as undefined or null:
 * `what` it is, "pointer" or a handle's type. A key of `v` that is no member is told first: a misspelled
 * member is the likely cause.
 */
export function missing(v: unknown, struct: string, member: string, value: unknown, what = "pointer"): never {
  unknown(v, struct);
  throw new TypeError(
    `Cannot write "${struct}": member "${member}" is a required ${
      what === "pointer" ? what : `${what} handle`
    } (vk.xml: not optional), got ${value}`,
  );
}

/** Throws for two arrays of `struct` sharing count member `count` with different lengths. */
export function mismatch(struct: string, count: string, a: string, na: number, b: string, nb: number): never {
  throw new RangeError(`Cannot fill "${count}" of "${struct}": "${a}" has ${na} and "${b}" has ${nb}`);
}

/**
 * Checks a count member given beside its array (`commandBufferCount` and `pCommandBuffers`): a count above the
 * array's length would have the driver read past its end (docs/behaviour.md V15); a smaller one is C's own
 * use of the array's first elements. `unit` is what the count counts ("byte" for `codeSize`).
 */
export function covers(
  x: unknown,
  n: number,
  struct: string,
  count: string,
  array: string,
  unit = "element",
): void {
  if (Number(x) > n) {
    throw new RangeError(
      `Cannot write ${shownValue(x)} to ${where(struct, count)}: "${array}" has ${n} ${unit}${
        n === 1 ? "" : "s"
      }`,
    );
  }
}

/**
 * Throws for count member `count` of literal `v` (of `struct`), `x` (given, or filled from another array),
 * not 0 while `array`, which vk.xml does not let be null, is left out or null (docs/behaviour.md V15): the
 * driver would read `x` elements from address 0. A misspelled member is told first.
 */
export function absent(v: unknown, struct: string, count: string, x: unknown, array: string): never {
  unknown(v, struct);
  const literal = v as Record<string, unknown>;
  const what = literal[count] === undefined
    ? `Cannot fill "${count}" of "${struct}" with ${shownValue(x)}`
    : `Cannot write ${shownValue(x)} to ${where(struct, count)}`;
  throw new RangeError(`${what}: "${array}" has no elements (got ${literal[array]})`);
}

/** The known name closest to `key` by edit distance, if close enough to be a likely misspelling. */
function closest(key: string, names: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(key.length / 3)) + 1;
  for (const name of names) {
    const d = distance(key.toLowerCase(), name.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  return best;
}

/** Levenshtein distance (insertions, deletions and substitutions). */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return row[b.length]!;
}

/** Throws for the first key of `v` that is not a member of `struct` (`type` names an extending struct). */
export function unknown(v: unknown, struct: string): void {
  const members = layoutOf(struct).members.map((m) => m.name);
  for (const key of Object.keys(v as object)) {
    if (key !== "type" && !members.includes(key)) {
      const hint = closest(key, members);
      throw new TypeError(
        `Unknown member "${key}" of "${struct}"${hint === undefined ? "" : ` (did you mean "${hint}"?)`}`,
      );
    }
  }
}

/** An element of an array of structs, checked to be an object (its index is added by {@linkcode inElement}). */
export function element(x: unknown, struct: string, member: string): unknown {
  if (typeof x !== "object" || x === null || Array.isArray(x)) {
    throw new TypeError(`Cannot write ${where(struct, member)}: expected an object, got ${shownValue(x)}`);
  }
  return x;
}

/**
 * Error `e`, thrown writing element `i` of array member `member`, with the element's place before its message
 * (`pQueueCreateInfos[1]: Cannot write ...`; nested arrays add theirs in front): the same class, `e` its
 * cause. The scratch's {@linkcode FULL} passes through, as does any other error.
 */
export function inElement(e: unknown, member: string, i: number): unknown {
  if (e === FULL || !(e instanceof TypeError || e instanceof RangeError)) return e;
  const Class = e instanceof RangeError ? RangeError : TypeError;
  const rest = /^\w+\[\d+\][.:]/.test(e.message) ? `.${e.message}` : `: ${e.message}`;
  return new Class(`${member}[${i}]${rest}`, { cause: e });
}

/** A floating-point member's value as a number. */
export function num(v: unknown, struct: string, member: string): number {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "bigint") return Number(BigInt.asIntN(64, v));
  return badValue(struct, member, v, "a number");
}

// The integer stores: a number that fits is stored after one bitwise test; anything else goes to `integer`,
// which takes a boolean or a bigint that fits and refuses the rest naming the member (docs/behaviour.md V14),
// where the typed-array store alone would keep the low bits. `i`, given for an array's element, is its index.

/** Stores `v` as a `uint8_t` at byte `o`: an integer from 0 to 255 (else throws); 1 (one member written). */
export function u8(m: Scratch, o: number, v: unknown, struct: string, member: string, i = -1): number {
  m.u8[o] = typeof v === "number" && (v & 0xff) === v ? v : integer(v, "u8", struct, member, i);
  return 1;
}

/** Stores `v` as an `int8_t` at byte `o`: an integer from -128 to 127 (else throws); 1. */
export function i8(m: Scratch, o: number, v: unknown, struct: string, member: string, i = -1): number {
  m.i8[o] = typeof v === "number" && (v << 24) >> 24 === v ? v : integer(v, "i8", struct, member, i);
  return 1;
}

/** Stores `v` as a `uint16_t` at byte `o`: an integer from 0 to 65535 (else throws); 1. */
export function u16(m: Scratch, o: number, v: unknown, struct: string, member: string, i = -1): number {
  m.u16[o >> 1] = typeof v === "number" && (v & 0xffff) === v ? v : integer(v, "u16", struct, member, i);
  return 1;
}

/** Stores `v` as an `int16_t` at byte `o`: an integer from -32768 to 32767 (else throws); 1. */
export function i16(m: Scratch, o: number, v: unknown, struct: string, member: string, i = -1): number {
  m.i16[o >> 1] = typeof v === "number" && (v << 16) >> 16 === v ? v : integer(v, "i16", struct, member, i);
  return 1;
}

/**
 * Stores `v` as a 32-bit unsigned integer (flags, enums, counts) at byte `o`: an integer from 0 to
 * 2^32 - 1 (else throws); 1.
 */
export function u32(m: Scratch, o: number, v: unknown, struct: string, member: string, i = -1): number {
  m.u32[o >> 2] = typeof v === "number" && v >>> 0 === v ? v : integer(v, "u32", struct, member, i);
  return 1;
}

/**
 * Stores `v` as a VkBool32 at byte `o`: true or false, or 1 or 0 (else throws: the specification allows
 * VK_TRUE and VK_FALSE only, and a driver may test the word against VK_TRUE); 1.
 */
export function bool(m: Scratch, o: number, v: unknown, struct: string, member: string, i = -1): number {
  m.u32[o >> 2] = v === true || v === 1
    ? 1
    : v === false || v === 0
    ? 0
    : integer(v, "bool", struct, member, i);
  return 1;
}

/** Stores `v` as an `int32_t` at byte `o`: an integer from -2^31 to 2^31 - 1 (else throws); 1. */
export function i32(m: Scratch, o: number, v: unknown, struct: string, member: string, i = -1): number {
  m.i32[o >> 2] = typeof v === "number" && (v | 0) === v ? v : integer(v, "i32", struct, member, i);
  return 1;
}

/**
 * An integer member's value of `kind` given as other than a number that fits its store's test: a boolean (1
 * or 0), a bigint or a number in range, else the error naming the member (and element `i`, if not -1).
 */
function integer(v: unknown, kind: IntegerKind, struct: string, member: string, i: number): number {
  const n = integerValue(v, kind);
  if (n !== undefined) return n;
  const place = `${where(struct, member)}${i < 0 ? "" : ` element ${i}`}`;
  if (typeof v !== "number" && typeof v !== "bigint") {
    throw new TypeError(
      `Cannot write ${shownValue(v)} to ${place}: expected ${kind === "bool" ? "a boolean" : "a number"}`,
    );
  }
  const type = kind === "u32" ? findLayout(struct)?.members.find((m) => m.name === member)?.type : undefined;
  const mask = type !== undefined && isBitMask(type, member);
  throw new RangeError(
    `Cannot write ${shownValue(v)} to ${place}: expected ${integerExpected(kind)}${
      integerHint(v, kind, mask)
    }`,
  );
}

/** Stores `v` as a `float` at byte `o`: 1. */
export function f32(m: Scratch, o: number, v: unknown, struct: string, member: string): number {
  m.f32[o >> 2] = num(v, struct, member);
  return 1;
}

/** Stores `v` as a `double` at byte `o`: 1. */
export function f64(m: Scratch, o: number, v: unknown, struct: string, member: string): number {
  m.f64[o >> 3] = num(v, struct, member);
  return 1;
}

/**
 * Stores an unsigned 64-bit integer at byte `o`: a bigint (converted as C converts it), a non-negative safe
 * integer, a boolean, or a pointer; 1.
 */
export function put64(m: Scratch, o: number, v: unknown, struct: string, member: string): number {
  if (typeof v === "bigint") {
    m.u64[o >> 3] = v;
  } else if (typeof v === "number" && v >= 0 && Number.isSafeInteger(v)) {
    m.u32[o >> 2] = v; // a Uint32Array store keeps the value modulo 2^32 (no `%`: V8 calls C for a double's)
    m.u32[(o >> 2) + 1] = v / TWO_32;
  } else if (typeof v === "boolean") {
    m.u32[o >> 2] = v ? 1 : 0;
  } else if (v === null || isPointerObject(v)) {
    putPointer(m, o, v, struct, member);
  } else {
    badValue(struct, member, v, scalarExpects("u64"));
  }
  return 1;
}

/** Stores a signed 64-bit integer at byte `o`: as {@linkcode put64}, and a negative safe integer; 1. */
export function puti64(m: Scratch, o: number, v: unknown, struct: string, member: string): number {
  if (typeof v === "number" && v < 0 && isWideNumber(v, true)) m.u64[o >> 3] = BigInt(v);
  else if (typeof v === "number" && !isWideNumber(v, true)) badValue(struct, member, v, scalarExpects("i64"));
  else put64(m, o, v, struct, member);
  return 1;
}

/**
 * Stores a pointer or handle at byte `o` (element `i` of an array when >= 0): a pointer object, null, or an
 * address; 1.
 */
export function putPointer(
  m: Scratch,
  o: number,
  v: unknown,
  struct: string,
  member: string,
  i = -1,
): number {
  if (v === null) return 1;
  if (isPointerObject(v)) {
    // A handle VkApi ended never reaches the driver inside a struct either (docs/behaviour.md V11).
    if (ENDED_HANDLES.has(v)) ended(v, struct, member, i);
    m.u64[o >> 3] = Deno.UnsafePointer.value(v);
  } else if (typeof v === "bigint" || typeof v === "number" || typeof v === "boolean") {
    put64(m, o, v, struct, member);
  } else badValue(struct, member, v, scalarExpects("pointer"));
  return 1;
}

/** Throws for handle `h`, which VkApi ended, given as member `member` of `struct` (element `i` when >= 0). */
function ended(h: object, struct: string, member: string, i: number): never {
  const at = Deno.UnsafePointer.value(h as Deno.PointerObject).toString(16);
  throw new TypeError(
    `Cannot write ${where(struct, member)}${i >= 0 ? ` element ${i}` : ""}: 0x${at} ${ENDED_HANDLES.get(h)}`,
  );
}

/** Stores address `a` (a number) at byte `o`. */
export function putAddress(m: Scratch, o: number, a: number): void {
  m.u32[o >> 2] = a; // modulo 2^32, as in put64
  m.u32[(o >> 2) + 1] = a / TWO_32;
}

/** The pointer at byte `o`: a pointer object, or null for 0. */
export function getPointer(m: Scratch, o: number): Deno.PointerValue {
  return m.readPointer(o);
}

/**
 * Writes a bit-field of `width` bits at bit `shift` of the 32-bit unit at byte `o`: an integer from 0 to
 * 2^width - 1 (else throws), so a value never bleeds into the neighbouring fields.
 */
export function bits(
  m: Scratch,
  o: number,
  width: number,
  shift: number,
  x: unknown,
  struct: string,
  member: string,
): void {
  const max = 2 ** width - 1;
  const v = typeof x === "number" && x >>> 0 === x && x <= max ? x : integer(x, width, struct, member, -1);
  const mask = max * 2 ** shift;
  m.u32[o >> 2] = ((m.u32[o >> 2]! & ~mask) | (v << shift)) >>> 0;
}

/**
 * Stores element `i` of kind `kind` at byte `c` (integers out of range throw naming the index). `char` takes
 * either signedness (-128 to 255), as C's `char` is either; `bytes` (a `void*` given as numbers) are `uint8_t`.
 */
function putElement(
  m: Scratch,
  c: number,
  kind: string,
  x: unknown,
  struct: string,
  member: string,
  i: number,
): void {
  switch (kind) {
    case "u8":
    case "bytes":
      u8(m, c, x, struct, member, i);
      return;
    case "char":
      m.u8[c] = integer(x, "char", struct, member, i) & 0xff;
      return;
    case "i8":
      i8(m, c, x, struct, member, i);
      return;
    case "u16":
      u16(m, c, x, struct, member, i);
      return;
    case "i16":
      i16(m, c, x, struct, member, i);
      return;
    case "u32":
      u32(m, c, x, struct, member, i);
      return;
    case "i32":
      i32(m, c, x, struct, member, i);
      return;
    case "bool":
      bool(m, c, x, struct, member, i);
      return;
    case "f32":
      m.f32[c >> 2] = num(x, struct, member);
      return;
    case "f64":
      m.f64[c >> 3] = num(x, struct, member);
      return;
    case "pointer":
      putPointer(m, c, x, struct, member);
      return;
    case "i64":
      puti64(m, c, x, struct, member);
      return;
    default:
      put64(m, c, x, struct, member);
  }
}

/** Copies bytes into new scratch memory aligned for elements of `size` bytes: the offset. */
function copyBytes(m: Scratch, x: ArrayBufferView | ArrayBuffer, size: number): number {
  const bytes = bytesOf(x);
  const c = m.alloc(bytes.byteLength, Math.min(Math.max(size, 1), 8));
  m.u8.set(bytes, c);
  return c;
}

/**
 * Writes what a pointer member points to when it is given as a pointer, null, an address or bytes; returns
 * the element count of bytes, -1 for a pointer, or -2 when `x` is an object or array the caller writes.
 */
export function pointee(
  m: Scratch,
  o: number,
  x: unknown,
  size: number,
  struct: string,
  member: string,
): number {
  if (Array.isArray(x)) return -2;
  if (x === null || typeof x === "bigint" || isPointerObject(x)) {
    putPointer(m, o, x, struct, member);
    return -1;
  }
  if (typeof x !== "object") {
    return badValue(struct, member, x, "an array, an object, a typed array or a pointer");
  }
  if (!isBytes(x)) return -2;
  const c = copyBytes(m, x, size);
  putAddress(m, o, m.base + c);
  return x.byteLength / size;
}

/**
 * Writes an array member of scalars, handles or bytes (`kind`, `size` bytes each) into new scratch memory
 * and its address at byte `o`: an array, a typed array (copied as bytes), or a pointer. Returns the element
 * count, or -1 for a pointer.
 */
export function array(
  m: Scratch,
  o: number,
  x: unknown,
  kind: string,
  size: number,
  struct: string,
  member: string,
): number {
  const t = pointee(m, o, x, size, struct, member);
  if (t !== -2) return t;
  if (!Array.isArray(x)) return badValue(struct, member, x, "an array, a typed array or a pointer");
  const n = x.length;
  if (n === 0) return 0;
  const step = kind === "bytes" ? 1 : size;
  const c = m.alloc(step * n, Math.min(step, 8));
  for (let i = 0; i < n; i++) putElement(m, c + i * step, kind, x[i], struct, member, i);
  putAddress(m, o, m.base + c);
  return n;
}

/**
 * Writes an array member of handles of `type` whose elements vk.xml requires valid (docs/behaviour.md V12): as
 * {@linkcode array}, but a null or undefined element throws naming the struct, the member and the index.
 */
export function handles(
  m: Scratch,
  o: number,
  x: unknown,
  type: string,
  struct: string,
  member: string,
): number {
  if (!Array.isArray(x)) return array(m, o, x, "pointer", 8, struct, member);
  const n = x.length;
  if (n === 0) return 0;
  const c = m.alloc(8 * n, 8);
  for (let i = 0; i < n; i++) {
    const h: unknown = x[i];
    if (h == null) {
      throw new TypeError(
        `Cannot write ${
          where(struct, member)
        } element ${i}: expected a ${type} handle, got ${h} (VK_NULL_HANDLE is not valid here)`,
      );
    }
    putPointer(m, c + 8 * i, h, struct, member, i);
  }
  putAddress(m, o, m.base + c);
  return n;
}

/** Writes a `const char*` member: a string (copied, NUL-terminated) or a pointer; its byte length or -1. */
export function str(m: Scratch, o: number, x: unknown, struct: string, member: string): number {
  if (typeof x === "string") {
    const c = m.cstring(x);
    putAddress(m, o, m.base + c);
    return m.top - c - 1;
  }
  const t = pointee(m, o, x, 1, struct, member);
  if (t === -2) return badValue(struct, member, x, "a string or a pointer");
  return t;
}

/** Writes a `const char* const*` member: an array of strings or a pointer; the count, or -1. */
export function strings(m: Scratch, o: number, x: unknown, struct: string, member: string): number {
  if (!Array.isArray(x)) {
    const t = pointee(m, o, x, 8, struct, member);
    if (t === -2) return badValue(struct, member, x, "an array of strings or a pointer");
    return t;
  }
  const n = x.length;
  if (n === 0) return 0;
  const c = m.alloc(8 * n, 8);
  for (let i = 0; i < n; i++) {
    const s: unknown = x[i];
    if (typeof s !== "string") badValue(struct, member, s, "strings");
    putAddress(m, c + 8 * i, m.base + m.cstring(s));
  }
  putAddress(m, o, m.base + c);
  return n;
}

/** Writes a fixed-size array member in place: an array or a typed array of at most `count` elements. */
export function fixedArray(
  m: Scratch,
  o: number,
  kind: string,
  step: number,
  count: number,
  x: unknown,
  struct: string,
  member: string,
): void {
  const list = isBytes(x) && !(x instanceof DataView) && !(x instanceof ArrayBuffer)
    ? Array.from(x as unknown as ArrayLike<unknown>)
    : x;
  if (!Array.isArray(list)) throw new TypeError(`Cannot write ${where(struct, member)}: expected an array`);
  if (list.length > count) {
    throw new RangeError(`Cannot write ${where(struct, member)}: ${list.length} elements, room for ${count}`);
  }
  for (let i = 0; i < list.length; i++) putElement(m, o + i * step, kind, list[i], struct, member, i);
}

/** Writes a `char[count]` member in place: a string (NUL-terminated, must fit) or an array of numbers. */
export function fixedString(
  m: Scratch,
  o: number,
  count: number,
  x: unknown,
  struct: string,
  member: string,
): void {
  if (typeof x !== "string") return fixedArray(m, o, "char", 1, count, x, struct, member);
  const bytes = encoder.encode(x);
  if (bytes.length >= count) {
    throw new RangeError(
      `Cannot write ${where(struct, member)}: "${x}" needs ${bytes.length + 1} of ${count} bytes`,
    );
  }
  m.u8.fill(0, o, o + count);
  m.u8.set(bytes, o);
}

/** Reads a `char[count]` member: the UTF-8 text up to its first NUL. */
export function fixedStringAt(m: Scratch, o: number, count: number): string {
  const bytes = m.u8.subarray(o, o + count);
  const end = bytes.indexOf(0);
  return decoder.decode(end < 0 ? bytes : bytes.subarray(0, end));
}

/** Reads a fixed-size array member of `count` scalars of `kind`. */
export function fixedArrayAt(m: Scratch, o: number, kind: string, step: number, count: number): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < count; i++) {
    const c = o + i * step;
    switch (kind) {
      case "u8":
        out.push(m.u8[c]);
        break;
      case "i8":
        out.push(m.i8[c]);
        break;
      case "u16":
        out.push(m.u16[c >> 1]);
        break;
      case "i16":
        out.push(m.i16[c >> 1]);
        break;
      case "u32":
        out.push(m.u32[c >> 2]);
        break;
      case "i32":
        out.push(m.i32[c >> 2]);
        break;
      case "f32":
        out.push(m.f32[c >> 2]);
        break;
      case "f64":
        out.push(m.f64[c >> 3]);
        break;
      case "u64":
        out.push(m.u64[c >> 3]);
        break;
      case "i64":
        out.push(m.i64[c >> 3]);
        break;
      default:
        out.push(getPointer(m, c));
    }
  }
  return out;
}

/**
 * Writes the links of a pNext chain given as one `{ type, ...members }` object or a list of them (a pointer
 * may end the list) into new scratch memory, linked in order, and the first one's address at byte `o`.
 */
export function chainLinks(
  m: Scratch,
  o: number,
  x: object,
  owner: string,
  entryOf: (name: string) => StructEntry | undefined,
): void {
  const list = Array.isArray(x) ? x : undefined;
  const n = list ? list.length : 1;
  let at = o;
  for (let i = 0; i < n; i++) {
    const link: unknown = list ? list[i] : x;
    if (link === null || isPointerObject(link)) {
      if (i !== n - 1) {
        throw new TypeError(`Cannot link pNext of "${owner}": a raw pointer may only end the chain`);
      }
      putPointer(m, at, link, owner, "pNext");
      return;
    }
    const type = typeof link === "object" ? (link as { type?: unknown }).type : undefined;
    if (typeof type !== "string") {
      throw new TypeError(`Cannot link pNext of "${owner}": each entry needs a "type" naming its struct`);
    }
    const entry = entryOf(type);
    if (!entry) throw new TypeError(`Unknown struct "${type}": not in the generated layouts`);
    // A link's own chain may go on only from the list's last link; null (a struct read back through VkApi)
    // is none (docs/behaviour.md V16).
    const next = (link as { pNext?: unknown }).pNext;
    if (i !== n - 1 && next != null) {
      throw new TypeError(`Cannot link pNext of "${type}": it is given both in a list and as "pNext"`);
    }
    const c = m.alloc(entry[2], entry[3]);
    entry[0](m, c, link, 1);
    putAddress(m, at, m.base + c);
    at = c + 8;
  }
}

/** Writes an array of pointers to structs (`const T* const*`): objects are written, pointers kept; its length. */
export function pointerLinks(
  m: Scratch,
  o: number,
  x: unknown,
  entry: StructEntry | undefined,
  struct: string,
  member: string,
): number {
  const t = pointee(m, o, x, 8, struct, member);
  if (t !== -2) return t;
  if (!Array.isArray(x) || !entry) return badValue(struct, member, x, "an array or a pointer");
  const n = x.length;
  if (n === 0) return 0;
  const c = m.alloc(8 * n, 8);
  for (let i = 0; i < n; i++) {
    const v: unknown = x[i];
    if (v === null || isPointerObject(v)) putPointer(m, c + 8 * i, v, struct, member);
    else {
      const s = m.alloc(entry[2], entry[3]);
      try {
        entry[0](m, s, element(v, struct, member), 0);
      } catch (e) {
        throw inElement(e, member, i);
      }
      putAddress(m, c + 8 * i, m.base + s);
    }
  }
  putAddress(m, o, m.base + c);
  return n;
}
