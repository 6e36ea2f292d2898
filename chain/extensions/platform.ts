/**
 * Which instance extensions that drivers and implicit layers report reach the application, as a Linux
 * build of the Khronos loader decides: its known-extension filter (lifted by
 * `VK_LOADER_DISABLE_INST_EXT_FILTER`) and the surface extensions its build has no support for (never lifted).
 *
 * @example Usage
 * ```ts
 * import { isOtherPlatformExtension, listsDriverExtension } from "./platform.ts";
 * isOtherPlatformExtension("VK_KHR_win32_surface"); // true
 * listsDriverExtension("VK_KHR_win32_surface", false); // false: filtered
 * listsDriverExtension("VK_KHR_win32_surface", true); // true: the filter is lifted
 * listsDriverExtension("VK_EXT_directfb_surface", true); // false: never listed
 * ```
 *
 * @module
 */

import { EXTENSIONS } from "../../vk/generated/extensions.ts";
import { atoi, type EnvironmentSnapshot, getenv } from "../../discovery/environment.ts";

/** The vk.xml platforms whose instance extensions a Linux loader lists. */
export const LINUX_PLATFORMS: ReadonlySet<string> = new Set(["xcb", "xlib", "xlib_xrandr", "wayland"]);

/**
 * Surface extensions the Khronos loader's default Linux build is compiled without
 * (`BUILD_WSI_DIRECTFB_SUPPORT` and QNX Screen off): dropped from every driver's and layer's list, whatever
 * `VK_LOADER_DISABLE_INST_EXT_FILTER` says (its `wsi_unsupported_instance_extension`).
 */
export const UNBUILT_SURFACE_EXTENSIONS: ReadonlySet<string> = new Set([
  "VK_EXT_directfb_surface",
  "VK_QNX_screen_surface",
]);

/** The variable that lifts the known-extension filter. */
export const DISABLE_INST_EXT_FILTER = "VK_LOADER_DISABLE_INST_EXT_FILTER";

/**
 * True for an instance extension that belongs to a window system or OS other than Linux's (vk.xml's
 * `platform`, except `provisional`, which is not a platform).
 *
 * @example Usage
 * ```ts
 * import { isOtherPlatformExtension } from "./platform.ts";
 * console.log(isOtherPlatformExtension("VK_MVK_macos_surface")); // true
 * console.log(isOtherPlatformExtension("VK_KHR_xcb_surface")); // false
 * ```
 */
export function isOtherPlatformExtension(name: string): boolean {
  const info = EXTENSIONS[name];
  if (info?.platform === undefined || info.type !== "instance" || info.platform === "provisional") {
    return false;
  }
  return !LINUX_PLATFORMS.has(info.platform);
}

/**
 * Whether `VK_LOADER_DISABLE_INST_EXT_FILTER` lifts the filter: a value C's `atoi` reads as non-zero
 * (`1`, `-1`, ` 2`, `1x`), as the Khronos loader reads it; unset, empty, `0`, `yes` or `true` leave it on.
 * Read with `getenv`, so it holds for elevated processes too.
 *
 * @example Usage
 * ```ts
 * import { isInstanceExtensionFilterLifted } from "./platform.ts";
 * console.log(isInstanceExtensionFilterLifted({ vars: { VK_LOADER_DISABLE_INST_EXT_FILTER: "1" }, elevated: false })); // true
 * console.log(isInstanceExtensionFilterLifted({ vars: { VK_LOADER_DISABLE_INST_EXT_FILTER: "yes" }, elevated: false })); // false
 * ```
 */
export function isInstanceExtensionFilterLifted(env: EnvironmentSnapshot): boolean {
  const value = getenv(env, DISABLE_INST_EXT_FILTER);
  return value !== undefined && atoi(value) !== 0;
}

/**
 * Whether a driver's instance extension is listed (and so can be enabled): with the filter on, only the
 * instance extensions vk.xml knows, other platforms' excepted; lifted, everything but
 * {@linkcode UNBUILT_SURFACE_EXTENSIONS}.
 *
 * @example Usage
 * ```ts
 * import { listsDriverExtension } from "./platform.ts";
 * console.log(listsDriverExtension("VK_FOO_unknown", false), listsDriverExtension("VK_FOO_unknown", true)); // false true
 * ```
 */
export function listsDriverExtension(name: string, filterLifted: boolean): boolean {
  if (UNBUILT_SURFACE_EXTENSIONS.has(name)) return false;
  if (filterLifted) return true;
  return EXTENSIONS[name]?.type === "instance" && !isOtherPlatformExtension(name);
}

/**
 * Whether an implicit layer's instance extension is listed: with the filter on, all but other platforms'
 * (names vk.xml does not know stay); lifted, everything but {@linkcode UNBUILT_SURFACE_EXTENSIONS}.
 *
 * @example Usage
 * ```ts
 * import { listsLayerExtension } from "./platform.ts";
 * console.log(listsLayerExtension("VK_KHR_win32_surface", false), listsLayerExtension("VK_KHR_win32_surface", true)); // false true
 * ```
 */
export function listsLayerExtension(name: string, filterLifted: boolean): boolean {
  if (UNBUILT_SURFACE_EXTENSIONS.has(name)) return false;
  return filterLifted || !isOtherPlatformExtension(name);
}

/**
 * The first requested instance extension that `vkCreateInstance` refuses whoever offers it, as the
 * Khronos loader does: with the filter on, another platform's (even where an enabled layer lists it);
 * always, {@linkcode UNBUILT_SURFACE_EXTENSIONS}. `undefined` when none is.
 *
 * @example Usage
 * ```ts
 * import { firstRefusedExtension } from "./platform.ts";
 * console.log(firstRefusedExtension(["VK_KHR_surface", "VK_KHR_win32_surface"], false)); // "VK_KHR_win32_surface"
 * console.log(firstRefusedExtension(["VK_KHR_surface", "VK_KHR_win32_surface"], true)); // undefined
 * ```
 */
export function firstRefusedExtension(
  requested: readonly string[],
  filterLifted: boolean,
): string | undefined {
  return requested.find((name) => !listsLayerExtension(name, filterLifted));
}
