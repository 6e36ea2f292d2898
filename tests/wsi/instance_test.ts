/**
 * The window-system terminators (wsi/terminators.ts) plugged into the chain: surfaces made through the
 * instance, surface queries through the application's physical devices, and swapchains through the
 * device table, each driver getting its own surface (interface >= 3) or the loader's container.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { readU32 } from "../../ffi/memory.ts";
import { writeStruct } from "../../api/structs.ts";
import { MockEnvironment } from "../support/mock.ts";
import { calls, createDevice, createInstance, fields, load, physicalDevices } from "../support/chain.ts";
import { readHandle } from "../../vk/handle.ts";
import {
  VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR,
  VK_FORMAT_B8G8R8A8_UNORM,
  VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
  VK_PRESENT_MODE_FIFO_KHR,
  VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR,
} from "../../mod.ts";

const EXTENSIONS = ["VK_KHR_surface", "VK_EXT_headless_surface"];

Deno.test("headless surfaces, surface queries and swapchains reach each driver with its own surface", async () => {
  await using env = await MockEnvironment.create();
  // Device types fix the order: "own"'s discrete GPU first, "legacy"'s CPU device second.
  await env.addDriver({ name: "own", interfaceVersion: 7, physicalDevices: [{ type: "discrete" }] });
  await env.addDriver({ name: "legacy", interfaceVersion: 2, physicalDevices: [{ type: "cpu" }] });
  using l = load(env.snapshot());
  const { arena, vk } = l;
  const { result, instance } = createInstance(l, { extensions: EXTENSIONS });
  assertEquals(result, 0);
  const out = arena.pointer(arena.alloc(8));
  assertEquals(
    vk.vkCreateHeadlessSurfaceEXT(
      instance,
      writeStruct(arena, "VkHeadlessSurfaceCreateInfoEXT", {}),
      null,
      out,
    ),
    0,
  );
  const surface = readHandle("VkSurfaceKHR", out, 0)!;
  assert(surface !== null);
  const [a, b] = physicalDevices(l, instance);
  const supported = arena.pointer(arena.alloc(4));
  for (const pd of [a, b]) {
    assertEquals(
      vk.vkGetPhysicalDeviceSurfaceSupportKHR(pd!, 0, surface, supported),
      0,
    );
    assertEquals(readU32(supported, 0), 1);
  }
  const kinds = calls(env.callLog(), "vkGetPhysicalDeviceSurfaceSupportKHR").map((x) => [
    x.split(" ")[0],
    fields(x).kind!.split(":")[0],
  ]);
  assertEquals(kinds, [["own", "own"], ["legacy", "icd"]]);

  const { device } = createDevice(l, b!, { extensions: ["VK_KHR_swapchain"] });
  const swapchainInfo = writeStruct(arena, "VkSwapchainCreateInfoKHR", {
    surface,
    minImageCount: 2,
    imageFormat: VK_FORMAT_B8G8R8A8_UNORM,
    imageExtent: { width: 64, height: 64 },
    imageArrayLayers: 1,
    imageUsage: VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
    preTransform: VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR,
    compositeAlpha: VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR,
    presentMode: VK_PRESENT_MODE_FIFO_KHR,
  });
  const swapchainOut = arena.pointer(arena.alloc(8));
  assertEquals(vk.vkCreateSwapchainKHR(device, swapchainInfo, null, swapchainOut), 0);
  const created = calls(env.callLog(), "vkCreateSwapchainKHR")[0]!;
  assertEquals([created.split(" ")[0], fields(created).kind!.split(":")[0]], ["legacy", "icd"]);
  vk.vkDestroySwapchainKHR(device, readHandle("VkSwapchainKHR", swapchainOut, 0), null);
  vk.vkDestroyDevice(device, null);
  vk.vkDestroySurfaceKHR(instance, surface, null);
  assertEquals(calls(env.callLog(), "vkDestroySurfaceKHR").map((x) => x.split(" ")[0]), ["own"]);
  vk.vkDestroyInstance(instance, null);
});

Deno.test("surface commands of an extension that was not enabled resolve to NULL", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver();
  using l = load(env.snapshot());
  const { instance } = createInstance(l, { extensions: ["VK_KHR_surface"] });
  assertEquals(l.vk.vkGetInstanceProcAddr(instance, "vkCreateHeadlessSurfaceEXT"), null);
  assert(l.vk.vkGetInstanceProcAddr(instance, "vkDestroySurfaceKHR") !== null);
  l.vk.vkDestroyInstance(instance, null);
});
