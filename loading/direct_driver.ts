/**
 * Drivers the application hands over itself instead of manifests: `VK_LUNARG_direct_driver_loading` lists
 * and `Vulkan.load({ drivers })` paths or driver objects (docs/behaviour.md D10, V03).
 *
 * @module
 */

import { GET_PROC_ADDR } from "../vk/proc_addr.ts";
import type { DiscoveredDriver } from "../discovery/drivers.ts";
import { parseDriverManifest } from "../discovery/driver_manifest.ts";
import { readManifestFile } from "../discovery/manifest_file.ts";
import { baseName } from "../discovery/search_paths.ts";
import { cstringBuffer } from "../ffi/libc.ts";
import { fnFromPointer } from "../ffi/library.ts";
import { readPointer, readU32 } from "../ffi/memory.ts";
import { Driver } from "./driver.ts";
import type { Logger } from "./log.ts";
import { formatApiVersion, majorMinor } from "../vk/api_version.ts";
import { VK_API_VERSION_1_0, VK_API_VERSION_1_1, VK_SUCCESS } from "../vk/generated/vk_constants.js";

/** The extension's name. */
export const DIRECT_DRIVER_LOADING_EXTENSION = "VK_LUNARG_direct_driver_loading";
/** `VK_STRUCTURE_TYPE_DIRECT_DRIVER_LOADING_LIST_LUNARG`. */
export const STRUCTURE_TYPE_DIRECT_DRIVER_LOADING_LIST = 1000459001;
/** `VK_STRUCTURE_TYPE_DIRECT_DRIVER_LOADING_INFO_LUNARG`. */
export const STRUCTURE_TYPE_DIRECT_DRIVER_LOADING_INFO = 1000459000;
/** The interface version a directly loaded driver must support. */
export const DIRECT_DRIVER_MIN_INTERFACE_VERSION = 7;

/**
 * A driver handed to `Vulkan.load({ drivers })` as code rather than a file: its name (for messages and the
 * driver filters) and its `vk_icdGetInstanceProcAddr`, which must stay callable while the loader uses it.
 *
 * @example Usage
 * ```ts
 * import type { DriverEntryPoint } from "@vkdeno/loader";
 * const describe = (d: DriverEntryPoint) => `${d.name} at 0x${Deno.UnsafePointer.value(d.getInstanceProcAddr).toString(16)}`;
 * ```
 */
export interface DriverEntryPoint {
  /** The driver's name, standing for its manifest's file name. */
  readonly name: string;
  /** Its `vk_icdGetInstanceProcAddr`; `vk_icdNegotiateLoaderICDInterfaceVersion` is asked of it. */
  readonly getInstanceProcAddr: Deno.PointerObject;
}

/** How application-given drivers mix with found ones. */
export type DirectDriverMode = "exclusive" | "inclusive";

/**
 * A `VkDirectDriverLoadingListLUNARG` read from a pNext chain.
 *
 * @example Usage
 * ```ts
 * import type { DirectDriverList } from "./direct_driver.ts";
 * const none: DirectDriverList = { mode: "inclusive", drivers: [] };
 * ```
 */
export interface DirectDriverList {
  /** `mode`. */
  readonly mode: DirectDriverMode;
  /** `pDrivers[i].pfnGetInstanceProcAddr`, by index (null where the application gave NULL). */
  readonly drivers: readonly Deno.PointerValue[];
}

const NEGOTIATE_DEF = { parameters: ["buffer"], result: "i32" } as const;
const VERSION_DEF = { parameters: ["buffer"], result: "i32" } as const;

/**
 * Finds a `VkDirectDriverLoadingListLUNARG` in a pNext chain. Returns `undefined` when there is none, or
 * when the extension is not enabled (logged: the list is then ignored).
 *
 * @example Usage
 * ```ts
 * import { readDirectDriverList } from "./direct_driver.ts";
 * console.log(readDirectDriverList(null, [])); // undefined
 * ```
 */
export function readDirectDriverList(
  pNext: Deno.PointerValue,
  enabledExtensions: readonly string[],
  log?: Logger,
): DirectDriverList | undefined {
  let p = pNext;
  for (let guard = 0; p !== null && guard < 1000; guard++) {
    if (readU32(p, 0) === STRUCTURE_TYPE_DIRECT_DRIVER_LOADING_LIST) break;
    p = readPointer(p, 8);
  }
  if (p === null) return undefined;
  if (!enabledExtensions.includes(DIRECT_DRIVER_LOADING_EXTENSION)) {
    log?.warn(
      "vkCreateInstance: the pNext chain holds a VkDirectDriverLoadingListLUNARG but the application did " +
        `not enable "${DIRECT_DRIVER_LOADING_EXTENSION}": the list is ignored`,
      "driver",
    );
    return undefined;
  }
  const mode = readU32(p, 16);
  const count = readU32(p, 20);
  const array = readPointer(p, 24);
  const drivers: Deno.PointerValue[] = [];
  for (let i = 0; i < count && array !== null; i++) {
    const info = Deno.UnsafePointer.offset(array, i * 32);
    drivers.push(
      readU32(info, 0) === STRUCTURE_TYPE_DIRECT_DRIVER_LOADING_INFO ? readPointer(info, 24) : null,
    );
  }
  if (mode !== 0 && mode !== 1) {
    log?.warn(
      `vkCreateInstance: VkDirectDriverLoadingListLUNARG::mode "${mode}" is unknown: read as inclusive`,
    );
  }
  return { mode: mode === 0 ? "exclusive" : "inclusive", drivers };
}

/**
 * Negotiates each directly given driver (interface 7 or newer, through its `vkGetInstanceProcAddr`); the
 * ones that fail are skipped with a message naming their index. The returned drivers have no library
 * (the application owns the code) and a hold count of 1.
 *
 * @example Usage
 * ```ts ignore
 * const drivers = acquireDirectDrivers(list, logger);
 * ```
 */
export function acquireDirectDrivers(list: DirectDriverList, log?: Logger): Driver[] {
  if (list.mode === "exclusive") {
    log?.info(
      `The ${DIRECT_DRIVER_LOADING_EXTENSION} extension is active and specified ` +
        "VK_DIRECT_DRIVER_LOADING_MODE_EXCLUSIVE_LUNARG: skipping system and environment variable driver search",
      "driver",
    );
  }
  const out: Driver[] = [];
  list.drivers.forEach((gipa, index) => {
    const where = `VkDirectDriverLoadingListLUNARG::pDrivers[${index}]`;
    const skip = (why: string) => log?.warn(`Skipping the driver in ${where}: ${why}`, "driver");
    if (gipa === null) {
      return skip("pfnGetInstanceProcAddr is NULL (or sType is not DIRECT_DRIVER_LOADING_INFO)");
    }
    const lookup = fnFromPointer(gipa, GET_PROC_ADDR);
    const negotiate = lookup.call(null, cstringBuffer("vk_icdNegotiateLoaderICDInterfaceVersion"));
    if (negotiate === null) {
      return skip('its vkGetInstanceProcAddr does not give "vk_icdNegotiateLoaderICDInterfaceVersion"');
    }
    const version = new Uint32Array(new ArrayBuffer(4));
    version[0] = 7;
    const result = fnFromPointer(negotiate, NEGOTIATE_DEF).call(version);
    if (result !== VK_SUCCESS) return skip(`interface negotiation failed with VkResult "${result}"`);
    const iface = version[0]!;
    if (iface < DIRECT_DRIVER_MIN_INTERFACE_VERSION || iface > 7) {
      return skip(
        `it supports interface version ${iface}; VK_LUNARG_direct_driver_loading needs interface 7`,
      );
    }
    const apiVersion = enumerateVersion(lookup);
    const manifest: DiscoveredDriver = {
      manifestPath: where,
      fileName: where,
      fileFormatVersion: "",
      libraryPathField: "",
      libraryPath: "",
      libraryPathKind: "absolute",
      apiVersion,
      apiVersionText: formatApiVersion(apiVersion),
      isPortabilityDriver: false,
      origin: { source: DIRECT_DRIVER_LOADING_EXTENSION, location: where, defaulted: false },
    };
    const driver = new Driver({
      manifest,
      library: null,
      interfaceVersion: iface,
      getInstanceProcAddr: gipa,
      getPhysicalDeviceProcAddr: lookup.call(null, cstringBuffer("vk_icdGetPhysicalDeviceProcAddr")),
      apiVersion,
    });
    for (const name of ["vkCreateInstance", "vkEnumerateInstanceExtensionProperties"]) {
      if (driver.procAddr(null, name) === null) return skip(`"${name}" is missing`);
    }
    driver.refs = 1;
    log?.info(
      `Adding the driver in ${where} (vkGetInstanceProcAddr 0x${
        Deno.UnsafePointer.value(gipa).toString(16)
      }): interface ${iface}, Vulkan ${formatApiVersion(apiVersion)}`,
      "driver",
    );
    out.push(driver);
  });
  return out;
}

function enumerateVersion(lookup: Deno.UnsafeFnPointer<typeof GET_PROC_ADDR>): number {
  const eiv = lookup.call(null, cstringBuffer("vkEnumerateInstanceVersion"));
  if (eiv === null) return VK_API_VERSION_1_0;
  const out = new Uint32Array(new ArrayBuffer(4));
  if (fnFromPointer(eiv, VERSION_DEF).call(out) !== VK_SUCCESS) return VK_API_VERSION_1_0;
  return majorMinor(out[0]!) < majorMinor(VK_API_VERSION_1_1) ? VK_API_VERSION_1_0 : out[0]!;
}

/**
 * Turns `Vulkan.load({ drivers })` entries into driver records: a path ending in `.json` is read as a
 * driver manifest, anything else is a driver library loaded as a manifest's would be. Entries that cannot
 * be used are logged and left out.
 *
 * @example Usage
 * ```ts
 * import { apiDriverManifests } from "./direct_driver.ts";
 * console.log(apiDriverManifests(["/nonexistent.json"]).length); // 0
 * ```
 */
export function apiDriverManifests(
  paths: readonly (string | DriverEntryPoint)[],
  log?: Logger,
): DiscoveredDriver[] {
  const out: DiscoveredDriver[] = [];
  paths.forEach((path, index) => {
    if (typeof path !== "string") {
      const where = `Vulkan.load drivers[${index}]`;
      if (path === null || typeof path !== "object" || typeof path.getInstanceProcAddr !== "object") {
        log?.warn(
          `Skipping ${where}: expected a path or a driver with a getInstanceProcAddr pointer`,
          "driver",
        );
        return;
      }
      out.push({
        manifestPath: `${where} (${path.name})`,
        fileName: path.name,
        fileFormatVersion: "",
        libraryPathField: "",
        libraryPath: "",
        libraryPathKind: "absolute",
        apiVersion: VK_API_VERSION_1_1,
        apiVersionText: formatApiVersion(VK_API_VERSION_1_1),
        isPortabilityDriver: false,
        origin: { source: "Vulkan.load drivers", location: where, defaulted: false },
        entryPoint: path.getInstanceProcAddr,
      });
      return;
    }
    const origin = { source: "Vulkan.load drivers", location: path, defaulted: false };
    if (path.endsWith(".json")) {
      const file = readManifestFile(path);
      if (!file.ok) {
        log?.warn(
          `Skipping driver manifest "${path}" (Vulkan.load drivers[${index}]): ${file.reason}`,
          "driver",
        );
        return;
      }
      const parsed = parseDriverManifest(file.value, path);
      if (!parsed.ok) {
        log?.warn(
          `Skipping driver manifest "${path}" (Vulkan.load drivers[${index}]): ${parsed.reason}`,
          "driver",
        );
        return;
      }
      out.push({ ...parsed.manifest, origin });
      return;
    }
    // A bare library: its api_version is unknown until negotiation; 1.1 lets vkEnumerateInstanceVersion say.
    out.push({
      manifestPath: path,
      fileName: baseName(path),
      fileFormatVersion: "",
      libraryPathField: path,
      libraryPath: path,
      libraryPathKind: path.includes("/") ? "absolute" : "name",
      apiVersion: VK_API_VERSION_1_1,
      apiVersionText: formatApiVersion(VK_API_VERSION_1_1),
      isPortabilityDriver: false,
      origin,
    });
  });
  return out;
}
