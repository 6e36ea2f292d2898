/**
 * The device id filters apply where the current Khronos loader applies them (docs/behaviour.md P03): at the
 * top of the chain, to what the layers return (its filter functions walk the handles
 * `layer_inst_disp.EnumeratePhysicalDevices` gave: Vulkan-Loader PR #2038; docs/behaviour.md P03). So a
 * layer sees every device in its own enumeration, and a device a layer adds is filtered like a driver's.
 * Debian's libvulkan1 1.3.239 predates the filters (PR #1759, 2025), so these run vkdeno only.
 */

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { MockEnvironment } from "../../support/mock.ts";
import { only, vkdenoProbe } from "../../support/conform.ts";

async function twoDevices(env: MockEnvironment): Promise<void> {
  await env.addDriver({
    name: "drv",
    physicalDevices: [{ name: "First", deviceId: 0x1111 }, { name: "Second", deviceId: 0x2222 }],
    groups: [[0], [1]],
  });
}

Deno.test("device id filters: a device a layer adds is filtered like the drivers'", async () => {
  await using env = await MockEnvironment.create();
  await twoDevices(env);
  await env.addLayer({ name: "VK_LAYER_MOCK_adds", addPhysicalDevices: 1 }); // vendor 0xBEEF, device 0xA000
  const vars = { VK_INSTANCE_LAYERS: "VK_LAYER_MOCK_adds" };
  const all = vkdenoProbe(env, { vars });
  assertEquals(only(all.lines, "device "), [
    "device First",
    "device Second",
    "device VK_LAYER_MOCK_adds Added Device 0",
  ]);
  const filtered = vkdenoProbe(env, { vars: { ...vars, VK_LOADER_DEVICE_ID_FILTER: "0x1111" } });
  assertEquals(only(filtered.lines, "device "), ["device First"]);
  assertEquals(only(filtered.lines, "group "), ["group First known=yes"]);
  const added = vkdenoProbe(env, { vars: { ...vars, VK_LOADER_VENDOR_ID_FILTER: "0xBEEF" } });
  assertEquals(only(added.lines, "device "), ["device VK_LAYER_MOCK_adds Added Device 0"]);
});

Deno.test("device id filters: a layer sees every device; the filter applies to what it returns", async () => {
  await using env = await MockEnvironment.create();
  await twoDevices(env);
  // the layer drops the first device it is given
  await env.addLayer({ name: "VK_LAYER_MOCK_drops", removePhysicalDevices: [0] });
  const vars = { VK_INSTANCE_LAYERS: "VK_LAYER_MOCK_drops", VK_LOADER_DEVICE_ID_FILTER: "0x2222" };
  // filtered below the layer, it would get only Second and drop it: nothing would be left
  assertEquals(only(vkdenoProbe(env, { vars }).lines, "device"), [
    "devices result=0 count=1",
    "device Second",
  ]);
});
