/**
 * Create-and-read-back: the `vkCreate*` / `vkAllocate*` / `vkGet*` pattern (call with a slot for the new
 * handle, check the result, read the handle) as one typed call. {@linkcode create} returns the handle typed
 * by the command (`VkBuffer` for `vkCreateBuffer`), {@linkcode createMany} an array of them; both throw a
 * {@linkcode VkError} naming the command and its result. The raw commands stay available beside them.
 *
 * @module
 */
import { VkError } from "../vk/errors.ts";
import type { VkCommands } from "../vk/generated/vk_commands.ts";
import type { VkCreateArgs, VkCreateManyOutputs, VkCreateOutputs } from "../vk/generated/vk_create.ts";
import { handleChecksOf } from "../vk/handle_check_interface.ts";

/** Any object holding raw Vulkan commands by name (vkdeno's `Vulkan`, the libvulkan wrapper, a device table). */
export type VkCommandSource = Partial<VkCommands>;

/**
 * Any object holding raw Vulkan commands by name.
 *
 * @deprecated Use {@linkcode VkCommandSource} (the same type; one name for one thing).
 */
export type CommandSource = VkCommandSource;

/**
 * The arguments of command `N` before its last parameter (the output slot the helper provides). `create`,
 * `createMany` and `VkScope` take the same tuples as {@linkcode VkCreateArgs}`[N]`.
 */
export type CreateArgs<N extends string> = N extends keyof VkCommands
  ? VkCommands[N] extends (...args: [...infer A, Deno.PointerValue]) => unknown ? A : never
  : never;

type Raw = (...args: unknown[]) => unknown;

function commandOf(vk: VkCommandSource, name: string, args: readonly unknown[]): Raw {
  const fn = (vk as Record<string, unknown>)[name];
  if (typeof fn !== "function") {
    throw new TypeError(`Cannot call "${name}": the command object has no such command`);
  }
  // A command object that knows its handles (vkdeno's Vulkan) refuses a null, destroyed or foreign one
  // here, before the driver is called.
  handleChecksOf(vk)?.checkArgs(name, args);
  return fn as Raw;
}

/**
 * Calls `name` (a command returning one new handle through its last parameter) with `args` and a slot,
 * checks the `VkResult`, and returns the handle, typed.
 *
 * @example Usage
 * ```ts ignore
 * import { create } from "@vkdeno/loader";
 * const buffer = create(vk, "vkCreateBuffer", [device, writeStruct(arena, "VkBufferCreateInfo", { size: 64n }), null]);
 * // buffer: VkBuffer
 * ```
 * @throws {VkError} If the command returns a negative `VkResult` (the message names command and result).
 * @throws {TypeError} If `vk` has no such command, a handle among `args` is null, destroyed or another
 * loader's (when `vk` knows its handles), or the command succeeded without writing a handle.
 */
export function create<N extends keyof VkCreateOutputs>(
  vk: VkCommandSource,
  name: N,
  args: NoInfer<VkCreateArgs[N]>,
): VkCreateOutputs[N] {
  // Through `unknown`: a cast from `VkCreateArgs[N]` or to `VkCreateOutputs[N]` relates every create
  // command's tuple or handle, in every `deno check` of a program importing mod.ts (docs/performance.md).
  const untyped: unknown = args;
  const handle: unknown = createHandle(vk, name, untyped as readonly unknown[]);
  return handle as VkCreateOutputs[N];
}

/**
 * {@linkcode create} without its types, for a typed caller that passes its own (`VkScope`): relating one
 * generic `CreateArgs<N>` to another makes the checker measure it over every command (docs/performance.md).
 */
export function createHandle(
  vk: VkCommandSource,
  name: string,
  args: readonly unknown[],
): Deno.PointerObject {
  const fn = commandOf(vk, name, args);
  // Off the V8 heap: the address stays put while C writes it.
  const slot = new BigUint64Array(new ArrayBuffer(8));
  const result = fn(...args, Deno.UnsafePointer.of(slot));
  if (typeof result === "number") VkError.check(result, name);
  const handle = Deno.UnsafePointer.create(slot[0]!);
  if (handle === null) throw new TypeError(`Command "${name}" returned no handle`);
  return handle;
}

/**
 * Calls `name` (a command filling an array of `count` new handles through its last parameter, such as
 * `vkAllocateCommandBuffers` or `vkCreateGraphicsPipelines`), checks the result, and returns the handles.
 *
 * @example Usage
 * ```ts ignore
 * import { createMany } from "@vkdeno/loader";
 * const [cmd] = createMany(vk, "vkAllocateCommandBuffers", [device, allocateInfo], 1);
 * ```
 * @throws {VkError} If the command returns a negative `VkResult`.
 * @throws {RangeError} If `count` is not a positive integer.
 */
export function createMany<N extends keyof VkCreateManyOutputs>(
  vk: VkCommandSource,
  name: N,
  args: NoInfer<VkCreateArgs[N]>,
  count: number,
): VkCreateManyOutputs[N][] {
  const untyped: unknown = args; // as in create
  const handles: unknown = createHandles(vk, name, untyped as readonly unknown[], count);
  return handles as VkCreateManyOutputs[N][];
}

/** {@linkcode createMany} without its types, as {@linkcode createHandle}. */
export function createHandles(
  vk: VkCommandSource,
  name: string,
  args: readonly unknown[],
  count: number,
): Deno.PointerValue[] {
  if (!Number.isInteger(count) || count < 1) {
    throw new RangeError(`Invalid handle count "${count}" for "${name}"`);
  }
  const fn = commandOf(vk, name, args);
  const slots = new BigUint64Array(new ArrayBuffer(8 * count));
  const result = fn(...args, Deno.UnsafePointer.of(slots));
  if (typeof result === "number") VkError.check(result, name);
  return Array.from(slots, (w) => Deno.UnsafePointer.create(w));
}
