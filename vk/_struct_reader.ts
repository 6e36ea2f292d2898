/**
 * Reads Vulkan structs from native memory into plain JavaScript objects, following the generated layouts:
 * char arrays as strings, fixed arrays as arrays, nested structs as objects, 64-bit integers as bigints,
 * handles and pointers as `Deno.PointerValue` (not followed).
 *
 * @module
 */
import {
  elementCount,
  findLayout,
  type MemberLayout,
  scalarKind,
  type StructLayout,
} from "./_struct_layout.ts";
import { readScalar } from "./_scalar.ts";

/** A value read back from a struct member. */
export type StructField = number | bigint | string | Deno.PointerValue | StructValue | readonly StructField[];

/** A struct read back as a plain object. */
export interface StructValue {
  /** A member's value, by the member's name in vk.xml. */
  [member: string]: StructField;
}

const decoder = new TextDecoder();

function readMember(member: MemberLayout, view: DataView, base: number): StructField {
  const offset = base + member.offset;
  if (member.bits !== undefined) {
    const word = view.getUint32(offset, true);
    const mask = member.bits >= 32 ? 0xffffffff : (1 << member.bits) - 1;
    return (word >>> (member.bitOffset ?? 0)) & mask;
  }
  if (member.pointer > 0) return readScalar(view, offset, "pointer");
  const nested = findLayout(member.type);
  if (member.count === undefined) {
    return nested ? readInto(nested, view, offset) : readScalar(view, offset, scalarKind(member));
  }
  const count = elementCount(member);
  if (member.type === "char") {
    const bytes = new Uint8Array(view.buffer, view.byteOffset + offset, count);
    const end = bytes.indexOf(0);
    return decoder.decode(end < 0 ? bytes : bytes.subarray(0, end));
  }
  const step = member.size / count;
  const kind = nested ? undefined : scalarKind(member);
  const list: StructField[] = [];
  for (let i = 0; i < count; i++) {
    list.push(
      nested ? readInto(nested, view, offset + i * step) : readScalar(view, offset + i * step, kind!),
    );
  }
  return list;
}

/**
 * Reads the struct laid out as `layout` at `base` in `view` into a plain object.
 *
 * @example Usage
 * ```ts
 * import { readInto } from "./_struct_reader.ts";
 * import { layoutOf } from "./_struct_layout.ts";
 * const view = new DataView(new Uint32Array([640, 480]).buffer);
 * console.log(readInto(layoutOf("VkExtent2D"), view, 0)); // { width: 640, height: 480 }
 * ```
 */
export function readInto(layout: StructLayout, view: DataView, base: number): StructValue {
  const out: StructValue = {};
  for (const member of layout.members) out[member.name] = readMember(member, view, base);
  return out;
}
