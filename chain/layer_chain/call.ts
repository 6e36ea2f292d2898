/**
 * What every layer-chain creation shares (chain/layer_chain/instance.ts, chain/layer_chain/device.ts): copying the
 * application's create info with the loader's nodes in front of its `pNext` (the create command itself comes
 * from the link's `vkGetInstanceProcAddr` through `vk/proc_addr.ts`).
 *
 * @module
 */

import { type Arena, readPointer, writePointer } from "../../ffi/memory.ts";

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
