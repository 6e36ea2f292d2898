/**
 * Typed Vulkan callbacks: `makeCallback` turns a TypeScript function into the native function pointer a
 * `PFN_*` wants, with typed, decoded arguments, and owns it until disposed.
 *
 * @module
 */
import { CallbackOwner, holdersOf } from "../ffi/callback.ts";
import { CALLBACK_DEFS } from "./generated/callbacks.ts";
import type { VkCallbackFunctions, VkCallbackName } from "./generated/vk_callbacks.ts";
import type { VkCallbackPointer } from "./generated/vk_types.ts";
import { readCString } from "../ffi/memory.ts";
import { countMemberOf, findLayout, layoutOf } from "./struct_layout.ts";
import type { StructValue } from "./struct_value.ts";
import { Scratch } from "../ffi/scratch.ts";
import { entryOf } from "./marshal.ts";
import { ENUM_VALUES } from "./generated/enums.ts";
import { enumValueName } from "./names.ts";

/** Whether `type` is an enum type (not FlagBits): its struct members are named by {@linkcode readStructDeep}. */
function isEnumType(type: string): boolean {
  return !/Flag/.test(type) && ENUM_VALUES[type] !== undefined;
}

/** Options of {@linkcode makeCallback}. */
export interface MakeCallbackOptions {
  /**
   * Returned to C when the function throws (after the error is reported). Default: 0 for numbers
   * (`VK_FALSE` for a debug callback: do not abort the call), `null` for pointers.
   */
  onError?: number | bigint | null;
  /** Allow calls from threads other than the one running JavaScript (`Deno.UnsafeCallback.threadSafe`). */
  threadSafe?: boolean;
  /** Receives a line for every throw; default `console.error`. */
  report?: (message: string, error: unknown) => void;
}

/**
 * A native function pointer made from a TypeScript function; closed by `dispose()` / `using`. While a live
 * object the loader saw made holds it (a debug messenger or report callback), closing throws, naming the
 * holder: destroy that first.
 */
export class VkCallback<N extends VkCallbackName = VkCallbackName> implements Disposable {
  /** The callback type, e.g. `"PFN_vkDebugUtilsMessengerCallbackEXT"`. */
  readonly type: N;
  /** The function pointer to give C (`pfnUserCallback: cb.pointer`), typed so only an `N` member takes it. */
  readonly pointer: VkCallbackPointer<N>;
  #callbacks: CallbackOwner;

  /** Use {@linkcode makeCallback}. */
  constructor(type: N, pointer: Deno.PointerObject, callbacks: CallbackOwner) {
    this.type = type;
    this.pointer = pointer as VkCallbackPointer<N>;
    this.#callbacks = callbacks;
  }

  /** Whether the native callback is still open. */
  get open(): boolean {
    return this.#callbacks.size > 0;
  }

  /**
   * Closes the native callback.
   *
   * @throws {TypeError} If a live messenger or report callback still holds it (closing nothing then).
   */
  dispose(): void {
    const holders = holdersOf(this.pointer);
    if (holders.length > 0 && this.open) {
      throw new TypeError(
        `${this.type}: cannot close callback 0x${
          BigInt(Deno.UnsafePointer.value(this.pointer)).toString(16)
        }: held by ${holders.join(", ")}; destroy it first`,
      );
    }
    this.#callbacks.dispose();
  }

  /** Same as {@linkcode VkCallback.dispose}, for `using`. */
  [Symbol.dispose](): void {
    this.dispose();
  }
}

/**
 * Reads struct `name` at `pointer` as a callback receives it: `const char*` members with a
 * null-terminated length as strings, pointed-to structs read (an array when a sibling member counts them),
 * recursively, each enum member's name beside it (`objectTypeName: "VK_OBJECT_TYPE_BUFFER"`); pNext and other
 * pointers stay pointers.
 *
 * @example Usage
 * ```ts
 * import { Arena, writeStruct, readStructDeep } from "@vkdeno/loader";
 * using arena = new Arena();
 * const p = writeStruct(arena, "VkDebugUtilsLabelEXT", { pLabelName: "frame" });
 * console.log(readStructDeep("VkDebugUtilsLabelEXT", p).pLabelName); // "frame"
 * ```
 * @throws {TypeError} If `name` is not a struct or `pointer` is null.
 */
export function readStructDeep(name: string, pointer: Deno.PointerValue, depth?: number): StructValue {
  depth ??= 0;
  if (pointer === null) throw new TypeError(`Cannot read "${name}" through a null pointer`);
  const layout = layoutOf(name);
  const bytes = new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(pointer, layout.size));
  const value = entryOf(name)[1](Scratch.of(bytes), 0) as StructValue;
  // Enum members carry their name beside the value (`objectType` 1, `objectTypeName` "VK_OBJECT_TYPE_INSTANCE").
  for (const m of layout.members) {
    if (
      m.name !== "sType" && m.pointer === 0 && m.count === undefined && m.bits === undefined &&
      isEnumType(m.type)
    ) {
      value[`${m.name}Name`] = enumValueName(m.type, value[m.name] as number);
    }
  }
  if (depth > 8) return value;
  for (const m of layout.members) {
    if (m.pointer !== 1 || m.name === "pNext") continue;
    const p = value[m.name] as Deno.PointerValue;
    if (m.type === "char" && m.len?.includes("null-terminated")) {
      value[m.name] = p === null ? null : readCString(p);
      continue;
    }
    const nested = findLayout(m.type);
    if (!nested) continue;
    const count = countMemberOf(layout, m);
    if (count) {
      const n = Number(value[count.name]);
      const list: StructValue[] = [];
      for (let i = 0; i < n && p !== null; i++) {
        list.push(readStructDeep(m.type, Deno.UnsafePointer.offset(p, i * nested.size), depth + 1));
      }
      value[m.name] = list;
    } else {
      value[m.name] = p === null ? null : readStructDeep(m.type, p, depth + 1);
    }
  }
  return value;
}

/**
 * Makes the native function pointer for callback type `type` (any `PFN_*` of vk.xml) from a typed
 * TypeScript function, and owns it: close it with `using` / `dispose()` (or through a
 * {@linkcode VkScope}) after the object that calls it is destroyed. A throw inside `fn` is reported and
 * returns `options.onError` to C.
 *
 * @example Debug messenger
 * ```ts
 * import { makeCallback, flagNames } from "@vkdeno/loader";
 * using messenger = makeCallback("PFN_vkDebugUtilsMessengerCallbackEXT", (severity, types, data) => {
 *   // ["VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT"], not 4096; objects as "VK_OBJECT_TYPE_BUFFER" ...
 *   console.log(flagNames("VkDebugUtilsMessageSeverityFlagsEXT", severity), flagNames("VkDebugUtilsMessageTypeFlagsEXT", types));
 *   console.log(data?.pMessageIdName, data?.pMessage, data?.pObjects.map((o) => o.objectTypeName));
 *   return false; // VK_FALSE: do not abort the call
 * });
 * console.log(messenger.pointer !== null); // true
 * ```
 * @throws {TypeError} If `type` is not a callback type of vk.xml.
 */
export function makeCallback<N extends VkCallbackName>(
  type: N,
  fn: VkCallbackFunctions[N],
  options?: MakeCallbackOptions,
): VkCallback<N> {
  options ??= {};
  const def = Object.hasOwn(CALLBACK_DEFS, type) ? CALLBACK_DEFS[type] : undefined;
  if (!def) throw new TypeError(`Unknown callback type "${type}": not a funcpointer of vk.xml`);
  const callbacks = new CallbackOwner({ report: options.report });
  const result = def.result;
  const onError = options.onError !== undefined
    ? options.onError
    : result === "void"
    ? undefined
    : result === "pointer" || result === "function" || result === "buffer"
    ? null
    : result === "u64" || result === "i64"
    ? 0n
    : 0;
  const decoders = def.args.map((kind) =>
    kind === null
      ? undefined
      : kind === "string"
      ? (p: unknown) => p === null ? null : readCString(p as Deno.PointerObject)
      : (p: unknown) => p === null ? null : readStructDeep(kind, p as Deno.PointerObject)
  );
  const body = fn as unknown as (...args: unknown[]) => unknown;
  const wrapped = (...raw: unknown[]) => {
    const args = raw.map((a, i) => decoders[i] ? decoders[i]!(a) : a);
    const out = body(...args);
    return typeof out === "boolean" ? (out ? 1 : 0) : out;
  };
  const native = callbacks.create(
    { parameters: [...def.parameters], result: def.result },
    wrapped as Deno.UnsafeCallbackFunction,
    { name: type, onError: onError as never, threadSafe: options.threadSafe },
  );
  return new VkCallback(type, native.pointer as Deno.PointerObject, callbacks);
}
