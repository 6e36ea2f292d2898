/**
 * A profile's JSON values as Vulkan struct members: each value turned into exactly what the mock writes and
 * reads back (flags from bit names, number strings or numbers; enums by name; 64-bit integers exact), or the
 * reason it cannot be. The rules: docs/testing.md, "Profiles".
 *
 * @module
 */
import { findLayout, type MemberLayout, scalarKind, type StructLayout } from "../vk/struct_layout.ts";
import { ENUM_TYPES, ENUM_VALUES } from "../vk/generated/enums.ts";

/** A struct's members as the mock writes them: numbers, bigints (64-bit), strings, arrays, nested structs. */
export type StructMembers = Record<string, unknown>;

/** One member that cannot be represented: its path inside the struct (`limits.maxImageDimension2D`) and why. */
export interface MemberProblem {
  /** The member's path inside the struct. */
  readonly member: string;
  /** What is wrong with the value. */
  readonly reason: string;
}

const RANGES: Record<string, readonly [bigint, bigint]> = {
  u8: [0n, 0xffn],
  u16: [0n, 0xffffn],
  u32: [0n, 0xffff_ffffn],
  u64: [0n, 0xffff_ffff_ffff_ffffn],
  i8: [-0x80n, 0x7fn],
  i16: [-0x8000n, 0x7fffn],
  i32: [-0x8000_0000n, 0x7fff_ffffn],
  i64: [-0x8000_0000_0000_0000n, 0x7fff_ffff_ffff_ffffn],
};

const show = (v: unknown): string =>
  typeof v === "bigint" ? String(v) : v === undefined ? "undefined" : JSON.stringify(v);

/** The FlagBits type of a Flags type (`VkQueueFlags` -> `VkQueueFlagBits`), or undefined for non-flags. */
function flagBitsOf(type: string): string | undefined {
  const m = /^(Vk\w*?)Flags(\d*)([A-Z]*)$/.exec(type);
  return m ? `${m[1]}FlagBits${m[2]}${m[3]}` : undefined;
}

/** An integer of `kind` from a number, a bigint or a decimal/hex string; throws the reason otherwise. */
function integer(value: unknown, kind: string): number | bigint {
  let big: bigint;
  if (typeof value === "bigint") big = value;
  else if (typeof value === "number" && Number.isSafeInteger(value)) big = BigInt(value);
  else if (typeof value === "number" && Number.isInteger(value)) {
    throw new TypeError(
      `${value} is past 2^53 and was rounded by JSON.parse (read the file with parseProfile or loadProfileFile)`,
    );
  } else if (typeof value === "string" && /^(\d+|0x[0-9a-f]+)$/i.test(value)) big = BigInt(value);
  else throw new TypeError(`${show(value)} is not an integer`);
  const [min, max] = RANGES[kind]!;
  if (big < min || big > max) throw new TypeError(`${big} does not fit ${kind}`);
  return kind === "u64" || kind === "i64" ? big : Number(big);
}

/** A flags value: a bit name, a list of bit names or number strings, a number or a number string. */
function flags(value: unknown, member: MemberLayout, kind: string): number | bigint {
  const bitsType = flagBitsOf(member.type)!;
  const names = ENUM_TYPES[bitsType] ? ENUM_VALUES[bitsType] : undefined;
  // A 64-bit FlagBits2 type keeps its 32-bit predecessor's bits at the same values under the old names.
  const older = bitsType.replace(/FlagBits2$/, "FlagBits");
  const oldNames = older !== bitsType && ENUM_TYPES[older] ? ENUM_VALUES[older] : undefined;
  const one = (v: unknown): bigint => {
    if (typeof v === "string" && !/^(\d+|0x[0-9a-f]+)$/i.test(v)) {
      const bit = names?.[v] ?? oldNames?.[v];
      if (bit === undefined) throw new TypeError(`"${v}" is not a ${bitsType} name`);
      return BigInt(bit);
    }
    return BigInt(integer(v, kind));
  };
  let bits = 0n;
  if (Array.isArray(value)) { for (const v of value) bits |= one(v); }
  else bits = one(value);
  return kind === "u64" ? bits : Number(bits);
}

/** An enum value: its name (of `member.type`) or a number. */
function enumerant(value: unknown, member: MemberLayout): number {
  if (typeof value === "string") {
    const v = ENUM_VALUES[member.type]?.[value];
    if (v === undefined) throw new TypeError(`"${value}" is not a ${member.type} name`);
    return Number(v);
  }
  if (typeof value === "number" || typeof value === "bigint") return integer(value, "i32") as number;
  throw new TypeError(`${show(value)} is not a ${member.type} name`);
}

/** One element of a member (a fixed array's element, or the member itself). */
function element(member: MemberLayout, value: unknown, path: string, problems: MemberProblem[]): unknown {
  const nested = findLayout(member.type);
  if (nested) {
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      throw new TypeError(`${show(value)} is not an object of ${member.type} members`);
    }
    return structMembers(nested, member.type, value as Record<string, unknown>, problems, `${path}.`);
  }
  const kind = scalarKind(member);
  if (member.type === "VkBool32") {
    if (value === true || value === 1) return 1;
    if (value === false || value === 0) return 0;
    throw new TypeError(`${show(value)} is not a boolean`);
  }
  if (flagBitsOf(member.type)) return flags(value, member, kind);
  if (Object.hasOwn(ENUM_TYPES, member.type)) return enumerant(value, member);
  if (kind === "f32" || kind === "f64") {
    if (typeof value !== "number" || !Number.isFinite(value)) {
      throw new TypeError(`${show(value)} is not a number`);
    }
    return kind === "f32" ? Math.fround(value) : value;
  }
  return integer(value, kind);
}

/** The value member `member` holds for `value`; throws (a TypeError naming why) when it cannot hold it. */
function memberValue(member: MemberLayout, value: unknown, path: string, problems: MemberProblem[]): unknown {
  if (member.name === "sType" || member.name === "pNext") throw new TypeError("is set by the application");
  if (member.pointer > 0) throw new TypeError(`is a pointer (${member.type}*), which a profile cannot fill`);
  if (member.bits !== undefined) throw new TypeError("is a bit-field, which a profile cannot fill");
  if (findLayout(member.type)?.union) throw new TypeError(`is a union (${member.type})`);
  const count = member.count ?? 1;
  if (member.type === "char" && count > 1) {
    if (typeof value !== "string") throw new TypeError(`${show(value)} is not a string`);
    const bytes = new TextEncoder().encode(value).length;
    if (bytes >= count) throw new TypeError(`"${value}" takes ${bytes} bytes; the member holds ${count - 1}`);
    return value;
  }
  if (count === 1) return element(member, value, path, problems);
  if (!Array.isArray(value)) throw new TypeError(`${show(value)} is not a list (the member holds ${count})`);
  if (value.length > count) throw new TypeError(`${value.length} elements; the member holds ${count}`);
  return value.map((v, i) => element(member, v, `${path}[${i}]`, problems));
}

/**
 * `value`'s members converted for struct `name` (layout `layout`); each member that cannot be represented is
 * left out and added to `problems` (with `prefix` before its path), so one bad member costs only itself.
 *
 * @example Usage
 * ```ts ignore
 * const problems: MemberProblem[] = [];
 * structMembers(layoutOf("VkPhysicalDeviceDriverProperties"), "VkPhysicalDeviceDriverProperties",
 *   { driverID: "_KHR", driverName: "x" }, problems); // { driverName: "x" }, one problem
 * ```
 */
export function structMembers(
  layout: StructLayout,
  name: string,
  value: Record<string, unknown>,
  problems: MemberProblem[],
  prefix = "",
): StructMembers {
  const out: StructMembers = {};
  for (const [key, v] of Object.entries(value)) {
    const member = layout.members.find((m) => m.name === key);
    const path = prefix + key;
    try {
      if (!member) throw new TypeError(`is not a member of ${name}`);
      out[key] = memberValue(member, v, path, problems);
    } catch (e) {
      problems.push({ member: path, reason: (e as Error).message });
    }
  }
  return out;
}
