/**
 * Chores the examples share: creating the instance (no driver becomes an install hint), finding a device
 * with a queue family, describing it, picking a memory type.
 *
 * @module
 */
import { allocStruct, Arena, enumerate, formatApiVersion, readStruct } from "../mod.ts";
import {
  VK_API_VERSION_1_2,
  VK_ERROR_INCOMPATIBLE_DRIVER,
  VK_ERROR_INITIALIZATION_FAILED,
  VkError,
} from "../mod.ts";
import type { VkInstance, VkPhysicalDevice, VkScope, VulkanCommands } from "../mod.ts";
import { ENUM_TYPES, ENUMS } from "../ffi/generated/enums.ts";
import { NoDeviceError } from "./_loader.ts";

/**
 * The first memory type of `gpu` that `typeBits` (from `VkMemoryRequirements.memoryTypeBits`) allows and
 * that has every flag of `flags`, or -1.
 *
 * @example Host-visible, coherent memory for a buffer
 * ```ts ignore
 * const index = memoryTypeIndex(vk, gpu, requirements.memoryTypeBits, 0x2 | 0x4);
 * ```
 */
export function memoryTypeIndex(
  vk: VulkanCommands,
  gpu: VkPhysicalDevice,
  typeBits: number,
  flags: number,
): number {
  using arena = new Arena();
  const props = allocStruct(arena, "VkPhysicalDeviceMemoryProperties");
  vk.vkGetPhysicalDeviceMemoryProperties(gpu, props);
  const { memoryTypes, memoryTypeCount } = readStruct("VkPhysicalDeviceMemoryProperties", props);
  return memoryTypes.findIndex((type, i) =>
    i < memoryTypeCount && (typeBits & (1 << i)) !== 0 && (type.propertyFlags & flags) === flags
  );
}

/**
 * A `VkPhysicalDeviceType` as vulkaninfo prints it, without the `VK_PHYSICAL_DEVICE_TYPE_` prefix.
 *
 * @example Usage
 * ```ts
 * import { VK_PHYSICAL_DEVICE_TYPE_CPU } from "../mod.ts";
 * import { deviceTypeName } from "./_helpers.ts";
 * console.log(deviceTypeName(VK_PHYSICAL_DEVICE_TYPE_CPU)); // "CPU"
 * ```
 */
export function deviceTypeName(type: number): string {
  const name = ENUM_TYPES.VkPhysicalDeviceType?.values.find((n) => ENUMS[n] === type);
  return name?.slice("VK_PHYSICAL_DEVICE_TYPE_".length) ?? "OTHER";
}

/**
 * The first physical device of `instance` with a queue family having every bit of `queueFlags`, and that
 * family's index.
 *
 * @example Usage
 * ```ts ignore
 * const [gpu, family] = findDevice(vk, instance, VK_QUEUE_GRAPHICS_BIT);
 * ```
 * @throws {NoDeviceError} If no device has such a queue family.
 */
export function findDevice(
  vk: VulkanCommands,
  instance: VkInstance,
  queueFlags: number,
): [VkPhysicalDevice, number] {
  for (const gpu of enumerate(vk.vkEnumeratePhysicalDevices, [instance])) {
    const families = enumerate(vk.vkGetPhysicalDeviceQueueFamilyProperties, [gpu], {
      struct: "VkQueueFamilyProperties",
    });
    const family = families.findIndex((f) => (f.queueFlags & queueFlags) === queueFlags);
    if (family >= 0) return [gpu!, family];
  }
  throw new NoDeviceError(`no Vulkan device with a queue family of flags 0x${queueFlags.toString(16)}`);
}

/** What {@linkcode describeDevice} reads from `VkPhysicalDeviceProperties` (and the driver properties). */
export interface DeviceDescription {
  name: string;
  /** `VkPhysicalDeviceType` without its prefix: `CPU`, `DISCRETE_GPU`, ... */
  type: string;
  apiVersion: string;
  vendorID: number;
  deviceID: number;
  driver: { version: number; name?: string; info?: string };
}

/**
 * Reads a device's properties; with an instance of Vulkan 1.2 or later (`apiVersion`) on a 1.2 device,
 * also the driver's name and version text, through a pNext chain on `vkGetPhysicalDeviceProperties2`.
 *
 * @example Usage
 * ```ts ignore
 * console.log(describeDevice(vk, gpu, VK_API_VERSION_1_3).name); // "llvmpipe (LLVM 15.0.6, 256 bits)"
 * ```
 */
export function describeDevice(
  vk: VulkanCommands,
  gpu: VkPhysicalDevice,
  apiVersion: number,
): DeviceDescription {
  using arena = new Arena();
  const out = allocStruct(arena, "VkPhysicalDeviceProperties");
  vk.vkGetPhysicalDeviceProperties(gpu, out);
  const props = readStruct("VkPhysicalDeviceProperties", out);
  const description: DeviceDescription = {
    name: props.deviceName,
    type: deviceTypeName(props.deviceType),
    apiVersion: formatApiVersion(props.apiVersion),
    vendorID: props.vendorID,
    deviceID: props.deviceID,
    driver: { version: props.driverVersion },
  };
  if (Math.min(apiVersion, props.apiVersion) >= VK_API_VERSION_1_2) {
    const driverProps = allocStruct(arena, "VkPhysicalDeviceDriverProperties");
    vk.vkGetPhysicalDeviceProperties2(
      gpu,
      allocStruct(arena, "VkPhysicalDeviceProperties2", { pNext: driverProps }),
    );
    const { driverName, driverInfo } = readStruct("VkPhysicalDeviceDriverProperties", driverProps);
    Object.assign(description.driver, { name: driverName, info: driverInfo });
  }
  return description;
}

/**
 * Creates the instance in `scope`; a loader without drivers (`VK_ERROR_INCOMPATIBLE_DRIVER`, or
 * `VK_ERROR_INITIALIZATION_FAILED`) becomes a {@linkcode NoDeviceError}, which the examples answer with
 * an install hint.
 *
 * @example Usage
 * ```ts ignore
 * const instance = createInstance(scope, writeStruct(scope.arena, "VkInstanceCreateInfo", {}));
 * ```
 * @throws {NoDeviceError} If there is no driver.
 * @throws {VkError} If vkCreateInstance fails otherwise.
 */
export function createInstance(scope: VkScope, info: Deno.PointerValue): VkInstance {
  try {
    return scope.create("vkCreateInstance", [info, null]);
  } catch (e) {
    if (
      e instanceof VkError &&
      (e.code === VK_ERROR_INCOMPATIBLE_DRIVER || e.code === VK_ERROR_INITIALIZATION_FAILED)
    ) {
      throw new NoDeviceError(`vkCreateInstance returned ${e.result}`);
    }
    throw e;
  }
}
