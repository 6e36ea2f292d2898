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
 * loader (`openLibvulkan` of mod.ts) for comparison.
 *
 * @module
 */
import * as vkc from "../mod.ts";
import { VkApi, type VkCommandBuffer, type VkCommandSource, type VkImage, type VkInstance } from "../mod.ts";
import type { VkSurfaceKHR } from "../mod.ts";
import { encodePng, type RgbaImage, XcbWindow, XlibWindow } from "@vkdeno/loader/window";
import { describeDevice } from "./_helpers.ts";
import { runExample } from "./_loader.ts";

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

/** Where frames go: the surface's instance extension, how to create the surface, and its size. */
export interface PresentTarget {
  /** The surface's instance extension (`VK_KHR_xlib_surface`, ...), enabled with `VK_KHR_surface`. */
  readonly extension: string;
  /** Creates the surface on `instance` (destroyed with the other objects `vk` owns). */
  readonly createSurface: (vk: VkApi, instance: VkInstance) => VkSurfaceKHR;
  /** Swapchain size when the surface leaves it to the application. */
  readonly width: number;
  /** Swapchain size when the surface leaves it to the application. */
  readonly height: number;
}

/**
 * The target of an X11 window (`XlibWindow` or `XcbWindow` of the `./wsi` entry).
 *
 * @example Usage
 * ```ts ignore
 * import { XcbWindow } from "@vkdeno/loader/window";
 * import { windowTarget } from "./present.ts";
 * using win = XcbWindow.open();
 * console.log(windowTarget(win).extension); // "VK_KHR_xcb_surface"
 * ```
 */
export function windowTarget(window: XlibWindow | XcbWindow): PresentTarget {
  const size = { width: window.width, height: window.height };
  if (window instanceof XcbWindow) {
    return {
      extension: vkc.VK_KHR_XCB_SURFACE_EXTENSION_NAME,
      createSurface: (vk, instance) =>
        vk.createXcbSurfaceKHR(instance, { connection: window.connection, window: window.window }),
      ...size,
    };
  }
  return {
    extension: vkc.VK_KHR_XLIB_SURFACE_EXTENSION_NAME,
    createSurface: (vk, instance) =>
      vk.createXlibSurfaceKHR(instance, { dpy: window.display, window: window.window }),
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
    extension: vkc.VK_EXT_HEADLESS_SURFACE_EXTENSION_NAME,
    createSurface: (vk, instance) => vk.createHeadlessSurfaceEXT(instance, {}),
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

/**
 * Creates an instance, surface, device and swapchain for `target` (an X11 window, or any
 * {@linkcode PresentTarget}) through `commands`, clears and presents `frames` frames, then destroys
 * everything it created (also when a step throws).
 *
 * @example Present on the reference loader
 * ```ts ignore
 * import { openLibvulkan } from "../mod.ts";
 * import { XlibWindow } from "@vkdeno/loader/window";
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
  raw: VkCommandSource,
  target: PresentTarget | XlibWindow | XcbWindow,
  options: PresentOptions = {},
): PresentReport {
  const { frames = 3, colour = 0x3366cc, log = () => {} } = options;
  const to = target instanceof XlibWindow || target instanceof XcbWindow ? windowTarget(target) : target;
  using vk = VkApi.of(raw).scope(); // destroys what it creates, last first, also on a throw

  const instance = vk.createInstance({
    pApplicationInfo: { pApplicationName: "vkdeno present", apiVersion: vkc.VK_API_VERSION_1_1 },
    ppEnabledExtensionNames: [vkc.VK_KHR_SURFACE_EXTENSION_NAME, to.extension],
  });
  const surface = to.createSurface(vk, instance);
  const { physicalDevice, queueFamily, deviceName } = pickDevice(vk, instance, surface);
  log(`device: ${deviceName}, queue family ${queueFamily}`);
  const device = vk.createDevice(physicalDevice, {
    pQueueCreateInfos: [{ queueFamilyIndex: queueFamily, pQueuePriorities: [1] }],
    ppEnabledExtensionNames: [vkc.VK_KHR_SWAPCHAIN_EXTENSION_NAME],
  });
  const queue = vk.getDeviceQueue(device, queueFamily, 0);

  const c = vk.getPhysicalDeviceSurfaceCapabilitiesKHR(physicalDevice, surface);
  const formats = vk.getPhysicalDeviceSurfaceFormatsKHR(physicalDevice, surface);
  // UNORM keeps the clear colour's bytes as given; an sRGB format would encode them.
  const chosen = formats.find((f) => f.format === vkc.VK_FORMAT_B8G8R8A8_UNORM) ?? formats[0];
  if (!chosen) throw new Error(`Device "${deviceName}" reports no surface formats`);
  const transferDst = vkc.VK_IMAGE_USAGE_TRANSFER_DST_BIT;
  if ((c.supportedUsageFlags & transferDst) === 0) {
    throw new Error(`Device "${deviceName}" cannot clear swapchain images: no TRANSFER_DST usage`);
  }
  const extent = c.currentExtent.width === 0xffffffff
    ? { width: to.width, height: to.height }
    : c.currentExtent;
  const imageCount = c.maxImageCount === 0
    ? Math.max(c.minImageCount, 2)
    : Math.min(Math.max(c.minImageCount, 2), c.maxImageCount);
  const OPAQUE = vkc.VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
  const others = [
    vkc.VK_COMPOSITE_ALPHA_INHERIT_BIT_KHR,
    vkc.VK_COMPOSITE_ALPHA_PRE_MULTIPLIED_BIT_KHR,
    vkc.VK_COMPOSITE_ALPHA_POST_MULTIPLIED_BIT_KHR,
  ];
  const supported = (a: vkc.VkCompositeAlphaFlagBitsKHR) => (c.supportedCompositeAlpha & a) !== 0;
  const compositeAlpha = supported(OPAQUE) ? OPAQUE : others.find(supported) ?? OPAQUE;
  log(`format ${chosen.format}, extent ${extent.width}x${extent.height}, ${imageCount} images`);

  const swapchain = vk.createSwapchainKHR(device, {
    surface,
    minImageCount: imageCount,
    imageFormat: chosen.format,
    imageColorSpace: chosen.colorSpace,
    imageExtent: extent,
    imageArrayLayers: 1,
    imageUsage: transferDst,
    imageSharingMode: vkc.VK_SHARING_MODE_EXCLUSIVE,
    preTransform: c.currentTransform,
    compositeAlpha,
    presentMode: vkc.VK_PRESENT_MODE_FIFO_KHR,
    clipped: vkc.VK_TRUE,
  });
  const images = vk.getSwapchainImagesKHR(device, swapchain);

  const commandPool = vk.createCommandPool(device, { queueFamilyIndex: queueFamily });
  const commandBuffers = vk.allocateCommandBuffers(device, {
    commandPool,
    level: vkc.VK_COMMAND_BUFFER_LEVEL_PRIMARY,
    commandBufferCount: images.length,
  });
  const rgb = [(colour >> 16) & 0xff, (colour >> 8) & 0xff, colour & 0xff].map((v) => v / 255);
  images.forEach((image, i) => {
    const cmd = commandBuffers[i];
    if (cmd) recordClear(vk, cmd, image, rgb);
  });

  const acquired = vk.createSemaphore(device, {});
  // One per image: a present may still wait on an image's semaphore when the next frame starts.
  const rendered = images.map(() => vk.createSemaphore(device, {}));
  const fence = vk.createFence(device, {});
  vk.defer(() => vk.deviceWaitIdle(device));

  let presented = 0;
  for (let frame = 0; frame < frames; frame++) {
    const { imageIndex } = vk.acquireNextImageKHR(device, swapchain, vkc.VK_WHOLE_SIZE, acquired);
    vk.queueSubmit(queue, [{
      pWaitSemaphores: [acquired],
      pWaitDstStageMask: [vkc.VK_PIPELINE_STAGE_TRANSFER_BIT],
      pCommandBuffers: [commandBuffers[imageIndex]!],
      pSignalSemaphores: [rendered[imageIndex]!],
    }], fence);
    vk.queuePresentKHR(queue, {
      pWaitSemaphores: [rendered[imageIndex]!],
      pSwapchains: [swapchain],
      pImageIndices: [imageIndex],
    });
    vk.waitForFences(device, [fence], true, vkc.VK_WHOLE_SIZE);
    vk.resetFences(device, [fence]);
    presented++;
  }
  vk.queueWaitIdle(queue);
  log(`presented ${presented} frames`);
  options.afterPresent?.();
  return { deviceName, format: chosen.format, imageCount: images.length, ...extent, presented };
}

function pickDevice(vk: VkApi, instance: VkInstance, surface: VkSurfaceKHR) {
  const names: string[] = [];
  for (const physicalDevice of vk.enumeratePhysicalDevices(instance)) {
    const deviceName = describeDevice(vk, physicalDevice, vkc.VK_API_VERSION_1_1).name;
    names.push(deviceName);
    const families = vk.getPhysicalDeviceQueueFamilyProperties(physicalDevice);
    for (let queueFamily = 0; queueFamily < families.length; queueFamily++) {
      const flags = families[queueFamily]?.queueFlags ?? 0;
      if ((flags & (vkc.VK_QUEUE_GRAPHICS_BIT | vkc.VK_QUEUE_TRANSFER_BIT)) === 0) continue;
      if (vk.getPhysicalDeviceSurfaceSupportKHR(physicalDevice, queueFamily, surface)) {
        return { physicalDevice, queueFamily, deviceName };
      }
    }
  }
  throw new Error(`No physical device can present to the surface (devices: "${names.join('", "')}")`);
}

function recordClear(vk: VkApi, commandBuffer: VkCommandBuffer, image: VkImage, rgb: number[]): void {
  const range = { aspectMask: vkc.VK_IMAGE_ASPECT_COLOR_BIT, levelCount: 1, layerCount: 1 };
  type Layout = vkc.VkImageLayout;
  const barrier = (oldLayout: Layout, newLayout: Layout, src: vkc.VkAccessFlags, dst: vkc.VkAccessFlags) => ({
    srcAccessMask: src,
    dstAccessMask: dst,
    oldLayout,
    newLayout,
    srcQueueFamilyIndex: vkc.VK_QUEUE_FAMILY_IGNORED,
    dstQueueFamilyIndex: vkc.VK_QUEUE_FAMILY_IGNORED,
    image,
    subresourceRange: range,
  });
  const transfer = vkc.VK_PIPELINE_STAGE_TRANSFER_BIT;
  const write = vkc.VK_ACCESS_TRANSFER_WRITE_BIT;
  const DST = vkc.VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
  vk.beginCommandBuffer(commandBuffer, {});
  const toTransfer = barrier(vkc.VK_IMAGE_LAYOUT_UNDEFINED, DST, 0, write);
  vk.cmdPipelineBarrier(commandBuffer, transfer, transfer, 0, [], [], [toTransfer]);
  vk.cmdClearColorImage(commandBuffer, image, DST, { float32: [...rgb, 1] }, [range]);
  const toPresent = barrier(DST, vkc.VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, write, 0);
  const bottom = vkc.VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT;
  vk.cmdPipelineBarrier(commandBuffer, transfer, bottom, 0, [], [], [toPresent]);
  vk.endCommandBuffer(commandBuffer);
}

/** `deno run -A examples/present.ts [--xcb | --headless] ...`: see the module documentation. */
async function main(args: string[]): Promise<void> {
  const flag = (name: string) => {
    const i = args.indexOf(name);
    return i < 0 ? undefined : args[i + 1];
  };
  const kind = args.includes("--headless") ? "headless" : args.includes("--xcb") ? "xcb" : "xlib";
  const frames = Number(flag("--frames") ?? 3);
  const colour = parseInt(flag("--colour") ?? "3366cc", 16);
  const screenshot = flag("--screenshot");
  await runExample(args, async (raw, loader) => {
    const size = { width: 320, height: 240 };
    using win = kind === "headless"
      ? undefined
      : kind === "xcb"
      ? XcbWindow.open(size)
      : XlibWindow.open(size);
    let image: RgbaImage | undefined;
    const report = presentFrames(raw, win ?? headlessTarget(size), {
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
  });
}

if (import.meta.main) await main(Deno.args);
