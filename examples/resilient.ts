/**
 * Application code that copes with the GPUs it meets: a ray-tracing GPU when there is one, else any device
 * with a compute queue; memory from another type when one runs out; a new device when the device is lost.
 * `examples/resilient_test.ts` tests it on mock drivers, profiles and injected faults (no GPU needed).
 *
 * @module
 */
import {
  VK_API_VERSION_1_1,
  VK_API_VERSION_1_3,
  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
  VK_ERROR_DEVICE_LOST,
  VK_ERROR_OUT_OF_DEVICE_MEMORY,
  VK_ERROR_OUT_OF_HOST_MEMORY,
  VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
  VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU,
  VK_QUEUE_COMPUTE_BIT,
  VkApi,
  VkError,
} from "../mod.ts";
import type { VkCommandSource, VkDevice, VkDeviceMemory, VkInstance, VkPhysicalDevice } from "../mod.ts";

/** The device {@linkcode chooseDevice} picked, and why. */
export interface ChosenDevice {
  readonly gpu: VkPhysicalDevice;
  readonly name: string;
  /** The device's Vulkan version. */
  readonly apiVersion: number;
  /** A queue family with compute. */
  readonly queueFamily: number;
  /** True when it has `VK_KHR_ray_tracing_pipeline` with the `rayTracingPipeline` feature. */
  readonly rayTracing: boolean;
}

const RAY_TRACING = "VK_KHR_ray_tracing_pipeline";

/**
 * Picks a device: a discrete GPU with ray tracing first, then any device with ray tracing, then the first
 * device with a compute queue (the fallback). Feature queries go through `vkGetPhysicalDeviceFeatures2`
 * only where the device and instance have Vulkan 1.1.
 *
 * @throws {Error} If no device has a compute queue.
 */
export function chooseDevice(vk: VkApi, instance: VkInstance, instanceVersion: number): ChosenDevice {
  const candidates: ChosenDevice[] = [];
  const discrete = new Set<ChosenDevice>();
  for (const gpu of vk.enumeratePhysicalDevices(instance)) {
    const props = vk.getPhysicalDeviceProperties(gpu);
    const queueFamily = vk.getPhysicalDeviceQueueFamilyProperties(gpu)
      .findIndex((f) => (f.queueFlags & VK_QUEUE_COMPUTE_BIT) !== 0);
    if (queueFamily < 0) continue;
    const extensions = vk.enumerateDeviceExtensionProperties(gpu).map((e) => e.extensionName);
    let rayTracing = false;
    if (
      extensions.includes(RAY_TRACING) && Math.min(props.apiVersion, instanceVersion) >= VK_API_VERSION_1_1
    ) {
      const { chain } = vk.getPhysicalDeviceFeatures2(gpu, ["VkPhysicalDeviceRayTracingPipelineFeaturesKHR"]);
      rayTracing = chain.VkPhysicalDeviceRayTracingPipelineFeaturesKHR.rayTracingPipeline !== 0;
    }
    const chosen = { gpu, name: props.deviceName, apiVersion: props.apiVersion, queueFamily, rayTracing };
    candidates.push(chosen);
    if (props.deviceType === VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU) discrete.add(chosen);
  }
  const best = candidates.find((c) => c.rayTracing && discrete.has(c)) ??
    candidates.find((c) => c.rayTracing) ??
    candidates[0];
  if (!best) throw new Error("No Vulkan device with a compute queue");
  return best;
}

/**
 * Allocates `size` bytes for a resource whose requirements allow `typeBits`: the memory types with every
 * bit of `preferred` first, then the others allowed; a type whose heap is out of memory
 * (`VK_ERROR_OUT_OF_DEVICE_MEMORY` or `VK_ERROR_OUT_OF_HOST_MEMORY`) is skipped for the next one. `vk` is a
 * scope: the memory is freed when it ends.
 *
 * @returns The memory and the type it came from.
 * @throws {VkError} The last out-of-memory error when every type failed, or any other error at once.
 */
export function allocateWithRetry(
  vk: VkApi,
  gpu: VkPhysicalDevice,
  device: VkDevice,
  size: bigint,
  typeBits: number,
  preferred: number = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
): { memory: VkDeviceMemory; memoryTypeIndex: number } {
  const { memoryTypes, memoryTypeCount } = vk.getPhysicalDeviceMemoryProperties(gpu);
  const allowed = memoryTypes.map((t, i) => ({ flags: t.propertyFlags, i }))
    .filter(({ i }) => i < memoryTypeCount && (typeBits & (1 << i)) !== 0);
  const order = [
    ...allowed.filter((t) => (t.flags & preferred) === preferred),
    ...allowed.filter((t) => (t.flags & preferred) !== preferred),
  ];
  let lastError: VkError | undefined;
  for (const { i } of order) {
    try {
      return {
        memory: vk.allocateMemory(device, { allocationSize: size, memoryTypeIndex: i }),
        memoryTypeIndex: i,
      };
    } catch (error) {
      const outOfMemory = error instanceof VkError &&
        (error.code === VK_ERROR_OUT_OF_DEVICE_MEMORY || error.code === VK_ERROR_OUT_OF_HOST_MEMORY);
      if (!outOfMemory) throw error;
      lastError = error;
    }
  }
  throw lastError ?? new Error(`No memory type allows typeBits 0x${typeBits.toString(16)}`);
}

/** What {@linkcode runJob} did. */
export interface JobReport {
  /** The device it ran on. */
  readonly device: string;
  /** Whether the ray-tracing path was taken. */
  readonly rayTracing: boolean;
  /** Device creations: 1, plus one per device loss recovered from. */
  readonly attempts: number;
  /** The memory type of the job's buffer. */
  readonly memoryTypeIndex: number;
  /** The words the job read back from its buffer. */
  readonly result: number[];
}

/** Options of {@linkcode runJob}. */
export interface JobOptions {
  /** The buffer's size in bytes (default 1 MiB). */
  readonly bufferSize?: number;
  /** Device creations before giving up on device loss (default 3). */
  readonly maxAttempts?: number;
}

/**
 * A job as an application runs it: instance, the chosen device, a host-visible buffer filled through a
 * mapping, one submission waited on by a fence. When the device is lost (`VK_ERROR_DEVICE_LOST` from the
 * submission or the wait), everything of that device is destroyed and the job starts again on a new one.
 *
 * @throws {VkError} On any other failure, or device loss after `maxAttempts`.
 */
export function runJob(raw: VkCommandSource, options: JobOptions = {}): JobReport {
  const size = options.bufferSize ?? 1 << 20;
  const maxAttempts = options.maxAttempts ?? 3;
  using vk = VkApi.of(raw).scope(); // destroys what it creates, last first, also on a throw
  const apiVersion = Math.min(vk.enumerateInstanceVersion(), VK_API_VERSION_1_3);
  const instance = vk.createInstance({ pApplicationInfo: { pApplicationName: "resilient job", apiVersion } });
  const chosen = chooseDevice(vk, instance, apiVersion);
  for (let attempt = 1;; attempt++) {
    try {
      const run = runOnDevice(vk, chosen, size);
      return { device: chosen.name, rayTracing: chosen.rayTracing, attempts: attempt, ...run };
    } catch (error) {
      if (!(error instanceof VkError && error.code === VK_ERROR_DEVICE_LOST) || attempt >= maxAttempts) {
        throw error;
      }
    }
  }
}

function runOnDevice(parent: VkApi, chosen: ChosenDevice, size: number) {
  using vk = parent.scope(); // this device and its objects, destroyed also when the device was lost
  const queueFamilyIndex = chosen.queueFamily;
  const device = vk.createDevice(chosen.gpu, {
    pQueueCreateInfos: [{ queueFamilyIndex, pQueuePriorities: [1] }],
  });
  const queue = vk.getDeviceQueue(device, queueFamilyIndex, 0);
  const buffer = vk.createBuffer(device, { size: BigInt(size), usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT });
  const { size: allocationSize, memoryTypeBits } = vk.getBufferMemoryRequirements(device, buffer);
  const { memory, memoryTypeIndex } = allocateWithRetry(
    vk,
    chosen.gpu,
    device,
    allocationSize,
    memoryTypeBits,
    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
  );
  vk.bindBufferMemory(device, buffer, memory, 0n);
  const words = new Uint32Array(vk.mapMemory(device, memory, 0n, BigInt(size)));
  vk.defer(() => vk.unmapMemory(device, memory));
  words.set([1, 2, 3, 4]);
  const commandPool = vk.createCommandPool(device, { queueFamilyIndex });
  const [cmd] = vk.allocateCommandBuffers(device, { commandPool, commandBufferCount: 1 });
  vk.beginCommandBuffer(cmd, {});
  vk.cmdFillBuffer(cmd, buffer, 16n, 16n, 7);
  vk.endCommandBuffer(cmd);
  const fence = vk.createFence(device, {});
  vk.queueSubmit(queue, [{ pCommandBuffers: [cmd] }], fence);
  if (vk.waitForFences(device, [fence], true, 1_000_000_000n) === "VK_TIMEOUT") {
    throw new Error("The job's fence was not signalled within a second");
  }
  return { memoryTypeIndex, result: [...words.subarray(0, 4)] };
}

if (import.meta.main) {
  const { Vulkan } = await import("../mod.ts");
  using vk = Vulkan.load();
  console.log(runJob(vk));
}
