/**
 * Helpers of the chain tests: a `Vulkan` object over a snapshot with its log captured, and the
 * instance / physical device / device steps written once.
 *
 * @module
 */

import { ok as assert } from "node:assert/strict";
import type { EnvironmentSnapshot } from "../../discovery/environment.ts";
import { Logger } from "../../loading/log.ts";
import { Vulkan, type VulkanCommands } from "../../vulkan.ts";
import { Arena, type Pointer, readPointer, readU32 } from "../../ffi/memory.ts";
import { writeStruct } from "../../api/structs.ts";
import { asHandle } from "../../vk/handle.ts";
import type { VkDevice, VkInstance, VkPhysicalDevice } from "../../vk/generated/vk_types.ts";
import type { VkInstanceCreateFlags } from "../../mod.ts";

/** A command object with its log lines kept. */
export interface Loaded extends Disposable {
  readonly vk: Vulkan & VulkanCommands;
  /** Every log line printed (VK_LOADER_DEBUG=all unless the snapshot says otherwise). */
  readonly lines: string[];
  readonly arena: Arena;
}

/** Loads vkdeno over `env` with the log captured. */
export function load(env: EnvironmentSnapshot): Loaded {
  const lines: string[] = [];
  const vars = { VK_LOADER_DEBUG: "all", ...env.vars };
  const logger = new Logger({ ...env, vars }, { write: (line) => lines.push(line) });
  const vk = Vulkan.load({ env, logger });
  const arena = new Arena();
  return {
    vk,
    lines,
    arena,
    [Symbol.dispose]() {
      vk.dispose();
      arena.dispose();
    },
  };
}

/** Packs "1.3.0". */
export function version(text: string): number {
  const [a = 0, b = 0, c = 0] = text.split(".").map(Number);
  return ((a << 22) | (b << 12) | c) >>> 0;
}

/** Options of {@linkcode createInstance}. */
export interface InstanceOptions {
  apiVersion?: string;
  extensions?: string[];
  layers?: string[];
  flags?: number;
  noApplicationInfo?: boolean;
}

/**
 * `vkCreateInstance`; returns the result and the handle (typed as created: the tests that expect a failure
 * read `result` only).
 */
export function createInstance(l: Loaded, o: InstanceOptions = {}): { result: number; instance: VkInstance } {
  const { arena, vk } = l;
  const app = o.noApplicationInfo ? null : writeStruct(arena, "VkApplicationInfo", {
    pApplicationName: arena.cstring("chain test"),
    apiVersion: version(o.apiVersion ?? "1.3.0"),
  });
  const ci = writeStruct(arena, "VkInstanceCreateInfo", {
    flags: (o.flags ?? 0) as VkInstanceCreateFlags,
    pApplicationInfo: app,
    enabledExtensionCount: o.extensions?.length ?? 0,
    ppEnabledExtensionNames: arena.cstringArray(o.extensions ?? []),
    enabledLayerCount: o.layers?.length ?? 0,
    ppEnabledLayerNames: arena.cstringArray(o.layers ?? []),
  });
  const out = arena.pointer(arena.alloc(8));
  const result = vk.vkCreateInstance(ci, null, out) as number;
  return { result, instance: asHandle("VkInstance", readPointer(out, 0)) as VkInstance };
}

/** A u32 out-parameter. */
export function u32Slot(l: Loaded, value = 0): { pointer: Deno.PointerObject; read(): number } {
  const buf = l.arena.alloc(4);
  new DataView(buf.buffer, buf.byteOffset).setUint32(0, value, true);
  const pointer = l.arena.pointer(buf);
  return { pointer, read: () => readU32(pointer, 0) };
}

/** `vkEnumeratePhysicalDevices` with the two-call idiom; asserts success. */
export function physicalDevices(l: Loaded, instance: VkInstance): VkPhysicalDevice[] {
  const count = u32Slot(l);
  const r = l.vk.vkEnumeratePhysicalDevices(instance, count.pointer, null);
  assert(r === 0, `vkEnumeratePhysicalDevices returned ${r}`);
  const n = count.read();
  const arr = l.arena.pointer(l.arena.alloc(8 * Math.max(1, n)));
  assert(l.vk.vkEnumeratePhysicalDevices(instance, count.pointer, arr) === 0);
  return Array.from(
    { length: count.read() },
    (_, i) => asHandle("VkPhysicalDevice", readPointer(arr, i * 8))!,
  );
}

/** `vkCreateDevice` with one queue family 0 of `queues` queues. */
export function createDevice(
  l: Loaded,
  physicalDevice: VkPhysicalDevice,
  o: { extensions?: string[]; queues?: number; pNext?: Pointer } = {},
): { result: number; device: VkDevice } {
  const { arena, vk } = l;
  const priorities = new Float32Array(new ArrayBuffer(4 * (o.queues ?? 1))).fill(1);
  const queue = writeStruct(arena, "VkDeviceQueueCreateInfo", {
    queueFamilyIndex: 0,
    queueCount: o.queues ?? 1,
    pQueuePriorities: arena.copy(priorities),
  });
  const ci = writeStruct(arena, "VkDeviceCreateInfo", {
    pNext: o.pNext ?? null,
    queueCreateInfoCount: 1,
    pQueueCreateInfos: queue,
    enabledExtensionCount: o.extensions?.length ?? 0,
    ppEnabledExtensionNames: arena.cstringArray(o.extensions ?? []),
  });
  const out = arena.pointer(arena.alloc(8));
  const result = vk.vkCreateDevice(physicalDevice, ci, null, out) as number;
  return { result, device: asHandle("VkDevice", readPointer(out, 0)) as VkDevice };
}

/** The first word of a dispatchable handle. */
export function firstWord(handle: Pointer): bigint {
  assert(handle !== null, "null handle");
  return new Deno.UnsafePointerView(handle).getBigUint64(0);
}

/** The address of a pointer (0n for null). */
export function addr(p: Pointer): bigint {
  return p === null ? 0n : BigInt(Deno.UnsafePointer.value(p));
}

/** Call-log lines of `command` (second word). */
export function calls(log: string[], command: string): string[] {
  return log.filter((l) => l.split(" ")[1] === command);
}

/** The `key=value` fields of a call-log line. */
export function fields(line: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of line.split(" ").slice(2)) {
    const i = part.indexOf("=");
    if (i > 0) out[part.slice(0, i)] = part.slice(i + 1);
  }
  return out;
}
