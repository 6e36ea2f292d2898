/**
 * Chores every example repeats: creating Vulkan objects and destroying them in reverse order, picking a
 * memory type, naming a device type.
 *
 * @module
 */
import { COMMAND_INDEX, COMMANDS } from "../ffi/generated/commands.ts";
import type { CommandInfo } from "../ffi/generated/types.ts";
import { allocStruct, Arena, enumerate, formatApiVersion, readPointer, readStruct } from "../mod.ts";
import {
  VK_API_VERSION_1_2,
  VK_ERROR_INCOMPATIBLE_DRIVER,
  VK_ERROR_INITIALIZATION_FAILED,
  VkError,
} from "../mod.ts";
import type { VkInstance, VkPhysicalDevice, VulkanCommands } from "../mod.ts";
import { ENUM_TYPES, ENUMS } from "../ffi/generated/enums.ts";
import { NoDeviceError } from "./_loader.ts";

type CreateName = Extract<keyof VulkanCommands, `vkCreate${string}` | `vkAllocate${string}`>;
/** A create command's parameters without the last one, the output slot the scope provides. */
type CreateInputs<K extends CreateName> = K extends CreateName // distributes over a union of names
  ? VulkanCommands[K] extends (...args: [...infer A, infer _Out]) => unknown ? A : never
  : never;
type AnyCommand = (...args: unknown[]) => unknown;

/**
 * The Vulkan objects a block creates, destroyed in reverse order when the block ends (`using`), also when
 * it throws. {@linkcode Scope.create} calls a `vkCreate*` / `vkAllocate*` command with an output slot,
 * throws a `VkError` naming the command for a negative result, and registers the matching `vkDestroy*` /
 * `vkFree*` (found in the registry: the command taking that handle type and an allocator) with the same
 * parent handles and allocator. Pool-allocated handles (command buffers, descriptor sets) go with their pool.
 *
 * @example A buffer that is destroyed when the block ends
 * ```ts ignore
 * using scope = new Scope(vk);
 * const buffer = scope.create("vkCreateBuffer", device, writeStruct(scope.arena, "VkBufferCreateInfo", {
 *   size: 4096n,
 *   usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
 * }), null);
 * ```
 */
export class Scope implements Disposable {
  /** Memory for the structs and output slots of this scope; freed after the objects are destroyed. */
  readonly arena: Arena = new Arena();
  #vk: VulkanCommands;
  #stack = new DisposableStack();

  /** A scope over a loader's command object. */
  constructor(vk: VulkanCommands) {
    this.#vk = vk;
  }

  /**
   * Calls `name` with `args` and an output slot; returns the (first) handle it wrote, unbranded so that it
   * fits the handle type the command makes. For an array output (`vkCreateComputePipelines`), its length
   * comes from the command's `len` (one `createInfoCount`, or `commandBufferCount` in the info struct).
   *
   * @example Usage
   * ```ts ignore
   * const fence = scope.create("vkCreateFence", device, writeStruct(scope.arena, "VkFenceCreateInfo"), null);
   * ```
   * @throws {VkError} If the command returns a negative `VkResult` or writes a null handle.
   */
  create<K extends CreateName>(name: K, ...args: CreateInputs<K>): Deno.PointerObject {
    const info = COMMANDS[COMMAND_INDEX[name]!]!;
    const out = info.params[info.params.length - 1]!;
    const [head, member] = (out.len ?? "1").split("->");
    const at = info.params.findIndex((p) => p.name === head);
    const arg = args[at] as Deno.PointerValue | number;
    const count = member !== undefined
      ? readStruct(info.params[at]!.type, arg as Deno.PointerValue)[member] as number
      : typeof arg === "number"
      ? arg
      : 1;
    const slot = this.arena.pointer(this.arena.alloc(8 * Math.max(count, 1)));
    VkError.check((this.#vk[name] as AnyCommand)(...args, slot) as number, name);
    const handle = readPointer(slot);
    if (handle === null) throw new VkError(-3, `Command "${name}" succeeded but wrote a null handle`);
    const destroy = destroyerOf(out.type);
    if (destroy) {
      // Parents by parameter name (`device`, `instance`); the allocator the object was created with.
      const allocator = args[info.params.findIndex((p) => p.name === "pAllocator")] ?? null;
      const parents = destroy.params.slice(0, -2).map((p) =>
        args[info.params.findIndex((q) => q.name === p.name)]
      );
      const fn = this.#vk[destroy.name as keyof VulkanCommands] as AnyCommand;
      this.#stack.defer(() => fn(...parents, handle, allocator));
    }
    return handle;
  }

  /**
   * Runs `fn` when the scope ends, before what was created earlier is destroyed.
   *
   * @example Usage
   * ```ts ignore
   * scope.defer(() => vk.vkUnmapMemory(device, memory));
   * ```
   */
  defer(fn: () => void): void {
    this.#stack.defer(fn);
  }

  /** Destroys what the scope created, newest first, then frees its arena. */
  [Symbol.dispose](): void {
    try {
      this.#stack.dispose();
    } finally {
      this.arena.dispose();
    }
  }
}

/** The command destroying one handle of `type` (`vkDestroyBuffer`, `vkFreeMemory`), or undefined. */
function destroyerOf(type: string): CommandInfo | undefined {
  return COMMANDS.find((c) => {
    if (!/^vk(Destroy|Free)/.test(c.name) || c.params.length < 2) return false;
    const [handle, allocator] = c.params.slice(-2);
    return handle!.type === type && handle!.pointer === 0 && allocator!.name === "pAllocator";
  });
}

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
export function createInstance(scope: Scope, info: Deno.PointerValue): Deno.PointerObject {
  try {
    return scope.create("vkCreateInstance", info, null);
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
