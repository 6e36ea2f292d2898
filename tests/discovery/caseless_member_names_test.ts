/**
 * Member names match whatever the case of their letters, the first such member winning (docs/behaviour.md
 * M08), in driver manifests, layer manifests and the loader settings file, as the current Khronos loader
 * looks them up (since 1.4.303; checked against 1.4.359 built from source). Debian's libvulkan1 1.3.239 still
 * compares names exactly, so these cases are not run side by side.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { MockEnvironment } from "../support/mock.ts";
import { only, vkdenoProbe } from "../support/conform.ts";
import { parseManifestText } from "../../discovery/manifest_file.ts";
import { parseLayerManifest } from "../../discovery/layer_manifest.ts";
import { readLoaderSettings } from "../../discovery/settings_file.ts";
import { TempTree } from "../support/discovery_tree.ts";

Deno.test('driver manifest with "FILE_FORMAT_VERSION", "icd", "Library_Path", "API_version": the driver is used', async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "upper", physicalDevices: [{ name: "Upper0" }] }, {
    manifestText:
      `{"FILE_FORMAT_VERSION": "1.0.1", "icd": {"Library_Path": "\${libraryPath}", "API_version": "1.3.0"}}`,
  });
  await env.addDriver({ name: "first", physicalDevices: [{ name: "First0" }] }, {
    manifestText: `{"file_format_version": "1.0.1", "ICD": {"LIBRARY_PATH": "\${libraryPath}",
      "library_path": "/nonexistent/libnone.so", "api_version": "1.3.0"}}`,
  });
  const ours = vkdenoProbe(env);
  assertEquals(only(ours.lines, "device ").sort(), ["device First0", "device Upper0"]);
});

Deno.test('layer manifest with "LAYER", "NAME", "Library_Path", ...: the layer is listed and loads; "NAME" before "name" wins', async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "d", physicalDevices: [{ name: "D0" }] });
  await env.addLayer({ name: "VK_LAYER_MOCK_alpha" }, {
    manifestText:
      `{"File_Format_Version": "1.1.0", "LAYER": {"NAME": "VK_LAYER_MOCK_alpha", "name": "VK_LAYER_MOCK_x",
      "Type": "INSTANCE", "Library_Path": "\${libraryPath}", "API_VERSION": "1.3.0",
      "implementation_VERSION": "1", "Description": "mock"}}`,
  });
  const ours = vkdenoProbe(env, { appLayers: ["VK_LAYER_MOCK_alpha"] });
  assertEquals(only(ours.lines, "layer VK_LAYER_MOCK_"), ["layer VK_LAYER_MOCK_alpha"]);
  assertEquals(only(ours.lines, "create_instance"), ["create_instance result=0"]);
});

Deno.test('file version 1.0.0 with "Layer" then "layer": both are layer members', () => {
  const layer = (name: string) =>
    `{"name": "${name}", "type": "GLOBAL", "library_path": "a.so", "api_version": "1.3.0", ` +
    `"implementation_version": "1", "description": "d"}`;
  const file = parseManifestText(
    `{"file_format_version": "1.0.0", "Layer": ${layer("VK_LAYER_a")}, "layer": ${layer("VK_LAYER_b")}}`,
    "/l/a.json",
  );
  assert(file.ok);
  const r = parseLayerManifest(file.value, {
    manifestPath: "/l/a.json",
    implicit: false,
    members: file.members,
  });
  assertEquals(r.layers.map((l) => l.name), ["VK_LAYER_a", "VK_LAYER_b"]);
});

Deno.test("a member name's case is ignored, but names that are data keep theirs (disable_environment)", () => {
  const file = parseManifestText(
    `{"file_format_version": "1.1.0", "layer": {"name": "VK_LAYER_a", "type": "GLOBAL", "library_path": "a.so",
      "api_version": "1.3.0", "implementation_version": "1", "description": "d",
      "Disable_Environment": {"My_Disable_Var": "1"}}}`,
    "/l/a.json",
  );
  assert(file.ok);
  const r = parseLayerManifest(file.value, {
    manifestPath: "/l/a.json",
    implicit: true,
    members: file.members,
  });
  assertEquals(r.layers[0]?.disableEnvironment, { name: "My_Disable_Var", value: "1" });
});

Deno.test("loader settings file with member names in another case is read", () => {
  using tree = new TempTree();
  tree.add({
    "home/.local/share/vulkan/loader_settings.d/vk_loader_settings.json": `{"File_Format_Version": "1.0.0",
      "Settings": {"Additional_Drivers": [{"PATH": "/opt/first.json"}]}}`,
  });
  const read = readLoaderSettings(tree.snapshot({ HOME: tree.path("home") }));
  assertEquals(read.settings?.additionalDrivers, ["/opt/first.json"]);
});
