/**
 * Importing mod.ts loads no Node built-in (`node:*`) and no npm package (time to first
 * instance): either one loads Deno's Node compatibility layer, ~17 ms of CPU and ~12 MiB of peak RSS at
 * every start (measured on the lavapipe machine, BENCHMARKS.md "Time to first instance"). Modules that need
 * one for a feature few scripts use import it with a dynamic `import()` when that feature runs. The graph is
 * read from `deno info --json`: code imports only, dynamic ones and type-only ones left out.
 */

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { staticGraph } from "./support/module_graph.ts";

Deno.test("importing mod.ts loads no Node built-in and no npm package", () => {
  assertEquals(staticGraph(new URL("../mod.ts", import.meta.url).pathname).external, []);
});
