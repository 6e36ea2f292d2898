/**
 * Writing Vulkan layers in TypeScript: {@linkcode defineLayer} and the hooks of a validation-style
 * chassis (one validation object per instance, and per device if the layer asks), the shared state tracker, the shipped layers (api_dump, draw_stats, object_lifetimes), and the
 * two ways to run them: {@linkcode installLayers} around a command object in the same script, or a layer
 * manifest whose `library_path` names the module, which `Vulkan.load` puts in its native chain when
 * given the layer: {@linkcode importLayerModules} imports such modules and returns their layers, for
 * `Vulkan.load({ env, layerModules: layers })`. A layer's `settings` (declared with types and defaults, read
 * typed as `env.settings`) are set as a Khronos layer's: `VK_<LAYER>_<SETTING>` variables,
 * `vk_layer_settings.txt`, `VkLayerSettingsCreateInfoEXT` ({@linkcode layerSettingsCreateInfo}).
 *
 * @example A layer that counts draws
 * ```ts
 * import { defineLayer } from "@vkdeno/loader/layers";
 * const counter = defineLayer({
 *   name: "VK_LAYER_example_counter",
 *   description: "Counts vkCmdDraw calls",
 *   create: () => ({ intercepts: { vkCmdDraw: { preCallRecord: () => {} } } }),
 * });
 * console.log(counter.name);
 * ```
 *
 * @module
 */
// Loaded with the entry, so that `.ts` layer manifests need no synchronous load later (on_demand.ts).
import "./module_layer.ts";

export type {
  ArgumentIndex,
  ArgumentValue,
  CallContext,
  CallContextOf,
  ChainLink,
  ChainLinkInput,
  ChainLinkRead,
  CommandArguments,
  CommandDescription,
  CommandHooks,
  CommandImplementation,
  CommandNamesByLevel,
  CommandParameter,
  CommandResult,
  DeviceLayerEnv,
  Dispatch,
  EnumSettingDeclaration,
  ExtendingStruct,
  ExtendingStructInput,
  ExtendingStructRead,
  FramesetSettingDeclaration,
  Intercepts,
  LayerCommand,
  LayerCommandFunction,
  LayerEnv,
  LayerSettingDeclaration,
  LayerSettingDeclarations,
  LayerSettingFrameset,
  LayerSettingValue,
  LayerSettingValues,
  LayerSeverity,
  NoLayerSettings,
  OutputValue,
  PointedStruct,
  ReportOptions,
  ScalarSettingDeclaration,
  ScalarSettingTypes,
  StructMembers,
  TsLayer,
  TsLayerExtension,
  ValidationMessage,
  ValidationObject,
  VulkanCommandName,
} from "./layer.ts";
export {
  COMMAND_NAMES,
  defineCommand,
  defineLayer,
  everyCommand,
  provide,
  VK_ERROR_UNKNOWN,
  VK_ERROR_VALIDATION_FAILED_EXT,
} from "./layer.ts";
export { Chassis, type ChassisOptions, DispatchObject } from "./chassis.ts";
export {
  type CallRecord,
  type HandleKey,
  StateObject,
  StateTracker,
  SubStateSlot,
  type TrackedCall,
  type TrackerHooks,
} from "./state.ts";
export { type CommandObject, installLayers, type InstallLayersOptions, type LayeredCommands } from "./top.ts";
export { NativeLayerBridge, type NativeLayerBridgeOptions } from "./native.ts";
export { BUILTIN_LAYERS, importLayerModules, type ImportLayerModulesOptions } from "./catalog.ts";
export { apiDumpLayer } from "./api_dump.ts";
export { type CommandStats, drawStatsLayer } from "./draw_stats.ts";
export { objectLifetimesLayer } from "./object_lifetimes.ts";
export {
  type LayerSettingInputs,
  layerSettingsCreateInfo,
  layerSettingsFilePath,
  settingsFileKey,
  settingVariables,
} from "./settings.ts";
