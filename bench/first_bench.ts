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
 * surface (~5 ms). Then (startup, stop 20; both scripts' marks paired with the stop's first main, 15
 * rounds, this bench's environment, load ~3): import 35.7 -> 24.5 ms and `Vulkan.load()` 11.1 -> 8.3 ms;
 * mod.ts imported alone 35.6 -> 26.4 ms and VmHWM 54.1 -> 47.5 MiB; the whole script 106.6 -> 84.9 ms and
 * 121.6 -> 111.6 MiB (the instance step's share is the create helper's). Nothing is decoded at import any more: the WSI command table is generated
 * (ffi/generated/wsi_commands.ts) where it decoded all 737 commands and read struct layouts at import
 * (~4-5 ms), the command object finds its commands through a proxy at the end of its prototype chain
 * instead of 842 getters defined at import, and no module reads an enum or struct table at import. The
 * texts loaded at every start shrank from 1.4 to 0.9 MB (each 100 KB of text cost ~0.5 ms and ~0.6 MiB:
 * the module source and the literal are both held): enum types one line each with their values (the
 * separate name -> value text is gone), struct member types by index and the sType/pNext pair as flags,
 * the command index and providers built from the command entries; unused eager literals (BITMASKS,
 * STYPED_STRUCTS) are gone. First reads got cheaper: a command decodes its parameters when first read
 * (decoding all 737 took ~3 ms) from a line table of their own (the command table's first use parses 90
 * instead of 206 KB), line tables find an entry by a binary search (indexing 1,490 struct lines took ~2
 * ms). `Vulkan.load()` emits 1,480 stub symbols instead of 3,720 (reserved slots and terminator
 * stubs are found by address) and hashes them in a small function V8 compiles early (~3-5 ms cold before).
 * Then (startup2): file stamps' statx and the non-UTF-8 name functions share ffi/libc.ts's one libc
 * `Deno.dlopen` (it was one each), and the chain's frozen slot-name list is checked once instead of three
 * times: `Vulkan.load()` alone 7.08 -> 6.73 ms (medians of 41 paired runs, load ~1.2).
 * Still paid, import (~25 ms): Deno and V8 loading and compiling the module graph (104 modules, 2.2 MB at
 * start; the profile shows it as "(program)" and "(idle)", no JavaScript), the 5,621 exports of
 * ffi/generated/vk_constants.js (~3.4 ms and ~3 MiB imported alone, their number not their form: `var`,
 * `let`, one line, a `const` list then one `export { ... }`, or short locals exported `as` the names all
 * measured the same or worse) and the remaining 0.9 MB of table text (~3-4 ms). `Vulkan.load()` (~7-8 ms): the process's first `Deno.dlopen` (~1 ms and ~4.7 MiB of FFI
 * set-up; the libvulkan script pays it too; each further fast-call symbol declared costs ~0.1-0.4 ms, so
 * libc's cold functions, the table filler and the loader's own down-calls go through UnsafeFnPointer),
 * emitting and loading the two stub objects (~2.5-3 ms: dispatch object emitted ~1.4 ms, unwrap object
 * ~1.2 ms), the settings-file lookup (~0.45 ms once libc is bound) and the environment snapshot (~0.5 ms). Then discovery and the
 * instance chain in JavaScript (bench/create_bench.ts). Across all steps, V8 compiles ~510 of the
 * project's functions lazily at every run, ~10 ms (`--v8-flags=--log-function-events`, second of two runs
 * with the same flags, so with a warm code cache: parse-function 6.8 ms, bytecode 3.5 ms; deserializing the
 * 105 scripts' cache 4.5 ms): Deno's code cache holds what was compiled when a module finished evaluating,
 * not the functions first called later, and V8's `//# allFunctionsCalledOnLoad` hint is not followed
 * (Deno does not ask for it; tried on chain/loader.ts). What the cache does hold: functions V8 compiles
 * eagerly, i.e. parenthesised function expressions (`const f = (function f() {...})`, also assigned to a
 * prototype or as a class field). In a two-module test a plain function and a class method first called
 * after evaluation were parsed and compiled again at every run; the parenthesised ones came from the cache.
 * Converting the first-instance path's ~510 functions to that form is the lever left (not done).
 * Peak RSS (rss helper; /proc/self/smaps at the end of both scripts, heaptrack, heap snapshots, lavapipe
 * machine): the vkdeno script's extra ~23-25 MiB is ~11 MiB more anonymous memory (the V8 heap: module
 * sources, names, compiled code, a young generation grown by the import's survivors), ~7-9 MiB more of
 * Deno's own executable paged in (module loading, the code cache, V8's parser and Maglev, FFI callbacks)
 * and ~5 MiB more malloc (Deno keeps each module's source, ~2.2 MB, besides V8's copy, plus code-cache
 * data). Every byte of module text loaded at start costs ~5 bytes of RSS. Cut: the table texts are
 * `String.raw` templates read from their module's source (ffi/_lazy_table.ts `sourceText`), so V8 holds
 * them once instead of as source and literal (~0.8 MiB at import), and the stub symbols' ELF hashes are
 * generated (ffi/generated/stub_hashes.ts): hashing ~1,500 names at `Vulkan.load()` made V8 compile the
 * hash loop with TurboFan, which alone paged in ~2-2.5 MiB of Deno's code (`--v8-flags=--no-opt` showed
 * it; `--trace-opt` now lists no TurboFan compile in the script). The script's peak went 111.4 -> 108.7
 * MiB against the libvulkan script's 85.8 (11 paired rounds, load ~8). Measured and not kept: text
 * imports (`with { type: "text" }`) of the tables cost as much as the JavaScript modules (46.1 against
 * 46.3 MiB for mod.ts alone). What is left: the texts still cost ~3.8 MiB at import (one copy on each
 * side, 0.9 MB), the constants ~2 MiB; the import's two scavenges free nothing because Deno allocates
 * every module source under 128 KB in V8's young generation (100 comment-only 10 KB modules do the
 * same), which grows it to ~4 MB; and V8's optimising tiers: one hot loop in an empty script pages in
 * ~2.4 MiB of Deno's code for Maglev and ~3 MiB more for TurboFan. Then (rss2): the whole script compiles
 * nothing with Maglev or TurboFan (`--v8-flags=--trace-opt` lists nothing; the import already did not).
 * V8 tiers a function up once it has run ~400 times its own bytecode, so each first-instance loop that
 * ran a small function per entry now runs inline in a larger one or in the engine: the commands are
 * decoded in one loop onto a shared prototype (no constructor per command), the lazy tables built whole
 * (the command index and providers, the commands, plain records) copy themselves into their proxy's
 * frozen target at first use and drop their traps, the stub objects' text is stub 0 copied in doubling
 * runs with each slot offset patched inline, enum names are found with `indexOf`, and a strict manifest's
 * keys are counted by the engine's string operations instead of a match loop and a walk of the value.
 * Copying a settled table through a descriptor object per key made ~1.6 MB more garbage at the first
 * instance, and the young generation grew by that much, cancelling the saving; `Object.assign` does not.
 * Paired with the stop's previous main (fresh `git archive` copies, 21 rounds, load ~3.4): peak RSS 109.0
 * -> 107.0 MiB against the libvulkan script's 85.7 (Deno's executable paged in at the end 33.2 -> 31.1
 * MB, the V8 heap's pages unchanged); the whole process unchanged within the noise (paired ratio 1.006;
 * 0.96 in an earlier 15-round run). Still left: the module texts and count (above), the constants, and
 * the young generation the import grows.
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
          whyMissed: "the vkdeno script imports 104 modules at start (2.2 MB, ~25 ms: Deno and V8 loading " +
            "and compiling them, the 5,621 exports of ffi/generated/vk_constants.js ~3-4 ms, 0.9 MB of table " +
            "text ~3-4 ms), emits and loads its two stub objects at Vulkan.load() (~2.5 ms of ~7), and runs " +
            "discovery and the instance chain in JavaScript; the libvulkan script only starts Deno and calls C",
        },
        {
          label: "time to first instance: peak RSS, vkdeno script - libvulkan script (MiB)",
          group: RSS,
          case: OURS,
          against: REF,
          op: "<=",
          limit: 15,
          difference: true,
          whyMissed:
            "importing mod.ts adds ~14 MiB over an empty script (~44.9 against ~31.0 MiB): Deno keeps each module's source " +
            "(2.2 MB) on its side and V8 its own copy, with the compiled code and ~5,600 constant names " +
            "(every byte of module text costs ~5 bytes of RSS), and module loading pages in ~5 MiB of Deno's " +
            "executable; the rest of the script adds ~6-7 MiB more than the libvulkan script (the JavaScript chain " +
            "and stub emission paging in more of Deno's code and heap; nothing is compiled by Maglev or TurboFan)",
        },
      ],
    });
  }, { warmup: 1 });
}
