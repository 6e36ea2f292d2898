/**
 * Without native stubs (another OS or architecture, or `nativeStubs: false`) the same chain runs through
 * the `UnsafeFnPointer` fallback with the same results. The stubs are one per process, so this runs in a
 * child process.
 */

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { MockEnvironment } from "../support/mock.ts";

Deno.test("the chain on the UnsafeFnPointer fallback: instance, physical device, device, queue", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "drv", physicalDevices: [{ name: "Fallback GPU" }] });
  const child = new URL("../support/chain_fallback_child.ts", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", child, JSON.stringify(env.snapshot())],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assertEquals(out.code, 0, stderr);
  const results = JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").pop()!);
  assertEquals(results, {
    native: false,
    createInstance: 0,
    enumerate: 0,
    count: 1,
    deviceName: "Fallback GPU",
    createDevice: 0,
    queueWaitIdle: 0,
    deviceWaitIdle: 0,
  });
  const log = env.callLog();
  assertEquals(log.filter((l) => l.startsWith("drv vkQueueWaitIdle")).length, 1);
});
