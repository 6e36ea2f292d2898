/**
 * Layer and driver manifests parsed in one process and taken from the persistent cache by the next
 * (discovery/persistent_manifests.ts) are never what a process without the cache would not get: the layers
 * listed, their records and extensions, the loader log and the first instance's devices are the same as with
 * `VKDENO_CACHE=0` after a manifest is edited, a variable changed, with processes starting at once, over a
 * corrupt entry or a read-only folder.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { MockEnvironment } from "../support/mock.ts";
import { DENO_DIR } from "../support/deno_dir.ts";
import { RACY_WINDOW_MS } from "../../discovery/scan_memo.ts";

const CHILD = new URL("../support/layers_child.ts", import.meta.url).pathname;
const ENTRIES = ["driver-manifests", "layer-manifests"];

interface Seen {
  /** The child's JSON line: records, layers and devices. */
  readonly seen: unknown;
  /** The loader log (`VK_LOADER_DEBUG=all`). */
  readonly log: string;
}

/** Runs the child with exactly `vars` (nothing inherited but PATH and DENO_DIR). */
function spawn(vars: Record<string, string>): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", CHILD],
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", DENO_DIR, VK_LOADER_DEBUG: "all", ...vars },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/**
 * The last child's log lines about the cache itself (docs/api.md, "Persistent cache"): the lines by which a run
 * with the cache differs from one without, so they are kept out of {@linkcode Seen.log}.
 */
let lastCacheLog = "";

async function result(child: Deno.ChildProcess): Promise<Seen> {
  const out = await child.output();
  const text = new TextDecoder().decode(out.stdout);
  const log = new TextDecoder().decode(out.stderr);
  if (!out.success) throw new Error(`layers child failed:\n${text}\n${log}`);
  const lines = log.split("\n");
  lastCacheLog = lines.filter((l) => l.includes("Persistent cache ")).join("\n");
  return {
    seen: JSON.parse(text.trim().split("\n").at(-1)!),
    log: lines.filter((l) => !l.includes("Persistent cache ")).join("\n"),
  };
}

/** What a process with `vars` sees, checked against the same run without the cache; returns it. */
async function sameAsUncached(vars: Record<string, string>): Promise<Seen> {
  const cached = await result(spawn(vars));
  const uncached = await result(spawn({ ...vars, VKDENO_CACHE: "0" }));
  assertEquals(cached, uncached);
  return cached;
}

/** An explicit layer holding a defective sibling (a message per run) and an implicit one, in folders of their own. */
async function layerTree(): Promise<
  { env: MockEnvironment; explicit: string; cache: string; vars: Record<string, string> } & AsyncDisposable
> {
  const env = await MockEnvironment.create();
  await env.addDriver({ name: "alpha", physicalDevices: [{ name: "Alpha" }] });
  const explicit = await env.addLayer({
    name: "VK_LAYER_MOCK_explicit",
    instanceExtensions: [{ name: "VK_EXT_debug_utils" }],
  }, {
    manifest: { extra: { unknown_member: { nested: [1, 2] } } },
  });
  const implicit = await env.addLayer({ name: "VK_LAYER_MOCK_implicit" }, { implicit: true });
  Deno.mkdirSync(env.path("defective"));
  Deno.writeTextFileSync(
    env.path("defective/two.json"),
    JSON.stringify({
      file_format_version: "1.0.1",
      layers: [
        { name: "VK_LAYER_MOCK_no_type", api_version: "1.3.0" },
        { name: "NOT_A_LAYER_NAME", type: "GLOBAL", library_path: "libnone.so", api_version: "1.3.0" },
      ],
    }),
  );
  readableByEveryone(
    explicit.manifestPath,
    implicit.manifestPath,
    env.path("defective/two.json"),
    env.drivers[0]!.manifestPath,
  );
  const cache = env.path("cache");
  const snapshot = env.snapshot();
  const vars = {
    ...snapshot.vars,
    VK_LAYER_PATH: `${snapshot.vars.VK_LAYER_PATH}:${env.path("defective")}`,
    // Only the tree's layers: the host's folders hold other implicit layers.
    XDG_DATA_DIRS: env.path("xdg-data"),
    XDG_CONFIG_DIRS: env.path("xdg-config"),
    VKDENO_CACHE: cache,
  };
  return {
    env,
    explicit: explicit.manifestPath,
    cache,
    vars,
    [Symbol.asyncDispose]: () => env[Symbol.asyncDispose](),
  };
}

/** Only files every user may read are kept: mode 0644 whatever the umask the tests run under. */
function readableByEveryone(...paths: string[]): void {
  for (const path of paths) Deno.chmodSync(path, 0o644);
}

/** Files changed within the racy window are not kept: the tests' manifests must be older than that. */
function olderThanRacyWindow(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, RACY_WINDOW_MS + 100));
}

function entryText(cache: string, entry = "layer-manifests"): string {
  return new TextDecoder().decode(Deno.readFileSync(`${cache}/${entry}`));
}

function writtenAt(cache: string): number[] {
  return ENTRIES.map((e) => Deno.statSync(`${cache}/${e}`).mtime!.getTime());
}

Deno.test("a second process takes the layer manifests from the cache and sees the same layers, records and log", async () => {
  await using t = await layerTree();
  await olderThanRacyWindow();
  const first = await sameAsUncached(t.vars);
  const seen = first.seen as { layers: { name: string }[]; devices: string[] };
  assertEquals(seen.layers.map((l) => l.name), ["VK_LAYER_MOCK_implicit", "VK_LAYER_MOCK_explicit"]);
  assertEquals(seen.devices, ["Alpha"]);
  assert(first.log.includes("NOT_A_LAYER_NAME"), first.log);
  // Kept: each manifest read, under its path.
  const text = entryText(t.cache);
  for (const name of ["VK_LAYER_MOCK_explicit.json", "VK_LAYER_MOCK_implicit.json", "two.json"]) {
    assert(text.includes(name), `${name} not kept`);
  }
  assert(entryText(t.cache, "driver-manifests").includes(t.vars.VK_DRIVER_FILES!));
  assertEquals(lastCacheLog, ""); // the run without the cache says nothing of it
  const written = writtenAt(t.cache);
  assertEquals(await result(spawn(t.vars)), first);
  // The log says both entries were read, in the test's cache folder.
  for (const entry of ENTRIES) assert(lastCacheLog.includes(`${entry} read`), lastCacheLog);
  assert(lastCacheLog.includes(`Persistent cache ${t.cache}: `), lastCacheLog);
  // A process that parsed nothing rewrites nothing.
  assertEquals(writtenAt(t.cache), written);
});

Deno.test("a layer manifest edited after the cache was filled: the edit is seen, same size and time or not", async () => {
  await using t = await layerTree();
  await olderThanRacyWindow();
  await sameAsUncached(t.vars);
  const file = t.explicit;
  const text = Deno.readTextFileSync(file);
  const old = Deno.statSync(file).mtime!;
  // The same length, the old modification time put back: only the change time tells.
  Deno.writeTextFileSync(file, text.replace("vkdeno mock layer", "vkdeno mock LAYER"));
  Deno.utimeSync(file, old, old);
  const edited = await sameAsUncached(t.vars);
  const layers = (edited.seen as { layers: { description: string }[] }).layers;
  assert(
    layers.some((l) => l.description === "vkdeno mock LAYER VK_LAYER_MOCK_explicit"),
    JSON.stringify(layers),
  );
  // Once older than the racy window, the edited file is kept, and taken again.
  await olderThanRacyWindow();
  assertEquals(await sameAsUncached(t.vars), edited);
  assert(entryText(t.cache).includes("vkdeno mock LAYER"));
  assertEquals(await result(spawn(t.vars)), edited);
});

Deno.test("a layer variable changed after the cache was filled: the new value is followed", async () => {
  await using t = await layerTree();
  await t.env.addLayer({ name: "VK_LAYER_MOCK_other" }, { placement: { folder: "other" } });
  await olderThanRacyWindow();
  await sameAsUncached(t.vars);
  const names = async (vars: Record<string, string>) =>
    ((await sameAsUncached(vars)).seen as { layers: { name: string }[] }).layers.map((l) => l.name);
  assertEquals(await names({ ...t.vars, VK_LAYER_PATH: t.env.path("other") }), [
    "VK_LAYER_MOCK_implicit",
    "VK_LAYER_MOCK_other",
  ]);
  assertEquals(await names({ ...t.vars, VK_LOADER_LAYERS_DISABLE: "*implicit" }), ["VK_LAYER_MOCK_explicit"]);
  // The implicit layer found through an explicit folder is another record: explicit, no disable variable.
  const both = `${t.env.path("home/.local/share/vulkan/implicit_layer.d")}:${t.vars.VK_LAYER_PATH}`;
  assertEquals(await names({ ...t.vars, VK_LAYER_PATH: both }), [
    "VK_LAYER_MOCK_implicit",
    "VK_LAYER_MOCK_explicit",
  ]);
});

Deno.test("processes starting at once over an empty cache see the same layers, and leave a whole entry", async () => {
  await using t = await layerTree();
  await olderThanRacyWindow();
  const uncached = await result(spawn({ ...t.vars, VKDENO_CACHE: "0" }));
  const children = [spawn(t.vars), spawn(t.vars), spawn(t.vars)];
  for (const child of children) assertEquals(await result(child), uncached);
  assertEquals([...Deno.readDirSync(t.cache)].filter((e) => e.name.includes(".tmp")), []);
  const kept = ENTRIES.map((e) => entryText(t.cache, e));
  assertEquals(await result(spawn(t.vars)), uncached);
  assertEquals(ENTRIES.map((e) => entryText(t.cache, e)), kept);
});

Deno.test("a corrupt manifest entry is read as none and written again: truncated, overwritten, one byte changed", async () => {
  await using t = await layerTree();
  await olderThanRacyWindow();
  const expected = await sameAsUncached(t.vars);
  const files = ENTRIES.map((e) => `${t.cache}/${e}`);
  const good = files.map((f) => Deno.readFileSync(f));
  const damage: ((bytes: Uint8Array) => Uint8Array)[] = [
    (b) => b.slice(0, b.length >> 1),
    (b) => new Uint8Array(b.length).fill(0x41),
    (b) => {
      const c = b.slice();
      c[c.length - 40] = c[c.length - 40]! ^ 0x01; // inside the records, past the header and key
      return c;
    },
    () => new Uint8Array(0),
  ];
  for (const hurt of damage) {
    files.forEach((f, i) => Deno.writeFileSync(f, hurt(good[i]!)));
    assertEquals(await result(spawn(t.vars)), expected);
    assertEquals(files.map((f) => Deno.readFileSync(f)), good);
  }
});

Deno.test("a read-only cache folder: the same layers and devices, and no manifest entry written", async () => {
  await using t = await layerTree();
  await olderThanRacyWindow();
  for (const folder of ["/proc", "/proc/vkdeno-cache"]) {
    await sameAsUncached({ ...t.vars, VKDENO_CACHE: folder });
  }
  assertEquals([...Deno.readDirSync("/proc")].filter((e) => e.name.endsWith("-manifests")), []);
});

Deno.test("a driver manifest edited after the cache was filled: the edited manifest is followed, same size and time or not", async () => {
  await using t = await layerTree();
  const beta = await t.env.addDriver({ name: "betaa", physicalDevices: [{ name: "Betaa" }] });
  const alpha = t.env.drivers[0]!;
  const manifest = t.env.path("edited/driver.json");
  Deno.mkdirSync(t.env.path("edited"));
  const text = (library: string) =>
    JSON.stringify({ file_format_version: "1.0.1", ICD: { library_path: library, api_version: "1.3.0" } });
  assertEquals(text(alpha.libraryPath).length, text(beta.libraryPath).length);
  Deno.writeTextFileSync(manifest, text(alpha.libraryPath));
  readableByEveryone(manifest);
  const vars = { ...t.vars, VK_DRIVER_FILES: manifest };
  await olderThanRacyWindow();
  assertEquals(((await sameAsUncached(vars)).seen as { devices: string[] }).devices, ["Alpha"]);
  assert(entryText(t.cache, "driver-manifests").includes(manifest));
  const old = Deno.statSync(manifest).mtime!;
  Deno.writeTextFileSync(manifest, text(beta.libraryPath));
  Deno.utimeSync(manifest, old, old);
  assertEquals(((await sameAsUncached(vars)).seen as { devices: string[] }).devices, ["Betaa"]);
});
