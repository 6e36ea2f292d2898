/**
 * Enables the Khronos validation layer and a `VK_EXT_debug_utils` messenger written in TypeScript, makes a
 * mistake on purpose (a buffer of size 0) and prints what the layer reports, VUID first:
 *
 * ```sh
 * deno run --allow-read --allow-env --allow-ffi examples/validation.ts [--loader=vkdeno|libvulkan]
 * # VUID-VkBufferCreateInfo-size-00912 (error): Validation Error: [ VUID-VkBufferCreateInfo-size-00912 ] ...
 * ```
 *
 * Exits 1 when the layer is not installed (Debian: `vulkan-validationlayers`) or reports nothing.
 *
 * @module
 */
import * as vkc from "../mod.ts";
import {
  asHandle,
  enumerate,
  readPointer,
  VkApi,
  VkScope,
  type VulkanCommands,
  writeStruct,
} from "../mod.ts";
import { createInstanceIn, findDevice } from "./_helpers.ts";
import { runExample } from "./_loader.ts";

/** The layer this example enables. */
export const VALIDATION_LAYER = "VK_LAYER_KHRONOS_validation";

/** One message the messenger received. */
export interface ValidationReport {
  /** The VUID or other message id name, e.g. `"VUID-VkBufferCreateInfo-size-00912"`. */
  id: string;
  severity: "verbose" | "info" | "warning" | "error";
  message: string;
}

const SEVERITIES = {
  [vkc.VK_DEBUG_UTILS_MESSAGE_SEVERITY_VERBOSE_BIT_EXT]: "verbose",
  [vkc.VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT]: "info",
  [vkc.VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT]: "warning",
  [vkc.VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT]: "error",
} as const;

/**
 * Creates an instance with the validation layer and a messenger, a device, and a buffer of size 0;
 * returns the validation messages of severity warning and error, in the order they came.
 *
 * @example Usage
 * ```ts ignore
 * import { openLoader } from "./_loader.ts";
 * import { zeroSizeBufferReports } from "./validation.ts";
 * using vk = await openLoader("vkdeno");
 * console.log(zeroSizeBufferReports(vk)[0]?.id); // "VUID-VkBufferCreateInfo-size-00912"
 * ```
 * @throws {Error} If the validation layer is not installed.
 * @throws {NoDeviceError} If there is no Vulkan device.
 */
export function zeroSizeBufferReports(vk: VulkanCommands): ValidationReport[] {
  const layers = enumerate(vk.vkEnumerateInstanceLayerProperties, [], { struct: "VkLayerProperties" });
  if (!layers.some((l) => l.layerName === VALIDATION_LAYER)) {
    throw new Error(
      `Cannot find layer "${VALIDATION_LAYER}": install it (Debian: apt-get install vulkan-validationlayers)`,
    );
  }
  using scope = new VkScope(vk); // destroys what it created in reverse order, also on a throw
  const arena = scope.arena;
  const reports: ValidationReport[] = [];

  // The messenger: PFN_vkDebugUtilsMessengerCallbackEXT as a TypeScript function; `data` arrives read,
  // its strings decoded. The layer calls it on the thread that made the faulty call. The scope closes it
  // last, after the instance (and with it the messenger) is gone.
  const callback = scope.callback("PFN_vkDebugUtilsMessengerCallbackEXT", (severity, _types, data) => {
    const name = SEVERITIES[severity as keyof typeof SEVERITIES] ?? "info";
    reports.push({ id: data?.pMessageIdName ?? "", severity: name, message: data?.pMessage ?? "" });
    return false; // VK_FALSE: the call that triggered the message goes on
  });
  const messengerInfo = {
    messageSeverity: vkc.flags(
      vkc.VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
      vkc.VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
    ),
    messageType: vkc.flags(
      vkc.VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT,
      vkc.VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
      vkc.VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
    ),
    pfnUserCallback: callback,
  };

  const instanceInfo = writeStruct(arena, "VkInstanceCreateInfo", {
    pApplicationInfo: { pApplicationName: "vkdeno validation", apiVersion: vkc.VK_API_VERSION_1_0 },
    ppEnabledLayerNames: [VALIDATION_LAYER],
    ppEnabledExtensionNames: [vkc.VK_EXT_DEBUG_UTILS_EXTENSION_NAME],
  });
  const instance = createInstanceIn(scope, instanceInfo);
  const info = writeStruct(arena, "VkDebugUtilsMessengerCreateInfoEXT", messengerInfo);
  scope.create("vkCreateDebugUtilsMessengerEXT", [instance, info, null]);
  const [gpu, queueFamilyIndex] = findDevice(VkApi.of(vk), instance, 0);
  const pQueueCreateInfos = [{ queueFamilyIndex, pQueuePriorities: [1] }];
  const device = scope.create("vkCreateDevice", [
    gpu,
    writeStruct(arena, "VkDeviceCreateInfo", { pQueueCreateInfos }),
    null,
  ]);

  // The mistake: size must be greater than 0. The layer reports it and may skip the call
  // (VK_ERROR_VALIDATION_FAILED_EXT); a buffer the driver created anyway is destroyed.
  const bufferInfo = { size: 0n, usage: vkc.VK_BUFFER_USAGE_STORAGE_BUFFER_BIT };
  const out = arena.pointer(arena.alloc(8));
  const result = vk.vkCreateBuffer(device, writeStruct(arena, "VkBufferCreateInfo", bufferInfo), null, out);
  const buffer = asHandle("VkBuffer", readPointer(out));
  if (result === vkc.VK_SUCCESS && buffer !== null) vk.vkDestroyBuffer(device, buffer, null);
  return reports;
}

if (import.meta.main) {
  await runExample(Deno.args, (vk) => {
    const reports = zeroSizeBufferReports(vk);
    for (const r of reports) console.log(`${r.id} (${r.severity}): ${r.message}`);
    if (reports.length === 0) throw new Error("The validation layer reported nothing for a buffer of size 0");
  });
}
