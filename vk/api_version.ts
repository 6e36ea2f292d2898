/**
 * Packing and formatting Vulkan API versions (`VK_MAKE_API_VERSION`). Re-exported by `api/structs.ts`.
 *
 * @module
 */

/**
 * Packs a Vulkan API version (`VK_MAKE_API_VERSION(variant, major, minor, patch)`), taking the
 * components in reading order: `makeApiVersion(1, 3)` is Vulkan 1.3.0.
 *
 * @example Usage
 * ```ts
 * import { makeApiVersion } from "@vkdeno/loader";
 * console.log(makeApiVersion(1, 3, 0).toString(16)); // "403000"
 * ```
 * @throws {RangeError} If a component is out of its bit range.
 */
export function makeApiVersion(major: number, minor: number, patch?: number, variant?: number): number {
  patch ??= 0;
  variant ??= 0;
  const fits = (v: number, bits: number) => Number.isInteger(v) && v >= 0 && v < 2 ** bits;
  if (!fits(variant, 3) || !fits(major, 7) || !fits(minor, 10) || !fits(patch, 12)) {
    throw new RangeError(`Invalid API version "${variant}.${major}.${minor}.${patch}"`);
  }
  return ((variant << 29) | (major << 22) | (minor << 12) | patch) >>> 0;
}

/**
 * Formats a packed API version as `"major.minor.patch"` (the variant is dropped, as vulkaninfo does).
 *
 * @example Usage
 * ```ts
 * import { formatApiVersion } from "@vkdeno/loader";
 * console.log(formatApiVersion(4206847)); // "1.3.255"
 * ```
 */
export function formatApiVersion(version: number): string {
  return `${(version >>> 22) & 0x7f}.${(version >>> 12) & 0x3ff}.${version & 0xfff}`;
}

/** `VK_API_VERSION_MAJOR` and `VK_API_VERSION_MINOR` as one comparable number (patch and variant dropped). */
export function majorMinor(version: number): number {
  return (version >>> 12) & 0x1ffff;
}
