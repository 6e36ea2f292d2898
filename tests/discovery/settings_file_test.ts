/**
 * The loader settings file (`vk_loader_settings.json`, what vkconfig writes): where it is found, which
 * entry applies, what `layers` (on / off / auto / unordered_layer_location), `stderr_log` and
 * `additional_drivers` do, environment variables against the file, and bad files. Checked against the
 * current Khronos loader's documented and coded behaviour (docs/behaviour.md G05 to G09): Debian's
 * libvulkan1 1.3.239 predates the file, and the last test shows it ignores it.
 */

import { deepStrictEqual as assertEquals, match as assertMatch, ok as assert } from "node:assert/strict";
import { readLoaderSettings } from "../../discovery/settings_file.ts";
import { discoverLayers } from "../../discovery/layers.ts";
import { discoverDrivers } from "../../discovery/drivers.ts";
import { buildInspectReport, formatInspectReport } from "../../discovery/inspect.ts";
import type { EnvironmentSnapshot } from "../../discovery/environment.ts";
import { createInstance, load, physicalDevices } from "../support/chain.ts";
import { MockEnvironment } from "../support/mock.ts";
import { LOG_BITS, Logger } from "../../loading/log.ts";
import { loaderOf, Vulkan } from "../../vulkan.ts";
import { TempTree } from "../support/discovery_tree.ts";

const FILE = "vulkan/loader_settings.d/vk_loader_settings.json";
const EXE = "/opt/app/bin/game";

function settingsText(settings: unknown, key: "settings" | "settings_array" = "settings"): string {
  return JSON.stringify({ file_format_version: "1.0.0", [key]: settings }, null, 2);
}

/** Writes the settings file under $HOME/.local/share of a mock environment. */
function writeSettings(env: MockEnvironment, text: string): string {
  const path = env.path(`home/.local/share/${FILE}`);
  Deno.mkdirSync(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  Deno.writeTextFileSync(path, text);
  return path;
}

function withExe(snapshot: EnvironmentSnapshot, exe = EXE): EnvironmentSnapshot {
  return { ...snapshot, executablePaths: [exe] };
}

/** Who logged vkCreateInstance, in call order (layers first, then the driver). */
function chainOrder(env: MockEnvironment): string[] {
  return env.callLog().filter((l) => l.split(" ")[1] === "vkCreateInstance").map((l) => l.split(" ")[0]!);
}

function instanceChain(env: MockEnvironment, snapshot: EnvironmentSnapshot, layers: string[] = []): string[] {
  env.clearCallLog();
  using l = load(snapshot);
  const { result, instance } = createInstance(l, { layers });
  assertEquals(result, 0, l.lines.join("\n"));
  l.vk.vkDestroyInstance(instance, null);
  return chainOrder(env);
}

Deno.test("settings file locations: first existing file wins, in the documented order; user files dropped when elevated", () => {
  using tree = new TempTree();
  const vars = {
    XDG_CONFIG_HOME: tree.path("cfg"),
    XDG_DATA_HOME: tree.path("data"),
    HOME: tree.path("home"),
    XDG_CONFIG_DIRS: tree.path("xdgcfg"),
    XDG_DATA_DIRS: tree.path("xdgdata"),
  };
  const places = ["cfg", "data", "home/.config", "home/.local/share", "xdgcfg", "root/etc", "xdgdata"];
  const snapshot = (elevated = false) => ({ vars, elevated, root: tree.path("root") });
  assertEquals(
    readLoaderSettings(snapshot()).searched.map((l) => l.path),
    places.map((p) => tree.path(`${p}/${FILE}`)),
  );
  // Fill from the last place to the first: each new file takes over.
  for (const place of [...places].reverse()) {
    tree.add({ [`${place}/${FILE}`]: settingsText({ stderr_log: ["error"] }) });
    const r = readLoaderSettings(snapshot());
    assertEquals(r.settings?.path, tree.path(`${place}/${FILE}`));
    assertEquals(r.searched.filter((l) => l.status === "used").length, 1);
  }
  // Elevated: the variables read as unset; the system defaults (under root) remain.
  const elevated = readLoaderSettings(snapshot(true));
  assertEquals(elevated.settings?.path, tree.path(`root/etc/${FILE}`));
  assert(elevated.searched.every((l) => !l.path.startsWith(tree.path("cfg"))));
  assert(elevated.searched.every((l) => !l.path.startsWith(tree.path("home"))));
  assertEquals(elevated.searched.at(-1)?.path, tree.path(`root/usr/share/${FILE}`));
});

Deno.test("app_keys: the entry naming this executable wins over the global one; no match takes the global one", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "drv", physicalDevices: [{}] });
  const a = await env.addLayer({ name: "VK_LAYER_MOCK_a" }, { placement: "none" });
  const b = await env.addLayer({ name: "VK_LAYER_MOCK_b" }, { placement: "none" });
  writeSettings(
    env,
    settingsText([
      { layers: [{ control: "on", name: a.name, path: a.manifestPath }] },
      { app_keys: ["/other/app", EXE], layers: [{ control: "on", name: b.name, path: b.manifestPath }] },
    ], "settings_array"),
  );
  const matched = readLoaderSettings(withExe(env.snapshot()));
  assertEquals(matched.settings?.entryIndex, 1);
  assertEquals(matched.settings?.matchedAppKey, EXE);
  assertEquals(instanceChain(env, withExe(env.snapshot())), ["VK_LAYER_MOCK_b", "drv"]);
  // Another executable: the global entry.
  assertEquals(readLoaderSettings(withExe(env.snapshot(), "/usr/bin/deno")).settings?.entryIndex, 0);
  assertEquals(instanceChain(env, withExe(env.snapshot(), "/usr/bin/deno")), ["VK_LAYER_MOCK_a", "drv"]);
  // Only application entries, none matching: no settings active, discovery as usual.
  writeSettings(
    env,
    settingsText(
      [{ app_keys: [EXE], layers: [{ control: "on", name: b.name, path: b.manifestPath }] }],
      "settings_array",
    ),
  );
  const none = readLoaderSettings(withExe(env.snapshot(), "/usr/bin/deno"));
  assertEquals(none.settings, undefined);
  assertMatch(
    none.searched.find((l) => l.status === "skipped")?.reason ?? "",
    /no "app_keys" names this process/,
  );
  assertEquals(instanceChain(env, withExe(env.snapshot(), "/usr/bin/deno")), ["drv"]);
});

Deno.test("layers on / off / auto: on always loads, off hides even a found implicit layer, auto follows the usual rules", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "drv", physicalDevices: [{}] });
  const on = await env.addLayer({ name: "VK_LAYER_MOCK_on" }, { placement: "none" });
  const autoExplicit = await env.addLayer({ name: "VK_LAYER_MOCK_auto" }, { placement: "none" });
  const implicit = await env.addLayer({ name: "VK_LAYER_MOCK_implicit" }, { implicit: true });
  const offImplicit = await env.addLayer({ name: "VK_LAYER_MOCK_off" }, { implicit: true });
  writeSettings(
    env,
    settingsText({
      layers: [
        { control: "auto", name: autoExplicit.name, path: autoExplicit.manifestPath },
        { control: "off", name: offImplicit.name, path: offImplicit.manifestPath },
        { control: "on", name: on.name, path: on.manifestPath },
        {
          control: "auto",
          name: implicit.name,
          path: implicit.manifestPath,
          treat_as_implicit_manifest: true,
        },
      ],
    }),
  );
  const snap = env.snapshot();
  const found = discoverLayers(snap);
  assertEquals(found.layers.map((l) => l.name), [autoExplicit.name, on.name, implicit.name]);
  assertEquals(
    found.candidates.find((c) => c.name === offImplicit.name && c.source !== "loader settings file")?.status,
    "disabled",
  );
  // auto explicit: off unless asked for; on: loaded; auto implicit: its variables say on.
  assertEquals(instanceChain(env, snap), [on.name, implicit.name, "drv"]);
  // Asked for by the application: it takes its settings position (first).
  assertEquals(instanceChain(env, snap, [autoExplicit.name]), [
    autoExplicit.name,
    on.name,
    implicit.name,
    "drv",
  ]);
  // The implicit layer's disable variable turns the auto entry off; "on" ignores nothing of that kind.
  assertEquals(
    instanceChain(env, env.snapshot({ [`VK_MOCK_DISABLE_${implicit.name}`]: "1" })),
    [on.name, "drv"],
  );
  // An off layer cannot be requested.
  using l = load(snap);
  assertEquals(createInstance(l, { layers: [offImplicit.name] }).result, -6);
});

Deno.test("unordered_layer_location: found layers the list does not name go at its place; without it they are dropped", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "drv", physicalDevices: [{}] });
  const first = await env.addLayer({ name: "VK_LAYER_MOCK_first" }, { placement: "none" });
  const last = await env.addLayer({ name: "VK_LAYER_MOCK_last" }, { placement: "none" });
  const found1 = await env.addLayer({ name: "VK_LAYER_MOCK_found1" }, { implicit: true });
  const found2 = await env.addLayer({ name: "VK_LAYER_MOCK_found2" }, { implicit: true });
  const entry = (l: { name: string; manifestPath: string }) => ({
    control: "on",
    name: l.name,
    path: l.manifestPath,
  });
  writeSettings(
    env,
    settingsText({ layers: [entry(first), { control: "unordered_layer_location" }, entry(last)] }),
  );
  assertEquals(discoverLayers(env.snapshot()).layers.map((l) => l.name), [
    first.name,
    found1.name,
    found2.name,
    last.name,
  ]);
  assertEquals(instanceChain(env, env.snapshot()), [first.name, found1.name, found2.name, last.name, "drv"]);
  // The same list without the placeholder replaces discovery.
  writeSettings(env, settingsText({ layers: [entry(first), entry(last)] }));
  const replaced = discoverLayers(env.snapshot());
  assertEquals(replaced.layers.map((l) => l.name), [first.name, last.name]);
  assertMatch(
    replaced.candidates.find((c) => c.name === found1.name)?.reason ?? "",
    /has no "unordered_layer_location" entry/,
  );
  assertEquals(instanceChain(env, env.snapshot()), [first.name, last.name, "drv"]);
  // An empty list: no layers at all.
  writeSettings(env, settingsText({ layers: [] }));
  assertEquals(discoverLayers(env.snapshot()).layers, []);
  assertEquals(instanceChain(env, env.snapshot()), ["drv"]);
});

Deno.test("environment variables against the file: disable filter stops auto but not on, VK_INSTANCE_LAYERS enables auto, stderr_log", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "drv", physicalDevices: [{}] });
  const on = await env.addLayer({ name: "VK_LAYER_MOCK_on" }, { placement: "none" });
  const auto = await env.addLayer({ name: "VK_LAYER_MOCK_auto" }, { placement: "none" });
  writeSettings(
    env,
    settingsText({
      stderr_log: ["error"],
      layers: [
        { control: "auto", name: auto.name, path: auto.manifestPath },
        { control: "on", name: on.name, path: on.manifestPath },
      ],
    }),
  );
  assertEquals(
    instanceChain(env, env.snapshot({ VK_INSTANCE_LAYERS: auto.name })),
    [auto.name, on.name, "drv"],
  );
  assertEquals(
    instanceChain(env, env.snapshot({ VK_LOADER_LAYERS_ENABLE: "*auto" })),
    [auto.name, on.name, "drv"],
  );
  assertEquals(
    instanceChain(env, env.snapshot({ VK_INSTANCE_LAYERS: auto.name, VK_LOADER_LAYERS_DISABLE: "*" })),
    [on.name, "drv"],
  );
  // stderr_log replaces VK_LOADER_DEBUG's filter (the Khronos loader's rule): the loader's own log takes
  // the settings file's bits, and a log given them prints only errors.
  const snapshot = env.snapshot({ VK_LOADER_DEBUG: "all" });
  using vk = Vulkan.load({ env: snapshot });
  assertEquals(loaderOf(vk).log.mask, LOG_BITS.error);
  const lines: string[] = [];
  const logger = new Logger(snapshot, {
    write: (l) => lines.push(l),
    settingsLogMask: loaderOf(vk).log.mask,
  });
  logger.info("an info line");
  logger.error("an error line");
  assertEquals(lines.length, 1);
  assertMatch(lines[0]!, /ERROR: +an error line/);
});

Deno.test("a malformed settings file is named with its reason, no settings apply, and the next location is not used", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "drv", physicalDevices: [{}] });
  const layer = await env.addLayer({ name: "VK_LAYER_MOCK_found" }, { implicit: true });
  // A good file later in the search order must not be used instead.
  const etc = env.path(`root/etc/${FILE}`);
  Deno.mkdirSync(etc.slice(0, etc.lastIndexOf("/")), { recursive: true });
  Deno.writeTextFileSync(etc, settingsText({ layers: [] }));
  const cases: [string, RegExp][] = [
    ["{ not json", /not valid JSON/],
    [JSON.stringify({ settings: { layers: [] } }), /"file_format_version" is missing/],
    [
      JSON.stringify({ file_format_version: 1, settings: {} }),
      /"file_format_version" is a number, not a string/,
    ],
    [JSON.stringify({ file_format_version: "1.0.0" }), /neither "settings" nor "settings_array"/],
    [settingsText({ layers: [{ control: "on", path: "/x.json" }] }), /"settings.layers\[0\].name" is/],
    [settingsText({ layers: "all" }), /"settings.layers" is a string, not an array/],
  ];
  for (const [text, reason] of cases) {
    const path = writeSettings(env, text);
    const r = readLoaderSettings(env.snapshot());
    assertEquals(r.settings, undefined, text);
    const bad = r.searched.find((l) => l.status === "skipped");
    assertEquals(bad?.path, path);
    assertMatch(bad?.reason ?? "", reason);
    assert(r.messages.some((m) => m.text.includes(path) && reason.test(m.text)), text);
    assertEquals(r.searched.find((l) => l.path === etc)?.status, "not searched");
    // Discovery as if there were no file: the implicit layer loads.
    assertEquals(instanceChain(env, env.snapshot()), [layer.name, "drv"]);
  }
  // The inspect report names the file and the reason.
  const text = formatInspectReport(buildInspectReport(env.snapshot()));
  assertMatch(text, /Loader settings file: 0 used, 1 skipped/);
  assertMatch(text, /no loader settings are active: .*"settings.layers" is a string/);
});

Deno.test("a layer entry whose manifest names another layer, or cannot be read, is dropped with a reason", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "drv", physicalDevices: [{}] });
  const real = await env.addLayer({ name: "VK_LAYER_MOCK_real" }, { placement: "none" });
  writeSettings(
    env,
    settingsText({
      layers: [
        { control: "on", name: "VK_LAYER_MOCK_other", path: real.manifestPath },
        { control: "on", name: "VK_LAYER_MOCK_gone", path: env.path("missing.json") },
        { control: "on", name: real.name, path: real.manifestPath },
      ],
    }),
  );
  const found = discoverLayers(env.snapshot());
  const outcomes = found.settingsLayers?.outcomes ?? [];
  assertEquals(outcomes.map((o) => o.status), ["skipped", "skipped", "used"]);
  assertMatch(outcomes[0]!.reason, /names "VK_LAYER_MOCK_real", not "VK_LAYER_MOCK_other"/);
  assertEquals(outcomes[1]!.reason, "file does not exist");
  assertEquals(instanceChain(env, env.snapshot()), [real.name, "drv"]);
  const report = formatInspectReport(buildInspectReport(env.snapshot()));
  assertMatch(report, /"VK_LAYER_MOCK_other" on: the manifest names "VK_LAYER_MOCK_real"/);
  assertMatch(report, /"VK_LAYER_MOCK_real" on: on: always enabled/);
});

Deno.test("additional_drivers come before every other driver; use_exclusively keeps only them", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "system", physicalDevices: [{ name: "System GPU" }] }, {
    placement: { system: "usr/share/vulkan/icd.d" },
  });
  const extra = await env.addDriver({ name: "extra", physicalDevices: [{ name: "Extra GPU" }] }, {
    placement: "none",
  });
  writeSettings(env, settingsText({ additional_drivers: [{ path: extra.manifestPath }] }));
  const names = (snapshot: EnvironmentSnapshot) => discoverDrivers(snapshot).drivers.map((d) => d.fileName);
  assertEquals(names(env.snapshot()), ["extra.json", "system.json"]);
  assertEquals(discoverDrivers(env.snapshot()).drivers[0]?.origin.source, "loader settings file");
  writeSettings(
    env,
    settingsText({
      additional_drivers_use_exclusively: true,
      additional_drivers: [{ path: extra.manifestPath }],
    }),
  );
  assertEquals(names(env.snapshot()), ["extra.json"]);
  using l = load(env.snapshot());
  const { result, instance } = createInstance(l);
  assertEquals(result, 0);
  assertEquals(physicalDevices(l, instance).length, 1);
  l.vk.vkDestroyInstance(instance, null);
  // The driver filters still apply to them.
  assertEquals(names(env.snapshot({ VK_LOADER_DRIVERS_DISABLE: "extra*" })), []);
});

Deno.test("Debian's libvulkan1 1.3.239 does not read the settings file (it predates it); vkdeno does", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "drv", variant: "export", physicalDevices: [{ name: "Mock" }] });
  const layer = await env.addLayer({ name: "VK_LAYER_MOCK_settings" }, { placement: "none" });
  writeSettings(
    env,
    settingsText({ layers: [{ control: "on", name: layer.name, path: layer.manifestPath }] }),
  );
  // XDG_DATA_HOME is tried by both loaders' search (when they have one); HOME covers the older rule.
  const snapshot = env.snapshot();
  env.clearCallLog();
  const out = await new Deno.Command(env.build.programs.khronos_client, {
    clearEnv: true,
    env: {
      ...snapshot.vars,
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      VK_LOADER_LAYERS_DISABLE: "~implicit~",
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
  assertEquals(env.callLog().filter((l) => l.startsWith(layer.name)), []);
  assertEquals(instanceChain(env, snapshot), [layer.name, "drv"]);
});

Deno.test("one message per fault: a bad settings file is warned about once until it changes", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "drv", physicalDevices: [{}] });
  const path = writeSettings(env, "{ not json");
  using l = load(env.snapshot({ VK_LOADER_DEBUG: "warn" }));
  const warnings = () => l.lines.filter((x) => x.includes(`Loader settings file "${path}" not used`));
  for (let i = 0; i < 3; i++) {
    const { result, instance } = createInstance(l);
    assertEquals(result, 0);
    l.vk.vkDestroyInstance(instance, null);
  }
  assertEquals(warnings().length, 1, l.lines.join("\n"));
  // Changed (still bad, same reason): said again, once.
  Deno.writeTextFileSync(path, "{ still not json }");
  for (let i = 0; i < 2; i++) {
    const { instance } = createInstance(l);
    l.vk.vkDestroyInstance(instance, null);
  }
  assertEquals(warnings().length, 2, l.lines.join("\n"));
});

Deno.test("a layer the settings file turns on adds its instance extensions to the global list; auto does not", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "drv", physicalDevices: [{}] });
  const layer = await env.addLayer(
    {
      name: "VK_LAYER_MOCK_ext",
      instanceExtensions: [{ name: "VK_EXT_swapchain_colorspace", specVersion: 7 }],
    },
    { placement: "none" },
  );
  const names = () => {
    using l = load(env.snapshot());
    const count = new Uint32Array(1);
    l.vk.vkEnumerateInstanceExtensionProperties(null, Deno.UnsafePointer.of(count), null);
    const props = new Uint8Array(260 * Math.max(1, count[0]!));
    l.vk.vkEnumerateInstanceExtensionProperties(
      null,
      Deno.UnsafePointer.of(count),
      Deno.UnsafePointer.of(props),
    );
    return Array.from({ length: count[0]! }, (_, i) => {
      const s = props.subarray(i * 260, i * 260 + 256);
      return `${new TextDecoder().decode(s.subarray(0, s.indexOf(0)))}:${
        new DataView(props.buffer).getUint32(i * 260 + 256, true)
      }`;
    });
  };
  writeSettings(
    env,
    settingsText({ layers: [{ control: "on", name: layer.name, path: layer.manifestPath }] }),
  );
  assert(names().includes("VK_EXT_swapchain_colorspace:7"), names().join(" "));
  writeSettings(
    env,
    settingsText({ layers: [{ control: "auto", name: layer.name, path: layer.manifestPath }] }),
  );
  assert(!names().includes("VK_EXT_swapchain_colorspace:7"), names().join(" "));
});
