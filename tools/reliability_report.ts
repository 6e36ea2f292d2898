/**
 * Writes the "Reliability" section of BENCHMARKS.md from the fault catalogue, the fuzz counts and
 * `tools/soak.ts --json` runs (docs/tools.md).
 *
 * @module
 */

import { LIBRARY_FAULTS } from "../tests/support/reliability_faults.ts";
import { MANIFEST_FAULTS } from "../tests/support/reliability_manifests.ts";
import type { SoakOutput } from "./soak.ts";

const REPO = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const decoder = new TextDecoder();

/** What running one fault of the catalogue through vkdeno gave. */
export interface FaultOutcome {
  /** The fault's id in `tests/support/reliability_faults.ts`. */
  id: string;
  /** Expectations met, missed, or the process crashed or hung. */
  result: "ok" | "failed" | "crashed" | "hung";
  /** The missed expectation, or the signal. */
  detail: string;
}

async function runFault(id: string): Promise<FaultOutcome> {
  const out = await new Deno.Command("timeout", {
    args: [
      "-s",
      "KILL",
      "30",
      Deno.execPath(),
      "run",
      "--allow-all",
      `${REPO}/tests/support/reliability_chain.ts`,
      id,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const detail = decoder.decode(out.stdout).trim().split("\n")[0] ?? "";
  if (out.signal === "SIGKILL" || out.code === 137) return { id, result: "hung", detail };
  if (out.signal !== null || out.code > 1) {
    return { id, result: "crashed", detail: `${out.signal ?? out.code}` };
  }
  return { id, result: out.success ? "ok" : "failed", detail };
}

async function propertyCounts(): Promise<Record<string, number>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["test", "--allow-all", `${REPO}/tests/discovery/property_env_test.ts`],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const text = decoder.decode(out.stdout) + decoder.decode(out.stderr);
  const line = text.split("\n").find((l) => l.startsWith("property counts: "));
  if (!out.success || !line) throw new Error(`Property tests failed:\n${text.slice(-2000)}`);
  return JSON.parse(line.slice("property counts: ".length));
}

function mib(bytes: number): string {
  return `${(bytes / (1 << 20)).toFixed(1)} MiB`;
}

function soakRow(s: SoakOutput): string {
  const layers = s.layers.length > 0 ? s.layers.join(", ") : "none";
  const leaked = s.countsAfterDispose;
  const steady = JSON.stringify(s.countsEnd) === JSON.stringify(s.countsAfterWarmup) ? "same" : "differ";
  return `| ${s.loader}${s.label ? ` (${s.label})` : ""} | ${s.device.replace(/ \(.*/, "")} | ${layers}${
    s.hold ? " (held)" : ""
  } | ${s.cycles.toLocaleString("en-US")} | ${s.warmup.toLocaleString("en-US")} | ` +
    `${s.msPerCycle.toFixed(1)} | ${mib(s.rssAfterWarmup)} | ${mib(s.rssEnd)} | **${mib(s.growth)}** | ` +
    `${
      mib(s.heap.usedEnd - s.heap.usedAfterWarmup)
    } | ${steady} | ${leaked.callbacks} / ${leaked.arenas} / ` +
    `${leaked.tables} / ${leaked.drivers} / ${leaked.layerLibraries} / ${leaked.libraries} |`;
}

/**
 * Renders the section text.
 *
 * @example Usage
 * ```ts ignore
 * import { renderSection } from "./reliability_report.ts";
 * console.log(renderSection([], {}, []));
 * ```
 */
export function renderSection(
  faults: readonly FaultOutcome[],
  counts: Record<string, number>,
  soaks: readonly SoakOutput[],
): string {
  const manifestFaults = MANIFEST_FAULTS.length * 2; // each as a driver and as a layer manifest
  const crashed = faults.filter((f) => f.result === "crashed" || f.result === "hung");
  const failed = faults.filter((f) => f.result === "failed");
  const fuzzedManifests = (counts.layerManifests ?? 0) + (counts.mixedManifests ?? 0);
  const envValues = (counts.driverFilterRuns ?? 0) + (counts.layerFilterRuns ?? 0) +
    (counts.pathListRuns ?? 0) +
    (counts.idFilterRuns ?? 0);
  const lines = [
    "## Reliability",
    "",
    "Written by `tools/reliability_report.ts` (fault catalogue and property tests run on the spot; soak figures " +
    "from `tools/soak.ts --json`). What each fault does, side by side with the Khronos loader, is in the " +
    "docs/reliability.md.",
    "",
    "| figure | value |",
    "|---|---|",
    `| faults tried through vkdeno (driver and layer libraries, each in its own process) | ${faults.length} |`,
    `| manifest faults tried (huge, deep, non-UTF-8, loops, unreadable; as driver and as layer) | ${manifestFaults} |`,
    `| crashes or hangs | ${crashed.length}${
      crashed.length ? ` (${crashed.map((f) => f.id).join(", ")})` : ""
    } |`,
    `| faults where vkdeno missed an expectation | ${failed.length}${
      failed.length ? ` (${failed.map((f) => f.id).join(", ")})` : ""
    } |`,
    `| manifests fuzzed (layer manifests generated or damaged, plus mixed driver/layer trees) | ${
      fuzzedManifests.toLocaleString("en-US")
    } |`,
    `| environment values fuzzed (filter globs, path lists, id filters, any text in discovery variables) | ${
      envValues.toLocaleString("en-US")
    } |`,
  ];
  const vk = soaks.filter((s) => s.loader === "vkdeno");
  if (vk.length > 0) {
    const sum = (f: (s: SoakOutput) => number) => vk.reduce((n, s) => n + f(s), 0);
    lines.push(
      `| vkdeno soaks: callbacks, arenas, dispatch tables, drivers, layer libraries left after dispose | ${
        sum((s) => s.countsAfterDispose.callbacks)
      }, ${sum((s) => s.countsAfterDispose.arenas)}, ${sum((s) => s.countsAfterDispose.tables)}, ${
        sum((s) => s.countsAfterDispose.drivers)
      }, ${sum((s) => s.countsAfterDispose.layerLibraries)} |`,
      `| vkdeno soaks: libraries left after dispose (the process-wide dispatch and unwrap stub objects) | ${
        Math.max(...vk.map((s) => s.countsAfterDispose.libraries))
      } |`,
    );
  }
  lines.push("");
  if (soaks.length > 0) {
    lines.push(
      "Soak: instance + device create/destroy cycles (`tools/soak.ts`, `--v8-flags=--expose-gc`, host " +
        'implicit layers off). Growth is resident memory from the end of warm-up to the end; "steady" says ' +
        "whether the live native resources between cycles were the same after warm-up and at the end; the " +
        "last column is what stayed alive after the loader was disposed: callbacks / arenas / dispatch " +
        "tables / drivers / layer libraries / libraries (the 2 libraries of vkdeno are its process-wide stub " +
        "objects). With V8's defaults, a program that allocates fast grows V8's young generation (up to 3 x " +
        '16 MiB) and keeps it: that is most of the growth in the "V8 defaults" rows, for both loaders ' +
        "(vkdeno allocates more JavaScript garbage per cycle, so its young generation grows further). " +
        "`--max-semi-space-size=1` holds the young generation at its minimum; what remains is the loaders' own.",
      "",
      "| loader | driver | layers | cycles | warm-up | ms/cycle | RSS after warm-up | RSS end | growth | V8 heap growth | steady | left after dispose |",
      "|---|---|---|---|---|---|---|---|---|---|---|---|",
      ...soaks.map(soakRow),
      "",
    );
  }
  return lines.join("\n");
}

function replaceSection(text: string, section: string): string {
  const start = text.search(/^## Reliability\s*$/m);
  if (start < 0) return `${text.trimEnd()}\n\n${section}\n`;
  const rest = text.slice(start + 1);
  const next = rest.search(/^## /m);
  const end = next < 0 ? text.length : start + 1 + next;
  return `${text.slice(0, start)}${section}\n${text.slice(end)}`;
}

if (import.meta.main) {
  const print = Deno.args.includes("--print");
  const files = Deno.args.filter((a) => a !== "--print");
  const soaks = files.map((f) => JSON.parse(Deno.readTextFileSync(f)) as SoakOutput);
  const faults: FaultOutcome[] = [];
  for (const fault of LIBRARY_FAULTS) {
    const outcome = await runFault(fault.id);
    console.error(`${outcome.id}: ${outcome.result}${outcome.result === "ok" ? "" : ` ${outcome.detail}`}`);
    faults.push(outcome);
  }
  const counts = await propertyCounts();
  if (print) {
    // The section alone, formatted as BENCHMARKS.md would be.
    const tmp = Deno.makeTempFileSync({ suffix: ".md" });
    Deno.writeTextFileSync(tmp, renderSection(faults, counts, soaks));
    await new Deno.Command(Deno.execPath(), { args: ["fmt", "--config", `${REPO}/deno.json`, tmp] }).output();
    console.log(Deno.readTextFileSync(tmp).trimEnd());
    Deno.removeSync(tmp);
    Deno.exit(0);
  }
  const path = `${REPO}/BENCHMARKS.md`;
  Deno.writeTextFileSync(
    path,
    replaceSection(Deno.readTextFileSync(path), renderSection(faults, counts, soaks)),
  );
  await new Deno.Command(Deno.execPath(), { args: ["fmt", path] }).output();
  console.error(`Wrote the Reliability section of ${path}`);
}
