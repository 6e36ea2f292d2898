import { deepStrictEqual as assertEquals, match as assertMatch, ok as assert } from "node:assert/strict";
import {
  activateLayers,
  implicitLayerInstanceExtensions,
  type LayerActivation,
  type LayerActivationOk,
} from "../../discovery/layer_activation.ts";
import { layerInspectSection } from "../../discovery/layer_inspect.ts";
import { discoverLayers } from "../../discovery/layers.ts";
import { TempTree } from "../support/discovery_tree.ts";
import {
  EXPLICIT_DIR,
  IMPLICIT_DIR,
  implicitFields,
  layerManifest,
  layersManifest,
} from "../support/layer_tree.ts";

function activate(
  tree: TempTree,
  vars: Record<string, string>,
  requested: string[] = [],
  executablePath?: string,
): LayerActivation {
  const env = tree.snapshot(vars);
  return activateLayers(env, discoverLayers(env, { executablePath }), { requestedLayers: requested });
}

function ok(result: LayerActivation): LayerActivationOk {
  if (!result.ok) throw new Error(`expected success, got ${result.message}`);
  return result;
}

function active(
  tree: TempTree,
  vars: Record<string, string>,
  requested: string[] = [],
  exe?: string,
): string[] {
  return ok(activate(tree, vars, requested, exe)).layers.map((a) => a.layer.name);
}

function text(result: LayerActivation): string {
  return result.messages.map((m) => m.text).join("\n");
}

Deno.test("layer activation: an implicit layer without enable_environment is on by default", () => {
  using tree = new TempTree({ [`${IMPLICIT_DIR}/a.json`]: layerManifest(implicitFields("VK_LAYER_IMP")) });
  const r = ok(activate(tree, {}));
  assertEquals(r.layers.map((a) => [a.layer.name, a.source, a.reason]), [[
    "VK_LAYER_IMP",
    "implicit",
    "implicit layer, on by default",
  ]]);
});

Deno.test("layer activation: enable_environment must equal the manifest value exactly", () => {
  using tree = new TempTree({
    [`${IMPLICIT_DIR}/a.json`]: layerManifest(
      implicitFields("VK_LAYER_IMP", { enable_environment: { ENABLE_IMP: "1" } }),
    ),
  });
  assertEquals(active(tree, {}), []);
  assertEquals(active(tree, { ENABLE_IMP: "0" }), []);
  assertEquals(active(tree, { ENABLE_IMP: "1 " }), []);
  assertEquals(active(tree, { ENABLE_IMP: "1" }), ["VK_LAYER_IMP"]);
});

Deno.test("layer activation: disable_environment set to any value turns the layer off and wins over enable", () => {
  using tree = new TempTree({
    [`${IMPLICIT_DIR}/a.json`]: layerManifest(
      implicitFields("VK_LAYER_IMP", { enable_environment: { ENABLE_IMP: "1" } }),
    ),
  });
  for (const value of ["1", "0", ""]) {
    assertEquals(active(tree, { ENABLE_IMP: "1", DISABLE_VK_LAYER_IMP: value }), [], `DISABLE="${value}"`);
  }
});

Deno.test("layer activation: implicit layers, then VK_INSTANCE_LAYERS, then VK_LOADER_LAYERS_ENABLE, then the app's", () => {
  using tree = new TempTree({
    [`${IMPLICIT_DIR}/i.json`]: layersManifest([
      implicitFields("VK_LAYER_I1"),
      implicitFields("VK_LAYER_I2"),
    ]),
    [`${EXPLICIT_DIR}/e.json`]: layersManifest([
      { name: "VK_LAYER_APP1" },
      { name: "VK_LAYER_APP2" },
      { name: "VK_LAYER_ENV1" },
      { name: "VK_LAYER_ENV2" },
      { name: "VK_LAYER_FORCED" },
    ]),
  });
  const r = ok(activate(
    tree,
    { VK_INSTANCE_LAYERS: "VK_LAYER_ENV2:VK_LAYER_ENV1", VK_LOADER_LAYERS_ENABLE: "*FORCED,VK_LAYER_ENV1" },
    ["VK_LAYER_APP2", "VK_LAYER_ENV1", "VK_LAYER_APP1", "VK_LAYER_APP2"],
  ));
  assertEquals(r.layers.map((a) => [a.layer.name, a.source]), [
    ["VK_LAYER_I1", "implicit"],
    ["VK_LAYER_I2", "implicit"],
    ["VK_LAYER_ENV2", "VK_INSTANCE_LAYERS"],
    ["VK_LAYER_ENV1", "VK_INSTANCE_LAYERS"],
    ["VK_LAYER_FORCED", "VK_LOADER_LAYERS_ENABLE"],
    ["VK_LAYER_APP2", "application"],
    ["VK_LAYER_APP1", "application"],
  ]);
  assertMatch(text(r), /Layer "VK_LAYER_FORCED" forced enabled due to env var 'VK_LOADER_LAYERS_ENABLE'/);
});

Deno.test("layer activation: an implicit layer named in VK_INSTANCE_LAYERS takes its env var position", () => {
  using tree = new TempTree({
    [`${IMPLICIT_DIR}/i.json`]: layersManifest([
      implicitFields("VK_LAYER_I1"),
      implicitFields("VK_LAYER_I2"),
    ]),
    [`${EXPLICIT_DIR}/e.json`]: layerManifest({ name: "VK_LAYER_E" }),
  });
  assertEquals(active(tree, { VK_INSTANCE_LAYERS: "VK_LAYER_E:VK_LAYER_I1" }), [
    "VK_LAYER_I2",
    "VK_LAYER_E",
    "VK_LAYER_I1",
  ]);
});

Deno.test("layer activation: an unknown VK_INSTANCE_LAYERS name is only logged", () => {
  using tree = new TempTree({ [`${EXPLICIT_DIR}/e.json`]: layerManifest({ name: "VK_LAYER_E" }) });
  const r = ok(activate(tree, { VK_INSTANCE_LAYERS: "VK_LAYER_NOPE:VK_LAYER_E" }));
  assertEquals(r.layers.map((a) => a.layer.name), ["VK_LAYER_E"]);
  assertMatch(text(r), /Layer "VK_LAYER_NOPE" requested by env var VK_INSTANCE_LAYERS was not found/);
});

Deno.test("layer activation: an unknown application layer fails with VK_ERROR_LAYER_NOT_PRESENT naming it", () => {
  using tree = new TempTree({ [`${EXPLICIT_DIR}/e.json`]: layerManifest({ name: "VK_LAYER_E" }) });
  const r = activate(tree, {}, ["VK_LAYER_E", "VK_LAYER_NOPE"]);
  assert(!r.ok);
  assertEquals([r.result, r.layerName], ["VK_ERROR_LAYER_NOT_PRESENT", "VK_LAYER_NOPE"]);
  assertEquals(r.message, `Layer "VK_LAYER_NOPE" requested by the application was not found`);
});

Deno.test("layer activation: a disabled layer cannot be requested by the app or by VK_INSTANCE_LAYERS", () => {
  using tree = new TempTree({ [`${EXPLICIT_DIR}/e.json`]: layerManifest({ name: "VK_LAYER_E" }) });
  const app = activate(tree, { VK_LOADER_LAYERS_DISABLE: "~explicit~" }, ["VK_LAYER_E"]);
  assert(!app.ok);
  assertMatch(
    app.message,
    /"VK_LAYER_E" requested by the application is not available: forced disabled because name matches filter/,
  );
  // The docs say VK_INSTANCE_LAYERS overrides the disable filter; the Khronos loader's code does not (§1.15 item 2).
  const env = ok(
    activate(tree, { VK_LOADER_LAYERS_DISABLE: "VK_LAYER_E", VK_INSTANCE_LAYERS: "VK_LAYER_E" }),
  );
  assertEquals(env.layers, []);
  assertMatch(text(env), /VK_INSTANCE_LAYERS is not available: forced disabled because name matches filter/);
});

Deno.test("layer activation: VK_LOADER_LAYERS_ENABLE forces an implicit layer on despite an unset enable variable", () => {
  using tree = new TempTree({
    [`${IMPLICIT_DIR}/a.json`]: layerManifest(
      implicitFields("VK_LAYER_IMP", { enable_environment: { ENABLE_IMP: "1" } }),
    ),
  });
  const r = ok(activate(tree, { VK_LOADER_LAYERS_ENABLE: "VK_LAYER_IMP" }));
  assertEquals(r.layers.map((a) => [a.layer.name, a.source]), [["VK_LAYER_IMP", "implicit"]]);
  assertMatch(r.layers[0]?.reason ?? "", /forced on by VK_LOADER_LAYERS_ENABLE/);
});

Deno.test("layer activation: a set disable_environment variable beats VK_LOADER_LAYERS_ENABLE (docs/behaviour.md F08)", () => {
  using tree = new TempTree({
    [`${IMPLICIT_DIR}/a.json`]: layerManifest(
      implicitFields("VK_LAYER_IMP", { enable_environment: { ENABLE_IMP: "1" } }),
    ),
  });
  for (const value of ["1", "0"]) {
    const r = ok(activate(tree, { VK_LOADER_LAYERS_ENABLE: "VK_LAYER_IMP", DISABLE_VK_LAYER_IMP: value }));
    assertEquals(r.layers, [], `DISABLE_VK_LAYER_IMP="${value}"`);
  }
});

Deno.test("layer activation: VK_LOADER_LAYERS_ALLOW exempts from disabling without enabling", () => {
  using tree = new TempTree({
    [`${IMPLICIT_DIR}/a.json`]: layersManifest([
      implicitFields("VK_LAYER_IMP_always"),
      implicitFields("VK_LAYER_IMP_needs_env", { enable_environment: { ENABLE_IT: "1" } }),
    ]),
    [`${EXPLICIT_DIR}/e.json`]: layerManifest({ name: "VK_LAYER_EXP" }),
  });
  const vars = { VK_LOADER_LAYERS_DISABLE: "~all~", VK_LOADER_LAYERS_ALLOW: "VK_LAYER_*" };
  assertEquals(active(tree, vars), ["VK_LAYER_IMP_always"]);
  assertEquals(active(tree, vars, ["VK_LAYER_EXP"]), ["VK_LAYER_IMP_always", "VK_LAYER_EXP"]);
  assertEquals(active(tree, { ...vars, ENABLE_IT: "1" }), ["VK_LAYER_IMP_always", "VK_LAYER_IMP_needs_env"]);
});

Deno.test("layer activation: an implicit layer the application names loads even when its variables keep it off", () => {
  using tree = new TempTree({
    [`${IMPLICIT_DIR}/a.json`]: layerManifest(
      implicitFields("VK_LAYER_IMP", { enable_environment: { ENABLE_IMP: "1" } }),
    ),
  });
  const r = ok(activate(tree, { DISABLE_VK_LAYER_IMP: "1" }, ["VK_LAYER_IMP"]));
  assertEquals(r.layers.map((a) => [a.layer.name, a.source]), [["VK_LAYER_IMP", "application"]]);
});

Deno.test("layer activation: a meta layer expands to its components; the first occurrence of a name wins", () => {
  using tree = new TempTree({
    [`${EXPLICIT_DIR}/e.json`]: layersManifest([
      { name: "VK_LAYER_A" },
      { name: "VK_LAYER_B" },
      { name: "VK_LAYER_C" },
      { name: "VK_LAYER_INNER", component_layers: ["VK_LAYER_C", "VK_LAYER_A"] },
      { name: "VK_LAYER_META", component_layers: ["VK_LAYER_B", "VK_LAYER_INNER"] },
    ]),
  });
  const r = ok(activate(tree, { VK_INSTANCE_LAYERS: "VK_LAYER_A" }, ["VK_LAYER_META", "VK_LAYER_C"]));
  assertEquals(r.layers.map((a) => [a.layer.name, a.via ?? "-"]), [
    ["VK_LAYER_A", "-"],
    ["VK_LAYER_B", "VK_LAYER_META"],
    ["VK_LAYER_C", "VK_LAYER_META"],
  ]);
  assertEquals(r.activatedLayers.map((l) => l.name), [
    "VK_LAYER_A",
    "VK_LAYER_B",
    "VK_LAYER_C",
    "VK_LAYER_META",
  ]);
  assertMatch(
    r.layers[1]?.reason ?? "",
    /component of meta layer "VK_LAYER_META" \(requested by the application\)/,
  );
});

Deno.test("layer activation: implicit components obey their variables, except under the override layer", () => {
  using tree = new TempTree({
    [`${IMPLICIT_DIR}/i.json`]: layerManifest(implicitFields("VK_LAYER_IMP")),
    [`${EXPLICIT_DIR}/e.json`]: layersManifest([
      { name: "VK_LAYER_EXP" },
      { name: "VK_LAYER_META", component_layers: ["VK_LAYER_IMP", "VK_LAYER_EXP"] },
    ]),
  });
  assertEquals(active(tree, { DISABLE_VK_LAYER_IMP: "1" }, ["VK_LAYER_META"]), ["VK_LAYER_EXP"]);
  tree.add({
    [`${IMPLICIT_DIR}/o.json`]: layerManifest({
      name: "VK_LAYER_LUNARG_override",
      component_layers: ["VK_LAYER_IMP", "VK_LAYER_EXP"],
      disable_environment: { DISABLE_OVERRIDE: "1" },
    }),
  });
  const r = ok(activate(tree, { DISABLE_VK_LAYER_IMP: "1" }));
  assertEquals(r.layers.map((a) => a.layer.name), ["VK_LAYER_IMP", "VK_LAYER_EXP"]);
  assertMatch(r.layers[0]?.reason ?? "", /component of the override layer/);
});

Deno.test("layer activation: the override layer's app_keys decide whether its components load", () => {
  using tree = new TempTree({
    [`${EXPLICIT_DIR}/e.json`]: layerManifest({ name: "VK_LAYER_EXP" }),
    [`${IMPLICIT_DIR}/o.json`]: layerManifest({
      name: "VK_LAYER_LUNARG_override",
      component_layers: ["VK_LAYER_EXP"],
      app_keys: ["/opt/game/bin/game"],
      disable_environment: { DISABLE_OVERRIDE: "1" },
    }),
  });
  assertEquals(active(tree, {}, [], "/opt/game/bin/game"), ["VK_LAYER_EXP"]);
  assertEquals(active(tree, {}, [], "/usr/bin/other"), []);
});

Deno.test("layer activation: a blacklisted layer requested by the application is not present", () => {
  using tree = new TempTree({
    [`${EXPLICIT_DIR}/e.json`]: layersManifest([{ name: "VK_LAYER_EXP" }, { name: "VK_LAYER_BAD" }]),
    [`${IMPLICIT_DIR}/o.json`]: layerManifest({
      name: "VK_LAYER_LUNARG_override",
      component_layers: ["VK_LAYER_EXP"],
      blacklisted_layers: ["VK_LAYER_BAD"],
      disable_environment: { DISABLE_OVERRIDE: "1" },
    }),
  });
  const r = activate(tree, {}, ["VK_LAYER_BAD"]);
  assert(!r.ok);
  assertMatch(r.message, /blacklisted_layers/);
});

Deno.test("layer activation: a layer older than the application's API version only warns; one as new does not", () => {
  using tree = new TempTree({
    [`${EXPLICIT_DIR}/e.json`]: layerManifest({ name: "VK_LAYER_OLD", api_version: "1.1.0" }),
    [`${EXPLICIT_DIR}/s.json`]: layerManifest({ name: "VK_LAYER_SAME", api_version: "1.3.0" }),
  });
  const env = tree.snapshot({});
  const r = ok(
    activateLayers(env, discoverLayers(env), {
      requestedLayers: ["VK_LAYER_OLD", "VK_LAYER_SAME"],
      apiVersion: (1 << 22) | (3 << 12),
    }),
  );
  assertEquals(r.layers.length, 2);
  assertMatch(
    text(r),
    /"VK_LAYER_OLD" uses API version 1\.1\.0 which is older than the application specified API version of 1\.3\.0/,
  );
  assert(!text(r).includes('"VK_LAYER_SAME" uses API version'), text(r));
});

Deno.test("layer activation: enabled implicit layers add their instance extensions to the global list", () => {
  using tree = new TempTree({
    [`${IMPLICIT_DIR}/i.json`]: layersManifest([
      implicitFields("VK_LAYER_ON", { instance_extensions: [{ name: "VK_EXT_on", spec_version: "1" }] }),
      implicitFields("VK_LAYER_OFF", {
        enable_environment: { ENABLE_OFF: "1" },
        instance_extensions: [{ name: "VK_EXT_off", spec_version: "1" }],
      }),
    ]),
    [`${EXPLICIT_DIR}/e.json`]: layerManifest({
      name: "VK_LAYER_E",
      instance_extensions: [{ name: "VK_EXT_e", spec_version: "1" }],
    }),
  });
  const env = tree.snapshot({});
  assertEquals(implicitLayerInstanceExtensions(env, discoverLayers(env)).map((e) => e.name), ["VK_EXT_on"]);
  const env2 = tree.snapshot({ ENABLE_OFF: "1" });
  assertEquals(implicitLayerInstanceExtensions(env2, discoverLayers(env2)).map((e) => e.name), [
    "VK_EXT_on",
    "VK_EXT_off",
  ]);
});

Deno.test("layer inspect: every manifest with its activation state and reason", () => {
  using tree = new TempTree({
    [`${IMPLICIT_DIR}/a.json`]: layerManifest(implicitFields("VK_LAYER_ON")),
    [`${IMPLICIT_DIR}/b.json`]: layerManifest(
      implicitFields("VK_LAYER_OFF", { enable_environment: { ENABLE_OFF: "1" } }),
    ),
    [`${EXPLICIT_DIR}/c.json`]: layerManifest({ name: "VK_LAYER_EXP" }),
    [`${EXPLICIT_DIR}/d.json`]: layerManifest({ name: "VK_LAYER_ENV" }),
    [`${EXPLICIT_DIR}/e.json`]: "{",
    [`${EXPLICIT_DIR}/f.json`]: layerManifest({ name: "VK_LAYER_HIDDEN" }),
  });
  const section = layerInspectSection(
    tree.snapshot({ VK_INSTANCE_LAYERS: "VK_LAYER_ENV", VK_LOADER_LAYERS_DISABLE: "*HIDDEN" }),
  );
  assertEquals(section.title, "Layers");
  assertEquals([section.used, section.skipped], [4, 2]);
  assertEquals(section.entries.map((e) => [e.path.slice(e.path.lastIndexOf("/") + 1), e.status, e.reason]), [
    ["a.json", "used", `"VK_LAYER_ON" active: implicit layer, on by default`],
    ["b.json", "used", `"VK_LAYER_OFF" inactive: enable_environment "ENABLE_OFF" is not set (needs "1")`],
    ["c.json", "used", `"VK_LAYER_EXP" available: explicit layer, enabled only on request`],
    ["d.json", "used", `"VK_LAYER_ENV" active: named in VK_INSTANCE_LAYERS`],
    ["e.json", "skipped", "skipped: file is not valid JSON: close brace expected at line 1, column 2"],
    [
      "f.json",
      "skipped",
      `"VK_LAYER_HIDDEN" disabled: forced disabled because name matches filter of env var 'VK_LOADER_LAYERS_DISABLE'`,
    ],
  ]);
});
