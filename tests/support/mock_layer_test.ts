/**
 * The mock layer's knobs, driven directly through FFI: this test plays the
 * loader (negotiation, link chains, data and create-device callbacks) with a
 * mock driver at the bottom, and reads the shared call log.
 */

import {
  deepStrictEqual as assertEquals,
  match as assertMatch,
  notDeepStrictEqual as assertNotEquals,
  ok as assert,
} from "node:assert/strict";
import { LAYER_PRE_INSTANCE_FUNCTIONS, MockEnvironment, RENAMED_LAYER_FUNCTIONS } from "./mock.ts";
import { addressOf, callable, DirectDriver, loaderWord, Scratch, VK } from "./mock_ffi.ts";
import { DirectChain, DirectLayer } from "./mock_ffi_layer.ts";

/** Command names of the log lines, with their mock prefix: "A vkCreateInstance". */
function calls(lines: string[]): string[] {
  return lines.map((l) => l.split(" ").slice(0, 2).join(" "));
}

function only(lines: string[], command: string): string[] {
  return calls(lines).filter((l) => l.endsWith(` ${command}`));
}

Deno.test("mock layer variants: standard negotiates, nonego and renamed export what the manifest names", async () => {
  await using env = await MockEnvironment.create();
  const std = await env.addLayer({ name: "VK_LAYER_MOCK_std" });
  using s = DirectLayer.open(std.libraryPath);
  assertEquals(s.exported().sort(), [
    "vkGetDeviceProcAddr",
    "vkGetInstanceProcAddr",
    "vkNegotiateLoaderLayerInterfaceVersion",
    "vk_layerGetPhysicalDeviceProcAddr",
  ]);
  assertEquals(s.negotiate(2), { result: VK.SUCCESS, version: 2 });
  assert(s.negotiated?.gipa && s.negotiated.gdpa && s.negotiated.gpdpa);
  const old = await env.addLayer({ name: "VK_LAYER_MOCK_old", interfaceVersion: 1 });
  assertEquals(old.variant, "layer_nonego");
  using o = DirectLayer.open(old.libraryPath);
  assertEquals(o.exported().sort(), ["vkGetDeviceProcAddr", "vkGetInstanceProcAddr"]);
  assertEquals(o.negotiate(), null);
  const renamed = await env.addLayer({ name: "VK_LAYER_MOCK_renamed", variant: "layer_renamed" });
  using r = DirectLayer.open(renamed.libraryPath);
  assertEquals(r.exported().sort(), Object.values(RENAMED_LAYER_FUNCTIONS).sort());
  assertEquals(
    JSON.parse(Deno.readTextFileSync(renamed.manifestPath)).layer.functions,
    RENAMED_LAYER_FUNCTIONS,
  );
  assertMatch(
    env.callLog("VK_LAYER_MOCK_std")[0]!,
    /vkNegotiateLoaderLayerInterfaceVersion offered=2 returned=2 result=0$/,
  );
});

Deno.test("mock layers log in chain order: application side first, driver last", async () => {
  await using env = await MockEnvironment.create();
  const drv = await env.addDriver({ name: "drv" });
  const a = await env.addLayer({ name: "A" });
  const b = await env.addLayer({ name: "B", logName: "B" });
  using d = DirectDriver.open(drv.libraryPath);
  d.negotiate(7);
  using la = DirectLayer.open(a.libraryPath);
  using lb = DirectLayer.open(b.libraryPath);
  la.negotiate();
  lb.negotiate();
  using chain = new DirectChain([la, lb], d);
  const { result, instance } = chain.createInstance({ extensions: ["VK_KHR_surface"] });
  assertEquals(result, VK.SUCCESS);
  assertEquals(only(env.callLog(), "vkCreateInstance"), [
    "A vkCreateInstance",
    "B vkCreateInstance",
    "drv vkCreateInstance",
  ]);
  assertMatch(env.callLog("A").at(-1)!, /exts=VK_KHR_surface .*chain=link,data,create_device$/);
  const pds = chain.enumeratePhysicalDevices(instance!);
  assertEquals(pds.length, 1);
  const { device } = chain.createDevice(instance!, pds[0]!);
  assertEquals(only(env.callLog(), "vkCreateDevice"), [
    "A vkCreateDevice",
    "B vkCreateDevice",
    "drv vkCreateDevice",
  ]);
  env.clearCallLog();
  const queue = new BigUint64Array(1);
  chain.deviceFn(device, "vkGetDeviceQueue", {
    parameters: ["pointer", "u32", "u32", "buffer"],
    result: "void",
  })!
    .call(device, 0, 0, new Uint8Array(queue.buffer));
  chain.deviceFn(device, "vkQueueWaitIdle", { parameters: ["pointer"], result: "i32" })!
    .call(Deno.UnsafePointer.create(queue[0]!));
  chain.deviceFn(device, "vkDestroyDevice", { parameters: ["pointer", "pointer"], result: "void" })!.call(
    device,
    null,
  );
  chain.fn(instance, "vkDestroyInstance", { parameters: ["pointer", "pointer"], result: "void" }).call(
    instance,
    null,
  );
  assertEquals(calls(env.callLog()), [
    "A vkGetDeviceQueue",
    "B vkGetDeviceQueue",
    "drv vkGetDeviceQueue",
    "A vkQueueWaitIdle",
    "B vkQueueWaitIdle",
    "drv vkQueueWaitIdle",
    "A vkDestroyDevice",
    "B vkDestroyDevice",
    "drv vkDestroyDevice",
    "A vkDestroyInstance",
    "B vkDestroyInstance",
    "drv vkDestroyInstance",
  ]);
});

Deno.test("mock layer intercepts only the configured commands and passes the rest through", async () => {
  await using env = await MockEnvironment.create();
  const drv = await env.addDriver({ name: "drv" });
  const layer = await env.addLayer({ name: "L", intercept: ["vkCmdDraw"] });
  using d = DirectDriver.open(drv.libraryPath);
  d.negotiate(7);
  using l = DirectLayer.open(layer.libraryPath);
  l.negotiate();
  using chain = new DirectChain([l], d);
  const { instance } = chain.createInstance();
  // not intercepted: the layer hands out the driver's own function
  assertEquals(
    addressOf(l.gipa(instance, "vkGetPhysicalDeviceProperties")),
    addressOf(d.gipa(instance, "vkGetPhysicalDeviceProperties")),
  );
  const pd = chain.enumeratePhysicalDevices(instance!)[0]!;
  const { device } = chain.createDevice(instance!, pd);
  const driverFn = (name: string) =>
    addressOf(d.deviceFn(instance!, device!, name, { parameters: [], result: "void" })!.pointer);
  assertEquals(addressOf(l.gdpa(device, "vkCmdSetLineWidth")), driverFn("vkCmdSetLineWidth"));
  assertNotEquals(addressOf(l.gdpa(device, "vkCmdDraw")), driverFn("vkCmdDraw"));
  assert(addressOf(l.gdpa(device, "vkCmdDraw")) !== 0n);
  assertEquals(env.callLog("L").filter((x) => x.includes("vkEnumeratePhysicalDevices")), []);
});

Deno.test("mock layer extensions: listed for its own name, entry points answered by the layer", async () => {
  await using env = await MockEnvironment.create();
  const drv = await env.addDriver();
  const layer = await env.addLayer({
    name: "VK_LAYER_MOCK_ext",
    functionBase: 0x70000,
    instanceExtensions: [{
      name: "VK_MOCK_layer_instance",
      specVersion: 3,
      entrypoints: ["vkMockLayerInstanceFn", "vkMockLayerPhysicalDeviceFn"],
    }],
    deviceExtensions: [{ name: "VK_MOCK_layer_device", entrypoints: ["vkMockLayerDeviceFn"] }],
  });
  const manifest = JSON.parse(Deno.readTextFileSync(layer.manifestPath)).layer;
  assertEquals(manifest.instance_extensions, [{
    name: "VK_MOCK_layer_instance",
    spec_version: "3",
    entrypoints: ["vkMockLayerInstanceFn", "vkMockLayerPhysicalDeviceFn"],
  }]);
  assertEquals(manifest.device_extensions, [{
    name: "VK_MOCK_layer_device",
    spec_version: "1",
    entrypoints: ["vkMockLayerDeviceFn"],
  }]);
  using d = DirectDriver.open(drv.libraryPath);
  d.negotiate(7);
  using l = DirectLayer.open(layer.libraryPath);
  l.negotiate();
  const enumerate = callable(l.gipa(null, "vkEnumerateInstanceExtensionProperties")!, {
    parameters: ["buffer", "buffer", "pointer"],
    result: "i32",
  });
  const count = new Uint32Array(1);
  assertEquals(
    enumerate.call(new TextEncoder().encode("VK_LAYER_MOCK_ext\0"), new Uint8Array(count.buffer), null),
    VK.SUCCESS,
  );
  assertEquals(count[0], 1);
  assertEquals(
    enumerate.call(new TextEncoder().encode("VK_LAYER_other\0"), new Uint8Array(count.buffer), null),
    VK.ERROR_LAYER_NOT_PRESENT,
  );
  using chain = new DirectChain([l], d);
  const { instance } = chain.createInstance();
  const fn = chain.fn(instance, "vkMockLayerInstanceFn", { parameters: ["pointer", "u32"], result: "u32" });
  assertEquals(fn.call(instance, 5), 0x70005);
  const pd = chain.enumeratePhysicalDevices(instance!)[0]!;
  const gpdpa = callable(l.negotiated!.gpdpa!, { parameters: ["pointer", "buffer"], result: "pointer" });
  const pdFn = gpdpa.call(instance, new TextEncoder().encode("vkMockLayerPhysicalDeviceFn\0"));
  assertEquals(callable(pdFn!, { parameters: ["pointer", "u32"], result: "u32" }).call(pd, 1), 0x70101);
  const { device } = chain.createDevice(instance!, pd);
  assertEquals(
    chain.deviceFn(device, "vkMockLayerDeviceFn", { parameters: ["pointer", "u32"], result: "u32" })!.call(
      device,
      2,
    ),
    0x70202,
  );
  assertMatch(
    env.callLog().at(-1)!,
    /^VK_LAYER_MOCK_ext vkMockLayerDeviceFn device=0x[0-9a-f]+ x=2 result=459266$/,
  );
});

Deno.test("mock layer failing vkCreateInstance and vkCreateDevice do not call down", async () => {
  await using env = await MockEnvironment.create();
  const drv = await env.addDriver({ name: "drv" });
  const bad = await env.addLayer({ name: "bad", createInstanceResult: VK.ERROR_INITIALIZATION_FAILED });
  using d = DirectDriver.open(drv.libraryPath);
  d.negotiate(7);
  using l = DirectLayer.open(bad.libraryPath);
  l.negotiate();
  using chain = new DirectChain([l], d);
  assertEquals(chain.createInstance().result, VK.ERROR_INITIALIZATION_FAILED);
  assertEquals(only(env.callLog(), "vkCreateInstance"), ["bad vkCreateInstance"]);
  const dev = await env.addLayer({ name: "devfail", createDeviceResult: -4 });
  using l2 = DirectLayer.open(dev.libraryPath);
  l2.negotiate();
  using chain2 = new DirectChain([l2], d);
  const { instance } = chain2.createInstance();
  const pd = chain2.enumeratePhysicalDevices(instance!)[0]!;
  assertEquals(chain2.createDevice(instance!, pd).result, -4);
  assertEquals(only(env.callLog(), "vkCreateDevice"), ["devfail vkCreateDevice"]);
});

Deno.test("mock layer reshapes the device list: removes, reverses, adds devices stamped by the data callback", async () => {
  await using env = await MockEnvironment.create();
  const drv = await env.addDriver({ physicalDevices: [{ name: "D0" }, { name: "D1" }, { name: "D2" }] });
  const layer = await env.addLayer({
    name: "shaper",
    removePhysicalDevices: [1],
    reversePhysicalDevices: true,
    addPhysicalDevices: 1,
  });
  using d = DirectDriver.open(drv.libraryPath);
  d.negotiate(7);
  using l = DirectLayer.open(layer.libraryPath);
  l.negotiate();
  using chain = new DirectChain([l], d);
  const { instance } = chain.createInstance();
  const pds = chain.enumeratePhysicalDevices(instance!);
  assertEquals(pds.map((pd) => chain.deviceName(instance!, pd)), ["D2", "D0", "shaper Added Device 0"]);
  assertEquals(chain.calls.setInstanceLoaderData, [Deno.UnsafePointer.value(pds[2]!)]);
  assertEquals(loaderWord(pds[2]!), DirectChain.STAMP);
  // a second enumeration reuses the same added device
  assertEquals(addressOf(chain.enumeratePhysicalDevices(instance!)[2]!), addressOf(pds[2]!));
  assertEquals(chain.calls.setInstanceLoaderData.length, 1);
});

Deno.test("mock layer wraps command buffers with pfnSetDeviceLoaderData and unwraps them going down", async () => {
  await using env = await MockEnvironment.create();
  const drv = await env.addDriver({ name: "drv" });
  const layer = await env.addLayer({ name: "wrap", wrapCommandBuffers: true, wrapDevice: true });
  using d = DirectDriver.open(drv.libraryPath);
  d.negotiate(7);
  using l = DirectLayer.open(layer.libraryPath);
  l.negotiate();
  using chain = new DirectChain([l], d);
  const s = new Scratch();
  const { instance } = chain.createInstance();
  const pd = chain.enumeratePhysicalDevices(instance!)[0]!;
  const { device } = chain.createDevice(instance!, pd);
  const driverDevice = /device=(0x[0-9a-f]+)/.exec(
    env.callLog("drv").find((x) => x.includes("vkCreateDevice"))!,
  )![1]!;
  assertNotEquals(`0x${Deno.UnsafePointer.value(device).toString(16)}`, driverDevice);
  const poolInfo = s.alloc(24);
  new DataView(poolInfo.buffer).setUint32(0, VK.STYPE_COMMAND_POOL_CREATE_INFO, true);
  const pool = new BigUint64Array(1);
  chain.deviceFn(device, "vkCreateCommandPool", {
    parameters: ["pointer", "pointer", "pointer", "buffer"],
    result: "i32",
  })!
    .call(device, s.ptr(poolInfo), null, new Uint8Array(pool.buffer));
  assertMatch(env.callLog("drv").at(-1)!, new RegExp(`vkCreateCommandPool device=${driverDevice} `));
  const alloc = s.alloc(32);
  const av = new DataView(alloc.buffer);
  av.setUint32(0, VK.STYPE_COMMAND_BUFFER_ALLOCATE_INFO, true);
  av.setBigUint64(16, pool[0]!, true);
  av.setUint32(28, 1, true);
  const cbs = new BigUint64Array(1);
  chain.deviceFn(device, "vkAllocateCommandBuffers", {
    parameters: ["pointer", "pointer", "buffer"],
    result: "i32",
  })!
    .call(device, s.ptr(alloc), new Uint8Array(cbs.buffer));
  const driverCb = /commandBuffers=(0x[0-9a-f]+)/.exec(env.callLog("drv").at(-1)!)![1]!;
  const wrapped = Deno.UnsafePointer.create(cbs[0]!)!;
  assertNotEquals(`0x${cbs[0]!.toString(16)}`, driverCb);
  assertEquals(chain.calls.setDeviceLoaderData, [cbs[0]]);
  assertEquals(loaderWord(wrapped), DirectChain.STAMP);
  chain.deviceFn(device, "vkCmdDraw", {
    parameters: ["pointer", "u32", "u32", "u32", "u32"],
    result: "void",
  })!
    .call(wrapped, 3, 1, 0, 0);
  assertMatch(env.callLog().at(-1)!, new RegExp(`^drv vkCmdDraw commandBuffer=${driverCb} `));
  assertMatch(env.callLog().at(-2)!, new RegExp(`^wrap vkCmdDraw commandBuffer=0x${cbs[0]!.toString(16)} `));
  chain.deviceFn(device, "vkDestroyDevice", { parameters: ["pointer", "pointer"], result: "void" })!.call(
    device,
    null,
  );
  assertMatch(env.callLog().at(-1)!, new RegExp(`^drv vkDestroyDevice device=${driverDevice}$`));
});

Deno.test("mock layer creates its device through the loader's pfnLayerCreateDevice callback", async () => {
  await using env = await MockEnvironment.create();
  const drv = await env.addDriver({ name: "drv" });
  const layer = await env.addLayer({ name: "cb", createDeviceThroughCallback: true });
  using d = DirectDriver.open(drv.libraryPath);
  d.negotiate(7);
  using l = DirectLayer.open(layer.libraryPath);
  l.negotiate();
  using chain = new DirectChain([l], d);
  const { instance } = chain.createInstance();
  const pd = chain.enumeratePhysicalDevices(instance!)[0]!;
  const { result, device } = chain.createDevice(instance!, pd);
  assertEquals([result, chain.calls.layerCreateDevice], [VK.SUCCESS, 1]);
  assertMatch(env.callLog("cb").find((x) => x.includes("vkCreateDevice "))!, / via=callback$/);
  assertEquals(only(env.callLog(), "vkCreateDevice"), ["cb vkCreateDevice", "drv vkCreateDevice"]);
  chain.deviceFn(device, "vkDestroyDevice", { parameters: ["pointer", "pointer"], result: "void" })!.call(
    device,
    null,
  );
  assertEquals(chain.calls.layerDestroyDevice, 1);
  assertEquals(only(env.callLog(), "vkDestroyDevice"), ["cb vkDestroyDevice", "drv vkDestroyDevice"]);
});

Deno.test("mock layer pre-instance functions: call down or answer, through the Vk*Chain structs", async () => {
  await using env = await MockEnvironment.create();
  const answering = await env.addLayer({ name: "pre", preInstanceVersion: "1.1.0" }, { implicit: true });
  const manifest = JSON.parse(Deno.readTextFileSync(answering.manifestPath));
  assertEquals(manifest.file_format_version, "1.2.0");
  assertEquals(manifest.layer.pre_instance_functions, LAYER_PRE_INSTANCE_FUNCTIONS);
  assertEquals(manifest.layer.disable_environment, { VK_MOCK_DISABLE_pre: "1" });
  assertEquals(answering.manifestPath, env.path("home/.local/share/vulkan/implicit_layer.d/pre.json"));
  using l = DirectLayer.open(answering.libraryPath);
  let downCalls = 0;
  const next = new Deno.UnsafeCallback(
    { parameters: ["pointer", "pointer"], result: "i32" },
    (_link, out) => {
      downCalls++;
      new DataView(new Deno.UnsafePointerView(out!).getArrayBuffer(4)).setUint32(
        0,
        (1 << 22) | (3 << 12),
        true,
      );
      return VK.SUCCESS;
    },
  );
  const chain = new Uint8Array(32);
  const cv = new DataView(chain.buffer);
  cv.setUint32(0, 3, true); // VK_CHAIN_TYPE_ENUMERATE_INSTANCE_VERSION
  cv.setUint32(4, 1, true);
  cv.setUint32(8, 32, true);
  cv.setBigUint64(16, Deno.UnsafePointer.value(next.pointer), true);
  const version = new Uint32Array(1);
  assertEquals(
    l.lib.symbols.MockLayer_PreEnumerateInstanceVersion(
      Deno.UnsafePointer.of(chain),
      new Uint8Array(version.buffer),
    ),
    0,
  );
  assertEquals([version[0], downCalls], [(1 << 22) | (1 << 12), 0]);
  const passing = await env.addLayer({ name: "pass" }, { implicit: true });
  using p = DirectLayer.open(passing.libraryPath);
  assertEquals(
    p.lib.symbols.MockLayer_PreEnumerateInstanceVersion(
      Deno.UnsafePointer.of(chain),
      new Uint8Array(version.buffer),
    ),
    0,
  );
  assertEquals([version[0], downCalls], [(1 << 22) | (3 << 12), 1]);
  assertEquals(calls(env.callLog()), [
    "pre pre:vkEnumerateInstanceVersion",
    "pass pre:vkEnumerateInstanceVersion",
  ]);
});

Deno.test("mock environment layer placements and snapshot variables", async () => {
  await using env = await MockEnvironment.create();
  const explicit = await env.addLayer({ name: "VK_LAYER_MOCK_e" });
  const added = await env.addLayer({ name: "VK_LAYER_MOCK_add" }, { placement: "add_layer_path" });
  const system = await env.addLayer({ name: "VK_LAYER_MOCK_sys" }, {
    implicit: true,
    placement: { system: "/usr/share/vulkan/implicit_layer.d" },
    manifest: { enableEnvironment: { ENABLE_MOCK: "1" }, fileFormatVersion: "1.1.2" },
  });
  const snap = env.snapshot({ VK_INSTANCE_LAYERS: "VK_LAYER_MOCK_e" });
  assertEquals(snap.vars["VK_LAYER_PATH"], env.path("layers/layer_path"));
  assertEquals(snap.vars["VK_ADD_LAYER_PATH"], env.path("layers/add_layer_path"));
  assertEquals(snap.vars["VK_INSTANCE_LAYERS"], "VK_LAYER_MOCK_e");
  assert(explicit.manifestPath.startsWith(env.path("layers/layer_path/")));
  assert(added.manifestPath.startsWith(env.path("layers/add_layer_path/")));
  assertEquals(system.manifestPath, `${snap.root}/usr/share/vulkan/implicit_layer.d/VK_LAYER_MOCK_sys.json`);
  const m = JSON.parse(Deno.readTextFileSync(system.manifestPath));
  assertEquals([m.file_format_version, m.layer.enable_environment, m.layer.type], ["1.1.2", {
    ENABLE_MOCK: "1",
  }, "INSTANCE"]);
});

Deno.test("two mock layers over a mock driver run a create/destroy cycle clean under valgrind", async () => {
  await using env = await MockEnvironment.create();
  const drv = await env.addDriver({ name: "drv", physicalDevices: [{}, {}] });
  const top = await env.addLayer({ name: "top", reversePhysicalDevices: true, addPhysicalDevices: 2 });
  const wrap = await env.addLayer({
    name: "wrap",
    wrapDevice: true,
    wrapCommandBuffers: true,
    removePhysicalDevices: [0],
  });
  const args = ["-q", "--error-exitcode=1", "--leak-check=full", "--errors-for-leak-kinds=definite"];
  const out = await new Deno.Command("valgrind", {
    args: [...args, env.build.programs.harness, drv.libraryPath, top.libraryPath, wrap.libraryPath],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  assertEquals(out.code, 0, text);
  assertMatch(
    text,
    /^device 0 Mock Device 1\ndevice 1 top Added Device 0\ndevice 2 top Added Device 1\nok\n$/,
  );
  assertEquals(only(env.callLog(), "vkCmdDraw"), ["top vkCmdDraw", "wrap vkCmdDraw", "drv vkCmdDraw"]);
});
