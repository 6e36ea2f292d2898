/**
 * The writing side of Vulkan's two-call idiom, for the commands the loader answers itself.
 *
 * @module
 */

import { readU32, writeU32 } from "../ffi/memory.ts";
import { VK_ERROR_INITIALIZATION_FAILED, VK_INCOMPLETE, VK_SUCCESS } from "./generated/vk_constants.js";

/**
 * Answers a two-call enumeration with `items`; `write(i, item)` stores item
 * `i` into the caller's array. A null `pCount` is
 * `VK_ERROR_INITIALIZATION_FAILED`.
 *
 * @example Usage
 * ```ts
 * import { writeTwoCall } from "./two_call.ts";
 * const count = new Uint32Array([1]);
 * const out = new Uint32Array(1);
 * const result = writeTwoCall(Deno.UnsafePointer.of(count), Deno.UnsafePointer.of(out), [7, 8], (i, item) => {
 *   out[i] = item;
 * });
 * console.log(result, count[0], out[0]); // 5 1 7  (VK_INCOMPLETE)
 * ```
 */
export function writeTwoCall<T>(
  pCount: Deno.PointerValue,
  pItems: Deno.PointerValue,
  items: readonly T[],
  write: (i: number, item: T) => void,
): number {
  if (pCount === null) return VK_ERROR_INITIALIZATION_FAILED;
  if (pItems === null) {
    writeU32(pCount, 0, items.length);
    return VK_SUCCESS;
  }
  const n = Math.min(readU32(pCount, 0), items.length);
  for (let i = 0; i < n; i++) write(i, items[i]!);
  writeU32(pCount, 0, n);
  return n < items.length ? VK_INCOMPLETE : VK_SUCCESS;
}
