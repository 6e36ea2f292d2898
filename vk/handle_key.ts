/**
 * Handles as map keys: the one key type (`HandleKey`) every room's handle maps use, and its text.
 *
 * @module
 */

/**
 * A handle as a map key: its address or value as a number when that is a safe integer (every user-space
 * pointer is), else as a bigint (a driver's non-dispatchable handle may use all 64 bits).
 */
export type HandleKey = number | bigint;

/**
 * The map key of a handle: `0` for `VK_NULL_HANDLE` (`null`) and for a missing argument (`undefined`).
 *
 * @example Usage
 * ```ts
 * import { handleKey } from "./handle_key.ts";
 * console.log(handleKey(null), handleKey(0x1000n), handleKey(2n ** 63n)); // 0 4096 9223372036854775808n
 * ```
 */
export function handleKey(handle: Deno.PointerValue | bigint | number | undefined): HandleKey {
  if (handle === undefined) return 0;
  const v = typeof handle === "object" ? Deno.UnsafePointer.value(handle) : handle;
  if (typeof v === "number") return v;
  return v <= MAX_SAFE ? Number(v) : v;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * A handle key as text, as messages print handles.
 *
 * @example Usage
 * ```ts
 * import { handleText } from "./handle_key.ts";
 * console.log(handleText(0x55d0c0de1230)); // 0x55d0c0de1230
 * ```
 */
export function handleText(key: HandleKey): string {
  return `0x${key.toString(16)}`;
}
