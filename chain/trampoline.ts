/**
 * The loader's trampolines, where the loader has work above the chain (instance destruction, stable physical
 * device handles, stamping queues and command buffers), and `trampolineBodies`, the one place each gets its body.
 *
 * @module
 */

import { COMMAND_INDEX, COMMANDS } from "../vk/generated/commands.ts";
import { holdCallback } from "../ffi/callback.ts";
import { address, type Pointer, readPointer, readU32, writeU64 } from "../ffi/memory.ts";
import { type HandleKey, handleKey, handleText } from "../vk/handle_key.ts";
import { releaseDriver } from "../loading/driver.ts";
import type { LoaderDevices } from "./device.ts";
import type { HandleMaps, LoaderInstance } from "./objects.ts";
import type { Logger } from "../loading/log.ts";
import type { ChainStubs } from "./stubs.ts";
import { enumerateHandles, groupStructs, readGroups, writeGroup } from "./terminator.ts";
import { writeTwoCall } from "../vk/two_call.ts";
import { filterChainDevices, filterChainGroups } from "./order/chain_filter.ts";
import { hasIdFilters } from "./order/id_filters.ts";
import type { LoaderTrampolineName } from "./proc_addr.ts";
import { offsetOf } from "../vk/struct_layout.ts";
import { VK_ERROR_INITIALIZATION_FAILED } from "../vk/generated/vk_constants.js";
import { commandDef } from "../vk/command_ffi.ts";

type Fn = (...args: unknown[]) => unknown;

/** What the trampolines need from their loader (chain/loader.ts's `Loader` is one). */
export interface TrampolineContext {
  readonly stubs: ChainStubs;
  readonly log: Logger;
  /** The loader's handle maps. */
  readonly handleMaps: HandleMaps;
  /** The loader's live instances (a destroyed one is removed). */
  readonly instances: Set<LoaderInstance>;
  /** The loader's device creation and destruction. */
  readonly devices: LoaderDevices;
  /** `vkCreateInstance`. */
  createInstance(pCreateInfo: Pointer, pAllocator: Pointer, pInstance: Pointer): number;
  /** `vkEnumerateInstanceExtensionProperties`. */
  enumerateInstanceExtensionProperties(
    pLayerName: Pointer,
    pPropertyCount: Pointer,
    pProperties: Pointer,
  ): number;
  /** `vkEnumerateInstanceLayerProperties`. */
  enumerateInstanceLayerProperties(pPropertyCount: Pointer, pProperties: Pointer): number;
  /** `vkEnumerateInstanceVersion`. */
  enumerateInstanceVersion(pApiVersion: Pointer): number;
  /** `vkGetInstanceProcAddr`. */
  getInstanceProcAddr(instance: Pointer, pName: Pointer): Pointer;
  /** `vkGetDeviceProcAddr`. */
  getDeviceProcAddr(device: Pointer, pName: Pointer): Pointer;
}

/** The JavaScript body of every loader trampoline, keyed by chain/proc_addr.ts's `LOADER_TRAMPOLINES`. */
export type TrampolineBodies = { readonly [K in LoaderTrampolineName]: Fn };

/**
 * The bodies of the loader's trampolines over `ctx`: what their C pointers run and what vulkan.ts binds.
 *
 * @example Usage
 * ```ts ignore
 * const bodies = trampolineBodies(loader);
 * bodies.vkDestroyInstance(instance, null);
 * ```
 */
export function trampolineBodies(ctx: TrampolineContext): TrampolineBodies {
  const allocators = new AllocatorHolds();
  return {
    vkCreateInstance: (a, b, c) =>
      allocators.created("VkInstance", ctx.createInstance(a as Pointer, b as Pointer, c as Pointer), b, c),
    vkEnumerateInstanceExtensionProperties: (a, b, c) =>
      ctx.enumerateInstanceExtensionProperties(a as Pointer, b as Pointer, c as Pointer),
    vkEnumerateInstanceLayerProperties: (a, b) =>
      ctx.enumerateInstanceLayerProperties(a as Pointer, b as Pointer),
    vkEnumerateInstanceVersion: (a) => ctx.enumerateInstanceVersion(a as Pointer),
    vkGetInstanceProcAddr: (a, b) => ctx.getInstanceProcAddr(a as Pointer, b as Pointer),
    vkDestroyInstance: (a, b) => {
      destroyInstance(ctx, a as Pointer, b as Pointer);
      allocators.destroyed(a);
    },
    vkEnumeratePhysicalDevices: (a, b, c) =>
      enumeratePhysicalDevices(ctx, a as Pointer, b as Pointer, c as Pointer),
    vkEnumeratePhysicalDeviceGroups: (a, b, c) =>
      enumeratePhysicalDeviceGroups(ctx, a as Pointer, b as Pointer, c as Pointer),
    vkCreateDevice: (a, b, c, d) =>
      allocators.created(
        "VkDevice",
        ctx.devices.createDevice(a as Pointer, b as Pointer, c as Pointer, d as Pointer),
        c,
        d,
      ),
    vkGetDeviceProcAddr: (a, b) => ctx.getDeviceProcAddr(a as Pointer, b as Pointer),
    vkDestroyDevice: (a, b) => {
      ctx.devices.destroyDevice(a as Pointer, b as Pointer);
      allocators.destroyed(a);
    },
    // The stamping trampolines bind their stubs on first call, not when the table is made.
    vkGetDeviceQueue: (a, b, c, d) =>
      stampingTrampolines(ctx.stubs).vkGetDeviceQueue(a as Pointer, b as number, c as number, d as Pointer),
    vkGetDeviceQueue2: (a, b, c) =>
      stampingTrampolines(ctx.stubs).vkGetDeviceQueue2(a as Pointer, b as Pointer, c as Pointer),
    vkAllocateCommandBuffers: (a, b, c) =>
      stampingTrampolines(ctx.stubs).vkAllocateCommandBuffers(a as Pointer, b as Pointer, c as Pointer),
  };
}

/**
 * The allocation callbacks an instance or device was created with: the driver may call them until the object
 * is destroyed, so they are held (a held callback cannot be closed, docs/behaviour.md V10) until then.
 */
class AllocatorHolds {
  readonly #releases = new Map<HandleKey, () => void>();

  /** After a create command: holds `pAllocator`'s functions under the handle written to `pOut` on success. */
  created(type: string, result: number, pAllocator: unknown, pOut: unknown): number {
    if (result !== 0 || pAllocator === null || pOut === null) return result;
    const handle = readPointer(pOut as Pointer);
    const holder = `${type} ${handleText(handleKey(handle))}`;
    // VkAllocationCallbacks: pUserData, then five function pointers.
    const releases = [8, 16, 24, 32, 40].map((at) =>
      holdCallback(readPointer(pAllocator as Pointer, at), holder)
    );
    this.#releases.set(handleKey(handle), () => releases.forEach((release) => release()));
    return result;
  }

  /** After a destroy command: its object's callbacks are free again. */
  destroyed(handle: unknown): void {
    const k = handleKey(handle as Pointer);
    this.#releases.get(k)?.();
    this.#releases.delete(k);
  }
}

function slot(name: string): number {
  return COMMAND_INDEX[name]!;
}

function def(name: string): Deno.ForeignFunction {
  return commandDef(COMMANDS[slot(name)]!);
}

function instanceOf(ctx: TrampolineContext, handle: Pointer, command: string): LoaderInstance | undefined {
  const inst = ctx.handleMaps.instances.get(handleKey(handle));
  if (!inst) ctx.log.error(`${command}: invalid VkInstance "${handleText(handleKey(handle))}"`);
  return inst;
}

/** `vkDestroyInstance`: calls down the chain, then frees the loader's objects and drivers. */
function destroyInstance(ctx: TrampolineContext, instance: Pointer, pAllocator: Pointer): void {
  if (instance === null) return;
  const inst = instanceOf(ctx, instance, "vkDestroyInstance");
  if (!inst) return;
  // The create info's messengers hear about the destruction too (docs/behaviour.md A17).
  const done = inst.layers?.activateDestroyMessengers(instance);
  try {
    if (inst.devices.size > 0) {
      ctx.log.warn(
        `vkDestroyInstance: ${inst.devices.size} device(s) of this instance were not destroyed`,
      );
    }
    // Instance commands pass the handle the top of the chain gave back (word 1: a layer may wrap it).
    const down = ctx.stubs.trampolineCaller(slot("vkDestroyInstance"), def("vkDestroyInstance"));
    down(instance, pAllocator);
  } finally {
    done?.();
  }
  for (const d of [...inst.devices]) d.dispose();
  inst.dispose();
  // Layer libraries go only now: nothing can call into them any more.
  inst.layers?.release();
  ctx.instances.delete(inst);
  inst.heldDrivers.forEach(releaseDriver);
}

/**
 * `vkEnumeratePhysicalDevices`: the chain's devices, wrapped in stable loader handles. One call down per
 * call of the application, with its count (docs/behaviour.md A19: a capture layer records exactly the
 * application's calls, as under the Khronos loader); the loader's own needs are met at terminator level.
 */
function enumeratePhysicalDevices(
  ctx: TrampolineContext,
  instance: Pointer,
  pPhysicalDeviceCount: Pointer,
  pPhysicalDevices: Pointer,
): number {
  if (pPhysicalDeviceCount === null) {
    ctx.log.error("vkEnumeratePhysicalDevices: pPhysicalDeviceCount is NULL");
    return VK_ERROR_INITIALIZATION_FAILED;
  }
  const inst = instanceOf(ctx, instance, "vkEnumeratePhysicalDevices");
  if (!inst) return VK_ERROR_INITIALIZATION_FAILED;
  const down = ctx.stubs.trampolineCaller(
    slot("vkEnumeratePhysicalDevices"),
    def("vkEnumeratePhysicalDevices"),
  );
  if (hasIdFilters(inst.devicePolicy)) {
    // The id filters apply here, to what the layers return (chain/order/chain_filter.ts); they need the whole
    // list, so the chain is asked for all of it, as the Khronos loader's trampoline does then.
    const { result, handles } = enumerateHandles((c, o) => down(instance, c, o) as number);
    if (result < 0) return result;
    const kept = filterChainDevices(inst, ctx.stubs, handles);
    return writeTwoCall(pPhysicalDeviceCount, pPhysicalDevices, kept, (i, h) => {
      writeU64(pPhysicalDevices, i * 8, inst.trampFor(h).address);
    });
  }
  if (pPhysicalDevices === null) return down(instance, pPhysicalDeviceCount, null) as number;
  // The chain writes its handles here; the application gets the loader's wrappers of them. A few handles
  // go into kept memory whose address was taken once (a fresh buffer's address costs ~1 us).
  const wanted = Math.max(1, readU32(pPhysicalDeviceCount, 0));
  const kept = wanted <= KEPT_HANDLES ? takeKeptHandles() : undefined;
  const handles = kept?.words ?? new BigUint64Array(wanted);
  try {
    const result = down(
      instance,
      pPhysicalDeviceCount,
      kept?.pointer ?? Deno.UnsafePointer.of(handles),
    ) as number;
    if (result < 0) return result;
    const n = Math.min(readU32(pPhysicalDeviceCount, 0), wanted);
    for (let i = 0; i < n; i++) {
      const tramp = inst.trampFor(handles[i]!);
      writeU64(pPhysicalDevices, i * 8, tramp.address);
    }
    return result;
  } finally {
    if (kept !== undefined) keptHandles = kept;
  }
}

const KEPT_HANDLES = 8;
/** Free while no application enumeration runs through a trampoline; off the V8 heap, so it never moves. */
let keptHandles: { words: BigUint64Array<ArrayBuffer>; pointer: Deno.PointerObject } | undefined;

/** The kept handle words, taken until given back (a layer enumerating from inside the call gets its own). */
function takeKeptHandles(): { words: BigUint64Array<ArrayBuffer>; pointer: Deno.PointerObject } {
  const kept = keptHandles;
  keptHandles = undefined;
  if (kept !== undefined) return kept;
  const words = new BigUint64Array(new ArrayBuffer(KEPT_HANDLES * 8));
  return { words, pointer: Deno.UnsafePointer.of(words)! };
}

/**
 * `vkEnumeratePhysicalDeviceGroups(KHR)`: the chain's groups with the application's handles, one call down
 * per call of the application (the structs it passes keep their `sType` and `pNext`).
 */
function enumeratePhysicalDeviceGroups(
  ctx: TrampolineContext,
  instance: Pointer,
  pCount: Pointer,
  pGroups: Pointer,
): number {
  if (pCount === null) return VK_ERROR_INITIALIZATION_FAILED;
  const inst = instanceOf(ctx, instance, "vkEnumeratePhysicalDeviceGroups");
  if (!inst) return VK_ERROR_INITIALIZATION_FAILED;
  const down = ctx.stubs.trampolineCaller(
    slot("vkEnumeratePhysicalDeviceGroups"),
    def("vkEnumeratePhysicalDeviceGroups"),
  );
  if (hasIdFilters(inst.devicePolicy)) {
    // As for devices: the whole list from the chain, filtered here.
    const count = new Uint32Array(new ArrayBuffer(4));
    let r = down(instance, Deno.UnsafePointer.of(count), null) as number;
    if (r < 0) return r;
    const all = groupStructs(count[0]!);
    r = down(instance, Deno.UnsafePointer.of(count), Deno.UnsafePointer.of(all)) as number;
    if (r < 0) return r;
    const kept = filterChainGroups(
      inst,
      ctx.stubs,
      readGroups(Deno.UnsafePointer.of(all), count[0]!, (h) => h),
    );
    return writeTwoCall(pCount, pGroups, kept, (i, g) => {
      const handles = g.devices.map((h) => inst.trampFor(h).address);
      writeGroup(pGroups, i, handles, g.subsetAllocation);
    });
  }
  if (pGroups === null) return down(instance, pCount, null) as number;
  const capacity = readU32(pCount, 0);
  const buf = groupStructs(capacity);
  // The application's pNext chains go down with the copies, as a layer or driver may fill them.
  const pNextAt = offsetOf("VkPhysicalDeviceGroupProperties", "pNext");
  const size = buf.byteLength / Math.max(1, capacity);
  for (let i = 0; i < capacity; i++) {
    writeU64(
      Deno.UnsafePointer.of(buf),
      i * size + pNextAt,
      address(readPointer(pGroups, i * size + pNextAt)),
    );
  }
  const result = down(instance, pCount, Deno.UnsafePointer.of(buf)) as number;
  if (result < 0) return result;
  const groups = readGroups(
    Deno.UnsafePointer.of(buf),
    Math.min(readU32(pCount, 0), capacity),
    (h) => inst.trampFor(h).address,
  );
  groups.forEach((g, i) => writeGroup(pGroups, i, g.devices, g.subsetAllocation));
  return result;
}

/**
 * The hot trampolines as closures over their bound stub and the native stamping helpers
 * (ffi/unwrap_stubs.ts, ffi/native_helpers.ts): two native calls each, no JavaScript memory access.
 *
 * @example Usage
 * ```ts ignore
 * const { vkGetDeviceQueue } = stampingTrampolines(stubs);
 * vkGetDeviceQueue(device, 0, 0, pQueue);
 * ```
 */
export function stampingTrampolines(stubs: ChainStubs): StampingTrampolines {
  let made = stamping.get(stubs);
  if (!made) {
    made = makeStampingTrampolines(stubs);
    stamping.set(stubs, made);
  }
  return made;
}

/**
 * `T`, when each of its keys is a name of `LOADER_TRAMPOLINES` (chain/proc_addr.ts); a key that is not
 * makes its member `never` and `deno check` fails where `T` is written.
 */
type TrampolinesOnly<T extends { [K in keyof T]: K extends LoaderTrampolineName ? unknown : never }> = T;

/** The trampolines that stamp the device's table into the handles they return. */
export type StampingTrampolines = TrampolinesOnly<{
  readonly vkGetDeviceQueue: (device: Pointer, family: number, index: number, pQueue: Pointer) => void;
  readonly vkGetDeviceQueue2: (device: Pointer, pQueueInfo: Pointer, pQueue: Pointer) => void;
  readonly vkAllocateCommandBuffers: (
    device: Pointer,
    pAllocateInfo: Pointer,
    pCommandBuffers: Pointer,
  ) => number;
}>;

const stamping = new WeakMap<ChainStubs, StampingTrampolines>();

function makeStampingTrampolines(stubs: ChainStubs): StampingTrampolines {
  const getQueue = stubs.bindDispatch(slot("vkGetDeviceQueue"), def("vkGetDeviceQueue"));
  const getQueue2 = stubs.bindDispatch(slot("vkGetDeviceQueue2"), def("vkGetDeviceQueue2"));
  const allocate = stubs.bindDispatch(slot("vkAllocateCommandBuffers"), def("vkAllocateCommandBuffers"));
  const stampOut = stubs.unwrap.helper("vkdeno_stamp_out");
  const stampArray = stubs.unwrap.helper("vkdeno_stamp_array");
  const readU32 = stubs.unwrap.helper("vkdeno_read_u32");
  const countAt = BigInt(offsetOf("VkCommandBufferAllocateInfo", "commandBufferCount"));
  return {
    vkGetDeviceQueue: (device, family, index, pQueue) => {
      getQueue(device, family, index, pQueue);
      stampOut(device, pQueue);
    },
    vkGetDeviceQueue2: (device, pQueueInfo, pQueue) => {
      getQueue2(device, pQueueInfo, pQueue);
      stampOut(device, pQueue);
    },
    vkAllocateCommandBuffers: (device, pAllocateInfo, pCommandBuffers) => {
      const result = allocate(device, pAllocateInfo, pCommandBuffers) as number;
      if (result >= 0 && pAllocateInfo !== null) {
        stampArray(device, pCommandBuffers, readU32(pAllocateInfo, countAt));
      }
      return result;
    },
  };
}
