/**
 * Typed configuration of the mock driver and mock layer, and its text form
 * (the `<library>.conf` file the C mocks read, see `tests/support/mock/mock_icd.c`).
 *
 * @module
 */

import type { MockDriverVariant, MockLayerVariant } from "./mock_build.ts";

/** An extension with an optional spec version (default 1). */
export type MockExtension = string | { readonly name: string; readonly specVersion?: number };

/** One physical device of a mock driver. Every field has a default. */
export interface MockPhysicalDeviceConfig {
  /** `deviceName`; default `Mock Device <index>`. */
  readonly name?: string;
  /** `deviceType`; default `"integrated"`. */
  readonly type?: "integrated" | "discrete" | "virtual" | "cpu" | "other";
  /** `vendorID`; default `0xC0DE`. */
  readonly vendorId?: number;
  /** `deviceID`; default `0x1000 + index`. */
  readonly deviceId?: number;
  /** `apiVersion` as "1.3.0"; default the driver's `apiVersion`. */
  readonly apiVersion?: string;
  /** `driverVersion` as "1.0.0". */
  readonly driverVersion?: string;
  /** `VK_EXT_pci_bus_info` values; when given the device also advertises that extension. */
  readonly pciBus?: {
    readonly domain: number;
    readonly bus: number;
    readonly device: number;
    readonly function: number;
  };
  /** `VkPhysicalDeviceDriverProperties.driverID`; default 13 (`VK_DRIVER_ID_MESA_LLVMPIPE`). */
  readonly driverId?: number;
  /** `driverName`; default "mock_icd". */
  readonly driverName?: string;
  /** `driverInfo`; default "vkdeno mock driver". */
  readonly driverInfo?: string;
  /** `deviceUUID` (and `pipelineCacheUUID`) as 32 hex digits. */
  readonly uuid?: string;
  /** Device extensions; default `VK_KHR_swapchain`. */
  readonly extensions?: readonly MockExtension[];
  /** Queue families; default one graphics+compute+transfer family of 2 queues. */
  readonly queueFamilies?: readonly { readonly flags: number; readonly count: number }[];
  /** Memory types; default device-local (heap 0) and host-visible+coherent (heap 1). */
  readonly memoryTypes?: readonly { readonly propertyFlags: number; readonly heapIndex: number }[];
  /** Memory heaps in MiB; default 256 MiB device-local and 1024 MiB host. */
  readonly memoryHeaps?: readonly { readonly sizeMiB: number; readonly flags: number }[];
}

/** A mock driver's behaviour. Defaults: interface 7, Vulkan 1.3, one integrated GPU. */
export interface MockDriverConfig {
  /** Prefix of this driver's call-log lines; default `driver<N>` (N counts drivers of the environment). */
  readonly name?: string;
  /**
   * Highest loader/driver interface version it negotiates (0-7, default 7). It also picks the library
   * variant: 0 -> `v0`, 1 -> `v1`, 2-6 -> `export` (or `export_nophys` when `physicalDeviceProcAddr` is
   * false or the version is below 4), 7 -> `v7` (negotiation only through `vk_icdGetInstanceProcAddr`).
   */
  readonly interfaceVersion?: number;
  /** Library variant, overriding the choice above (e.g. `export` for a v7 driver that exports everything). */
  readonly variant?: MockDriverVariant;
  /** Negotiation fails with `VK_ERROR_INCOMPATIBLE_DRIVER` when the loader offers less than this. */
  readonly minInterfaceVersion?: number;
  /** VkResult negotiation returns regardless of the offer (e.g. -9 `VK_ERROR_INCOMPATIBLE_DRIVER`). */
  readonly negotiateResult?: number;
  /** The interface version negotiation answers whatever the loader offers (e.g. 8 when offered 7). */
  readonly negotiateAnswer?: number;
  /** What `vkEnumerateInstanceVersion` returns and the default device API version; default "1.3.0". */
  readonly apiVersion?: string;
  /** Whether `vkEnumerateInstanceVersion` is exposed; default true. */
  readonly enumerateInstanceVersion?: boolean;
  /** Instance extensions; default the surface set (surface, xcb, xlib, wayland, headless, display) and gpdp2. */
  readonly instanceExtensions?: readonly MockExtension[];
  /** Physical devices; default one integrated GPU. `[]` is a driver with zero devices. */
  readonly physicalDevices?: readonly MockPhysicalDeviceConfig[];
  /** Device groups as lists of device indices; default one group per device. */
  readonly groups?: readonly (readonly number[])[];
  /** Whether `vkEnumeratePhysicalDeviceGroups(KHR)` is exposed; default true. */
  readonly groupsSupported?: boolean;
  /** Whether dispatchable objects start with `ICD_LOADER_MAGIC`; default true. */
  readonly loaderMagic?: boolean;
  /** Make `vkCreateInstance` return this VkResult. */
  readonly createInstanceResult?: number;
  /** Make `vkEnumeratePhysicalDevices` (and groups) return this VkResult. */
  readonly enumeratePhysicalDevicesResult?: number;
  /** Make `vkEnumeratePhysicalDeviceGroups` return this VkResult instead (0: groups work while devices fail). */
  readonly groupsResult?: number;
  /** Make `vkCreateDevice` return this VkResult. */
  readonly createDeviceResult?: number;
  /** Whether it creates its own surfaces (`vkCreate*SurfaceKHR`) when interface >= 3; default true. */
  readonly ownSurfaces?: boolean;
  /** Whether it hands out its surface create commands below interface 3 too (an old driver); default false. */
  readonly surfacesBelowInterface3?: boolean;
  /** Whether `vk_icdGetPhysicalDeviceProcAddr` is available; default true. */
  readonly physicalDeviceProcAddr?: boolean;
  /** Whether `vk_icdEnumerateAdapterPhysicalDevices` is queryable through GIPA (v7); default false. */
  readonly enumerateAdapterPhysicalDevices?: boolean;
  /** Whether the `vkMockUnknown*Fn` functions are exposed; default true. */
  readonly unknownFunctions?: boolean;
  /**
   * Base of the unknown functions' results; default 0x10000.
   * `vkMockUnknownPhysicalDeviceFn<s>(pd, x)` = base + s*0x1000 + deviceIndex*0x100 + x;
   * `vkMockUnknownDeviceFn<s>(device, x)` = base + 0x8000 + s*0x1000 + x (slot s 0-3, slot 0 unnumbered).
   */
  readonly unknownBase?: number;
  /** Below interface 5, refuse an app `apiVersion` above the driver's (LDP_DRIVER_9); default true. */
  readonly checkApiVersion?: boolean;
  /** Refuse unsupported enabled extensions with `VK_ERROR_EXTENSION_NOT_PRESENT`; default true. */
  readonly strictExtensions?: boolean;
  /** `vkGetPhysicalDeviceSurfaceSupportKHR` answer; default true. */
  readonly presentSupport?: boolean;
  /** Log every `vk*GetProcAddr` query; default false. */
  readonly logProcAddr?: boolean;
}

/** A layer extension: the mock layer implements the entry points named here (see `MockLayerConfig`). */
export interface MockLayerExtension {
  readonly name: string;
  readonly specVersion?: number;
  readonly entrypoints?: readonly string[];
}

/** A mock layer's behaviour. Defaults: interface 2, intercepts the common commands, passes everything down. */
export interface MockLayerConfig {
  /** Layer name; default `VK_LAYER_MOCK_layer<N>`. */
  readonly name?: string;
  /** Prefix of its call-log lines; default the layer name. */
  readonly logName?: string;
  /** 0, 1 (no negotiation export) or 2 (negotiation); default 2. */
  readonly interfaceVersion?: number;
  /** The interface version negotiation answers whatever the loader offers (e.g. 3 when offered 2). */
  readonly negotiateAnswer?: number;
  /** Library variant override; `layer_renamed` exports only renamed entry points (see the manifest `functions`). */
  readonly variant?: MockLayerVariant;
  /**
   * Commands it intercepts, beyond the chain-building ones it always handles
   * (`vkGetInstanceProcAddr`, `vkGetDeviceProcAddr`, `vkCreateInstance`, `vkDestroyInstance`,
   * `vkCreateDevice`, `vkDestroyDevice`). Default: every command the mock layer knows.
   */
  readonly intercept?: readonly string[];
  /** Instance extensions; entry point `vkMockLayerInstanceFn(VkInstance, uint32_t)` is the one implemented. */
  readonly instanceExtensions?: readonly MockLayerExtension[];
  /** Device extensions; entry point `vkMockLayerDeviceFn(VkDevice, uint32_t)` is the one implemented. */
  readonly deviceExtensions?: readonly MockLayerExtension[];
  /** Base of `vkMockLayer*Fn` results (result = base + x); default 0x20000. */
  readonly functionBase?: number;
  /** Make the layer's `vkCreateInstance` return this VkResult without calling down. */
  readonly createInstanceResult?: number;
  /** Make the layer's `vkCreateDevice` return this VkResult without calling down. */
  readonly createDeviceResult?: number;
  /** Wrap `VkDevice` handles in the layer's own dispatchable objects. */
  readonly wrapDevice?: boolean;
  /** Wrap `VkCommandBuffer` handles, stamping them with `pfnSetDeviceLoaderData`. */
  readonly wrapCommandBuffers?: boolean;
  /** Physical devices as seen above the layer: drop these indices (of the list from below), ... */
  readonly removePhysicalDevices?: readonly number[];
  /** ... reverse the order, ... */
  readonly reversePhysicalDevices?: boolean;
  /** ... and append this many layer-made devices (stamped with `pfnSetInstanceLoaderData`). */
  readonly addPhysicalDevices?: number;
  /** Create the VkDevice through the loader's `pfnLayerCreateDevice` callback instead of the link. */
  readonly createDeviceThroughCallback?: boolean;
  /**
   * Ask the next `vkGetInstanceProcAddr` for `vkCreateDevice` with a NULL instance (the old-layer form
   * loaders keep working, LI07) instead of the instance; the Khronos loader 1.3.239 crashes on it.
   */
  readonly createDeviceNullInstance?: boolean;
  /** `vkEnumerateInstanceVersion` pre-instance function result (as "1.x.y"); calls down when unset. */
  readonly preInstanceVersion?: string;
  /** Extra instance extension the pre-instance `vkEnumerateInstanceExtensionProperties` appends. */
  readonly preInstanceExtension?: string;
}

function enc(value: string): string {
  if (/[\n\r]/.test(value)) throw new RangeError(`Mock config value "${value}" contains a line break`);
  return value;
}

function extensions(list: readonly MockExtension[]): string {
  return list.map((e) => typeof e === "string" ? e : `${e.name}:${e.specVersion ?? 1}`).map(enc).join(",");
}

function bool(v: boolean): string {
  return v ? "1" : "0";
}

function hex(n: number): string {
  return `0x${n.toString(16)}`;
}

const DEVICE_TYPES = { integrated: 1, discrete: 2, virtual: 3, cpu: 4, other: 0 } as const;

/**
 * Chooses the driver library variant for a config.
 *
 * @example Usage
 * ```ts
 * import { driverVariant } from "./mock_config.ts";
 * driverVariant({ interfaceVersion: 5 }); // "export"
 * ```
 */
export function driverVariant(config: MockDriverConfig): MockDriverVariant {
  if (config.variant) return config.variant;
  const v = config.interfaceVersion ?? 7;
  if (v <= 0) return "v0";
  if (v === 1) return "v1";
  if (v >= 7) return "v7";
  return v >= 4 && config.physicalDeviceProcAddr !== false ? "export" : "export_nophys";
}

/**
 * Chooses the layer library variant for a config.
 *
 * @example Usage
 * ```ts
 * import { layerVariant } from "./mock_config.ts";
 * layerVariant({ interfaceVersion: 1 }); // "layer_nonego"
 * ```
 */
export function layerVariant(config: MockLayerConfig): MockLayerVariant {
  if (config.variant) return config.variant;
  return (config.interfaceVersion ?? 2) >= 2 ? "layer" : "layer_nonego";
}

/**
 * Writes a driver config as the text the mock driver parses.
 *
 * @example Usage
 * ```ts
 * import { driverConfigText } from "./mock_config.ts";
 * const text = driverConfigText({ physicalDevices: [{ type: "discrete" }] }, "drv", "/tmp/log");
 * ```
 */
export function driverConfigText(config: MockDriverConfig, name: string, logPath: string): string {
  const lines = [`name=${enc(name)}`, `log=${enc(logPath)}`, `interface=${config.interfaceVersion ?? 7}`];
  const put = (key: string, value: string | undefined) => {
    if (value !== undefined) lines.push(`${key}=${value}`);
  };
  put("min_interface", config.minInterfaceVersion?.toString());
  put("negotiate_result", config.negotiateResult?.toString());
  put("negotiate_answer", config.negotiateAnswer?.toString());
  put("api_version", config.apiVersion && enc(config.apiVersion));
  put(
    "enumerate_instance_version",
    config.enumerateInstanceVersion === undefined ? undefined : bool(config.enumerateInstanceVersion),
  );
  put("instance_extensions", config.instanceExtensions && extensions(config.instanceExtensions));
  put("groups", config.groups?.map((g) => g.join("+")).join(","));
  put("groups_supported", config.groupsSupported === undefined ? undefined : bool(config.groupsSupported));
  put("magic", config.loaderMagic === undefined ? undefined : bool(config.loaderMagic));
  put("create_instance_result", config.createInstanceResult?.toString());
  put("enumerate_physical_devices_result", config.enumeratePhysicalDevicesResult?.toString());
  put("create_device_result", config.createDeviceResult?.toString());
  put("groups_result", config.groupsResult?.toString());
  put("own_surfaces", config.ownSurfaces === undefined ? undefined : bool(config.ownSurfaces));
  put("surfaces_below_3", config.surfacesBelowInterface3 ? "1" : undefined);
  put(
    "physical_device_proc_addr",
    config.physicalDeviceProcAddr === undefined ? undefined : bool(config.physicalDeviceProcAddr),
  );
  put(
    "enumerate_adapter",
    config.enumerateAdapterPhysicalDevices === undefined
      ? undefined
      : bool(config.enumerateAdapterPhysicalDevices),
  );
  put("unknown_functions", config.unknownFunctions === undefined ? undefined : bool(config.unknownFunctions));
  put("unknown_base", config.unknownBase === undefined ? undefined : hex(config.unknownBase));
  put("check_api_version", config.checkApiVersion === undefined ? undefined : bool(config.checkApiVersion));
  put("strict_extensions", config.strictExtensions === undefined ? undefined : bool(config.strictExtensions));
  put("present_support", config.presentSupport === undefined ? undefined : bool(config.presentSupport));
  put("log_proc_addr", config.logProcAddr === undefined ? undefined : bool(config.logProcAddr));
  const devices = config.physicalDevices ?? [{}];
  for (const d of devices) {
    lines.push("[device]");
    put("name", d.name && enc(d.name));
    put("type", d.type && String(DEVICE_TYPES[d.type]));
    put("vendor_id", d.vendorId === undefined ? undefined : hex(d.vendorId));
    put("device_id", d.deviceId === undefined ? undefined : hex(d.deviceId));
    put("api_version", d.apiVersion && enc(d.apiVersion));
    put("driver_version", d.driverVersion && enc(d.driverVersion));
    if (d.pciBus) {
      const p = d.pciBus;
      put(
        "pci",
        `${p.domain.toString(16)}:${p.bus.toString(16)}:${p.device.toString(16)}.${p.function.toString(16)}`,
      );
    }
    put("driver_id", d.driverId?.toString());
    put("driver_name", d.driverName && enc(d.driverName));
    put("driver_info", d.driverInfo && enc(d.driverInfo));
    if (d.uuid !== undefined) {
      if (!/^[0-9a-fA-F]{32}$/.test(d.uuid)) {
        throw new RangeError(`Mock device uuid "${d.uuid}" is not 32 hex digits`);
      }
      put("uuid", d.uuid);
    }
    put("extensions", d.extensions && extensions(d.extensions));
    put("queue_families", d.queueFamilies?.map((q) => `${hex(q.flags)}:${q.count}`).join(","));
    put("memory_types", d.memoryTypes?.map((m) => `${hex(m.propertyFlags)}:${m.heapIndex}`).join(","));
    put("memory_heaps", d.memoryHeaps?.map((h) => `${h.sizeMiB}:${h.flags}`).join(","));
  }
  return lines.join("\n") + "\n";
}

/**
 * Writes a layer config as the text the mock layer parses.
 *
 * @example Usage
 * ```ts
 * import { layerConfigText } from "./mock_config.ts";
 * const text = layerConfigText({ reversePhysicalDevices: true }, "VK_LAYER_MOCK_a", "/tmp/log");
 * ```
 */
export function layerConfigText(config: MockLayerConfig, name: string, logPath: string): string {
  const lines = [
    `name=${enc(name)}`,
    `log_name=${enc(config.logName ?? name)}`,
    `log=${enc(logPath)}`,
    `interface=${config.interfaceVersion ?? 2}`,
  ];
  const put = (key: string, value: string | undefined) => {
    if (value !== undefined) lines.push(`${key}=${value}`);
  };
  put("negotiate_answer", config.negotiateAnswer?.toString());
  put("intercept", config.intercept?.map(enc).join(","));
  const entrypoints = (list: readonly MockLayerExtension[] | undefined) =>
    list?.flatMap((e) => e.entrypoints ?? []).map(enc).join(",");
  put("instance_extensions", config.instanceExtensions && extensions(config.instanceExtensions));
  put("instance_entrypoints", entrypoints(config.instanceExtensions));
  put("device_extensions", config.deviceExtensions && extensions(config.deviceExtensions));
  put("device_entrypoints", entrypoints(config.deviceExtensions));
  put("function_base", config.functionBase === undefined ? undefined : hex(config.functionBase));
  put("create_instance_result", config.createInstanceResult?.toString());
  put("create_device_result", config.createDeviceResult?.toString());
  put("wrap_device", config.wrapDevice === undefined ? undefined : bool(config.wrapDevice));
  put(
    "wrap_command_buffers",
    config.wrapCommandBuffers === undefined ? undefined : bool(config.wrapCommandBuffers),
  );
  put("remove_physical_devices", config.removePhysicalDevices?.join(","));
  put(
    "reverse_physical_devices",
    config.reversePhysicalDevices === undefined ? undefined : bool(config.reversePhysicalDevices),
  );
  put("add_physical_devices", config.addPhysicalDevices?.toString());
  put(
    "create_device_callback",
    config.createDeviceThroughCallback === undefined ? undefined : bool(config.createDeviceThroughCallback),
  );
  put(
    "create_device_null_instance",
    config.createDeviceNullInstance === undefined ? undefined : bool(config.createDeviceNullInstance),
  );
  put("pre_instance_version", config.preInstanceVersion && enc(config.preInstanceVersion));
  put("pre_instance_extension", config.preInstanceExtension && enc(config.preInstanceExtension));
  return lines.join("\n") + "\n";
}
