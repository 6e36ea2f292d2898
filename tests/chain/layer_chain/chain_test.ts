// The layer chain through the public API with mock layers over a mock driver: activation order, negotiation,
// the loader's pNext nodes, loader callbacks, wrapping, physical-device reshaping, devices made through the
// callback, extensions, device layer enumeration, and libraries closed after vkDestroyInstance.
import { deepStrictEqual as assertEquals, notStrictEqual, ok as assert } from "node:assert/strict";
import { CallbackOwner } from "../../../ffi/callback.ts";
import { Library } from "../../../ffi/library.ts";
import { type Pointer, readPointer } from "../../../ffi/memory.ts";
import { readStruct, writeStruct } from "../../../api/structs.ts";
import { LayerLibrary } from "../../../loading/layer_library.ts";
import { enumerateInstanceVersion } from "../../../chain/layer_chain/enumeration.ts";
import {
  addr,
  createDevice,
  createInstance,
  firstWord,
  load,
  type Loaded,
  physicalDevices,
  u32Slot,
} from "../../support/chain.ts";
import { MockEnvironment } from "../../support/mock.ts";
import { buildTestLibrary } from "../../support/c_build.ts";
import { readHandle } from "../../../vk/handle.ts";

const VK_ERROR_LAYER_NOT_PRESENT = -6;
const VK_ERROR_EXTENSION_NOT_PRESENT = -7;
const VK_ERROR_INITIALIZATION_FAILED = -3;

/** Who logged `command`, in call order, up to the first entity that is not a layer (the driver). */
function order(env: MockEnvironment, command: string): string[] {
  const who = env.callLog().filter((l) => l.split(" ")[1] === command).map((l) => l.split(" ")[0]!);
  const bottom = who.findIndex((w) => !w.startsWith("VK_LAYER_"));
  return bottom < 0 ? who : who.slice(0, bottom + 1);
}

function layerNames(l: Loaded, fn: (count: Pointer, props: Pointer) => number): string[] {
  const count = u32Slot(l);
  assertEquals(fn(count.pointer, null), 0);
  const props = l.arena.pointer(l.arena.alloc(520 * Math.max(1, count.read())));
  assertEquals(fn(count.pointer, props), 0);
  return Array.from({ length: count.read() }, (_, i) => readName(props, i, 520));
}

function readName(array: Pointer, i: number, stride: number): string {
  const view = new Deno.UnsafePointerView(array!);
  const bytes = new Uint8Array(view.getArrayBuffer(256, i * stride));
  const end = bytes.indexOf(0);
  return new TextDecoder().decode(bytes.subarray(0, end < 0 ? 256 : end));
}

function extensionNames(
  l: Loaded,
  fn: (count: Pointer, props: Pointer) => number,
): { result: number; names: string[] } {
  const count = u32Slot(l);
  const r = fn(count.pointer, null);
  if (r < 0) return { result: r, names: [] };
  const props = l.arena.pointer(l.arena.alloc(260 * Math.max(1, count.read())));
  const result = fn(count.pointer, props);
  return { result, names: Array.from({ length: count.read() }, (_, i) => readName(props, i, 260)) };
}

function test(name: string, fn: () => Promise<void>): void {
  Deno.test({ name, fn });
}

function live() {
  return {
    layers: LayerLibrary.liveCount,
    libraries: Library.liveCount,
    callbacks: CallbackOwner.liveCount,
  };
}

test("implicit, VK_INSTANCE_LAYERS and application layers chain in that order, each seeing the loader nodes", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "drv", physicalDevices: [{}] });
  await env.addLayer({ name: "VK_LAYER_MOCK_app" });
  await env.addLayer({ name: "VK_LAYER_MOCK_env" });
  await env.addLayer({ name: "VK_LAYER_MOCK_implicit" }, { implicit: true });
  using l = load(env.snapshot({ VK_INSTANCE_LAYERS: "VK_LAYER_MOCK_env" }));
  const { result, instance } = createInstance(l, { layers: ["VK_LAYER_MOCK_app"] });
  assertEquals(result, 0);
  const chain = ["VK_LAYER_MOCK_implicit", "VK_LAYER_MOCK_env", "VK_LAYER_MOCK_app"];
  assertEquals(order(env, "vkCreateInstance"), [...chain, "drv"]);
  for (
    const line of env.callLog().filter((x) => x.includes("VK_LAYER_MOCK") && x.includes(" vkCreateInstance "))
  ) {
    assert(line.includes("chain=features,create_device,data,link"), line);
  }
  assertEquals(
    env.callLog().filter((x) => x.includes("vkNegotiateLoaderLayerInterfaceVersion")).map((x) =>
      x.split(" ")[0]
    ),
    chain,
  );
  // The application's instance-level and physical-device calls enter at the first layer.
  env.clearCallLog();
  const [pd] = physicalDevices(l, instance);
  assertEquals(order(env, "vkEnumeratePhysicalDevices"), [...chain, "drv"]);
  const props = l.arena.pointer(l.arena.alloc(1024));
  // (Sorting inside the terminator asks the driver for properties too: start the log here.)
  env.clearCallLog();
  l.vk.vkGetPhysicalDeviceProperties(pd!, props);
  assertEquals(order(env, "vkGetPhysicalDeviceProperties"), [...chain, "drv"]);
  // Devices: the same order, with the device nodes; device-level calls go stub -> first layer.
  env.clearCallLog();
  const { result: dr, device } = createDevice(l, pd!);
  assertEquals(dr, 0);
  assertEquals(order(env, "vkCreateDevice"), [...chain, "drv"]);
  for (
    const line of env.callLog().filter((x) => x.includes("VK_LAYER_MOCK") && x.includes(" vkCreateDevice "))
  ) {
    assert(line.includes("chain=data,link"), line);
  }
  const queue = l.arena.pointer(l.arena.alloc(8));
  l.vk.vkGetDeviceQueue(device, 0, 0, queue);
  assertEquals(order(env, "vkGetDeviceQueue"), [...chain, "drv"]);
  assertEquals(firstWord(readPointer(queue, 0)), firstWord(device));
  assertEquals(l.vk.vkDeviceWaitIdle(device), 0);
  assertEquals(order(env, "vkDeviceWaitIdle"), [...chain, "drv"]);
  // vkEnumerateDeviceLayerProperties: the instance's layers, in chain order.
  assertEquals(layerNames(l, (c, p) => l.vk.vkEnumerateDeviceLayerProperties(pd!, c, p)), chain);
  env.clearCallLog();
  l.vk.vkDestroyDevice(device, null);
  assertEquals(order(env, "vkDestroyDevice"), [...chain, "drv"]);
  l.vk.vkDestroyInstance(instance, null);
  assertEquals(order(env, "vkDestroyInstance"), [...chain, "drv"]);
});

test("an application layer that is missing gives VK_ERROR_LAYER_NOT_PRESENT and loads nothing", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver();
  await env.addLayer({ name: "VK_LAYER_MOCK_present" });
  const before = live();
  using l = load(env.snapshot());
  assertEquals(
    createInstance(l, { layers: ["VK_LAYER_MOCK_present", "VK_LAYER_MOCK_absent"] }).result,
    VK_ERROR_LAYER_NOT_PRESENT,
  );
  assertEquals(live(), before);
  assertEquals(env.callLog(), []);
  assert(l.lines.some((x) => x.includes('"VK_LAYER_MOCK_absent"')), l.lines.join("\n"));
});

test("interface 0/1 layers (no negotiation) and renamed entry points chain like interface 2 ones", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "drv" });
  await env.addLayer({ name: "VK_LAYER_MOCK_old", interfaceVersion: 1 });
  await env.addLayer({ name: "VK_LAYER_MOCK_renamed", variant: "layer_renamed" });
  using l = load(env.snapshot());
  const { result, instance } = createInstance(l, { layers: ["VK_LAYER_MOCK_old", "VK_LAYER_MOCK_renamed"] });
  assertEquals(result, 0);
  assertEquals(order(env, "vkCreateInstance"), ["VK_LAYER_MOCK_old", "VK_LAYER_MOCK_renamed", "drv"]);
  assertEquals(
    env.callLog().filter((x) => x.includes("vkNegotiateLoaderLayerInterfaceVersion")).map((x) =>
      x.split(" ")[0]
    ),
    ["VK_LAYER_MOCK_renamed"],
  );
  const [pd] = physicalDevices(l, instance);
  const { device } = createDevice(l, pd!);
  assertEquals(order(env, "vkCreateDevice"), ["VK_LAYER_MOCK_old", "VK_LAYER_MOCK_renamed", "drv"]);
  l.vk.vkDestroyDevice(device, null);
  l.vk.vkDestroyInstance(instance, null);
});

test("a layer without vkGetDeviceProcAddr takes part in the instance chain only", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "drv" });
  // Renamed exports, but the manifest names only the instance entry point and no negotiation.
  await env.addLayer({ name: "VK_LAYER_MOCK_instance_only", variant: "layer_renamed" }, {
    manifest: {
      fileFormatVersion: "1.0.0",
      functions: { vkGetInstanceProcAddr: "MockLayer_GetInstanceProcAddr" },
    },
  });
  await env.addLayer({ name: "VK_LAYER_MOCK_both" });
  using l = load(env.snapshot());
  const { instance } = createInstance(l, { layers: ["VK_LAYER_MOCK_instance_only", "VK_LAYER_MOCK_both"] });
  assertEquals(order(env, "vkCreateInstance"), ["VK_LAYER_MOCK_instance_only", "VK_LAYER_MOCK_both", "drv"]);
  const [pd] = physicalDevices(l, instance);
  const { result, device } = createDevice(l, pd!);
  assertEquals(result, 0);
  assertEquals(order(env, "vkCreateDevice"), ["VK_LAYER_MOCK_both", "drv"]);
  // It is still an activated layer of the instance.
  assertEquals(layerNames(l, (c, p) => l.vk.vkEnumerateDeviceLayerProperties(pd!, c, p)), [
    "VK_LAYER_MOCK_instance_only",
    "VK_LAYER_MOCK_both",
  ]);
  l.vk.vkDestroyDevice(device, null);
  l.vk.vkDestroyInstance(instance, null);
});

test("a layer failing vkCreateInstance hands its error to the app and leaves no library or callback", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "drv" });
  await env.addLayer({ name: "VK_LAYER_MOCK_ok" });
  await env.addLayer({ name: "VK_LAYER_MOCK_failing", createInstanceResult: VK_ERROR_INITIALIZATION_FAILED });
  using l = load(env.snapshot());
  const vkLoad = live();
  const { result } = createInstance(l, { layers: ["VK_LAYER_MOCK_ok", "VK_LAYER_MOCK_failing"] });
  assertEquals(result, VK_ERROR_INITIALIZATION_FAILED);
  assertEquals(order(env, "vkCreateInstance"), ["VK_LAYER_MOCK_ok", "VK_LAYER_MOCK_failing"]);
  assertEquals(live(), vkLoad);
});

test("layer libraries load once per process and close after the last vkDestroyInstance", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver();
  const layer = await env.addLayer({ name: "VK_LAYER_MOCK_shared" });
  using l = load(env.snapshot());
  // The loader makes its own terminator callbacks on first use and keeps them: warm it up first.
  l.vk.vkDestroyInstance(createInstance(l, { layers: ["VK_LAYER_MOCK_shared"] }).instance, null);
  const start = live();
  const a = createInstance(l, { layers: ["VK_LAYER_MOCK_shared"] });
  const b = createInstance(l, { layers: ["VK_LAYER_MOCK_shared"] });
  assertEquals([a.result, b.result], [0, 0]);
  assertEquals(LayerLibrary.openPaths().filter((p) => p === layer.libraryPath).length, 1);
  assertEquals(LayerLibrary.liveCount, start.layers + 2);
  l.vk.vkDestroyInstance(a.instance, null);
  assert(LayerLibrary.openPaths().includes(layer.libraryPath));
  l.vk.vkDestroyInstance(b.instance, null);
  assert(!LayerLibrary.openPaths().includes(layer.libraryPath));
  assertEquals(live(), start);
});

test("a layer wrapping VkDevice and command buffers: the loader's table is stamped into its objects", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "drv" });
  await env.addLayer({ name: "VK_LAYER_MOCK_wrap", wrapDevice: true, wrapCommandBuffers: true });
  using l = load(env.snapshot());
  const { instance } = createInstance(l, { layers: ["VK_LAYER_MOCK_wrap"] });
  const [pd] = physicalDevices(l, instance);
  const { result, device } = createDevice(l, pd!);
  assertEquals(result, 0);
  const done = env.callLog("VK_LAYER_MOCK_wrap").find((x) => x.includes("vkCreateDevice.done"))!;
  const [, down] = /down=(0x[0-9a-f]+)/.exec(done)!;
  notStrictEqual(addr(device), BigInt(down!), "the application holds the layer's wrapper");
  // The wrapper and the driver's device share the loader's device table.
  assertEquals(firstWord(device), firstWord(Deno.UnsafePointer.create(BigInt(down!))));
  const queue = l.arena.pointer(l.arena.alloc(8));
  l.vk.vkGetDeviceQueue(device, 0, 0, queue);
  assert(
    env.callLog("drv").some((x) => x.startsWith(`drv vkGetDeviceQueue device=${down}`)),
    env.callLog().join("\n"),
  );
  // Layer-made command buffers get the loader's table through vkSetDeviceLoaderData.
  const pool = l.arena.pointer(l.arena.alloc(8));
  assertEquals(
    l.vk.vkCreateCommandPool(device, writeStruct(l.arena, "VkCommandPoolCreateInfo", {}), null, pool),
    0,
  );
  const cbs = l.arena.pointer(l.arena.alloc(16));
  const alloc = writeStruct(l.arena, "VkCommandBufferAllocateInfo", {
    commandPool: readHandle("VkCommandPool", pool)!,
    commandBufferCount: 2,
  });
  assertEquals(l.vk.vkAllocateCommandBuffers(device, alloc, cbs), 0);
  const cb = readHandle("VkCommandBuffer", cbs, 0)!;
  assertEquals(firstWord(cb), firstWord(device));
  assertEquals(
    l.vk.vkBeginCommandBuffer(
      cb,
      writeStruct(l.arena, "VkCommandBufferBeginInfo", {}),
    ),
    0,
  );
  assertEquals(order(env, "vkBeginCommandBuffer"), ["VK_LAYER_MOCK_wrap", "drv"]);
  assertEquals(l.vk.vkEndCommandBuffer(cb), 0);
  l.vk.vkFreeCommandBuffers(device, readHandle("VkCommandPool", pool, 0)!, 2, cbs);
  l.vk.vkDestroyCommandPool(device, readHandle("VkCommandPool", pool, 0), null);
  l.vk.vkDestroyDevice(device, null);
  l.vk.vkDestroyInstance(instance, null);
});

test("a layer that reorders and adds physical devices: the application sees its list and can use it", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "drv", physicalDevices: [{ name: "GPU zero" }, { name: "GPU one" }] });
  await env.addLayer({ name: "VK_LAYER_MOCK_shape", reversePhysicalDevices: true, addPhysicalDevices: 1 });
  using l = load(env.snapshot());
  const { instance } = createInstance(l, { layers: ["VK_LAYER_MOCK_shape"] });
  const pds = physicalDevices(l, instance);
  const names = pds.map((pd) => {
    const props = l.arena.pointer(l.arena.alloc(1024));
    l.vk.vkGetPhysicalDeviceProperties(pd, props);
    return readStruct("VkPhysicalDeviceProperties", props).deviceName;
  });
  assertEquals(names, ["GPU one", "GPU zero", "VK_LAYER_MOCK_shape Added Device 0"]);
  // The same handles on every enumeration; the loader's handles all carry the instance table.
  assertEquals(physicalDevices(l, instance).map(addr), pds.map(addr));
  for (const pd of pds) assertEquals(firstWord(pd), firstWord(instance));
  // The layer-made device was stamped through vkSetInstanceLoaderData.
  const added = readPointer(pds[2]!, 8);
  assertEquals(firstWord(added), firstWord(instance));
  // Groups follow the same list.
  const count = u32Slot(l);
  assertEquals(l.vk.vkEnumeratePhysicalDeviceGroups(instance, count.pointer, null), 0);
  assertEquals(count.read(), 3);
  // A device on a reordered driver device works.
  const { result, device } = createDevice(l, pds[0]!);
  assertEquals(result, 0);
  l.vk.vkDestroyDevice(device, null);
  l.vk.vkDestroyInstance(instance, null);
});

test("a layer creating its device through pfnLayerCreateDevice gets the chain below it", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "drv" });
  await env.addLayer({ name: "VK_LAYER_MOCK_top" });
  await env.addLayer({ name: "VK_LAYER_MOCK_caller", createDeviceThroughCallback: true });
  await env.addLayer({ name: "VK_LAYER_MOCK_below" });
  using l = load(env.snapshot());
  const { instance } = createInstance(l, {
    layers: ["VK_LAYER_MOCK_top", "VK_LAYER_MOCK_caller", "VK_LAYER_MOCK_below"],
  });
  const [pd] = physicalDevices(l, instance);
  const { result, device } = createDevice(l, pd!);
  assertEquals(result, 0);
  assertEquals(order(env, "vkCreateDevice"), [
    "VK_LAYER_MOCK_top",
    "VK_LAYER_MOCK_caller",
    "VK_LAYER_MOCK_below",
    "drv",
  ]);
  assert(env.callLog("VK_LAYER_MOCK_caller").some((x) => x.includes("via=callback")));
  env.clearCallLog();
  const queue = l.arena.pointer(l.arena.alloc(8));
  l.vk.vkGetDeviceQueue(device, 0, 0, queue);
  assertEquals(order(env, "vkGetDeviceQueue"), [
    "VK_LAYER_MOCK_top",
    "VK_LAYER_MOCK_caller",
    "VK_LAYER_MOCK_below",
    "drv",
  ]);
  l.vk.vkDestroyDevice(device, null);
  assertEquals(order(env, "vkDestroyDevice"), [
    "VK_LAYER_MOCK_top",
    "VK_LAYER_MOCK_caller",
    "VK_LAYER_MOCK_below",
    "drv",
  ]);
  l.vk.vkDestroyInstance(instance, null);
});

test("layer extensions: pLayerName lists, implicit ones in the global list, create-time checks", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "drv", instanceExtensions: ["VK_KHR_surface"] });
  await env.addLayer({
    name: "VK_LAYER_MOCK_explicit",
    instanceExtensions: [{ name: "VK_EXT_validation_flags", specVersion: 3 }],
    deviceExtensions: [{ name: "VK_EXT_debug_marker", specVersion: 4 }],
  });
  await env.addLayer({
    name: "VK_LAYER_MOCK_implicit",
    instanceExtensions: [{ name: "VK_EXT_validation_features", specVersion: 5 }],
  }, { implicit: true });
  using l = load(env.snapshot());
  const inst = (layer: string | null) => (c: Pointer, p: Pointer) =>
    l.vk.vkEnumerateInstanceExtensionProperties(layer === null ? null : l.arena.cstring(layer), c, p);
  assertEquals(extensionNames(l, inst("VK_LAYER_MOCK_explicit")).names, ["VK_EXT_validation_flags"]);
  assertEquals(extensionNames(l, inst("VK_LAYER_MOCK_missing")).result, VK_ERROR_LAYER_NOT_PRESENT);
  const global = extensionNames(l, inst(null)).names;
  assert(global.includes("VK_EXT_validation_features"), global.join());
  assert(!global.includes("VK_EXT_validation_flags"), global.join());
  // An explicit layer's extension needs that layer enabled; an implicit one's is there already.
  assertEquals(
    createInstance(l, { extensions: ["VK_EXT_validation_flags"] }).result,
    VK_ERROR_EXTENSION_NOT_PRESENT,
  );
  const implicitOnly = createInstance(l, { extensions: ["VK_EXT_validation_features"] });
  assertEquals(implicitOnly.result, 0);
  l.vk.vkDestroyInstance(implicitOnly.instance, null);
  const ok = createInstance(l, {
    extensions: ["VK_EXT_validation_flags"],
    layers: ["VK_LAYER_MOCK_explicit"],
  });
  assertEquals(ok.result, 0);
  const [pd] = physicalDevices(l, ok.instance);
  const dev = (layer: string | null) => (c: Pointer, p: Pointer) =>
    l.vk.vkEnumerateDeviceExtensionProperties(pd!, layer === null ? null : l.arena.cstring(layer), c, p);
  assertEquals(extensionNames(l, dev("VK_LAYER_MOCK_explicit")).names, ["VK_EXT_debug_marker"]);
  assertEquals(extensionNames(l, dev("VK_LAYER_MOCK_nope")).result, VK_ERROR_LAYER_NOT_PRESENT);
  l.vk.vkDestroyInstance(ok.instance, null);
});

test("vkEnumerateInstanceLayerProperties lists every available layer, implicit first", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver();
  await env.addLayer({ name: "VK_LAYER_MOCK_b" });
  await env.addLayer({ name: "VK_LAYER_MOCK_a" }, { implicit: true });
  using l = load(env.snapshot());
  assertEquals(layerNames(l, (c, p) => l.vk.vkEnumerateInstanceLayerProperties(c, p)), [
    "VK_LAYER_MOCK_a",
    "VK_LAYER_MOCK_b",
  ]);
});

test("VK_LOADER_DISABLE_DYNAMIC_LIBRARY_UNLOADING=1 keeps layer libraries loaded after vkDestroyInstance", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver();
  const kept = await env.addLayer({ name: "VK_LAYER_MOCK_kept" });
  for (const [value, stays] of [["0", false], ["1", true]] as const) {
    using l = load(env.snapshot({ VK_LOADER_DISABLE_DYNAMIC_LIBRARY_UNLOADING: value }));
    const { result, instance } = createInstance(l, { layers: ["VK_LAYER_MOCK_kept"] });
    assertEquals(result, 0);
    l.vk.vkDestroyInstance(instance, null);
    assertEquals(LayerLibrary.openPaths().includes(kept.libraryPath), stays);
  }
});

test("device layers are deprecated: a differing VkDeviceCreateInfo.ppEnabledLayerNames is only warned about", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "drv" });
  await env.addLayer({ name: "VK_LAYER_MOCK_x" });
  using l = load(env.snapshot());
  const { instance } = createInstance(l, { layers: ["VK_LAYER_MOCK_x"] });
  const [pd] = physicalDevices(l, instance);
  const queue = writeStruct(l.arena, "VkDeviceQueueCreateInfo", {
    queueFamilyIndex: 0,
    pQueuePriorities: [1],
  });
  const info = writeStruct(l.arena, "VkDeviceCreateInfo", {
    pQueueCreateInfos: queue,
    queueCreateInfoCount: 1,
    ppEnabledLayerNames: ["VK_LAYER_MOCK_other"],
  });
  const out = l.arena.pointer(l.arena.alloc(8));
  assertEquals(l.vk.vkCreateDevice(pd!, info, null, out), 0);
  assertEquals(order(env, "vkCreateDevice"), ["VK_LAYER_MOCK_x", "drv"]);
  assert(l.lines.some((x) => x.includes("device layers are deprecated")), l.lines.join("\n"));
  l.vk.vkDestroyDevice(readHandle("VkDevice", out, 0), null);
  l.vk.vkDestroyInstance(instance, null);
});

Deno.test({
  name:
    "a layer's device extension: enabled without the driver seeing it, its command found through vkGetDeviceProcAddr",
}, async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "drv" });
  await env.addLayer({
    name: "VK_LAYER_MOCK_devext",
    functionBase: 0x30000,
    deviceExtensions: [{ name: "VK_MOCK_layer_device", entrypoints: ["vkMockLayerDeviceFn"] }],
  });
  using l = load(env.snapshot());
  const { instance } = createInstance(l, { layers: ["VK_LAYER_MOCK_devext"] });
  const [pd] = physicalDevices(l, instance);
  // An extension nobody offers fails before any driver sees it.
  env.clearCallLog();
  assertEquals(
    createDevice(l, pd!, { extensions: ["VK_KHR_nonexistent"] }).result,
    VK_ERROR_EXTENSION_NOT_PRESENT,
  );
  assertEquals(order(env, "vkCreateDevice"), ["VK_LAYER_MOCK_devext"]);
  const { result, device } = createDevice(l, pd!, { extensions: ["VK_MOCK_layer_device"] });
  assertEquals(result, 0);
  const driverLine = env.callLog("drv").find((x) =>
    x.includes(" vkCreateDevice ") && x.includes("result=0")
  )!;
  assert(driverLine.includes("exts= "), driverLine);
  const fn = l.vk.vkGetDeviceProcAddr(device, "vkMockLayerDeviceFn");
  assert(fn !== null);
  const call = new Deno.UnsafeFnPointer(
    fn as Deno.PointerObject<never>,
    { parameters: ["pointer", "u32"], result: "u32" } as const,
  );
  assertEquals(call.call(device, 5), 0x30000 + 0x200 + 5); // the mock layer's vkMockLayerDeviceFn: base + 0x200 + x
  l.vk.vkDestroyDevice(device, null);
  l.vk.vkDestroyInstance(instance, null);
});

test("vkEnumerateDeviceExtensionProperties(NULL) adds active implicit layers' device extensions, not explicit ones'", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "drv", physicalDevices: [{ extensions: ["VK_KHR_swapchain"] }] });
  await env.addLayer({ name: "VK_LAYER_MOCK_imp", deviceExtensions: [{ name: "VK_MOCK_implicit_device" }] }, {
    implicit: true,
  });
  await env.addLayer({ name: "VK_LAYER_MOCK_exp", deviceExtensions: [{ name: "VK_MOCK_explicit_device" }] });
  using l = load(env.snapshot());
  const { instance } = createInstance(l, { layers: ["VK_LAYER_MOCK_exp"] });
  const [pd] = physicalDevices(l, instance);
  const all = extensionNames(l, (c, p) => l.vk.vkEnumerateDeviceExtensionProperties(pd!, null, c, p));
  assertEquals(all.result, 0);
  assertEquals(all.names, ["VK_KHR_swapchain", "VK_MOCK_implicit_device"]);
  // The short-array idiom still reports VK_INCOMPLETE.
  const one = u32Slot(l, 1);
  const props = l.arena.pointer(l.arena.alloc(260));
  assertEquals(l.vk.vkEnumerateDeviceExtensionProperties(pd!, null, one.pointer, props), 5);
  l.vk.vkDestroyInstance(instance, null);
});

test("a meta layer chains its components in order; vkEnumerateDeviceLayerProperties lists it after them", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "drv" });
  await env.addLayer({ name: "VK_LAYER_MOCK_c1" });
  await env.addLayer({ name: "VK_LAYER_MOCK_c2" });
  const dir = env.path("meta");
  Deno.mkdirSync(dir, { recursive: true });
  Deno.writeTextFileSync(
    `${dir}/meta.json`,
    JSON.stringify({
      file_format_version: "1.1.2",
      layer: {
        name: "VK_LAYER_MOCK_meta",
        type: "GLOBAL",
        api_version: "1.3.0",
        implementation_version: "1",
        description: "meta",
        component_layers: ["VK_LAYER_MOCK_c2", "VK_LAYER_MOCK_c1"],
      },
    }),
  );
  const snap = env.snapshot();
  using l = load({ ...snap, vars: { ...snap.vars, VK_LAYER_PATH: `${snap.vars.VK_LAYER_PATH}:${dir}` } });
  const { result, instance } = createInstance(l, { layers: ["VK_LAYER_MOCK_meta"] });
  assertEquals(result, 0);
  assertEquals(order(env, "vkCreateInstance"), ["VK_LAYER_MOCK_c2", "VK_LAYER_MOCK_c1", "drv"]);
  const [pd] = physicalDevices(l, instance);
  assertEquals(layerNames(l, (c, p) => l.vk.vkEnumerateDeviceLayerProperties(pd!, c, p)), [
    "VK_LAYER_MOCK_c2",
    "VK_LAYER_MOCK_c1",
    "VK_LAYER_MOCK_meta",
  ]);
  l.vk.vkDestroyInstance(instance, null);
});

test("a layer library that cannot be opened: VK_ERROR_LAYER_NOT_PRESENT when requested, skipped when implicit", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "drv" });
  await env.addLayer({ name: "VK_LAYER_MOCK_gone" }, {
    manifest: { libraryPath: "/nonexistent/libgone.so" },
  });
  await env.addLayer({ name: "VK_LAYER_MOCK_gone_implicit" }, {
    implicit: true,
    manifest: { libraryPath: "/nonexistent/libgone_implicit.so" },
  });
  using l = load(env.snapshot());
  const before = live();
  assertEquals(createInstance(l, { layers: ["VK_LAYER_MOCK_gone"] }).result, VK_ERROR_LAYER_NOT_PRESENT);
  assert(l.lines.some((x) => x.includes("VK_LAYER_MOCK_gone") && x.includes("/nonexistent/libgone.so")));
  assertEquals(live().layers, before.layers);
  const { result, instance } = createInstance(l);
  assertEquals(result, 0);
  assertEquals(order(env, "vkCreateInstance"), ["drv"]);
  l.vk.vkDestroyInstance(instance, null);
});

test("pre-instance functions of enabled implicit layers wrap the global enumerations, last layer first", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "drv", instanceExtensions: ["VK_KHR_surface"] });
  await env.addLayer({ name: "VK_LAYER_MOCK_pre_a", preInstanceExtension: "VK_MOCK_pre_a" }, {
    implicit: true,
  });
  await env.addLayer({ name: "VK_LAYER_MOCK_pre_b", preInstanceVersion: "1.1.0" }, { implicit: true });
  await env.addLayer({ name: "VK_LAYER_MOCK_pre_off", preInstanceExtension: "VK_MOCK_pre_off" }, {
    implicit: true,
  });
  using l = load(env.snapshot({ VK_MOCK_DISABLE_VK_LAYER_MOCK_pre_off: "1" }));
  const libraries = Library.liveCount;
  const all = extensionNames(l, (c, p) => l.vk.vkEnumerateInstanceExtensionProperties(null, c, p));
  assertEquals(all.result, 0);
  assert(all.names.includes("VK_MOCK_pre_a") && !all.names.includes("VK_MOCK_pre_off"), all.names.join());
  assertEquals(Library.liveCount, libraries);
  const pre = env.callLog().filter((x) => x.split(" ")[1] === "pre:vkEnumerateInstanceExtensionProperties");
  assertEquals(pre.map((x) => x.split(" ")[0]).slice(0, 2), ["VK_LAYER_MOCK_pre_b", "VK_LAYER_MOCK_pre_a"]);
  env.clearCallLog();
  assertEquals(layerNames(l, (c, p) => l.vk.vkEnumerateInstanceLayerProperties(c, p)).length, 3);
  assert(
    env.callLog().some((x) => x.startsWith("VK_LAYER_MOCK_pre_a pre:vkEnumerateInstanceLayerProperties")),
  );
  // vkEnumerateInstanceVersion: the layer's answer wins over the loader's.
  const version = new Uint32Array(1);
  const loaderAnswer = (p: Pointer) => {
    new DataView(new Deno.UnsafePointerView(p!).getArrayBuffer(4)).setUint32(0, (1 << 22) | (4 << 12), true);
    return 0;
  };
  const snap = env.snapshot({ VK_MOCK_DISABLE_VK_LAYER_MOCK_pre_off: "1" });
  assertEquals(enumerateInstanceVersion(snap, Deno.UnsafePointer.of(version), loaderAnswer), 0);
  assertEquals(version[0], (1 << 22) | (1 << 12));
  // The same through the loader's vkEnumerateInstanceVersion.
  version[0] = 0;
  assertEquals(l.vk.vkEnumerateInstanceVersion(Deno.UnsafePointer.of(version)), 0);
  assertEquals(version[0], (1 << 22) | (1 << 12));
  const bare = env.snapshot({ VK_MOCK_DISABLE_VK_LAYER_MOCK_pre_b: "1" });
  assertEquals(enumerateInstanceVersion(bare, Deno.UnsafePointer.of(version), loaderAnswer), 0);
  assertEquals(version[0], (1 << 22) | (4 << 12));
});

test("VK_LOADER_LAYERS_ENABLE forces a layer into the chain; VK_LOADER_LAYERS_DISABLE hides one from the app", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "drv" });
  await env.addLayer({ name: "VK_LAYER_MOCK_forced" });
  await env.addLayer({ name: "VK_LAYER_MOCK_hidden" });
  await env.addLayer({ name: "VK_LAYER_MOCK_quiet" }, { implicit: true });
  {
    using l = load(env.snapshot({ VK_LOADER_LAYERS_ENABLE: "*forced" }));
    const { result, instance } = createInstance(l);
    assertEquals(result, 0);
    assertEquals(order(env, "vkCreateInstance"), ["VK_LAYER_MOCK_quiet", "VK_LAYER_MOCK_forced", "drv"]);
    l.vk.vkDestroyInstance(instance, null);
  }
  env.clearCallLog();
  {
    using l = load(env.snapshot({ VK_LOADER_LAYERS_DISABLE: "~implicit~,VK_LAYER_MOCK_hidden" }));
    assertEquals(createInstance(l, { layers: ["VK_LAYER_MOCK_hidden"] }).result, VK_ERROR_LAYER_NOT_PRESENT);
    const { result, instance } = createInstance(l, { layers: ["VK_LAYER_MOCK_forced"] });
    assertEquals(result, 0);
    assertEquals(order(env, "vkCreateInstance"), ["VK_LAYER_MOCK_forced", "drv"]);
    assertEquals(layerNames(l, (c, p) => l.vk.vkEnumerateInstanceLayerProperties(c, p)), [
      "VK_LAYER_MOCK_forced",
    ]);
    l.vk.vkDestroyInstance(instance, null);
  }
});

test("a layer's physical-device command (vk_layerGetPhysicalDeviceProcAddr) is a physical-device command", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "drv" });
  await env.addLayer({
    name: "VK_LAYER_MOCK_gpdpa",
    functionBase: 0x40000,
    instanceExtensions: [{ name: "VK_MOCK_layer_instance", entrypoints: ["vkMockLayerPhysicalDeviceFn"] }],
  });
  using l = load(env.snapshot());
  const { result, instance } = createInstance(l, {
    layers: ["VK_LAYER_MOCK_gpdpa"],
    extensions: ["VK_MOCK_layer_instance"],
  });
  assertEquals(result, 0);
  const [pd] = physicalDevices(l, instance);
  const fn = l.vk.vkGetInstanceProcAddr(instance, "vkMockLayerPhysicalDeviceFn");
  assert(fn !== null);
  const call = new Deno.UnsafeFnPointer(
    fn as Deno.PointerObject<never>,
    { parameters: ["pointer", "u32"], result: "u32" } as const,
  );
  // The mock layer's vkMockLayerPhysicalDeviceFn returns base + 0x100 + x, given the handle it knows.
  assertEquals(call.call(pd!, 7), 0x40000 + 0x100 + 7);
  const line = env.callLog("VK_LAYER_MOCK_gpdpa").find((x) => x.includes("vkMockLayerPhysicalDeviceFn"))!;
  assert(
    !line.includes(`physicalDevice=0x${addr(pd!).toString(16)} `),
    "the layer got the loader's terminator handle",
  );
  // A second instance made after the slot was taken gets the layer's function too.
  const second = createInstance(l, {
    layers: ["VK_LAYER_MOCK_gpdpa"],
    extensions: ["VK_MOCK_layer_instance"],
  });
  const [pd2] = physicalDevices(l, second.instance);
  assertEquals(call.call(pd2!, 1), 0x40000 + 0x100 + 1);
  l.vk.vkDestroyInstance(second.instance, null);
  l.vk.vkDestroyInstance(instance, null);
});

test("a layer wrapping VkInstance gets its own handle back in the commands it intercepts", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "drv", physicalDevices: [{}, {}] });
  const library = await buildTestLibrary("wrap_instance_layer");
  const dir = env.path("wrapping");
  Deno.mkdirSync(dir, { recursive: true });
  Deno.writeTextFileSync(
    `${dir}/wrap.json`,
    JSON.stringify({
      file_format_version: "1.0.0",
      layer: {
        name: "VK_LAYER_TEST_wrap_instance",
        type: "GLOBAL",
        library_path: library,
        api_version: "1.3.0",
        implementation_version: "1",
        description: "wraps VkInstance",
      },
    }),
  );
  using counters = Library.open(library);
  const counter = (name: string) => new Deno.UnsafePointerView(counters.symbolAddress(name)!).getInt32();
  const snap = env.snapshot();
  using l = load({ ...snap, vars: { ...snap.vars, VK_LAYER_PATH: `${snap.vars.VK_LAYER_PATH}:${dir}` } });
  const { result, instance } = createInstance(l, { layers: ["VK_LAYER_TEST_wrap_instance"] });
  assertEquals(result, 0);
  const before = counter("wrap_instance_unwrapped");
  assertEquals(physicalDevices(l, instance).length, 2);
  l.vk.vkDestroyInstance(instance, null);
  assertEquals(counter("wrap_instance_foreign"), 0);
  // Every enumeration (the loader's two-call idiom, twice) and the destroy reached the layer with its handle.
  assert(counter("wrap_instance_unwrapped") - before >= 3, `${counter("wrap_instance_unwrapped") - before}`);
});
