/**
 * The devices `vkEnumeratePhysicalDevices` returns on Linux and their order, from the id filters and the
 * Linux sort, with log lines saying why each device is where it is (docs/behaviour.md P01-P03).
 *
 * @example Sorting two devices
 * ```ts
 * import { orderPhysicalDevices } from "./devices.ts";
 * import { readDevicePolicy } from "../../discovery/device_selection.ts";
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

import type { LogEntry } from "../../loading/log.ts";
import type { DevicePolicy } from "../../discovery/device_selection.ts";
import { idFilterVerdict } from "./id_filters.ts";
import {
  describeDevice,
  type DevicePlacement,
  type DeviceRecord,
  type OrderOptions,
  placeDevices,
  sortingOff,
} from "./sort.ts";

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

/**
 * Filters and orders physical devices. The input order is the loader's unsorted order (the terminator
 * lists drivers in reverse discovery order, as the Khronos loader does); it is kept when sorting is off.
 *
 * @example Usage
 * ```ts
 * import { orderPhysicalDevices } from "./devices.ts";
 * import { readDevicePolicy } from "../../discovery/device_selection.ts";
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
    const { filters, reasons } = idFilterVerdict(device, policy);
    if (filters.length === 0) {
      kept.push({ device, inputIndex });
      return;
    }
    const why = `removed: ${reasons.join("; ")}`;
    removed.push({ device, inputIndex, filters: [...filters], why });
    messages.push({
      level: "info",
      category: "driver",
      text: `Physical device ${describeDevice(device)} ${why}`,
    });
  });
  const off = sortingOff(policy, options);
  const placed = placeDevices(kept, policy, off);
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
