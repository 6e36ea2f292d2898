import { deepStrictEqual as assertEquals, match as assertMatch, ok as assert } from "node:assert/strict";
import { discoverLayers, type LayerDiscovery } from "../../discovery/layers.ts";
import { clearLayerManifestCache } from "../../discovery/layer_manifest_cache.ts";
import {
  enumerateInstanceLayerProperties,
  layerExtensionProperties,
} from "../../discovery/layer_properties.ts";
import { TempTree } from "../support/discovery_tree.ts";
import {
  EXPLICIT_DIR,
  IMPLICIT_DIR,
  implicitFields,
  layerManifest,
  layersManifest,
} from "../support/layer_tree.ts";

function names(d: LayerDiscovery): string[] {
  return enumerateInstanceLayerProperties(d).map((p) => p.layerName);
}

function candidate(d: LayerDiscovery, name: string) {
  return d.candidates.filter((c) => c.name === name);
}

function allText(d: LayerDiscovery): string {
  return d.messages.map((m) => m.text).join("\n");
}

Deno.test("layer discovery: implicit folders first, then explicit, on the driver base folders", () => {
  using tree = new TempTree({
    [`${EXPLICIT_DIR}/b.json`]: layerManifest({ name: "VK_LAYER_E_usr" }),
    "etc/vulkan/explicit_layer.d/a.json": layerManifest({ name: "VK_LAYER_E_etc" }),
    "home/me/.local/share/vulkan/explicit_layer.d/a.json": layerManifest({ name: "VK_LAYER_E_home" }),
    [`${IMPLICIT_DIR}/i.json`]: layerManifest(implicitFields("VK_LAYER_I_usr")),
    "home/me/.config/vulkan/implicit_layer.d/i.json": layerManifest(implicitFields("VK_LAYER_I_config")),
  });
  const d = discoverLayers(tree.snapshot({ HOME: tree.path("home/me") }));
  assertEquals(names(d), [
    "VK_LAYER_I_config",
    "VK_LAYER_I_usr",
    "VK_LAYER_E_etc",
    "VK_LAYER_E_home",
    "VK_LAYER_E_usr",
  ]);
  assertEquals(d.layers.map((l) => l.implicit), [true, true, false, false, false]);
});

Deno.test("layer discovery: the host's manifests never leak into a snapshot with a root", () => {
  using tree = new TempTree({ "empty/.keep": "" });
  const d = discoverLayers(tree.snapshot({}));
  assertEquals(d.layers, []);
  assertEquals(d.candidates, []);
});

Deno.test("layer discovery: VK_LAYER_PATH replaces the explicit search with files and folders", () => {
  using tree = new TempTree({
    [`${EXPLICIT_DIR}/sys.json`]: layerManifest({ name: "VK_LAYER_SYS" }),
    [`${IMPLICIT_DIR}/imp.json`]: layerManifest(implicitFields("VK_LAYER_IMP")),
    "dev/folder/a.json": layerManifest({ name: "VK_LAYER_A" }),
    "dev/file.json": layerManifest(implicitFields("VK_LAYER_FILE")),
  });
  const d = discoverLayers(
    tree.snapshot({ VK_LAYER_PATH: `${tree.path("dev/file.json")}:${tree.path("dev/folder")}` }),
  );
  assertEquals(names(d), ["VK_LAYER_IMP", "VK_LAYER_FILE", "VK_LAYER_A"]);
  // A manifest with implicit fields found through VK_LAYER_PATH is explicit.
  assertEquals(d.layers.find((l) => l.name === "VK_LAYER_FILE")?.implicit, false);
  assertEquals(d.layers.find((l) => l.name === "VK_LAYER_FILE")?.disableEnvironment, undefined);
  assertEquals(d.locations.explicit.map((l) => l.location.source), ["VK_LAYER_PATH", "VK_LAYER_PATH"]);
});

Deno.test("layer discovery: VK_ADD_LAYER_PATH is searched first, and ignored when VK_LAYER_PATH is set", () => {
  using tree = new TempTree({
    [`${EXPLICIT_DIR}/x.json`]: layerManifest({ name: "VK_LAYER_X", description: "system" }),
    "add/x.json": layerManifest({ name: "VK_LAYER_X", description: "added" }),
    "add/y.json": layerManifest({ name: "VK_LAYER_Y" }),
    "only/z.json": layerManifest({ name: "VK_LAYER_Z" }),
  });
  const added = discoverLayers(tree.snapshot({ VK_ADD_LAYER_PATH: tree.path("add") }));
  assertEquals(names(added), ["VK_LAYER_X", "VK_LAYER_Y"]);
  assertEquals(added.layers[0]?.description, "added");
  const replaced = discoverLayers(
    tree.snapshot({ VK_ADD_LAYER_PATH: tree.path("add"), VK_LAYER_PATH: tree.path("only") }),
  );
  assertEquals(names(replaced), ["VK_LAYER_Z"]);
  assertMatch(allText(replaced), /Ignoring VK_ADD_LAYER_PATH because VK_LAYER_PATH is set/);
});

Deno.test("layer discovery: VK_IMPLICIT_LAYER_PATH replaces and VK_ADD_IMPLICIT_LAYER_PATH precedes the implicit search", () => {
  using tree = new TempTree({
    [`${IMPLICIT_DIR}/sys.json`]: layerManifest(implicitFields("VK_LAYER_SYS")),
    "imp/a.json": layerManifest(implicitFields("VK_LAYER_A")),
  });
  const replaced = discoverLayers(tree.snapshot({ VK_IMPLICIT_LAYER_PATH: tree.path("imp") }));
  assertEquals(names(replaced), ["VK_LAYER_A"]);
  assertEquals(replaced.layers[0]?.implicit, true);
  const added = discoverLayers(tree.snapshot({ VK_ADD_IMPLICIT_LAYER_PATH: tree.path("imp") }));
  assertEquals(names(added), ["VK_LAYER_A", "VK_LAYER_SYS"]);
});

Deno.test("layer discovery: all four layer path variables and the home folders are ignored when elevated", () => {
  using tree = new TempTree({
    [`${EXPLICIT_DIR}/sys.json`]: layerManifest({ name: "VK_LAYER_SYS" }),
    "p/a.json": layerManifest({ name: "VK_LAYER_PATH_A" }),
    "q/b.json": layerManifest({ name: "VK_LAYER_ADD_B" }),
    "r/c.json": layerManifest(implicitFields("VK_LAYER_IMP_C")),
    "s/d.json": layerManifest(implicitFields("VK_LAYER_ADDIMP_D")),
    "home/u/.local/share/vulkan/explicit_layer.d/h.json": layerManifest({ name: "VK_LAYER_HOME" }),
  });
  const vars = {
    HOME: tree.path("home/u"),
    VK_LAYER_PATH: tree.path("p"),
    VK_ADD_LAYER_PATH: tree.path("q"),
    VK_IMPLICIT_LAYER_PATH: tree.path("r"),
    VK_ADD_IMPLICIT_LAYER_PATH: tree.path("s"),
  };
  assertEquals(names(discoverLayers(tree.snapshot(vars))), ["VK_LAYER_IMP_C", "VK_LAYER_PATH_A"]);
  const elevated = discoverLayers(tree.snapshot(vars, true));
  assertEquals(names(elevated), ["VK_LAYER_SYS"]);
  assertMatch(allText(elevated), /Ignoring VK_LAYER_PATH: the process runs elevated/);
});

Deno.test("layer discovery: a repeated layer name keeps the first found and logs the rest", () => {
  using tree = new TempTree({
    [`${IMPLICIT_DIR}/a.json`]: layerManifest(implicitFields("VK_LAYER_SAME", { description: "implicit" })),
    [`${EXPLICIT_DIR}/b.json`]: layerManifest({ name: "VK_LAYER_SAME", description: "explicit" }),
    "etc/vulkan/explicit_layer.d/c.json": layersManifest([{ name: "VK_LAYER_TWICE" }, {
      name: "VK_LAYER_TWICE",
    }]),
  });
  const d = discoverLayers(tree.snapshot());
  assertEquals(names(d), ["VK_LAYER_SAME", "VK_LAYER_TWICE"]);
  assertEquals(d.layers[0]?.description, "implicit");
  assertEquals(candidate(d, "VK_LAYER_SAME").map((c) => c.status), ["used", "duplicate"]);
  assertEquals(candidate(d, "VK_LAYER_TWICE").map((c) => c.status), ["used", "duplicate"]);
  assertMatch(allText(d), /Removing layer "VK_LAYER_SAME" \(".*b\.json"\) because it is a duplicate/);
});

Deno.test("layer discovery: a defective manifest or layer is skipped with file and field, the rest load", () => {
  using tree = new TempTree({
    [`${EXPLICIT_DIR}/bad_json.json`]: "{ not json",
    [`${EXPLICIT_DIR}/empty.json`]: "",
    [`${EXPLICIT_DIR}/mixed.json`]: layersManifest([{ name: "VK_LAYER_NOTYPE", type: undefined }, {
      name: "VK_LAYER_GOOD",
    }]),
    [`${EXPLICIT_DIR}/folder.json/x`]: "",
    [`${IMPLICIT_DIR}/nodisable.json`]: layerManifest({ name: "VK_LAYER_NODISABLE" }),
    [`${EXPLICIT_DIR}/ok.json`]: layerManifest({ name: "VK_LAYER_OK" }),
  });
  const d = discoverLayers(tree.snapshot());
  assertEquals(names(d), ["VK_LAYER_GOOD", "VK_LAYER_OK"]);
  const skipped = d.candidates.filter((c) => c.status === "skipped");
  assertEquals(skipped.length, 5);
  assertMatch(candidate(d, "VK_LAYER_NOTYPE")[0]?.reason ?? "", /"type"/);
  assertMatch(candidate(d, "VK_LAYER_NODISABLE")[0]?.reason ?? "", /"disable_environment"/);
  assertMatch(allText(d), /bad_json\.json.*not valid JSON/);
  assertMatch(allText(d), /Skipping layer "VK_LAYER_NOTYPE" of ".*mixed\.json": required field "type"/);
});

Deno.test("layer discovery: VK_LOADER_LAYERS_DISABLE globs, ~all~, ~implicit~ and ~explicit~ hide layers", () => {
  using tree = new TempTree({
    [`${IMPLICIT_DIR}/a.json`]: layerManifest(implicitFields("VK_LAYER_IMP_one")),
    [`${IMPLICIT_DIR}/b.json`]: layerManifest(implicitFields("VK_LAYER_IMP_two")),
    [`${EXPLICIT_DIR}/c.json`]: layerManifest({ name: "VK_LAYER_EXP_one" }),
    [`${EXPLICIT_DIR}/d.json`]: layerManifest({ name: "VK_LAYER_EXP_two" }),
  });
  const run = (disable: string) =>
    names(discoverLayers(tree.snapshot({ VK_LOADER_LAYERS_DISABLE: disable })));
  assertEquals(run("~implicit~"), ["VK_LAYER_EXP_one", "VK_LAYER_EXP_two"]);
  assertEquals(run("~explicit~"), ["VK_LAYER_IMP_one", "VK_LAYER_IMP_two"]);
  assertEquals(run("~all~"), []);
  assertEquals(run("*"), []);
  assertEquals(run("*_one"), ["VK_LAYER_IMP_two", "VK_LAYER_EXP_two"]);
  assertEquals(run("vk_layer_imp*,VK_LAYER_EXP_TWO"), ["VK_LAYER_EXP_one"]);
  const d = discoverLayers(tree.snapshot({ VK_LOADER_LAYERS_DISABLE: "*_one" }));
  assertEquals(candidate(d, "VK_LAYER_IMP_one")[0]?.status, "disabled");
  assertMatch(
    allText(d),
    /Layer "VK_LAYER_IMP_one" forced disabled because name matches filter of env var 'VK_LOADER_LAYERS_DISABLE'/,
  );
});

Deno.test("layer discovery: VK_LOADER_LAYERS_ALLOW and VK_LOADER_LAYERS_ENABLE exempt layers from disabling", () => {
  using tree = new TempTree({
    [`${IMPLICIT_DIR}/a.json`]: layerManifest(implicitFields("VK_LAYER_IMP")),
    [`${EXPLICIT_DIR}/c.json`]: layerManifest({ name: "VK_LAYER_ALLOWED" }),
    [`${EXPLICIT_DIR}/d.json`]: layerManifest({ name: "VK_LAYER_FORCED" }),
    [`${EXPLICIT_DIR}/e.json`]: layerManifest({ name: "VK_LAYER_OTHER" }),
  });
  const d = discoverLayers(tree.snapshot({
    VK_LOADER_LAYERS_DISABLE: "~all~",
    VK_LOADER_LAYERS_ALLOW: "*ALLOWED",
    VK_LOADER_LAYERS_ENABLE: "VK_LAYER_FORCED",
  }));
  assertEquals(names(d), ["VK_LAYER_ALLOWED", "VK_LAYER_FORCED"]);
});

Deno.test("layer discovery: invalid meta layers are removed (missing, self, loop, older components)", () => {
  const meta = (name: string, components: string[], api = "1.3.0") => ({
    name,
    component_layers: components,
    api_version: api,
  });
  using tree = new TempTree({
    [`${EXPLICIT_DIR}/base.json`]: layersManifest([{ name: "VK_LAYER_A", api_version: "1.3.5" }, {
      name: "VK_LAYER_OLD",
      api_version: "1.2.200",
    }]),
    [`${EXPLICIT_DIR}/metas.json`]: layersManifest([
      meta("VK_LAYER_META_ok", ["VK_LAYER_A"]),
      meta("VK_LAYER_META_missing", ["VK_LAYER_A", "VK_LAYER_NOPE"]),
      meta("VK_LAYER_META_self", ["VK_LAYER_META_self"]),
      meta("VK_LAYER_META_loop1", ["VK_LAYER_META_loop2"]),
      meta("VK_LAYER_META_loop2", ["VK_LAYER_META_loop1"]),
      meta("VK_LAYER_META_old", ["VK_LAYER_OLD"]),
      meta("VK_LAYER_META_of_missing", ["VK_LAYER_META_missing"]),
      meta("VK_LAYER_META_of_ok", ["VK_LAYER_META_ok"]),
    ]),
  });
  const d = discoverLayers(tree.snapshot());
  assertEquals(names(d), ["VK_LAYER_A", "VK_LAYER_OLD", "VK_LAYER_META_ok", "VK_LAYER_META_of_ok"]);
  const reason = (n: string) => candidate(d, n)[0]?.reason ?? "";
  assertMatch(reason("VK_LAYER_META_missing"), /"VK_LAYER_NOPE" \(index 1\) was not found/);
  assertMatch(reason("VK_LAYER_META_self"), /lists itself/);
  assertMatch(reason("VK_LAYER_META_loop1"), /loop back/);
  assertMatch(reason("VK_LAYER_META_old"), /1\.2\.200, older than the meta layer's 1\.3\.0/);
  assertMatch(reason("VK_LAYER_META_of_missing"), /"VK_LAYER_META_missing" \(index 0\) was not found/);
  assertEquals(candidate(d, "VK_LAYER_META_self")[0]?.status, "invalid");
});

Deno.test("layer discovery: a meta layer whose component is disabled is removed", () => {
  using tree = new TempTree({
    [`${EXPLICIT_DIR}/a.json`]: layersManifest([{ name: "VK_LAYER_A" }, {
      name: "VK_LAYER_META",
      component_layers: ["VK_LAYER_A"],
    }]),
  });
  assertEquals(names(discoverLayers(tree.snapshot({ VK_LOADER_LAYERS_DISABLE: "VK_LAYER_A" }))), []);
});

function overrideManifest(extra: Record<string, unknown>): string {
  return layerManifest({
    name: "VK_LAYER_LUNARG_override",
    component_layers: ["VK_LAYER_COMP"],
    disable_environment: { DISABLE_OVERRIDE: "1" },
    ...extra,
  });
}

Deno.test("layer discovery: the override layer applies only to the executables in app_keys; specific beats global", () => {
  using tree = new TempTree({
    [`${EXPLICIT_DIR}/comp.json`]: layerManifest({ name: "VK_LAYER_COMP" }),
    [`${EXPLICIT_DIR}/other.json`]: layerManifest({ name: "VK_LAYER_OTHER" }),
    [`${IMPLICIT_DIR}/a_global.json`]: overrideManifest({ blacklisted_layers: ["VK_LAYER_OTHER"] }),
    [`${IMPLICIT_DIR}/b_app.json`]: overrideManifest({ app_keys: ["/usr/bin/app"] }),
  });
  const forApp = discoverLayers(tree.snapshot(), { executablePath: "/usr/bin/app" });
  assertEquals(forApp.overrideLayer?.manifestPath, tree.path(`${IMPLICIT_DIR}/b_app.json`));
  assertEquals(names(forApp), ["VK_LAYER_LUNARG_override", "VK_LAYER_COMP", "VK_LAYER_OTHER"]);
  const other = discoverLayers(tree.snapshot(), { executablePath: "/usr/bin/other" });
  assertEquals(other.overrideLayer?.manifestPath, tree.path(`${IMPLICIT_DIR}/a_global.json`));
  assertEquals(names(other), ["VK_LAYER_LUNARG_override", "VK_LAYER_COMP"]);
  assertEquals(other.candidates.find((c) => c.manifestPath.endsWith("b_app.json"))?.status, "not applied");
});

Deno.test("layer discovery: blacklisted_layers hides layers only while the override layer is on", () => {
  using tree = new TempTree({
    [`${EXPLICIT_DIR}/comp.json`]: layerManifest({ name: "VK_LAYER_COMP" }),
    [`${EXPLICIT_DIR}/bad.json`]: layerManifest({ name: "VK_LAYER_BAD" }),
    [`${IMPLICIT_DIR}/o.json`]: overrideManifest({ blacklisted_layers: ["VK_LAYER_BAD"] }),
  });
  const on = discoverLayers(tree.snapshot());
  assertEquals(names(on), ["VK_LAYER_LUNARG_override", "VK_LAYER_COMP"]);
  assertEquals(candidate(on, "VK_LAYER_BAD")[0]?.status, "blacklisted");
  const off = discoverLayers(tree.snapshot({ DISABLE_OVERRIDE: "" }));
  assertEquals(names(off), ["VK_LAYER_LUNARG_override", "VK_LAYER_BAD", "VK_LAYER_COMP"]);
});

Deno.test("layer discovery: override_paths replaces the explicit search, VK_LAYER_PATH included", () => {
  using tree = new TempTree({
    [`${EXPLICIT_DIR}/sys.json`]: layerManifest({ name: "VK_LAYER_SYS" }),
    "ovr/comp.json": layerManifest({ name: "VK_LAYER_COMP" }),
    "env/e.json": layerManifest({ name: "VK_LAYER_ENV" }),
  });
  tree.add({ [`${IMPLICIT_DIR}/o.json`]: overrideManifest({ override_paths: [tree.path("ovr")] }) });
  const d = discoverLayers(tree.snapshot({ VK_LAYER_PATH: tree.path("env") }));
  assertEquals(names(d), ["VK_LAYER_LUNARG_override", "VK_LAYER_COMP"]);
  assertMatch(allText(d), /Ignoring VK_LAYER_PATH: the override layer/);
  // Components must be found there: without them the override layer is invalid.
  tree.add({ [`${IMPLICIT_DIR}/o.json`]: overrideManifest({ override_paths: [tree.path("env")] }) });
  clearLayerManifestCache();
  const broken = discoverLayers(tree.snapshot());
  assertEquals(names(broken), ["VK_LAYER_ENV"]);
  assertEquals(broken.overrideLayer, undefined);
});

Deno.test("layer enumeration: properties come from the manifest; the description is cut to 255 bytes", () => {
  using tree = new TempTree({
    [`${EXPLICIT_DIR}/a.json`]: layerManifest({
      name: "VK_LAYER_A",
      api_version: "1.2.3",
      implementation_version: "42",
      description: "é".repeat(200),
    }),
  });
  const [p] = enumerateInstanceLayerProperties(discoverLayers(tree.snapshot()));
  assertEquals(p?.specVersion, (1 << 22) | (2 << 12) | 3);
  assertEquals(p?.implementationVersion, 42);
  assertEquals(p?.description, "é".repeat(127));
});

Deno.test("layer enumeration: layer extension lists, merged over a meta layer's components", () => {
  using tree = new TempTree({
    [`${EXPLICIT_DIR}/a.json`]: layersManifest([
      {
        name: "VK_LAYER_A",
        instance_extensions: [{ name: "VK_EXT_debug_utils", spec_version: "2" }],
        device_extensions: [{
          name: "VK_EXT_tooling_info",
          spec_version: "1",
          entrypoints: ["vkGetPhysicalDeviceToolPropertiesEXT"],
        }],
      },
      {
        name: "VK_LAYER_B",
        instance_extensions: [{ name: "VK_EXT_debug_report", spec_version: "9" }, {
          name: "VK_EXT_debug_utils",
          spec_version: "1",
        }],
      },
      { name: "VK_LAYER_META", component_layers: ["VK_LAYER_A", "VK_LAYER_B"] },
    ]),
  });
  const d = discoverLayers(tree.snapshot());
  assertEquals(
    layerExtensionProperties(d, "VK_LAYER_META", "instance")?.map((e) => [e.name, e.specVersion]),
    [
      ["VK_EXT_debug_utils", 2],
      ["VK_EXT_debug_report", 9],
    ],
  );
  assertEquals(layerExtensionProperties(d, "VK_LAYER_A", "device")?.[0]?.entrypoints, [
    "vkGetPhysicalDeviceToolPropertiesEXT",
  ]);
  assertEquals(layerExtensionProperties(d, "VK_LAYER_NONE", "instance"), undefined);
});

Deno.test("layer discovery cache: unchanged files come from the cache, changes are seen", async () => {
  using tree = new TempTree({
    [`${EXPLICIT_DIR}/a.json`]: layerManifest({ name: "VK_LAYER_AAAA" }),
    [`${EXPLICIT_DIR}/b.json`]: layerManifest({ name: "VK_LAYER_BBBB" }),
  });
  clearLayerManifestCache();
  const env = tree.snapshot();
  // Files younger than the racy window are never cached.
  const young = discoverLayers(env);
  assertEquals(young.manifestReads, { parsed: 2, cached: 0 });
  assertEquals(discoverLayers(env).manifestReads, { parsed: 2, cached: 0 });
  await new Promise((resolve) => setTimeout(resolve, 2100));
  discoverLayers(env);
  const warm = discoverLayers(env);
  assertEquals(warm.manifestReads, { parsed: 0, cached: 2 });
  assertEquals(names(warm), ["VK_LAYER_AAAA", "VK_LAYER_BBBB"]);
  // Same size, old modification time restored: the change time still gives it away.
  const file = tree.path(`${EXPLICIT_DIR}/a.json`);
  const old = Deno.statSync(file).mtime ?? new Date(0);
  tree.add({ [`${EXPLICIT_DIR}/a.json`]: layerManifest({ name: "VK_LAYER_CCCC" }) });
  Deno.utimeSync(file, old, old);
  tree.add({ [`${EXPLICIT_DIR}/c.json`]: layerManifest({ name: "VK_LAYER_DDDD" }) });
  Deno.removeSync(tree.path(`${EXPLICIT_DIR}/b.json`));
  const changed = discoverLayers(env);
  assertEquals(names(changed), ["VK_LAYER_CCCC", "VK_LAYER_DDDD"]);
  assertEquals(changed.manifestReads.cached, 0);
  assert(changed.manifestReads.parsed === 2);
});

Deno.test("layer discovery: a file reached twice through VK_LAYER_PATH counts once, with or without the cache", async () => {
  using tree = new TempTree({ "dev/a.json": layerManifest({ name: "VK_LAYER_A" }) });
  const env = tree.snapshot({ VK_LAYER_PATH: `${tree.path("dev/a.json")}:${tree.path("dev")}` });
  await new Promise((resolve) => setTimeout(resolve, 2100));
  for (const cache of [false, true, true]) {
    const d = discoverLayers(env, { cache });
    assertEquals(names(d), ["VK_LAYER_A"]);
    assertEquals(candidate(d, "VK_LAYER_A").map((c) => c.status), ["used", "duplicate"]);
  }
});

Deno.test("layer discovery: an override layer in a user folder is invisible when elevated", () => {
  using tree = new TempTree({
    [`${EXPLICIT_DIR}/comp.json`]: layerManifest({ name: "VK_LAYER_COMP" }),
    [`${EXPLICIT_DIR}/bad.json`]: layerManifest({ name: "VK_LAYER_BAD" }),
    "home/u/.local/share/vulkan/implicit_layer.d/o.json": overrideManifest({
      blacklisted_layers: ["VK_LAYER_BAD"],
    }),
  });
  const vars = { HOME: tree.path("home/u") };
  assertEquals(names(discoverLayers(tree.snapshot(vars))), ["VK_LAYER_LUNARG_override", "VK_LAYER_COMP"]);
  const elevated = discoverLayers(tree.snapshot(vars, true));
  assertEquals(names(elevated), ["VK_LAYER_BAD", "VK_LAYER_COMP"]);
  assertEquals(elevated.overrideLayer, undefined);
});
