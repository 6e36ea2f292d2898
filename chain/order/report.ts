/**
 * Reports of the physical-device policy for people: why an order the loader already returned is what it
 * is (`deno task info`, examples/info.ts), and the rules a policy applies before any device is known
 * (`deno task inspect`).
 *
 * @module
 */

import type { DevicePolicy, IdFilter } from "../../discovery/device_selection.ts";
import { withoutIdFilters } from "./id_filters.ts";
import { orderPhysicalDevices } from "./devices.ts";
import { type DeviceRecord, hexId, type OrderOptions, type PlacementRule } from "./sort.ts";

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
 * import { explainEnumeratedOrder } from "./report.ts";
 * import { readDevicePolicy } from "../../discovery/device_selection.ts";
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
  const order = orderPhysicalDevices(enumerated, withoutIdFilters(policy), options);
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
 * import { describeDevicePolicy } from "./report.ts";
 * import { readDevicePolicy } from "../../discovery/device_selection.ts";
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
      ranges: f.ranges.map((r) => r.first === r.last ? hexId(r.first) : `${hexId(r.first)}-${hexId(r.last)}`),
    }));
  const select = policy.select
    ? `${hexId(policy.select.vendorID)}:${hexId(policy.select.deviceID)}`
    : undefined;
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
