/**
 * Worker side of `threads_test.ts`: records and submits command buffers through the main thread's
 * dispatch stubs (attached by path), or runs instance-level work of its own, and reports back.
 *
 * @module
 */

import { COMMAND_INDEX, COMMANDS } from "../../vk/generated/commands.ts";
import { DispatchStubs } from "../../ffi/dispatch.ts";
import { Arena, pointerFromAddress } from "../../ffi/memory.ts";
import { writeStruct } from "../../api/structs.ts";
import { slotNames } from "../../chain/stubs.ts";
import { cycle } from "./reliability_soak.ts";
import { VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT } from "../../mod.ts";

/** A record-and-submit job: handles made on the main thread, as addresses. */
export interface RecordJob {
  kind: "record";
  worker: number;
  iterations: number;
  stubsPath: string | undefined;
  device: bigint;
  queue: bigint;
  commandBuffer: bigint;
  fence: bigint;
  buffer: bigint;
  size: number;
  /** Address of the buffer's memory, mapped by the main thread. */
  mapped: bigint;
}

/** Instance-level work: its own loader, or the main thread's instance through the stubs. */
export interface InstanceJob {
  kind: "own_loader" | "main_instance";
  worker: number;
  iterations: number;
  stubsPath: string | undefined;
  vars: Record<string, string>;
  instance: bigint;
  physicalDevice: bigint;
}

/** What a worker reports. */
export interface WorkerReport {
  worker: number;
  ok: number;
  errors: string[];
  /** Instance-level calls on the main thread's handles: `<command>: ok` or what came back. */
  outcomes?: string[];
}

const scope = self as unknown as {
  onmessage: (e: MessageEvent<RecordJob | InstanceJob>) => void;
  postMessage(message: WorkerReport): void;
};

// deno-lint-ignore no-explicit-any
type Fn = (...args: any[]) => any;

function bind(stubs: DispatchStubs, name: string): Fn {
  const info = COMMANDS[COMMAND_INDEX[name]!]!;
  return stubs.bind(info.index, { parameters: info.ffi.parameters, result: info.ffi.result }) as Fn;
}

function record(job: RecordJob): WorkerReport {
  const report: WorkerReport = { worker: job.worker, ok: 0, errors: [] };
  using stubs = DispatchStubs.attach(job.stubsPath, slotNames());
  const begin = bind(stubs, "vkBeginCommandBuffer");
  const fill = bind(stubs, "vkCmdFillBuffer");
  const end = bind(stubs, "vkEndCommandBuffer");
  const submit = bind(stubs, "vkQueueSubmit");
  const wait = bind(stubs, "vkWaitForFences");
  const resetFences = bind(stubs, "vkResetFences");
  const resetBuffer = bind(stubs, "vkResetCommandBuffer");
  using arena = new Arena();
  const cb = pointerFromAddress(job.commandBuffer);
  const queue = pointerFromAddress(job.queue);
  const device = pointerFromAddress(job.device);
  const fence = new BigUint64Array(new ArrayBuffer(8));
  fence[0] = job.fence;
  const fences = Deno.UnsafePointer.of(fence);
  const cbs = new BigUint64Array(new ArrayBuffer(8));
  cbs[0] = job.commandBuffer;
  const beginInfo = writeStruct(arena, "VkCommandBufferBeginInfo", {
    flags: VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
  });
  const submitInfo = writeStruct(arena, "VkSubmitInfo", {
    commandBufferCount: 1,
    pCommandBuffers: Deno.UnsafePointer.of(cbs),
  });
  const view = new Deno.UnsafePointerView(pointerFromAddress(job.mapped)!);
  for (let i = 0; i < job.iterations; i++) {
    const value = ((job.worker + 1) << 24) | i;
    const steps: [string, number][] = [];
    steps.push(["vkResetCommandBuffer", resetBuffer(cb, 0)]);
    steps.push(["vkBeginCommandBuffer", begin(cb, beginInfo)]);
    fill(cb, pointerFromAddress(job.buffer), 0n, BigInt(job.size), value);
    steps.push(["vkEndCommandBuffer", end(cb)]);
    steps.push(["vkQueueSubmit", submit(queue, 1, submitInfo, pointerFromAddress(job.fence))]);
    steps.push(["vkWaitForFences", wait(device, 1, fences, 1, 10_000_000_000n)]);
    steps.push(["vkResetFences", resetFences(device, 1, fences)]);
    const failed = steps.find(([, r]) => r !== 0);
    if (failed) {
      report.errors.push(`iteration ${i}: ${failed[0]} returned ${failed[1]}`);
      break;
    }
    const first = view.getUint32(0);
    const last = view.getUint32(job.size - 4);
    if (first !== value >>> 0 || last !== value >>> 0) {
      report.errors.push(
        `iteration ${i}: buffer holds 0x${first.toString(16)}/0x${last.toString(16)}, not 0x${
          value.toString(16)
        }`,
      );
      break;
    }
    report.ok++;
  }
  return report;
}

async function instanceWork(job: InstanceJob): Promise<WorkerReport> {
  const report: WorkerReport = { worker: job.worker, ok: 0, errors: [] };
  if (job.kind === "own_loader") {
    const { Vulkan } = await import("../../vulkan.ts");
    using vk = Vulkan.load({ env: { vars: job.vars, elevated: false } });
    for (let i = 0; i < job.iterations; i++) {
      try {
        cycle(vk as never);
        report.ok++;
      } catch (error) {
        report.errors.push(String(error));
        break;
      }
    }
    return report;
  }
  // The main thread's instance and physical device, given to this worker's own loader: each call must
  // work, or fail with a result code and a logged reason; never crash or hang.
  const { Vulkan } = await import("../../vulkan.ts");
  const { Logger } = await import("../../loading/log.ts");
  const env = { vars: job.vars, elevated: false };
  const logger = new Logger(env, { write: () => {} });
  const logged: string[] = [];
  logger.addSink((r) => {
    if (r.level === "error" || r.level === "warn") logged.push(r.text);
  });
  using vk = Vulkan.load({ env, logger }) as unknown as Record<string, Fn> & Disposable;
  const buf = new Uint8Array(new ArrayBuffer(824));
  const count = new Uint32Array(new ArrayBuffer(4));
  const slot = new BigUint64Array(new ArrayBuffer(8));
  using arena = new Arena();
  for (let i = 0; i < job.iterations; i++) {
    const outcome = (what: string, f: () => number | undefined) => {
      logged.length = 0;
      try {
        const r = f();
        if (r === undefined || r === 0) return `${what}: ok`;
        return `${what}: ${r} (${logged.join("; ") || "nothing logged"})`;
      } catch (error) {
        return `${what}: threw ${error instanceof Error ? error.message : error}`;
      }
    };
    report.outcomes = [
      outcome("vkGetPhysicalDeviceProperties", () => {
        vk.vkGetPhysicalDeviceProperties!(pointerFromAddress(job.physicalDevice), Deno.UnsafePointer.of(buf));
        return buf[20] === 0 ? -1 : 0;
      }),
      outcome(
        "vkEnumeratePhysicalDevices",
        () =>
          vk.vkEnumeratePhysicalDevices!(
            pointerFromAddress(job.instance),
            Deno.UnsafePointer.of(count),
            null,
          ),
      ),
      outcome("vkCreateDevice", () =>
        vk.vkCreateDevice!(
          pointerFromAddress(job.physicalDevice),
          writeStruct(arena, "VkDeviceCreateInfo", {
            pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
          }),
          null,
          Deno.UnsafePointer.of(slot),
        )),
    ];
    report.ok++;
  }
  return report;
}

scope.onmessage = async (e) => {
  const job = e.data;
  try {
    scope.postMessage(job.kind === "record" ? record(job) : await instanceWork(job));
  } catch (error) {
    scope.postMessage({ worker: job.worker, ok: 0, errors: [`worker threw: ${error}`] });
  }
};
