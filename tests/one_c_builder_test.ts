/**
 * Every C compiler run of the tests, benches, tools and examples goes through the one builder,
 * tests/support/c_build.ts (13 files once spawned `cc` beside it): a module that starts `cc`,
 * `gcc`, `clang` or `c++` itself fails this test, naming the module and the line.
 */

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { modulesUnder, REPO_ROOT as root } from "./support/source_tree.ts";

const BUILDER = "tests/support/c_build.ts";
const FOLDERS = ["tests/", "bench/", "tools/", "examples/"];
/** A compiler named as the program of a `Deno.Command` (or `new Deno.Command`) in TypeScript source. */
const COMPILER_RUN = /Command\(\s*["'`](cc|gcc|clang|clang\+\+|g\+\+|c\+\+)["'`]/;

/** `path:line: text` for each line of `text` that runs a compiler. */
function compilerRuns(path: string, text: string): string[] {
  return text.split("\n").flatMap((line, i) =>
    COMPILER_RUN.test(line) ? [`${path}:${i + 1}: ${line.trim()}`] : []
  );
}

Deno.test("only tests/support/c_build.ts runs a C compiler", () => {
  const runs = FOLDERS.flatMap(modulesUnder).sort().flatMap((path) =>
    compilerRuns(path, Deno.readTextFileSync(new URL(path, root)))
  );
  const outside = runs.filter((r) => !r.startsWith(`${BUILDER}:`));
  assertEquals(outside, []);
  // The builder itself is found, so the pattern matches how `cc` is started.
  assertEquals(runs.some((r) => r.startsWith(`${BUILDER}:`)), true);
});

Deno.test("the compiler-run check names a module that starts gcc itself", () => {
  // Built at run time, so that this file's own text does not start a compiler.
  const gcc = `await new Deno.Command(${JSON.stringify("gcc")}, { args }).output();`;
  assertEquals(compilerRuns("bench/x.ts", `const a = 1;\n${gcc}`), [`bench/x.ts:2: ${gcc}`]);
  assertEquals(compilerRuns("bench/x.ts", 'new Deno.Command(Deno.execPath(), { args: ["cc"] })'), []);
});
