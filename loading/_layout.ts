/**
 * Struct offsets the chain reads and writes, taken from the generated layouts, and API version helpers.
 *
 * @module
 */

import { ENUM_VALUES } from "../vk/generated/enums.ts";
import { STRUCTS } from "../vk/generated/structs.ts";

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

/** `VK_MAKE_API_VERSION(0, major, minor, patch)`. */
export function apiVersion(major: number, minor: number, patch = 0): number {
  return ((major << 22) | (minor << 12) | patch) >>> 0;
}

/** `VK_API_VERSION_MAJOR` and `VK_API_VERSION_MINOR` as one comparable number (patch and variant dropped). */
export function majorMinor(version: number): number {
  return (version >>> 12) & 0x1ffff;
}

/** "1.3.250" for a packed version. */
export function versionText(version: number): string {
  return `${(version >>> 22) & 0x7f}.${(version >>> 12) & 0x3ff}.${version & 0xfff}`;
}

/** `VK_API_VERSION_1_0`. */
export const VK_API_VERSION_1_0: number = apiVersion(1, 0);
/** `VK_API_VERSION_1_1`. */
export const VK_API_VERSION_1_1: number = apiVersion(1, 1);
/** `VK_API_VERSION_1_3`. */
export const VK_API_VERSION_1_3: number = apiVersion(1, 3);

/** `ICD_LOADER_MAGIC` from `vk_icd.h`: what a driver's dispatchable objects start with. */
export const ICD_LOADER_MAGIC = 0x01cdc0den;

/** VkResult values the chain returns. */
export const VK = {
  SUCCESS: 0,
  INCOMPLETE: 5,
  ERROR_OUT_OF_HOST_MEMORY: -1,
  ERROR_INITIALIZATION_FAILED: -3,
  ERROR_LAYER_NOT_PRESENT: -6,
  ERROR_EXTENSION_NOT_PRESENT: -7,
  ERROR_INCOMPATIBLE_DRIVER: -9,
  ERROR_UNKNOWN: -13,
} as const;
