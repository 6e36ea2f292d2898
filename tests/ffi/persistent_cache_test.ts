/**
 * The persistent cache (ffi/persistent_cache.ts) never serves what a process without it would not get: a first
 * instance after a manifest is edited, a driver replaced, an environment variable changed, with two processes
 * starting at once, over a corrupt entry or a read-only folder gives what `VKDENO_CACHE=0` gives; and the
 * rules of its folder and entries.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { cachedBytesIn } from "../../ffi/persistent_cache.ts";
import { emitterIdentity } from "../../ffi/dispatch.ts";
import { cacheFolderOf, hasX86_64Helpers } from "../../ffi/host.ts";
import { MockEnvironment } from "../support/mock.ts";
import { DENO_DIR } from "../support/deno_dir.ts";

const CHILD = new URL("../support/cache_child.ts", import.meta.url).pathname;

interface FirstInstance {
  devices: string[];
  native: boolean;
}

/** Runs the child with exactly `vars` (nothing inherited but PATH and DENO_DIR), with every permission by default. */
function spawn(vars: Record<string, string>, permissions = ["--allow-all"]): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", ...permissions, CHILD],
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", DENO_DIR, ...vars },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

async function result(child: Deno.ChildProcess): Promise<FirstInstance> {
  const out = await child.output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) throw new Error(`cache child failed:\n${text}\n${new TextDecoder().decode(out.stderr)}`);
  return JSON.parse(text.trim().split("\n").at(-1)!) as FirstInstance;
}

function firstInstance(vars: Record<string, string>): Promise<FirstInstance> {
  return result(spawn(vars));
}

/** A tree with drivers "alpha" and "beta" (one device each, named so) and a cache folder of its own. */
async function twoDrivers(): Promise<
  { env: MockEnvironment; cache: string; vars: Record<string, string> } & AsyncDisposable
> {
  const env = await MockEnvironment.create();
  await env.addDriver({ name: "alpha", physicalDevices: [{ name: "Alpha" }] });
  await env.addDriver({ name: "beta", physicalDevices: [{ name: "Beta" }] });
  const cache = env.path("cache");
  const vars = { HOME: env.path("home"), VKDENO_CACHE: cache };
  return { env, cache, vars, [Symbol.asyncDispose]: () => env[Symbol.asyncDispose]() };
}

/** The stub objects' entries, named by kind and architecture (the set-loader-data one on x86-64). */
const STUB_ENTRIES = hasX86_64Helpers()
  ? ["stubs-dispatch", "stubs-loader-data", "stubs-unwrap"]
  : ["stubs-dispatch", "stubs-unwrap"];
const kind = (name: string) => name.replace(/-(x86_64|aarch64)$/, "");

/** The first instance with the cache, checked against the same run without it; returns it. */
async function sameAsUncached(vars: Record<string, string>): Promise<FirstInstance> {
  const cached = await firstInstance(vars);
  const uncached = await firstInstance({ ...vars, VKDENO_CACHE: "0" });
  assertEquals(cached, uncached);
  return cached;
}

/**
 * The file names in `cache` but the manifests' entries (tests/discovery/persistent_manifests_test.ts: what the
 * children here parse depends on the host's layer folders and on their manifests' age).
 */
function entries(cache: string): string[] {
  try {
    return [...Deno.readDirSync(cache)].map((e) => e.name).filter((n) => !n.includes("-manifests"))
      .sort();
  } catch {
    return [];
  }
}

Deno.test("a second process takes the stub objects from the cache, and gets the same first instance", async () => {
  await using t = await twoDrivers();
  const vars = { ...t.vars, VK_DRIVER_FILES: t.env.drivers[0]!.manifestPath };
  assertEquals(await sameAsUncached(vars), { devices: ["Alpha"], native: true });
  assertEquals(entries(t.cache).map(kind), STUB_ENTRIES);
  const written = entries(t.cache).map((n) => Deno.statSync(`${t.cache}/${n}`).mtime!.getTime());
  assertEquals(await firstInstance(vars), { devices: ["Alpha"], native: true });
  // A hit rewrites nothing.
  assertEquals(entries(t.cache).map((n) => Deno.statSync(`${t.cache}/${n}`).mtime!.getTime()), written);
});

Deno.test("a manifest edited after the cache was filled: the edited manifest is followed", async () => {
  await using t = await twoDrivers();
  const [alpha, beta] = t.env.drivers;
  const manifest = t.env.path("manifests/edited.json");
  const write = (library: string) =>
    Deno.writeTextFileSync(
      manifest,
      JSON.stringify({ file_format_version: "1.0.1", ICD: { library_path: library, api_version: "1.3.0" } }),
    );
  write(alpha!.libraryPath);
  const vars = { ...t.vars, VK_DRIVER_FILES: manifest };
  assertEquals((await sameAsUncached(vars)).devices, ["Alpha"]);
  write(beta!.libraryPath);
  assertEquals((await sameAsUncached(vars)).devices, ["Beta"]);
});

Deno.test("a driver replaced at the same path after the cache was filled: the new driver is loaded", async () => {
  await using t = await twoDrivers();
  const [alpha, beta] = t.env.drivers;
  const vars = { ...t.vars, VK_DRIVER_FILES: alpha!.manifestPath };
  assertEquals((await sameAsUncached(vars)).devices, ["Alpha"]);
  // Another library and its configuration where alpha's were (written to a new file, then renamed: a
  // package upgrade's way, which leaves a process that mapped the old file unharmed).
  for (const [from, to] of [[beta!.libraryPath, alpha!.libraryPath], [beta!.configPath, alpha!.configPath]]) {
    Deno.copyFileSync(from!, `${to}.new`);
    Deno.renameSync(`${to}.new`, to!);
  }
  assertEquals((await sameAsUncached(vars)).devices, ["Beta"]);
});

Deno.test("an environment variable changed after the cache was filled: the new value is followed", async () => {
  await using t = await twoDrivers();
  const [alpha, beta] = t.env.drivers;
  assertEquals((await sameAsUncached({ ...t.vars, VK_DRIVER_FILES: alpha!.manifestPath })).devices, [
    "Alpha",
  ]);
  assertEquals((await sameAsUncached({ ...t.vars, VK_DRIVER_FILES: beta!.manifestPath })).devices, ["Beta"]);
  const both = `${alpha!.manifestPath}:${beta!.manifestPath}`;
  assertEquals((await sameAsUncached({ ...t.vars, VK_DRIVER_FILES: both })).devices.sort(), [
    "Alpha",
    "Beta",
  ]);
});

Deno.test("processes starting at once over an empty cache all get the same first instance, and leave whole entries", async () => {
  await using t = await twoDrivers();
  const vars = { ...t.vars, VK_DRIVER_FILES: t.env.drivers[0]!.manifestPath };
  const uncached = await firstInstance({ ...vars, VKDENO_CACHE: "0" });
  const children = [spawn(vars), spawn(vars), spawn(vars)];
  for (const child of children) assertEquals(await result(child), uncached);
  // Only the stub entries: every writer's temp file was renamed over them or removed.
  assertEquals(entries(t.cache).map(kind), STUB_ENTRIES);
  const kept = entries(t.cache).map((n) => Deno.readFileSync(`${t.cache}/${n}`));
  assertEquals(await firstInstance(vars), uncached);
  // The next process found them whole: it wrote nothing new.
  assertEquals(entries(t.cache).map((n) => Deno.readFileSync(`${t.cache}/${n}`)), kept);
});

Deno.test("a corrupt cache entry is made again: truncated, overwritten or one byte changed", async () => {
  await using t = await twoDrivers();
  const vars = { ...t.vars, VK_DRIVER_FILES: t.env.drivers[0]!.manifestPath };
  const expected = await sameAsUncached(vars);
  const names = entries(t.cache);
  const good = names.map((n) => Deno.readFileSync(`${t.cache}/${n}`));
  const damage: ((bytes: Uint8Array) => Uint8Array)[] = [
    (b) => b.slice(0, b.length >> 1),
    (b) => new Uint8Array(b.length).fill(0x41),
    (b) => {
      const c = b.slice();
      c[c.length - 100] = c[c.length - 100]! ^ 0x10; // inside the stub code or tables, past the header and key
      return c;
    },
    () => new Uint8Array(0),
  ];
  for (const hurt of damage) {
    names.forEach((n, i) => Deno.writeFileSync(`${t.cache}/${n}`, hurt(good[i]!)));
    assertEquals(await firstInstance(vars), expected);
    // Made again and written whole.
    assertEquals(names.map((n) => Deno.readFileSync(`${t.cache}/${n}`)), good);
  }
});

Deno.test("a read-only cache folder: the first instance is the same, and nothing is written", async () => {
  await using t = await twoDrivers();
  const base = { ...t.vars, VK_DRIVER_FILES: t.env.drivers[0]!.manifestPath };
  // /proc refuses new files to every user, root too (a chmod would not stop root).
  for (const folder of ["/proc", "/proc/vkdeno-cache"]) {
    assertEquals(await sameAsUncached({ ...base, VKDENO_CACHE: folder }), {
      devices: ["Alpha"],
      native: true,
    });
  }
  assertEquals(entries("/proc").filter((n) => n.startsWith("stubs-")), []);
});

/**
 * What the log (`VK_LOADER_DEBUG=info`) of one first instance says of the cache: each entry named once, with
 * what became of it, and under `why` what the lines add after `; ` (why the folder was not used or written);
 * the lines must all name `folder`.
 */
async function cacheUses(
  vars: Record<string, string>,
  folder: string,
  permissions?: string[],
): Promise<Record<string, string>> {
  const out = await spawn({ ...vars, VK_LOADER_DEBUG: "info" }, permissions).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert(out.success, stderr);
  const uses: Record<string, string> = {};
  for (const line of stderr.split("\n").filter((l) => l.includes("Persistent cache"))) {
    const [, at, text] = line.match(/^INFO: +Persistent cache ([^:]*): (.*)$/) ?? [];
    assertEquals(at, folder, line);
    // A folder not used at all has its reason alone.
    const [list, ...whys] = text!.startsWith("not used") ? ["", text!] : text!.split("; ");
    if (whys.length > 0) {
      assert(!("why" in uses), `a reason given twice:\n${stderr}`);
      uses.why = whys.join("; ");
    }
    for (const use of list === "" ? [] : list!.split(", ")) {
      const [name, what] = [use.slice(0, use.indexOf(" ")), use.slice(use.indexOf(" ") + 1)];
      assert(!(name in uses), `${name} named twice:\n${stderr}`);
      uses[name] = what;
    }
  }
  return uses;
}

/** The stub entries' uses, by kind (the manifests' depend on the host's layer folders and the files' age). */
function stubUses(uses: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(uses).filter(([n]) => n.startsWith("stubs-")).map(([n, u]) => [kind(n), u]),
  );
}

Deno.test("the log says, once per entry and process, with the folder, which entries were written, read or could not be written", async () => {
  await using t = await twoDrivers();
  const vars = { ...t.vars, VK_DRIVER_FILES: t.env.drivers[0]!.manifestPath };
  const all = (use: string) => Object.fromEntries(STUB_ENTRIES.map((n) => [n, use]));
  assertEquals(stubUses(await cacheUses(vars, t.cache)), all("written"));
  assertEquals(stubUses(await cacheUses(vars, t.cache)), all("read"));
  assertEquals(stubUses(await cacheUses({ ...vars, VKDENO_CACHE: "/proc" }, "/proc")), all("not written"));
  assertEquals(await cacheUses({ ...vars, VKDENO_CACHE: "0" }, t.cache), {});
});

Deno.test("without --allow-write the entries are read, or made and not written, and the log says why once; without --allow-read for the folder it says the cache is not used", async () => {
  await using t = await twoDrivers();
  const vars = { ...t.vars, VK_DRIVER_FILES: t.env.drivers[0]!.manifestPath };
  const all = (use: string) => Object.fromEntries(STUB_ENTRIES.map((n) => [n, use]));
  const noWrite = ["--allow-ffi", "--allow-env", "--allow-read"];
  const why = `none written (no write permission: run deno with --allow-write or --allow-write=${t.cache})`;
  const first = await cacheUses(vars, t.cache, noWrite);
  assertEquals(first.why, why);
  assertEquals(stubUses(first), all("not written"));
  assertEquals(entries(t.cache), []);
  assertEquals(stubUses(await cacheUses(vars, t.cache)), all("written"));
  const read = await cacheUses(vars, t.cache, noWrite);
  assertEquals([read.why, stubUses(read)], [undefined, all("read")]);
  // Read access to the driver's manifest and library only: the cache folder's permission is missing.
  const driverOnly = ["--allow-ffi", "--allow-env", `--allow-read=${t.env.root}/manifests,${t.env.root}/lib`];
  assertEquals(await cacheUses(vars, t.cache, driverOnly), {
    why: `not used (no read permission: run deno with --allow-read or --allow-read=${t.cache})`,
  });
});

Deno.test("cachedBytesIn: a hit needs the same key; a miss makes and keeps; a folder it cannot write is only skipped", async () => {
  const folder = await Deno.makeTempDir({ prefix: "vkdeno_cache_" });
  try {
    let made = 0;
    const make = (n: number) => () => (made++, new Uint8Array([n, 2, 3, 4, 5]));
    assertEquals(cachedBytesIn(folder, "e", "key 1", make(1)), new Uint8Array([1, 2, 3, 4, 5]));
    assertEquals(cachedBytesIn(folder, "e", "key 1", make(9)), new Uint8Array([1, 2, 3, 4, 5]));
    assertEquals(made, 1);
    assertEquals(cachedBytesIn(folder, "e", "key 2", make(7)), new Uint8Array([7, 2, 3, 4, 5]));
    assertEquals(made, 2);
    assertEquals(cachedBytesIn(undefined, "e", "key 2", make(8)), new Uint8Array([8, 2, 3, 4, 5]));
    assertEquals(cachedBytesIn("/proc/vkdeno-cache", "e", "key 2", make(6)), new Uint8Array([6, 2, 3, 4, 5]));
    assertEquals(made, 4);
    assertEquals(entries(folder), ["e"]);
    // Each byte of the payload counts, the 5th (past the last whole word) too.
    for (const at of [1, 4]) {
      const file = Deno.readFileSync(`${folder}/e`);
      file[file.length - 5 + at] = file[file.length - 5 + at]! ^ 1;
      Deno.writeFileSync(`${folder}/e`, file);
      assertEquals(cachedBytesIn(folder, "e", "key 2", make(5)), new Uint8Array([5, 2, 3, 4, 5]));
    }
    assertEquals(made, 6);
  } finally {
    Deno.removeSync(folder, { recursive: true });
  }
});

Deno.test("the cache folder: VKDENO_CACHE, else the platform's cache folder; 0 or relative paths turn it off or are ignored", () => {
  const of = (vars: Record<string, string>, os = "linux") => cacheFolderOf((n) => vars[n], { os });
  assertEquals(of({ HOME: "/home/ada" }), "/home/ada/.cache/vkdeno");
  assertEquals(of({ HOME: "/home/ada", XDG_CACHE_HOME: "/var/cache/ada/" }), "/var/cache/ada/vkdeno");
  assertEquals(of({ HOME: "/home/ada", XDG_CACHE_HOME: "relative" }), "/home/ada/.cache/vkdeno");
  assertEquals(of({ HOME: "/home/ada", VKDENO_CACHE: "/tmp/c" }), "/tmp/c");
  assertEquals(of({ HOME: "/home/ada", VKDENO_CACHE: "relative" }), "/home/ada/.cache/vkdeno");
  for (const off of ["0", "off", "false", "OFF"]) {
    assertEquals(of({ HOME: "/home/ada", VKDENO_CACHE: off }), undefined);
  }
  assertEquals(of({}), undefined);
  assertEquals(of({ HOME: "/Users/ada" }, "darwin"), "/Users/ada/Library/Caches/vkdeno");
  assertEquals(
    of({ LOCALAPPDATA: "C:\\Users\\ada\\AppData\\Local" }, "windows"),
    "C:\\Users\\ada\\AppData\\Local\\vkdeno",
  );
  assert(of({ HOME: "/home/ada" }, "freebsd") === "/home/ada/.cache/vkdeno");
});

Deno.test("the stub entries' key names the emitter's source files, each of which exists", () => {
  // A file renamed or removed would stamp as missing, and its later edits would not change the key.
  const lines = emitterIdentity().trim().split("\n");
  assertEquals(lines.length, 5);
  for (const line of lines) assert(!line.includes("@!"), `missing emitter file: ${line}`);
});
