/**
 * Struct offsets and sizes by name, taken from the generated layouts, `VkStructureType` values by name, and the
 * loader magic a driver's dispatchable objects start with.
 *
 * @module
 */

import { ENUM_VALUES } from "./generated/enums.ts";
import { STRUCTS } from "./generated/structs.ts";

/** Byte offset of `member` in `struct` (LP64). */
export function offsetOf(struct: string, member: string): number {
  const m = STRUCTS[struct]?.members.find((x) => x.name === member);
  if (!m) throw new RangeError(`Unknown struct member "${struct}.${member}"`);
  return m.offset;
}

/** Size of `struct` in bytes. */
export function sizeOf(struct: string): number {
  const s = STRUCTS[struct];
  if (!s) throw new RangeError(`Unknown struct "${struct}"`);
  return s.size;
}

/** A `VkStructureType` value by enumerant name. */
export function structureType(name: string): number {
  // Only VkStructureType's line is read, not every enum's.
  const types = ENUM_VALUES.VkStructureType!;
  const v = Object.hasOwn(types, name) ? types[name] : undefined;
  if (typeof v !== "number") throw new RangeError(`Unknown VkStructureType "${name}"`);
  return v;
}

/** `ICD_LOADER_MAGIC` from `vk_icd.h`: what a driver's dispatchable objects start with. */
export const ICD_LOADER_MAGIC = 0x01cdc0den;
