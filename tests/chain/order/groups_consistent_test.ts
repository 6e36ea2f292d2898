/**
 * Device groups are consistent with devices (docs/behaviour.md A15): `vkEnumeratePhysicalDeviceGroups` returns
 * only physical devices that `vkEnumeratePhysicalDevices` returns, whatever removed the others: a driver
 * whose `vkEnumeratePhysicalDevices` failed (skipped, as the current Khronos loader skips it: Vulkan-Loader
 * PR #1468), the device ID filters (docs/behaviour.md P03: "applied to devices and groups"), or the
 * portability rules (M03). The probe checks every group member against the devices it got. The failing
 * driver and portability cases run under the Khronos loader too; the ID filter case runs vkdeno only:
 * Debian's libvulkan1 1.3.239 predates the filters (Vulkan-Loader PR #1759, 2025; docs/behaviour.md P03).
 */

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { MockEnvironment } from "../../support/mock.ts";
import { khronosProbe, only, vkdenoProbe } from "../../support/conform.ts";

/** Devices and groups, as the probe printed them; every group member must be a listed device. */
function devicesAndGroups(lines: readonly string[]): { devices: string[]; groups: string[] } {
  return {
    devices: only(lines, "device ").map((l) => l.slice(7)).sort(),
    groups: only(lines, "group ").map((l) => l.slice(6)).sort(),
  };
}

Deno.test("device groups: a driver whose vkEnumeratePhysicalDevices fails has no device in a group either", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "good", variant: "export", physicalDevices: [{ name: "Good0" }] });
  await env.addDriver({
    name: "half",
    enumeratePhysicalDevicesResult: -3,
    groupsResult: 0,
    physicalDevices: [{ name: "Half0" }, { name: "Half1" }],
    groups: [[0, 1]],
  });
  const ours = vkdenoProbe(env);
  assertEquals(devicesAndGroups(ours.lines), { devices: ["Good0"], groups: ["Good0 known=yes"] });
  // Debian's libvulkan1 1.3.239 predates PR #1468 and fails both calls; a current loader matches vkdeno
  const theirs = devicesAndGroups((await khronosProbe(env)).lines);
  if (theirs.devices.length > 0) assertEquals(theirs, devicesAndGroups(ours.lines));
});

Deno.test("device groups: devices hidden by VK_LOADER_DEVICE_ID_FILTER leave their groups too", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({
    name: "pair",
    physicalDevices: [
      { name: "Kept0", deviceId: 0x1111 },
      { name: "Hidden1", deviceId: 0x2222 },
      { name: "Kept2", deviceId: 0x1111 },
    ],
    groups: [[0, 2], [1]],
  });
  await env.addDriver({
    name: "mixed",
    physicalDevices: [{ name: "Mixed0", deviceId: 0x1111 }, { name: "Mixed1", deviceId: 0x2222 }],
    groups: [[0, 1]],
  });
  const ours = vkdenoProbe(env, { vars: { VK_LOADER_DEVICE_ID_FILTER: "0x1111" } });
  const { devices, groups } = devicesAndGroups(ours.lines);
  assertEquals(devices, ["Kept0", "Kept2", "Mixed0"]);
  // the Khronos loader drops a group as soon as one member fails a filter: Mixed0's group goes, Mixed0 stays
  assertEquals(groups, ["Kept0,Kept2 known=yes"]);
  for (const g of only(ours.lines, "group ")) assertEquals(g.endsWith("known=yes"), true, g);
});

Deno.test("device groups: a portability driver's devices are in no group unless portability enumeration is on", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "plain", variant: "export", physicalDevices: [{ name: "Plain0" }] });
  await env.addDriver(
    {
      name: "portable",
      instanceExtensions: ["VK_KHR_portability_enumeration"],
      physicalDevices: [{ name: "Portable0" }, { name: "Portable1" }],
      groups: [[0, 1]],
    },
    { manifest: { isPortabilityDriver: true } },
  );
  const ours = vkdenoProbe(env);
  const theirs = await khronosProbe(env);
  assertEquals(devicesAndGroups(ours.lines), { devices: ["Plain0"], groups: ["Plain0 known=yes"] });
  assertEquals(devicesAndGroups(theirs.lines), devicesAndGroups(ours.lines));
});
