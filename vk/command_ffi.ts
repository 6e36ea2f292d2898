/**
 * A generated command's FFI signature (`CommandInfo.ffi`, from vk.xml) as Deno's FFI wants it: for
 * calling a C function pointer ({@linkcode commandDef}) or for making one ({@linkcode commandCallbackDef}).
 * Every module that binds or implements a Vulkan command takes its definition from here.
 *
 * @example Calling a command through a pointer
 * ```ts
 * import { COMMAND_INDEX, COMMANDS } from "./generated/commands.ts";
 * import { commandDef } from "./command_ffi.ts";
 * const info = COMMANDS[COMMAND_INDEX["vkEnumerateInstanceVersion"]!]!;
 * console.log(commandDef(info)); // { parameters: ["pointer"], result: "i32" }
 * ```
 *
 * @module
 */
import type { CommandInfo } from "./generated/types.ts";

/**
 * The definition for calling the command through `Deno.UnsafeFnPointer` or a dispatch stub.
 *
 * @example Usage
 * ```ts
 * import { COMMAND_INDEX, COMMANDS } from "./generated/commands.ts";
 * import { commandDef } from "./command_ffi.ts";
 * console.log(commandDef(COMMANDS[COMMAND_INDEX["vkDestroyInstance"]!]!).result); // "void"
 * ```
 */
export function commandDef(info: CommandInfo): Deno.ForeignFunction {
  return { parameters: info.ffi.parameters, result: info.ffi.result };
}

/**
 * The definition for implementing the command in JavaScript (`Deno.UnsafeCallback`).
 *
 * @example Usage
 * ```ts
 * import { COMMAND_INDEX, COMMANDS } from "./generated/commands.ts";
 * import { commandCallbackDef } from "./command_ffi.ts";
 * console.log(commandCallbackDef(COMMANDS[COMMAND_INDEX["vkCreateInstance"]!]!).parameters.length); // 3
 * ```
 */
export function commandCallbackDef(info: CommandInfo): Deno.UnsafeCallbackDefinition {
  return { parameters: info.ffi.parameters, result: info.ffi.result } as Deno.UnsafeCallbackDefinition;
}
