/**
 * The bottom of the instance chain: the terminators of the instance-level commands where the loader has work
 * to do (fan-out to drivers, physical-device aggregation).
 *
 * @module
 */

import { address, type Pointer, readPointer, readU32, writeU32, writeU64 } from "../ffi/memory.ts";
import { handleKey, handleText } from "../vk/handle_key.ts";
import { applyDevicePolicy, applyGroupPolicy } from "./order/policy.ts";
import { withoutIdFilters } from "./order/id_filters.ts";
import type { DriverInstance, HandleMaps, LoaderInstance, TermPhysicalDevice } from "./objects.ts";
import { writeTwoCall } from "../vk/two_call.ts";
import { offsetOf, sizeOf } from "../vk/struct_layout.ts";
import { structureType } from "../vk/names.ts";
import {
  VK_ERROR_INITIALIZATION_FAILED,
  VK_ERROR_LAYER_NOT_PRESENT,
  VK_INCOMPLETE,
  VK_SUCCESS,
} from "../vk/generated/vk_constants.js";

/** A count word and a few handle words whose addresses are taken once (see {@linkcode enumerateHandles}). */
interface Scratch {
  readonly words: BigUint64Array<ArrayBuffer>;
  readonly count: Uint32Array<ArrayBuffer>;
  readonly pCount: Deno.PointerObject;
  readonly pWords: Deno.PointerObject;
}

const SCRATCH_HANDLES = 8;
/** Free while no enumeration runs; a nested one (a layer enumerating inside the call) makes its own. */
let scratch: Scratch | undefined;

function takeScratch(): Scratch {
  const kept = scratch;
  scratch = undefined;
  if (kept !== undefined) return kept;
  // Off the V8 heap (an explicit ArrayBuffer): its address never moves.
  const buffer = new ArrayBuffer((SCRATCH_HANDLES + 1) * 8);
  const words = new BigUint64Array(buffer, 8, SCRATCH_HANDLES);
  const count = new Uint32Array(buffer, 0, 1);
  return { words, count, pCount: Deno.UnsafePointer.of(count)!, pWords: Deno.UnsafePointer.of(words)! };
}

/**
 * Calls a two-call enumeration until it stops saying `VK_INCOMPLETE`; returns the raw 8-byte items. It runs
 * four times per `vkEnumeratePhysicalDevices` pair of the application: the count and the list are asked in
 * memory whose addresses are kept (taking a fresh buffer's address costs ~1 us, three per call).
 */
export function enumerateHandles(
  call: (pCount: Pointer, pOut: Pointer) => number,
): { result: number; handles: bigint[] } {
  const s = takeScratch();
  try {
    for (let attempt = 0; attempt < 8; attempt++) {
      s.count[0] = 0;
      const r = call(s.pCount, null);
      if (r < 0) return { result: r, handles: [] };
      const wanted = s.count[0]!;
      const big = wanted > SCRATCH_HANDLES ? new BigUint64Array(new ArrayBuffer(wanted * 8)) : undefined;
      const r2 = call(s.pCount, big ? Deno.UnsafePointer.of(big) : s.pWords);
      if (r2 === VK_INCOMPLETE) continue;
      if (r2 < 0) return { result: r2, handles: [] };
      const n = Math.min(s.count[0]!, wanted);
      const out = big ?? s.words;
      const handles: bigint[] = [];
      for (let i = 0; i < n; i++) handles.push(out[i]!);
      return { result: VK_SUCCESS, handles };
    }
    return { result: VK_INCOMPLETE, handles: [] };
  } finally {
    scratch = s;
  }
}

function instanceOf(handleMaps: HandleMaps, handle: Pointer, command: string): LoaderInstance {
  const inst = handleMaps.instances.get(handleKey(handle));
  if (!inst) throw new TypeError(`${command}: invalid VkInstance "${handleText(handleKey(handle))}"`);
  return inst;
}

function termOf(handleMaps: HandleMaps, handle: Pointer, command: string): TermPhysicalDevice {
  const term = handleMaps.termPhysicalDevices.get(handleKey(handle));
  if (!term) throw new TypeError(`${command}: invalid VkPhysicalDevice "${handleText(handleKey(handle))}"`);
  return term;
}

/** The drivers' physical devices of an instance, as terminator objects, in driver order. */
export function termPhysicalDevicesOf(inst: LoaderInstance): TermPhysicalDevice[] {
  const out: TermPhysicalDevice[] = [];
  for (const d of inst.drivers) {
    const fn = d.fn("vkEnumeratePhysicalDevices");
    if (!fn) continue;
    const { result, handles } = enumerateHandles((c, o) => fn(d.handle, c, o) as number);
    if (result < 0) {
      inst.log.warn(
        `Driver "${d.name}": vkEnumeratePhysicalDevices failed with "${result}", skipping it`,
        "driver",
      );
      continue;
    }
    for (const h of handles) out.push(inst.termFor(d, h));
  }
  return out;
}

/** A physical-device group as the terminator sees it. */
export interface TermGroup {
  readonly devices: readonly TermPhysicalDevice[];
  readonly subsetAllocation: boolean;
}

const GROUP = "VkPhysicalDeviceGroupProperties";

/** Reads `n` group structs at `p`, mapping each device handle with `map`. */
export function readGroups<T>(
  p: Pointer,
  n: number,
  map: (h: bigint) => T,
): { devices: T[]; subsetAllocation: boolean }[] {
  const size = sizeOf(GROUP);
  const countAt = offsetOf(GROUP, "physicalDeviceCount");
  const devicesAt = offsetOf(GROUP, "physicalDevices");
  const subsetAt = offsetOf(GROUP, "subsetAllocation");
  const out: { devices: T[]; subsetAllocation: boolean }[] = [];
  for (let i = 0; i < n; i++) {
    const base = i * size;
    const count = Math.min(32, readU32(p, base + countAt));
    const devices: T[] = [];
    for (let j = 0; j < count; j++) devices.push(map(address(readPointer(p, base + devicesAt + j * 8))));
    out.push({ devices, subsetAllocation: readU32(p, base + subsetAt) !== 0 });
  }
  return out;
}

/** Writes group `g` into the caller's struct `i` at `p`, keeping its `sType` and `pNext`. */
export function writeGroup(
  p: Pointer,
  i: number,
  handles: readonly bigint[],
  subsetAllocation: boolean,
): void {
  const base = i * sizeOf(GROUP);
  writeU32(p, base + offsetOf(GROUP, "physicalDeviceCount"), handles.length);
  handles.forEach((h, j) => writeU64(p, base + offsetOf(GROUP, "physicalDevices") + j * 8, h));
  writeU32(p, base + offsetOf(GROUP, "subsetAllocation"), subsetAllocation ? 1 : 0);
}

/** Fresh group structs (sType set, pNext NULL) for `n` groups. */
export function groupStructs(n: number): Uint8Array<ArrayBuffer> {
  const size = sizeOf(GROUP);
  const buf = new Uint8Array(new ArrayBuffer(Math.max(1, n) * size));
  const dv = new DataView(buf.buffer);
  const sType = structureType("VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES");
  for (let i = 0; i < n; i++) dv.setUint32(i * size, sType, true);
  return buf;
}

function driverGroups(inst: LoaderInstance, d: DriverInstance, all: TermPhysicalDevice[]): TermGroup[] {
  const mine = all.filter((t) => t.driverInstance === d);
  const fn = d.fn("vkEnumeratePhysicalDeviceGroups");
  if (fn) {
    const count = new Uint32Array(new ArrayBuffer(4));
    let r = fn(d.handle, Deno.UnsafePointer.of(count), null) as number;
    if (r >= 0) {
      const buf = groupStructs(count[0]!);
      r = fn(d.handle, Deno.UnsafePointer.of(count), Deno.UnsafePointer.of(buf)) as number;
      if (r >= 0) {
        // Only devices vkEnumeratePhysicalDevices returned (docs/behaviour.md A15): a driver whose device
        // enumeration failed, or a handle it never listed there, adds nothing; a group left empty goes.
        const byHandle = new Map(mine.map((t) => [handleKey(t.driverHandle), t]));
        return readGroups(Deno.UnsafePointer.of(buf), count[0]!, (h) => byHandle.get(handleKey(h)))
          .map((g) => ({
            devices: g.devices.filter((t): t is TermPhysicalDevice => t !== undefined),
            subsetAllocation: g.subsetAllocation,
          }))
          .filter((g) => g.devices.length > 0);
      }
    }
    inst.log.warn(
      `Driver "${d.name}": vkEnumeratePhysicalDeviceGroups failed with "${r}", one group per device`,
      "driver",
    );
  }
  return mine.map((t) => ({ devices: [t], subsetAllocation: false }));
}

/**
 * The instance-level terminator bodies of one loader, by command name (device.ts has `vkCreateDevice`'s):
 * they find the loader's objects behind the handles the chain passes down in `handleMaps`.
 *
 * @example Usage
 * ```ts
 * import { terminatorBodies } from "./terminator.ts";
 * import { HandleMaps } from "./objects.ts";
 * console.log("vkEnumeratePhysicalDevices" in terminatorBodies(new HandleMaps())); // true
 * ```
 */
export function terminatorBodies(
  handleMaps: HandleMaps,
): Readonly<Record<string, (...args: unknown[]) => unknown>> {
  return {
    vkDestroyInstance(instance, pAllocator) {
      const inst = handleMaps.instances.get(handleKey(instance as Pointer));
      // A layer may destroy the instance it got from below and still fail its vkCreateInstance: once only.
      if (!inst || inst.driverInstancesDestroyed) return;
      inst.driverInstancesDestroyed = true;
      for (const d of inst.drivers) d.fn("vkDestroyInstance")?.(d.handle, pAllocator);
    },

    vkEnumeratePhysicalDevices(instance, pCount, pDevices) {
      const inst = instanceOf(handleMaps, instance as Pointer, "vkEnumeratePhysicalDevices");
      const all = termPhysicalDevicesOf(inst);
      if (all.length === 0) {
        inst.log.error("vkEnumeratePhysicalDevices: no driver reported a physical device");
        return VK_ERROR_INITIALIZATION_FAILED;
      }
      // The Khronos loader's order on Linux (sorted, selected): chain/order/policy.ts. The id filters apply
      // at the top of the chain, after the layers, as there (chain/order/chain_filter.ts).
      const terms = applyDevicePolicy(inst, all, withoutIdFilters(inst.devicePolicy));
      // The settings file's device_configurations named devices and none is here (chain/order/configurations.ts).
      if (terms === undefined) return VK_ERROR_INITIALIZATION_FAILED;
      return writeTwoCall(
        pCount as Pointer,
        pDevices as Pointer,
        terms,
        (i, t) => writeU64(pDevices as Pointer, i * 8, t.address),
      );
    },

    vkEnumeratePhysicalDeviceGroups(instance, pCount, pGroups) {
      const inst = instanceOf(handleMaps, instance as Pointer, "vkEnumeratePhysicalDeviceGroups");
      const all = termPhysicalDevicesOf(inst);
      const driverGroupList = inst.drivers.flatMap((d) => driverGroups(inst, d, all));
      if (driverGroupList.length === 0) return VK_ERROR_INITIALIZATION_FAILED;
      const groups = applyGroupPolicy(inst, driverGroupList, withoutIdFilters(inst.devicePolicy));
      if (groups === undefined) return VK_ERROR_INITIALIZATION_FAILED; // as for devices, just above
      return writeTwoCall(
        pCount as Pointer,
        pGroups as Pointer,
        groups,
        (i, g) => writeGroup(pGroups as Pointer, i, g.devices.map((t) => t.address), g.subsetAllocation),
      );
    },

    vkEnumerateDeviceExtensionProperties(physicalDevice, pLayerName, pCount, pProperties) {
      const term = termOf(handleMaps, physicalDevice as Pointer, "vkEnumerateDeviceExtensionProperties");
      // LDP_LOADER_12: a layer's extensions never come from the driver.
      if (pLayerName !== null) return VK_ERROR_LAYER_NOT_PRESENT;
      const fn = term.driverInstance.fn("vkEnumerateDeviceExtensionProperties");
      if (!fn) return VK_ERROR_INITIALIZATION_FAILED;
      return fn(term.driverHandle, null, pCount, pProperties);
    },

    vkEnumerateDeviceLayerProperties(_physicalDevice, pCount) {
      // Device layers are deprecated: the loader answers, drivers are never asked.
      writeU32(pCount as Pointer, 0, 0);
      return VK_SUCCESS;
    },
  };
}
