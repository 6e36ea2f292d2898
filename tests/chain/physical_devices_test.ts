/**
 * Physical devices: loader-owned wrappers aggregated across drivers, stable handles, the two-call idiom,
 * zero devices, groups, and every physical-device command reaching its own driver with the driver's handle.
 */

import {
  deepStrictEqual as assertEquals,
  notDeepStrictEqual as assertNotEquals,
  ok as assert,
} from "node:assert/strict";
import { readCString, readPointer, readU32 } from "../../ffi/memory.ts";
import { MockEnvironment } from "../support/mock.ts";
import { addr, calls, createInstance, fields, load, physicalDevices, u32Slot } from "../support/chain.ts";
import type { Loaded } from "../support/chain.ts";
import { asHandle } from "../../vk/handle.ts";

const VK_INCOMPLETE = 5;
const VK_ERROR_INITIALIZATION_FAILED = -3;

function deviceName(l: Loaded, pd: Deno.PointerValue): string {
  const props = l.arena.pointer(l.arena.alloc(1024));
  l.vk.vkGetPhysicalDeviceProperties(asHandle("VkPhysicalDevice", pd)!, props);
  return readCString(Deno.UnsafePointer.create(addr(props) + 20n));
}

Deno.test("devices of every driver are aggregated as loader handles, sorted as the Khronos loader sorts them", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({
    name: "a",
    physicalDevices: [{ name: "A0", type: "cpu" }, { name: "A1", type: "discrete" }],
  });
  await env.addDriver({ name: "b", physicalDevices: [{ name: "B0", type: "integrated" }] });
  using l = load(env.snapshot());
  const { instance } = createInstance(l);
  const pds = physicalDevices(l, instance);
  // Discrete, integrated, ..., CPU (chain/order/sort.ts).
  assertEquals(pds.map((pd) => deviceName(l, pd)), ["A1", "B0", "A0"]);
  const driverHandles = calls(env.callLog(), "vkEnumeratePhysicalDevices")
    .flatMap((x) => (fields(x).devices ?? "").split(",").filter(Boolean))
    .map((h) => BigInt(h));
  for (const pd of pds) {
    assert(!driverHandles.includes(addr(pd)), "a driver's handle leaked to the application");
  }
  l.vk.vkDestroyInstance(instance, null);
});

Deno.test("unsorted (VK_LOADER_DISABLE_SELECT=1), drivers come in reverse discovery order, each in its own order", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "a", physicalDevices: [{ name: "A0" }, { name: "A1" }] });
  await env.addDriver({ name: "b", physicalDevices: [{ name: "B0" }] });
  using l = load(env.snapshot({ VK_LOADER_DISABLE_SELECT: "1" }));
  const { instance } = createInstance(l);
  assertEquals(physicalDevices(l, instance).map((pd) => deviceName(l, pd)), ["B0", "A0", "A1"]);
  l.vk.vkDestroyInstance(instance, null);
});

Deno.test("physical-device commands reach the owning driver with the driver's own handle", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "a", physicalDevices: [{}] });
  await env.addDriver({ name: "b", physicalDevices: [{}, {}] });
  using l = load(env.snapshot());
  const { instance } = createInstance(l);
  const pds = physicalDevices(l, instance);
  const byDriver = calls(env.callLog(), "vkEnumeratePhysicalDevices")
    .filter((x) => fields(x).devices)
    .map((x) => [x.split(" ")[0], fields(x).devices!.split(",")] as const);
  const expected = [
    ...new Set(byDriver.flatMap(([name, handles]) => handles.map((h) => `${name} ${BigInt(h)}`))),
  ];
  env.clearCallLog();
  for (const pd of pds) {
    l.vk.vkGetPhysicalDeviceProperties(pd, l.arena.pointer(l.arena.alloc(1024)));
    l.vk.vkGetPhysicalDeviceMemoryProperties(pd, l.arena.pointer(l.arena.alloc(1024)));
  }
  const seen = (command: string) =>
    calls(env.callLog(), command).map((x) => `${x.split(" ")[0]} ${BigInt(fields(x).physicalDevice!)}`);
  // Every device reached its own driver once, whatever the order.
  assertEquals(seen("vkGetPhysicalDeviceProperties").sort(), expected.sort());
  assertEquals(seen("vkGetPhysicalDeviceMemoryProperties").sort(), expected.sort());
  l.vk.vkDestroyInstance(instance, null);
});

Deno.test("handles are identical across calls and VK_INCOMPLETE reports a short array", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ physicalDevices: [{}, {}, {}] });
  using l = load(env.snapshot());
  const { instance } = createInstance(l);
  const first = physicalDevices(l, instance).map(addr);
  const second = physicalDevices(l, instance).map(addr);
  assertEquals(second, first);
  assertEquals(new Set(first).size, 3);
  const count = u32Slot(l, 2);
  const arr = l.arena.pointer(l.arena.alloc(8 * 3));
  assertEquals(l.vk.vkEnumeratePhysicalDevices(instance, count.pointer, arr), VK_INCOMPLETE);
  assertEquals(count.read(), 2);
  assertEquals([addr(readPointer(arr, 0)), addr(readPointer(arr, 8)), addr(readPointer(arr, 16))], [
    first[0],
    first[1],
    0n,
  ]);
  l.vk.vkDestroyInstance(instance, null);
});

Deno.test("zero devices overall gives VK_ERROR_INITIALIZATION_FAILED", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "empty", physicalDevices: [] });
  using l = load(env.snapshot());
  const { result, instance } = createInstance(l);
  assertEquals(result, 0);
  const count = u32Slot(l);
  assertEquals(
    l.vk.vkEnumeratePhysicalDevices(instance, count.pointer, null),
    VK_ERROR_INITIALIZATION_FAILED,
  );
  assertEquals(
    l.vk.vkEnumeratePhysicalDeviceGroups(instance, count.pointer, null),
    VK_ERROR_INITIALIZATION_FAILED,
  );
  l.vk.vkDestroyInstance(instance, null);
});

Deno.test("a driver failing enumeration is skipped, the others' devices are listed", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "broken", enumeratePhysicalDevicesResult: -3 });
  await env.addDriver({ name: "fine", physicalDevices: [{ name: "Fine" }] });
  using l = load(env.snapshot());
  const { instance } = createInstance(l);
  assertEquals(physicalDevices(l, instance).map((pd) => deviceName(l, pd)), ["Fine"]);
  assert(l.lines.some((x) => x.includes("broken.json") && x.includes("vkEnumeratePhysicalDevices failed")));
  l.vk.vkDestroyInstance(instance, null);
});

function groups(l: Loaded, instance: Deno.PointerValue, capacity?: number) {
  const count = u32Slot(l);
  assertEquals(
    l.vk.vkEnumeratePhysicalDeviceGroups(asHandle("VkInstance", instance)!, count.pointer, null),
    0,
  );
  const n = capacity ?? count.read();
  const size = 288;
  const buf = l.arena.alloc(size * Math.max(1, n));
  const dv = new DataView(buf.buffer, buf.byteOffset);
  for (let i = 0; i < n; i++) dv.setUint32(i * size, 1000070000, true);
  const p = l.arena.pointer(buf);
  const capped = u32Slot(l, n);
  const result = l.vk.vkEnumeratePhysicalDeviceGroups(asHandle("VkInstance", instance)!, capped.pointer, p);
  const list = Array.from({ length: capped.read() }, (_, i) => {
    const k = readU32(p, i * size + 16);
    return Array.from({ length: k }, (_, j) => addr(readPointer(p, i * size + 24 + j * 8)));
  });
  return { result, list, sTypes: Array.from({ length: n }, (_, i) => readU32(p, i * size)) };
}

Deno.test("device groups: the drivers' groups, one group per device for drivers without group support", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "grouped", physicalDevices: [{}, {}], groups: [[0, 1]] });
  await env.addDriver({ name: "nogroups", physicalDevices: [{}, {}], groupsSupported: false });
  using l = load(env.snapshot());
  const { instance } = createInstance(l);
  const pds = physicalDevices(l, instance).map(addr);
  const g = groups(l, instance);
  assertEquals(g.result, 0);
  // Every device in exactly one group, the grouped driver's two together.
  assertEquals(g.list.flat().sort(), [...pds].sort());
  assertEquals(g.list.map((x) => x.length).sort(), [1, 1, 2]);
  const pair = g.list.find((x) => x.length === 2)!;
  const owner = (h: bigint) => {
    env.clearCallLog();
    l.vk.vkGetPhysicalDeviceProperties(
      asHandle("VkPhysicalDevice", Deno.UnsafePointer.create(h))!,
      l.arena.pointer(l.arena.alloc(1024)),
    );
    return calls(env.callLog(), "vkGetPhysicalDeviceProperties")[0]!.split(" ")[0];
  };
  assertEquals(pair.map(owner), ["grouped", "grouped"]);
  assertEquals(g.sTypes, [1000070000, 1000070000, 1000070000]);
  const short = groups(l, instance, 2);
  assertEquals(short.result, VK_INCOMPLETE);
  assertEquals(short.list.length, 2);
  l.vk.vkDestroyInstance(instance, null);
});

Deno.test("device extensions come from the driver; device layers are answered by the loader", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ physicalDevices: [{ extensions: ["VK_KHR_swapchain", "VK_KHR_maintenance1"] }] });
  using l = load(env.snapshot());
  const { instance } = createInstance(l);
  const [pd] = physicalDevices(l, instance);
  const count = u32Slot(l);
  assertEquals(l.vk.vkEnumerateDeviceExtensionProperties(pd!, null, count.pointer, null), 0);
  assertEquals(count.read(), 2);
  assertEquals(l.vk.vkEnumerateDeviceLayerProperties(pd!, count.pointer, null), 0);
  assertEquals(count.read(), 0);
  assertEquals(
    l.vk.vkEnumerateDeviceExtensionProperties(pd!, l.arena.cstring("VK_LAYER_x"), count.pointer, null),
    -6,
  );
  assert(calls(env.callLog(), "vkEnumerateDeviceExtensionProperties").every((x) => x.endsWith("layer=NULL")));
  l.vk.vkDestroyInstance(instance, null);
});

Deno.test("instance-level functionality a driver lacks is supplied by the loader (LDP_LOADER_8)", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ physicalDevices: [{}] });
  using l = load(env.snapshot());
  const { instance } = createInstance(l);
  const [pd] = physicalDevices(l, instance);
  // The mock has no vkGetPhysicalDeviceToolProperties: the loader answers "no tools".
  const count = u32Slot(l, 7);
  assertEquals(l.vk.vkGetPhysicalDeviceToolProperties(pd!, count.pointer, null), 0);
  assertEquals(count.read(), 0);
  l.vk.vkDestroyInstance(instance, null);
});

Deno.test("two instances have distinct physical-device handles", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ physicalDevices: [{}] });
  using l = load(env.snapshot());
  const a = createInstance(l);
  const b = createInstance(l);
  const [pa] = physicalDevices(l, a.instance);
  const [pb] = physicalDevices(l, b.instance);
  assertNotEquals(addr(pa!), addr(pb!));
  l.vk.vkDestroyInstance(a.instance, null);
  assertEquals(deviceName(l, pb!), "Mock Device 0");
  l.vk.vkDestroyInstance(b.instance, null);
});

Deno.test("a driver with more devices than the enumeration's kept buffer holds lists every one, twice alike", async () => {
  // chain/terminator.ts asks drivers into a kept 8-handle buffer, and into a fresh one for longer lists.
  await using env = await MockEnvironment.create();
  const names = Array.from({ length: 12 }, (_, i) => `D${i}`);
  await env.addDriver({ name: "many", physicalDevices: names.map((name) => ({ name, type: "cpu" })) });
  await env.addDriver({ name: "few", physicalDevices: [{ name: "F0", type: "cpu" }] });
  using l = load(env.snapshot({ VK_LOADER_DISABLE_SELECT: "1" }));
  const { instance } = createInstance(l);
  const first = physicalDevices(l, instance);
  assertEquals(first.map((pd) => deviceName(l, pd)), ["F0", ...names]);
  assertEquals(physicalDevices(l, instance).map(addr), first.map(addr));
  l.vk.vkDestroyInstance(instance, null);
});
