/**
 * Main side of `threads_test.ts`, one scenario per process (`record`, `own_loader`, `main_instance`),
 * printing one JSON line.
 *
 * @module
 */

import { Vulkan } from "../../vulkan.ts";
import { chainStubs } from "../../chain/stubs.ts";
import { address, Arena } from "../../ffi/memory.ts";
import { enumerate, makeApiVersion, writeStruct } from "../../api/structs.ts";
import { cycle } from "./reliability_soak.ts";
import type { InstanceJob, RecordJob, WorkerReport } from "./reliability_threads_worker.ts";
import { asHandle } from "../../vk/handle.ts";
import {
  VK_BUFFER_USAGE_TRANSFER_DST_BIT,
  VK_COMMAND_BUFFER_LEVEL_PRIMARY,
  VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
} from "../../mod.ts";
import { LAVAPIPE } from "./lavapipe.ts";

const VARS = {
  VK_DRIVER_FILES: LAVAPIPE,
  VK_LOADER_LAYERS_DISABLE: "~implicit~",
};

// deno-lint-ignore no-explicit-any
type Fn = (...args: any[]) => any;

function out(slot: BigUint64Array): Deno.PointerObject {
  return Deno.UnsafePointer.of(slot)!;
}

function check(r: number, what: string): void {
  if (r !== 0) throw new Error(`${what} returned VkResult "${r}"`);
}

function runWorkers(jobs: (RecordJob | InstanceJob)[]): Promise<WorkerReport[]> {
  return Promise.all(jobs.map((job) =>
    new Promise<WorkerReport>((resolve) => {
      const w = new Worker(new URL("./reliability_threads_worker.ts", import.meta.url), { type: "module" });
      w.onmessage = (e: MessageEvent<WorkerReport>) => {
        w.terminate();
        resolve(e.data);
      };
      w.onerror = (e) => {
        e.preventDefault();
        w.terminate();
        resolve({ worker: job.worker, ok: 0, errors: [`worker error: ${e.message}`] });
      };
      w.postMessage(job);
    })
  ));
}

/** Instance + device cycles the main thread ran while the workers recorded. */
let churn = 0;

async function scenario(name: string, workers: number, iterations: number): Promise<WorkerReport[]> {
  const env = { vars: { ...Deno.env.toObject(), ...VARS }, elevated: false };
  using vk = Vulkan.load({ env }) as unknown as Record<string, Fn> & Disposable;
  using arena = new Arena();
  const stubsPath = chainStubs().dispatch.path;
  const slot = new BigUint64Array(new ArrayBuffer(8));
  check(
    vk.vkCreateInstance!(
      writeStruct(arena, "VkInstanceCreateInfo", { pApplicationInfo: { apiVersion: makeApiVersion(1, 3) } }),
      null,
      out(slot),
    ),
    "vkCreateInstance",
  );
  const instance = Deno.UnsafePointer.create(slot[0]!);
  const cleanup: (() => void)[] = [() => vk.vkDestroyInstance!(instance, null)];
  try {
    const pd = enumerate(vk.vkEnumeratePhysicalDevices!, [instance], {
      name: "vkEnumeratePhysicalDevices",
    })[0]!;
    if (name === "own_loader") {
      const reports = runWorkers(
        Array.from({ length: workers }, (_, worker) => ({
          kind: "own_loader" as const,
          worker,
          iterations,
          stubsPath,
          vars: env.vars,
          instance: 0n,
          physicalDevice: 0n,
        })),
      );
      // this thread keeps working on its own loader meanwhile
      for (let i = 0; i < iterations; i++) cycle(vk as never);
      return await reports;
    }
    if (name === "main_instance") {
      return await runWorkers(
        Array.from({ length: workers }, (_, worker) => ({
          kind: "main_instance" as const,
          worker,
          iterations,
          stubsPath,
          vars: {},
          instance: address(instance),
          physicalDevice: address(pd),
        })),
      );
    }
    // record: one device, queue, pool, command buffer, fence and mapped buffer per worker
    const SIZE = 64 * 1024;
    const memProps = arena.alloc(520);
    vk.vkGetPhysicalDeviceMemoryProperties!(pd, arena.pointer(memProps));
    const mp = new DataView(memProps.buffer, memProps.byteOffset, memProps.byteLength);
    const typeCount = mp.getUint32(0, true);
    let memoryType = -1;
    for (let t = 0; t < typeCount; t++) {
      const flags = mp.getUint32(4 + t * 8, true);
      if ((flags & 0x6) === 0x6) { // HOST_VISIBLE | HOST_COHERENT
        memoryType = t;
        break;
      }
    }
    if (memoryType < 0) throw new Error("No host-visible coherent memory type");
    const jobs: RecordJob[] = [];
    for (let worker = 0; worker < workers; worker++) {
      const get = () => {
        const p = Deno.UnsafePointer.create(slot[0]!);
        slot[0] = 0n;
        return p;
      };
      check(
        vk.vkCreateDevice!(
          pd,
          writeStruct(arena, "VkDeviceCreateInfo", {
            pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
          }),
          null,
          out(slot),
        ),
        "vkCreateDevice",
      );
      const device = get();
      cleanup.push(() => vk.vkDestroyDevice!(device, null));
      vk.vkGetDeviceQueue!(device, 0, 0, out(slot));
      const queue = get();
      check(
        vk.vkCreateCommandPool!(
          device,
          writeStruct(arena, "VkCommandPoolCreateInfo", {
            flags: VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
            queueFamilyIndex: 0,
          }),
          null,
          out(slot),
        ),
        "vkCreateCommandPool",
      );
      const pool = get();
      cleanup.push(() => vk.vkDestroyCommandPool!(device, pool, null));
      check(
        vk.vkAllocateCommandBuffers!(
          device,
          writeStruct(arena, "VkCommandBufferAllocateInfo", {
            commandPool: asHandle("VkCommandPool", pool)!,
            level: VK_COMMAND_BUFFER_LEVEL_PRIMARY,
            commandBufferCount: 1,
          }),
          out(slot),
        ),
        "vkAllocateCommandBuffers",
      );
      const commandBuffer = get();
      check(
        vk.vkCreateFence!(device, writeStruct(arena, "VkFenceCreateInfo", {}), null, out(slot)),
        "vkCreateFence",
      );
      const fence = get();
      cleanup.push(() => vk.vkDestroyFence!(device, fence, null));
      check(
        vk.vkCreateBuffer!(
          device,
          writeStruct(arena, "VkBufferCreateInfo", {
            size: BigInt(SIZE),
            usage: VK_BUFFER_USAGE_TRANSFER_DST_BIT,
          }),
          null,
          out(slot),
        ),
        "vkCreateBuffer",
      );
      const buffer = get();
      cleanup.push(() => vk.vkDestroyBuffer!(device, buffer, null));
      check(
        vk.vkAllocateMemory!(
          device,
          writeStruct(arena, "VkMemoryAllocateInfo", {
            allocationSize: BigInt(SIZE),
            memoryTypeIndex: memoryType,
          }),
          null,
          out(slot),
        ),
        "vkAllocateMemory",
      );
      const memory = get();
      cleanup.push(() => vk.vkFreeMemory!(device, memory, null));
      check(vk.vkBindBufferMemory!(device, buffer, memory, 0n), "vkBindBufferMemory");
      check(vk.vkMapMemory!(device, memory, 0n, BigInt(SIZE), 0, out(slot)), "vkMapMemory");
      const mapped = slot[0]!;
      slot[0] = 0n;
      jobs.push({
        kind: "record",
        worker,
        iterations,
        stubsPath,
        device: address(device),
        queue: address(queue),
        commandBuffer: address(commandBuffer),
        fence: address(fence),
        buffer: address(buffer),
        size: SIZE,
        mapped,
      });
    }
    // Meanwhile this thread creates and destroys whole instances and devices on the same loader.
    let done = false;
    const reports = runWorkers(jobs).finally(() => done = true);
    churn = 0;
    while (!done) {
      cycle(vk as never);
      churn++;
      await new Promise((r) => setTimeout(r, 0));
    }
    return await reports;
  } finally {
    for (const f of cleanup.reverse()) f();
  }
}

if (import.meta.main) {
  const [name = "record", workers = "4", iterations = "100"] = Deno.args;
  try {
    const reports = await scenario(name, Number(workers), Number(iterations));
    console.log(JSON.stringify({ scenario: name, reports, churn }));
  } catch (error) {
    console.log(JSON.stringify({ scenario: name, reports: [], error: String(error) }));
  }
}
