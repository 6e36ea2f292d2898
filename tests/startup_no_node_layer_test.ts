/**
 * Importing mod.ts loads no Node built-in (`node:*`) and no npm package (time to first
 * instance): either one loads Deno's Node compatibility layer, ~17 ms of CPU and ~12 MiB of peak RSS at
 * every start (measured on the lavapipe machine, BENCHMARKS.md "Time to first instance"). Modules that need
 * one for a feature few scripts use import it with a dynamic `import()` when that feature runs. The graph is
 * read from `deno info --json`: code imports only, dynamic ones and type-only ones left out.
 */

import { deepStrictEqual as assertEquals } from "node:assert/strict";

interface InfoDependency {
  specifier: string;
  code?: { specifier?: string };
  isDynamic?: boolean;
}

interface InfoModule {
  specifier: string;
  dependencies?: InfoDependency[];
}

/** Every `node:` or `npm:` specifier reached from `entry` by static code imports, with its importer. */
function staticNodeImports(entry: string): string[] {
  const out = new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    stdout: "piped",
    stderr: "piped",
  }).outputSync();
  if (!out.success) {
    throw new Error(`Cannot read the module graph of "${entry}": ${new TextDecoder().decode(out.stderr)}`);
  }
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as { roots: string[]; modules: InfoModule[] };
  const bySpecifier = new Map(info.modules.map((m) => [m.specifier, m]));
  const found: string[] = [];
  const seen = new Set<string>();
  const todo = [...info.roots];
  while (todo.length > 0) {
    const specifier = todo.pop()!;
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    for (const dep of bySpecifier.get(specifier)?.dependencies ?? []) {
      const code = dep.code?.specifier;
      if (code === undefined || dep.isDynamic) continue;
      if (code.startsWith("node:") || code.startsWith("npm:")) {
        found.push(`${specifier.replace(/^.*\/(?=[^/]+\/[^/]+$)/, "")} imports ${code}`);
      } else {
        todo.push(code);
      }
    }
  }
  return found.sort();
}

Deno.test("importing mod.ts loads no Node built-in and no npm package", () => {
  assertEquals(staticNodeImports(new URL("../mod.ts", import.meta.url).pathname), []);
});
