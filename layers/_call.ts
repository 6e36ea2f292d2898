/**
 * Calls a function with an argument array, spelled out by length. A spread call (`fn(...args)`) to a
 * `Deno.dlopen` function from a call site that has seen several functions takes V8's slow path (~110 ns
 * on lavapipe's vkCmdSetLineWidth); written out, the same call costs ~40 ns, ~30 ns when the site sees one
 * function.
 *
 * @module
 */
import type { VulkanCommand } from "./layer.ts";

/** `fn(...args)`, with up to 12 arguments passed one by one. */
export function callWith(fn: VulkanCommand, a: readonly unknown[]): unknown {
  switch (a.length) {
    case 0:
      return fn();
    case 1:
      return fn(a[0]);
    case 2:
      return fn(a[0], a[1]);
    case 3:
      return fn(a[0], a[1], a[2]);
    case 4:
      return fn(a[0], a[1], a[2], a[3]);
    case 5:
      return fn(a[0], a[1], a[2], a[3], a[4]);
    case 6:
      return fn(a[0], a[1], a[2], a[3], a[4], a[5]);
    case 7:
      return fn(a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
    case 8:
      return fn(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
    case 9:
      return fn(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]);
    case 10:
      return fn(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9]);
    case 11:
      return fn(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10]);
    case 12:
      return fn(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11]);
    default:
      return fn(...a);
  }
}
