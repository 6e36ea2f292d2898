/**
 * Worker side of bench/workers_bench.ts: records command buffers on its own pool (made by the main
 * thread) whenever the main thread bumps the round counter, then reports done.
 *
 * @module
 */

import { Arena, pointerFromAddress } from "../ffi/memory.ts";
import { writeStruct } from "../api/structs.ts";
import type { Commands } from "./_vulkan.ts";

/** The setup message. */
export interface WorkerSetup {
  side: "libvulkan" | "vkdeno";
  index: number;
  device: bigint;
  pool: bigint;
  commandBuffer: bigint;
  /** Int32Array view: [0] round counter, [1] done count, [2] cycles per round, [3] commands per cycle. */
  control: SharedArrayBuffer;
}

// Typed by hand: the checker sees this file with the main-thread (window) globals.
const scope = self as unknown as {
  onmessage: ((e: MessageEvent<WorkerSetup>) => void) | null;
  postMessage(message: string): void;
};

async function commands(side: WorkerSetup["side"]): Promise<Commands> {
  if (side === "libvulkan") {
    const { openLibvulkan } = await import("../tests/support/libvulkan.ts");
    return openLibvulkan() as unknown as Commands;
  }
  // A loader of its own in this isolate with no drivers: its dispatch stubs read the table from the
  // handles the main thread's loader made, so the calls reach the same driver.
  const { Vulkan } = await import("../mod.ts") as unknown as { Vulkan: { load(o: unknown): Commands } };
  return Vulkan.load({ env: { vars: {}, elevated: false } });
}

/**
 * The recording loop, in a function of its own: V8 optimizes a function called once per round normally,
 * while a loop inside the never-returning message handler would depend on on-stack replacement.
 */
function recorder(
  vk: Commands,
  device: Deno.PointerValue,
  pool: Deno.PointerValue,
  cb: Deno.PointerValue,
  beginInfo: Deno.PointerValue,
): (cycles: number, perCycle: number) => void {
  const reset = vk.vkResetCommandPool!;
  const begin = vk.vkBeginCommandBuffer!;
  const end = vk.vkEndCommandBuffer!;
  const setLineWidth = vk.vkCmdSetLineWidth!;
  return (cycles, perCycle) => {
    for (let c = 0; c < cycles; c++) {
      reset(device, pool, 0);
      begin(cb, beginInfo);
      for (let k = 0; k < perCycle; k++) setLineWidth(cb, 1.0);
      end(cb);
    }
  };
}

scope.onmessage = async (e) => {
  scope.onmessage = null;
  const setup = e.data;
  const vk = await commands(setup.side);
  const arena = new Arena();
  const device = pointerFromAddress(setup.device);
  const pool = pointerFromAddress(setup.pool);
  const cb = pointerFromAddress(setup.commandBuffer);
  const beginInfo = writeStruct(arena, "VkCommandBufferBeginInfo", {});
  const record = recorder(vk, device, pool, cb, beginInfo);
  const control = new Int32Array(setup.control);
  scope.postMessage("ready");
  let seen = Atomics.load(control, 0);
  for (;;) {
    Atomics.wait(control, 0, seen);
    seen = Atomics.load(control, 0);
    if (seen < 0) break;
    record(control[2]!, control[3]!);
    Atomics.add(control, 1, 1);
    Atomics.notify(control, 1);
  }
  arena.dispose();
  self.close();
};
