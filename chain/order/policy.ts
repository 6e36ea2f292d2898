/**
 * The physical-device policy (chain/order/devices.ts, chain/order/groups.ts) applied to the terminator's own objects: the
 * enumeration terminators hand over their drivers' physical devices (or groups) and get back the list to
 * return. The loader order is the Khronos loader's (drivers in reverse discovery order, each driver's
 * devices in its own order); each device's record is read once (chain/order/record.ts) and cached.
 *
 * @example In `vkEnumeratePhysicalDevices`' terminator
 * ```ts ignore
 * import { applyDevicePolicy } from "./policy.ts";
 * const terms = applyDevicePolicy(inst, termPhysicalDevicesOf(inst));
 * ```
 *
 * @module
 */

import { type DeviceOrder, orderPhysicalDevices } from "./devices.ts";
import { type GroupOrder, orderPhysicalDeviceGroups } from "./groups.ts";
import { instanceCanSort } from "./sort.ts";
import type { DevicePolicy } from "../../discovery/device_selection.ts";
import {
  type DriverFunctions,
  type PhysicalDeviceRecord,
  readDeviceRecord,
  supportsProperties2,
} from "./record.ts";
import type { LogEntry } from "../../loading/log.ts";
import {
  type ConfiguredDevices,
  type DeviceIdentity,
  dropHiddenGroups,
  readDeviceIdentity,
  sameElements,
  selectConfiguredDevices,
} from "./configurations.ts";

/** What the policy needs of a loader instance. */
export interface PolicyInstance {
  /** The application's `apiVersion` (1.0 when absent). */
  readonly apiVersion: number;
  /** The policy read from the loader's environment at `vkCreateInstance`. */
  readonly devicePolicy: DevicePolicy;
  /** The instance's drivers (for whether sorting can run). */
  readonly drivers: readonly PolicyDriverInstance[];
  /** Where the order's log lines go. */
  readonly log: { logAll(entries: readonly LogEntry[]): void };
}

/** What the policy needs of a driver instance. */
export interface PolicyDriverInstance extends DriverFunctions {
  /** Position among the instance's drivers (discovery order). */
  readonly index: number;
  /** The instance extensions it was created with. */
  readonly enabledExtensions: readonly string[];
  /** The driver's instance API version. */
  readonly driver: { readonly apiVersion: number };
}

/** What the policy needs of a terminator physical device. */
export interface PolicyPhysicalDevice {
  /** The driver instance it belongs to. */
  readonly driverInstance: PolicyDriverInstance;
  /** The driver's own `VkPhysicalDevice`. */
  readonly driverHandle: Deno.PointerValue;
}

const records = new WeakMap<PolicyPhysicalDevice, PhysicalDeviceRecord>();

/**
 * The record of a terminator physical device (read on first use, then cached for the object's life).
 *
 * @example Usage
 * ```ts ignore
 * console.log(recordOf(inst, term).name);
 * ```
 */
export function recordOf(inst: PolicyInstance, term: PolicyPhysicalDevice): PhysicalDeviceRecord {
  let record = records.get(term);
  if (!record) {
    const d = term.driverInstance;
    record = readDeviceRecord(d, term.driverHandle, {
      properties2: supportsProperties2(inst.apiVersion, d.driver.apiVersion, d.enabledExtensions),
      // The instance's policy is fixed at vkCreateInstance: a record read without it is never asked for it.
      driverID: inst.devicePolicy.driverIdFilter !== undefined,
    });
    records.set(term, record);
  }
  return record;
}

/** Whether any driver of the instance answers `vkGetPhysicalDeviceProperties2` for it. */
function canSort(inst: PolicyInstance): boolean {
  return instanceCanSort({
    appApiVersion: inst.apiVersion,
    drivers: inst.drivers.map((d) => ({
      apiVersion: d.driver.apiVersion,
      enabledExtensions: d.enabledExtensions,
    })),
  });
}

/** Drivers in reverse discovery order, each driver's items in their own order (a stable sort). */
function loaderOrder<T>(items: readonly T[], driverIndex: (item: T) => number): T[] {
  return items.map((item, i) => ({ item, i })).sort((a, b) =>
    driverIndex(b.item) - driverIndex(a.item) || a.i - b.i
  ).map((x) => x.item);
}

type Tagged<T> = PhysicalDeviceRecord & { readonly term: T };

/**
 * Filters and orders terminator physical devices for `vkEnumeratePhysicalDevices`, logging the order
 * and every removal; `order` is the full decision (for reports).
 *
 * @example Usage
 * ```ts ignore
 * const { devices } = orderTermDevices(inst, termPhysicalDevicesOf(inst));
 * ```
 */
export function orderTermDevices<T extends PolicyPhysicalDevice>(
  inst: PolicyInstance,
  terms: readonly T[],
  policy: DevicePolicy = inst.devicePolicy,
): { devices: T[]; order: DeviceOrder<Tagged<T>>; configured?: ConfiguredDevices<T> } {
  const decision = decideTermDevices(inst, terms, policy);
  inst.log.logAll(decision.messages);
  return decision;
}

/** {@linkcode orderTermDevices} without the logging: its log lines are returned, in order. */
function decideTermDevices<T extends PolicyPhysicalDevice>(
  inst: PolicyInstance,
  terms: readonly T[],
  policy: DevicePolicy,
): {
  devices: T[];
  order: DeviceOrder<Tagged<T>>;
  configured?: ConfiguredDevices<T>;
  messages: readonly LogEntry[];
} {
  const tagged = loaderOrder(terms, (t) => t.driverInstance.index).map((term) => ({
    ...recordOf(inst, term),
    term,
  }));
  const order = orderPhysicalDevices(tagged, policy, { canSort: canSort(inst) });
  const devices = order.devices.map((p) => p.device.term);
  const list = policy.deviceConfigurations;
  if (list === undefined) return { devices, order, messages: order.messages };
  // The settings file's list has the last word on which devices and in what order.
  const configured = selectConfiguredDevices(
    devices,
    (t) => identityOf(inst, t),
    list,
    (t) => recordOf(inst, t).name,
  );
  return {
    devices: [...configured.devices],
    order,
    configured,
    messages: [...order.messages, ...configured.messages],
  };
}

/**
 * {@linkcode orderTermDevices}, returning only the devices; undefined when the settings file's
 * `device_configurations` name devices and none is present (the enumeration then fails, as in the
 * Khronos loader: chain/order/configurations.ts).
 *
 * @example Usage
 * ```ts ignore
 * const terms = applyDevicePolicy(inst, termPhysicalDevicesOf(inst));
 * ```
 */
export function applyDevicePolicy<T extends PolicyPhysicalDevice>(
  inst: PolicyInstance,
  terms: readonly T[],
  policy: DevicePolicy = inst.devicePolicy,
): T[] | undefined {
  // An application calls twice (count, then list), and the drivers report the same devices both times:
  // the order is a function of the devices (their records are read once per object), the policy and the
  // instance, so the second call gets the first call's decision and its log lines again, as if re-sorted.
  const last = decided.get(inst);
  if (last !== undefined && last.policy === policy && sameElements(last.terms, terms)) {
    inst.log.logAll(last.messages);
    return last.devices === undefined ? undefined : [...last.devices] as T[];
  }
  const { devices, configured, messages } = decideTermDevices(inst, terms, policy);
  inst.log.logAll(messages);
  const kept = configured?.failed ? undefined : devices;
  decided.set(inst, { terms: [...terms], policy, devices: kept && [...kept], messages });
  return kept;
}

/** The last device decision per instance (see {@linkcode applyDevicePolicy}). */
const decided = new WeakMap<PolicyInstance, {
  readonly terms: readonly PolicyPhysicalDevice[];
  readonly policy: DevicePolicy;
  readonly devices: readonly PolicyPhysicalDevice[] | undefined;
  readonly messages: readonly LogEntry[];
}>();

const identities = new WeakMap<PolicyPhysicalDevice, DeviceIdentity | string>();

/** A terminator device's identity for the settings file's device list (read on first use, then cached). */
function identityOf(inst: PolicyInstance, term: PolicyPhysicalDevice): DeviceIdentity | string {
  let id = identities.get(term);
  if (id === undefined) {
    id = readDeviceIdentity(term.driverInstance, term.driverHandle, recordOf(inst, term).apiVersion);
    identities.set(term, id);
  }
  return id;
}

/**
 * Filters and orders the drivers' physical-device groups for `vkEnumeratePhysicalDeviceGroups`: devices
 * sorted inside each group, groups by their first device, a group removed when any member fails an id
 * filter. Other fields of a group (e.g. `subsetAllocation`) are kept. Undefined when the settings file's
 * `device_configurations` name devices and none is present: the call fails as the device enumeration does
 * (the Khronos loader's group path reuses the device list's function, Vulkan-Loader PR #2011).
 *
 * @example Usage
 * ```ts ignore
 * const groups = applyGroupPolicy(inst, inst.drivers.flatMap((d) => driverGroups(inst, d, all)));
 * ```
 */
export function applyGroupPolicy<
  T extends PolicyPhysicalDevice,
  G extends { readonly devices: readonly T[] },
>(
  inst: PolicyInstance,
  groups: readonly G[],
  policy: DevicePolicy = inst.devicePolicy,
): G[] | undefined {
  const { groups: kept, failed } = orderTermGroups(inst, groups, policy);
  return failed ? undefined : kept;
}

/**
 * {@linkcode applyGroupPolicy} with the full decision (for reports).
 *
 * @example Usage
 * ```ts ignore
 * const { order } = orderTermGroups(inst, groups);
 * ```
 */
export function orderTermGroups<T extends PolicyPhysicalDevice, G extends { readonly devices: readonly T[] }>(
  inst: PolicyInstance,
  groups: readonly G[],
  policy: DevicePolicy = inst.devicePolicy,
): { groups: G[]; order: GroupOrder<Tagged<T>>; failed?: boolean } {
  const inLoaderOrder = loaderOrder(groups, (g) => g.devices[0]?.driverInstance.index ?? 0);
  const tagged = inLoaderOrder.map((g) => g.devices.map((term) => ({ ...recordOf(inst, term), term })));
  const order = orderPhysicalDeviceGroups(tagged, policy, { canSort: canSort(inst) });
  inst.log.logAll(order.messages);
  const ordered = order.groups.map((g) => ({
    ...inLoaderOrder[g.inputIndex]!,
    devices: g.devices.map((p) => p.device.term),
  }));
  const list = policy.deviceConfigurations;
  if (list === undefined) return { groups: ordered, order };
  // A group holding a device the settings file's list hides is not reported (Vulkan-Loader PR #2011).
  const all = ordered.flatMap((g) => g.devices);
  const selected = selectConfiguredDevices(all, (t) => identityOf(inst, t), list);
  const visible = new Set(selected.devices);
  const kept = dropHiddenGroups(ordered, visible, list.settingsPath, (t) => `"${recordOf(inst, t).name}"`);
  inst.log.logAll(kept.messages);
  return { groups: kept.groups, order, ...(selected.failed ? { failed: true } : {}) };
}
