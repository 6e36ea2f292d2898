/**
 * Discovery computed once per scan and reused (discovery/scan_memo.ts): while the folders and manifests a
 * scan read are unchanged, the next discovery gives the kept result; a driver manifest added or removed
 * and a layer manifest edited in place (same size, old modification time put back) are seen by the next
 * `vkCreateInstance` of the same process. Scans are only kept once their files are older than the racy
 * window, so the test waits that long before each change it checks against a kept scan.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { discoverDrivers } from "../../discovery/drivers.ts";
import { discoverLayers } from "../../discovery/layers.ts";
import { observePath, RACY_WINDOW_MS, ScanMemo, snapshotKey, stampScope } from "../../discovery/scan_memo.ts";
import { fileStamp } from "../../ffi/file_stamp.ts";
import { createInstance, load, physicalDevices } from "../support/chain.ts";
import { MockEnvironment } from "../support/mock.ts";

const VK_ERROR_LAYER_NOT_PRESENT = -6;

/** Waits until every file written so far is older than the racy window. */
function outlastRacyWindow(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, RACY_WINDOW_MS + 150));
}

/** Physical devices seen by a new instance (destroyed again). */
function deviceCount(l: ReturnType<typeof load>): number {
  const { result, instance } = createInstance(l);
  assertEquals(result, 0);
  try {
    return physicalDevices(l, instance).length;
  } finally {
    l.vk.vkDestroyInstance(instance, null);
  }
}

/** The result of creating an instance with `layers` enabled (destroyed again). */
function createWithLayers(l: ReturnType<typeof load>, layers: string[]): number {
  const { result, instance } = createInstance(l, { layers });
  if (result === 0) l.vk.vkDestroyInstance(instance, null);
  return result;
}

Deno.test("scan memo: an unchanged system reuses the kept scan; a manifest added, edited in place or removed is seen by the next vkCreateInstance", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "first", physicalDevices: [{}] }, { placement: "home_data" });
  const layer = await env.addLayer({ name: "VK_LAYER_MOCK_aaaa" });
  const snapshot = env.snapshot();
  using l = load(snapshot);
  await outlastRacyWindow();

  // Kept: the second discovery hands back the first one's data, and parses nothing.
  const drivers = discoverDrivers(snapshot);
  assert(discoverDrivers(env.snapshot()).drivers === drivers.drivers, "the driver scan was not reused");
  const layers = discoverLayers(snapshot);
  const again = discoverLayers(snapshot);
  assert(again.layers === layers.layers, "the layer scan was not reused");
  assertEquals(again.manifestReads.parsed, 0);
  assertEquals(deviceCount(l), 1);
  assertEquals(createWithLayers(l, ["VK_LAYER_MOCK_aaaa"]), 0);

  // Added beside the first: the folder's stamp changed.
  const second = await env.addDriver({ name: "second", physicalDevices: [{}, {}] }, {
    placement: "home_data",
  });
  assertEquals(deviceCount(l), 3);

  // Edited in place, same size, old modification time restored: the change time still differs.
  const old = Deno.statSync(layer.manifestPath).mtime!;
  const text = Deno.readTextFileSync(layer.manifestPath);
  const before = fileStamp(layer.manifestPath).text;
  // Only the name: the library path names the layer too.
  const renamed = text.replace('"name": "VK_LAYER_MOCK_aaaa"', '"name": "VK_LAYER_MOCK_bbbb"');
  assert(renamed !== text && renamed.length === text.length);
  Deno.writeTextFileSync(layer.manifestPath, renamed);
  Deno.utimeSync(layer.manifestPath, old, old);
  assert(fileStamp(layer.manifestPath).text !== before, "the edit left the stamp unchanged");
  assertEquals(createWithLayers(l, ["VK_LAYER_MOCK_bbbb"]), 0);
  assertEquals(createWithLayers(l, ["VK_LAYER_MOCK_aaaa"]), VK_ERROR_LAYER_NOT_PRESENT);

  // Removed, once the scan after the addition is old enough to be kept.
  await outlastRacyWindow();
  assertEquals(deviceCount(l), 3);
  assert(
    discoverDrivers(snapshot).drivers === discoverDrivers(snapshot).drivers,
    "the new scan was not kept",
  );
  Deno.removeSync(second.manifestPath);
  assertEquals(deviceCount(l), 1);
});

Deno.test("scan memo: a scan younger than the racy window is not kept", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "young", physicalDevices: [{}] }, { placement: "home_data" });
  const snapshot = env.snapshot();
  assert(discoverDrivers(snapshot).drivers !== discoverDrivers(snapshot).drivers, "a young scan was kept");
  await outlastRacyWindow();
  const kept = discoverDrivers(snapshot);
  assert(discoverDrivers(snapshot).drivers === kept.drivers, "an old scan was not kept");
  // Another snapshot (a variable changed) is another scan.
  assert(discoverDrivers(env.snapshot({ VK_LOADER_DEBUG: "all" })).drivers !== kept.drivers);
});

Deno.test("file stamps: missing, folder and file are told apart, and a path that is not a folder is named so", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const file = `${dir}/a.json`;
    Deno.writeTextFileSync(file, "{}");
    assertEquals(fileStamp(`${dir}/none`).kind, "missing");
    assertEquals(fileStamp(dir).kind, "folder");
    assertEquals(fileStamp(file).kind, "file");
    assertEquals(fileStamp(file).size, 2);
    assertEquals(fileStamp(`${file}/x`).kind, "not a folder");
    assert(fileStamp(file).changedMs > Date.now() - 60_000);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("scan memo: inside one stamp scope a path one memo checked is not stamped again by the next; the next check outside it sees the change", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/settings.json`;
    await Deno.writeTextFile(path, "{}");
    await outlastRacyWindow();
    const a = new ScanMemo<number>(), b = new ScanMemo<number>();
    let computed = 0;
    const compute = () => {
      observePath(path);
      return ++computed;
    };
    a.get("k", compute);
    b.get("k", compute);
    assertEquals(computed, 2);
    {
      using _scope = stampScope();
      assertEquals(a.get("k", compute).reused, true);
      await Deno.writeTextFile(path, '{"changed": true}');
      // The file changed after a's check: b is checked against the stamp a's check took.
      assertEquals(b.get("k", compute).reused, true);
    }
    assertEquals(b.get("k", compute).reused, false, "the change is seen once the scope ended");
    // A snapshot's key is built once per scope; outside one, at every call (its vars may change in place).
    const env = { vars: { VK_ICD_FILENAMES: "a.json" }, elevated: false };
    const before = snapshotKey(env);
    {
      using _scope = stampScope();
      assertEquals(snapshotKey(env), before);
      env.vars.VK_ICD_FILENAMES = "b.json";
      assertEquals(snapshotKey(env), before);
    }
    assert(snapshotKey(env) !== before);
    assertEquals(a.get("k", compute).reused, false);
    assertEquals(computed, 4);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
