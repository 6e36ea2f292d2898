/**
 * The discovery rules that differ by operating system, as data: path-list and directory separators, the
 * library suffix and the system loader's name, the compiled-in folders, the macOS bundle and the Windows
 * registry (docs/behaviour.md D20-D25). Everything else in discovery is the same on every system.
 *
 * @module
 */

import { HOST } from "../ffi/host.ts";

/** The operating systems whose discovery rules vkdeno knows. */
export type DiscoveryOs = "linux" | "darwin" | "windows";

/**
 * One operating system's discovery rules.
 *
 * @example Usage
 * ```ts
 * import { PLATFORMS } from "./platforms.ts";
 * console.log(PLATFORMS.windows.pathListSeparator, PLATFORMS.darwin.librarySuffix); // ";" ".dylib"
 * ```
 */
export interface PlatformRules {
  /** The system, as `Deno.build.os` names it. */
  readonly os: DiscoveryOs;
  /** What separates the entries of `VK_DRIVER_FILES`, `VK_LAYER_PATH`, `XDG_DATA_DIRS` and the like. */
  readonly pathListSeparator: ":" | ";";
  /** What makes a `library_path` a path rather than a name, and what joins a folder and a name. */
  readonly directorySymbol: "/" | "\\";
  /** The suffix drivers' and layers' libraries carry (the manifest documents: "should end with"). */
  readonly librarySuffix: ".so" | ".dylib" | ".dll";
  /** The system's own Vulkan loader, by the name its dynamic linker finds it. */
  readonly loaderLibrary: string;
  /**
   * The compiled-in configuration folders searched after `XDG_CONFIG_DIRS`, each with the name the loader's
   * build gives it; empty where the XDG search does not apply.
   */
  readonly sysconfDirs: readonly { readonly path: string; readonly source: string }[];
  /** Whether the XDG folders (`XDG_CONFIG_HOME`, ..., `XDG_DATA_DIRS`) are searched. */
  readonly xdgSearch: boolean;
  /** Whether the application bundle's `Contents/Resources` is searched first (macOS). */
  readonly bundleSearch: boolean;
  /** Whether the registry's `SOFTWARE\Khronos\Vulkan` keys are read (Windows). */
  readonly registrySearch: boolean;
}

/**
 * The rules of each system. Linux's SYSCONFDIR is `/etc` as Debian builds the loader; macOS's are the
 * Khronos build's defaults under the `/usr/local` prefix (SYSCONFDIR `/usr/local/etc`, then
 * EXTRASYSCONFDIR `/etc`), as the loader documents' example search path shows.
 *
 * @example Usage
 * ```ts
 * import { PLATFORMS } from "./platforms.ts";
 * console.log(PLATFORMS.darwin.sysconfDirs.map((d) => d.path)); // ["/usr/local/etc", "/etc"]
 * ```
 */
export const PLATFORMS: Readonly<Record<DiscoveryOs, PlatformRules>> = {
  linux: {
    os: "linux",
    pathListSeparator: ":",
    directorySymbol: "/",
    librarySuffix: ".so",
    loaderLibrary: "libvulkan.so.1",
    sysconfDirs: [{ path: "/etc", source: "SYSCONFDIR" }],
    xdgSearch: true,
    bundleSearch: false,
    registrySearch: false,
  },
  darwin: {
    os: "darwin",
    pathListSeparator: ":",
    directorySymbol: "/",
    librarySuffix: ".dylib",
    loaderLibrary: "libvulkan.1.dylib",
    sysconfDirs: [{ path: "/usr/local/etc", source: "SYSCONFDIR" }, {
      path: "/etc",
      source: "EXTRASYSCONFDIR",
    }],
    xdgSearch: true,
    bundleSearch: true,
    registrySearch: false,
  },
  windows: {
    os: "windows",
    pathListSeparator: ";",
    directorySymbol: "\\",
    librarySuffix: ".dll",
    loaderLibrary: "vulkan-1.dll",
    sysconfDirs: [],
    xdgSearch: false,
    bundleSearch: false,
    registrySearch: true,
  },
};

/**
 * The registry key each manifest kind is listed under, below `HKEY_LOCAL_MACHINE` and (layers only)
 * `HKEY_CURRENT_USER`.
 *
 * @example Usage
 * ```ts
 * import { REGISTRY_KEYS } from "./platforms.ts";
 * console.log(REGISTRY_KEYS.driver); // "SOFTWARE\\Khronos\\Vulkan\\Drivers"
 * ```
 */
export const REGISTRY_KEYS: Readonly<Record<"driver" | "implicit_layer" | "explicit_layer", string>> = {
  driver: "SOFTWARE\\Khronos\\Vulkan\\Drivers",
  implicit_layer: "SOFTWARE\\Khronos\\Vulkan\\ImplicitLayers",
  explicit_layer: "SOFTWARE\\Khronos\\Vulkan\\ExplicitLayers",
};

/**
 * The discovery rules for `os` (a `Deno.build.os` value): Windows and macOS their own, every other system
 * Linux's.
 *
 * @example Usage
 * ```ts
 * import { platformRules } from "./platforms.ts";
 * platformRules("freebsd").os; // "linux"
 * ```
 */
export function platformRules(os: string = HOST.os): PlatformRules {
  return os === "windows" ? PLATFORMS.windows : os === "darwin" ? PLATFORMS.darwin : PLATFORMS.linux;
}

/**
 * True when `path` is absolute under these rules: it starts with the directory symbol, or, on Windows, its
 * second character is `:` (a drive, `C:`), as the Khronos loader's `loader_platform_is_path_absolute` decides.
 *
 * @example Usage
 * ```ts
 * import { isAbsolutePath, PLATFORMS } from "./platforms.ts";
 * isAbsolutePath(PLATFORMS.windows, "C:\\drivers\\a.json"); // true
 * isAbsolutePath(PLATFORMS.linux, "drivers/a.json"); // false
 * ```
 */
export function isAbsolutePath(rules: PlatformRules, path: string): boolean {
  if (path.startsWith(rules.directorySymbol)) return true;
  return rules.os === "windows" && path[1] === ":";
}

/**
 * The folder part of a manifest path under these rules, with its trailing directory symbol (`./` when the
 * path names no folder): what a relative `library_path` is appended to.
 *
 * @example Usage
 * ```ts
 * import { folderOf, PLATFORMS } from "./platforms.ts";
 * folderOf(PLATFORMS.windows, "C:\\vk\\icd.json"); // "C:\\vk\\"
 * ```
 */
export function folderOf(rules: PlatformRules, path: string): string {
  const end = path.lastIndexOf(rules.directorySymbol) + 1;
  return end === 0 ? "." + rules.directorySymbol : path.slice(0, end);
}

/** How a manifest's `library_path` was read: an absolute path, a path relative to the manifest, a name. */
export type LibraryPathKind = "absolute" | "relative" | "name";

/**
 * Turns a manifest's `library_path` into what the dynamic linker gets: an absolute path unchanged, a path
 * with the directory symbol appended to the manifest's folder by plain concatenation, a bare name
 * (`libvulkan_lvp.so`, `libMoltenVK.dylib`, `winevulkan.dll`) unchanged for the system's own library
 * search (docs/behaviour.md M04, D24).
 *
 * @example Usage
 * ```ts
 * import { libraryPathOn, PLATFORMS } from "./platforms.ts";
 * libraryPathOn(PLATFORMS.linux, "lib/libfoo.so", "/opt/icd/foo.json"); // { path: "/opt/icd/lib/libfoo.so", kind: "relative" }
 * libraryPathOn(PLATFORMS.windows, "bin\\foo.dll", "C:\\vk\\foo.json"); // { path: "C:\\vk\\bin\\foo.dll", kind: "relative" }
 * libraryPathOn(PLATFORMS.windows, "lib/foo.dll", "C:\\vk\\foo.json"); // { path: "lib/foo.dll", kind: "name" }
 * ```
 */
export function libraryPathOn(
  rules: PlatformRules,
  libraryPath: string,
  manifestPath: string,
): { path: string; kind: LibraryPathKind } {
  if (isAbsolutePath(rules, libraryPath)) return { path: libraryPath, kind: "absolute" };
  if (!libraryPath.includes(rules.directorySymbol)) return { path: libraryPath, kind: "name" };
  return { path: folderOf(rules, manifestPath) + libraryPath, kind: "relative" };
}

/**
 * The `Contents/Resources` folder of the application bundle an executable runs from
 * (`<name>.app/Contents/MacOS/<exe>`), or `undefined` for an executable outside a bundle.
 *
 * @example Usage
 * ```ts
 * import { bundleResourcesOf } from "./platforms.ts";
 * bundleResourcesOf("/Applications/Viewer.app/Contents/MacOS/deno"); // "/Applications/Viewer.app/Contents/Resources"
 * bundleResourcesOf("/opt/homebrew/bin/deno"); // undefined
 * ```
 */
export function bundleResourcesOf(executablePath: string): string | undefined {
  const match = /^(.*\.app\/Contents)\/MacOS\/[^/]+$/.exec(executablePath);
  return match === null ? undefined : `${match[1]}/Resources`;
}
