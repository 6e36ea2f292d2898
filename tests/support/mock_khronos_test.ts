/**
 * The mocks follow the real interface, not only our reading of it: the Khronos
 * loader (`libvulkan.so.1`) runs them, through `vulkaninfo --summary` and a
 * small C application, with `VK_DRIVER_FILES` and `VK_LAYER_PATH` from a
 * MockEnvironment snapshot.
 */

import { deepStrictEqual as assertEquals, match as assertMatch, ok as assert } from "node:assert/strict";
import { MockEnvironment } from "./mock.ts";
import { hostImplicitLayers } from "./conform.ts";

/**
 * Runs a program with only the snapshot's variables (plus PATH), the host's implicit layers disabled
 * by name: `~implicit~` would also drop the tests' own implicit layers, and the Khronos loader 1.3.239
 * does not let `VK_LOADER_LAYERS_ALLOW` bring them back.
 */
async function run(
  env: MockEnvironment,
  program: string,
  args: string[],
  vars: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const snapshot = env.snapshot({ VK_LOADER_LAYERS_DISABLE: hostImplicitLayers().join(","), ...vars });
  const result = await new Deno.Command(program, {
    args,
    clearEnv: true,
    env: { ...snapshot.vars, PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: result.code, stdout: dec.decode(result.stdout), stderr: dec.decode(result.stderr) };
}

function indexOf(log: string[], prefix: string): number {
  const i = log.findIndex((l) => l.startsWith(prefix));
  assert(i >= 0, `no line starting "${prefix}" in:\n${log.join("\n")}`);
  return i;
}

async function twoDriversAndALayer(env: MockEnvironment, layerExtra: object = {}) {
  // the Khronos loader 1.3.239 does not look for the negotiate function through GIPA: export it
  await env.addDriver({
    name: "drvA",
    variant: "export",
    physicalDevices: [{ name: "Mock A0", type: "discrete" }],
  });
  await env.addDriver({
    name: "drvB",
    interfaceVersion: 5,
    physicalDevices: [{ name: "Mock B0" }, { name: "Mock B1", type: "cpu" }],
  });
  return await env.addLayer({ name: "VK_LAYER_MOCK_khronos", ...layerExtra });
}

Deno.test("Khronos loader runs two mock drivers under a mock layer: devices, chain order, device commands", async () => {
  await using env = await MockEnvironment.create();
  const layer = await twoDriversAndALayer(env, { addPhysicalDevices: 1 });
  const out = await run(env, env.build.programs.khronos_client, [], { VK_INSTANCE_LAYERS: layer.name });
  assertEquals(out.code, 0, out.stdout + out.stderr);
  const names = [...out.stdout.matchAll(/name=([^\n]+?) type=/g)].map((m) => m[1]).sort();
  assertEquals(names, ["Mock A0", "Mock B0", "Mock B1", "VK_LAYER_MOCK_khronos Added Device 0"]);
  assertMatch(out.stdout, /\nok\n$/);
  const log = env.callLog();
  assertMatch(
    log[indexOf(log, "drvA vk_icdNegotiateLoaderICDInterfaceVersion")]!,
    /offered=7 returned=7 result=0/,
  );
  assertMatch(
    log[indexOf(log, "drvB vk_icdNegotiateLoaderICDInterfaceVersion")]!,
    /offered=7 returned=5 result=0/,
  );
  assertMatch(
    log[indexOf(log, `${layer.name} vkNegotiateLoaderLayerInterfaceVersion`)]!,
    /offered=2 returned=2/,
  );
  const layerCreate = indexOf(log, `${layer.name} vkCreateInstance`);
  assertMatch(log[layerCreate]!, /chain=.*link/);
  assert(layerCreate < indexOf(log, "drvA vkCreateInstance"));
  assert(layerCreate < indexOf(log, "drvB vkCreateInstance"));
  const layerDevice = indexOf(log, `${layer.name} vkCreateDevice `);
  const driverDevice = log.findIndex((l) => / vkCreateDevice .*result=0$/.test(l) && l.startsWith("drv"));
  assert(layerDevice < driverDevice, "the layer's vkCreateDevice runs before the driver's");
  const draws = log.filter((l) => l.split(" ")[1] === "vkCmdDraw").map((l) => l.split(" ")[0]);
  assertEquals(draws.length, 2);
  assertEquals(draws[0], layer.name);
  assert(draws[1] === "drvA" || draws[1] === "drvB");
  assertEquals(log.filter((l) => / vkDestroyInstance /.test(l)).map((l) => l.split(" ")[0]).sort(), [
    "VK_LAYER_MOCK_khronos",
    "drvA",
    "drvB",
  ]);
});

Deno.test("Khronos loader and mock layer wrapping: device and command buffers wrapped, driver sees its own handles", async () => {
  await using env = await MockEnvironment.create();
  const layer = await twoDriversAndALayer(env, {
    wrapDevice: true,
    wrapCommandBuffers: true,
    reversePhysicalDevices: true,
  });
  const out = await run(env, env.build.programs.khronos_client, [], { VK_INSTANCE_LAYERS: layer.name });
  assertEquals(out.code, 0, out.stdout + out.stderr);
  const log = env.callLog();
  const driverCb = /commandBuffers=(0x[0-9a-f]+)/.exec(
    log.find((l) => / vkAllocateCommandBuffers /.test(l) && l.startsWith("drv"))!,
  )![1];
  const driverDraw = log.find((l) => l.startsWith("drv") && / vkCmdDraw /.test(l))!;
  assertMatch(driverDraw, new RegExp(`commandBuffer=${driverCb} `));
  const layerDraw = log.find((l) => l.startsWith(layer.name) && / vkCmdDraw /.test(l))!;
  assert(!layerDraw.includes(`commandBuffer=${driverCb} `), "the application used the layer's wrapper");
});

Deno.test("Khronos loader surfaces: an interface 7 driver gets its own surface, an interface 2 driver the VkIcdSurface", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({
    name: "own",
    variant: "export",
    physicalDevices: [{ name: "Own0", type: "discrete" }],
  });
  await env.addDriver({
    name: "old",
    interfaceVersion: 2,
    physicalDevices: [{ name: "Old0", type: "integrated" }],
  });
  const out = await run(env, env.build.programs.khronos_client, ["surface"]);
  assertEquals(out.code, 0, out.stdout + out.stderr);
  assertMatch(out.stdout, /surface support 0 1\nsurface support 1 1\n/);
  const log = env.callLog();
  assertMatch(log[indexOf(log, "own vkCreateHeadlessSurfaceEXT")]!, /surface=0x[0-9a-f]+ id=\d+/);
  assertMatch(log[indexOf(log, "own vkGetPhysicalDeviceSurfaceSupportKHR")]!, /kind=own:\d+:headless$/);
  assertMatch(log[indexOf(log, "old vkGetPhysicalDeviceSurfaceSupportKHR")]!, /kind=icd:headless$/);
  const swapchain = log.find((l) => / vkCreateSwapchainKHR /.test(l))!;
  assertMatch(swapchain, swapchain.startsWith("own ") ? /kind=own:\d+:headless / : /kind=icd:headless /);
  assertEquals(log.filter((l) => / vkDestroySurfaceKHR /.test(l)).map((l) => l.split(" ")[0]), ["own"]);
});

Deno.test("vulkaninfo --summary lists the mock drivers' devices through a mock layer", async () => {
  await using env = await MockEnvironment.create();
  const layer = await twoDriversAndALayer(env);
  const out = await run(env, "vulkaninfo", ["--summary"], { VK_INSTANCE_LAYERS: layer.name });
  assertEquals(out.code, 0, out.stdout + out.stderr);
  for (const name of ["Mock A0", "Mock B0", "Mock B1"]) {
    assertMatch(out.stdout, new RegExp(`deviceName\\s+= ${name}\\n`));
  }
  assertMatch(out.stdout, /driverName\s+= mock_icd/);
  assertMatch(out.stdout, /VK_LAYER_MOCK_khronos/);
  const log = env.callLog();
  indexOf(log, `${layer.name} vkCreateInstance`);
  indexOf(log, "drvB vkGetPhysicalDeviceProperties2");
});

Deno.test("Khronos loader honours the mock layer's manifest forms: implicit pre-instance functions, renamed and v1 entry points", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "drv", variant: "export" });
  const implicit = await env.addLayer(
    { name: "VK_LAYER_MOCK_pre", preInstanceVersion: "1.1.0", preInstanceExtension: "VK_MOCK_pre_instance" },
    { implicit: true },
  );
  const renamed = await env.addLayer({ name: "VK_LAYER_MOCK_renamed", variant: "layer_renamed" });
  const old = await env.addLayer({ name: "VK_LAYER_MOCK_old", interfaceVersion: 1 });
  const out = await run(env, env.build.programs.khronos_client, ["pre"], {
    VK_INSTANCE_LAYERS: `${renamed.name}:${old.name}`,
  });
  assertEquals(out.code, 0, out.stdout + out.stderr);
  assertMatch(out.stdout, /^instance version 1\.1\n/);
  assertMatch(out.stdout, /\ninstance extension VK_MOCK_pre_instance\n/);
  const log = env.callLog();
  indexOf(log, `${implicit.name} pre:vkEnumerateInstanceVersion`);
  indexOf(log, `${implicit.name} pre:vkEnumerateInstanceExtensionProperties`);
  assertMatch(
    log[indexOf(log, `${renamed.name} vkNegotiateLoaderLayerInterfaceVersion`)]!,
    /returned=2 result=0/,
  );
  assertEquals(log.some((l) => l.startsWith(`${old.name} vkNegotiate`)), false);
  // implicit layers come first, then VK_INSTANCE_LAYERS in order
  assertEquals(
    log.filter((l) => / vkCreateInstance /.test(l)).map((l) => l.split(" ")[0]),
    ["VK_LAYER_MOCK_pre", "VK_LAYER_MOCK_renamed", "VK_LAYER_MOCK_old", "drv"],
  );
});

Deno.test("Khronos loader takes interface 0 and 1 mock drivers and drops one that fails negotiation or vkCreateInstance", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "zero", interfaceVersion: 0, physicalDevices: [{ name: "Zero0" }] });
  await env.addDriver({ name: "one", interfaceVersion: 1, physicalDevices: [{ name: "One0" }] });
  await env.addDriver({
    name: "refuses",
    interfaceVersion: 5,
    negotiateResult: -9,
    physicalDevices: [{ name: "No0" }],
  });
  await env.addDriver({
    name: "fails",
    variant: "export",
    createInstanceResult: -3,
    physicalDevices: [{ name: "No1" }],
  });
  const out = await run(env, env.build.programs.khronos_client, []);
  assertEquals(out.code, 0, out.stdout + out.stderr);
  const names = [...out.stdout.matchAll(/name=([^\n]+?) type=/g)].map((m) => m[1]).sort();
  assertEquals(names, ["One0", "Zero0"]);
  const log = env.callLog();
  assertMatch(log[indexOf(log, "refuses vk_icdNegotiateLoaderICDInterfaceVersion")]!, /result=-9$/);
  assertEquals(log.some((l) => l.startsWith("refuses vkCreateInstance")), false);
  assertMatch(log[indexOf(log, "fails vkCreateInstance")]!, /result=-3 why=injected$/);
  assertEquals(
    log.some((l) => l.startsWith("zero vk_icdNegotiate") || l.startsWith("one vk_icdNegotiate")),
    false,
  );
});
