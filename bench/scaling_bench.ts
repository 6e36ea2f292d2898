/**
 * Per-call cost (`vkCmdSetLineWidth`, `vkGetDeviceQueue`) against the number of pass-through layers
 * (0, 1, 3, 5) in both loaders' chains.
 */

import { passthroughLayers } from "./_native.ts";
import { loadVkdeno, type Measured, type Subject, trySubject } from "./_percall.ts";
import { type PairedCase, type PairedGroup, runPaired, type Target } from "./_paired.ts";
import { setBenchEnvironment } from "./_vulkan.ts";
import { openLibvulkan } from "../tests/support/libvulkan.ts";

const COUNTS = [0, 1, 3, 5];
const COMMANDS: Measured[] = ["vkCmdSetLineWidth", "vkGetDeviceQueue"];

const name = (loader: string, count: number) => `${loader}, ${count} layer${count === 1 ? "" : "s"}`;

if (import.meta.main) {
  await runPaired("bench/scaling_bench.ts", async () => {
    const layers = await passthroughLayers(Math.max(...COUNTS));
    setBenchEnvironment({ VK_LAYER_PATH: layers.folder });
    const libvulkan = openLibvulkan();
    const vkdeno = await loadVkdeno();
    const subjects: Subject[] = [];
    const refs = new Map<number, Subject>();
    const ours = new Map<number, Subject>();
    const missing: string[] = [];
    for (const count of COUNTS) {
      const enabled = layers.names.slice(0, count);
      const [ref, refMissing] = trySubject("libvulkan", libvulkan, enabled);
      if (!ref) throw new Error(`Cannot benchmark libvulkan with ${count} layers: ${refMissing}`);
      refs.set(count, ref);
      const [our, why] = trySubject("vkdeno", vkdeno, enabled);
      if (our) ours.set(count, our);
      else missing.push(`${count} layers: ${why}`);
      subjects.push(ref, ...(our ? [our] : []));
    }
    const groups: PairedGroup[] = [];
    const targets: Target[] = [];
    for (const command of COMMANDS) {
      const cases: PairedCase[] = [];
      for (const count of COUNTS) cases.push(refs.get(count)!.publicCase(name("libvulkan", count), command));
      for (const count of COUNTS) {
        const our = ours.get(count);
        if (our) cases.push(our.publicCase(name("vkdeno", count), command));
      }
      const group = `${command} by layer count`;
      groups.push({
        name: group,
        baseline: name("libvulkan", 0),
        rounds: 21,
        ...(missing.length ? { note: `vkdeno is not measured with ${missing.join("; ")}` } : {}),
        cases,
      });
      if (command !== "vkCmdSetLineWidth") continue;
      for (const count of COUNTS) {
        if (!ours.has(count)) continue;
        targets.push({
          label: `${group}: vkdeno / libvulkan, ${count} layer${count === 1 ? "" : "s"}`,
          group,
          case: name("vkdeno", count),
          against: name("libvulkan", count),
          op: "<=",
          limit: 1.05,
        });
      }
    }
    return {
      groups,
      targets,
      dispose() {
        for (const s of subjects.reverse()) s[Symbol.dispose]();
        libvulkan[Symbol.dispose]();
        vkdeno?.[Symbol.dispose]();
      },
    };
  });
}
