/**
 * Commands a layer adds that vk.xml does not have (a made-up or newer extension's): their declaration
 * (`defineCommand`: name, dispatch level, C signature) and their implementation in a validation object
 * (`provide`). How the loader hands them out is docs/behaviour.md V22.
 *
 * @example A device command of a made-up extension
 * ```ts
 * import { defineCommand, provide } from "./command.ts";
 * export const doThing = defineCommand({
 *   name: "vkExampleDoThingVKDENO",
 *   level: "device",
 *   parameters: ["pointer", "u32"], // VkDevice device, uint32_t value
 *   result: "i32", // VkResult
 * });
 * const implementation = provide(doThing, (_device, value) => value > 0 ? 0 : -3);
 * console.log(implementation.command.name); // "vkExampleDoThingVKDENO"
 * ```
 *
 * @module
 */
import { COMMAND_INDEX } from "../vk/generated/commands.ts";

/** `VK_ERROR_UNKNOWN`. */
const VK_ERROR_UNKNOWN = -13;

/**
 * A command vk.xml does not have, as a layer declares it: its name, which dispatchable handle its first
 * parameter is, and its C signature as Deno's FFI spells it (`"pointer"` for handles and pointers, `"u32"`,
 * `"u64"`, `"f32"`, ...). It is a `Deno.ForeignFunction` too: the application binds the command with it
 * (`vk.getUnknownCommand(command.name, command)`, or `new Deno.UnsafeFnPointer(pointer, command)`).
 */
export interface LayerCommand<
  P extends readonly Deno.NativeType[] = readonly Deno.NativeType[],
  R extends Deno.NativeResultType = Deno.NativeResultType,
> {
  /** `vk<Name><VENDOR>`, as `vkGetDeviceProcAddr` is asked for it. */
  readonly name: string;
  /**
   * `"device"`: the first parameter is a `VkDevice`, `VkQueue` or `VkCommandBuffer`; `"physical_device"`:
   * a `VkPhysicalDevice`. The loader dispatches unknown commands of these two levels only.
   */
  readonly level: "physical_device" | "device";
  /** The C parameters, first the dispatchable handle (`"pointer"`). */
  readonly parameters: P;
  /** The C result; an `"i32"` is taken as a `VkResult`. */
  readonly result: R;
}

/** The function that implements a {@linkcode LayerCommand}: the C arguments in, the C result out. */
export type LayerCommandFunction<C extends LayerCommand> = (
  ...args: Deno.FromNativeParameterTypes<C["parameters"]>
) => Deno.ToNativeResultType<C["result"]>;

/** One validation object's implementation of a {@linkcode LayerCommand}, made by {@linkcode provide}. */
export interface CommandImplementation {
  /** The command implemented. */
  readonly command: LayerCommand;
  /** The implementation. */
  readonly fn: (...args: never[]) => unknown;
}

/**
 * Declares a command vk.xml does not have, checked and frozen: list it in the layer's `commands` and
 * implement it in its objects' `commands` with {@linkcode provide}. Export it for the application, which
 * binds the command with it.
 *
 * @example Usage
 * ```ts
 * import { defineCommand } from "@vkdeno/loader/layers";
 * const count = defineCommand({
 *   name: "vkGetPhysicalDeviceThingCountVKDENO",
 *   level: "physical_device",
 *   parameters: ["pointer"],
 *   result: "u32",
 * });
 * console.log(count.level); // "physical_device"
 * ```
 * @throws {TypeError} If the name is a Vulkan command vk.xml has (intercept it instead) or does not start
 * with `vk`, the level is not `"device"` or `"physical_device"`, or the first parameter is not a `"pointer"`.
 */
export function defineCommand<
  const P extends readonly Deno.NativeType[],
  const R extends Deno.NativeResultType,
>(command: LayerCommand<P, R>): LayerCommand<P, R> {
  const at = `Cannot define command "${command.name}"`;
  if (!/^vk[A-Z]\w*$/.test(command.name)) throw new TypeError(`${at}: a command name is "vk<Name>"`);
  if (command.name in COMMAND_INDEX) {
    throw new TypeError(`${at}: vk.xml has it; intercept it (and list it in an extension's entrypoints)`);
  }
  if (command.level !== "device" && command.level !== "physical_device") {
    throw new TypeError(`${at}: level "${command.level}" is not "device" or "physical_device"`);
  }
  if (command.parameters[0] !== "pointer") {
    throw new TypeError(`${at}: the first parameter must be the dispatchable handle, a "pointer"`);
  }
  return Object.freeze({
    name: command.name,
    level: command.level,
    parameters: Object.freeze([...command.parameters]) as unknown as P,
    result: command.result,
  });
}

/**
 * The implementation of `command` in a validation object's `commands`: `fn` is called with the C
 * arguments for the calls on that object's instance (or device).
 *
 * @example Usage
 * ```ts
 * import { defineCommand, provide } from "@vkdeno/loader/layers";
 * const ping = defineCommand({ name: "vkPingVKDENO", level: "device", parameters: ["pointer"], result: "void" });
 * let pings = 0;
 * const object = { intercepts: {}, commands: [provide(ping, () => void pings++)] };
 * console.log(object.commands.length); // 1
 * ```
 */
export function provide<C extends LayerCommand>(
  command: C,
  fn: LayerCommandFunction<C>,
): CommandImplementation {
  // Through `unknown`: comparing the two signatures evaluates Deno's FFI parameter types (docs/performance.md).
  return { command, fn: fn as unknown as (...args: never[]) => unknown };
}

/**
 * What a layer's command answers when it cannot run (its implementation threw, is missing, or another
 * thread called it): `VK_ERROR_UNKNOWN` for an `"i32"` (a `VkResult`), nothing for `void`, null for a
 * pointer, 0 (or 0n) otherwise.
 */
export function commandFailure(result: Deno.NativeResultType): unknown {
  switch (result) {
    case "void":
      return undefined;
    case "i32":
      return VK_ERROR_UNKNOWN;
    case "pointer":
    case "buffer":
    case "function":
      return null;
    case "u64":
    case "i64":
    case "usize":
    case "isize":
      return 0n;
    default:
      return 0;
  }
}
