/**
 * Lookups over the generated struct layouts: a struct by name (with the type of a name known only at run
 * time), a member's offset and a struct's size for code that writes structs by hand, and for the struct
 * writer and reader how to treat one member (scalar, handle, nested struct, string, array) and which member
 * a `len` names.
 *
 * @module
 */
import { HANDLES } from "./generated/handles.ts";
import { STRUCT_ALIASES, STRUCTS } from "./generated/structs.ts";
import type { MemberInfo, StructInfo } from "./generated/types.ts";
import { type ScalarKind, scalarSize } from "./scalar.ts";

/**
 * A struct name typed `string` (known only at run time, e.g. read from a command description): the
 * untyped overloads accept it and check it when called. A string literal is never a `RuntimeStructName`,
 * so a literal must be a `VkStructName` and a misspelled one fails `deno check`.
 */
export type RuntimeStructName<S extends string> = S & (string extends S ? unknown : never);

/** One member as `vk/generated/structs.ts` lays it out (`size` covers the whole fixed array). */
export type MemberLayout = MemberInfo;

/** A struct or union as `vk/generated/structs.ts` lays it out. */
export type StructLayout = StructInfo;

/**
 * How one element of a member is stored: the {@linkcode ScalarKind}s a layout uses (VkBool32 members are
 * plain `u32`, handles and function pointers are `pointer`).
 */
export type MemberKind = Exclude<ScalarKind, "bool" | "usize" | "isize" | "function">;

const layouts = STRUCTS;
const handles = HANDLES;
const SIGNED = new Set(["int8_t", "int16_t", "int32_t", "int64_t", "int", "char"]);
const FLOATS: Record<string, MemberKind> = { float: "f32", double: "f64" };
const UNSIGNED: Record<number, MemberKind> = { 1: "u8", 2: "u16", 4: "u32", 8: "u64" };
const SIGNED_BY_SIZE: Record<number, MemberKind> = { 1: "i8", 2: "i16", 4: "i32", 8: "i64" };

/**
 * The layout of struct `name`, or undefined when vk.xml has no such struct.
 *
 * @example Usage
 * ```ts
 * import { findLayout } from "./struct_layout.ts";
 * console.log(findLayout("VkExtent2D")?.size); // 8
 * ```
 */
export function findLayout(name: string): StructLayout | undefined {
  if (Object.hasOwn(layouts, name)) return layouts[name];
  const target = Object.hasOwn(STRUCT_ALIASES, name) ? STRUCT_ALIASES[name] : undefined;
  return target !== undefined && Object.hasOwn(layouts, target) ? layouts[target] : undefined;
}

/**
 * The layout of struct `name`.
 *
 * @example Usage
 * ```ts
 * import { layoutOf } from "./struct_layout.ts";
 * console.log(layoutOf("VkExtent3D").members.length); // 3
 * ```
 * @throws {TypeError} If vk.xml has no struct or union of that name.
 */
export function layoutOf(name: string): StructLayout {
  const layout = findLayout(name);
  if (!layout) throw new TypeError(`Unknown struct "${name}": not in the generated layouts`);
  return layout;
}

/** Byte offset of `member` in `struct` (LP64), for code that writes a struct by hand (the loader core). */
export function offsetOf(struct: string, member: string): number {
  const m = layouts[struct]?.members.find((x) => x.name === member);
  if (!m) throw new RangeError(`Unknown struct member "${struct}.${member}"`);
  return m.offset;
}

/** Size of `struct` in bytes. */
export function sizeOf(struct: string): number {
  const s = layouts[struct];
  if (!s) throw new RangeError(`Unknown struct "${struct}"`);
  return s.size;
}

/**
 * The number of elements a member holds in place (its fixed array length, else 1).
 *
 * @example Usage
 * ```ts
 * import { elementCount, layoutOf } from "./struct_layout.ts";
 * const m = layoutOf("VkPhysicalDeviceProperties").members.find((m) => m.name === "deviceName")!;
 * console.log(elementCount(m)); // 256
 * ```
 */
export function elementCount(member: MemberLayout): number {
  return member.count ?? 1;
}

/**
 * True for members holding a pointer-sized opaque value: Vulkan handles and function pointers.
 *
 * @example Usage
 * ```ts
 * import { isPointerLike } from "./struct_layout.ts";
 * console.log(isPointerLike({ name: "buffer", type: "VkBuffer", offset: 0, size: 8, pointer: 0, const: false }));
 * ```
 */
export function isPointerLike(member: MemberLayout): boolean {
  if (member.pointer > 0) return true;
  return Object.hasOwn(handles, member.type) || member.type.startsWith("PFN_");
}

/**
 * How one in-place element of a non-struct member is stored.
 *
 * @example Usage
 * ```ts
 * import { scalarKind } from "./struct_layout.ts";
 * console.log(scalarKind({ name: "size", type: "VkDeviceSize", offset: 0, size: 8, pointer: 0, const: false }));
 * ```
 */
export function scalarKind(member: MemberLayout): MemberKind {
  if (isPointerLike(member)) return "pointer";
  const float = FLOATS[member.type];
  if (float) return float;
  const width = member.bits !== undefined ? member.size : member.size / elementCount(member);
  const kind = SIGNED.has(member.type) ? SIGNED_BY_SIZE[width] : UNSIGNED[width];
  if (!kind) {
    throw new TypeError(`Cannot store member "${member.name}" of type "${member.type}" (${width} bytes)`);
  }
  return kind;
}

/**
 * The name of the count member a `len` attribute refers to, and the bytes-per-element factor it implies
 * (`codeSize` counts bytes of a `uint32_t` array), or undefined when the length is not a sibling member.
 *
 * @example Usage
 * ```ts
 * import { countMemberOf, layoutOf } from "./struct_layout.ts";
 * const layout = layoutOf("VkInstanceCreateInfo");
 * const m = layout.members.find((m) => m.name === "ppEnabledExtensionNames")!;
 * console.log(countMemberOf(layout, m)); // { name: "enabledExtensionCount", scale: 1 }
 * ```
 */
export function countMemberOf(
  layout: StructLayout,
  member: MemberLayout,
): { name: string; scale: number } | undefined {
  if (member.len === undefined) return undefined;
  const first = member.len.split(",")[0]!.trim();
  if (/^[A-Za-z_]\w*$/.test(first)) {
    return layout.members.some((m) => m.name === first && m.pointer === 0)
      ? { name: first, scale: 1 }
      : undefined;
  }
  // vk.xml writes byte counts of word arrays as "codeSize / 4" or in LaTeX ("\textrm{codeSize} \over 4").
  const bytes = /(?:\\textrm\{)?([A-Za-z_]\w*)\}?\s*(?:\/|\\over)\s*(\d+)/.exec(first);
  if (bytes && layout.members.some((m) => m.name === bytes[1] && m.pointer === 0)) {
    return { name: bytes[1]!, scale: Number(bytes[2]) };
  }
  return undefined;
}

/**
 * The size of one pointed-to element of a pointer member (1 for `void*`, 8 for `T**`).
 *
 * @example Usage
 * ```ts
 * import { layoutOf, pointeeSize } from "./struct_layout.ts";
 * const m = layoutOf("VkDeviceQueueCreateInfo").members.find((m) => m.name === "pQueuePriorities")!;
 * console.log(pointeeSize(m)); // 4
 * ```
 */
export function pointeeSize(member: MemberLayout): number {
  if (member.pointer > 1) return 8;
  if (member.type === "void" || member.type === "char") return 1;
  const struct = findLayout(member.type);
  if (struct) return struct.size;
  return scalarSize(pointeeKind(member));
}

/**
 * How one pointed-to element of a single-level pointer member is stored.
 *
 * @example Usage
 * ```ts
 * import { layoutOf, pointeeKind } from "./struct_layout.ts";
 * const m = layoutOf("VkDeviceQueueCreateInfo").members.find((m) => m.name === "pQueuePriorities")!;
 * console.log(pointeeKind(m)); // "f32"
 * ```
 */
export function pointeeKind(member: MemberLayout): MemberKind {
  if (member.pointer > 1 || Object.hasOwn(handles, member.type) || member.type.startsWith("PFN_")) {
    return "pointer";
  }
  const float = FLOATS[member.type];
  if (float) return float;
  const width = typeWidth(member.type);
  return (SIGNED.has(member.type) ? SIGNED_BY_SIZE[width] : UNSIGNED[width])!;
}

let widths: Map<string, number> | undefined;

// Pointees carry no size in the layout table; a type's width is learnt from members holding it in place.
function typeWidth(type: string): number {
  if (!widths) {
    widths = new Map([["char", 1], ["int8_t", 1], ["uint8_t", 1], ["int16_t", 2], ["uint16_t", 2]]);
    for (const layout of Object.values(layouts)) {
      for (const m of layout.members) {
        if (m.pointer === 0 && m.bits === undefined && !widths.has(m.type)) {
          widths.set(m.type, m.size / elementCount(m));
        }
      }
    }
  }
  return widths.get(type) ?? 4;
}
