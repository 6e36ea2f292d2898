/**
 * Child process of tools/gpu_check.ts: the validation layer through vkdeno reports an invalid
 * `vkCreateBuffer` to a debug-utils messenger; prints `GPU_VUID <json>`.
 *
 * @module
 */

import { Vulkan } from "../vulkan.ts";
import { CallbackOwner } from "../ffi/callback.ts";
import { Arena, readCString, readPointer } from "../ffi/memory.ts";
import { writeStruct } from "../api/structs.ts";
import { asHandle, readHandle } from "../vk/handle.ts";
import {
  flags,
  VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
  VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
  VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT,
  VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
  VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
} from "../mod.ts";

/** What the child prints after `GPU_VUID `. */
export interface VuidProbe {
  results: Record<string, number>;
  ids: string[];
  /** The first message's text, for the report. */
  firstMessage?: string;
}

function probe(): VuidProbe {
  const results: Record<string, number> = {};
  const ids: string[] = [];
  let firstMessage: string | undefined;
  using vk = Vulkan.load();
  using arena = new Arena();
  using callbacks = new CallbackOwner();
  const messenger = callbacks.create(
    { parameters: ["u32", "u32", "pointer", "pointer"], result: "u32" },
    (_severity, _type, data) => {
      // VkDebugUtilsMessengerCallbackDataEXT: pMessageIdName at 24, pMessage at 40.
      ids.push(readCString(readPointer(data, 24)));
      firstMessage ??= readCString(readPointer(data, 40)).slice(0, 400);
      return 0;
    },
    { name: "gpu_check messenger", onError: 0 },
  );
  const slot = arena.pointer(arena.alloc(8));
  results.vkCreateInstance = vk.vkCreateInstance(
    writeStruct(arena, "VkInstanceCreateInfo", {
      pApplicationInfo: { apiVersion: (1 << 22) | (3 << 12) },
      ppEnabledLayerNames: ["VK_LAYER_KHRONOS_validation"],
      ppEnabledExtensionNames: ["VK_EXT_debug_utils"],
    }),
    null,
    slot,
  );
  if (results.vkCreateInstance !== 0) return { results, ids };
  const instance = readHandle("VkInstance", slot, 0)!;
  const handle = arena.pointer(arena.alloc(8));
  results.vkCreateDebugUtilsMessengerEXT = vk.vkCreateDebugUtilsMessengerEXT(
    instance,
    writeStruct(arena, "VkDebugUtilsMessengerCreateInfoEXT", {
      messageSeverity: flags(
        VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
        VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
      ),
      messageType: flags(
        VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT,
        VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
        VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
      ),
      pfnUserCallback: messenger.pointer,
    }),
    null,
    handle,
  );
  const count = new Uint32Array([8]);
  const pds = new BigUint64Array(8);
  results.vkEnumeratePhysicalDevices = vk.vkEnumeratePhysicalDevices(
    instance,
    Deno.UnsafePointer.of(count),
    Deno.UnsafePointer.of(pds),
  );
  const dslot = arena.pointer(arena.alloc(8));
  results.vkCreateDevice = count[0]! > 0
    ? vk.vkCreateDevice(
      asHandle("VkPhysicalDevice", Deno.UnsafePointer.create(pds[0]!))!,
      writeStruct(arena, "VkDeviceCreateInfo", {
        pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
      }),
      null,
      dslot,
    )
    : -1;
  if (results.vkCreateDevice === 0) {
    const device = readHandle("VkDevice", dslot, 0)!;
    // The layer calls the messenger (JavaScript) from inside vkCreateBuffer: a callback-capable FFI call.
    const createBuffer = new Deno.UnsafeFnPointer(
      vk.vkGetDeviceProcAddr(device, "vkCreateBuffer") as Deno.PointerObject<never>,
      {
        parameters: ["pointer", "pointer", "pointer", "pointer"],
        result: "i32",
        nonblocking: false,
        callback: true,
      } as const,
    );
    const buffer = arena.pointer(arena.alloc(8));
    results.vkCreateBuffer = createBuffer.call(
      device,
      writeStruct(arena, "VkBufferCreateInfo", { size: 0n, usage: 0 }),
      null,
      buffer,
    );
    if (readPointer(buffer, 0) !== null) {
      vk.vkDestroyBuffer(device, readHandle("VkBuffer", buffer, 0), null);
    }
    vk.vkDestroyDevice(device, null);
  }
  if (results.vkCreateDebugUtilsMessengerEXT === 0) {
    vk.vkDestroyDebugUtilsMessengerEXT(instance, readHandle("VkDebugUtilsMessengerEXT", handle, 0), null);
  }
  vk.vkDestroyInstance(instance, null);
  return firstMessage === undefined ? { results, ids } : { results, ids, firstMessage };
}

if (import.meta.main) {
  console.log(`GPU_VUID ${JSON.stringify(probe())}`);
}
