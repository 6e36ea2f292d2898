/**
 * Threads: Workers record and submit command buffers concurrently on their own pools and queues through
 * the main thread's dispatch stubs (while the main thread keeps creating and destroying instances), and
 * instance-level calls from a Worker either work or fail with a result code and a logged reason. Each
 * scenario is its own process with a time limit, so a crash or a deadlock fails it with a clear message.
 */

import { deepStrictEqual as assertEquals, match as assertMatch, ok as assert } from "node:assert/strict";
import type { WorkerReport } from "../support/reliability_threads_worker.ts";
import { hasLavapipe } from "../support/lavapipe.ts";

const SCRIPT = new URL("../support/reliability_threads.ts", import.meta.url).pathname;
const LIMIT_S = 60;

async function scenario(
  name: string,
  workers: number,
  iterations: number,
): Promise<{ reports: WorkerReport[]; churn?: number }> {
  const out = await new Deno.Command("timeout", {
    args: [
      "-s",
      "KILL",
      String(LIMIT_S),
      Deno.execPath(),
      "run",
      "--allow-all",
      SCRIPT,
      name,
      String(workers),
      String(iterations),
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  if (out.signal === "SIGKILL" || out.code === 137) {
    throw new Error(`Scenario "${name}" did not finish in ${LIMIT_S} s (deadlock?)`);
  }
  if (!out.success) {
    throw new Error(`Scenario "${name}" died (code ${out.code}, signal ${out.signal}): ${stderr}`);
  }
  const result = JSON.parse(stdout.trim().split("\n").at(-1)!) as {
    reports: WorkerReport[];
    churn?: number;
    error?: string;
  };
  if (result.error) throw new Error(`Scenario "${name}" failed: ${result.error}`);
  return result;
}

Deno.test({
  name:
    "threads: 4 workers record and submit 300 command buffers each on their own devices, pools and queues",
  ignore: !hasLavapipe,
  async fn() {
    const { reports, churn } = await scenario("record", 4, 300);
    assertEquals(reports.map((r) => [r.worker, r.ok, r.errors]), [0, 1, 2, 3].map((w) => [w, 300, []]));
    assert((churn ?? 0) >= 1, "the main thread ran no instance cycle while the workers recorded");
  },
});

Deno.test({
  name:
    "threads: workers with loaders of their own run instance+device cycles while the main thread does too",
  ignore: !hasLavapipe,
  async fn() {
    const { reports } = await scenario("own_loader", 3, 10);
    assertEquals(reports.map((r) => [r.ok, r.errors]), [[10, []], [10, []], [10, []]]);
  },
});

Deno.test({
  name:
    "threads: the main thread's instance handed to a worker's loader works, or fails with a logged reason or a thrown error naming it",
  ignore: !hasLavapipe,
  async fn() {
    const { reports } = await scenario("main_instance", 2, 3);
    for (const r of reports) {
      assertEquals([r.ok, r.errors], [3, []]);
      for (const outcome of r.outcomes ?? []) {
        // either it works, or a negative VkResult with a message naming the handle, or a TypeError naming
        // the command and the parameter (the worker's loader does not know the main thread's handles)
        assertMatch(
          outcome,
          /^vk\w+: (ok|-\d+ \(vk\w+: invalid Vk\w+ "0x[0-9a-f]+"\)|threw (vk\w+): \w+ 0x[0-9a-f]+ is not a Vk\w+ of this loader)$/,
        );
      }
      assertEquals(r.outcomes?.length, 3);
    }
  },
});
