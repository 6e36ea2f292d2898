/**
 * WSI through vkdeno's public command object (`Vulkan.load`) over mock drivers: which surface handle
 * each driver receives (its own, or the loader's `VkIcdSurface*` container with the platform fields it
 * reads), for every surface command and swapchain creation, and surface destruction.
 */
import assert from "node:assert/strict";
import type { Arena } from "../../ffi/memory.ts";
import { allocStruct, writeStruct } from "../../api/structs.ts";
import { MockEnvironment } from "../support/mock.ts";
import {
  calls,
  createDevice,
  createInstance,
  fields,
  load,
  physicalDevices,
  u32Slot,
} from "../support/chain.ts";
import { asHandle, readHandle } from "../../vk/handle.ts";
import type { VkPhysicalDevice, VkSurfaceKHR, VkSwapchainKHR } from "../../vk/generated/vk_types.ts";
import {
  VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR,
  VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
  VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR,
} from "../../mod.ts";

const SURFACE_QUERIES = [
  "vkGetPhysicalDeviceSurfaceSupportKHR",
  "vkGetPhysicalDeviceSurfaceCapabilitiesKHR",
  "vkGetPhysicalDeviceSurfaceFormatsKHR",
  "vkGetPhysicalDeviceSurfacePresentModesKHR",
];

function surfaceOut(arena: Arena): { pointer: Deno.PointerObject; read(): VkSurfaceKHR } {
  const pointer = arena.pointer(arena.alloc(8));
  return { pointer, read: () => readHandle("VkSurfaceKHR", pointer)! };
}

/** Calls the four VK_KHR_surface queries on `pd`; each must succeed. */
function querySurface(l: ReturnType<typeof load>, pd: VkPhysicalDevice, surface: VkSurfaceKHR): void {
  const { vk, arena } = l;
  const count = u32Slot(l);
  assert.equal(
    vk.vkGetPhysicalDeviceSurfaceSupportKHR(
      pd,
      0,
      surface,
      count.pointer,
    ),
    0,
  );
  assert.equal(count.read(), 1);
  const caps = allocStruct(arena, "VkSurfaceCapabilitiesKHR");
  assert.equal(
    vk.vkGetPhysicalDeviceSurfaceCapabilitiesKHR(
      pd,
      surface,
      caps,
    ),
    0,
  );
  assert.equal(
    vk.vkGetPhysicalDeviceSurfaceFormatsKHR(
      pd,
      surface,
      count.pointer,
      null,
    ),
    0,
  );
  assert.equal(count.read(), 2);
  assert.equal(
    vk.vkGetPhysicalDeviceSurfacePresentModesKHR(
      pd,
      surface,
      count.pointer,
      null,
    ),
    0,
  );
}

/** `[driver, kind]` of every call-log line of `command`, sorted (physical-device order is the loader's). */
function kinds(log: string[], command: string): string[][] {
  return calls(log, command).map((line) => [line.split(" ")[0]!, fields(line).kind!]).sort((a, b) =>
    a.join(" ").localeCompare(b.join(" "))
  );
}

Deno.test("through vkdeno, an interface-2 driver reads the xlib and xcb fields from the container and an interface-7 driver gets its own surface in every surface command and swapchain", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "own", interfaceVersion: 7 });
  await env.addDriver({ name: "legacy", interfaceVersion: 2 });
  using l = load(env.snapshot());
  const { arena, vk } = l;
  const { result, instance } = createInstance(l, {
    extensions: ["VK_KHR_surface", "VK_KHR_xlib_surface", "VK_KHR_xcb_surface"],
  });
  assert.equal(result, 0);
  const [pdOwn, pdLegacy] = physicalDevices(l, instance);
  const devices = [pdOwn, pdLegacy].map((pd) =>
    createDevice(l, pd!, { extensions: ["VK_KHR_swapchain"] }).device
  );

  const platforms = [
    {
      command: "vkCreateXlibSurfaceKHR",
      info: writeStruct(arena, "VkXlibSurfaceCreateInfoKHR", {
        dpy: Deno.UnsafePointer.create(0xd1e0n),
        window: 0x400007n,
      }),
      container: "icd:xlib:dpy=0xd1e0:window=0x400007",
    },
    {
      command: "vkCreateXcbSurfaceKHR",
      info: writeStruct(arena, "VkXcbSurfaceCreateInfoKHR", {
        connection: Deno.UnsafePointer.create(0xc0e0n),
        window: 0x600001,
      }),
      container: "icd:xcb:connection=0xc0e0:window=0x600001",
    },
  ];
  for (const { command, info, container } of platforms) {
    env.clearCallLog();
    const out = surfaceOut(arena);
    assert.equal(
      vk[command as "vkCreateXlibSurfaceKHR"](instance, info as Deno.PointerObject, null, out.pointer),
      0,
    );
    const surface = out.read();
    const created = calls(env.callLog(), command);
    assert.equal(created.length, 1, "only the interface-7 driver creates a surface");
    assert.match(created[0]!, /^own /);
    const id = fields(created[0]!).id;
    const platform = command === "vkCreateXlibSurfaceKHR" ? "xlib" : "xcb";

    for (const pd of [pdOwn, pdLegacy]) querySurface(l, pd!, surface);
    const swapchains: (VkSwapchainKHR | null)[] = [];
    for (const device of devices) {
      const info = writeStruct(arena, "VkSwapchainCreateInfoKHR", {
        imageUsage: VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
        preTransform: VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR,
        compositeAlpha: VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR,
        surface,
        minImageCount: 2,
        imageExtent: { width: 64, height: 48 },
      });
      const sc = surfaceOut(arena);
      assert.equal(vk.vkCreateSwapchainKHR(device, info, null, sc.pointer), 0);
      swapchains.push(readHandle("VkSwapchainKHR", sc.pointer));
    }
    const log = env.callLog();
    for (const query of [...SURFACE_QUERIES, "vkCreateSwapchainKHR"]) {
      assert.deepEqual(kinds(log, query), [["legacy", container], ["own", `own:${id}:${platform}`]], query);
    }
    devices.forEach((device, i) => vk.vkDestroySwapchainKHR(device, swapchains[i] ?? null, null));

    env.clearCallLog();
    vk.vkDestroySurfaceKHR(instance, surface, null);
    assert.deepEqual(kinds(env.callLog(), "vkDestroySurfaceKHR"), [["own", `own:${id}:${platform}`]]);
  }
  for (const device of devices) vk.vkDestroyDevice(device, null);
  vk.vkDestroyInstance(instance, null);
});

Deno.test("through vkdeno, vkDestroySurfaceKHR reaches every driver that made its own surface", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "a", interfaceVersion: 3 });
  // An interface-2 driver is never asked to make a surface, even one that hands out the command.
  await env.addDriver({ name: "b", interfaceVersion: 2, surfacesBelowInterface3: true });
  await env.addDriver({ name: "c", interfaceVersion: 7 });
  await env.addDriver({ name: "d", interfaceVersion: 7, ownSurfaces: false });
  using l = load(env.snapshot());
  const { arena, vk } = l;
  const { instance } = createInstance(l, { extensions: ["VK_KHR_surface", "VK_EXT_headless_surface"] });
  const out = surfaceOut(arena);
  const info = writeStruct(arena, "VkHeadlessSurfaceCreateInfoEXT", {});
  assert.equal(vk.vkCreateHeadlessSurfaceEXT(instance, info, null, out.pointer), 0);
  const surface = out.read();
  const creators = calls(env.callLog(), "vkCreateHeadlessSurfaceEXT").map((x) => x.split(" ")[0]);
  assert.deepEqual(creators.sort(), ["a", "c"]);
  // Headless surfaces: each driver's query sees its own surface or the container's platform.
  const pds = physicalDevices(l, instance);
  for (const pd of pds) querySurface(l, pd, surface);
  assert.deepEqual(
    kinds(env.callLog(), "vkGetPhysicalDeviceSurfaceSupportKHR").map(([d, k]) =>
      `${d} ${k!.replace(/:\d+:/, ":N:")}`
    ),
    ["a own:N:headless", "b icd:headless", "c own:N:headless", "d icd:headless"],
  );
  env.clearCallLog();
  vk.vkDestroySurfaceKHR(instance, surface, null);
  assert.deepEqual(calls(env.callLog(), "vkDestroySurfaceKHR").map((x) => x.split(" ")[0]).sort(), [
    "a",
    "c",
  ]);
  vk.vkDestroyInstance(instance, null);
});

Deno.test("through vkdeno, asking for a surface extension no driver offers fails with VK_ERROR_EXTENSION_NOT_PRESENT", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ instanceExtensions: ["VK_KHR_surface", "VK_KHR_xcb_surface"] });
  using l = load(env.snapshot());
  assert.equal(createInstance(l, { extensions: ["VK_KHR_surface", "VK_KHR_wayland_surface"] }).result, -7);
  assert.ok(l.lines.some((line) => line.includes("VK_KHR_wayland_surface")), l.lines.join("\n"));
  const { result, instance } = createInstance(l, { extensions: ["VK_KHR_surface", "VK_KHR_xcb_surface"] });
  assert.equal(result, 0);
  // Enabled: resolves; not enabled (though the driver has it, or not): NULL.
  assert.notEqual(l.vk.vkGetInstanceProcAddr(instance, "vkCreateXcbSurfaceKHR"), null);
  assert.equal(l.vk.vkGetInstanceProcAddr(instance, "vkCreateXlibSurfaceKHR"), null);
  assert.equal(l.vk.vkGetInstanceProcAddr(instance, "vkCreateDisplayPlaneSurfaceKHR"), null);
  assert.equal(l.vk.vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceDisplayPropertiesKHR"), null);
  l.vk.vkDestroyInstance(instance, null);
});

Deno.test("through vkdeno, VK_KHR_display queries reach the driver and the get_display_properties2 ones are emulated", async () => {
  await using env = await MockEnvironment.create();
  const extensions = ["VK_KHR_surface", "VK_KHR_display", "VK_KHR_get_display_properties2"];
  await env.addDriver({ name: "disp", instanceExtensions: extensions });
  using l = load(env.snapshot());
  const { instance } = createInstance(l, { extensions });
  const [pd] = physicalDevices(l, instance);
  env.clearCallLog();
  const count = u32Slot(l, 9);
  assert.equal(l.vk.vkGetPhysicalDeviceDisplayPropertiesKHR(pd!, count.pointer, null), 0);
  assert.equal(count.read(), 0);
  const props2 = allocStruct(l.arena, "VkDisplayPlaneProperties2KHR", { count: 1 });
  const one = u32Slot(l, 1);
  assert.equal(l.vk.vkGetPhysicalDeviceDisplayPlaneProperties2KHR(pd!, one.pointer, props2), 0);
  assert.equal(one.read(), 0);
  assert.deepEqual(env.callLog().map((x) => x.split(" ").slice(0, 2).join(" ")), [
    "disp vkGetPhysicalDeviceDisplayPropertiesKHR",
    "disp vkGetPhysicalDeviceDisplayPlanePropertiesKHR",
  ]);
  l.vk.vkDestroyInstance(instance, null);
});

Deno.test("through a mock layer, surface queries and vkCreateSwapchainKHR still reach each driver with its own surface (the layer's next pointers are the WSI terminators)", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "own", interfaceVersion: 7 });
  await env.addDriver({ name: "legacy", interfaceVersion: 2 });
  await env.addLayer({ name: "VK_LAYER_MOCK_wsi", logName: "layer" });
  using l = load(env.snapshot());
  const { arena, vk } = l;
  const { result, instance } = createInstance(l, {
    extensions: ["VK_KHR_surface", "VK_EXT_headless_surface"],
    layers: ["VK_LAYER_MOCK_wsi"],
  });
  assert.equal(result, 0);
  const out = surfaceOut(arena);
  const info = writeStruct(arena, "VkHeadlessSurfaceCreateInfoEXT", {});
  assert.equal(vk.vkCreateHeadlessSurfaceEXT(instance, info, null, out.pointer), 0);
  const surface = out.read();
  const id = fields(calls(env.callLog(), "vkCreateHeadlessSurfaceEXT")[0]!).id;
  const pds = physicalDevices(l, instance);
  const supported = u32Slot(l);
  for (const pd of pds) {
    assert.equal(
      vk.vkGetPhysicalDeviceSurfaceSupportKHR(pd, 0, surface, supported.pointer),
      0,
    );
  }
  for (const pd of pds) {
    const { device } = createDevice(l, pd, { extensions: ["VK_KHR_swapchain"] });
    const sc = surfaceOut(arena);
    const create = writeStruct(arena, "VkSwapchainCreateInfoKHR", {
      surface,
      minImageCount: 2,
      imageUsage: VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
      preTransform: VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR,
      compositeAlpha: VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR,
    });
    assert.equal(vk.vkCreateSwapchainKHR(device, create, null, sc.pointer), 0);
    vk.vkDestroySwapchainKHR(device, asHandle("VkSwapchainKHR", sc.read()), null);
    vk.vkDestroyDevice(device, null);
  }
  const log = env.callLog();
  // The layer saw the application's handle; the drivers below it saw theirs.
  assert.equal(calls(log, "vkCreateSwapchainKHR").filter((x) => x.startsWith("layer ")).length, 2);
  assert.equal(
    calls(log, "vkGetPhysicalDeviceSurfaceSupportKHR").filter((x) => x.startsWith("layer ")).length,
    2,
  );
  const below = (command: string) => kinds(log.filter((x) => !x.startsWith("layer ")), command);
  const expected = [["legacy", "icd:headless"], ["own", `own:${id}:headless`]];
  assert.deepEqual(below("vkGetPhysicalDeviceSurfaceSupportKHR"), expected);
  assert.deepEqual(below("vkCreateSwapchainKHR"), expected);
  vk.vkDestroySurfaceKHR(instance, surface, null);
  vk.vkDestroyInstance(instance, null);
});

Deno.test("through vkdeno, an instance without surface extensions leaves the next one's surface queries to the WSI terminators", async () => {
  // The loader keeps, per command name, what does not depend on the instance (chain/loader_callbacks.ts):
  // a WSI command whose extension one instance did not enable is still a WSI command for the next.
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "own", interfaceVersion: 7 });
  using l = load(env.snapshot());
  const { arena, vk } = l;
  const plain = createInstance(l);
  assert.equal(plain.result, 0);
  vk.vkDestroyInstance(plain.instance, null);
  const { instance } = createInstance(l, { extensions: ["VK_KHR_surface", "VK_EXT_headless_surface"] });
  const out = surfaceOut(arena);
  assert.equal(
    vk.vkCreateHeadlessSurfaceEXT(
      instance,
      writeStruct(arena, "VkHeadlessSurfaceCreateInfoEXT", {}),
      null,
      out.pointer,
    ),
    0,
  );
  const [pd] = physicalDevices(l, instance);
  querySurface(l, pd!, out.read());
  for (const query of SURFACE_QUERIES) {
    assert.deepEqual(
      kinds(env.callLog(), query).map(([d, k]) => `${d} ${k!.replace(/:\d+:/, ":N:")}`),
      ["own own:N:headless"],
      query,
    );
  }
  vk.vkDestroySurfaceKHR(instance, asHandle("VkSurfaceKHR", out.read()), null);
  vk.vkDestroyInstance(instance, null);
});
