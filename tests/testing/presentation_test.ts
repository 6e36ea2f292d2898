/**
 * Window code on the mock: headless surfaces, swapchains in host memory whose presented frames a test reads
 * as RGBA, out-of-date and suboptimal on demand, query results a test chooses; the cube example's frame loop
 * with its swapchain recreations, also in a process with only deno on PATH and no display.
 */
import { deepStrictEqual as assertEquals } from "node:assert/strict";
import {
  flags,
  VK_COLOR_SPACE_SRGB_NONLINEAR_KHR,
  VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR,
  VK_FORMAT_R8G8B8A8_UNORM,
  VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
  VK_PRESENT_MODE_FIFO_KHR,
  VK_QUERY_RESULT_64_BIT,
  VK_QUERY_RESULT_WITH_AVAILABILITY_BIT,
  VK_QUERY_TYPE_OCCLUSION,
  VK_QUERY_TYPE_TIMESTAMP,
  VK_SHARING_MODE_EXCLUSIVE,
  VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR,
  VK_TRUE,
  VkApi,
  type VkCommandSource,
  Vulkan,
} from "../../mod.ts";
import { MockDriver, mockEnvironment } from "../../testing/mod.ts";
import { headlessWindow, runCube } from "../../examples/cube.ts";

const isolated = mockEnvironment();
globalThis.addEventListener("unload", () => isolated.remove());

const presenting = () =>
  new MockDriver({
    instanceExtensions: ["VK_KHR_surface", "VK_EXT_headless_surface"],
    devices: [{ extensions: ["VK_KHR_swapchain"] }],
  });

Deno.test("the cube's frame loop runs on the mock: resizes, out of date and suboptimal recreate the swapchain", () => {
  using mock = presenting();
  let presents = 0;
  mock.override("vkQueuePresentKHR", (call) => {
    presents++;
    if (presents === 10) mock.presentation.outOfDate(); // the driver loses the swapchain
    if (presents === 14) mock.presentation.resize(40, 30); // the surface shrinks: suboptimal
    return call.next();
  });
  using vk = Vulkan.load({ drivers: [mock], env: isolated.env });
  using window = headlessWindow({ width: 64, height: 48 });
  const report = runCube(vk, window, { frames: 18, resize: true });
  assertEquals(
    [report.frames, report.recreations, report.width, report.height],
    [18, { total: 4, outOfDate: 1, suboptimal: 1, resized: 2 }, 40, 30],
  );
  // The render pass clears each swapchain image to the cube's background before it is presented.
  const last = mock.presentation.frames.at(-1)!;
  assertEquals([last.width, last.height, last.rgba.length, [...last.rgba.slice(0, 4)]], [40, 30, 4800, [
    26,
    26,
    31,
    255,
  ]]);
  assertEquals([mock.problems, mock.liveObjects()], [[], []]);
});

Deno.test("acquire and present answer VK_ERROR_OUT_OF_DATE_KHR and VK_SUBOPTIMAL_KHR on demand", () => {
  using mock = presenting();
  using raw = Vulkan.load({ drivers: [mock], env: isolated.env });
  using vk = VkApi.of(raw as unknown as VkCommandSource).scope();
  const instance = vk.createInstance({
    ppEnabledExtensionNames: ["VK_KHR_surface", "VK_EXT_headless_surface"],
  });
  const surface = vk.createHeadlessSurfaceEXT(instance, {});
  const gpu = vk.enumeratePhysicalDevices(instance)[0]!;
  const device = vk.createDevice(gpu, {
    pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
    ppEnabledExtensionNames: ["VK_KHR_swapchain"],
  });
  const queue = vk.getDeviceQueue(device, 0, 0);
  assertEquals(vk.getPhysicalDeviceSurfaceCapabilitiesKHR(gpu, surface).currentExtent.width, 0xffffffff);
  const swapchain = vk.createSwapchainKHR(device, {
    surface,
    minImageCount: 2,
    imageFormat: VK_FORMAT_R8G8B8A8_UNORM,
    imageColorSpace: VK_COLOR_SPACE_SRGB_NONLINEAR_KHR,
    imageExtent: { width: 2, height: 1 },
    imageArrayLayers: 1,
    imageUsage: VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
    imageSharingMode: VK_SHARING_MODE_EXCLUSIVE,
    preTransform: VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR,
    compositeAlpha: VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR,
    presentMode: VK_PRESENT_MODE_FIFO_KHR,
    clipped: VK_TRUE,
  });
  const images = vk.getSwapchainImagesKHR(device, swapchain);
  const fence = vk.createFence(device, {});
  const acquired = vk.acquireNextImageKHR(device, swapchain, 0n, null, fence);
  // A test writes the image's host bytes; the present keeps them as the frame.
  mock.presentation.imageBytes(images[acquired.imageIndex]!)!.set([1, 2, 3, 4, 5, 6, 7, 8]);
  const present = () =>
    vk.queuePresentKHR(queue, { pSwapchains: [swapchain], pImageIndices: [acquired.imageIndex] });
  assertEquals([acquired.result, present()], ["VK_SUCCESS", "VK_SUCCESS"]);
  assertEquals([...mock.presentation.frames[0]!.rgba], [1, 2, 3, 4, 5, 6, 7, 8]);
  mock.presentation.resize(4, 4);
  assertEquals(vk.getPhysicalDeviceSurfaceCapabilitiesKHR(gpu, surface).currentExtent, {
    width: 4,
    height: 4,
  });
  vk.resetFences(device, [fence]);
  assertEquals(vk.acquireNextImageKHR(device, swapchain, 0n, null, fence).result, "VK_SUBOPTIMAL_KHR");
  mock.presentation.outOfDate();
  let error: unknown;
  try {
    vk.acquireNextImageKHR(device, swapchain, 0n, null, null);
  } catch (e) {
    error = e;
  }
  assertEquals(
    (error as Error).message,
    'Command "vkAcquireNextImageKHR" failed with "VK_ERROR_OUT_OF_DATE_KHR"',
  );
  vk.destroySwapchainKHR(device, swapchain);
});

Deno.test("timestamp and occlusion queries return the results the test chose", () => {
  using mock = presenting();
  mock.presentation.timestamp = (query) => 1_000_000n + BigInt(query);
  mock.presentation.occlusion = (query) => BigInt(query * 10);
  using raw = Vulkan.load({ drivers: [mock], env: isolated.env });
  using vk = VkApi.of(raw as unknown as VkCommandSource).scope();
  const instance = vk.createInstance({});
  const device = vk.createDevice(vk.enumeratePhysicalDevices(instance)[0]!, {
    pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
  });
  const timestamps = vk.createQueryPool(device, { queryType: VK_QUERY_TYPE_TIMESTAMP, queryCount: 4 });
  const occlusion = vk.createQueryPool(device, { queryType: VK_QUERY_TYPE_OCCLUSION, queryCount: 2 });
  const wide = new BigUint64Array(4);
  vk.getQueryPoolResults(
    device,
    timestamps,
    1,
    2,
    wide,
    16n,
    flags(VK_QUERY_RESULT_64_BIT, VK_QUERY_RESULT_WITH_AVAILABILITY_BIT),
  );
  assertEquals([...wide], [1_000_001n, 1n, 1_000_002n, 1n]);
  const narrow = new Uint32Array(2);
  vk.getQueryPoolResults(device, occlusion, 0, 2, narrow, 4n, 0);
  assertEquals([...narrow], [0, 10]);
});

Deno.test("the cube on the mock needs no display, compositor or program besides deno", async () => {
  const bin = Deno.makeTempDirSync();
  try {
    Deno.symlinkSync(Deno.execPath(), `${bin}/deno`);
    const env: Record<string, string> = { PATH: bin };
    for (const k of ["HOME", "DENO_DIR"]) if (Deno.env.get(k)) env[k] = Deno.env.get(k)!;
    const out = await new Deno.Command(`${bin}/deno`, {
      args: ["run", "-A", "--quiet", new URL("./fixtures/cube_on_mock.ts", import.meta.url).pathname],
      clearEnv: true,
      env,
      cwd: new URL("../../", import.meta.url).pathname,
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
    assertEquals(JSON.parse(text), {
      report: {
        frames: 9,
        recreations: { total: 2, outOfDate: 0, suboptimal: 0, resized: 2 },
        width: 64,
        height: 48,
      },
      problems: [],
      last: { width: 64, height: 48, pixel: [26, 26, 31, 255] },
      env: { DISPLAY: null, WAYLAND_DISPLAY: null },
    });
  } finally {
    Deno.removeSync(bin, { recursive: true });
  }
});
