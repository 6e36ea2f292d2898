/**
 * Worker side of `tests/layers/worker_test.ts`: begins a command buffer and records `commands` commands into it
 * through the main thread's chain (by the addresses `vkGet*ProcAddr` gave there), then wakes the main thread,
 * which waits in `Atomics.wait`.
 *
 * @module
 */

import { Arena, pointerFromAddress } from "../../ffi/memory.ts";
import { writeStruct } from "../../api/structs.ts";

/** What the main thread sends. */
export interface WorkerJob {
  begin: bigint;
  setLineWidth: bigint;
  commandBuffer: bigint;
  /** How many `vkCmdSetLineWidth` to record. */
  commands: number;
  /** This Worker's slot in `shared`, after the count of Workers done. */
  index: number;
  /** `[Workers done, each Worker's vkBeginCommandBuffer result]`. */
  shared: SharedArrayBuffer;
}

const scope = self as unknown as { onmessage: (e: MessageEvent<WorkerJob>) => void };

scope.onmessage = ({ data: job }) => {
  const flags = new Int32Array(job.shared);
  using arena = new Arena();
  const begin = new Deno.UnsafeFnPointer(pointerFromAddress(job.begin) as Deno.PointerObject<never>, {
    parameters: ["pointer", "pointer"],
    result: "i32",
  });
  const setLineWidth = new Deno.UnsafeFnPointer(
    pointerFromAddress(job.setLineWidth) as Deno.PointerObject<never>,
    {
      parameters: ["pointer", "f32"],
      result: "void",
    },
  );
  const cb = pointerFromAddress(job.commandBuffer);
  flags[1 + job.index] = begin.call(cb, writeStruct(arena, "VkCommandBufferBeginInfo", {}));
  for (let i = 0; i < job.commands; i++) setLineWidth.call(cb, 2);
  Atomics.add(flags, 0, 1);
  Atomics.notify(flags, 0);
};
