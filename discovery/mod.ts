/**
 * vkdeno's discovery as plain data, for tools that inspect a system's Vulkan setup: which driver and
 * layer manifests an environment snapshot finds, what each says, which are used or skipped and why, the
 * loader settings file, and the inspect report (`deno task inspect`). Nothing here loads a library.
 *
 * @example Drivers an empty environment finds
 * ```ts
 * import { discoverDrivers } from "@vkdeno/loader/discovery";
 * const found = discoverDrivers({ vars: {}, elevated: false, root: "/nonexistent" });
 * console.log(found.drivers.length); // 0
 * ```
 *
 * @module
 */
export type { EnvironmentSnapshot } from "./environment.ts";
export { snapshotProcessEnvironment } from "./environment.ts";
export type { DiscoveryOs } from "./platforms.ts";
export type {
  RegistryHive,
  RegistryReader,
  RegistryTree,
  RegistryTreeValue,
  RegistryValue,
} from "../ffi/registry.ts";
export { registryFromTree } from "../ffi/registry.ts";
export type {
  DiscoverDriversOptions,
  DiscoveredDriver,
  DiscoveryMessage,
  DriverCandidate,
  DriverDiscovery,
  DriverOrigin,
  DriverSkipKind,
} from "./drivers.ts";
export type { DriverManifest, LibraryPathKind } from "./driver_manifest.ts";
export type { DriverPackage } from "./packages.ts";
export type { LocationReport, LocationStatus, SearchLocation } from "./search_paths.ts";
export type {
  LayerEnvironmentVariable,
  LayerExtension,
  LayerFunctionNames,
  LayerManifest,
  LayerMessage,
} from "./layer_manifest.ts";
export { discoverDrivers } from "./drivers.ts";
export type {
  DiscoverLayersOptions,
  LayerCandidate,
  LayerCandidateStatus,
  LayerDiscovery,
} from "./layers.ts";
export { discoverLayers } from "./layers.ts";
export type { LayerProperties } from "./layer_properties.ts";
export { enumerateInstanceLayerProperties } from "./layer_properties.ts";
export type {
  DeviceConfigurations,
  LoaderSettings,
  SettingsDeviceConfiguration,
  SettingsFileResult,
  SettingsLayer,
  SettingsLayerControl,
  SettingsLocation,
  SettingsMessage,
} from "./settings_file.ts";
export { readLoaderSettings } from "./settings_file.ts";
export type { SettingsLayerCombination, SettingsLayerOutcome } from "./settings_layers.ts";
export type { DiscoveryChange, DiscoveryChangeKind, DiscoveryWatchOptions } from "./watch.ts";
export { DiscoveryWatcher } from "./watch.ts";
export type {
  InspectEntry,
  InspectLocation,
  InspectOptions,
  InspectReport,
  InspectSection,
  InspectValue,
} from "./inspect.ts";
export { buildInspectReport, formatInspectReport } from "./inspect.ts";
