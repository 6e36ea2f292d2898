/**
 * Driver discovery: from an environment snapshot and the file system to the ordered list of driver manifests
 * to load, with every file seen and why it was used or skipped (docs/behaviour.md D01-D09, V02). Never opens a
 * library.
 *
 * @example Discovering drivers
 * ```ts
 * import { discoverDrivers } from "./drivers.ts";
 * const found = discoverDrivers({ vars: { VK_DRIVER_FILES: "/nonexistent.json" }, elevated: false });
 * for (const c of found.candidates) console.log(c.manifestPath, c.status, c.reason ?? "");
 * ```
 *
 * @module
 */

import type { DiscoveryMessage } from "./message.ts";
import { type EnvironmentSnapshot, secureGetenv } from "./environment.ts";
import { matchesAnyFilter, type NameFilter, parseFilterList } from "./filter.ts";
import { readStampedManifest } from "./manifest_file.ts";
import { type DriverManifest, type DriverManifestResult, parseDriverManifest } from "./driver_manifest.ts";
import { type DriverPackage, readDriverPackage } from "./packages.ts";
import {
  baseName,
  defaultSearchLocations,
  type FoundManifestFile,
  isJsonName,
  type LocationReport,
  pathListLocations,
  readRefusal,
  resolveEntry,
  scanSearchLocations,
  splitPathList,
} from "./search_paths.ts";
import {
  type DeviceConfigurations,
  deviceConfigurationsOf,
  readLoaderSettings,
  type SettingsFileResult,
} from "./settings_file.ts";
import { markUncacheable, observePath, ScanMemo, snapshotKey } from "./scan_memo.ts";
import { PersistentManifests, type PersistentManifestScan } from "./persistent_manifests.ts";
import { platformRules } from "./platforms.ts";

/**
 * Where a candidate came from.
 *
 * @example Usage
 * ```ts
 * import type { DriverOrigin } from "@vkdeno/loader/discovery";
 * const origin: DriverOrigin = { source: "XDG_DATA_DIRS", location: "/usr/share/vulkan/icd.d", defaulted: true };
 * ```
 */
export interface DriverOrigin {
  /**
   * The variable or rule: `VK_DRIVER_FILES`, `VK_ICD_FILENAMES`,
   * `VK_ADD_DRIVER_FILES`, `XDG_CONFIG_HOME`, `XDG_CONFIG_DIRS`, `SYSCONFDIR`,
   * `XDG_DATA_HOME`, `XDG_DATA_DIRS`, `VK_LOADER_DRIVER_PACKAGES`, or `api`
   * for `options.packages`.
   */
  readonly source: string;
  /** The folder scanned, the file entry, or the package folder. */
  readonly location: string;
  /** True when the variable was unset and its fallback folder was searched. */
  readonly defaulted: boolean;
  /** The package folder, for drivers from a package. */
  readonly package?: string;
}

/**
 * A driver to load, in discovery order.
 *
 * @example Usage
 * ```ts
 * import type { DiscoveredDriver } from "@vkdeno/loader/discovery";
 * function describe(d: DiscoveredDriver): string {
 *   return `${d.fileName} -> ${d.libraryPath} (${d.origin.source})`;
 * }
 * ```
 */
export interface DiscoveredDriver extends DriverManifest {
  /** Where its manifest came from. */
  readonly origin: DriverOrigin;
  /** The package it came from, when it did. */
  readonly package?: DriverPackage;
  /**
   * A driver handed over as its `vk_icdGetInstanceProcAddr` (`Vulkan.load({ drivers })` given a driver
   * object, such as a testing-kit mock): there is no library to open, and the driver is negotiated through
   * this pointer.
   */
  readonly entryPoint?: Deno.PointerObject;
}

/** Why a candidate was skipped. */
export type DriverSkipKind =
  | "file"
  | "manifest"
  | "package"
  | "library_arch"
  | "duplicate"
  | "not_selected"
  | "disabled";

/**
 * One file discovery looked at, and what came of it.
 *
 * @example Usage
 * ```ts
 * import type { DriverCandidate } from "@vkdeno/loader/discovery";
 * const skipped = (c: DriverCandidate) => c.status === "skipped" ? `${c.fileName}: ${c.reason}` : "";
 * ```
 */
export interface DriverCandidate {
  /** The manifest path (for a package whose metadata failed: the metadata path). */
  readonly manifestPath: string;
  /** Its last path component. */
  readonly fileName: string;
  /** Where it came from. */
  readonly origin: DriverOrigin;
  /** `used`: in `drivers`; `skipped`: see `skip` and `reason`. */
  readonly status: "used" | "skipped";
  /** The kind of skip. */
  readonly skip?: DriverSkipKind;
  /** Why it was skipped, as a clause naming the field or variable at fault. */
  readonly reason?: string;
  /** The fields that parsed (all of them for a valid manifest). */
  readonly manifest?: Readonly<Partial<DriverManifest>>;
  /** Accepted oddities (comments, newer format, ...). */
  readonly warnings: readonly string[];
}

export type { DiscoveryMessage } from "./message.ts";

/**
 * The result of {@linkcode discoverDrivers}.
 *
 * @example Usage
 * ```ts
 * import { discoverDrivers } from "@vkdeno/loader/discovery";
 * const { drivers, candidates, messages, locations } = discoverDrivers({ vars: {}, elevated: false, root: "/nonexistent" });
 * console.log(drivers.length, candidates.length, messages.length, locations.length);
 * ```
 */
export interface DriverDiscovery {
  /** The drivers to load, in order. */
  readonly drivers: readonly DiscoveredDriver[];
  /** Every file seen, in order, used or skipped. */
  readonly candidates: readonly DriverCandidate[];
  /** Log lines, in order. */
  readonly messages: readonly DiscoveryMessage[];
  /** Every location searched, in order, with what came of it. */
  readonly locations: readonly LocationReport[];
  /**
   * The settings file's `device_configurations`, when it has them: the enumeration selects and orders
   * devices by them, and the driver variables were ignored for this scan.
   */
  readonly deviceConfigurations?: DeviceConfigurations;
}

/**
 * Options for {@linkcode discoverDrivers}.
 *
 * @example Usage
 * ```ts
 * import type { DiscoverDriversOptions } from "@vkdeno/loader/discovery";
 * const options: DiscoverDriversOptions = { packages: ["/opt/vulkan/example_driver"] };
 * ```
 */
export interface DiscoverDriversOptions {
  /** Driver package folders supplied by the application (see `packages.ts`). */
  readonly packages?: readonly string[];
  /** The running process's pointer size, checked against `library_arch`; 64 by default. */
  readonly pointerBits?: 32 | 64;
  /**
   * The loader settings file result whose `additional_drivers` apply (default: `readLoaderSettings(env)`);
   * `null` ignores the file.
   */
  readonly settings?: SettingsFileResult | null;
}

/** The variables read by driver discovery. */
export const DRIVER_VARIABLES = [
  "VK_DRIVER_FILES",
  "VK_ICD_FILENAMES",
  "VK_ADD_DRIVER_FILES",
  "VK_LOADER_DRIVER_PACKAGES",
  "VK_LOADER_DRIVERS_SELECT",
  "VK_LOADER_DRIVERS_DISABLE",
] as const;

type Entry =
  | { readonly kind: "file"; readonly found: FoundManifestFile }
  | { readonly kind: "package"; readonly folder: string; readonly source: string };

/**
 * Finds the drivers to load. Never throws: every problem with a file is a
 * skipped candidate with a reason, and a message.
 *
 * @example Usage
 * ```ts
 * import { discoverDrivers } from "@vkdeno/loader/discovery";
 * const env = { vars: { VK_LOADER_DRIVERS_SELECT: "*lvp*" }, elevated: false };
 * console.log(discoverDrivers(env).drivers.map((d) => d.libraryPath));
 * ```
 */
export function discoverDrivers(
  env: EnvironmentSnapshot,
  options: DiscoverDriversOptions = {},
): DriverDiscovery {
  if (options.settings !== undefined || (options.packages?.length ?? 0) > 0) return scanDrivers(env, options);
  const key = `${options.pointerBits ?? 64}\0${snapshotKey(env)}`;
  return driverMemo.get(key, () => scanDrivers(env, options)).value;
}

/** Driver discoveries per snapshot, reused while every path they read is unchanged (scan_memo.ts). */
const driverMemo = new ScanMemo<DriverDiscovery>();

function scanDrivers(processEnv: EnvironmentSnapshot, options: DiscoverDriversOptions): DriverDiscovery {
  const messages: DiscoveryMessage[] = [];
  const log = (level: DiscoveryMessage["level"], text: string, file?: string) =>
    messages.push(
      file === undefined ? { level, category: "driver", text } : { level, category: "driver", text, file },
    );
  const settings = options.settings === null
    ? undefined
    : (options.settings ?? readLoaderSettings(processEnv)).settings;
  const deviceConfigurations = deviceConfigurationsOf(settings);
  // A settings file with device_configurations has the last word on devices: the Khronos loader then
  // ignores every driver variable (loader_settings_should_use_driver_environment_variables; docs/behaviour.md
  // D08), and vkdeno's own VK_LOADER_DRIVER_PACKAGES with them.
  const env = deviceConfigurations === undefined
    ? processEnv
    : withoutDriverVariables(processEnv, (name) =>
      log(
        "warn",
        `Ignoring env var '${name}' because the loader settings file "${deviceConfigurations.settingsPath}" ` +
          "has device_configurations",
        deviceConfigurations.settingsPath,
      ));
  // Set to the empty string is set (docs/behaviour.md D12): VK_DRIVER_FILES="" names no file and still
  // replaces the whole search.
  const read = (name: string) => secureGetenv(env, name);

  if (env.elevated) {
    for (const name of DRIVER_VARIABLES) {
      if (env.vars[name] !== undefined) {
        log("warn", `Ignoring env var '${name}': the process runs with elevated privileges`);
      }
    }
  }
  const override = read("VK_DRIVER_FILES") !== undefined
    ? "VK_DRIVER_FILES"
    : read("VK_ICD_FILENAMES") !== undefined
    ? "VK_ICD_FILENAMES"
    : undefined;
  if (override === "VK_DRIVER_FILES" && read("VK_ICD_FILENAMES") !== undefined) {
    log("warn", "Ignoring env var 'VK_ICD_FILENAMES' because 'VK_DRIVER_FILES' is set");
  }
  if (override !== undefined) {
    for (const name of ["VK_ADD_DRIVER_FILES", "VK_LOADER_DRIVER_PACKAGES"]) {
      if (read(name) !== undefined) log("warn", `Ignoring env var '${name}' because '${override}' is set`);
    }
    if (read(override) === "") {
      log(
        "warn",
        `Env var '${override}' is set to the empty string: it names no driver manifest, and the default ` +
          "folders are not searched",
      );
    }
  }

  // The settings file's additional_drivers come first; "use exclusively" drops every other source.
  const additional = settings?.additionalDrivers ?? [];
  const exclusive = settings?.additionalDriversExclusive === true && additional.length > 0;
  const rules = platformRules(env.os);
  const settingsScan = scanSearchLocations(
    additional.map((entry) => ({
      path: resolveEntry(env, entry),
      source: "loader settings file",
      defaulted: false,
      isFile: isJsonName(entry),
    })),
    rules,
  );
  if (exclusive) {
    log(
      "info",
      `Only the additional_drivers of "${settings?.path}" are used (additional_drivers_use_exclusively)`,
    );
  }
  const empty = { files: [], locations: [] };
  const first = override !== undefined
    ? pathListLocations(env, read(override), override)
    : pathListLocations(env, read("VK_ADD_DRIVER_FILES"), "VK_ADD_DRIVER_FILES");
  const firstScan = exclusive ? empty : scanSearchLocations(first, rules);
  const packageEntries: Entry[] = exclusive ? [] : [
    ...(options.packages ?? []).map((folder): Entry => ({ kind: "package", folder, source: "api" })),
    ...(override !== undefined
      ? []
      : splitPathList(read("VK_LOADER_DRIVER_PACKAGES")).map((folder): Entry => ({
        kind: "package",
        folder: resolve(env, folder),
        source: "VK_LOADER_DRIVER_PACKAGES",
      }))),
  ];
  const lastScan = override !== undefined || exclusive
    ? empty
    : scanSearchLocations(defaultSearchLocations(env, "driver"), rules);
  const locations = [...settingsScan.locations, ...firstScan.locations, ...lastScan.locations];
  const entries: Entry[] = [
    ...settingsScan.files.map((found): Entry => ({ kind: "file", found })),
    ...firstScan.files.map((found): Entry => ({ kind: "file", found })),
    ...packageEntries,
    ...lastScan.files.map((found): Entry => ({ kind: "file", found })),
  ];

  log("info", "Searching for driver manifest files");
  for (const report of locations) {
    const detail = report.status === "scanned"
      ? `${report.fileCount} manifest file(s)`
      : report.status + (report.detail === undefined ? "" : `: ${report.detail}`);
    log("debug", `   ${report.location.path} (${report.location.source}): ${detail}`);
  }
  const refusal = readRefusal(locations, "driver");
  if (refusal !== undefined) messages.push(refusal);

  const select = filterVariable(env, "VK_LOADER_DRIVERS_SELECT", log);
  const disable = filterVariable(env, "VK_LOADER_DRIVERS_DISABLE", log);
  const pointerBits = options.pointerBits ?? 64;
  const candidates: DriverCandidate[] = [];
  const drivers: DiscoveredDriver[] = [];
  const seen = new Map<string, DriverOrigin>();
  const persistent = persistentDriverManifests.scan();
  const now = Date.now();

  const skip = (
    candidate: Omit<DriverCandidate, "status">,
    level: DiscoveryMessage["level"],
    text: string,
  ) => {
    candidates.push({ ...candidate, status: "skipped" });
    log(level, text, candidate.manifestPath);
  };

  for (const entry of entries) {
    let origin: DriverOrigin;
    let manifestPath: string;
    let pkg: DriverPackage | undefined;
    const warnings: string[] = [];
    if (entry.kind === "file") {
      origin = {
        source: entry.found.location.source,
        location: entry.found.location.path,
        defaulted: entry.found.location.defaulted,
      };
      manifestPath = entry.found.path;
    } else {
      origin = { source: entry.source, location: entry.folder, defaulted: false, package: entry.folder };
      // A package is read through resolved links, which stamps do not cover: this scan is not kept.
      markUncacheable();
      const result = readDriverPackage(entry.folder);
      warnings.push(...result.warnings);
      if (!result.ok) {
        skip(
          {
            manifestPath: result.metadataPath,
            fileName: baseName(result.metadataPath),
            origin,
            skip: "package",
            reason: result.reason,
            warnings,
          },
          "warn",
          `Skipping driver package "${entry.folder}": ${result.reason}`,
        );
        continue;
      }
      pkg = result.package;
      manifestPath = pkg.manifestPath;
    }
    const fileName = baseName(manifestPath);

    const key = normalizePath(manifestPath);
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      const reason = `same file as the one found earlier through ${earlier.source} ("${earlier.location}")`;
      skip(
        { manifestPath, fileName, origin, skip: "duplicate", reason, warnings },
        "info",
        `Skipping driver manifest "${manifestPath}": ${reason}`,
      );
      continue;
    }
    seen.set(key, origin);

    const file = readDriverManifestFile(manifestPath, persistent, now);
    warnings.push(...file.warnings);
    if (file.parsed === undefined) {
      skip(
        { manifestPath, fileName, origin, skip: "file", reason: file.reason, warnings },
        "warn",
        `Skipping driver manifest "${manifestPath}": ${file.reason}`,
      );
      continue;
    }
    const parsed = file.parsed;
    warnings.push(...parsed.warnings);
    for (const warning of warnings) {
      log("warn", `Driver manifest "${manifestPath}": ${warning}`, manifestPath);
    }
    if (!parsed.ok) {
      skip(
        {
          manifestPath,
          fileName,
          origin,
          skip: "manifest",
          reason: parsed.reason,
          manifest: parsed.partial,
          warnings,
        },
        "warn",
        `Skipping driver manifest "${manifestPath}": ${parsed.reason}`,
      );
      continue;
    }
    let manifest: DriverManifest = parsed.manifest;
    log("info", `Found ICD manifest file ${manifestPath}, version "${manifest.fileFormatVersion}"`);
    if (pkg !== undefined) {
      if (baseName(manifest.libraryPathField) !== baseName(pkg.filePath)) {
        const warning = `manifest library_path "${manifest.libraryPathField}" differs from the package's ` +
          `file_path "${pkg.filePath}"; loading file_path`;
        warnings.push(warning);
        log("warn", `Driver package "${pkg.folder}": ${warning}`);
      }
      manifest = { ...manifest, libraryPath: pkg.libraryPath, libraryPathKind: "absolute" };
    }

    if (manifest.libraryArch !== undefined && manifest.libraryArch !== String(pointerBits)) {
      const reason =
        `field "ICD.library_arch" is "${manifest.libraryArch}" but this process is ${pointerBits}-bit`;
      skip(
        { manifestPath, fileName, origin, skip: "library_arch", reason, manifest, warnings },
        "info",
        `Skipping driver manifest "${manifestPath}": ${reason}`,
      );
      continue;
    }
    const selected = select.length > 0 && matchesAnyFilter(select, fileName);
    if (disable.length > 0 && matchesAnyFilter(disable, fileName) && !selected) {
      skip(
        {
          manifestPath,
          fileName,
          origin,
          skip: "disabled",
          reason: "disabled by env var 'VK_LOADER_DRIVERS_DISABLE'",
          manifest,
          warnings,
        },
        "warn",
        `Driver "${fileName}" ignored because it was disabled by env var 'VK_LOADER_DRIVERS_DISABLE'`,
      );
      continue;
    }
    if (select.length > 0 && !selected) {
      skip(
        {
          manifestPath,
          fileName,
          origin,
          skip: "not_selected",
          reason: "not selected by env var 'VK_LOADER_DRIVERS_SELECT'",
          manifest,
          warnings,
        },
        "warn",
        `Driver "${fileName}" ignored because not selected by env var 'VK_LOADER_DRIVERS_SELECT'`,
      );
      continue;
    }
    candidates.push({ manifestPath, fileName, origin, status: "used", manifest, warnings });
    drivers.push({ ...manifest, origin, ...(pkg === undefined ? {} : { package: pkg }) });
  }
  if (drivers.length === 0) log("warn", "No driver manifest was found or accepted");
  persistent?.finish();
  return {
    drivers,
    candidates,
    messages,
    locations,
    ...(deviceConfigurations === undefined ? {} : { deviceConfigurations }),
  };
}

/** One driver manifest file as read: the file's warnings, and the parse or why the file is unusable. */
interface DriverFileRead {
  readonly warnings: readonly string[];
  readonly parsed?: DriverManifestResult;
  readonly reason?: string;
}

/** The modules whose code makes a driver manifest's record from its bytes. */
const PARSER_SOURCES = [
  "./drivers.ts",
  "./persistent_manifests.ts",
  "./manifest_file.ts",
  "./jsonc.ts",
  "./driver_manifest.ts",
  "./message.ts",
  "../vk/api_version.ts",
  "./search_paths.ts",
  "./platforms.ts",
].map((path) => new URL(path, import.meta.url));

const persistentDriverManifests = new PersistentManifests<DriverFileRead>("driver-manifests", PARSER_SOURCES);

/**
 * Reads and parses the driver manifest at `path`, or takes it from the persistent cache when its stamp is
 * the one it was read under (persistent_manifests.ts); a file this process read is added to it.
 */
function readDriverManifestFile(
  path: string,
  persistent: PersistentManifestScan<DriverFileRead> | undefined,
  now: number,
): DriverFileRead {
  // Also stamps the file for the scan memo (scan_memo.ts).
  const stamp = observePath(path);
  const kept = persistent?.get(path, stamp);
  if (kept !== undefined) return kept;
  const { file, fromBytes } = readStampedManifest(path, stamp);
  const read: DriverFileRead = file.ok
    ? { warnings: file.warnings, parsed: parseDriverManifest(file.value, path) }
    : { warnings: file.warnings, reason: file.reason };
  // Only what the file's bytes made: a file this process could not read may be readable by another.
  if (fromBytes) persistent?.add(path, stamp, read, now);
  return read;
}

/** `env` with every driver variable unset; `ignored` hears each one that was set. */
function withoutDriverVariables(
  env: EnvironmentSnapshot,
  ignored: (name: string) => void,
): EnvironmentSnapshot {
  const vars: Record<string, string> = { ...env.vars };
  for (const name of DRIVER_VARIABLES) {
    if (secureGetenv(env, name) !== undefined) ignored(name);
    delete vars[name];
  }
  return { ...env, vars };
}

function filterVariable(
  env: EnvironmentSnapshot,
  name: string,
  log: (level: DiscoveryMessage["level"], text: string) => void,
): readonly NameFilter[] {
  const list = parseFilterList(secureGetenv(env, name), name);
  for (const warning of list.warnings) log("warn", warning);
  return list.filters;
}

function resolve(env: EnvironmentSnapshot, entry: string): string {
  return pathListLocations(env, entry, "")[0]?.path ?? entry;
}

/**
 * `path` with repeated slashes, `.` and `..` resolved by its text alone (as POSIX `normalize` does), so one
 * file named two ways is found a duplicate. Written here rather than imported from `node:path`, which loads
 * Deno's Node layer (~17 ms, ~12 MiB) at every start.
 */
function normalizePath(path: string): string {
  const absolute = path.startsWith("/");
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === ".." && parts.length > 0 && parts[parts.length - 1] !== "..") parts.pop();
    else if (part !== ".." || !absolute) parts.push(part);
  }
  const joined = (absolute ? "/" : "") + parts.join("/") || ".";
  return path.endsWith("/") && joined !== "/" ? joined + "/" : joined;
}
