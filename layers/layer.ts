/**
 * The TypeScript layer API: what a layer declares (name, description, extensions), and what its
 * validation object does per intercepted command, in the order of the validation layers' chassis:
 * `preCallValidate` (any object may ask to skip the call), `preCallRecord`, the next link, `postCallRecord`.
 *
 * A layer reaches the next link through {@linkcode CallContext.dispatch} (and {@linkcode LayerEnv.dispatch}
 * outside a call): every Vulkan command by name, intercepted or not, so a layer can call commands it does
 * not intercept, as a performance overlay records its own draws.
 *
 * @example A layer counting dispatches
 * ```ts
 * import { defineLayer } from "./layer.ts";
 * export default defineLayer({
 *   name: "VK_LAYER_example_dispatches",
 *   description: "Counts vkCmdDispatch calls",
 *   create() {
 *     let dispatches = 0;
 *     return {
 *       intercepts: { vkCmdDispatch: { preCallRecord: () => void dispatches++ } },
 *       dispose: () => console.log(`${dispatches} dispatches`),
 *     };
 *   },
 * });
 * ```
 *
 * @module
 */
import type { VkCommandName as VulkanCommandName } from "../ffi/generated/vk_commands.ts";
import type { VulkanCommand } from "../chain/stubs.ts";
import type { StateTracker } from "./state.ts";
import type { CommandDescription, CommandParameter } from "./_commands.ts";

export type { CommandDescription, CommandParameter };

export type { VulkanCommand, VulkanCommandName };

/**
 * The next link of the chain: every Vulkan command by its name (`vkCmdDraw`, aliases too), taking the
 * C parameter list as the loaders' command objects do. A command the next link does not have is
 * `undefined` at run time.
 */
export type Dispatch = { readonly [K in VulkanCommandName]: VulkanCommand };

/** `VK_ERROR_VALIDATION_FAILED_EXT`: what a skipped command returning `VkResult` returns. */
export const VK_ERROR_VALIDATION_FAILED_EXT: number = -1000011001;

/** Severity of a {@linkcode ValidationMessage}, as `VkDebugUtilsMessageSeverityFlagBitsEXT` names them. */
export type LayerSeverity = "error" | "warning" | "info" | "verbose";

/** A message a layer reports (an error found by validation, a statistics line). */
export interface ValidationMessage {
  /** The layer's name. */
  readonly layer: string;
  /** How bad it is. */
  readonly severity: LayerSeverity;
  /** Short identifier of the rule (`"ObjectLifetimes-UseAfterDestroy"`). */
  readonly id: string;
  /** The message, one sentence naming the objects and calls at fault. */
  readonly text: string;
  /** The command being called when it was reported, if any. */
  readonly command?: string;
}

/**
 * What a hook gets besides the command's C arguments. One object per call, shared by every validation
 * object of the chassis for that call.
 */
export interface CallContext {
  /** The command's name as called (an alias stays an alias). */
  readonly command: string;
  /** The command's generated description (parameter names, C types, pointer depth, `len`). */
  readonly info: CommandDescription;
  /** Sequence number of this call in its chassis (1 for the first intercepted call). */
  readonly serial: number;
  /** The next link. */
  readonly dispatch: Dispatch;
  /** The shared state tracker (null when no validation object asked for one). */
  readonly state: StateTracker | null;
  /** The next link's return value; set before `postCallRecord`. */
  result: unknown;
  /** Free slot for a validation object to pass data from its pre hooks to its post hook. */
  readonly scratch: Map<object, unknown>;
}

/**
 * Hooks of one validation object for one command. Each receives the call context, then the command's C
 * arguments in order.
 */
export interface CommandHooks {
  /**
   * Checks the call before anything is recorded. Return `true` to skip the call: the remaining
   * validators still run (every problem is reported), then nothing else does, and the command returns
   * `VK_ERROR_VALIDATION_FAILED_EXT` (or nothing, for `void` commands).
   */
  // deno-lint-ignore no-explicit-any
  preCallValidate?(ctx: CallContext, ...args: any[]): boolean | void;
  /** Records what the call is about to do (runs only when no validator skipped it). */
  // deno-lint-ignore no-explicit-any
  preCallRecord?(ctx: CallContext, ...args: any[]): void;
  /** Records what the call did; `ctx.result` holds its return value. */
  // deno-lint-ignore no-explicit-any
  postCallRecord?(ctx: CallContext, ...args: any[]): void;
}

/** One validation object: the hooks of one layer in one chassis. */
export interface ValidationObject {
  /** Hooks by command name. Aliases are separate names: intercept both when a layer cares. */
  readonly intercepts: { readonly [command: string]: CommandHooks };
  /** Called when the chassis is disposed (print a summary, close a file). */
  dispose?(): void;
}

/** Options of {@linkcode LayerEnv.report}. */
export interface ReportOptions {
  /** Default `"error"`. */
  severity?: LayerSeverity;
  /** The command being called, when the message is about a call. */
  command?: string;
}

/** What a layer's {@linkcode TsLayer.create} is given. */
export interface LayerEnv {
  /** The next link, for calls outside an intercepted command (prefer `ctx.dispatch` inside one). */
  readonly dispatch: Dispatch;
  /** The shared state tracker, when the layer declared `usesState` (null otherwise). */
  readonly state: StateTracker | null;
  /**
   * Reports a message through the chassis (stderr by default, or the host's `onMessage`): `id` names the
   * rule, `text` says what is wrong; severity defaults to `"error"`.
   */
  report(id: string, text: string, options?: ReportOptions): void;
  /** Writes one line of output (stdout by default, or the host's `output`). */
  write(line: string): void;
  /** Settings given to this layer by the host (`settings[layerName]`), or `{}`. */
  readonly settings: Readonly<Record<string, unknown>>;
}

/** An extension a layer provides, as `VkExtensionProperties` lists it. */
export interface TsLayerExtension {
  /** `VK_EXT_debug_report`. */
  readonly name: string;
  /** The extension's spec version. */
  readonly specVersion: number;
}

/** A layer written in TypeScript. */
export interface TsLayer {
  /** `VK_LAYER_<AUTHOR>_<name>`, as applications and `VK_INSTANCE_LAYERS` name it. */
  readonly name: string;
  /** One line, as `VkLayerProperties.description` shows it. */
  readonly description: string;
  /** Packed Vulkan version the layer was written against (default 1.4). */
  readonly apiVersion?: number;
  /** Default 1. */
  readonly implementationVersion?: number;
  /** Instance extensions the layer implements (the loader below never sees them enabled). */
  readonly instanceExtensions?: readonly TsLayerExtension[];
  /** Device extensions the layer implements. */
  readonly deviceExtensions?: readonly TsLayerExtension[];
  /** True when the layer reads the shared {@linkcode StateTracker} (the chassis then runs one). */
  readonly usesState?: boolean;
  /** Makes the layer's validation object for one chassis. */
  create(env: LayerEnv): ValidationObject;
}

/**
 * Returns `layer` unchanged, typed: a helper so a layer module reads as a declaration.
 *
 * @example Usage
 * ```ts
 * import { defineLayer } from "./layer.ts";
 * const layer = defineLayer({ name: "VK_LAYER_x_nothing", description: "Intercepts nothing", create: () => ({ intercepts: {} }) });
 * console.log(layer.name); // "VK_LAYER_x_nothing"
 * ```
 * @throws {TypeError} If the name does not start with `VK_LAYER_`.
 */
export function defineLayer(layer: TsLayer): TsLayer {
  if (!/^VK_LAYER_\w+$/.test(layer.name)) {
    throw new TypeError(`Invalid layer name "${layer.name}": expected "VK_LAYER_<AUTHOR>_<name>"`);
  }
  return layer;
}
