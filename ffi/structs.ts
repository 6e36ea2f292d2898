/**
 * Struct helpers for calling Vulkan commands from TypeScript, driven by the generated layouts of
 * `ffi/generated/structs.ts`:
 *
 * - {@linkcode writeStruct} writes a plain object as a C struct in an {@linkcode Arena}: `sType` filled in,
 *   nested structs, strings, arrays and pNext chains allocated in the same arena, count members
 *   (`enabledExtensionCount`) filled from the arrays they count;
 * - {@linkcode allocStruct} allocates output structs with `sType` set, {@linkcode readStruct} reads them back
 *   (char arrays as strings, fixed arrays as arrays, 64-bit integers as bigints, handles as pointers);
 * - {@linkcode enumerate} runs the two-call enumeration idiom, {@linkcode check} turns a negative `VkResult`
 *   into a {@linkcode VkError}, and {@linkcode makeApiVersion} / {@linkcode formatApiVersion} pack versions.
 *
 * Raw commands keep returning `VkResult` as in C; only these helpers throw.
 *
 * @module
 */
import { resultName, VkError } from "./errors.ts";
import { STRUCT_BY_STYPE } from "./generated/structs.ts";
import { Arena } from "./memory.ts";
import { findLayout, layoutOf } from "./_structs_layout.ts";
import { readInto, type StructField, type StructValue } from "./_structs_read.ts";
import { type ChainInput, type StructInput, StructWriter } from "./_structs_write.ts";
import type { VkPointer, VkStructPointer } from "./generated/vk_types.ts";
import type {
  VkChain,
  VkStructCanonical,
  VkStructChains,
  VkStructInputs,
  VkStructName,
  VkStructs,
} from "./generated/vk_structs.ts";
import { VK_INCOMPLETE } from "./generated/vk_constants.js";

export type { ChainInput, StructField, StructInput, StructValue };

/**
 * A struct name typed `string` (known only at run time, e.g. read from a command description): the
 * untyped overloads accept it and check it when called. A string literal is never a `RuntimeStructName`,
 * so a literal must be a {@linkcode VkStructName} and a misspelled one fails `deno check`.
 */
export type RuntimeStructName<S extends string> = S & (string extends S ? unknown : never);

/** One link of the pNext chain of `P` as {@linkcode readChain} returns it: `type` names which struct it is. */
export type ChainRead<P extends keyof VkStructChains> = {
  [N in VkStructChains[P]]: N extends VkStructName ? VkStructs[N] & { readonly type: N } : never;
}[VkStructChains[P]];

/**
 * The pointer {@linkcode writeStruct} and {@linkcode allocStruct} return for struct `N`: never null, and
 * branded with the struct's name, so a command parameter for another struct (`vkCreateBuffer`'s
 * `pCreateInfo` given a `VkImageCreateInfo`) fails `deno check`.
 */
export type StructPointer<N extends VkStructName> = NonNullable<VkStructPointer<VkStructCanonical[N]>>;

/** The pNext chain `allocStruct` may link into struct `N`: only structs extending `N` (none if it has none). */
export type ChainFor<N extends VkStructName> = N extends keyof VkStructChains ? VkChain<N>
  : Deno.PointerValue;

/** `VK_INCOMPLETE`: the array was too small; not an error, but the enumeration must be retried. */

/**
 * Writes `value` as the Vulkan struct `name` into `arena` and returns its address. Everything it points to
 * (nested structs, strings, arrays, the pNext chain) is allocated in the same arena and stays valid until
 * the arena is disposed.
 *
 * - `sType` is filled in from the registry unless given.
 * - A pointer member accepts a `Deno.PointerValue`, or: a string (`const char*`), an array of strings
 *   (`const char* const*`), an object or an array of objects (pointer to struct(s)), an array of numbers,
 *   bigints or handles, or a typed array (copied).
 * - A count member named by an array's `len` (`enabledExtensionCount`, `codeSize` in bytes) is filled
 *   from the array when not given; two arrays sharing one count must agree.
 * - `pNext` accepts a pointer, one object with a `type` naming its struct (which may carry its own
 *   `pNext`), or a list of such objects, linked in order.
 * - Unknown member names throw, so typos do not pass silently.
 *
 * @example Instance create info
 * ```ts
 * import { Arena } from "./memory.ts";
 * import { makeApiVersion, readStruct, writeStruct } from "./structs.ts";
 * using arena = new Arena();
 * const info = writeStruct(arena, "VkInstanceCreateInfo", {
 *   pApplicationInfo: { apiVersion: makeApiVersion(1, 3), pApplicationName: "demo" },
 *   ppEnabledExtensionNames: ["VK_KHR_surface"],
 * });
 * console.log(readStruct("VkInstanceCreateInfo", info).enabledExtensionCount); // 1
 * ```
 * @throws {TypeError} If `name` is not a struct, a member is unknown, or a value has the wrong shape.
 * @throws {RangeError} If a string or array does not fit its fixed-size member, or arrays sharing a
 * count member differ in length.
 */
export function writeStruct<N extends VkStructName>(
  arena: Arena,
  name: N,
  value?: VkStructInputs[N],
): StructPointer<N>;
/**
 * Writes struct `name` given as a run-time string (untyped members, checked when written).
 *
 * @example Usage
 * ```ts
 * import { Arena } from "./memory.ts";
 * import { writeStruct } from "./structs.ts";
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
export function writeStruct(arena: Arena, name: string, value?: StructInput): Deno.PointerObject {
  return new StructWriter(arena).array(name, [value ?? {}]);
}

/**
 * Writes an array of structs `name` (consecutive in memory) and returns the first one's address.
 *
 * @example Queue create infos
 * ```ts
 * import { Arena } from "./memory.ts";
 * import { writeStructArray } from "./structs.ts";
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
  values: readonly VkStructInputs[N][],
): StructPointer<N>;
/**
 * Writes an array of structs `name` given as a run-time string (untyped members).
 *
 * @example Usage
 * ```ts
 * import { Arena } from "./memory.ts";
 * import { writeStructArray } from "./structs.ts";
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
  values: readonly StructInput[],
): Deno.PointerObject {
  return new StructWriter(arena).array(name, values);
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
 * import { Arena } from "./memory.ts";
 * import { allocStruct, readStruct } from "./structs.ts";
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
  options?: AllocStructOptions<N>,
): StructPointer<N>;
/**
 * Allocates output struct(s) `name` given as a run-time string.
 *
 * @example Usage
 * ```ts
 * import { Arena } from "./memory.ts";
 * import { allocStruct } from "./structs.ts";
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
  options: { count?: number; pNext?: unknown } = {},
): Deno.PointerObject {
  const writer = new StructWriter(arena);
  const count = options.count ?? 1;
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`Invalid struct count "${count}"`);
  const pointer = writer.zeroed(name, count);
  if (options.pNext !== undefined) {
    const layout = layoutOf(name);
    const pNext = layout.members.find((m) => m.name === "pNext");
    if (!pNext) throw new TypeError(`Cannot link pNext of "${name}": it has no pNext member`);
    const head = writer.chain(options.pNext, name);
    new DataView(Deno.UnsafePointerView.getArrayBuffer(pointer, 8, pNext.offset))
      .setBigUint64(0, BigInt(Deno.UnsafePointer.value(head)), true);
  }
  return pointer;
}

/**
 * The size in bytes of struct `name` (its stride in arrays).
 *
 * @example Usage
 * ```ts
 * import { sizeOfStruct } from "./structs.ts";
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
 * import { Arena } from "./memory.ts";
 * import { readStruct, writeStruct } from "./structs.ts";
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
 * import { Arena } from "./memory.ts";
 * import { readStruct, writeStruct } from "./structs.ts";
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
export function readStruct(
  name: string,
  source: Deno.PointerValue | Uint8Array,
  options: ReadStructOptions = {},
): StructValue {
  const layout = layoutOf(name);
  const base = (options.index ?? 0) * layout.size;
  let view: DataView;
  if (source instanceof Uint8Array) {
    if (source.byteLength < base + layout.size) {
      throw new RangeError(`Cannot read "${name}": the buffer holds ${source.byteLength} bytes`);
    }
    view = new DataView(source.buffer, source.byteOffset, source.byteLength);
  } else {
    if (source === null) throw new TypeError(`Cannot read "${name}" through a null pointer`);
    view = new DataView(Deno.UnsafePointerView.getArrayBuffer(source, base + layout.size));
  }
  return readInto(layout, view, base);
}

/**
 * Reads `count` consecutive structs `name` starting at `source`.
 *
 * @example Usage
 * ```ts
 * import { Arena } from "./memory.ts";
 * import { readStructArray, writeStructArray } from "./structs.ts";
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
 * import { Arena } from "./memory.ts";
 * import { readStructArray, writeStructArray } from "./structs.ts";
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
): StructValue[] {
  const out: StructValue[] = [];
  for (let i = 0; i < count; i++) out.push(readStruct(name, source, { index: i }));
  return out;
}

/**
 * Reads the pNext chain hanging off the struct at `pointer` (any struct starting with sType and pNext):
 * one object per link, with `type` naming the struct found from its sType. Links whose sType the registry
 * does not know end the walk.
 *
 * @example Driver properties
 * ```ts
 * import { Arena } from "./memory.ts";
 * import { allocStruct, readChain } from "./structs.ts";
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
 * import { Arena } from "./memory.ts";
 * import { allocStruct, readChain } from "./structs.ts";
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
    out.push({ ...readStruct(type, next), type });
    next = new Deno.UnsafePointerView(next).getPointer(8);
  }
  return out;
}

export { resultName };

/**
 * Returns `result` when it is not an error (`VK_SUCCESS`, and positive codes such as `VK_INCOMPLETE` or
 * `VK_SUBOPTIMAL_KHR`, which callers may need), and throws a {@linkcode VkError} naming `command`
 * for a negative one.
 *
 * @example Usage
 * ```ts
 * import { check } from "./structs.ts";
 * console.log(check(1000001003, "vkAcquireNextImageKHR")); // 1000001003 (VK_SUBOPTIMAL_KHR)
 * try {
 *   check(-9, "vkCreateInstance");
 * } catch (e) {
 *   console.log((e as Error).message); // 'Command "vkCreateInstance" failed with "VK_ERROR_INCOMPATIBLE_DRIVER"'
 * }
 * ```
 * @throws {VkError} If `result` is negative.
 */
export function check(result: number, command: string): number {
  return VkError.check(result, command);
}

/**
 * A command following the two-call enumeration idiom: its parameters `A`, then a count pointer and an array
 * pointer (`vkEnumeratePhysicalDevices(instance, pCount, pItems)`); it returns a `VkResult` or nothing.
 */
export type EnumerateCommand<A extends readonly unknown[]> = (
  ...args: [...A, Deno.PointerObject, Deno.PointerValue]
) => unknown;

/** Options of {@linkcode enumerate}. */
export interface EnumerateOptions<N extends string = VkStructName> {
  /** Output element struct (`"VkExtensionProperties"`); without it the outputs are handles. */
  struct?: N;
  /** Command name for error messages (default: the function's name). */
  name?: string;
}

/**
 * Runs the two-call enumeration idiom: calls `command(...args, pCount, null)`, allocates, calls
 * `command(...args, pCount, pItems)`, and retries on `VK_INCOMPLETE`. Returns handles as pointers
 * (assignable to any handle type), or, with `options.struct`, the structs read back as typed objects
 * (their sType prefilled before the call). `args` is typed from the command's leading parameters.
 * Works with commands returning `VkResult` (checked) and with `void` ones.
 *
 * @example Physical devices and extensions
 * ```ts ignore
 * import { enumerate } from "./structs.ts";
 * const devices = enumerate(vk.vkEnumeratePhysicalDevices, [instance]);
 * const extensions = enumerate(vk.vkEnumerateInstanceExtensionProperties, [null], {
 *   struct: "VkExtensionProperties",
 * });
 * ```
 * @throws {VkError} If the command returns a negative `VkResult`.
 */
export function enumerate<A extends readonly unknown[], H = Deno.PointerObject>(
  command: (...args: [...A, Deno.PointerObject, VkPointer<H>]) => unknown,
  args: A,
  options?: EnumerateOptions & { struct?: undefined },
): NonNullable<H>[];
/**
 * Runs the two-call enumeration idiom for a command filling an array of structs `options.struct`, and
 * returns them read back as typed objects.
 *
 * @example Instance extensions
 * ```ts ignore
 * import { enumerate } from "./structs.ts";
 * const extensions = enumerate(vk.vkEnumerateInstanceExtensionProperties, [null], {
 *   struct: "VkExtensionProperties",
 * });
 * console.log(extensions.map((e) => e.extensionName));
 * ```
 * @throws {VkError} If the command returns a negative `VkResult`.
 */
export function enumerate<A extends readonly unknown[], N extends VkStructName>(
  command: EnumerateCommand<A>,
  args: A,
  options: EnumerateOptions<N> & { struct: N },
): VkStructs[N][];
/**
 * Runs the two-call enumeration idiom for a command and struct known only at run time (layer code driven by
 * command descriptions): untyped arguments and results.
 *
 * @example Usage
 * ```ts ignore
 * import { enumerate } from "./structs.ts";
 * const struct: string = "VkLayerProperties";
 * const layers = enumerate(next as (...a: unknown[]) => number, [], { struct });
 * ```
 * @throws {VkError} If the command returns a negative `VkResult`.
 */
export function enumerate<S extends string>(
  command: (...args: never[]) => unknown,
  args: readonly unknown[],
  options: EnumerateOptions<RuntimeStructName<S>> & { struct: RuntimeStructName<S> },
): StructValue[];
export function enumerate(
  command: (...args: never[]) => unknown,
  args: readonly unknown[],
  options: EnumerateOptions<string> = {},
): (Deno.PointerObject | StructValue)[] {
  const name = options.name ?? (command.name.startsWith("vk") ? command.name : "enumeration");
  const call = command as unknown as (...a: unknown[]) => unknown;
  // An explicit ArrayBuffer lives off the V8 heap, so its address cannot move during the calls.
  const count = new Uint32Array(new ArrayBuffer(4));
  const pCount = Deno.UnsafePointer.of(count);
  const stride = options.struct === undefined ? 8 : layoutOf(options.struct).size;
  for (let attempt = 0; attempt < 16; attempt++) {
    const first = call(...args, pCount, null);
    if (typeof first === "number") check(first, name);
    const n = count[0]!;
    if (n === 0) return [];
    using arena = new Arena();
    const items = options.struct === undefined
      ? arena.pointer(arena.alloc(8 * n))
      : new StructWriter(arena).zeroed(options.struct, n);
    const second = call(...args, pCount, items);
    if (typeof second === "number" && check(second, name) === VK_INCOMPLETE) continue;
    const got = Math.min(count[0]!, n);
    const bytes = new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(items, stride * n));
    if (options.struct === undefined) {
      const words = new BigUint64Array(bytes.slice(0, 8 * got).buffer);
      return Array.from(words, (w) => Deno.UnsafePointer.create(w) as Deno.PointerObject);
    }
    return readStructArray(options.struct, bytes.slice(), got);
  }
  throw new VkError(VK_INCOMPLETE, `Command "${name}" kept returning "VK_INCOMPLETE"`);
}

/**
 * Packs a Vulkan API version (`VK_MAKE_API_VERSION(variant, major, minor, patch)`), taking the
 * components in reading order: `makeApiVersion(1, 3)` is Vulkan 1.3.0.
 *
 * @example Usage
 * ```ts
 * import { makeApiVersion } from "./structs.ts";
 * console.log(makeApiVersion(1, 3, 0).toString(16)); // "403000"
 * ```
 * @throws {RangeError} If a component is out of its bit range.
 */
export function makeApiVersion(major: number, minor: number, patch = 0, variant = 0): number {
  const fits = (v: number, bits: number) => Number.isInteger(v) && v >= 0 && v < 2 ** bits;
  if (!fits(variant, 3) || !fits(major, 7) || !fits(minor, 10) || !fits(patch, 12)) {
    throw new RangeError(`Invalid API version "${variant}.${major}.${minor}.${patch}"`);
  }
  return ((variant << 29) | (major << 22) | (minor << 12) | patch) >>> 0;
}

/**
 * Formats a packed API version as `"major.minor.patch"` (the variant is dropped, as vulkaninfo does).
 *
 * @example Usage
 * ```ts
 * import { formatApiVersion } from "./structs.ts";
 * console.log(formatApiVersion(4206847)); // "1.3.255"
 * ```
 */
export function formatApiVersion(version: number): string {
  return `${(version >>> 22) & 0x7f}.${(version >>> 12) & 0x3ff}.${version & 0xfff}`;
}
