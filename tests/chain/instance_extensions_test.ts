/**
 * The instance extension list an application sees, side by side with the Khronos loader (issue 17):
 *
 * - rule 3: other platforms' window-system extensions (`VK_KHR_win32_surface`, `VK_EXT_metal_surface`,
 *   ...) are not listed on Linux even when a driver lists them, and enabling one fails with
 *   `VK_ERROR_EXTENSION_NOT_PRESENT`;
 * - rule 7: the loader lists its own instance extensions, `VK_EXT_debug_report` and `VK_EXT_debug_utils`
 *   (it implements both: chain/extensions/debug.ts), after the drivers', as the Khronos loader does
 *   (LOADER_BEHAVIOUR A02), and an application can enable them with a driver that has neither.
 */

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { MockEnvironment } from "../support/mock.ts";
import { khronosProbe, only, vkdenoProbe } from "../support/conform.ts";

/**
 * The instance extension lines, without `VK_LUNARG_direct_driver_loading`: the current Khronos loader lists
 * it last among its own (LOADER_BEHAVIOUR A02), Debian's libvulkan1 1.3.239 predates it.
 */
function extensionLines(lines: readonly string[]): string[] {
  return only(lines, "instance_extension ").filter((l) =>
    l !== "instance_extension VK_LUNARG_direct_driver_loading"
  );
}

const LINUX_SURFACES = [
  "VK_KHR_surface",
  "VK_KHR_xcb_surface",
  "VK_KHR_xlib_surface",
  "VK_KHR_wayland_surface",
];
const OTHER_PLATFORMS = [
  "VK_KHR_win32_surface",
  "VK_KHR_android_surface",
  "VK_EXT_metal_surface",
  "VK_MVK_macos_surface",
  "VK_MVK_ios_surface",
  "VK_GGP_stream_descriptor_surface",
  "VK_NN_vi_surface",
  "VK_FUCHSIA_imagepipe_surface",
  "VK_QNX_screen_surface",
  "VK_EXT_directfb_surface",
];

async function driverListingEveryPlatform(env: MockEnvironment): Promise<void> {
  await env.addDriver({
    name: "everywhere",
    variant: "export",
    instanceExtensions: [...LINUX_SURFACES, ...OTHER_PLATFORMS, "VK_KHR_get_physical_device_properties2"],
    physicalDevices: [{ name: "Everywhere0" }],
  });
}

Deno.test("instance extensions: other platforms' surfaces are not listed on Linux, as by the Khronos loader (rule 3)", async () => {
  await using env = await MockEnvironment.create();
  await driverListingEveryPlatform(env);
  const ours = extensionLines(vkdenoProbe(env).lines);
  const theirs = extensionLines((await khronosProbe(env)).lines);
  assertEquals(ours, theirs);
  for (const name of OTHER_PLATFORMS) assertEquals(ours.includes(`instance_extension ${name}`), false, name);
  for (const name of LINUX_SURFACES) assertEquals(ours.includes(`instance_extension ${name}`), true, name);
});

Deno.test("instance extensions: enabling another platform's surface fails with VK_ERROR_EXTENSION_NOT_PRESENT, as in the Khronos loader (rule 3)", async () => {
  await using env = await MockEnvironment.create();
  await driverListingEveryPlatform(env);
  for (const name of ["VK_KHR_win32_surface", "VK_EXT_metal_surface"]) {
    const ours = only(vkdenoProbe(env, { enable: ["VK_KHR_surface", name] }).lines, "create_instance");
    const theirs = only(
      (await khronosProbe(env, { enable: ["VK_KHR_surface", name] })).lines,
      "create_instance",
    );
    assertEquals(ours, ["create_instance result=-7"], name);
    assertEquals(theirs, ours, name);
  }
});

Deno.test("instance extensions: VK_EXT_debug_report and VK_EXT_debug_utils are the loader's own, listed after the drivers' and enabled without driver support (rule 7)", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({
    name: "plain",
    variant: "export",
    instanceExtensions: ["VK_KHR_surface", "VK_KHR_get_physical_device_properties2"],
    physicalDevices: [{ name: "Plain0" }],
  });
  const ours = vkdenoProbe(env, { enable: ["VK_EXT_debug_utils", "VK_EXT_debug_report"] });
  const theirs = await khronosProbe(env, { enable: ["VK_EXT_debug_utils", "VK_EXT_debug_report"] });
  assertEquals(only(ours.lines, "instance_extension "), [
    "instance_extension VK_KHR_surface",
    "instance_extension VK_KHR_get_physical_device_properties2",
    "instance_extension VK_EXT_debug_report",
    "instance_extension VK_EXT_debug_utils",
    "instance_extension VK_KHR_portability_enumeration",
    "instance_extension VK_LUNARG_direct_driver_loading",
  ]);
  assertEquals(extensionLines(ours.lines), extensionLines(theirs.lines));
  assertEquals(only(ours.lines, "create_instance"), ["create_instance result=0"]);
  assertEquals(only(theirs.lines, "create_instance"), ["create_instance result=0"]);
  // the driver, which has neither, is not asked to enable them
  const created = env.callLog("plain").filter((l) => l.startsWith("plain vkCreateInstance "));
  assertEquals(created.length, 2, "one vkCreateInstance per loader");
  for (const line of created) assertEquals(/exts=\S*debug/.test(line), false, line);
});
