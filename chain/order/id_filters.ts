/**
 * The device id filters as rules over plain device records (docs/behaviour.md P03).
 *
 * @module
 */

import type { DevicePolicy, IdFilter } from "../../discovery/device_selection.ts";
import { type DeviceRecord, hexId } from "./sort.ts";

/**
 * The policy without its id filters: what the terminator applies, since the Khronos loader filters the
 * list at the top of the chain, after the layers (see chain/order/chain_filter.ts).
 *
 * @example Usage
 * ```ts
 * import { withoutIdFilters } from "./id_filters.ts";
 * import { readDevicePolicy } from "../../discovery/device_selection.ts";
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
 * import { hasIdFilters } from "./id_filters.ts";
 * import { readDevicePolicy } from "../../discovery/device_selection.ts";
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
 * import { idFilterRejections } from "./id_filters.ts";
 * import { readDevicePolicy } from "../../discovery/device_selection.ts";
 * const p = readDevicePolicy({ vars: { VK_LOADER_DEVICE_ID_FILTER: "1" }, elevated: false });
 * console.log(idFilterRejections({ vendorID: 1, deviceID: 2, deviceType: 1 }, p).length); // 1
 * ```
 */
export function idFilterRejections(d: DeviceRecord, policy: DevicePolicy): string[] {
  return [...idFilterVerdict(d, policy).reasons];
}

/** The filter variables that reject a device and one sentence for each (both empty when it stays). */
export interface IdFilterVerdict {
  /** The variables, e.g. `VK_LOADER_VENDOR_ID_FILTER`. */
  readonly filters: readonly string[];
  /** A sentence per variable naming its value and the id it rejected. */
  readonly reasons: readonly string[];
}

/**
 * What the id filters say of device `d`: a device stays only when every filter that is set matches it; a
 * `VK_LOADER_DRIVER_ID_FILTER` rejects a device whose `driverID` is unknown.
 *
 * @example Usage
 * ```ts
 * import { idFilterVerdict } from "./id_filters.ts";
 * import { readDevicePolicy } from "../../discovery/device_selection.ts";
 * const p = readDevicePolicy({ vars: { VK_LOADER_VENDOR_ID_FILTER: "0x10de" }, elevated: false });
 * console.log(idFilterVerdict({ vendorID: 0x1002, deviceID: 1, deviceType: 2 }, p).filters); // ["VK_LOADER_VENDOR_ID_FILTER"]
 * ```
 */
export function idFilterVerdict(d: DeviceRecord, policy: DevicePolicy): IdFilterVerdict {
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
      reasons.push(`${filter.variable}="${filter.text}" does not match ${field} ${hexId(value)} (${value})`);
    }
  };
  check(policy.deviceIdFilter, d.deviceID, "deviceID");
  check(policy.vendorIdFilter, d.vendorID, "vendorID");
  check(policy.driverIdFilter, d.driverID, "driverID");
  return { filters, reasons };
}
