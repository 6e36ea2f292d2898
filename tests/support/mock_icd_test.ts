/**
 * The mock driver's knobs, driven directly through FFI (no loader): what it
 * exports, how it negotiates, what it reports and what reaches its call log.
 */

import {
  deepStrictEqual as assertEquals,
  match as assertMatch,
  notDeepStrictEqual as assertNotEquals,
  ok as assert,
  throws as assertThrows,
} from "node:assert/strict";
import { MockEnvironment } from "./mock.ts";
import { addressOf, callable, DirectDriver, loaderWord, Scratch, VK } from "./mock_ffi.ts";

function lastLine(lines: string[], command: string): string {
  const found = lines.filter((l) => l.split(" ")[1] === command);
  assert(found.length > 0, `no "${command}" in log:\n${lines.join("\n")}`);
  return found[found.length - 1]!;
}

Deno.test("mock driver variants export exactly their interface's entry points", async () => {
  await using env = await MockEnvironment.create();
  const cases: [number, object, string, string[]][] = [
    [0, {}, "v0", ["vkGetInstanceProcAddr", "vkCreateInstance", "vkEnumerateInstanceExtensionProperties"]],
    [1, {}, "v1", ["vk_icdGetInstanceProcAddr"]],
    [3, {}, "export_nophys", ["vk_icdGetInstanceProcAddr", "vk_icdNegotiateLoaderICDInterfaceVersion"]],
    [5, {}, "export", [
      "vk_icdGetInstanceProcAddr",
      "vk_icdNegotiateLoaderICDInterfaceVersion",
      "vk_icdGetPhysicalDeviceProcAddr",
      "vk_icdEnumerateAdapterPhysicalDevices",
    ]],
    [6, { physicalDeviceProcAddr: false }, "export_nophys", [
      "vk_icdGetInstanceProcAddr",
      "vk_icdNegotiateLoaderICDInterfaceVersion",
    ]],
    [7, {}, "v7", ["vk_icdGetInstanceProcAddr"]],
  ];
  for (const [iface, extra, variant, exports] of cases) {
    const drv = await env.addDriver({ interfaceVersion: iface, ...extra });
    assertEquals(drv.variant, variant);
    using d = DirectDriver.open(drv.libraryPath);
    assertEquals(d.variant(), variant);
    assertEquals(d.exported().sort(), [...exports].sort());
  }
});

Deno.test("mock driver copies are distinct files that load side by side with their own state", async () => {
  await using env = await MockEnvironment.create();
  const a = await env.addDriver({ name: "a", physicalDevices: [{}] });
  const b = await env.addDriver({ name: "b", physicalDevices: [{}, {}, {}] });
  assertNotEquals(a.libraryPath, b.libraryPath);
  using da = DirectDriver.open(a.libraryPath);
  using db = DirectDriver.open(b.libraryPath);
  da.negotiate(7);
  db.negotiate(7);
  assertEquals(da.enumeratePhysicalDevices(da.createInstance()).length, 1);
  assertEquals(db.enumeratePhysicalDevices(db.createInstance()).length, 3);
  const log = env.callLog();
  assert(log.some((l) => l.startsWith("a vkCreateInstance")));
  assert(log.some((l) => l.startsWith("b vkEnumeratePhysicalDevices") && l.includes("count=3")));
  assertEquals(env.callLog("a").every((l) => l.startsWith("a ")), true);
});

Deno.test("mock driver v7 negotiates only through vk_icdGetInstanceProcAddr and answers min(offer, own)", async () => {
  await using env = await MockEnvironment.create();
  const drv = await env.addDriver({ interfaceVersion: 7 });
  using d = DirectDriver.open(drv.libraryPath);
  assertEquals(d.exported(), ["vk_icdGetInstanceProcAddr"]);
  assertEquals(d.negotiate(9), { result: VK.SUCCESS, version: 7 });
  assertEquals(d.negotiate(6), { result: VK.SUCCESS, version: 6 });
  assertNotEquals(d.gipa(null, "vk_icdGetPhysicalDeviceProcAddr"), null);
  assertEquals(d.gipa(null, "vk_icdEnumerateAdapterPhysicalDevices"), null);
  assertMatch(
    lastLine(env.callLog(), "vk_icdNegotiateLoaderICDInterfaceVersion"),
    /offered=6 returned=6 result=0/,
  );
});

Deno.test("mock driver negotiation failures: injected result and a minimum interface", async () => {
  await using env = await MockEnvironment.create();
  const failing = await env.addDriver({ interfaceVersion: 5, negotiateResult: VK.ERROR_INCOMPATIBLE_DRIVER });
  using f = DirectDriver.open(failing.libraryPath);
  assertEquals(f.negotiate(7)?.result, VK.ERROR_INCOMPATIBLE_DRIVER);
  const picky = await env.addDriver({ interfaceVersion: 7, minInterfaceVersion: 6 });
  using p = DirectDriver.open(picky.libraryPath);
  assertEquals(p.negotiate(5)?.result, VK.ERROR_INCOMPATIBLE_DRIVER);
  assertEquals(p.negotiate(7), { result: VK.SUCCESS, version: 7 });
  const exported = await env.addDriver({ interfaceVersion: 4 });
  using e = DirectDriver.open(exported.libraryPath);
  assertEquals(e.negotiate(7), { result: VK.SUCCESS, version: 4 });
});

Deno.test("mock driver v0 and v1 have no negotiation and still create instances", async () => {
  await using env = await MockEnvironment.create();
  for (const iface of [0, 1]) {
    const drv = await env.addDriver({ interfaceVersion: iface });
    using d = DirectDriver.open(drv.libraryPath);
    assertEquals(d.negotiate(7), null);
    const instance = d.createInstance({ apiVersion: "1.0.0" });
    assertEquals(d.enumeratePhysicalDevices(instance).length, 1);
    d.destroyInstance(instance);
  }
});

Deno.test("mock driver defaults: one integrated Vulkan 1.3 GPU, magic in every dispatchable object", async () => {
  await using env = await MockEnvironment.create();
  const drv = await env.addDriver();
  using d = DirectDriver.open(drv.libraryPath);
  d.negotiate(7);
  const instance = d.createInstance({
    apiVersion: "1.3.0",
    extensions: ["VK_KHR_surface"],
    appName: "defaults",
  });
  assertEquals(loaderWord(instance), VK.ICD_LOADER_MAGIC);
  const pds = d.enumeratePhysicalDevices(instance);
  assertEquals(pds.length, 1);
  assertEquals(loaderWord(pds[0]!), VK.ICD_LOADER_MAGIC);
  const props = d.properties(instance, pds[0]!);
  assertEquals([props.name, props.deviceType, props.apiVersion, props.vendorId], [
    "Mock Device 0",
    1,
    "1.3.0",
    0xC0DE,
  ]);
  assertEquals(props.driverName, "mock_icd");
  assertEquals(d.deviceExtensions(instance, pds[0]!), ["VK_KHR_swapchain"]);
  assertMatch(
    lastLine(env.callLog(), "vkCreateInstance"),
    /^driver0 vkCreateInstance instance=0x[0-9a-f]+ apiVersion=1\.3\.0 app=defaults exts=VK_KHR_surface layers=0 .*result=0$/,
  );
});

Deno.test("mock driver physical device knobs reach the properties the driver reports", async () => {
  await using env = await MockEnvironment.create();
  const drv = await env.addDriver({
    apiVersion: "1.2.0",
    physicalDevices: [
      {
        name: "Discrete X",
        type: "discrete",
        vendorId: 0x10de,
        deviceId: 0x2204,
        apiVersion: "1.1.0",
        pciBus: { domain: 0, bus: 3, device: 0, function: 1 },
        driverId: 4,
        driverName: "mockvidia",
        driverInfo: "580.1",
        extensions: ["VK_KHR_swapchain", { name: "VK_KHR_maintenance4", specVersion: 2 }],
        queueFamilies: [{ flags: 1, count: 4 }, { flags: 4, count: 1 }],
        memoryTypes: [{ propertyFlags: 6, heapIndex: 0 }],
        memoryHeaps: [{ sizeMiB: 512, flags: 0 }],
      },
      { type: "cpu" },
    ],
  });
  using d = DirectDriver.open(drv.libraryPath);
  d.negotiate(7);
  const instance = d.createInstance({ apiVersion: "1.2.0" });
  const [x, cpu] = d.enumeratePhysicalDevices(instance);
  const p = d.properties(instance, x!);
  assertEquals(p, {
    apiVersion: "1.1.0",
    vendorId: 0x10de,
    deviceId: 0x2204,
    deviceType: 2,
    name: "Discrete X",
    driverId: 4,
    driverName: "mockvidia",
    driverInfo: "580.1",
    pci: { domain: 0, bus: 3, device: 0, function: 1 },
  });
  assertEquals(d.deviceExtensions(instance, x!), [
    "VK_KHR_swapchain",
    "VK_KHR_maintenance4",
    "VK_EXT_pci_bus_info",
  ]);
  assertEquals(d.queueFamilies(instance, x!), [{ flags: 1, count: 4 }, { flags: 4, count: 1 }]);
  assertEquals(d.memory(instance, x!), {
    types: [{ propertyFlags: 6, heapIndex: 0 }],
    heaps: [{ size: 512n << 20n, flags: 0 }],
  });
  const c = d.properties(instance, cpu!);
  assertEquals([c.name, c.deviceType, c.apiVersion, c.deviceId], ["Mock Device 1", 4, "1.2.0", 0x1001]);
});

Deno.test("mock driver device groups: configured, default one per device, or not supported", async () => {
  await using env = await MockEnvironment.create();
  const grouped = await env.addDriver({ physicalDevices: [{}, {}, {}], groups: [[0, 2], [1]] });
  using g = DirectDriver.open(grouped.libraryPath);
  g.negotiate(7);
  const gi = g.createInstance();
  const pds = g.enumeratePhysicalDevices(gi);
  assertEquals(
    g.enumeratePhysicalDeviceGroups(gi).map((group) => group.map(addressOf)),
    [[pds[0], pds[2]], [pds[1]]].map((group) => group.map((p) => addressOf(p!))),
  );
  const plain = await env.addDriver({ physicalDevices: [{}, {}] });
  using p = DirectDriver.open(plain.libraryPath);
  p.negotiate(7);
  const pi = p.createInstance();
  assertEquals(p.enumeratePhysicalDeviceGroups(pi).map((x) => x.length), [1, 1]);
  const none = await env.addDriver({ groupsSupported: false });
  using n = DirectDriver.open(none.libraryPath);
  n.negotiate(7);
  const ni = n.createInstance();
  assertEquals(n.gipa(ni, "vkEnumeratePhysicalDeviceGroups"), null);
  assertEquals(n.gipa(ni, "vkEnumeratePhysicalDeviceGroupsKHR"), null);
});

Deno.test("mock driver v7 vk_icdEnumerateAdapterPhysicalDevices: only when enabled, same handles as vkEnumeratePhysicalDevices", async () => {
  await using env = await MockEnvironment.create();
  const drv = await env.addDriver({ enumerateAdapterPhysicalDevices: true, physicalDevices: [{}, {}] });
  using d = DirectDriver.open(drv.libraryPath);
  d.negotiate(7);
  const instance = d.createInstance();
  const pds = d.enumeratePhysicalDevices(instance).map(addressOf);
  const fn = callable(d.gipa(null, "vk_icdEnumerateAdapterPhysicalDevices")!, {
    parameters: ["pointer", "u64", "buffer", "buffer"],
    result: "i32",
  });
  const count = new Uint32Array([4]);
  const out = new BigUint64Array(4);
  assertEquals(
    fn.call(instance, 0x1234n, new Uint8Array(count.buffer), new Uint8Array(out.buffer)),
    VK.SUCCESS,
  );
  assertEquals([...out.slice(0, count[0]!)], pds);
  assertMatch(
    env.callLog().find((l) => l.includes("vk_icdEnumerateAdapterPhysicalDevices"))!,
    /luid=0x1234$/,
  );
  const off = await env.addDriver();
  using o = DirectDriver.open(off.libraryPath);
  o.negotiate(7);
  assertEquals(o.gipa(null, "vk_icdEnumerateAdapterPhysicalDevices"), null);
});

Deno.test("mock driver without loader magic leaves the first word zero", async () => {
  await using env = await MockEnvironment.create();
  const drv = await env.addDriver({ loaderMagic: false });
  using d = DirectDriver.open(drv.libraryPath);
  d.negotiate(7);
  const instance = d.createInstance();
  assertEquals(loaderWord(instance), 0n);
  assertEquals(loaderWord(d.enumeratePhysicalDevices(instance)[0]!), 0n);
});

Deno.test("mock driver error injection: vkCreateInstance, vkEnumeratePhysicalDevices, vkCreateDevice", async () => {
  await using env = await MockEnvironment.create();
  const a = await env.addDriver({ createInstanceResult: VK.ERROR_INITIALIZATION_FAILED });
  using da = DirectDriver.open(a.libraryPath);
  da.negotiate(7);
  assertEquals(da.tryCreateInstance().result, VK.ERROR_INITIALIZATION_FAILED);
  assertMatch(lastLine(env.callLog(a.name), "vkCreateInstance"), /result=-3 why=injected/);
  const b = await env.addDriver({ enumeratePhysicalDevicesResult: VK.ERROR_INITIALIZATION_FAILED });
  using db = DirectDriver.open(b.libraryPath);
  db.negotiate(7);
  assertThrows(() => db.enumeratePhysicalDevices(db.createInstance()), /failed: -3/);
  const c = await env.addDriver({ createDeviceResult: -4 });
  using dc = DirectDriver.open(c.libraryPath);
  dc.negotiate(7);
  const ci = dc.createInstance();
  assertEquals(dc.createDevice(ci, dc.enumeratePhysicalDevices(ci)[0]!).result, -4);
  const zero = await env.addDriver({ physicalDevices: [] });
  using dz = DirectDriver.open(zero.libraryPath);
  dz.negotiate(7);
  assertEquals(dz.enumeratePhysicalDevices(dz.createInstance()), []);
});

Deno.test("mock driver instance version and extensions are configurable and enforced", async () => {
  await using env = await MockEnvironment.create();
  const drv = await env.addDriver({
    apiVersion: "1.1.0",
    enumerateInstanceVersion: false,
    instanceExtensions: ["VK_KHR_surface", { name: "VK_EXT_debug_utils", specVersion: 2 }],
  });
  using d = DirectDriver.open(drv.libraryPath);
  d.negotiate(7);
  assertEquals(d.gipa(null, "vkEnumerateInstanceVersion"), null);
  assertEquals(d.instanceExtensions(), ["VK_KHR_surface", "VK_EXT_debug_utils"]);
  assertEquals(
    d.tryCreateInstance({ extensions: ["VK_KHR_xcb_surface"] }).result,
    VK.ERROR_EXTENSION_NOT_PRESENT,
  );
  assertMatch(lastLine(env.callLog(), "vkCreateInstance"), /why=VK_KHR_xcb_surface/);
  const versioned = await env.addDriver({ apiVersion: "1.2.198" });
  using v = DirectDriver.open(versioned.libraryPath);
  v.negotiate(7);
  const fn = v.fn(null, "vkEnumerateInstanceVersion", { parameters: ["buffer"], result: "i32" });
  const out = new Uint32Array(1);
  assertEquals(fn.call(new Uint8Array(out.buffer)), VK.SUCCESS);
  assertEquals(out[0], (1 << 22) | (2 << 12) | 198);
});

Deno.test("mock driver below interface 5 refuses an apiVersion it lacks (LDP_DRIVER_9)", async () => {
  await using env = await MockEnvironment.create();
  const drv = await env.addDriver({ interfaceVersion: 4, apiVersion: "1.0.0" });
  using d = DirectDriver.open(drv.libraryPath);
  d.negotiate(4);
  assertEquals(d.tryCreateInstance({ apiVersion: "1.3.0" }).result, VK.ERROR_INCOMPATIBLE_DRIVER);
  assertEquals(d.tryCreateInstance({ apiVersion: "1.0.0" }).result, VK.SUCCESS);
  const modern = await env.addDriver({ interfaceVersion: 5, apiVersion: "1.0.0" });
  using m = DirectDriver.open(modern.libraryPath);
  m.negotiate(7);
  assertEquals(m.tryCreateInstance({ apiVersion: "1.3.0" }).result, VK.SUCCESS);
});

Deno.test("mock driver unknown functions: GPDPA returns only the physical-device one, results are recognisable", async () => {
  await using env = await MockEnvironment.create();
  const drv = await env.addDriver({ physicalDevices: [{}, {}], unknownBase: 0x50000 });
  using d = DirectDriver.open(drv.libraryPath);
  d.negotiate(7);
  const instance = d.createInstance();
  const pds = d.enumeratePhysicalDevices(instance);
  const pdFn = d.gpdpa(instance, "vkMockUnknownPhysicalDeviceFn");
  assertNotEquals(pdFn, null);
  assertEquals(d.gpdpa(instance, "vkMockUnknownDeviceFn"), null);
  assertEquals(d.gpdpa(instance, "vkCreateInstance"), null);
  assertNotEquals(d.gpdpa(instance, "vkGetPhysicalDeviceProperties"), null);
  const call = callable(pdFn!, { parameters: ["pointer", "u32"], result: "u32" });
  assertEquals(call.call(pds[1]!, 7), 0x50000 + 0x100 + 7);
  const slot2 = callable(d.gpdpa(instance, "vkMockUnknownPhysicalDeviceFn2")!, {
    parameters: ["pointer", "u32"],
    result: "u32",
  });
  assertEquals(slot2.call(pds[0]!, 1), 0x50000 + 0x2000 + 1);
  const { device } = d.createDevice(instance, pds[0]!);
  const devFn = d.deviceFn(instance, device!, "vkMockUnknownDeviceFn", {
    parameters: ["pointer", "u32"],
    result: "u32",
  });
  assertEquals(devFn!.call(device, 3), 0x50000 + 0x8000 + 3);
  assertNotEquals(d.gipa(instance, "vkMockUnknownDeviceFn"), null);
  assertMatch(lastLine(env.callLog(), "vkMockUnknownDeviceFn"), /x=3 result=360451$/);
  const off = await env.addDriver({ unknownFunctions: false });
  using o = DirectDriver.open(off.libraryPath);
  o.negotiate(7);
  assertEquals(o.gipa(null, "vkMockUnknownPhysicalDeviceFn"), null);
});

Deno.test("mock driver surfaces: own surfaces from interface 3, the loader's VkIcdSurface read below", async () => {
  await using env = await MockEnvironment.create();
  const drv = await env.addDriver({ name: "wsi7" });
  using d = DirectDriver.open(drv.libraryPath);
  d.negotiate(7);
  const s = new Scratch();
  const instance = d.createInstance({ extensions: ["VK_KHR_surface", "VK_KHR_xcb_surface"] });
  const ci = s.alloc(40);
  const cv = new DataView(ci.buffer);
  cv.setUint32(0, VK.STYPE_XCB_SURFACE_CREATE_INFO_KHR, true);
  cv.setBigUint64(24, 0x1234n, true);
  cv.setUint32(32, 0x42, true);
  const out = new BigUint64Array(1);
  const create = d.fn(instance, "vkCreateXcbSurfaceKHR", {
    parameters: ["pointer", "pointer", "pointer", "buffer"],
    result: "i32",
  });
  assertEquals(create.call(instance, s.ptr(ci), null, new Uint8Array(out.buffer)), VK.SUCCESS);
  assertMatch(lastLine(env.callLog(), "vkCreateXcbSurfaceKHR"), /connection=0x1234 window=0x42/);
  const pd = d.enumeratePhysicalDevices(instance)[0]!;
  const { device } = d.createDevice(instance, pd, { extensions: ["VK_KHR_swapchain"] });
  const sc = s.alloc(104);
  const sv = new DataView(sc.buffer);
  sv.setUint32(0, VK.STYPE_SWAPCHAIN_CREATE_INFO_KHR, true);
  sv.setBigUint64(24, out[0]!, true);
  const scOut = new BigUint64Array(1);
  d.deviceFn(instance, device!, "vkCreateSwapchainKHR", {
    parameters: ["pointer", "pointer", "pointer", "buffer"],
    result: "i32",
  })!
    .call(device, s.ptr(sc), null, new Uint8Array(scOut.buffer));
  assertMatch(
    lastLine(env.callLog(), "vkCreateSwapchainKHR"),
    new RegExp(`surface=0x${out[0]!.toString(16)} kind=own:\\d+:xcb`),
  );
  for (
    const name of [
      "vkCreateHeadlessSurfaceEXT",
      "vkCreateXlibSurfaceKHR",
      "vkCreateWaylandSurfaceKHR",
      "vkCreateDisplayPlaneSurfaceKHR",
    ]
  ) {
    assertNotEquals(d.gipa(instance, name), null, name);
  }

  const old = await env.addDriver({ name: "wsi2", interfaceVersion: 2 });
  using o = DirectDriver.open(old.libraryPath);
  o.negotiate(7);
  const oi = o.createInstance({ extensions: ["VK_KHR_surface", "VK_KHR_xcb_surface"] });
  assertEquals(o.gipa(oi, "vkCreateXcbSurfaceKHR"), null);
  assertEquals(o.gipa(oi, "vkDestroySurfaceKHR"), null);
  const container = s.alloc(24); // VkIcdSurfaceXcb { base.platform = XCB (3), connection, window }
  const kv = new DataView(container.buffer);
  kv.setUint32(0, 3, true);
  kv.setBigUint64(8, 0xabcdn, true);
  kv.setUint32(16, 0x77, true);
  const support = new Uint32Array(1);
  o.fn(oi, "vkGetPhysicalDeviceSurfaceSupportKHR", {
    parameters: ["pointer", "u32", "u64", "buffer"],
    result: "i32",
  })
    .call(
      o.enumeratePhysicalDevices(oi)[0]!,
      0,
      Deno.UnsafePointer.value(s.ptr(container)),
      new Uint8Array(support.buffer),
    );
  assertEquals(support[0], 1);
  assertMatch(
    lastLine(env.callLog("wsi2"), "vkGetPhysicalDeviceSurfaceSupportKHR"),
    /kind=icd:xcb:connection=0xabcd:window=0x77$/,
  );
});

Deno.test("mock driver device level: queues and command buffers carry magic, commands are logged", async () => {
  await using env = await MockEnvironment.create();
  const drv = await env.addDriver();
  using d = DirectDriver.open(drv.libraryPath);
  d.negotiate(7);
  const s = new Scratch();
  const instance = d.createInstance();
  const pd = d.enumeratePhysicalDevices(instance)[0]!;
  const { result, device } = d.createDevice(instance, pd, { queues: 2, extensions: ["VK_KHR_swapchain"] });
  assertEquals(result, VK.SUCCESS);
  assertEquals(loaderWord(device!), VK.ICD_LOADER_MAGIC);
  assertMatch(lastLine(env.callLog(), "vkCreateDevice"), /exts=VK_KHR_swapchain queues=0:2 .*result=0$/);
  assertEquals(d.deviceFn(instance, device!, "vkCreateInstance", { parameters: [], result: "void" }), null);
  assertEquals(
    d.deviceFn(instance, device!, "vkGetPhysicalDeviceProperties", { parameters: [], result: "void" }),
    null,
  );
  const queue = new BigUint64Array(1);
  d.deviceFn(instance, device!, "vkGetDeviceQueue", {
    parameters: ["pointer", "u32", "u32", "buffer"],
    result: "void",
  })!
    .call(device, 0, 1, new Uint8Array(queue.buffer));
  assertEquals(loaderWord(Deno.UnsafePointer.create(queue[0]!)!), VK.ICD_LOADER_MAGIC);
  const poolInfo = s.alloc(24);
  new DataView(poolInfo.buffer).setUint32(0, VK.STYPE_COMMAND_POOL_CREATE_INFO, true);
  const pool = new BigUint64Array(1);
  d.deviceFn(instance, device!, "vkCreateCommandPool", {
    parameters: ["pointer", "pointer", "pointer", "buffer"],
    result: "i32",
  })!
    .call(device, s.ptr(poolInfo), null, new Uint8Array(pool.buffer));
  const alloc = s.alloc(32);
  const av = new DataView(alloc.buffer);
  av.setUint32(0, VK.STYPE_COMMAND_BUFFER_ALLOCATE_INFO, true);
  av.setBigUint64(16, pool[0]!, true);
  av.setUint32(28, 1, true);
  const cbs = new BigUint64Array(1);
  d.deviceFn(instance, device!, "vkAllocateCommandBuffers", {
    parameters: ["pointer", "pointer", "buffer"],
    result: "i32",
  })!
    .call(device, s.ptr(alloc), new Uint8Array(cbs.buffer));
  const cb = Deno.UnsafePointer.create(cbs[0]!)!;
  assertEquals(loaderWord(cb), VK.ICD_LOADER_MAGIC);
  const begin = s.alloc(32);
  new DataView(begin.buffer).setUint32(0, VK.STYPE_COMMAND_BUFFER_BEGIN_INFO, true);
  d.deviceFn(instance, device!, "vkBeginCommandBuffer", {
    parameters: ["pointer", "pointer"],
    result: "i32",
  })!.call(cb, s.ptr(begin));
  d.deviceFn(instance, device!, "vkCmdSetLineWidth", { parameters: ["pointer", "f32"], result: "void" })!
    .call(cb, 2.5);
  d.deviceFn(instance, device!, "vkCmdDraw", {
    parameters: ["pointer", "u32", "u32", "u32", "u32"],
    result: "void",
  })!
    .call(cb, 3, 1, 0, 0);
  d.deviceFn(instance, device!, "vkDestroyDevice", { parameters: ["pointer", "pointer"], result: "void" })!
    .call(device, null);
  const tail = env.callLog().slice(-4).map((l) => l.split(" ").slice(1, 3).join(" "));
  assertEquals(tail, [
    `vkBeginCommandBuffer commandBuffer=0x${cbs[0]!.toString(16)}`,
    `vkCmdSetLineWidth commandBuffer=0x${cbs[0]!.toString(16)}`,
    `vkCmdDraw commandBuffer=0x${cbs[0]!.toString(16)}`,
    `vkDestroyDevice device=0x${Deno.UnsafePointer.value(device).toString(16)}`,
  ]);
  assertMatch(env.callLog().at(-3)!, /lineWidth=2\.5$/);
});

Deno.test("mock driver can be reconfigured through mock_icd_configure on the same handle", async () => {
  await using env = await MockEnvironment.create();
  const drv = await env.addDriver();
  using d = DirectDriver.open(drv.libraryPath);
  d.configure("name=inline\ninterface=7\n[device]\nname=A\n[device]\nname=B\n");
  d.negotiate(7);
  const instance = d.createInstance();
  const names = d.enumeratePhysicalDevices(instance).map((pd) => d.properties(instance, pd).name);
  assertEquals(names, ["A", "B"]);
  // no log file configured: only the in-memory log has the lines
  assert(d.log().some((l) => l.startsWith("inline vkCreateInstance")));
  assertEquals(env.callLog("inline"), []);
});

Deno.test("mock environment snapshot points discovery at the tree only", async () => {
  await using env = await MockEnvironment.create();
  const a = await env.addDriver({ name: "a" });
  const b = await env.addDriver({ name: "b" }, {
    manifest: { apiVersion: "1.0.0", libraryArch: "64", isPortabilityDriver: true },
  });
  const c = await env.addDriver({ name: "c" }, { placement: "xdg_data_dirs", libraryPathStyle: "relative" });
  const e = await env.addDriver({ name: "e" }, {
    placement: "add_driver_files",
    manifestText: '{"ICD":{"library_path":"${libraryPath}"}}',
  });
  const snap = env.snapshot({ VK_LOADER_DEBUG: "all" });
  assertEquals(snap.vars["VK_DRIVER_FILES"], `${a.manifestPath}:${b.manifestPath}`);
  assertEquals(snap.vars["VK_ADD_DRIVER_FILES"], e.manifestPath);
  assertEquals(snap.vars["XDG_DATA_DIRS"], env.path("xdg_data_dirs"));
  assertEquals(c.manifestPath, env.path("xdg_data_dirs/vulkan/icd.d/c.json"));
  assertEquals(snap.vars["HOME"], env.path("home"));
  assertEquals(snap.vars["VK_LOADER_DEBUG"], "all");
  assertEquals(snap.root, env.path("root"));
  assertEquals(snap.elevated, false);
  assertEquals(env.snapshot({ VK_DRIVER_FILES: "" }).vars["VK_DRIVER_FILES"], undefined);
  assertEquals(JSON.parse(Deno.readTextFileSync(b.manifestPath)), {
    file_format_version: "1.0.1",
    ICD: {
      library_path: b.libraryPath,
      api_version: "1.0.0",
      library_arch: "64",
      is_portability_driver: true,
    },
  });
  assertEquals(
    JSON.parse(Deno.readTextFileSync(c.manifestPath)).ICD.library_path,
    "../../../lib/c/libmock_icd_c.so",
  );
  assertEquals(JSON.parse(Deno.readTextFileSync(e.manifestPath)), { ICD: { library_path: e.libraryPath } });
  assert(Deno.readTextFileSync(a.configPath).includes(`log=${env.logPath}`));
  assert(!a.configPath.endsWith(".json"));
});

/** Runs the loader-free harness under valgrind; resolves to its exit code and output. */
async function valgrindHarness(
  harness: string,
  libraries: string[],
): Promise<{ code: number; output: string }> {
  const args = [
    "-q",
    "--error-exitcode=1",
    "--leak-check=full",
    "--errors-for-leak-kinds=definite",
    harness,
    ...libraries,
  ];
  const out = await new Deno.Command("valgrind", { args, stdout: "piped", stderr: "piped" }).output();
  const dec = new TextDecoder();
  return { code: out.code, output: dec.decode(out.stdout) + dec.decode(out.stderr) };
}

Deno.test("mock driver create/destroy cycle runs clean under valgrind for every interface variant", async () => {
  await using env = await MockEnvironment.create();
  const drivers = await Promise.all(
    [0, 1, 3, 5, 7].map((iface) =>
      env.addDriver({
        interfaceVersion: iface,
        physicalDevices: [{}, { type: "discrete" }],
      })
    ),
  );
  const runs = await Promise.all(
    drivers.map((d) => valgrindHarness(env.build.programs.harness, [d.libraryPath])),
  );
  runs.forEach((run, i) => {
    assertEquals(run.code, 0, `${drivers[i]!.variant}: ${run.output}`);
    assertMatch(run.output, /device 1 Mock Device 1\nok\n/);
  });
  assert(env.callLog().filter((l) => / vkDestroyInstance /.test(l)).length === drivers.length);
});
