/**
 * Writing Vulkan structs from plain objects (the public side of the generated writers, `vk/marshal.ts`):
 * {@linkcode writeStruct} and {@linkcode writeStructArray} for inputs, {@linkcode allocStruct} for zeroed
 * outputs with `sType` set and an optional pNext chain. Re-exported by `api/structs.ts`.
 *
 * @module
 */
import { type Arena, arenaKeep, arenaScratch } from "../ffi/memory.ts";
import { layoutOf, type RuntimeStructName } from "./struct_layout.ts";
import type { ChainInput, StructInput } from "./struct_input.ts";
import { FULL, type Scratch } from "../ffi/scratch.ts";
import { entryOf, type StructEntry, writeArrayInto, writeGrowing } from "./marshal.ts";
import { writeChain } from "./_struct_runtime.ts";
import type { VkStructPointer } from "./generated/vk_types.ts";
import type {
  VkChain,
  VkStructCanonical,
  VkStructChains,
  VkStructInputs,
  VkStructName,
} from "./generated/vk_structs.ts";

/**
 * The pointer {@linkcode writeStruct} and {@linkcode allocStruct} return for struct `N`: never null, and
 * branded with the struct's name, so a command parameter for another struct (`vkCreateBuffer`'s
 * `pCreateInfo` given a `VkImageCreateInfo`) fails `deno check`.
 */
export type StructPointer<N extends VkStructName> = NonNullable<VkStructPointer<VkStructCanonical[N]>>;

/** The pNext chain `allocStruct` may link into struct `N`: only structs extending `N` (none if it has none). */
// `infer P extends`: checking `N extends keyof VkStructChains ? VkChain<N>` relates `N` to `VkChain`'s
// constraint over every struct name, ~0.3 s of every program's check (docs/performance.md).
export type ChainFor<N extends VkStructName> = N extends infer P extends keyof VkStructChains ? VkChain<P>
  : Deno.PointerValue;

/**
 * Writes `value` as the Vulkan struct `name` into `arena` and returns its address. Everything it points to
 * (nested structs, strings, arrays, the pNext chain) is allocated in the same arena and stays valid until
 * the arena is disposed.
 *
 * - `sType` is filled in from vk.xml unless given.
 * - A pointer member accepts a `Deno.PointerValue`, or: a string (`const char*`), an array of strings
 *   (`const char* const*`), an object or an array of objects (pointer to struct(s)), an array of numbers,
 *   bigints or handles, or a typed array (copied).
 * - A count member named by an array's `len` (`enabledExtensionCount`, `codeSize` in bytes) is filled
 *   from the array when not given; two arrays sharing one count must agree.
 * - `pNext` accepts a pointer, one object with a `type` naming its struct (which may carry its own
 *   `pNext`), or a list of such objects, linked in order.
 * - Unknown member names throw, so typos do not pass silently; so do an integer member (8 to 32 bits, a
 *   bit-field, an array's element) given a number that does not fit (`-1` for a `uint32_t`, `1.5`, `256` for
 *   a `uint8_t`, `256` for an 8-bit field) and a null element in an array of handles that vk.xml requires
 *   valid.
 *
 * @example Instance create info
 * ```ts
 * import { Arena, makeApiVersion, readStruct, writeStruct } from "@vkdeno/loader";
 * using arena = new Arena();
 * const info = writeStruct(arena, "VkInstanceCreateInfo", {
 *   pApplicationInfo: { apiVersion: makeApiVersion(1, 3), pApplicationName: "demo" },
 *   ppEnabledExtensionNames: ["VK_KHR_surface"],
 * });
 * console.log(readStruct("VkInstanceCreateInfo", info).enabledExtensionCount); // 1
 * ```
 * @throws {TypeError} If `name` is not a struct, a member is unknown, a value has the wrong shape, or a
 * handle member is one `VkApi` destroyed.
 * @throws {RangeError} If a string or array does not fit its fixed-size member, arrays sharing a count
 * member differ in length, a count member exceeds its array's length, or an integer member is given a number
 * that does not fit it.
 */
export function writeStruct<N extends VkStructName>(
  arena: Arena,
  name: N,
  value?: NoInfer<VkStructInputs[N]>,
): StructPointer<N>;
/**
 * Writes struct `name` given as a run-time string (untyped members, checked when written).
 *
 * @example Usage
 * ```ts
 * import { Arena, writeStruct } from "@vkdeno/loader";
 * using arena = new Arena();
 * const name: string = "VkExtent2D";
 * writeStruct(arena, name, { width: 1 });
 * ```
 * @throws {TypeError} If `name` is not a struct, a member is unknown, or a value has the wrong shape.
 */
export function writeStruct<S extends string>(
  arena: Arena,
  name: RuntimeStructName<S>,
  value?: StructInput,
): Deno.PointerObject;
// The implementations take `unknown`: each overload must be assignable to its implementation, and relating
// `VkStructInputs[N]` to an index signature makes the checker expand every struct (docs/performance.md).
// The typed overloads take their values as `NoInfer`: `N` comes from the name alone, since inferring it from
// a value too relates that value to every struct's input.
export function writeStruct(arena: Arena, name: string, value?: unknown): Deno.PointerObject {
  const entry = entryOf(name);
  const v = value ?? {};
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    throw new TypeError(`Cannot write element 0 of "${name}[]": expected an object`);
  }
  const m = arenaScratch(arena);
  const top = m.top;
  try {
    const c = m.alloc(entry[2], entry[3]);
    entry[0](m, c, v, 0);
    return m.at(c);
  } catch (e) {
    if (e !== FULL) throw e;
    m.top = top;
  }
  return inArena(arena, m, (m) => writeArrayInto(m, entry, name, [v]));
}

/** Writes with `write` into `arena`'s scratch chunk `m`, moving to larger chunks until it fits. */
function inArena(arena: Arena, m: Scratch, write: (m: Scratch) => number): Deno.PointerObject {
  return writeGrowing(m, write, (big) => arenaKeep(arena, big), (m, offset) => m.at(offset));
}

/** `count` consecutive zeroed structs of `entry` with their sType, the first one's pNext set to `chain`. */
function zeroed(m: Scratch, entry: StructEntry, name: string, count: number, chain: unknown): number {
  const c = writeArrayInto(m, entry, name, []);
  if (count > 1) m.alloc(entry[2] * (count - 1), 1);
  for (let i = 1; i < count; i++) entry[0](m, c + i * entry[2], {}, 0);
  if (chain !== undefined) writeChain(m, c + 8, chain, name);
  return c;
}

/**
 * Writes an array of structs `name` (consecutive in memory) and returns the first one's address.
 *
 * @example Queue create infos
 * ```ts
 * import { Arena, writeStructArray } from "@vkdeno/loader";
 * using arena = new Arena();
 * const infos = writeStructArray(arena, "VkDeviceQueueCreateInfo", [
 *   { queueFamilyIndex: 0, pQueuePriorities: [1] },
 * ]);
 * ```
 * @throws {TypeError} As {@linkcode writeStruct}.
 */
export function writeStructArray<N extends VkStructName>(
  arena: Arena,
  name: N,
  values: NoInfer<readonly VkStructInputs[N][]>,
): StructPointer<N>;
/**
 * Writes an array of structs `name` given as a run-time string (untyped members).
 *
 * @example Usage
 * ```ts
 * import { Arena, writeStructArray } from "@vkdeno/loader";
 * using arena = new Arena();
 * const name: string = "VkExtent2D";
 * writeStructArray(arena, name, [{ width: 1 }]);
 * ```
 * @throws {TypeError} As {@linkcode writeStruct}.
 */
export function writeStructArray<S extends string>(
  arena: Arena,
  name: RuntimeStructName<S>,
  values: readonly StructInput[],
): Deno.PointerObject;
export function writeStructArray(
  arena: Arena,
  name: string,
  values: readonly unknown[],
): Deno.PointerObject {
  const entry = entryOf(name);
  return inArena(arena, arenaScratch(arena), (m) => writeArrayInto(m, entry, name, values));
}

/** Options of {@linkcode allocStruct} for struct `N`. */
export interface AllocStructOptions<N extends VkStructName = VkStructName> {
  /** How many consecutive structs (default 1), each with its sType set. */
  count?: number;
  /** A pNext chain to link into the (first) struct, as for {@linkcode writeStruct}: structs extending `N`. */
  pNext?: ChainFor<N>;
}

/**
 * Allocates zeroed output struct(s) `name` in `arena` with `sType` prefilled, ready for a command to
 * fill; read them back with {@linkcode readStruct}.
 *
 * @example Properties with a pNext chain
 * ```ts
 * import { Arena, allocStruct, readStruct } from "@vkdeno/loader";
 * using arena = new Arena();
 * const props = allocStruct(arena, "VkPhysicalDeviceProperties2", {
 *   pNext: [{ type: "VkPhysicalDeviceDriverProperties" }],
 * });
 * console.log(readStruct("VkPhysicalDeviceProperties2", props).sType); // 1000059001
 * ```
 * @throws {TypeError} If `name` is not a struct.
 */
export function allocStruct<N extends VkStructName>(
  arena: Arena,
  name: N,
  options?: NoInfer<AllocStructOptions<N>>,
): StructPointer<N>;
/**
 * Allocates output struct(s) `name` given as a run-time string.
 *
 * @example Usage
 * ```ts
 * import { Arena, allocStruct } from "@vkdeno/loader";
 * using arena = new Arena();
 * const name: string = "VkExtent2D";
 * allocStruct(arena, name, { count: 2 });
 * ```
 * @throws {TypeError} If `name` is not a struct.
 */
export function allocStruct<S extends string>(
  arena: Arena,
  name: RuntimeStructName<S>,
  options?: { count?: number; pNext?: ChainInput | readonly ChainInput[] | Deno.PointerValue },
): Deno.PointerObject;
export function allocStruct(
  arena: Arena,
  name: string,
  options?: { count?: number; pNext?: unknown },
): Deno.PointerObject {
  options ??= {};
  const entry = entryOf(name);
  const count = options.count ?? 1;
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`Invalid struct count "${count}"`);
  const chain = options.pNext;
  if (chain !== undefined && !layoutOf(name).members.some((m) => m.name === "pNext")) {
    throw new TypeError(`Cannot link pNext of "${name}": it has no pNext member`);
  }
  return inArena(arena, arenaScratch(arena), (m) => zeroed(m, entry, name, count, chain));
}
