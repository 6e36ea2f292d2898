/**
 * The mutation check: each mutant of tools/_mutants.ts applied alone to a copy of the working tree, the
 * mutated room's tests run there (no type check, stop at the first failure, a time limit per mutant), and a
 * table of killed and surviving mutants per room. The checkout itself is never written. Run by hand
 * (docs/tools.md): `deno run -A tools/mutate.ts [--room api] [--id api#3,chain#1] [--timeout 300] [--json out.json]
 * [--list]`.
 *
 * @module
 */

import { type Mutant, MUTANTS } from "./_mutants.ts";

const REPO = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

/** The tests judging the mutants of each room: the room's mirror among the tests, and what tests it elsewhere. */
const ROOM_TESTS: Record<string, readonly string[]> = {
  api: ["tests/api/"],
  chain: ["tests/chain/", "tests/checked_mode_test.ts"],
  discovery: ["tests/discovery/"],
  ffi: ["tests/ffi/"],
  layers: ["tests/layers/"],
  loading: ["tests/loading/"],
  testing: ["tests/testing/"],
  vk: ["tests/vk/"],
  wsi: ["tests/wsi/"],
};

/** How one mutant fared. */
export type Outcome = "killed" | "survived" | "timeout" | "stale";

/** One mutant's result. */
export interface MutantResult {
  readonly id: string;
  readonly mutant: Mutant;
  readonly outcome: Outcome;
  readonly seconds: number;
  /** The first failing test's line, for a killed mutant. */
  readonly detail?: string;
}

/** The room of a library file: its first folder. */
export function roomOf(file: string): string {
  return file.split("/")[0]!;
}

/** The tests a room's mutants run (none for a room not listed: its mutants cannot be judged). */
export function testsOf(room: string): readonly string[] {
  return ROOM_TESTS[room] ?? [];
}

/**
 * The mutated text of `source`, or why the mutant cannot apply (its `find` is missing or not unique, or the
 * file is generated).
 *
 * @example Usage
 * ```ts
 * import { mutated } from "./mutate.ts";
 * const m = { file: "a/b.ts", find: "x < 1", replace: "x <= 1", kind: "off-by-one", what: "" } as const;
 * console.log(mutated(m, "if (x < 1) y();")); // { text: "if (x <= 1) y();" }
 * ```
 */
export function mutated(mutant: Mutant, source: string): { text: string } | { stale: string } {
  if (mutant.file.includes("/generated/")) return { stale: "generated files are never mutated" };
  const at = source.indexOf(mutant.find);
  if (at < 0) return { stale: "its text is no longer in the file" };
  if (source.indexOf(mutant.find, at + 1) >= 0) return { stale: "its text is in the file more than once" };
  return { text: source.slice(0, at) + mutant.replace + source.slice(at + mutant.find.length) };
}

/** Copies the working tree's files (tracked and untracked, not ignored) into a temp folder, times kept. */
async function copyTree(): Promise<string> {
  const out = await new Deno.Command("git", {
    args: ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
    cwd: REPO,
    stdout: "piped",
  }).output();
  if (!out.success) throw new Error("git ls-files failed");
  const dir = await Deno.makeTempDir({ prefix: "vkdeno_mutate_" });
  const files = new TextDecoder().decode(out.stdout).split("\0").filter((f) => f !== "");
  for (const file of files) {
    const from = `${REPO}/${file}`;
    let stat: Deno.FileInfo;
    try {
      stat = await Deno.lstat(from);
    } catch {
      continue; // deleted in the working tree
    }
    const to = `${dir}/${file}`;
    await Deno.mkdir(to.slice(0, to.lastIndexOf("/")), { recursive: true });
    if (stat.isSymlink) {
      await Deno.symlink(await Deno.readLink(from), to);
      continue;
    }
    await Deno.copyFile(from, to);
    // C builds are kept by source time (tests/support/c_build.ts): the copy must not look newer.
    if (stat.mtime) await Deno.utime(to, stat.atime ?? stat.mtime, stat.mtime);
  }
  // The Deno install and the built C libraries are shared with the checkout (mutants touch only TypeScript).
  for (const shared of [".tools", ".cache"]) {
    try {
      await Deno.stat(`${REPO}/${shared}`);
      await Deno.symlink(`${REPO}/${shared}`, `${dir}/${shared}`);
    } catch {
      // not there: the tests build or install it in the copy
    }
  }
  return dir;
}

/** The test run in progress (its own process group), to end with the tool on Ctrl-C. */
let running: Deno.ChildProcess | undefined;

/** Ends the process group of `child` (the tests and every process they started). */
function killGroup(child: Deno.ChildProcess): void {
  try {
    Deno.kill(-child.pid, "SIGKILL");
  } catch {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }
}

/** Runs `tests` in `dir`; whether they passed, or undefined when the time ran out. */
async function runTests(
  dir: string,
  tests: readonly string[],
  timeout: number,
): Promise<{ passed: boolean | undefined; detail?: string }> {
  // Its own process group (setsid), so a time-out ends the tests' children too.
  const child = new Deno.Command("setsid", {
    args: [Deno.execPath(), "test", "-A", "--no-check", "--fail-fast", "--parallel", ...tests],
    cwd: dir,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  running = child;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child);
  }, timeout * 1000);
  try {
    const out = await child.output();
    if (timedOut) return { passed: undefined };
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    const failed = text.split("\n").find((l) => / FAILED/.test(l) || /^error: /.test(l));
    return { passed: out.success, detail: out.success ? undefined : failed?.trim().slice(0, 160) };
  } finally {
    clearTimeout(timer);
    running = undefined;
  }
}

/** Applies each mutant in turn to the copy in `dir`, runs its room's tests, restores the file. */
async function runMutants(
  dir: string,
  mutants: readonly [string, Mutant][],
  timeout: number,
  report: (r: MutantResult) => void,
): Promise<MutantResult[]> {
  const results: MutantResult[] = [];
  for (const [id, mutant] of mutants) {
    const path = `${dir}/${mutant.file}`;
    let source: string;
    try {
      source = await Deno.readTextFile(path);
    } catch {
      const r = { id, mutant, outcome: "stale" as const, seconds: 0, detail: "the file is gone" };
      results.push(r), report(r);
      continue;
    }
    const m = testsOf(roomOf(mutant.file)).length === 0
      ? { stale: `room "${roomOf(mutant.file)}" has no tests listed in tools/mutate.ts` }
      : mutated(mutant, source);
    if ("stale" in m) {
      const r = { id, mutant, outcome: "stale" as const, seconds: 0, detail: m.stale };
      results.push(r), report(r);
      continue;
    }
    const started = performance.now();
    await Deno.writeTextFile(path, m.text);
    try {
      const { passed, detail } = await runTests(dir, testsOf(roomOf(mutant.file)), timeout);
      const outcome: Outcome = passed === undefined ? "timeout" : passed ? "survived" : "killed";
      const r = { id, mutant, outcome, seconds: Math.round((performance.now() - started) / 1000), detail };
      results.push(r), report(r);
    } finally {
      await Deno.writeTextFile(path, source);
    }
  }
  return results;
}

/** The per-room table and the survivors, as text. */
export function renderTable(results: readonly MutantResult[]): string {
  const rooms = [...new Set(results.map((r) => roomOf(r.mutant.file)))];
  const count = (rs: readonly MutantResult[], o: Outcome) => rs.filter((r) => r.outcome === o).length;
  const row = (name: string, rs: readonly MutantResult[]) => {
    const judged = rs.length - count(rs, "stale");
    const rate = judged === 0 ? "-" : `${Math.round(100 * count(rs, "killed") / judged)}%`;
    return `| ${name} | ${rs.length} | ${count(rs, "killed")} | ${count(rs, "survived")} | ${
      count(rs, "timeout")
    } | ${count(rs, "stale")} | ${rate} |`;
  };
  const lines = [
    "| room | mutants | killed | survived | timeout | stale | killed of judged |",
    "|---|---:|---:|---:|---:|---:|---:|",
    ...rooms.map((room) => row(room, results.filter((r) => roomOf(r.mutant.file) === room))),
    row("all", results),
  ];
  const left = results.filter((r) => r.outcome !== "killed");
  if (left.length > 0) {
    lines.push("", "Not killed:");
    for (const r of left) {
      lines.push(`- ${r.id} ${r.outcome}: ${r.mutant.file}: ${r.mutant.what} (${r.mutant.kind})`);
    }
  }
  return lines.join("\n");
}

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

if (import.meta.main) {
  const args = Deno.args;
  const room = option(args, "--room");
  const timeout = Number(option(args, "--timeout") ?? 300);
  const json = option(args, "--json");
  // Ids count within each room, in list order: stable while the list keeps its order.
  const perRoom = new Map<string, number>();
  const all = MUTANTS.map((m): [string, Mutant] => {
    const n = (perRoom.get(roomOf(m.file)) ?? 0) + 1;
    perRoom.set(roomOf(m.file), n);
    return [`${roomOf(m.file)}#${n}`, m];
  });
  const ids = option(args, "--id")?.split(",");
  const chosen = all.filter(([id, m]) =>
    (room === undefined || roomOf(m.file) === room) && (ids === undefined || ids.includes(id))
  );
  if (args.includes("--list")) {
    for (const [id, m] of chosen) {
      const source = await Deno.readTextFile(`${REPO}/${m.file}`).catch(() => "");
      const m2 = mutated(m, source);
      console.log(`${id} ${m.file} ${m.kind}: ${m.what}${"stale" in m2 ? ` [stale: ${m2.stale}]` : ""}`);
    }
    Deno.exit(0);
  }
  const dir = await copyTree();
  const cleanup = () => Deno.removeSync(dir, { recursive: true });
  // Ctrl-C mid-run: the checkout was never touched; the tests running end and the copy goes.
  const onSignal = () => {
    if (running) killGroup(running);
    cleanup();
    Deno.exit(130);
  };
  Deno.addSignalListener("SIGINT", onSignal);
  Deno.addSignalListener("SIGTERM", onSignal);
  try {
    console.log(`${chosen.length} mutants, ${timeout} s each at most, in ${dir}`);
    const results = await runMutants(dir, chosen, timeout, (r) => {
      const by = r.detail ? `\n    ${r.detail}` : "";
      console.log(`${r.id} ${r.outcome} (${r.seconds} s) ${r.mutant.file}: ${r.mutant.what}${by}`);
    });
    console.log("\n" + renderTable(results));
    if (json) await Deno.writeTextFile(json, JSON.stringify(results, null, 2) + "\n");
  } finally {
    Deno.removeSignalListener("SIGINT", onSignal);
    Deno.removeSignalListener("SIGTERM", onSignal);
    cleanup();
  }
}
