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
import { allocStruct, check, readPointer, readStruct, VkApi, VkScope, writeStruct } from "../mod.ts";
import type { VulkanCommands } from "../mod.ts";
import { encodePng } from "../wsi/png.ts";
import type { RgbaImage } from "../wsi/x11.ts";
import { createInstanceIn, describeDevice, findDevice, memoryTypeIndex } from "./_helpers.ts";
import { NoDeviceError, runExample } from "./_loader.ts";
import { TRIANGLE_FRAG_SPV, TRIANGLE_VERT_SPV } from "./shaders/triangle_spv.ts";

/** The background, RGBA in 0..1 (0.2 is exactly 51 of 255). */
export const CLEAR_COLOUR = [0.2, 0.2, 0.2, 1] as const;

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
 * using vk = await openLoader("vkdeno");
 * console.log(renderTriangle(vk, 64).image.rgba.length); // 16384
 * ```
 * @throws {NoDeviceError} If no driver or no device with a graphics queue is found.
 * @throws {VkError} If a Vulkan command fails.
 */
export function renderTriangle(vk: VulkanCommands, size = 256): TriangleResult {
  using scope = new VkScope(vk); // destroys what it created in reverse order, also on a throw
  const arena = scope.arena;
  const extent = { width: size, height: size };
  const format = vkc.VK_FORMAT_R8G8B8A8_UNORM;
  const apiVersion = vkc.VK_API_VERSION_1_0; // render passes are Vulkan 1.0: any driver will do
  const pApplicationInfo = { pApplicationName: "vkdeno triangle", apiVersion };
  const instance = createInstanceIn(scope, writeStruct(arena, "VkInstanceCreateInfo", { pApplicationInfo }));
  const [gpu, queueFamilyIndex] = findDevice(VkApi.of(vk), instance, vkc.VK_QUEUE_GRAPHICS_BIT);
  const deviceName = describeDevice(VkApi.of(vk), gpu, apiVersion).name;
  const pQueueCreateInfos = [{ queueFamilyIndex, pQueuePriorities: [1] }];
  const deviceInfo = writeStruct(arena, "VkDeviceCreateInfo", { pQueueCreateInfos });
  const device = scope.create("vkCreateDevice", [gpu, deviceInfo, null]);
  const queue = scope.create("vkGetDeviceQueue", [device, queueFamilyIndex, 0]); // queues have no destroy

  // Memory of a type the resource allows, with the wanted property flags, bound to it.
  const bindMemory = (resource: { buffer: vkc.VkBuffer } | { image: vkc.VkImage }, flags: number) => {
    const reqs = allocStruct(arena, "VkMemoryRequirements");
    if ("buffer" in resource) vk.vkGetBufferMemoryRequirements(device, resource.buffer, reqs);
    else vk.vkGetImageMemoryRequirements(device, resource.image, reqs);
    const { size: allocationSize, memoryTypeBits } = readStruct("VkMemoryRequirements", reqs);
    const typeIndex = memoryTypeIndex(VkApi.of(vk), gpu, memoryTypeBits, flags);
    if (typeIndex < 0) throw new NoDeviceError(`"${deviceName}" has no memory with flags ${flags}`);
    const info = { allocationSize, memoryTypeIndex: typeIndex };
    const memory = scope.create("vkAllocateMemory", [
      device,
      writeStruct(arena, "VkMemoryAllocateInfo", info),
      null,
    ]);
    if ("buffer" in resource) {
      check(vk.vkBindBufferMemory(device, resource.buffer, memory, 0n), "vkBindBufferMemory");
    } else check(vk.vkBindImageMemory(device, resource.image, memory, 0n), "vkBindImageMemory");
    return memory;
  };

  // The colour attachment (optimal tiling, device memory), and a host-visible buffer to copy it into.
  const imageInfo = writeStruct(arena, "VkImageCreateInfo", {
    imageType: vkc.VK_IMAGE_TYPE_2D,
    format,
    extent: { ...extent, depth: 1 },
    mipLevels: 1,
    arrayLayers: 1,
    samples: vkc.VK_SAMPLE_COUNT_1_BIT,
    usage: vkc.flags(vkc.VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, vkc.VK_IMAGE_USAGE_TRANSFER_SRC_BIT),
  });
  const image = scope.create("vkCreateImage", [device, imageInfo, null]);
  bindMemory({ image }, 0);
  const subresourceRange = { aspectMask: vkc.VK_IMAGE_ASPECT_COLOR_BIT, levelCount: 1, layerCount: 1 };
  const viewInfo = { image, viewType: vkc.VK_IMAGE_VIEW_TYPE_2D, format, subresourceRange };
  const view = scope.create("vkCreateImageView", [
    device,
    writeStruct(arena, "VkImageViewCreateInfo", viewInfo),
    null,
  ]);
  const byteSize = size * size * 4;
  const bufferInfo = { size: BigInt(byteSize), usage: vkc.VK_BUFFER_USAGE_TRANSFER_DST_BIT };
  const buffer = scope.create("vkCreateBuffer", [
    device,
    writeStruct(arena, "VkBufferCreateInfo", bufferInfo),
    null,
  ]);
  const hostVisible = vkc.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | vkc.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  const bufferMemory = bindMemory({ buffer }, hostVisible);

  // One subpass clearing and drawing into the attachment, which ends in TRANSFER_SRC_OPTIMAL; the
  // dependency makes the colour writes visible to the copy recorded after the render pass.
  const renderPassInfo = writeStruct(arena, "VkRenderPassCreateInfo", {
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
  const renderPass = scope.create("vkCreateRenderPass", [device, renderPassInfo, null]);
  const framebufferInfo = { renderPass, pAttachments: [view], ...extent, layers: 1 };
  const framebuffer = scope.create("vkCreateFramebuffer", [
    device,
    writeStruct(arena, "VkFramebufferCreateInfo", framebufferInfo),
    null,
  ]);

  // The pipeline: the embedded shaders, no vertex input (the vertex shader holds the corners), a fixed
  // viewport, no culling, no blending.
  const shader = (pCode: Uint32Array) =>
    scope.create("vkCreateShaderModule", [
      device,
      writeStruct(arena, "VkShaderModuleCreateInfo", { pCode }),
      null,
    ]);
  const layout = scope.create("vkCreatePipelineLayout", [
    device,
    writeStruct(arena, "VkPipelineLayoutCreateInfo"),
    null,
  ]);
  const RGBA = vkc.flags(
    vkc.VK_COLOR_COMPONENT_R_BIT,
    vkc.VK_COLOR_COMPONENT_G_BIT,
    vkc.VK_COLOR_COMPONENT_B_BIT,
    vkc.VK_COLOR_COMPONENT_A_BIT,
  );
  const pipelineInfo = writeStruct(arena, "VkGraphicsPipelineCreateInfo", {
    pStages: [
      { stage: vkc.VK_SHADER_STAGE_VERTEX_BIT, module: shader(TRIANGLE_VERT_SPV), pName: "main" },
      { stage: vkc.VK_SHADER_STAGE_FRAGMENT_BIT, module: shader(TRIANGLE_FRAG_SPV), pName: "main" },
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
  });
  const pipeline = scope.createMany(
    "vkCreateGraphicsPipelines",
    [device, null, 1, pipelineInfo, null],
    1,
  )[0]!;

  // Record: clear and draw, copy the image into the buffer, make the copy visible to the host.
  const poolInfo = writeStruct(arena, "VkCommandPoolCreateInfo", { queueFamilyIndex });
  const commandPool = scope.create("vkCreateCommandPool", [device, poolInfo, null]);
  const cmdInfo = writeStruct(arena, "VkCommandBufferAllocateInfo", { commandPool, commandBufferCount: 1 });
  const cmd = scope.createMany("vkAllocateCommandBuffers", [device, cmdInfo], 1)[0]!;
  check(vk.vkBeginCommandBuffer(cmd, writeStruct(arena, "VkCommandBufferBeginInfo")), "vkBeginCommandBuffer");
  const renderArea = { offset: { x: 0, y: 0 }, extent };
  const pClearValues = [{ color: { float32: [...CLEAR_COLOUR] } }];
  const beginInfo = { renderPass, framebuffer, renderArea, pClearValues };
  vk.vkCmdBeginRenderPass(
    cmd,
    writeStruct(arena, "VkRenderPassBeginInfo", beginInfo),
    vkc.VK_SUBPASS_CONTENTS_INLINE,
  );
  vk.vkCmdBindPipeline(cmd, vkc.VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
  vk.vkCmdDraw(cmd, 3, 1, 0, 0);
  vk.vkCmdEndRenderPass(cmd);
  const region = writeStruct(arena, "VkBufferImageCopy", {
    imageSubresource: { aspectMask: vkc.VK_IMAGE_ASPECT_COLOR_BIT, layerCount: 1 },
    imageExtent: { ...extent, depth: 1 },
  });
  vk.vkCmdCopyImageToBuffer(cmd, image, vkc.VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buffer, 1, region);
  const toHost = writeStruct(arena, "VkBufferMemoryBarrier", {
    srcAccessMask: vkc.VK_ACCESS_TRANSFER_WRITE_BIT,
    dstAccessMask: vkc.VK_ACCESS_HOST_READ_BIT,
    srcQueueFamilyIndex: vkc.VK_QUEUE_FAMILY_IGNORED,
    dstQueueFamilyIndex: vkc.VK_QUEUE_FAMILY_IGNORED,
    buffer,
    size: vkc.VK_WHOLE_SIZE,
  });
  const [TRANSFER, HOST] = [vkc.VK_PIPELINE_STAGE_TRANSFER_BIT, vkc.VK_PIPELINE_STAGE_HOST_BIT];
  vk.vkCmdPipelineBarrier(cmd, TRANSFER, HOST, 0, 0, null, 1, toHost, 0, null);
  check(vk.vkEndCommandBuffer(cmd), "vkEndCommandBuffer");

  const fence = scope.create("vkCreateFence", [device, writeStruct(arena, "VkFenceCreateInfo"), null]);
  const submit = writeStruct(arena, "VkSubmitInfo", { pCommandBuffers: [cmd] });
  check(vk.vkQueueSubmit(queue, 1, submit, fence), "vkQueueSubmit");
  check(vk.vkWaitForFences(device, 1, arena.pointerArray([fence]), 1, vkc.VK_WHOLE_SIZE), "vkWaitForFences");
  const mapped = arena.pointer(arena.alloc(8));
  check(vk.vkMapMemory(device, bufferMemory, 0n, vkc.VK_WHOLE_SIZE, 0, mapped), "vkMapMemory");
  const rgba = new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(readPointer(mapped)!, byteSize)).slice();
  vk.vkUnmapMemory(device, bufferMemory);
  return { image: { width: size, height: size, rgba }, deviceName };
}

if (import.meta.main) {
  const outPath = Deno.args.find((a) => a.startsWith("--out="))?.slice("--out=".length) ?? "triangle.png";
  const size = Number(Deno.args.find((a) => a.startsWith("--size="))?.slice("--size=".length) ?? 256);
  if (!Number.isInteger(size) || size < 1 || size > 4096) throw new RangeError(`Invalid --size "${size}"`);
  await runExample(Deno.args, async (vk, loader) => {
    const { image, deviceName } = renderTriangle(vk, size);
    await Deno.writeFile(outPath, encodePng(image));
    console.log(`Loader: ${loader}\nDevice: ${deviceName}\nWrote ${outPath} (${size}x${size})`);
  });
}
