/**
 * The library's imports run one way (docs/architecture.md): ffi/ -> vk/ -> api/ -> discovery/ -> loading/ ->
 * chain/ -> wsi/ and layers/ (plug-ins through interfaces chain/ defines) -> the public modules at the root. This test
 * reads the module graph from `deno info --json` for every entry point of deno.json and fails on an import
 * cycle (naming its modules in order) and on an import that the room's allow-list ({@linkcode ALLOWED}) does
 * not name (naming the importing module and the imported one); the allow-list itself draws no cycle; and on an
 * import of another room's private file (a name starting with `_`). Type-only imports count: they tie modules together
 * for the reader and the type checker just the same.
 *
 * chain/ holds rooms below its core (chain/ itself): chain/extensions/, chain/order/ and chain/layer_chain/.
 * The core imports them; a room imports the lower folders and the rooms below it, and from the core only types
 * (`import type`), so that a room can be read without the core's internals.
 *
 * The development folders sit beside the library and import it, never the other way round: tests/support/
 * (the C builder, mock driver and layer, reference loader, fault and soak harnesses, test helpers) is shared
 * by tests/, bench/, tools/ and examples/, so tools/, bench/ and examples/ never import (or run a helper of)
 * tests/ outside tests/support/; bench/ and examples/ import no development folder but tests/support/, and
 * tests/support/ none at all.
 */

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { modulesUnder, REPO_ROOT as root } from "./support/source_tree.ts";

const CHAIN_ROOMS = ["chain/extensions/", "chain/order/", "chain/layer_chain/"] as const;
const BELOW_CHAIN = ["ffi/", "vk/", "discovery/", "loading/"] as const;
/**
 * Room -> the rooms it may import (besides itself). A room inside chain/ may also import types, and only types,
 * from the core around it ({@linkcode disallowedEdges}). The root modules (mod.ts and its peers) may import
 * every room. docs/architecture.md draws the same arrows.
 */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  "ffi/": [],
  // The window toolkit for applications: imports nothing of the library.
  "window/": [],
  "vk/": ["ffi/"],
  // What scripts call beside the raw commands: over the vocabulary only, so any command source can use it.
  "api/": ["ffi/", "vk/"],
  "discovery/": ["ffi/", "vk/"],
  "loading/": ["ffi/", "vk/", "discovery/"],
  "chain/extensions/": [...BELOW_CHAIN],
  "chain/order/": [...BELOW_CHAIN],
  "chain/layer_chain/": [...BELOW_CHAIN, "chain/extensions/", "chain/order/"],
  "chain/": [...BELOW_CHAIN, ...CHAIN_ROOMS],
  "wsi/": [...BELOW_CHAIN, "chain/", ...CHAIN_ROOMS],
  "layers/": [...BELOW_CHAIN, "api/", "chain/", ...CHAIN_ROOMS],
  // The public testing kit: mock drivers over the whole library, imported by nothing in it.
  "testing/": [...BELOW_CHAIN, "api/", "chain/", ...CHAIN_ROOMS, "wsi/", "layers/", "window/"],
};
/** The rooms longest first, so that chain/order/x.ts falls in chain/order/ rather than chain/. */
const BY_LENGTH = Object.keys(ALLOWED).sort((a, b) => b.length - a.length);

/**
 * Edges allowed to break the rules. Empty since the re-layering of the library, and meant to stay so; while it
 * had entries, an entry whose import was gone failed the test so that the list could only shrink.
 */
const KNOWN: readonly string[] = [];

/** Development folders: beside the library, never imported by it. tests/ comes first: it may import the rest. */
const DEVELOPMENT = ["tests/", "tools/", "bench/", "examples/"] as const;
/** Development folders that must not import tests/ outside tests/support/ (the tests themselves). */
const NOT_TESTS = ["tools/", "bench/", "examples/", "tests/support/"] as const;
/** The shared development helpers: the one part of tests/ the other development folders may import. */
const SUPPORT = "tests/support/";
/** The development folders each may import besides its own and the library (tests/ may import them all). */
const DEVELOPMENT_IMPORTS: Readonly<Record<string, readonly string[]>> = {
  [SUPPORT]: [],
  "bench/": [SUPPORT],
  "examples/": [],
  "tools/": [SUPPORT, "bench/", "examples/"],
};

/** The package's entry points (deno.json "exports"): all of the library an example may import. */
const PUBLIC_ENTRIES = [
  "mod.ts",
  "layers/mod.ts",
  "discovery/mod.ts",
  "testing/mod.ts",
  "window/mod.ts",
] as const;

/** Whether `path` is a development module (under a development folder) rather than part of the library. */
function isDevelopment(path: string): boolean {
  return DEVELOPMENT.some((prefix) => path.startsWith(prefix));
}

/** Folder of a repository-relative path: "chain/", "vk/" (vk/generated/ included), or "" at the root. */
function folderOf(path: string): string {
  const room = BY_LENGTH.find((prefix) => path.startsWith(prefix));
  if (room) return room;
  if (!path.includes("/")) return "";
  throw new RangeError(`Module "${path}" is in no room of tests/import_graph_test.ts`);
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

/**
 * Repository-relative import graph of the local modules reachable from `entries` (paths or URLs); the edges
 * that only import types ("from -> to") are added to `typeOnly` when it is given.
 */
function readGraph(entries: string[], typeOnly?: Set<string>): Map<string, Set<string>> {
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
        const onlyType = dep.type?.specifier;
        if (typeOnly && dep.code === undefined && onlyType?.startsWith(rootHref)) {
          typeOnly.add(`${from} -> ${onlyType.slice(rootHref.length)}`);
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

/**
 * Imports that the allow-list ({@linkcode ALLOWED}) does not name, but for a chain/ room's type-only imports
 * (in `typeOnly`) from the core around it (chain/order/ may import types from chain/).
 */
function disallowedEdges(
  graph: Map<string, Set<string>>,
  typeOnly: ReadonlySet<string> = new Set(),
): string[] {
  const bad: string[] = [];
  for (const [from, targets] of graph) {
    const fromFolder = folderOf(from);
    // The root modules are the public surface: they may import any room.
    if (fromFolder === "") continue;
    for (const to of targets) {
      const toFolder = folderOf(to);
      if (toFolder === fromFolder || ALLOWED[fromFolder]!.includes(toFolder)) continue;
      const edge = `${from} -> ${to}`;
      if (toFolder !== "" && fromFolder.startsWith(toFolder)) {
        if (!typeOnly.has(edge)) bad.push(`${edge} (a room imports only types from ${toFolder})`);
      } else {
        bad.push(edge);
      }
    }
  }
  return bad.sort();
}

/**
 * Imports of a file another room keeps to itself (its name starts with `_`): what rooms share is a public file
 * of the room, named for the concept and listed in its README. vk/generated/ counts as vk/; the root modules
 * are a room of their own here.
 */
function privateReachIns(graph: Map<string, Set<string>>): string[] {
  const isPrivate = (path: string) => path.slice(path.lastIndexOf("/") + 1).startsWith("_");
  return [...graph].flatMap(([from, targets]) =>
    isDevelopment(from)
      ? []
      : [...targets].filter((to) => !isDevelopment(to) && isPrivate(to) && folderOf(to) !== folderOf(from))
        .map((to) => `${from} -> ${to}`)
  ).sort();
}

/** Library modules importing a development module: the library must stand without its development folders. */
function libraryToDevelopment(graph: Map<string, Set<string>>): string[] {
  return [...graph].flatMap(([from, targets]) =>
    isDevelopment(from) ? [] : [...targets].filter(isDevelopment).map((to) => `${from} -> ${to}`)
  ).sort();
}

/**
 * Imports among the development folders that break their order: tests/ on top (it may import any of
 * them), then tools/, then bench/ and examples/, and tests/support/ at the bottom (it imports only the
 * library).
 */
function developmentEdges(graph: Map<string, Set<string>>): string[] {
  const bad: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const folder = Object.keys(DEVELOPMENT_IMPORTS).find((prefix) => from.startsWith(prefix));
      if (folder === undefined || !isDevelopment(to) || to.startsWith(folder)) continue;
      if (to.startsWith("tests/") && !to.startsWith(SUPPORT)) {
        bad.push(`imports tests/ (take shared helpers from ${SUPPORT}): ${from} -> ${to}`);
      } else if (!DEVELOPMENT_IMPORTS[folder]!.some((prefix) => to.startsWith(prefix))) {
        const allowed = ["the library", ...DEVELOPMENT_IMPORTS[folder]!].join(", ");
        bad.push(`${folder} imports only ${allowed}: ${from} -> ${to}`);
      }
    }
  }
  return bad.sort();
}

/** Imports of the library by examples/ other than through its entry points ({@linkcode PUBLIC_ENTRIES}). */
function examplesInternals(graph: Map<string, Set<string>>): string[] {
  return [...graph].flatMap(([from, targets]) =>
    from.startsWith("examples/")
      ? [...targets].filter((to) => !isDevelopment(to) && !(PUBLIC_ENTRIES as readonly string[]).includes(to))
        .map((to) => `examples/ imports the library only through its entry points: ${from} -> ${to}`)
      : []
  ).sort();
}

/**
 * Paths under tests/ named in string literals of a development module's text, other than test files
 * (`*_test.ts`, which a tool may run) and tests/support/ (the shared helpers, the C test libraries and the
 * mock C sources): a helper spawned as a script is a dependency just as an import is.
 */
function testHelperPaths(path: string, text: string): string[] {
  const found: string[] = [];
  // Static imports are the graph's business; what is left are spawned scripts and paths built at run time.
  const code = text.replace(/^\s*(import|export)\b[^;]*;/gm, "");
  for (const match of code.matchAll(/["'`][^"'`\n]*?\btests\/([\w./-]*)/g)) {
    const rest = match[1]!;
    // Tests to run (a test file, or a folder of them: tools/mutate.ts runs a room's) are no helpers.
    if (!rest.endsWith("_test.ts") && !rest.endsWith("/") && !`tests/${rest}`.startsWith(SUPPORT)) {
      found.push(`names a path under tests/: ${path} -> tests/${rest}`);
    }
  }
  return found;
}

/** One `deno info` over many modules: a temporary module that imports each of them. */
function readGraphOf(modules: string[]): Map<string, Set<string>> {
  const dir = Deno.makeTempDirSync({ prefix: "vkdeno_import_graph_" });
  try {
    const entry = `${dir}/all.ts`;
    Deno.writeTextFileSync(
      entry,
      modules.map((m) => `import ${JSON.stringify(new URL(m, root).href)};\n`).join(""),
    );
    return readGraph([entry]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
}

Deno.test("library imports form no cycle and each names a room its importer's allow-list allows", () => {
  const typeOnly = new Set<string>();
  const graph = readGraph(entryPoints(), typeOnly);
  const intoDevelopment = libraryToDevelopment(graph);
  // Reported on their own; what a development module imports in turn is no part of the library's order.
  for (const [from, targets] of graph) {
    if (isDevelopment(from)) graph.delete(from);
    else for (const to of targets) if (isDevelopment(to)) targets.delete(to);
  }
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
    ...intoDevelopment.map((e) => `the library imports a development module: ${e}`),
    ...cycles(pruned).map((c) =>
      `import cycle of ${c.length} modules (${c.join(", ")}), for one: ${cyclePath(pruned, c)}`
    ),
    ...disallowedEdges(pruned, typeOnly).map((e) => `import the allow-list does not name: ${e}`),
    ...privateReachIns(graph).map((e) => `import of another room's private file: ${e}`),
    ...stale.map((e) => `known edge no longer exists (delete it from KNOWN): ${e}`),
  ];
  assertEquals(problems, []);
  // The rooms are seen: the core imports them, and a room's type-only import of the core is told apart.
  assertEquals(graph.get("chain/trampoline.ts")?.has("chain/order/chain_filter.ts"), true);
  assertEquals(typeOnly.has("chain/order/chain_filter.ts -> chain/objects.ts"), true);
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
  assertEquals(disallowedEdges(graph), ["ffi/x.ts -> discovery/y.ts"]);
});

Deno.test("the private-file check names another room's import of a _-prefixed file, not the room's own", () => {
  const graph = new Map([
    ["api/compile.ts", new Set(["vk/_struct_runtime.ts", "vk/marshal.ts"])],
    ["vk/marshal.ts", new Set(["vk/_struct_runtime.ts"])],
    ["vk/generated/structs.ts", new Set(["vk/_lazy_table.ts"])],
    ["mod.ts", new Set(["layers/_commands.ts"])],
    ["tests/layers/x_test.ts", new Set(["layers/_commands.ts"])],
  ]);
  assertEquals(privateReachIns(graph), [
    "api/compile.ts -> vk/_struct_runtime.ts",
    "mod.ts -> layers/_commands.ts",
  ]);
});

Deno.test("a room of chain/ imports the core's types only, lower rooms and folders freely, no sibling room", () => {
  const graph = new Map([
    ["chain/core.ts", new Set(["chain/order/sort.ts", "chain/layer_chain/chain.ts"])],
    [
      "chain/order/sort.ts",
      new Set(["chain/core.ts", "chain/objects.ts", "ffi/memory.ts", "chain/extensions/debug.ts"]),
    ],
    ["chain/layer_chain/chain.ts", new Set(["chain/extensions/debug.ts", "chain/order/sort.ts"])],
    ["chain/extensions/debug.ts", new Set(["chain/layer_chain/chain.ts"])],
    ["wsi/surface.ts", new Set(["chain/layer_chain/chain.ts"])],
  ]);
  const typeOnly = new Set(["chain/order/sort.ts -> chain/objects.ts"]);
  assertEquals(disallowedEdges(graph, typeOnly), [
    "chain/extensions/debug.ts -> chain/layer_chain/chain.ts",
    "chain/order/sort.ts -> chain/core.ts (a room imports only types from chain/)",
    "chain/order/sort.ts -> chain/extensions/debug.ts",
  ]);
});

Deno.test("tools/, bench/ import of tests/ only tests/support/, bench/ and examples/ no other development folder, examples/ only the library's entry points, tests/support/ only the library", () => {
  const modules = NOT_TESTS.flatMap(modulesUnder);
  const graph = readGraphOf(modules);
  const problems = [
    ...developmentEdges(graph),
    ...examplesInternals(graph),
    ...libraryToDevelopment(graph).map((e) => `the library imports a development module: ${e}`),
    ...modules.flatMap((m) => testHelperPaths(m, Deno.readTextFileSync(new URL(m, root)))),
  ];
  assertEquals(problems, []);
  // The walk reached the folders it checks: the shared builder and a tool that uses it through testing/.
  assertEquals(graph.get("tools/gpu_check.ts")?.has("tests/support/mock.ts"), true);
  assertEquals(graph.get("bench/_native.ts")?.has("tests/support/c_build.ts"), true);
});

Deno.test("the development-folder check names an import of tests/, an example's import of an internal module and a spawned test helper", () => {
  const graph = new Map([
    ["tools/a.ts", new Set(["tests/chain/x_test.ts", "tests/support/mock.ts", "chain/loader.ts"])],
    ["tests/support/mock.ts", new Set(["bench/_native.ts", "ffi/memory.ts"])],
    ["tests/x_test.ts", new Set(["tests/support/mock.ts", "tests/chain/y_test.ts", "tools/a.ts"])],
    ["bench/b.ts", new Set(["tests/support/libvulkan.ts", "tools/a.ts", "bench/_native.ts"])],
    ["chain/loader.ts", new Set(["tests/support/c_build.ts"])],
    ["examples/e.ts", new Set(["mod.ts", "testing/mod.ts", "window/x11.ts", "examples/_loader.ts"])],
    ["examples/_loader.ts", new Set(["tests/support/libvulkan.ts"])],
  ]);
  assertEquals(developmentEdges(graph), [
    "bench/ imports only the library, tests/support/: bench/b.ts -> tools/a.ts",
    "examples/ imports only the library: examples/_loader.ts -> tests/support/libvulkan.ts",
    "imports tests/ (take shared helpers from tests/support/): tools/a.ts -> tests/chain/x_test.ts",
    "tests/support/ imports only the library: tests/support/mock.ts -> bench/_native.ts",
  ]);
  assertEquals(examplesInternals(graph), [
    "examples/ imports the library only through its entry points: examples/e.ts -> window/x11.ts",
  ]);
  assertEquals(libraryToDevelopment(graph), ["chain/loader.ts -> tests/support/c_build.ts"]);
  assertEquals(
    testHelperPaths(
      "tools/r.ts",
      'run(`${REPO}/tests/chain/helper.ts`, "tests/x/property_env_test.ts", `${REPO}/tests/support/c/a.c`)',
    ),
    ["names a path under tests/: tools/r.ts -> tests/chain/helper.ts"],
  );
});

Deno.test("the allow-list draws no cycle between rooms, and each room it names exists", () => {
  const rooms = new Map(Object.entries(ALLOWED).map(([room, to]) => [room, new Set(to)]));
  assertEquals(cycles(rooms), []);
  const missing = Object.keys(ALLOWED).filter((room) => {
    try {
      return !Deno.statSync(new URL(room, root)).isDirectory;
    } catch {
      return true;
    }
  });
  assertEquals(missing, []);
});

Deno.test("every room's README names every file and folder in the room", () => {
  const missing: string[] = [];
  for (const room of Object.keys(ALLOWED)) {
    const readme = Deno.readTextFileSync(new URL(`${room}README.md`, root));
    for (const entry of Deno.readDirSync(new URL(room, root))) {
      if (entry.name === "README.md") continue;
      const name = entry.isDirectory ? `${entry.name}/` : entry.name;
      if (!readme.includes(`\`${name}\``)) missing.push(`${room}README.md does not name ${name}`);
    }
  }
  assertEquals(missing, []);
});
