/**
 * Manifest file names that are not valid UTF-8 are found and read (docs/behaviour.md M05), as the Khronos
 * loader reads them (Linux file names are bytes; docs/behaviour.md M05). Deno lists such a name lossily
 * (U+FFFD per bad byte), so discovery opens the file by its bytes (ffi/raw_files.ts). A driver and a layer
 * manifest named `bad\xff...json` in folders the variables name, under vkdeno and the Khronos loader.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { MockEnvironment } from "../support/mock.ts";
import { khronosProbe, only, vkdenoProbe } from "../support/conform.ts";

/** Renames `path` to the same folder with a name holding the byte 0xFF (no Deno API writes such a name). */
async function renameToNonUtf8(path: string, stem: string): Promise<void> {
  const dir = path.slice(0, path.lastIndexOf("/"));
  const out = await new Deno.Command("sh", {
    args: ["-c", `mv "$1" "$2/$(printf '${stem}\\377.json')"`, "sh", path, dir],
    stderr: "piped",
  }).output();
  assert(out.success, new TextDecoder().decode(out.stderr));
}

Deno.test("manifest names: a driver manifest and a layer manifest whose names are not UTF-8 are read, as by the Khronos loader", async () => {
  await using env = await MockEnvironment.create();
  const driver = await env.addDriver(
    { name: "raw", variant: "export", physicalDevices: [{ name: "Raw0" }] },
    {
      placement: { folder: "raw_icd" },
    },
  );
  const layer = await env.addLayer({ name: "VK_LAYER_MOCK_raw" }, { placement: { folder: "raw_layers" } });
  await renameToNonUtf8(driver.manifestPath, "driver_");
  await renameToNonUtf8(layer.manifestPath, "layer_");
  const dir = (p: string) => p.slice(0, p.lastIndexOf("/"));
  const vars = {
    VK_DRIVER_FILES: dir(driver.manifestPath),
    VK_LAYER_PATH: dir(layer.manifestPath),
    VK_INSTANCE_LAYERS: "VK_LAYER_MOCK_raw",
  };
  env.clearCallLog();
  const ours = vkdenoProbe(env, { vars });
  const oursInChain = env.callLog().some((l) => l.startsWith("VK_LAYER_MOCK_raw vkCreateInstance "));
  env.clearCallLog();
  const theirs = await khronosProbe(env, { vars });
  const theirsInChain = env.callLog().some((l) => l.startsWith("VK_LAYER_MOCK_raw vkCreateInstance "));
  assertEquals(only(ours.lines, "device "), ["device Raw0"]);
  assertEquals(only(theirs.lines, "device "), only(ours.lines, "device "));
  assert(only(ours.lines, "layer ").includes("layer VK_LAYER_MOCK_raw"), ours.lines.join("\n"));
  assertEquals([oursInChain, theirsInChain], [true, true]);
  // the name is reported as Deno lists it, with U+FFFD for the bad byte
  assert(ours.log.some((l) => l.includes("driver_\uFFFD.json")), ours.log.join("\n"));
});
