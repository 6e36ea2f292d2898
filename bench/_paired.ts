/**
 * Paired measurement: each case of a group runs a batch per round, in rotating order, so a busy machine
 * slows a round's cases alike; per case the median batch, per pair the median per-round ratio.
 *
 * @module
 */

import { parseArgs } from "node:util";

/** One measured path: `run(n)` makes `n` calls (or `n` iterations of whatever a case measures). */
export interface PairedCase {
  readonly name: string;
  readonly run: (n: number) => void;
  /** Untimed work before each batch (resetting a command buffer). */
  readonly prepare?: () => void;
  /** Fixed batch size (skips calibration): for cases where one iteration is long. */
  readonly batch?: number;
  /**
   * Measures one iteration itself and returns its milliseconds (a child process reporting its own
   * time; for unit "ns", milliseconds per call); replaces `run`, batch 1.
   */
  readonly sample?: () => number;
}

/** Cases measured in the same rounds; ratios are against `baseline`. */
export interface PairedGroup {
  readonly name: string;
  readonly baseline: string;
  /** A line under the group's table. */
  readonly note?: string;
  readonly cases: readonly PairedCase[];
  /** Rounds for this group (default: the run's). */
  readonly rounds?: number;
  /** Unmeasured rounds first (default: the run's). */
  readonly warmup?: number;
  /** Unit of the samples: "ns" per call (default), "ms" per iteration, or "MiB" (a sample measures memory). */
  readonly unit?: "ns" | "ms" | "MiB";
}

/** A goal on the median of per-round ratios `case / against`. */
export interface Target {
  readonly label: string;
  readonly group: string;
  readonly case: string;
  readonly against: string;
  readonly op: "<=" | ">=";
  readonly limit: number;
  /** The goal is on the median of per-round differences `case - against` (in the group's unit), not ratios. */
  readonly difference?: boolean;
  /**
   * With `difference`: the goal is on the median of per-round sums of `coefficient x sample` over these
   * cases instead (a budget built from other cases of the same round, e.g. `a - b - 3 (c - b)`).
   */
  readonly terms?: readonly (readonly [string, number])[];
  /** Printed when the target is missed: why. */
  readonly whyMissed?: string;
}

/** The JSON a paired bench prints. */
export interface PairedOutput {
  readonly kind: "vkdeno-paired";
  readonly file: string;
  readonly date: string;
  readonly machine: Machine;
  readonly groups: readonly {
    name: string;
    baseline: string;
    unit: "ns" | "ms" | "MiB";
    note?: string;
    cases: { name: string; batch: number; samples: number[] }[];
  }[];
  readonly targets: readonly Target[];
}

/** Where a run happened. */
export interface Machine {
  cpu: string;
  cores: number;
  os: string;
  runtime: string;
  /** 1-minute load average when the run started. */
  load: number;
  /** The checkout's commit (`git rev-parse --short HEAD`, with `+` when it has local changes). */
  commit?: string;
}

/** The machine's description. */
export function machine(): Machine {
  let cpu = "unknown CPU";
  try {
    cpu = /model name\s*:\s*(.*)/.exec(Deno.readTextFileSync("/proc/cpuinfo"))?.[1]?.trim() ?? cpu;
  } catch {
    // not Linux
  }
  return {
    cpu,
    cores: navigator.hardwareConcurrency,
    os: `${Deno.build.os} ${Deno.osRelease()}`,
    runtime: `Deno ${Deno.version.deno} (V8 ${Deno.version.v8})`,
    load: Deno.loadavg()[0] ?? 0,
    ...commit(),
  };
}

function commit(): { commit?: string } {
  try {
    const git = (...args: string[]) =>
      new TextDecoder().decode(
        new Deno.Command("git", { args, stdout: "piped", stderr: "null" }).outputSync().stdout,
      )
        .trim();
    const head = git("rev-parse", "--short", "HEAD");
    if (!head) return {};
    return { commit: git("status", "--porcelain", "--untracked-files=no") ? `${head}+` : head };
  } catch {
    return {}; // not a git checkout
  }
}

/**
 * A loop of `n` calls of `fn(...args)` compiled on its own, so its call site sees only `fn` and V8 turns
 * it into a fast call (a loop shared by several functions would go megamorphic and measure that).
 */
export function callLoop(
  id: string,
  // deno-lint-ignore no-explicit-any
  fn: (...args: any[]) => unknown,
  args: readonly unknown[],
): (n: number) => void {
  const params = args.map((_, i) => `a${i}`);
  // The comment makes every source unique: V8 would share feedback between identical sources.
  const source = `// ${JSON.stringify(id)} ${Math.random()}\n` +
    `return function loop(n) { for (let i = 0; i < n; i++) fn(${params.join(", ")}); };`;
  return new Function("fn", ...params, source)(fn, ...args) as (n: number) => void;
}

function time(c: PairedCase, n: number): number {
  if (c.sample) return c.sample();
  c.prepare?.();
  const t0 = performance.now();
  c.run(n);
  return performance.now() - t0;
}

/**
 * Runs a case for `ms` first: V8 compiles the loop in the background, and on a busy machine the optimized
 * code (where the FFI call becomes a fast call, ~30x cheaper) can take a while to arrive.
 */
function warm(c: PairedCase, ms: number): void {
  const end = performance.now() + ms;
  let n = c.batch ?? 64;
  while (performance.now() < end) {
    time(c, n);
    if (!c.batch && n < 65536) n *= 2;
  }
}

/**
 * Batch size so that one batch takes about `ms`: the fastest of three timings counts, so that a batch
 * slowed by other work does not shrink every later one.
 */
function calibrate(c: PairedCase, ms: number): number {
  if (c.sample) return 1;
  if (c.batch) return c.batch;
  warm(c, 100);
  let n = 8;
  for (;;) {
    const t = Math.min(time(c, n), time(c, n), time(c, n));
    if (t >= ms || n >= 1 << 26) return t >= ms ? Math.ceil(n * ms / t) : n;
    n *= t < ms / 16 ? 8 : 2;
  }
}

/** Measures the groups in order; returns their samples (per-call ns or per-iteration ms). */
export function measure(
  groups: readonly PairedGroup[],
  options: { rounds: number; warmup: number; batchMs: number; log?: (line: string) => void },
): PairedOutput["groups"] {
  const out: PairedOutput["groups"][number][] = [];
  for (const g of groups) {
    const unit = g.unit ?? "ns";
    const scale = unit === "ns" ? 1e6 : 1;
    const batches = g.cases.map((c) => calibrate(c, options.batchMs));
    const samples: number[][] = g.cases.map(() => []);
    const rounds = g.rounds ?? options.rounds;
    const warmup = g.warmup ?? options.warmup;
    for (let r = 0; r < warmup + rounds; r++) {
      for (let k = 0; k < g.cases.length; k++) {
        const i = (k + r) % g.cases.length;
        const t = time(g.cases[i]!, batches[i]!) * scale / batches[i]!;
        if (r >= warmup) samples[i]!.push(t);
      }
    }
    out.push({
      name: g.name,
      baseline: g.baseline,
      unit,
      ...(g.note ? { note: g.note } : {}),
      cases: g.cases.map((c, i) => ({ name: c.name, batch: batches[i]!, samples: samples[i]! })),
    });
    options.log?.(
      `${g.name}: ${g.cases.map((c, i) => `${c.name} ${median(samples[i]!).toFixed(2)}`).join("; ")}`,
    );
  }
  return out;
}

/** The median. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * Runs a paired bench file as a script: `--json` prints {@linkcode PairedOutput} on stdout, otherwise a
 * summary goes to stderr. `--rounds N`, `--batch-ms MS` override the defaults.
 */
export async function runPaired(
  file: string,
  build: () => Promise<{ groups: PairedGroup[]; targets?: Target[]; dispose?: () => void }>,
  defaults: { rounds?: number; warmup?: number; batchMs?: number } = {},
): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      json: { type: "boolean", default: false },
      rounds: { type: "string" },
      "batch-ms": { type: "string" },
    },
    allowPositionals: true,
  });
  const m = machine();
  const { groups, targets = [], dispose } = await build();
  const result = measure(groups, {
    rounds: Number(values.rounds ?? defaults.rounds ?? 31),
    warmup: defaults.warmup ?? 3,
    batchMs: Number(values["batch-ms"] ?? defaults.batchMs ?? 2),
    log: values.json ? undefined : (line) => console.error(line),
  });
  dispose?.();
  const output: PairedOutput = {
    kind: "vkdeno-paired",
    file,
    date: new Date().toISOString(),
    machine: m,
    groups: result,
    targets,
  };
  if (values.json) console.log(JSON.stringify(output));
}
