/**
 * Pre-instance functions of enabled implicit layers (docs/behaviour.md LI09): the `Vk*Chain` list around
 * each global enumeration.
 *
 * @example The loader's answer alone
 * ```ts
 * import { callPreInstance } from "./pre_instance.ts";
 * const env = { vars: {}, elevated: false, root: "/nonexistent" };
 * const version = new Uint32Array(1);
 * const r = callPreInstance(env, "vkEnumerateInstanceVersion", [Deno.UnsafePointer.of(version)], (p) => {
 *   new Deno.UnsafePointerView(p!).getUint32(); // the application's pointer
 *   return 0;
 * });
 * console.log(r); // 0
 * ```
 *
 * @module
 */

import type { EnvironmentSnapshot } from "../../discovery/environment.ts";
import { implicitLayerState } from "../../discovery/layer_activation.ts";
import { discoverLayers } from "../../discovery/layers.ts";
import { CallbackOwner } from "../../ffi/callback.ts";
import { fnFromPointer, Library } from "../../ffi/library.ts";
import { Arena, type Pointer, readPointer } from "../../ffi/memory.ts";
import type { Logger } from "../../loading/log.ts";
import { VK_ERROR_INITIALIZATION_FAILED } from "../../vk/generated/vk_constants.js";

/** The commands layers may intercept before an instance exists. */
export type PreInstanceCommand =
  | "vkEnumerateInstanceExtensionProperties"
  | "vkEnumerateInstanceLayerProperties"
  | "vkEnumerateInstanceVersion";

/** `VkChainType` of each command. */
const CHAIN_TYPE: Readonly<Record<PreInstanceCommand, number>> = {
  vkEnumerateInstanceExtensionProperties: 1,
  vkEnumerateInstanceLayerProperties: 2,
  vkEnumerateInstanceVersion: 3,
};
/** The C parameters after the chain pointer. */
const PARAMETERS: Readonly<Record<PreInstanceCommand, readonly "pointer"[]>> = {
  vkEnumerateInstanceExtensionProperties: ["pointer", "pointer", "pointer"],
  vkEnumerateInstanceLayerProperties: ["pointer", "pointer"],
  vkEnumerateInstanceVersion: ["pointer"],
};
/** `VK_CURRENT_CHAIN_VERSION`. */
const CHAIN_VERSION = 1;
/** `sizeof(Vk*Chain)` (LP64): header 12 bytes, padding, two pointers. */
const CHAIN_SIZE = 32;

/**
 * Calls `command` through the enabled implicit layers' pre-instance
 * functions, down to `answer` (the loader's own implementation, taking the
 * command's C parameters); returns the `VkResult`.
 *
 * @example Usage
 * ```ts ignore
 * import { callPreInstance } from "./pre_instance.ts";
 * declare const pCount: Deno.PointerObject;
 * const env = { vars: {}, elevated: false };
 * callPreInstance(env, "vkEnumerateInstanceLayerProperties", [pCount, null], () => 0);
 * ```
 */
export function callPreInstance(
  env: EnvironmentSnapshot,
  command: PreInstanceCommand,
  args: readonly Pointer[],
  answer: (...args: Pointer[]) => number,
  log?: Logger,
): number {
  const discovery = discoverLayers(env);
  const layers = discovery.layers.filter((l) =>
    l.implicit && l.libraryPath !== undefined && l.preInstanceFunctions[command] !== undefined &&
    implicitLayerState(env, l, discovery.overrideLayer).enabled
  );
  if (layers.length === 0) return answer(...args);
  const libraries: Library[] = [];
  using arena = new Arena();
  using callbacks = new CallbackOwner({ report: (text) => log?.error(text, "layer") });
  try {
    const definition = { parameters: ["pointer", ...PARAMETERS[command]], result: "i32" } as const;
    const terminator = callbacks.create(
      definition as Deno.UnsafeCallbackDefinition<["pointer", ...Deno.NativeType[]], "i32">,
      (_chain: Pointer, ...rest: unknown[]) => answer(...(rest as Pointer[])),
      { name: `pre-instance terminator ${command}`, onError: VK_ERROR_INITIALIZATION_FAILED },
    );
    let head = link(arena, command, terminator.pointer, null);
    for (const layer of layers) {
      let library: Library;
      try {
        library = Library.open(layer.libraryPath!);
      } catch (error) {
        log?.info(
          `Pre-instance ${command}: layer "${layer.name}" skipped: ${(error as Error).message}`,
          "layer",
        );
        continue;
      }
      libraries.push(library);
      const symbol = layer.preInstanceFunctions[command]!;
      const fn = library.symbolAddress(symbol);
      if (fn === null) {
        log?.warn(`Pre-instance ${command}: layer "${layer.name}" has no "${symbol}", skipped`, "layer");
        continue;
      }
      head = link(arena, command, fn, head);
    }
    const call = fnFromPointer(readPointer(head, 16), {
      parameters: definition.parameters as unknown as Deno.NativeType[],
      result: "i32",
      callback: true,
    });
    return call.call(readPointer(head, 24), ...args) as number;
  } finally {
    for (const l of libraries) l.close();
  }
}

/** One `Vk*Chain` link: `pfnNextLayer` is `fn`, `pNextLink` is `next`. */
function link(arena: Arena, command: PreInstanceCommand, fn: Pointer, next: Pointer): Deno.PointerObject {
  const buf = arena.alloc(CHAIN_SIZE, 8);
  const view = new DataView(buf.buffer, buf.byteOffset, CHAIN_SIZE);
  view.setUint32(0, CHAIN_TYPE[command], true);
  view.setUint32(4, CHAIN_VERSION, true);
  view.setUint32(8, CHAIN_SIZE, true);
  view.setBigUint64(16, fn === null ? 0n : BigInt(Deno.UnsafePointer.value(fn)), true);
  view.setBigUint64(24, next === null ? 0n : BigInt(Deno.UnsafePointer.value(next)), true);
  return arena.pointer(buf);
}
