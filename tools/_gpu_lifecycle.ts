/**
 * Child process of tools/gpu_check.ts: what one process does to a real driver over its life (two instances,
 * reload, a third); prints `GPU_LIFECYCLE <json>`.
 *
 * @module
 */

import { Vulkan } from "../vulkan.ts";
import { Arena, readPointer } from "../ffi/memory.ts";
import { allocStruct, readStruct, writeStruct } from "../api/structs.ts";
import { asHandle, readHandle } from "../vk/handle.ts";

/** What the child prints after `GPU_LIFECYCLE `. */
export interface LifecycleProbe {
  steps: { name: string; result: number | string }[];
  devices: { first: string[]; second: string[] };
}

type Vk = ReturnType<typeof Vulkan.load>;

function makeInstance(vk: Vk, arena: Arena, steps: LifecycleProbe["steps"], label: string) {
  const slot = arena.pointer(arena.alloc(8));
  const r = vk.vkCreateInstance(
    writeStruct(arena, "VkInstanceCreateInfo", { pApplicationInfo: { apiVersion: (1 << 22) | (3 << 12) } }),
    null,
    slot,
  );
  steps.push({ name: `vkCreateInstance ${label}`, result: r });
  if (r !== 0) throw new Error(`vkCreateInstance ${label} returned ${r}`);
  const instance = readHandle("VkInstance", slot, 0)!;
  const count = new Uint32Array([8]);
  const pds = new BigUint64Array(8);
  steps.push({
    name: `vkEnumeratePhysicalDevices ${label}`,
    result: vk.vkEnumeratePhysicalDevices(
      instance,
      Deno.UnsafePointer.of(count),
      Deno.UnsafePointer.of(pds),
    ),
  });
  const names: string[] = [];
  for (let i = 0; i < count[0]!; i++) {
    const props = allocStruct(arena, "VkPhysicalDeviceProperties");
    vk.vkGetPhysicalDeviceProperties(
      asHandle("VkPhysicalDevice", Deno.UnsafePointer.create(pds[i]!))!,
      props,
    );
    names.push(readStruct("VkPhysicalDeviceProperties", props).deviceName as string);
  }
  const dslot = arena.pointer(arena.alloc(8));
  const d = vk.vkCreateDevice(
    asHandle("VkPhysicalDevice", Deno.UnsafePointer.create(pds[0]!))!,
    writeStruct(arena, "VkDeviceCreateInfo", {
      pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
    }),
    null,
    dslot,
  );
  steps.push({ name: `vkCreateDevice ${label}`, result: d });
  const device = asHandle("VkDevice", d === 0 ? readPointer(dslot, 0) : null)!;
  if (device) {
    const q = arena.pointer(arena.alloc(8));
    vk.vkGetDeviceQueue(device, 0, 0, q);
    steps.push({ name: `vkGetDeviceQueue ${label}`, result: readPointer(q, 0) === null ? "null queue" : 0 });
    steps.push({
      name: `vkDeviceWaitIdle ${label}`,
      result: vk.vkDeviceWaitIdle(device),
    });
  }
  return {
    names,
    destroy() {
      if (device) vk.vkDestroyDevice(device, null);
      vk.vkDestroyInstance(instance, null);
      steps.push({ name: `destroyed ${label}`, result: 0 });
    },
  };
}

function probe(): LifecycleProbe {
  const steps: LifecycleProbe["steps"] = [];
  const devices = { first: [] as string[], second: [] as string[] };
  try {
    {
      using vk = Vulkan.load();
      using arena = new Arena();
      const a = makeInstance(vk, arena, steps, "A");
      const b = makeInstance(vk, arena, steps, "B");
      devices.first = a.names;
      a.destroy();
      b.destroy();
    }
    steps.push({ name: "loader disposed", result: 0 });
    {
      using vk = Vulkan.load();
      using arena = new Arena();
      const c = makeInstance(vk, arena, steps, "C (second load)");
      devices.second = c.names;
      c.destroy();
    }
    steps.push({ name: "second loader disposed", result: 0 });
  } catch (error) {
    steps.push({ name: "error", result: error instanceof Error ? error.message : String(error) });
  }
  return { steps, devices };
}

if (import.meta.main) {
  console.log(`GPU_LIFECYCLE ${JSON.stringify(probe())}`);
}
