/**
 * `deno task triangle`: renders a triangle with a red, a green and a blue corner into an offscreen image
 * with a graphics pipeline and a render pass, copies the image into a host-visible buffer and writes it as
 * a PNG. `--loader=libvulkan` runs the same code through the Khronos loader (the test compares the pixels).
 *
 * ```sh
 * deno run --allow-read --allow-env --allow-ffi --allow-write examples/triangle.ts \
 *   [--out=triangle.png] [--size=256] [--loader=vkdeno|libvulkan]
 * ```
 *
 * @module
 */
import * as vkc from "../mod.ts";
import { VkApi, type VkCommandSource } from "../mod.ts";
import { encodePng, type RgbaImage } from "@vkdeno/loader/window";
import { createInstance, describeDevice, findDevice, memoryTypeIndex } from "./_helpers.ts";
import { NoDeviceError, runExample } from "./_loader.ts";
import { TRIANGLE_FRAG_SPV, TRIANGLE_VERT_SPV } from "./shaders/triangle_spv.ts";

/** The background, RGBA in 0..1 (0.2 is exactly 51 of 255). */
export const CLEAR_COLOUR: readonly [number, number, number, number] = [0.2, 0.2, 0.2, 1];

/** What {@linkcode renderTriangle} returns: the image and the device that drew it. */
export interface TriangleResult {
  image: RgbaImage;
  deviceName: string;
}

/**
 * Draws the triangle on the first device with a graphics queue into a `size` x `size` image and reads it
 * back; destroys everything it created, also on failure.
 *
 * @example Usage
 * ```ts ignore
 * import { openLoader } from "./_loader.ts";
 * import { renderTriangle } from "./triangle.ts";
 * using raw = await openLoader("vkdeno");
 * console.log(renderTriangle(raw, 64).image.rgba.length); // 16384
 * ```
 * @throws {NoDeviceError} If no driver or no device with a graphics queue is found.
 * @throws {VkError} If a Vulkan command fails.
 */
export function renderTriangle(raw: VkCommandSource, size = 256): TriangleResult {
  using vk = VkApi.of(raw).scope(); // destroys what it creates, last first, also on a throw
  const extent = { width: size, height: size };
  const format = vkc.VK_FORMAT_R8G8B8A8_UNORM;
  const apiVersion = vkc.VK_API_VERSION_1_0; // render passes are Vulkan 1.0: any driver will do
  const instance = createInstance(vk, {
    pApplicationInfo: { pApplicationName: "vkdeno triangle", apiVersion },
  });
  const [gpu, queueFamilyIndex] = findDevice(vk, instance, vkc.VK_QUEUE_GRAPHICS_BIT);
  const deviceName = describeDevice(vk, gpu, apiVersion).name;
  const device = vk.createDevice(gpu, { pQueueCreateInfos: [{ queueFamilyIndex, pQueuePriorities: [1] }] });
  const queue = vk.getDeviceQueue(device, queueFamilyIndex, 0);

  // Memory of a type the resource allows, with the wanted property flags, bound to it.
  const memoryFor = (reqs: { size: bigint; memoryTypeBits: number }, flags = 0) => {
    const type = memoryTypeIndex(vk, gpu, reqs.memoryTypeBits, flags);
    if (type < 0) throw new NoDeviceError(`"${deviceName}" has no memory with flags ${flags}`);
    return vk.allocateMemory(device, { allocationSize: reqs.size, memoryTypeIndex: type });
  };

  // The colour attachment (optimal tiling, device memory), and a host-visible buffer to copy it into.
  const image = vk.createImage(device, {
    imageType: vkc.VK_IMAGE_TYPE_2D,
    format,
    extent: { ...extent, depth: 1 },
    mipLevels: 1,
    arrayLayers: 1,
    samples: vkc.VK_SAMPLE_COUNT_1_BIT,
    usage: vkc.flags(vkc.VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, vkc.VK_IMAGE_USAGE_TRANSFER_SRC_BIT),
  });
  vk.bindImageMemory(device, image, memoryFor(vk.getImageMemoryRequirements(device, image)), 0n);
  const subresourceRange = { aspectMask: vkc.VK_IMAGE_ASPECT_COLOR_BIT, levelCount: 1, layerCount: 1 };
  const view = vk.createImageView(device, {
    image,
    viewType: vkc.VK_IMAGE_VIEW_TYPE_2D,
    format,
    subresourceRange,
  });
  const byteSize = size * size * 4;
  const buffer = vk.createBuffer(device, {
    size: BigInt(byteSize),
    usage: vkc.VK_BUFFER_USAGE_TRANSFER_DST_BIT,
  });
  const hostVisible = vkc.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | vkc.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  const bufferMemory = memoryFor(vk.getBufferMemoryRequirements(device, buffer), hostVisible);
  vk.bindBufferMemory(device, buffer, bufferMemory, 0n);

  // One subpass clearing and drawing into the attachment, which ends in TRANSFER_SRC_OPTIMAL; the
  // dependency makes the colour writes visible to the copy recorded after the render pass.
  const renderPass = vk.createRenderPass(device, {
    pAttachments: [{
      format,
      samples: vkc.VK_SAMPLE_COUNT_1_BIT,
      loadOp: vkc.VK_ATTACHMENT_LOAD_OP_CLEAR,
      storeOp: vkc.VK_ATTACHMENT_STORE_OP_STORE,
      stencilLoadOp: vkc.VK_ATTACHMENT_LOAD_OP_DONT_CARE,
      stencilStoreOp: vkc.VK_ATTACHMENT_STORE_OP_DONT_CARE,
      initialLayout: vkc.VK_IMAGE_LAYOUT_UNDEFINED,
      finalLayout: vkc.VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
    }],
    pSubpasses: [{
      pipelineBindPoint: vkc.VK_PIPELINE_BIND_POINT_GRAPHICS,
      pColorAttachments: [{ attachment: 0, layout: vkc.VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL }],
    }],
    pDependencies: [{
      srcSubpass: 0,
      dstSubpass: vkc.VK_SUBPASS_EXTERNAL,
      srcStageMask: vkc.VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
      dstStageMask: vkc.VK_PIPELINE_STAGE_TRANSFER_BIT,
      srcAccessMask: vkc.VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
      dstAccessMask: vkc.VK_ACCESS_TRANSFER_READ_BIT,
    }],
  });
  const framebuffer = vk.createFramebuffer(device, {
    renderPass,
    pAttachments: [view],
    ...extent,
    layers: 1,
  });

  // The pipeline: the embedded shaders, no vertex input (the vertex shader holds the corners), a fixed
  // viewport, no culling, no blending.
  const stage = (stage: vkc.VkShaderStageFlagBits, pCode: Uint32Array) => ({
    stage,
    module: vk.createShaderModule(device, { pCode }),
    pName: "main",
  });
  const layout = vk.createPipelineLayout(device, {});
  const { VK_COLOR_COMPONENT_R_BIT: R, VK_COLOR_COMPONENT_G_BIT: G, VK_COLOR_COMPONENT_B_BIT: B } = vkc;
  const RGBA = vkc.flags(R, G, B, vkc.VK_COLOR_COMPONENT_A_BIT);
  const { pipelines: [pipeline] } = vk.createGraphicsPipelines(device, null, [{
    pStages: [
      stage(vkc.VK_SHADER_STAGE_VERTEX_BIT, TRIANGLE_VERT_SPV),
      stage(vkc.VK_SHADER_STAGE_FRAGMENT_BIT, TRIANGLE_FRAG_SPV),
    ],
    pVertexInputState: {},
    pInputAssemblyState: { topology: vkc.VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST },
    pViewportState: {
      pViewports: [{ x: 0, y: 0, width: size, height: size, minDepth: 0, maxDepth: 1 }],
      pScissors: [{ offset: { x: 0, y: 0 }, extent }],
    },
    pRasterizationState: {
      polygonMode: vkc.VK_POLYGON_MODE_FILL,
      cullMode: vkc.VK_CULL_MODE_NONE,
      lineWidth: 1,
    },
    pMultisampleState: { rasterizationSamples: vkc.VK_SAMPLE_COUNT_1_BIT },
    pColorBlendState: { pAttachments: [{ colorWriteMask: RGBA }] },
    layout,
    renderPass,
  }]);

  // Record: clear and draw, copy the image into the buffer, make the copy visible to the host.
  const commandPool = vk.createCommandPool(device, { queueFamilyIndex });
  const [cmd] = vk.allocateCommandBuffers(device, { commandPool, commandBufferCount: 1 });
  vk.beginCommandBuffer(cmd, {});
  const renderArea = { offset: { x: 0, y: 0 }, extent };
  const pClearValues = [{ color: { float32: [...CLEAR_COLOUR] } }];
  vk.cmdBeginRenderPass(
    cmd,
    { renderPass, framebuffer, renderArea, pClearValues },
    vkc.VK_SUBPASS_CONTENTS_INLINE,
  );
  vk.cmdBindPipeline(cmd, vkc.VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
  vk.cmdDraw(cmd, 3, 1, 0, 0);
  vk.cmdEndRenderPass(cmd);
  vk.cmdCopyImageToBuffer(cmd, image, vkc.VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buffer, [{
    imageSubresource: { aspectMask: vkc.VK_IMAGE_ASPECT_COLOR_BIT, layerCount: 1 },
    imageExtent: { ...extent, depth: 1 },
  }]);
  const toHost = {
    srcAccessMask: vkc.VK_ACCESS_TRANSFER_WRITE_BIT,
    dstAccessMask: vkc.VK_ACCESS_HOST_READ_BIT,
    srcQueueFamilyIndex: vkc.VK_QUEUE_FAMILY_IGNORED,
    dstQueueFamilyIndex: vkc.VK_QUEUE_FAMILY_IGNORED,
    buffer,
    size: vkc.VK_WHOLE_SIZE,
  };
  vk.cmdPipelineBarrier(cmd, vkc.VK_PIPELINE_STAGE_TRANSFER_BIT, vkc.VK_PIPELINE_STAGE_HOST_BIT, 0, [], [
    toHost,
  ]);
  vk.endCommandBuffer(cmd);

  const fence = vk.createFence(device, {});
  vk.queueSubmit(queue, [{ pCommandBuffers: [cmd] }], fence);
  vk.waitForFences(device, [fence], true, vkc.VK_WHOLE_SIZE);
  const rgba = new Uint8Array(vk.mapMemory(device, bufferMemory, 0n, BigInt(byteSize))).slice();
  vk.unmapMemory(device, bufferMemory);
  return { image: { width: size, height: size, rgba }, deviceName };
}

if (import.meta.main) {
  const outPath = Deno.args.find((a) => a.startsWith("--out="))?.slice("--out=".length) ?? "triangle.png";
  const size = Number(Deno.args.find((a) => a.startsWith("--size="))?.slice("--size=".length) ?? 256);
  if (!Number.isInteger(size) || size < 1 || size > 4096) throw new RangeError(`Invalid --size "${size}"`);
  await runExample(Deno.args, async (raw, loader) => {
    const { image, deviceName } = renderTriangle(raw, size);
    await Deno.writeFile(outPath, encodePng(image));
    console.log(`Loader: ${loader}\nDevice: ${deviceName}\nWrote ${outPath} (${size}x${size})`);
  });
}
