/**
 * Time to first instance: a whole `deno run` of bench/first/vkdeno.ts against bench/first/libvulkan.ts
 * (create an instance on lavapipe, print the first device's name), alternating, a fresh process per sample;
 * "peak RSS" is each process's VmHWM at its end.
 */

import { median, type PairedCase, runPaired } from "./_paired.ts";
import { setBenchEnvironment } from "./_vulkan.ts";

type Side = "vkdeno" | "libvulkan";

const SCRIPT: Record<Side, string> = {
  vkdeno: new URL("./first/vkdeno.ts", import.meta.url).pathname,
  libvulkan: new URL("./first/libvulkan.ts", import.meta.url).pathname,
};

interface Child {
  marks: Record<string, number>;
  peakRssMiB: number;
}

/** Peak RSS and marks of each process run so far, per side, in run order. */
const children: Record<Side, Child[]> = { vkdeno: [], libvulkan: [] };
/** The next process whose peak RSS the RSS group reports, per side. */
const rssAt: Record<Side, number> = { vkdeno: 0, libvulkan: 0 };

function runScript(side: Side): number {
  const t0 = performance.now();
  const out = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", SCRIPT[side], "--json"],
    stdout: "piped",
    stderr: "inherit",
  }).outputSync();
  const ms = performance.now() - t0;
  if (!out.success) throw new Error(`Cannot run "${SCRIPT[side]}": exit code ${out.code}`);
  children[side].push(JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!) as Child);
  return ms;
}

const REF = "libvulkan script";
const OURS = "vkdeno script";
const WALL = "whole process";
const RSS = "peak RSS";

function timeCase(name: string, side: Side): PairedCase {
  return { name, run: () => {}, sample: () => runScript(side) };
}

/** The RSS group replays the processes of the time group, in the same order (so rounds stay paired). */
function rssCase(name: string, side: Side): PairedCase {
  return { name, run: () => {}, sample: () => children[side][rssAt[side]++]!.peakRssMiB };
}

/** Medians of the vkdeno script's steps, for the group's note. */
function phases(): string {
  const steps = children.vkdeno.map((c) => c.marks);
  const m = (f: (x: Record<string, number>) => number) => median(steps.map(f)).toFixed(0);
  const ref = children.libvulkan.map((c) => c.marks);
  const r = (f: (x: Record<string, number>) => number) => median(ref.map(f)).toFixed(0);
  return `Inside the scripts (medians, ms since the process started): vkdeno: mod.ts imported at ${
    m((x) => x.imported!)
  }, Vulkan.load() +${m((x) => x.loaded! - x.imported!)}, vkCreateInstance +${
    m((x) => x.instance! - x.loaded!)
  }, device name +${m((x) => x.named! - x.instance!)}; libvulkan: body starts at ${
    r((x) => x.imported!)
  }, dlopen +${r((x) => x.loaded! - x.imported!)}, vkCreateInstance +${
    r((x) => x.instance! - x.loaded!)
  }, device name +${r((x) => x.named! - x.instance!)}.`;
}

if (import.meta.main) {
  await runPaired("bench/first_bench.ts", () => {
    setBenchEnvironment();
    const rounds = 11;
    const warmup = 1;
    return Promise.resolve({
      groups: [
        {
          name: WALL,
          baseline: REF,
          unit: "ms",
          rounds,
          warmup,
          get note() {
            return phases();
          },
          cases: [timeCase(REF, "libvulkan"), timeCase(OURS, "vkdeno")],
        },
        {
          name: RSS,
          baseline: REF,
          unit: "MiB",
          rounds,
          warmup,
          cases: [rssCase(REF, "libvulkan"), rssCase(OURS, "vkdeno")],
        },
      ],
      targets: [
        {
          label: "time to first instance: vkdeno script / libvulkan script, whole process",
          group: WALL,
          case: OURS,
          against: REF,
          op: "<=",
          limit: 1.1,
          whyMissed:
            "the vkdeno script imports and compiles ~100 modules and emits its stub objects before its first " +
            "instance, where the libvulkan script only starts Deno and calls C (docs/performance.md)",
        },
      ],
    });
  }, { warmup: 1 });
}
