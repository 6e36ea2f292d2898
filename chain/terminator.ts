/**
 * The bottom of the instance chain: the terminators of the commands where the loader has work to do
 * (fan-out to drivers, physical-device aggregation, `vkCreateDevice`), and the terminator link's
 * `vkGetInstanceProcAddr`. Plain physical-device commands need no TypeScript: their terminator is the
 * terminator unwrap stub, which jumps into the driver with the driver's handle.
 *
 * Terminators receive what the chain passes down: the loader's `VkInstance` and terminator physical
 * devices.
 *
 * @module
 */

import { Arena, pointerFromAddress, readPointer, readU32, writeU32, writeU64 } from "../ffi/memory.ts";
import { STRUCT_BY_STYPE, STRUCTS } from "../ffi/generated/structs.ts";
import type { DriverInstance } from "./driver_instance.ts";
import { applyDevicePolicy, applyGroupPolicy } from "./device_policy.ts";
import { withoutIdFilters } from "./device_id_filters.ts";
import { deviceCreateInfoExtensions, hasLoaderMagic, LoaderDevice, pendingDevices } from "./device.ts";
import { instances, type LoaderInstance, type TermPhysicalDevice, termPhysicalDevices } from "./instance.ts";
import { key } from "./_registry.ts";
import { writeTwoCall } from "../ffi/two_call.ts";
import { offsetOf, sizeOf, structureType, VK } from "../loading/_layout.ts";
import { skipLoaderNodes } from "./layer_nodes.ts";

type P = Deno.PointerValue;

/** Calls a two-call enumeration until it stops saying `VK_INCOMPLETE`; returns the raw 8-byte items. */
export function enumerateHandles(
  call: (pCount: P, pOut: P) => number,
): { result: number; handles: bigint[] } {
  const count = new Uint32Array(new ArrayBuffer(4));
  for (let attempt = 0; attempt < 8; attempt++) {
    const r = call(Deno.UnsafePointer.of(count), null);
    if (r < 0) return { result: r, handles: [] };
    const out = new BigUint64Array(new ArrayBuffer(Math.max(1, count[0]!) * 8));
    const r2 = call(Deno.UnsafePointer.of(count), Deno.UnsafePointer.of(out));
    if (r2 === VK.INCOMPLETE) continue;
    if (r2 < 0) return { result: r2, handles: [] };
    return { result: VK.SUCCESS, handles: [...out.subarray(0, count[0]!)] };
  }
  return { result: VK.INCOMPLETE, handles: [] };
}

function instanceOf(handle: P, command: string): LoaderInstance {
  const inst = instances.get(key(handle));
  if (!inst) throw new TypeError(`${command}: invalid VkInstance "0x${key(handle).toString(16)}"`);
  return inst;
}

function termOf(handle: P, command: string): TermPhysicalDevice {
  const term = termPhysicalDevices.get(key(handle));
  if (!term) throw new TypeError(`${command}: invalid VkPhysicalDevice "0x${key(handle).toString(16)}"`);
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
    for (const h of handles) out.push(inst.termFor(d, pointerFromAddress(h) as Deno.PointerObject));
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
  p: P,
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
    for (let j = 0; j < count; j++) devices.push(map(key(readPointer(p, base + devicesAt + j * 8))));
    out.push({ devices, subsetAllocation: readU32(p, base + subsetAt) !== 0 });
  }
  return out;
}

/** Writes group `g` into the caller's struct `i` at `p`, keeping its `sType` and `pNext`. */
export function writeGroup(p: P, i: number, handles: readonly bigint[], subsetAllocation: boolean): void {
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
        // Only devices vkEnumeratePhysicalDevices returned (issue 17, rule 1): a driver whose device
        // enumeration failed, or a handle it never listed there, adds nothing; a group left empty goes.
        const byHandle = new Map(mine.map((t) => [key(t.driverHandle), t]));
        return readGroups(Deno.UnsafePointer.of(buf), count[0]!, (h) => byHandle.get(h))
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

/** The terminator bodies, by command name. */
export const TERMINATOR_BODIES: Readonly<Record<string, (...args: unknown[]) => unknown>> = {
  vkDestroyInstance(instance, pAllocator) {
    const inst = instances.get(key(instance));
    // A layer may destroy the instance it got from below and still fail its vkCreateInstance: once only.
    if (!inst || inst.driverInstancesDestroyed) return;
    inst.driverInstancesDestroyed = true;
    for (const d of inst.drivers) d.fn("vkDestroyInstance")?.(d.handle, pAllocator);
  },

  vkEnumeratePhysicalDevices(instance, pCount, pDevices) {
    const inst = instanceOf(instance as P, "vkEnumeratePhysicalDevices");
    const all = termPhysicalDevicesOf(inst);
    if (all.length === 0) {
      inst.log.error("vkEnumeratePhysicalDevices: no driver reported a physical device");
      return VK.ERROR_INITIALIZATION_FAILED;
    }
    // The Khronos loader's order on Linux (sorted, selected): chain/device_policy.ts. The id filters apply
    // at the top of the chain, after the layers, as there (chain/device_filter.ts).
    const terms = applyDevicePolicy(inst, all, withoutIdFilters(inst.devicePolicy));
    return writeTwoCall(
      pCount as P,
      pDevices as P,
      terms,
      (i, t) => writeU64(pDevices as P, i * 8, t.address),
    );
  },

  vkEnumeratePhysicalDeviceGroups(instance, pCount, pGroups) {
    const inst = instanceOf(instance as P, "vkEnumeratePhysicalDeviceGroups");
    const all = termPhysicalDevicesOf(inst);
    const driverGroupList = inst.drivers.flatMap((d) => driverGroups(inst, d, all));
    if (driverGroupList.length === 0) return VK.ERROR_INITIALIZATION_FAILED;
    const groups = applyGroupPolicy(inst, driverGroupList, withoutIdFilters(inst.devicePolicy));
    return writeTwoCall(
      pCount as P,
      pGroups as P,
      groups,
      (i, g) => writeGroup(pGroups as P, i, g.devices.map((t) => t.address), g.subsetAllocation),
    );
  },

  vkEnumerateDeviceExtensionProperties(physicalDevice, pLayerName, pCount, pProperties) {
    const term = termOf(physicalDevice as P, "vkEnumerateDeviceExtensionProperties");
    // LDP_LOADER_12: a layer's extensions never come from the driver.
    if (pLayerName !== null) return VK.ERROR_LAYER_NOT_PRESENT;
    const fn = term.driverInstance.fn("vkEnumerateDeviceExtensionProperties");
    if (!fn) return VK.ERROR_INITIALIZATION_FAILED;
    return fn(term.driverHandle, null, pCount, pProperties);
  },

  vkEnumerateDeviceLayerProperties(_physicalDevice, pCount) {
    // Device layers are deprecated: the loader answers, drivers are never asked.
    writeU32(pCount as P, 0, 0);
    return VK.SUCCESS;
  },

  vkCreateDevice(physicalDevice, pCreateInfo, pAllocator, pDevice) {
    const term = termOf(physicalDevice as P, "vkCreateDevice");
    const d = term.driverInstance;
    const fn = d.fn("vkCreateDevice");
    if (!fn) return VK.ERROR_INITIALIZATION_FAILED;
    // The copies only have to live through the driver's call.
    using arena = new Arena();
    const requested = deviceCreateInfoExtensions(pCreateInfo as P);
    const offered = driverDeviceExtensions(term);
    const layers = term.instance.layers;
    const missing = layers
      ? layers.unsupportedExtension(requested, offered, "device")
      : requested.find((e) => !offered.includes(e));
    if (missing !== undefined) {
      term.instance.log.error(
        `vkCreateDevice: device extension "${missing}" is offered by neither driver "${d.name}" nor an enabled layer`,
      );
      return VK.ERROR_EXTENSION_NOT_PRESENT;
    }
    const bare = driverDeviceCreateInfo(arena, pCreateInfo as P, offered);
    const info = replaceGroupDevices(arena, bare, (h) => termPhysicalDevices.get(h)?.driverHandle);
    const result = fn(term.driverHandle, info, pAllocator, pDevice) as number;
    if (result < 0) {
      // An error, as in the Khronos loader ("terminator_CreateDevice: Failed in ICD ... vkCreateDevice call").
      term.instance.log.error(
        `Driver "${d.name}" ("${d.driver.manifest.libraryPath}"): vkCreateDevice failed with "${result}"`,
        "driver",
      );
      return result;
    }
    const device = readPointer(pDevice as P, 0);
    if (!hasLoaderMagic(device)) {
      term.instance.log.error(
        `Driver "${d.name}" returned a VkDevice without ICD_LOADER_MAGIC in its first word: destroying it`,
        "driver",
      );
      const destroyAddr = d.driver.procAddr(d.handle, "vkGetDeviceProcAddr");
      if (destroyAddr && device) {
        const gdpa = new Deno.UnsafeFnPointer(
          destroyAddr as Deno.PointerObject<never>,
          {
            parameters: ["pointer", "buffer"],
            result: "pointer",
          } as const,
        );
        const destroy = gdpa.call(device, new TextEncoder().encode("vkDestroyDevice\0"));
        if (destroy) {
          new Deno.UnsafeFnPointer(
            destroy as Deno.PointerObject<never>,
            {
              parameters: ["pointer", "pointer"],
              result: "void",
            } as const,
          ).call(device, pAllocator as P);
        }
      }
      writeU64(pDevice as P, 0, 0n);
      return VK.ERROR_INITIALIZATION_FAILED;
    }
    const ld = new LoaderDevice(term.instance, term, device as Deno.PointerObject);
    ld.enabledExtensions = new Set(requested);
    ld.stamp();
    pendingDevices.push(ld);
    return result;
  },
};

/**
 * A copy of `VkDeviceCreateInfo` whose `VkDeviceGroupDeviceCreateInfo` lists other handles (`map` of each
 * address), or the original pointer when it has no such struct (or `map` knows none of them).
 */
export function replaceGroupDevices(
  arena: Arena,
  pCreateInfo: P,
  map: (h: bigint) => Deno.PointerValue | undefined,
): P {
  if (pCreateInfo === null) return null;
  const groupType = structureType("VK_STRUCTURE_TYPE_DEVICE_GROUP_DEVICE_CREATE_INFO");
  const nodes: P[] = [pCreateInfo];
  let found = false;
  for (
    let p = readPointer(pCreateInfo, 8), guard = 0;
    p !== null && guard < 64;
    p = readPointer(p, 8), guard++
  ) {
    nodes.push(p);
    if (readU32(p, 0) === groupType) {
      found = true;
      break;
    }
  }
  if (!found) return pCreateInfo;
  const group = nodes[nodes.length - 1]!;
  const count = readU32(group, offsetOf("VkDeviceGroupDeviceCreateInfo", "physicalDeviceCount"));
  const list = readPointer(group, offsetOf("VkDeviceGroupDeviceCreateInfo", "pPhysicalDevices"));
  const mapped: Deno.PointerValue[] = [];
  let changed = false;
  for (let i = 0; i < count && list !== null; i++) {
    const h = key(readPointer(list, i * 8));
    const m = map(h);
    changed ||= m !== undefined;
    mapped.push(m ?? pointerFromAddress(h));
  }
  if (!changed) return pCreateInfo;
  // Copy every node up to the group struct, relinked, so the caller's memory is never written.
  const copies = nodes.map((p, i) => {
    const name = i === 0 ? "VkDeviceCreateInfo" : STRUCT_BY_STYPE[readU32(p, 0)];
    const size = name ? STRUCTS[name]?.size ?? 16 : 16;
    return arena.copy(new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(p!, size)));
  });
  for (let i = 0; i + 1 < copies.length; i++) writeU64(copies[i]!, 8, key(copies[i + 1]!));
  const lastCopy = copies[copies.length - 1]!;
  writeU64(
    lastCopy,
    offsetOf("VkDeviceGroupDeviceCreateInfo", "pPhysicalDevices"),
    key(arena.pointerArray(mapped)),
  );
  return copies[0]!;
}

/**
 * A copy of a create info (`struct`) whose `pNext` starts after the loader's layer nodes, or the
 * original pointer when it has none: drivers never see the chain-building structs.
 */
export function withoutLoaderNodes(arena: Arena, pCreateInfo: P, struct: string): P {
  if (pCreateInfo === null) return null;
  const next = readPointer(pCreateInfo, 8);
  const bare = skipLoaderNodes(next);
  if (key(bare) === key(next)) return pCreateInfo;
  const copy = arena.copy(new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(pCreateInfo, sizeOf(struct))));
  writeU64(copy, 8, key(bare));
  return copy;
}

/** The device extensions a driver offers for one of its physical devices (NULL layer name). */
export function driverDeviceExtensions(term: TermPhysicalDevice): string[] {
  const fn = term.driverInstance.fn("vkEnumerateDeviceExtensionProperties");
  if (!fn) return [];
  const count = new Uint32Array(new ArrayBuffer(4));
  for (let attempt = 0; attempt < 4; attempt++) {
    if ((fn(term.driverHandle, null, Deno.UnsafePointer.of(count), null) as number) < 0) return [];
    const buf = new Uint8Array(new ArrayBuffer(Math.max(1, count[0]!) * 260));
    const r = fn(term.driverHandle, null, Deno.UnsafePointer.of(count), Deno.UnsafePointer.of(buf)) as number;
    if (r === VK.INCOMPLETE) continue;
    if (r < 0) return [];
    const out: string[] = [];
    for (let i = 0; i < count[0]!; i++) {
      const name = buf.subarray(i * 260, i * 260 + 256);
      const end = name.indexOf(0);
      out.push(new TextDecoder().decode(name.subarray(0, end < 0 ? 256 : end)));
    }
    return out;
  }
  return [];
}

/**
 * What the driver's `vkCreateDevice` gets: the create info without the loader's layer nodes, and with
 * only the device extensions the driver offers (the rest belong to layers, checked before).
 */
export function driverDeviceCreateInfo(arena: Arena, pCreateInfo: P, offered: readonly string[]): P {
  const bare = withoutLoaderNodes(arena, pCreateInfo, "VkDeviceCreateInfo");
  if (bare === null) return null;
  const s = "VkDeviceCreateInfo";
  const requested = deviceCreateInfoExtensions(bare);
  const kept = requested.filter((e) => offered.includes(e));
  if (kept.length === requested.length) return bare;
  const copy = arena.copy(new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(bare, sizeOf(s))));
  writeU32(copy, offsetOf(s, "enabledExtensionCount"), kept.length);
  writeU64(copy, offsetOf(s, "ppEnabledExtensionNames"), key(arena.cstringArray(kept)));
  return copy;
}
