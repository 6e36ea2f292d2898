/**
 * vkdeno: a Vulkan loader written in TypeScript for Deno.
 *
 * Discovers Vulkan drivers and layers from their JSON manifests, loads them with
 * `Deno.dlopen`, builds the instance and device call chains, and hands scripts
 * every Vulkan command at the cost of one C call.
 *
 * `Vulkan.load()` returns an object with every Vulkan command as a method by its
 * Vulkan name, taking the C parameter list and typed from vk.xml: handles branded per type (`VkBuffer` is
 * not a `VkImage`, a raw pointer becomes one through `asHandle`; `null` is `VK_NULL_HANDLE` where vk.xml
 * allows it), enums and flags branded per type (combine bits with `flags(A, B)`; `enumName` and `flagNames`
 * name them at run time), 64-bit values as bigints, pointers as `Deno.PointerValue` (build structs with
 * `writeStruct`, typed by struct name, required members required). Every constant (`VK_WHOLE_SIZE`,
 * `VK_API_VERSION_1_3`, ...) and every handle, enum, struct and callback type is exported here. `create`, `VkScope`, `enumerate` and `makeCallback` are
 * thin typed helpers; raw commands return `VkResult` as C does. Device, queue and command-buffer commands
 * are native dispatch stubs: no JavaScript runs between the script and the driver. `vk.deviceTable(device)`
 * lists the commands a device provides (Volk-style); `vk.getUnknownCommand(name, def)` binds a command the
 * generated tables do not know.
 *
 * `VkApi.of(vk)` (over this object or any command source) has every command the idiomatic way:
 * `vk.createBuffer(device, { size, usage })` returns the `VkBuffer`, arrays for count + pointer pairs,
 * struct literals, outputs returned, a negative `VkResult` thrown as a `VkError` (README, "Vulkan in TypeScript").
 *
 * Finding your way: `deno doc --filter vkCreateBuffer mod.ts` (any command, struct, constant or type by
 * name; a struct's own name is the form `readStruct` returns);
 * `deno doc --filter VkStructInputs.VkBufferCreateInfo mod.ts` (the form a struct literal takes in
 * `writeStruct` and `VkApi`: numbers or bigints, arrays where C takes a pointer, required members required);
 * `deno doc --filter VkIdiomaticCommands.createBuffer mod.ts` (a method of `VkApi`, the idiomatic
 * layer); `deno doc --html mod.ts` groups everything by category (Commands, Structs, Handles, Enums, Flags).
 *
 * @example Discovery snapshot
 * ```ts
 * import { snapshotProcessEnvironment } from "@vkdeno/loader";
 * const env = snapshotProcessEnvironment();
 * console.log(env.elevated);
 * ```
 *
 * @example Loader version
 * ```ts
 * import { Vulkan } from "@vkdeno/loader";
 * using vk = Vulkan.load({ env: { vars: {}, elevated: false } });
 * const version = new Uint32Array(new ArrayBuffer(4));
 * vk.vkEnumerateInstanceVersion(Deno.UnsafePointer.of(version));
 * console.log(version[0]! >>> 22); // 1
 * ```
 *
 * @example Typed structs and constants
 * ```ts
 * import {
 *   Arena,
 *   flags,
 *   readStruct,
 *   VK_FORMAT_R8G8B8A8_UNORM,
 *   VK_IMAGE_USAGE_SAMPLED_BIT,
 *   VK_IMAGE_USAGE_TRANSFER_DST_BIT,
 *   VK_SAMPLE_COUNT_1_BIT,
 *   writeStruct,
 * } from "@vkdeno/loader";
 * using arena = new Arena();
 * const info = writeStruct(arena, "VkImageCreateInfo", {
 *   format: VK_FORMAT_R8G8B8A8_UNORM,
 *   extent: { width: 4, height: 4, depth: 1 },
 *   samples: VK_SAMPLE_COUNT_1_BIT, // required: no VkSampleCountFlagBits is 0
 *   usage: flags(VK_IMAGE_USAGE_SAMPLED_BIT, VK_IMAGE_USAGE_TRANSFER_DST_BIT), // flags of one type
 * });
 * console.log(readStruct("VkImageCreateInfo", info).extent.width); // 4
 * ```
 *
 * @module
 */
export type { EnvironmentSnapshot } from "./discovery/environment.ts";
export { snapshotProcessEnvironment } from "./discovery/environment.ts";
export type {
  DeviceTable,
  DriverEntryPoint,
  UnknownCommand,
  VulkanCommand,
  VulkanCommandName,
  VulkanCommands,
  VulkanOptions,
} from "./vulkan.ts";
export * from "./vk/generated/vk_constants.js";
export type * from "./vk/generated/vk_types.ts";
export type * from "./vk/generated/vk_commands.ts";
export type * from "./vk/generated/vk_structs.ts";
export type * from "./vk/generated/vk_callbacks.ts";
export type * from "./vk/generated/vk_create.ts";
export { type CommandSource, create, type CreateArgs, createMany } from "./api/create.ts";
export { VkScope } from "./api/scope.ts";
export { HANDLE_CHECKS, type HandleChecks } from "./vk/handle_check_interface.ts";
export { makeCallback, type MakeCallbackOptions, readStructDeep, VkCallback } from "./vk/vk_callback.ts";
export { loadVulkan, Vulkan } from "./vulkan.ts";
export { VkApi, type VkCommandSource } from "./api/vk_api.ts";
export { type DeviceOrderEntry, explainDeviceOrder, type ExplainDeviceOrderOptions } from "./device_order.ts";
export type { VkChained, VkChainName, VkIdiomaticCommands } from "./vk/generated/vk_idiomatic.ts";
export type { WaitForDevicesOptions } from "./chain/wait_devices.ts";
export type { LogCategory, LogEntry, LoggerOptions, LogLevel, LogRecord, LogSink } from "./loading/log.ts";
export { Logger } from "./loading/log.ts";
export { resultName, VkError } from "./vk/errors.ts";
export { Arena, readCString, readPointer } from "./ffi/memory.ts";
export { asHandle } from "./vk/handle.ts";
export { flags } from "./vk/flags.ts";
export { enumName, flagNames } from "./vk/names.ts";
export type {
  AllocStructOptions,
  ChainFor,
  ChainInput,
  ChainRead,
  EnumerateCommand,
  EnumerateOptions,
  ReadStructOptions,
  RuntimeStructName,
  StructField,
  StructInput,
  StructPointer,
  StructValue,
} from "./api/structs.ts";
export {
  allocStruct,
  check,
  enumerate,
  formatApiVersion,
  makeApiVersion,
  readChain,
  readStruct,
  readStructArray,
  writeStruct,
  writeStructArray,
} from "./api/structs.ts";
// Types the Vulkan object's signatures name; the rest of discovery and the TS layer API are the
// "./discovery" and "./layers" entry points.
export type { DiscoveryChange, DiscoveryChangeKind, DiscoveryWatchOptions } from "./discovery/watch.ts";
export type { DiscoveryWatcher } from "./discovery/watch.ts";
export type { NativeLayerBridgeOptions } from "./layers/native.ts";
export type { TsLayer } from "./layers/layer.ts";
export { type LibvulkanCommands, openLibvulkan, type OpenLibvulkanOptions } from "./libvulkan.ts";
