/**
 * The mutation check (tools/mutate.ts): a mutant applies only where its text is found exactly once and never
 * to a generated file; every mutant of the list names a hand-written library file whose room has tests; the
 * table counts each outcome per room and lists what was not killed.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { MUTANTS } from "../../tools/_mutants.ts";
import { type MutantResult, mutated, renderTable, roomOf, testsOf } from "../../tools/mutate.ts";

const root = new URL("../..", import.meta.url).pathname;
const base = { file: "chain/x.ts", kind: "comparison", what: "w" } as const;

Deno.test("a mutant applies where its text is found exactly once, never to a generated file", () => {
  assertEquals(mutated({ ...base, find: "a < b", replace: "a <= b" }, "if (a < b) f();"), {
    text: "if (a <= b) f();",
  });
  assert("stale" in mutated({ ...base, find: "a < b", replace: "a <= b" }, "if (a > b) f();"));
  assert("stale" in mutated({ ...base, find: "a < b", replace: "a <= b" }, "a < b; a < b;"));
  const generated = { ...base, file: "ffi/generated/commands.ts", find: "a", replace: "b" };
  assertEquals(mutated(generated, "a"), { stale: "generated files are never mutated" });
});

Deno.test("every mutant of the list names a hand-written library file whose room has tests", () => {
  assert(MUTANTS.length >= 40 && MUTANTS.length <= 60, String(MUTANTS.length));
  for (const m of MUTANTS) {
    assert(!m.file.includes("/generated/") && m.file.endsWith(".ts") && m.find !== m.replace, m.file);
    assert(Deno.statSync(`${root}/${m.file}`).isFile, m.file);
    for (const t of testsOf(roomOf(m.file))) assert(Deno.statSync(`${root}/${t}`), `${m.file}: ${t}`);
  }
  assertEquals(testsOf("chain"), ["tests/chain/", "tests/checked_mode_test.ts"]);
  assertEquals(testsOf("api"), ["tests/api/"]);
});

Deno.test("the table counts each outcome per room and lists the mutants not killed", () => {
  const result = (id: string, file: string, outcome: MutantResult["outcome"]): MutantResult => ({
    id,
    mutant: { ...base, file, find: "a", replace: "b", what: `rule ${id}` },
    outcome,
    seconds: 1,
  });
  const table = renderTable([
    result("api#1", "api/a.ts", "killed"),
    result("api#2", "api/a.ts", "survived"),
    result("chain#1", "chain/b.ts", "killed"),
    result("chain#2", "chain/b.ts", "stale"),
  ]);
  const lines = table.split("\n");
  assertEquals(lines.slice(2, 5), [
    "| api | 2 | 1 | 1 | 0 | 0 | 50% |",
    "| chain | 2 | 1 | 0 | 0 | 1 | 100% |",
    "| all | 4 | 2 | 1 | 0 | 1 | 67% |",
  ]);
  assertEquals(lines.slice(-2), [
    "- api#2 survived: api/a.ts: rule api#2 (comparison)",
    "- chain#2 stale: chain/b.ts: rule chain#2 (comparison)",
  ]);
});
