import { deepStrictEqual as assertEquals, match as assertMatch, ok as assert } from "node:assert/strict";
import {
  isMetaLayer,
  isOverrideLayer,
  type LayerManifestResult,
  parseLayerManifest,
  resolveLayerLibraryPath,
} from "../../discovery/layer_manifest.ts";
import { parseManifestText } from "../../discovery/manifest_file.ts";

const PATH = "/opt/vk/explicit_layer.d/test.json";

function layer(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: "VK_LAYER_TEST_a",
    type: "GLOBAL",
    library_path: "libVkLayer_a.so",
    api_version: "1.3.211",
    implementation_version: "2",
    description: "test layer",
    ...extra,
  };
}

function must<T>(value: T | undefined): T {
  if (value === undefined) throw new Error("expected a value");
  return value;
}

function without(object: Record<string, unknown>, key: string): Record<string, unknown> {
  const copy = { ...object };
  delete copy[key];
  return copy;
}

function parse(json: unknown, implicit = false): LayerManifestResult {
  return parseLayerManifest(json, { manifestPath: PATH, implicit });
}

function texts(result: LayerManifestResult): string {
  return result.messages.map((m) => m.text).join("\n");
}

Deno.test("layer manifest: a single layer object gives the enumeration fields", () => {
  const r = parse({ file_format_version: "1.0.0", layer: layer() });
  assertEquals(r.skipped, []);
  const l = must(r.layers[0]);
  assertEquals(l.name, "VK_LAYER_TEST_a");
  assertEquals(l.apiVersion, (1 << 22) | (3 << 12) | 211);
  assertEquals(l.implementationVersion, 2);
  assertEquals(l.description, "test layer");
  assertEquals(l.type, "GLOBAL");
  assertEquals(l.implicit, false);
  assertEquals(l.fileFormatVersion, "1.0.0");
});

Deno.test("layer manifest: a layers array loads every layer in file order", () => {
  const r = parse({
    file_format_version: "1.0.1",
    layers: [layer({ name: "VK_LAYER_A" }), layer({ name: "VK_LAYER_B", type: "INSTANCE" })],
  });
  assertEquals(r.layers.map((l) => [l.name, l.indexInFile]), [["VK_LAYER_A", 0], ["VK_LAYER_B", 1]]);
});

Deno.test("layer manifest: a layers array in a 1.0.0 file loads with a warning", () => {
  const r = parse({ file_format_version: "1.0.0", layers: [layer()] });
  assertEquals(r.layers.length, 1);
  assertMatch(texts(r), /older than 1\.0\.1/);
});

Deno.test("layer manifest: a non-object element of layers stops the rest of the array", () => {
  const r = parse({ file_format_version: "1.0.1", layers: [layer({ name: "VK_LAYER_A" }), 7, layer()] });
  assertEquals(r.layers.map((l) => l.name), ["VK_LAYER_A"]);
  assertMatch(r.skipped[0]?.reason ?? "", /"layers\[1\]" is a number/);
});

Deno.test("layer manifest: several layer keys skip a 1.0.1 file; a 1.0.0 one reads them all", () => {
  const a = JSON.stringify(layer({ name: "VK_LAYER_A" }));
  const b = JSON.stringify(layer({ name: "VK_LAYER_B" }));
  for (const version of ["1.0.1", "1.0.0"]) {
    const text = `{"file_format_version": "${version}", "layer": ${a}, "layer": ${b}}`;
    const file = parseManifestText(text, PATH);
    assert(file.ok);
    const r = parseLayerManifest(file.value, { manifestPath: PATH, implicit: false, members: file.members });
    if (version === "1.0.1") {
      assertEquals(r.layers, []);
      assertMatch(r.skipped[0]?.reason ?? "", /2 "layer" objects/);
    } else {
      assertEquals(r.layers.map((l) => l.name), ["VK_LAYER_A", "VK_LAYER_B"]);
    }
  }
});

Deno.test("layer manifest: a file without layer or layers, or without a version, is skipped", () => {
  assertMatch(
    parse({ file_format_version: "1.0.0" }).skipped[0]?.reason ?? "",
    /neither "layer" nor "layers"/,
  );
  assertMatch(parse({ layer: layer() }).skipped[0]?.reason ?? "", /"file_format_version" is nothing/);
  assertMatch(
    parse({ file_format_version: "one", layer: layer() }).skipped[0]?.reason ?? "",
    /not a version/,
  );
  assertMatch(parse([1]).skipped[0]?.reason ?? "", /an array/);
});

Deno.test("layer manifest: versions 1.0.0 to 1.2.1 are silent, newer ones load with an info message", () => {
  for (const v of ["1.0.0", "1.0.1", "1.1.0", "1.1.1", "1.1.2", "1.2.0", "1.2.1"]) {
    const r = parse({ file_format_version: v, layer: layer() });
    assertEquals(r.messages, [], v);
  }
  const r = parse({ file_format_version: "1.3.0", layer: layer() });
  assertEquals(r.layers.length, 1);
  assertEquals(r.messages[0]?.level, "info");
  assertMatch(r.messages[0]?.text ?? "", /unknown file version "1\.3\.0"/);
});

for (const key of ["name", "type", "api_version", "implementation_version", "description"]) {
  Deno.test(`layer manifest: a missing "${key}" skips the layer with a message naming file and field`, () => {
    const r = parse({
      file_format_version: "1.0.1",
      layers: [without(layer(), key), layer({ name: "VK_LAYER_OK" })],
    });
    assertEquals(r.layers.map((l) => l.name), ["VK_LAYER_OK"]);
    assertMatch(r.skipped[0]?.reason ?? "", new RegExp(`"${key}"`));
    assertMatch(texts(r), new RegExp(`"${PATH.replaceAll(".", "\\.")}"`));
  });
}

Deno.test("layer manifest: a missing library_path skips a layer that is not a meta layer", () => {
  const r = parse({ file_format_version: "1.0.0", layer: without(layer(), "library_path") });
  assertEquals(r.layers, []);
  assertMatch(r.skipped[0]?.reason ?? "", /"library_path" is missing/);
});

Deno.test("layer manifest: DEVICE and unknown types are skipped; INSTANCE and GLOBAL load", () => {
  assertMatch(
    parse({ file_format_version: "1.0.0", layer: layer({ type: "DEVICE" }) }).skipped[0]?.reason ?? "",
    /deprecated/,
  );
  assertMatch(
    parse({ file_format_version: "1.0.0", layer: layer({ type: "global" }) }).skipped[0]?.reason ?? "",
    /not "INSTANCE"/,
  );
  assertEquals(parse({ file_format_version: "1.0.0", layer: layer({ type: "INSTANCE" }) }).layers.length, 1);
});

Deno.test("layer manifest: a non-zero variant in api_version skips the layer", () => {
  const r = parse({ file_format_version: "1.0.0", layer: layer({ api_version: "1.1.0.0" }) });
  assertEquals(r.layers, []);
  assertMatch(r.skipped[0]?.reason ?? "", /non-zero variant/);
  assertEquals(
    parse({ file_format_version: "1.0.0", layer: layer({ api_version: "0.1.2.3" }) }).layers[0]?.apiVersion,
    (1 << 22) | (2 << 12) | 3,
  );
});

Deno.test("layer manifest: implementation_version and spec_version read like strtoul", () => {
  const r = parse({
    file_format_version: "1.0.0",
    layer: layer({
      implementation_version: "12abc",
      instance_extensions: [{ name: "VK_EXT_x", spec_version: "x" }],
    }),
  });
  assertEquals(r.layers[0]?.implementationVersion, 12);
  assertEquals(r.layers[0]?.instanceExtensions[0]?.specVersion, 0);
});

Deno.test("layer manifest: a name of 256 bytes or more is skipped, a non-VK_LAYER_ name only warned", () => {
  assertMatch(
    parse({ file_format_version: "1.0.0", layer: layer({ name: "VK_LAYER_" + "x".repeat(247) }) }).skipped[0]
      ?.reason ?? "",
    /longer than 255/,
  );
  const r = parse({ file_format_version: "1.0.0", layer: layer({ name: "MyLayer" }) });
  assertEquals(r.layers.length, 1);
  assertMatch(texts(r), /does not start with "VK_LAYER_"/);
});

Deno.test("layer manifest: library_path absolute, relative with a slash, and bare name", () => {
  const lib = (p: string) =>
    parse({ file_format_version: "1.0.0", layer: layer({ library_path: p }) }).layers[0]?.libraryPath;
  assertEquals(lib("/usr/$LIB/mangohud/libMangoHud.so"), "/usr/$LIB/mangohud/libMangoHud.so");
  assertEquals(lib("./libx.so"), "/opt/vk/explicit_layer.d/./libx.so");
  assertEquals(lib("../lib/libx.so"), "/opt/vk/explicit_layer.d/../lib/libx.so");
  assertEquals(lib("libVkLayer_a.so"), "libVkLayer_a.so");
  assertEquals(resolveLayerLibraryPath("rel.json", "lib/x.so"), "./lib/x.so");
});

Deno.test("layer manifest: functions renames, the negotiate rename only from file version 1.1.0", () => {
  const functions = {
    vkGetInstanceProcAddr: "my_GIPA",
    vkGetDeviceProcAddr: "my_GDPA",
    vkNegotiateLoaderLayerInterfaceVersion: "my_Negotiate",
  };
  const old = parse({ file_format_version: "1.0.1", layer: layer({ functions }) });
  assertEquals(old.layers[0]?.functions, { getInstanceProcAddr: "my_GIPA", getDeviceProcAddr: "my_GDPA" });
  assertMatch(texts(old), /ignored before file version 1\.1\.0/);
  const current = parse({ file_format_version: "1.1.0", layer: layer({ functions }) });
  assertEquals(current.layers[0]?.functions.negotiateLoaderLayerInterfaceVersion, "my_Negotiate");
});

Deno.test("layer manifest: instance and device extensions with entrypoints", () => {
  const r = parse({
    file_format_version: "1.0.0",
    layer: layer({
      instance_extensions: [{ name: "VK_EXT_debug_report", spec_version: "9" }, { spec_version: "1" }],
      device_extensions: [{
        name: "VK_EXT_debug_marker",
        spec_version: "4",
        entrypoints: ["vkCmdDebugMarkerBeginEXT"],
      }],
    }),
  });
  const l = r.layers[0];
  assertEquals(l?.instanceExtensions, [{ name: "VK_EXT_debug_report", specVersion: 9, entrypoints: [] }]);
  assertEquals(l?.deviceExtensions, [{
    name: "VK_EXT_debug_marker",
    specVersion: 4,
    entrypoints: ["vkCmdDebugMarkerBeginEXT"],
  }]);
  assertMatch(texts(r), /"instance_extensions\[1\]\.name" is missing/);
});

Deno.test("layer manifest: an implicit layer needs disable_environment; only the first pair counts", () => {
  const noDisable = parse({ file_format_version: "1.0.0", layer: layer() }, true);
  assertEquals(noDisable.layers, []);
  assertMatch(noDisable.skipped[0]?.reason ?? "", /"disable_environment"/);
  const r = parse({
    file_format_version: "1.0.0",
    layer: layer({
      enable_environment: { EN_A: "1", EN_B: "2" },
      disable_environment: { DIS_A: "", DIS_B: "1" },
    }),
  }, true);
  assertEquals(r.layers[0]?.enableEnvironment, { name: "EN_A", value: "1" });
  assertEquals(r.layers[0]?.disableEnvironment, { name: "DIS_A", value: "" });
  assertEquals(r.layers[0]?.implicit, true);
});

Deno.test("layer manifest: enable and disable environment are ignored on explicit layers", () => {
  const r = parse({ file_format_version: "1.0.0", layer: layer({ disable_environment: { D: "1" } }) });
  assertEquals(r.layers[0]?.disableEnvironment, undefined);
});

Deno.test("layer manifest: library_arch matching the process loads, another skips", () => {
  assertEquals(
    parse({ file_format_version: "1.2.1", layer: layer({ library_arch: "64" }) }).layers[0]?.libraryArch,
    "64",
  );
  const r = parseLayerManifest({ file_format_version: "1.2.1", layer: layer({ library_arch: "64" }) }, {
    manifestPath: PATH,
    implicit: false,
    pointerBits: 32,
  });
  assertMatch(r.skipped[0]?.reason ?? "", /"library_arch" is "64" but this process is 32-bit/);
});

Deno.test("layer manifest: pre_instance_functions only on implicit layers of file version 1.1.2 or later", () => {
  const pre = { vkEnumerateInstanceExtensionProperties: "my_EIEP", vkCreateInstance: "nope" };
  const implicit = { disable_environment: { D: "1" }, pre_instance_functions: pre };
  assertEquals(
    parse({ file_format_version: "1.1.2", layer: layer(implicit) }, true).layers[0]?.preInstanceFunctions,
    {
      vkEnumerateInstanceExtensionProperties: "my_EIEP",
    },
  );
  const old = parse({ file_format_version: "1.1.1", layer: layer(implicit) }, true);
  assertEquals(old.layers[0]?.preInstanceFunctions, {});
  assertMatch(texts(old), /1\.1\.2 or later/);
  const explicit = parse({ file_format_version: "1.1.2", layer: layer({ pre_instance_functions: pre }) });
  assertEquals(explicit.layers[0]?.preInstanceFunctions, {});
  assertMatch(texts(explicit), /explicit layer is ignored/);
});

Deno.test("layer manifest: a meta layer has component_layers and no library", () => {
  const meta = without(
    layer({ name: "VK_LAYER_META", component_layers: ["VK_LAYER_A", "VK_LAYER_B"] }),
    "library_path",
  );
  const r = parse({ file_format_version: "1.1.1", layer: meta });
  assertEquals(r.layers[0]?.componentLayers, ["VK_LAYER_A", "VK_LAYER_B"]);
  assertEquals(r.layers[0]?.libraryPath, undefined);
  assert(r.layers[0] !== undefined && isMetaLayer(r.layers[0]));
  const both = parse({ file_format_version: "1.1.1", layer: layer({ component_layers: ["VK_LAYER_A"] }) });
  assertMatch(both.skipped[0]?.reason ?? "", /both "library_path" and "component_layers"/);
  const old = parse({ file_format_version: "1.1.0", layer: meta });
  assertEquals(old.layers.length, 1);
  assertMatch(texts(old), /needs file version 1\.1\.1/);
  assertMatch(
    parse({ file_format_version: "1.1.1", layer: { ...meta, component_layers: [] } }).skipped[0]?.reason ??
      "",
    /empty/,
  );
});

Deno.test("layer manifest: override layer keys are read only on the implicit VK_LAYER_LUNARG_override", () => {
  const keys = {
    component_layers: ["VK_LAYER_A"],
    app_keys: ["/usr/bin/app"],
    blacklisted_layers: ["VK_LAYER_BAD"],
    override_paths: ["/opt/override"],
    disable_environment: { DISABLE_OVERRIDE: "1" },
  };
  const override = without(layer({ name: "VK_LAYER_LUNARG_override", ...keys }), "library_path");
  const r = parse({ file_format_version: "1.1.2", layer: override }, true);
  const l = must(r.layers[0]);
  assert(isOverrideLayer(l));
  assertEquals([l.appKeys, l.blacklistedLayers, l.overridePaths], [["/usr/bin/app"], ["VK_LAYER_BAD"], [
    "/opt/override",
  ]]);
  const other = parse(
    { file_format_version: "1.1.2", layer: { ...override, name: "VK_LAYER_OTHER_meta" } },
    true,
  );
  assertEquals(other.layers[0]?.appKeys, []);
  assertEquals(other.layers[0]?.blacklistedLayers, []);
  assertMatch(texts(other), /"app_keys" is only honoured on the override meta layer/);
  const explicit = parse({ file_format_version: "1.1.2", layer: override }, false);
  assert(explicit.layers[0] !== undefined && !isOverrideLayer(explicit.layers[0]));
});

Deno.test("layer manifest: a non-string implementation_version reads as 0 with a warning, as the Khronos loader lists it", () => {
  const r = parse({ file_format_version: "1.0.0", layer: layer({ implementation_version: 3 }) });
  assertEquals(r.layers[0]?.implementationVersion, 0);
  assertMatch(texts(r), /"implementation_version" is a number, expected a decimal string; read as 0/);
});
