/**
 * Reading Vulkan structs back into plain objects (the public side of the generated readers, `vk/marshal.ts`):
 * {@linkcode readStruct}, {@linkcode readStructArray}, the pNext chain hanging off a struct
 * ({@linkcode readChain}), and a struct's size ({@linkcode sizeOfStruct}). Re-exported by `api/structs.ts`.
 *
 * @module
 */
import { STRUCT_BY_STYPE } from "./generated/structs.ts";
import { findLayout, layoutOf, type RuntimeStructName } from "./struct_layout.ts";
import type { StructValue } from "./struct_value.ts";
import { Scratch } from "../ffi/scratch.ts";
import { entryOf } from "./marshal.ts";
import type { VkChainRead, VkStructChains, VkStructName, VkStructs } from "./generated/vk_structs.ts";

/**
 * One extending struct of the pNext chain of `P` as {@linkcode readChain} returns it: `type` names which
 * struct it is (declared with the generated types, which programs do not check again).
 */
export type ChainRead<P extends keyof VkStructChains> = VkChainRead<P>;

/**
 * The size in bytes of struct `name` (its stride in arrays).
 *
 * @example Usage
 * ```ts
 * import { sizeOfStruct } from "../api/structs.ts";
 * console.log(sizeOfStruct("VkExtent3D")); // 12
 * ```
 * @throws {TypeError} If `name` is not a struct.
 */
export function sizeOfStruct<S extends string>(name: VkStructName | RuntimeStructName<S>): number {
  return layoutOf(name).size;
}

/** Options of {@linkcode readStruct}. */
export interface ReadStructOptions {
  /** Element index when `source` is an array of structs (default 0). */
  index?: number;
}

/**
 * Reads struct `name` at `source` (a pointer or a buffer holding it) into a plain object: char arrays as
 * strings, fixed arrays as arrays, nested structs as objects, 64-bit integers as bigints, handles and
 * pointers as `Deno.PointerValue` (not followed; see {@linkcode readChain} for pNext).
 *
 * @example Round trip
 * ```ts
 * import { Arena, readStruct, writeStruct } from "@vkdeno/loader";
 * using arena = new Arena();
 * const p = writeStruct(arena, "VkExtent2D", { width: 640, height: 480 });
 * console.log(readStruct("VkExtent2D", p)); // { width: 640, height: 480 }
 * ```
 * @throws {TypeError} If `name` is not a struct or `source` is null.
 */
export function readStruct<N extends VkStructName>(
  name: N,
  source: Deno.PointerValue | Uint8Array,
  options?: ReadStructOptions,
): VkStructs[N];
/**
 * Reads struct `name` given as a run-time string into an untyped object.
 *
 * @example Usage
 * ```ts
 * import { Arena, readStruct, writeStruct } from "@vkdeno/loader";
 * using arena = new Arena();
 * const name: string = "VkExtent2D";
 * console.log(readStruct(name, writeStruct(arena, "VkExtent2D", { width: 3 })).width); // 3
 * ```
 * @throws {TypeError} If `name` is not a struct or `source` is null.
 */
export function readStruct<S extends string>(
  name: RuntimeStructName<S>,
  source: Deno.PointerValue | Uint8Array,
  options?: ReadStructOptions,
): StructValue;
// The implementations return `unknown`: each overload must be assignable to its implementation, and relating
// `VkStructs[N]` to an index signature makes the checker expand every struct (docs/performance.md).
export function readStruct(
  name: string,
  source: Deno.PointerValue | Uint8Array,
  options?: ReadStructOptions,
): unknown {
  return readStructValue(name, source, options?.index ?? 0);
}

/**
 * Reads element `index` of struct `name` at `source` untyped: {@linkcode readStruct}'s core, for the library's
 * own callers that hold a name as a `string` (resolving the typed overloads for one relates the name to every
 * struct first, which costs every program that imports the library a check; docs/performance.md).
 *
 * @example Usage
 * ```ts
 * import { Arena } from "../ffi/memory.ts";
 * import { writeStruct } from "./struct_write.ts";
 * import { readStructValue } from "./struct_read.ts";
 * using arena = new Arena();
 * const name: string = "VkExtent2D";
 * console.log(readStructValue(name, writeStruct(arena, "VkExtent2D", { width: 3 })).width); // 3
 * ```
 * @throws {TypeError} If `name` is not a struct or `source` is null.
 */
export function readStructValue(
  name: string,
  source: Deno.PointerValue | Uint8Array,
  index = 0,
): StructValue {
  const [, read, size] = entryOf(name);
  const base = index * size;
  let bytes: Uint8Array<ArrayBuffer>;
  if (source instanceof Uint8Array) {
    if (source.byteLength < base + size) {
      throw new RangeError(`Cannot read "${name}": the buffer holds ${source.byteLength} bytes`);
    }
    bytes = source as Uint8Array<ArrayBuffer>;
  } else {
    if (source === null) throw new TypeError(`Cannot read "${name}" through a null pointer`);
    bytes = new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(source, base + size));
  }
  return read(Scratch.of(bytes), base) as StructValue;
}

/**
 * Reads `count` consecutive structs `name` starting at `source`.
 *
 * @example Usage
 * ```ts
 * import { Arena, readStructArray, writeStructArray } from "@vkdeno/loader";
 * using arena = new Arena();
 * const p = writeStructArray(arena, "VkExtent2D", [{ width: 1 }, { width: 2 }]);
 * console.log(readStructArray("VkExtent2D", p, 2).map((e) => e.width)); // [1, 2]
 * ```
 * @throws {TypeError} If `name` is not a struct or `source` is null.
 */
export function readStructArray<N extends VkStructName>(
  name: N,
  source: Deno.PointerValue | Uint8Array,
  count: number,
): VkStructs[N][];
/**
 * Reads `count` consecutive structs `name` given as a run-time string.
 *
 * @example Usage
 * ```ts
 * import { Arena, readStructArray, writeStructArray } from "@vkdeno/loader";
 * using arena = new Arena();
 * const name: string = "VkExtent2D";
 * console.log(readStructArray(name, writeStructArray(arena, "VkExtent2D", [{}, {}]), 2).length); // 2
 * ```
 * @throws {TypeError} If `name` is not a struct or `source` is null.
 */
export function readStructArray<S extends string>(
  name: RuntimeStructName<S>,
  source: Deno.PointerValue | Uint8Array,
  count: number,
): StructValue[];
export function readStructArray(
  name: string,
  source: Deno.PointerValue | Uint8Array,
  count: number,
): unknown[] {
  const out: StructValue[] = [];
  for (let i = 0; i < count; i++) out.push(readStructValue(name, source, i));
  return out;
}

/**
 * Reads the pNext chain hanging off the struct at `pointer` (any struct starting with sType and pNext):
 * one object per extending struct, with `type` naming it (found from its sType). A struct whose sType vk.xml
 * does not know ends the walk.
 *
 * @example Driver properties
 * ```ts
 * import { Arena, allocStruct, readChain } from "@vkdeno/loader";
 * using arena = new Arena();
 * const props = allocStruct(arena, "VkPhysicalDeviceProperties2", {
 *   pNext: [{ type: "VkPhysicalDeviceDriverProperties" }],
 * });
 * console.log(readChain(props)[0]?.type); // "VkPhysicalDeviceDriverProperties"
 * ```
 * @throws {TypeError} If `pointer` is null.
 */
export function readChain(pointer: Deno.PointerValue): (StructValue & { type: string })[];
/**
 * Reads the pNext chain of struct `parent` at `pointer`, typed: each link is one of the structs that may
 * extend `parent`, told apart by `type` (`if (link.type === "VkPhysicalDeviceDriverProperties")
 * link.driverName` is a string).
 *
 * @example Driver properties, typed
 * ```ts
 * import { Arena, allocStruct, readChain } from "@vkdeno/loader";
 * using arena = new Arena();
 * const props = allocStruct(arena, "VkPhysicalDeviceProperties2", {
 *   pNext: [{ type: "VkPhysicalDeviceDriverProperties" }],
 * });
 * for (const link of readChain(props, "VkPhysicalDeviceProperties2")) {
 *   if (link.type === "VkPhysicalDeviceDriverProperties") console.log(link.driverName); // ""
 * }
 * ```
 * @throws {TypeError} If `pointer` is null.
 */
export function readChain<P extends keyof VkStructChains>(
  pointer: Deno.PointerValue,
  parent: P,
): ChainRead<P>[];
export function readChain(pointer: Deno.PointerValue, _parent?: string): (StructValue & { type: string })[] {
  if (pointer === null) throw new TypeError("Cannot read a pNext chain through a null pointer");
  const out: (StructValue & { type: string })[] = [];
  let next = new Deno.UnsafePointerView(pointer).getPointer(8);
  for (let guard = 0; next !== null && guard < 256; guard++) {
    const sType = new Deno.UnsafePointerView(next).getUint32(0);
    const type = Object.hasOwn(STRUCT_BY_STYPE, sType) ? STRUCT_BY_STYPE[sType] : undefined;
    if (type === undefined || !findLayout(type)) break;
    // No struct that extends a pNext chain has a member named "type" (checked against vk.xml).
    out.push({ ...readStructValue(type, next), type });
    next = new Deno.UnsafePointerView(next).getPointer(8);
  }
  return out;
}
