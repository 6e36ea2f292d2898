/**
 * `deno task demo`: doubles 1,048,576 uints in a storage buffer with a compute shader on the first Vulkan
 * device that has a compute queue, checks every value, and prints the device, driver and timings.
 *
 * Options: `--loader=vkdeno|libvulkan` (default vkdeno; libvulkan is the reference loader, for comparing).
 * Exits 1 with an install hint when no Vulkan driver is found.
 *
 * @module
 */
import { VkError } from "../ffi/errors.ts";
import { Arena } from "../ffi/memory.ts";
import {
  allocStruct,
  check,
  enumerate,
  formatApiVersion,
  makeApiVersion,
  readChain,
  readStruct,
  writeStruct,
} from "../ffi/structs.ts";
import {
  deviceTypeName,
  type ExampleCommands,
  type ExampleDeviceCommands,
  openLoader,
  outSlot,
} from "./_commands.ts";
import { DOUBLE_SPV } from "./shaders/double_spv.ts";

const VK_QUEUE_COMPUTE_BIT = 0x2;
const VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT = 0x2;
const VK_MEMORY_PROPERTY_HOST_COHERENT_BIT = 0x4;
const VK_BUFFER_USAGE_STORAGE_BUFFER_BIT = 0x20;
const VK_DESCRIPTOR_TYPE_STORAGE_BUFFER = 7;
const VK_SHADER_STAGE_COMPUTE_BIT = 0x20;
const VK_PIPELINE_BIND_POINT_COMPUTE = 1;
const VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT = 0x1;
const VK_ERROR_INCOMPATIBLE_DRIVER = -9;
const VK_ERROR_INITIALIZATION_FAILED = -3;
const VK_WHOLE_SIZE = 0xffffffffffffffffn;
const WORKGROUP_SIZE = 256; // local_size_x of examples/shaders/double.comp

/** Options of {@linkcode runCompute}. */
export interface ComputeOptions {
  /** Number of uints to double (a multiple of 256; default 1,048,576). */
  count?: number;
}

/** What {@linkcode runCompute} measured and found. */
export interface ComputeReport {
  device: { name: string; type: string; apiVersion: string; vendorID: number; deviceID: number };
  driver: { version: number; name?: string; info?: string };
  queueFamilyIndex: number;
  count: number;
  /** Values that did not come back doubled, and the first such index (-1 when all are correct). */
  wrong: number;
  firstWrong: number;
  /** Milliseconds per phase. */
  timings: Record<"instance" | "device" | "setup" | "fill" | "dispatch" | "check", number>;
}

/** No Vulkan driver or no device with a compute queue: the demo prints how to install one. */
export class NoDeviceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NoDeviceError";
  }
}

/**
 * Runs the compute demo with a loader's command object and returns what it found; destroys everything it
 * created, also on failure.
 *
 * @example On the reference loader
 * ```ts ignore
 * import { openLibvulkan } from "../tools/libvulkan.ts";
 * import { runCompute } from "./compute.ts";
 * using vk = openLibvulkan();
 * const report = runCompute(vk as never, { count: 4096 });
 * console.log(report.wrong); // 0
 * ```
 * @throws {NoDeviceError} If no driver or no device with a compute queue is found.
 * @throws {VkError} If a Vulkan command fails.
 */
export function runCompute(vk: ExampleCommands, options: ComputeOptions = {}): ComputeReport {
  const count = options.count ?? 1 << 20;
  if (!Number.isInteger(count) || count <= 0 || count % WORKGROUP_SIZE !== 0) {
    throw new RangeError(`Invalid value count "${count}": must be a positive multiple of ${WORKGROUP_SIZE}`);
  }
  using arena = new Arena();
  const cleanup: (() => void)[] = [];
  const t = { last: performance.now() };
  const lap = () => {
    const now = performance.now();
    const ms = now - t.last;
    t.last = now;
    return ms;
  };
  try {
    // Instance: the highest version both the loader and this example know, so 1.2 driver properties work.
    const loaderVersion = arena.alloc(4, 4);
    check(vk.vkEnumerateInstanceVersion(arena.pointer(loaderVersion)), "vkEnumerateInstanceVersion");
    const apiVersion = Math.min(
      new Uint32Array(loaderVersion.buffer, loaderVersion.byteOffset, 1)[0]!,
      makeApiVersion(1, 3),
    );
    const instanceSlot = outSlot(arena);
    const created = vk.vkCreateInstance(
      writeStruct(arena, "VkInstanceCreateInfo", {
        pApplicationInfo: { pApplicationName: "vkdeno compute demo", apiVersion },
      }),
      null,
      instanceSlot.pointer,
    );
    if (created === VK_ERROR_INCOMPATIBLE_DRIVER || created === VK_ERROR_INITIALIZATION_FAILED) {
      throw new NoDeviceError(
        `vkCreateInstance returned ${
          created === -9 ? "VK_ERROR_INCOMPATIBLE_DRIVER" : "VK_ERROR_INITIALIZATION_FAILED"
        }`,
      );
    }
    check(created, "vkCreateInstance");
    const instance = instanceSlot.read();
    cleanup.push(() => vk.vkDestroyInstance(instance, null));
    const instanceMs = lap();

    // First physical device with a compute queue family.
    let physicalDevice: Deno.PointerValue = null;
    let queueFamilyIndex = -1;
    for (
      const candidate of enumerate(vk.vkEnumeratePhysicalDevices, [instance], {
        name: "vkEnumeratePhysicalDevices",
      })
    ) {
      const families = enumerate(vk.vkGetPhysicalDeviceQueueFamilyProperties, [candidate], {
        struct: "VkQueueFamilyProperties",
        name: "vkGetPhysicalDeviceQueueFamilyProperties",
      });
      const index = families.findIndex((f) => ((f.queueFlags as number) & VK_QUEUE_COMPUTE_BIT) !== 0);
      if (index >= 0) {
        physicalDevice = candidate;
        queueFamilyIndex = index;
        break;
      }
    }
    if (physicalDevice === null) throw new NoDeviceError("no Vulkan device with a compute queue");

    const propsPointer = allocStruct(arena, "VkPhysicalDeviceProperties");
    vk.vkGetPhysicalDeviceProperties(physicalDevice, propsPointer);
    const props = readStruct("VkPhysicalDeviceProperties", propsPointer);
    const report: ComputeReport = {
      device: {
        name: props.deviceName as string,
        type: deviceTypeName(props.deviceType as number),
        apiVersion: formatApiVersion(props.apiVersion as number),
        vendorID: props.vendorID as number,
        deviceID: props.deviceID as number,
      },
      driver: { version: props.driverVersion as number },
      queueFamilyIndex,
      count,
      wrong: 0,
      firstWrong: -1,
      timings: { instance: instanceMs, device: 0, setup: 0, fill: 0, dispatch: 0, check: 0 },
    };
    if (apiVersion >= makeApiVersion(1, 2) && (props.apiVersion as number) >= makeApiVersion(1, 2)) {
      // Driver name and version string come through a pNext chain on vkGetPhysicalDeviceProperties2.
      const props2 = allocStruct(arena, "VkPhysicalDeviceProperties2", {
        pNext: [{ type: "VkPhysicalDeviceDriverProperties" }],
      });
      vk.vkGetPhysicalDeviceProperties2(physicalDevice, props2);
      const driver = readChain(props2)[0];
      if (driver) {
        report.driver.name = driver.driverName as string;
        report.driver.info = driver.driverInfo as string;
      }
    }

    // Device with one compute queue.
    const deviceSlot = outSlot(arena);
    check(
      vk.vkCreateDevice(
        physicalDevice,
        writeStruct(arena, "VkDeviceCreateInfo", {
          pQueueCreateInfos: [{ queueFamilyIndex, pQueuePriorities: [1] }],
        }),
        null,
        deviceSlot.pointer,
      ),
      "vkCreateDevice",
    );
    const device = deviceSlot.read();
    // Device-level calls go through the device's own table: on vkdeno, dispatch stubs straight into the
    // first layer or the driver.
    const d = (vk.deviceTable?.(device) ?? vk) as ExampleDeviceCommands;
    cleanup.push(() => d.vkDestroyDevice(device, null));
    const queueSlot = outSlot(arena);
    d.vkGetDeviceQueue(device, queueFamilyIndex, 0, queueSlot.pointer);
    const queue = queueSlot.read();
    report.timings.device = lap();

    // Storage buffer in host-visible, coherent memory.
    const byteSize = BigInt(count * 4);
    const create = <T>(
      command: string,
      call: (slot: Deno.PointerObject) => number,
      destroy?: (h: T) => void,
    ) => {
      const slot = outSlot(arena);
      check(call(slot.pointer), command);
      const handle = slot.read() as T;
      if (destroy) cleanup.push(() => destroy(handle));
      return handle;
    };
    const buffer = create<Deno.PointerValue>(
      "vkCreateBuffer",
      (slot) =>
        d.vkCreateBuffer(
          device,
          writeStruct(arena, "VkBufferCreateInfo", {
            size: byteSize,
            usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
          }),
          null,
          slot,
        ),
      (h) => d.vkDestroyBuffer(device, h, null),
    );
    const requirementsPointer = allocStruct(arena, "VkMemoryRequirements");
    d.vkGetBufferMemoryRequirements(device, buffer, requirementsPointer);
    const requirements = readStruct("VkMemoryRequirements", requirementsPointer);
    const memoryPropsPointer = allocStruct(arena, "VkPhysicalDeviceMemoryProperties");
    vk.vkGetPhysicalDeviceMemoryProperties(physicalDevice, memoryPropsPointer);
    const memoryProps = readStruct("VkPhysicalDeviceMemoryProperties", memoryPropsPointer);
    const wanted = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    const types = (memoryProps.memoryTypes as { propertyFlags: number }[]).slice(
      0,
      memoryProps.memoryTypeCount as number,
    );
    const memoryTypeIndex = types.findIndex((type, i) =>
      ((requirements.memoryTypeBits as number) & (1 << i)) !== 0 && (type.propertyFlags & wanted) === wanted
    );
    if (memoryTypeIndex < 0) {
      throw new NoDeviceError(`"${report.device.name}" has no host-visible coherent memory`);
    }
    const memory = create<Deno.PointerValue>(
      "vkAllocateMemory",
      (slot) =>
        d.vkAllocateMemory(
          device,
          writeStruct(arena, "VkMemoryAllocateInfo", { allocationSize: requirements.size, memoryTypeIndex }),
          null,
          slot,
        ),
      (h) => d.vkFreeMemory(device, h, null),
    );
    check(d.vkBindBufferMemory(device, buffer, memory, 0n), "vkBindBufferMemory");
    const mapped = create<Deno.PointerValue>(
      "vkMapMemory",
      (slot) => d.vkMapMemory(device, memory, 0n, VK_WHOLE_SIZE, 0, slot),
      () => d.vkUnmapMemory(device, memory),
    );
    if (mapped === null) {
      throw new VkError(VK_ERROR_INITIALIZATION_FAILED, "vkMapMemory returned a null pointer");
    }
    const values = new Uint32Array(Deno.UnsafePointerView.getArrayBuffer(mapped, count * 4));

    // Pipeline: one storage-buffer binding, the embedded shader.
    const shader = create<Deno.PointerValue>(
      "vkCreateShaderModule",
      (slot) =>
        d.vkCreateShaderModule(
          device,
          writeStruct(arena, "VkShaderModuleCreateInfo", { pCode: DOUBLE_SPV }),
          null,
          slot,
        ),
      (h) => d.vkDestroyShaderModule(device, h, null),
    );
    const setLayout = create<Deno.PointerValue>(
      "vkCreateDescriptorSetLayout",
      (slot) =>
        d.vkCreateDescriptorSetLayout(
          device,
          writeStruct(arena, "VkDescriptorSetLayoutCreateInfo", {
            pBindings: [{
              binding: 0,
              descriptorType: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
              descriptorCount: 1,
              stageFlags: VK_SHADER_STAGE_COMPUTE_BIT,
            }],
          }),
          null,
          slot,
        ),
      (h) => d.vkDestroyDescriptorSetLayout(device, h, null),
    );
    const pipelineLayout = create<Deno.PointerValue>(
      "vkCreatePipelineLayout",
      (slot) =>
        d.vkCreatePipelineLayout(
          device,
          writeStruct(arena, "VkPipelineLayoutCreateInfo", { pSetLayouts: [setLayout] }),
          null,
          slot,
        ),
      (h) => d.vkDestroyPipelineLayout(device, h, null),
    );
    const pipeline = create<Deno.PointerValue>(
      "vkCreateComputePipelines",
      (slot) =>
        d.vkCreateComputePipelines(
          device,
          null,
          1,
          writeStruct(arena, "VkComputePipelineCreateInfo", {
            stage: { stage: VK_SHADER_STAGE_COMPUTE_BIT, module: shader, pName: "main" },
            layout: pipelineLayout,
          }),
          null,
          slot,
        ),
      (h) => d.vkDestroyPipeline(device, h, null),
    );
    const pool = create<Deno.PointerValue>(
      "vkCreateDescriptorPool",
      (slot) =>
        d.vkCreateDescriptorPool(
          device,
          writeStruct(arena, "VkDescriptorPoolCreateInfo", {
            maxSets: 1,
            pPoolSizes: [{ type: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptorCount: 1 }],
          }),
          null,
          slot,
        ),
      (h) => d.vkDestroyDescriptorPool(device, h, null),
    );
    const descriptorSet = create<Deno.PointerValue>(
      "vkAllocateDescriptorSets",
      (slot) =>
        d.vkAllocateDescriptorSets(
          device,
          writeStruct(arena, "VkDescriptorSetAllocateInfo", {
            descriptorPool: pool,
            pSetLayouts: [setLayout],
          }),
          slot,
        ),
    );
    d.vkUpdateDescriptorSets(
      device,
      1,
      writeStruct(arena, "VkWriteDescriptorSet", {
        dstSet: descriptorSet,
        dstBinding: 0,
        descriptorType: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
        pBufferInfo: [{ buffer, offset: 0n, range: VK_WHOLE_SIZE }],
      }),
      0,
      null,
    );
    const commandPool = create<Deno.PointerValue>(
      "vkCreateCommandPool",
      (slot) =>
        d.vkCreateCommandPool(
          device,
          writeStruct(arena, "VkCommandPoolCreateInfo", { queueFamilyIndex }),
          null,
          slot,
        ),
      (h) => d.vkDestroyCommandPool(device, h, null),
    );
    const commandBuffer = create<Deno.PointerValue>(
      "vkAllocateCommandBuffers",
      (slot) =>
        d.vkAllocateCommandBuffers(
          device,
          writeStruct(arena, "VkCommandBufferAllocateInfo", { commandPool, commandBufferCount: 1 }),
          slot,
        ),
    );
    const fence = create<Deno.PointerValue>(
      "vkCreateFence",
      (slot) => d.vkCreateFence(device, writeStruct(arena, "VkFenceCreateInfo"), null, slot),
      (h) => d.vkDestroyFence(device, h, null),
    );
    check(
      d.vkBeginCommandBuffer(
        commandBuffer,
        writeStruct(arena, "VkCommandBufferBeginInfo", {
          flags: VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
        }),
      ),
      "vkBeginCommandBuffer",
    );
    d.vkCmdBindPipeline(commandBuffer, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    d.vkCmdBindDescriptorSets(
      commandBuffer,
      VK_PIPELINE_BIND_POINT_COMPUTE,
      pipelineLayout,
      0,
      1,
      arena.pointerArray([descriptorSet]),
      0,
      null,
    );
    d.vkCmdDispatch(commandBuffer, count / WORKGROUP_SIZE, 1, 1);
    check(d.vkEndCommandBuffer(commandBuffer), "vkEndCommandBuffer");
    report.timings.setup = lap();

    for (let i = 0; i < count; i++) values[i] = i;
    report.timings.fill = lap();

    check(
      d.vkQueueSubmit(
        queue,
        1,
        writeStruct(arena, "VkSubmitInfo", { pCommandBuffers: [commandBuffer] }),
        fence,
      ),
      "vkQueueSubmit",
    );
    check(d.vkWaitForFences(device, 1, arena.pointerArray([fence]), 1, VK_WHOLE_SIZE), "vkWaitForFences");
    report.timings.dispatch = lap();

    for (let i = 0; i < count; i++) {
      if (values[i] !== 2 * i) {
        if (report.wrong++ === 0) report.firstWrong = i;
      }
    }
    report.timings.check = lap();
    return report;
  } finally {
    for (const undo of cleanup.reverse()) undo();
  }
}

/** The message printed when no Vulkan driver is installed. */
export const INSTALL_HINT =
  "No Vulkan driver found. Install one, for example Mesa's CPU driver (lavapipe):\n" +
  "  sudo apt-get install mesa-vulkan-drivers";

/**
 * Formats a report as the demo prints it.
 *
 * @example Usage
 * ```ts ignore
 * console.log(formatReport(runCompute(vk)));
 * ```
 */
export function formatReport(report: ComputeReport, loader: string): string {
  const d = report.device;
  const driver = report.driver.name !== undefined
    ? `${report.driver.name} ${report.driver.info ?? ""}`.trim() + ` (driverVersion ${report.driver.version})`
    : `driverVersion ${report.driver.version}`;
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  const tm = report.timings;
  const lines = [
    `Loader:  ${loader}`,
    `Device:  ${d.name} (${d.type}, Vulkan ${d.apiVersion}, vendor 0x${d.vendorID.toString(16)}, device 0x${
      d.deviceID.toString(16)
    }), queue family ${report.queueFamilyIndex}`,
    `Driver:  ${driver}`,
    `Timings: instance ${ms(tm.instance)}, device ${ms(tm.device)}, setup ${ms(tm.setup)}, fill ${
      ms(tm.fill)
    }, ` +
    `dispatch+wait ${ms(tm.dispatch)}, check ${ms(tm.check)}`,
  ];
  if (report.wrong === 0) {
    lines.push(`Result:  all ${report.count} values correct`);
  } else {
    lines.push(
      `Result:  ${report.wrong} of ${report.count} values wrong (first at index ${report.firstWrong})`,
    );
  }
  return lines.join("\n");
}

if (import.meta.main) {
  const loaderArg = Deno.args.find((a) => a.startsWith("--loader="))?.slice("--loader=".length) ??
    "vkdeno";
  let code = 0;
  try {
    using vk = await openLoader(loaderArg);
    const report = runCompute(vk);
    console.log(formatReport(report, loaderArg));
    code = report.wrong === 0 ? 0 : 1;
  } catch (e) {
    if (e instanceof NoDeviceError) {
      console.error(`${INSTALL_HINT}\n(${e.message})`);
    } else {
      console.error(e instanceof Error ? e.message : String(e));
    }
    code = 1;
  }
  Deno.exit(code);
}
