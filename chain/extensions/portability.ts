/**
 * `VK_KHR_portability_enumeration`, which the loader implements (docs/behaviour.md M03, A13): pure decisions
 * over plain data that the `vkCreateInstance` terminator applies.
 *
 * @example Deciding which drivers to load
 * ```ts
 * import { decidePortability } from "./portability.ts";
 * const decision = decidePortability([
 *   { fileName: "lvp_icd.x86_64.json", isPortabilityDriver: false },
 *   { fileName: "MoltenVK_icd.json", isPortabilityDriver: true },
 * ], { flags: 0, enabledExtensions: [] });
 * console.log(decision.used.map((d) => d.fileName)); // ["lvp_icd.x86_64.json"]
 * ```
 *
 * @module
 */

import { VkError } from "../../vk/errors.ts";
import type { LogEntry } from "../../loading/log.ts";

/** The extension name. */
export const PORTABILITY_ENUMERATION_EXTENSION = "VK_KHR_portability_enumeration";

/** `VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR`. */
export const VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR = 0x1;

/** What the application asked for in `VkInstanceCreateInfo`. */
export interface PortabilityRequest {
  /** `VkInstanceCreateInfo::flags`. */
  readonly flags: number;
  /** `ppEnabledExtensionNames`. */
  readonly enabledExtensions: readonly string[];
}

/** What the decision needs of a driver: its manifest file name and its `is_portability_driver`. */
export interface PortabilityDriverInfo {
  /** The manifest's file name, for messages. */
  readonly fileName: string;
  /** The manifest's `is_portability_driver`. */
  readonly isPortabilityDriver: boolean;
}

/** A driver left out, and why. */
export interface SkippedPortabilityDriver<T extends PortabilityDriverInfo> {
  /** The driver given. */
  readonly driver: T;
  /** A sentence saying what the application did not ask for. */
  readonly why: string;
}

/** Which drivers the instance uses. */
export interface PortabilityDecision<T extends PortabilityDriverInfo> {
  /** Whether portability drivers are enumerated (flag and extension both given). */
  readonly enumeratePortability: boolean;
  /** Whether `VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR` is set. */
  readonly flagSet: boolean;
  /** Whether `VK_KHR_portability_enumeration` is enabled. */
  readonly extensionEnabled: boolean;
  /** The drivers to load, in the input order. */
  readonly used: readonly T[];
  /** Portability drivers left out. */
  readonly skipped: readonly SkippedPortabilityDriver<T>[];
  /** What to log now (misuse warnings, one line per skipped driver). */
  readonly messages: readonly LogEntry[];
}

/** What to change in one driver's `VkInstanceCreateInfo`. */
export interface DriverPortabilityInfo {
  /** The flags to pass to this driver. */
  readonly flags: number;
  /** Whether the portability bit was removed for it. */
  readonly flagStripped: boolean;
  /** Whether to keep `VK_KHR_portability_enumeration` in its extension list (it advertises it). */
  readonly passExtension: boolean;
  /** A debug line when something was removed. */
  readonly message?: LogEntry;
}

const FLAG = "VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR";
const VUID = "VUID-VkInstanceCreateInfo-flags-06559";

function quoteList(drivers: readonly PortabilityDriverInfo[]): string {
  return drivers.map((d) => `"${d.fileName}"`).join(", ");
}

/**
 * Splits the discovered drivers into those the instance uses and the portability drivers it leaves out,
 * with the messages for the application's flags and extensions:
 * - flag and extension: every driver is used;
 * - flag without the extension: a warning naming `VUID-VkInstanceCreateInfo-flags-06559` (always, as it
 *   is invalid usage), and portability drivers are left out;
 * - extension without the flag: portability drivers are left out, with a warning when there are any;
 * - neither: portability drivers are left out, one info line each.
 *
 * @example Flag without the extension
 * ```ts
 * import { decidePortability } from "./portability.ts";
 * const d = decidePortability([{ fileName: "m.json", isPortabilityDriver: true }], { flags: 1, enabledExtensions: [] });
 * console.log(d.used.length, d.messages[0]?.level); // 0 "warn"
 * ```
 */
export function decidePortability<T extends PortabilityDriverInfo>(
  drivers: readonly T[],
  request: PortabilityRequest,
): PortabilityDecision<T> {
  const flagSet = (request.flags & VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR) !== 0;
  const extensionEnabled = request.enabledExtensions.includes(PORTABILITY_ENUMERATION_EXTENSION);
  const enumeratePortability = flagSet && extensionEnabled;
  const messages: LogEntry[] = [];
  if (flagSet && !extensionEnabled) {
    messages.push({
      level: "warn",
      category: "validation",
      text: `VkInstanceCreateInfo.flags has ${FLAG} but ppEnabledExtensionNames does not enable ` +
        `"${PORTABILITY_ENUMERATION_EXTENSION}" (${VUID}): portability drivers are not enumerated`,
    });
  }
  if (enumeratePortability) {
    messages.push({
      level: "info",
      category: "driver",
      text:
        `${FLAG} is set and "${PORTABILITY_ENUMERATION_EXTENSION}" enabled: portability drivers are enumerated`,
    });
    return { enumeratePortability, flagSet, extensionEnabled, used: [...drivers], skipped: [], messages };
  }
  const used: T[] = [];
  const skipped: SkippedPortabilityDriver<T>[] = [];
  const missing = flagSet
    ? `"${PORTABILITY_ENUMERATION_EXTENSION}" is not enabled`
    : extensionEnabled
    ? `VkInstanceCreateInfo.flags lacks ${FLAG}`
    : `VkInstanceCreateInfo.flags lacks ${FLAG} and "${PORTABILITY_ENUMERATION_EXTENSION}" is not enabled`;
  for (const driver of drivers) {
    if (!driver.isPortabilityDriver) {
      used.push(driver);
      continue;
    }
    const why = `it is a portability driver ("is_portability_driver": true) and ${missing}`;
    skipped.push({ driver, why });
    messages.push({
      level: "info",
      category: "driver",
      text: `Driver "${driver.fileName}" not used: ${why}`,
    });
  }
  if (extensionEnabled && !flagSet && skipped.length > 0) {
    messages.push({
      level: "warn",
      category: "driver",
      text:
        `"${PORTABILITY_ENUMERATION_EXTENSION}" is enabled but VkInstanceCreateInfo.flags lacks ${FLAG}: ` +
        `portability drivers ${quoteList(skipped.map((s) => s.driver))} are not enumerated`,
    });
  }
  return { enumeratePortability, flagSet, extensionEnabled, used, skipped, messages };
}

/**
 * The error for `vkCreateInstance` when no driver is left and portability drivers were left out; it says
 * which half of the opt-in the application is missing. Undefined when no portability driver was skipped
 * (the generic "no drivers" error applies then).
 *
 * @example Extension without the flag
 * ```ts
 * import { decidePortability, portabilityError } from "./portability.ts";
 * const d = decidePortability([{ fileName: "m.json", isPortabilityDriver: true }], {
 *   flags: 0,
 *   enabledExtensions: ["VK_KHR_portability_enumeration"],
 * });
 * console.log(portabilityError(d)?.result); // "VK_ERROR_INCOMPATIBLE_DRIVER"
 * ```
 */
export function portabilityError(decision: PortabilityDecision<PortabilityDriverInfo>): VkError | undefined {
  if (decision.skipped.length === 0) return undefined;
  const found = `Cannot create instance: the only drivers found are portability drivers (${
    quoteList(decision.skipped.map((s) => s.driver))
  })`;
  let text: string;
  if (decision.flagSet && !decision.extensionEnabled) {
    text = `${found}, and VkInstanceCreateInfo.flags has ${FLAG} without enabling ` +
      `"${PORTABILITY_ENUMERATION_EXTENSION}" (${VUID}); enable the extension to use them`;
  } else if (decision.extensionEnabled && !decision.flagSet) {
    text = `${found}, and "${PORTABILITY_ENUMERATION_EXTENSION}" is enabled without ${FLAG} in ` +
      `VkInstanceCreateInfo.flags; set the flag to use them`;
  } else {
    text = `${found}; set ${FLAG} in VkInstanceCreateInfo.flags and enable ` +
      `"${PORTABILITY_ENUMERATION_EXTENSION}" to use them`;
  }
  return new VkError("VK_ERROR_INCOMPATIBLE_DRIVER", text);
}

/**
 * What one driver receives: the portability bit is removed from `flags` for a driver that does not
 * advertise `VK_KHR_portability_enumeration` (it would reject or misread it), and the extension is passed
 * only to drivers that advertise it.
 *
 * @example Usage
 * ```ts
 * import { driverPortabilityInfo } from "./portability.ts";
 * const d = driverPortabilityInfo({ flags: 1, enabledExtensions: ["VK_KHR_portability_enumeration"] }, {
 *   fileName: "lvp_icd.x86_64.json",
 *   instanceExtensions: ["VK_KHR_surface"],
 * });
 * console.log(d.flags, d.flagStripped, d.passExtension); // 0 true false
 * ```
 */
export function driverPortabilityInfo(
  request: PortabilityRequest,
  driver: { readonly fileName: string; readonly instanceExtensions: readonly string[] },
): DriverPortabilityInfo {
  const supports = driver.instanceExtensions.includes(PORTABILITY_ENUMERATION_EXTENSION);
  const flagSet = (request.flags & VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR) !== 0;
  const extensionEnabled = request.enabledExtensions.includes(PORTABILITY_ENUMERATION_EXTENSION);
  const flagStripped = flagSet && !supports;
  const flags = flagStripped
    ? request.flags & ~VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR
    : request.flags;
  const message: LogEntry | undefined = flagStripped
    ? {
      level: "debug",
      category: "driver",
      text: `Driver "${driver.fileName}" does not advertise "${PORTABILITY_ENUMERATION_EXTENSION}": ` +
        `${FLAG} removed from the flags it receives`,
    }
    : undefined;
  return { flags: flags >>> 0, flagStripped, passExtension: supports && extensionEnabled, message };
}
