/**
 * Worker side of `tests/layers/worker_test.ts`: calls two commands through the main thread's chain (by the
 * addresses `vkGetDeviceProcAddr` gave there) and wakes the main thread, which waits in `Atomics.wait`.
 *
 * @module
 */

import { Arena, pointerFromAddress } from "../../ffi/memory.ts";
import { writeStruct } from "../../ffi/structs.ts";

/** What the main thread sends. */
export interface WorkerJob {
  begin: bigint;
  setLineWidth: bigint;
  commandBuffer: bigint;
  /** `[done, vkBeginCommandBuffer's result]`. */
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
  flags[1] = begin.call(cb, writeStruct(arena, "VkCommandBufferBeginInfo", {}));
  setLineWidth.call(cb, 2);
  Atomics.store(flags, 0, 1);
  Atomics.notify(flags, 0);
};
