/**
 * Time to first instance: a whole `deno run` process, from its start to its exit, of a script that
 * creates an instance on lavapipe and prints the first physical device's name: bench/first/vkdeno.ts
 * (imports mod.ts, `Vulkan.load()`) against bench/first/libvulkan.ts (the same steps through
 * `libvulkan.so.1` with `Deno.dlopen`, importing nothing of vkdeno). The two scripts alternate, a fresh
 * process per sample; "peak RSS" is each of those processes' VmHWM at its end.
 *
 * Where the time went (CPU profiles, `deno run --cpu-prof --cpu-prof-interval=50`, and `performance.now()`
 * marks in the scripts; lavapipe machine, 2026-11-24). Before this work the vkdeno script spent ~55-80 ms
 * importing mod.ts (81 modules, 2.3 MB of source: evaluating the generated struct, command and enum
 * literals, ~20-25 ms; loading npm:jsonc-parser through Deno's CommonJS layer, ~17 ms; the rest module
 * loading and compiling), ~17-20 ms in `Vulkan.load()` (emitting and loading the two stub objects, ~14 ms,
 * of which ~5 ms hashing and copying per stub) and ~30-35 ms in `vkCreateInstance`, of which ~13 ms is
 * lavapipe's own `dlopen` (LLVM; libvulkan pays the same) and ~10-13 ms parsing the host's layer manifests
 * with jsonc-parser. Now: the generated tables are JSON text parsed on first use (structs one line each,
 * parsed per struct read), strict-JSON manifests go through `JSON.parse`, and the stubs are emitted
 * without per-stub allocations. Then (perf2): manifests with comments go through discovery/jsonc.ts
 * instead of npm:jsonc-parser (~6 ms); mod.ts's graph imports no Node built-in at start (node:fs and
 * node:url are imported when a watcher or a TypeScript layer first needs them, node:path is gone): Deno's
 * Node layer cost ~17 ms and ~12 MiB at every start; the generated tables' JSON texts are plain-JS
 * modules (ffi/generated/*_text.js), since Deno gives every transpiled TypeScript module an inline source
 * map repeating its source (~4-5 ms); the WSI terminators read only the layouts of structs that hold a
 * surface (~5 ms). Still paid: the module graph itself (97 modules loaded at start, 2.7 MB; the 5,621
 * exports of ffi/generated/vk_constants.js alone ~5 ms, their number not their values), `Vulkan.load()`
 * emitting and loading the stub objects (~10 ms), and discovery and the instance chain in JavaScript.
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
          whyMissed: "the vkdeno script still imports 97 modules at start (2.7 MB; the 5,621 exports of " +
            "ffi/generated/vk_constants.js alone ~5 ms), emits and loads its two stub objects at " +
            "Vulkan.load() (~6-10 ms), and runs discovery and the instance chain in JavaScript; the libvulkan " +
            "script only starts Deno and calls C",
        },
        {
          label: "time to first instance: peak RSS, vkdeno script - libvulkan script (MiB)",
          group: RSS,
          case: OURS,
          against: REF,
          op: "<=",
          limit: 15,
          difference: true,
          whyMissed: "the module graph, its compiled code and the stub objects' bindings stay resident; " +
            "the generated tables' text is held in full",
        },
      ],
    });
  }, { warmup: 1 });
}
