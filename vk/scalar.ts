/**
 * One scalar in native memory: the kinds a value is stored as (Deno's FFI types plus `bool`, a VkBool32)
 * and the one reader and writer of a kind at an offset of a DataView, shared by the struct layouts and the
 * idiomatic API.
 *
 * @module
 */

/**
 * How one scalar is stored: Deno's FFI native types (64-bit integers read as bigints, `usize`/`isize` as
 * numbers, `pointer`/`function` as `Deno.PointerValue`) and `bool`, a 32-bit VkBool32 read as a boolean.
 */
export type ScalarKind =
  | "u8"
  | "i8"
  | "u16"
  | "i16"
  | "u32"
  | "i32"
  | "u64"
  | "i64"
  | "usize"
  | "isize"
  | "f32"
  | "f64"
  | "bool"
  | "pointer"
  | "function";

/** What {@linkcode readScalar} returns for kind `K`. */
export type ScalarValue<K extends ScalarKind = ScalarKind> = K extends "bool" ? boolean
  : K extends "u64" | "i64" ? bigint
  : K extends "pointer" | "function" ? Deno.PointerValue
  : number;

const SIZES: Readonly<Record<ScalarKind, number>> = {
  u8: 1,
  i8: 1,
  u16: 2,
  i16: 2,
  u32: 4,
  i32: 4,
  bool: 4,
  f32: 4,
  u64: 8,
  i64: 8,
  usize: 8,
  isize: 8,
  f64: 8,
  pointer: 8,
  function: 8,
};

/**
 * The byte size of a scalar kind.
 *
 * @example Usage
 * ```ts
 * import { scalarSize } from "./scalar.ts";
 * console.log(scalarSize("u16"), scalarSize("bool"), scalarSize("pointer")); // 2 4 8
 * ```
 */
export function scalarSize(kind: ScalarKind): number {
  return SIZES[kind];
}

/**
 * True for a `Deno.PointerObject` (a null-prototype object), as opposed to a plain object literal.
 *
 * @example Usage
 * ```ts
 * import { isPointerObject } from "./scalar.ts";
 * console.log(isPointerObject(Deno.UnsafePointer.create(8n)), isPointerObject({})); // true false
 * ```
 */
export function isPointerObject(value: unknown): value is Deno.PointerObject {
  // `instanceof Object` is inlined by the JIT (~1 ns); `Object.getPrototypeOf` is a runtime call (~30 ns), and
  // this runs several times per idiomatic call. Both say the same for a pointer object and any literal.
  return typeof value === "object" && value !== null && !(value instanceof Object);
}

/**
 * Reads one `kind` scalar at `offset` of `view` (little-endian).
 *
 * @example Usage
 * ```ts
 * import { readScalar } from "./scalar.ts";
 * const view = new DataView(new BigUint64Array([1n]).buffer);
 * console.log(readScalar(view, 0, "u64"), readScalar(view, 0, "bool")); // 1n true
 * ```
 */
export function readScalar<K extends ScalarKind>(view: DataView, offset: number, kind: K): ScalarValue<K>;
export function readScalar(view: DataView, offset: number, kind: ScalarKind): ScalarValue {
  switch (kind) {
    case "u8":
      return view.getUint8(offset);
    case "i8":
      return view.getInt8(offset);
    case "u16":
      return view.getUint16(offset, true);
    case "i16":
      return view.getInt16(offset, true);
    case "i32":
      return view.getInt32(offset, true);
    case "bool":
      return view.getUint32(offset, true) !== 0;
    case "f32":
      return view.getFloat32(offset, true);
    case "f64":
      return view.getFloat64(offset, true);
    case "u64":
      return view.getBigUint64(offset, true);
    case "i64":
      return view.getBigInt64(offset, true);
    case "usize":
    case "isize":
      return Number(view.getBigUint64(offset, true));
    case "pointer":
    case "function":
      return Deno.UnsafePointer.create(view.getBigUint64(offset, true));
    default:
      return view.getUint32(offset, true);
  }
}

/**
 * What a `kind` scalar is written from, for error messages: a bigint or a safe integer for 64-bit kinds
 * (a pointer too for pointers), "a number" for the others (all also take booleans, as 1 and 0).
 *
 * @example Usage
 * ```ts
 * import { scalarExpects } from "./scalar.ts";
 * console.log(scalarExpects("u64")); // a bigint or a non-negative safe integer
 * ```
 */
export function scalarExpects(kind: ScalarKind): string {
  if (SIZES[kind] !== 8 || kind === "f64") return "a number";
  const integer = `a bigint or a ${SIGNED.has(kind) ? "" : "non-negative "}safe integer`;
  return kind === "pointer" || kind === "function" ? `a pointer, ${integer.replace(" or", ",")}` : integer;
}

const SIGNED: ReadonlySet<ScalarKind> = new Set(["i64", "isize"]);

/**
 * An integer type narrower than 64 bits: its scalar kind, `char` (either signedness: the bytes of UTF-8 text
 * too), `bool` (a VkBool32: VK_TRUE or VK_FALSE only), or a number, the width of an unsigned bit-field.
 */
export type IntegerKind = "u8" | "i8" | "u16" | "i16" | "u32" | "i32" | "char" | "bool" | number;

const INTEGERS: Readonly<Record<Exclude<IntegerKind, number>, readonly [number, number, string]>> = {
  u8: [0, 0xff, "uint8_t"],
  i8: [-0x80, 0x7f, "int8_t"],
  char: [-0x80, 0xff, "char"],
  u16: [0, 0xffff, "uint16_t"],
  i16: [-0x8000, 0x7fff, "int16_t"],
  u32: [0, 0xffffffff, "uint32_t"],
  i32: [-0x80000000, 0x7fffffff, "int32_t"],
  bool: [0, 1, "VkBool32"],
};

/** The lowest and highest value of `kind` and its name in C. */
function rangeOf(kind: IntegerKind): readonly [number, number, string] {
  return typeof kind === "number" ? [0, 2 ** kind - 1, `${kind}-bit field`] : INTEGERS[kind];
}

/**
 * An integer of `kind` (a count, an index, flags, an enum, a byte, a bit-field) given as `v`: a number that
 * fits, a boolean (1 or 0) or a bigint that fits, as a number; `undefined` for anything else, which C would
 * truncate to its low bits without a word (docs/behaviour.md V14; {@linkcode integerExpected} says what was
 * expected).
 *
 * @example Usage
 * ```ts
 * import { integerValue } from "./scalar.ts";
 * console.log(integerValue(7, "u32"), integerValue(true, "u8"), integerValue(-1, "i16")); // 7 1 -1
 * console.log(integerValue(-1, "u32"), integerValue(1.5, "i32"), integerValue(256, "u8")); // undefined x3
 * console.log(integerValue(255, 8), integerValue(256, 8)); // 255 undefined
 * console.log(integerValue(false, "bool"), integerValue(1, "bool"), integerValue(2, "bool")); // 0 1 undefined
 * ```
 */
export function integerValue(v: unknown, kind: IntegerKind): number | undefined {
  if (typeof v === "boolean") return v ? 1 : 0;
  const n = typeof v === "bigint" ? Number(v) : v;
  if (typeof n !== "number" || !Number.isInteger(n)) return undefined;
  const [min, max] = rangeOf(kind);
  return n >= min && n <= max ? n : undefined;
}

/**
 * What an integer of `kind` takes, for the error refusing a value: its range.
 *
 * @example Usage
 * ```ts
 * import { integerExpected } from "./scalar.ts";
 * console.log(integerExpected("u32")); // an integer from 0 to 4294967295 (uint32_t)
 * console.log(integerExpected("u8"), integerExpected(8)); // ... 0 to 255 (uint8_t) ... 0 to 255 (8-bit field)
 * console.log(integerExpected("bool")); // true or false, or 1 or 0 (VkBool32: VK_TRUE or VK_FALSE)
 * ```
 */
export function integerExpected(kind: IntegerKind): string {
  if (kind === "bool") return "true or false, or 1 or 0 (VkBool32: VK_TRUE or VK_FALSE)";
  const [min, max, type] = rangeOf(kind);
  return `an integer from ${min} to ${max} (${type})`;
}

/**
 * The end of the error refusing integer `v` of `kind`: where `mask` (the member or parameter holds a bit mask,
 * {@linkcode isBitMask}) and `v` is a negative 32-bit integer (what JavaScript's bitwise operators give for
 * bit 31 set, and `~0`) given for a `uint32_t`, that `x >>> 0` makes it unsigned; else nothing.
 *
 * @example Usage
 * ```ts
 * import { integerHint } from "./scalar.ts";
 * console.log(integerHint(-1, "u32", true)); // ; `x >>> 0` makes a bitwise result unsigned
 * console.log(JSON.stringify(integerHint(-1, "u32", false))); // ""
 * ```
 */
export function integerHint(v: unknown, kind: IntegerKind, mask: boolean): string {
  return mask && kind === "u32" && typeof v === "number" && v < 0 && (v | 0) === v
    ? "; `x >>> 0` makes a bitwise result unsigned"
    : "";
}

/**
 * Whether an integer of vk.xml type `type` named `name` holds a bit mask, where a negative number is likely
 * a bitwise operator's result: a flags type (`VkBufferUsageFlags`), `VkSampleMask`, or a name ending in
 * `Mask` (`compareMask`, `writeMask`, `deviceMask`, `viewMask`).
 *
 * @example Usage
 * ```ts
 * import { isBitMask } from "./scalar.ts";
 * console.log(isBitMask("VkBufferUsageFlags", "usage"), isBitMask("uint32_t", "writeMask")); // true true
 * console.log(isBitMask("uint32_t", "groupCountX")); // false
 * ```
 */
export function isBitMask(type: string, name: string): boolean {
  return type.includes("Flags") || type === "VkSampleMask" || /mask$/i.test(name);
}

/**
 * A value as the error refusing it shows it: a number, a bigint (`5n`), a boolean, null or undefined as
 * written; a string quoted (a number given as a string shows as one); an array or an object by kind.
 *
 * @example Usage
 * ```ts
 * import { shownValue } from "./scalar.ts";
 * console.log(shownValue(70000), shownValue("70000"), shownValue(2n), shownValue([1])); // 70000 "70000" 2n an array
 * ```
 */
export function shownValue(v: unknown): string {
  if (typeof v === "bigint") return `${v}n`;
  if (typeof v === "string") return JSON.stringify(v);
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object" && v !== null) return "an object";
  if (typeof v === "function" || typeof v === "symbol") return `a ${typeof v}`;
  return String(v);
}

/**
 * Whether number `n` may stand for a 64-bit integer: a safe integer, not negative for an unsigned type
 * (docs/api.md, "64-bit values"). Past 2^53 a number has already lost digits, and a negative one would wrap
 * silently; a bigint holds any value and is converted as C converts it.
 *
 * @example Usage
 * ```ts
 * import { isWideNumber } from "./scalar.ts";
 * console.log(isWideNumber(4096, false), isWideNumber(-1, false), isWideNumber(-1, true)); // true false true
 * console.log(isWideNumber(2 ** 60, false), isWideNumber(1.5, true)); // false false
 * ```
 */
export function isWideNumber(n: number, signed: boolean): boolean {
  return Number.isSafeInteger(n) && (signed || n >= 0);
}

/**
 * Writes `value` as one `kind` scalar at `offset` of `view` (little-endian). 64-bit kinds take a bigint, a
 * safe integer number (not negative for unsigned kinds), a boolean, null or a pointer object; the others a
 * number, a boolean or a bigint (32-bit and narrower integers keep the low bits, so flags such as 0x80000000
 * and -1 as ~0u both fit). Returns false, writing nothing, for a value the kind cannot take; the caller
 * throws, naming the place.
 *
 * @example Usage
 * ```ts
 * import { writeScalar } from "./scalar.ts";
 * const view = new DataView(new ArrayBuffer(8));
 * console.log(writeScalar(view, 0, "u32", 0x80000000), view.getUint32(0, true)); // true 2147483648
 * console.log(writeScalar(view, 0, "u64", "12")); // false
 * ```
 */
export function writeScalar(view: DataView, offset: number, kind: ScalarKind, value: unknown): boolean {
  switch (kind) {
    case "u64":
    case "i64":
    case "usize":
    case "isize":
    case "pointer":
    case "function": {
      let v: bigint;
      if (typeof value === "bigint") v = value;
      else if (value === null || isPointerObject(value)) v = BigInt(Deno.UnsafePointer.value(value));
      else if (typeof value === "number" && isWideNumber(value, SIGNED.has(kind))) v = BigInt(value);
      else if (typeof value === "boolean") v = value ? 1n : 0n;
      else return false;
      view.setBigUint64(offset, BigInt.asUintN(64, v), true);
      return true;
    }
  }
  let n: number;
  if (typeof value === "number") n = value;
  else if (typeof value === "boolean") n = value ? 1 : 0;
  else if (typeof value === "bigint") n = Number(value);
  else return false;
  switch (kind) {
    case "f32":
      view.setFloat32(offset, n, true);
      break;
    case "f64":
      view.setFloat64(offset, n, true);
      break;
    case "u8":
    case "i8":
      view.setUint8(offset, n & 0xff);
      break;
    case "u16":
    case "i16":
      view.setUint16(offset, n & 0xffff, true);
      break;
    default:
      view.setUint32(offset, n >>> 0, true);
  }
  return true;
}
