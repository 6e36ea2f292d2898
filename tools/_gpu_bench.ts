/**
 * Child process of tools/gpu_check.ts: the per-call benchmark of bench/percall_bench.ts on the driver
 * `VK_DRIVER_FILES` names; `--json` prints the paired output.
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
import { passthroughLayers } from "../bench/_native.ts";
import { type PairedGroup, runPaired } from "../bench/_paired.ts";
import { openLibvulkan } from "../tests/support/libvulkan.ts";
import { BENCH_CASES } from "./_gpu_compare.ts";

const COMMANDS: Measured[] = ["vkCmdSetLineWidth", "vkGetDeviceQueue"];

/** Group name of a command, with or without the layer. */
export function benchGroup(command: string, layered: boolean): string {
  return layered ? `${command}, one pass-through layer` : command;
}

if (import.meta.main) {
  await runPaired("tools/_gpu_bench.ts", async () => {
    const layers = await passthroughLayers(1);
    // Both loaders read the variable when an instance is made.
    Deno.env.set("VK_LAYER_PATH", layers.folder);
    const floor = await floorSymbols();
    const libvulkan = openLibvulkan();
    const vkdeno = await loadVkdeno();
    const subjects: Subject[] = [];
    const groups: PairedGroup[] = [];
    for (const enabled of [[], layers.names]) {
      const ref = new Subject("libvulkan", libvulkan, enabled);
      const [ours, missing] = trySubject("vkdeno", vkdeno, enabled);
      subjects.push(ref, ...(ours ? [ours] : []));
      for (const command of COMMANDS) {
        groups.push({
          name: benchGroup(command, enabled.length > 0),
          baseline: BENCH_CASES.reference,
          ...(missing ? { note: `vkdeno is not measured here: ${missing}` } : {}),
          cases: [
            ref.publicCase(BENCH_CASES.reference, command),
            floorCase(BENCH_CASES.floor, floor, ref, command),
            ...(ours
              ? [ours.publicCase(BENCH_CASES.public, command), ours.tableCase(BENCH_CASES.table, command)]
              : []),
          ],
        });
      }
    }
    return {
      groups,
      dispose() {
        for (const s of subjects.reverse()) s[Symbol.dispose]();
        libvulkan[Symbol.dispose]();
        vkdeno?.[Symbol.dispose]();
      },
    };
  });
}
