/**
 * The paired side of bench/report.ts: runs a paired bench file (bench/_paired.ts) several times, each in
 * a process of its own, and renders its BENCHMARKS.md section and the targets summary.
 *
 * @module
 */

import { median, type PairedOutput, type Target } from "./_paired.ts";

const deno = Deno.execPath();

/**
 * V8 optimizes in the background; on a busy machine that thread can starve for seconds, leaving a loop in a
 * tier without FFI fast calls (seen: ~100 ns instead of ~28 for a whole run). Compiling on the main thread
 * makes the tier-up deterministic; the optimized code is the same.
 */
export const V8_FLAGS = "--v8-flags=--no-concurrent-recompilation";

/** Runs `deno run --allow-all <file> --json` once. */
export async function runPairedOnce(file: string, extraArgs: readonly string[] = []): Promise<PairedOutput> {
  const out = await new Deno.Command(deno, {
    args: ["run", "--allow-all", V8_FLAGS, file, "--json", ...extraArgs],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error(`Cannot run "deno run ${file} --json": exit code ${out.code}`);
  const text = new TextDecoder().decode(out.stdout).trim().split("\n").at(-1) ?? "";
  return JSON.parse(text) as PairedOutput;
}

/** Per case, over runs: each run's median; per pair, each run's median of per-round ratios. */
export interface Summary {
  /** Median over runs of the runs' medians. */
  time(group: string, name: string): number;
  /** Each run's median of per-round `a / b`. */
  ratios(group: string, a: string, b: string): number[];
  /** Each run's median of per-round `a - b`. */
  differences(group: string, a: string, b: string): number[];
  /** Each run's median of per-round sums of `coefficient x sample`. */
  sums(group: string, terms: readonly (readonly [string, number])[]): number[];
}

/** Each run's value of a target: its median of per-round ratios, differences or sums. */
export function targetValues(s: Summary, t: Target): number[] {
  if (t.difference && t.terms) return s.sums(t.group, t.terms);
  return t.difference ? s.differences(t.group, t.case, t.against) : s.ratios(t.group, t.case, t.against);
}

/** Summarises runs of one paired file. */
export function summarize(runs: readonly PairedOutput[]): Summary {
  const samples = (run: PairedOutput, group: string, name: string) =>
    run.groups.find((g) => g.name === group)?.cases.find((c) => c.name === name)?.samples;
  return {
    time(group, name) {
      return median(
        runs.map((r) => samples(r, group, name)).filter((s) => s !== undefined).map((s) => median(s)),
      );
    },
    ratios(group, a, b) {
      const out: number[] = [];
      for (const run of runs) {
        const sa = samples(run, group, a);
        const sb = samples(run, group, b);
        if (!sa || !sb) continue;
        out.push(median(sa.map((x, i) => x / sb[i]!)));
      }
      return out;
    },
    differences(group, a, b) {
      const out: number[] = [];
      for (const run of runs) {
        const sa = samples(run, group, a);
        const sb = samples(run, group, b);
        if (!sa || !sb) continue;
        out.push(median(sa.map((x, i) => x - sb[i]!)));
      }
      return out;
    },
    sums(group, terms) {
      const out: number[] = [];
      for (const run of runs) {
        const series = terms.map(([name]) => samples(run, group, name));
        if (series.some((s) => s === undefined)) continue;
        out.push(
          median(series[0]!.map((_, i) => terms.reduce((sum, [, k], j) => sum + k * series[j]![i]!, 0))),
        );
      }
      return out;
    },
  };
}

function formatTime(value: number, unit: "ns" | "ms" | "MiB"): string {
  if (unit === "MiB") return value.toFixed(1);
  if (unit === "ms") return value >= 100 ? value.toFixed(0) : value.toFixed(value >= 10 ? 1 : 2);
  return value >= 1000 ? value.toFixed(0) : value >= 100 ? value.toFixed(1) : value.toFixed(2);
}

function formatRatio(x: number): string {
  return `${x >= 100 ? x.toFixed(0) : x.toFixed(2)}x`;
}

function formatDifference(x: number): string {
  return `${x >= 0 ? "+" : ""}${x.toFixed(1)}`;
}

/**
 * Rows comparing the targets of runs measured on an earlier checkout (`before`, the same bench files'
 * kept runs) with the current runs: target, before, after, goal, verdict now.
 */
export function beforeAfterRows(before: readonly PairedOutput[], after: readonly PairedOutput[]): string[] {
  const b = summarize(before);
  const a = summarize(after);
  const rows: string[] = [];
  for (const t of after[0]?.targets ?? []) {
    const value = (s: Summary) => {
      const rs = targetValues(s, t);
      return rs.length === 0 ? undefined : median(rs);
    };
    const now = value(a);
    if (now === undefined) continue;
    const then = value(b);
    const show = (x: number | undefined) =>
      x === undefined ? "not measured" : t.difference ? formatDifference(x) : formatRatio(x);
    const { met } = judge(t, now);
    rows.push(
      `| ${t.label} | ${show(then)} | ${show(now)} | ${t.op} ${t.difference ? `+${t.limit}` : t.limit} | ` +
        `${met ? "met" : "**missed**"} |`,
    );
  }
  return rows;
}

function range(xs: readonly number[]): string {
  if (xs.length < 2) return "";
  return `${formatRatio(Math.min(...xs))}-${formatRatio(Math.max(...xs))}`;
}

/** Whether a target is met, and the line that says by how much it is missed. */
export function judge(target: Target, ratio: number): { met: boolean; by: string } {
  const met = target.op === "<=" ? ratio <= target.limit : ratio >= target.limit;
  if (target.difference) {
    return {
      met,
      by: `${Math.abs(ratio - target.limit).toFixed(1)} ${target.op === "<=" ? "over" : "short"}`,
    };
  }
  const by = target.op === "<="
    ? `${((ratio / target.limit - 1) * 100).toFixed(0)}% over`
    : `${((1 - ratio / target.limit) * 100).toFixed(0)}% short`;
  return { met, by };
}

/** The rows of the targets table of one file's runs. */
export function targetRows(
  runs: readonly PairedOutput[],
): { target: Target; ratio: number; line: string; why?: string }[] {
  const s = summarize(runs);
  const rows = [];
  for (const t of runs[0]?.targets ?? []) {
    const rs = targetValues(s, t);
    if (rs.length === 0) continue;
    const ratio = median(rs);
    const { met, by } = judge(t, ratio);
    const verdict = met ? "met" : `**missed** (${by})`;
    const shown = t.difference ? formatDifference(ratio) : formatRatio(ratio);
    const spread = t.difference
      ? (rs.length < 2 ? "" : `${formatDifference(Math.min(...rs))} to ${formatDifference(Math.max(...rs))}`)
      : range(rs);
    rows.push({
      target: t,
      ratio,
      line: `| ${t.label} | ${shown} | ${spread} | ${t.op} ${
        t.difference ? `+${t.limit}` : t.limit
      } | ${verdict} |`,
      ...(met || !t.whyMissed ? {} : { why: `${t.label}: ${by}: ${t.whyMissed}.` }),
    });
  }
  return rows;
}

/** The targets table (and the reasons for misses) of some files' runs. */
export function targetsTable(all: readonly (readonly PairedOutput[])[]): string[] {
  const rows = all.flatMap((runs) => targetRows(runs));
  if (rows.length === 0) return [];
  const lines = [
    "| target | ratio (median) | range over runs | goal | |",
    "|---|---:|---:|---:|---|",
    ...rows.map((r) => r.line),
    "",
  ];
  const whys = rows.filter((r) => r.why);
  if (whys.length > 0) {
    lines.push("Why targets are missed:", "");
    const seen = new Map<string, string>();
    for (const r of whys) {
      const reason = r.target.whyMissed!;
      const { by } = judge(r.target, r.ratio);
      const earlier = seen.get(reason);
      lines.push(earlier ? `- ${r.target.label}: ${by}: as for "${earlier}".` : `- ${r.why}`);
      if (!earlier) seen.set(reason, r.target.label);
    }
    lines.push("");
  }
  return lines;
}

/** A bench file's leading doc comment as text: the intro of its section in BENCHMARKS.md. */
export function intro(file: string): string {
  const text = Deno.readTextFileSync(file);
  const m = /^\s*\/\*\*([\s\S]*?)\*\//.exec(text);
  if (!m) return "";
  // Doc tags (`@module`) are for deno doc, not the reader of BENCHMARKS.md.
  return m[1]!.split("\n").map((l) => l.replace(/^\s*\* ?/, "")).filter((l) => !l.startsWith("@")).join("\n")
    .trim();
}

/** How the paired tables read, in one sentence (docs/performance.md has the method). */
export const METHOD =
  "Time: the median over runs of each run's median batch; ratio: the median over runs of each " +
  "run's median per-round ratio, with its range over runs (docs/performance.md).";

/** Where and when runs happened, in one line: commit, date, machine, runs, load. */
export function sourceLine(runs: readonly PairedOutput[]): string {
  const m = runs[0]!.machine;
  const loads = runs.map((r) => r.machine.load);
  return `commit ${m.commit ?? "unknown"}, ${runs[0]!.date.slice(0, 10)}, ${m.cpu} (${m.cores} cores), ` +
    `${m.os}, ${m.runtime}; ${runs.length} runs, 1-minute load average ${Math.min(...loads).toFixed(1)}-` +
    `${Math.max(...loads).toFixed(1)}`;
}

/** Where and when runs happened, in one sentence. */
export function machineLine(runs: readonly PairedOutput[]): string {
  const m = runs[0]!.machine;
  const loads = runs.map((r) => r.machine.load);
  const date = runs[0]!.date.slice(0, 10);
  const busy = Math.max(...loads) >= 1;
  return `${date}, ${m.cpu} (${m.cores} cores), ${m.os}, ${m.runtime}; 1-minute load average at the start ` +
    `of the runs ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)} (the machine is shared ` +
    `with other work, ${busy ? "which was running" : "which was mostly idle during these runs"})`;
}

/** Renders the section of one paired file. */
export function renderPairedSection(
  section: string,
  file: string,
  runs: readonly PairedOutput[],
  command: string,
): string {
  const s = summarize(runs);
  const first = runs[0]!;
  const rounds = first.groups.map((g) => g.cases[0]?.samples.length ?? 0);
  const lines = [`## ${section}`, ""];
  const about = intro(file);
  if (about) lines.push(about, "");
  lines.push(
    `Generated by \`${command}\` on ${sourceLine(runs)}, of ${Math.min(...rounds)}-${Math.max(...rounds)} ` +
      `rounds. ${METHOD}`,
    "",
  );
  for (const g of first.groups) {
    const unit = g.unit === "ms" ? "ms" : g.unit === "MiB" ? "MiB" : "ns/call";
    lines.push(`### ${g.name}`, "");
    lines.push(`| path | ${unit} | vs ${g.baseline} | range over runs |`, "|---|---:|---:|---:|");
    for (const c of g.cases) {
      const rs = s.ratios(g.name, c.name, g.baseline);
      const base = c.name === g.baseline;
      lines.push(
        `| ${c.name}${base ? " (baseline)" : ""} | ${formatTime(s.time(g.name, c.name), g.unit)} | ` +
          `${base ? "1.00x" : formatRatio(median(rs))} | ${base ? "" : range(rs)} |`,
      );
    }
    lines.push("");
    if (g.note) lines.push(g.note, "");
  }
  const targets = targetsTable([runs]);
  if (targets.length > 0) lines.push("### Targets", "", ...targets);
  return lines.join("\n");
}
