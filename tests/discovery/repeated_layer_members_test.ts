/**
 * Repeated `"layer"` members of a layer manifest (docs/behaviour.md LM09): in file version 1.0.0 every one is
 * read, in order; from 1.0.1 the file is refused. As the Khronos loader counts them, the first `"layer"` and
 * every member after it are layer objects, so `{"layer": {...}, "file_format_version": "1.1.0"}` is refused
 * too. Side by side with Debian's libvulkan1 1.3.239 (the current Khronos loader agrees).
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { MockEnvironment } from "../support/mock.ts";
import { khronosProbe, only, vkdenoProbe } from "../support/conform.ts";
import { parseManifestText } from "../../discovery/manifest_file.ts";
import { parseLayerManifest } from "../../discovery/layer_manifest.ts";

/** A layer object; `${libraryPath}` is alpha's library, `${betaLibrary}` beta's (one library per layer). */
const LAYER = (name: string) =>
  `{"name": "${name}", "type": "INSTANCE", "api_version": "1.3.0", "implementation_version": "1", ` +
  `"description": "mock", "library_path": "${name.endsWith("beta") ? "${betaLibrary}" : "${libraryPath}"}"}`;

async function sideBySide(text: string, appLayers: string[] = []) {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "d", physicalDevices: [{ name: "D0" }] });
  const beta = await env.addLayer({ name: "VK_LAYER_MOCK_beta" }, { placement: "none" });
  await env.addLayer({ name: "VK_LAYER_MOCK_alpha" }, {
    manifestText: text.replaceAll("${betaLibrary}", beta.libraryPath),
  });
  const o = { appLayers };
  const ours = vkdenoProbe(env, o);
  const theirs = await khronosProbe(env, o);
  const lines = (l: string[]) => [...only(l, "layer VK_LAYER_MOCK_"), ...only(l, "create_instance")];
  assertEquals(lines(ours.lines), lines(theirs.lines));
  return { lines: lines(ours.lines), log: ours.log };
}

Deno.test('file version 1.0.0 with two "layer" members: both layers are listed and can be enabled', async () => {
  const { lines } = await sideBySide(
    `{"file_format_version": "1.0.0", "layer": ${LAYER("VK_LAYER_MOCK_alpha")},
      "layer": ${LAYER("VK_LAYER_MOCK_beta")}}`,
    ["VK_LAYER_MOCK_alpha", "VK_LAYER_MOCK_beta"],
  );
  assertEquals(lines, ["layer VK_LAYER_MOCK_alpha", "layer VK_LAYER_MOCK_beta", "create_instance result=0"]);
});

Deno.test('file version 1.0.0: a member after "layer" is read as one more layer object and skipped', async () => {
  const { lines, log } = await sideBySide(
    `{"layer": ${LAYER("VK_LAYER_MOCK_alpha")}, "file_format_version": "1.0.0",
      "layer": ${LAYER("VK_LAYER_MOCK_beta")}}`,
  );
  assertEquals(lines, ["layer VK_LAYER_MOCK_alpha", "layer VK_LAYER_MOCK_beta", "create_instance result=0"]);
  assert(log.some((l) => /"file_format_version".*is a string, expected an object/.test(l)), log.join("\n"));
});

for (const version of ["1.0.1", "1.1.0"]) {
  Deno.test(`file version ${version} with two "layer" members is refused`, async () => {
    const { lines, log } = await sideBySide(
      `{"file_format_version": "${version}", "layer": ${LAYER("VK_LAYER_MOCK_alpha")},
        "layer": ${LAYER("VK_LAYER_MOCK_beta")}}`,
      ["VK_LAYER_MOCK_alpha"],
    );
    assertEquals(lines, ["create_instance result=-6"]);
    assert(log.some((l) => l.includes('2 "layer" objects')), log.join("\n"));
  });
}

Deno.test('file version 1.1.0 with a member after its one "layer" is refused: the loader counts it as a layer', async () => {
  const { lines, log } = await sideBySide(
    `{"layer": ${LAYER("VK_LAYER_MOCK_alpha")}, "file_format_version": "1.1.0"}`,
    ["VK_LAYER_MOCK_alpha"],
  );
  assertEquals(lines, ["create_instance result=-6"]);
  assert(log.some((l) => l.includes('members after "layer" ("file_format_version")')), log.join("\n"));
});

Deno.test('the layer parser reads the manifest\'s members in text order, repeated "layer" members included', () => {
  const text = `{"file_format_version": "1.0.0", "layer": {"name": "VK_LAYER_a", "type": "GLOBAL",
    "library_path": "a.so", "api_version": "1.3.0", "implementation_version": "1", "description": "a"},
    "layer": {"name": "VK_LAYER_b", "type": "GLOBAL", "library_path": "b.so", "api_version": "1.3.0",
    "implementation_version": "1", "description": "b"}}`;
  const file = parseManifestText(text, "/l/a.json");
  assert(file.ok);
  assertEquals(file.members.map(([key]) => key), ["file_format_version", "layer", "layer"]);
  const r = parseLayerManifest(file.value, {
    manifestPath: "/l/a.json",
    implicit: false,
    members: file.members,
  });
  assertEquals(r.layers.map((l) => l.name), ["VK_LAYER_a", "VK_LAYER_b"]);
});
