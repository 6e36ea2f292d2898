/**
 * The loader settings file, `vk_loader_settings.json`, that vkconfig writes: where it is looked for, which
 * entry applies to this process, and what its fields say (docs/behaviour.md G05-G10). Plain data.
 *
 * @example Reading the settings for a snapshot
 * ```ts
 * import { readLoaderSettings } from "./settings_file.ts";
 * const found = readLoaderSettings({ vars: { HOME: "/nonexistent" }, elevated: false, root: "/nonexistent" });
 * console.log(found.settings === undefined, found.searched.length); // true 6
 * ```
 *
 * @module
 */

import type { DiscoveryMessage } from "./message.ts";
import type { EnvironmentSnapshot } from "./environment.ts";
import { secureGetenv } from "./environment.ts";
import { describeJsonType, readManifestFile } from "./manifest_file.ts";
import { observePath, ScanMemo, snapshotKey } from "./scan_memo.ts";
import { joinPath, resolveEntry, splitPathList, SYSCONFDIR, underRoot } from "./search_paths.ts";

/** The file name the loader looks for. */
export const LOADER_SETTINGS_FILE_NAME = "vk_loader_settings.json";
/** The folder, under each search base, that holds it. */
export const LOADER_SETTINGS_SUBFOLDER = "vulkan/loader_settings.d";

/** What a settings-file layer entry does with its layer. */
export type SettingsLayerControl = "auto" | "on" | "off" | "unordered_layer_location";

/**
 * One entry of a settings `layers` list.
 *
 * @example Usage
 * ```ts
 * import type { SettingsLayer } from "@vkdeno/loader/discovery";
 * const l: SettingsLayer = { index: 0, control: "on", name: "VK_LAYER_KHRONOS_validation", path: "/x.json", treatAsImplicit: false };
 * ```
 */
export interface SettingsLayer {
  /** Position in the list. */
  readonly index: number;
  /** What it does; an unknown control string reads as `auto`, as in the C loader. */
  readonly control: SettingsLayerControl;
  /** The layer name (absent for `unordered_layer_location`). */
  readonly name?: string;
  /** The layer manifest to read (absent for `unordered_layer_location`). */
  readonly path?: string;
  /** `treat_as_implicit_manifest`: the manifest is read as an implicit layer's. */
  readonly treatAsImplicit: boolean;
}

/**
 * One entry of a settings `device_configurations` list: the physical device it names, matched by
 * `VkPhysicalDeviceIDProperties::deviceUUID` and `driverUUID` and `VkPhysicalDeviceProperties::driverVersion`.
 *
 * @example Usage
 * ```ts
 * import type { SettingsDeviceConfiguration } from "@vkdeno/loader/discovery";
 * const uuid = Array.from({ length: 16 }, (_, i) => i);
 * const c: SettingsDeviceConfiguration = { index: 0, deviceUUID: uuid, driverUUID: uuid, driverVersion: 1 };
 * ```
 */
export interface SettingsDeviceConfiguration {
  /** Position in the list (malformed entries keep their place in the numbering). */
  readonly index: number;
  /** `deviceUUID`: 16 bytes. */
  readonly deviceUUID: readonly number[];
  /** `driverUUID`: 16 bytes. */
  readonly driverUUID: readonly number[];
  /** `driverVersion`, as the driver reports it. */
  readonly driverVersion: number;
  /** `deviceName`, for messages only (matching ignores it). */
  readonly deviceName?: string;
  /** `driverName`, for messages only. */
  readonly driverName?: string;
}

/**
 * A settings file's device list with the file it came from: what the physical-device enumeration applies
 * (chain/order/configurations.ts) and its messages name.
 *
 * @example Usage
 * ```ts
 * import type { DeviceConfigurations } from "@vkdeno/loader/discovery";
 * const none: DeviceConfigurations = { settingsPath: "/etc/vulkan/loader_settings.d/vk_loader_settings.json", entries: [] };
 * ```
 */
export interface DeviceConfigurations {
  /** The settings file. */
  readonly settingsPath: string;
  /** Its well-formed entries, in order (empty: no device is shown). */
  readonly entries: readonly SettingsDeviceConfiguration[];
}

/**
 * A UUID as messages print it: `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, lower-case hex.
 *
 * @example Usage
 * ```ts
 * import { formatUuid } from "./settings_file.ts";
 * console.log(formatUuid(Array.from({ length: 16 }, (_, i) => i))); // "00010203-0405-0607-0809-0a0b0c0d0e0f"
 * ```
 */
export function formatUuid(bytes: ArrayLike<number>): string {
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The device list of the settings in force, or undefined when there is none (the file's entry has no
 * `device_configurations`, or no settings are active).
 *
 * @example Usage
 * ```ts
 * import { deviceConfigurationsOf } from "./settings_file.ts";
 * console.log(deviceConfigurationsOf(undefined)); // undefined
 * ```
 */
export function deviceConfigurationsOf(
  settings: LoaderSettings | undefined,
): DeviceConfigurations | undefined {
  const entries = settings?.deviceConfigurations;
  return entries === undefined ? undefined : { settingsPath: settings!.path, entries };
}

/**
 * The settings in force: the file and the entry chosen in it.
 *
 * @example Usage
 * ```ts
 * import type { LoaderSettings } from "@vkdeno/loader/discovery";
 * const describe = (s: LoaderSettings) => `${s.path} entry ${s.entryIndex}`;
 * ```
 */
export interface LoaderSettings {
  /** The settings file. */
  readonly path: string;
  /** The variable or rule that led to it (`XDG_CONFIG_HOME`, `SYSCONFDIR`, ...). */
  readonly source: string;
  /** Its `file_format_version`. */
  readonly fileFormatVersion: string;
  /** Which entry applies (0 for a lone `settings` object). */
  readonly entryIndex: number;
  /** The `app_keys` value that named this process, when an application entry matched. */
  readonly matchedAppKey?: string;
  /** The `layers` list; absent when the entry has no `layers` key (layer discovery runs as usual). */
  readonly layers?: readonly SettingsLayer[];
  /** The `stderr_log` filter names, when given. */
  readonly stderrLog?: readonly string[];
  /** `LOG_BITS` of `stderr_log` (0 when it names nothing known). */
  readonly logMask: number;
  /** `additional_drivers` paths, in order. */
  readonly additionalDrivers: readonly string[];
  /** `additional_drivers_use_exclusively`: only the additional drivers are used. */
  readonly additionalDriversExclusive: boolean;
  /**
   * The `device_configurations` list, its well-formed entries in order; absent when the entry has no such
   * key (devices are then not selected by the file). Present, even empty, it selects and orders the
   * physical devices (chain/order/configurations.ts) and turns the driver variables off
   * (discovery/drivers.ts).
   */
  readonly deviceConfigurations?: readonly SettingsDeviceConfiguration[];
  /** Oddities that did not stop the file from applying, one sentence each. */
  readonly warnings: readonly string[];
}

/**
 * A location looked at, and what came of it.
 *
 * @example Usage
 * ```ts
 * import type { SettingsLocation } from "@vkdeno/loader/discovery";
 * const l: SettingsLocation = { path: "/etc/vulkan/loader_settings.d/vk_loader_settings.json", source: "SYSCONFDIR", status: "missing" };
 * ```
 */
export interface SettingsLocation {
  /** The file path tried. */
  readonly path: string;
  /** The variable or rule that gave it. */
  readonly source: string;
  /**
   * `used`: its settings are active; `skipped`: it exists but cannot be used
   * (`reason` says why, and no settings are active); `missing`: no such file;
   * `not searched`: an earlier location had a file.
   */
  readonly status: "used" | "skipped" | "missing" | "not searched";
  /** Why it was skipped, as a clause naming the field at fault. */
  readonly reason?: string;
}

/**
 * A log line: the one shape discovery's messages share.
 *
 * @deprecated Use {@linkcode DiscoveryMessage} (the same shape).
 */
export type SettingsMessage = DiscoveryMessage;

/**
 * The result of {@linkcode readLoaderSettings}.
 *
 * @example Usage
 * ```ts
 * import type { SettingsFileResult } from "@vkdeno/loader/discovery";
 * const active = (r: SettingsFileResult) => r.settings !== undefined;
 * ```
 */
export interface SettingsFileResult {
  /** The settings in force, if any. */
  readonly settings?: LoaderSettings;
  /** Every location, in search order, with what came of it. */
  readonly searched: readonly SettingsLocation[];
  /** Log lines. */
  readonly messages: readonly SettingsMessage[];
}

/**
 * The loader's message bits (`VULKAN_LOADER_*_BIT`), by the names
 * `VK_LOADER_DEBUG` and the settings file's `stderr_log` use. Defined here,
 * below loading/log.ts, which re-exports it.
 *
 * @example Usage
 * ```ts
 * import { LOG_BITS } from "./settings_file.ts";
 * console.log(LOG_BITS.warn | LOG_BITS.driver); // 66
 * ```
 */
export const LOG_BITS: Readonly<
  Record<"info" | "warn" | "perf" | "error" | "debug" | "layer" | "driver" | "validation", number>
> = {
  info: 0x01,
  warn: 0x02,
  perf: 0x04,
  error: 0x08,
  debug: 0x10,
  layer: 0x20,
  driver: 0x40,
  validation: 0x80,
};

const LOG_FILTER_BITS: Readonly<Record<string, number>> = { all: 0xff, ...LOG_BITS };

/**
 * The settings-file paths for a snapshot, in search order, with the variable
 * or rule behind each, without duplicates.
 *
 * @example Usage
 * ```ts
 * import { settingsFileLocations } from "./settings_file.ts";
 * const env = { vars: { XDG_CONFIG_HOME: "/home/me/.config" }, elevated: false };
 * console.log(settingsFileLocations(env)[0]?.path);
 * // "/home/me/.config/vulkan/loader_settings.d/vk_loader_settings.json"
 * ```
 */
export function settingsFileLocations(
  env: EnvironmentSnapshot,
): { readonly path: string; readonly source: string }[] {
  const out: { path: string; source: string }[] = [];
  const suffix = `${LOADER_SETTINGS_SUBFOLDER}/${LOADER_SETTINGS_FILE_NAME}`;
  const push = (base: string, source: string) => {
    const path = joinPath(base, suffix);
    if (!out.some((l) => l.path === path)) out.push({ path, source });
  };
  const value = (name: string) => {
    const v = secureGetenv(env, name);
    return v === undefined || v === "" ? undefined : v;
  };
  const home = value("HOME");
  for (const name of ["XDG_CONFIG_HOME", "XDG_DATA_HOME"]) {
    const v = value(name);
    if (v !== undefined) push(resolveEntry(env, v), name);
  }
  if (home !== undefined) {
    push(joinPath(resolveEntry(env, home), ".config"), "HOME");
    push(joinPath(resolveEntry(env, home), ".local/share"), "HOME");
  }
  const list = (name: string, fallback: readonly string[]) => {
    const v = value(name);
    if (v !== undefined) { for (const entry of splitPathList(v)) push(resolveEntry(env, entry), name); }
    else for (const entry of fallback) push(underRoot(env, entry), name);
  };
  list("XDG_CONFIG_DIRS", ["/etc/xdg"]);
  push(underRoot(env, SYSCONFDIR), "SYSCONFDIR");
  list("XDG_DATA_DIRS", ["/usr/local/share", "/usr/share"]);
  return out;
}

/**
 * Finds the settings file and reads the entry that applies to this process.
 * Never throws: a bad file is a `skipped` location with a reason, and a
 * warning.
 *
 * @example Usage
 * ```ts
 * import { readLoaderSettings } from "@vkdeno/loader/discovery";
 * const r = readLoaderSettings({ vars: {}, elevated: false, root: "/nonexistent" });
 * console.log(r.searched.map((l) => l.status)); // [ "missing", "missing", "missing", "missing" ]
 * ```
 */
export function readLoaderSettings(env: EnvironmentSnapshot): SettingsFileResult {
  return settingsMemo.get(snapshotKey(env), () => searchLoaderSettings(env)).value;
}

/** Settings results per snapshot, reused while the searched paths are unchanged (scan_memo.ts). */
const settingsMemo = new ScanMemo<SettingsFileResult>();

function searchLoaderSettings(env: EnvironmentSnapshot): SettingsFileResult {
  const searched: SettingsLocation[] = [];
  const messages: SettingsMessage[] = [];
  let settings: LoaderSettings | undefined;
  let found = false;
  for (const { path, source } of settingsFileLocations(env)) {
    if (found) {
      searched.push({ path, source, status: "not searched" });
      continue;
    }
    if (!exists(path)) {
      searched.push({ path, source, status: "missing" });
      continue;
    }
    found = true;
    const parsed = parseLoaderSettingsFile(path, source, env.executablePaths ?? []);
    // One message per fault: the logger prints a warning about an unchanged file once (loading/log.ts).
    const say = (level: SettingsMessage["level"], text: string) =>
      messages.push({ level, category: "general", text, file: path });
    if (parsed.ok) {
      settings = parsed.settings;
      searched.push({ path, source, status: "used" });
      say("info", `Using settings found in ${path}`);
      for (const warning of parsed.settings.warnings) {
        say("warn", `Loader settings file "${path}": ${warning}`);
      }
    } else {
      searched.push({ path, source, status: "skipped", reason: parsed.reason });
      say(parsed.quiet ? "info" : "warn", `Loader settings file "${path}" not used: ${parsed.reason}`);
    }
  }
  if (!found) {
    messages.push({
      level: "debug",
      category: "general",
      text: "No valid vk_loader_settings.json file found, no loader settings will be active",
    });
  }
  return { settings, searched, messages };
}

type ParseResult =
  | { readonly ok: true; readonly settings: LoaderSettings }
  | { readonly ok: false; readonly reason: string; readonly quiet?: boolean };

/**
 * Reads one settings file and chooses the entry for a process answering to
 * `executablePaths`.
 *
 * @example Usage
 * ```ts
 * import { parseLoaderSettingsFile } from "./settings_file.ts";
 * const r = parseLoaderSettingsFile("/nonexistent.json", "test", ["/usr/bin/deno"]);
 * console.log(r.ok ? r.settings.path : r.reason); // "file does not exist"
 * ```
 */
export function parseLoaderSettingsFile(
  path: string,
  source: string,
  executablePaths: readonly string[],
): ParseResult {
  const file = readManifestFile(path);
  if (!file.ok) return { ok: false, reason: file.reason };
  const json = file.value;
  const warnings = [...file.warnings];
  const version = json["file_format_version"];
  if (typeof version !== "string") {
    return {
      ok: false,
      reason: version === undefined
        ? 'required field "file_format_version" is missing'
        : `field "file_format_version" is ${describeJsonType(version)}, not a string`,
    };
  }
  let entries: unknown[];
  const array = json["settings_array"];
  const single = json["settings"];
  if (array !== undefined) {
    if (!Array.isArray(array)) {
      return { ok: false, reason: `field "settings_array" is ${describeJsonType(array)}, not an array` };
    }
    entries = array;
    if (single !== undefined) {
      warnings.push('both "settings_array" and "settings" are present; "settings" is ignored');
    }
  } else if (single !== undefined) {
    entries = [single];
  } else {
    return { ok: false, reason: 'neither "settings" nor "settings_array" is present' };
  }

  let global: number | undefined;
  let chosen: { index: number; key: string } | undefined;
  for (let i = 0; i < entries.length && chosen === undefined; i++) {
    const entry = entries[i];
    if (!isObject(entry)) {
      // The C loader stops at the first entry that is not an object.
      const where = array !== undefined ? `"settings_array[${i}]"` : '"settings"';
      warnings.push(
        `${where} is ${describeJsonType(entry)}, not an object: it and later entries are ignored`,
      );
      break;
    }
    const keys = entry["app_keys"];
    if (keys === undefined) {
      global ??= i;
      continue;
    }
    if (!Array.isArray(keys)) continue;
    for (const key of keys) {
      if (typeof key === "string" && executablePaths.includes(key)) {
        chosen = { index: i, key };
        break;
      }
    }
  }
  const index = chosen?.index ?? global;
  if (index === undefined) {
    return {
      ok: false,
      quiet: true,
      reason: `no entry without "app_keys", and no "app_keys" names this process (${
        executablePaths.length === 0 ? "unknown executable" : executablePaths.map((p) => `"${p}"`).join(", ")
      })`,
    };
  }
  const entry = entries[index] as Record<string, unknown>;
  const where = array !== undefined ? `settings_array[${index}]` : "settings";

  let stderrLog: string[] | undefined;
  let logMask = 0;
  const log = entry["stderr_log"];
  if (log !== undefined) {
    if (!Array.isArray(log)) warnings.push(`"${where}.stderr_log" is ${describeJsonType(log)}, not an array`);
    else {
      stderrLog = [];
      for (const item of log) {
        if (typeof item !== "string") continue;
        stderrLog.push(item);
        const bits = LOG_FILTER_BITS[item];
        if (bits === undefined) warnings.push(`"${where}.stderr_log" names unknown filter "${item}"`);
        else logMask |= bits;
      }
    }
  }

  let layers: SettingsLayer[] | undefined;
  const layerList = entry["layers"];
  if (layerList !== undefined) {
    if (!Array.isArray(layerList)) {
      return { ok: false, reason: `field "${where}.layers" is ${describeJsonType(layerList)}, not an array` };
    }
    layers = [];
    for (let i = 0; i < layerList.length; i++) {
      const item = layerList[i];
      const at = `${where}.layers[${i}]`;
      // The C loader drops the whole file when a layer entry is malformed.
      if (!isObject(item)) {
        return { ok: false, reason: `"${at}" is ${describeJsonType(item)}, not an object` };
      }
      const control = item["control"];
      if (typeof control !== "string") {
        return { ok: false, reason: `"${at}.control" is ${describeJsonType(control)}, not a string` };
      }
      const known = control === "on" || control === "off" || control === "auto" ||
        control === "unordered_layer_location";
      if (!known) warnings.push(`"${at}.control" is "${control}", not one of on, off, auto: read as auto`);
      const c: SettingsLayerControl = known ? control : "auto";
      if (c === "unordered_layer_location") {
        layers.push({ index: i, control: c, treatAsImplicit: false });
        continue;
      }
      const name = item["name"];
      const layerPath = item["path"];
      if (typeof name !== "string") {
        return { ok: false, reason: `"${at}.name" is ${describeJsonType(name)}, not a string` };
      }
      if (typeof layerPath !== "string") {
        return { ok: false, reason: `"${at}.path" is ${describeJsonType(layerPath)}, not a string` };
      }
      layers.push({
        index: i,
        control: c,
        name,
        path: layerPath,
        treatAsImplicit: item["treat_as_implicit_manifest"] === true,
      });
    }
  }

  const additionalDrivers: string[] = [];
  const drivers = entry["additional_drivers"];
  if (drivers !== undefined) {
    if (!Array.isArray(drivers)) {
      warnings.push(`"${where}.additional_drivers" is ${describeJsonType(drivers)}, not an array`);
    } else {
      drivers.forEach((d, i) => {
        const p = isObject(d) ? d["path"] : undefined;
        if (typeof p === "string" && p !== "") additionalDrivers.push(p);
        else warnings.push(`"${where}.additional_drivers[${i}]" has no string "path": ignored`);
      });
    }
  }
  const exclusive = entry["additional_drivers_use_exclusively"] === true;
  const deviceConfigurations = parseDeviceConfigurations(entry["device_configurations"], where, warnings);
  return {
    ok: true,
    settings: {
      path,
      source,
      fileFormatVersion: version,
      entryIndex: index,
      ...(chosen === undefined ? {} : { matchedAppKey: chosen.key }),
      ...(layers === undefined ? {} : { layers }),
      ...(stderrLog === undefined ? {} : { stderrLog }),
      logMask,
      additionalDrivers,
      additionalDriversExclusive: exclusive,
      ...(deviceConfigurations === undefined ? {} : { deviceConfigurations }),
      warnings,
    },
  };
}

/**
 * The `device_configurations` list: absent stays absent, a value that is not an array is ignored with a
 * warning, and each malformed entry is skipped with a warning naming it while the rest apply (the
 * Khronos loader skips such entries too; docs/behaviour.md G10).
 */
function parseDeviceConfigurations(
  list: unknown,
  where: string,
  warnings: string[],
): SettingsDeviceConfiguration[] | undefined {
  if (list === undefined) return undefined;
  if (!Array.isArray(list)) {
    warnings.push(`"${where}.device_configurations" is ${describeJsonType(list)}, not an array: ignored`);
    return undefined;
  }
  const out: SettingsDeviceConfiguration[] = [];
  list.forEach((item, index) => {
    const at = `"${where}.device_configurations[${index}]"`;
    if (!isObject(item)) {
      warnings.push(`${at} is ${describeJsonType(item)}, not an object: skipped`);
      return;
    }
    const problems: string[] = [];
    const uuid = (field: string): number[] | undefined => {
      const v = item[field];
      const ok = Array.isArray(v) && v.length === 16 &&
        v.every((b) => typeof b === "number" && Number.isInteger(b) && b >= 0 && b <= 255);
      if (ok) return v as number[];
      problems.push(
        v === undefined ? `has no "${field}"` : `"${field}" is not an array of 16 integers from 0 to 255`,
      );
      return undefined;
    };
    const deviceUUID = uuid("deviceUUID");
    const driverUUID = uuid("driverUUID");
    const version = item["driverVersion"];
    const versionOk = typeof version === "number" && Number.isInteger(version) && version >= 0 &&
      version <= 0xffffffff;
    if (!versionOk) {
      problems.push(
        version === undefined
          ? 'has no "driverVersion"'
          : `"driverVersion" is ${describeJsonType(version)}, not an unsigned 32-bit integer`,
      );
    }
    const name = (field: string): string | undefined => {
      const v = item[field];
      if (v === undefined || typeof v === "string") return v;
      // Names only label messages: a wrong one is dropped, the entry still applies.
      warnings.push(`${at}.${field} is ${describeJsonType(v)}, not a string: ignored`);
      return undefined;
    };
    const deviceName = name("deviceName");
    const driverName = name("driverName");
    if (deviceUUID === undefined || driverUUID === undefined || !versionOk) {
      const label = deviceName === undefined ? "" : ` ("${deviceName}")`;
      warnings.push(`${at}${label} ${problems.join(", ")}: skipped`);
      return;
    }
    out.push({
      index,
      deviceUUID,
      driverUUID,
      driverVersion: version as number,
      ...(deviceName === undefined ? {} : { deviceName }),
      ...(driverName === undefined ? {} : { driverName }),
    });
  });
  return out;
}

function exists(path: string): boolean {
  // Stamped for the scan memo (scan_memo.ts). A file we may not stat still exists for the loader's
  // access() check only if it is there at all.
  const kind = observePath(path).kind;
  return kind !== "missing" && kind !== "not a folder";
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
