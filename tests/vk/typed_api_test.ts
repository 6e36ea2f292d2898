// The typed API: every registry command typed on the command object, constants and types
// importable from mod.ts, and mistakes a user makes rejected by `deno check` (`deno task check` type-checks
// this file: each `@ts-expect-error` fails the check when its line stops being an error).
import { deepEqual as assertEquals, ok as assert } from "node:assert/strict";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { COMMAND_INDEX, COMMANDS } from "../../vk/generated/commands.ts";
import {
  allocStruct,
  Arena,
  asHandle,
  enumerate,
  readChain,
  readStruct,
  readStructArray,
  resultName,
  VK_API_VERSION_1_3,
  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
  VK_ERROR_INCOMPATIBLE_DRIVER,
  VK_FORMAT_R8G8B8A8_UNORM,
  VK_KHR_SURFACE_EXTENSION_NAME,
  VK_MAX_MEMORY_TYPES,
  VK_PIPELINE_BIND_POINT_COMPUTE,
  VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
  VK_QUEUE_COMPUTE_BIT,
  VK_SHARING_MODE_EXCLUSIVE,
  VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
  VK_SUCCESS,
  VK_WHOLE_SIZE,
  type VkBuffer,
  type VkCommandBuffer,
  type VkDevice,
  type VkExtensionProperties,
  type VkFormat,
  type VkImage,
  type VkInstance,
  type VkPhysicalDevice,
  type VkPhysicalDeviceProperties,
  type VkPipeline,
  Vulkan,
  type VulkanCommands,
  writeStruct,
  writeStructArray,
} from "../../mod.ts";
import { VK_IMAGE_USAGE_SAMPLED_BIT, VK_SAMPLE_COUNT_1_BIT } from "../../mod.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

Deno.test("every registry command and alias has a typed signature on the command object", () => {
  const text = Deno.readTextFileSync(resolve(ROOT, "vk/generated/vk_commands.ts"));
  const body = text.slice(text.indexOf("export interface VkCommands {"), text.indexOf("\n}\n"));
  const typed = [...body.matchAll(/^\s+readonly (vk\w+):/gm)].map((m) => m[1]!);
  assertEquals(new Set(typed).size, typed.length);
  assertEquals(typed.length, Object.keys(COMMAND_INDEX).length);
  assertEquals(new Set(typed), new Set(Object.keys(COMMAND_INDEX)));
  // The count type tells the same number to anyone reading the generated file.
  assert(text.includes(`export type VkCommandCount = ${typed.length};`));
  // Device-level commands and only those are listed for deviceTable.
  const device = text.slice(text.indexOf("export type VkDeviceCommandName"));
  const deviceNames = new Set([...device.matchAll(/"(vk\w+)"/g)].map((m) => m[1]!));
  const expected = Object.entries(COMMAND_INDEX).filter(([, i]) => COMMANDS[i]!.level === "device");
  assertEquals(deviceNames, new Set(expected.map(([n]) => n)));
});

Deno.test("the public generated types use no any for commands, handles, enums, constants, structs or callbacks", () => {
  const files = [
    "vk_commands.ts",
    "vk_types.ts",
    "vk_constants.d.ts",
    "vk_structs.ts",
    "vk_callbacks.ts",
    "vk_create.ts",
  ];
  for (const file of files) {
    const text = Deno.readTextFileSync(resolve(ROOT, "vk/generated", file));
    const code = text.replace(/\/\*\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
    assert(!/\bany\b/.test(code), `"${file}" uses any`);
  }
});

Deno.test("constants carry the registry's values and are exported from mod.ts", () => {
  assertEquals(VK_WHOLE_SIZE, 0xffffffffffffffffn);
  assertEquals(VK_MAX_MEMORY_TYPES, 32);
  assertEquals(VK_API_VERSION_1_3, (1 << 22) | (3 << 12));
  assertEquals(VK_QUEUE_COMPUTE_BIT, 2);
  assertEquals(VK_ERROR_INCOMPATIBLE_DRIVER, -9);
  assertEquals(VK_FORMAT_R8G8B8A8_UNORM, 37);
  assertEquals(VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, 0x800n);
  assertEquals(VK_KHR_SURFACE_EXTENSION_NAME, "VK_KHR_surface");
  assertEquals(resultName(VK_ERROR_INCOMPATIBLE_DRIVER), "VK_ERROR_INCOMPATIBLE_DRIVER");
});

Deno.test("a typed call runs: vkEnumerateInstanceVersion through the typed command object", () => {
  using vk = Vulkan.load({ env: { vars: {}, elevated: false } });
  const version = new Uint32Array(new ArrayBuffer(4));
  const result = vk.vkEnumerateInstanceVersion(Deno.UnsafePointer.of(version));
  assertEquals(result, VK_SUCCESS);
  assert(version[0]! >= VK_API_VERSION_1_3 - (3 << 12), `version ${version[0]}`);
});

// Type-level cases: checked by `deno check`, never called.
export function commandTypeCases(
  vk: VulkanCommands,
  device: VkDevice,
  buffer: VkBuffer,
  image: VkImage,
  cmd: VkCommandBuffer,
  pipeline: VkPipeline,
): void {
  // Positive: handles, enums, bitmasks and bigints where the spec has them; null is VK_NULL_HANDLE.
  vk.vkDestroyBuffer(device, buffer, null);
  vk.vkDestroyImage(device, image, null);
  vk.vkDestroyBuffer(device, null, null);
  vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  vk.vkCmdFillBuffer(cmd, buffer, 0n, VK_WHOLE_SIZE, 0);
  vk.vkCmdDispatch(cmd, 1, 1, 1);
  const format: VkFormat = VK_FORMAT_R8G8B8A8_UNORM;
  const usage: number = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | 1;
  // Aliases are typed like their target.
  vk.vkCmdDrawIndirectCountKHR(cmd, buffer, 0n, buffer, 0n, 1, 16);
  // A raw pointer becomes a handle through asHandle, named at the call (for code that reads handles from memory).
  vk.vkDestroyBuffer(device, asHandle("VkBuffer", Deno.UnsafePointer.create(8n)), null);

  // @ts-expect-error a VkBuffer is not a VkImage
  vk.vkDestroyImage(device, buffer, null);
  // @ts-expect-error a VkImage is not a VkBuffer
  vk.vkCmdFillBuffer(cmd, image, 0n, VK_WHOLE_SIZE, 0);
  // @ts-expect-error wrong argument count
  vk.vkCmdDispatch(cmd, 1, 1);
  // @ts-expect-error wrong argument count (one too many)
  vk.vkDestroyBuffer(device, buffer, null, null);
  // @ts-expect-error 7 is not a VkPipelineBindPoint
  vk.vkCmdBindPipeline(cmd, 7, pipeline);
  // @ts-expect-error 12345 is not a VkFormat
  const badFormat: VkFormat = 12345;
  // @ts-expect-error a VkDeviceSize is a bigint, not a number
  vk.vkCmdFillBuffer(cmd, buffer, 0, VK_WHOLE_SIZE, 0);
  // @ts-expect-error a float is not a handle
  vk.vkDestroyBuffer(device, 1.5, null);
  // @ts-expect-error no such command
  vk.vkCreateBufer(device, null, null, null);
  void [format, usage, badFormat];
}

Deno.test("typed structs round-trip: nested structs, fixed arrays, strings, bigints and extending structs", () => {
  using arena = new Arena();
  const info = writeStruct(arena, "VkBufferCreateInfo", {
    size: 4096n,
    usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
    sharingMode: VK_SHARING_MODE_EXCLUSIVE,
    pQueueFamilyIndices: [0, 1],
  });
  const back = readStruct("VkBufferCreateInfo", info);
  assertEquals(back.sType, VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
  assertEquals(back.size, 4096n);
  assertEquals(back.queueFamilyIndexCount, 2);
  const props = writeStruct(arena, "VkPhysicalDeviceProperties", {
    deviceName: "typed",
    limits: { maxComputeWorkGroupSize: [64, 2, 1], bufferImageGranularity: 4n },
  });
  const p: VkPhysicalDeviceProperties = readStruct("VkPhysicalDeviceProperties", props);
  const name: string = p.deviceName;
  const sizes: number[] = p.limits.maxComputeWorkGroupSize;
  const granularity: bigint = p.limits.bufferImageGranularity;
  assertEquals([name, sizes, granularity], ["typed", [64, 2, 1], 4n]);
  const chained = allocStruct(arena, "VkPhysicalDeviceProperties2", {
    pNext: [{ type: "VkPhysicalDeviceDriverProperties" }, { type: "VkPhysicalDeviceIDProperties" }],
  });
  assertEquals(readChain(chained).map((l) => l.type), [
    "VkPhysicalDeviceDriverProperties",
    "VkPhysicalDeviceIDProperties",
  ]);
  for (const link of readChain(chained, "VkPhysicalDeviceProperties2")) {
    if (link.type === "VkPhysicalDeviceDriverProperties") {
      const driverName: string = link.driverName;
      assertEquals(driverName, "");
    } else if (link.type === "VkPhysicalDeviceIDProperties") {
      const uuid: number[] = link.deviceUUID;
      assertEquals(uuid.length, 16);
    }
  }
  const extents = writeStructArray(arena, "VkExtent2D", [{ width: 1 }, { width: 2, height: 3 }]);
  assertEquals(readStructArray("VkExtent2D", extents, 2).map((e) => e.width + e.height), [1, 5]);
});

Deno.test("typed enumerate: struct results are typed, leading arguments checked against the command", () => {
  using vk = Vulkan.load({ env: { vars: {}, elevated: false } });
  const layers = enumerate(vk.vkEnumerateInstanceLayerProperties, [], { struct: "VkLayerProperties" });
  const names: string[] = layers.map((l) => l.layerName);
  assert(names.every((n) => n.startsWith("VK_LAYER_")), names.join());
  const exts: VkExtensionProperties[] = enumerate(vk.vkEnumerateInstanceExtensionProperties, [null], {
    struct: "VkExtensionProperties",
  });
  assert(exts.every((e) => typeof e.extensionName === "string" && typeof e.specVersion === "number"));
});

// Type-level struct cases: checked by `deno check`, never called.
export function structTypeCases(
  vk: VulkanCommands,
  arena: Arena,
  instance: VkInstance,
  device: VkDevice,
  gpu: VkPhysicalDevice,
): void {
  writeStruct(arena, "VkImageCreateInfo", {
    format: VK_FORMAT_R8G8B8A8_UNORM,
    extent: { width: 1 },
    usage: VK_IMAGE_USAGE_SAMPLED_BIT,
    samples: VK_SAMPLE_COUNT_1_BIT,
  });
  writeStruct(arena, "VkDeviceCreateInfo", {
    pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
    ppEnabledExtensionNames: ["VK_KHR_swapchain"],
    pNext: { type: "VkPhysicalDeviceVulkan13Features", synchronization2: 1, dynamicRendering: true },
  });
  const dynamic: string = "VkExtent2D";
  writeStruct(arena, dynamic, { width: 1 });
  const gpus: VkPhysicalDevice[] = enumerate(vk.vkEnumeratePhysicalDevices, [instance]);
  // @ts-expect-error enumerate returns the handle type the command writes: physical devices are not images
  const images: VkImage[] = enumerate(vk.vkEnumeratePhysicalDevices, [instance]);
  void [gpus, images];

  // A struct pointer goes where its struct is expected, and not elsewhere.
  vk.vkCreateBuffer(device, writeStruct(arena, "VkBufferCreateInfo", { size: 1n }), null, null);
  vk.vkGetPhysicalDeviceProperties2KHR(gpu, allocStruct(arena, "VkPhysicalDeviceProperties2"));
  vk.vkGetPhysicalDeviceFeatures2(gpu, allocStruct(arena, "VkPhysicalDeviceFeatures2KHR"));
  // @ts-expect-error a VkImageCreateInfo pointer is not a VkBufferCreateInfo pointer
  vk.vkCreateBuffer(device, writeStruct(arena, "VkImageCreateInfo", {}), null, null);
  // @ts-expect-error misspelled member (size)
  writeStruct(arena, "VkBufferCreateInfo", { sise: 4096n });
  // @ts-expect-error unknown struct name
  writeStruct(arena, "VkBufferCreateInfoo", {});
  // @ts-expect-error unknown struct name (read)
  readStruct("VkNoSuchStruct", null);
  // @ts-expect-error wrong enum value in a struct member
  writeStruct(arena, "VkBufferCreateInfo", { sharingMode: 7 });
  // @ts-expect-error a VkBuffer handle member does not take a VkImage
  writeStruct(arena, "VkBufferViewCreateInfo", { buffer: null as unknown as VkImage });
  // @ts-expect-error VkPhysicalDeviceDriverProperties does not extend VkBufferCreateInfo's pNext chain
  writeStruct(arena, "VkBufferCreateInfo", { pNext: { type: "VkPhysicalDeviceDriverProperties" } });
  // @ts-expect-error VkBufferUsageFlags2CreateInfo does not extend VkPhysicalDeviceProperties2
  allocStruct(arena, "VkPhysicalDeviceProperties2", { pNext: [{ type: "VkBufferUsageFlags2CreateInfo" }] });
  // @ts-expect-error a read struct has no member the registry does not declare
  readStruct("VkExtent2D", null).depth;
  for (const l of readChain(null, "VkPhysicalDeviceProperties2")) {
    if (l.type !== "VkPhysicalDeviceIDProperties") continue;
    // @ts-expect-error a typed extending struct has only its own members
    void l.driverName;
  }
  // @ts-expect-error enumerate's leading arguments follow the command's parameters
  enumerate(vk.vkEnumeratePhysicalDevices, [instance, instance]);
}
