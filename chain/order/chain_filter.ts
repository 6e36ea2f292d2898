/**
 * The device id filters applied at the top of the chain, to the devices and groups the layers return
 * (docs/behaviour.md P03, A18, A19).
 *
 * @example In the `vkEnumeratePhysicalDevices` trampoline
 * ```ts ignore
 * const kept = filterChainDevices(inst, stubs, handles);
 * ```
 *
 * @module
 */

import { COMMAND_INDEX, COMMANDS } from "../../vk/generated/commands.ts";
import { readCString, readU32 } from "../../ffi/memory.ts";
import { describeDevice, type DeviceRecord } from "./sort.ts";
import { idFilterRejections } from "./id_filters.ts";
import { recordOf } from "./policy.ts";
import type { LoaderInstance } from "../objects.ts";
import type { ChainStubs } from "../stubs.ts";
import { structureType } from "../../vk/names.ts";
import { handleKey } from "../../vk/handle_key.ts";
import { VK_API_VERSION_1_1 } from "../../vk/generated/vk_constants.js";
import { commandDef } from "../../vk/command_ffi.ts";

// VkPhysicalDeviceProperties: apiVersion, driverVersion, vendorID @8, deviceID @12, deviceType @16,
// deviceName @20 (824 bytes in all). VkPhysicalDeviceProperties2: sType, pNext, properties @16.
// VkPhysicalDeviceDriverProperties: sType, pNext, driverID @16 (536 bytes).
const PROPERTIES_SIZE = 824;
const DRIVER_PROPERTIES_SIZE = 536;

function bind(stubs: ChainStubs, name: string): (...args: unknown[]) => unknown {
  const slot = COMMAND_INDEX[name]!;
  return stubs.bindTrampoline(slot, commandDef(COMMANDS[slot]!));
}

/** Whether the instance may call `vkGetPhysicalDeviceProperties2` (1.1, or the extension enabled). */
function hasProperties2(inst: LoaderInstance): boolean {
  return (inst.apiVersion & 0x1fffffff) >= VK_API_VERSION_1_1 ||
    inst.enabledExtensions.has("VK_KHR_get_physical_device_properties2");
}

/** The ids of a handle a layer made, asked through the chain with the loader's wrapper of it. */
function chainRecord(
  inst: LoaderInstance,
  stubs: ChainStubs,
  handle: bigint,
  driverId: boolean,
): DeviceRecord {
  const tramp = inst.trampFor(handle);
  const props = new Uint8Array(PROPERTIES_SIZE);
  bind(stubs, "vkGetPhysicalDeviceProperties")(
    Deno.UnsafePointer.create(tramp.address),
    Deno.UnsafePointer.of(props),
  );
  const p = Deno.UnsafePointer.of(props);
  const record: { -readonly [K in keyof DeviceRecord]: DeviceRecord[K] } = {
    vendorID: readU32(p, 8),
    deviceID: readU32(p, 12),
    deviceType: readU32(p, 16),
    name: readCString(Deno.UnsafePointer.offset(p!, 20)),
  };
  if (driverId && hasProperties2(inst)) {
    const driver = new Uint8Array(DRIVER_PROPERTIES_SIZE);
    const dv = new DataView(driver.buffer);
    dv.setUint32(0, structureType("VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES"), true);
    const props2 = new Uint8Array(16 + PROPERTIES_SIZE);
    const v2 = new DataView(props2.buffer);
    v2.setUint32(0, structureType("VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2"), true);
    v2.setBigUint64(8, BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(driver))), true);
    bind(stubs, "vkGetPhysicalDeviceProperties2")(
      Deno.UnsafePointer.create(tramp.address),
      Deno.UnsafePointer.of(props2),
    );
    const id = dv.getUint32(16, true);
    if (id !== 0) record.driverID = id;
  }
  return record;
}

/** The record of a chain handle: the terminator's when it is the loader's own, else asked through the chain. */
function recordFor(inst: LoaderInstance, stubs: ChainStubs, handle: bigint): DeviceRecord {
  const term = inst.handleMaps.termPhysicalDevices.get(handleKey(handle));
  if (term !== undefined) return recordOf(inst, term);
  return chainRecord(inst, stubs, handle, inst.devicePolicy.driverIdFilter !== undefined);
}

/** Why the filters remove `handle`, or undefined when it stays; each removal is logged once per call. */
function rejection(inst: LoaderInstance, stubs: ChainStubs, handle: bigint): string | undefined {
  const record = recordFor(inst, stubs, handle);
  const reasons = idFilterRejections(record, inst.devicePolicy);
  if (reasons.length === 0) return undefined;
  return `Physical device ${describeDevice(record)} removed: ${reasons.join("; ")}`;
}

/**
 * The chain's devices that pass the id filters, in the chain's order.
 *
 * @example Usage
 * ```ts ignore
 * const kept = filterChainDevices(inst, stubs, [0x55aa00n, 0x55ab00n]);
 * ```
 */
export function filterChainDevices(
  inst: LoaderInstance,
  stubs: ChainStubs,
  handles: readonly bigint[],
): bigint[] {
  return handles.filter((h) => {
    const why = rejection(inst, stubs, h);
    if (why !== undefined) inst.log.info(why, "driver");
    return why === undefined;
  });
}

/**
 * The chain's groups whose every device passes the id filters (a group goes as soon as one member fails,
 * as in the Khronos loader; docs/behaviour.md P03).
 *
 * @example Usage
 * ```ts ignore
 * const kept = filterChainGroups(inst, stubs, groups);
 * ```
 */
export function filterChainGroups<G extends { readonly devices: readonly bigint[] }>(
  inst: LoaderInstance,
  stubs: ChainStubs,
  groups: readonly G[],
): G[] {
  return groups.filter((g) => {
    const why = g.devices.map((h) => rejection(inst, stubs, h)).find((w) => w !== undefined);
    if (why !== undefined) inst.log.info(`Physical device group removed: ${why}`, "driver");
    return why === undefined;
  });
}
