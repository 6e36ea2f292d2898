/**
 * The instance extension list an application sees, side by side with the Khronos loader (docs/behaviour.md A02, A03):
 *
 * - A03: other platforms' window-system extensions (`VK_KHR_win32_surface`, `VK_EXT_metal_surface`,
 *   ...) are not listed on Linux even when a driver lists them, and enabling one fails with
 *   `VK_ERROR_EXTENSION_NOT_PRESENT`;
 * - A02: the loader lists its own instance extensions, `VK_EXT_debug_report` and `VK_EXT_debug_utils`
 *   (it implements both: chain/extensions/debug.ts), after the drivers', as the Khronos loader does
 *   (docs/behaviour.md A02), and an application can enable them with a driver that has neither;
 * - `VK_LOADER_DISABLE_INST_EXT_FILTER` (non-zero for `atoi`) lifts the filter for drivers, layers and
 *   `vkCreateInstance`, except for the surface extensions a Linux build of the Khronos loader lacks.
 */

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { MockEnvironment } from "../support/mock.ts";
import { khronosProbe, only, vkdenoProbe } from "../support/conform.ts";

/**
 * The instance extension lines, without `VK_LUNARG_direct_driver_loading`: the current Khronos loader lists
 * it last among its own (docs/behaviour.md A02), Debian's libvulkan1 1.3.239 predates it.
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

// VK_LOADER_DISABLE_INST_EXT_FILTER: a value atoi() reads as non-zero lifts the known-extension filter, for
// drivers' and layers' lists and for vkCreateInstance; VK_EXT_directfb_surface and VK_QNX_screen_surface
// stay out (a Linux build of the Khronos loader has no support for them, variable or not).

const LIFT = "VK_LOADER_DISABLE_INST_EXT_FILTER";
const FOREIGN = ["VK_KHR_win32_surface", "VK_EXT_metal_surface", "VK_FOO_unknown_extension"];
const UNBUILT = ["VK_EXT_directfb_surface", "VK_QNX_screen_surface"];

async function driverWithWin32(env: MockEnvironment): Promise<void> {
  await env.addDriver({
    name: "win32",
    variant: "export",
    instanceExtensions: ["VK_KHR_surface", ...FOREIGN, ...UNBUILT],
    physicalDevices: [{ name: "Win0" }],
  });
}

Deno.test("VK_LOADER_DISABLE_INST_EXT_FILTER=1 lists a driver's VK_KHR_win32_surface, metal and unknown names; unset, they are filtered; both as libvulkan", async () => {
  await using env = await MockEnvironment.create();
  await driverWithWin32(env);
  const expected = (lifted: boolean) => [
    "instance_extension VK_KHR_surface",
    ...(lifted ? FOREIGN.map((n) => `instance_extension ${n}`) : []),
    "instance_extension VK_EXT_debug_report",
    "instance_extension VK_EXT_debug_utils",
    "instance_extension VK_KHR_portability_enumeration",
  ];
  for (const [vars, lifted] of [[{}, false], [{ [LIFT]: "1" }, true]] as const) {
    const ours = extensionLines(vkdenoProbe(env, { vars }).lines);
    assertEquals(ours, expected(lifted), JSON.stringify(vars));
    assertEquals(extensionLines((await khronosProbe(env, { vars })).lines), ours, JSON.stringify(vars));
  }
});

Deno.test("VK_LOADER_DISABLE_INST_EXT_FILTER is read with atoi(), as by libvulkan: non-zero lifts the filter, words, 0 and 2^32 do not", async () => {
  await using env = await MockEnvironment.create();
  await driverWithWin32(env);
  const cases: [string, boolean][] = [
    ["", false],
    ["0", false],
    ["yes", false],
    ["true", false],
    ["4294967296", false],
    [" 2", true],
    ["-1", true],
    ["1x", true],
  ];
  for (const [value, lifted] of cases) {
    const vars = { [LIFT]: value };
    const ours = extensionLines(vkdenoProbe(env, { vars }).lines);
    assertEquals(ours.includes("instance_extension VK_KHR_win32_surface"), lifted, JSON.stringify(value));
    assertEquals(extensionLines((await khronosProbe(env, { vars })).lines), ours, JSON.stringify(value));
  }
});

Deno.test("VK_LOADER_DISABLE_INST_EXT_FILTER=1: vkCreateInstance passes VK_KHR_win32_surface down to the driver that lists it; unset, it fails before any driver instance", async () => {
  await using env = await MockEnvironment.create();
  await driverWithWin32(env);
  const enable = ["VK_KHR_surface", "VK_KHR_win32_surface"];
  const created = () => env.callLog("win32").filter((l) => l.startsWith("win32 vkCreateInstance "));

  const refused = vkdenoProbe(env, { enable });
  assertEquals(only(refused.lines, "create_instance"), ["create_instance result=-7"]);
  assertEquals(created(), []);
  assertEquals(
    refused.log.some((l) => l.includes('"VK_KHR_win32_surface" is filtered out') && l.includes(LIFT)),
    true,
    refused.log.join("\n"),
  );

  const lifted = vkdenoProbe(env, { enable, vars: { [LIFT]: "1" } });
  assertEquals(only(lifted.lines, "create_instance"), ["create_instance result=0"]);
  assertEquals(created().length, 1);
  assertEquals(/ exts=VK_KHR_surface,VK_KHR_win32_surface /.test(created()[0]!), true, created()[0]);
  const theirs = await khronosProbe(env, { enable, vars: { [LIFT]: "1" } });
  assertEquals(only(theirs.lines, "create_instance"), ["create_instance result=0"]);
  assertEquals(/ exts=VK_KHR_surface,VK_KHR_win32_surface /.test(created()[1]!), true, created()[1]);
});

Deno.test("VK_LOADER_DISABLE_INST_EXT_FILTER=1 never lets VK_EXT_directfb_surface or VK_QNX_screen_surface through, as libvulkan", async () => {
  await using env = await MockEnvironment.create();
  await driverWithWin32(env);
  const vars = { [LIFT]: "1" };
  for (const name of UNBUILT) {
    const ours = vkdenoProbe(env, { vars, enable: [name] });
    assertEquals(ours.lines.includes(`instance_extension ${name}`), false, name);
    assertEquals(only(ours.lines, "create_instance"), ["create_instance result=-7"], name);
    const theirs = await khronosProbe(env, { vars, enable: [name] });
    assertEquals(only(theirs.lines, "create_instance"), ["create_instance result=-7"], name);
  }
});

Deno.test("VK_LOADER_DISABLE_INST_EXT_FILTER=1 lists an implicit layer's VK_KHR_win32_surface and vkCreateInstance accepts it; unset, vkCreateInstance refuses it; both as libvulkan", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({
    name: "plain",
    variant: "export",
    instanceExtensions: ["VK_KHR_surface"],
    physicalDevices: [{ name: "Plain0" }],
  });
  await env.addLayer({
    name: "VK_LAYER_MOCK_wsi",
    instanceExtensions: [...FOREIGN, ...UNBUILT].map((name) => ({ name })),
  }, { implicit: true });
  const enable = ["VK_KHR_win32_surface"];
  const lifted = vkdenoProbe(env, { enable, vars: { [LIFT]: "1" } });
  const theirs = await khronosProbe(env, { enable, vars: { [LIFT]: "1" } });
  assertEquals(extensionLines(lifted.lines), [
    "instance_extension VK_KHR_surface",
    "instance_extension VK_EXT_debug_report",
    "instance_extension VK_EXT_debug_utils",
    "instance_extension VK_KHR_portability_enumeration",
    ...FOREIGN.map((n) => `instance_extension ${n}`),
  ]);
  assertEquals(extensionLines(theirs.lines), extensionLines(lifted.lines));
  assertEquals(only(lifted.lines, "create_instance"), ["create_instance result=0"]);
  assertEquals(only(theirs.lines, "create_instance"), ["create_instance result=0"]);

  const filtered = vkdenoProbe(env, { enable });
  assertEquals(only(filtered.lines, "create_instance"), ["create_instance result=-7"]);
  assertEquals(only((await khronosProbe(env, { enable })).lines, "create_instance"), [
    "create_instance result=-7",
  ]);
});

Deno.test("VK_LOADER_DEBUG says once per loader that VK_LOADER_DISABLE_INST_EXT_FILTER lifted the filter, and nothing when it is unset", async () => {
  await using env = await MockEnvironment.create();
  await driverWithWin32(env);
  const notes = (log: readonly string[]) => log.filter((l) => l.includes(`${LIFT} is set`));
  // The probe enumerates the instance extensions, then creates an instance: two looks at the filter.
  const lifted = vkdenoProbe(env, { enable: ["VK_KHR_win32_surface"], vars: { [LIFT]: "1" } });
  assertEquals(notes(lifted.log).length, 1, lifted.log.join("\n"));
  assertEquals(
    /^INFO: .*instance extension filter is lifted.*VK_EXT_directfb_surface/.test(notes(lifted.log)[0]!),
    true,
  );
  assertEquals(notes(vkdenoProbe(env).log), []);
});
