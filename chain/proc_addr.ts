/**
 * The rules of `vkGetInstanceProcAddr` and `vkGetDeviceProcAddr` as data-free functions over the generated
 * command table (docs/behaviour.md A07-A09), and the table of the loader's trampolines.
 *
 * @module
 */

import { COMMAND_INDEX, COMMAND_PROVIDERS, COMMANDS } from "../vk/generated/commands.ts";
import { EXTENSIONS } from "../vk/generated/extensions.ts";
import type { CommandInfo } from "../vk/generated/types.ts";
import { majorMinor } from "../vk/api_version.ts";
import { VK_API_VERSION_1_3 } from "../vk/generated/vk_constants.js";

/**
 * The one table of the loader's own trampolines, by primary name, with the level they answer at:
 * `global` (callable without an instance), `instance` or `device` (also what `vkGetDeviceProcAddr`
 * returns). chain/trampoline.ts gives each its body (`trampolineBodies`, typed against this table, as
 * are its stamping trampolines), vulkan.ts binds them, and the sets below are read from it.
 */
export const LOADER_TRAMPOLINES = {
  vkCreateInstance: "global",
  vkEnumerateInstanceExtensionProperties: "global",
  vkEnumerateInstanceLayerProperties: "global",
  vkEnumerateInstanceVersion: "global",
  vkGetInstanceProcAddr: "instance",
  vkDestroyInstance: "instance",
  vkEnumeratePhysicalDevices: "instance",
  vkEnumeratePhysicalDeviceGroups: "instance",
  vkCreateDevice: "instance",
  vkGetDeviceProcAddr: "device",
  vkDestroyDevice: "device",
  vkGetDeviceQueue: "device",
  vkGetDeviceQueue2: "device",
  vkAllocateCommandBuffers: "device",
} as const satisfies Readonly<Record<string, "global" | "instance" | "device">>;

/** A primary command name the loader answers with its own trampoline. */
export type LoaderTrampolineName = keyof typeof LOADER_TRAMPOLINES;

/** Alias names of trampolines (the application may ask for either name). */
const TRAMPOLINE_ALIASES = ["vkEnumeratePhysicalDeviceGroupsKHR"] as const;

/** True when `name` (a primary name) is one of {@linkcode LOADER_TRAMPOLINES}. */
export function isLoaderTrampoline(name: string): name is LoaderTrampolineName {
  return Object.hasOwn(LOADER_TRAMPOLINES, name);
}

function trampolinesAt(level: "global" | "device"): ReadonlySet<string> {
  return new Set(Object.entries(LOADER_TRAMPOLINES).filter(([, l]) => l === level).map(([n]) => n));
}

/** Commands callable without an instance. */
export const GLOBAL_COMMANDS: ReadonlySet<string> = trampolinesAt("global");

/** Commands where the application always gets the loader's own trampoline. */
export const TRAMPOLINE_COMMANDS: ReadonlySet<string> = new Set([
  ...Object.keys(LOADER_TRAMPOLINES),
  ...TRAMPOLINE_ALIASES,
]);

/** Device commands `vkGetDeviceProcAddr` answers with a loader trampoline. */
export const DEVICE_TRAMPOLINES: ReadonlySet<string> = trampolinesAt("device");

/** What a name resolves to. */
export type ProcAddrAnswer =
  /** The loader's trampoline for this command. */
  | { readonly kind: "trampoline"; readonly name: string; readonly info: CommandInfo }
  /** Dispatch stub of the command's slot (instance or device commands). */
  | { readonly kind: "dispatch"; readonly info: CommandInfo }
  /** Trampoline unwrap stub of the command's slot (physical-device commands). */
  | { readonly kind: "physical_device"; readonly info: CommandInfo }
  /** The device's own function (device dispatch table slot). */
  | { readonly kind: "device_table"; readonly info: CommandInfo }
  /** A name the tables do not know. */
  | { readonly kind: "unknown" }
  /** NULL. */
  | { readonly kind: "null"; readonly why: string };

/** The generated info of a name or alias. */
export function commandInfo(name: string): CommandInfo | undefined {
  const i = COMMAND_INDEX[name];
  return i === undefined ? undefined : COMMANDS[i];
}

function isCore(provider: string): boolean {
  return provider.startsWith("VK_VERSION_");
}

/**
 * Whether `name` is available given the enabled extensions: core, or from a device extension when
 * `deviceExtensionsKnown` is false (instance level cannot know them), or from an enabled extension.
 *
 * @example Usage
 * ```ts
 * import { isEnabled } from "./proc_addr.ts";
 * console.log(isEnabled("vkGetPhysicalDeviceProperties2KHR", new Set())); // false
 * console.log(isEnabled("vkCreateSwapchainKHR", new Set())); // true: a device extension
 * ```
 */
export function isEnabled(
  name: string,
  instanceExtensions: ReadonlySet<string>,
  deviceExtensions?: ReadonlySet<string>,
): boolean {
  const providers = COMMAND_PROVIDERS[name] ?? [];
  return providers.some((p) => {
    if (isCore(p) || instanceExtensions.has(p)) return true;
    if (EXTENSIONS[p]?.type !== "device") return false;
    return deviceExtensions === undefined || deviceExtensions.has(p);
  });
}

/**
 * `vkGetInstanceProcAddr`'s answer for `name`, given the instance (or none).
 *
 * @example Usage
 * ```ts
 * import { instanceProcAddrRule } from "./proc_addr.ts";
 * console.log(instanceProcAddrRule("vkCreateDevice", undefined).kind); // "null"
 * console.log(instanceProcAddrRule("vkCreateInstance", undefined).kind); // "trampoline"
 * ```
 */
export function instanceProcAddrRule(
  name: string,
  instance: { readonly apiVersion: number; readonly enabledExtensions: ReadonlySet<string> } | undefined,
): ProcAddrAnswer {
  const info = commandInfo(name);
  if (name === "vkGetInstanceProcAddr") return { kind: "trampoline", name, info: info! };
  if (instance === undefined) {
    return GLOBAL_COMMANDS.has(name)
      ? { kind: "trampoline", name, info: info! }
      : { kind: "null", why: "only global commands resolve without an instance" };
  }
  if (GLOBAL_COMMANDS.has(name)) {
    return majorMinor(instance.apiVersion) >= majorMinor(VK_API_VERSION_1_3)
      ? { kind: "null", why: "global commands are NULL for a Vulkan 1.3+ instance" }
      : { kind: "trampoline", name, info: info! };
  }
  if (!info) return { kind: "unknown" };
  if (!isEnabled(name, instance.enabledExtensions)) {
    return { kind: "null", why: "its instance extension is not enabled" };
  }
  if (TRAMPOLINE_COMMANDS.has(name)) return { kind: "trampoline", name, info };
  if (info.level === "physical_device") return { kind: "physical_device", info };
  if (info.level === "global") return { kind: "null", why: "not a global command" };
  return { kind: "dispatch", info };
}

/**
 * `vkGetDeviceProcAddr`'s answer for `name`, given the device's enabled extensions.
 *
 * @example Usage
 * ```ts
 * import { deviceProcAddrRule } from "./proc_addr.ts";
 * const none = new Set<string>();
 * console.log(deviceProcAddrRule("vkCmdDraw", none, none).kind); // "device_table"
 * console.log(deviceProcAddrRule("vkCreateSwapchainKHR", none, none).kind); // "null"
 * console.log(deviceProcAddrRule("vkGetPhysicalDeviceProperties", none, none).kind); // "null"
 * ```
 */
export function deviceProcAddrRule(
  name: string,
  instanceExtensions: ReadonlySet<string>,
  deviceExtensions: ReadonlySet<string>,
): ProcAddrAnswer {
  const info = commandInfo(name);
  if (!info) return { kind: "unknown" };
  if (info.level !== "device") return { kind: "null", why: "not a device-level command" };
  if (DEVICE_TRAMPOLINES.has(name)) return { kind: "trampoline", name, info };
  if (!isEnabled(name, instanceExtensions, deviceExtensions)) {
    return { kind: "null", why: "its extension is not enabled" };
  }
  return { kind: "device_table", info };
}
