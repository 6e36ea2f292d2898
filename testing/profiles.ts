/**
 * Mock devices from Khronos Vulkan Profiles JSON ({@linkcode profileDevice}; how fields map: docs/testing.md),
 * and three profiles written for tests ({@linkcode PROFILES}).
 *
 * @module
 */
import type {
  MockDeviceOptions,
  MockFormatProperties,
  MockQueueFamily,
  MockStructs,
  MockStructValue,
} from "./device.ts";
import { layoutOf } from "../ffi/_struct_layout.ts";
import desktopRayTracing from "./profiles/desktop_ray_tracing.json" with { type: "json" };
import mobile from "./profiles/mobile.json" with { type: "json" };
import vulkan10 from "./profiles/vulkan10.json" with { type: "json" };

/** One capability set of a profiles file. */
export interface ProfileCapabilities {
  /** Extension name -> spec version. */
  readonly extensions?: { readonly [name: string]: number };
  /** Feature struct name -> members. */
  readonly features?: MockStructs;
  /** Property struct name -> members. */
  readonly properties?: MockStructs;
  /** Format name -> `{ VkFormatProperties: {...} }`. */
  readonly formats?: { readonly [format: string]: { readonly [struct: string]: MockFormatProperties } };
  /** Queue families, each `{ VkQueueFamilyProperties: {...} }`. */
  readonly queueFamiliesProperties?: readonly { readonly [struct: string]: MockStructValue }[];
}

/** One profile: its version, Vulkan version and the capability sets it takes (an inner list: alternatives, the first used). */
export interface ProfileEntry {
  /** The profile's own version. */
  readonly version?: number;
  /** The Vulkan version it needs (`"1.3.250"`): the mock device's `apiVersion`. */
  readonly "api-version": string;
  /** A short name; the device's name when its properties give none. */
  readonly label?: string;
  /** What the profile stands for. */
  readonly description?: string;
  /** Capability set names, merged in order (a list inside: alternatives, the first is used). */
  readonly capabilities: readonly (string | readonly string[])[];
}

/** A Vulkan Profiles JSON document. */
export interface ProfilesFile {
  /** The schema's URL. */
  readonly $schema?: string;
  /** Capability sets by name. */
  readonly capabilities: { readonly [name: string]: ProfileCapabilities };
  /** Profiles by name (`VP_...`). */
  readonly profiles: { readonly [name: string]: ProfileEntry };
}

/** Options of {@linkcode profileDevice}: which profile, and device fields to set over it. */
export interface ProfileDeviceOptions extends MockDeviceOptions {
  /** The profile's name (default: the file's only profile). */
  readonly profile?: string;
}

function parseVersion(text: string, where: string): number {
  const m = /^(\d+)\.(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) throw new TypeError(`Invalid profile: ${where} "${text}" is not a version like "1.3.250"`);
  return ((Number(m[1]) << 22) | (Number(m[2]) << 12) | Number(m[3] ?? 0)) >>> 0;
}

function mergeStructs(into: Record<string, Record<string, unknown>>, from: MockStructs | undefined): void {
  for (const [name, members] of Object.entries(from ?? {})) {
    const target = into[name] ??= {};
    for (const [k, v] of Object.entries(members)) {
      const old = target[k];
      target[k] = old !== null && typeof old === "object" && !Array.isArray(old) && typeof v === "object" &&
          v !== null && !Array.isArray(v)
        ? { ...old, ...v }
        : v;
    }
  }
}

/**
 * The mock device a profile describes: its capability sets merged in order (extensions and features
 * added up, later properties over earlier ones), `api-version` as the device's version. The profile's
 * `VkPhysicalDeviceFeatures` is exact (unlisted members are unsupported); formats are exactly the listed
 * ones when it lists any. Memory is the default unless `VkPhysicalDeviceMemoryProperties` is given among the
 * properties (`memoryHeaps` and `memoryTypes` lists) or in `options`.
 *
 * @example The kit's mobile profile
 * ```ts
 * import { MockDriver, PROFILES, profileDevice } from "@vkdeno/loader/testing";
 * using mock = new MockDriver({ devices: [profileDevice(PROFILES.mobile)] });
 * console.log(mock.devices[0]!.name); // "vkdeno mobile GPU"
 * ```
 * @throws {TypeError} Naming the profile, capability set or field at fault.
 */
export function profileDevice(file: ProfilesFile, options: ProfileDeviceOptions = {}): MockDeviceOptions {
  const names = Object.keys(file.profiles ?? {});
  const profileName = options.profile ?? (names.length === 1 ? names[0]! : undefined);
  if (profileName === undefined) {
    throw new TypeError(
      `Invalid profile choice: the file has ${names.length} profiles (${
        names.join(", ")
      }); name one with "profile"`,
    );
  }
  const profile = file.profiles[profileName];
  if (!profile) {
    throw new TypeError(`Invalid profile choice: "${profileName}" is not among ${names.join(", ")}`);
  }
  const apiVersion = parseVersion(profile["api-version"], `profile "${profileName}" api-version`);
  const extensions = new Map<string, number>();
  const features: Record<string, Record<string, unknown>> = {};
  const properties: Record<string, Record<string, unknown>> = {};
  const formats: Record<string, MockFormatProperties> = {};
  let queueFamilies: MockQueueFamily[] | undefined;
  for (const entry of profile.capabilities) {
    const capName = typeof entry === "string" ? entry : entry[0]!;
    const cap = file.capabilities[capName];
    if (!cap) {
      throw new TypeError(`Invalid profile "${profileName}": capability set "${capName}" is not defined`);
    }
    for (const [name, version] of Object.entries(cap.extensions ?? {})) extensions.set(name, version);
    mergeStructs(features, cap.features);
    mergeStructs(properties, cap.properties);
    for (const [format, structs] of Object.entries(cap.formats ?? {})) {
      const f = structs.VkFormatProperties ?? structs.VkFormatProperties3 ?? structs.VkFormatProperties3KHR;
      if (f) formats[format] = f;
    }
    if (cap.queueFamiliesProperties?.length) {
      queueFamilies = cap.queueFamiliesProperties.map((q, i) => {
        const v = (q.VkQueueFamilyProperties ??
          (q.VkQueueFamilyProperties2 as MockStructValue | undefined)?.queueFamilyProperties ??
          (q.VkQueueFamilyProperties2KHR as MockStructValue | undefined)?.queueFamilyProperties) as
            | MockStructValue
            | undefined;
        if (!v) {
          throw new TypeError(
            `Invalid profile "${profileName}": queueFamiliesProperties[${i}] of "${capName}" has no VkQueueFamilyProperties`,
          );
        }
        // The other structs of the entry (VkQueueFamilyGlobalPriorityPropertiesKHR, ...) extend the family.
        const chain = Object.fromEntries(
          Object.entries(q).filter(([name]) => !/^VkQueueFamilyProperties(2(KHR)?)?$/.test(name)),
        );
        return {
          queueFlags: v.queueFlags as number | string[],
          queueCount: (v.queueCount as number | undefined) ?? 1,
          timestampValidBits: (v.timestampValidBits as number | undefined) ?? 64,
          ...Object.keys(chain).length ? { chain } : {},
        };
      });
    }
  }
  // The profile's core features are exact: every member it does not list is unsupported.
  const core: Record<string, unknown> = {};
  for (const m of layoutOf("VkPhysicalDeviceFeatures").members) core[m.name] = false;
  features.VkPhysicalDeviceFeatures = { ...core, ...features.VkPhysicalDeviceFeatures };
  const memory = properties.VkPhysicalDeviceMemoryProperties as
    | { memoryHeaps?: MockDeviceOptions["memoryHeaps"]; memoryTypes?: MockDeviceOptions["memoryTypes"] }
    | undefined;
  delete properties.VkPhysicalDeviceMemoryProperties;
  const { profile: _profile, ...overrides } = options;
  const device: MockDeviceOptions = {
    name: (properties.VkPhysicalDeviceProperties?.deviceName as string | undefined) ?? profile.label ??
      profileName,
    apiVersion,
    extensions: [...extensions].map(([name, specVersion]) => ({ name, specVersion })),
    features,
    properties,
    ...(queueFamilies ? { queueFamilies } : {}),
    ...(memory?.memoryHeaps ? { memoryHeaps: memory.memoryHeaps } : {}),
    ...(memory?.memoryTypes ? { memoryTypes: memory.memoryTypes } : {}),
    ...(Object.keys(formats).length > 0 ? { formats, onlyListedFormats: true } : {}),
    ...overrides,
  };
  return device;
}

/**
 * Profiles written for tests, in the Vulkan Profiles format:
 * - `desktopRayTracing`: a Vulkan 1.3 discrete GPU with ray tracing (`VK_KHR_ray_tracing_pipeline`,
 *   `VK_KHR_acceleration_structure`, buffer device address), 8 GiB of device-local memory;
 * - `mobile`: a small Vulkan 1.1 integrated GPU: no geometry shader, one 256 MiB heap shared with the host;
 * - `vulkan10`: a Vulkan 1.0 device with no extensions (`vkGetPhysicalDeviceFeatures2` is not there).
 *
 * @example Usage
 * ```ts
 * import { PROFILES } from "@vkdeno/loader/testing";
 * console.log(Object.keys(PROFILES.desktopRayTracing.profiles)); // ["VP_VKDENO_desktop_ray_tracing"]
 * ```
 */
export const PROFILES: {
  readonly desktopRayTracing: ProfilesFile;
  readonly mobile: ProfilesFile;
  readonly vulkan10: ProfilesFile;
} = {
  desktopRayTracing: desktopRayTracing as ProfilesFile,
  mobile: mobile as ProfilesFile,
  vulkan10: vulkan10 as ProfilesFile,
};
