/**
 * The Vulkan commands the examples call, typed as the loaders' command objects expose them (C parameter
 * lists; handles and pointers as `Deno.PointerValue`, 64-bit integers as bigint). Both vkdeno and the
 * reference loader of `tools/libvulkan.ts` provide them, so each example runs on either.
 *
 * @module
 */
import { type Arena, readPointer } from "../ffi/memory.ts";

type P = Deno.PointerValue;

/** Global, instance and physical-device commands used by `examples/info.ts` and `examples/compute.ts`. */
export interface ExampleCommands {
  vkEnumerateInstanceVersion(pApiVersion: P): number;
  vkEnumerateInstanceLayerProperties(pPropertyCount: P, pProperties: P): number;
  vkEnumerateInstanceExtensionProperties(pLayerName: P, pPropertyCount: P, pProperties: P): number;
  vkCreateInstance(pCreateInfo: P, pAllocator: P, pInstance: P): number;
  vkDestroyInstance(instance: P, pAllocator: P): void;
  vkEnumeratePhysicalDevices(instance: P, pPhysicalDeviceCount: P, pPhysicalDevices: P): number;
  vkEnumeratePhysicalDeviceGroups(instance: P, pPhysicalDeviceGroupCount: P, pGroups: P): number;
  vkEnumerateDeviceExtensionProperties(
    physicalDevice: P,
    pLayerName: P,
    pPropertyCount: P,
    pProperties: P,
  ): number;
  vkGetPhysicalDeviceProperties(physicalDevice: P, pProperties: P): void;
  vkGetPhysicalDeviceProperties2(physicalDevice: P, pProperties: P): void;
  vkGetPhysicalDeviceQueueFamilyProperties(physicalDevice: P, pCount: P, pProperties: P): void;
  vkGetPhysicalDeviceMemoryProperties(physicalDevice: P, pMemoryProperties: P): void;
  vkCreateDevice(physicalDevice: P, pCreateInfo: P, pAllocator: P, pDevice: P): number;
  /** The device-level commands of `device` (vkdeno binds them to its dispatch stubs). */
  deviceTable?(device: P): unknown;
}

/** Device-level commands used by `examples/compute.ts`. */
export interface ExampleDeviceCommands {
  vkDestroyDevice(device: P, pAllocator: P): void;
  vkGetDeviceQueue(device: P, queueFamilyIndex: number, queueIndex: number, pQueue: P): void;
  vkCreateBuffer(device: P, pCreateInfo: P, pAllocator: P, pBuffer: P): number;
  vkDestroyBuffer(device: P, buffer: P, pAllocator: P): void;
  vkGetBufferMemoryRequirements(device: P, buffer: P, pMemoryRequirements: P): void;
  vkAllocateMemory(device: P, pAllocateInfo: P, pAllocator: P, pMemory: P): number;
  vkFreeMemory(device: P, memory: P, pAllocator: P): void;
  vkBindBufferMemory(device: P, buffer: P, memory: P, memoryOffset: bigint): number;
  vkMapMemory(device: P, memory: P, offset: bigint, size: bigint, flags: number, ppData: P): number;
  vkUnmapMemory(device: P, memory: P): void;
  vkCreateShaderModule(device: P, pCreateInfo: P, pAllocator: P, pShaderModule: P): number;
  vkDestroyShaderModule(device: P, shaderModule: P, pAllocator: P): void;
  vkCreateDescriptorSetLayout(device: P, pCreateInfo: P, pAllocator: P, pSetLayout: P): number;
  vkDestroyDescriptorSetLayout(device: P, descriptorSetLayout: P, pAllocator: P): void;
  vkCreatePipelineLayout(device: P, pCreateInfo: P, pAllocator: P, pPipelineLayout: P): number;
  vkDestroyPipelineLayout(device: P, pipelineLayout: P, pAllocator: P): void;
  vkCreateComputePipelines(
    device: P,
    pipelineCache: P,
    createInfoCount: number,
    pCreateInfos: P,
    pAllocator: P,
    pPipelines: P,
  ): number;
  vkDestroyPipeline(device: P, pipeline: P, pAllocator: P): void;
  vkCreateDescriptorPool(device: P, pCreateInfo: P, pAllocator: P, pDescriptorPool: P): number;
  vkDestroyDescriptorPool(device: P, descriptorPool: P, pAllocator: P): void;
  vkAllocateDescriptorSets(device: P, pAllocateInfo: P, pDescriptorSets: P): number;
  vkUpdateDescriptorSets(
    device: P,
    descriptorWriteCount: number,
    pDescriptorWrites: P,
    descriptorCopyCount: number,
    pDescriptorCopies: P,
  ): void;
  vkCreateCommandPool(device: P, pCreateInfo: P, pAllocator: P, pCommandPool: P): number;
  vkDestroyCommandPool(device: P, commandPool: P, pAllocator: P): void;
  vkAllocateCommandBuffers(device: P, pAllocateInfo: P, pCommandBuffers: P): number;
  vkBeginCommandBuffer(commandBuffer: P, pBeginInfo: P): number;
  vkEndCommandBuffer(commandBuffer: P): number;
  vkCmdBindPipeline(commandBuffer: P, pipelineBindPoint: number, pipeline: P): void;
  vkCmdBindDescriptorSets(
    commandBuffer: P,
    pipelineBindPoint: number,
    layout: P,
    firstSet: number,
    descriptorSetCount: number,
    pDescriptorSets: P,
    dynamicOffsetCount: number,
    pDynamicOffsets: P,
  ): void;
  vkCmdDispatch(commandBuffer: P, groupCountX: number, groupCountY: number, groupCountZ: number): void;
  vkCreateFence(device: P, pCreateInfo: P, pAllocator: P, pFence: P): number;
  vkDestroyFence(device: P, fence: P, pAllocator: P): void;
  vkQueueSubmit(queue: P, submitCount: number, pSubmits: P, fence: P): number;
  vkWaitForFences(device: P, fenceCount: number, pFences: P, waitAll: number, timeout: bigint): number;
}

/**
 * A zeroed 8-byte output slot (`VkInstance*`, `void**`, ...) in `arena`, and a reader for what the command
 * stored there.
 *
 * @example Usage
 * ```ts
 * import { Arena } from "../ffi/memory.ts";
 * import { outSlot } from "./_commands.ts";
 * using arena = new Arena();
 * const slot = outSlot(arena);
 * console.log(slot.read()); // null
 * ```
 */
export function outSlot(arena: Arena): { pointer: Deno.PointerObject; read(): Deno.PointerValue } {
  const pointer = arena.pointer(arena.alloc(8));
  return { pointer, read: () => readPointer(pointer, 0) };
}

/**
 * `VkPhysicalDeviceType` as vulkaninfo prints it, without the `VK_PHYSICAL_DEVICE_TYPE_` prefix.
 *
 * @example Usage
 * ```ts
 * import { deviceTypeName } from "./_commands.ts";
 * console.log(deviceTypeName(4)); // "CPU"
 * ```
 */
export function deviceTypeName(type: number): string {
  return ["OTHER", "INTEGRATED_GPU", "DISCRETE_GPU", "VIRTUAL_GPU", "CPU"][type] ?? "OTHER";
}

/**
 * Opens the loader named by a `--loader=` value: `"libvulkan"` (the reference, through
 * `tools/libvulkan.ts`) or `"vkdeno"` (this project's loader).
 *
 * @example Usage
 * ```ts ignore
 * import { openLoader } from "./_commands.ts";
 * using vk = await openLoader("libvulkan");
 * ```
 * @throws {TypeError} For another loader name.
 */
export async function openLoader(name: string): Promise<ExampleCommands & Disposable> {
  if (name === "vkdeno") {
    const { Vulkan } = await import("../mod.ts");
    return Vulkan.load() as unknown as ExampleCommands & Disposable;
  }
  if (name === "libvulkan") {
    const { openLibvulkan } = await import("../tools/libvulkan.ts");
    return openLibvulkan() as unknown as ExampleCommands & Disposable;
  }
  throw new TypeError(`Unknown loader "${name}": expected "vkdeno" or "libvulkan"`);
}
