/**
 * Layer libraries (loading/layer_library.ts): a layer answering an interface version above the one offered
 * (3 for 2) is refused with a warning naming it, and the instance is made without it; a library stays open
 * while any use of it is live (or it is kept loaded), and closes with its last use.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { MockEnvironment } from "../support/mock.ts";
import { calls, createInstance, load } from "../support/chain.ts";
import { discoverLayers } from "../../discovery/layers.ts";
import { LayerLibrary } from "../../loading/layer_library.ts";

Deno.test("a layer answering interface 3 when offered 2 is refused by name; the instance is made without it", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "drv", physicalDevices: [{}] });
  await env.addLayer({ name: "VK_LAYER_MOCK_above", negotiateAnswer: 3 });
  await env.addLayer({ name: "VK_LAYER_MOCK_fine" });
  using l = load(env.snapshot({ VK_INSTANCE_LAYERS: "VK_LAYER_MOCK_above:VK_LAYER_MOCK_fine" }));
  const { result, instance } = createInstance(l);
  assertEquals(result, 0);
  const text = l.lines.join("\n");
  assert(/VK_LAYER_MOCK_above.*answered interface version 3, newer than the offered 2/.test(text), text);
  const created = calls(env.callLog(), "vkCreateInstance").map((line) => line.split(" ")[0]);
  assertEquals(created, ["VK_LAYER_MOCK_fine", "drv"]);
  l.vk.vkDestroyInstance(instance, null);
});

Deno.test("a layer library stays open while a use of it is live or it is kept loaded, and closes with its last use", async () => {
  await using env = await MockEnvironment.create();
  await env.addLayer({ name: "VK_LAYER_MOCK_shared" });
  const [layer] = discoverLayers(env.snapshot(), { cache: false }).layers;
  const first = LayerLibrary.load(layer!);
  const path = first.path;
  const open = () => LayerLibrary.openPaths().includes(path);
  const second = LayerLibrary.load(layer!);
  first.release();
  assert(open(), "closed while the second use is live");
  assert(second.symbolAddress("vkNegotiateLoaderLayerInterfaceVersion") !== null);
  second.release();
  assert(!open(), "left open after its last use");
  const kept = LayerLibrary.load(layer!, { keepLoaded: true });
  kept.release();
  assert(open(), "a library kept loaded was closed");
});
