/**
 * The order `vkEnumeratePhysicalDeviceGroups` returns on Linux (docs/behaviour.md A15: groups are "sorted
 * like devices; filters apply"): each group's devices are sorted as devices are (chain/order/sort.ts),
 * then the groups by their first device; a group is removed when any of its devices fails an id filter
 * (chain/order/id_filters.ts), since an application uses a group as a whole.
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
  type PlacementRule,
  sortingOff,
} from "./sort.ts";

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
 * import { orderPhysicalDeviceGroups } from "./groups.ts";
 * import { readDevicePolicy } from "../../discovery/device_selection.ts";
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
    const failures = group.map((d) => ({ d, ...idFilterVerdict(d, policy) })).filter((f) =>
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
    const devices = placeDevices(group.map((device, i) => ({ device, inputIndex: i })), policy, off);
    if (devices[0]) kept.push({ devices, inputIndex, head: devices[0].device });
  });
  const heads = placeDevices(
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
