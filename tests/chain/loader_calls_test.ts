/**
 * The loader's own calls never pass through layers (docs/behaviour.md A19): a layer sees exactly the calls the
 * application made, as under the Khronos loader (one `vkEnumeratePhysicalDevices` down the chain per
 * application call, Vulkan-Loader PR #770); what the loader itself needs from physical devices (sorting,
 * filters, groups) it asks the drivers at terminator level. The same mock layer logs every physical-device
 * command on entry under both loaders; the sequences must be equal, except that Debian's libvulkan1
 * 1.3.239 also sends its device-extension check of vkCreateDevice through the layers. The real-layer side of this rule (a
 * gfxreconstruct capture of the compute example) is in tests/chain/layer_chain/capture_real_test.ts.
 */

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { MockEnvironment } from "../support/mock.ts";
import { khronosProbe, vkdenoProbe } from "../support/conform.ts";

const PHYSICAL_DEVICE_COMMANDS =
  /^VK_LAYER_MOCK_watch (vkEnumeratePhysicalDevices|vkEnumeratePhysicalDeviceGroups|vkGetPhysicalDevice\w+|vkEnumerateDeviceExtensionProperties|vkCreateDevice)(?= |$)/;

function layerCalls(env: MockEnvironment): string[] {
  return env.callLog().flatMap((l) => {
    const m = PHYSICAL_DEVICE_COMMANDS.exec(l);
    return m ? [m[1]!] : [];
  });
}

Deno.test("loader calls: a layer sees exactly the application's physical-device calls, as under the Khronos loader", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({
    name: "a",
    variant: "export",
    physicalDevices: [{ name: "A0", type: "integrated" }, { name: "A1", type: "discrete" }],
    groups: [[0, 1]],
  });
  await env.addDriver({ name: "b", physicalDevices: [{ name: "B0", type: "cpu" }] });
  await env.addLayer({ name: "VK_LAYER_MOCK_watch" });
  const vars = { VK_INSTANCE_LAYERS: "VK_LAYER_MOCK_watch" };
  env.clearCallLog();
  vkdenoProbe(env, { vars });
  const ours = layerCalls(env);
  env.clearCallLog();
  await khronosProbe(env, { vars });
  const theirs = layerCalls(env);
  // the probe: two-call vkEnumeratePhysicalDevices, vkGetPhysicalDeviceProperties per device, two-call
  // groups, vkCreateDevice per device: nothing else reaches the layer under vkdeno
  assertEquals(ours, [
    "vkEnumeratePhysicalDevices",
    "vkEnumeratePhysicalDevices",
    "vkGetPhysicalDeviceProperties",
    "vkGetPhysicalDeviceProperties",
    "vkGetPhysicalDeviceProperties",
    "vkEnumeratePhysicalDeviceGroups",
    "vkEnumeratePhysicalDeviceGroups",
    "vkCreateDevice",
    "vkCreateDevice",
    "vkCreateDevice",
  ]);
  // Debian's libvulkan1 1.3.239 also sends its own device-extension check in vkCreateDevice down the chain
  // (vkEnumerateDeviceExtensionProperties through the layers); the rest is the same, call for call.
  const theirsApp = theirs.filter((c) => c !== "vkEnumerateDeviceExtensionProperties");
  assertEquals(ours, theirsApp);
  assertEquals(ours.filter((c) => c === "vkEnumeratePhysicalDevices").length, 2);
  assertEquals(ours.filter((c) => c === "vkEnumeratePhysicalDeviceGroups").length, 2);
});
