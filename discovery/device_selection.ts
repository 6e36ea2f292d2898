/**
 * The physical-device variables of one environment, read into a {@linkcode DevicePolicy}:
 * `VK_LOADER_DEVICE_SELECT`, `VK_LOADER_DISABLE_SELECT`, and the id filters `VK_LOADER_DEVICE_ID_FILTER`,
 * `VK_LOADER_VENDOR_ID_FILTER`, `VK_LOADER_DRIVER_ID_FILTER`, with a message for each malformed value.
 * chain/order/devices.ts and chain/order/groups.ts apply the policy to the devices of an instance.
 *
 * @example No variables: sorting on, no filters
 * ```ts
 * import { readDevicePolicy } from "./device_selection.ts";
 * const policy = readDevicePolicy({ vars: {}, elevated: false });
 * console.log(policy.sortingEnabled, policy.deviceIdFilter); // true undefined
 * ```
 *
 * @module
 */

import type { DiscoveryMessage } from "./drivers.ts";
import type { DeviceConfigurations } from "./settings_file.ts";
import { atoi, type EnvironmentSnapshot, getenv, secureGetenv } from "./environment.ts";

/** An inclusive id range of an id filter. */
export interface IdRange {
  /** The lowest id. */
  readonly first: number;
  /** The highest id. */
  readonly last: number;
}

/** One parsed `VK_LOADER_*_ID_FILTER` variable. */
export interface IdFilter {
  /** The variable. */
  readonly variable: string;
  /** Its value as given. */
  readonly text: string;
  /** Valid entries; empty when none parsed, and then nothing matches. */
  readonly ranges: readonly IdRange[];
}

/** `VK_LOADER_DEVICE_SELECT`, parsed. */
export interface DeviceSelection {
  /** The vendor id to select. */
  readonly vendorID: number;
  /** The device id to select. */
  readonly deviceID: number;
  /** The variable's value as given. */
  readonly text: string;
}

/** The device policy of one environment. */
export interface DevicePolicy {
  /** False when `VK_LOADER_DISABLE_SELECT` is a non-zero integer. */
  readonly sortingEnabled: boolean;
  /** The `VK_LOADER_DISABLE_SELECT` value, when set. */
  readonly disableSelectText?: string;
  /** `VK_LOADER_DEVICE_SELECT`, when set and valid. */
  readonly select?: DeviceSelection;
  /** `VK_LOADER_DEVICE_ID_FILTER`, when set. */
  readonly deviceIdFilter?: IdFilter;
  /** `VK_LOADER_VENDOR_ID_FILTER`, when set. */
  readonly vendorIdFilter?: IdFilter;
  /** `VK_LOADER_DRIVER_ID_FILTER`, when set. */
  readonly driverIdFilter?: IdFilter;
  /** Warnings about malformed values and notes on what is active, for `loading/log.ts`. */
  readonly messages: readonly DiscoveryMessage[];
  /**
   * The loader settings file's `device_configurations`, when it has them (set at `vkCreateInstance` from
   * driver discovery, not from the variables): they select and order the devices enumerated
   * (chain/order/configurations.ts).
   */
  readonly deviceConfigurations?: DeviceConfigurations;
}

/** The variables this module reads. */
export const DEVICE_POLICY_VARIABLES: readonly string[] = [
  "VK_LOADER_DEVICE_SELECT",
  "VK_LOADER_DISABLE_SELECT",
  "VK_LOADER_DEVICE_ID_FILTER",
  "VK_LOADER_VENDOR_ID_FILTER",
  "VK_LOADER_DRIVER_ID_FILTER",
];

/** The most entries an id filter keeps, as in the Khronos loader. */
export const MAX_ID_FILTER_ENTRIES = 16;

/**
 * Reads an unsigned id at `text[start]`: `0x`/`0X` hex or decimal, up to 32 bits.
 * Returns the value and the index after it, or undefined when no digit is there.
 */
function readId(text: string, start: number): { value: number; end: number } | undefined {
  let i = start;
  let radix = 10;
  if (
    text[i] === "0" && (text[i + 1] === "x" || text[i + 1] === "X") && /[0-9a-f]/i.test(text[i + 2] ?? "")
  ) {
    radix = 16;
    i += 2;
  }
  const digits = radix === 16 ? /[0-9a-f]/i : /[0-9]/;
  const from = i;
  while (i < text.length && digits.test(text[i]!)) i++;
  if (i === from) return undefined;
  const value = parseInt(text.slice(from, i), radix);
  if (!Number.isSafeInteger(value) || value > 0xffffffff) return undefined;
  return { value, end: i };
}

/**
 * Parses an id filter: entries separated by commas, each an id or a range `first-last` (any one
 * character separates the two ends, as in the Khronos loader, so `first:last` is a range too); ids are
 * decimal or `0x` hex. Entries that do not parse are reported in `invalid` and left out; after
 * {@linkcode MAX_ID_FILTER_ENTRIES} entries the rest are ignored.
 *
 * @example Usage
 * ```ts
 * import { parseIdFilter } from "./device_selection.ts";
 * parseIdFilter("0x1001-0x1003, 42").ranges; // [{ first: 4097, last: 4099 }, { first: 42, last: 42 }]
 * ```
 */
export function parseIdFilter(text: string): { ranges: IdRange[]; invalid: string[]; dropped: string[] } {
  const ranges: IdRange[] = [];
  const invalid: string[] = [];
  const dropped: string[] = [];
  const entries = text.split(",").map((e) => e.trim()).filter((e) => e.length > 0);
  for (const entry of entries) {
    if (ranges.length + invalid.length >= MAX_ID_FILTER_ENTRIES) {
      dropped.push(entry);
      continue;
    }
    const first = readId(entry, 0);
    if (!first) {
      invalid.push(entry);
      continue;
    }
    if (first.end === entry.length) {
      ranges.push({ first: first.value, last: first.value });
      continue;
    }
    const last = readId(entry, first.end + 1);
    if (!last || last.end !== entry.length || last.value < first.value) {
      invalid.push(entry);
      continue;
    }
    ranges.push({ first: first.value, last: last.value });
  }
  return { ranges, invalid, dropped };
}

/**
 * Parses `VK_LOADER_DEVICE_SELECT`: `vendor:device`, both hex with an optional `0x`, read as the Khronos
 * loader's `sscanf("%x:%x")` reads it (measured against libvulkan1 1.3.239): blanks may precede each
 * number but not the colon, and text after the second number is ignored (`ignored` reports it).
 *
 * @example Usage
 * ```ts
 * import { parseDeviceSelect } from "./device_selection.ts";
 * parseDeviceSelect("0x10de:1f91"); // { vendorID: 4318, deviceID: 8081, text: "0x10de:1f91" }
 * ```
 */
export function parseDeviceSelect(text: string): (DeviceSelection & { ignored?: string }) | undefined {
  const m = /^\s*(?:0[xX](?=[0-9a-fA-F]))?([0-9a-fA-F]+):\s*(?:0[xX](?=[0-9a-fA-F]))?([0-9a-fA-F]+)/.exec(
    text,
  );
  if (!m) return undefined;
  const vendorID = parseInt(m[1]!, 16), deviceID = parseInt(m[2]!, 16);
  if (vendorID > 0xffffffff || deviceID > 0xffffffff) return undefined;
  const rest = text.slice(m[0].length);
  return rest === "" ? { vendorID, deviceID, text } : { vendorID, deviceID, text, ignored: rest };
}

function idFilterFrom(
  env: EnvironmentSnapshot,
  variable: string,
  messages: DiscoveryMessage[],
): IdFilter | undefined {
  // The Khronos loader reads the filters with its secure getenv: they are ignored when elevated.
  const text = secureGetenv(env, variable);
  if (text === undefined || text.trim() === "") return undefined;
  const { ranges, invalid, dropped } = parseIdFilter(text);
  for (const entry of invalid) {
    messages.push({
      level: "warn",
      category: "driver",
      text:
        `${variable}="${text}": entry "${entry}" is not an id or an id range (decimal or 0x hex), ignored`,
    });
  }
  if (dropped.length > 0) {
    messages.push({
      level: "warn",
      category: "driver",
      text: `${variable}="${text}": only the first ${MAX_ID_FILTER_ENTRIES} entries are used, ignored "${
        dropped.join(",")
      }"`,
    });
  }
  if (ranges.length === 0) {
    messages.push({
      level: "warn",
      category: "driver",
      text: `${variable}="${text}" has no valid entry: no physical device matches it`,
    });
  }
  return { variable, text, ranges };
}

/**
 * Reads the device policy from an environment snapshot. `VK_LOADER_DEVICE_SELECT` and
 * `VK_LOADER_DISABLE_SELECT` are read with `getenv`; the id filters with `secureGetenv` (ignored when
 * the process is elevated).
 *
 * @example Usage
 * ```ts
 * import { readDevicePolicy } from "./device_selection.ts";
 * const p = readDevicePolicy({ vars: { VK_LOADER_VENDOR_ID_FILTER: "0x10de" }, elevated: false });
 * console.log(p.vendorIdFilter?.ranges); // [{ first: 4318, last: 4318 }]
 * ```
 */
export function readDevicePolicy(env: EnvironmentSnapshot): DevicePolicy {
  const messages: DiscoveryMessage[] = [];
  const disable = getenv(env, "VK_LOADER_DISABLE_SELECT");
  const sortingEnabled = disable === undefined || atoi(disable) === 0;
  if (!sortingEnabled) {
    messages.push({
      level: "info",
      category: "driver",
      text: `VK_LOADER_DISABLE_SELECT="${disable}" is non-zero: physical devices are not sorted`,
    });
  }
  let select: DeviceSelection | undefined;
  const selectText = getenv(env, "VK_LOADER_DEVICE_SELECT");
  if (selectText !== undefined && selectText.trim() !== "") {
    const parsed = parseDeviceSelect(selectText);
    if (!parsed) {
      messages.push({
        level: "warn",
        category: "driver",
        text:
          `VK_LOADER_DEVICE_SELECT="${selectText}" is not "vendorID:deviceID" in hex (e.g. "0x10de:0x1f91"), ignored`,
      });
    } else {
      select = { vendorID: parsed.vendorID, deviceID: parsed.deviceID, text: parsed.text };
      if (parsed.ignored !== undefined) {
        messages.push({
          level: "warn",
          category: "driver",
          text: `VK_LOADER_DEVICE_SELECT="${selectText}": text after the IDs ignored ("${parsed.ignored}")`,
        });
      }
      if (!sortingEnabled) {
        messages.push({
          level: "warn",
          category: "driver",
          text:
            `VK_LOADER_DEVICE_SELECT="${selectText}" has no effect: VK_LOADER_DISABLE_SELECT="${disable}" turns sorting off`,
        });
      }
    }
  }
  return {
    sortingEnabled,
    disableSelectText: disable,
    select,
    deviceIdFilter: idFilterFrom(env, "VK_LOADER_DEVICE_ID_FILTER", messages),
    vendorIdFilter: idFilterFrom(env, "VK_LOADER_VENDOR_ID_FILTER", messages),
    driverIdFilter: idFilterFrom(env, "VK_LOADER_DRIVER_ID_FILTER", messages),
    messages,
  };
}
