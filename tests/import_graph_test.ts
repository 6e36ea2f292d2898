/**
 * The library's imports run one way (docs/architecture.md): ffi/ -> discovery/ -> loading/ -> chain/ ->
 * wsi/ and layers/ (plug-ins through interfaces chain/ defines) -> the public modules at the root. This test
 * reads the module graph from `deno info --json` for every entry point of deno.json and fails on an import
 * cycle (naming its modules in order) and on an import from a lower folder to a higher or sibling one
 * (naming the importing module and the imported one). Type-only imports count: they tie modules together
 * for the reader and the type checker just the same.
 */

import { deepStrictEqual as assertEquals } from "node:assert/strict";

const root = new URL("../", import.meta.url);

/** Folder prefix -> level; a module may import only from its own folder or from lower levels. */
const LEVELS: readonly (readonly [prefix: string, level: number])[] = [
  ["ffi/", 0],
  ["discovery/", 1],
  ["loading/", 2],
  ["chain/", 3],
  ["wsi/", 4],
  ["layers/", 4],
];
/** Modules at the repository root (mod.ts and its peers) are the public surface, above everything. */
const PUBLIC_LEVEL = 5;

/**
 * Edges allowed to break the rules. Empty since the re-layering of issue 16, and meant to stay so; while it
 * had entries, an entry whose import was gone failed the test so that the list could only shrink.
 */
const KNOWN: readonly string[] = [];

/** Folder of a repository-relative path: "chain/", "ffi/" (ffi/generated/ included), or "" at the root. */
function folderOf(path: string): string {
  const entry = LEVELS.find(([prefix]) => path.startsWith(prefix));
  if (entry) return entry[0];
  if (!path.includes("/")) return "";
  throw new RangeError(`Module "${path}" is in no layer of tests/import_graph_test.ts`);
}

function levelOf(folder: string): number {
  return LEVELS.find(([prefix]) => prefix === folder)?.[1] ?? PUBLIC_LEVEL;
}

interface InfoModule {
  specifier: string;
  dependencies?: { code?: { specifier?: string }; type?: { specifier?: string } }[];
}

/** The entry points: "exports" of deno.json (a string or a map of subpaths). */
function entryPoints(): string[] {
  const config = JSON.parse(Deno.readTextFileSync(new URL("deno.json", root))) as {
    exports: string | Record<string, string>;
  };
  const exports = typeof config.exports === "string" ? { ".": config.exports } : config.exports;
  return Object.values(exports).map((p) => p.replace(/^\.\//, ""));
}

/** Repository-relative import graph of the local modules reachable from `entries`. */
function readGraph(entries: string[]): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  const rootHref = root.href;
  for (const entry of entries) {
    const out = new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", entry],
      cwd: root,
      stdout: "piped",
      stderr: "piped",
    }).outputSync();
    if (!out.success) {
      throw new Error(`Cannot read the module graph of "${entry}": ${new TextDecoder().decode(out.stderr)}`);
    }
    const info = JSON.parse(new TextDecoder().decode(out.stdout)) as { modules: InfoModule[] };
    for (const module of info.modules) {
      if (!module.specifier.startsWith(rootHref)) continue;
      const from = module.specifier.slice(rootHref.length);
      const targets = graph.get(from) ?? new Set<string>();
      graph.set(from, targets);
      for (const dep of module.dependencies ?? []) {
        for (const to of [dep.code?.specifier, dep.type?.specifier]) {
          if (to?.startsWith(rootHref)) targets.add(to.slice(rootHref.length));
        }
      }
    }
  }
  return graph;
}

/** Strongly connected components of more than one module (or a module importing itself). */
function cycles(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  // Iterative Tarjan, so a deep graph cannot overflow the stack.
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: [string, string[]][] = [];
    const enter = (v: string) => {
      index.set(v, next);
      low.set(v, next++);
      stack.push(v);
      onStack.add(v);
      work.push([v, [...(graph.get(v) ?? [])]]);
    };
    enter(start);
    while (work.length > 0) {
      const [v, pending] = work[work.length - 1]!;
      const w = pending.shift();
      if (w !== undefined) {
        if (!index.has(w)) enter(w);
        else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent[0], Math.min(low.get(parent[0])!, low.get(v)!));
      if (low.get(v) !== index.get(v)) continue;
      const component: string[] = [];
      let w2: string;
      do {
        w2 = stack.pop()!;
        onStack.delete(w2);
        component.push(w2);
      } while (w2 !== v);
      if (component.length > 1 || graph.get(v)?.has(v)) found.push(component.sort());
    }
  }
  return found;
}

/** One concrete cycle through the first module of a component: "a.ts -> b.ts -> a.ts". */
function cyclePath(graph: Map<string, Set<string>>, component: string[]): string {
  const members = new Set(component);
  const start = component[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!members.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let at = v; at !== start; at = previous.get(at)!) path.unshift(at);
        path.unshift(start);
        return path.join(" -> ");
      }
      if (!previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  return component.join(", ");
}

/** Imports that point to a higher folder or a sibling of the same level. */
function upwardEdges(graph: Map<string, Set<string>>): string[] {
  const bad: string[] = [];
  for (const [from, targets] of graph) {
    const fromFolder = folderOf(from);
    for (const to of targets) {
      const toFolder = folderOf(to);
      if (toFolder === fromFolder) continue;
      if (levelOf(toFolder) >= levelOf(fromFolder)) bad.push(`${from} -> ${to}`);
    }
  }
  return bad.sort();
}

Deno.test("library imports form no cycle and never point from a lower folder to a higher one", () => {
  const graph = readGraph(entryPoints());
  const known = new Set(KNOWN);
  const edges = new Set(
    [...graph].flatMap(([from, targets]) => [...targets].map((to) => `${from} -> ${to}`)),
  );
  const stale = KNOWN.filter((e) => !edges.has(e));
  // The known edges are left out of the graph, so that what remains must already be a clean one.
  const pruned = new Map(
    [...graph].map((
      [from, targets],
    ) => [from, new Set([...targets].filter((to) => !known.has(`${from} -> ${to}`)))]),
  );
  const problems = [
    ...cycles(pruned).map((c) =>
      `import cycle of ${c.length} modules (${c.join(", ")}), for one: ${cyclePath(pruned, c)}`
    ),
    ...upwardEdges(pruned).map((e) => `import against the layer order: ${e}`),
    ...stale.map((e) => `known edge no longer exists (delete it from KNOWN): ${e}`),
  ];
  assertEquals(problems, []);
});

Deno.test("the cycle finder names a cycle and the order check an upward import", () => {
  const graph = new Map([
    ["chain/a.ts", new Set(["chain/b.ts", "ffi/x.ts"])],
    ["chain/b.ts", new Set(["chain/a.ts"])],
    ["ffi/x.ts", new Set(["discovery/y.ts"])],
    ["discovery/y.ts", new Set<string>()],
  ]);
  const found = cycles(graph);
  assertEquals(found, [["chain/a.ts", "chain/b.ts"]]);
  assertEquals(cyclePath(graph, found[0]!), "chain/a.ts -> chain/b.ts -> chain/a.ts");
  assertEquals(upwardEdges(graph), ["ffi/x.ts -> discovery/y.ts"]);
});
