/**
 * The one targets table that opens BENCHMARKS.md: every paired bench file's targets, one column per machine,
 * from the runs kept under bench/out/; a machine whose runs are not here keeps its cells from the table
 * already in the document. Also README's figures, taken from that table.
 *
 * @module
 */

import { median, type PairedOutput } from "./_paired.ts";
import { judge, sourceLine, summarize, targetValues } from "./_report_paired.ts";

/** A machine column: its name in the table and the folder its kept runs are in. */
export interface Column {
  readonly name: string;
  readonly dir: string;
}

/** Targets no longer held, by label, with the reason printed under the table. */
export const RETIRED: ReadonlyMap<string, string> = new Map([
  [
    "time to first instance: peak RSS, vkdeno script - libvulkan script (MiB)",
    "the peak-RSS target (vkdeno's first-instance script at most +15 MiB over the libvulkan script) is " +
    "retired: code should read plainly rather than be shaped to stay below V8's optimising tiers; " +
    "bench/first_bench.ts still reports peak RSS in its section",
  ],
]);

interface Row {
  label: string;
  file: string;
  goal: string;
  cells: Map<string, string>;
}

interface Table {
  rows: Row[];
  /** "column\0file" -> the line saying where and when those runs happened. */
  sources: Map<string, string>;
}

function stem(file: string): string {
  return file.replace(/^.*\//, "").replace(/\.ts$/, "");
}

function cellsOf(line: string): string[] {
  return line.trim().replace(/^\||\|$/g, "").split("|").map((c) => c.trim());
}

/** Reads the targets table (and its source lines) from the document's "## Targets" section. */
export function parseTargets(doc: string): Table {
  const table: Table = { rows: [], sources: new Map() };
  const start = doc.indexOf("\n## Targets\n");
  if (start < 0) return table;
  const end = doc.indexOf("\n## ", start + 1);
  // deno fmt pads the table's cells and wraps the source lines: read cells trimmed, join wrapped lines.
  const lines: string[] = [];
  for (const line of doc.slice(start, end < 0 ? doc.length : end).split("\n")) {
    if (/^ {2}\S/.test(line) && lines.length > 0) lines[lines.length - 1] += ` ${line.trim()}`;
    else lines.push(line);
  }
  let names: string[] = [];
  for (const line of lines) {
    const source = /^- (.+?), `([^`]+)`: (.*)$/.exec(line);
    if (source) table.sources.set(`${source[1]}\0${source[2]}`, source[3]!);
    if (!line.startsWith("| ") || /^\|[-: |]+\|$/.test(line)) continue;
    const c = cellsOf(line);
    if (c[0] === "target" && c[1] === "bench" && c[2] === "goal") {
      names = c.slice(3);
      continue;
    }
    if (names.length === 0) continue;
    table.rows.push({
      label: c[0]!,
      file: `bench/${c[1]!.replace(/`/g, "")}`,
      goal: c[2]!,
      cells: new Map(names.map((n, i) => [n, c[3 + i] ?? ""])),
    });
  }
  return table;
}

function formatValue(x: number, difference: boolean | undefined): string {
  return difference ? `${x >= 0 ? "+" : ""}${x.toFixed(1)}` : `${x >= 100 ? x.toFixed(0) : x.toFixed(2)}x`;
}

/** The rows one file's runs give: label, goal and the column's cell. */
function measuredRows(runs: readonly PairedOutput[]): { label: string; goal: string; cell: string }[] {
  const s = summarize(runs);
  const out = [];
  for (const t of runs[0]?.targets ?? []) {
    const rs = targetValues(s, t);
    if (rs.length === 0) continue;
    const value = median(rs);
    const { met, by } = judge(t, value);
    const spread = rs.length < 2
      ? ""
      : ` (${formatValue(Math.min(...rs), t.difference)} to ${formatValue(Math.max(...rs), t.difference)})`;
    out.push({
      label: t.label,
      goal: `${t.op} ${t.difference ? `+${t.limit}` : t.limit}`,
      cell: `${formatValue(value, t.difference)}${spread}: ${met ? "met" : `**missed**, ${by}`}`,
    });
  }
  return out;
}

function readRuns(path: string): PairedOutput[] | undefined {
  try {
    const runs = JSON.parse(Deno.readTextFileSync(path)) as PairedOutput[];
    return runs.length > 0 ? runs : undefined;
  } catch {
    return undefined;
  }
}

/** The "## Targets" section: kept runs where there are some, the document's earlier cells elsewhere. */
export function targetsSection(doc: string, files: readonly string[], columns: readonly Column[]): string {
  const previous = parseTargets(doc);
  const rows: Row[] = [];
  const sources = new Map<string, string>();
  const row = (label: string, file: string, goal: string) => {
    let r = rows.find((x) => x.label === label && x.file === file);
    if (!r) rows.push(r = { label, file, goal, cells: new Map() });
    return r;
  };
  for (const file of files) {
    for (const r of previous.rows.filter((x) => x.file === file)) row(r.label, file, r.goal);
    for (const column of columns) {
      const runs = readRuns(`${column.dir}/${stem(file)}.json`);
      if (runs) {
        for (const m of measuredRows(runs)) {
          const r = row(m.label, file, m.goal);
          r.goal = m.goal; // the bench's goal now, should it have changed since the document was written
          r.cells.set(column.name, m.cell);
        }
        sources.set(`${column.name}\0${file}`, sourceLine(runs));
      } else {
        for (const r of previous.rows.filter((x) => x.file === file)) {
          const cell = r.cells.get(column.name);
          if (cell) row(r.label, file, r.goal).cells.set(column.name, cell);
        }
        const source = previous.sources.get(`${column.name}\0${file}`);
        if (source) sources.set(`${column.name}\0${file}`, source);
      }
    }
  }
  const kept = rows.filter((r) => !RETIRED.has(r.label) && r.cells.size > 0);
  const lines = [
    "## Targets",
    "",
    "Each target is a ratio of medians (or a difference, in MiB or ns) measured in the same runs against libvulkan " +
    "or the floor it names; the cell gives the median over runs, its range, and the verdict. Details are in " +
    "each bench file's section below.",
    "",
    `| target | bench | goal | ${columns.map((c) => c.name).join(" | ")} |`,
    `|---|---|---:|${columns.map(() => "---|").join("")}`,
    ...kept.map((r) =>
      `| ${r.label} | \`${stem(r.file)}.ts\` | ${r.goal} | ${
        columns.map((c) => r.cells.get(c.name) ?? "").join(" | ")
      } |`
    ),
    "",
    "Measured on:",
    "",
  ];
  for (const column of columns) {
    for (const file of files) {
      const source = sources.get(`${column.name}\0${file}`);
      if (source) lines.push(`- ${column.name}, \`${file}\`: ${source}`);
    }
  }
  lines.push("");
  for (const [label, why] of RETIRED) lines.push(`Retired: "${label}": ${why}.`, "");
  return lines.join("\n");
}

/** The README figures, read from the targets table of BENCHMARKS.md. */
export const README_FIGURES: readonly { label: string; says: string }[] = [
  { label: "vkCmdSetLineWidth, no layers: vkdeno public / libvulkan export", says: "`vkCmdSetLineWidth`" },
  { label: "vkGetDeviceQueue, no layers: vkdeno public / libvulkan export", says: "`vkGetDeviceQueue`" },
  {
    label: "repeated, no layers: vkdeno / libvulkan, instance + device",
    says: "creating and destroying an instance and device",
  },
  {
    label: "time to first instance: vkdeno script / libvulkan script, whole process",
    says: "a whole script up to its first instance",
  },
];

/** The README's figures paragraph (between its markers), one sentence per machine column. */
export function readmeFigures(doc: string): string {
  const table = parseTargets(doc);
  const names = [...new Set(table.rows.flatMap((r) => [...r.cells.keys()]))];
  const out: string[] = [];
  for (const name of names) {
    const parts = README_FIGURES.flatMap((f) => {
      const cell = table.rows.find((r) => r.label === f.label)?.cells.get(name);
      const value = cell ? /^[-+\d.x]+( \([^)]*\))?/.exec(cell)?.[0] : undefined;
      return value ? [`${f.says} ${value}`] : [];
    });
    if (parts.length > 0) out.push(`On ${name}, against libvulkan: ${parts.join("; ")}.`);
  }
  return out.join(" ");
}
