/**
 * The TypeScript layer API: what a layer declares, its validation objects (one per instance, and one per
 * device if it asks), and the hooks they run per intercepted command (`preCallValidate`, `preCallRecord`,
 * the next link, `postCallRecord`).
 *
 * @example A layer counting dispatches per device
 * ```ts
 * import { defineLayer } from "./layer.ts";
 * export default defineLayer({
 *   name: "VK_LAYER_example_dispatches",
 *   description: "Counts vkCmdDispatch calls per device",
 *   create: () => ({ intercepts: {} }),
 *   createDevice(env) {
 *     let dispatches = 0;
 *     return {
 *       intercepts: { vkCmdDispatch: { preCallRecord: () => void dispatches++ } },
 *       dispose: () => env.write(`${dispatches} dispatches`),
 *     };
 *   },
 * });
 * ```
 *
 * @module
 */
import type { VkCommandName as VulkanCommandName } from "../vk/generated/vk_commands.ts";
import type { VulkanCommand } from "../chain/stubs.ts";
import type { StateTracker } from "./state.ts";
import type { CommandDescription, CommandParameter } from "./_commands.ts";
import type { CallContext, CommandArguments, Dispatch } from "./call.ts";
import type { CommandImplementation, LayerCommand } from "./command.ts";
import { COMMANDS } from "../vk/generated/commands.ts";
import {
  checkDeclarations,
  type LayerSettingDeclarations,
  type LayerSettingValues,
  type NoLayerSettings,
} from "./settings.ts";
import {
  VK_EXT_LAYER_SETTINGS_EXTENSION_NAME,
  VK_EXT_LAYER_SETTINGS_SPEC_VERSION,
} from "../vk/generated/vk_constants.js";

export type { CommandDescription, CommandParameter };
export type { CommandImplementation, LayerCommand, LayerCommandFunction } from "./command.ts";
export { defineCommand, provide } from "./command.ts";
export type {
  EnumSettingDeclaration,
  FramesetSettingDeclaration,
  LayerSettingDeclaration,
  LayerSettingDeclarations,
  LayerSettingFrameset,
  LayerSettingValue,
  LayerSettingValues,
  NoLayerSettings,
  ScalarSettingDeclaration,
  ScalarSettingTypes,
} from "./settings.ts";

export type { VulkanCommand, VulkanCommandName };

export { VK_ERROR_UNKNOWN, VK_ERROR_VALIDATION_FAILED_EXT } from "./call.ts";
export type {
  ArgumentIndex,
  ArgumentValue,
  CallContext,
  CallContextOf,
  ChainLink,
  ChainLinkInput,
  ChainLinkRead,
  CommandArguments,
  CommandResult,
  Dispatch,
  ExtendingStruct,
  ExtendingStructInput,
  ExtendingStructRead,
  OutputValue,
  PointedStruct,
  StructMembers,
} from "./call.ts";

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
 * Hooks of one validation object for one command `K`. Each receives the call context, then the command's
 * C arguments in order, typed from the generated signature (`CommandHooks` alone: any command, untyped).
 * See {@linkcode CallContext} for what a hook may change. One object serves a command and its aliases
 * (`{ vkCmdDrawIndirectCount: h, vkCmdDrawIndirectCountKHR: h }`: they share a signature). In a generic
 * factory (`<K extends VulkanCommandName>(): CommandHooks<K>`) write the hook with a rest parameter,
 * `(ctx, ...args) => ...`: TypeScript cannot tell yet that a shorter parameter list fits.
 */
export interface CommandHooks<K extends VulkanCommandName = VulkanCommandName> {
  /**
   * Checks the call before anything is recorded. Return `true` to skip the call: the remaining
   * validators still run (every problem is reported), then nothing else does, and the command returns
   * `VK_ERROR_VALIDATION_FAILED_EXT` (or nothing, for `void` commands) unless a hook chose a result with
   * `ctx.skip(result)`.
   */
  preCallValidate?(ctx: CallContext<K>, ...args: CommandArguments<K>): boolean | void;
  /** Records what the call is about to do (runs only when no validator skipped it). */
  preCallRecord?(ctx: CallContext<K>, ...args: CommandArguments<K>): void;
  /** Records what the call did; `ctx.result` holds its return value, which it may replace. */
  postCallRecord?(ctx: CallContext<K>, ...args: CommandArguments<K>): void;
}

/**
 * Hooks by command name, each typed for its command: a misspelled name (`vkAlocateMemory`) or a hook
 * taking the wrong arguments fails `deno check`. Aliases are separate names: intercept both when a layer
 * cares ({@linkcode everyCommand} intercepts every name).
 */
export type Intercepts = { readonly [K in VulkanCommandName]?: CommandHooks<K> };

/**
 * One validation object: the hooks of one layer for one instance (or one device). Made by the layer's
 * `create` (or `createDevice`); disposed when its instance (or device) is destroyed, or its host is.
 */
export interface ValidationObject {
  /** Hooks by command name. */
  readonly intercepts: Intercepts;
  /** Implementations of the layer's {@linkcode TsLayer.commands} for this instance (or device), by {@linkcode provide}. */
  readonly commands?: readonly CommandImplementation[];
  /** Called when the instance or device is destroyed, after the layers' hooks for that call (print a summary, close a file). */
  dispose?(): void;
}

/** Options of {@linkcode LayerEnv.report}. */
export interface ReportOptions {
  /** Default `"error"`. */
  severity?: LayerSeverity;
  /** The command being called, when the message is about a call. */
  command?: string;
}

/**
 * What a layer's {@linkcode TsLayer.create} is given. `S` is the layer's settings declarations
 * ({@linkcode TsLayer.settings}), which type `settings`.
 */
export interface LayerEnv<S = NoLayerSettings> {
  /**
   * The instance (or device, in `createDevice`) the object belongs to. Null in `create`, which runs
   * before `vkCreateInstance` so that the object's hooks see that call: set once it returns. Also null for
   * the objects of calls on handles the host did not see made (see docs/layers.md).
   */
  readonly handle: Deno.PointerValue;
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
  /**
   * The layer's settings for this instance (a device's are its instance's), typed from its declarations:
   * each from the first source that sets it (a `VK_<LAYER>_<SETTING>` variable, `vk_layer_settings.txt`,
   * `VkLayerSettingsCreateInfoEXT` in `vkCreateInstance`'s chain, the host's `settings` option), else its
   * default. Resolved once, at `vkCreateInstance`: reading one is a property read (docs/layers.md, "Settings").
   */
  readonly settings: LayerSettingValues<S>;
}

/** What a layer's {@linkcode TsLayer.createDevice} is given: a {@linkcode LayerEnv} whose `handle` is the device. */
export interface DeviceLayerEnv<S = NoLayerSettings> extends LayerEnv<S> {
  /** The physical device the device was made from. */
  readonly physicalDevice: Deno.PointerValue;
}

/** An extension a layer provides, as `VkExtensionProperties` lists it. */
export interface TsLayerExtension {
  /** `VK_EXT_debug_report`. */
  readonly name: string;
  /** The extension's spec version. */
  readonly specVersion: number;
  /**
   * Its commands the layer provides (answers for even where no driver has them), as a manifest's
   * `entrypoints` lists them: vk.xml's commands, intercepted (a hook answers with `ctx.skip(result)`), or
   * the layer's {@linkcode TsLayer.commands}.
   */
  readonly entrypoints?: readonly string[];
}

/**
 * A layer written in TypeScript. `I` is the type of its instance object, which its `createDevice` is
 * given; `S` its settings declarations, which type `env.settings`.
 */
export interface TsLayer<
  I extends ValidationObject = ValidationObject,
  S extends LayerSettingDeclarations = NoLayerSettings,
> {
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
  /**
   * Commands vk.xml does not have that the layer provides ({@linkcode defineCommand}), implemented in its
   * objects' `commands`: `vkGetDeviceProcAddr` / `vkGetInstanceProcAddr` return them in both placements.
   */
  readonly commands?: readonly LayerCommand[];
  /** True when the layer reads the shared {@linkcode StateTracker} (the chassis then runs one). */
  readonly usesState?: boolean;
  /**
   * The settings the layer reads, by name, with their types and defaults (`{ limit: { type: "uint32",
   * default: 8 } }`): hooks read them typed as `env.settings.limit`, set as a Khronos layer's are
   * (docs/layers.md, "Settings"). A layer declaring settings lists `VK_EXT_layer_settings` among its
   * instance extensions ({@linkcode defineLayer} adds it).
   */
  readonly settings?: S;
  /**
   * Makes the layer's validation object for one instance, just before `vkCreateInstance` (its hooks for
   * that call run). Its hooks see every call on the instance, its physical devices, and its devices
   * unless `createDevice` makes them their own objects.
   */
  create(env: LayerEnv<S>): I;
  /**
   * Makes the layer's validation object for one device, once `vkCreateDevice` succeeded (the instance
   * object's hooks for that call run). Its hooks see every call on the device, its queues and command
   * buffers, including `vkDestroyDevice`. Without it, the instance object's hooks see them.
   */
  createDevice?(env: DeviceLayerEnv<S>, instance: I): ValidationObject;
}

/**
 * Returns `layer` typed, checked, and with `VK_EXT_layer_settings` among its instance extensions when it
 * declares settings (as Khronos layers list it): a helper so a layer module reads as a declaration, and
 * `env.settings` is typed from the declarations (an undeclared name or a wrong type fails `deno check`).
 *
 * @example A layer with one setting
 * ```ts
 * import { defineLayer } from "@vkdeno/loader/layers";
 * const layer = defineLayer({
 *   name: "VK_LAYER_x_quiet",
 *   description: "Says how quiet it is",
 *   settings: { quiet: { type: "bool", default: false } },
 *   create: (env) => ({ intercepts: {}, dispose: () => env.write(`quiet: ${env.settings.quiet}`) }),
 * });
 * console.log(layer.instanceExtensions?.[0]?.name); // "VK_EXT_layer_settings"
 * ```
 * @throws {TypeError} If the name does not start with `VK_LAYER_`, or a setting's default is not of its
 * declared type (or not one of an enum's values).
 */
export function defineLayer<
  I extends ValidationObject,
  const S extends LayerSettingDeclarations = NoLayerSettings,
>(
  layer: TsLayer<I, S>,
): TsLayer<I, S> {
  if (!/^VK_LAYER_\w+$/.test(layer.name)) {
    throw new TypeError(`Invalid layer name "${layer.name}": expected "VK_LAYER_<AUTHOR>_<name>"`);
  }
  if (layer.settings === undefined) return layer;
  checkDeclarations(layer.name, layer.settings);
  const extensions = layer.instanceExtensions ?? [];
  if (extensions.some((e) => e.name === VK_EXT_LAYER_SETTINGS_EXTENSION_NAME)) return layer;
  const settingsExtension = {
    name: VK_EXT_LAYER_SETTINGS_EXTENSION_NAME,
    specVersion: VK_EXT_LAYER_SETTINGS_SPEC_VERSION,
  };
  return { ...layer, instanceExtensions: [...extensions, settingsExtension] };
}

/** Vulkan command names (aliases included) by dispatch level, as the generated command table lists them. */
export interface CommandNamesByLevel {
  /** Commands called without a dispatchable handle (`vkCreateInstance`, the instance enumerations). */
  readonly global: readonly VulkanCommandName[];
  /** Commands whose first parameter is a `VkInstance`. */
  readonly instance: readonly VulkanCommandName[];
  /** Commands whose first parameter is a `VkPhysicalDevice`. */
  readonly physical_device: readonly VulkanCommandName[];
  /** Commands whose first parameter is a `VkDevice`, `VkQueue` or `VkCommandBuffer`. */
  readonly device: readonly VulkanCommandName[];
}

function namesByLevel(): CommandNamesByLevel {
  const out: Record<string, VulkanCommandName[]> = {
    global: [],
    instance: [],
    physical_device: [],
    device: [],
  };
  for (const info of COMMANDS) {
    for (const name of [info.name, ...info.aliases]) out[info.level]!.push(name as VulkanCommandName);
  }
  for (const list of Object.values(out)) Object.freeze(list);
  return Object.freeze(out) as unknown as CommandNamesByLevel;
}

/**
 * Every Vulkan command name (aliases included) by dispatch level.
 *
 * @example Usage
 * ```ts
 * import { COMMAND_NAMES } from "@vkdeno/loader/layers";
 * console.log(COMMAND_NAMES.device.includes("vkCmdDraw")); // true
 * ```
 */
export const COMMAND_NAMES: CommandNamesByLevel = namesOnFirstUse();

/** The lists, made when a level is first read: decoding every command at import made every start pay for it. */
function namesOnFirstUse(): CommandNamesByLevel {
  let names: CommandNamesByLevel | undefined;
  const of = (level: keyof CommandNamesByLevel) => (names ??= namesByLevel())[level];
  return Object.freeze({
    get global() {
      return of("global");
    },
    get instance() {
      return of("instance");
    },
    get physical_device() {
      return of("physical_device");
    },
    get device() {
      return of("device");
    },
  });
}

/**
 * The same hooks for every command of `levels` (default all), aliases included: `intercepts` for a layer
 * that sees every call (a tracer, a call counter). `vkGetInstanceProcAddr` and `vkGetDeviceProcAddr` are
 * left out: the host answers them. Hooks get untyped arguments; narrow on `ctx.command`.
 *
 * @example Count every call
 * ```ts
 * import { defineLayer, everyCommand } from "@vkdeno/loader/layers";
 * const counts = new Map<string, number>();
 * export default defineLayer({
 *   name: "VK_LAYER_example_count",
 *   description: "Counts every call",
 *   create: () => ({
 *     intercepts: everyCommand({ preCallRecord: (ctx) => void counts.set(ctx.command, (counts.get(ctx.command) ?? 0) + 1) }),
 *   }),
 * });
 * ```
 */
export function everyCommand(
  hooks: CommandHooks,
  levels: readonly (keyof CommandNamesByLevel)[] = ["global", "instance", "physical_device", "device"],
): Intercepts {
  const out: Record<string, CommandHooks> = {};
  for (const level of levels) {
    for (const name of COMMAND_NAMES[level]) {
      if (name !== "vkGetInstanceProcAddr" && name !== "vkGetDeviceProcAddr") out[name] = hooks;
    }
  }
  return out as unknown as Intercepts; // a direct cast relates CommandHooks to each command's (docs/performance.md)
}
