/**
 * Driver libraries: loading, loader/driver interface negotiation and the entry points the loader needs
 * (docs/behaviour.md I01, I02, I05, I07, I09, D11); one library per process, closed when its last holder lets go.
 *
 * @module
 */

import { GET_PROC_ADDR } from "../vk/proc_addr.ts";
import type { DiscoveredDriver } from "../discovery/drivers.ts";
import { cstringBuffer } from "../ffi/libc.ts";
import { fnFromPointer, Library } from "../ffi/library.ts";
import type { Logger } from "./log.ts";
import { formatApiVersion, majorMinor } from "../vk/api_version.ts";
import {
  VK_API_VERSION_1_0,
  VK_API_VERSION_1_1,
  VK_ERROR_INCOMPATIBLE_DRIVER,
  VK_INCOMPLETE,
  VK_SUCCESS,
} from "../vk/generated/vk_constants.js";

/** The newest loader/driver interface this loader speaks. */
export const CURRENT_LOADER_ICD_INTERFACE_VERSION = 7;
/** The oldest it accepts. */
export const MIN_SUPPORTED_LOADER_ICD_INTERFACE_VERSION = 0;
/** From this interface on, `vk_icdGetPhysicalDeviceProcAddr` classifies unknown functions. */
export const MIN_PHYS_DEV_EXTENSION_ICD_INTERFACE_VERSION = 4;

const NEGOTIATE_DEF = { parameters: ["buffer"], result: "i32" } as const;
const VERSION_DEF = { parameters: ["buffer"], result: "i32" } as const;
const ENUMERATE_EXTENSIONS_DEF = { parameters: ["pointer", "buffer", "pointer"], result: "i32" } as const;
const CREATE_INSTANCE_DEF = { parameters: ["pointer", "pointer", "buffer"], result: "i32" } as const;

const EXTENSION_PROPERTIES_SIZE = 260;

/** Why a driver was refused. */
export class DriverLoadError extends Error {
  /** The manifest file. */
  readonly manifestPath: string;
  /** The reason alone (`negotiation failed with "VK_ERROR_INCOMPATIBLE_DRIVER"`). */
  readonly reason: string;

  /** A refusal of `manifestPath` for `reason`. */
  constructor(manifestPath: string, reason: string, options?: ErrorOptions) {
    super(`Cannot use driver "${manifestPath}": ${reason}`, options);
    this.name = "DriverLoadError";
    this.manifestPath = manifestPath;
    this.reason = reason;
  }
}

/** An instance extension a driver offers. */
export interface ExtensionProperty {
  readonly name: string;
  readonly specVersion: number;
}

/**
 * A loaded, negotiated driver library.
 *
 * @example Usage
 * ```ts ignore
 * import { acquireDriver, releaseDriver } from "./driver.ts";
 * const driver = acquireDriver(manifest);
 * console.log(driver.interfaceVersion, driver.instanceExtensions());
 * releaseDriver(driver);
 * ```
 */
export class Driver {
  /** The manifest it was loaded from. */
  readonly manifest: DiscoveredDriver;
  /** The library; null for a driver the application handed over as a `vkGetInstanceProcAddr` pointer. */
  readonly library: Library | null;
  /** The negotiated loader/driver interface version. */
  readonly interfaceVersion: number;
  /** The driver's `vk_icdGetInstanceProcAddr` (or exported `vkGetInstanceProcAddr` for interface 0). */
  readonly getInstanceProcAddr: Deno.PointerObject;
  /** `vk_icdGetPhysicalDeviceProcAddr`, for interface 3 and newer drivers that have it. */
  readonly getPhysicalDeviceProcAddr: Deno.PointerValue;
  /**
   * The Vulkan version the driver gets told about: 1.0 for a 1.0 driver (manifest below 1.1, or
   * `vkEnumerateInstanceVersion` missing, failing or below 1.1), else what `vkEnumerateInstanceVersion` says.
   */
  readonly apiVersion: number;
  #gipa: Deno.UnsafeFnPointer<typeof GET_PROC_ADDR>;
  #gpdpa: Deno.UnsafeFnPointer<typeof GET_PROC_ADDR> | undefined;
  #extensions: ExtensionProperty[] | undefined;
  /** Holders: instances and pre-instance queries. */
  refs = 0;

  constructor(init: {
    manifest: DiscoveredDriver;
    library: Library | null;
    interfaceVersion: number;
    getInstanceProcAddr: Deno.PointerObject;
    getPhysicalDeviceProcAddr: Deno.PointerValue;
    apiVersion: number;
  }) {
    this.manifest = init.manifest;
    this.library = init.library;
    this.interfaceVersion = init.interfaceVersion;
    this.getInstanceProcAddr = init.getInstanceProcAddr;
    this.getPhysicalDeviceProcAddr = init.getPhysicalDeviceProcAddr;
    this.apiVersion = init.apiVersion;
    this.#gipa = fnFromPointer(init.getInstanceProcAddr, GET_PROC_ADDR);
    this.#gpdpa = init.getPhysicalDeviceProcAddr
      ? fnFromPointer(init.getPhysicalDeviceProcAddr, GET_PROC_ADDR)
      : undefined;
  }

  /** A name for messages: the manifest file name. */
  get name(): string {
    return this.manifest.fileName;
  }

  /** True for a driver treated as Vulkan 1.0 (LDP_LOADER_7). */
  get isVulkan10(): boolean {
    return majorMinor(this.apiVersion) < majorMinor(VK_API_VERSION_1_1);
  }

  /**
   * `vk_icdGetInstanceProcAddr(instance, name)`.
   *
   * @example Usage
   * ```ts ignore
   * const createInstance = driver.procAddr(null, "vkCreateInstance");
   * ```
   */
  procAddr(instance: Deno.PointerValue, name: string): Deno.PointerValue {
    return this.#gipa.call(instance, cstringBuffer(name));
  }

  /** `vk_icdGetPhysicalDeviceProcAddr(instance, name)`, or null for a driver without one. */
  physicalDeviceProcAddr(instance: Deno.PointerValue, name: string): Deno.PointerValue {
    return this.#gpdpa ? this.#gpdpa.call(instance, cstringBuffer(name)) : null;
  }

  /** Whether unknown physical-device functions may be classified through this driver (interface >= 4). */
  get classifiesPhysicalDeviceFunctions(): boolean {
    return this.#gpdpa !== undefined && this.interfaceVersion >= MIN_PHYS_DEV_EXTENSION_ICD_INTERFACE_VERSION;
  }

  /**
   * The driver's `vkCreateInstance` (looked up with a NULL instance).
   *
   * @example Usage
   * ```ts ignore
   * const result = driver.createInstance(pCreateInfo, null, out);
   * ```
   */
  createInstance(pCreateInfo: Deno.PointerValue, pAllocator: Deno.PointerValue, out: BigUint64Array): number {
    const fn = this.#global("vkCreateInstance");
    if (!fn) return VK_ERROR_INCOMPATIBLE_DRIVER;
    return fnFromPointer(fn, CREATE_INSTANCE_DEF).call(
      pCreateInfo,
      pAllocator,
      out as BigUint64Array<ArrayBuffer>,
    );
  }

  #global(name: string): Deno.PointerValue {
    if (this.interfaceVersion === 0 && name !== "vkEnumerateInstanceVersion") {
      const exported = this.library?.symbolAddress(name);
      if (exported) return exported;
    }
    return this.procAddr(null, name);
  }

  /**
   * The instance extensions the driver offers (`vkEnumerateInstanceExtensionProperties` with a NULL layer
   * name: LDP_LOADER_12), read once. A failing driver offers none.
   */
  instanceExtensions(): readonly ExtensionProperty[] {
    if (this.#extensions) return this.#extensions;
    const list: ExtensionProperty[] = [];
    const fnPtr = this.#global("vkEnumerateInstanceExtensionProperties");
    if (fnPtr) {
      const fn = fnFromPointer(fnPtr, ENUMERATE_EXTENSIONS_DEF);
      const count = new Uint32Array(new ArrayBuffer(4));
      for (let attempt = 0; attempt < 4; attempt++) {
        if (fn.call(null, count, null) !== VK_SUCCESS) break;
        const n = count[0]!;
        const buf = new Uint8Array(new ArrayBuffer(Math.max(1, n) * EXTENSION_PROPERTIES_SIZE));
        const r = fn.call(null, count, Deno.UnsafePointer.of(buf));
        if (r === VK_INCOMPLETE) continue;
        if (r !== VK_SUCCESS) break;
        const view = new DataView(buf.buffer);
        for (let i = 0; i < count[0]!; i++) {
          const at = i * EXTENSION_PROPERTIES_SIZE;
          const end = buf.indexOf(0, at);
          const name = new TextDecoder().decode(buf.subarray(at, end < 0 || end > at + 256 ? at + 256 : end));
          list.push({ name, specVersion: view.getUint32(at + 256, true) });
        }
        break;
      }
    }
    this.#extensions = list;
    return list;
  }
}

const loaded = new Map<string, Driver>();

function exported(library: Library, name: string): Deno.PointerValue {
  return library.symbolAddress(name);
}

function negotiate(manifest: DiscoveredDriver, library: Library, log?: Logger) {
  const where = manifest.manifestPath;
  const icdGipa = exported(library, "vk_icdGetInstanceProcAddr");
  let negotiateFn = exported(library, "vk_icdNegotiateLoaderICDInterfaceVersion");
  if (!negotiateFn && icdGipa) {
    // Interface 7: nothing but vk_icdGetInstanceProcAddr needs to be exported.
    negotiateFn = fnFromPointer(icdGipa, GET_PROC_ADDR).call(
      null,
      cstringBuffer("vk_icdNegotiateLoaderICDInterfaceVersion"),
    );
  }
  let interfaceVersion: number;
  let gipa: Deno.PointerValue;
  if (negotiateFn) {
    const version = new Uint32Array(new ArrayBuffer(4));
    version[0] = CURRENT_LOADER_ICD_INTERFACE_VERSION;
    const result = fnFromPointer(negotiateFn, NEGOTIATE_DEF).call(version);
    if (result !== VK_SUCCESS) {
      throw new DriverLoadError(where, `interface negotiation failed with VkResult "${result}"`);
    }
    interfaceVersion = version[0]!;
    if (interfaceVersion < MIN_SUPPORTED_LOADER_ICD_INTERFACE_VERSION) {
      throw new DriverLoadError(
        where,
        `interface version "${interfaceVersion}" is older than the loader supports`,
      );
    }
    if (interfaceVersion > CURRENT_LOADER_ICD_INTERFACE_VERSION) {
      throw new DriverLoadError(
        where,
        `driver answered interface version "${interfaceVersion}", newer than the "${CURRENT_LOADER_ICD_INTERFACE_VERSION}" offered`,
      );
    }
    if (!icdGipa) {
      throw new DriverLoadError(
        where,
        'it exports "vk_icdNegotiateLoaderICDInterfaceVersion" but not "vk_icdGetInstanceProcAddr"',
      );
    }
    gipa = icdGipa;
  } else if (icdGipa) {
    interfaceVersion = 1;
    gipa = icdGipa;
  } else {
    interfaceVersion = 0;
    gipa = exported(library, "vkGetInstanceProcAddr");
    const missing = ["vkGetInstanceProcAddr", "vkCreateInstance", "vkEnumerateInstanceExtensionProperties"]
      .filter((n) => !exported(library, n));
    if (missing.length > 0) {
      throw new DriverLoadError(
        where,
        `it exports neither "vk_icdGetInstanceProcAddr" nor the interface 0 entry points (missing "${
          missing.join('", "')
        }")`,
      );
    }
    log?.warn(
      `Driver "${manifest.fileName}" uses the deprecated interface 0 (no vk_icdGetInstanceProcAddr)`,
      "driver",
    );
  }
  let gpdpa: Deno.PointerValue = null;
  if (interfaceVersion >= 3) {
    gpdpa = exported(library, "vk_icdGetPhysicalDeviceProcAddr");
    if (!gpdpa && interfaceVersion >= 7) {
      gpdpa = fnFromPointer(gipa!, GET_PROC_ADDR).call(
        null,
        cstringBuffer("vk_icdGetPhysicalDeviceProcAddr"),
      );
    }
  }
  return { interfaceVersion, gipa: gipa!, gpdpa };
}

function driverApiVersion(manifest: DiscoveredDriver, gipa: Deno.PointerObject): number {
  if (majorMinor(manifest.apiVersion) < majorMinor(VK_API_VERSION_1_1)) return VK_API_VERSION_1_0;
  const eiv = fnFromPointer(gipa, GET_PROC_ADDR).call(null, cstringBuffer("vkEnumerateInstanceVersion"));
  if (!eiv) return VK_API_VERSION_1_0;
  const out = new Uint32Array(new ArrayBuffer(4));
  const result = fnFromPointer(eiv, VERSION_DEF).call(out);
  if (result !== VK_SUCCESS) return VK_API_VERSION_1_0;
  return majorMinor(out[0]!) < majorMinor(VK_API_VERSION_1_1) ? VK_API_VERSION_1_0 : out[0]!;
}

/**
 * A driver given as its `vk_icdGetInstanceProcAddr` (no library): negotiated through it, as an interface 7
 * driver is (an answer for `vk_icdNegotiateLoaderICDInterfaceVersion`, else interface 1).
 */
function loadEntryPoint(manifest: DiscoveredDriver, gipa: Deno.PointerObject, log?: Logger): Driver {
  const where = manifest.manifestPath;
  const lookup = fnFromPointer(gipa, GET_PROC_ADDR);
  const negotiateFn = lookup.call(null, cstringBuffer("vk_icdNegotiateLoaderICDInterfaceVersion"));
  let interfaceVersion = 1;
  if (negotiateFn) {
    const version = new Uint32Array(new ArrayBuffer(4));
    version[0] = CURRENT_LOADER_ICD_INTERFACE_VERSION;
    const result = fnFromPointer(negotiateFn, NEGOTIATE_DEF).call(version);
    if (result !== VK_SUCCESS) {
      throw new DriverLoadError(where, `interface negotiation failed with VkResult "${result}"`);
    }
    interfaceVersion = version[0]!;
    if (interfaceVersion < 1 || interfaceVersion > CURRENT_LOADER_ICD_INTERFACE_VERSION) {
      throw new DriverLoadError(
        where,
        `driver answered interface version "${interfaceVersion}": a driver given by its entry point needs 1 to ${CURRENT_LOADER_ICD_INTERFACE_VERSION}`,
      );
    }
  }
  const gpdpa = interfaceVersion >= 3
    ? lookup.call(null, cstringBuffer("vk_icdGetPhysicalDeviceProcAddr"))
    : null;
  const driver = new Driver({
    manifest,
    library: null,
    interfaceVersion,
    getInstanceProcAddr: gipa,
    getPhysicalDeviceProcAddr: gpdpa,
    apiVersion: driverApiVersion(manifest, gipa),
  });
  for (const name of ["vkCreateInstance", "vkEnumerateInstanceExtensionProperties"]) {
    if (!driver.procAddr(null, name)) throw new DriverLoadError(where, `"${name}" is missing`);
  }
  log?.info(
    `Driver "${manifest.fileName}" (entry point 0x${
      Deno.UnsafePointer.value(gipa).toString(16)
    }) negotiated interface ${interfaceVersion}, Vulkan ${formatApiVersion(driver.apiVersion)}`,
    "driver",
  );
  return driver;
}

function load(manifest: DiscoveredDriver, log?: Logger): Driver {
  if (manifest.entryPoint) return loadEntryPoint(manifest, manifest.entryPoint, log);
  let library: Library;
  try {
    library = Library.open(manifest.libraryPath);
  } catch (cause) {
    throw new DriverLoadError(
      manifest.manifestPath,
      `library "${manifest.libraryPath}" could not be loaded: ${
        cause instanceof Error ? cause.message : cause
      }`,
      { cause },
    );
  }
  try {
    const { interfaceVersion, gipa, gpdpa } = negotiate(manifest, library, log);
    const driver = new Driver({
      manifest,
      library,
      interfaceVersion,
      getInstanceProcAddr: gipa as Deno.PointerObject,
      getPhysicalDeviceProcAddr: gpdpa,
      apiVersion: driverApiVersion(manifest, gipa as Deno.PointerObject),
    });
    for (const name of ["vkCreateInstance", "vkEnumerateInstanceExtensionProperties"]) {
      const found = interfaceVersion === 0 ? exported(library, name) : driver.procAddr(null, name);
      if (!found) {
        throw new DriverLoadError(
          manifest.manifestPath,
          `"${name}" is missing from "${manifest.libraryPath}"`,
        );
      }
    }
    if (interfaceVersion <= 4 && majorMinor(manifest.apiVersion) >= majorMinor(VK_API_VERSION_1_1)) {
      log?.warn(
        `Driver "${manifest.fileName}" supports Vulkan ${
          formatApiVersion(manifest.apiVersion)
        } but only interface ${interfaceVersion}: 1.1+ drivers must support interface 5 (LDP_DRIVER_7)`,
        "driver",
      );
    }
    log?.info(
      `Driver "${manifest.fileName}" ("${manifest.libraryPath}") negotiated interface ${interfaceVersion}, Vulkan ${
        formatApiVersion(driver.apiVersion)
      }`,
      "driver",
    );
    return driver;
  } catch (error) {
    library.close();
    throw error;
  }
}

/**
 * Loads (or reuses) the driver of `manifest` and takes a hold on it.
 *
 * @example Usage
 * ```ts ignore
 * import { acquireDriver, releaseDriver } from "./driver.ts";
 * const driver = acquireDriver(manifest, logger);
 * releaseDriver(driver);
 * ```
 * @throws {DriverLoadError} If the library cannot be loaded, negotiated or lacks required entry points.
 */
export function acquireDriver(manifest: DiscoveredDriver, log?: Logger): Driver {
  const key = manifest.entryPoint
    ? `\0entry\0${Deno.UnsafePointer.value(manifest.entryPoint)}`
    : `${manifest.manifestPath}\0${manifest.libraryPath}`;
  let driver = loaded.get(key);
  if (!driver || (driver.library !== null && driver.library.closed)) {
    driver = load(manifest, log);
    loaded.set(key, driver);
  }
  driver.refs++;
  return driver;
}

/**
 * Drops a hold taken by {@linkcode acquireDriver}; the last one closes the library.
 *
 * @example Usage
 * ```ts ignore
 * releaseDriver(driver);
 * ```
 */
export function releaseDriver(driver: Driver): void {
  if (driver.refs <= 0) return;
  driver.refs--;
  if (driver.refs > 0) return;
  for (const [key, d] of loaded) if (d === driver) loaded.delete(key);
  driver.library?.close();
}

/**
 * Loads every manifest that works, logging each one skipped with its file and reason.
 *
 * @example Usage
 * ```ts ignore
 * const drivers = acquireDrivers(discoverDrivers(env).drivers, logger);
 * ```
 */
export function acquireDrivers(manifests: readonly DiscoveredDriver[], log?: Logger): Driver[] {
  const out: Driver[] = [];
  for (const manifest of manifests) {
    try {
      out.push(acquireDriver(manifest, log));
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      if (log) log.warn(text, "driver");
    }
  }
  return out;
}

/** Number of driver libraries loaded right now (for leak tests). */
export function loadedDriverCount(): number {
  return loaded.size;
}
