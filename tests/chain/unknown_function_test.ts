/**
 * Commands the generated tables do not know, resolved through reserved stub slots (docs/behaviour.md
 * A11, A12): drivers' `vk_icdGetPhysicalDeviceProcAddr` decides physical-device from device commands; the
 * caller gives the signature. Slots are process-wide, so each test uses its own mock function names.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { loaderOf } from "../../vulkan.ts";
import { UNKNOWN_DEVICE_BASE, UNKNOWN_PHYSICAL_DEVICE_BASE } from "../../chain/stubs.ts";
import { MockEnvironment } from "../support/mock.ts";
import {
  addr,
  calls,
  createDevice,
  createInstance,
  fields,
  load,
  physicalDevices,
} from "../support/chain.ts";

const DEF = { parameters: ["pointer", "u32"], result: "u32" } as const;

Deno.test("an unknown physical-device command reaches each device's own driver", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "a", interfaceVersion: 7, physicalDevices: [{}, {}] });
  await env.addDriver({ name: "b", interfaceVersion: 5, unknownBase: 0x50000, physicalDevices: [{}] });
  using l = load(env.snapshot());
  const { instance } = createInstance(l);
  const fn = l.vk.getUnknownCommand("vkMockUnknownPhysicalDeviceFn", DEF);
  assert(fn !== null);
  const pds = physicalDevices(l, instance);
  assertEquals(pds.map((pd) => fn(pd, 7)).sort((x, y) => x - y), [
    0x10000 + 7,
    0x10000 + 0x100 + 7,
    0x50000 + 7,
  ]);
  const seen = calls(env.callLog(), "vkMockUnknownPhysicalDeviceFn").map((x) =>
    BigInt(fields(x).physicalDevice!)
  );
  for (const [i, pd] of pds.entries()) assert(seen[i] !== addr(pd), "the driver got the loader's handle");
  l.vk.vkDestroyInstance(instance, null);
});

Deno.test("an unknown device command reaches the driver, on devices made before and after it was resolved", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ physicalDevices: [{}] });
  using l = load(env.snapshot());
  const { instance } = createInstance(l);
  const [pd] = physicalDevices(l, instance);
  const before = createDevice(l, pd!);
  const fn = l.vk.getUnknownCommand("vkMockUnknownDeviceFn1", DEF);
  assert(fn !== null);
  const after = createDevice(l, pd!);
  assertEquals(fn(before.device, 5), 0x10000 + 0x8000 + 0x1000 + 5);
  assertEquals(fn(after.device, 6), 0x10000 + 0x8000 + 0x1000 + 6);
  assertEquals(
    calls(env.callLog(), "vkMockUnknownDeviceFn1").map((x) => BigInt(fields(x).device!)),
    [addr(before.device), addr(after.device)],
  );
  // The Volk-style path is the same stub.
  assertEquals(l.vk.getUnknownCommand("vkMockUnknownDeviceFn1", DEF), fn);
  l.vk.vkDestroyDevice(before.device, null);
  l.vk.vkDestroyDevice(after.device, null);
  l.vk.vkDestroyInstance(instance, null);
});

Deno.test("vkGetInstanceProcAddr hands out reserved stub slots for unknown commands; vkGetDeviceProcAddr the driver's", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ physicalDevices: [{}] });
  using l = load(env.snapshot());
  const { instance } = createInstance(l);
  const [pd] = physicalDevices(l, instance);
  const { device } = createDevice(l, pd!);
  const stubs = loaderOf(l.vk).stubs;
  const physical = l.vk.vkGetInstanceProcAddr(instance, "vkMockUnknownPhysicalDeviceFn2");
  const dev = l.vk.vkGetInstanceProcAddr(instance, "vkMockUnknownDeviceFn2");
  const slotOf = (p: Deno.PointerValue, set: (i: number) => Deno.PointerValue, base: number) => {
    for (let i = base; i < base + 250; i++) if (addr(set(i)) === addr(p)) return i - base;
    return -1;
  };
  assert(slotOf(physical, (i) => stubs.unwrap.address(0, i), UNKNOWN_PHYSICAL_DEVICE_BASE) >= 0);
  assert(slotOf(dev, (i) => stubs.dispatch.address(i), UNKNOWN_DEVICE_BASE) >= 0);
  const call = (p: Deno.PointerValue, h: Deno.PointerValue, x: number) =>
    new Deno.UnsafeFnPointer(p as Deno.PointerObject<never>, DEF).call(h, x);
  assertEquals(call(physical, pd!, 1), 0x10000 + 0x2000 + 1);
  assertEquals(call(dev, device, 2), 0x10000 + 0x8000 + 0x2000 + 2);
  // vkGetDeviceProcAddr answers unknown names with the driver's own function.
  const direct = l.vk.vkGetDeviceProcAddr(device, "vkMockUnknownDeviceFn3");
  assert(direct !== null);
  assertEquals(call(direct, device, 3), 0x10000 + 0x8000 + 0x3000 + 3);
  l.vk.vkDestroyDevice(device, null);
  l.vk.vkDestroyInstance(instance, null);
});

Deno.test("names no driver knows resolve to NULL", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ unknownFunctions: false });
  using l = load(env.snapshot());
  const { instance } = createInstance(l);
  assertEquals(l.vk.vkGetInstanceProcAddr(instance, "vkMockNeverHeardOfIt"), null);
  assertEquals(l.vk.getUnknownCommand("vkMockNeverHeardOfIt", DEF), null);
  l.vk.vkDestroyInstance(instance, null);
});

Deno.test("an unknown physical-device command on a driver that lacks it returns an error instead of crashing", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "has", physicalDevices: [{}] });
  await env.addDriver({ name: "lacks", unknownFunctions: false, physicalDevices: [{}] });
  using l = load(env.snapshot());
  const { instance } = createInstance(l);
  const fn = l.vk.getUnknownCommand("vkMockUnknownPhysicalDeviceFn1", DEF)!;
  const results = physicalDevices(l, instance).map((pd) => fn(pd, 0));
  // The driver with the function answers; the other's slot is VK_ERROR_EXTENSION_NOT_PRESENT as uint32_t.
  assertEquals(results.sort((x, y) => x - y), [0x10000 + 0x1000, 0xfffffff9]);
  l.vk.vkDestroyInstance(instance, null);
});

Deno.test("without vk_icdGetPhysicalDeviceProcAddr (interface 3) an unknown command is taken for a device command", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ interfaceVersion: 3 });
  using l = load(env.snapshot());
  const { instance } = createInstance(l);
  const found = loaderOf(l.vk).resolveUnknown("vkMockUnknownPhysicalDeviceFn3", DEF);
  assertEquals(found?.kind, "device");
  l.vk.vkDestroyInstance(instance, null);
});

Deno.test("a layer's own device command, unknown to the tables, resolves through the top of the chain", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ physicalDevices: [{}] });
  await env.addLayer({
    name: "VK_LAYER_MOCK_unknown",
    functionBase: 0x40000,
    deviceExtensions: [{ name: "VK_MOCK_layer_device", entrypoints: ["vkMockLayerDeviceFn"] }],
  });
  using l = load(env.snapshot());
  const { instance } = createInstance(l, { layers: ["VK_LAYER_MOCK_unknown"] });
  const [pd] = physicalDevices(l, instance);
  const { result, device } = createDevice(l, pd!, { extensions: ["VK_MOCK_layer_device"] });
  assertEquals(result, 0);
  const fn = l.vk.getUnknownCommand("vkMockLayerDeviceFn", DEF);
  assert(fn !== null);
  assertEquals(fn(device, 4), 0x40000 + 0x200 + 4);
  l.vk.vkDestroyDevice(device, null);
  l.vk.vkDestroyInstance(instance, null);
});
