/**
 * `vkGetInstanceProcAddr`, `vkGetDeviceProcAddr` and `vk_icdGetPhysicalDeviceProcAddr`: one C shape, as Deno's
 * FFI calls it and as a callback receives it, and the one call that asks such a function for a command.
 *
 * @module
 */

import { fnFromPointer } from "../ffi/library.ts";
import { cstringBuffer } from "../ffi/libc.ts";

/** A `vkGet*ProcAddr` as Deno calls it: (handle, name as a C string buffer) -> function pointer. */
export const GET_PROC_ADDR = { parameters: ["pointer", "buffer"], result: "pointer" } as const;

/** A `vkGet*ProcAddr` as a callback receives it: (handle, name pointer) -> function pointer. */
export const GET_PROC_ADDR_CALLBACK = { parameters: ["pointer", "pointer"], result: "pointer" } as const;

/**
 * Asks a `vkGet*ProcAddr` function pointer for the command `name` of `handle` (cold path: a new
 * `Deno.UnsafeFnPointer` per call).
 *
 * @example Usage
 * ```ts ignore
 * import { callGetProcAddr } from "./proc_addr.ts";
 * declare const gipa: Deno.PointerObject;
 * const create = callGetProcAddr(gipa, null, "vkCreateInstance");
 * ```
 */
export function callGetProcAddr(
  gpa: Deno.PointerValue,
  handle: Deno.PointerValue,
  name: string,
): Deno.PointerValue {
  return fnFromPointer(gpa, GET_PROC_ADDR).call(handle, cstringBuffer(name));
}
