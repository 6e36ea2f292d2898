/**
 * Application code that copes with the GPUs it meets: it picks a ray-tracing GPU when there is one and
 * falls back to any device with a compute queue, allocates memory with a retry in other memory types when
 * one runs out, and rebuilds its device when the device is lost. `examples/resilient_test.ts` tests it on
 * mock drivers, device profiles and injected faults; run it on the real drivers with
 * `deno run --allow-read --allow-env --allow-ffi examples/resilient.ts`.
 *
 * @module
 */
import {
  allocStruct,
  check,
  enumerate,
  readPointer,
  readStruct,
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
  VkError,
  VkScope,
  writeStruct,
} from "../mod.ts";
import type { VkDevice, VkDeviceMemory, VkInstance, VkPhysicalDevice, VulkanCommands } from "../mod.ts";

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
export function chooseDevice(
  vk: VulkanCommands,
  instance: VkInstance,
  instanceVersion: number,
): ChosenDevice {
  const candidates: ChosenDevice[] = [];
  const discrete = new Set<ChosenDevice>();
  using scope = new VkScope(vk);
  const arena = scope.arena;
  for (const gpu of enumerate(vk.vkEnumeratePhysicalDevices, [instance])) {
    const out = allocStruct(arena, "VkPhysicalDeviceProperties");
    vk.vkGetPhysicalDeviceProperties(gpu, out);
    const props = readStruct("VkPhysicalDeviceProperties", out);
    const families = enumerate(vk.vkGetPhysicalDeviceQueueFamilyProperties, [gpu], {
      struct: "VkQueueFamilyProperties",
    });
    const queueFamily = families.findIndex((f) => (f.queueFlags & VK_QUEUE_COMPUTE_BIT) !== 0);
    if (queueFamily < 0) continue;
    const extensions = enumerate(vk.vkEnumerateDeviceExtensionProperties, [gpu, null], {
      struct: "VkExtensionProperties",
    }).map((e) => e.extensionName);
    let rayTracing = false;
    if (
      extensions.includes(RAY_TRACING) && Math.min(props.apiVersion, instanceVersion) >= VK_API_VERSION_1_1
    ) {
      const rt = allocStruct(arena, "VkPhysicalDeviceRayTracingPipelineFeaturesKHR");
      vk.vkGetPhysicalDeviceFeatures2(gpu, allocStruct(arena, "VkPhysicalDeviceFeatures2", { pNext: rt }));
      rayTracing = readStruct("VkPhysicalDeviceRayTracingPipelineFeaturesKHR", rt).rayTracingPipeline !== 0;
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
 * (`VK_ERROR_OUT_OF_DEVICE_MEMORY` or `VK_ERROR_OUT_OF_HOST_MEMORY`) is skipped for the next one.
 *
 * @returns The memory and the type it came from.
 * @throws {VkError} The last out-of-memory error when every type failed, or any other error at once.
 */
export function allocateWithRetry(
  vk: VulkanCommands,
  scope: VkScope,
  gpu: VkPhysicalDevice,
  device: VkDevice,
  size: bigint,
  typeBits: number,
  preferred: number = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
): { memory: VkDeviceMemory; memoryTypeIndex: number } {
  const arena = scope.arena;
  const out = allocStruct(arena, "VkPhysicalDeviceMemoryProperties");
  vk.vkGetPhysicalDeviceMemoryProperties(gpu, out);
  const { memoryTypes, memoryTypeCount } = readStruct("VkPhysicalDeviceMemoryProperties", out);
  const allowed = memoryTypes.map((t, i) => ({ flags: t.propertyFlags, i }))
    .filter(({ i }) => i < memoryTypeCount && (typeBits & (1 << i)) !== 0);
  const order = [
    ...allowed.filter((t) => (t.flags & preferred) === preferred),
    ...allowed.filter((t) => (t.flags & preferred) !== preferred),
  ];
  let lastError: VkError | undefined;
  for (const { i } of order) {
    try {
      const info = writeStruct(arena, "VkMemoryAllocateInfo", { allocationSize: size, memoryTypeIndex: i });
      return { memory: scope.create("vkAllocateMemory", [device, info, null]), memoryTypeIndex: i };
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
export function runJob(vk: VulkanCommands, options: JobOptions = {}): JobReport {
  const size = options.bufferSize ?? 1 << 20;
  const maxAttempts = options.maxAttempts ?? 3;
  using scope = new VkScope(vk);
  const version = new Uint32Array(1);
  check(vk.vkEnumerateInstanceVersion(Deno.UnsafePointer.of(version)), "vkEnumerateInstanceVersion");
  const apiVersion = Math.min(version[0]!, VK_API_VERSION_1_3);
  const pApplicationInfo = { pApplicationName: "resilient job", apiVersion };
  const instance = scope.create("vkCreateInstance", [
    writeStruct(scope.arena, "VkInstanceCreateInfo", { pApplicationInfo }),
    null,
  ]);
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

function runOnDevice(
  vk: VulkanCommands,
  chosen: ChosenDevice,
  size: number,
): { memoryTypeIndex: number; result: number[] } {
  using scope = new VkScope(vk); // destroys this device's objects, also when the device was lost
  const arena = scope.arena;
  const pQueueCreateInfos = [{ queueFamilyIndex: chosen.queueFamily, pQueuePriorities: [1] }];
  const device = scope.create("vkCreateDevice", [
    chosen.gpu,
    writeStruct(arena, "VkDeviceCreateInfo", { pQueueCreateInfos }),
    null,
  ]);
  const queue = scope.create("vkGetDeviceQueue", [device, chosen.queueFamily, 0]);
  const bufferInfo = writeStruct(arena, "VkBufferCreateInfo", {
    size: BigInt(size),
    usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
  });
  const buffer = scope.create("vkCreateBuffer", [device, bufferInfo, null]);
  const reqs = allocStruct(arena, "VkMemoryRequirements");
  vk.vkGetBufferMemoryRequirements(device, buffer, reqs);
  const { size: allocationSize, memoryTypeBits } = readStruct("VkMemoryRequirements", reqs);
  const { memory, memoryTypeIndex } = allocateWithRetry(
    vk,
    scope,
    chosen.gpu,
    device,
    allocationSize,
    memoryTypeBits,
    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
  );
  check(vk.vkBindBufferMemory(device, buffer, memory, 0n), "vkBindBufferMemory");
  const mapped = arena.pointer(arena.alloc(8));
  check(vk.vkMapMemory(device, memory, 0n, BigInt(size), 0, mapped), "vkMapMemory");
  scope.defer(() => vk.vkUnmapMemory(device, memory));
  const words = new Uint32Array(Deno.UnsafePointerView.getArrayBuffer(readPointer(mapped)!, size));
  words.set([1, 2, 3, 4]);
  const poolInfo = writeStruct(arena, "VkCommandPoolCreateInfo", { queueFamilyIndex: chosen.queueFamily });
  const commandPool = scope.create("vkCreateCommandPool", [device, poolInfo, null]);
  const allocInfo = writeStruct(arena, "VkCommandBufferAllocateInfo", { commandPool, commandBufferCount: 1 });
  const cmd = scope.createMany("vkAllocateCommandBuffers", [device, allocInfo], 1)[0]!;
  check(
    vk.vkBeginCommandBuffer(cmd, writeStruct(arena, "VkCommandBufferBeginInfo", {})),
    "vkBeginCommandBuffer",
  );
  vk.vkCmdFillBuffer(cmd, buffer, 16n, 16n, 7);
  check(vk.vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
  const fence = scope.create("vkCreateFence", [device, writeStruct(arena, "VkFenceCreateInfo", {}), null]);
  const submit = writeStruct(arena, "VkSubmitInfo", { pCommandBuffers: [cmd] });
  check(vk.vkQueueSubmit(queue, 1, submit, fence), "vkQueueSubmit");
  check(vk.vkWaitForFences(device, 1, arena.pointerArray([fence]), 1, 1_000_000_000n), "vkWaitForFences");
  return { memoryTypeIndex, result: [...words.subarray(0, 4)] };
}

if (import.meta.main) {
  const { Vulkan } = await import("../mod.ts");
  using vk = Vulkan.load();
  console.log(runJob(vk));
}
