/**
 * A member repeated inside one JSON object: the first one wins (docs/behaviour.md M07), in driver manifests,
 * layer manifests and the loader settings file, with a warning naming the member. Side by side with Debian's
 * libvulkan1 1.3.239 (the current Khronos loader agrees; 1.3.239 predates the settings file).
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { MockEnvironment } from "../support/mock.ts";
import { khronosProbe, only, vkdenoProbe } from "../support/conform.ts";
import { readJsonc } from "../../discovery/jsonc.ts";
import { readLoaderSettings } from "../../discovery/settings_file.ts";
import { TempTree } from "../support/discovery_tree.ts";

const LAYER = (name: string, extra = "") =>
  `{"name": "${name}", "type": "INSTANCE", "library_path": "\${libraryPath}", "api_version": "1.3.0", ` +
  `"implementation_version": "1", "description": "mock"${extra}}`;

const DRIVER_CASES = [
  {
    name: '"library_path" given twice, the first naming the library',
    text: `{"file_format_version": "1.0.1", "ICD": {"library_path": "\${libraryPath}",
      "library_path": "/nonexistent/libnone.so", "api_version": "1.3.0"}}`,
    member: "library_path",
  },
  {
    name: '"ICD" given twice, the first one usable',
    text:
      `{"file_format_version": "1.0.1", "ICD": {"library_path": "\${libraryPath}", "api_version": "1.3.0"},
      "ICD": {"library_path": "/nonexistent/libnone.so", "api_version": "1.3.0"}}`,
    member: "ICD",
  },
];

for (const c of DRIVER_CASES) {
  Deno.test(`driver manifest with ${c.name}: the first is used, as by the Khronos loader`, async () => {
    await using env = await MockEnvironment.create();
    await env.addDriver({ name: "twice", physicalDevices: [{ name: "Twice0" }] }, { manifestText: c.text });
    const ours = vkdenoProbe(env);
    const theirs = await khronosProbe(env);
    assertEquals(only(ours.lines, "device "), ["device Twice0"]);
    assertEquals(only(ours.lines, "device "), only(theirs.lines, "device "));
    const warning = ours.log.filter((l) => l.includes(`repeats member "${c.member}"`));
    assertEquals(warning.length, 1, ours.log.join("\n"));
    assert(warning[0]!.includes("the first value is used"), warning[0]);
  });
}

Deno.test('layer manifest with "name" given twice, and "layers" given twice: the first of each is used', async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "d", physicalDevices: [{ name: "D0" }] });
  await env.addLayer({ name: "VK_LAYER_MOCK_alpha" }, {
    manifestText: `{"file_format_version": "1.1.0",
      "layer": ${LAYER("VK_LAYER_MOCK_alpha", ', "name": "VK_LAYER_MOCK_beta"')}}`,
  });
  await env.addLayer({ name: "VK_LAYER_MOCK_gamma" }, {
    manifestText: `{"file_format_version": "1.1.0", "layers": [${LAYER("VK_LAYER_MOCK_gamma")}],
      "layers": [${LAYER("VK_LAYER_MOCK_delta")}]}`,
  });
  const ours = vkdenoProbe(env);
  const theirs = await khronosProbe(env);
  const mocks = (lines: string[]) => only(lines, "layer VK_LAYER_MOCK_").sort();
  assertEquals(mocks(ours.lines), ["layer VK_LAYER_MOCK_alpha", "layer VK_LAYER_MOCK_gamma"]);
  assertEquals(mocks(ours.lines), mocks(theirs.lines));
});

Deno.test("loader settings file with a repeated member: the first is used", () => {
  using tree = new TempTree();
  const file = "home/.local/share/vulkan/loader_settings.d/vk_loader_settings.json";
  tree.add({
    [file]: `{"file_format_version": "1.0.0", "settings": {
      "additional_drivers": [{"path": "/opt/first.json"}],
      "additional_drivers": [{"path": "/opt/second.json"}]}}`,
  });
  const read = readLoaderSettings(tree.snapshot({ HOME: tree.path("home") }));
  assertEquals(read.settings?.additionalDrivers, ["/opt/first.json"]);
});

Deno.test("the JSONC reader keeps the first of repeated members and names each repeated one once", () => {
  const r = readJsonc('{"a": 1, "b": {"a": 2, "a": 3}, "a": 4, /* c */ "a": 5, "b": {},}');
  assert(r.ok);
  assertEquals(r.value, { a: 1, b: { a: 2 } });
  assertEquals(r.repeatedKeys, ["a", "b"]);
  assertEquals([r.comments, r.trailingCommas], [1, 1]);
});
