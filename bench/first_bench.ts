/**
 * Time to first instance: a whole `deno run` of bench/first/vkdeno.ts against bench/first/libvulkan.ts
 * (create an instance on lavapipe, print the first device's name), alternating, a fresh process per sample;
 * "peak RSS" is each process's VmHWM at its end. The vkdeno script runs with a warm persistent cache (a
 * folder of the bench's own, filled by the warm-up round) and with a cold one (an empty folder per sample).
 */

import { median, type PairedCase, runPaired } from "./_paired.ts";
import { setBenchEnvironment } from "./_vulkan.ts";

type Side = "vkdeno" | "cold" | "libvulkan";

const VKDENO = new URL("./first/vkdeno.ts", import.meta.url).pathname;
const SCRIPT: Record<Side, string> = {
  vkdeno: VKDENO,
  cold: VKDENO,
  libvulkan: new URL("./first/libvulkan.ts", import.meta.url).pathname,
};

/** The persistent cache folder of the warm samples (ffi/persistent_cache.ts), made at the start. */
let warmCache = "";

interface Child {
  marks: Record<string, number>;
  peakRssMiB: number;
}

/** Peak RSS and marks of each process run so far, per side, in run order. */
const children: Record<Side, Child[]> = { vkdeno: [], cold: [], libvulkan: [] };
/** The next process whose peak RSS the RSS group reports, per side. */
const rssAt: Record<Side, number> = { vkdeno: 0, cold: 0, libvulkan: 0 };

function runScript(side: Side): number {
  const cache = side === "cold" ? Deno.makeTempDirSync({ prefix: "vkdeno_first_cold_" }) : warmCache;
  const t0 = performance.now();
  const out = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", SCRIPT[side], "--json"],
    env: { VKDENO_CACHE: cache },
    stdout: "piped",
    stderr: "inherit",
  }).outputSync();
  const ms = performance.now() - t0;
  if (side === "cold") Deno.removeSync(cache, { recursive: true });
  if (!out.success) throw new Error(`Cannot run "${SCRIPT[side]}": exit code ${out.code}`);
  children[side].push(JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!) as Child);
  return ms;
}

const REF = "libvulkan script";
const OURS = "vkdeno script";
const COLD = "vkdeno script, cold cache";
const WALL = "whole process";
const RSS = "peak RSS";

function timeCase(name: string, side: Side): PairedCase {
  return { name, run: () => {}, sample: () => runScript(side) };
}

/** The RSS group replays the processes of the time group, in the same order (so rounds stay paired). */
function rssCase(name: string, side: Side): PairedCase {
  return { name, run: () => {}, sample: () => children[side][rssAt[side]++]!.peakRssMiB };
}

const WHY_MISSED =
  "the vkdeno script loads 142 modules (5.5 MB: the loader's own 126 and what mod.ts exports) and runs " +
  "discovery and the instance chain in JavaScript before its first instance, where the libvulkan script " +
  "only starts Deno and calls C (docs/performance.md, What loads when)";

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
    warmCache = Deno.makeTempDirSync({ prefix: "vkdeno_first_warm_" });
    globalThis.addEventListener("unload", () => Deno.removeSync(warmCache, { recursive: true }));
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
          cases: [timeCase(REF, "libvulkan"), timeCase(OURS, "vkdeno"), timeCase(COLD, "cold")],
        },
        {
          name: RSS,
          baseline: REF,
          unit: "MiB",
          rounds,
          warmup,
          cases: [rssCase(REF, "libvulkan"), rssCase(OURS, "vkdeno"), rssCase(COLD, "cold")],
        },
      ],
      targets: [
        {
          label: "time to first instance: vkdeno script / libvulkan script, whole process",
          group: WALL,
          case: OURS,
          against: REF,
          op: "<=",
          limit: 1.25,
          whyMissed: WHY_MISSED,
        },
        {
          label:
            "time to first instance, cold persistent cache: vkdeno script / libvulkan script, whole process",
          group: WALL,
          case: COLD,
          against: REF,
          op: "<=",
          limit: 1.25,
          whyMissed: WHY_MISSED,
        },
      ],
    });
  }, { warmup: 1 });
}
