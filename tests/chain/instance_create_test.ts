/**
 * Instance creation across drivers: the 1.0-driver `apiVersion` fix-up (LDP_LOADER_7), per-driver
 * extension filtering (LDP_LOADER_9), extension enumeration and validation, create/destroy fan-out.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { readCString, readU32 } from "../../ffi/memory.ts";
import { MockEnvironment } from "../support/mock.ts";
import {
  addr,
  calls,
  createInstance,
  fields,
  firstWord,
  load,
  physicalDevices,
  u32Slot,
} from "../support/chain.ts";

const VK_INCOMPLETE = 5;
const VK_ERROR_LAYER_NOT_PRESENT = -6;
const VK_ERROR_EXTENSION_NOT_PRESENT = -7;
const VK_ERROR_INCOMPATIBLE_DRIVER = -9;

function createLines(env: MockEnvironment): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const line of calls(env.callLog(), "vkCreateInstance")) out[line.split(" ")[0]!] = fields(line);
  return out;
}

Deno.test("1.0 drivers get a copy of VkApplicationInfo with apiVersion 1.0; newer drivers the app's", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "manifest10", apiVersion: "1.3.0" }, { manifest: { apiVersion: "1.0.0" } });
  await env.addDriver({ name: "no_eiv", apiVersion: "1.3.0", enumerateInstanceVersion: false });
  await env.addDriver({ name: "eiv10", apiVersion: "1.0.5" });
  await env.addDriver({ name: "modern", apiVersion: "1.3.0" });
  using l = load(env.snapshot());
  const { result, instance } = createInstance(l, { apiVersion: "1.2.0" });
  assertEquals(result, 0);
  const lines = createLines(env);
  assertEquals(lines.manifest10?.apiVersion, "1.0.0");
  assertEquals(lines.no_eiv?.apiVersion, "1.0.0");
  assertEquals(lines.eiv10?.apiVersion, "1.0.0");
  assertEquals(lines.modern?.apiVersion, "1.2.0");
  // The application's own struct is untouched: every driver saw the same application name.
  assert(Object.values(lines).every((f) => f.app === "chain"), JSON.stringify(lines));
  l.vk.vkDestroyInstance(instance, null);
});

Deno.test("an application without VkApplicationInfo reaches every driver without one", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "old" }, { manifest: { apiVersion: "1.0.0" } });
  await env.addDriver({ name: "new" });
  using l = load(env.snapshot());
  const { result, instance } = createInstance(l, { noApplicationInfo: true });
  assertEquals(result, 0);
  assertEquals(Object.values(createLines(env)).map((f) => f.apiVersion), ["0.0.0", "0.0.0"]);
  l.vk.vkDestroyInstance(instance, null);
});

Deno.test("each driver's vkCreateInstance gets only the extensions it offers, and no layers", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "xcb", instanceExtensions: ["VK_KHR_surface", "VK_KHR_xcb_surface"] });
  await env.addDriver({
    name: "headless",
    instanceExtensions: ["VK_KHR_surface", "VK_EXT_headless_surface"],
  });
  await env.addDriver({ name: "none", instanceExtensions: [] });
  using l = load(env.snapshot());
  const { result, instance } = createInstance(l, {
    extensions: ["VK_KHR_surface", "VK_KHR_xcb_surface", "VK_EXT_headless_surface"],
  });
  assertEquals(result, 0);
  const lines = createLines(env);
  assertEquals(lines.xcb?.exts, "VK_KHR_surface,VK_KHR_xcb_surface");
  assertEquals(lines.headless?.exts, "VK_KHR_surface,VK_EXT_headless_surface");
  assertEquals(lines.none?.exts ?? "", "");
  assert(Object.values(lines).every((f) => f.layers === "0" && f.result === "0"));
  l.vk.vkDestroyInstance(instance, null);
});

Deno.test("VK_KHR_get_physical_device_properties2 is added for a 1.0 app where the driver has it", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "gpdp2", instanceExtensions: ["VK_KHR_get_physical_device_properties2"] });
  using l = load(env.snapshot());
  const { instance } = createInstance(l, { apiVersion: "1.0.0" });
  assertEquals(createLines(env).gpdp2?.exts, "VK_KHR_get_physical_device_properties2");
  l.vk.vkDestroyInstance(instance, null);
});

Deno.test("an extension no driver offers gives VK_ERROR_EXTENSION_NOT_PRESENT; a layer VK_ERROR_LAYER_NOT_PRESENT", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ instanceExtensions: ["VK_KHR_surface"] });
  using l = load(env.snapshot());
  assertEquals(
    createInstance(l, { extensions: ["VK_KHR_wayland_surface"] }).result,
    VK_ERROR_EXTENSION_NOT_PRESENT,
  );
  assertEquals(
    createInstance(l, { extensions: ["VK_EXT_not_an_extension"] }).result,
    VK_ERROR_EXTENSION_NOT_PRESENT,
  );
  assertEquals(createInstance(l, { layers: ["VK_LAYER_nope"] }).result, VK_ERROR_LAYER_NOT_PRESENT);
  assertEquals(calls(env.callLog(), "vkCreateInstance"), []);
  assert(l.lines.some((x) => x.includes('"VK_KHR_wayland_surface"')));
});

Deno.test("the loader's own VK_KHR_portability_enumeration can be enabled on any driver set", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "plain", instanceExtensions: [] });
  using l = load(env.snapshot());
  const { result, instance } = createInstance(l, {
    extensions: ["VK_KHR_portability_enumeration"],
    flags: 1,
  });
  assertEquals(result, 0);
  // The driver does not offer it: it gets neither the name nor the flag.
  assertEquals(createLines(env).plain?.exts ?? "", "");
  assertEquals(createLines(env).plain?.flags, "0x0");
  l.vk.vkDestroyInstance(instance, null);
});

Deno.test("all drivers failing vkCreateInstance gives VK_ERROR_INCOMPATIBLE_DRIVER", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "a", createInstanceResult: -3 });
  await env.addDriver({ name: "b", createInstanceResult: VK_ERROR_INCOMPATIBLE_DRIVER });
  using l = load(env.snapshot());
  assertEquals(createInstance(l).result, VK_ERROR_INCOMPATIBLE_DRIVER);
  assertEquals(calls(env.callLog(), "vkDestroyInstance"), []);
});

Deno.test("instance extensions: drivers' union and the loader's own, deduplicated, two-call with VK_INCOMPLETE", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({
    instanceExtensions: ["VK_KHR_surface", { name: "VK_KHR_xcb_surface", specVersion: 6 }],
  });
  await env.addDriver({
    instanceExtensions: ["VK_KHR_surface", "VK_EXT_headless_surface", "VK_FAKE_unknown_ext"],
  });
  using l = load(env.snapshot());
  const count = u32Slot(l);
  assertEquals(l.vk.vkEnumerateInstanceExtensionProperties(null, count.pointer, null), 0);
  const expected = [
    "VK_KHR_surface",
    "VK_KHR_xcb_surface",
    "VK_EXT_headless_surface",
    "VK_EXT_debug_report",
    "VK_EXT_debug_utils",
    "VK_KHR_portability_enumeration",
    "VK_LUNARG_direct_driver_loading",
  ];
  assertEquals(count.read(), expected.length);
  const props = l.arena.pointer(l.arena.alloc(260 * expected.length));
  assertEquals(l.vk.vkEnumerateInstanceExtensionProperties(null, count.pointer, props), 0);
  const names = expected.map((_, i) => readCString(Deno.UnsafePointer.create(addr(props) + BigInt(260 * i))));
  assertEquals(names, expected);
  assertEquals(readU32(props, 260 + 256), 6);
  const short = u32Slot(l, 2);
  assertEquals(l.vk.vkEnumerateInstanceExtensionProperties(null, short.pointer, props), VK_INCOMPLETE);
  assertEquals(short.read(), 2);
  const layer = l.arena.cstring("VK_LAYER_none");
  assertEquals(
    l.vk.vkEnumerateInstanceExtensionProperties(layer, count.pointer, null),
    VK_ERROR_LAYER_NOT_PRESENT,
  );
  // LDP_LOADER_12: drivers are only ever asked with a NULL layer name.
  assert(
    calls(env.callLog(), "vkEnumerateInstanceExtensionProperties").every((x) => x.endsWith("layer=NULL")),
  );
});

Deno.test("the application's VkInstance is the loader's object: its first word is the instance dispatch table", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "a" });
  using l = load(env.snapshot());
  const { instance } = createInstance(l);
  const driverInstance = fields(calls(env.callLog(), "vkCreateInstance")[0]!).instance!;
  assert(addr(instance) !== BigInt(driverInstance), "the driver's instance leaked to the application");
  const table = firstWord(instance);
  assert(table !== 0n);
  // Every physical device's first word is the same table (layers key on it).
  for (const pd of physicalDevices(l, instance)) assertEquals(firstWord(pd), table);
  l.vk.vkDestroyInstance(instance, null);
  assertEquals(calls(env.callLog(), "vkDestroyInstance").map((x) => fields(x).instance), [driverInstance]);
});

Deno.test("vkEnumerateInstanceVersion gives the loader's version", async () => {
  await using env = await MockEnvironment.create();
  using l = load(env.snapshot());
  const v = u32Slot(l);
  assertEquals(l.vk.vkEnumerateInstanceVersion(v.pointer), 0);
  assertEquals([v.read() >>> 22, (v.read() >>> 12) & 0x3ff], [1, 4]);
});

Deno.test("portability drivers are used only with the flag and VK_KHR_portability_enumeration", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "moltenish", instanceExtensions: ["VK_KHR_portability_enumeration"] }, {
    manifest: { isPortabilityDriver: true },
  });
  using l = load(env.snapshot());
  const plain = createInstance(l);
  assertEquals(plain.result, VK_ERROR_INCOMPATIBLE_DRIVER);
  assert(l.lines.some((x) => x.includes("moltenish.json") && x.includes("portability")), l.lines.join("\n"));
  assertEquals(createInstance(l, { flags: 1 }).result, VK_ERROR_INCOMPATIBLE_DRIVER);
  assertEquals(calls(env.callLog(), "vkCreateInstance"), []);
  const asked = createInstance(l, { flags: 1, extensions: ["VK_KHR_portability_enumeration"] });
  assertEquals(asked.result, 0);
  const line = fields(calls(env.callLog(), "vkCreateInstance")[0]!);
  assertEquals([line.flags, line.exts], ["0x1", "VK_KHR_portability_enumeration"]);
  l.vk.vkDestroyInstance(asked.instance, null);
});

Deno.test("an implicit layer's pre-instance vkEnumerateInstanceVersion answers for the loader", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver();
  await env.addLayer({ name: "VK_LAYER_MOCK_version", preInstanceVersion: "1.1.0" }, { implicit: true });
  using l = load(env.snapshot());
  const v = u32Slot(l);
  assertEquals(l.vk.vkEnumerateInstanceVersion(v.pointer), 0);
  assertEquals([v.read() >>> 22, (v.read() >>> 12) & 0x3ff], [1, 1]);
  using quiet = load(env.snapshot({ VK_MOCK_DISABLE_VK_LAYER_MOCK_version: "1" }));
  const w = u32Slot(quiet);
  assertEquals(quiet.vk.vkEnumerateInstanceVersion(w.pointer), 0);
  assertEquals([w.read() >>> 22, (w.read() >>> 12) & 0x3ff], [1, 4]);
});

Deno.test("an apiVersion below 1.0 is logged as an error and creation goes on", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver();
  using l = load(env.snapshot());
  const { result, instance } = createInstance(l, { apiVersion: "0.0.5" });
  assertEquals(result, 0);
  assert(l.lines.some((x) => x.startsWith("ERROR") && x.includes("VUID-VkApplicationInfo-apiVersion-04010")));
  l.vk.vkDestroyInstance(instance, null);
});
