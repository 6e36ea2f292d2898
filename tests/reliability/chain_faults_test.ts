/**
 * Fault catalogue, driver and layer half, through vkdeno: each fault beside lavapipe ends in a logged
 * reason naming the driver or layer at fault, a working lavapipe instance and device, and nothing left
 * behind (see `tests/support/reliability_chain.ts` for the expectations). Each fault runs as its own process with a
 * time limit, so a crash or a hang fails that fault with its signal.
 */

import { LIBRARY_FAULTS } from "../support/reliability_faults.ts";

const CHILD = new URL("../support/reliability_chain.ts", import.meta.url).pathname;
const LIMIT_S = 30;
const decoder = new TextDecoder();

async function runFault(id: string): Promise<void> {
  const out = await new Deno.Command("timeout", {
    args: ["-s", "KILL", String(LIMIT_S), Deno.execPath(), "run", "--allow-all", CHILD, id],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = decoder.decode(out.stdout).trim();
  const stderr = decoder.decode(out.stderr).trim().split("\n").slice(-5).join("\n");
  if (out.signal === "SIGKILL" || out.code === 137) {
    throw new Error(`Fault "${id}": no answer in ${LIMIT_S} s`);
  }
  if (out.signal !== null || out.code > 1) {
    throw new Error(`Fault "${id}": vkdeno crashed (signal ${out.signal}, code ${out.code}):\n${stderr}`);
  }
  if (!out.success) throw new Error(`Fault "${id}": ${stdout}\n${stderr}`);
}

for (const fault of LIBRARY_FAULTS) {
  Deno.test(`fault ${fault.id}: ${fault.fault}`, () => runFault(fault.id));
}
