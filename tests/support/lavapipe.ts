/**
 * The host's lavapipe (Mesa's CPU Vulkan driver) for the running architecture: its manifest and library, as
 * Debian's mesa-vulkan-drivers installs them (manifests named by `uname -m`, libraries in the multiarch folder).
 *
 * @module
 */

/** The folders a distribution puts driver manifests in, in the order they are looked at here. */
const ICD_DIRS = ["/usr/share/vulkan/icd.d", "/usr/local/share/vulkan/icd.d", "/etc/vulkan/icd.d"];

function exists(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/**
 * A Mesa driver's manifest file name for the running architecture.
 *
 * @example Usage
 * ```ts
 * import { mesaManifestName } from "./lavapipe.ts";
 * console.log(mesaManifestName("lvp")); // "lvp_icd.x86_64.json" on x86-64, "lvp_icd.aarch64.json" on arm64
 * ```
 */
export function mesaManifestName(driver: string): string {
  return `${driver}_icd.${Deno.build.arch}.json`;
}

/** The multiarch library folder under `/usr` (what the loader's `$LIB` stands for on Debian). */
export const MULTIARCH_LIB = `lib/${Deno.build.arch}-linux-gnu`;

/** Lavapipe's manifest: the first of the usual folders that has it (the Debian path when none does). */
export const LAVAPIPE: string = ICD_DIRS.map((d) => `${d}/${mesaManifestName("lvp")}`).find(exists) ??
  `${ICD_DIRS[0]}/${mesaManifestName("lvp")}`;

/** Lavapipe's shared library. */
export const LAVAPIPE_LIBRARY = `/usr/${MULTIARCH_LIB}/libvulkan_lvp.so`;

/** Whether lavapipe's manifest is installed (tests that need it are ignored otherwise). */
export const hasLavapipe: boolean = exists(LAVAPIPE);
