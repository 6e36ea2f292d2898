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
import type { VulkanCommands } from "../vulkan.ts";
import { Arena, readPointer } from "../ffi/memory.ts";
import { allocStruct, check, enumerate, readStruct, writeStruct } from "../ffi/structs.ts";
import { encodePng } from "../wsi/png.ts";
import type { RgbaImage } from "../wsi/x11.ts";
import { INSTALL_HINT, loaderArg, type LoaderCommands, NoDeviceError, openLoader } from "./_loader.ts";
import { TRIANGLE_FRAG_SPV, TRIANGLE_VERT_SPV } from "./shaders/triangle_spv.ts";

/** The background, RGBA in 0..1 (0.2 is exactly 51 of 255). */
export const CLEAR_COLOUR = [0.2, 0.2, 0.2, 1] as const;

/** What {@linkcode renderTriangle} returns: the image and the device that drew it. */
export interface TriangleResult {
  image: RgbaImage;
  deviceName: string;
}

/**
 * Draws the triangle on the first device with a graphics queue and reads the image back; destroys
 * everything it created, also on failure.
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
export function renderTriangle(vk: LoaderCommands, size = 256): TriangleResult {
  using arena = new Arena();
  using cleanup = new DisposableStack();
  // Calls a vkCreate*/vkAllocate* command with a fresh output slot, checks it, returns the handle.
  const create = (name: string, call: (out: Deno.PointerObject) => number) => {
    const out = arena.pointer(arena.alloc(8));
    check(call(out), name);
    return readPointer(out);
  };
  const extent = { width: size, height: size };

  const instanceInfo = writeStruct(arena, "VkInstanceCreateInfo", {
    pApplicationInfo: { pApplicationName: "vkdeno triangle", apiVersion: 1 << 22 },
  });
  const instanceOut = arena.pointer(arena.alloc(8));
  const created = vk.vkCreateInstance(instanceInfo, null, instanceOut);
  if (created === -9 || created === -3) throw new NoDeviceError(`vkCreateInstance returned ${created}`);
  check(created, "vkCreateInstance");
  const instance = readPointer(instanceOut);
  cleanup.defer(() => vk.vkDestroyInstance(instance, null));

  // The first device with a graphics queue family.
  let gpu: Deno.PointerValue = null;
  let family = -1;
  for (const candidate of enumerate(vk.vkEnumeratePhysicalDevices, [instance])) {
    family = enumerate(vk.vkGetPhysicalDeviceQueueFamilyProperties, [candidate], {
      struct: "VkQueueFamilyProperties",
    }).findIndex((f) => ((f.queueFlags as number) & 0x1) !== 0);
    if (family >= 0) {
      gpu = candidate;
      break;
    }
  }
  if (gpu === null) throw new NoDeviceError("no Vulkan device with a graphics queue");
  const props = allocStruct(arena, "VkPhysicalDeviceProperties");
  vk.vkGetPhysicalDeviceProperties(gpu, props);
  const deviceName = readStruct("VkPhysicalDeviceProperties", props).deviceName as string;
  const memoryProps = allocStruct(arena, "VkPhysicalDeviceMemoryProperties");
  vk.vkGetPhysicalDeviceMemoryProperties(gpu, memoryProps);
  const memoryTypes = readStruct("VkPhysicalDeviceMemoryProperties", memoryProps).memoryTypes as {
    propertyFlags: number;
  }[];

  const device = create("vkCreateDevice", (out) =>
    vk.vkCreateDevice(
      gpu,
      writeStruct(arena, "VkDeviceCreateInfo", {
        pQueueCreateInfos: [{ queueFamilyIndex: family, pQueuePriorities: [1] }],
      }),
      null,
      out,
    ));
  const d = vk.deviceTable(device) as VulkanCommands;
  cleanup.defer(() => d.vkDestroyDevice(device, null));
  const queueOut = arena.pointer(arena.alloc(8));
  d.vkGetDeviceQueue(device, family, 0, queueOut);
  const queue = readPointer(queueOut);

  // Memory of a type the resource allows and with the wanted property flags, bound to it.
  const bindMemory = (
    kind: "Buffer" | "Image",
    resource: Deno.PointerValue,
    flags: number,
  ): Deno.PointerValue => {
    const reqs = allocStruct(arena, "VkMemoryRequirements");
    d[`vkGet${kind}MemoryRequirements`](device, resource, reqs);
    const { size, memoryTypeBits } = readStruct("VkMemoryRequirements", reqs);
    const memoryTypeIndex = memoryTypes.findIndex((t, i) =>
      ((memoryTypeBits as number) & (1 << i)) !== 0 && (t.propertyFlags & flags) === flags
    );
    if (memoryTypeIndex < 0) throw new NoDeviceError(`"${deviceName}" has no memory type ${flags}`);
    const memory = create("vkAllocateMemory", (out) =>
      d.vkAllocateMemory(
        device,
        writeStruct(arena, "VkMemoryAllocateInfo", { allocationSize: size, memoryTypeIndex }),
        null,
        out,
      ));
    cleanup.defer(() => d.vkFreeMemory(device, memory, null));
    check(d[`vkBind${kind}Memory`](device, resource, memory, 0n), `vkBind${kind}Memory`);
    return memory;
  };

  // The colour attachment (R8G8B8A8_UNORM, optimal tiling), and a buffer to copy it into.
  const format = 37; // VK_FORMAT_R8G8B8A8_UNORM
  const image = create("vkCreateImage", (out) =>
    d.vkCreateImage(
      device,
      writeStruct(arena, "VkImageCreateInfo", {
        imageType: 1,
        format,
        extent: { ...extent, depth: 1 },
        mipLevels: 1,
        arrayLayers: 1,
        samples: 1,
        usage: 0x10 | 0x1, // COLOR_ATTACHMENT | TRANSFER_SRC
      }),
      null,
      out,
    ));
  cleanup.defer(() => d.vkDestroyImage(device, image, null));
  bindMemory("Image", image, 0);
  const subresourceRange = { aspectMask: 1, levelCount: 1, layerCount: 1 };
  const view = create("vkCreateImageView", (out) =>
    d.vkCreateImageView(
      device,
      writeStruct(arena, "VkImageViewCreateInfo", { image, viewType: 1, format, subresourceRange }),
      null,
      out,
    ));
  cleanup.defer(() => d.vkDestroyImageView(device, view, null));
  const byteSize = size * size * 4;
  const buffer = create("vkCreateBuffer", (out) =>
    d.vkCreateBuffer(
      device,
      writeStruct(arena, "VkBufferCreateInfo", { size: BigInt(byteSize), usage: 0x2 }), // TRANSFER_DST
      null,
      out,
    ));
  cleanup.defer(() => d.vkDestroyBuffer(device, buffer, null));
  const bufferMemory = bindMemory("Buffer", buffer, 0x2 | 0x4); // HOST_VISIBLE | HOST_COHERENT

  // One subpass clearing and drawing into the attachment, left in TRANSFER_SRC_OPTIMAL; the dependency
  // makes the colour writes visible to the copy that follows the render pass.
  const renderPass = create("vkCreateRenderPass", (out) =>
    d.vkCreateRenderPass(
      device,
      writeStruct(arena, "VkRenderPassCreateInfo", {
        pAttachments: [{
          format,
          samples: 1,
          loadOp: 1, // CLEAR
          storeOp: 0, // STORE
          stencilLoadOp: 2,
          stencilStoreOp: 1,
          finalLayout: 6, // TRANSFER_SRC_OPTIMAL
        }],
        pSubpasses: [{ pColorAttachments: [{ attachment: 0, layout: 2 }] }], // COLOR_ATTACHMENT_OPTIMAL
        pDependencies: [{
          srcSubpass: 0,
          dstSubpass: 0xffffffff, // VK_SUBPASS_EXTERNAL
          srcStageMask: 0x400, // COLOR_ATTACHMENT_OUTPUT
          dstStageMask: 0x1000, // TRANSFER
          srcAccessMask: 0x100, // COLOR_ATTACHMENT_WRITE
          dstAccessMask: 0x800, // TRANSFER_READ
        }],
      }),
      null,
      out,
    ));
  cleanup.defer(() => d.vkDestroyRenderPass(device, renderPass, null));
  const framebuffer = create("vkCreateFramebuffer", (out) =>
    d.vkCreateFramebuffer(
      device,
      writeStruct(arena, "VkFramebufferCreateInfo", {
        renderPass,
        pAttachments: [view],
        ...extent,
        layers: 1,
      }),
      null,
      out,
    ));
  cleanup.defer(() => d.vkDestroyFramebuffer(device, framebuffer, null));

  // The pipeline: the embedded shaders, no vertex input, a fixed viewport, no culling or blending.
  const shader = (code: Uint32Array) => {
    const module = create(
      "vkCreateShaderModule",
      (out) =>
        d.vkCreateShaderModule(
          device,
          writeStruct(arena, "VkShaderModuleCreateInfo", { pCode: code }),
          null,
          out,
        ),
    );
    cleanup.defer(() => d.vkDestroyShaderModule(device, module, null));
    return module;
  };
  const layout = create(
    "vkCreatePipelineLayout",
    (out) => d.vkCreatePipelineLayout(device, writeStruct(arena, "VkPipelineLayoutCreateInfo"), null, out),
  );
  cleanup.defer(() => d.vkDestroyPipelineLayout(device, layout, null));
  const pipeline = create("vkCreateGraphicsPipelines", (out) =>
    d.vkCreateGraphicsPipelines(
      device,
      null,
      1,
      writeStruct(arena, "VkGraphicsPipelineCreateInfo", {
        pStages: [
          { stage: 0x1, module: shader(TRIANGLE_VERT_SPV), pName: "main" }, // VERTEX
          { stage: 0x10, module: shader(TRIANGLE_FRAG_SPV), pName: "main" }, // FRAGMENT
        ],
        pVertexInputState: {},
        pInputAssemblyState: { topology: 3 }, // TRIANGLE_LIST
        pViewportState: {
          pViewports: [{ x: 0, y: 0, width: size, height: size, minDepth: 0, maxDepth: 1 }],
          pScissors: [{ offset: { x: 0, y: 0 }, extent }],
        },
        pRasterizationState: { lineWidth: 1 },
        pMultisampleState: { rasterizationSamples: 1 },
        pColorBlendState: { pAttachments: [{ colorWriteMask: 0xf }] },
        layout,
        renderPass,
      }),
      null,
      out,
    ));
  cleanup.defer(() => d.vkDestroyPipeline(device, pipeline, null));

  // Record: clear and draw, copy the image into the buffer, make the copy visible to the host.
  const pool = create("vkCreateCommandPool", (out) =>
    d.vkCreateCommandPool(
      device,
      writeStruct(arena, "VkCommandPoolCreateInfo", { queueFamilyIndex: family }),
      null,
      out,
    ));
  cleanup.defer(() => d.vkDestroyCommandPool(device, pool, null));
  const cmd = create("vkAllocateCommandBuffers", (out) =>
    d.vkAllocateCommandBuffers(
      device,
      writeStruct(arena, "VkCommandBufferAllocateInfo", { commandPool: pool, commandBufferCount: 1 }),
      out,
    ));
  check(d.vkBeginCommandBuffer(cmd, writeStruct(arena, "VkCommandBufferBeginInfo")), "vkBeginCommandBuffer");
  d.vkCmdBeginRenderPass(
    cmd,
    writeStruct(arena, "VkRenderPassBeginInfo", {
      renderPass,
      framebuffer,
      renderArea: { offset: { x: 0, y: 0 }, extent },
      pClearValues: [{ color: { float32: [...CLEAR_COLOUR] } }],
    }),
    0, // VK_SUBPASS_CONTENTS_INLINE
  );
  d.vkCmdBindPipeline(cmd, 0, pipeline); // GRAPHICS
  d.vkCmdDraw(cmd, 3, 1, 0, 0);
  d.vkCmdEndRenderPass(cmd);
  d.vkCmdCopyImageToBuffer(
    cmd,
    image,
    6, // TRANSFER_SRC_OPTIMAL
    buffer,
    1,
    writeStruct(arena, "VkBufferImageCopy", {
      imageSubresource: { aspectMask: 1, layerCount: 1 },
      imageExtent: { ...extent, depth: 1 },
    }),
  );
  d.vkCmdPipelineBarrier(
    cmd,
    0x1000, // TRANSFER
    0x4000, // HOST
    0,
    0,
    null,
    1,
    writeStruct(arena, "VkBufferMemoryBarrier", {
      srcAccessMask: 0x1000, // TRANSFER_WRITE
      dstAccessMask: 0x2000, // HOST_READ
      srcQueueFamilyIndex: 0xffffffff, // VK_QUEUE_FAMILY_IGNORED
      dstQueueFamilyIndex: 0xffffffff,
      buffer,
      size: 0xffffffffffffffffn, // VK_WHOLE_SIZE
    }),
    0,
    null,
  );
  check(d.vkEndCommandBuffer(cmd), "vkEndCommandBuffer");

  const fence = create(
    "vkCreateFence",
    (out) => d.vkCreateFence(device, writeStruct(arena, "VkFenceCreateInfo"), null, out),
  );
  cleanup.defer(() => d.vkDestroyFence(device, fence, null));
  check(
    d.vkQueueSubmit(queue, 1, writeStruct(arena, "VkSubmitInfo", { pCommandBuffers: [cmd] }), fence),
    "vkQueueSubmit",
  );
  check(d.vkWaitForFences(device, 1, arena.pointerArray([fence]), 1, 0xffffffffffffffffn), "vkWaitForFences");

  const mapped = create(
    "vkMapMemory",
    (out) => d.vkMapMemory(device, bufferMemory, 0n, BigInt(byteSize), 0, out),
  );
  const rgba = new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(mapped!, byteSize)).slice();
  d.vkUnmapMemory(device, bufferMemory);
  return { image: { width: size, height: size, rgba }, deviceName };
}

if (import.meta.main) {
  const loader = loaderArg(Deno.args);
  const outPath = Deno.args.find((a) => a.startsWith("--out="))?.slice(6) ?? "triangle.png";
  const size = Number(Deno.args.find((a) => a.startsWith("--size="))?.slice(7) ?? 256);
  try {
    using vk = await openLoader(loader);
    const { image, deviceName } = renderTriangle(vk, size);
    await Deno.writeFile(outPath, encodePng(image));
    console.log(`Loader: ${loader}\nDevice: ${deviceName}\nWrote ${outPath} (${size}x${size})`);
  } catch (e) {
    console.error(e instanceof NoDeviceError ? `${INSTALL_HINT}\n(${e.message})` : String(e));
    Deno.exit(1);
  }
}
