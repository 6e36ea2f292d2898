/**
 * Enum and flag names at run time: `enumName("VkFormat", 37)`, `flagNames("VkQueueFlags", 3)`, and the
 * reverse, a `VkStructureType` value by name. The reverse tables are built per type on first use from the
 * lazily parsed enum table (nothing at import).
 *
 * @module
 */
import { ENUM_VALUES } from "./generated/enums.ts";
import type { VkEnumTypes, VkFlagsTypes } from "./generated/vk_types.ts";

const reverse = new Map<string, Map<string, string>>();

/** The FlagBits type of a Flags type name (`VkBufferUsageFlags2` -> `VkBufferUsageFlagBits2`, all 179 of vk.xml). */
function bitsTypeOf(type: string): string {
  return type.replace(/Flags(\d*)([A-Z]{2,})?$/, "FlagBits$1$2");
}

function values(caller: string, type: string): Readonly<Record<string, number | bigint>> {
  const table = ENUM_VALUES[type];
  if (!table) throw new TypeError(`${caller}: "${type}" is not an enum or flags type of vk.xml`);
  return table;
}

/**
 * The name of enum value `value` of enum type `type`: vk.xml's first name for it (core before
 * extension aliases). A value vk.xml does not list (a newer driver's) reads `"VkFormat(12345)"`.
 *
 * @example Usage
 * ```ts
 * import { enumName, VK_FORMAT_R8G8B8A8_UNORM } from "@vkdeno/loader";
 * console.log(enumName("VkFormat", VK_FORMAT_R8G8B8A8_UNORM)); // "VK_FORMAT_R8G8B8A8_UNORM"
 * console.log(enumName("VkResult", -4)); // "VK_ERROR_DEVICE_LOST"
 * ```
 * @throws {TypeError} If `type` is not an enum type of vk.xml.
 */
export function enumName<N extends keyof VkEnumTypes>(type: N, value: VkEnumTypes[N] | number): string;
// The implementations take plain numbers: using a `VkEnumTypes[N]` or `VkFlagsTypes[N]` value where a plain
// one is expected makes the checker build the union of every enum's values, in every program that imports
// this file (docs/performance.md, Type-checking).
export function enumName(type: string, value: number): string {
  return enumValueName(type, value);
}

/** {@linkcode enumName} for a type name held as a `string` (the library's own callers). */
export function enumValueName(type: string, value: number | bigint): string {
  let names = reverse.get(type);
  if (!names) {
    names = new Map();
    for (const [name, v] of Object.entries(values("enumName", type))) {
      if (!names.has(String(v))) names.set(String(v), name);
    }
    reverse.set(type, names);
  }
  return names.get(String(value)) ?? `${type}(${value})`;
}

/**
 * The names of the bits set in `value`, a value of flags type `type` (`VkQueueFlags`, or its FlagBits
 * type `VkQueueFlagBits`), lowest bit first; bits vk.xml does not name come last as one hex number.
 * `0` gives `[]`.
 *
 * @example Usage
 * ```ts
 * import { flagNames, flags, VK_QUEUE_COMPUTE_BIT, VK_QUEUE_GRAPHICS_BIT } from "@vkdeno/loader";
 * console.log(flagNames("VkQueueFlags", flags(VK_QUEUE_GRAPHICS_BIT, VK_QUEUE_COMPUTE_BIT)));
 * // ["VK_QUEUE_GRAPHICS_BIT", "VK_QUEUE_COMPUTE_BIT"]
 * console.log(flagNames("VkDebugUtilsMessageSeverityFlagsEXT", 4096));
 * // ["VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT"]
 * ```
 * @throws {TypeError} If `type` is not a flags type of vk.xml with defined bits.
 */
export function flagNames<N extends keyof VkFlagsTypes>(
  type: N,
  value: VkFlagsTypes[N] | number | bigint,
): string[];
export function flagNames(type: string, value: number | bigint): string[] {
  const bits = bitsTypeOf(type);
  const table = values("flagNames", bits);
  let rest = BigInt(value);
  const out: [bigint, string][] = [];
  for (const [name, v] of Object.entries(table)) {
    const bit = BigInt(v);
    // Single bits only: multi-bit values (VK_CULL_MODE_FRONT_AND_BACK) are spelled as their bits.
    if (bit === 0n || (bit & (bit - 1n)) !== 0n || (rest & bit) === 0n) continue;
    out.push([bit, name]);
    rest &= ~bit;
  }
  out.sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const names = out.map(([, name]) => name);
  if (rest !== 0n) names.push(`0x${rest.toString(16)}`);
  return names;
}

/** A `VkStructureType` value by enumerant name. */
export function structureType(name: string): number {
  // Only VkStructureType's line is read, not every enum's.
  const types = ENUM_VALUES.VkStructureType!;
  const v = Object.hasOwn(types, name) ? types[name] : undefined;
  if (typeof v !== "number") throw new RangeError(`Unknown VkStructureType "${name}"`);
  return v;
}
