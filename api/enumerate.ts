/**
 * Calling commands from TypeScript: {@linkcode check} turns a negative `VkResult` into a `VkError`, and
 * {@linkcode enumerate} runs the two-call enumeration idiom (count, then array; again on `VK_INCOMPLETE`,
 * which is not an error but means the array was too small). Re-exported by `api/structs.ts`.
 *
 * @module
 */
import { VkError } from "../vk/errors.ts";
import { Arena } from "../ffi/memory.ts";
import { findLayout, layoutOf, type RuntimeStructName } from "../vk/struct_layout.ts";
import type { StructValue } from "../vk/struct_value.ts";
import { allocStruct } from "../vk/struct_write.ts";
import { readStructValue } from "../vk/struct_read.ts";
import type { VkPointer, VkStructPointer } from "../vk/generated/vk_types.ts";
import type { VkStructCanonical, VkStructName, VkStructs } from "../vk/generated/vk_structs.ts";
import { VK_INCOMPLETE } from "../vk/generated/vk_constants.js";
import { COMMAND_PARAMS } from "../vk/generated/commands.ts";
import { commandNameOf } from "../vk/handle_check_interface.ts";

/**
 * Returns `result` when it is not an error (`VK_SUCCESS`, and positive codes such as `VK_INCOMPLETE` or
 * `VK_SUBOPTIMAL_KHR`, which callers may need), and throws a {@linkcode VkError} naming `command`
 * for a negative one.
 *
 * @example Usage
 * ```ts
 * import { check } from "@vkdeno/loader";
 * console.log(check(1000001003, "vkAcquireNextImageKHR")); // 1000001003 (VK_SUBOPTIMAL_KHR)
 * try {
 *   check(-9, "vkCreateInstance");
 * } catch (e) {
 *   console.log((e as Error).message); // 'Command "vkCreateInstance" failed with "VK_ERROR_INCOMPATIBLE_DRIVER"'
 * }
 * ```
 * @throws {VkError} If `result` is negative.
 */
export function check(result: number, command: string): number {
  return VkError.check(result, command);
}

/**
 * A command following the two-call enumeration idiom: its parameters `A`, then a count pointer and an array
 * pointer (`vkEnumeratePhysicalDevices(instance, pCount, pItems)`); it returns a `VkResult` or nothing.
 */
export type EnumerateCommand<A extends readonly unknown[]> = (
  ...args: [...A, Deno.PointerObject, Deno.PointerValue]
) => unknown;

/** Options of {@linkcode enumerate}. */
export interface EnumerateOptions<N extends string = VkStructName> {
  /** Output element struct (`"VkExtensionProperties"`); without it the outputs are handles. */
  struct?: N;
  /** Command name for error messages (default: the function's name). */
  name?: string;
}

/**
 * Runs the two-call enumeration idiom: calls `command(...args, pCount, null)`, allocates, calls
 * `command(...args, pCount, pItems)`, and retries on `VK_INCOMPLETE`. Returns handles as pointers
 * (assignable to any handle type), or, with `options.struct`, the structs read back as typed objects
 * (their sType prefilled before the call). `args` is typed from the command's leading parameters.
 * Works with commands returning `VkResult` (checked) and with `void` ones.
 *
 * @example Physical devices and extensions
 * ```ts ignore
 * import { enumerate } from "@vkdeno/loader";
 * const devices = enumerate(vk.vkEnumeratePhysicalDevices, [instance]);
 * const extensions = enumerate(vk.vkEnumerateInstanceExtensionProperties, [null], {
 *   struct: "VkExtensionProperties",
 * });
 * ```
 * @throws {VkError} If the command returns a negative `VkResult`.
 */
export function enumerate<A extends readonly unknown[], H = Deno.PointerObject>(
  command: (...args: [...A, Deno.PointerObject, VkPointer<H>]) => unknown,
  args: A,
  options?: EnumerateOptions & { struct?: undefined },
): NonNullable<H>[];
/**
 * Runs the two-call enumeration idiom for a command filling an array of structs `options.struct`, and
 * returns them read back as typed objects. The struct must be the one the command writes: another fails
 * `deno check`.
 *
 * @example Instance extensions
 * ```ts ignore
 * import { enumerate } from "@vkdeno/loader";
 * const extensions = enumerate(vk.vkEnumerateInstanceExtensionProperties, [null], {
 *   struct: "VkExtensionProperties",
 * });
 * console.log(extensions.map((e) => e.extensionName));
 * ```
 * @throws {VkError} If the command returns a negative `VkResult`.
 */
export function enumerate<A extends readonly unknown[], N extends VkStructName>(
  command: (...args: [...A, Deno.PointerObject, VkStructPointer<VkStructCanonical[N]>]) => unknown,
  args: A,
  options: EnumerateOptions<N> & { struct: N },
): VkStructs[N][];
/**
 * Runs the two-call enumeration idiom for a command and struct known only at run time (layer code driven by
 * command descriptions): untyped arguments and results.
 *
 * @example Usage
 * ```ts ignore
 * import { enumerate } from "@vkdeno/loader";
 * const struct: string = "VkLayerProperties";
 * const layers = enumerate(next as (...a: unknown[]) => number, [], { struct });
 * ```
 * @throws {VkError} If the command returns a negative `VkResult`.
 */
export function enumerate<S extends string>(
  command: (...args: never[]) => unknown,
  args: readonly unknown[],
  options: EnumerateOptions<RuntimeStructName<S>> & { struct: RuntimeStructName<S> },
): StructValue[];
export function enumerate(
  command: (...args: never[]) => unknown,
  args: readonly unknown[],
  options?: EnumerateOptions<string>,
): (Deno.PointerObject | StructValue)[] {
  options ??= {};
  const known = commandNameOf(command);
  const name = options.name ?? known?.name ?? (command.name.startsWith("vk") ? command.name : "enumeration");
  if (known) {
    known.checks?.checkArgs(known.name, args);
    checkOutput(known.name, options.struct);
  }
  const call = command as unknown as (...a: unknown[]) => unknown;
  // An explicit ArrayBuffer lives off the V8 heap, so its address cannot move during the calls.
  const count = new Uint32Array(new ArrayBuffer(4));
  const pCount = Deno.UnsafePointer.of(count);
  const stride = options.struct === undefined ? 8 : layoutOf(options.struct).size;
  for (let attempt = 0; attempt < 16; attempt++) {
    const first = call(...args, pCount, null);
    if (typeof first === "number") check(first, name);
    const n = count[0]!;
    if (n === 0) return [];
    using arena = new Arena();
    const items = options.struct === undefined
      ? arena.pointer(arena.alloc(8 * n))
      : allocStruct(arena, options.struct as string, { count: n });
    const second = call(...args, pCount, items);
    if (typeof second === "number" && check(second, name) === VK_INCOMPLETE) continue;
    const got = Math.min(count[0]!, n);
    const bytes = new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(items, stride * n));
    if (options.struct === undefined) {
      const words = new BigUint64Array(bytes.slice(0, 8 * got).buffer);
      return Array.from(words, (w) => Deno.UnsafePointer.create(w) as Deno.PointerObject);
    }
    const struct = options.struct;
    const copy = bytes.slice();
    return Array.from({ length: got }, (_, i) => readStructValue(struct, copy, i));
  }
  throw new VkError(VK_INCOMPLETE, `Command "${name}" kept returning "VK_INCOMPLETE"`);
}

/** Throws when `struct` is not what command `name` fills (a wrong stride writes past the array). */
function checkOutput(name: string, struct: string | undefined): void {
  const fills = COMMAND_PARAMS[name]?.at(-1)?.type;
  if (fills === undefined || findLayout(fills) === undefined) return; // handles or plain values
  if (struct === undefined) {
    throw new TypeError(`${name}: it fills ${fills} structs: pass { struct: "${fills}" } to enumerate`);
  }
  if (findLayout(fills) !== findLayout(struct)) {
    throw new TypeError(`${name}: it fills ${fills} structs, not ${struct}`);
  }
}
