/**
 * The vkdeno testing kit: test Vulkan code in `deno test` with no GPU and no compiler.
 *
 * - {@linkcode MockDriver}: a Vulkan driver defined in TypeScript, handed to `Vulkan.load({ drivers })` or
 *   found by discovery ({@linkcode mockEnvironment}, `MockDriver.writeManifest`); enough behaviour for an
 *   application to run to completion; faults (`fail`, `loseDevice`), overrides and a call log.
 * - {@linkcode profileDevice}: a mock device from a Khronos Vulkan Profiles JSON file (read it with
 *   {@linkcode loadProfileFile}; {@linkcode readProfile} lists what was taken and skipped); {@linkcode PROFILES}
 *   holds three written for tests (a ray-tracing desktop GPU, a mobile GPU, a Vulkan 1.0 device).
 *   `mock.devices[i].describe()` says which values came from the profile and which the kit made up.
 * - {@linkcode MockPresentation} (`mock.presentation`): headless surfaces and swapchains whose presented frames
 *   a test reads as RGBA, out-of-date and suboptimal on demand, query results.
 *
 * @example A device picked from two profiles
 * ```ts
 * import { Vulkan } from "@vkdeno/loader";
 * import { MockDriver, mockEnvironment, profileDevice, PROFILES } from "@vkdeno/loader/testing";
 * using mock = new MockDriver({ devices: [profileDevice(PROFILES.mobile), profileDevice(PROFILES.desktopRayTracing)] });
 * using isolated = mockEnvironment();
 * using vk = Vulkan.load({ drivers: [mock], env: isolated.env });
 * console.log(mock.devices.map((d) => d.name)); // ["vkdeno mobile GPU", "vkdeno desktop RT GPU"]
 * ```
 *
 * @module
 */
export type { Decoded } from "../layers/decode.ts";
export type { DriverEntryPoint } from "../loading/direct_driver.ts";
export type { EnvironmentSnapshot } from "../discovery/environment.ts";
export {
  type MockCall,
  type MockCallRecord,
  type MockCommandName,
  MockDriver,
  type MockDriverOptions,
  type MockFault,
  type MockFaultOptions,
  type MockLiveObject,
} from "./driver.ts";
export {
  type MockDeviceDescription,
  MockDeviceModel,
  type MockDeviceOptions,
  type MockDeviceType,
  type MockDeviceValue,
  type MockFormatProperties,
  type MockMemoryHeap,
  type MockMemoryType,
  type MockQueueFamily,
  type MockStructs,
  type MockStructValue,
} from "./device.ts";
export {
  loadProfileFile,
  parseProfile,
  type ProfileCapabilities,
  profileDevice,
  type ProfileDeviceOptions,
  type ProfileEntry,
  type ProfileMember,
  type ProfileReading,
  PROFILES,
  type ProfilesFile,
  type ProfileSkip,
  readProfile,
} from "./profiles.ts";
export { type MockFrame, MockPresentation } from "./presentation.ts";
export {
  emitMockLibrary,
  type MockEntryPoints,
  type MockManifest,
  type MockManifestOptions,
} from "./manifest.ts";
export { type MockEnvironment, mockEnvironment, type MockEnvironmentOptions } from "./environment.ts";
