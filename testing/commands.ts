/**
 * The mock driver's built-in behaviour per command (docs/testing.md lists it): creation, the device model's
 * answers, tracked objects, host-backed memory, sync objects with state, recording, submission; `vkCmd*`,
 * `vkCreate*`, `vkDestroy*` and `vkCreate*Pipelines` without their own get their kind's ({@linkcode builtinBehaviour}).
 *
 * @module
 */
import { COMMAND_INDEX, COMMANDS } from "../vk/generated/commands.ts";
import type { CommandInfo } from "../vk/generated/types.ts";
import { canonicalHandle, isHandleType } from "../vk/handle_type.ts";
import {
  readCString,
  readPointer,
  readU32,
  readU64,
  writePointer,
  writeU32,
  writeU64,
} from "../ffi/memory.ts";
import { STRUCT_BY_STYPE } from "../vk/generated/structs.ts";
import { missingFeatures, type MockDeviceModel } from "./device.ts";
import { type MockPresentation, presentationBehaviours, presentationState } from "./presentation.ts";
import { layoutOf } from "../vk/struct_layout.ts";
import { type HandleKey, handleKey } from "../vk/handle_key.ts";
import {
  at,
  hex,
  type MockHandles,
  MockHandles as Handles,
  type MockInstanceState,
  type MockLogicalDevice,
  type MockObject,
  type MockPhysicalDeviceState,
  pointers,
  ptr,
  u32,
  u64,
} from "./state.ts";

/** `VkResult` values the mock returns. */
export const R = {
  SUCCESS: 0,
  NOT_READY: 1,
  TIMEOUT: 2,
  INCOMPLETE: 5,
  ERROR_OUT_OF_HOST_MEMORY: -1,
  ERROR_OUT_OF_DEVICE_MEMORY: -2,
  ERROR_INITIALIZATION_FAILED: -3,
  ERROR_DEVICE_LOST: -4,
  ERROR_MEMORY_MAP_FAILED: -5,
  ERROR_LAYER_NOT_PRESENT: -6,
  ERROR_EXTENSION_NOT_PRESENT: -7,
  ERROR_FEATURE_NOT_PRESENT: -8,
  ERROR_TOO_MANY_OBJECTS: -10,
  ERROR_FORMAT_NOT_SUPPORTED: -11,
  ERROR_UNKNOWN: -13,
} as const;

type P = Deno.PointerValue;

/** What the built-in behaviour reads and changes: the driver's state. */
export interface MockRuntime {
  /** The driver's name, for messages. */
  readonly name: string;
  /** The version `vkEnumerateInstanceVersion` answers. */
  readonly apiVersion: number;
  /** Instance extensions offered. */
  readonly instanceExtensions: readonly { readonly name: string; readonly specVersion: number }[];
  /** The physical devices every instance gets. */
  readonly models: readonly MockDeviceModel[];
  readonly handles: MockHandles;
  readonly instances: Map<HandleKey, MockInstanceState>;
  readonly physicalDevices: Map<HandleKey, MockPhysicalDeviceState>;
  readonly devices: Map<HandleKey, MockLogicalDevice>;
  /** Surfaces, swapchains, presented frames and query results. */
  readonly presentation: MockPresentation;
  /** Reports a misuse or a limit of the mock (a message naming the command). */
  problem(message: string): void;
}

/** A built-in command function: the call's FFI arguments in, its result out. */
export type Behaviour = (rt: MockRuntime, args: unknown[], info: CommandInfo) => unknown;

const enc = new TextEncoder();

function writeName(p: Deno.PointerObject, offset: number, name: string, max: number): void {
  const bytes = new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(p, max, offset));
  bytes.fill(0);
  bytes.set(enc.encode(name).subarray(0, max - 1));
}

/** The two-call idiom: count at `pCount`, `write(i, at)` for each element up to the count given. */
function listInto(
  pCount: P,
  pItems: P,
  n: number,
  size: number,
  write: (i: number, p: Deno.PointerObject) => void,
) {
  if (pCount === null) return R.ERROR_INITIALIZATION_FAILED;
  if (pItems === null) {
    writeU32(pCount, 0, n);
    return R.SUCCESS;
  }
  const room = readU32(pCount, 0);
  const m = Math.min(room, n);
  for (let i = 0; i < m; i++) write(i, Deno.UnsafePointer.offset(pItems, i * size)!);
  writeU32(pCount, 0, m);
  return m < n ? R.INCOMPLETE : R.SUCCESS;
}

function extensionList(
  list: readonly { readonly name: string; readonly specVersion: number }[],
  pCount: P,
  pProps: P,
): number {
  return listInto(pCount, pProps, list.length, 260, (i, p) => {
    writeName(p, 0, list[i]!.name, 256);
    writeU32(p, 256, list[i]!.specVersion);
  });
}

function strings(p: P, count: number): string[] {
  return pointers(p, count).map((s) => readCString(s));
}

function physical(rt: MockRuntime, handle: unknown): MockPhysicalDeviceState {
  const pd = rt.physicalDevices.get(handleKey(handle as P));
  if (!pd) throw new TypeError(`"${hex(handle as P)}" is not a VkPhysicalDevice of mock driver "${rt.name}"`);
  return pd;
}

/** The logical device a device-level command's first argument (device, queue or command buffer) belongs to. */
export function deviceOf(rt: MockRuntime, handle: P): MockLogicalDevice | undefined {
  const o = rt.handles.get(handle);
  if (!o) return undefined;
  return o.type === "VkDevice" ? rt.devices.get(o.key) : o.device;
}

function device(rt: MockRuntime, handle: unknown, command: string): MockLogicalDevice {
  const d = deviceOf(rt, handle as P);
  if (!d) {
    throw new TypeError(`${command}: "${hex(handle as P)}" is not a live handle of mock driver "${rt.name}"`);
  }
  return d;
}

function object(rt: MockRuntime, handle: unknown, type: string, command: string, param: string): MockObject {
  const o = rt.handles.get(handle as P, type);
  if (!o) {
    throw new TypeError(
      `${command}: ${param} "${hex(handle as P)}" is not a live ${type} of mock driver "${rt.name}"`,
    );
  }
  return o;
}

function alignUp(n: bigint, a: bigint): bigint {
  return (n + a - 1n) / a * a;
}

function writeRequirements(rt: MockRuntime, d: MockLogicalDevice, o: MockObject, p: Deno.PointerObject) {
  const alignment = o.type === "VkImage" ? 4096n : 256n;
  writeU64(p, 0, alignUp(o.size ?? 0n, alignment));
  writeU64(p, 8, alignment);
  writeU32(p, 16, (1 << d.physical.model.memoryTypes.length) - 1);
  void rt;
}

function bytesPerTexel(format: number): number {
  // Enough for requirements: 16-byte formats, 8-byte, 2-byte and 1-byte ones by their enum ranges.
  if (format >= 106 && format <= 109) return 16; // R32G32B32A32
  if (format >= 91 && format <= 105) return 8;
  if (format === 9 || format === 13 || format === 124) return format === 124 ? 2 : 1;
  return 4;
}

const destroyType = (name: string) =>
  name.replace(/^vk(Destroy|Free)/, "Vk").replace(/(KHR|EXT|NV|AMD|INTEL)$/, "");

function destroyGeneric(rt: MockRuntime, args: unknown[], info: CommandInfo): unknown {
  // vkDestroyX(device, x, pAllocator)
  const param = info.params.findIndex((p, i) => i > 0 && p.pointer === 0 && isHandleType(p.type));
  if (param < 0) return rt.problem(`${info.name}: the mock cannot tell which parameter is destroyed`);
  const handle = args[param] as P;
  if (handle === null) return;
  const type = canonicalHandle(info.params[param]!.type);
  const o = rt.handles.get(handle);
  if (!o || o.type !== type) {
    return rt.problem(`${info.name}: ${info.params[param]!.name} "${hex(handle)}" is not a live ${type}`);
  }
  rt.handles.remove(o);
  void destroyType;
}

function createGeneric(rt: MockRuntime, args: unknown[], info: CommandInfo): unknown {
  // vkCreateX(device, pCreateInfo, pAllocator, pX)
  const last = info.params.length - 1;
  const out = info.params[last]!;
  const d = device(rt, args[0], info.name);
  if (d.lost) return R.ERROR_DEVICE_LOST;
  const o = rt.handles.plain(canonicalHandle(out.type), d);
  Handles.write(args[last] as P, o);
  return R.SUCCESS;
}

function createPipelines(rt: MockRuntime, args: unknown[], info: CommandInfo): unknown {
  // vkCreate*Pipelines(device, [deferredOperation,] pipelineCache, count, pCreateInfos, pAllocator, pPipelines)
  const d = device(rt, args[0], info.name);
  const countAt = info.params.findIndex((p) => p.name === "createInfoCount");
  const count = args[countAt] as number;
  const out = args[info.params.length - 1] as P;
  for (let i = 0; i < count; i++) Handles.write(out, rt.handles.plain("VkPipeline", d), i);
  return R.SUCCESS;
}

function recordCommand(rt: MockRuntime, args: unknown[], info: CommandInfo): unknown {
  const cb = rt.handles.get(args[0] as P, "VkCommandBuffer");
  if (!cb) {
    return rt.problem(`${info.name}: commandBuffer "${hex(args[0] as P)}" is not a live VkCommandBuffer`);
  }
  if (cb.state !== "recording") {
    return rt.problem(`${info.name}: command buffer "${hex(cb.key)}" is not recording (it is ${cb.state})`);
  }
  cb.commands!.push(info.name);
}

function freeCommandBuffers(rt: MockRuntime, pool: MockObject, list: readonly MockObject[]) {
  for (const cb of list) {
    pool.children?.delete(cb.key);
    rt.handles.remove(cb);
  }
}

function waitFences(
  rt: MockRuntime,
  fences: MockObject[],
  waitAll: boolean,
  timeout: bigint,
  command: string,
) {
  const done = waitAll ? fences.every((f) => f.signaled) : fences.some((f) => f.signaled);
  if (done) return R.SUCCESS;
  if (timeout !== 0n) {
    rt.problem(
      `${command}: waits on fence(s) ${
        fences.filter((f) => !f.signaled).map((f) => `"${hex(f.key)}"`).join(", ")
      } that no submission signals: returning VK_TIMEOUT instead of waiting`,
    );
  }
  return R.TIMEOUT;
}

function submitted(rt: MockRuntime, command: string, cbs: readonly P[], signals: readonly [P, bigint][]) {
  for (const h of cbs) {
    const cb = rt.handles.get(h, "VkCommandBuffer");
    if (!cb) rt.problem(`${command}: "${hex(h)}" is not a live VkCommandBuffer`);
    else if (cb.state !== "executable") {
      rt.problem(
        `${command}: command buffer "${
          hex(cb.key)
        }" is ${cb.state}, not executable (call vkEndCommandBuffer)`,
      );
    }
  }
  for (const h of cbs) {
    const cb = rt.handles.get(h, "VkCommandBuffer");
    if (cb?.state === "executable") presentationState(rt.presentation).execute(cb.commands!);
  }
  for (const [h, value] of signals) {
    const s = rt.handles.get(h, "VkSemaphore");
    if (!s) continue;
    if (s.timeline) s.value = value;
    else s.signaled = true;
  }
}

function signalFence(rt: MockRuntime, fence: P, command: string): void {
  if (fence === null) return;
  const f = rt.handles.get(fence, "VkFence");
  if (!f) return rt.problem(`${command}: fence "${hex(fence)}" is not a live VkFence`);
  if (f.signaled) rt.problem(`${command}: fence "${hex(fence)}" is already signaled (reset it first)`);
  f.signaled = true;
}

const PRESENTATION = presentationBehaviours((rt, handle) => deviceOf(rt as MockRuntime, handle as P));

const behaviours: Record<string, Behaviour> = {
  vkEnumerateInstanceVersion: (rt, [p]) => {
    writeU32(p as Deno.PointerObject, 0, rt.apiVersion);
    return R.SUCCESS;
  },
  vkEnumerateInstanceExtensionProperties: (rt, [layer, pCount, pProps]) =>
    layer !== null
      ? R.ERROR_LAYER_NOT_PRESENT
      : extensionList(rt.instanceExtensions, pCount as P, pProps as P),
  vkEnumerateInstanceLayerProperties: (_rt, [pCount, pProps]) =>
    listInto(pCount as P, pProps as P, 0, 0, () => {}),
  vkCreateInstance: (rt, [pCreateInfo, _pAllocator, pInstance]) => {
    const ci = pCreateInfo as Deno.PointerObject;
    const S = "VkInstanceCreateInfo";
    const extensions = strings(ptr(ci, S, "ppEnabledExtensionNames"), u32(ci, S, "enabledExtensionCount"));
    const missing = extensions.find((e) => !rt.instanceExtensions.some((x) => x.name === e));
    if (missing !== undefined) {
      rt.problem(
        `vkCreateInstance: instance extension "${missing}" is not offered by mock driver "${rt.name}"`,
      );
      return R.ERROR_EXTENSION_NOT_PRESENT;
    }
    const app = ptr(ci, S, "pApplicationInfo");
    const apiVersion = app === null ? 1 << 22 : u32(app, "VkApplicationInfo", "apiVersion") || 1 << 22;
    const object = rt.handles.dispatchable("VkInstance", undefined);
    const inst: MockInstanceState = { object, apiVersion, extensions, physicalDevices: [] };
    for (const model of rt.models) {
      const pd: MockPhysicalDeviceState = {
        object: rt.handles.dispatchable("VkPhysicalDevice", undefined),
        model,
        instance: inst,
      };
      inst.physicalDevices.push(pd);
      rt.physicalDevices.set(pd.object.key, pd);
    }
    rt.instances.set(object.key, inst);
    writePointer(pInstance as Deno.PointerObject, 0, Deno.UnsafePointer.create(BigInt(object.key)));
    return R.SUCCESS;
  },
  vkDestroyInstance: (rt, [instance]) => {
    if (instance === null) return;
    const inst = rt.instances.get(handleKey(instance as P));
    if (!inst) return rt.problem(`vkDestroyInstance: "${hex(instance as P)}" is not a live VkInstance`);
    for (const pd of inst.physicalDevices) {
      rt.physicalDevices.delete(pd.object.key);
      rt.handles.remove(pd.object);
    }
    rt.handles.remove(inst.object);
    rt.instances.delete(inst.object.key);
  },
  vkEnumeratePhysicalDevices: (rt, [instance, pCount, pDevices]) => {
    const inst = rt.instances.get(handleKey(instance as P));
    if (!inst) throw new TypeError(`"${hex(instance as P)}" is not a live VkInstance`);
    return listInto(pCount as P, pDevices as P, inst.physicalDevices.length, 8, (i, p) => {
      writePointer(p, 0, Deno.UnsafePointer.create(BigInt(inst.physicalDevices[i]!.object.key)));
    });
  },
  vkEnumeratePhysicalDeviceGroups: (rt, [instance, pCount, pProps]) => {
    const inst = rt.instances.get(handleKey(instance as P));
    if (!inst) throw new TypeError(`"${hex(instance as P)}" is not a live VkInstance`);
    const G = "VkPhysicalDeviceGroupProperties";
    return listInto(pCount as P, pProps as P, inst.physicalDevices.length, 288, (i, p) => {
      writeU32(p, at(G, "physicalDeviceCount"), 1);
      writePointer(
        p,
        at(G, "physicalDevices"),
        Deno.UnsafePointer.create(BigInt(inst.physicalDevices[i]!.object.key)),
      );
      writeU32(p, at(G, "subsetAllocation"), 0);
    });
  },
  vkGetPhysicalDeviceProperties: (rt, [pd, p]) => {
    physical(rt, pd).model.writeStruct("VkPhysicalDeviceProperties", p as Deno.PointerObject);
  },
  vkGetPhysicalDeviceProperties2: (rt, [pd, p]) => {
    const m = physical(rt, pd).model;
    m.writeStruct("VkPhysicalDeviceProperties", Deno.UnsafePointer.offset(p as Deno.PointerObject, 16)!);
    m.writeChain(readPointer(p as P, 8));
  },
  vkGetPhysicalDeviceFeatures: (rt, [pd, p]) => {
    physical(rt, pd).model.writeStruct("VkPhysicalDeviceFeatures", p as Deno.PointerObject);
  },
  vkGetPhysicalDeviceFeatures2: (rt, [pd, p]) => {
    const m = physical(rt, pd).model;
    m.writeStruct("VkPhysicalDeviceFeatures", Deno.UnsafePointer.offset(p as Deno.PointerObject, 16)!);
    m.writeChain(readPointer(p as P, 8));
  },
  vkGetPhysicalDeviceQueueFamilyProperties: (rt, [pd, pCount, pProps]) => {
    const m = physical(rt, pd).model;
    return void listInto(
      pCount as P,
      pProps as P,
      m.queueFamilies.length,
      24,
      (i, p) => m.writeQueueFamily(i, p),
    );
  },
  vkGetPhysicalDeviceQueueFamilyProperties2: (rt, [pd, pCount, pProps]) => {
    const m = physical(rt, pd).model;
    return void listInto(pCount as P, pProps as P, m.queueFamilies.length, 40, (i, p) => {
      m.writeQueueFamily(i, Deno.UnsafePointer.offset(p, 16)!);
      m.writeQueueFamilyChain(i, readPointer(p, 8));
    });
  },
  vkGetPhysicalDeviceMemoryProperties: (rt, [pd, p]) =>
    writeMemoryProperties(physical(rt, pd).model, p as Deno.PointerObject),
  vkGetPhysicalDeviceMemoryProperties2: (rt, [pd, p]) => {
    writeMemoryProperties(physical(rt, pd).model, Deno.UnsafePointer.offset(p as Deno.PointerObject, 16)!);
  },
  vkGetPhysicalDeviceFormatProperties: (rt, [pd, format, p]) => {
    const [linear, optimal, buffer] = physical(rt, pd).model.formatFeatures(format as number);
    writeU32(p as Deno.PointerObject, 0, linear);
    writeU32(p as Deno.PointerObject, 4, optimal);
    writeU32(p as Deno.PointerObject, 8, buffer);
  },
  vkGetPhysicalDeviceFormatProperties2: (rt, [pd, format, p]) => {
    const m = physical(rt, pd).model;
    const [linear, optimal, buffer] = m.formatFeatures(format as number);
    writeU32(p as Deno.PointerObject, 16, linear);
    writeU32(p as Deno.PointerObject, 20, optimal);
    writeU32(p as Deno.PointerObject, 24, buffer);
    for (
      let c = readPointer(p as P, 8), guard = 0;
      c !== null && guard < 256;
      c = readPointer(c, 8), guard++
    ) {
      if (STRUCT_BY_STYPE[readU32(c, 0)] !== "VkFormatProperties3") continue;
      const [l2, o2, b2] = m.formatFeatures2(format as number);
      writeU64(c, 16, l2), writeU64(c, 24, o2), writeU64(c, 32, b2);
    }
  },
  vkGetPhysicalDeviceImageFormatProperties: (rt, [pd, format, _type, tiling, _usage, _flags, p]) => {
    const features = physical(rt, pd).model.formatFeatures(format as number);
    if ((tiling === 0 ? features[1] : features[0]) === 0) return R.ERROR_FORMAT_NOT_SUPPORTED;
    const out = p as Deno.PointerObject;
    writeU32(out, 0, 16384), writeU32(out, 4, 16384), writeU32(out, 8, 1); // maxExtent
    writeU32(out, 12, 15), writeU32(out, 16, 2048), writeU32(out, 20, 1); // mips, layers, samples
    writeU64(out, 24, 1n << 32n); // maxResourceSize
    return R.SUCCESS;
  },
  vkGetPhysicalDeviceSparseImageFormatProperties: (_rt, [, , , , , , pCount]) => {
    if (pCount !== null) writeU32(pCount as Deno.PointerObject, 0, 0);
  },
  vkEnumerateDeviceExtensionProperties: (rt, [pd, layer, pCount, pProps]) =>
    layer !== null
      ? R.ERROR_LAYER_NOT_PRESENT
      : extensionList(physical(rt, pd).model.extensions, pCount as P, pProps as P),
  vkEnumerateDeviceLayerProperties: (_rt, [, pCount, pProps]) =>
    listInto(pCount as P, pProps as P, 0, 0, () => {}),
  vkGetPhysicalDeviceToolProperties: (_rt, [, pCount, pProps]) =>
    listInto(pCount as P, pProps as P, 0, 0, () => {}),
  vkCreateDevice: (rt, [pd, pCreateInfo, _pAllocator, pDevice]) => {
    const phys = physical(rt, pd);
    const m = phys.model;
    const ci = pCreateInfo as Deno.PointerObject;
    const S = "VkDeviceCreateInfo";
    const extensions = strings(ptr(ci, S, "ppEnabledExtensionNames"), u32(ci, S, "enabledExtensionCount"));
    const missing = extensions.find((e) => !m.hasExtension(e));
    if (missing !== undefined) {
      rt.problem(`vkCreateDevice: device extension "${missing}" is not supported by "${m.name}"`);
      return R.ERROR_EXTENSION_NOT_PRESENT;
    }
    const lacking = missingFeatures(m, ptr(ci, S, "pEnabledFeatures"), ptr(ci, S, "pNext"));
    if (lacking.length > 0) {
      rt.problem(`vkCreateDevice: "${m.name}" does not support feature(s) ${lacking.join(", ")}`);
      return R.ERROR_FEATURE_NOT_PRESENT;
    }
    const Q = "VkDeviceQueueCreateInfo";
    const infos = ptr(ci, S, "pQueueCreateInfos");
    const count = u32(ci, S, "queueCreateInfoCount");
    const requested: [number, number][] = [];
    for (let i = 0; i < count && infos !== null; i++) {
      const q = Deno.UnsafePointer.offset(infos, i * 40)!;
      const family = u32(q, Q, "queueFamilyIndex"), n = u32(q, Q, "queueCount");
      const f = m.queueFamilies[family];
      if (!f || n === 0 || n > f.queueCount) {
        rt.problem(
          `vkCreateDevice: pQueueCreateInfos[${i}] asks for ${n} queue(s) of family ${family}; "${m.name}" has ${
            f ? `${f.queueCount} in that family` : `${m.queueFamilies.length} famil(ies)`
          }`,
        );
        return R.ERROR_INITIALIZATION_FAILED;
      }
      requested.push([family, n]);
    }
    const object = rt.handles.dispatchable("VkDevice", undefined);
    const d: MockLogicalDevice = {
      object,
      physical: phys,
      extensions,
      queues: new Map(),
      objects: new Map(),
      heapUsed: m.memoryHeaps.map(() => 0n),
      lost: false,
    };
    rt.devices.set(object.key, d);
    for (const [family, n] of requested) {
      for (let i = 0; i < n; i++) {
        const q = rt.handles.dispatchable("VkQueue", d);
        d.objects.delete(q.key); // queues belong to the device, never destroyed by the application
        d.queues.set(`${family}:${i}`, q);
      }
    }
    writePointer(pDevice as Deno.PointerObject, 0, Deno.UnsafePointer.create(BigInt(object.key)));
    return R.SUCCESS;
  },
  vkDestroyDevice: (rt, [handle]) => {
    if (handle === null) return;
    const d = rt.devices.get(handleKey(handle as P));
    if (!d) return rt.problem(`vkDestroyDevice: "${hex(handle as P)}" is not a live VkDevice`);
    if (d.objects.size > 0) {
      const counts = new Map<string, number>();
      for (const o of d.objects.values()) counts.set(o.type, (counts.get(o.type) ?? 0) + 1);
      rt.problem(
        `vkDestroyDevice: ${d.objects.size} object(s) of "${hex(d.object.key)}" were not destroyed: ${
          [...counts].map(([t, n]) => `${t} x${n}`).join(", ")
        }`,
      );
      for (const o of [...d.objects.values()]) rt.handles.remove(o);
    }
    for (const q of d.queues.values()) rt.handles.remove(q);
    rt.handles.remove(d.object);
    rt.devices.delete(d.object.key);
  },
  vkGetDeviceQueue: (rt, [handle, family, index, pQueue]) => {
    const d = device(rt, handle, "vkGetDeviceQueue");
    const q = d.queues.get(`${family}:${index}`);
    if (!q) {
      rt.problem(`vkGetDeviceQueue: queue ${index} of family ${family} was not requested at vkCreateDevice`);
      return writePointer(pQueue as Deno.PointerObject, 0, null);
    }
    Handles.write(pQueue as P, q);
  },
  vkGetDeviceQueue2: (rt, [handle, pInfo, pQueue]) => {
    const I = "VkDeviceQueueInfo2";
    const info = pInfo as Deno.PointerObject;
    return behaviours.vkGetDeviceQueue!(
      rt,
      [handle, u32(info, I, "queueFamilyIndex"), u32(info, I, "queueIndex"), pQueue],
      COMMANDS[COMMAND_INDEX.vkGetDeviceQueue!]!,
    );
  },
  vkDeviceWaitIdle: (rt, [handle]) =>
    device(rt, handle, "vkDeviceWaitIdle").lost ? R.ERROR_DEVICE_LOST : R.SUCCESS,
  vkQueueWaitIdle: (rt, [handle]) =>
    device(rt, handle, "vkQueueWaitIdle").lost ? R.ERROR_DEVICE_LOST : R.SUCCESS,
  vkQueueSubmit: (rt, [queue, count, pSubmits, fence]) => {
    device(rt, queue, "vkQueueSubmit");
    const S = "VkSubmitInfo";
    for (let i = 0; i < (count as number); i++) {
      const s = Deno.UnsafePointer.offset(pSubmits as Deno.PointerObject, i * 72)!;
      const cbs = pointers(ptr(s, S, "pCommandBuffers"), u32(s, S, "commandBufferCount"));
      const sems = pointers(ptr(s, S, "pSignalSemaphores"), u32(s, S, "signalSemaphoreCount"));
      const timeline = timelineValues(ptr(s, S, "pNext"));
      submitted(rt, "vkQueueSubmit", cbs, sems.map((h, j) => [h, timeline[j] ?? 0n]));
    }
    signalFence(rt, fence as P, "vkQueueSubmit");
    return R.SUCCESS;
  },
  vkQueueSubmit2: (rt, [queue, count, pSubmits, fence]) => {
    device(rt, queue, "vkQueueSubmit2");
    const S = "VkSubmitInfo2", C = "VkCommandBufferSubmitInfo", M = "VkSemaphoreSubmitInfo";
    for (let i = 0; i < (count as number); i++) {
      const s = Deno.UnsafePointer.offset(pSubmits as Deno.PointerObject, i * 64)!;
      const cbInfos = ptr(s, S, "pCommandBufferInfos");
      const cbs: P[] = [];
      for (let j = 0; j < u32(s, S, "commandBufferInfoCount") && cbInfos; j++) {
        cbs.push(ptr(Deno.UnsafePointer.offset(cbInfos, j * 32)!, C, "commandBuffer"));
      }
      const semInfos = ptr(s, S, "pSignalSemaphoreInfos");
      const sems: [P, bigint][] = [];
      for (let j = 0; j < u32(s, S, "signalSemaphoreInfoCount") && semInfos; j++) {
        const m = Deno.UnsafePointer.offset(semInfos, j * 48)!;
        sems.push([ptr(m, M, "semaphore"), u64(m, M, "value")]);
      }
      submitted(rt, "vkQueueSubmit2", cbs, sems);
    }
    signalFence(rt, fence as P, "vkQueueSubmit2");
    return R.SUCCESS;
  },
  vkCreateFence: (rt, [handle, pCreateInfo, _a, pFence]) => {
    const d = device(rt, handle, "vkCreateFence");
    const f = rt.handles.plain("VkFence", d);
    f.signaled = (u32(pCreateInfo as Deno.PointerObject, "VkFenceCreateInfo", "flags") & 1) !== 0;
    Handles.write(pFence as P, f);
    return R.SUCCESS;
  },
  vkResetFences: (rt, [_d, count, pFences]) => {
    for (const h of pointers(pFences as P, count as number)) {
      object(rt, h, "VkFence", "vkResetFences", "pFences[]").signaled = false;
    }
    return R.SUCCESS;
  },
  vkGetFenceStatus: (rt, [handle, fence]) => {
    if (device(rt, handle, "vkGetFenceStatus").lost) return R.ERROR_DEVICE_LOST;
    return object(rt, fence, "VkFence", "vkGetFenceStatus", "fence").signaled ? R.SUCCESS : R.NOT_READY;
  },
  vkWaitForFences: (rt, [handle, count, pFences, waitAll, timeout]) => {
    if (device(rt, handle, "vkWaitForFences").lost) return R.ERROR_DEVICE_LOST;
    const fences = pointers(pFences as P, count as number).map((h) =>
      object(rt, h, "VkFence", "vkWaitForFences", "pFences[]")
    );
    return waitFences(rt, fences, waitAll !== 0, BigInt(timeout as bigint), "vkWaitForFences");
  },
  vkCreateSemaphore: (rt, [handle, pCreateInfo, _a, pSemaphore]) => {
    const d = device(rt, handle, "vkCreateSemaphore");
    const s = rt.handles.plain("VkSemaphore", d);
    for (
      let p = ptr(pCreateInfo as Deno.PointerObject, "VkSemaphoreCreateInfo", "pNext");
      p !== null;
      p = readPointer(p, 8)
    ) {
      if (STRUCT_BY_STYPE[readU32(p, 0)] !== "VkSemaphoreTypeCreateInfo") continue;
      s.timeline = u32(p, "VkSemaphoreTypeCreateInfo", "semaphoreType") === 1;
      s.value = u64(p, "VkSemaphoreTypeCreateInfo", "initialValue");
    }
    s.signaled = false;
    Handles.write(pSemaphore as P, s);
    return R.SUCCESS;
  },
  vkGetSemaphoreCounterValue: (rt, [_d, semaphore, pValue]) => {
    writeU64(
      pValue as Deno.PointerObject,
      0,
      object(rt, semaphore, "VkSemaphore", "vkGetSemaphoreCounterValue", "semaphore").value ?? 0n,
    );
    return R.SUCCESS;
  },
  vkSignalSemaphore: (rt, [_d, pInfo]) => {
    const I = "VkSemaphoreSignalInfo";
    const s = object(
      rt,
      ptr(pInfo as Deno.PointerObject, I, "semaphore"),
      "VkSemaphore",
      "vkSignalSemaphore",
      "semaphore",
    );
    s.value = u64(pInfo as Deno.PointerObject, I, "value");
    return R.SUCCESS;
  },
  vkWaitSemaphores: (rt, [handle, pInfo, timeout]) => {
    if (device(rt, handle, "vkWaitSemaphores").lost) return R.ERROR_DEVICE_LOST;
    const I = "VkSemaphoreWaitInfo";
    const info = pInfo as Deno.PointerObject;
    const n = u32(info, I, "semaphoreCount");
    const sems = pointers(ptr(info, I, "pSemaphores"), n);
    const values = ptr(info, I, "pValues");
    const any = (u32(info, I, "flags") & 1) !== 0;
    const reached = sems.map((h, i) =>
      (rt.handles.get(h, "VkSemaphore")?.value ?? 0n) >= readU64(values, i * 8)
    );
    if (any ? reached.some(Boolean) : reached.every(Boolean)) return R.SUCCESS;
    if (BigInt(timeout as bigint) !== 0n) {
      rt.problem("vkWaitSemaphores: waits for values no submission signals: returning VK_TIMEOUT");
    }
    return R.TIMEOUT;
  },
  vkAllocateMemory: (rt, [handle, pInfo, _a, pMemory]) => {
    const d = device(rt, handle, "vkAllocateMemory");
    if (d.lost) return R.ERROR_DEVICE_LOST;
    const I = "VkMemoryAllocateInfo";
    const info = pInfo as Deno.PointerObject;
    const size = u64(info, I, "allocationSize"), typeIndex = u32(info, I, "memoryTypeIndex");
    const m = d.physical.model;
    const type = m.memoryTypes[typeIndex];
    if (!type) {
      rt.problem(
        `vkAllocateMemory: memoryTypeIndex ${typeIndex} is out of range (${m.memoryTypes.length} types)`,
      );
      return R.ERROR_UNKNOWN;
    }
    const heap = m.memoryHeaps[type.heapIndex]!;
    if (d.heapUsed[type.heapIndex]! + size > heap.size) return R.ERROR_OUT_OF_DEVICE_MEMORY;
    d.heapUsed[type.heapIndex]! += size;
    const o = rt.handles.plain("VkDeviceMemory", d);
    o.size = size;
    o.memoryType = typeIndex;
    Handles.write(pMemory as P, o);
    return R.SUCCESS;
  },
  vkFreeMemory: (rt, [handle, memory]) => {
    if (memory === null) return;
    const d = device(rt, handle, "vkFreeMemory");
    const o = rt.handles.get(memory as P, "VkDeviceMemory");
    if (!o) return rt.problem(`vkFreeMemory: memory "${hex(memory as P)}" is not a live VkDeviceMemory`);
    d.heapUsed[d.physical.model.memoryTypes[o.memoryType!]!.heapIndex]! -= o.size!;
    rt.handles.remove(o);
  },
  vkMapMemory: (rt, [handle, memory, offset, size, _flags, ppData]) => {
    const d = device(rt, handle, "vkMapMemory");
    if (d.lost) return R.ERROR_DEVICE_LOST;
    const o = object(rt, memory, "VkDeviceMemory", "vkMapMemory", "memory");
    const type = d.physical.model.memoryTypes[o.memoryType!]!;
    if ((type.propertyFlags & 0x2) === 0) {
      rt.problem(`vkMapMemory: memory "${hex(o.key)}" is of type ${o.memoryType}, which is not HOST_VISIBLE`);
      return R.ERROR_MEMORY_MAP_FAILED;
    }
    if (o.mapped) {
      rt.problem(`vkMapMemory: memory "${hex(o.key)}" is already mapped`);
      return R.ERROR_MEMORY_MAP_FAILED;
    }
    const from = BigInt(offset as bigint), length = BigInt(size as bigint);
    const end = length === 0xffffffffffffffffn ? o.size! : from + length;
    if (from >= o.size! || end > o.size!) {
      rt.problem(
        `vkMapMemory: offset ${offset} and size ${size} reach past the allocation's ${o.size} bytes`,
      );
      return R.ERROR_MEMORY_MAP_FAILED;
    }
    o.host ??= new Uint8Array(Number(o.size!));
    o.mapped = true;
    writePointer(ppData as Deno.PointerObject, 0, Deno.UnsafePointer.of(o.host.subarray(Number(from))));
    return R.SUCCESS;
  },
  vkUnmapMemory: (rt, [_d, memory]) => {
    const o = object(rt, memory, "VkDeviceMemory", "vkUnmapMemory", "memory");
    if (!o.mapped) rt.problem(`vkUnmapMemory: memory "${hex(o.key)}" is not mapped`);
    o.mapped = false;
  },
  vkFlushMappedMemoryRanges: () => R.SUCCESS,
  vkInvalidateMappedMemoryRanges: () => R.SUCCESS,
  vkCreateBuffer: (rt, [handle, pInfo, _a, pBuffer]) => {
    const d = device(rt, handle, "vkCreateBuffer");
    const o = rt.handles.plain("VkBuffer", d);
    o.size = u64(pInfo as Deno.PointerObject, "VkBufferCreateInfo", "size");
    Handles.write(pBuffer as P, o);
    return R.SUCCESS;
  },
  vkCreateImage: (rt, [handle, pInfo, _a, pImage]) => {
    const d = device(rt, handle, "vkCreateImage");
    const I = "VkImageCreateInfo";
    const info = pInfo as Deno.PointerObject;
    const e = at(I, "extent");
    const texels = BigInt(readU32(info, e)) * BigInt(readU32(info, e + 4)) * BigInt(readU32(info, e + 8)) *
      BigInt(u32(info, I, "arrayLayers"));
    const o = rt.handles.plain("VkImage", d);
    const mips = u32(info, I, "mipLevels") > 1 ? 4n : 3n; // a mip chain adds about a third
    o.size = texels * BigInt(bytesPerTexel(u32(info, I, "format"))) * mips / 3n;
    Handles.write(pImage as P, o);
    return R.SUCCESS;
  },
  vkGetBufferMemoryRequirements: (rt, [handle, buffer, p]) => {
    const d = device(rt, handle, "vkGetBufferMemoryRequirements");
    writeRequirements(
      rt,
      d,
      object(rt, buffer, "VkBuffer", "vkGetBufferMemoryRequirements", "buffer"),
      p as Deno.PointerObject,
    );
  },
  vkGetImageMemoryRequirements: (rt, [handle, image, p]) => {
    const d = device(rt, handle, "vkGetImageMemoryRequirements");
    writeRequirements(
      rt,
      d,
      object(rt, image, "VkImage", "vkGetImageMemoryRequirements", "image"),
      p as Deno.PointerObject,
    );
  },
  vkGetBufferMemoryRequirements2: (rt, [handle, pInfo, p]) => {
    const d = device(rt, handle, "vkGetBufferMemoryRequirements2");
    const buffer = ptr(pInfo as Deno.PointerObject, "VkBufferMemoryRequirementsInfo2", "buffer");
    const o = object(rt, buffer, "VkBuffer", "vkGetBufferMemoryRequirements2", "pInfo->buffer");
    writeRequirements(rt, d, o, Deno.UnsafePointer.offset(p as Deno.PointerObject, 16)!);
  },
  vkGetImageMemoryRequirements2: (rt, [handle, pInfo, p]) => {
    const d = device(rt, handle, "vkGetImageMemoryRequirements2");
    const image = ptr(pInfo as Deno.PointerObject, "VkImageMemoryRequirementsInfo2", "image");
    const o = object(rt, image, "VkImage", "vkGetImageMemoryRequirements2", "pInfo->image");
    writeRequirements(rt, d, o, Deno.UnsafePointer.offset(p as Deno.PointerObject, 16)!);
  },
  vkBindBufferMemory: (rt, [handle, buffer, memory]) => {
    if (device(rt, handle, "vkBindBufferMemory").lost) return R.ERROR_DEVICE_LOST;
    object(rt, buffer, "VkBuffer", "vkBindBufferMemory", "buffer");
    object(rt, memory, "VkDeviceMemory", "vkBindBufferMemory", "memory");
    return R.SUCCESS;
  },
  vkBindImageMemory: (rt, [handle, image, memory]) => {
    if (device(rt, handle, "vkBindImageMemory").lost) return R.ERROR_DEVICE_LOST;
    object(rt, image, "VkImage", "vkBindImageMemory", "image");
    object(rt, memory, "VkDeviceMemory", "vkBindImageMemory", "memory");
    return R.SUCCESS;
  },
  vkBindBufferMemory2: () => R.SUCCESS,
  vkBindImageMemory2: () => R.SUCCESS,
  vkGetBufferDeviceAddress: (rt, [_d, pInfo]) => {
    const buffer = ptr(pInfo as Deno.PointerObject, "VkBufferDeviceAddressInfo", "buffer");
    return BigInt(object(rt, buffer, "VkBuffer", "vkGetBufferDeviceAddress", "pInfo->buffer").key) << 16n;
  },
  vkCreateCommandPool: (rt, [handle, _info, _a, pPool]) => {
    const pool = rt.handles.plain("VkCommandPool", device(rt, handle, "vkCreateCommandPool"));
    pool.children = new Set();
    Handles.write(pPool as P, pool);
    return R.SUCCESS;
  },
  vkDestroyCommandPool: (rt, [_d, pool]) => {
    if (pool === null) return;
    const o = object(rt, pool, "VkCommandPool", "vkDestroyCommandPool", "commandPool");
    freeCommandBuffers(rt, o, [...o.children!].map((k) => rt.handles.get(k)!).filter(Boolean));
    rt.handles.remove(o);
  },
  vkResetCommandPool: (rt, [_d, pool]) => {
    const o = object(rt, pool, "VkCommandPool", "vkResetCommandPool", "commandPool");
    for (const k of o.children!) {
      const cb = rt.handles.get(k);
      if (cb) (cb.state = "initial"), (cb.commands = []);
    }
    return R.SUCCESS;
  },
  vkAllocateCommandBuffers: (rt, [handle, pInfo, pCommandBuffers]) => {
    const d = device(rt, handle, "vkAllocateCommandBuffers");
    if (d.lost) return R.ERROR_DEVICE_LOST;
    const I = "VkCommandBufferAllocateInfo";
    const info = pInfo as Deno.PointerObject;
    const pool = object(
      rt,
      ptr(info, I, "commandPool"),
      "VkCommandPool",
      "vkAllocateCommandBuffers",
      "pAllocateInfo->commandPool",
    );
    for (let i = 0; i < u32(info, I, "commandBufferCount"); i++) {
      const cb = rt.handles.dispatchable("VkCommandBuffer", d);
      cb.state = "initial";
      cb.commands = [];
      cb.pool = pool.key;
      pool.children!.add(cb.key);
      writePointer(pCommandBuffers as Deno.PointerObject, i * 8, Deno.UnsafePointer.create(BigInt(cb.key)));
    }
    return R.SUCCESS;
  },
  vkFreeCommandBuffers: (rt, [_d, pool, count, pCommandBuffers]) => {
    const o = object(rt, pool, "VkCommandPool", "vkFreeCommandBuffers", "commandPool");
    const list = pointers(pCommandBuffers as P, count as number).filter((h) => h !== null)
      .map((h) => object(rt, h, "VkCommandBuffer", "vkFreeCommandBuffers", "pCommandBuffers[]"));
    freeCommandBuffers(rt, o, list);
  },
  // Image views, framebuffers and render passes are remembered so a render pass clears swapchain images.
  vkCreateImageView: (rt, args, info) => {
    const result = createGeneric(rt, args, info);
    if (result === R.SUCCESS) {
      const image = u64(args[1] as Deno.PointerObject, "VkImageViewCreateInfo", "image");
      presentationState(rt.presentation).views.set(handleKey(readU64(args[3] as P, 0)), handleKey(image));
    }
    return result;
  },
  vkCreateFramebuffer: (rt, args, info) => {
    const result = createGeneric(rt, args, info);
    if (result === R.SUCCESS) {
      const F = "VkFramebufferCreateInfo", ci = args[1] as Deno.PointerObject;
      const views = pointers(ptr(ci, F, "pAttachments"), u32(ci, F, "attachmentCount"));
      presentationState(rt.presentation).framebuffers.set(
        handleKey(readU64(args[3] as P, 0)),
        views.map((v) => handleKey(v)),
      );
    }
    return result;
  },
  vkCreateRenderPass: (rt, args, info) => {
    const result = createGeneric(rt, args, info);
    if (result === R.SUCCESS) {
      const C = "VkRenderPassCreateInfo", A = "VkAttachmentDescription", ci = args[1] as Deno.PointerObject;
      const list = ptr(ci, C, "pAttachments"), size = layoutOf(A).size;
      const loadOps = Array.from(
        { length: u32(ci, C, "attachmentCount") },
        (_, i) => readU32(list, i * size + at(A, "loadOp")),
      );
      presentationState(rt.presentation).renderPasses.set(handleKey(readU64(args[3] as P, 0)), loadOps);
    }
    return result;
  },
  vkCmdBeginRenderPass: (rt, args, info) => {
    recordCommand(rt, args, info);
    const cb = rt.handles.get(args[0] as P, "VkCommandBuffer");
    if (cb?.state !== "recording") return;
    const B = "VkRenderPassBeginInfo", begin = args[1] as Deno.PointerObject;
    const loadOps =
      presentationState(rt.presentation).renderPasses.get(handleKey(ptr(begin, B, "renderPass"))) ?? [];
    const views =
      presentationState(rt.presentation).framebuffers.get(handleKey(ptr(begin, B, "framebuffer"))) ?? [];
    const area = at(B, "renderArea");
    const rect = {
      x: readU32(begin, area),
      y: readU32(begin, area + 4),
      width: readU32(begin, area + 8),
      height: readU32(begin, area + 12),
    };
    const clears = ptr(begin, B, "pClearValues");
    views.forEach((view, i) => {
      if (loadOps[i] !== 1 || clears === null || i >= u32(begin, B, "clearValueCount")) return; // CLEAR is 1
      const color = new Float32Array(Deno.UnsafePointerView.getArrayBuffer(clears, 16, i * 16).slice(0));
      const image = presentationState(rt.presentation).views.get(view);
      if (image !== undefined) {
        presentationState(rt.presentation).record(
          cb.commands!,
          () => presentationState(rt.presentation).clear(image, [...color], rect),
        );
      }
    });
  },
  vkBeginCommandBuffer: (rt, [cb]) => {
    const o = object(rt, cb, "VkCommandBuffer", "vkBeginCommandBuffer", "commandBuffer");
    if (o.device?.lost) return R.ERROR_DEVICE_LOST;
    if (o.state === "recording") {
      rt.problem(`vkBeginCommandBuffer: command buffer "${hex(o.key)}" is already recording`);
    }
    o.state = "recording";
    o.commands = [];
    return R.SUCCESS;
  },
  vkEndCommandBuffer: (rt, [cb]) => {
    const o = object(rt, cb, "VkCommandBuffer", "vkEndCommandBuffer", "commandBuffer");
    if (o.state !== "recording") {
      rt.problem(`vkEndCommandBuffer: command buffer "${hex(o.key)}" is not recording (it is ${o.state})`);
    }
    o.state = "executable";
    return R.SUCCESS;
  },
  vkResetCommandBuffer: (rt, [cb]) => {
    const o = object(rt, cb, "VkCommandBuffer", "vkResetCommandBuffer", "commandBuffer");
    o.state = "initial";
    o.commands = [];
    return R.SUCCESS;
  },
  vkCreateDescriptorPool: (rt, [handle, _i, _a, pPool]) => {
    const pool = rt.handles.plain("VkDescriptorPool", device(rt, handle, "vkCreateDescriptorPool"));
    pool.children = new Set();
    Handles.write(pPool as P, pool);
    return R.SUCCESS;
  },
  vkDestroyDescriptorPool: (rt, [_d, pool]) => {
    if (pool === null) return;
    const o = object(rt, pool, "VkDescriptorPool", "vkDestroyDescriptorPool", "descriptorPool");
    for (const k of o.children!) {
      const s = rt.handles.get(k);
      if (s) rt.handles.remove(s);
    }
    rt.handles.remove(o);
  },
  vkResetDescriptorPool: (rt, [_d, pool]) => {
    const o = object(rt, pool, "VkDescriptorPool", "vkResetDescriptorPool", "descriptorPool");
    for (const k of o.children!) {
      const s = rt.handles.get(k);
      if (s) rt.handles.remove(s);
    }
    o.children!.clear();
    return R.SUCCESS;
  },
  vkAllocateDescriptorSets: (rt, [handle, pInfo, pSets]) => {
    const d = device(rt, handle, "vkAllocateDescriptorSets");
    const I = "VkDescriptorSetAllocateInfo";
    const info = pInfo as Deno.PointerObject;
    const pool = object(
      rt,
      ptr(info, I, "descriptorPool"),
      "VkDescriptorPool",
      "vkAllocateDescriptorSets",
      "pAllocateInfo->descriptorPool",
    );
    for (let i = 0; i < u32(info, I, "descriptorSetCount"); i++) {
      const s = rt.handles.plain("VkDescriptorSet", d);
      pool.children!.add(s.key);
      Handles.write(pSets as P, s, i);
    }
    return R.SUCCESS;
  },
  vkFreeDescriptorSets: (rt, [_d, pool, count, pSets]) => {
    const o = object(rt, pool, "VkDescriptorPool", "vkFreeDescriptorSets", "descriptorPool");
    for (const h of pointers(pSets as P, count as number)) {
      if (h === null) continue;
      const s = object(rt, h, "VkDescriptorSet", "vkFreeDescriptorSets", "pDescriptorSets[]");
      o.children!.delete(s.key);
      rt.handles.remove(s);
    }
    return R.SUCCESS;
  },
  vkUpdateDescriptorSets: () => {},
  vkGetPipelineCacheData: (_rt, [, , pSize]) => {
    writeU64(pSize as Deno.PointerObject, 0, 0n);
    return R.SUCCESS;
  },
};

function timelineValues(pNext: P): bigint[] {
  for (let p = pNext; p !== null; p = readPointer(p, 8)) {
    if (STRUCT_BY_STYPE[readU32(p, 0)] !== "VkTimelineSemaphoreSubmitInfo") continue;
    const T = "VkTimelineSemaphoreSubmitInfo";
    const values = ptr(p, T, "pSignalSemaphoreValues");
    const n = u32(p, T, "signalSemaphoreValueCount");
    return Array.from({ length: n }, (_, i) => readU64(values, i * 8));
  }
  return [];
}

function writeMemoryProperties(m: MockDeviceModel, p: Deno.PointerObject): void {
  const M = "VkPhysicalDeviceMemoryProperties";
  writeU32(p, at(M, "memoryTypeCount"), m.memoryTypes.length);
  m.memoryTypes.forEach((t, i) => {
    writeU32(p, at(M, "memoryTypes") + i * 8, t.propertyFlags);
    writeU32(p, at(M, "memoryTypes") + i * 8 + 4, t.heapIndex);
  });
  writeU32(p, at(M, "memoryHeapCount"), m.memoryHeaps.length);
  m.memoryHeaps.forEach((h, i) => {
    writeU64(p, at(M, "memoryHeaps") + i * 16, h.size);
    writeU32(p, at(M, "memoryHeaps") + i * 16 + 8, h.flags);
  });
}

/**
 * The built-in behaviour of `info` (its own, or the generic one of its kind), or undefined when the mock
 * has none.
 *
 * @example Usage
 * ```ts ignore
 * builtinBehaviour(COMMANDS[COMMAND_INDEX.vkCmdDraw!]!); // the recorder
 * ```
 */
export function builtinBehaviour(info: CommandInfo): Behaviour | undefined {
  const own = behaviours[info.name] ?? (PRESENTATION[info.name] as Behaviour | undefined);
  if (own) return own;
  if (info.name.startsWith("vkCmd") && info.result === "void") return recordCommand;
  if (/^vkCreate\w*Pipelines/.test(info.name)) return createPipelines;
  const last = info.params[info.params.length - 1];
  if (
    /^vkCreate/.test(info.name) && info.level === "device" && last && last.pointer === 1 && !last.const &&
    isHandleType(last.type) && info.params.length === 4
  ) return createGeneric;
  if (/^vkDestroy/.test(info.name) && info.level === "device" && info.result === "void") {
    return destroyGeneric;
  }
  return undefined;
}
