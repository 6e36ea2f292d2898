/**
 * The rules the code follows are cited by their docs/behaviour.md ids: every id cited resolves there, and no
 * file cites what a reader of the repository cannot open (the old reference table's codes, tracker issue
 * numbers, paths outside the repository).
 */

import { ok as assert } from "node:assert/strict";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const SKIP = new Set([".git", ".tools", ".cache", "node_modules", "bench/out", "vk/generated"]);

function* files(dir = ROOT): Generator<string> {
  for (const entry of Deno.readDirSync(dir)) {
    const path = join(dir, entry.name);
    const rel = relative(ROOT, path);
    if (SKIP.has(rel) || entry.name.startsWith(".")) continue;
    if (entry.isDirectory) yield* files(path);
    else if (/\.(ts|md|json|sh)$/.test(entry.name)) yield rel;
  }
}

const DEFINED = new Set(
  [...Deno.readTextFileSync(join(ROOT, "docs/behaviour.md")).matchAll(/^- \*\*([A-Z]{1,2}\d{2}) /gm)].map((
    m,
  ) => m[1]!),
);

Deno.test("every docs/behaviour.md id cited in code and docs is defined there", () => {
  assert(DEFINED.size > 100, `only ${DEFINED.size} rules read from docs/behaviour.md`);
  const missing: string[] = [];
  let cited = 0;
  for (const file of files()) {
    // Comments wrap: read the text with line breaks and comment markers folded into spaces.
    const text = Deno.readTextFileSync(join(ROOT, file)).replace(/\n\s*(\*|\/\/)?\s*/g, " ");
    for (const m of text.matchAll(/docs\/behaviour\.md((?:(?:,|;| and| to|-)? ?[A-Z]{1,2}\d{2}\b)+)/g)) {
      for (const id of m[1]!.match(/[A-Z]{1,2}\d{2}/g) ?? []) {
        cited++;
        if (!DEFINED.has(id)) missing.push(`${file}: ${id}`);
      }
    }
  }
  assert(cited > 50, `only ${cited} citations found`);
  assert(missing.length === 0, `ids not defined in docs/behaviour.md:\n${missing.join("\n")}`);
});

Deno.test("no file cites the old reference codes, tracker issue numbers or paths outside the repository", () => {
  const forbidden = new RegExp(
    ["LOADER_" + "BEHAVIOUR", "[Ii]ssue" + " [0-9]+", "\\.\\./" + "shared"].join("|"),
  );
  const found: string[] = [];
  for (const file of files()) {
    Deno.readTextFileSync(join(ROOT, file)).split("\n").forEach((line, i) => {
      if (forbidden.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
    });
  }
  assert(found.length === 0, `found:\n${found.join("\n")}`);
});
