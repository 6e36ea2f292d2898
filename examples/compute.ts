/**
 * `deno task demo`: doubles 1,048,576 uints in a storage buffer with a compute shader on the first Vulkan
 * device that has a compute queue, checks every value, and prints the device, driver and timings.
 *
 * Options: `--loader=vkdeno|libvulkan` (default vkdeno; libvulkan is the reference loader, for comparing).
 * Exits 1 with an install hint when no Vulkan driver is found.
 *
 * @module
 */
import * as vkc from "../mod.ts";
import { allocStruct, check, readPointer, readStruct, VkScope, writeStruct } from "../mod.ts";
import type { VulkanCommands } from "../mod.ts";
import { createInstance, describeDevice, findDevice, memoryTypeIndex } from "./_helpers.ts";
import type { DeviceDescription } from "./_helpers.ts";
import { INSTALL_HINT, NoDeviceError, runExample } from "./_loader.ts";
import { DOUBLE_SPV } from "./shaders/double_spv.ts";

export { INSTALL_HINT, NoDeviceError };

const WORKGROUP_SIZE = 256; // local_size_x of examples/shaders/double.comp

/** Options of {@linkcode runCompute}. */
export interface ComputeOptions {
  /** Number of uints to double (a multiple of 256; default 1,048,576). */
  count?: number;
}

/** What {@linkcode runCompute} measured and found. */
export interface ComputeReport {
  /** The device and its driver. */
  device: DeviceDescription;
  queueFamilyIndex: number;
  count: number;
  /** Values that did not come back doubled, and the first such index (-1 when all are correct). */
  wrong: number;
  firstWrong: number;
  /** Milliseconds per phase. */
  timings: Record<"instance" | "device" | "setup" | "fill" | "dispatch" | "check", number>;
}

/**
 * Runs the compute demo with a loader's command object and returns what it found; destroys everything it
 * created, also on failure.
 *
 * @example On the reference loader
 * ```ts ignore
 * import { openLibvulkan } from "../tests/support/libvulkan.ts";
 * import { runCompute } from "./compute.ts";
 * using vk = openLibvulkan();
 * console.log(runCompute(vk, { count: 4096 }).wrong); // 0
 * ```
 * @throws {NoDeviceError} If no driver or no device with a compute queue is found.
 * @throws {VkError} If a Vulkan command fails.
 */
export function runCompute(vk: VulkanCommands, options: ComputeOptions = {}): ComputeReport {
  const count = options.count ?? 1 << 20;
  if (!Number.isInteger(count) || count <= 0 || count % WORKGROUP_SIZE !== 0) {
    throw new RangeError(`Invalid value count "${count}": must be a positive multiple of ${WORKGROUP_SIZE}`);
  }
  using scope = new VkScope(vk); // destroys what it created in reverse order, also on a throw
  const arena = scope.arena;
  let last = performance.now();
  const lap = () => -last + (last = performance.now());

  // Vulkan 1.3 at most, 1.2 at least when the loader has it, so the driver's name can be asked for.
  const version = new Uint32Array(new ArrayBuffer(4));
  check(vk.vkEnumerateInstanceVersion(Deno.UnsafePointer.of(version)), "vkEnumerateInstanceVersion");
  const apiVersion = Math.min(version[0]!, vkc.VK_API_VERSION_1_3);
  const pApplicationInfo = { pApplicationName: "vkdeno compute demo", apiVersion };
  const instance = createInstance(scope, writeStruct(arena, "VkInstanceCreateInfo", { pApplicationInfo }));
  const instanceMs = lap();

  // The first physical device with a compute queue family.
  const [gpu, queueFamilyIndex] = findDevice(vk, instance, vkc.VK_QUEUE_COMPUTE_BIT);
  const report: ComputeReport = {
    device: describeDevice(vk, gpu, apiVersion),
    queueFamilyIndex,
    count,
    wrong: 0,
    firstWrong: -1,
    timings: { instance: instanceMs, device: 0, setup: 0, fill: 0, dispatch: 0, check: 0 },
  };

  // A device with one compute queue. Device-level commands on `vk` are native dispatch stubs on vkdeno.
  const pQueueCreateInfos = [{ queueFamilyIndex, pQueuePriorities: [1] }];
  const deviceInfo = writeStruct(arena, "VkDeviceCreateInfo", { pQueueCreateInfos });
  const device = scope.create("vkCreateDevice", [gpu, deviceInfo, null]);
  const queue = scope.create("vkGetDeviceQueue", [device, queueFamilyIndex, 0]); // queues have no destroy
  report.timings.device = lap();

  // The storage buffer, in host-visible coherent memory, mapped for the whole run.
  const usage = vkc.VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  const bufferInfo = writeStruct(arena, "VkBufferCreateInfo", { size: BigInt(count * 4), usage });
  const buffer = scope.create("vkCreateBuffer", [device, bufferInfo, null]);
  const reqs = allocStruct(arena, "VkMemoryRequirements");
  vk.vkGetBufferMemoryRequirements(device, buffer, reqs);
  const { size: allocationSize, memoryTypeBits } = readStruct("VkMemoryRequirements", reqs);
  const flags = vkc.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | vkc.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  const type = memoryTypeIndex(vk, gpu, memoryTypeBits, flags);
  if (type < 0) throw new NoDeviceError(`"${report.device.name}" has no host-visible coherent memory`);
  const allocInfo = writeStruct(arena, "VkMemoryAllocateInfo", { allocationSize, memoryTypeIndex: type });
  const memory = scope.create("vkAllocateMemory", [device, allocInfo, null]);
  check(vk.vkBindBufferMemory(device, buffer, memory, 0n), "vkBindBufferMemory");
  const mappedOut = arena.pointer(arena.alloc(8));
  check(vk.vkMapMemory(device, memory, 0n, vkc.VK_WHOLE_SIZE, 0, mappedOut), "vkMapMemory");
  scope.defer(() => vk.vkUnmapMemory(device, memory));
  const values = new Uint32Array(Deno.UnsafePointerView.getArrayBuffer(readPointer(mappedOut)!, count * 4));

  // The pipeline: the embedded shader with one storage-buffer binding, and a descriptor set pointing at it.
  const STORAGE = vkc.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, COMPUTE = vkc.VK_SHADER_STAGE_COMPUTE_BIT;
  const shaderInfo = writeStruct(arena, "VkShaderModuleCreateInfo", { pCode: DOUBLE_SPV });
  const shader = scope.create("vkCreateShaderModule", [device, shaderInfo, null]);
  const pBindings = [{ binding: 0, descriptorType: STORAGE, descriptorCount: 1, stageFlags: COMPUTE }];
  const setInfo = writeStruct(arena, "VkDescriptorSetLayoutCreateInfo", { pBindings });
  const setLayout = scope.create("vkCreateDescriptorSetLayout", [device, setInfo, null]);
  const pSetLayouts = [setLayout];
  const layoutInfo = writeStruct(arena, "VkPipelineLayoutCreateInfo", { pSetLayouts });
  const layout = scope.create("vkCreatePipelineLayout", [device, layoutInfo, null]);
  const stage = { stage: COMPUTE, module: shader, pName: "main" };
  const pipelineInfo = writeStruct(arena, "VkComputePipelineCreateInfo", { stage, layout });
  const pipeline = scope.createMany("vkCreateComputePipelines", [device, null, 1, pipelineInfo, null], 1)[0]!;
  const pPoolSizes = [{ type: STORAGE, descriptorCount: 1 }];
  const poolInfo = writeStruct(arena, "VkDescriptorPoolCreateInfo", { maxSets: 1, pPoolSizes });
  const descriptorPool = scope.create("vkCreateDescriptorPool", [device, poolInfo, null]);
  const setAlloc = writeStruct(arena, "VkDescriptorSetAllocateInfo", { descriptorPool, pSetLayouts });
  const set = scope.createMany("vkAllocateDescriptorSets", [device, setAlloc], 1)[0]!;
  const pBufferInfo = [{ buffer, offset: 0n, range: vkc.VK_WHOLE_SIZE }];
  const write = { dstSet: set, dstBinding: 0, descriptorType: STORAGE, pBufferInfo };
  vk.vkUpdateDescriptorSets(device, 1, writeStruct(arena, "VkWriteDescriptorSet", write), 0, null);

  // One command buffer: bind, dispatch one invocation per value; a fence to wait on.
  const poolCreate = writeStruct(arena, "VkCommandPoolCreateInfo", { queueFamilyIndex });
  const commandPool = scope.create("vkCreateCommandPool", [device, poolCreate, null]);
  const cmdInfo = writeStruct(arena, "VkCommandBufferAllocateInfo", { commandPool, commandBufferCount: 1 });
  const cmd = scope.createMany("vkAllocateCommandBuffers", [device, cmdInfo], 1)[0]!;
  const fence = scope.create("vkCreateFence", [device, writeStruct(arena, "VkFenceCreateInfo"), null]);
  const once = { flags: vkc.VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT };
  const beginInfo = writeStruct(arena, "VkCommandBufferBeginInfo", once);
  check(vk.vkBeginCommandBuffer(cmd, beginInfo), "vkBeginCommandBuffer");
  vk.vkCmdBindPipeline(cmd, vkc.VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  const sets = arena.pointerArray([set]);
  vk.vkCmdBindDescriptorSets(cmd, vkc.VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, sets, 0, null);
  vk.vkCmdDispatch(cmd, count / WORKGROUP_SIZE, 1, 1);
  check(vk.vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
  report.timings.setup = lap();

  for (let i = 0; i < count; i++) values[i] = i;
  report.timings.fill = lap();
  const submit = writeStruct(arena, "VkSubmitInfo", { pCommandBuffers: [cmd] });
  check(vk.vkQueueSubmit(queue, 1, submit, fence), "vkQueueSubmit");
  check(vk.vkWaitForFences(device, 1, arena.pointerArray([fence]), 1, vkc.VK_WHOLE_SIZE), "vkWaitForFences");
  report.timings.dispatch = lap();
  for (let i = 0; i < count; i++) {
    if (values[i] !== 2 * i && report.wrong++ === 0) report.firstWrong = i;
  }
  report.timings.check = lap();
  return report;
}

/**
 * Formats a report as the demo prints it.
 *
 * @example Usage
 * ```ts ignore
 * console.log(formatReport(runCompute(vk), "vkdeno"));
 * ```
 */
export function formatReport(report: ComputeReport, loader: string): string {
  const { device: d, timings: t, device: { driver } } = report;
  const named = driver.name === undefined ? "" : `${driver.name} ${driver.info ?? ""}`.trim() + ", ";
  const ms = (phase: keyof typeof t) => `${t[phase].toFixed(1)} ms`;
  return [
    `Loader:  ${loader}`,
    `Device:  ${d.name} (${d.type}, Vulkan ${d.apiVersion}, vendor 0x${d.vendorID.toString(16)}, ` +
    `device 0x${d.deviceID.toString(16)}), queue family ${report.queueFamilyIndex}`,
    `Driver:  ${named}driverVersion ${driver.version}`,
    `Timings: instance ${ms("instance")}, device ${ms("device")}, setup ${ms("setup")}, ` +
    `fill ${ms("fill")}, dispatch+wait ${ms("dispatch")}, check ${ms("check")}`,
    report.wrong === 0
      ? `Result:  all ${report.count} values correct`
      : `Result:  ${report.wrong} of ${report.count} values wrong (first at index ${report.firstWrong})`,
  ].join("\n");
}

if (import.meta.main) {
  await runExample(Deno.args, (vk, loader) => {
    const report = runCompute(vk);
    console.log(formatReport(report, loader));
    if (report.wrong !== 0) Deno.exitCode = 1;
  });
}
