/**
 * The two steps every layer-chain creation shares (chain/layer_chain/instance.ts, chain/layer_chain/device.ts): asking a
 * link's `vkGetInstanceProcAddr` for the create command, and copying the application's create info with the
 * loader's nodes in front of its `pNext`.
 *
 * @module
 */

import { fnFromPointer } from "../../ffi/library.ts";
import { type Arena, readPointer, writePointer } from "../../ffi/memory.ts";
import { cstringBuffer } from "../../ffi/libc.ts";

const GET_PROC_ADDR = { parameters: ["pointer", "buffer"], result: "pointer" } as const;

/**
 * Calls a `vkGetInstanceProcAddr`-shaped function pointer (cold path).
 *
 * @example Usage
 * ```ts ignore
 * import { callGetProcAddr } from "./call.ts";
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

/**
 * Copies a create info of `size` bytes and points its `pNext` at `head(original pNext)`.
 *
 * @example Usage
 * ```ts ignore
 * import { copyWithNext } from "./call.ts";
 * declare const arena: import("../../ffi/memory.ts").Arena, info: Deno.PointerObject, nodes: Deno.PointerObject;
 * const copy = copyWithNext(arena, info, 64, () => nodes);
 * ```
 * @throws {TypeError} If `createInfo` is null.
 */
export function copyWithNext(
  arena: Arena,
  createInfo: Deno.PointerValue,
  size: number,
  head: (next: Deno.PointerValue) => Deno.PointerValue,
): Deno.PointerObject {
  if (createInfo === null) throw new TypeError("Cannot build a layer chain for a null create info");
  const buf = arena.alloc(size, 8);
  buf.set(new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(createInfo, size)));
  const copy = arena.pointer(buf);
  writePointer(copy, 8, head(readPointer(createInfo, 8)));
  return copy;
}
