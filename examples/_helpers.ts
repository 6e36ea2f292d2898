/**
 * Chores the examples share, on the idiomatic commands (`VkApi`): creating the instance (no driver becomes
 * an install hint), finding a device with a queue family, describing it, picking a memory type.
 *
 * @module
 */
import {
  formatApiVersion,
  VK_API_VERSION_1_2,
  VK_ERROR_INCOMPATIBLE_DRIVER,
  VK_ERROR_INITIALIZATION_FAILED,
  VK_PHYSICAL_DEVICE_TYPE_CPU,
  VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU,
  VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU,
  VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU,
  type VkApi,
  VkError,
  type VkInstance,
  type VkPhysicalDevice,
  type VkScope,
  type VkStructInputs,
} from "../mod.ts";
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
export function memoryTypeIndex(vk: VkApi, gpu: VkPhysicalDevice, typeBits: number, flags: number): number {
  const { memoryTypes, memoryTypeCount } = vk.getPhysicalDeviceMemoryProperties(gpu);
  return memoryTypes.findIndex((type, i) =>
    i < memoryTypeCount && (typeBits & (1 << i)) !== 0 && (type.propertyFlags & flags) === flags
  );
}

const DEVICE_TYPES: Readonly<Record<number, string>> = {
  [VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU]: "INTEGRATED_GPU",
  [VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU]: "DISCRETE_GPU",
  [VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU]: "VIRTUAL_GPU",
  [VK_PHYSICAL_DEVICE_TYPE_CPU]: "CPU",
};

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
  return DEVICE_TYPES[type] ?? "OTHER";
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
export function findDevice(vk: VkApi, instance: VkInstance, queueFlags: number): [VkPhysicalDevice, number] {
  for (const gpu of vk.enumeratePhysicalDevices(instance)) {
    const families = vk.getPhysicalDeviceQueueFamilyProperties(gpu);
    const family = families.findIndex((f) => (f.queueFlags & queueFlags) === queueFlags);
    if (family >= 0) return [gpu, family];
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
export function describeDevice(vk: VkApi, gpu: VkPhysicalDevice, apiVersion: number): DeviceDescription {
  const props = vk.getPhysicalDeviceProperties(gpu);
  const description: DeviceDescription = {
    name: props.deviceName,
    type: deviceTypeName(props.deviceType),
    apiVersion: formatApiVersion(props.apiVersion),
    vendorID: props.vendorID,
    deviceID: props.deviceID,
    driver: { version: props.driverVersion },
  };
  if (Math.min(apiVersion, props.apiVersion) >= VK_API_VERSION_1_2) {
    const { chain } = vk.getPhysicalDeviceProperties2(gpu, ["VkPhysicalDeviceDriverProperties"]);
    const { driverName: name, driverInfo: info } = chain.VkPhysicalDeviceDriverProperties;
    Object.assign(description.driver, { name, info });
  }
  return description;
}

/**
 * Creates the instance through `vk` (a scope destroys it); a loader without drivers
 * (`VK_ERROR_INCOMPATIBLE_DRIVER`, or `VK_ERROR_INITIALIZATION_FAILED`) becomes a {@linkcode NoDeviceError},
 * which the examples answer with an install hint.
 *
 * @example Usage
 * ```ts ignore
 * const instance = createInstance(vk, { pApplicationInfo: { apiVersion: VK_API_VERSION_1_3 } });
 * ```
 * @throws {NoDeviceError} If there is no driver.
 * @throws {VkError} If vkCreateInstance fails otherwise.
 */
export function createInstance(vk: VkApi, info: VkStructInputs["VkInstanceCreateInfo"]): VkInstance {
  try {
    return vk.createInstance(info);
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

/**
 * {@linkcode createInstance} for the examples still on the raw commands: creates the instance in `scope`.
 *
 * @example Usage
 * ```ts ignore
 * const instance = createInstanceIn(scope, writeStruct(scope.arena, "VkInstanceCreateInfo", {}));
 * ```
 * @throws {NoDeviceError} If there is no driver.
 */
export function createInstanceIn(scope: VkScope, info: Deno.PointerValue): VkInstance {
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
