/**
 * Child process of tools/gpu_check.ts: the per-call benchmark of bench/percall_bench.ts on whatever driver
 * the environment names (`VK_DRIVER_FILES`: NVIDIA's on the GPU machine), without layers.
 * `vkCmdSetLineWidth` on a recording command buffer and `vkGetDeviceQueue`, each through libvulkan's
 * export (the reference), the FFI floor (a C no-op), vkdeno's public command and its device table, paired
 * round by round (bench/_paired.ts). `--json` prints the paired output.
 *
 * @module
 */

import {
  floorCase,
  floorSymbols,
  loadVkdeno,
  type Measured,
  Subject,
  trySubject,
} from "../bench/_percall.ts";
import { type PairedGroup, runPaired } from "../bench/_paired.ts";
import { openLibvulkan } from "./libvulkan.ts";
import { BENCH_CASES } from "./_gpu_compare.ts";

const COMMANDS: Measured[] = ["vkCmdSetLineWidth", "vkGetDeviceQueue"];

if (import.meta.main) {
  await runPaired("tools/_gpu_bench.ts", async () => {
    const floor = await floorSymbols();
    const libvulkan = openLibvulkan();
    const vkdeno = await loadVkdeno();
    const ref = new Subject("libvulkan", libvulkan);
    const [ours, missing] = trySubject("vkdeno", vkdeno);
    const groups: PairedGroup[] = COMMANDS.map((command) => ({
      name: command,
      baseline: BENCH_CASES.reference,
      ...(missing ? { note: `vkdeno is not measured here: ${missing}` } : {}),
      cases: [
        ref.publicCase(BENCH_CASES.reference, command),
        floorCase(BENCH_CASES.floor, floor, ref, command),
        ...(ours
          ? [ours.publicCase(BENCH_CASES.public, command), ours.tableCase(BENCH_CASES.table, command)]
          : []),
      ],
    }));
    return {
      groups,
      dispose() {
        ours?.[Symbol.dispose]();
        ref[Symbol.dispose]();
        libvulkan[Symbol.dispose]();
        vkdeno?.[Symbol.dispose]();
      },
    };
  });
}
