/**
 * Calls a function with an argument array, spelled out by length. A spread call (`fn(...args)`) to a
 * `Deno.dlopen` function from a call site that has seen several functions takes V8's slow path (~110 ns
 * on lavapipe's vkCmdSetLineWidth); written out, the same call costs ~40 ns, ~30 ns when the site sees one
 * function, which a call site of its own per command ensures (`callSite`).
 *
 * @module
 */
import type { VulkanCommand } from "./layer.ts";

/** A call site of its own: `site(f, a0, ..., an-1)` calls `f(a0, ..., an-1)`. */
export type CallSite = (f: VulkanCommand, ...args: unknown[]) => unknown;

let sites = 0;

/**
 * A function calling its first argument with the next `n`, compiled from a source of its own. V8 makes a
 * `Deno.dlopen` function a fast call only at a call site that has seen that one function, and every
 * closure of one function literal shares its call sites: the chassis's wrappers (every intercepted command,
 * in every placement) would share one site into their next functions, and lose the fast call as soon as it
 * saw two. One site per command and host keeps each a fast call.
 */
export function callSite(n: number): CallSite {
  const params = Array.from({ length: n }, (_, i) => `a${i}`);
  // The comment makes every source unique: V8 shares what it learns between identical sources.
  const source = `// vkdeno call site ${++sites}\nreturn f(${params.join(", ")});`;
  return new Function("f", ...params, source) as CallSite;
}

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
