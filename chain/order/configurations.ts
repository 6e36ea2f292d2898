/**
 * The loader settings file's `device_configurations` applied to the physical devices: which ones
 * `vkEnumeratePhysicalDevices` returns, and in which order (docs/behaviour.md G10).
 *
 * @example Selecting two of three devices, in the list's order
 * ```ts
 * import { selectConfiguredDevices } from "./configurations.ts";
 * const uuid = (n: number) => Array.from({ length: 16 }, (_, i) => (i === 15 ? n : 0));
 * const devices = [1, 2, 3].map((n) => ({ name: `GPU ${n}`, deviceUUID: uuid(n), driverUUID: uuid(9), driverVersion: 1 }));
 * const entry = (n: number, index: number) => ({ index, deviceUUID: uuid(n), driverUUID: uuid(9), driverVersion: 1 });
 * const s = selectConfiguredDevices(devices, (d) => d, { settingsPath: "/x.json", entries: [entry(3, 0), entry(1, 1)] });
 * console.log(s.devices.map((d) => d.name)); // ["GPU 3", "GPU 1"]
 * ```
 *
 * @module
 */

import type { LogEntry } from "../../loading/log.ts";
import {
  type DeviceConfigurations,
  formatUuid,
  type SettingsDeviceConfiguration,
} from "../../discovery/settings_file.ts";
import { Arena } from "../../ffi/memory.ts";
import { offsetOf, sizeOf } from "../../vk/struct_layout.ts";
import { structureType } from "../../vk/names.ts";
import { majorMinor } from "../../vk/api_version.ts";
import { VK_API_VERSION_1_1 } from "../../vk/generated/vk_constants.js";
import type { DriverFunctions } from "./record.ts";

/** What a device is matched by: `VkPhysicalDeviceIDProperties` and `VkPhysicalDeviceProperties` fields. */
export interface DeviceIdentity {
  /** `deviceName`, for messages. */
  readonly name: string;
  /** `deviceUUID` (16 bytes). */
  readonly deviceUUID: ArrayLike<number>;
  /** `driverUUID` (16 bytes). */
  readonly driverUUID: ArrayLike<number>;
  /** `driverVersion`. */
  readonly driverVersion: number;
}

/** The result of {@linkcode selectConfiguredDevices}. */
export interface ConfiguredDevices<T> {
  /** The devices to enumerate, in the list's order. */
  readonly devices: readonly T[];
  /** The devices no entry took (or that cannot be matched), in input order. */
  readonly hidden: readonly T[];
  /** The entries that matched no device. */
  readonly missing: readonly SettingsDeviceConfiguration[];
  /** True when the list is not empty and matched nothing: the enumeration fails, as in the Khronos loader. */
  readonly failed: boolean;
  /** Log lines: the order and why, each hidden device, each entry that found no device. */
  readonly messages: readonly LogEntry[];
}

/**
 * The same elements (by `===`) in the same order: UUID bytes here, device lists in chain/order/policy.ts.
 *
 * @example Usage
 * ```ts
 * import { sameElements } from "./configurations.ts";
 * console.log(sameElements([1, 2], new Uint8Array([1, 2]))); // true
 * ```
 */
export function sameElements(a: ArrayLike<unknown>, b: ArrayLike<unknown>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Whether `device` is the one `entry` names: deviceUUID, driverUUID and driverVersion all equal (the
 * names in the entry only label messages).
 *
 * @example Usage
 * ```ts
 * import { matchesConfiguration } from "./configurations.ts";
 * const u = new Array(16).fill(7);
 * matchesConfiguration({ name: "x", deviceUUID: u, driverUUID: u, driverVersion: 2 }, { index: 0, deviceUUID: u, driverUUID: u, driverVersion: 2 }); // true
 * ```
 */
export function matchesConfiguration(device: DeviceIdentity, entry: SettingsDeviceConfiguration): boolean {
  return device.driverVersion === entry.driverVersion && sameElements(device.deviceUUID, entry.deviceUUID) &&
    sameElements(device.driverUUID, entry.driverUUID);
}

/** An entry as messages name it. */
function describeEntry(entry: SettingsDeviceConfiguration): string {
  const name = entry.deviceName === undefined ? "" : `deviceName "${entry.deviceName}", `;
  const driver = entry.driverName === undefined ? "" : `driverName "${entry.driverName}", `;
  return `device_configurations[${entry.index}] (${name}deviceUUID ${
    formatUuid(entry.deviceUUID)
  }, ${driver}` +
    `driverUUID ${formatUuid(entry.driverUUID)}, driverVersion ${entry.driverVersion})`;
}

/**
 * Applies a settings file's device list to devices given in the loader's order. `identityOf` gives a
 * device's identity, or a sentence saying why it cannot be matched (a Vulkan 1.0 device or driver); such a
 * device is hidden, named by `nameOf`. Pure: no FFI.
 *
 * @example Usage
 * ```ts
 * import { selectConfiguredDevices } from "./configurations.ts";
 * const s = selectConfiguredDevices(["a"], () => "a Vulkan 1.0 device", { settingsPath: "/x.json", entries: [] });
 * console.log(s.devices.length, s.hidden, s.failed); // 0 ["a"] false
 * ```
 */
export function selectConfiguredDevices<T>(
  devices: readonly T[],
  identityOf: (device: T) => DeviceIdentity | string,
  list: DeviceConfigurations,
  nameOf: (device: T) => string = (d) => String(d),
): ConfiguredDevices<T> {
  const file = `the loader settings file "${list.settingsPath}"`;
  const identities = devices.map(identityOf);
  const taken = new Array<boolean>(devices.length).fill(false);
  const picked: { device: T; entry: SettingsDeviceConfiguration; at: number }[] = [];
  const missing: SettingsDeviceConfiguration[] = [];
  for (const entry of list.entries) {
    const at = identities.findIndex((id, i) =>
      !taken[i] && typeof id !== "string" && matchesConfiguration(id, entry)
    );
    if (at < 0) {
      missing.push(entry);
      continue;
    }
    taken[at] = true;
    picked.push({ device: devices[at]!, entry, at });
  }
  const label = (i: number) => {
    const id = identities[i]!;
    return `"${typeof id === "string" ? nameOf(devices[i]!) : id.name}"`;
  };
  const messages: LogEntry[] = [{
    level: "info",
    category: "driver",
    text: `Physical devices selected and ordered by the device_configurations of ${file}:`,
  }];
  picked.forEach((p, k) => {
    messages.push({
      level: "info",
      category: "driver",
      text: `    [${k}] ${label(p.at)}: ${describeEntry(p.entry)}`,
    });
  });
  const hidden: T[] = [];
  devices.forEach((device, i) => {
    if (taken[i]) return;
    hidden.push(device);
    const id = identities[i]!;
    const why = typeof id === "string"
      ? `cannot be matched (${id})`
      : `is in no entry of its device_configurations (deviceUUID ${formatUuid(id.deviceUUID)}, driverUUID ${
        formatUuid(id.driverUUID)
      }, driverVersion ${id.driverVersion})`;
    messages.push({
      level: "info",
      category: "driver",
      text: `Physical device ${label(i)} hidden by ${file}: it ${why}`,
    });
  });
  for (const entry of missing) {
    messages.push({
      level: "warn",
      text: `The loader settings file "${list.settingsPath}" names a physical device that is not present: ${
        describeEntry(entry)
      }`,
      file: list.settingsPath,
    });
  }
  const failed = list.entries.length > 0 && picked.length === 0;
  if (failed) {
    messages.push({
      level: "warn",
      text: `None of the device_configurations of ${file} matches a physical device: ` +
        "vkEnumeratePhysicalDevices fails with VK_ERROR_INITIALIZATION_FAILED, as in the Khronos loader",
      file: list.settingsPath,
    });
  }
  return { devices: picked.map((p) => p.device), hidden, missing, failed, messages };
}

/**
 * The groups to report when `visible` are the devices shown: a group holding any other device is dropped
 * whole (Vulkan-Loader PR #2011), with a line naming it; the rest keep their order.
 *
 * @example Usage
 * ```ts
 * import { dropHiddenGroups } from "./configurations.ts";
 * const r = dropHiddenGroups([{ devices: ["a"] }, { devices: ["b", "c"] }], new Set(["a", "b"]), "/x.json", String);
 * console.log(r.groups.length); // 1
 * ```
 */
export function dropHiddenGroups<T, G extends { readonly devices: readonly T[] }>(
  groups: readonly G[],
  visible: ReadonlySet<T>,
  settingsPath: string,
  describe: (device: T) => string,
): { groups: G[]; messages: LogEntry[] } {
  const messages: LogEntry[] = [];
  const kept = groups.filter((g, i) => {
    const hidden = g.devices.find((d) => !visible.has(d));
    if (hidden === undefined) return true;
    messages.push({
      level: "info",
      category: "driver",
      text: `Physical device group ${i} (${g.devices.map(describe).join(", ")}) not reported: it holds ${
        describe(hidden)
      }, which the device_configurations of the loader settings file "${settingsPath}" hide`,
    });
    return false;
  });
  return { groups: kept, messages };
}

/** What the identity read needs of a driver instance. */
export interface IdentityDriver extends DriverFunctions {
  /** The driver's instance API version (a 1.0 application's instance is raised to 1.1 on 1.1+ drivers). */
  readonly driver: { readonly apiVersion: number };
}

/**
 * Reads a physical device's identity with `vkGetPhysicalDeviceProperties2` and
 * `VkPhysicalDeviceIDProperties`, or says why it cannot (a 1.0 device, or a 1.0 driver). `deviceApiVersion`
 * is the device's `VkPhysicalDeviceProperties::apiVersion` (already read for the sort).
 *
 * @example Usage
 * ```ts ignore
 * const id = readDeviceIdentity(term.driverInstance, term.driverHandle, record.apiVersion);
 * ```
 */
export function readDeviceIdentity(
  driver: IdentityDriver,
  physicalDevice: Deno.PointerValue,
  deviceApiVersion: number,
): DeviceIdentity | string {
  const v11 = majorMinor(VK_API_VERSION_1_1);
  if (majorMinor(deviceApiVersion) < v11) return "a Vulkan 1.0 device has no VkPhysicalDeviceIDProperties";
  if (majorMinor(driver.driver.apiVersion) < v11) return "its driver is Vulkan 1.0";
  const getProperties2 = driver.fn("vkGetPhysicalDeviceProperties2");
  if (!getProperties2) return "its driver has no vkGetPhysicalDeviceProperties2";
  using arena = new Arena();
  const P2 = "VkPhysicalDeviceProperties2", ID = "VkPhysicalDeviceIDProperties";
  const idAt = (sizeOf(P2) + 7) & ~7;
  const buf = arena.alloc(idAt + sizeOf(ID));
  const base = Deno.UnsafePointer.value(arena.pointer(buf));
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  view.setUint32(0, structureType("VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2"), true);
  view.setBigUint64(offsetOf(P2, "pNext"), BigInt(base) + BigInt(idAt), true);
  view.setUint32(idAt, structureType("VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES"), true);
  getProperties2(physicalDevice, arena.pointer(buf));
  const props = offsetOf(P2, "properties");
  const nameAt = props + offsetOf("VkPhysicalDeviceProperties", "deviceName");
  let end = nameAt;
  while (end < nameAt + 256 && buf[end] !== 0) end++;
  const bytes = (at: number) => Array.from(buf.subarray(at, at + 16));
  return {
    name: new TextDecoder().decode(buf.subarray(nameAt, end)),
    driverVersion: view.getUint32(props + offsetOf("VkPhysicalDeviceProperties", "driverVersion"), true),
    deviceUUID: bytes(idAt + offsetOf(ID, "deviceUUID")),
    driverUUID: bytes(idAt + offsetOf(ID, "driverUUID")),
  };
}

/**
 * Explains an order a loader already returned by a settings file's device list: when applying the list to
 * the enumerated devices gives them back unchanged (the list's order, nothing hidden), each device gets the
 * entry that placed it; otherwise undefined (the list did not make this order: a loader that does not read
 * the file, or a layer above it reordered). For `deno task info`.
 *
 * @example Usage
 * ```ts
 * import { explainConfiguredOrder } from "./configurations.ts";
 * const u = new Array(16).fill(1);
 * const d = { name: "GPU", deviceUUID: u, driverUUID: u, driverVersion: 1 };
 * const why = explainConfiguredOrder([d], (x) => x, { settingsPath: "/x.json", entries: [{ index: 0, deviceUUID: u, driverUUID: u, driverVersion: 1 }] });
 * console.log(why?.[0]?.rule); // "settings"
 * ```
 */
export function explainConfiguredOrder<T>(
  enumerated: readonly T[],
  identityOf: (device: T) => DeviceIdentity | string,
  list: DeviceConfigurations,
): { readonly rule: "settings"; readonly why: string }[] | undefined {
  const identities = enumerated.map(identityOf);
  const selected = selectConfiguredDevices(identities.map((_, i) => i), (i) => identities[i]!, list);
  if (selected.hidden.length > 0 || selected.devices.some((d, i) => d !== i)) return undefined;
  return enumerated.map((_, i) => {
    const id = identities[i] as DeviceIdentity;
    const entry = list.entries.find((e) => matchesConfiguration(id, e))!;
    return {
      rule: "settings" as const,
      why: `device_configurations[${entry.index}] of the loader settings file "${list.settingsPath}" ` +
        `puts it at position ${i}`,
    };
  });
}
