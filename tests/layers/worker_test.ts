/**
 * Workers calling a TS layer's C entry points (from `vkGetInstanceProcAddr`/`vkGetDeviceProcAddr`, in vkdeno's
 * native chain or in the script's `installLayers`) while the main thread is blocked: every call goes down to
 * the next link without the layer's hooks (100,000 commands per Worker, all in the driver's log), with one
 * stderr line per entry point naming the layer and the command, never a hang; the layer's hooks run only for
 * the main thread's calls. Run in a child process so a hang would be a timeout, not this test.
 */
import assert from "node:assert/strict";
import { hasX86_64Helpers } from "../../ffi/host.ts";

async function workerCalls(placement: "native" | "script"): Promise<void> {
  const main = new URL("../support/ts_layer_worker_main.ts", import.meta.url);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", main.pathname, placement],
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(120_000),
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  const report = JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!) as {
    wait: string;
    ms: number;
    mainResult: number;
    main: string[];
    results: number[];
    seen: string[];
    recorded: number[];
    expected: number;
  };
  // The same pointers called on the main thread run the hooks.
  assert.equal(report.mainResult, 0);
  assert.deepEqual(report.main, ["vkBeginCommandBuffer", "vkCmdSetLineWidth"]);
  assert.equal(report.wait, "ok", `the main thread's wait ended by ${report.wait} after ${report.ms} ms`);
  assert.deepEqual(report.results, [0, 0]);
  assert.deepEqual(report.recorded, [report.expected, report.expected]);
  assert.equal(report.expected, 100_000);
  assert.deepEqual(report.seen, []);
  for (const command of ["vkBeginCommandBuffer", "vkCmdSetLineWidth"]) {
    const lines = stderr.split("\n").filter((l) => l.includes(`: ${command} was called from a thread other`));
    assert.equal(lines.length, 1, stderr);
    assert.match(lines[0]!, /TS layer "VK_LAYER_VKDENO_test_threads"/);
    assert.match(lines[0]!, /the call went down to the next link without the layer's hooks$/);
  }
}

Deno.test({
  name:
    "Workers recording 100,000 commands each through a native-chain TS layer while the main thread waits: every command reaches the driver, one warning per entry point",
  ignore: !hasX86_64Helpers(),
  fn: () => workerCalls("native"),
});

Deno.test({
  name:
    "Workers recording 100,000 commands each through installLayers entry points from vkGet*ProcAddr while the main thread waits: every command reaches the driver",
  ignore: !hasX86_64Helpers(),
  fn: () => workerCalls("script"),
});
