/**
 * The global commands a loader answers before any instance exists (the loader docs' "pre-instance"
 * functions): `vkEnumerateInstanceVersion`, `vkEnumerateInstanceLayerProperties` and
 * `vkEnumerateInstanceExtensionProperties`, with the driver scan they and instance creation share (the
 * found drivers and the application's direct drivers).
 *
 * @module
 */

import { HEADER_VERSION_COMPLETE } from "../vk/generated/enums.ts";
import { type Pointer, writeU32 } from "../ffi/memory.ts";
import { discoverDrivers, type DiscoveredDriver } from "../discovery/drivers.ts";
import type { EnvironmentSnapshot } from "../discovery/environment.ts";
import {
  type DeviceConfigurations,
  deviceConfigurationsOf,
  readLoaderSettings,
} from "../discovery/settings_file.ts";
import { acquireDrivers, type Driver, type ExtensionProperty, releaseDriver } from "../loading/driver.ts";
import {
  apiDriverManifests,
  DIRECT_DRIVER_LOADING_EXTENSION,
  type DirectDriverMode,
  type DriverEntryPoint,
} from "../loading/direct_driver.ts";
import type { Logger } from "../loading/log.ts";
import { VK_ERROR_OUT_OF_HOST_MEMORY, VK_SUCCESS } from "../vk/generated/vk_constants.js";
import type { ModuleLayerLoader } from "./layer_chain/module_interface.ts";
import {
  DISABLE_INST_EXT_FILTER,
  isInstanceExtensionFilterLifted,
  listsDriverExtension,
  UNBUILT_SURFACE_EXTENSIONS,
} from "./extensions/platform.ts";
import {
  enumerateInstanceExtensions,
  enumerateInstanceLayers,
  enumerateInstanceVersion,
} from "./layer_chain/enumeration.ts";

/** What `VK_LOADER_DEBUG` (info) says once per loader when the variable lifts the filter. */
const FILTER_LIFTED_NOTE = `${DISABLE_INST_EXT_FILTER} is set: the instance extension filter is lifted, ` +
  "so drivers' and layers' instance extensions are listed and can be enabled even when vk.xml does not " +
  `know them or they belong to another platform (VK_KHR_win32_surface, ...); ${
    [...UNBUILT_SURFACE_EXTENSIONS].join(" and ")
  } stay out (no support for them in a Linux loader)`;

/**
 * Instance extensions the loader implements itself, in the Khronos loader's order (docs/behaviour.md A02):
 * the debug messengers (chain/extensions/debug.ts) and portability enumeration (chain/extensions/portability.ts).
 */
export const LOADER_INSTANCE_EXTENSIONS: readonly ExtensionProperty[] = [
  { name: "VK_EXT_debug_report", specVersion: 10 },
  { name: "VK_EXT_debug_utils", specVersion: 2 },
  { name: "VK_KHR_portability_enumeration", specVersion: 1 },
  { name: DIRECT_DRIVER_LOADING_EXTENSION, specVersion: 1 },
];

/** What {@linkcode GlobalCommands} reads. */
export interface GlobalCommandsOptions {
  /** What discovery reads. */
  env: EnvironmentSnapshot;
  /** The log. */
  log: Logger;
  /** Driver libraries (`.so`) or manifests (`.json`) given to the loader (loading/direct_driver.ts). */
  drivers?: readonly (string | DriverEntryPoint)[];
  /** With `drivers`: `exclusive` uses only them, `inclusive` adds them. */
  driversMode: DirectDriverMode;
  /** Loader of script-module layers, whose extensions it describes. */
  moduleLayers?: ModuleLayerLoader;
}

/**
 * One loader's global commands, answered from its environment snapshot.
 *
 * @example Usage
 * ```ts ignore
 * import { GlobalCommands } from "./global_commands.ts";
 * import { Logger } from "../loading/log.ts";
 * const env = { vars: {}, elevated: false };
 * const global = new GlobalCommands({ env, log: new Logger(env), driversMode: "exclusive" });
 * console.log(global.driverManifests().length);
 * ```
 */
export class GlobalCommands {
  readonly #env: EnvironmentSnapshot;
  readonly #log: Logger;
  readonly #apiDrivers: readonly (string | DriverEntryPoint)[] | undefined;
  readonly #apiDriversMode: DirectDriverMode;
  readonly #moduleLayers: ModuleLayerLoader | undefined;
  #liftNoted = false;

  /** The global commands over `options.env`. */
  constructor(options: GlobalCommandsOptions) {
    this.#env = options.env;
    this.#log = options.log;
    this.#apiDrivers = options.drivers;
    this.#apiDriversMode = options.driversMode;
    this.#moduleLayers = options.moduleLayers;
  }

  /** `vkEnumerateInstanceVersion`: the loader's own version, unless an implicit layer's pre-instance hook answers. */
  enumerateInstanceVersion(pApiVersion: Pointer): number {
    if (pApiVersion === null) {
      this.#log.error("vkEnumerateInstanceVersion: pApiVersion is NULL");
      return VK_ERROR_OUT_OF_HOST_MEMORY;
    }
    // Enabled implicit layers' pre-instance functions may answer instead (docs/behaviour.md LI09).
    return enumerateInstanceVersion(this.#env, pApiVersion, (p) => {
      writeU32(p, 0, HEADER_VERSION_COMPLETE);
      return VK_SUCCESS;
    });
  }

  /** `vkEnumerateInstanceLayerProperties`: every available layer (chain/layer_chain/enumeration.ts). */
  enumerateInstanceLayerProperties(pPropertyCount: Pointer, pProperties: Pointer): number {
    return enumerateInstanceLayers(this.#env, pPropertyCount, pProperties);
  }

  /**
   * `vkEnumerateInstanceExtensionProperties`: the drivers' union, the loader's own and active implicit
   * layers', deduplicated; a layer's own list for `pLayerName`.
   */
  enumerateInstanceExtensionProperties(
    pLayerName: Pointer,
    pPropertyCount: Pointer,
    pProperties: Pointer,
  ): number {
    const base = () => {
      const drivers = acquireDrivers(this.driverManifests(), this.#log);
      try {
        return this.instanceExtensions(drivers);
      } finally {
        drivers.forEach(releaseDriver);
      }
    };
    return enumerateInstanceExtensions(
      this.#env,
      base,
      pLayerName,
      pPropertyCount,
      pProperties,
      this.#moduleLayers,
    );
  }

  /**
   * The found drivers and the loader's `drivers` option (alone when exclusive). Inclusive, the given
   * drivers come first in this scan order, as VK_LUNARG_direct_driver_loading's do in the Khronos loader:
   * drivers are then listed in reverse (docs/behaviour.md A16), so their devices enumerate after the found
   * ones' (D10).
   */
  driverManifests(): DiscoveredDriver[] {
    return this.driverDiscovery().drivers;
  }

  /**
   * {@linkcode driverManifests}, with the settings file's `device_configurations` that come with them
   * (read with the driver scan, so an instance without them costs nothing more).
   */
  driverDiscovery(): { drivers: DiscoveredDriver[]; deviceConfigurations?: DeviceConfigurations } {
    const api = this.#apiDrivers === undefined ? [] : apiDriverManifests(this.#apiDrivers, this.#log);
    if (this.#apiDrivers !== undefined && this.#apiDriversMode === "exclusive") {
      return { drivers: api, ...settingsDevices(this.#env) };
    }
    const discovery = discoverDrivers(this.#env);
    this.#log.logAll(discovery.messages);
    const drivers = [...api, ...discovery.drivers];
    const list = discovery.deviceConfigurations;
    return list === undefined ? { drivers } : { drivers, deviceConfigurations: list };
  }

  /**
   * The instance extensions of every driver that the filter lets through (chain/extensions/platform.ts:
   * every one when `VK_LOADER_DISABLE_INST_EXT_FILTER` lifts it), then the loader's own.
   */
  instanceExtensions(drivers: readonly Driver[]): ExtensionProperty[] {
    const lifted = isInstanceExtensionFilterLifted(this.#env);
    if (lifted && !this.#liftNoted) {
      this.#liftNoted = true;
      this.#log.log({ level: "info", text: FILTER_LIFTED_NOTE });
    }
    const seen = new Set<string>();
    const out: ExtensionProperty[] = [];
    const add = (e: ExtensionProperty) => {
      if (seen.has(e.name) || !listsDriverExtension(e.name, lifted)) return;
      seen.add(e.name);
      out.push(e);
    };
    for (const d of drivers) d.instanceExtensions().forEach(add);
    LOADER_INSTANCE_EXTENSIONS.forEach(add);
    return out;
  }
}

/**
 * The settings file's device list where no driver scan read it (drivers given by the application alone):
 * the Khronos loader applies it to whatever drivers it has.
 *
 * @example Usage
 * ```ts
 * import { settingsDevices } from "./global_commands.ts";
 * console.log(settingsDevices({ vars: {}, elevated: false, root: "/nonexistent" })); // {}
 * ```
 */
export function settingsDevices(env: EnvironmentSnapshot): { deviceConfigurations?: DeviceConfigurations } {
  const list = deviceConfigurationsOf(readLoaderSettings(env).settings);
  return list === undefined ? {} : { deviceConfigurations: list };
}
