/**
 * The Linux sort of physical devices (docs/behaviour.md P01, P02, A16): plain device records in, placed
 * records out, each with the rule that placed it and a sentence saying why.
 *
 * @module
 */

import type { DevicePolicy, DeviceSelection } from "../../discovery/device_selection.ts";

/** `VkPhysicalDeviceType` values. */
export const PHYSICAL_DEVICE_TYPE = {
  other: 0,
  integrated: 1,
  discrete: 2,
  virtual: 3,
  cpu: 4,
} as const;

/** PCI address from `VkPhysicalDevicePCIBusInfoPropertiesEXT`. */
export interface PciBusInfo {
  /** `pciDomain`. */
  readonly domain: number;
  /** `pciBus`. */
  readonly bus: number;
  /** `pciDevice`. */
  readonly device: number;
  /** `pciFunction`. */
  readonly function: number;
}

/**
 * What the policy needs to know of one physical device. `pciBus` is present only when the device
 * advertises `VK_EXT_pci_bus_info` and the loader could read it; `driverID` only when
 * `VkPhysicalDeviceDriverProperties` could be read.
 */
export interface DeviceRecord {
  /** `VkPhysicalDeviceProperties::vendorID`. */
  readonly vendorID: number;
  /** `VkPhysicalDeviceProperties::deviceID`. */
  readonly deviceID: number;
  /** `VkPhysicalDeviceType` (see {@linkcode PHYSICAL_DEVICE_TYPE}). */
  readonly deviceType: number;
  /** The PCI address, when known. */
  readonly pciBus?: PciBusInfo;
  /** `VkPhysicalDeviceDriverProperties::driverID`, when known. */
  readonly driverID?: number;
  /** `deviceName`, for messages. */
  readonly name?: string;
}

/**
 * Whether the loader sorts for this instance: the Khronos loader sorts when at least one driver can answer
 * `vkGetPhysicalDeviceProperties2` for it, i.e. the application asked for Vulkan 1.1+ and the driver is
 * 1.1+, or `VK_KHR_get_physical_device_properties2` is enabled on that driver (by the application, or
 * added by the loader because the driver has it). Measured against libvulkan1 1.3.239: an app at 1.0
 * without the extension still gets sorted devices when a driver advertises the extension.
 *
 * @example Usage
 * ```ts
 * import { instanceCanSort } from "./sort.ts";
 * instanceCanSort({ appApiVersion: 0x400000, drivers: [{ apiVersion: 0x403000, enabledExtensions: [] }] }); // false
 * ```
 */
export function instanceCanSort(instance: {
  /** The application's `apiVersion` (0 reads as 1.0). */
  readonly appApiVersion: number;
  /** Each driver in use: its instance API version and the instance extensions enabled on it. */
  readonly drivers: readonly { readonly apiVersion: number; readonly enabledExtensions: readonly string[] }[];
}): boolean {
  const minor = (v: number) => (v >>> 12) & 0x3ff;
  const major = (v: number) => (v >>> 22) & 0x7f;
  const atLeast11 = (v: number) => major(v) > 1 || (major(v) === 1 && minor(v) >= 1);
  const app11 = atLeast11(instance.appApiVersion);
  return instance.drivers.some((d) =>
    (app11 && atLeast11(d.apiVersion)) ||
    d.enabledExtensions.includes("VK_KHR_get_physical_device_properties2")
  );
}

/** Which rule placed a device where it is. */
export type PlacementRule =
  | "select"
  | "type"
  | "pci-bus"
  | "pci-bus-missing"
  | "id-xor"
  | "tie"
  | "only"
  | "unsorted";

/** One device of the result, in enumeration order. */
export interface DevicePlacement<T extends DeviceRecord> {
  /** The device record given. */
  readonly device: T;
  /** Its index in the input. */
  readonly inputIndex: number;
  /** The sort key that decided its place. */
  readonly rule: PlacementRule;
  /** A sentence: why it is at this position. */
  readonly why: string;
}

/** Options of {@linkcode orderPhysicalDevices} and {@linkcode orderPhysicalDeviceGroups}. */
export interface OrderOptions {
  /** Whether the instance can query `VkPhysicalDeviceProperties2` (see {@linkcode instanceCanSort}). */
  readonly canSort: boolean;
}

const TYPE_RANK: Readonly<Record<number, number>> = { 2: 10, 1: 5, 3: 3, 0: 2, 4: 1 };
const TYPE_NAMES: Readonly<Record<number, string>> = {
  0: "other",
  1: "integrated GPU",
  2: "discrete GPU",
  3: "virtual GPU",
  4: "CPU",
};

function typeRank(t: number): number {
  return TYPE_RANK[t] ?? 0;
}

/**
 * The name of a `VkPhysicalDeviceType`, e.g. `2` → `"discrete GPU"`.
 *
 * @example Usage
 * ```ts
 * import { deviceTypeLabel } from "./sort.ts";
 * console.log(deviceTypeLabel(4)); // "CPU"
 * ```
 */
export function deviceTypeLabel(t: number): string {
  return TYPE_NAMES[t] ?? `type ${t}`;
}

/**
 * An id as the loader's messages print it: lower-case hex with `0x`, unsigned.
 *
 * @example Usage
 * ```ts
 * import { hexId } from "./sort.ts";
 * console.log(hexId(0x10de)); // "0x10de"
 * ```
 */
export function hexId(n: number): string {
  return `0x${(n >>> 0).toString(16)}`;
}

/**
 * `dddd:bb:dd.f`, as lspci prints it.
 *
 * @example Usage
 * ```ts
 * import { formatPciBus } from "./sort.ts";
 * console.log(formatPciBus({ domain: 0, bus: 1, device: 0, function: 0 })); // "0000:01:00.0"
 * ```
 */
export function formatPciBus(p: PciBusInfo): string {
  const h = (n: number, w: number) => n.toString(16).padStart(w, "0");
  return `${h(p.domain, 4)}:${h(p.bus, 2)}:${h(p.device, 2)}.${h(p.function, 1)}`;
}

/**
 * `"name" (vendor:device)` for messages.
 *
 * @example Usage
 * ```ts
 * import { describeDevice } from "./sort.ts";
 * console.log(describeDevice({ name: "llvmpipe", vendorID: 0x10005, deviceID: 0, deviceType: 4 }));
 * ```
 */
export function describeDevice(d: DeviceRecord): string {
  const ids = `${hexId(d.vendorID)}:${hexId(d.deviceID)}`;
  return d.name === undefined ? `device ${ids}` : `"${d.name}" (${ids})`;
}

function isSelected(d: DeviceRecord, select: DeviceSelection | undefined): boolean {
  return select !== undefined && d.vendorID === select.vendorID && d.deviceID === select.deviceID;
}

/** The first key where two devices differ, and the comparison there (negative: `a` first). */
function decidingKey(
  a: DeviceRecord,
  b: DeviceRecord,
  aSelected: boolean,
  bSelected: boolean,
): { rule: PlacementRule; order: number } {
  if (aSelected !== bSelected) return { rule: "select", order: aSelected ? -1 : 1 };
  const t = typeRank(b.deviceType) - typeRank(a.deviceType);
  if (t !== 0) return { rule: "type", order: t };
  if ((a.pciBus === undefined) !== (b.pciBus === undefined)) {
    return { rule: "pci-bus-missing", order: a.pciBus ? -1 : 1 };
  }
  if (a.pciBus && b.pciBus) {
    for (const k of ["domain", "bus", "device", "function"] as const) {
      const d = a.pciBus[k] - b.pciBus[k];
      if (d !== 0) return { rule: "pci-bus", order: d };
    }
  }
  const x = ((a.deviceID ^ a.vendorID) >>> 0) - ((b.deviceID ^ b.vendorID) >>> 0);
  if (x !== 0) return { rule: "id-xor", order: x };
  return { rule: "tie", order: 0 };
}

/** Why `d` comes before `next` (it is first) or after `prev`. */
function explain(
  rule: PlacementRule,
  d: DeviceRecord,
  other: DeviceRecord,
  before: boolean,
  select: DeviceSelection | undefined,
): string {
  const o = describeDevice(other);
  switch (rule) {
    case "select":
      return before
        ? `selected by VK_LOADER_DEVICE_SELECT="${select?.text}"`
        : `after ${o}, which VK_LOADER_DEVICE_SELECT="${select?.text}" selected`;
    case "type":
      return before
        ? `${deviceTypeLabel(d.deviceType)} ranks above ${deviceTypeLabel(other.deviceType)} ${o}`
        : `${deviceTypeLabel(d.deviceType)} ranks below ${deviceTypeLabel(other.deviceType)} ${o}`;
    case "pci-bus-missing":
      return before
        ? `has PCI bus info (${formatPciBus(d.pciBus!)}), ${o} has none`
        : `has no PCI bus info, ${o} has (${formatPciBus(other.pciBus!)})`;
    case "pci-bus":
      return `PCI bus ${formatPciBus(d.pciBus!)} ${before ? "before" : "after"} ${
        formatPciBus(other.pciBus!)
      } of ${o}`;
    case "id-xor": {
      const mine = hexId((d.deviceID ^ d.vendorID) >>> 0);
      const theirs = hexId((other.deviceID ^ other.vendorID) >>> 0);
      return `deviceID ^ vendorID ${mine} ${before ? "<" : ">"} ${theirs} of ${o}`;
    }
    default:
      return `same type, PCI bus and IDs as ${o}: input order kept`;
  }
}

/**
 * Why sorting is off for an instance (a sentence for the order's log), or undefined when it runs.
 *
 * @example Usage
 * ```ts
 * import { sortingOff } from "./sort.ts";
 * import { readDevicePolicy } from "../../discovery/device_selection.ts";
 * const policy = readDevicePolicy({ vars: { VK_LOADER_DISABLE_SELECT: "1" }, elevated: false });
 * console.log(sortingOff(policy, { canSort: true })); // "sorting off: VK_LOADER_DISABLE_SELECT=\"1\"; ..."
 * ```
 */
export function sortingOff(policy: DevicePolicy, options: OrderOptions): string | undefined {
  if (!policy.sortingEnabled) {
    return `sorting off: VK_LOADER_DISABLE_SELECT="${policy.disableSelectText}"; loader order kept`;
  }
  if (!options.canSort) {
    return "sorting off: no driver can answer vkGetPhysicalDeviceProperties2 for this instance " +
      "(application API 1.0 and VK_KHR_get_physical_device_properties2 not enabled); loader order kept";
  }
  return undefined;
}

/**
 * Places devices with the Linux sort and says why each is where it is; with `off` set (from
 * {@linkcode sortingOff}) they keep the input order and each carries that sentence. An item's
 * `selected` overrides the `VK_LOADER_DEVICE_SELECT` match (a group is selected by its first device).
 *
 * @example Usage
 * ```ts
 * import { placeDevices } from "./sort.ts";
 * import { readDevicePolicy } from "../../discovery/device_selection.ts";
 * const placed = placeDevices([
 *   { device: { vendorID: 0x10005, deviceID: 0, deviceType: 4 }, inputIndex: 0 },
 *   { device: { vendorID: 0x10de, deviceID: 0x2204, deviceType: 2 }, inputIndex: 1 },
 * ], readDevicePolicy({ vars: {}, elevated: false }), undefined);
 * console.log(placed.map((p) => p.inputIndex)); // [1, 0]
 * ```
 */
export function placeDevices<T extends DeviceRecord>(
  items: readonly { device: T; inputIndex: number; selected?: boolean }[],
  policy: DevicePolicy,
  off: string | undefined,
): DevicePlacement<T>[] {
  if (off !== undefined) {
    return items.map(({ device, inputIndex }) => ({
      device,
      inputIndex,
      rule: "unsorted" as const,
      why: off,
    }));
  }
  const select = policy.select;
  // Like the Khronos loader, only the first match (in input order) is the selected device.
  const firstMatch = items.findIndex((i) => i.selected ?? isSelected(i.device, select));
  const marked = items.map((item, k) => ({ ...item, selected: k === firstMatch }));
  const sorted = [...marked].sort((a, b) => decidingKey(a.device, b.device, a.selected, b.selected).order);
  return sorted.map((item, k) => {
    const { device, inputIndex } = item;
    const neighbour = k === 0 ? sorted[1] : sorted[k - 1];
    if (!neighbour) {
      return item.selected
        ? {
          device,
          inputIndex,
          rule: "select" as const,
          why: explain("select", device, device, true, select),
        }
        : { device, inputIndex, rule: "only" as const, why: "the only device" };
    }
    const next = sorted[k + 1];
    if (k > 0 && neighbour.selected) {
      // Behind the selected device: what placed it is how it compares with the one after it.
      const prefix = `after ${describeDevice(neighbour.device)}, which VK_LOADER_DEVICE_SELECT selected`;
      if (!next) return { device, inputIndex, rule: "select" as const, why: prefix };
      const key = decidingKey(device, next.device, false, next.selected);
      return {
        device,
        inputIndex,
        rule: key.rule,
        why: `${prefix}; ${explain(key.rule, device, next.device, true, select)}`,
      };
    }
    const [a, b] = k === 0 ? [item, neighbour] : [neighbour, item];
    const key = decidingKey(a.device, b.device, a.selected, b.selected);
    return {
      device,
      inputIndex,
      rule: key.rule,
      why: explain(key.rule, device, neighbour.device, k === 0, select),
    };
  });
}
