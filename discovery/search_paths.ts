/**
 * Where manifests are looked for and the folder scan that lists them, for drivers and both kinds of layers:
 * Linux's folders (docs/behaviour.md D01, D02, D09), macOS's bundle and folders (D22), Windows' registry
 * keys (D23); the system's rules come from platforms.ts.
 *
 * @example Listing the driver search folders
 * ```ts
 * import { defaultSearchLocations, scanSearchLocations } from "./search_paths.ts";
 * const env = { vars: { HOME: "/home/me" }, elevated: false, root: "/tmp/fake-root" };
 * const locations = defaultSearchLocations(env, "driver");
 * const scan = scanSearchLocations(locations);
 * console.log(locations.map((l) => l.path), scan.files.length);
 * ```
 *
 * @module
 */

import { type EnvironmentSnapshot, secureGetenv } from "./environment.ts";
import { rawDirectoryNames } from "../ffi/raw_files.ts";
import { registerRawFileName } from "./manifest_file.ts";
import { observePath } from "./scan_memo.ts";
import { isAbsolutePath, type PlatformRules, platformRules, REGISTRY_KEYS } from "./platforms.ts";
import type { RegistryHive } from "../ffi/registry.ts";
import type { DiscoveryMessage } from "./message.ts";

/** The three kinds of manifest the loader searches for. */
export type ManifestKind = "driver" | "implicit_layer" | "explicit_layer";

/**
 * The folder, relative to each search folder, that holds each kind of manifest.
 *
 * @example Usage
 * ```ts
 * import { MANIFEST_SUBFOLDERS } from "./search_paths.ts";
 * console.log(MANIFEST_SUBFOLDERS.driver); // "vulkan/icd.d"
 * ```
 */
export const MANIFEST_SUBFOLDERS: Readonly<Record<ManifestKind, string>> = {
  driver: "vulkan/icd.d",
  implicit_layer: "vulkan/implicit_layer.d",
  explicit_layer: "vulkan/explicit_layer.d",
};

/** The loader's compiled-in `SYSCONFDIR` on Debian (platforms.ts has each system's). */
export const SYSCONFDIR = "/etc";

/**
 * One place to look: a folder to scan, or a manifest file named directly.
 *
 * @example Usage
 * ```ts
 * import type { SearchLocation } from "@vkdeno/loader/discovery";
 * const location: SearchLocation = {
 *   path: "/usr/share/vulkan/icd.d",
 *   source: "XDG_DATA_DIRS",
 *   defaulted: true,
 *   isFile: false,
 * };
 * ```
 */
export interface SearchLocation {
  /** The path discovery opens (`env.root` already applied to built-in defaults). */
  readonly path: string;
  /**
   * What put this location in the list: the variable name (`VK_DRIVER_FILES`,
   * `XDG_DATA_DIRS`, `XDG_CONFIG_HOME`, ...), `SYSCONFDIR`, or any name a caller
   * gives for its own list (`VK_ADD_LAYER_PATH`, `package`).
   */
  readonly source: string;
  /** True when the variable was unset (or ignored) and its fallback was used. */
  readonly defaulted: boolean;
  /** True when the entry names a manifest file (ends in `.json`) rather than a folder. */
  readonly isFile: boolean;
}

/**
 * A manifest file found in a search location, not yet read.
 *
 * @example Usage
 * ```ts
 * import type { FoundManifestFile } from "./search_paths.ts";
 * const found: FoundManifestFile = {
 *   path: "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json",
 *   fileName: "lvp_icd.x86_64.json",
 *   location: { path: "/usr/share/vulkan/icd.d", source: "XDG_DATA_DIRS", defaulted: true, isFile: false },
 * };
 * ```
 */
export interface FoundManifestFile {
  /** The path to open. */
  readonly path: string;
  /** The last path component: what `VK_LOADER_DRIVERS_SELECT` and friends match. */
  readonly fileName: string;
  /** The location that produced it. */
  readonly location: SearchLocation;
}

/** What happened when a location was searched. */
export type LocationStatus =
  | "scanned"
  | "file"
  | "missing"
  | "not a folder"
  | "unreadable"
  | "duplicate";

/**
 * One searched location and what came of it, for logs and the inspect report.
 *
 * @example Usage
 * ```ts
 * import type { LocationReport } from "@vkdeno/loader/discovery";
 * const report: LocationReport = {
 *   location: { path: "/etc/vulkan/icd.d", source: "SYSCONFDIR", defaulted: true, isFile: false },
 *   status: "missing",
 *   fileCount: 0,
 * };
 * ```
 */
export interface LocationReport {
  /** The location searched. */
  readonly location: SearchLocation;
  /**
   * `scanned`: a folder was listed; `file`: the entry named a file;
   * `missing`: nothing there; `not a folder`: a file whose name does not end in
   * `.json` (the C loader finds nothing there either); `unreadable`: listing
   * failed (`detail` says why); `duplicate`: the same path was searched earlier.
   */
  readonly status: LocationStatus;
  /** How many `.json` entries the location contributed. */
  readonly fileCount: number;
  /** The operating system's error text for `unreadable`. */
  readonly detail?: string;
  /**
   * True when Deno refused the read: the process lacks `--allow-read` for the folder (`unreadable`) or for
   * the file named (`file`) (docs/behaviour.md V23).
   */
  readonly refused?: boolean;
}

/**
 * The result of {@linkcode scanSearchLocations}.
 *
 * @example Usage
 * ```ts
 * import type { ScanResult } from "./search_paths.ts";
 * const empty: ScanResult = { files: [], locations: [] };
 * ```
 */
export interface ScanResult {
  /** Every `.json` name found, in search order; within a folder, sorted by name. */
  readonly files: readonly FoundManifestFile[];
  /** Every location, in search order, with what came of it. */
  readonly locations: readonly LocationReport[];
}

/**
 * Splits a path list (`:`-separated, `;` on Windows): empty segments are
 * skipped, trailing `/` removed (except for `/` itself), and repeated entries
 * kept once.
 *
 * @example Usage
 * ```ts
 * import { splitPathList } from "./search_paths.ts";
 * splitPathList("/a::/b/:/a"); // ["/a", "/b"]
 * splitPathList("C:\\a;D:\\b", ";"); // ["C:\\a", "D:\\b"]
 * ```
 */
export function splitPathList(value: string | undefined, separator: ":" | ";" = ":"): string[] {
  if (value === undefined) return [];
  const out: string[] = [];
  for (const raw of value.split(separator)) {
    const entry = trimTrailingSlashes(raw);
    if (entry !== "" && !out.includes(entry)) out.push(entry);
  }
  return out;
}

/**
 * Places a built-in absolute path under `env.root` (when set).
 *
 * @example Usage
 * ```ts
 * import { underRoot } from "./search_paths.ts";
 * underRoot({ vars: {}, elevated: false, root: "/tmp/r" }, "/usr/share"); // "/tmp/r/usr/share"
 * ```
 */
export function underRoot(env: EnvironmentSnapshot, path: string): string {
  const root = env.root === undefined ? "" : trimTrailingSlashes(env.root);
  if (root === "" || root === "/" || !path.startsWith("/")) return path;
  return root + path;
}

/**
 * Resolves a relative entry of a path variable against `env.cwd` (when set),
 * as the C loader's relative `open` does against the process's folder.
 *
 * @example Usage
 * ```ts
 * import { resolveEntry } from "./search_paths.ts";
 * resolveEntry({ vars: {}, elevated: false, cwd: "/work" }, "icd/a.json"); // "/work/icd/a.json"
 * ```
 */
export function resolveEntry(env: EnvironmentSnapshot, entry: string): string {
  const rules = platformRules(env.os);
  if (isAbsolutePath(rules, entry) || env.cwd === undefined || env.cwd === "") return entry;
  const cwd = trimTrailingSlashes(env.cwd);
  return (cwd.endsWith(rules.directorySymbol) ? cwd : cwd + rules.directorySymbol) + entry;
}

/**
 * True when a name ends in `.json` (case-sensitive, like the C loader:
 * `a.JSON` is not a manifest; `.json` alone is one).
 *
 * @example Usage
 * ```ts
 * import { isJsonName } from "./search_paths.ts";
 * isJsonName("lvp_icd.x86_64.json"); // true
 * ```
 */
export function isJsonName(name: string): boolean {
  return name.endsWith(".json");
}

/**
 * True when a name is a layer manifest's: `.json`, or `.vkdeno`, the form for layers only vkdeno can load
 * (TypeScript layers), which other loaders skip without a word since they read `.json` files only.
 *
 * @example Usage
 * ```ts
 * import { isLayerManifestName } from "./search_paths.ts";
 * isLayerManifestName("VK_LAYER_acme_trace.vkdeno"); // true
 * ```
 */
export function isLayerManifestName(name: string): boolean {
  return isJsonName(name) || (name.length > ".vkdeno".length && name.endsWith(".vkdeno"));
}

/**
 * Turns the entries of a path variable into locations taken as written: an
 * entry ending in `.json` is a file, anything else a folder scanned as is (no
 * suffix). Use it for `VK_DRIVER_FILES`, `VK_ADD_DRIVER_FILES`,
 * `VK_LAYER_PATH` and the like; the caller decides whether the variable may
 * be read (see `secureGetenv`).
 *
 * @example Usage
 * ```ts
 * import { pathListLocations } from "./search_paths.ts";
 * const env = { vars: {}, elevated: false };
 * pathListLocations(env, "/opt/a.json:/opt/icds", "VK_DRIVER_FILES");
 * // [{ path: "/opt/a.json", isFile: true, ... }, { path: "/opt/icds", isFile: false, ... }]
 * ```
 */
export function pathListLocations(
  env: EnvironmentSnapshot,
  value: string | undefined,
  source: string,
  isManifestName: (name: string) => boolean = isJsonName,
): SearchLocation[] {
  return splitPathList(value, platformRules(env.os).pathListSeparator).map((entry) => ({
    path: resolveEntry(env, entry),
    source,
    defaulted: false,
    isFile: isManifestName(entry),
  }));
}

/**
 * The default search locations for one manifest kind, in the loader's order
 * for the snapshot's system (see the module documentation), without
 * duplicates: on macOS the bundle's folder first, and only it while
 * `VK_LOADER_SEARCH_ONLY_IN_BUNDLE` is set; on Windows the manifests the
 * registry names.
 *
 * @example Usage
 * ```ts
 * import { defaultSearchLocations } from "./search_paths.ts";
 * const env = { vars: { HOME: "/home/me", XDG_DATA_DIRS: "/opt/share" }, elevated: false };
 * defaultSearchLocations(env, "driver").map((l) => l.path);
 * // ["/home/me/.config/vulkan/icd.d", "/etc/xdg/vulkan/icd.d", "/etc/vulkan/icd.d",
 * //  "/home/me/.local/share/vulkan/icd.d", "/opt/share/vulkan/icd.d"]
 * ```
 */
export function defaultSearchLocations(env: EnvironmentSnapshot, kind: ManifestKind): SearchLocation[] {
  const rules = platformRules(env.os);
  if (rules.registrySearch) return registryLocations(env, kind);
  const suffix = MANIFEST_SUBFOLDERS[kind];
  // HOME="" is a home at "/": the C loader appends "/.config" to it (docs/behaviour.md D12).
  const home = secureGetenv(env, "HOME");
  const out: SearchLocation[] = [];
  const push = (entry: string, source: string, defaulted: boolean, builtIn: boolean) => {
    const base = builtIn ? underRoot(env, entry) : resolveEntry(env, entry);
    const isFile = !builtIn && isJsonName(entry);
    const path = isFile ? base : joinPath(base, suffix);
    if (!out.some((l) => l.path === path)) out.push({ path, source, defaulted, isFile });
  };
  const single = (name: string, homeSuffix: string) => {
    const value = nonEmpty(secureGetenv(env, name));
    if (value !== undefined) {
      for (const entry of splitPathList(value)) push(entry, name, false, false);
    } else if (home !== undefined) {
      push(joinPath(home === "" ? "/" : home, homeSuffix), name, true, false);
    }
  };
  const list = (name: string, fallback: readonly string[]) => {
    const value = nonEmpty(secureGetenv(env, name));
    if (value !== undefined) {
      for (const entry of splitPathList(value)) push(entry, name, false, false);
    } else {
      for (const entry of fallback) push(entry, name, true, true);
    }
  };
  if (rules.bundleSearch && env.bundleResources !== undefined) {
    push(env.bundleResources, "bundle", false, false);
    if (secureGetenv(env, "VK_LOADER_SEARCH_ONLY_IN_BUNDLE") !== undefined) return out;
  }
  single("XDG_CONFIG_HOME", ".config");
  list("XDG_CONFIG_DIRS", ["/etc/xdg"]);
  for (const dir of rules.sysconfDirs) push(dir.path, dir.source, true, true);
  single("XDG_DATA_HOME", ".local/share");
  list("XDG_DATA_DIRS", ["/usr/local/share", "/usr/share"]);
  return out;
}

/**
 * One value of a Khronos registry key and whether it names a manifest to read: its data must be a 4-byte
 * 0; any other value (1 turns a manifest off) is skipped.
 *
 * @example Usage
 * ```ts
 * import type { RegistryEntry } from "./search_paths.ts";
 * const entry: RegistryEntry = { hive: "HKEY_LOCAL_MACHINE", key: "SOFTWARE\\Khronos\\Vulkan\\Drivers", name: "C:\\vk\\a.json", enabled: true };
 * ```
 */
export interface RegistryEntry {
  /** The hive the value was read from. */
  readonly hive: RegistryHive;
  /** The key below the hive. */
  readonly key: string;
  /** The value's name: a manifest's path. */
  readonly name: string;
  /** True when the data is the DWORD 0. */
  readonly enabled: boolean;
}

/**
 * The values of the registry keys for one manifest kind, in search order: `HKEY_LOCAL_MACHINE`, then, for
 * layers and unless the process is elevated, `HKEY_CURRENT_USER`; each key in the registry's order.
 *
 * @example Usage
 * ```ts
 * import { registryEntries } from "./search_paths.ts";
 * import { registryFromTree } from "../ffi/registry.ts";
 * const registry = registryFromTree({ "HKEY_LOCAL_MACHINE\\SOFTWARE\\Khronos\\Vulkan\\Drivers": [["C:\\a.json", 1]] });
 * registryEntries({ vars: {}, elevated: false, os: "windows", registry }, "driver")[0]?.enabled; // false
 * ```
 */
export function registryEntries(env: EnvironmentSnapshot, kind: ManifestKind): RegistryEntry[] {
  const key = REGISTRY_KEYS[kind];
  const hives: RegistryHive[] = kind === "driver" || env.elevated
    ? ["HKEY_LOCAL_MACHINE"]
    : ["HKEY_LOCAL_MACHINE", "HKEY_CURRENT_USER"];
  const out: RegistryEntry[] = [];
  for (const hive of hives) {
    for (const value of env.registry?.values(hive, key) ?? []) {
      const enabled = value.data.byteLength === 4 &&
        new DataView(value.data.buffer, value.data.byteOffset, 4).getUint32(0, true) === 0;
      out.push({ hive, key, name: value.name, enabled });
    }
  }
  return out;
}

/** The manifests the registry names and enables, as file locations (source: the hive and key). */
function registryLocations(env: EnvironmentSnapshot, kind: ManifestKind): SearchLocation[] {
  return registryEntries(env, kind).filter((e) => e.enabled).map((e) => ({
    path: e.name,
    source: `${e.hive}\\${e.key}`,
    defaulted: true,
    isFile: true,
  }));
}

/**
 * Searches locations in order: folders are listed (not recursively) for names
 * ending in `.json`, sorted by name so the order does not depend on `readdir`;
 * file entries are passed through unread. A folder searched twice counts
 * once. Never throws: every problem is recorded in `locations`. `rules` (the
 * snapshot's system, default the host's) give the directory symbol names are
 * joined with and file names split at.
 *
 * Entries are not opened: a folder named `x.json` or a dangling link is
 * reported later, by the manifest reader, as a skipped file.
 *
 * @example Usage
 * ```ts
 * import { pathListLocations, scanSearchLocations } from "./search_paths.ts";
 * const env = { vars: {}, elevated: false };
 * const scan = scanSearchLocations(pathListLocations(env, "/nonexistent", "VK_DRIVER_FILES"));
 * console.log(scan.locations[0]?.status); // "missing"
 * ```
 */
export function scanSearchLocations(
  locations: readonly SearchLocation[],
  rules: PlatformRules = platformRules(),
  isManifestName: (name: string) => boolean = isJsonName,
): ScanResult {
  const files: FoundManifestFile[] = [];
  const reports: LocationReport[] = [];
  const seen = new Set<string>();
  for (const location of locations) {
    if (seen.has(location.path)) {
      reports.push({ location, status: "duplicate", fileCount: 0 });
      continue;
    }
    seen.add(location.path);
    if (location.isFile) {
      const fileName = rules.os === "windows"
        ? location.path.split(/[\\/]/).at(-1)!
        : baseName(location.path);
      files.push({ path: location.path, fileName, location });
      reports.push(
        readGranted(location.path)
          ? { location, status: "file", fileCount: 1 }
          : { location, status: "file", fileCount: 1, refused: true },
      );
      continue;
    }
    // Stamped for the scan memo (scan_memo.ts): an entry added or removed changes the folder's stamp. The
    // stamp also tells a missing folder without the cost of a thrown NotFound.
    const stamp = observePath(location.path);
    if (stamp.kind === "missing") {
      reports.push({ location, status: "missing", fileCount: 0 });
      continue;
    }
    if (stamp.kind === "not a folder" || stamp.kind === "file") {
      reports.push({ location, status: "not a folder", fileCount: 0 });
      continue;
    }
    let names: string[];
    try {
      names = [];
      for (const entry of Deno.readDirSync(location.path)) {
        if (isManifestName(entry.name)) names.push(entry.name);
      }
    } catch (error) {
      reports.push(folderFailure(location, error));
      continue;
    }
    if (names.some((n) => n.includes("\uFFFD"))) names = withRawNames(location.path, names);
    names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const symbol = rules.directorySymbol;
    const folder = location.path.endsWith(symbol) || location.path.endsWith("/")
      ? location.path
      : location.path + symbol;
    for (const name of names) files.push({ path: folder + name, fileName: name, location });
    reports.push({ location, status: "scanned", fileCount: names.length });
  }
  return { files, locations: reports };
}

/**
 * Deno decodes a file name that is not valid UTF-8 lossily (U+FFFD per bad byte), and that string opens
 * nothing. The folder is listed again as bytes (ffi/raw_files.ts); each such name is recorded with its
 * bytes so the manifest reader opens the real file (docs/behaviour.md M05). Names that merely contain U+FFFD
 * stay as they are. Without `--allow-ffi` nothing changes and reading reports the file as missing.
 */
function withRawNames(dir: string, names: string[]): string[] {
  const raw = rawDirectoryNames(dir);
  if (raw === undefined) return names;
  const lossy = new TextDecoder("utf-8", { fatal: false });
  const strict = new TextDecoder("utf-8", { fatal: true });
  for (const bytes of raw) {
    try {
      strict.decode(bytes);
      continue; // valid UTF-8: Deno's name opens it
    } catch {
      // not UTF-8: record it under the name Deno reported
    }
    const name = lossy.decode(bytes);
    if (names.includes(name)) registerRawFileName(joinPath(dir, name), dir, bytes);
  }
  return names;
}

/**
 * The last component of a path.
 *
 * @example Usage
 * ```ts
 * import { baseName } from "./search_paths.ts";
 * baseName("/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"); // "lvp_icd.x86_64.json"
 * ```
 */
export function baseName(path: string): string {
  const trimmed = trimTrailingSlashes(path);
  const slash = trimmed.lastIndexOf("/");
  return slash < 0 ? trimmed : trimmed.slice(slash + 1);
}

/**
 * The folder part of a path, without normalising it (`.` for a bare name).
 *
 * @example Usage
 * ```ts
 * import { dirName } from "./search_paths.ts";
 * dirName("/usr/share/vulkan/icd.d/lvp.json"); // "/usr/share/vulkan/icd.d"
 * ```
 */
export function dirName(path: string): string {
  const slash = path.lastIndexOf("/");
  if (slash < 0) return ".";
  if (slash === 0) return "/";
  return path.slice(0, slash);
}

/**
 * Joins two path pieces with exactly one `/` between them, without
 * normalising `.` or `..` (the C loader concatenates strings the same way).
 *
 * @example Usage
 * ```ts
 * import { joinPath } from "./search_paths.ts";
 * joinPath("/etc/xdg/", "vulkan/icd.d"); // "/etc/xdg/vulkan/icd.d"
 * ```
 */
export function joinPath(base: string, rest: string): string {
  if (base === "") return rest;
  return (base.endsWith("/") ? base : base + "/") + rest.replace(/^\/+/, "");
}

function folderFailure(location: SearchLocation, error: unknown): LocationReport {
  if (error instanceof Deno.errors.NotFound) return { location, status: "missing", fileCount: 0 };
  if (error instanceof Deno.errors.NotADirectory) return { location, status: "not a folder", fileCount: 0 };
  const detail = error instanceof Error ? error.message : String(error);
  if (error instanceof Deno.errors.NotCapable) {
    return { location, status: "unreadable", fileCount: 0, detail, refused: true };
  }
  return { location, status: "unreadable", fileCount: 0, detail };
}

/** Whether Deno lets this process read `path` (asked without a prompt). */
function readGranted(path: string): boolean {
  try {
    return Deno.permissions.querySync({ name: "read", path }).state === "granted";
  } catch {
    return false;
  }
}

/**
 * The warning for the search paths Deno refused to read (`refused` reports), printed whatever
 * `VK_LOADER_DEBUG` says (docs/behaviour.md V23): without it, a missing `--allow-read` looks like a system
 * without drivers or layers. `undefined` when none was refused.
 *
 * @example Usage
 * ```ts
 * import { readRefusal } from "./search_paths.ts";
 * const location = { path: "/usr/share/vulkan/icd.d", source: "XDG_DATA_DIRS", defaulted: true, isFile: false };
 * const refusal = readRefusal([{ location, status: "unreadable", fileCount: 0, refused: true }], "driver");
 * console.log(refusal?.text);
 * ```
 */
export function readRefusal(
  reports: readonly LocationReport[],
  category: "driver" | "layer",
): DiscoveryMessage | undefined {
  const paths = reports.filter((r) => r.refused).map((r) => r.location.path);
  if (paths.length === 0) return undefined;
  const list = paths.map((p) => `"${p}"`).join(", ");
  const flag = `--allow-read=${paths.join(",")}`;
  const text =
    `Cannot read the ${category} search paths ${list}: Deno refused (no read permission); run deno ` +
    `with --allow-read (or ${flag})`;
  return { level: "warn", category, text, always: true };
}

function trimTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 1 && path[end - 1] === "/") end--;
  return path.slice(0, end);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}
