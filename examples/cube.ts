/**
 * `./dev cube`: a spinning cube in a window (Xlib, XCB or Wayland) with a depth buffer, a colour per face,
 * a uniform buffer per frame and two frames in flight; the swapchain is recreated when the driver says it
 * is out of date or suboptimal and when the window changes size (`--resize` resizes it during the run), and
 * waits while the window has no area. `--screenshot` reads the last frame back from the swapchain image
 * before it is presented. The frame's rotation comes from its number, so the same frame is the same
 * picture on every window system and loader.
 *
 * ```sh
 * deno run --allow-all examples/cube.ts [--frames 60] [--wsi=xlib|xcb|wayland] [--resize[=driver]]
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
import {
  Arena,
  check,
  create,
  enumerate,
  readPointer,
  readStruct,
  VkApi,
  VkScope,
  writeStruct,
} from "../mod.ts";
import type {
  VkCommandBuffer,
  VkDevice,
  VkDeviceMemory,
  VkFence,
  VkFramebuffer,
  VkImage,
  VkImageView,
  VkPhysicalDevice,
  VkSemaphore,
  VkSurfaceKHR,
  VkSwapchainKHR,
  VulkanCommands,
} from "../mod.ts";
import { encodePng, type RgbaImage, WaylandWindow, XcbWindow, XlibWindow } from "../wsi/mod.ts";
import { createInstanceIn, describeDevice, memoryTypeIndex } from "./_helpers.ts";
import { NoDeviceError, runExample } from "./_loader.ts";
import { CUBE_FRAG_SPV, CUBE_VERT_SPV } from "./shaders/cube_spv.ts";

/** The window systems the cube presents to. */
export type CubeWsi = "xlib" | "xcb" | "wayland";

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
  if (wsi === "wayland") {
    const win = WaylandWindow.open({ display, ...size, title: "vkdeno cube" });
    return Object.assign(win, { wsi }) as WaylandWindow & { wsi: CubeWsi };
  }
  const win = wsi === "xcb" ? XcbWindow.open({ display, ...size }) : XlibWindow.open({ display, ...size });
  return Object.assign(win, { wsi, poll: () => {} }) as (XlibWindow | XcbWindow) & CubeWindow;
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
  /** Milliseconds of JavaScript per frame outside the waits (uniform update, recording, submit). */
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

/** The surface create command and struct of each window system. */
function createSurface(scope: VkScope, instance: vkc.VkInstance, window: CubeWindow) {
  const arena = scope.arena;
  if (window instanceof WaylandWindow) {
    const info = writeStruct(arena, "VkWaylandSurfaceCreateInfoKHR", {
      display: window.display,
      surface: window.surface,
    });
    return scope.create("vkCreateWaylandSurfaceKHR", [instance, info, null]);
  }
  if (window instanceof XcbWindow) {
    const info = writeStruct(arena, "VkXcbSurfaceCreateInfoKHR", {
      connection: window.connection,
      window: window.window,
    });
    return scope.create("vkCreateXcbSurfaceKHR", [instance, info, null]);
  }
  if (window instanceof XlibWindow) {
    const info = writeStruct(arena, "VkXlibSurfaceCreateInfoKHR", {
      dpy: window.display,
      window: window.window,
    });
    return scope.create("vkCreateXlibSurfaceKHR", [instance, info, null]);
  }
  throw new TypeError(`Cannot create a surface for a "${window.wsi}" window that wsi/ did not open`);
}

const SURFACE_EXTENSION: Record<CubeWsi, string> = {
  xlib: vkc.VK_KHR_XLIB_SURFACE_EXTENSION_NAME,
  xcb: vkc.VK_KHR_XCB_SURFACE_EXTENSION_NAME,
  wayland: vkc.VK_KHR_WAYLAND_SURFACE_EXTENSION_NAME,
};

/** The first device and queue family with graphics that can present to `surface`. */
function pickDevice(vk: VulkanCommands, instance: vkc.VkInstance, surface: VkSurfaceKHR) {
  const supported = new Uint32Array(1);
  for (const gpu of enumerate(vk.vkEnumeratePhysicalDevices, [instance])) {
    const families = enumerate(vk.vkGetPhysicalDeviceQueueFamilyProperties, [gpu], {
      struct: "VkQueueFamilyProperties",
    });
    for (let family = 0; family < families.length; family++) {
      if ((families[family]!.queueFlags & vkc.VK_QUEUE_GRAPHICS_BIT) === 0) continue;
      const result = vk.vkGetPhysicalDeviceSurfaceSupportKHR(
        gpu,
        family,
        surface,
        Deno.UnsafePointer.of(supported),
      );
      check(result, "vkGetPhysicalDeviceSurfaceSupportKHR");
      if (supported[0] === vkc.VK_TRUE) return { gpu: gpu!, family };
    }
  }
  throw new NoDeviceError("no Vulkan device with a graphics queue that can present to the window");
}

/** What lives as long as one swapchain: its images' views and framebuffers, the depth buffer, the structs. */
interface SwapchainState {
  swapchain: VkSwapchainKHR;
  /** The window's size when the swapchain was made. */
  windowWidth: number;
  windowHeight: number;
  format: vkc.VkFormat;
  width: number;
  height: number;
  images: (VkImage | null)[];
  views: VkImageView[];
  framebuffers: VkFramebuffer[];
  depth: { image: vkc.VkImage; memory: VkDeviceMemory; view: VkImageView };
  /** Per image, signalled by the frame that rendered it, waited on by its present. */
  rendered: VkSemaphore[];
  /** Structs written once per swapchain, read by every frame. */
  arena: Arena;
  renderPassBegin: Deno.PointerObject[];
  viewport: Deno.PointerObject;
  scissor: Deno.PointerObject;
  /** [slot][image] */
  submits: Deno.PointerObject[][];
  presents: Deno.PointerObject[];
}

/**
 * Opens an instance, surface, device and swapchain on `window` through `vk` (vkdeno or libvulkan), draws
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
export function runCube(vk: VulkanCommands, window: CubeWindow, options: CubeOptions = {}): CubeReport {
  const { frames = 60, log = () => {} } = options;
  using scope = new VkScope(vk);
  const arena = scope.arena;
  const validationMessages: string[] = [];

  // Instance, with the validation layer and a messenger (also in pNext, for create/destroy) when asked.
  const extensions = [vkc.VK_KHR_SURFACE_EXTENSION_NAME, SURFACE_EXTENSION[window.wsi]];
  let messengerInfo: vkc.VkStructInputs["VkDebugUtilsMessengerCreateInfoEXT"] | undefined;
  if (options.validate) {
    extensions.push(vkc.VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    const callback = scope.callback("PFN_vkDebugUtilsMessengerCallbackEXT", (_severity, _types, data) => {
      const line = `${data?.pMessageIdName ?? ""}: ${data?.pMessage ?? ""}`;
      validationMessages.push(line);
      log(`validation: ${line}`);
      return false;
    });
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
      pfnUserCallback: callback,
    };
  }
  const instance = createInstanceIn(
    scope,
    writeStruct(arena, "VkInstanceCreateInfo", {
      pNext: messengerInfo ? [{ type: "VkDebugUtilsMessengerCreateInfoEXT", ...messengerInfo }] : undefined,
      pApplicationInfo: { pApplicationName: "vkdeno cube", apiVersion: vkc.VK_API_VERSION_1_1 },
      ppEnabledLayerNames: options.validate ? ["VK_LAYER_KHRONOS_validation"] : [],
      ppEnabledExtensionNames: extensions,
    }),
  );
  if (messengerInfo) {
    const info = writeStruct(arena, "VkDebugUtilsMessengerCreateInfoEXT", messengerInfo);
    scope.create("vkCreateDebugUtilsMessengerEXT", [instance, info, null]);
  }
  const surface = createSurface(scope, instance, window);
  const { gpu, family } = pickDevice(vk, instance, surface);
  const deviceName = describeDevice(VkApi.of(vk), gpu, vkc.VK_API_VERSION_1_1).name;
  const device = scope.create("vkCreateDevice", [
    gpu,
    writeStruct(arena, "VkDeviceCreateInfo", {
      pQueueCreateInfos: [{ queueFamilyIndex: family, pQueuePriorities: [1] }],
      ppEnabledExtensionNames: [vkc.VK_KHR_SWAPCHAIN_EXTENSION_NAME],
    }),
    null,
  ]);
  const queue = scope.create("vkGetDeviceQueue", [device, family, 0]);

  // Formats: B8G8R8A8/R8G8B8A8 UNORM for the colour (the screenshot's bytes are the shader's), a depth format
  // the device can attach.
  const formats = enumerate(vk.vkGetPhysicalDeviceSurfaceFormatsKHR, [gpu, surface], {
    struct: "VkSurfaceFormatKHR",
  });
  const surfaceFormat = formats.find((f) => f.format === vkc.VK_FORMAT_B8G8R8A8_UNORM) ??
    formats.find((f) => f.format === vkc.VK_FORMAT_R8G8B8A8_UNORM) ?? formats[0];
  if (!surfaceFormat) throw new NoDeviceError(`"${deviceName}" reports no surface formats`);
  const depthFormat = pickDepthFormat(vk, gpu);
  const presentModes = surfacePresentModes(vk, gpu, surface);
  const wanted = {
    fifo: vkc.VK_PRESENT_MODE_FIFO_KHR,
    mailbox: vkc.VK_PRESENT_MODE_MAILBOX_KHR,
    immediate: vkc.VK_PRESENT_MODE_IMMEDIATE_KHR,
  }[options.presentMode ?? "fifo"];
  const presentMode = presentModes.includes(wanted) ? wanted : vkc.VK_PRESENT_MODE_FIFO_KHR;
  log(
    `device: ${deviceName}, format ${surfaceFormat.format}, depth ${depthFormat}, present mode ${presentMode}`,
  );

  const renderPass = scope.create("vkCreateRenderPass", [
    device,
    writeStruct(arena, "VkRenderPassCreateInfo", {
      pAttachments: [{
        format: surfaceFormat.format,
        samples: vkc.VK_SAMPLE_COUNT_1_BIT,
        loadOp: vkc.VK_ATTACHMENT_LOAD_OP_CLEAR,
        storeOp: vkc.VK_ATTACHMENT_STORE_OP_STORE,
        stencilLoadOp: vkc.VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        stencilStoreOp: vkc.VK_ATTACHMENT_STORE_OP_DONT_CARE,
        initialLayout: vkc.VK_IMAGE_LAYOUT_UNDEFINED,
        finalLayout: vkc.VK_IMAGE_LAYOUT_PRESENT_SRC_KHR,
      }, {
        format: depthFormat,
        samples: vkc.VK_SAMPLE_COUNT_1_BIT,
        loadOp: vkc.VK_ATTACHMENT_LOAD_OP_CLEAR,
        storeOp: vkc.VK_ATTACHMENT_STORE_OP_DONT_CARE,
        stencilLoadOp: vkc.VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        stencilStoreOp: vkc.VK_ATTACHMENT_STORE_OP_DONT_CARE,
        initialLayout: vkc.VK_IMAGE_LAYOUT_UNDEFINED,
        finalLayout: vkc.VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
      }],
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
    }),
    null,
  ]);

  // One uniform buffer per frame in flight, mapped for the life of the run, each with its descriptor set.
  const setLayout = scope.create("vkCreateDescriptorSetLayout", [
    device,
    writeStruct(arena, "VkDescriptorSetLayoutCreateInfo", {
      pBindings: [{
        binding: 0,
        descriptorType: vkc.VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
        descriptorCount: 1,
        stageFlags: vkc.VK_SHADER_STAGE_VERTEX_BIT,
      }],
    }),
    null,
  ]);
  const pipelineLayout = scope.create("vkCreatePipelineLayout", [
    device,
    writeStruct(arena, "VkPipelineLayoutCreateInfo", { pSetLayouts: [setLayout] }),
    null,
  ]);
  const pipeline = createPipeline(scope, device, renderPass, pipelineLayout);
  const pool = scope.create("vkCreateDescriptorPool", [
    device,
    writeStruct(arena, "VkDescriptorPoolCreateInfo", {
      maxSets: FRAMES_IN_FLIGHT,
      pPoolSizes: [{ type: vkc.VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, descriptorCount: FRAMES_IN_FLIGHT }],
    }),
    null,
  ]);
  const sets = scope.createMany("vkAllocateDescriptorSets", [
    device,
    writeStruct(arena, "VkDescriptorSetAllocateInfo", {
      descriptorPool: pool,
      pSetLayouts: Array(FRAMES_IN_FLIGHT).fill(setLayout),
    }),
  ], FRAMES_IN_FLIGHT);
  const hostVisible = vkc.flags(
    vkc.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
    vkc.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
  );
  const uniforms = sets.map((set) => {
    const buffer = scope.create("vkCreateBuffer", [
      device,
      writeStruct(arena, "VkBufferCreateInfo", { size: 64n, usage: vkc.VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT }),
      null,
    ]);
    const memory = bindMemory(vk, scope, { device, gpu, deviceName }, { buffer }, hostVisible);
    const mapped = mapMemory(vk, arena, device, memory, 64);
    vk.vkUpdateDescriptorSets(
      device,
      1,
      writeStruct(arena, "VkWriteDescriptorSet", {
        dstSet: set,
        dstBinding: 0,
        descriptorType: vkc.VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
        descriptorCount: 1,
        pBufferInfo: [{ buffer, offset: 0n, range: 64n }],
      }),
      0,
      null,
    );
    return { matrix: new Float32Array(mapped), set: arena.pointerArray([set]) };
  });

  // Per frame in flight: a command buffer, a fence (signalled: the first wait returns), an acquire semaphore.
  const commandPool = scope.create("vkCreateCommandPool", [
    device,
    writeStruct(arena, "VkCommandPoolCreateInfo", {
      flags: vkc.VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
      queueFamilyIndex: family,
    }),
    null,
  ]);
  const commandBuffers = scope.createMany("vkAllocateCommandBuffers", [
    device,
    writeStruct(arena, "VkCommandBufferAllocateInfo", {
      commandPool,
      level: vkc.VK_COMMAND_BUFFER_LEVEL_PRIMARY,
      commandBufferCount: FRAMES_IN_FLIGHT,
    }),
  ], FRAMES_IN_FLIGHT);
  const signalled = writeStruct(arena, "VkFenceCreateInfo", { flags: vkc.VK_FENCE_CREATE_SIGNALED_BIT });
  const semaphoreInfo = writeStruct(arena, "VkSemaphoreCreateInfo");
  const slots = commandBuffers.map((commandBuffer) => {
    const fence: VkFence = scope.create("vkCreateFence", [device, signalled, null]);
    return {
      commandBuffer,
      fence: arena.pointerArray([fence]),
      acquired: scope.create("vkCreateSemaphore", [device, semaphoreInfo, null]),
    };
  });
  // Runs before everything above is destroyed: nothing may still be in use then.
  let state: SwapchainState | undefined;
  scope.defer(() => {
    vk.vkDeviceWaitIdle(device);
    if (state) destroySwapchain(vk, device, state, true);
  });

  const caps = arena.pointer(arena.alloc(128)); // VkSurfaceCapabilitiesKHR is 52 bytes
  const recreations = { total: 0, outOfDate: 0, suboptimal: 0, resized: 0 };
  /** (Re)creates the swapchain for the surface's extent; false while the window has no area. */
  const makeSwapchain = (cause?: keyof typeof recreations): boolean => {
    check(
      vk.vkGetPhysicalDeviceSurfaceCapabilitiesKHR(gpu, surface, caps),
      "vkGetPhysicalDeviceSurfaceCapabilitiesKHR",
    );
    const c = readStruct("VkSurfaceCapabilitiesKHR", caps);
    const extent = c.currentExtent.width === 0xffffffff
      ? {
        width: Math.min(Math.max(window.width, c.minImageExtent.width), c.maxImageExtent.width),
        height: Math.min(Math.max(window.height, c.minImageExtent.height), c.maxImageExtent.height),
      }
      : c.currentExtent;
    if (extent.width === 0 || extent.height === 0 || window.width === 0 || window.height === 0) return false;
    check(vk.vkDeviceWaitIdle(device), "vkDeviceWaitIdle");
    const old = state;
    if (old) destroySwapchain(vk, device, old, false);
    const minImageCount = c.maxImageCount === 0
      ? c.minImageCount + 1
      : Math.min(c.minImageCount + 1, c.maxImageCount);
    const opaque = vkc.VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
    const color = vkc.VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
    const usage = c.supportedUsageFlags & vkc.VK_IMAGE_USAGE_TRANSFER_SRC_BIT
      ? vkc.flags(color, vkc.VK_IMAGE_USAGE_TRANSFER_SRC_BIT)
      : color;
    const swapchain = create(vk, "vkCreateSwapchainKHR", [
      device,
      writeStruct(arena, "VkSwapchainCreateInfoKHR", {
        surface,
        minImageCount,
        imageFormat: surfaceFormat.format,
        imageColorSpace: surfaceFormat.colorSpace,
        imageExtent: extent,
        imageArrayLayers: 1,
        imageUsage: usage,
        imageSharingMode: vkc.VK_SHARING_MODE_EXCLUSIVE,
        preTransform: c.currentTransform,
        compositeAlpha: c.supportedCompositeAlpha & opaque
          ? opaque
          : (c.supportedCompositeAlpha & -c.supportedCompositeAlpha) as vkc.VkCompositeAlphaFlagBitsKHR,
        presentMode,
        clipped: vkc.VK_TRUE,
        oldSwapchain: old?.swapchain ?? null,
      }),
      null,
    ]);
    if (old) vk.vkDestroySwapchainKHR(device, old.swapchain, null);
    state = swapchainState(vk, {
      window: { width: window.width, height: window.height },
      device,
      gpu,
      deviceName,
      swapchain,
      extent,
      format: surfaceFormat.format,
      depthFormat,
      renderPass,
      slots,
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

  const index = new Uint32Array(1);
  const indexPointer = Deno.UnsafePointer.of(index);
  const beginInfo = writeStruct(arena, "VkCommandBufferBeginInfo", {
    flags: vkc.VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
  });
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
  let presented = 0, zeroExtentWaits = 0, cpuMs = 0, image: RgbaImage | undefined;
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
    const slot = slots[presented % FRAMES_IN_FLIGHT]!;
    check(vk.vkWaitForFences(device, 1, slot.fence, vkc.VK_TRUE, UINT64_MAX), "vkWaitForFences");
    const acquired = vk.vkAcquireNextImageKHR(
      device,
      s.swapchain,
      UINT64_MAX,
      slot.acquired,
      null,
      indexPointer,
    );
    if (acquired === vkc.VK_ERROR_OUT_OF_DATE_KHR) {
      makeSwapchain("outOfDate");
      continue;
    }
    check(acquired, "vkAcquireNextImageKHR"); // VK_SUBOPTIMAL_KHR: the semaphore is signalled, go on
    const t0 = performance.now();
    check(vk.vkResetFences(device, 1, slot.fence), "vkResetFences");
    const i = index[0]!;
    const slotIndex = presented % FRAMES_IN_FLIGHT;
    uniforms[slotIndex]!.matrix.set(frameMatrix(presented, s.width / s.height));
    const last = presented === frames - 1 && options.screenshot === true;
    const readback = last ? makeReadback(vk, arena, { device, gpu, deviceName }, s) : undefined;
    const cb = slot.commandBuffer;
    check(vk.vkBeginCommandBuffer(cb, beginInfo), "vkBeginCommandBuffer");
    vk.vkCmdBeginRenderPass(cb, s.renderPassBegin[i]!, vkc.VK_SUBPASS_CONTENTS_INLINE);
    vk.vkCmdBindPipeline(cb, vkc.VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
    vk.vkCmdBindDescriptorSets(
      cb,
      vkc.VK_PIPELINE_BIND_POINT_GRAPHICS,
      pipelineLayout,
      0,
      1,
      uniforms[slotIndex]!.set,
      0,
      null,
    );
    vk.vkCmdSetViewport(cb, 0, 1, s.viewport);
    vk.vkCmdSetScissor(cb, 0, 1, s.scissor);
    vk.vkCmdDraw(cb, 36, 1, 0, 0);
    vk.vkCmdEndRenderPass(cb);
    readback?.record(cb, s.images[i]!);
    check(vk.vkEndCommandBuffer(cb), "vkEndCommandBuffer");
    const fence = readPointer(slot.fence) as VkFence;
    check(vk.vkQueueSubmit(queue, 1, s.submits[slotIndex]![i]!, fence), "vkQueueSubmit");
    cpuMs += performance.now() - t0;
    if (readback) {
      check(vk.vkWaitForFences(device, 1, slot.fence, vkc.VK_TRUE, UINT64_MAX), "vkWaitForFences");
      image = readback.read();
    }
    const result = vk.vkQueuePresentKHR(queue, s.presents[i]!);
    presented++;
    const now = performance.now();
    between.push(now - lastPresent);
    lastPresent = now;
    if (result === vkc.VK_ERROR_OUT_OF_DATE_KHR) makeSwapchain("outOfDate");
    else if (result === vkc.VK_SUBOPTIMAL_KHR || acquired === vkc.VK_SUBOPTIMAL_KHR) {
      makeSwapchain("suboptimal");
    } else check(result, "vkQueuePresentKHR");
  }
  const seconds = (performance.now() - start) / 1000;
  between.sort((a, b) => a - b);
  check(vk.vkDeviceWaitIdle(device), "vkDeviceWaitIdle");
  const { width, height } = state ?? { width: 0, height: 0 };
  return {
    deviceName,
    frames: presented,
    seconds,
    medianFrameMs: between[Math.floor(between.length / 2)] ?? 0,
    fps: presented / seconds,
    recreations,
    zeroExtentWaits,
    cpuMsPerFrame: cpuMs / Math.max(1, presented),
    width,
    height,
    image,
    validationMessages,
  };
}

/** The surface's present modes (a two-call enumeration of 32-bit values, which enumerate() does not read). */
function surfacePresentModes(vk: VulkanCommands, gpu: VkPhysicalDevice, surface: VkSurfaceKHR): number[] {
  const count = new Uint32Array(1);
  const name = "vkGetPhysicalDeviceSurfacePresentModesKHR";
  check(vk.vkGetPhysicalDeviceSurfacePresentModesKHR(gpu, surface, Deno.UnsafePointer.of(count), null), name);
  const modes = new Uint32Array(count[0]!);
  check(
    vk.vkGetPhysicalDeviceSurfacePresentModesKHR(
      gpu,
      surface,
      Deno.UnsafePointer.of(count),
      Deno.UnsafePointer.of(modes),
    ),
    name,
  );
  return [...modes.subarray(0, count[0]!)];
}

function pickDepthFormat(vk: VulkanCommands, gpu: VkPhysicalDevice): vkc.VkFormat {
  using arena = new Arena();
  const props = arena.pointer(arena.alloc(16)); // VkFormatProperties
  for (const format of [vkc.VK_FORMAT_D32_SFLOAT, vkc.VK_FORMAT_D24_UNORM_S8_UINT, vkc.VK_FORMAT_D16_UNORM]) {
    vk.vkGetPhysicalDeviceFormatProperties(gpu, format, props);
    const { optimalTilingFeatures } = readStruct("VkFormatProperties", props);
    if (optimalTilingFeatures & vkc.VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT) return format;
  }
  throw new NoDeviceError("the device has no depth format for a depth buffer");
}

interface DeviceRef {
  device: VkDevice;
  gpu: VkPhysicalDevice;
  deviceName: string;
}

/** Memory of a type `resource` allows with `flags`, bound to it; freed by the scope, or by the caller. */
function allocateFor(
  vk: VulkanCommands,
  arena: Arena,
  ref: DeviceRef,
  resource: { buffer: vkc.VkBuffer } | { image: VkImage },
  flags: number,
): VkDeviceMemory {
  const reqs = arena.pointer(arena.alloc(24)); // VkMemoryRequirements
  if ("buffer" in resource) vk.vkGetBufferMemoryRequirements(ref.device, resource.buffer, reqs);
  else vk.vkGetImageMemoryRequirements(ref.device, resource.image, reqs);
  const { size: allocationSize, memoryTypeBits } = readStruct("VkMemoryRequirements", reqs);
  const typeIndex = memoryTypeIndex(VkApi.of(vk), ref.gpu, memoryTypeBits, flags);
  if (typeIndex < 0) throw new NoDeviceError(`"${ref.deviceName}" has no memory with flags ${flags}`);
  const memory = create(vk, "vkAllocateMemory", [
    ref.device,
    writeStruct(arena, "VkMemoryAllocateInfo", { allocationSize, memoryTypeIndex: typeIndex }),
    null,
  ]);
  if ("buffer" in resource) {
    check(vk.vkBindBufferMemory(ref.device, resource.buffer, memory, 0n), "vkBindBufferMemory");
  } else check(vk.vkBindImageMemory(ref.device, resource.image, memory, 0n), "vkBindImageMemory");
  return memory;
}

function bindMemory(
  vk: VulkanCommands,
  scope: VkScope,
  ref: DeviceRef,
  resource: { buffer: vkc.VkBuffer },
  flags: number,
): VkDeviceMemory {
  const memory = allocateFor(vk, scope.arena, ref, resource, flags);
  scope.defer(() => vk.vkFreeMemory(ref.device, memory, null));
  return memory;
}

/** Maps `size` bytes of `memory` (never unmapped: freeing the memory unmaps it). */
function mapMemory(vk: VulkanCommands, arena: Arena, device: VkDevice, memory: VkDeviceMemory, size: number) {
  const out = arena.pointer(arena.alloc(8));
  check(vk.vkMapMemory(device, memory, 0n, BigInt(size), 0, out), "vkMapMemory");
  return Deno.UnsafePointerView.getArrayBuffer(readPointer(out)!, size);
}

function createPipeline(
  scope: VkScope,
  device: VkDevice,
  renderPass: vkc.VkRenderPass,
  layout: vkc.VkPipelineLayout,
): vkc.VkPipeline {
  const arena = scope.arena;
  const shader = (pCode: Uint32Array) =>
    scope.create("vkCreateShaderModule", [
      device,
      writeStruct(arena, "VkShaderModuleCreateInfo", { pCode }),
      null,
    ]);
  const [pipeline] = scope.createMany("vkCreateGraphicsPipelines", [
    device,
    null,
    1,
    writeStruct(arena, "VkGraphicsPipelineCreateInfo", {
      pStages: [
        { stage: vkc.VK_SHADER_STAGE_VERTEX_BIT, module: shader(CUBE_VERT_SPV), pName: "main" },
        { stage: vkc.VK_SHADER_STAGE_FRAGMENT_BIT, module: shader(CUBE_FRAG_SPV), pName: "main" },
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
    }),
    null,
  ], 1);
  return pipeline!;
}

/** Views, framebuffers, depth buffer, per-image semaphores and the frame structs of a new swapchain. */
function swapchainState(
  vk: VulkanCommands,
  s: DeviceRef & {
    window: { width: number; height: number };
    swapchain: VkSwapchainKHR;
    extent: { width: number; height: number };
    format: vkc.VkFormat;
    depthFormat: vkc.VkFormat;
    renderPass: vkc.VkRenderPass;
    slots: { commandBuffer: VkCommandBuffer; acquired: VkSemaphore }[];
  },
): SwapchainState {
  const arena = new Arena();
  const { device, extent } = s;
  const images = enumerate(vk.vkGetSwapchainImagesKHR, [device, s.swapchain]);
  const view = (image: VkImage | null, format: vkc.VkFormat, aspectMask: vkc.VkImageAspectFlags) =>
    create(vk, "vkCreateImageView", [
      device,
      writeStruct(arena, "VkImageViewCreateInfo", {
        image,
        viewType: vkc.VK_IMAGE_VIEW_TYPE_2D,
        format,
        subresourceRange: { aspectMask, levelCount: 1, layerCount: 1 },
      }),
      null,
    ]);
  const depthImage = create(vk, "vkCreateImage", [
    device,
    writeStruct(arena, "VkImageCreateInfo", {
      imageType: vkc.VK_IMAGE_TYPE_2D,
      format: s.depthFormat,
      extent: { ...extent, depth: 1 },
      mipLevels: 1,
      arrayLayers: 1,
      samples: vkc.VK_SAMPLE_COUNT_1_BIT,
      usage: vkc.VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
    }),
    null,
  ]);
  const depthMemory = allocateFor(
    vk,
    arena,
    s,
    { image: depthImage },
    vkc.VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
  );
  const depth = {
    image: depthImage,
    memory: depthMemory,
    view: view(depthImage, s.depthFormat, vkc.VK_IMAGE_ASPECT_DEPTH_BIT),
  };
  const views = images.map((image) => view(image, s.format, vkc.VK_IMAGE_ASPECT_COLOR_BIT));
  const framebuffers = views.map((v) =>
    create(vk, "vkCreateFramebuffer", [
      device,
      writeStruct(arena, "VkFramebufferCreateInfo", {
        renderPass: s.renderPass,
        pAttachments: [v, depth.view],
        ...extent,
        layers: 1,
      }),
      null,
    ])
  );
  const semaphoreInfo = writeStruct(arena, "VkSemaphoreCreateInfo");
  const rendered = images.map(() => create(vk, "vkCreateSemaphore", [device, semaphoreInfo, null]));
  const renderPassBegin = framebuffers.map((framebuffer) =>
    writeStruct(arena, "VkRenderPassBeginInfo", {
      renderPass: s.renderPass,
      framebuffer,
      renderArea: { offset: { x: 0, y: 0 }, extent },
      pClearValues: [{ color: { float32: [0.1, 0.1, 0.12, 1] } }, { depthStencil: { depth: 1, stencil: 0 } }],
    })
  );
  const submits = s.slots.map((slot) =>
    rendered.map((signal) =>
      writeStruct(arena, "VkSubmitInfo", {
        pWaitSemaphores: [slot.acquired],
        pWaitDstStageMask: [vkc.VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT],
        pCommandBuffers: [slot.commandBuffer],
        pSignalSemaphores: [signal],
      })
    )
  );
  const presents = rendered.map((wait, i) =>
    writeStruct(arena, "VkPresentInfoKHR", {
      pWaitSemaphores: [wait],
      pSwapchains: [s.swapchain],
      pImageIndices: [i],
    })
  );
  return {
    swapchain: s.swapchain,
    windowWidth: s.window.width,
    windowHeight: s.window.height,
    format: s.format,
    ...extent,
    images,
    views,
    framebuffers,
    depth,
    rendered,
    arena,
    renderPassBegin,
    viewport: writeStruct(arena, "VkViewport", { x: 0, y: 0, ...extent, minDepth: 0, maxDepth: 1 }),
    scissor: writeStruct(arena, "VkRect2D", { offset: { x: 0, y: 0 }, extent }),
    submits,
    presents,
  };
}

/** Destroys what {@linkcode swapchainState} made, last first; the swapchain itself only with `swapchain`. */
function destroySwapchain(vk: VulkanCommands, device: VkDevice, s: SwapchainState, swapchain: boolean): void {
  for (const semaphore of s.rendered) vk.vkDestroySemaphore(device, semaphore, null);
  for (const framebuffer of s.framebuffers) vk.vkDestroyFramebuffer(device, framebuffer, null);
  for (const view of s.views) vk.vkDestroyImageView(device, view, null);
  vk.vkDestroyImageView(device, s.depth.view, null);
  vk.vkDestroyImage(device, s.depth.image, null);
  vk.vkFreeMemory(device, s.depth.memory, null);
  if (swapchain) vk.vkDestroySwapchainKHR(device, s.swapchain, null);
  s.arena.dispose();
}

/**
 * A host-visible buffer the last frame's swapchain image is copied into, after the render pass and before
 * the present: the image goes PRESENT_SRC -> TRANSFER_SRC -> PRESENT_SRC around the copy.
 */
function makeReadback(vk: VulkanCommands, arena: Arena, ref: DeviceRef, s: SwapchainState) {
  const { device } = ref;
  const size = s.width * s.height * 4;
  const format = s.format;
  const buffer = create(vk, "vkCreateBuffer", [
    device,
    writeStruct(arena, "VkBufferCreateInfo", {
      size: BigInt(size),
      usage: vkc.VK_BUFFER_USAGE_TRANSFER_DST_BIT,
    }),
    null,
  ]);
  const flags = vkc.flags(vkc.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, vkc.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  const memory = allocateFor(vk, arena, ref, { buffer }, flags);
  const range = { aspectMask: vkc.VK_IMAGE_ASPECT_COLOR_BIT, levelCount: 1, layerCount: 1 };
  const barrier = (
    image: VkImage,
    from: vkc.VkImageLayout,
    to: vkc.VkImageLayout,
    src: vkc.VkAccessFlags,
    dst: vkc.VkAccessFlags,
  ) =>
    writeStruct(arena, "VkImageMemoryBarrier", {
      srcAccessMask: src,
      dstAccessMask: dst,
      oldLayout: from,
      newLayout: to,
      srcQueueFamilyIndex: vkc.VK_QUEUE_FAMILY_IGNORED,
      dstQueueFamilyIndex: vkc.VK_QUEUE_FAMILY_IGNORED,
      image,
      subresourceRange: range,
    });
  const PRESENT = vkc.VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, SRC = vkc.VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
  return {
    record(cb: VkCommandBuffer, image: VkImage): void {
      const toCopy = barrier(
        image,
        PRESENT,
        SRC,
        vkc.VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
        vkc.VK_ACCESS_TRANSFER_READ_BIT,
      );
      const color = vkc.VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
        transfer = vkc.VK_PIPELINE_STAGE_TRANSFER_BIT;
      vk.vkCmdPipelineBarrier(cb, color, transfer, 0, 0, null, 0, null, 1, toCopy);
      const region = writeStruct(arena, "VkBufferImageCopy", {
        imageSubresource: {
          aspectMask: vkc.VK_IMAGE_ASPECT_COLOR_BIT,
          mipLevel: 0,
          baseArrayLayer: 0,
          layerCount: 1,
        },
        imageExtent: { width: s.width, height: s.height, depth: 1 },
      });
      vk.vkCmdCopyImageToBuffer(cb, image, SRC, buffer, 1, region);
      const back = barrier(image, SRC, PRESENT, vkc.VK_ACCESS_TRANSFER_READ_BIT, 0);
      vk.vkCmdPipelineBarrier(
        cb,
        transfer,
        vkc.VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
        0,
        0,
        null,
        0,
        null,
        1,
        back,
      );
    },
    read(): RgbaImage {
      const bytes = new Uint8Array(mapMemory(vk, arena, device, memory, size).slice(0));
      vk.vkUnmapMemory(device, memory);
      vk.vkDestroyBuffer(device, buffer, null);
      vk.vkFreeMemory(device, memory, null);
      if (format === vkc.VK_FORMAT_B8G8R8A8_UNORM || format === vkc.VK_FORMAT_B8G8R8A8_SRGB) {
        for (let p = 0; p < bytes.length; p += 4) [bytes[p], bytes[p + 2]] = [bytes[p + 2]!, bytes[p]!];
      }
      for (let p = 3; p < bytes.length; p += 4) bytes[p] = 255; // opaque, whatever the alpha channel holds
      return { width: s.width, height: s.height, rgba: bytes };
    },
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
  if (!["xlib", "xcb", "wayland"].includes(wsi)) {
    throw new TypeError(`Unknown --wsi "${wsi}": xlib, xcb or wayland`);
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
        `${report.fps.toFixed(1)} fps, ${report.cpuMsPerFrame.toFixed(3)} ms JavaScript per frame, ` +
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
