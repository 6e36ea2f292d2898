/**
 * Instance extensions of other platforms (issue 17, rule 3): a Linux build of the Khronos loader never
 * lists `VK_KHR_win32_surface`, `VK_EXT_metal_surface`, `VK_KHR_android_surface` and the like, even when
 * a driver does (its `wsi_unsupported_instance_extension`), and refuses them at `vkCreateInstance`; the
 * filter holds even with `VK_LOADER_DISABLE_INST_EXT_FILTER`. The platform of each extension comes from
 * vk.xml (`platform=`); this loader's window-system code (wsi/) covers xcb, xlib (with xrandr) and
 * wayland. `VK_EXT_directfb_surface` is left out as in the Khronos loader's default build
 * (`BUILD_WSI_DIRECTFB_SUPPORT` off).
 *
 * @example Usage
 * ```ts
 * import { isOtherPlatformExtension } from "./platform.ts";
 * isOtherPlatformExtension("VK_KHR_win32_surface"); // true
 * isOtherPlatformExtension("VK_KHR_xcb_surface"); // false
 * isOtherPlatformExtension("VK_KHR_surface"); // false: no platform
 * ```
 *
 * @module
 */

import { EXTENSIONS } from "../../ffi/generated/extensions.ts";

/** The vk.xml platforms whose instance extensions a Linux loader lists. */
export const LINUX_PLATFORMS: ReadonlySet<string> = new Set(["xcb", "xlib", "xlib_xrandr", "wayland"]);

/**
 * True for an instance extension that belongs to a window system or OS other than Linux's (vk.xml's
 * `platform`, except `provisional`, which is not a platform).
 *
 * @example Usage
 * ```ts
 * import { isOtherPlatformExtension } from "./platform.ts";
 * console.log(isOtherPlatformExtension("VK_MVK_macos_surface")); // true
 * ```
 */
export function isOtherPlatformExtension(name: string): boolean {
  const info = EXTENSIONS[name];
  if (info?.platform === undefined || info.type !== "instance" || info.platform === "provisional") {
    return false;
  }
  return !LINUX_PLATFORMS.has(info.platform);
}
