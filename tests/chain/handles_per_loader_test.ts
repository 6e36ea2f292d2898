/**
 * Each loader (each `Vulkan.load()`) owns its handle maps (chain/objects.ts `HandleMaps`): a handle
 * one loader made is unknown to another's: its trampolines throw a `TypeError` saying the handle belongs to
 * another loader, its proc-addr queries answer NULL with an error line, nothing done; the loader that made
 * it goes on using it.
 */

import { deepStrictEqual as assertEquals, ok as assert, throws as assertThrows } from "node:assert/strict";
import type { VkDevice } from "../../vk/generated/vk_types.ts";
import { loaderOf } from "../../vulkan.ts";
import { handleKey } from "../../vk/handle_key.ts";
import { MockEnvironment } from "../support/mock.ts";
import { addr, createDevice, createInstance, load, physicalDevices, u32Slot } from "../support/chain.ts";

Deno.test("a handle from one loader is an invalid handle to another, and stays valid in its own", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ physicalDevices: [{}] });
  using a = load(env.snapshot());
  using b = load(env.snapshot());
  const { instance } = createInstance(a);
  const [pd] = physicalDevices(a, instance);
  const { result, device } = createDevice(a, pd!);
  assertEquals(result, 0);
  // b has objects of its own, so its maps are not simply empty.
  const own = createInstance(b);
  const [ownPd] = physicalDevices(b, own.instance);
  const ownDevice = createDevice(b, ownPd!).device;
  const errors = () => b.lines.filter((l) => l.includes("invalid Vk"));

  assertEquals(b.vk.vkGetInstanceProcAddr(instance, "vkCmdDraw"), null);
  const count = u32Slot(b);
  const foreign = (command: string, param: string) => ({
    name: "TypeError",
    message: new RegExp(`^${command}: ${param} 0x[0-9a-f]+ belongs to another Vulkan loader$`),
  });
  assertThrows(
    () => b.vk.vkEnumeratePhysicalDevices(instance, count.pointer, null),
    foreign("vkEnumeratePhysicalDevices", "instance"),
  );
  const out = b.arena.pointer(b.arena.alloc(8));
  assertThrows(() => b.vk.vkCreateDevice(pd!, null, null, out), foreign("vkCreateDevice", "physicalDevice"));
  assertEquals(b.vk.vkGetDeviceProcAddr(device, "vkCmdDraw"), null);
  assertThrows(() => b.vk.vkDestroyDevice(device, null), foreign("vkDestroyDevice", "device"));
  assertThrows(() => b.vk.vkDestroyInstance(instance, null), foreign("vkDestroyInstance", "instance"));
  assertThrows(() => b.vk.deviceTable(device as VkDevice), TypeError);
  assertEquals(errors().map((l) => l.replace(/.*: invalid (\w+).*/, "$1")), [
    "VkInstance", // vkGetInstanceProcAddr
    "VkDevice", // vkGetDeviceProcAddr
  ]);
  assert(!a.lines.some((l) => l.includes("invalid Vk")), a.lines.join("\n"));

  // b's calls did nothing to a's objects: they still answer through a.
  assert(a.vk.vkGetDeviceProcAddr(device, "vkCmdDraw") !== null);
  assert(a.vk.deviceTable(device as VkDevice).vkCmdDraw !== undefined);
  assertEquals(physicalDevices(a, instance).map(addr), [addr(pd!)]);
  assertEquals(loaderOf(a.vk).handleMaps.instances.size, 1);
  assertEquals(loaderOf(b.vk).handleMaps.instances.has(handleKey(instance)), false);

  a.vk.vkDestroyDevice(device, null);
  a.vk.vkDestroyInstance(instance, null);
  b.vk.vkDestroyDevice(ownDevice, null);
  b.vk.vkDestroyInstance(own.instance, null);
  assertEquals(loaderOf(a.vk).handleMaps.devices.size + loaderOf(b.vk).handleMaps.devices.size, 0);
  assertEquals(loaderOf(a.vk).handleMaps.instances.size + loaderOf(b.vk).handleMaps.instances.size, 0);
});

Deno.test("an unknown command first resolved through one loader reaches the driver from another loader's objects", async () => {
  // The slots of unknown commands are per process (chain/unknown.ts); what they hold is per loader object.
  await using env = await MockEnvironment.create();
  await env.addDriver({ physicalDevices: [{}] });
  using a = load(env.snapshot());
  using b = load(env.snapshot());
  const made = [a, b].map((l) => {
    const { instance } = createInstance(l);
    const [pd] = physicalDevices(l, instance);
    return { instance, pd: pd!, device: createDevice(l, pd!).device };
  });
  const def = { parameters: ["pointer", "u32"], result: "u32" } as const;
  const [aPhysical, bPhysical] = [a, b].map((l) =>
    l.vk.getUnknownCommand("vkMockUnknownPhysicalDeviceFn2", def)
  );
  const [aDevice, bDevice] = [a, b].map((l) => l.vk.getUnknownCommand("vkMockUnknownDeviceFn2", def));
  // Same slot, so the same stub; b's instance and device, made before a took the slot, answer too.
  assertEquals(bPhysical, aPhysical);
  assertEquals(bDevice, aDevice);
  assertEquals(made.map((m) => bPhysical!(m.pd, 1)), [0x10000 + 0x2000 + 1, 0x10000 + 0x2000 + 1]);
  assertEquals(made.map((m) => bDevice!(m.device, 2)), [0x18000 + 0x2000 + 2, 0x18000 + 0x2000 + 2]);
  for (const [l, m] of [[a, made[0]!], [b, made[1]!]] as const) {
    l.vk.vkDestroyDevice(m.device, null);
    l.vk.vkDestroyInstance(m.instance, null);
  }
});

Deno.test("instances destroyed and made again in one loader leave another loader's live instance answering through its callbacks", async () => {
  // The callbacks an instance makes are released at vkDestroyInstance and taken again by the next one
  // (ffi/callback.ts): a live instance's must never be among them.
  await using env = await MockEnvironment.create();
  await env.addDriver({ physicalDevices: [{}] });
  using a = load(env.snapshot());
  using b = load(env.snapshot());
  const kept = createInstance(b);
  const [keptPd] = physicalDevices(b, kept.instance);
  for (let round = 0; round < 3; round++) {
    const { instance } = createInstance(a);
    const [pd] = physicalDevices(a, instance);
    const made = createDevice(a, pd!);
    assertEquals(made.result, 0, `round ${round}`);
    a.vk.vkDestroyDevice(made.device, null);
    a.vk.vkDestroyInstance(instance, null);
    // b's instance still enumerates through its own chain (its terminator callbacks) and makes devices.
    assertEquals(physicalDevices(b, kept.instance).map(addr), [addr(keptPd!)], `round ${round}`);
    const own = createDevice(b, keptPd!);
    assertEquals(own.result, 0, `round ${round}`);
    assert(b.vk.vkGetDeviceProcAddr(own.device, "vkCmdDraw") !== null);
    b.vk.vkDestroyDevice(own.device, null);
  }
  b.vk.vkDestroyInstance(kept.instance, null);
  // And a loader whose instances all went makes a working one again.
  const again = createInstance(a);
  assertEquals(physicalDevices(a, again.instance).length, 1);
  a.vk.vkDestroyInstance(again.instance, null);
  assert(![...a.lines, ...b.lines].some((l) => l.includes("threw") || l.includes("invalid Vk")));
});
