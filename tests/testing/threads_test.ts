/** A thread-safe mock driver answers a Worker's calls (made on the Worker's thread, run in the main isolate). */
import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { MockDriver, mockEnvironment } from "../../testing/mod.ts";

Deno.test("a Worker's loader drives a threadSafe mock of the main isolate", async () => {
  using mock = new MockDriver({ devices: [{ name: "Shared mock" }], threadSafe: true });
  using isolated = mockEnvironment();
  const worker = new Worker(new URL("./worker_driver.ts", import.meta.url), { type: "module" });
  try {
    const name = new Promise<string>((resolve, reject) => {
      worker.onmessage = (e) => resolve(e.data as string);
      worker.onerror = (e) => reject(new Error(e.message));
    });
    worker.postMessage({
      gipa: BigInt(Deno.UnsafePointer.value(mock.getInstanceProcAddr)),
      root: isolated.root,
    });
    assertEquals(await name, "Shared mock");
    assertEquals(mock.callCount("vkCmdSetLineWidth"), 100);
    assertEquals(mock.counts, { instances: 0, devices: 0, lostDevices: 0 });
  } finally {
    worker.terminate();
  }
});
