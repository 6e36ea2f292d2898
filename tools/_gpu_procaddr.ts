/**
 * Child process of tools/gpu_check.ts: which commands a loader hands out through `vkGetInstanceProcAddr` and
 * `vkGetDeviceProcAddr`; prints `GPU_PROCADDR <json>`.
 *
 * @module
 */

import { COMMANDS } from "../vk/generated/commands.ts";
import { Arena, readPointer } from "../ffi/memory.ts";
import { check, enumerate, makeApiVersion, writeStruct } from "../api/structs.ts";
import { openLoader } from "../examples/_loader.ts";
import type { Commands } from "../bench/_vulkan.ts";
import { VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR } from "../mod.ts";

/** What the child prints after `GPU_PROCADDR `. */
export interface ProcAddrProbe {
  loader: string;
  instanceExtensions: string[];
  /** Names `vkGetInstanceProcAddr(instance, name)` returned non-NULL for. */
  instance: string[];
  /** Names `vkGetDeviceProcAddr(device, name)` returned non-NULL for. */
  device: string[];
  /** Registry commands asked about, per query. */
  asked: { instance: number; device: number };
}

async function probe(loader: string): Promise<ProcAddrProbe> {
  using vk0 = await openLoader(loader);
  const vk = vk0 as unknown as Commands;
  using arena = new Arena();
  const extensions = enumerate(vk.vkEnumerateInstanceExtensionProperties!, [null], {
    struct: "VkExtensionProperties",
    name: "vkEnumerateInstanceExtensionProperties",
  }).map((e) => e.extensionName as string);
  const slot = arena.pointer(arena.alloc(8));
  check(
    vk.vkCreateInstance!(
      writeStruct(arena, "VkInstanceCreateInfo", {
        flags: extensions.includes("VK_KHR_portability_enumeration")
          ? VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR
          : 0,
        pApplicationInfo: { pApplicationName: "vkdeno gpu_check", apiVersion: makeApiVersion(1, 3) },
        ppEnabledExtensionNames: extensions,
      }),
      null,
      slot,
    ),
    "vkCreateInstance",
  );
  const instance = readPointer(slot);
  const [physicalDevice] = enumerate(vk.vkEnumeratePhysicalDevices!, [instance]) as Deno.PointerValue[];
  check(
    vk.vkCreateDevice!(
      physicalDevice,
      writeStruct(arena, "VkDeviceCreateInfo", {
        pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
      }),
      null,
      slot,
    ),
    "vkCreateDevice",
  );
  const device = readPointer(slot);
  const names = new Set<string>();
  for (const c of COMMANDS) for (const n of [c.name, ...c.aliases]) names.add(n);
  const levelOf = new Map<string, string>();
  for (const c of COMMANDS) for (const n of [c.name, ...c.aliases]) levelOf.set(n, c.level);
  const instanceNames = [...names].filter((n) => levelOf.get(n) !== "global").sort();
  const deviceNames = [...names].filter((n) => levelOf.get(n) === "device").sort();
  const has =
    (fn: (h: Deno.PointerValue, n: Deno.PointerValue) => Deno.PointerValue, h: Deno.PointerValue) =>
    (n: string) => fn(h, arena.cstring(n)) !== null;
  const gipa = has(vk.vkGetInstanceProcAddr!, instance);
  const gdpa = has(vk.vkGetDeviceProcAddr!, device);
  const result: ProcAddrProbe = {
    loader,
    instanceExtensions: extensions,
    instance: instanceNames.filter(gipa),
    device: deviceNames.filter(gdpa),
    asked: { instance: instanceNames.length, device: deviceNames.length },
  };
  vk.vkDestroyDevice!(device, null);
  vk.vkDestroyInstance!(instance, null);
  return result;
}

if (import.meta.main) {
  console.log(`GPU_PROCADDR ${JSON.stringify(await probe(Deno.args[0] ?? "vkdeno"))}`);
}
