// Types that catch what C lets through: each `@ts-expect-error` line below is a realistic mistake that
// `deno check` must reject (`deno task check` type-checks this file, and an expect-error line that stops
// being an error fails the check). The functions are never called; the Deno.test cases run the helpers.
import { deepEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import {
  allocStruct,
  type Arena,
  asHandle,
  enumerate,
  enumName,
  flagNames,
  flags,
  makeCallback,
  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
  VK_BUFFER_USAGE_TRANSFER_DST_BIT,
  VK_CULL_MODE_FRONT_AND_BACK,
  VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
  VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
  VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
  VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
  VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
  VK_FORMAT_R8G8B8A8_UNORM,
  VK_IMAGE_LAYOUT_GENERAL,
  VK_IMAGE_USAGE_SAMPLED_BIT,
  VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
  VK_PIPELINE_STAGE_2_COPY_BIT,
  VK_QUEUE_COMPUTE_BIT,
  VK_QUEUE_GRAPHICS_BIT,
  VK_SHADER_STAGE_COMPUTE_BIT,
  VK_SHARING_MODE_EXCLUSIVE,
  type VkBuffer,
  type VkBufferUsageFlags,
  type VkCommandBuffer,
  type VkDescriptorType,
  type VkDevice,
  type VkFormat,
  type VkInstance,
  type VkPhysicalDevice,
  type VkPipelineStageFlags2,
  type VulkanCommands,
  writeStruct,
} from "../../mod.ts";

const CODE = new Uint32Array([0x07230203, 0x00010000, 0]);

/** The mistake categories of a 31-mistake probe of the typed API, each one line. */
export function mistakes(
  vk: VulkanCommands,
  arena: Arena,
  instance: VkInstance,
  gpu: VkPhysicalDevice,
  device: VkDevice,
  buffer: VkBuffer,
  cmd: VkCommandBuffer,
): void {
  // A member vk.xml requires is required in the literal.
  // @ts-expect-error VkShaderModuleCreateInfo without pCode
  writeStruct(arena, "VkShaderModuleCreateInfo", { codeSize: 12 });
  // @ts-expect-error VkPipelineShaderStageCreateInfo without its module's entry point name
  writeStruct(arena, "VkPipelineShaderStageCreateInfo", { stage: VK_SHADER_STAGE_COMPUTE_BIT, module: null });
  // @ts-expect-error VkImageViewCreateInfo without the image it views
  writeStruct(arena, "VkImageViewCreateInfo", { format: VK_FORMAT_R8G8B8A8_UNORM });

  // Each flags type takes only its own bits.
  // @ts-expect-error an image usage bit as buffer usage
  writeStruct(arena, "VkBufferCreateInfo", { size: 64n, usage: VK_IMAGE_USAGE_SAMPLED_BIT });
  // @ts-expect-error `|` gives a bare number: combine with flags(A, B)
  const ored: VkBufferUsageFlags = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  // @ts-expect-error flags() of two types' bits is neither type
  const mixed: VkBufferUsageFlags = flags(VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, VK_IMAGE_USAGE_SAMPLED_BIT);
  // @ts-expect-error a bare number is no flags
  writeStruct(arena, "VkBufferCreateInfo", { size: 64n, usage: 0x20 });
  // @ts-expect-error 32-bit stage bits are not VkPipelineStageFlags2 (64-bit)
  const stage2: VkPipelineStageFlags2 = VK_QUEUE_COMPUTE_BIT;

  // Each enum takes only its own values, even where another enum's value is the same number.
  // @ts-expect-error VK_IMAGE_LAYOUT_GENERAL (1) as a descriptor type (COMBINED_IMAGE_SAMPLER is also 1)
  writeStruct(arena, "VkDescriptorSetLayoutBinding", { descriptorType: VK_IMAGE_LAYOUT_GENERAL });
  // @ts-expect-error a bare number is no enum value
  const format: VkFormat = 37;

  // Handles, struct pointers and raw pointers do not mix.
  const info = writeStruct(arena, "VkBufferCreateInfo", {
    size: 64n,
    usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
  });
  // @ts-expect-error a struct pointer passed as a VkDevice
  vk.vkCreateBuffer(info, info, null, null);
  // @ts-expect-error a handle passed as a create-info pointer
  vk.vkCreateBuffer(device, buffer, null, null);
  // @ts-expect-error a raw pointer is no handle (asHandle converts one, named)
  vk.vkDestroyBuffer(device, Deno.UnsafePointer.create(8n), null);
  // @ts-expect-error a VkBuffer is not a VkDevice
  vk.vkDeviceWaitIdle(buffer);

  // null only where vk.xml marks the handle optional.
  // @ts-expect-error null for the dispatchable VkDevice of vkCreateBuffer
  vk.vkCreateBuffer(null, info, null, null);
  // @ts-expect-error null for the command buffer of vkCmdDispatch
  vk.vkCmdDispatch(null, 1, 1, 1);
  // @ts-expect-error null for the physical device of vkGetPhysicalDeviceProperties
  vk.vkGetPhysicalDeviceProperties(null, allocStruct(arena, "VkPhysicalDeviceProperties"));

  // Callback members take their own PFN_* type.
  using report = makeCallback("PFN_vkDebugReportCallbackEXT", () => false);
  // @ts-expect-error a debug-report callback where a debug-utils messenger callback goes
  writeStruct(arena, "VkDebugUtilsMessengerCreateInfoEXT", {
    messageSeverity: VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
    messageType: VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
    pfnUserCallback: report.pointer,
  });

  // enumerate reads the struct its command writes.
  // @ts-expect-error vkEnumerateInstanceExtensionProperties writes VkExtensionProperties, not VkLayerProperties
  enumerate(vk.vkEnumerateInstanceExtensionProperties, [null], { struct: "VkLayerProperties" });
  // @ts-expect-error vkEnumerateDeviceLayerProperties writes VkLayerProperties
  enumerate(vk.vkEnumerateDeviceLayerProperties, [gpu], { struct: "VkExtensionProperties" });

  // A pointer member takes a raw pointer for its array, but not a handle where the array goes.
  // @ts-expect-error one command buffer where VkSubmitInfo's array of them goes
  writeStruct(arena, "VkSubmitInfo", { pCommandBuffers: cmd });
  writeStruct(arena, "VkSubmitInfo", { pCommandBuffers: [cmd] });
  writeStruct(arena, "VkSubmitInfo", { pCommandBuffers: arena.pointer(arena.alloc(8, 8)) });

  void [ored, mixed, stage2, format, instance, cmd];
}

/** What stays easy: one bit, `0`, flags(), constants, asHandle, nulls where vk.xml allows them. */
export function stillEasy(vk: VulkanCommands, arena: Arena, device: VkDevice, gpu: VkPhysicalDevice): void {
  const usage: VkBufferUsageFlags = flags(
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
    VK_BUFFER_USAGE_TRANSFER_DST_BIT,
  );
  writeStruct(arena, "VkBufferCreateInfo", { size: 64n, usage, sharingMode: VK_SHARING_MODE_EXCLUSIVE });
  writeStruct(arena, "VkBufferCreateInfo", {
    size: 64n,
    usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
    flags: 0,
  });
  writeStruct(arena, "VkShaderModuleCreateInfo", { pCode: CODE });
  writeStruct(arena, "VkDescriptorSetLayoutBinding", { descriptorType: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER });
  const stages: VkPipelineStageFlags2 = flags(
    VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
    VK_PIPELINE_STAGE_2_COPY_BIT,
  );
  const none: VkPipelineStageFlags2 = 0n;
  const type: VkDescriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
  // Enum values compare and switch as numbers.
  if (type === VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER && usage & VK_BUFFER_USAGE_STORAGE_BUFFER_BIT) {
    void 0;
  }
  // A messenger takes its own callback; VK_NULL_HANDLE where vk.xml says optional.
  using messenger = makeCallback("PFN_vkDebugUtilsMessengerCallbackEXT", () => false);
  writeStruct(arena, "VkDebugUtilsMessengerCreateInfoEXT", {
    messageSeverity: flags(
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
    ),
    messageType: VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
    pfnUserCallback: messenger.pointer,
  });
  vk.vkDestroyBuffer(device, null, null);
  vk.vkDestroyBuffer(device, asHandle("VkBuffer", Deno.UnsafePointer.create(8n)), null);
  vk.vkDestroyDevice(null, null);
  const layers = enumerate(vk.vkEnumerateDeviceLayerProperties, [gpu], { struct: "VkLayerProperties" });
  const names: string[] = layers.map((l) => l.layerName);
  void [stages, none, names];
}

Deno.test("flags() combines bits of one type into their OR, unsigned; 64-bit bits into a bigint", () => {
  assertEquals(flags(VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, VK_BUFFER_USAGE_TRANSFER_DST_BIT), 0x22);
  assertEquals(flags(VK_QUEUE_GRAPHICS_BIT), 1);
  assertEquals(flags(0x80000000 as typeof VK_QUEUE_GRAPHICS_BIT, VK_QUEUE_GRAPHICS_BIT), 0x80000001);
  assertEquals(flags(VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_2_COPY_BIT), 0x100000800n);
});

Deno.test("enumName names an enum value by the registry's first name; an unknown value reads as type(value)", () => {
  assertEquals(enumName("VkFormat", VK_FORMAT_R8G8B8A8_UNORM), "VK_FORMAT_R8G8B8A8_UNORM");
  assertEquals(enumName("VkFormat", 37), "VK_FORMAT_R8G8B8A8_UNORM");
  assertEquals(enumName("VkDescriptorType", 1), "VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER");
  assertEquals(enumName("VkImageLayout", 1), "VK_IMAGE_LAYOUT_GENERAL");
  assertEquals(enumName("VkResult", -4), "VK_ERROR_DEVICE_LOST");
  assertEquals(enumName("VkFormat", 12345), "VkFormat(12345)");
  // @ts-expect-error not an enum type
  assertThrows(() => enumName("VkNoSuchEnum", 1), { name: "TypeError", message: /VkNoSuchEnum/ });
});

Deno.test("flagNames lists the set bits' names lowest first, multi-bit values as their bits, unknown bits as hex", () => {
  assertEquals(flagNames("VkQueueFlags", flags(VK_QUEUE_GRAPHICS_BIT, VK_QUEUE_COMPUTE_BIT)), [
    "VK_QUEUE_GRAPHICS_BIT",
    "VK_QUEUE_COMPUTE_BIT",
  ]);
  assertEquals(flagNames("VkDebugUtilsMessageSeverityFlagsEXT", 4096), [
    "VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT",
  ]);
  assertEquals(flagNames("VkCullModeFlagBits", VK_CULL_MODE_FRONT_AND_BACK), [
    "VK_CULL_MODE_FRONT_BIT",
    "VK_CULL_MODE_BACK_BIT",
  ]);
  assertEquals(flagNames("VkQueueFlags", 0), []);
  assertEquals(flagNames("VkQueueFlags", 0x1 | 0x40000000), ["VK_QUEUE_GRAPHICS_BIT", "0x40000000"]);
  assertEquals(flagNames("VkPipelineStageFlags2", VK_PIPELINE_STAGE_2_COPY_BIT), [
    "VK_PIPELINE_STAGE_2_COPY_BIT",
  ]);
});
