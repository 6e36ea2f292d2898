/**
 * `deno task demo`: doubles 1,048,576 uints with a compute shader on the first device with a compute queue,
 * checks them, prints device, driver and timings. `--loader=vkdeno|libvulkan` (default vkdeno) picks the
 * loader; no driver: an install hint and exit 1.
 *
 * @module
 */
import * as vkc from "../mod.ts";
import { VkApi, type VkCommandSource } from "../mod.ts";
import { createInstance, describeDevice, findDevice, memoryTypeIndex } from "./_helpers.ts";
import type { DeviceDescription } from "./_helpers.ts";
import { NoDeviceError, runExample } from "./_loader.ts";
import { DOUBLE_SPV } from "./shaders/double_spv.ts";

const WORKGROUP_SIZE = 256; // local_size_x of examples/shaders/double.comp

/** What {@linkcode runCompute} found: values not doubled (the first at `firstWrong`), ms per phase. */
export interface ComputeReport {
  device: DeviceDescription;
  queueFamilyIndex: number;
  count: number;
  wrong: number;
  firstWrong: number;
  timings: Record<"instance" | "device" | "setup" | "fill" | "dispatch" | "check", number>;
}

/**
 * Runs the demo over a loader's commands (`count`: a multiple of 256); destroys all it made, also on a throw.
 *
 * @example On the reference loader
 * ```ts ignore
 * console.log(runCompute(openLibvulkan(), { count: 4096 }).wrong); // 0
 * ```
 * @throws {NoDeviceError} If no driver or no device with a compute queue is found.
 */
export function runCompute(raw: VkCommandSource, { count = 1 << 20 } = {}): ComputeReport {
  if (!(count > 0 && count % WORKGROUP_SIZE === 0)) throw new RangeError(`Invalid value count "${count}"`);
  using vk = VkApi.of(raw).scope(); // destroys what it creates, last first, also on a throw
  let last = performance.now();
  const lap = () => -last + (last = performance.now());
  const apiVersion = Math.min(vk.enumerateInstanceVersion(), vkc.VK_API_VERSION_1_3);
  const pApplicationInfo = { pApplicationName: "vkdeno compute demo", apiVersion };
  const instance = createInstance(vk, { pApplicationInfo });
  const instanceMs = lap();
  const [gpu, queueFamilyIndex] = findDevice(vk, instance, vkc.VK_QUEUE_COMPUTE_BIT);
  const device = describeDevice(vk, gpu, apiVersion);
  const timings = { instance: instanceMs, device: 0, setup: 0, fill: 0, dispatch: 0, check: 0 };
  const report: ComputeReport = { device, queueFamilyIndex, count, wrong: 0, firstWrong: -1, timings };

  // A device with one compute queue. Device-level commands on vkdeno are native dispatch stubs.
  const dev = vk.createDevice(gpu, { pQueueCreateInfos: [{ queueFamilyIndex, pQueuePriorities: [1] }] });
  const queue = vk.getDeviceQueue(dev, queueFamilyIndex, 0);
  timings.device = lap();
  // The storage buffer, in host-visible coherent memory, mapped for the whole run.
  const buffer = vk.createBuffer(dev, {
    size: BigInt(count * 4),
    usage: vkc.VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
  });
  const { size: allocationSize, memoryTypeBits } = vk.getBufferMemoryRequirements(dev, buffer);
  const flags = vkc.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | vkc.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  const memoryType = memoryTypeIndex(vk, gpu, memoryTypeBits, flags);
  if (memoryType < 0) throw new NoDeviceError(`"${device.name}" has no host-visible coherent memory`);
  const memory = vk.allocateMemory(dev, { allocationSize, memoryTypeIndex: memoryType });
  vk.bindBufferMemory(dev, buffer, memory, 0n);
  const values = new Uint32Array(vk.mapMemory(dev, memory, 0n, vkc.VK_WHOLE_SIZE), 0, count);
  // The pipeline: the embedded shader with one storage buffer, and a descriptor set pointing at the buffer.
  const STORAGE = vkc.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, COMPUTE = vkc.VK_SHADER_STAGE_COMPUTE_BIT;
  const module = vk.createShaderModule(dev, { pCode: DOUBLE_SPV });
  const binding = { binding: 0, descriptorType: STORAGE, descriptorCount: 1, stageFlags: COMPUTE };
  const setLayout = vk.createDescriptorSetLayout(dev, { pBindings: [binding] });
  const layout = vk.createPipelineLayout(dev, { pSetLayouts: [setLayout] });
  const stage = { stage: COMPUTE, module, pName: "main" };
  const { pipelines: [pipeline] } = vk.createComputePipelines(dev, null, [{ stage, layout }]);
  const pPoolSizes = [{ type: STORAGE, descriptorCount: 1 }];
  const descriptorPool = vk.createDescriptorPool(dev, { maxSets: 1, pPoolSizes });
  const [set] = vk.allocateDescriptorSets(dev, { descriptorPool, pSetLayouts: [setLayout] });
  const pBufferInfo = [{ buffer, offset: 0n, range: vkc.VK_WHOLE_SIZE }];
  vk.updateDescriptorSets(dev, [{ dstSet: set, dstBinding: 0, descriptorType: STORAGE, pBufferInfo }]);
  // One command buffer: bind, dispatch one invocation per value; a fence to wait on.
  const commandPool = vk.createCommandPool(dev, { queueFamilyIndex });
  const [cmd] = vk.allocateCommandBuffers(dev, { commandPool, commandBufferCount: 1 });
  const fence = vk.createFence(dev, {});
  vk.beginCommandBuffer(cmd, { flags: vkc.VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT });
  vk.cmdBindPipeline(cmd, vkc.VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  vk.cmdBindDescriptorSets(cmd, vkc.VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, [set]);
  vk.cmdDispatch(cmd, count / WORKGROUP_SIZE, 1, 1);
  vk.endCommandBuffer(cmd);
  timings.setup = lap();
  for (let i = 0; i < count; i++) values[i] = i;
  timings.fill = lap();
  vk.queueSubmit(queue, [{ pCommandBuffers: [cmd] }], fence);
  vk.waitForFences(dev, [fence], true, vkc.VK_WHOLE_SIZE);
  timings.dispatch = lap();
  for (let i = 0; i < count; i++) if (values[i] !== 2 * i && report.wrong++ === 0) report.firstWrong = i;
  timings.check = lap();
  return report;
}

/** Formats a report as the demo prints it. */
export function formatReport({ device: d, timings: t, ...r }: ComputeReport, loader: string): string {
  const named = d.driver.name === undefined ? "" : `${d.driver.name} ${d.driver.info ?? ""}`.trim() + ", ";
  const ms = (phase: keyof typeof t) => `${phase} ${t[phase].toFixed(1)} ms`;
  return [
    `Loader:  ${loader}`,
    `Device:  ${d.name} (${d.type}, Vulkan ${d.apiVersion}, vendor 0x${d.vendorID.toString(16)}, ` +
    `device 0x${d.deviceID.toString(16)}), queue family ${r.queueFamilyIndex}`,
    `Driver:  ${named}driverVersion ${d.driver.version}`,
    `Timings: ${ms("instance")}, ${ms("device")}, ${ms("setup")}, ${ms("fill")}, ` +
    `dispatch+wait ${t.dispatch.toFixed(1)} ms, ${ms("check")}`,
    `Result:  ${r.wrong === 0 ? "all" : `${r.wrong} of`} ${r.count} values ${r.wrong ? "wrong" : "correct"}` +
    (r.wrong ? ` (first at index ${r.firstWrong})` : ""),
  ].join("\n");
}
if (import.meta.main) {
  await runExample(Deno.args, (raw, loader) => {
    const report = runCompute(raw);
    console.log(formatReport(report, loader));
    if (report.wrong !== 0) Deno.exitCode = 1;
  });
}
