/**
 * Presents frames to an X11 window: opens a window (Xlib, or xcb with `--xcb`; or no window with
 * `--headless`, through `VK_EXT_headless_surface`), creates a surface and a swapchain, clears each
 * swapchain image to one colour with `vkCmdClearColorImage`, presents N frames and tears everything down.
 *
 * ```sh
 * deno run --allow-all examples/present.ts [--xcb | --headless] [--frames 3] [--colour 3366cc]
 *   [--screenshot out.png] [--loader=vkdeno|libvulkan]
 * ```
 *
 * {@linkcode presentFrames} takes a command object, so the same code runs on vkdeno and on the reference
 * loader (`tools/libvulkan.ts`) for comparison.
 *
 * @module
 */
import { COMMAND_INDEX, COMMANDS } from "../ffi/generated/commands.ts";
import { ENUMS } from "../ffi/generated/enums.ts";
import { Arena, readPointer } from "../ffi/memory.ts";
import { allocStruct, check, enumerate, readStruct, writeStruct } from "../ffi/structs.ts";
import type { StructInput, StructValue } from "../ffi/structs.ts";
import { encodePng } from "../wsi/png.ts";
import { type RgbaImage, XcbWindow, XlibWindow } from "../wsi/x11.ts";
import { openLoader } from "./_commands.ts";

/** A Vulkan command taking its C parameters (what both loaders' command objects hold). */
// deno-lint-ignore no-explicit-any
export type Command = (...args: any[]) => any;

/**
 * The command object {@linkcode presentFrames} takes: Vulkan commands by name (vkdeno's `vk`, or
 * libvulkan's), and optionally `deviceTable(device)` for the device-level commands bound to one device.
 */
export type PresentCommands = { readonly [command: string]: unknown };

const USED = [
  "vkAcquireNextImageKHR",
  "vkAllocateCommandBuffers",
  "vkBeginCommandBuffer",
  "vkCmdClearColorImage",
  "vkCmdPipelineBarrier",
  "vkCreateCommandPool",
  "vkCreateDevice",
  "vkCreateFence",
  "vkCreateInstance",
  "vkCreateSemaphore",
  "vkCreateSwapchainKHR",
  "vkDestroyCommandPool",
  "vkDestroyDevice",
  "vkDestroyFence",
  "vkDestroyInstance",
  "vkDestroySemaphore",
  "vkDestroySurfaceKHR",
  "vkDestroySwapchainKHR",
  "vkDeviceWaitIdle",
  "vkEndCommandBuffer",
  "vkEnumeratePhysicalDevices",
  "vkGetDeviceQueue",
  "vkGetPhysicalDeviceProperties",
  "vkGetPhysicalDeviceQueueFamilyProperties",
  "vkGetPhysicalDeviceSurfaceCapabilitiesKHR",
  "vkGetPhysicalDeviceSurfaceFormatsKHR",
  "vkGetPhysicalDeviceSurfaceSupportKHR",
  "vkGetSwapchainImagesKHR",
  "vkQueuePresentKHR",
  "vkQueueSubmit",
  "vkQueueWaitIdle",
  "vkResetFences",
  "vkWaitForFences",
] as const;

type Commands = { [K in (typeof USED)[number]]: Command };

function bind(source: PresentCommands, names: readonly string[], what: string): Record<string, Command> {
  const out: Record<string, Command> = {};
  for (const name of names) {
    const fn = source[name];
    if (typeof fn !== "function") throw new TypeError(`The ${what} has no "${name}"`);
    out[name] = fn as Command;
  }
  return out;
}

const DEVICE_LEVEL = USED.filter((name) => COMMANDS[COMMAND_INDEX[name]!]!.level === "device");

/** What {@linkcode presentFrames} accepts besides the target. */
export interface PresentOptions {
  /** Frames to present; 3 when left out. */
  frames?: number;
  /** Clear colour as `0xRRGGBB`; 0x3366cc when left out. */
  colour?: number;
  /** Called after the last present completed, while the swapchain still exists (read pixels here). */
  afterPresent?: () => void;
  /** Progress lines (device, format, frames); silent when left out. */
  log?: (line: string) => void;
}

/** Where frames go: the surface to create (its instance extension, command and create info) and its size. */
export interface PresentTarget {
  /** The surface's instance extension (`VK_KHR_xlib_surface`, ...), enabled with `VK_KHR_surface`. */
  readonly extension: string;
  /** `vkCreateXlibSurfaceKHR`, `vkCreateXcbSurfaceKHR` or `vkCreateHeadlessSurfaceEXT`. */
  readonly command: string;
  /** The create-info struct and its members. */
  readonly createInfo: { readonly type: string; readonly members: StructInput };
  /** Swapchain size when the surface leaves it to the application. */
  readonly width: number;
  /** Swapchain size when the surface leaves it to the application. */
  readonly height: number;
}

/**
 * The target of an X11 window from wsi/x11.ts.
 *
 * @example Usage
 * ```ts ignore
 * import { XcbWindow } from "../wsi/x11.ts";
 * import { windowTarget } from "./present.ts";
 * using win = XcbWindow.open();
 * console.log(windowTarget(win).command); // "vkCreateXcbSurfaceKHR"
 * ```
 */
export function windowTarget(window: XlibWindow | XcbWindow): PresentTarget {
  const size = { width: window.width, height: window.height };
  if (window instanceof XcbWindow) {
    const members = { connection: window.connection, window: window.window };
    return {
      extension: "VK_KHR_xcb_surface",
      command: "vkCreateXcbSurfaceKHR",
      createInfo: { type: "VkXcbSurfaceCreateInfoKHR", members },
      ...size,
    };
  }
  return {
    extension: "VK_KHR_xlib_surface",
    command: "vkCreateXlibSurfaceKHR",
    createInfo: {
      type: "VkXlibSurfaceCreateInfoKHR",
      members: { dpy: window.display, window: window.window },
    },
    ...size,
  };
}

/**
 * A `VK_EXT_headless_surface` target: presentation with no window system (frames go nowhere), for
 * machines without a display, a GPU machine included.
 *
 * @example Usage
 * ```ts
 * import { headlessTarget } from "./present.ts";
 * console.log(headlessTarget({ width: 64, height: 64 }).extension); // "VK_EXT_headless_surface"
 * ```
 */
export function headlessTarget(
  size: { width: number; height: number } = { width: 256, height: 256 },
): PresentTarget {
  return {
    extension: "VK_EXT_headless_surface",
    command: "vkCreateHeadlessSurfaceEXT",
    createInfo: { type: "VkHeadlessSurfaceCreateInfoEXT", members: {} },
    ...size,
  };
}

/** What {@linkcode presentFrames} did. */
export interface PresentReport {
  /** The physical device's name. */
  deviceName: string;
  /** The swapchain's `VkFormat`. */
  format: number;
  /** Swapchain images. */
  imageCount: number;
  /** Swapchain extent. */
  width: number;
  /** Swapchain extent. */
  height: number;
  /** Frames acquired, cleared and presented. */
  presented: number;
}

// Looked up by name at run time, so typed `never`: it fits any enum-typed member or parameter.
const E = (name: string): never => {
  const v = ENUMS[name];
  if (v === undefined) throw new TypeError(`Unknown Vulkan enumerant "${name}"`);
  return v as never;
};

const U64_MAX = 0xffff_ffff_ffff_ffffn;
const QUEUE_FAMILY_IGNORED = 0xffffffff;

function out(arena: Arena): Deno.PointerObject {
  return arena.pointer(arena.alloc(8));
}

/**
 * Creates an instance, surface, device and swapchain for `target` (an X11 window, or any
 * {@linkcode PresentTarget}) through `commands`, clears and presents `frames` frames, then destroys
 * everything it created (also when a step throws).
 *
 * @example Present on the reference loader
 * ```ts ignore
 * import { openLibvulkan } from "../tools/libvulkan.ts";
 * import { XlibWindow } from "../wsi/x11.ts";
 * import { presentFrames } from "./present.ts";
 * using vk = openLibvulkan();
 * using win = XlibWindow.open({ width: 320, height: 240 });
 * const report = presentFrames(vk, win, { frames: 3, colour: 0x3366cc });
 * console.log(report.presented); // 3
 * ```
 * @throws {VkError} If a Vulkan command fails.
 * @throws {Error} If no device can present to the target.
 */
export function presentFrames(
  commands: PresentCommands,
  target: PresentTarget | XlibWindow | XcbWindow,
  options: PresentOptions = {},
): PresentReport {
  const { frames = 3, colour = 0x3366cc, log = () => {} } = options;
  const vk = bind(commands, USED, "command object") as Commands;
  const to = target instanceof XlibWindow || target instanceof XcbWindow ? windowTarget(target) : target;
  const createSurface = bind(commands, [to.command], "command object")[to.command]!;
  using arena = new Arena();
  using cleanup = new DisposableStack();

  const pInstance = out(arena);
  check(
    vk.vkCreateInstance(
      writeStruct(arena, "VkInstanceCreateInfo", {
        pApplicationInfo: { pApplicationName: "vkdeno present", apiVersion: (1 << 22) | (1 << 12) },
        ppEnabledExtensionNames: ["VK_KHR_surface", to.extension],
      }),
      null,
      pInstance,
    ),
    "vkCreateInstance",
  );
  const instance = readPointer(pInstance);
  cleanup.defer(() => vk.vkDestroyInstance(instance, null));

  const pSurface = out(arena);
  const pInfo = writeStruct(arena, to.createInfo.type, to.createInfo.members);
  check(createSurface(instance, pInfo, null, pSurface), to.command);
  const surface = readPointer(pSurface);
  cleanup.defer(() => vk.vkDestroySurfaceKHR(instance, surface, null));

  const { physicalDevice, queueFamily, deviceName } = pickDevice(vk, instance, surface);
  log(`device: ${deviceName}, queue family ${queueFamily}`);

  const pDevice = out(arena);
  check(
    vk.vkCreateDevice(
      physicalDevice,
      writeStruct(arena, "VkDeviceCreateInfo", {
        pQueueCreateInfos: [{ queueFamilyIndex: queueFamily, pQueuePriorities: [1] }],
        ppEnabledExtensionNames: ["VK_KHR_swapchain"],
      }),
      null,
      pDevice,
    ),
    "vkCreateDevice",
  );
  const device = readPointer(pDevice);
  const deviceTable = commands.deviceTable;
  if (typeof deviceTable === "function") {
    // Device-level calls through the device's own table: vkdeno's dispatch stubs, not a lookup per call.
    Object.assign(vk, bind(deviceTable.call(commands, device), DEVICE_LEVEL, "device table"));
  }
  cleanup.defer(() => vk.vkDestroyDevice(device, null));
  const pQueue = out(arena);
  vk.vkGetDeviceQueue(device, queueFamily, 0, pQueue);
  const queue = readPointer(pQueue);

  const caps = allocStruct(arena, "VkSurfaceCapabilitiesKHR");
  check(
    vk.vkGetPhysicalDeviceSurfaceCapabilitiesKHR(physicalDevice, surface, caps),
    "vkGetPhysicalDeviceSurfaceCapabilitiesKHR",
  );
  const c = readStruct("VkSurfaceCapabilitiesKHR", caps) as SurfaceCapabilities;
  const formats = enumerate(vk.vkGetPhysicalDeviceSurfaceFormatsKHR, [physicalDevice, surface], {
    struct: "VkSurfaceFormatKHR",
    name: "vkGetPhysicalDeviceSurfaceFormatsKHR",
  });
  // UNORM keeps the clear colour's bytes as given; an sRGB format would encode them.
  const chosen = formats.find((f) => f.format === E("VK_FORMAT_B8G8R8A8_UNORM")) ?? formats[0];
  if (!chosen) throw new Error(`Device "${deviceName}" reports no surface formats`);
  const transferDst = E("VK_IMAGE_USAGE_TRANSFER_DST_BIT");
  if ((c.supportedUsageFlags & transferDst) === 0) {
    throw new Error(`Device "${deviceName}" cannot clear swapchain images: no TRANSFER_DST usage`);
  }
  const extent = c.currentExtent.width === 0xffffffff
    ? { width: to.width, height: to.height }
    : c.currentExtent;
  const imageCount = c.maxImageCount === 0
    ? Math.max(c.minImageCount, 2)
    : Math.min(Math.max(c.minImageCount, 2), c.maxImageCount);
  const opaque = E("VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR");
  const compositeAlpha = c.supportedCompositeAlpha & opaque
    ? opaque
    : c.supportedCompositeAlpha & -c.supportedCompositeAlpha;
  log(`format ${chosen.format}, extent ${extent.width}x${extent.height}, ${imageCount} images`);

  const pSwapchain = out(arena);
  check(
    vk.vkCreateSwapchainKHR(
      device,
      writeStruct(arena, "VkSwapchainCreateInfoKHR", {
        surface,
        minImageCount: imageCount,
        imageFormat: chosen.format,
        imageColorSpace: chosen.colorSpace,
        imageExtent: extent,
        imageArrayLayers: 1,
        imageUsage: transferDst,
        imageSharingMode: E("VK_SHARING_MODE_EXCLUSIVE"),
        preTransform: c.currentTransform,
        compositeAlpha,
        presentMode: E("VK_PRESENT_MODE_FIFO_KHR"),
        clipped: 1,
      }),
      null,
      pSwapchain,
    ),
    "vkCreateSwapchainKHR",
  );
  const swapchain = readPointer(pSwapchain);
  cleanup.defer(() => vk.vkDestroySwapchainKHR(device, swapchain, null));
  const images = enumerate(vk.vkGetSwapchainImagesKHR, [device, swapchain]);

  const pPool = out(arena);
  check(
    vk.vkCreateCommandPool(
      device,
      writeStruct(arena, "VkCommandPoolCreateInfo", { queueFamilyIndex: queueFamily }),
      null,
      pPool,
    ),
    "vkCreateCommandPool",
  );
  const pool = readPointer(pPool);
  cleanup.defer(() => vk.vkDestroyCommandPool(device, pool, null));
  const commandBuffers = arena.pointer(arena.alloc(8 * images.length));
  check(
    vk.vkAllocateCommandBuffers(
      device,
      writeStruct(arena, "VkCommandBufferAllocateInfo", {
        commandPool: pool,
        level: E("VK_COMMAND_BUFFER_LEVEL_PRIMARY"),
        commandBufferCount: images.length,
      }),
      commandBuffers,
    ),
    "vkAllocateCommandBuffers",
  );
  const rgb = [(colour >> 16) & 0xff, (colour >> 8) & 0xff, colour & 0xff].map((v) => v / 255);
  images.forEach((image, i) => recordClear(vk, arena, readPointer(commandBuffers, 8 * i), image, rgb));

  const semaphore = () => {
    const p = out(arena);
    check(
      vk.vkCreateSemaphore(device, writeStruct(arena, "VkSemaphoreCreateInfo"), null, p),
      "vkCreateSemaphore",
    );
    const s = readPointer(p);
    cleanup.defer(() => vk.vkDestroySemaphore(device, s, null));
    return s;
  };
  const acquired = semaphore();
  // One per image: a present may still wait on an image's semaphore when the next frame starts.
  const rendered = images.map(semaphore);
  const pFence = out(arena);
  check(vk.vkCreateFence(device, writeStruct(arena, "VkFenceCreateInfo"), null, pFence), "vkCreateFence");
  const fence = readPointer(pFence);
  cleanup.defer(() => vk.vkDestroyFence(device, fence, null));
  cleanup.defer(() => vk.vkDeviceWaitIdle(device));

  const pIndex = new Uint32Array(new ArrayBuffer(4));
  const fences = arena.copy(new BigUint64Array([BigInt(Deno.UnsafePointer.value(fence))]));
  let presented = 0;
  for (let frame = 0; frame < frames; frame++) {
    check(
      vk.vkAcquireNextImageKHR(device, swapchain, U64_MAX, acquired, null, Deno.UnsafePointer.of(pIndex)),
      "vkAcquireNextImageKHR",
    );
    const index = pIndex[0]!;
    check(
      vk.vkQueueSubmit(
        queue,
        1,
        writeStruct(arena, "VkSubmitInfo", {
          pWaitSemaphores: [acquired],
          pWaitDstStageMask: [E("VK_PIPELINE_STAGE_TRANSFER_BIT")],
          pCommandBuffers: [readPointer(commandBuffers, 8 * index)],
          pSignalSemaphores: [rendered[index]!],
        }),
        fence,
      ),
      "vkQueueSubmit",
    );
    check(
      vk.vkQueuePresentKHR(
        queue,
        writeStruct(arena, "VkPresentInfoKHR", {
          pWaitSemaphores: [rendered[index]!],
          pSwapchains: [swapchain],
          pImageIndices: [index],
        }),
      ),
      "vkQueuePresentKHR",
    );
    check(vk.vkWaitForFences(device, 1, fences, 1, U64_MAX), "vkWaitForFences");
    check(vk.vkResetFences(device, 1, fences), "vkResetFences");
    presented++;
  }
  check(vk.vkQueueWaitIdle(queue), "vkQueueWaitIdle");
  log(`presented ${presented} frames`);
  options.afterPresent?.();
  return { deviceName, format: chosen.format, imageCount: images.length, ...extent, presented };
}

interface SurfaceCapabilities extends StructValue {
  minImageCount: number;
  maxImageCount: number;
  currentExtent: { width: number; height: number };
  currentTransform: number;
  supportedCompositeAlpha: number;
  supportedUsageFlags: number;
}

function pickDevice(vk: Commands, instance: Deno.PointerValue, surface: Deno.PointerValue) {
  const devices = enumerate(vk.vkEnumeratePhysicalDevices, [instance]);
  const supported = new Uint32Array(new ArrayBuffer(4));
  const names: string[] = [];
  for (const physicalDevice of devices) {
    using arena = new Arena();
    const props = allocStruct(arena, "VkPhysicalDeviceProperties");
    vk.vkGetPhysicalDeviceProperties(physicalDevice, props);
    const deviceName = String(readStruct("VkPhysicalDeviceProperties", props).deviceName);
    names.push(deviceName);
    const families = enumerate(vk.vkGetPhysicalDeviceQueueFamilyProperties, [physicalDevice], {
      struct: "VkQueueFamilyProperties",
      name: "vkGetPhysicalDeviceQueueFamilyProperties",
    });
    for (let queueFamily = 0; queueFamily < families.length; queueFamily++) {
      const flags = Number(families[queueFamily]!.queueFlags);
      if ((flags & (E("VK_QUEUE_GRAPHICS_BIT") | E("VK_QUEUE_TRANSFER_BIT"))) === 0) continue;
      const result = vk.vkGetPhysicalDeviceSurfaceSupportKHR(
        physicalDevice,
        queueFamily,
        surface,
        Deno.UnsafePointer.of(supported),
      );
      if (check(result, "vkGetPhysicalDeviceSurfaceSupportKHR") === 0 && supported[0] === 1) {
        return { physicalDevice, queueFamily, deviceName };
      }
    }
  }
  throw new Error(`No physical device can present to the surface (devices: "${names.join('", "')}")`);
}

function recordClear(
  vk: Commands,
  arena: Arena,
  commandBuffer: Deno.PointerValue,
  image: Deno.PointerValue,
  rgb: number[],
): void {
  const range = { aspectMask: E("VK_IMAGE_ASPECT_COLOR_BIT"), levelCount: 1, layerCount: 1 };
  const barrier = (oldLayout: string, newLayout: string, src: number, dst: number) =>
    writeStruct(arena, "VkImageMemoryBarrier", {
      srcAccessMask: src,
      dstAccessMask: dst,
      oldLayout: E(oldLayout),
      newLayout: E(newLayout),
      srcQueueFamilyIndex: QUEUE_FAMILY_IGNORED,
      dstQueueFamilyIndex: QUEUE_FAMILY_IGNORED,
      image,
      subresourceRange: range,
    });
  const transfer = E("VK_PIPELINE_STAGE_TRANSFER_BIT");
  const write = E("VK_ACCESS_TRANSFER_WRITE_BIT");
  check(
    vk.vkBeginCommandBuffer(commandBuffer, writeStruct(arena, "VkCommandBufferBeginInfo")),
    "vkBeginCommandBuffer",
  );
  const toTransfer = barrier("VK_IMAGE_LAYOUT_UNDEFINED", "VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL", 0, write);
  vk.vkCmdPipelineBarrier(commandBuffer, transfer, transfer, 0, 0, null, 0, null, 1, toTransfer);
  vk.vkCmdClearColorImage(
    commandBuffer,
    image,
    E("VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL"),
    writeStruct(arena, "VkClearColorValue", { float32: [...rgb, 1] }),
    1,
    writeStruct(arena, "VkImageSubresourceRange", range),
  );
  const toPresent = barrier(
    "VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL",
    "VK_IMAGE_LAYOUT_PRESENT_SRC_KHR",
    write,
    0,
  );
  const bottom = E("VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT");
  vk.vkCmdPipelineBarrier(commandBuffer, transfer, bottom, 0, 0, null, 0, null, 1, toPresent);
  check(vk.vkEndCommandBuffer(commandBuffer), "vkEndCommandBuffer");
}

async function main(args: string[]): Promise<void> {
  const flag = (name: string) => {
    const i = args.indexOf(name);
    return i < 0 ? undefined : args[i + 1];
  };
  const kind = args.includes("--headless") ? "headless" : args.includes("--xcb") ? "xcb" : "xlib";
  const frames = Number(flag("--frames") ?? 3);
  const colour = parseInt(flag("--colour") ?? "3366cc", 16);
  const screenshot = flag("--screenshot");
  const loader = args.find((a) => a.startsWith("--loader="))?.slice("--loader=".length) ?? "vkdeno";
  using vk = await openLoader(loader);
  const size = { width: 320, height: 240 };
  using win = kind === "headless" ? undefined : kind === "xcb" ? XcbWindow.open(size) : XlibWindow.open(size);
  let image: RgbaImage | undefined;
  const report = presentFrames(vk as unknown as PresentCommands, win ?? headlessTarget(size), {
    frames,
    colour,
    log: (line) => console.log(line),
    afterPresent: () => image = win?.readPixels(),
  });
  const first = image ? `, pixel ${Array.from(image.rgba.subarray(0, 3))}` : "";
  console.log(`${loader}, ${kind}: ${report.presented} frames on "${report.deviceName}"${first}`);
  if (screenshot && image) {
    await Deno.writeFile(screenshot, encodePng(image));
    console.log(`wrote ${screenshot}`);
  }
}

if (import.meta.main) await main(Deno.args);
