/**
 * What a program loads before its first line runs: the modules reached from an entry by static code imports,
 * read from `deno info --json` (dynamic imports and type-only imports left out, as `deno run` leaves them),
 * for the tests of what importing mod.ts costs (startup_no_node_layer_test, first_instance_graph_test).
 *
 * @module
 */

interface InfoDependency {
  specifier: string;
  code?: { specifier?: string };
  isDynamic?: boolean;
}

interface InfoModule {
  specifier: string;
  dependencies?: InfoDependency[];
}

/** The modules `entry` loads statically: their specifiers, and each import of a `node:` or `npm:` one. */
export interface StaticGraph {
  /** Every module reached (file URLs), sorted. */
  modules: string[];
  /** `"<folder>/<file> imports node:x"` for each `node:` or `npm:` import met, sorted. */
  external: string[];
}

/**
 * The static code-import graph of `entry` (a path).
 *
 * @example Usage
 * ```ts ignore
 * import { staticGraph } from "./module_graph.ts";
 * console.log(staticGraph("mod.ts").modules.length);
 * ```
 */
export function staticGraph(entry: string): StaticGraph {
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
  const external: string[] = [];
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
        external.push(`${specifier.replace(/^.*\/(?=[^/]+\/[^/]+$)/, "")} imports ${code}`);
      } else {
        todo.push(code);
      }
    }
  }
  return { modules: [...seen].sort(), external: external.sort() };
}
