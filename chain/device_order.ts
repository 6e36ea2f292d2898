/**
 * Physical-device policy on Linux: the order `vkEnumeratePhysicalDevices` and
 * `vkEnumeratePhysicalDeviceGroups` return, and which devices they return.
 *
 * - Sorting (when the instance can query `VkPhysicalDeviceProperties2`): the device named by
 *   `VK_LOADER_DEVICE_SELECT` first; then discrete > integrated > virtual > other > CPU; then devices
 *   with PCI bus info before those without, ascending domain/bus/device/function; then
 *   `deviceID ^ vendorID` ascending; ties keep the input order.
 * - `VK_LOADER_DISABLE_SELECT` (an integer other than 0) turns sorting off: devices keep the input order,
 *   which the terminator builds the way the Khronos loader does (drivers in reverse discovery order, each
 *   driver's devices in the order it gives them).
 * - `VK_LOADER_DEVICE_ID_FILTER`, `VK_LOADER_VENDOR_ID_FILTER`, `VK_LOADER_DRIVER_ID_FILTER`: comma lists of
 *   ids and ranges; a device stays only when every filter that is set matches it. A group stays only when
 *   all its devices do.
 *
 * Everything here is pure: plain device records in, ordered records out, each with the rule that put it
 * there and a sentence saying why, so the terminators, logs and `deno task info` tell the same story.
 *
 * @example Sorting two devices
 * ```ts
 * import { orderPhysicalDevices } from "./device_order.ts";
 * import { readDevicePolicy } from "../discovery/device_selection.ts";
 * const policy = readDevicePolicy({ vars: {}, elevated: false });
 * const order = orderPhysicalDevices([
 *   { name: "llvmpipe", vendorID: 0x10005, deviceID: 0, deviceType: 4 },
 *   { name: "GPU", vendorID: 0x10de, deviceID: 0x2204, deviceType: 2 },
 * ], policy, { canSort: true });
 * console.log(order.devices.map((p) => `${p.device.name}: ${p.why}`));
 * ```
 *
 * @module
 */

import type { LogEntry } from "../loading/log.ts";
import type { DevicePolicy, DeviceSelection, IdFilter } from "../discovery/device_selection.ts";

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
 * import { instanceCanSort } from "./device_order.ts";
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

/** A device an id filter removed. */
export interface RemovedDevice<T extends DeviceRecord> {
  /** The device record given. */
  readonly device: T;
  /** Its index in the input. */
  readonly inputIndex: number;
  /** The filter variables that rejected it. */
  readonly filters: readonly string[];
  /** A sentence naming each filter and the value it rejected. */
  readonly why: string;
}

/** The result of {@linkcode orderPhysicalDevices}. */
export interface DeviceOrder<T extends DeviceRecord> {
  /** The devices to enumerate, in order. */
  readonly devices: readonly DevicePlacement<T>[];
  /** The devices the id filters removed. */
  readonly removed: readonly RemovedDevice<T>[];
  /** Whether the sort ran. */
  readonly sorted: boolean;
  /** Why it ran or not. */
  readonly why: string;
  /** Log lines (driver category): why the order is what it is, and each removal. */
  readonly messages: readonly LogEntry[];
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

/** The name of a `VkPhysicalDeviceType`, e.g. `2` → `"discrete GPU"`. */
export function deviceTypeLabel(t: number): string {
  return TYPE_NAMES[t] ?? `type ${t}`;
}

function hex(n: number): string {
  return `0x${(n >>> 0).toString(16)}`;
}

/** `dddd:bb:dd.f`, as lspci prints it. */
export function formatPciBus(p: PciBusInfo): string {
  const h = (n: number, w: number) => n.toString(16).padStart(w, "0");
  return `${h(p.domain, 4)}:${h(p.bus, 2)}:${h(p.device, 2)}.${h(p.function, 1)}`;
}

/** `"name" (vendor:device)` for messages. */
export function describeDevice(d: DeviceRecord): string {
  const ids = `${hex(d.vendorID)}:${hex(d.deviceID)}`;
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
      const mine = hex((d.deviceID ^ d.vendorID) >>> 0);
      const theirs = hex((other.deviceID ^ other.vendorID) >>> 0);
      return `deviceID ^ vendorID ${mine} ${before ? "<" : ">"} ${theirs} of ${o}`;
    }
    default:
      return `same type, PCI bus and IDs as ${o}: input order kept`;
  }
}

/**
 * The policy without its id filters: what the terminator applies, since the Khronos loader filters the
 * list at the top of the chain, after the layers (see chain/device_filter.ts).
 *
 * @example Usage
 * ```ts
 * import { withoutIdFilters } from "./device_order.ts";
 * import { readDevicePolicy } from "../discovery/device_selection.ts";
 * const p = withoutIdFilters(readDevicePolicy({ vars: { VK_LOADER_VENDOR_ID_FILTER: "0x10de" }, elevated: false }));
 * console.log(p.vendorIdFilter); // undefined
 * ```
 */
export function withoutIdFilters(policy: DevicePolicy): DevicePolicy {
  if (!hasIdFilters(policy)) return policy;
  return { ...policy, deviceIdFilter: undefined, vendorIdFilter: undefined, driverIdFilter: undefined };
}

/**
 * True when any `VK_LOADER_*_ID_FILTER` is in effect.
 *
 * @example Usage
 * ```ts
 * import { hasIdFilters } from "./device_order.ts";
 * import { readDevicePolicy } from "../discovery/device_selection.ts";
 * console.log(hasIdFilters(readDevicePolicy({ vars: {}, elevated: false }))); // false
 * ```
 */
export function hasIdFilters(policy: DevicePolicy): boolean {
  return policy.deviceIdFilter !== undefined || policy.vendorIdFilter !== undefined ||
    policy.driverIdFilter !== undefined;
}

/**
 * Why the id filters remove device `d` (one sentence per filter it fails), or an empty list when it stays.
 *
 * @example Usage
 * ```ts
 * import { idFilterRejections } from "./device_order.ts";
 * import { readDevicePolicy } from "../discovery/device_selection.ts";
 * const p = readDevicePolicy({ vars: { VK_LOADER_DEVICE_ID_FILTER: "1" }, elevated: false });
 * console.log(idFilterRejections({ vendorID: 1, deviceID: 2, deviceType: 1 }, p).length); // 1
 * ```
 */
export function idFilterRejections(d: DeviceRecord, policy: DevicePolicy): string[] {
  return filterDevice(d, policy).reasons;
}

function filterDevice(
  d: DeviceRecord,
  policy: DevicePolicy,
): { filters: string[]; reasons: string[] } {
  const filters: string[] = [];
  const reasons: string[] = [];
  const check = (filter: IdFilter | undefined, value: number | undefined, field: string) => {
    if (!filter) return;
    if (value === undefined) {
      filters.push(filter.variable);
      reasons.push(
        `${filter.variable}="${filter.text}" is set and its ${field} is unknown (no VkPhysicalDeviceDriverProperties)`,
      );
      return;
    }
    if (!filter.ranges.some((r) => value >= r.first && value <= r.last)) {
      filters.push(filter.variable);
      reasons.push(`${filter.variable}="${filter.text}" does not match ${field} ${hex(value)} (${value})`);
    }
  };
  check(policy.deviceIdFilter, d.deviceID, "deviceID");
  check(policy.vendorIdFilter, d.vendorID, "vendorID");
  check(policy.driverIdFilter, d.driverID, "driverID");
  return { filters, reasons };
}

/** Why sorting is off, or undefined when it runs. */
function sortingOff(policy: DevicePolicy, options: OrderOptions): string | undefined {
  if (!policy.sortingEnabled) {
    return `sorting off: VK_LOADER_DISABLE_SELECT="${policy.disableSelectText}"; loader order kept`;
  }
  if (!options.canSort) {
    return "sorting off: no driver can answer vkGetPhysicalDeviceProperties2 for this instance " +
      "(application API 1.0 and VK_KHR_get_physical_device_properties2 not enabled); loader order kept";
  }
  return undefined;
}

function placeList<T extends DeviceRecord>(
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

/**
 * Filters and orders physical devices. The input order is the loader's unsorted order (the terminator
 * lists drivers in reverse discovery order, as the Khronos loader does); it is kept when sorting is off.
 *
 * @example Usage
 * ```ts
 * import { orderPhysicalDevices } from "./device_order.ts";
 * import { readDevicePolicy } from "../discovery/device_selection.ts";
 * const policy = readDevicePolicy({ vars: { VK_LOADER_DEVICE_SELECT: "10005:0" }, elevated: false });
 * const order = orderPhysicalDevices([
 *   { name: "GPU", vendorID: 0x10de, deviceID: 0x2204, deviceType: 2 },
 *   { name: "llvmpipe", vendorID: 0x10005, deviceID: 0, deviceType: 4 },
 * ], policy, { canSort: true });
 * console.log(order.devices[0]?.device.name, order.devices[0]?.rule); // "llvmpipe" "select"
 * ```
 */
export function orderPhysicalDevices<T extends DeviceRecord>(
  devices: readonly T[],
  policy: DevicePolicy,
  options: OrderOptions,
): DeviceOrder<T> {
  const kept: { device: T; inputIndex: number }[] = [];
  const removed: RemovedDevice<T>[] = [];
  const messages: LogEntry[] = [];
  devices.forEach((device, inputIndex) => {
    const { filters, reasons } = filterDevice(device, policy);
    if (filters.length === 0) {
      kept.push({ device, inputIndex });
      return;
    }
    const why = `removed: ${reasons.join("; ")}`;
    removed.push({ device, inputIndex, filters, why });
    messages.push({
      level: "info",
      category: "driver",
      text: `Physical device ${describeDevice(device)} ${why}`,
    });
  });
  const off = sortingOff(policy, options);
  const placed = placeList(kept, policy, off);
  const selectMissed = off === undefined && policy.select !== undefined &&
    !placed.some((p) => p.rule === "select");
  if (selectMissed) {
    messages.push({
      level: "warn",
      category: "driver",
      text: `VK_LOADER_DEVICE_SELECT="${policy.select!.text}" matches no physical device`,
    });
  }
  const why = off ?? "sorted: VK_LOADER_DEVICE_SELECT, type, PCI bus, deviceID ^ vendorID";
  messages.push({ level: "info", category: "driver", text: `Physical device order (${why}):` });
  placed.forEach((p, i) => {
    messages.push({
      level: "info",
      category: "driver",
      text: `    [${i}] ${describeDevice(p.device)}: ${p.why}`,
    });
  });
  return { devices: placed, removed, sorted: off === undefined, why, messages };
}

/** One group of the result, in enumeration order, its devices sorted too. */
export interface GroupPlacement<T extends DeviceRecord> {
  /** Its devices, sorted. */
  readonly devices: readonly DevicePlacement<T>[];
  /** Its index in the input. */
  readonly inputIndex: number;
  /** The sort key that decided its place (from its first device). */
  readonly rule: PlacementRule;
  /** A sentence: why it is at this position. */
  readonly why: string;
}

/** A group an id filter removed (all its devices must pass). */
export interface RemovedGroup<T extends DeviceRecord> {
  /** Its devices, as given. */
  readonly devices: readonly T[];
  /** Its index in the input. */
  readonly inputIndex: number;
  /** A sentence naming the members and filters at fault. */
  readonly why: string;
}

/** The result of {@linkcode orderPhysicalDeviceGroups}. */
export interface GroupOrder<T extends DeviceRecord> {
  /** The groups to enumerate, in order. */
  readonly groups: readonly GroupPlacement<T>[];
  /** The groups the id filters removed. */
  readonly removed: readonly RemovedGroup<T>[];
  /** Whether the sort ran. */
  readonly sorted: boolean;
  /** Why it ran or not. */
  readonly why: string;
  /** Log lines (driver category). */
  readonly messages: readonly LogEntry[];
}

/**
 * Filters and orders physical device groups: each group's devices are sorted as devices are, then the
 * groups by their first device. A group is removed when any of its devices fails an id filter (a group
 * is used as a whole).
 *
 * @example Usage
 * ```ts
 * import { orderPhysicalDeviceGroups } from "./device_order.ts";
 * import { readDevicePolicy } from "../discovery/device_selection.ts";
 * const policy = readDevicePolicy({ vars: {}, elevated: false });
 * const order = orderPhysicalDeviceGroups([
 *   [{ name: "llvmpipe", vendorID: 0x10005, deviceID: 0, deviceType: 4 }],
 *   [{ name: "GPU", vendorID: 0x10de, deviceID: 0x2204, deviceType: 2 }],
 * ], policy, { canSort: true });
 * console.log(order.groups.map((g) => g.inputIndex)); // [1, 0]
 * ```
 */
export function orderPhysicalDeviceGroups<T extends DeviceRecord>(
  groups: readonly (readonly T[])[],
  policy: DevicePolicy,
  options: OrderOptions,
): GroupOrder<T> {
  const off = sortingOff(policy, options);
  const removed: RemovedGroup<T>[] = [];
  const messages: LogEntry[] = [];
  const kept: { devices: DevicePlacement<T>[]; inputIndex: number; head: T }[] = [];
  groups.forEach((group, inputIndex) => {
    const failures = group.map((d) => ({ d, ...filterDevice(d, policy) })).filter((f) =>
      f.filters.length > 0
    );
    if (failures.length > 0) {
      const why = `removed: ${
        failures.map((f) => `member ${describeDevice(f.d)}: ${f.reasons.join("; ")}`).join("; ")
      }`;
      removed.push({ devices: group, inputIndex, why });
      messages.push({
        level: "info",
        category: "driver",
        text: `Physical device group ${inputIndex} ${why}`,
      });
      return;
    }
    const devices = placeList(group.map((device, i) => ({ device, inputIndex: i })), policy, off);
    if (devices[0]) kept.push({ devices, inputIndex, head: devices[0].device });
  });
  const heads = placeList(
    kept.map((g) => ({
      device: g.head,
      inputIndex: g.inputIndex,
      selected: g.devices[0]?.rule === "select",
    })),
    policy,
    off,
  );
  const byIndex = new Map(kept.map((g) => [g.inputIndex, g]));
  const placed = heads.map((h): GroupPlacement<T> => ({
    devices: byIndex.get(h.inputIndex)!.devices,
    inputIndex: h.inputIndex,
    rule: h.rule,
    why: h.rule === "only" ? "the only group" : `by its first device: ${h.why}`,
  }));
  const why = off ?? "sorted: each group's devices, then groups by their first device";
  messages.push({ level: "info", category: "driver", text: `Physical device group order (${why}):` });
  placed.forEach((g, i) => {
    messages.push({
      level: "info",
      category: "driver",
      text: `    group [${i}] ${g.devices.map((p) => describeDevice(p.device)).join(", ")}: ${g.why}`,
    });
  });
  return { groups: placed, removed, sorted: off === undefined, why, messages };
}

/** One device of an enumeration, explained by {@linkcode explainEnumeratedOrder}. */
export interface ExplainedDevice<T extends DeviceRecord> {
  /** The device record given. */
  readonly device: T;
  /** The rule that put it there, or `"layer"` when the loader's policy would have put it elsewhere. */
  readonly rule: PlacementRule | "layer";
  /** A sentence: why it is at this position. */
  readonly why: string;
}

/**
 * Explains an order a loader already returned (what `vkEnumeratePhysicalDevices` gave the application):
 * the policy is applied again to that list (the sort is stable, so an order the policy made is a fixed
 * point) and each device gets its rule and sentence. When the policy would order the list differently,
 * something above the loader reordered it (an implicit layer such as `VK_LAYER_MESA_device_select`), and
 * every device says so with the position the loader's policy gives it. Id filters are not applied again.
 *
 * @example Usage
 * ```ts
 * import { explainEnumeratedOrder } from "./device_order.ts";
 * import { readDevicePolicy } from "../discovery/device_selection.ts";
 * const policy = readDevicePolicy({ vars: {}, elevated: false });
 * const list = explainEnumeratedOrder([
 *   { name: "llvmpipe", vendorID: 0x10005, deviceID: 0, deviceType: 4 },
 *   { name: "GPU", vendorID: 0x10de, deviceID: 0x2204, deviceType: 2 },
 * ], policy, { canSort: true });
 * console.log(list.map((d) => d.rule)); // ["layer", "layer"]
 * ```
 */
export function explainEnumeratedOrder<T extends DeviceRecord>(
  enumerated: readonly T[],
  policy: DevicePolicy,
  options: OrderOptions,
): ExplainedDevice<T>[] {
  const unfiltered: DevicePolicy = {
    ...policy,
    deviceIdFilter: undefined,
    vendorIdFilter: undefined,
    driverIdFilter: undefined,
  };
  const order = orderPhysicalDevices(enumerated, unfiltered, options);
  const same = order.devices.every((p, i) => p.inputIndex === i);
  if (same) return order.devices.map(({ device, rule, why }) => ({ device, rule, why }));
  const position = new Map(order.devices.map((p, i) => [p.inputIndex, i]));
  return enumerated.map((device, i) => ({
    device,
    rule: "layer" as const,
    why: `reordered above the loader (by a layer): the loader's policy puts it at position ${
      position.get(i)
    }`,
  }));
}

/** A device policy as report lines and plain data (for `deno task inspect`). */
export interface DevicePolicyReport {
  /** Whether sorting runs (when the instance can also query properties2). */
  readonly sorting: boolean;
  /** `vendorID:deviceID` selected, as hex. */
  readonly select?: string;
  /** Each id filter in force: its variable, value and the ranges it kept. */
  readonly filters: readonly {
    readonly variable: string;
    readonly value: string;
    readonly ranges: string[];
  }[];
  /** Text lines describing the rules in order of application. */
  readonly lines: readonly string[];
  /** Warnings from reading the variables. */
  readonly warnings: readonly string[];
}

/**
 * Describes the rules a policy applies, without any device: what `deno task inspect` shows (the
 * resulting order needs the drivers loaded: `deno task info` shows it).
 *
 * @example Usage
 * ```ts
 * import { describeDevicePolicy } from "./device_order.ts";
 * import { readDevicePolicy } from "../discovery/device_selection.ts";
 * const report = describeDevicePolicy(readDevicePolicy({ vars: { VK_LOADER_DEVICE_SELECT: "10de:2204" }, elevated: false }));
 * console.log(report.lines.join("\n"));
 * ```
 */
export function describeDevicePolicy(policy: DevicePolicy): DevicePolicyReport {
  const filters = [policy.deviceIdFilter, policy.vendorIdFilter, policy.driverIdFilter]
    .filter((f): f is IdFilter => f !== undefined)
    .map((f) => ({
      variable: f.variable,
      value: f.text,
      ranges: f.ranges.map((r) => r.first === r.last ? hex(r.first) : `${hex(r.first)}-${hex(r.last)}`),
    }));
  const select = policy.select ? `${hex(policy.select.vendorID)}:${hex(policy.select.deviceID)}` : undefined;
  const lines = [
    "Physical device policy (vkEnumeratePhysicalDevices and groups; `deno task info` shows the order):",
  ];
  if (filters.length === 0) lines.push("    id filters: none (every device is listed)");
  for (const f of filters) {
    lines.push(`    ${f.variable}="${f.value}": keeps ${f.ranges.length ? f.ranges.join(", ") : "nothing"}`);
  }
  if (policy.sortingEnabled) {
    lines.push(
      "    sorting: on when the instance can query VkPhysicalDeviceProperties2",
      `    1. VK_LOADER_DEVICE_SELECT: ${select ? `${select} first` : "not set"}`,
      "    2. type: discrete > integrated > virtual > other > CPU",
      "    3. PCI bus info first, then ascending domain/bus/device/function",
      "    4. deviceID ^ vendorID ascending; ties keep the loader order",
    );
  } else {
    lines.push(
      `    sorting: off (VK_LOADER_DISABLE_SELECT="${policy.disableSelectText}"): drivers in reverse discovery order`,
    );
  }
  const warnings = policy.messages.filter((m) => m.level === "warn").map((m) => m.text);
  for (const w of warnings) lines.push(`    warning: ${w}`);
  return { sorting: policy.sortingEnabled, ...(select ? { select } : {}), filters, lines, warnings };
}

/**
 * The two-call idiom over an already filtered and ordered list: how many entries to write for a
 * capacity (`undefined` for the count query) and whether the result is `VK_INCOMPLETE` (5).
 *
 * @example Usage
 * ```ts
 * import { enumerationWindow } from "./device_order.ts";
 * enumerationWindow(3, 2); // { count: 2, result: 5 }
 * ```
 */
export function enumerationWindow(
  total: number,
  capacity: number | undefined,
): { count: number; result: 0 | 5 } {
  if (capacity === undefined) return { count: total, result: 0 };
  const count = Math.min(total, capacity);
  return { count, result: count < total ? 5 : 0 };
}
