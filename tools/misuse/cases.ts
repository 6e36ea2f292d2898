/**
 * The misuse catalogue: small programs that misuse the public API the way a new user might (null, destroyed,
 * foreign or non-handle arguments, calls after dispose, callbacks closed too early). Each runs alone in its
 * own process (tools/misuse/run.ts); tools/misuse/table.ts prints what each did, tests/misuse_test.ts pins it.
 *
 * @module
 */
import {
  Arena,
  create,
  enumerate,
  makeCallback,
  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
  VK_BUFFER_USAGE_TRANSFER_DST_BIT,
  VK_COMMAND_BUFFER_LEVEL_PRIMARY,
  VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
  VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
  VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT,
  VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
  VK_EXT_DEBUG_UTILS_EXTENSION_NAME,
  VK_SHADER_STAGE_COMPUTE_BIT,
  VkApi,
  type VkBuffer,
  type VkDebugUtilsMessageSeverityFlagsEXT,
  type VkDevice,
  type VkInstance,
  type VkPhysicalDevice,
  VkScope,
  Vulkan,
  type VulkanCommands,
  writeStruct,
} from "../../mod.ts";

type Vk = Vulkan & VulkanCommands;

/** One misuse: what it does, and what it should end in (`checked`: with `VKDENO_CHECKED=1` only). */
export interface MisuseCase {
  readonly name: string;
  /** What the program does wrong. */
  readonly what: string;
  /** The message (a pattern) the thrown error or the warning carries once handled. */
  readonly expect: RegExp;
  /** Only checked mode catches it (a native one-call stub takes it otherwise). */
  readonly checkedOnly?: boolean;
  readonly run: () => void;
}

/** A loader, an instance, its physical device and a device with one queue family, all on lavapipe. */
/** A command buffer recorded (begun and ended, empty) from a new pool of queue family 0. */
function recordedCommandBuffer(api: VkApi, device: VkDevice) {
  const commandPool = api.createCommandPool(device, { queueFamilyIndex: 0 });
  const level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  const [cb] = api.allocateCommandBuffers(device, { commandPool, level, commandBufferCount: 1 });
  api.beginCommandBuffer(cb!, {});
  api.endCommandBuffer(cb!);
  return { commandPool, cb: cb! };
}

function setup(vk: Vk = Vulkan.load(), extensions: string[] = []) {
  const arena = new Arena();
  const instance = create(vk, "vkCreateInstance", [
    writeStruct(arena, "VkInstanceCreateInfo", { ppEnabledExtensionNames: extensions }),
    null,
  ]);
  const [pd] = enumerate(vk.vkEnumeratePhysicalDevices, [instance]);
  const device = create(vk, "vkCreateDevice", [
    pd!,
    writeStruct(arena, "VkDeviceCreateInfo", {
      pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
    }),
    null,
  ]);
  return { vk, arena, instance, pd: pd! as VkPhysicalDevice, device };
}

function bufferInfo(arena: Arena): Deno.PointerObject {
  return writeStruct(arena, "VkBufferCreateInfo", { size: 256n, usage: VK_BUFFER_USAGE_TRANSFER_DST_BIT });
}

function buffer(vk: Vk, arena: Arena, device: VkDevice): VkBuffer {
  return create(vk, "vkCreateBuffer", [device, bufferInfo(arena), null]);
}

const slot = () => Deno.UnsafePointer.of(new BigUint64Array(new ArrayBuffer(64)))!;
const NULL = null as unknown;
/** A pointer to plain memory, passed where a handle goes. */
const notAHandle = <T>(): T => Deno.UnsafePointer.of(new BigUint64Array(new ArrayBuffer(64)).fill(7n)) as T;

/** The catalogue, in the order of the table. */
export const CASES: readonly MisuseCase[] = [
  {
    name: "enumerate-devices-null-instance",
    what: "vkEnumeratePhysicalDevices(null, ...)",
    expect: /vkEnumeratePhysicalDevices: instance is null/,
    run() {
      const vk = Vulkan.load();
      vk.vkEnumeratePhysicalDevices(NULL as VkInstance, slot(), null);
    },
  },
  {
    name: "enumerate-devices-destroyed-instance",
    what: "vkEnumeratePhysicalDevices on a destroyed instance",
    expect: /vkEnumeratePhysicalDevices: instance .*destroyed/,
    run() {
      const { vk, instance, device } = setup();
      vk.vkDestroyDevice(device, null);
      vk.vkDestroyInstance(instance, null);
      vk.vkEnumeratePhysicalDevices(instance, slot(), null);
    },
  },
  {
    name: "enumerate-devices-foreign-instance",
    what: "vkEnumeratePhysicalDevices with another loader's instance",
    expect: /vkEnumeratePhysicalDevices: instance .*another Vulkan loader/,
    run() {
      const { instance } = setup();
      const other = Vulkan.load();
      other.vkEnumeratePhysicalDevices(instance, slot(), null);
    },
  },
  {
    name: "physical-device-null",
    what: "vkGetPhysicalDeviceProperties(null, p)",
    expect: /vkGetPhysicalDeviceProperties: physicalDevice is null/,
    checkedOnly: true,
    run() {
      const { vk } = setup();
      vk.vkGetPhysicalDeviceProperties(NULL as VkPhysicalDevice, slot());
    },
  },
  {
    name: "physical-device-not-a-handle",
    what: "a struct pointer passed as a VkPhysicalDevice",
    expect: /vkGetPhysicalDeviceProperties: physicalDevice .*not a VkPhysicalDevice/,
    checkedOnly: true,
    run() {
      const { vk } = setup();
      vk.vkGetPhysicalDeviceProperties(notAHandle(), slot());
    },
  },
  {
    name: "physical-device-destroyed-instance",
    what: "vkGetPhysicalDeviceProperties after its instance was destroyed",
    expect: /vkGetPhysicalDeviceProperties: physicalDevice .*destroyed/,
    checkedOnly: true,
    run() {
      const { vk, instance, device, pd } = setup();
      vk.vkDestroyDevice(device, null);
      vk.vkDestroyInstance(instance, null);
      vk.vkGetPhysicalDeviceProperties(pd, slot());
    },
  },
  {
    name: "create-device-null-physical-device",
    what: "vkCreateDevice(null, ...)",
    expect: /vkCreateDevice: physicalDevice is null/,
    run() {
      const { vk, arena } = setup();
      vk.vkCreateDevice(
        NULL as VkPhysicalDevice,
        writeStruct(arena, "VkDeviceCreateInfo", {
          pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
        }),
        null,
        slot(),
      );
    },
  },
  {
    name: "destroy-instance-twice",
    what: "vkDestroyInstance twice",
    expect: /vkDestroyInstance: instance .*destroyed/,
    run() {
      const { vk, instance, device } = setup();
      vk.vkDestroyDevice(device, null);
      vk.vkDestroyInstance(instance, null);
      vk.vkDestroyInstance(instance, null);
    },
  },
  {
    name: "destroy-device-twice",
    what: "vkDestroyDevice twice",
    expect: /vkDestroyDevice: device .*destroyed/,
    run() {
      const { vk, device } = setup();
      vk.vkDestroyDevice(device, null);
      vk.vkDestroyDevice(device, null);
    },
  },
  {
    name: "create-instance-after-dispose",
    what: "vkCreateInstance after the loader was disposed, then a use of the instance",
    expect: /vkCreateInstance: this Vulkan loader is disposed/,
    run() {
      const vk = Vulkan.load();
      const arena = new Arena();
      vk.dispose();
      const instance = create(vk, "vkCreateInstance", [writeStruct(arena, "VkInstanceCreateInfo", {}), null]);
      enumerate(vk.vkEnumeratePhysicalDevices, [instance]);
    },
  },
  {
    name: "command-after-dispose",
    what: "a device command of a disposed loader",
    expect: /vkDeviceWaitIdle: this Vulkan loader is disposed/,
    run() {
      const { vk, device, instance } = setup();
      vk.vkDeviceWaitIdle(device);
      vk.vkDestroyDevice(device, null);
      vk.vkDestroyInstance(instance, null);
      vk.dispose();
      vk.vkDeviceWaitIdle(device);
    },
  },
  {
    name: "device-null",
    what: "vkDeviceWaitIdle(null)",
    expect: /vkDeviceWaitIdle: device is null/,
    checkedOnly: true,
    run() {
      const { vk } = setup();
      vk.vkDeviceWaitIdle(NULL as VkDevice);
    },
  },
  {
    name: "device-destroyed",
    what: "a native-stub device command after vkDestroyDevice",
    expect: /vkDeviceWaitIdle: device .*destroyed/,
    checkedOnly: true,
    run() {
      const { vk, device } = setup();
      vk.vkDestroyDevice(device, null);
      vk.vkDeviceWaitIdle(device);
    },
  },
  {
    name: "get-queue-destroyed-device",
    what: "vkGetDeviceQueue after vkDestroyDevice",
    expect: /vkGetDeviceQueue: device .*destroyed/,
    checkedOnly: true,
    run() {
      const { vk, device } = setup();
      vk.vkDestroyDevice(device, null);
      vk.vkGetDeviceQueue(device, 0, 0, slot());
    },
  },
  {
    name: "get-queue-null-device",
    what: "vkGetDeviceQueue(null, ...)",
    expect: /vkGetDeviceQueue: device is null/,
    checkedOnly: true,
    run() {
      const { vk } = setup();
      vk.vkGetDeviceQueue(NULL as VkDevice, 0, 0, slot());
    },
  },
  {
    name: "command-buffer-null",
    what: "vkCmdDispatch(null, 1, 1, 1)",
    expect: /vkCmdDispatch: commandBuffer is null/,
    checkedOnly: true,
    run() {
      const { vk } = setup();
      vk.vkCmdDispatch(NULL as never, 1, 1, 1);
    },
  },
  {
    name: "device-not-a-handle",
    what: "a struct pointer passed as a VkDevice",
    expect: /vkDeviceWaitIdle: device .*not a VkDevice/,
    checkedOnly: true,
    run() {
      const { vk } = setup();
      vk.vkDeviceWaitIdle(notAHandle());
    },
  },
  {
    name: "device-foreign",
    what: "another loader's VkDevice passed to a device command",
    expect: /vkDeviceWaitIdle: device .*another Vulkan loader/,
    checkedOnly: true,
    run() {
      const { device } = setup();
      const other = Vulkan.load();
      other.vkDeviceWaitIdle(device);
    },
  },
  {
    name: "create-buffer-destroyed-device",
    what: "vkCreateBuffer (native stub) on a destroyed device",
    expect: /vkCreateBuffer: device .*destroyed/,
    checkedOnly: true,
    run() {
      const { vk, device, arena } = setup();
      vk.vkDestroyDevice(device, null);
      vk.vkCreateBuffer(device, bufferInfo(arena), null, slot());
    },
  },
  {
    name: "destroy-buffer-twice",
    what: "vkDestroyBuffer twice",
    expect: /vkDestroyBuffer: buffer .*destroyed/,
    checkedOnly: true,
    run() {
      const { vk, device, arena } = setup();
      const b = buffer(vk, arena, device);
      vk.vkDestroyBuffer(device, b, null);
      vk.vkDestroyBuffer(device, b, null);
    },
  },
  {
    name: "buffer-foreign-device",
    what: "a buffer of one device destroyed through another device",
    expect: /vkDestroyBuffer: buffer .*belongs to another VkDevice/,
    checkedOnly: true,
    run() {
      const { vk, device, arena, pd } = setup();
      const second = create(vk, "vkCreateDevice", [
        pd,
        writeStruct(arena, "VkDeviceCreateInfo", {
          pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
        }),
        null,
      ]);
      const b = buffer(vk, arena, device);
      vk.vkDestroyBuffer(second, b, null);
      vk.vkDestroyDevice(device, null); // lavapipe frees the buffer here if the wrong device took it
    },
  },
  {
    name: "command-buffer-of-destroyed-pool",
    what: "vkCmdSetLineWidth on a command buffer whose pool was destroyed",
    expect: /vkCmdSetLineWidth: commandBuffer .*destroyed/,
    checkedOnly: true,
    run() {
      const { vk, device, arena } = setup();
      const pool = create(vk, "vkCreateCommandPool", [
        device,
        writeStruct(arena, "VkCommandPoolCreateInfo", { queueFamilyIndex: 0 }),
        null,
      ]);
      const [cmd] = enumerateCommandBuffers(vk, arena, device, pool);
      vk.vkDestroyCommandPool(device, pool, null);
      vk.vkCmdSetLineWidth(cmd!, 1);
    },
  },
  {
    name: "create-null-device",
    what: 'create(vk, "vkCreateBuffer", [null, ...])',
    expect: /vkCreateBuffer: device is null/,
    run() {
      const { vk, arena } = setup();
      create(vk, "vkCreateBuffer", [NULL as VkDevice, bufferInfo(arena), null]);
    },
  },
  {
    name: "scope-create-null-device",
    what: 'scope.create("vkCreateBuffer", [null, ...])',
    expect: /vkCreateBuffer: device is null/,
    run() {
      const { vk } = setup();
      const scope = new VkScope(vk);
      scope.create("vkCreateBuffer", [NULL as VkDevice, bufferInfo(scope.arena), null]);
    },
  },
  {
    name: "scope-create-destroyed-device",
    what: "scope.create on a device destroyed by hand",
    expect: /vkCreateBuffer: device .*destroyed/,
    run() {
      const { vk, device } = setup();
      const scope = new VkScope(vk);
      vk.vkDestroyDevice(device, null);
      scope.create("vkCreateBuffer", [device, bufferInfo(scope.arena), null]);
    },
  },
  {
    name: "scope-buffer-destroyed-by-hand",
    what: "a scope-owned buffer destroyed by hand, then the scope disposed",
    expect: /vkDestroyBuffer: buffer .*destroyed/,
    checkedOnly: true,
    run() {
      const { vk, device } = setup();
      const scope = new VkScope(vk);
      const b = scope.create("vkCreateBuffer", [device, bufferInfo(scope.arena), null]);
      vk.vkDestroyBuffer(device, b, null);
      scope.dispose();
    },
  },
  {
    name: "scope-device-destroyed-by-hand",
    what: "a scope-owned device destroyed by hand with a scope-owned buffer, then the scope disposed",
    expect: /vkDestroyBuffer: device .*destroyed/,
    run() {
      const { vk, pd, arena } = setup();
      const scope = new VkScope(vk);
      const device = scope.create("vkCreateDevice", [
        pd,
        writeStruct(arena, "VkDeviceCreateInfo", {
          pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
        }),
        null,
      ]);
      scope.create("vkCreateBuffer", [device, bufferInfo(scope.arena), null]);
      vk.vkDestroyDevice(device, null);
      scope.dispose();
    },
  },
  {
    name: "scope-destroy-twice",
    what: "scope.destroy(buffer) twice",
    expect: /vkDestroyBuffer: buffer .*(destroyed|not owned)/,
    run() {
      const { vk, device } = setup();
      const scope = new VkScope(vk);
      const b = scope.create("vkCreateBuffer", [device, bufferInfo(scope.arena), null]);
      const destroy = (scope as unknown as { destroy(h: unknown): void }).destroy.bind(scope);
      destroy(b);
      destroy(b);
    },
  },
  {
    name: "idiomatic-null-device",
    what: "VkApi.of(vk).createBuffer(null, {...})",
    expect: /vkCreateBuffer: device is null/,
    run() {
      const { vk } = setup();
      VkApi.of(vk).createBuffer(NULL as VkDevice, { size: 256n, usage: VK_BUFFER_USAGE_TRANSFER_DST_BIT });
    },
  },
  {
    name: "idiomatic-destroyed-device",
    what: "VkApi.of(vk).deviceWaitIdle on a destroyed device",
    expect: /vkDeviceWaitIdle: device .*destroyed/,
    run() {
      const { vk, device } = setup();
      const api = VkApi.of(vk);
      api.destroyDevice(device);
      api.deviceWaitIdle(device);
    },
  },
  {
    name: "idiomatic-destroy-twice",
    what: "VkApi.of(vk).destroyBuffer twice",
    expect: /vkDestroyBuffer: buffer .*destroyed/,
    run() {
      const { vk, device } = setup();
      const api = VkApi.of(vk);
      const b = api.createBuffer(device, { size: 256n, usage: VK_BUFFER_USAGE_TRANSFER_DST_BIT });
      api.destroyBuffer(device, b);
      api.destroyBuffer(device, b);
    },
  },
  {
    name: "idiomatic-destroy-after-address-reuse",
    what: "VkApi.of(vk).destroyBuffer on a destroyed buffer whose address the driver gave a new buffer",
    expect: /vkDestroyBuffer: buffer .*destroyed/,
    run() {
      const { vk, device } = setup();
      const api = VkApi.of(vk);
      const info = { size: 256n, usage: VK_BUFFER_USAGE_TRANSFER_DST_BIT };
      const old = api.createBuffer(device, info);
      api.destroyBuffer(device, old);
      const at = Deno.UnsafePointer.value(old);
      // Drivers reuse a destroyed object's address (lavapipe at once); the new buffer there is live.
      for (let i = 0; i < 64; i++) {
        const b = api.createBuffer(device, info);
        if (Deno.UnsafePointer.value(b) === at) break;
      }
      api.destroyBuffer(device, old);
    },
  },
  {
    name: "idiomatic-scope-destroyed-early",
    what: "a VkApi scope's buffer destroyed through it early, then the scope disposed (no error), then again",
    expect: /vkDestroyBuffer: buffer .*destroyed/,
    run() {
      const { vk, device } = setup();
      const api = VkApi.of(vk).scope();
      const b = api.createBuffer(device, { size: 256n, usage: VK_BUFFER_USAGE_TRANSFER_DST_BIT });
      api.destroyBuffer(device, b);
      api.dispose(); // skips the buffer
      api.destroyBuffer(device, b);
    },
  },
  {
    name: "enumerate-wrong-struct",
    what: 'enumerate(vk.vkEnumerateInstanceLayerProperties, [], { struct: "VkExtensionProperties" })',
    expect: /vkEnumerateInstanceLayerProperties: .*VkLayerProperties.*not.*VkExtensionProperties/,
    run() {
      const vk = Vulkan.load();
      enumerate(vk.vkEnumerateInstanceLayerProperties, [], { struct: "VkExtensionProperties" } as never);
    },
  },
  {
    name: "enumerate-null-instance",
    what: "enumerate(vk.vkEnumeratePhysicalDevices, [null])",
    expect: /vkEnumeratePhysicalDevices: instance is null/,
    run() {
      const vk = Vulkan.load();
      enumerate(vk.vkEnumeratePhysicalDevices, [NULL as VkInstance]);
    },
  },
  {
    name: "dispose-with-live-objects",
    what: "the loader disposed while an instance and a device live",
    expect: /disposed with live objects: VkInstance 0x[0-9a-f]+ \(VkDevice 0x[0-9a-f]+\)/,
    run() {
      const { vk, device } = setup();
      const wait = vk.vkDeviceWaitIdle; // bound before: the device itself was not destroyed
      vk.dispose();
      vk.dispose(); // one warning, not two
      if (wait(device) !== 0) throw new Error("the live device stopped working");
    },
  },
  {
    name: "callback-closed-while-held",
    what: "a callback closed while a live debug messenger holds it",
    expect: /PFN_vkDebugUtilsMessengerCallbackEXT.*held by VkDebugUtilsMessengerEXT/,
    run() {
      const { vk, instance, arena } = setup(undefined, [VK_EXT_DEBUG_UTILS_EXTENSION_NAME]);
      const cb = makeCallback("PFN_vkDebugUtilsMessengerCallbackEXT", () => false);
      create(vk, "vkCreateDebugUtilsMessengerEXT", [
        instance,
        writeStruct(arena, "VkDebugUtilsMessengerCreateInfoEXT", {
          messageSeverity: VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
          messageType: VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT,
          pfnUserCallback: cb.pointer,
        }),
        null,
      ]);
      cb.dispose();
    },
  },
  {
    name: "allocator-closed-while-buffer-lives",
    what:
      "a buffer's allocation callbacks closed before vkDestroyBuffer, a new free callback made, the buffer destroyed",
    expect: /PFN_vkAllocationFunction: .*held by VkBuffer 0x[0-9a-f]+ \(vkCreateBuffer\)/,
    checkedOnly: true,
    run() {
      const { vk, device, arena } = setup();
      const allocator = libcAllocator(arena);
      const b = create(vk, "vkCreateBuffer", [device, bufferInfo(arena), allocator.pointer]);
      for (const cb of allocator.callbacks) cb.dispose();
      // A closed callback's address goes to the next callback of its type: the driver frees through that one.
      let stale = 0;
      makeCallback("PFN_vkFreeFunction", () => void stale++);
      vk.vkDestroyBuffer(device, b, allocator.pointer);
      if (stale > 0) {
        throw new Error("stale allocation callbacks: vkDestroyBuffer freed through a later callback");
      }
    },
  },
  {
    name: "stale-callback-reused",
    what: "a messenger's callback closed, the next callback made, an error message submitted",
    expect: /stale|held by VkDebugUtilsMessengerEXT/,
    run() {
      const { vk, instance, arena } = setup(undefined, [VK_EXT_DEBUG_UTILS_EXTENSION_NAME]);
      const first = makeCallback("PFN_vkDebugUtilsMessengerCallbackEXT", () => false);
      const messenger = (severity: VkDebugUtilsMessageSeverityFlagsEXT, pfn: Deno.PointerObject) =>
        create(vk, "vkCreateDebugUtilsMessengerEXT", [
          instance,
          writeStruct(arena, "VkDebugUtilsMessengerCreateInfoEXT", {
            messageSeverity: severity,
            messageType: VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT,
            pfnUserCallback: pfn,
          }),
          null,
        ]);
      messenger(VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT, first.pointer);
      let refused: unknown;
      try {
        first.dispose();
      } catch (e) {
        refused = e;
      }
      let heard = 0;
      const second = makeCallback("PFN_vkDebugUtilsMessengerCallbackEXT", () => {
        heard++;
        return false;
      });
      messenger(VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT, second.pointer);
      vk.vkSubmitDebugUtilsMessageEXT(
        instance,
        VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT,
        writeStruct(arena, "VkDebugUtilsMessengerCallbackDataEXT", { pMessage: "error only" }),
      );
      if (heard > 0) {
        throw new Error(`stale messenger delivered ${heard} error message(s) to a warning-only callback`);
      }
      if (refused) throw refused;
    },
  },
  {
    name: "struct-member-destroyed-buffer",
    what: "vkUpdateDescriptorSets with a destroyed buffer in a VkWriteDescriptorSet's pBufferInfo",
    expect: /vkUpdateDescriptorSets: pDescriptorWrites\[0\]\.pBufferInfo\[0\]\.buffer .*destroyed/,
    checkedOnly: true,
    run() {
      const { vk, device } = setup();
      const api = VkApi.of(vk);
      const type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      const pBindings = [{
        binding: 0,
        descriptorType: type,
        descriptorCount: 1,
        stageFlags: VK_SHADER_STAGE_COMPUTE_BIT,
      }];
      const setLayout = api.createDescriptorSetLayout(device, { pBindings });
      const pPoolSizes = [{ type, descriptorCount: 1 }];
      const descriptorPool = api.createDescriptorPool(device, { maxSets: 1, pPoolSizes });
      const [set] = api.allocateDescriptorSets(device, { descriptorPool, pSetLayouts: [setLayout] });
      const buffer = api.createBuffer(device, { size: 256n, usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT });
      vk.vkDestroyBuffer(device, buffer, null); // raw: VkApi's own record would refuse it first
      const pBufferInfo = [{ buffer, range: 256n }];
      api.updateDescriptorSets(device, [{ dstSet: set!, descriptorType: type, pBufferInfo }]);
    },
  },
  {
    name: "struct-member-set-of-destroyed-pool",
    what: "vkUpdateDescriptorSets with a VkWriteDescriptorSet whose dstSet VkApi ended with its pool",
    expect: /member "dstSet" of "VkWriteDescriptorSet": 0x[0-9a-f]+ was destroyed with its VkDescriptorPool/,
    run() {
      const { vk, device } = setup();
      const api = VkApi.of(vk);
      const type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      const pBindings = [{ binding: 0, descriptorType: type, descriptorCount: 1 }];
      const setLayout = api.createDescriptorSetLayout(device, { pBindings });
      const pPoolSizes = [{ type, descriptorCount: 1 }];
      const descriptorPool = api.createDescriptorPool(device, { maxSets: 1, pPoolSizes });
      const [set] = api.allocateDescriptorSets(device, { descriptorPool, pSetLayouts: [setLayout] });
      const buffer = api.createBuffer(device, { size: 256n, usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT });
      api.destroyDescriptorPool(device, descriptorPool);
      const pBufferInfo = [{ buffer, range: 256n }];
      api.updateDescriptorSets(device, [{ dstSet: set!, descriptorType: type, pBufferInfo }]);
    },
  },
  {
    name: "count-above-array",
    what: "vkQueueSubmit with a VkSubmitInfo whose commandBufferCount exceeds its pCommandBuffers",
    expect: /"commandBufferCount" of "VkSubmitInfo": "pCommandBuffers" has 1 element/,
    run() {
      const { vk, device } = setup();
      const api = VkApi.of(vk);
      const { cb } = recordedCommandBuffer(api, device);
      const submit = { commandBufferCount: 2, pCommandBuffers: [cb] };
      api.queueSubmit(api.getDeviceQueue(device, 0, 0), [submit]);
    },
  },
  {
    name: "struct-member-freed-command-buffer",
    what: "vkQueueSubmit with a freed command buffer in a VkSubmitInfo",
    expect:
      /vkQueueSubmit: pSubmits\[0\]\.pCommandBuffers\[0\] 0x[0-9a-f]+ was freed \(vkFreeCommandBuffers\)/,
    checkedOnly: true,
    run() {
      const { vk, device } = setup();
      const api = VkApi.of(vk);
      const { commandPool, cb } = recordedCommandBuffer(api, device);
      using arena = new Arena();
      vk.vkFreeCommandBuffers(device, commandPool, 1, arena.pointerArray([cb])); // raw, as above
      api.queueSubmit(api.getDeviceQueue(device, 0, 0), [{ pCommandBuffers: [cb] }]);
    },
  },
];

/** Allocation callbacks over libc's allocator, as an application tracking its driver memory writes them. */
function libcAllocator(arena: Arena) {
  const libc = Deno.dlopen("libc.so.6", {
    aligned_alloc: { parameters: ["usize", "usize"], result: "pointer" },
    realloc: { parameters: ["pointer", "usize"], result: "pointer" },
    free: { parameters: ["pointer"], result: "void" },
  }).symbols;
  const up = (size: number | bigint, align: number | bigint) =>
    (BigInt(size) + BigInt(align) - 1n) / BigInt(align) * BigInt(align);
  const callbacks = [
    makeCallback(
      "PFN_vkAllocationFunction",
      (_u, size, align) => libc.aligned_alloc(BigInt(align), up(size, align)),
    ),
    makeCallback("PFN_vkReallocationFunction", (_u, p, size) => libc.realloc(p, BigInt(size))),
    makeCallback("PFN_vkFreeFunction", (_u, p) => libc.free(p)),
  ] as const;
  const pointer = writeStruct(arena, "VkAllocationCallbacks", {
    pfnAllocation: callbacks[0].pointer,
    pfnReallocation: callbacks[1].pointer,
    pfnFree: callbacks[2].pointer,
  });
  return { pointer, callbacks };
}

function enumerateCommandBuffers(vk: Vk, arena: Arena, device: VkDevice, pool: unknown) {
  const out = new BigUint64Array(new ArrayBuffer(8));
  vk.vkAllocateCommandBuffers(
    device,
    writeStruct(arena, "VkCommandBufferAllocateInfo", {
      commandPool: pool as never,
      level: VK_COMMAND_BUFFER_LEVEL_PRIMARY,
      commandBufferCount: 1,
    }),
    Deno.UnsafePointer.of(out),
  );
  return [Deno.UnsafePointer.create(out[0]!) as never];
}
