/**
 * A variable set to the empty string is set (docs/behaviour.md D12): `VK_DRIVER_FILES=""` means "no driver
 * files" and still beats `VK_ICD_FILENAMES`, `VK_ADD_DRIVER_FILES` and the default folders; `VK_LAYER_PATH=""`
 * and `VK_IMPLICIT_LAYER_PATH=""` replace their search with nothing; `HOME=""` puts `/.config` and
 * `/.local/share` in the search. Run side by side with Debian's libvulkan1 1.3.239 where it reads the
 * variable; `VK_IMPLICIT_LAYER_PATH` is newer than it and was checked against the current Khronos loader.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { MockEnvironment } from "../support/mock.ts";
import { khronosProbe, only, vkdenoProbe } from "../support/conform.ts";
import { discoverDrivers } from "../../discovery/drivers.ts";
import { discoverLayers } from "../../discovery/layers.ts";
import { defaultSearchLocations } from "../../discovery/search_paths.ts";
import { buildInspectReport, formatInspectReport } from "../../discovery/inspect.ts";
import { TempTree } from "../support/discovery_tree.ts";

for (const name of ["VK_DRIVER_FILES", "VK_ICD_FILENAMES"]) {
  Deno.test(`${name}="" means no driver files: VK_ADD_DRIVER_FILES and the default folders are not searched`, async () => {
    await using env = await MockEnvironment.create();
    if (name === "VK_DRIVER_FILES") {
      await env.addDriver({ name: "icd", physicalDevices: [{ name: "Icd0" }] }, {
        placement: "icd_filenames",
      });
    }
    await env.addDriver({ name: "add", physicalDevices: [{ name: "Add0" }] }, {
      placement: "add_driver_files",
    });
    await env.addDriver({ name: "home", physicalDevices: [{ name: "Home0" }] }, { placement: "home_data" });
    const o = { emptyVars: [name] };
    const ours = vkdenoProbe(env, o);
    const theirs = await khronosProbe(env, o);
    // VK_ERROR_INCOMPATIBLE_DRIVER: no driver at all.
    assertEquals(only(ours.lines, "create_instance"), ["create_instance result=-9"]);
    assertEquals(only(ours.lines, "create_instance"), only(theirs.lines, "create_instance"));
    const found = discoverDrivers({ ...env.snapshot(), vars: { ...env.snapshot().vars, [name]: "" } });
    assertEquals(found.candidates, []);
    assert(
      found.messages.some((m) => m.text.includes(`'${name}' is set to the empty string`)),
      found.messages.map((m) => m.text).join("\n"),
    );
  });
}

Deno.test('VK_LAYER_PATH="" replaces the explicit search with nothing; VK_ADD_LAYER_PATH is ignored, implicit layers stay', async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "d", physicalDevices: [{ name: "D0" }] });
  await env.addLayer({ name: "VK_LAYER_MOCK_add" }, { placement: "add_layer_path" });
  await env.addLayer({ name: "VK_LAYER_MOCK_home" }, { placement: "home_data" });
  await env.addLayer({ name: "VK_LAYER_MOCK_implicit" }, { implicit: true });
  const o = { emptyVars: ["VK_LAYER_PATH"] };
  const ours = vkdenoProbe(env, o);
  const theirs = await khronosProbe(env, o);
  assertEquals(only(ours.lines, "layer "), ["layer VK_LAYER_MOCK_implicit"]);
  assertEquals(only(ours.lines, "layer "), only(theirs.lines, "layer "));
});

Deno.test('VK_IMPLICIT_LAYER_PATH="" replaces the implicit search with nothing; VK_ADD_IMPLICIT_LAYER_PATH is ignored', async () => {
  await using env = await MockEnvironment.create();
  await env.addLayer({ name: "VK_LAYER_MOCK_home" }, { implicit: true });
  await env.addLayer({ name: "VK_LAYER_MOCK_added" }, { implicit: true, placement: { folder: "added" } });
  await env.addLayer({ name: "VK_LAYER_MOCK_explicit" });
  const snapshot = env.snapshot({ VK_ADD_IMPLICIT_LAYER_PATH: env.path("added") });
  const found = discoverLayers({ ...snapshot, vars: { ...snapshot.vars, VK_IMPLICIT_LAYER_PATH: "" } });
  assertEquals(found.layers.map((l) => l.name), ["VK_LAYER_MOCK_explicit"]);
});

Deno.test('HOME="" is a home at "/": /.config and /.local/share are searched for manifests', () => {
  const paths = defaultSearchLocations({ vars: { HOME: "" }, elevated: false }, "driver").map((l) => l.path);
  assertEquals(paths, [
    "/.config/vulkan/icd.d",
    "/etc/xdg/vulkan/icd.d",
    "/etc/vulkan/icd.d",
    "/.local/share/vulkan/icd.d",
    "/usr/local/share/vulkan/icd.d",
    "/usr/share/vulkan/icd.d",
  ]);
});

Deno.test('the inspect report shows VK_DRIVER_FILES="" as set to the empty string, and no location searched', () => {
  using tree = new TempTree();
  const report = buildInspectReport(tree.snapshot({ VK_DRIVER_FILES: "" }));
  assertEquals(report.drivers.locations, []);
  const text = formatInspectReport(report);
  assert(text.includes('VK_DRIVER_FILES="" (set to the empty string: no driver manifest is searched)'), text);
});
