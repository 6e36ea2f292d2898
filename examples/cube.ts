/**
 * `./dev cube`: a spinning cube in a window (Xlib, XCB or Wayland) with a depth buffer, a colour per face,
 * a uniform buffer per frame and two frames in flight; the swapchain is recreated when the driver says it
 * is out of date or suboptimal and when the window changes size (`--resize` resizes it during the run), and
 * waits while the window has no area. `--screenshot` reads the last frame back from the swapchain image
 * before it is presented. The frame's rotation comes from its number, so the same frame is the same
 * picture on every window system and loader.
 *
 * ```sh
 * deno run --allow-all examples/cube.ts [--frames 60] [--wsi=xlib|xcb|wayland|headless] [--resize[=driver]]
 *   [--screenshot out.png] [--size 256] [--present-mode fifo|mailbox|immediate] [--validate]
 *   [--json] [--loader=vkdeno|libvulkan]
 * ```
 *
 * `--json` prints the report as one JSON line (for bench/cube_bench.ts) before the summary.
 *
 * `--resize=driver` recreates only when the driver reports the swapchain suboptimal or out of date (the
 * application ignores its window's size). Without `--wsi`, the session decides: Wayland when `WAYLAND_DISPLAY` is set, else Xlib when `DISPLAY` is.
 *
 * @module
 */
import * as vkc from "../mod.ts";
import { makeCallback, VkApi, VkError } from "../mod.ts";
import type {
  VkCommandBuffer,
  VkCommandSource,
  VkDevice,
  VkDeviceMemory,
  VkFence,
  VkFramebuffer,
  VkImage,
  VkImageView,
  VkInstance,
  VkPhysicalDevice,
  VkSemaphore,
  VkStructInputs,
  VkSurfaceKHR,
  VkSwapchainKHR,
} from "../mod.ts";
import { encodePng, type RgbaImage, WaylandWindow, XcbWindow, XlibWindow } from "@vkdeno/loader/window";
import { createInstance, describeDevice, memoryTypeIndex } from "./_helpers.ts";
import { NoDeviceError, runExample } from "./_loader.ts";
import { CUBE_FRAG_SPV, CUBE_VERT_SPV } from "./shaders/cube_spv.ts";

/** The window systems the cube presents to; `headless` is `VK_EXT_headless_surface`, with no window at all. */
export type CubeWsi = "xlib" | "xcb" | "wayland" | "headless";

/** A window the cube draws into: its surface's create info, its size, and the window-system chores. */
export interface CubeWindow extends Disposable {
  readonly wsi: CubeWsi;
  /** Width the swapchain takes when the surface leaves the extent to the application. */
  readonly width: number;
  /** Height, as `width`. */
  readonly height: number;
  /** Resizes the window (X11: the server's window; Wayland: the size the client gives its buffers). */
  resize(width: number, height: number): void;
  /** Handles pending window-system events (Wayland pings and configures); X11 needs none here. */
  poll(): void;
}

/** Opens a window of `wsi` on `display` (the session's `DISPLAY` / `WAYLAND_DISPLAY` when left out). */
export function openWindow(
  wsi: CubeWsi,
  size: { width: number; height: number },
  display?: string,
): CubeWindow {
  if (wsi === "headless") return headlessWindow(size);
  if (wsi === "wayland") {
    const win = WaylandWindow.open({ display, ...size, title: "vkdeno cube" });
    return Object.assign(win, { wsi }) as WaylandWindow & { wsi: CubeWsi };
  }
  const win = wsi === "xcb" ? XcbWindow.open({ display, ...size }) : XlibWindow.open({ display, ...size });
  return Object.assign(win, { wsi, poll: () => {} }) as (XlibWindow | XcbWindow) & CubeWindow;
}

/**
 * A window with no window system (`VK_EXT_headless_surface`): its size is what the swapchain takes, and
 * `resize` changes it, as a window's would.
 */
export function headlessWindow(size: { width: number; height: number }): CubeWindow {
  return {
    wsi: "headless",
    ...size,
    resize(width: number, height: number) {
      Object.assign(this, { width, height });
    },
    poll() {},
    [Symbol.dispose]() {},
  };
}

/** The window system a session offers: Wayland when `WAYLAND_DISPLAY` is set, else Xlib. */
export function sessionWsi(): CubeWsi {
  return Deno.env.get("WAYLAND_DISPLAY") ? "wayland" : "xlib";
}

/** What {@linkcode runCube} accepts. */
export interface CubeOptions {
  /** Frames to present; 60 when left out. */
  frames?: number;
  /**
   * Resize the window during the run: to 3/4 of its size at a third of the frames, on Wayland to no area at
   * half (for three waits), back to the full size at two thirds.
   */
  resize?: boolean;
  /**
   * Recreate the swapchain when the window's size changes (the default); false leaves resizes to the
   * driver's `VK_SUBOPTIMAL_KHR` / `VK_ERROR_OUT_OF_DATE_KHR`, which X11 drivers report and Wayland's do not.
   */
  followWindow?: boolean;
  /** Read the last frame back from its swapchain image before presenting it. */
  screenshot?: boolean;
  /** `fifo` (the default, always supported), `mailbox` or `immediate` (FIFO where unsupported). */
  presentMode?: "fifo" | "mailbox" | "immediate";
  /** Enable the Khronos validation layer and count its warnings and errors (printed through `log`). */
  validate?: boolean;
  /** Progress lines; silent when left out. */
  log?: (line: string) => void;
}

/** What {@linkcode runCube} did. */
export interface CubeReport {
  deviceName: string;
  /** Frames presented. */
  frames: number;
  /** Seconds from the first frame's start to the last present's return. */
  seconds: number;
  /** The median time between two presents' returns, in ms: steadier than `seconds` on a busy machine. */
  medianFrameMs: number;
  /** `frames / seconds`. */
  fps: number;
  /** Swapchain recreations after the first swapchain, by cause. */
  recreations: { total: number; outOfDate: number; suboptimal: number; resized: number };
  /** Frames the loop waited through because the window had no area. */
  zeroExtentWaits: number;
  /** Median milliseconds of JavaScript per frame outside the waits (uniform update, recording, submit). */
  cpuMsPerFrame: number;
  /** The last swapchain's extent. */
  width: number;
  /** The last swapchain's extent. */
  height: number;
  /** The last frame, read back from the swapchain image (with `screenshot`). */
  image?: RgbaImage;
  /** Validation messages (with `validate`). */
  validationMessages: string[];
}

const FRAMES_IN_FLIGHT = 2;
const UINT64_MAX = 0xffffffffffffffffn;

/** Column-major 4x4 product `a * b`. */
function multiply(a: Float32Array, b: Float32Array): Float32Array {
  const out = new Float32Array(16);
  for (let c = 0; c < 4; c++) {
    for (let r = 0; r < 4; r++) {
      let sum = 0;
      for (let k = 0; k < 4; k++) sum += a[k * 4 + r]! * b[c * 4 + k]!;
      out[c * 4 + r] = sum;
    }
  }
  return out;
}

/**
 * The model-view-projection matrix of frame `frame` for an `aspect` (width / height) swapchain: the cube
 * turned 3 degrees a frame about y and 2 about x, 5 units in front of the camera, Vulkan's clip space (y
 * down, depth 0..1).
 *
 * @example Usage
 * ```ts
 * import { frameMatrix } from "./cube.ts";
 * console.log(frameMatrix(0, 1).length); // 16
 * ```
 */
export function frameMatrix(frame: number, aspect: number): Float32Array {
  const ay = ((frame * 3 + 30) * Math.PI) / 180, ax = (25 * Math.PI) / 180;
  const [sy, cy, sx, cx] = [Math.sin(ay), Math.cos(ay), Math.sin(ax), Math.cos(ax)];
  const rotY = new Float32Array([cy, 0, -sy, 0, 0, 1, 0, 0, sy, 0, cy, 0, 0, 0, 0, 1]);
  const rotX = new Float32Array([1, 0, 0, 0, 0, cx, sx, 0, 0, -sx, cx, 0, 0, 0, 0, 1]);
  const view = new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, -5, 1]);
  const near = 0.1, far = 100, f = 1 / Math.tan(Math.PI / 8); // 45 degrees of vertical field
  const proj = new Float32Array(16);
  proj[0] = f / aspect;
  proj[5] = -f;
  proj[10] = far / (near - far);
  proj[11] = -1;
  proj[14] = (near * far) / (near - far);
  return multiply(proj, multiply(view, multiply(rotX, rotY)));
}

/** The surface of each window system, destroyed by the scope `vk`. */
function createSurface(vk: VkApi, instance: VkInstance, window: CubeWindow): VkSurfaceKHR {
  if (window.wsi === "headless") return vk.createHeadlessSurfaceEXT(instance, {});
  if (window instanceof WaylandWindow) {
    return vk.createWaylandSurfaceKHR(instance, { display: window.display, surface: window.surface });
  }
  if (window instanceof XcbWindow) {
    return vk.createXcbSurfaceKHR(instance, { connection: window.connection, window: window.window });
  }
  if (window instanceof XlibWindow) {
    return vk.createXlibSurfaceKHR(instance, { dpy: window.display, window: window.window });
  }
  throw new TypeError(`Cannot create a surface for a "${window.wsi}" window that wsi/ did not open`);
}

const SURFACE_EXTENSION: Record<CubeWsi, string> = {
  xlib: vkc.VK_KHR_XLIB_SURFACE_EXTENSION_NAME,
  xcb: vkc.VK_KHR_XCB_SURFACE_EXTENSION_NAME,
  wayland: vkc.VK_KHR_WAYLAND_SURFACE_EXTENSION_NAME,
  headless: vkc.VK_EXT_HEADLESS_SURFACE_EXTENSION_NAME,
};

/** The first device and queue family with graphics that can present to `surface`. */
function pickDevice(vk: VkApi, instance: VkInstance, surface: VkSurfaceKHR) {
  for (const gpu of vk.enumeratePhysicalDevices(instance)) {
    const families = vk.getPhysicalDeviceQueueFamilyProperties(gpu);
    for (let family = 0; family < families.length; family++) {
      if ((families[family]!.queueFlags & vkc.VK_QUEUE_GRAPHICS_BIT) === 0) continue;
      if (vk.getPhysicalDeviceSurfaceSupportKHR(gpu, family, surface)) return { gpu, family };
    }
  }
  throw new NoDeviceError("no Vulkan device with a graphics queue that can present to the window");
}

function pickDepthFormat(vk: VkApi, gpu: VkPhysicalDevice): vkc.VkFormat {
  for (const format of [vkc.VK_FORMAT_D32_SFLOAT, vkc.VK_FORMAT_D24_UNORM_S8_UINT, vkc.VK_FORMAT_D16_UNORM]) {
    const { optimalTilingFeatures } = vk.getPhysicalDeviceFormatProperties(gpu, format);
    if (optimalTilingFeatures & vkc.VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT) return format;
  }
  throw new NoDeviceError("the device has no depth format for a depth buffer");
}

/** The device, what picks memory on it, and its name for messages. */
interface DeviceRef {
  vk: VkApi;
  device: VkDevice;
  gpu: VkPhysicalDevice;
  deviceName: string;
}

/** Memory of a type `resource` allows with `flags`, bound to it, made through `ref.vk` (scoped or not). */
function allocateFor(
  ref: DeviceRef,
  resource: { buffer: vkc.VkBuffer } | { image: VkImage },
  flags: number,
): VkDeviceMemory {
  const { vk, device } = ref;
  const { size: allocationSize, memoryTypeBits } = "buffer" in resource
    ? vk.getBufferMemoryRequirements(device, resource.buffer)
    : vk.getImageMemoryRequirements(device, resource.image);
  const typeIndex = memoryTypeIndex(vk, ref.gpu, memoryTypeBits, flags);
  if (typeIndex < 0) throw new NoDeviceError(`"${ref.deviceName}" has no memory with flags ${flags}`);
  const memory = vk.allocateMemory(device, { allocationSize, memoryTypeIndex: typeIndex });
  if ("buffer" in resource) vk.bindBufferMemory(device, resource.buffer, memory, 0n);
  else vk.bindImageMemory(device, resource.image, memory, 0n);
  return memory;
}

function createRenderPass(vk: VkApi, device: VkDevice, format: vkc.VkFormat, depthFormat: vkc.VkFormat) {
  const attachment = {
    samples: vkc.VK_SAMPLE_COUNT_1_BIT,
    loadOp: vkc.VK_ATTACHMENT_LOAD_OP_CLEAR,
    stencilLoadOp: vkc.VK_ATTACHMENT_LOAD_OP_DONT_CARE,
    stencilStoreOp: vkc.VK_ATTACHMENT_STORE_OP_DONT_CARE,
    initialLayout: vkc.VK_IMAGE_LAYOUT_UNDEFINED,
  };
  return vk.createRenderPass(device, {
    pAttachments: [
      {
        ...attachment,
        format,
        storeOp: vkc.VK_ATTACHMENT_STORE_OP_STORE,
        finalLayout: vkc.VK_IMAGE_LAYOUT_PRESENT_SRC_KHR,
      },
      {
        ...attachment,
        format: depthFormat,
        storeOp: vkc.VK_ATTACHMENT_STORE_OP_DONT_CARE,
        finalLayout: vkc.VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
      },
    ],
    pSubpasses: [{
      pipelineBindPoint: vkc.VK_PIPELINE_BIND_POINT_GRAPHICS,
      pColorAttachments: [{ attachment: 0, layout: vkc.VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL }],
      pDepthStencilAttachment: {
        attachment: 1,
        layout: vkc.VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
      },
    }],
    // The colour write waits for the acquire (whose semaphore wait is at COLOR_ATTACHMENT_OUTPUT); the
    // depth clear waits for the previous frame's depth tests, which used the same depth image.
    pDependencies: [{
      srcSubpass: vkc.VK_SUBPASS_EXTERNAL,
      dstSubpass: 0,
      srcStageMask: vkc.flags(
        vkc.VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
        vkc.VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
      ),
      dstStageMask: vkc.flags(
        vkc.VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
        vkc.VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT,
      ),
      srcAccessMask: vkc.VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
      dstAccessMask: vkc.flags(
        vkc.VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
        vkc.VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
      ),
    }],
  });
}

function createPipeline(
  vk: VkApi,
  device: VkDevice,
  renderPass: vkc.VkRenderPass,
  layout: vkc.VkPipelineLayout,
): vkc.VkPipeline {
  const stage = (stage: vkc.VkShaderStageFlagBits, pCode: Uint32Array) => ({
    stage,
    module: vk.createShaderModule(device, { pCode }),
    pName: "main",
  });
  const { pipelines: [pipeline] } = vk.createGraphicsPipelines(device, null, [{
    pStages: [
      stage(vkc.VK_SHADER_STAGE_VERTEX_BIT, CUBE_VERT_SPV),
      stage(vkc.VK_SHADER_STAGE_FRAGMENT_BIT, CUBE_FRAG_SPV),
    ],
    pVertexInputState: {},
    pInputAssemblyState: { topology: vkc.VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST },
    pViewportState: { viewportCount: 1, scissorCount: 1 }, // dynamic: one pipeline for every extent
    pRasterizationState: {
      polygonMode: vkc.VK_POLYGON_MODE_FILL,
      cullMode: vkc.VK_CULL_MODE_NONE,
      frontFace: vkc.VK_FRONT_FACE_COUNTER_CLOCKWISE,
      lineWidth: 1,
    },
    pMultisampleState: { rasterizationSamples: vkc.VK_SAMPLE_COUNT_1_BIT },
    pDepthStencilState: {
      depthTestEnable: vkc.VK_TRUE,
      depthWriteEnable: vkc.VK_TRUE,
      depthCompareOp: vkc.VK_COMPARE_OP_LESS,
    },
    pColorBlendState: {
      pAttachments: [{
        colorWriteMask: vkc.flags(
          vkc.VK_COLOR_COMPONENT_R_BIT,
          vkc.VK_COLOR_COMPONENT_G_BIT,
          vkc.VK_COLOR_COMPONENT_B_BIT,
          vkc.VK_COLOR_COMPONENT_A_BIT,
        ),
      }],
    },
    pDynamicState: { pDynamicStates: [vkc.VK_DYNAMIC_STATE_VIEWPORT, vkc.VK_DYNAMIC_STATE_SCISSOR] },
    layout,
    renderPass,
    subpass: 0,
  }]);
  return pipeline;
}

/** What lives as long as one swapchain: its images' views and framebuffers, the depth buffer, semaphores. */
interface SwapchainState {
  swapchain: VkSwapchainKHR;
  format: vkc.VkFormat;
  /** The window's size when the swapchain was made. */
  windowWidth: number;
  windowHeight: number;
  width: number;
  height: number;
  images: VkImage[];
  views: VkImageView[];
  framebuffers: VkFramebuffer[];
  depth: { image: VkImage; memory: VkDeviceMemory; view: VkImageView };
  /** Per image, signalled by the frame that rendered it, waited on by its present. */
  rendered: VkSemaphore[];
}

/** Views, framebuffers, depth buffer and per-image semaphores of a new swapchain (made unscoped). */
function swapchainState(
  ref: DeviceRef,
  s: {
    window: { width: number; height: number };
    swapchain: VkSwapchainKHR;
    extent: { width: number; height: number };
    format: vkc.VkFormat;
    depthFormat: vkc.VkFormat;
    renderPass: vkc.VkRenderPass;
  },
): SwapchainState {
  const { vk, device } = ref;
  const { extent } = s;
  const images = vk.getSwapchainImagesKHR(device, s.swapchain);
  const view = (image: VkImage, format: vkc.VkFormat, aspectMask: vkc.VkImageAspectFlags) =>
    vk.createImageView(device, {
      image,
      viewType: vkc.VK_IMAGE_VIEW_TYPE_2D,
      format,
      subresourceRange: { aspectMask, levelCount: 1, layerCount: 1 },
    });
  const depthImage = vk.createImage(device, {
    imageType: vkc.VK_IMAGE_TYPE_2D,
    format: s.depthFormat,
    extent: { ...extent, depth: 1 },
    mipLevels: 1,
    arrayLayers: 1,
    samples: vkc.VK_SAMPLE_COUNT_1_BIT,
    usage: vkc.VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
  });
  const depthMemory = allocateFor(ref, { image: depthImage }, vkc.VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  const depthView = view(depthImage, s.depthFormat, vkc.VK_IMAGE_ASPECT_DEPTH_BIT);
  const views = images.map((image) => view(image, s.format, vkc.VK_IMAGE_ASPECT_COLOR_BIT));
  const framebuffers = views.map((v) =>
    vk.createFramebuffer(device, {
      renderPass: s.renderPass,
      pAttachments: [v, depthView],
      ...extent,
      layers: 1,
    })
  );
  return {
    swapchain: s.swapchain,
    format: s.format,
    windowWidth: s.window.width,
    windowHeight: s.window.height,
    ...extent,
    images,
    views,
    framebuffers,
    depth: { image: depthImage, memory: depthMemory, view: depthView },
    rendered: images.map(() => vk.createSemaphore(device, {})),
  };
}

/** Destroys what {@linkcode swapchainState} made, last first; the swapchain itself only with `swapchain`. */
function destroySwapchain(vk: VkApi, device: VkDevice, s: SwapchainState, swapchain: boolean): void {
  for (const semaphore of s.rendered) vk.destroySemaphore(device, semaphore);
  for (const framebuffer of s.framebuffers) vk.destroyFramebuffer(device, framebuffer);
  for (const view of s.views) vk.destroyImageView(device, view);
  vk.destroyImageView(device, s.depth.view);
  vk.destroyImage(device, s.depth.image);
  vk.freeMemory(device, s.depth.memory);
  if (swapchain) vk.destroySwapchainKHR(device, s.swapchain);
}

/**
 * A host-visible buffer the last frame's swapchain image is copied into, after the render pass and before
 * the present: the image goes PRESENT_SRC -> TRANSFER_SRC -> PRESENT_SRC around the copy.
 */
function makeReadback(ref: DeviceRef, s: SwapchainState) {
  const { vk, device } = ref;
  const size = s.width * s.height * 4;
  const buffer = vk.createBuffer(device, { size: BigInt(size), usage: vkc.VK_BUFFER_USAGE_TRANSFER_DST_BIT });
  const flags = vkc.flags(vkc.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, vkc.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  const memory = allocateFor(ref, { buffer }, flags);
  const subresourceRange = { aspectMask: vkc.VK_IMAGE_ASPECT_COLOR_BIT, levelCount: 1, layerCount: 1 };
  const barrier = (
    image: VkImage,
    oldLayout: vkc.VkImageLayout,
    newLayout: vkc.VkImageLayout,
    src: vkc.VkAccessFlags,
    dst: vkc.VkAccessFlags,
  ) => ({
    srcAccessMask: src,
    dstAccessMask: dst,
    oldLayout,
    newLayout,
    srcQueueFamilyIndex: vkc.VK_QUEUE_FAMILY_IGNORED,
    dstQueueFamilyIndex: vkc.VK_QUEUE_FAMILY_IGNORED,
    image,
    subresourceRange,
  });
  const PRESENT = vkc.VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, SRC = vkc.VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
  const transfer = vkc.VK_PIPELINE_STAGE_TRANSFER_BIT;
  return {
    record(cb: VkCommandBuffer, image: VkImage): void {
      const write = vkc.VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, read = vkc.VK_ACCESS_TRANSFER_READ_BIT;
      vk.cmdPipelineBarrier(cb, vkc.VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, transfer, 0, null, null, [
        barrier(image, PRESENT, SRC, write, read),
      ]);
      vk.cmdCopyImageToBuffer(cb, image, SRC, buffer, [{
        imageSubresource: {
          aspectMask: vkc.VK_IMAGE_ASPECT_COLOR_BIT,
          mipLevel: 0,
          baseArrayLayer: 0,
          layerCount: 1,
        },
        imageExtent: { width: s.width, height: s.height, depth: 1 },
      }]);
      vk.cmdPipelineBarrier(cb, transfer, vkc.VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, null, null, [
        barrier(image, SRC, PRESENT, read, 0),
      ]);
    },
    read(): RgbaImage {
      const bytes = new Uint8Array(vk.mapMemory(device, memory, 0n, BigInt(size)).slice(0));
      vk.unmapMemory(device, memory);
      vk.destroyBuffer(device, buffer);
      vk.freeMemory(device, memory);
      if (s.format === vkc.VK_FORMAT_B8G8R8A8_UNORM || s.format === vkc.VK_FORMAT_B8G8R8A8_SRGB) {
        for (let p = 0; p < bytes.length; p += 4) [bytes[p], bytes[p + 2]] = [bytes[p + 2]!, bytes[p]!];
      }
      for (let p = 3; p < bytes.length; p += 4) bytes[p] = 255; // opaque, whatever the alpha channel holds
      return { width: s.width, height: s.height, rgba: bytes };
    },
  };
}

/**
 * Opens an instance, surface, device and swapchain on `window` through `raw` (vkdeno or libvulkan), draws
 * and presents `frames` frames of the spinning cube, and destroys everything in reverse order (after the
 * device is idle), also when a step throws.
 *
 * @example Ten frames in an Xlib window
 * ```ts ignore
 * import { openLoader } from "./_loader.ts";
 * import { openWindow, runCube } from "./cube.ts";
 * using vk = await openLoader("vkdeno");
 * using win = openWindow("xlib", { width: 256, height: 256 });
 * console.log(runCube(vk, win, { frames: 10 }).fps);
 * ```
 * @throws {NoDeviceError} If no device can present to the window.
 * @throws {VkError} If a Vulkan command fails.
 */
export function runCube(raw: VkCommandSource, window: CubeWindow, options: CubeOptions = {}): CubeReport {
  const { frames = 60, log = () => {} } = options;
  const api = VkApi.of(raw); // what lives as long as a swapchain, destroyed by hand at each recreation
  using vk = api.scope(); // the rest, destroyed last first at the end, also on a throw
  const validationMessages: string[] = [];

  // Instance, with the validation layer and a messenger (also in pNext, for create/destroy) when asked. The
  // callback is closed last, after the instance is gone.
  const extensions = [vkc.VK_KHR_SURFACE_EXTENSION_NAME, SURFACE_EXTENSION[window.wsi]];
  let messengerInfo: VkStructInputs["VkDebugUtilsMessengerCreateInfoEXT"] | undefined;
  if (options.validate) {
    extensions.push(vkc.VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    const callback = vk.use(
      makeCallback("PFN_vkDebugUtilsMessengerCallbackEXT", (_severity, _types, data) => {
        const line = `${data?.pMessageIdName ?? ""}: ${data?.pMessage ?? ""}`;
        validationMessages.push(line);
        log(`validation: ${line}`);
        return false;
      }),
    );
    messengerInfo = {
      messageSeverity: vkc.flags(
        vkc.VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
        vkc.VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
      ),
      messageType: vkc.flags(
        vkc.VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT,
        vkc.VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
        vkc.VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
      ),
      pfnUserCallback: callback.pointer,
    };
  }
  const instance = createInstance(vk, {
    pNext: messengerInfo ? [{ type: "VkDebugUtilsMessengerCreateInfoEXT", ...messengerInfo }] : undefined,
    pApplicationInfo: { pApplicationName: "vkdeno cube", apiVersion: vkc.VK_API_VERSION_1_1 },
    ppEnabledLayerNames: options.validate ? ["VK_LAYER_KHRONOS_validation"] : [],
    ppEnabledExtensionNames: extensions,
  });
  if (messengerInfo) vk.createDebugUtilsMessengerEXT(instance, messengerInfo);
  const surface = createSurface(vk, instance, window);
  const { gpu, family } = pickDevice(vk, instance, surface);
  const deviceName = describeDevice(vk, gpu, vkc.VK_API_VERSION_1_1).name;
  const device = vk.createDevice(gpu, {
    pQueueCreateInfos: [{ queueFamilyIndex: family, pQueuePriorities: [1] }],
    ppEnabledExtensionNames: [vkc.VK_KHR_SWAPCHAIN_EXTENSION_NAME],
  });
  const queue = vk.getDeviceQueue(device, family, 0);

  // Formats: B8G8R8A8/R8G8B8A8 UNORM for the colour (the screenshot's bytes are the shader's), a depth format
  // the device can attach.
  const formats = vk.getPhysicalDeviceSurfaceFormatsKHR(gpu, surface);
  const surfaceFormat = formats.find((f) => f.format === vkc.VK_FORMAT_B8G8R8A8_UNORM) ??
    formats.find((f) => f.format === vkc.VK_FORMAT_R8G8B8A8_UNORM) ?? formats[0];
  if (!surfaceFormat) throw new NoDeviceError(`"${deviceName}" reports no surface formats`);
  const depthFormat = pickDepthFormat(vk, gpu);
  const wanted = {
    fifo: vkc.VK_PRESENT_MODE_FIFO_KHR,
    mailbox: vkc.VK_PRESENT_MODE_MAILBOX_KHR,
    immediate: vkc.VK_PRESENT_MODE_IMMEDIATE_KHR,
  }[options.presentMode ?? "fifo"];
  const presentMode = vk.getPhysicalDeviceSurfacePresentModesKHR(gpu, surface).includes(wanted)
    ? wanted
    : vkc.VK_PRESENT_MODE_FIFO_KHR;
  log(
    `device: ${deviceName}, format ${surfaceFormat.format}, depth ${depthFormat}, present mode ${presentMode}`,
  );

  const renderPass = createRenderPass(vk, device, surfaceFormat.format, depthFormat);
  // One uniform buffer per frame in flight, mapped for the life of the run, each with its descriptor set.
  const setLayout = vk.createDescriptorSetLayout(device, {
    pBindings: [{
      binding: 0,
      descriptorType: vkc.VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
      descriptorCount: 1,
      stageFlags: vkc.VK_SHADER_STAGE_VERTEX_BIT,
    }],
  });
  const pipelineLayout = vk.createPipelineLayout(device, { pSetLayouts: [setLayout] });
  const pipeline = createPipeline(vk, device, renderPass, pipelineLayout);
  const descriptorPool = vk.createDescriptorPool(device, {
    maxSets: FRAMES_IN_FLIGHT,
    pPoolSizes: [{ type: vkc.VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, descriptorCount: FRAMES_IN_FLIGHT }],
  });
  const sets = vk.allocateDescriptorSets(device, {
    descriptorPool,
    pSetLayouts: Array(FRAMES_IN_FLIGHT).fill(setLayout),
  });
  const ref: DeviceRef = { vk, device, gpu, deviceName };
  const hostVisible = vkc.flags(
    vkc.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
    vkc.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
  );
  const uniforms = sets.map((set) => {
    const buffer = vk.createBuffer(device, { size: 64n, usage: vkc.VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT });
    const memory = allocateFor(ref, { buffer }, hostVisible); // freeing the memory unmaps it
    const pBufferInfo = [{ buffer, offset: 0n, range: 64n }];
    vk.updateDescriptorSets(device, [{
      dstSet: set,
      dstBinding: 0,
      descriptorType: vkc.VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
      descriptorCount: 1,
      pBufferInfo,
    }]);
    return { matrix: new Float32Array(vk.mapMemory(device, memory, 0n, 64n)), sets: [set] };
  });

  // Per frame in flight: a command buffer, a fence (signalled: the first wait returns), an acquire semaphore.
  const commandPool = vk.createCommandPool(device, {
    flags: vkc.VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
    queueFamilyIndex: family,
  });
  const commandBuffers = vk.allocateCommandBuffers(device, {
    commandPool,
    level: vkc.VK_COMMAND_BUFFER_LEVEL_PRIMARY,
    commandBufferCount: FRAMES_IN_FLIGHT,
  });
  const slots = commandBuffers.map((commandBuffer) => {
    const fence: VkFence = vk.createFence(device, { flags: vkc.VK_FENCE_CREATE_SIGNALED_BIT });
    return { commandBuffer, fence, fences: [fence], acquired: vk.createSemaphore(device, {}) };
  });
  // Runs before everything above is destroyed: nothing may still be in use then.
  let state: SwapchainState | undefined;
  vk.defer(() => {
    api.deviceWaitIdle(device);
    if (state) destroySwapchain(api, device, state, true);
  });

  const unscoped: DeviceRef = { ...ref, vk: api };
  const recreations = { total: 0, outOfDate: 0, suboptimal: 0, resized: 0 };
  /** (Re)creates the swapchain for the surface's extent; false while the window has no area. */
  const makeSwapchain = (cause?: "outOfDate" | "suboptimal" | "resized"): boolean => {
    const c = vk.getPhysicalDeviceSurfaceCapabilitiesKHR(gpu, surface);
    const extent = c.currentExtent.width === 0xffffffff
      ? {
        width: Math.min(Math.max(window.width, c.minImageExtent.width), c.maxImageExtent.width),
        height: Math.min(Math.max(window.height, c.minImageExtent.height), c.maxImageExtent.height),
      }
      : c.currentExtent;
    if (extent.width === 0 || extent.height === 0 || window.width === 0 || window.height === 0) return false;
    vk.deviceWaitIdle(device);
    const old = state;
    if (old) destroySwapchain(api, device, old, false);
    const opaque = vkc.VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
    const swapchain = api.createSwapchainKHR(device, {
      surface,
      minImageCount: c.maxImageCount === 0
        ? c.minImageCount + 1
        : Math.min(c.minImageCount + 1, c.maxImageCount),
      imageFormat: surfaceFormat.format,
      imageColorSpace: surfaceFormat.colorSpace,
      imageExtent: extent,
      imageArrayLayers: 1,
      imageUsage: c.supportedUsageFlags & vkc.VK_IMAGE_USAGE_TRANSFER_SRC_BIT
        ? vkc.flags(vkc.VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, vkc.VK_IMAGE_USAGE_TRANSFER_SRC_BIT)
        : vkc.VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
      imageSharingMode: vkc.VK_SHARING_MODE_EXCLUSIVE,
      preTransform: c.currentTransform,
      compositeAlpha: c.supportedCompositeAlpha & opaque
        ? opaque
        : (c.supportedCompositeAlpha & -c.supportedCompositeAlpha) as vkc.VkCompositeAlphaFlagBitsKHR,
      presentMode,
      clipped: vkc.VK_TRUE,
      oldSwapchain: old?.swapchain ?? null,
    });
    if (old) api.destroySwapchainKHR(device, old.swapchain);
    state = swapchainState(unscoped, {
      window: { width: window.width, height: window.height },
      swapchain,
      extent,
      format: surfaceFormat.format,
      depthFormat,
      renderPass,
    });
    if (cause) {
      recreations.total++;
      recreations[cause]++;
    }
    log(
      `swapchain ${extent.width}x${extent.height}, ${state.images.length} images${
        cause ? ` (${cause})` : ""
      }`,
    );
    return true;
  };

  // --resize: 3/4 of the size at a third of the run, no area at half (Wayland: a client may have a
  // window without buffers; X11 windows cannot be 0 x 0), the full size again at two thirds.
  const full = { width: window.width, height: window.height };
  const plan = options.resize
    ? [
      { at: Math.floor(frames / 3), scale: 0.75 },
      ...(window.wsi === "wayland" ? [{ at: Math.floor(frames / 2), scale: 0 }] : []),
      { at: Math.floor((2 * frames) / 3), scale: 1 },
    ]
    : [];
  let step = 0;
  const resizeStep = () => {
    const { scale } = plan[step++]!;
    window.resize(Math.round(full.width * scale), Math.round(full.height * scale));
  };
  const outOfDate = (e: unknown) => e instanceof VkError && e.code === vkc.VK_ERROR_OUT_OF_DATE_KHR;
  const beginInfo = { flags: vkc.VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT };
  const clearValues = [{ color: { float32: [0.1, 0.1, 0.12, 1] } }, {
    depthStencil: { depth: 1, stencil: 0 },
  }];
  const waitStages = [vkc.VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT];
  let presented = 0, zeroExtentWaits = 0, image: RgbaImage | undefined;
  const cpuMs: number[] = [];
  const start = performance.now();
  const between: number[] = [];
  let lastPresent = start;
  while (presented < frames) {
    window.poll();
    if (step < plan.length && presented >= plan[step]!.at) resizeStep();
    // A size the application learns from its window (a resize, a configure) recreates without waiting for
    // the driver to notice (X11 drivers report it late or not at all for a larger window, Wayland's never).
    const followed = options.followWindow !== false && state !== undefined &&
      (window.width !== state.windowWidth || window.height !== state.windowHeight);
    if (state === undefined || followed) {
      if (!makeSwapchain(state ? "resized" : undefined)) {
        // No area (minimised): nothing to draw until the window has a size again. Here --resize gives it
        // back after three waits.
        zeroExtentWaits++;
        if (zeroExtentWaits % 3 === 0 && step < plan.length) resizeStep();
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
        continue;
      }
    }
    const s = state!;
    const slotIndex = presented % FRAMES_IN_FLIGHT;
    const slot = slots[slotIndex]!;
    vk.waitForFences(device, slot.fences, true, UINT64_MAX);
    let acquired;
    try {
      acquired = vk.acquireNextImageKHR(device, s.swapchain, UINT64_MAX, slot.acquired, null);
    } catch (e) {
      if (!outOfDate(e)) throw e;
      makeSwapchain("outOfDate");
      continue;
    }
    // VK_SUBOPTIMAL_KHR: the semaphore is signalled, so this frame goes on and the swapchain is recreated after.
    const t0 = performance.now();
    vk.resetFences(device, slot.fences);
    const i = acquired.imageIndex;
    uniforms[slotIndex]!.matrix.set(frameMatrix(presented, s.width / s.height));
    const last = presented === frames - 1 && options.screenshot === true;
    const readback = last ? makeReadback(unscoped, s) : undefined;
    const cb = slot.commandBuffer;
    const extent = { width: s.width, height: s.height };
    vk.beginCommandBuffer(cb, beginInfo);
    vk.cmdBeginRenderPass(cb, {
      renderPass,
      framebuffer: s.framebuffers[i]!,
      renderArea: { offset: { x: 0, y: 0 }, extent },
      pClearValues: clearValues,
    }, vkc.VK_SUBPASS_CONTENTS_INLINE);
    vk.cmdBindPipeline(cb, vkc.VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
    vk.cmdBindDescriptorSets(
      cb,
      vkc.VK_PIPELINE_BIND_POINT_GRAPHICS,
      pipelineLayout,
      0,
      uniforms[slotIndex]!.sets,
    );
    vk.cmdSetViewport(cb, 0, [{ x: 0, y: 0, ...extent, minDepth: 0, maxDepth: 1 }]);
    vk.cmdSetScissor(cb, 0, [{ offset: { x: 0, y: 0 }, extent }]);
    vk.cmdDraw(cb, 36, 1, 0, 0);
    vk.cmdEndRenderPass(cb);
    readback?.record(cb, s.images[i]!);
    vk.endCommandBuffer(cb);
    vk.queueSubmit(queue, [{
      pWaitSemaphores: [slot.acquired],
      pWaitDstStageMask: waitStages,
      pCommandBuffers: [cb],
      pSignalSemaphores: [s.rendered[i]!],
    }], slot.fence);
    cpuMs.push(performance.now() - t0);
    if (readback) {
      vk.waitForFences(device, slot.fences, true, UINT64_MAX);
      image = readback.read();
    }
    let result: "VK_SUCCESS" | "VK_SUBOPTIMAL_KHR" | "VK_ERROR_OUT_OF_DATE_KHR";
    try {
      result = vk.queuePresentKHR(queue, {
        pWaitSemaphores: [s.rendered[i]!],
        pSwapchains: [s.swapchain],
        pImageIndices: [i],
      });
    } catch (e) {
      if (!outOfDate(e)) throw e;
      result = "VK_ERROR_OUT_OF_DATE_KHR";
    }
    presented++;
    const now = performance.now();
    between.push(now - lastPresent);
    lastPresent = now;
    if (result === "VK_ERROR_OUT_OF_DATE_KHR") makeSwapchain("outOfDate");
    else if (result === "VK_SUBOPTIMAL_KHR" || acquired.result === "VK_SUBOPTIMAL_KHR") {
      makeSwapchain("suboptimal");
    }
  }
  const seconds = (performance.now() - start) / 1000;
  between.sort((a, b) => a - b);
  vk.deviceWaitIdle(device);
  const { width, height } = state ?? { width: 0, height: 0 };
  return {
    deviceName,
    frames: presented,
    seconds,
    medianFrameMs: between[Math.floor(between.length / 2)] ?? 0,
    fps: presented / seconds,
    recreations,
    zeroExtentWaits,
    cpuMsPerFrame: cpuMs.sort((a, b) => a - b)[Math.floor(cpuMs.length / 2)] ?? 0,
    width,
    height,
    image,
    validationMessages,
  };
}

/** `deno run -A examples/cube.ts ...`: see the module documentation. */
async function main(args: string[]): Promise<void> {
  const value = (name: string) => {
    const eq = args.find((a) => a.startsWith(`${name}=`));
    if (eq) return eq.slice(name.length + 1);
    const i = args.indexOf(name);
    return i < 0 ? undefined : args[i + 1];
  };
  const wsi = (value("--wsi") ?? sessionWsi()) as CubeWsi;
  if (!["xlib", "xcb", "wayland", "headless"].includes(wsi)) {
    throw new TypeError(`Unknown --wsi "${wsi}": xlib, xcb, wayland or headless`);
  }
  const frames = Number(value("--frames") ?? 60);
  const size = Number(value("--size") ?? 256);
  const screenshot = value("--screenshot");
  const presentMode = value("--present-mode") as CubeOptions["presentMode"];
  const json = args.includes("--json");
  await runExample(args, async (vk, loader) => {
    using win = openWindow(wsi, { width: size, height: size });
    const report = runCube(vk, win, {
      frames,
      resize: args.includes("--resize") || args.includes("--resize=driver"),
      followWindow: !args.includes("--resize=driver"),
      screenshot: screenshot !== undefined,
      presentMode,
      validate: args.includes("--validate"),
      log: json ? undefined : (line) => console.log(line),
    });
    if (json) {
      const { image: _, ...rest } = report;
      console.log(JSON.stringify({ loader, wsi, ...rest }));
    }
    const r = report.recreations;
    console.log(
      `${loader}, ${wsi}: ${report.frames} frames on "${report.deviceName}" in ${
        report.seconds.toFixed(2)
      } s, ` +
        `${report.fps.toFixed(1)} fps, ${
          report.cpuMsPerFrame.toFixed(3)
        } ms JavaScript per frame (median), ` +
        `${r.total} recreations (${r.outOfDate} out of date, ${r.suboptimal} suboptimal, ${r.resized} resized)` +
        (report.zeroExtentWaits ? `, ${report.zeroExtentWaits} waits without area` : "") +
        (args.includes("--validate") ? `, ${report.validationMessages.length} validation messages` : ""),
    );
    if (screenshot && report.image) {
      await Deno.writeFile(screenshot, encodePng(report.image));
      console.log(`wrote ${screenshot} (${report.image.width}x${report.image.height})`);
    }
    if (report.validationMessages.length > 0) Deno.exitCode = 1;
  });
}

if (import.meta.main) await main(Deno.args);
