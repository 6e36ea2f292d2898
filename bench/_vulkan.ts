/**
 * What every benchmark needs on either loader: the lavapipe environment, an instance and a device made
 * through a loader's command object (vkdeno's `vk` or tests/support/libvulkan.ts's), and command buffers in the
 * recording state.
 *
 * @module
 */

import { Arena, readPointer } from "../ffi/memory.ts";
import { check, enumerate, makeApiVersion, writeStruct } from "../api/structs.ts";
import { readHandle } from "../vk/handle.ts";
import { LAVAPIPE } from "../tests/support/lavapipe.ts";

/** A Vulkan command as a function of its C parameter list. */
// deno-lint-ignore no-explicit-any
export type Command = (...args: any[]) => any;

/** The command-object shape both loaders share (members other than commands are typed loosely). */
// deno-lint-ignore no-explicit-any
export type Commands = { readonly [name: string]: any } & {
  deviceTable?(device: Deno.PointerValue): { readonly [name: string]: Command };
};

// lavapipe's manifest (for the running architecture): the only driver the benchmarks load.
export { LAVAPIPE };

/** The Khronos validation layer. */
export const VALIDATION = "VK_LAYER_KHRONOS_validation";

const CLEARED = [
  "VK_ICD_FILENAMES",
  "VK_ADD_DRIVER_FILES",
  "VK_LOADER_DRIVERS_SELECT",
  "VK_LOADER_DRIVERS_DISABLE",
  "VK_INSTANCE_LAYERS",
  "VK_LOADER_LAYERS_ENABLE",
  "VK_LOADER_LAYERS_DISABLE",
  "VK_LOADER_LAYERS_ALLOW",
  "VK_LOADER_DEBUG",
  "VK_LAYER_PATH",
  "VK_ADD_LAYER_PATH",
];

/**
 * Sets the process environment both loaders read: lavapipe only (or `BENCH_DRIVER_FILES`), Mesa's implicit
 * device-select layer off (`NODEVICE_SELECT=1`; the other implicit layers installed here need an enable
 * variable), no layer variables (but `VK_LAYER_PATH` from `BENCH_LAYER_PATH`), then `extra` (undefined
 * deletes).
 */
export function setBenchEnvironment(extra: Record<string, string | undefined> = {}): void {
  // On another machine (the GPU one, tools/gpu_run.sh): its driver, and where its validation layer is.
  const driver = Deno.env.get("BENCH_DRIVER_FILES") ?? LAVAPIPE;
  const layerPath = Deno.env.get("BENCH_LAYER_PATH");
  for (const name of CLEARED) Deno.env.delete(name);
  Deno.env.set("VK_DRIVER_FILES", driver);
  if (layerPath) Deno.env.set("VK_LAYER_PATH", layerPath);
  Deno.env.set("NODEVICE_SELECT", "1");
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) Deno.env.delete(name);
    else Deno.env.set(name, value);
  }
}

/** Options of {@linkcode BenchDevice.create}. */
export interface BenchDeviceOptions {
  /** Layers to enable in `ppEnabledLayerNames` (the loaders find them through `VK_LAYER_PATH`). */
  layers?: readonly string[];
}

/** A command buffer in the recording state, on a pool of its own. */
export interface RecordingCommandBuffer {
  readonly pool: Deno.PointerValue;
  readonly commandBuffer: Deno.PointerObject;
  /** Resets the pool (dropping what was recorded) and begins recording again. */
  restart(): void;
}

/** An instance and a device (queue family 0, one queue) made through a loader. */
export class BenchDevice implements Disposable {
  readonly vk: Commands;
  readonly instance: Deno.PointerValue;
  readonly physicalDevice: Deno.PointerValue;
  readonly device: Deno.PointerObject;
  /** The device's commands: `vk.deviceTable(device)` where the loader has one. */
  readonly table: { readonly [name: string]: Command };
  readonly #arena = new Arena();
  readonly #pools: Deno.PointerValue[] = [];

  private constructor(
    vk: Commands,
    instance: Deno.PointerValue,
    physicalDevice: Deno.PointerValue,
    device: Deno.PointerObject,
  ) {
    this.vk = vk;
    this.instance = instance;
    this.physicalDevice = physicalDevice;
    this.device = device;
    this.table = vk.deviceTable?.(device) ?? vk;
  }

  /** Creates an instance (API 1.3) and a device on its first physical device. */
  static create(vk: Commands, options: BenchDeviceOptions = {}): BenchDevice {
    using arena = new Arena();
    const instance = createInstance(vk, arena, options.layers ?? []);
    try {
      const [physicalDevice] = enumerate(vk.vkEnumeratePhysicalDevices!, [instance]) as Deno.PointerValue[];
      if (!physicalDevice) throw new Error("Cannot benchmark: the loader found no physical device");
      const device = createDevice(vk, arena, physicalDevice, options.layers ?? []);
      return new BenchDevice(vk, instance, physicalDevice, device!);
    } catch (error) {
      vk.vkDestroyInstance!(instance, null);
      throw error;
    }
  }

  /** A command buffer of a new pool, recording. */
  recording(): RecordingCommandBuffer {
    const arena = this.#arena;
    const t = this.table;
    const slot = arena.pointer(arena.alloc(8));
    check(
      t.vkCreateCommandPool!(
        this.device,
        writeStruct(arena, "VkCommandPoolCreateInfo", { queueFamilyIndex: 0 }),
        null,
        slot,
      ),
      "vkCreateCommandPool",
    );
    const pool = readHandle("VkCommandPool", slot)!;
    this.#pools.push(pool);
    check(
      t.vkAllocateCommandBuffers!(
        this.device,
        writeStruct(arena, "VkCommandBufferAllocateInfo", { commandPool: pool, commandBufferCount: 1 }),
        slot,
      ),
      "vkAllocateCommandBuffers",
    );
    const commandBuffer = readPointer(slot)!;
    const beginInfo = writeStruct(arena, "VkCommandBufferBeginInfo", {});
    const device = this.device;
    const restart = () => {
      check(t.vkResetCommandPool!(device, pool, 0), "vkResetCommandPool");
      check(t.vkBeginCommandBuffer!(commandBuffer, beginInfo), "vkBeginCommandBuffer");
    };
    check(t.vkBeginCommandBuffer!(commandBuffer, beginInfo), "vkBeginCommandBuffer");
    return { pool, commandBuffer, restart };
  }

  /** Destroys the pools, the device and the instance. */
  [Symbol.dispose](): void {
    for (const pool of this.#pools.splice(0)) this.table.vkDestroyCommandPool!(this.device, pool, null);
    this.table.vkDestroyDevice!(this.device, null);
    this.vk.vkDestroyInstance!(this.instance, null);
    this.#arena.dispose();
  }
}

/** `vkCreateInstance` (API 1.3, the given layers). */
export function createInstance(vk: Commands, arena: Arena, layers: readonly string[]): Deno.PointerValue {
  const slot = arena.pointer(arena.alloc(8));
  check(
    vk.vkCreateInstance!(
      writeStruct(arena, "VkInstanceCreateInfo", {
        pApplicationInfo: { pApplicationName: "vkdeno bench", apiVersion: makeApiVersion(1, 3) },
        ppEnabledLayerNames: [...layers],
      }),
      null,
      slot,
    ),
    "vkCreateInstance",
  );
  return readPointer(slot);
}

/** `vkCreateDevice` with one queue of family 0 (device layers named too, as old apps do). */
export function createDevice(
  vk: Commands,
  arena: Arena,
  physicalDevice: Deno.PointerValue,
  layers: readonly string[] = [],
): Deno.PointerObject {
  const slot = arena.pointer(arena.alloc(8));
  check(
    vk.vkCreateDevice!(
      physicalDevice,
      writeStruct(arena, "VkDeviceCreateInfo", {
        pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
        ppEnabledLayerNames: [...layers],
      }),
      null,
      slot,
    ),
    "vkCreateDevice",
  );
  return readPointer(slot)!;
}
