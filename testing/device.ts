/**
 * What a mock physical device reports: {@linkcode MockDeviceOptions} (plain data, in the vocabulary of
 * Vulkan structs and of Khronos Vulkan Profiles) and {@linkcode MockDeviceModel}, which fills the
 * application's output structs (properties, features, queue families, memory, formats) from it.
 *
 * @module
 */
import { Arena, readPointer, readU32, writeU32 } from "../ffi/memory.ts";
import { writeStruct } from "../vk/struct_write.ts";
import { findLayout, layoutOf } from "../vk/struct_layout.ts";
import { ENUM_TYPES, ENUMS } from "../vk/generated/enums.ts";
import { STRUCT_ALIASES, STRUCT_BY_STYPE } from "../vk/generated/structs.ts";
import type { StructLayout } from "../vk/struct_layout.ts";
import { type MemberProblem, structMembers } from "./values.ts";

/** A struct's members as plain values: numbers, booleans, bigints, strings, arrays, nested structs. */
export type MockStructValue = { readonly [member: string]: unknown };

/**
 * Structs by their Vulkan name, each with the members it sets (`{ VkPhysicalDeviceFeatures: {
 * samplerAnisotropy: true }, VkPhysicalDeviceVulkan12Features: { bufferDeviceAddress: true } }`). Enum and
 * flag members take numbers or their names (`"VK_QUEUE_GRAPHICS_BIT"`, or a list of bit names), as profiles
 * write them.
 */
export type MockStructs = { readonly [struct: string]: MockStructValue };

/** A `VkPhysicalDeviceType` by its short name. */
export type MockDeviceType = "discrete-gpu" | "integrated-gpu" | "virtual-gpu" | "cpu" | "other";

/** One queue family of a mock device. */
export interface MockQueueFamily {
  /** `VkQueueFlags` (a number, a number string, or bit names). */
  readonly queueFlags: number | string | readonly string[];
  /** Queues in the family (default 1). */
  readonly queueCount?: number;
  /** `timestampValidBits` (default 64). */
  readonly timestampValidBits?: number;
  /** `minImageTransferGranularity` (default 1 x 1 x 1). */
  readonly minImageTransferGranularity?: {
    readonly width?: number;
    readonly height?: number;
    readonly depth?: number;
  };
  /**
   * Structs the family reports in the pNext chain of its `VkQueueFamilyProperties2`, by name, each with
   * the members it sets (`{ VkQueueFamilyGlobalPriorityProperties: { priorityCount: 1, priorities:
   * ["VK_QUEUE_GLOBAL_PRIORITY_MEDIUM"] } }`); a chained struct not listed keeps its zeroes.
   */
  readonly chain?: MockStructs;
}

/** One memory heap: its size in bytes and `VkMemoryHeapFlags`. */
export interface MockMemoryHeap {
  /** Bytes. */
  readonly size: bigint | number;
  /** `VkMemoryHeapFlags` (1: device-local). */
  readonly flags?: number;
}

/** One memory type: its heap and `VkMemoryPropertyFlags`. */
export interface MockMemoryType {
  /** The heap it takes memory from. */
  readonly heapIndex: number;
  /** `VkMemoryPropertyFlags` (1 device-local, 2 host-visible, 4 host-coherent, 8 host-cached). */
  readonly propertyFlags: number;
}

/**
 * A format's `VkFormatProperties` (numbers, number strings, or lists of `VkFormatFeatureFlagBits` names), and
 * its `VkFormatProperties3` when that says more (64-bit features; by default the same bits).
 */
export interface MockFormatProperties {
  /** Features with linear tiling. */
  readonly linearTilingFeatures?: number | string | readonly string[];
  /** Features with optimal tiling. */
  readonly optimalTilingFeatures?: number | string | readonly string[];
  /** Features in texel and vertex buffers. */
  readonly bufferFeatures?: number | string | readonly string[];
  /**
   * `VkFormatProperties3` (bigints, or `VK_FORMAT_FEATURE_2_` names); when only this is given,
   * `VkFormatProperties` reads its low 32 bits.
   */
  readonly properties3?: {
    readonly linearTilingFeatures?: bigint | number | string | readonly string[];
    readonly optimalTilingFeatures?: bigint | number | string | readonly string[];
    readonly bufferFeatures?: bigint | number | string | readonly string[];
  };
}

/**
 * A mock physical device. Every field has a default: a Vulkan 1.3 discrete GPU named "vkdeno mock GPU"
 * with one graphics+compute+transfer queue family, a 256 MiB device-local heap and a 256 MiB host-visible
 * heap, and the common color and depth formats.
 *
 * @example A small GPU without geometry shaders
 * ```ts
 * import type { MockDeviceOptions } from "@vkdeno/loader/testing";
 * const small: MockDeviceOptions = {
 *   name: "Tiny GPU",
 *   type: "integrated-gpu",
 *   features: { VkPhysicalDeviceFeatures: { geometryShader: false } },
 *   memoryHeaps: [{ size: 64n << 20n, flags: 1 }],
 *   memoryTypes: [{ heapIndex: 0, propertyFlags: 0x7 }],
 * };
 * ```
 */
export interface MockDeviceOptions {
  /** Where these options came from, for {@linkcode MockDeviceModel.describe} (`profileDevice` names the profile). */
  readonly source?: string;
  /** `deviceName`. */
  readonly name?: string;
  /** `deviceType` (default: the properties' `deviceType`, else `"discrete-gpu"`). */
  readonly type?: MockDeviceType;
  /** `vendorID` (default 0x10005, `VK_VENDOR_ID_MESA` style for a made-up vendor). */
  readonly vendorID?: number;
  /** `deviceID`. */
  readonly deviceID?: number;
  /** `apiVersion` the device supports (default Vulkan 1.3). */
  readonly apiVersion?: number;
  /** `driverVersion`. */
  readonly driverVersion?: number;
  /** Device extensions, by name (spec version 1) or with their spec version. */
  readonly extensions?: readonly (string | { readonly name: string; readonly specVersion: number })[];
  /**
   * Supported features, by struct (`VkPhysicalDeviceFeatures`, `VkPhysicalDeviceVulkan12Features`, any
   * `pNext` feature struct). A struct the application chains that is not listed here reads its members from
   * the listed structs that have members of the same names (so `VkPhysicalDeviceBufferDeviceAddressFeatures`
   * answers from `VkPhysicalDeviceVulkan12Features`), else false.
   */
  readonly features?: MockStructs;
  /** Properties by struct: `VkPhysicalDeviceProperties` (with `limits`) and any `pNext` property struct. */
  readonly properties?: MockStructs;
  /** Queue families (default one with graphics, compute and transfer). */
  readonly queueFamilies?: readonly MockQueueFamily[];
  /**
   * Memory heaps (default 256 MiB device-local and 256 MiB host; for an integrated GPU or a CPU one 256 MiB
   * device-local heap shared with the host).
   */
  readonly memoryHeaps?: readonly MockMemoryHeap[];
  /**
   * Memory types (default device-local on heap 0, host-visible coherent cached on heap 1; for an integrated
   * GPU or a CPU device-local host-visible coherent, and that cached, both on heap 0).
   */
  readonly memoryTypes?: readonly MockMemoryType[];
  /**
   * Format properties by format name (`"VK_FORMAT_R8G8B8A8_UNORM"`). Listed formats replace the defaults;
   * with `onlyListedFormats`, every other format has no features.
   */
  readonly formats?: { readonly [format: string]: MockFormatProperties };
  /** Only `formats` have features (a profile's formats are exact). */
  readonly onlyListedFormats?: boolean;
}

const DEVICE_TYPES: Record<MockDeviceType, number> = {
  "other": 0,
  "integrated-gpu": 1,
  "discrete-gpu": 2,
  "virtual-gpu": 3,
  "cpu": 4,
};

/**
 * Memory where the options give none: one heap shared with the host for an integrated GPU or a CPU
 * (unified memory), else a device-local heap and a host heap.
 */
function defaultMemory(deviceType: number): { heaps: MockMemoryHeap[]; types: MockMemoryType[] } {
  if (deviceType === DEVICE_TYPES["integrated-gpu"] || deviceType === DEVICE_TYPES.cpu) {
    return {
      heaps: [{ size: 256n << 20n, flags: 1 }],
      types: [{ heapIndex: 0, propertyFlags: 0x1 | 0x2 | 0x4 }, {
        heapIndex: 0,
        propertyFlags: 0x1 | 0x2 | 0x4 | 0x8,
      }],
    };
  }
  return {
    heaps: [{ size: 256n << 20n, flags: 1 }, { size: 256n << 20n }],
    types: [{ heapIndex: 0, propertyFlags: 0x1 }, { heapIndex: 1, propertyFlags: 0x2 | 0x4 | 0x8 }],
  };
}

/** One value {@linkcode MockDeviceModel.describe} lists: the value and where it came from. */
export interface MockDeviceValue {
  /** What the device reports. */
  readonly value: unknown;
  /** `given` (options or profile), `implied` (derived from what was given) or `default` (made up by the kit). */
  readonly from: "given" | "implied" | "default";
}

/** What {@linkcode MockDeviceModel.describe} returns. */
export interface MockDeviceDescription {
  /** Where the options came from: `"options"`, or the profile (`profile "VP_x"`). */
  readonly source: string;
  /** Identity, memory, queues, formats (their count) and driver, each with where it came from. */
  readonly values: {
    readonly [
      K in
        | "deviceName"
        | "deviceType"
        | "vendorID"
        | "deviceID"
        | "driverVersion"
        | "apiVersion"
        | "memoryHeaps"
        | "memoryTypes"
        | "queueFamilies"
        | "formats"
        | "driverID"
        | "driverName"
    ]: MockDeviceValue;
  };
  /** `VkPhysicalDeviceLimits` members the kit fills with a desktop-class value because the options do not. */
  readonly defaultLimits: readonly string[];
  /** `VkPhysicalDeviceFeatures` members the kit reports supported because the options do not say. */
  readonly defaultFeatures: readonly string[];
}

/** Limits a working desktop-class device reports; the rest are 0 unless set. */
const DEFAULT_LIMITS: MockStructValue = {
  maxImageDimension1D: 16384,
  maxImageDimension2D: 16384,
  maxImageDimension3D: 2048,
  maxImageDimensionCube: 16384,
  maxImageArrayLayers: 2048,
  maxTexelBufferElements: 1 << 27,
  maxUniformBufferRange: 65536,
  maxStorageBufferRange: 0x7fffffff,
  maxPushConstantsSize: 256,
  maxMemoryAllocationCount: 4096,
  maxSamplerAllocationCount: 4000,
  bufferImageGranularity: 1024n,
  maxBoundDescriptorSets: 8,
  maxPerStageDescriptorSamplers: 16,
  maxPerStageDescriptorUniformBuffers: 15,
  maxPerStageDescriptorStorageBuffers: 16,
  maxPerStageDescriptorSampledImages: 128,
  maxPerStageDescriptorStorageImages: 8,
  maxPerStageResources: 200,
  maxDescriptorSetSamplers: 80,
  maxDescriptorSetUniformBuffers: 90,
  maxDescriptorSetStorageBuffers: 96,
  maxDescriptorSetSampledImages: 256,
  maxDescriptorSetStorageImages: 48,
  maxVertexInputAttributes: 32,
  maxVertexInputBindings: 32,
  maxVertexOutputComponents: 128,
  maxFragmentOutputAttachments: 8,
  maxComputeSharedMemorySize: 32768,
  maxComputeWorkGroupCount: [65535, 65535, 65535],
  maxComputeWorkGroupInvocations: 1024,
  maxComputeWorkGroupSize: [1024, 1024, 64],
  maxSamplerAnisotropy: 16,
  maxViewports: 16,
  maxViewportDimensions: [16384, 16384],
  viewportBoundsRange: [-32768, 32767],
  minMemoryMapAlignment: 64n,
  minTexelBufferOffsetAlignment: 16n,
  minUniformBufferOffsetAlignment: 64n,
  minStorageBufferOffsetAlignment: 16n,
  maxFramebufferWidth: 16384,
  maxFramebufferHeight: 16384,
  maxFramebufferLayers: 1024,
  framebufferColorSampleCounts: 0xf,
  framebufferDepthSampleCounts: 0xf,
  sampledImageColorSampleCounts: 0xf,
  sampledImageDepthSampleCounts: 0xf,
  maxColorAttachments: 8,
  timestampComputeAndGraphics: 1,
  timestampPeriod: 1,
  maxClipDistances: 8,
  maxCullDistances: 8,
  discreteQueuePriorities: 2,
  lineWidthRange: [1, 1],
  pointSizeRange: [1, 64],
  optimalBufferCopyOffsetAlignment: 128n,
  optimalBufferCopyRowPitchAlignment: 128n,
  nonCoherentAtomSize: 64n,
};

const DEFAULT_FEATURES: MockStructValue = {
  robustBufferAccess: true,
  fullDrawIndexUint32: true,
  imageCubeArray: true,
  independentBlend: true,
  geometryShader: true,
  tessellationShader: true,
  sampleRateShading: true,
  multiDrawIndirect: true,
  depthClamp: true,
  fillModeNonSolid: true,
  samplerAnisotropy: true,
  textureCompressionBC: true,
  shaderInt64: true,
  shaderFloat64: true,
};

const COLOR = ["VK_FORMAT_R8G8B8A8_UNORM", "VK_FORMAT_R8G8B8A8_SRGB", "VK_FORMAT_B8G8R8A8_UNORM"]
  .concat(["VK_FORMAT_B8G8R8A8_SRGB", "VK_FORMAT_R16G16B16A16_SFLOAT", "VK_FORMAT_R32G32B32A32_SFLOAT"])
  .concat(["VK_FORMAT_R32_SFLOAT", "VK_FORMAT_R32_UINT", "VK_FORMAT_R8_UNORM", "VK_FORMAT_R32G32_SFLOAT"]);
const DEPTH = ["VK_FORMAT_D32_SFLOAT", "VK_FORMAT_D24_UNORM_S8_UINT", "VK_FORMAT_D16_UNORM"];
// SAMPLED_IMAGE | STORAGE_IMAGE | COLOR_ATTACHMENT | COLOR_ATTACHMENT_BLEND | BLIT_SRC | BLIT_DST |
// SAMPLED_IMAGE_FILTER_LINEAR | TRANSFER_SRC | TRANSFER_DST
const COLOR_FEATURES = 0x1n | 0x2n | 0x80n | 0x100n | 0x400n | 0x800n | 0x1000n | 0x4000n | 0x8000n;
// SAMPLED_IMAGE | DEPTH_STENCIL_ATTACHMENT | BLIT_SRC | TRANSFER_SRC | TRANSFER_DST
const DEPTH_FEATURES = 0x1n | 0x200n | 0x400n | 0x4000n | 0x8000n;
// UNIFORM_TEXEL_BUFFER | STORAGE_TEXEL_BUFFER | VERTEX_BUFFER
const BUFFER_FEATURES = 0x8n | 0x10n | 0x40n;

/** `value` converted for struct `name`; the first member that cannot be represented throws. */
function normalise(
  name: string,
  layout: StructLayout,
  value: MockStructValue,
  what: string,
): MockStructValue {
  const problems: MemberProblem[] = [];
  const out = structMembers(layout, name, value as Record<string, unknown>, problems);
  const p = problems[0];
  if (p) {
    throw new TypeError(
      `Invalid mock device: ${what} ${name}.${p.member}${p.reason.startsWith("is ") ? " " : ": "}${p.reason}`,
    );
  }
  return out;
}

function canonical(name: string): string {
  return STRUCT_ALIASES[name] ?? name;
}

function normaliseAll(structs: MockStructs | undefined, what: string): Map<string, MockStructValue> {
  const out = new Map<string, MockStructValue>();
  for (const [name, value] of Object.entries(structs ?? {})) {
    const layout = findLayout(canonical(name));
    if (!layout) throw new TypeError(`Invalid mock device: ${what} struct "${name}" is not a Vulkan struct`);
    out.set(canonical(name), normalise(name, layout, value, what));
  }
  return out;
}

const FEATURES = "VkPhysicalDeviceFeatures";
const FORMAT_MEMBERS = ["linearTilingFeatures", "optimalTilingFeatures", "bufferFeatures"] as const;
type Triple = [bigint, bigint, bigint];
const FAMILY = "VkQueueFamilyProperties";
/** Property structs answered with defaults when the options do not list them. */
const ANSWERED = new Set(["VkPhysicalDeviceDriverProperties", "VkPhysicalDeviceIDProperties"]);
const PROPERTIES = "VkPhysicalDeviceProperties";

/** Struct `name` with `value` written, as bytes after `sType`/`pNext`. */
function bodyImage(name: string, value: MockStructValue): Uint8Array {
  const layout = layoutOf(name);
  using arena = new Arena();
  const p = writeStruct(arena, name as string, value);
  return new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(p, layout.size)).slice(bodyStart(layout));
}

/** The byte offset past `sType` and `pNext` for a chainable struct (those two stay the caller's). */
function bodyStart(layout: StructLayout): number {
  return layout.members[0]?.name === "sType" && layout.members[1]?.name === "pNext" ? 16 : 0;
}

/**
 * A mock device's answers: byte images of its structs, written into the application's memory.
 *
 * @example Usage
 * ```ts ignore
 * const model = new MockDeviceModel({ name: "Tiny GPU" });
 * model.writeStruct("VkPhysicalDeviceProperties", pProperties);
 * ```
 */
export class MockDeviceModel {
  /** The options it was made from. */
  readonly options: MockDeviceOptions;
  /** `apiVersion`. */
  readonly apiVersion: number;
  /** Device extensions with spec versions. */
  readonly extensions: readonly { readonly name: string; readonly specVersion: number }[];
  /** Queue families as `VkQueueFamilyProperties` values. */
  readonly queueFamilies: readonly {
    queueFlags: number;
    queueCount: number;
    timestampValidBits: number;
    minImageTransferGranularity: { width: number; height: number; depth: number };
  }[];
  /** Heaps: size and flags. */
  readonly memoryHeaps: readonly { size: bigint; flags: number }[];
  /** Memory types. */
  readonly memoryTypes: readonly MockMemoryType[];
  readonly #features: Map<string, MockStructValue>;
  readonly #properties: Map<string, MockStructValue>;
  /** Per format: linear, optimal and buffer features of `VkFormatProperties` and of `VkFormatProperties3`. */
  readonly #formats = new Map<number, [Triple, Triple]>();
  readonly #images = new Map<string, Uint8Array>();
  /** Per queue family: its chain structs' bytes after `sType`/`pNext`, by canonical name. */
  readonly #familyChains: readonly Map<string, Uint8Array>[];

  /** A model of `options`, checked: a name that is no Vulkan struct, member or enum throws. */
  constructor(options: MockDeviceOptions = {}) {
    this.options = options;
    this.apiVersion = options.apiVersion ?? ((1 << 22) | (3 << 12));
    this.extensions = (options.extensions ?? []).map((e) =>
      typeof e === "string" ? { name: e, specVersion: 1 } : e
    );
    this.queueFamilies = (options.queueFamilies ?? [{ queueFlags: 0x7 }]).map((f, i) => {
      const { chain: _chain, ...own } = f;
      const v = normalise(FAMILY, layoutOf(FAMILY), own, `queueFamilies[${i}]`);
      return {
        queueFlags: v.queueFlags as number,
        queueCount: (v.queueCount as number | undefined) ?? 1,
        timestampValidBits: (v.timestampValidBits as number | undefined) ?? 64,
        minImageTransferGranularity: {
          width: 1,
          height: 1,
          depth: 1,
          ...v.minImageTransferGranularity as object,
        },
      };
    });
    this.#familyChains = (options.queueFamilies ?? []).map((f, i) => {
      const images = new Map<string, Uint8Array>();
      for (const [name, value] of normaliseAll(f.chain, `queueFamilies[${i}].chain`)) {
        if (!layoutOf(name).extends?.includes("VkQueueFamilyProperties2")) {
          throw new TypeError(
            `Invalid mock device: queueFamilies[${i}].chain struct "${name}" does not extend "VkQueueFamilyProperties2"`,
          );
        }
        images.set(name, bodyImage(name, value));
      }
      return images;
    });
    this.#features = normaliseAll(options.features, "feature");
    this.#properties = normaliseAll(options.properties, "property");
    const memory = defaultMemory(this.deviceType);
    this.memoryHeaps = (options.memoryHeaps ?? memory.heaps).map((h) => ({
      size: BigInt(h.size),
      flags: h.flags ?? 0,
    }));
    this.memoryTypes = options.memoryTypes ?? memory.types;
    for (const t of this.memoryTypes) {
      if (t.heapIndex >= this.memoryHeaps.length) {
        throw new TypeError(`Invalid mock device: memory type heapIndex ${t.heapIndex} has no heap`);
      }
    }
    if (!options.onlyListedFormats) {
      for (const f of COLOR) {
        const t: Triple = [0x1n | 0x4000n | 0x8000n, COLOR_FEATURES, BUFFER_FEATURES];
        this.#formats.set(ENUMS[f]!, [t, t]);
      }
      for (const f of DEPTH) {
        this.#formats.set(ENUMS[f]!, [[0n, DEPTH_FEATURES, 0n], [0n, DEPTH_FEATURES, 0n]]);
      }
    }
    for (const [name, f] of Object.entries(options.formats ?? {})) {
      const format = ENUMS[name];
      if (format === undefined || !name.startsWith("VK_FORMAT_")) {
        throw new TypeError(`Invalid mock device: format "${name}" is not a VkFormat name`);
      }
      const { properties3, ...own } = f;
      const v3 = properties3 &&
        normalise("VkFormatProperties3", layoutOf("VkFormatProperties3"), properties3, `format ${name}`);
      const v = Object.keys(own).length || !v3
        ? normalise("VkFormatProperties", layoutOf("VkFormatProperties"), own, `format ${name}`)
        : undefined;
      const triple = (x: MockStructValue) =>
        FORMAT_MEMBERS.map((k) => BigInt((x[k] as number | bigint | undefined) ?? 0)) as Triple;
      const wide = v3 ? triple(v3) : triple(v!);
      this.#formats.set(format, [v ? triple(v) : wide.map((b) => b & 0xffff_ffffn) as Triple, wide]);
    }
    // Every struct the device reports is written once here, so a value that cannot be written throws now,
    // not in the middle of an application's vkGetPhysicalDevice*2 call.
    for (
      const name of new Set([PROPERTIES, FEATURES, ...this.#features.keys(), ...this.#properties.keys()])
    ) {
      this.#image(name);
    }
  }

  /** `deviceType` as a number: the options' `type`, else the properties', else discrete GPU. */
  get deviceType(): number {
    const given = this.#properties.get(PROPERTIES)?.deviceType as number | undefined;
    return this.options.type !== undefined
      ? DEVICE_TYPES[this.options.type]
      : given ?? DEVICE_TYPES["discrete-gpu"];
  }

  /**
   * What the device reports that a test may rely on, each value with where it came from: `given` (the
   * options, or the profile they were read from), `implied` (derived from what was given: unified memory for
   * an integrated GPU or a CPU, the driver's properties from `VkPhysicalDeviceVulkan12Properties`) or
   * `default` (made up by the kit: set it in the options, beside the profile). Limits and core features the
   * options do not give are listed by name in `defaultLimits` and `defaultFeatures`.
   *
   * @example What a profile leaves to the kit
   * ```ts
   * import { MockDriver, PROFILES, profileDevice } from "@vkdeno/loader/testing";
   * using mock = new MockDriver({ devices: [profileDevice(PROFILES.vulkan10)] });
   * const d = mock.devices[0]!.describe();
   * console.log(d.values.deviceType, d.values.memoryHeaps.from);
   * // { value: "VK_PHYSICAL_DEVICE_TYPE_OTHER", from: "given" } "default"
   * ```
   */
  describe(): MockDeviceDescription {
    const o = this.options;
    const given = this.#properties.get(PROPERTIES) ?? {};
    const v12 = this.#properties.get("VkPhysicalDeviceVulkan12Properties") ?? {};
    const props = this.#value(PROPERTIES);
    const from = (option: unknown, member: unknown): MockDeviceValue["from"] =>
      option !== undefined || member !== undefined ? "given" : "default";
    const typeName = ENUM_TYPES.VkPhysicalDeviceType!.values.find((n) => ENUMS[n] === this.deviceType)!;
    const unified = this.deviceType === DEVICE_TYPES["integrated-gpu"] ||
      this.deviceType === DEVICE_TYPES.cpu;
    const memoryFrom = (option: unknown): MockDeviceValue["from"] =>
      option !== undefined ? "given" : unified ? "implied" : "default";
    const driver = this.#value("VkPhysicalDeviceDriverProperties");
    const driverFrom = (k: string): MockDeviceValue["from"] =>
      this.#properties.get("VkPhysicalDeviceDriverProperties")?.[k] !== undefined
        ? "given"
        : v12[k] !== undefined
        ? "implied"
        : "default";
    const limits = (given.limits ?? {}) as MockStructValue;
    const features = this.#features.get(FEATURES) ?? {};
    return {
      source: o.source ?? "options",
      values: {
        deviceName: { value: this.name, from: from(o.name, given.deviceName) },
        deviceType: { value: typeName, from: from(o.type, given.deviceType) },
        vendorID: { value: props.vendorID, from: from(o.vendorID, given.vendorID) },
        deviceID: { value: props.deviceID, from: from(o.deviceID, given.deviceID) },
        driverVersion: { value: props.driverVersion, from: from(o.driverVersion, given.driverVersion) },
        apiVersion: { value: this.apiVersion, from: from(o.apiVersion, given.apiVersion) },
        memoryHeaps: { value: this.memoryHeaps, from: memoryFrom(o.memoryHeaps) },
        memoryTypes: { value: this.memoryTypes, from: memoryFrom(o.memoryTypes) },
        queueFamilies: { value: this.queueFamilies, from: from(o.queueFamilies, undefined) },
        formats: {
          value: [...this.#formats.keys()].length,
          from: o.onlyListedFormats ? "given" : o.formats ? "implied" : "default",
        },
        driverID: { value: driver.driverID, from: driverFrom("driverID") },
        driverName: { value: driver.driverName, from: driverFrom("driverName") },
      },
      defaultLimits: Object.keys(DEFAULT_LIMITS).filter((k) => limits[k] === undefined),
      defaultFeatures: Object.keys(DEFAULT_FEATURES).filter((k) => features[k] === undefined),
    };
  }

  /** `deviceName`. */
  get name(): string {
    return String(this.options.name ?? this.#properties.get(PROPERTIES)?.deviceName ?? "vkdeno mock GPU");
  }

  /** Whether the device offers `extension`. */
  hasExtension(extension: string): boolean {
    return this.extensions.some((e) => e.name === extension);
  }

  /** The struct's value: the options' own members over the defaults (properties) or the other structs (features). */
  #value(name: string): MockStructValue {
    const o = this.options;
    if (name === PROPERTIES) {
      const given = this.#properties.get(PROPERTIES) ?? {};
      // The options' own fields win over the struct's members (a profile's, where the options came from one).
      const explicit: Record<string, unknown> = { apiVersion: this.apiVersion };
      if (o.driverVersion !== undefined) explicit.driverVersion = o.driverVersion;
      if (o.vendorID !== undefined) explicit.vendorID = o.vendorID;
      if (o.deviceID !== undefined) explicit.deviceID = o.deviceID;
      explicit.deviceType = this.deviceType;
      if (o.name !== undefined) explicit.deviceName = o.name;
      return {
        driverVersion: 1,
        vendorID: 0x10005,
        deviceID: 0x1,
        deviceName: "vkdeno mock GPU",
        pipelineCacheUUID: [...new TextEncoder().encode("vkdeno-mock-cach")],
        ...given,
        ...explicit,
        limits: { ...DEFAULT_LIMITS, ...(given.limits as MockStructValue | undefined) },
      };
    }
    if (name === FEATURES) {
      return { ...DEFAULT_FEATURES, ...this.#features.get(FEATURES) };
    }
    const own = this.#features.get(name) ?? this.#properties.get(name);
    if (own) return own;
    // Not listed: members of the same name in the listed structs of its kind (core VulkanNN structs and the
    // extension structs they absorbed share member names; for properties, one side must be a VulkanNN struct).
    const layout = layoutOf(name);
    const out: Record<string, unknown> = {};
    const feature = isFeatureStruct(name);
    const core = (n: string) => /^VkPhysicalDeviceVulkan\d+Properties$/.test(n);
    for (const [other, v] of feature ? this.#features : this.#properties) {
      if (!feature && (other === PROPERTIES || (!core(other) && !core(name)))) continue;
      for (const m of layout.members) {
        if ((!feature || m.type === "VkBool32") && m.name in v && m.name !== "sType" && m.name !== "pNext") {
          out[m.name] = v[m.name];
        }
      }
    }
    if (name === "VkPhysicalDeviceDriverProperties") {
      return { driverID: 0, driverName: "vkdeno mock", driverInfo: `mock device "${this.name}"`, ...out };
    }
    if (name === "VkPhysicalDeviceIDProperties") {
      const uuid = [...new TextEncoder().encode(`mock:${this.name}`.padEnd(16, "\0").slice(0, 16))];
      return { deviceUUID: uuid, driverUUID: [...new TextEncoder().encode("vkdeno-mock-drvr")], ...out };
    }
    return out;
  }

  /**
   * The value of one feature struct as the device reports it (for checking what an application enables).
   *
   * @example Usage
   * ```ts ignore
   * model.featureValue("VkPhysicalDeviceVulkan12Features").bufferDeviceAddress; // 1 or undefined
   * ```
   */
  featureValue(name: string): MockStructValue {
    return this.#value(canonical(name));
  }

  /** Whether the options name the property or feature struct (a chained struct not listed keeps its zeroes). */
  lists(name: string): boolean {
    const n = canonical(name);
    return n === PROPERTIES || n === FEATURES || this.#features.has(n) || this.#properties.has(n);
  }

  /** The struct's bytes after `sType`/`pNext` (cached per struct). */
  #image(name: string): Uint8Array {
    let bytes = this.#images.get(name);
    if (bytes) return bytes;
    bytes = bodyImage(name, this.#value(name));
    this.#images.set(name, bytes);
    return bytes;
  }

  /**
   * Writes struct `name` at `pointer` (keeping a chainable struct's `sType` and `pNext`).
   *
   * @example Usage
   * ```ts ignore
   * model.writeStruct("VkPhysicalDeviceFeatures", pFeatures);
   * ```
   */
  writeStruct(name: string, pointer: Deno.PointerObject): void {
    const n = canonical(name);
    const layout = layoutOf(n);
    const image = this.#image(n);
    new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(pointer, layout.size)).set(image, bodyStart(layout));
  }

  /**
   * Fills a `pNext` chain of output structs: each struct this model knows is written, others are left as
   * the application wrote them. `skip` names structs the caller fills itself.
   */
  writeChain(pNext: Deno.PointerValue, skip: ReadonlySet<string> = new Set()): void {
    for (let p = pNext, guard = 0; p !== null && guard < 256; p = readPointer(p, 8), guard++) {
      const name = STRUCT_BY_STYPE[readU32(p, 0)];
      if (name === undefined || skip.has(name)) continue;
      if (isFeatureStruct(name) || this.lists(name) || ANSWERED.has(name) || isPropertyStruct(name)) {
        this.writeStruct(name, p);
      }
    }
  }

  /** `VkFormatProperties` of `format`: linear, optimal and buffer features. */
  formatFeatures(format: number): readonly [number, number, number] {
    const [l, o, b] = this.#formats.get(format)?.[0] ?? [0n, 0n, 0n];
    return [Number(l), Number(o), Number(b)];
  }

  /** `VkFormatProperties3` of `format`: linear, optimal and buffer features (`VkFormatFeatureFlags2`). */
  formatFeatures2(format: number): readonly [bigint, bigint, bigint] {
    return this.#formats.get(format)?.[1] ?? [0n, 0n, 0n];
  }

  /** Writes `VkQueueFamilyProperties` `index` at `pointer` (24 bytes). */
  writeQueueFamily(index: number, pointer: Deno.PointerObject): void {
    const f = this.queueFamilies[index]!;
    writeU32(pointer, 0, f.queueFlags);
    writeU32(pointer, 4, f.queueCount);
    writeU32(pointer, 8, f.timestampValidBits);
    writeU32(pointer, 12, f.minImageTransferGranularity.width);
    writeU32(pointer, 16, f.minImageTransferGranularity.height);
    writeU32(pointer, 20, f.minImageTransferGranularity.depth);
  }

  /** Fills the structs queue family `index` lists in a `VkQueueFamilyProperties2` pNext chain. */
  writeQueueFamilyChain(index: number, pNext: Deno.PointerValue): void {
    const images = this.#familyChains[index];
    if (!images?.size) return;
    for (let p = pNext, guard = 0; p !== null && guard < 256; p = readPointer(p, 8), guard++) {
      const name = STRUCT_BY_STYPE[readU32(p, 0)];
      const image = name === undefined ? undefined : images.get(canonical(name));
      if (image) {
        new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(p, 16 + image.byteLength)).set(image, 16);
      }
    }
  }
}

/** Whether `name` is a properties struct (extends `VkPhysicalDeviceProperties2`). */
function isPropertyStruct(name: string): boolean {
  return layoutOf(name).extends?.includes("VkPhysicalDeviceProperties2") ?? false;
}

/** Whether `name` is a features struct (extends `VkPhysicalDeviceFeatures2`). */
function isFeatureStruct(name: string): boolean {
  return layoutOf(name).extends?.includes("VkPhysicalDeviceFeatures2") ?? false;
}

/**
 * The features an application asks for that the device lacks: each as `"Struct.member"`, read from a
 * `VkPhysicalDeviceFeatures` and the feature structs of a `VkDeviceCreateInfo` pNext chain.
 *
 * @example Usage
 * ```ts ignore
 * missingFeatures(model, pEnabledFeatures, pNext); // ["VkPhysicalDeviceFeatures.geometryShader"]
 * ```
 */
export function missingFeatures(
  model: MockDeviceModel,
  pEnabledFeatures: Deno.PointerValue,
  pNext: Deno.PointerValue,
): string[] {
  const missing: string[] = [];
  const check = (name: string, p: Deno.PointerObject) => {
    const layout = layoutOf(name);
    const have = model.featureValue(name);
    const view = new Deno.UnsafePointerView(p);
    for (const m of layout.members) {
      if (m.type !== "VkBool32" || m.pointer !== 0) continue;
      if (view.getUint32(m.offset) !== 0 && !have[m.name]) missing.push(`${name}.${m.name}`);
    }
  };
  if (pEnabledFeatures !== null) check(FEATURES, pEnabledFeatures);
  for (let p = pNext, guard = 0; p !== null && guard < 256; p = readPointer(p, 8), guard++) {
    const name = STRUCT_BY_STYPE[readU32(p, 0)];
    if (name === "VkPhysicalDeviceFeatures2") check(FEATURES, Deno.UnsafePointer.offset(p, 16)!);
    else if (name !== undefined && isFeatureStruct(name)) check(name, p);
  }
  return missing;
}
