/**
 * Loader/driver interface negotiation (LDP_LOADER_1, 3, 5; docs/behaviour.md I01, I02, I05, I07, I08):
 * interfaces 0-7 detected or negotiated, failures skipped with a log line naming the manifest.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { discoverDrivers } from "../../discovery/drivers.ts";
import { acquireDriver, DriverLoadError, loadedDriverCount, releaseDriver } from "../../loading/driver.ts";
import { MockEnvironment } from "../support/mock.ts";
import { calls, createInstance, fields, load, physicalDevices } from "../support/chain.ts";
import { Library } from "../../ffi/library.ts";
import { Logger } from "../../loading/log.ts";
import { Vulkan } from "../../vulkan.ts";

const VK_ERROR_INCOMPATIBLE_DRIVER = -9;

Deno.test("interfaces 0, 1, 2, 3, 5 and 7 are each detected or negotiated", async () => {
  await using env = await MockEnvironment.create();
  for (const v of [0, 1, 2, 3, 5, 7]) {
    // Interface 3 is the first whose exported vk_icdGetPhysicalDeviceProcAddr the loader takes.
    await env.addDriver({ name: `v${v}`, interfaceVersion: v, variant: v === 3 ? "export" : undefined });
  }
  const { drivers } = discoverDrivers(env.snapshot());
  const got = drivers.map((m) => {
    const d = acquireDriver(m);
    try {
      return [m.fileName, d.interfaceVersion, d.getPhysicalDeviceProcAddr !== null];
    } finally {
      releaseDriver(d);
    }
  });
  assertEquals(got, [
    ["v0.json", 0, false],
    ["v1.json", 1, false],
    ["v2.json", 2, false],
    ["v3.json", 3, true],
    ["v5.json", 5, true],
    // Interface 7 exports nothing but vk_icdGetInstanceProcAddr: GPDPA comes through it.
    ["v7.json", 7, true],
  ]);
  const negotiations = calls(env.callLog(), "vk_icdNegotiateLoaderICDInterfaceVersion");
  assertEquals(negotiations.map((l) => [l.split(" ")[0], fields(l).offered, fields(l).returned]), [
    ["v2", "7", "2"],
    ["v3", "7", "3"],
    ["v5", "7", "5"],
    ["v7", "7", "7"],
  ]);
});

Deno.test("every interface creates an instance and sees its device", async () => {
  await using env = await MockEnvironment.create();
  for (const v of [0, 1, 2, 5, 7]) await env.addDriver({ name: `v${v}`, interfaceVersion: v });
  using l = load(env.snapshot());
  const { result, instance } = createInstance(l, { apiVersion: "1.0.0" });
  assertEquals(result, 0);
  assertEquals(physicalDevices(l, instance).length, 5);
  l.vk.vkDestroyInstance(instance, null);
  assertEquals(calls(env.callLog(), "vkDestroyInstance").length, 5);
});

Deno.test("a driver refusing negotiation is skipped with a log line; alone it gives VK_ERROR_INCOMPATIBLE_DRIVER", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({
    name: "refuses",
    interfaceVersion: 5,
    negotiateResult: VK_ERROR_INCOMPATIBLE_DRIVER,
  });
  const [manifest] = discoverDrivers(env.snapshot()).drivers;
  let error: unknown;
  try {
    acquireDriver(manifest!);
  } catch (e) {
    error = e;
  }
  assert(error instanceof DriverLoadError);
  assert(
    error.message.includes("refuses.json") && error.message.includes("negotiation failed"),
    error.message,
  );
  using l = load(env.snapshot());
  assertEquals(createInstance(l).result, VK_ERROR_INCOMPATIBLE_DRIVER);
  assert(
    l.lines.some((line) => line.includes("refuses.json") && line.includes("negotiation failed")),
    l.lines.join("\n"),
  );
  assert(l.lines.some((line) => line.includes("found no drivers")));
});

Deno.test("a driver needing a newer interface than 7 is skipped", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "future", interfaceVersion: 7, minInterfaceVersion: 8 });
  await env.addDriver({ name: "fine", interfaceVersion: 7 });
  using l = load(env.snapshot());
  const { result, instance } = createInstance(l);
  assertEquals(result, 0);
  assertEquals(physicalDevices(l, instance).length, 1);
  assert(l.lines.some((line) => line.includes("future.json") && line.includes("negotiation failed")));
  assertEquals(calls(env.callLog("future"), "vkCreateInstance"), []);
  l.vk.vkDestroyInstance(instance, null);
});

Deno.test("a driver answering an interface version above the one offered (8 for 7) is skipped, however it is given", async () => {
  await using env = await MockEnvironment.create();
  const above = await env.addDriver({ name: "above", interfaceVersion: 7, negotiateAnswer: 8 });
  await env.addDriver({ name: "fine", interfaceVersion: 7, physicalDevices: [{ name: "Fine GPU" }] });
  // Found by its manifest: refused at load, the other driver works.
  using l = load(env.snapshot());
  const { result, instance } = createInstance(l);
  assertEquals(result, 0);
  assertEquals(physicalDevices(l, instance).length, 1);
  const text = l.lines.join("\n");
  assert(/above\.json.*interface version "8", newer than the "7" offered/.test(text), text);
  assertEquals(calls(env.callLog("above"), "vkCreateInstance"), []);
  l.vk.vkDestroyInstance(instance, null);
  // Given by its vk_icdGetInstanceProcAddr: refused the same way.
  const library = Library.open(above.libraryPath);
  try {
    const getInstanceProcAddr = library.symbolAddress("vk_icdGetInstanceProcAddr")!;
    using given = Vulkan.load({
      env: env.snapshot(),
      drivers: [{ name: "above", getInstanceProcAddr }],
      logger: new Logger(env.snapshot(), { write: () => {} }),
    });
    assertEquals(createInstance({ ...l, vk: given }).result, VK_ERROR_INCOMPATIBLE_DRIVER);
  } finally {
    library.close();
  }
});

Deno.test("missing entry points: a library without driver exports is refused, naming what is missing", async () => {
  await using env = await MockEnvironment.create();
  // The mock layer library exports vkGetInstanceProcAddr but neither vk_icd* nor vkCreateInstance.
  const layer = await env.addLayer({ name: "VK_LAYER_MOCK_not_a_driver" }, { placement: "none" });
  await env.addDriver({ name: "layerlib" }, { manifest: { libraryPath: layer.libraryPath } });
  await env.addDriver({ name: "nolib" }, { manifest: { libraryPath: "/nonexistent/libnothing.so" } });
  using l = load(env.snapshot());
  assertEquals(createInstance(l).result, VK_ERROR_INCOMPATIBLE_DRIVER);
  const text = l.lines.join("\n");
  assert(/layerlib\.json.*vkCreateInstance/.test(text), text);
  assert(/nolib\.json.*libnothing\.so/.test(text), text);
});

Deno.test("a failing driver is skipped while another works (LDP_LOADER_5)", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "bad", negotiateResult: VK_ERROR_INCOMPATIBLE_DRIVER, interfaceVersion: 5 });
  await env.addDriver({ name: "fails_create", createInstanceResult: -3 });
  await env.addDriver({ name: "good", physicalDevices: [{ name: "Good GPU" }] });
  using l = load(env.snapshot());
  const { result, instance } = createInstance(l);
  assertEquals(result, 0);
  assertEquals(physicalDevices(l, instance).length, 1);
  assert(
    l.lines.some((line) => line.includes("fails_create.json") && line.includes("vkCreateInstance failed")),
  );
  l.vk.vkDestroyInstance(instance, null);
  // Only the drivers that made an instance are asked to destroy one.
  assertEquals(calls(env.callLog(), "vkDestroyInstance").map((line) => line.split(" ")[0]), ["good"]);
});

Deno.test("each driver library is loaded once and closed after the last instance using it", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "once" });
  const before = loadedDriverCount();
  using l = load(env.snapshot());
  const a = createInstance(l);
  const b = createInstance(l);
  assertEquals([a.result, b.result], [0, 0]);
  assertEquals(loadedDriverCount(), before + 1);
  assertEquals(calls(env.callLog(), "vk_icdNegotiateLoaderICDInterfaceVersion").length, 1);
  l.vk.vkDestroyInstance(a.instance, null);
  assertEquals(loadedDriverCount(), before + 1);
  l.vk.vkDestroyInstance(b.instance, null);
  assertEquals(loadedDriverCount(), before);
});

Deno.test("no drivers at all gives VK_ERROR_INCOMPATIBLE_DRIVER (LDP_LOADER_1)", async () => {
  await using env = await MockEnvironment.create();
  using l = load(env.snapshot({ VK_DRIVER_FILES: env.path("nothing-here") }));
  assertEquals(createInstance(l).result, VK_ERROR_INCOMPATIBLE_DRIVER);
});
