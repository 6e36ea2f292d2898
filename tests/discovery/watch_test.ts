/**
 * Drivers and layers that appear while a process runs: `vk.watch()` reports added, removed and edited
 * manifests and settings files in the locations the snapshot uses; `vk.waitForDevices()` resolves when a
 * driver manifest lands in `$XDG_DATA_HOME/vulkan/icd.d` (and `false` on timeout); instances made earlier
 * keep their devices; the watcher does not keep a process alive and stops on dispose.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import type { DiscoveryChange, DiscoveryWatcher } from "../../discovery/watch.ts";
import { diffDiscoveryStates, discoveryState, watchFolders } from "../../discovery/watch.ts";
import { createInstance, load, physicalDevices } from "../support/chain.ts";
import { MockEnvironment } from "../support/mock.ts";
import { REPO_ROOT } from "../support/mock_build.ts";

const TIMEOUT_MS = 10_000;

/** The next batch, or a failure naming what was awaited. */
async function nextBatch(watcher: DiscoveryWatcher, what: string): Promise<DiscoveryChange[]> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`No change batch within ${TIMEOUT_MS} ms: ${what}`)),
      TIMEOUT_MS,
    );
  });
  try {
    const r = await Promise.race([watcher.next(), timeout]);
    assert(!r.done, `the watcher ended while waiting for ${what}`);
    return r.value;
  } finally {
    clearTimeout(timer);
  }
}

function mkdirFor(path: string): void {
  Deno.mkdirSync(path.slice(0, path.lastIndexOf("/")), { recursive: true });
}

Deno.test("watch() yields an added layer manifest, a removed driver manifest and an edited settings file", async () => {
  await using env = await MockEnvironment.create();
  const drv = await env.addDriver({ name: "drv", physicalDevices: [{}] }, {
    placement: { system: "usr/share/vulkan/icd.d" },
  });
  using l = load(env.snapshot());
  const watcher = l.vk.watch({ debounceMs: 50 });
  // A layer folder that does not exist yet: its nearest existing parent is watched.
  const layer = env.path("home/.local/share/vulkan/explicit_layer.d/VkLayer_late.json");
  mkdirFor(layer);
  Deno.writeTextFileSync(
    layer,
    JSON.stringify({
      file_format_version: "1.0.0",
      layer: {
        name: "VK_LAYER_MOCK_late",
        type: "INSTANCE",
        library_path: "libnothing.so",
        api_version: "1.3.0",
        implementation_version: "1",
        description: "late",
      },
    }),
  );
  assertEquals(await nextBatch(watcher, "the added layer"), [
    { kind: "explicit layer", change: "added", path: layer },
  ]);
  Deno.removeSync(drv.manifestPath);
  assertEquals(await nextBatch(watcher, "the removed driver"), [
    { kind: "driver", change: "removed", path: drv.manifestPath },
  ]);
  const settings = env.path("home/.config/vulkan/loader_settings.d/vk_loader_settings.json");
  mkdirFor(settings);
  Deno.writeTextFileSync(
    settings,
    JSON.stringify({ file_format_version: "1.0.0", settings: { stderr_log: [] } }),
  );
  assertEquals(await nextBatch(watcher, "the new settings file"), [
    { kind: "settings", change: "added", path: settings },
  ]);
  Deno.writeTextFileSync(
    settings,
    JSON.stringify({ file_format_version: "1.0.0", settings: { stderr_log: ["error"] } }),
  );
  assertEquals(await nextBatch(watcher, "the edited settings file"), [
    { kind: "settings", change: "edited", path: settings },
  ]);
  // Noise in a watched folder (not a manifest) yields nothing; disposing ends the iteration.
  Deno.writeTextFileSync(env.path("home/.config/vulkan/loader_settings.d/notes.txt"), "x");
  const pending = watcher.next();
  l.vk.dispose();
  assertEquals((await pending).done, true);
  assert(watcher.closed);
});

Deno.test("watch() reports a driver package (VK_LOADER_DRIVER_PACKAGES) added, edited and removed", async () => {
  await using env = await MockEnvironment.create();
  const pkg = env.path("packages/example");
  using l = load(env.snapshot({ VK_LOADER_DRIVER_PACKAGES: pkg }));
  const watcher = l.vk.watch({ debounceMs: 50 });
  const files: Record<string, string> = {
    "lib/libvulkan_example.so": "not loaded by discovery",
    "meta/icd.d/example.json": JSON.stringify({
      file_format_version: "1.0.0",
      ICD: { library_path: "libvulkan_example.so", api_version: "1.3.0" },
    }),
    "meta/metadata/metadata.json": JSON.stringify({
      file_path: "lib/libvulkan_example.so",
      version: 1,
      manifest_path: "meta/icd.d/example.json",
    }),
  };
  for (const [name, text] of Object.entries(files)) {
    mkdirFor(`${pkg}/${name}`);
    Deno.writeTextFileSync(`${pkg}/${name}`, text);
  }
  assertEquals(await nextBatch(watcher, "the new package"), [{
    kind: "driver package",
    change: "added",
    path: pkg,
  }]);
  Deno.writeTextFileSync(
    `${pkg}/meta/icd.d/example.json`,
    JSON.stringify({
      file_format_version: "1.0.0",
      ICD: { library_path: "libvulkan_example.so", api_version: "1.4.0" },
    }),
  );
  assertEquals(await nextBatch(watcher, "the edited package manifest"), [
    { kind: "driver package", change: "edited", path: pkg },
  ]);
  Deno.removeSync(pkg, { recursive: true });
  assertEquals(await nextBatch(watcher, "the removed package"), [
    { kind: "driver package", change: "removed", path: pkg },
  ]);
  watcher.close();
});

Deno.test("waitForDevices resolves true when a driver manifest is copied into $XDG_DATA_HOME/vulkan/icd.d", async () => {
  await using env = await MockEnvironment.create();
  const drv = await env.addDriver({ name: "late", physicalDevices: [{ name: "Late GPU" }] }, {
    placement: "none",
  });
  const dataHome = env.path("xdgdata");
  Deno.mkdirSync(dataHome, { recursive: true });
  const snapshot = env.snapshot({ XDG_DATA_HOME: dataHome });
  using l = load(snapshot);
  let copied = false;
  const copy = setTimeout(() => {
    Deno.mkdirSync(`${dataHome}/vulkan/icd.d`, { recursive: true });
    Deno.copyFileSync(drv.manifestPath, `${dataHome}/vulkan/icd.d/late.json`);
    copied = true;
  }, 300);
  // pollMs far above the timeout: only the watcher can wake the wait up in time.
  const found = await l.vk.waitForDevices({ timeoutMs: TIMEOUT_MS, pollMs: 60_000 });
  clearTimeout(copy);
  assert(found, "waitForDevices gave up");
  assert(copied, "waitForDevices resolved before the manifest was there");
  // At once when a device is there already.
  assertEquals(await l.vk.waitForDevices({ timeoutMs: 0 }), true);
});

Deno.test("waitForDevices resolves false on timeout when no driver appears", async () => {
  await using env = await MockEnvironment.create();
  using l = load(env.snapshot({ XDG_DATA_HOME: env.path("xdgdata") }));
  const started = performance.now();
  assertEquals(await l.vk.waitForDevices({ timeoutMs: 200, pollMs: 50 }), false);
  assert(performance.now() - started >= 150);
});

Deno.test("an instance made before a driver appears keeps its devices; a new one sees the new driver", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "first", physicalDevices: [{ name: "First GPU" }] }, {
    placement: { system: "usr/share/vulkan/icd.d" },
  });
  const late = await env.addDriver({ name: "late", physicalDevices: [{ name: "Late GPU" }] }, {
    placement: "none",
  });
  const dataHome = env.path("xdgdata");
  using l = load(env.snapshot({ XDG_DATA_HOME: dataHome }));
  const before = createInstance(l);
  assertEquals(before.result, 0);
  assertEquals(physicalDevices(l, before.instance).length, 1);
  const watcher = l.vk.watch({ debounceMs: 50 });
  Deno.mkdirSync(`${dataHome}/vulkan/icd.d`, { recursive: true });
  Deno.copyFileSync(late.manifestPath, `${dataHome}/vulkan/icd.d/late.json`);
  const batch = await nextBatch(watcher, "the copied driver manifest");
  assertEquals(batch, [{ kind: "driver", change: "added", path: `${dataHome}/vulkan/icd.d/late.json` }]);
  assertEquals(physicalDevices(l, before.instance).length, 1);
  const after = createInstance(l);
  assertEquals(after.result, 0);
  assertEquals(physicalDevices(l, after.instance).length, 2);
  l.vk.vkDestroyInstance(after.instance, null);
  l.vk.vkDestroyInstance(before.instance, null);
  watcher.close();
});

Deno.test("a script that only iterates vk.watch() still ends on its own", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vkdeno_watch_" });
  try {
    const script = `${dir}/main.ts`;
    Deno.writeTextFileSync(
      script,
      `import { Vulkan } from "${REPO_ROOT}/mod.ts";
const env = { vars: { HOME: "${dir}/home", VK_LAYER_PATH: "${dir}/layers" }, elevated: false, root: "${dir}/root" };
Deno.mkdirSync("${dir}/layers", { recursive: true });
const vk = Vulkan.load({ env });
(async () => {
  for await (const changes of vk.watch({ debounceMs: 20 })) console.log(JSON.stringify(changes));
})();
setTimeout(() => Deno.writeTextFileSync("${dir}/layers/a.json", "{}"), 100);
setTimeout(() => console.log("timer done"), 1000);
`,
    );
    const started = performance.now();
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", script],
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(30_000),
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
    assert(stdout.includes(`"change":"added","path":"${dir}/layers/a.json"`), stdout);
    assert(stdout.trimEnd().endsWith("timer done"), stdout);
    assert(performance.now() - started < 25_000);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("deno task inspect --watch prints the report again with what changed", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vkdeno_inspect_watch_" });
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-env", `${REPO_ROOT}/tools/inspect.ts`, "--watch"],
    // The snapshot's places point into the temp folder; Deno keeps finding its own cache.
    env: {
      DENO_DIR: denoDir(),
      HOME: `${dir}/home`,
      VK_DRIVER_FILES: `${dir}/icd`,
      XDG_CONFIG_HOME: `${dir}/home/.config`,
      XDG_DATA_HOME: `${dir}/home/.local/share`,
      XDG_CONFIG_DIRS: `${dir}/none`,
      XDG_DATA_DIRS: `${dir}/none`,
    },
    stdout: "piped",
    stderr: "null",
  }).spawn();
  try {
    Deno.mkdirSync(`${dir}/icd`, { recursive: true });
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    const deadline = Date.now() + 20_000;
    let wrote = false;
    while (!text.includes(`added driver: ${dir}/icd/new.json`) && Date.now() < deadline) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const quiet = new Promise<{ value: undefined; done: true }>((resolve) => {
        timer = setTimeout(() => resolve({ value: undefined, done: true }), deadline - Date.now());
      });
      const { value, done } = await Promise.race([reader.read(), quiet]);
      clearTimeout(timer);
      if (done) break;
      text += value;
      // Written once the watcher has its baseline (the line comes after it is made).
      if (!wrote && text.includes("for changes (Ctrl+C to stop)")) {
        wrote = true;
        Deno.writeTextFileSync(`${dir}/icd/new.json`, '{"file_format_version":"1.0.0","ICD":{}}');
      }
    }
    reader.releaseLock();
    assert(text.includes(`added driver: ${dir}/icd/new.json`), text);
    // The folders it watches are counted, the driver folder among them.
    const watching = Number(text.match(/Watching (\d+) folder\(s\)/)?.[1]);
    assert(watching > 0, text);
    const after = text.slice(text.indexOf("Changed at"));
    assert(after.includes("vkdeno loader inspect"), "the report is printed again after the change");
    assert(after.includes(`${dir}/icd/new.json`));
  } finally {
    try {
      child.kill();
    } catch {
      // it ended already: the assertion above says why
    }
    await child.status;
    await child.stdout.cancel().catch(() => {});
    Deno.removeSync(dir, { recursive: true });
  }
});

function denoDir(): string {
  const home = Deno.env.get("HOME") ?? "/root";
  return Deno.env.get("DENO_DIR") ?? `${Deno.env.get("XDG_CACHE_HOME") ?? `${home}/.cache`}/deno`;
}

Deno.test("editing a TypeScript layer's module edits its layer, and the module's folder is watched", () => {
  const dir = Deno.makeTempDirSync({ prefix: "vkdeno_watch_module_" });
  try {
    Deno.mkdirSync(`${dir}/manifests`);
    Deno.mkdirSync(`${dir}/src`);
    Deno.writeTextFileSync(`${dir}/src/mine.ts`, "export default 1;\n");
    Deno.writeTextFileSync(
      `${dir}/manifests/mine.json`,
      JSON.stringify({
        file_format_version: "1.2.0",
        layer: {
          name: "VK_LAYER_test_mine",
          type: "GLOBAL",
          library_path: "../src/mine.ts",
          api_version: "1.3.0",
          implementation_version: "1",
          description: "mine",
        },
      }),
    );
    const env = { vars: { VK_LAYER_PATH: `${dir}/manifests` }, elevated: false, root: `${dir}/root` };
    const src = Deno.realPathSync(`${dir}/src`);
    assert(watchFolders(env).some((f) => Deno.realPathSync(f) === src), watchFolders(env).join(" "));
    const before = discoveryState(env);
    Deno.writeTextFileSync(`${dir}/src/mine.ts`, "export default 22;\n");
    assertEquals(diffDiscoveryStates(before, discoveryState(env)), [
      { kind: "explicit layer", change: "edited", path: `${dir}/manifests/mine.json` },
    ]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
