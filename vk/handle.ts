/**
 * `asHandle`: the one conversion from a raw pointer to a typed Vulkan handle; `ICD_LOADER_MAGIC`, what the
 * object behind a dispatchable handle starts with; `ENDED_HANDLES`, the handles the idiomatic layer ended.
 *
 * @module
 */
import type { VkHandleName, VkHandleTypes } from "./generated/vk_types.ts";
import { readPointer } from "../ffi/memory.ts";

/**
 * Treats `pointer` as a handle of type `type` (`"VkBuffer"`, `"VkDevice"`, ...). Handle types carry a
 * brand that no raw pointer has, so a pointer read from memory (an out-parameter slot, a C callback's
 * argument, another library) becomes a handle only here, named at the call: the one place a wrong handle
 * type can enter. Nothing is checked or copied at run time; a null pointer stays `null` (`VK_NULL_HANDLE`).
 *
 * @example Usage
 * ```ts
 * import { asHandle, readPointer, type VkBuffer } from "@vkdeno/loader";
 * const slot = new BigUint64Array([0x1000n]);
 * const buffer: VkBuffer | null = asHandle("VkBuffer", readPointer(Deno.UnsafePointer.of(slot)));
 * console.log(Deno.UnsafePointer.value(buffer)); // 4096n
 * ```
 */
export function asHandle<N extends VkHandleName>(type: N, pointer: Deno.PointerObject): VkHandleTypes[N];
/**
 * Treats `pointer`, which may be null, as a handle of type `type`: `null` stays `null` (`VK_NULL_HANDLE`).
 *
 * @example Usage
 * ```ts
 * import { asHandle } from "@vkdeno/loader";
 * console.log(asHandle("VkFence", null)); // null
 * ```
 */
export function asHandle<N extends VkHandleName>(
  type: N,
  pointer: Deno.PointerValue,
): VkHandleTypes[N] | null;
export function asHandle<N extends VkHandleName>(
  _type: N,
  pointer: Deno.PointerValue,
): VkHandleTypes[N] | null {
  return pointer as VkHandleTypes[N] | null;
}

/**
 * Reads the handle a command wrote at `pointer + offset` (an out-parameter slot) as type `type`:
 * {@linkcode asHandle} of `readPointer(pointer, offset)`.
 *
 * @example Usage
 * ```ts
 * import { readHandle } from "./handle.ts";
 * const slot = new BigUint64Array([0x2000n]);
 * console.log(readHandle("VkDevice", Deno.UnsafePointer.of(slot)) !== null); // true
 * ```
 */
export function readHandle<N extends VkHandleName>(
  type: N,
  pointer: Deno.PointerValue,
  offset = 0,
): VkHandleTypes[N] | null {
  return asHandle(type, readPointer(pointer, offset));
}

/** `ICD_LOADER_MAGIC` from `vk_icd.h`: what a driver's dispatchable objects start with. */
export const ICD_LOADER_MAGIC = 0x01cdc0den;

/**
 * The handles `VkApi` destroyed, freed or ended with their parent, each with why (api/ fills it): its commands
 * refuse them as parameters, and the struct writers as members (docs/behaviour.md V11). Keyed by the handle
 * value, not its address: a new object at a destroyed one's address is a new value, and live.
 *
 * @example Usage
 * ```ts
 * import { ENDED_HANDLES } from "./handle.ts";
 * console.log(ENDED_HANDLES.has(Deno.UnsafePointer.create(0x1000n)!)); // false
 * ```
 */
export const ENDED_HANDLES: WeakMap<object, string> = new WeakMap();
