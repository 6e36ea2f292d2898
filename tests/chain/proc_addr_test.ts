/**
 * `vkGetInstanceProcAddr` and `vkGetDeviceProcAddr` rules, table-driven (docs/behaviour.md A07-A09):
 * global commands for a NULL instance and for instances below 1.3, NULL for unknown names and for
 * commands of extensions that were not enabled, device commands through either, loader trampolines where
 * the loader must act, the driver's own function through `vkGetDeviceProcAddr`.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { COMMAND_INDEX } from "../../vk/generated/commands.ts";
import { Library } from "../../ffi/library.ts";
import { loaderOf } from "../../vulkan.ts";
import { TRAMPOLINE_COMMANDS } from "../../chain/proc_addr.ts";
import { MockEnvironment } from "../support/mock.ts";
import { addr, createDevice, createInstance, load, physicalDevices, u32Slot } from "../support/chain.ts";
import { asHandle } from "../../vk/handle.ts";

type Kind = "null" | "trampoline" | "dispatch stub" | "physical-device stub" | "driver" | "loader terminator";
type Row = readonly [
  via: "GIPA(NULL)" | "GIPA(1.2)" | "GIPA(1.3)" | "GDPA" | "GDPA(swapchain)",
  name: string,
  Kind,
];

const ROWS: readonly Row[] = [
  ["GIPA(NULL)", "vkCreateInstance", "trampoline"],
  ["GIPA(NULL)", "vkEnumerateInstanceExtensionProperties", "trampoline"],
  ["GIPA(NULL)", "vkEnumerateInstanceLayerProperties", "trampoline"],
  ["GIPA(NULL)", "vkEnumerateInstanceVersion", "trampoline"],
  ["GIPA(NULL)", "vkGetInstanceProcAddr", "trampoline"],
  ["GIPA(NULL)", "vkDestroyInstance", "null"],
  ["GIPA(NULL)", "vkCreateDevice", "null"],
  ["GIPA(NULL)", "vkCmdDraw", "null"],
  ["GIPA(NULL)", "vkNotACommandAtAll", "null"],
  ["GIPA(1.2)", "vkCreateInstance", "trampoline"],
  ["GIPA(1.2)", "vkEnumerateInstanceVersion", "trampoline"],
  ["GIPA(1.2)", "vkGetInstanceProcAddr", "trampoline"],
  ["GIPA(1.2)", "vkDestroyInstance", "trampoline"],
  ["GIPA(1.2)", "vkEnumeratePhysicalDevices", "trampoline"],
  ["GIPA(1.2)", "vkEnumeratePhysicalDeviceGroups", "trampoline"],
  ["GIPA(1.2)", "vkEnumeratePhysicalDeviceGroupsKHR", "null"],
  ["GIPA(1.2)", "vkGetPhysicalDeviceProperties", "physical-device stub"],
  ["GIPA(1.2)", "vkGetPhysicalDeviceProperties2", "physical-device stub"],
  ["GIPA(1.2)", "vkGetPhysicalDeviceProperties2KHR", "null"],
  ["GIPA(1.2)", "vkGetPhysicalDeviceSurfaceSupportKHR", "physical-device stub"],
  // Instance commands use the same unwrap stubs as physical-device ones (word 1 of the VkInstance is the
  // handle the top of the chain knows, a layer's wrapper or the loader's own).
  ["GIPA(1.2)", "vkDestroySurfaceKHR", "physical-device stub"],
  ["GIPA(1.2)", "vkCreateXcbSurfaceKHR", "null"],
  ["GIPA(1.2)", "vkCreateDebugUtilsMessengerEXT", "null"],
  ["GIPA(1.2)", "vkCreateDevice", "trampoline"],
  ["GIPA(1.2)", "vkGetDeviceProcAddr", "trampoline"],
  ["GIPA(1.2)", "vkDestroyDevice", "trampoline"],
  ["GIPA(1.2)", "vkGetDeviceQueue", "trampoline"],
  ["GIPA(1.2)", "vkGetDeviceQueue2", "trampoline"],
  ["GIPA(1.2)", "vkAllocateCommandBuffers", "trampoline"],
  ["GIPA(1.2)", "vkCmdDraw", "dispatch stub"],
  ["GIPA(1.2)", "vkQueueSubmit", "dispatch stub"],
  ["GIPA(1.2)", "vkCreateSwapchainKHR", "dispatch stub"],
  ["GIPA(1.2)", "vkCmdBeginDebugUtilsLabelEXT", "null"],
  ["GIPA(1.2)", "vkNotACommandAtAll", "null"],
  ["GIPA(1.3)", "vkCreateInstance", "null"],
  ["GIPA(1.3)", "vkEnumerateInstanceVersion", "null"],
  ["GIPA(1.3)", "vkEnumerateInstanceExtensionProperties", "null"],
  ["GIPA(1.3)", "vkGetInstanceProcAddr", "trampoline"],
  ["GIPA(1.3)", "vkGetPhysicalDeviceProperties2", "physical-device stub"],
  ["GDPA", "vkCmdDraw", "driver"],
  ["GDPA", "vkQueueWaitIdle", "driver"],
  ["GDPA", "vkBeginCommandBuffer", "driver"],
  ["GDPA", "vkGetDeviceProcAddr", "trampoline"],
  ["GDPA", "vkDestroyDevice", "trampoline"],
  ["GDPA", "vkGetDeviceQueue", "trampoline"],
  ["GDPA", "vkGetDeviceQueue2", "trampoline"],
  ["GDPA", "vkAllocateCommandBuffers", "trampoline"],
  ["GDPA", "vkCreateSwapchainKHR", "null"],
  ["GDPA", "vkCmdDispatch", "null"],
  ["GDPA", "vkGetPhysicalDeviceProperties", "null"],
  ["GDPA", "vkCreateInstance", "null"],
  ["GDPA", "vkDestroyInstance", "null"],
  ["GDPA", "vkGetInstanceProcAddr", "null"],
  ["GDPA", "vkNotACommandAtAll", "null"],
  ["GDPA(swapchain)", "vkCreateSwapchainKHR", "loader terminator"],
  ["GDPA(swapchain)", "vkDestroySwapchainKHR", "driver"],
];

Deno.test("get-proc-addr rules", async () => {
  await using env = await MockEnvironment.create();
  const drv = await env.addDriver({
    instanceExtensions: ["VK_KHR_surface", "VK_KHR_xcb_surface", "VK_KHR_get_physical_device_properties2"],
    physicalDevices: [{ extensions: ["VK_KHR_swapchain"] }],
  });
  using l = load(env.snapshot());
  const i12 = createInstance(l, { apiVersion: "1.2.0", extensions: ["VK_KHR_surface"] });
  const i13 = createInstance(l, { apiVersion: "1.3.0" });
  assertEquals([i12.result, i13.result], [0, 0]);
  const [pd] = physicalDevices(l, i12.instance);
  const plain = createDevice(l, pd!);
  const swapchain = createDevice(l, pd!, { extensions: ["VK_KHR_swapchain"] });
  const loader = loaderOf(l.vk);
  using driverLib = Library.open(drv.libraryPath);
  const gipa = new Deno.UnsafeFnPointer(
    driverLib.symbolAddress("vk_icdGetInstanceProcAddr") as Deno.PointerObject<never>,
    { parameters: ["pointer", "buffer"], result: "pointer" } as const,
  );
  const driverFn = (name: string) => addr(gipa.call(null, new TextEncoder().encode(`${name}\0`)));

  const classify = (p: Deno.PointerValue, name: string): Kind => {
    if (p === null) return "null";
    const a = addr(p);
    const slot = COMMAND_INDEX[name];
    if (TRAMPOLINE_COMMANDS.has(name) && a === addr(loader.trampoline(name))) return "trampoline";
    if (slot !== undefined && a === addr(loader.stubs.dispatch.address(slot))) return "dispatch stub";
    if (slot !== undefined && a === addr(loader.stubs.unwrap.address(0, slot))) return "physical-device stub";
    if (a === driverFn(name)) return "driver";
    return "loader terminator";
  };
  const got = ROWS.map(([via, name]) => {
    const p = via === "GIPA(NULL)"
      ? l.vk.vkGetInstanceProcAddr(null, name)
      : via === "GIPA(1.2)"
      ? l.vk.vkGetInstanceProcAddr(i12.instance, name)
      : via === "GIPA(1.3)"
      ? l.vk.vkGetInstanceProcAddr(i13.instance, name)
      : via === "GDPA"
      ? l.vk.vkGetDeviceProcAddr(plain.device, name)
      : l.vk.vkGetDeviceProcAddr(swapchain.device, name);
    return [via, name, classify(p, name)] as const;
  });
  assertEquals(got, ROWS);
  l.vk.vkDestroyDevice(plain.device, null);
  l.vk.vkDestroyDevice(swapchain.device, null);
  l.vk.vkDestroyInstance(i12.instance, null);
  l.vk.vkDestroyInstance(i13.instance, null);
});

Deno.test("pointers from vkGetInstanceProcAddr are callable from C", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ physicalDevices: [{}, {}] });
  using l = load(env.snapshot());
  const p = l.vk.vkGetInstanceProcAddr(null, l.arena.cstring("vkEnumerateInstanceVersion"));
  const eiv = new Deno.UnsafeFnPointer(
    p as Deno.PointerObject<never>,
    { parameters: ["pointer"], result: "i32" } as const,
  );
  const v = u32Slot(l);
  assertEquals(eiv.call(v.pointer), 0);
  assertEquals(v.read() >>> 22, 1);
  const { instance } = createInstance(l);
  const enumerate = new Deno.UnsafeFnPointer(
    l.vk.vkGetInstanceProcAddr(instance, "vkEnumeratePhysicalDevices") as Deno.PointerObject<never>,
    { parameters: ["pointer", "pointer", "pointer"], result: "i32" } as const,
  );
  const count = u32Slot(l);
  assertEquals(enumerate.call(instance, count.pointer, null), 0);
  assertEquals(count.read(), 2);
  const props = new Deno.UnsafeFnPointer(
    l.vk.vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceProperties") as Deno.PointerObject<never>,
    { parameters: ["pointer", "pointer"], result: "void" } as const,
  );
  const [pd] = physicalDevices(l, instance);
  const buf = l.arena.alloc(1024);
  props.call(pd!, l.arena.pointer(buf));
  assert(new TextDecoder().decode(buf.subarray(20, 33)) === "Mock Device 0");
  l.vk.vkDestroyInstance(instance, null);
});

Deno.test("an invalid VkInstance gives NULL and an error line", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver();
  using l = load(env.snapshot());
  const bogus = asHandle("VkInstance", l.arena.pointer(l.arena.alloc(16)))!;
  assertEquals(l.vk.vkGetInstanceProcAddr(bogus, "vkCmdDraw"), null);
  assert(l.lines.some((x) => x.includes("invalid VkInstance")));
});
