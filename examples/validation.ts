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
import { makeCallback, VkApi, type VkCommandSource, VkError } from "../mod.ts";
import { createInstance, findDevice } from "./_helpers.ts";
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

const SEVERITIES: Readonly<Record<number, ValidationReport["severity"]>> = {
  [vkc.VK_DEBUG_UTILS_MESSAGE_SEVERITY_VERBOSE_BIT_EXT]: "verbose",
  [vkc.VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT]: "info",
  [vkc.VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT]: "warning",
  [vkc.VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT]: "error",
};

/**
 * Creates an instance with the validation layer and a messenger, a device, and a buffer of size 0;
 * returns the validation messages of severity warning and error, in the order they came.
 *
 * @example Usage
 * ```ts ignore
 * import { openLoader } from "./_loader.ts";
 * import { zeroSizeBufferReports } from "./validation.ts";
 * using raw = await openLoader("vkdeno");
 * console.log(zeroSizeBufferReports(raw)[0]?.id); // "VUID-VkBufferCreateInfo-size-00912"
 * ```
 * @throws {Error} If the validation layer is not installed.
 * @throws {NoDeviceError} If there is no Vulkan device.
 */
export function zeroSizeBufferReports(raw: VkCommandSource): ValidationReport[] {
  using vk = VkApi.of(raw).scope(); // destroys what it creates, last first, also on a throw
  if (!vk.enumerateInstanceLayerProperties().some((l) => l.layerName === VALIDATION_LAYER)) {
    throw new Error(
      `Cannot find layer "${VALIDATION_LAYER}": install it (Debian: apt-get install vulkan-validationlayers)`,
    );
  }
  const reports: ValidationReport[] = [];

  // The messenger: PFN_vkDebugUtilsMessengerCallbackEXT as a TypeScript function; `data` arrives read,
  // its strings decoded. The layer calls it on the thread that made the faulty call. Made first, it is
  // closed last, after the instance (and with it the messenger) is gone.
  const callback = vk.use(makeCallback("PFN_vkDebugUtilsMessengerCallbackEXT", (severity, _types, data) => {
    reports.push({
      id: data?.pMessageIdName ?? "",
      severity: SEVERITIES[severity] ?? "info",
      message: data?.pMessage ?? "",
    });
    return false; // VK_FALSE: the call that triggered the message goes on
  }));
  const instance = createInstance(vk, {
    pApplicationInfo: { pApplicationName: "vkdeno validation", apiVersion: vkc.VK_API_VERSION_1_0 },
    ppEnabledLayerNames: [VALIDATION_LAYER],
    ppEnabledExtensionNames: [vkc.VK_EXT_DEBUG_UTILS_EXTENSION_NAME],
  });
  vk.createDebugUtilsMessengerEXT(instance, {
    messageSeverity: vkc.flags(
      vkc.VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
      vkc.VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
    ),
    messageType: vkc.flags(
      vkc.VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT,
      vkc.VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
      vkc.VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
    ),
    pfnUserCallback: callback.pointer,
  });
  const [gpu, queueFamilyIndex] = findDevice(vk, instance, 0);
  const device = vk.createDevice(gpu, { pQueueCreateInfos: [{ queueFamilyIndex, pQueuePriorities: [1] }] });

  // The mistake: size must be greater than 0. The layer reports it and may skip the call
  // (VK_ERROR_VALIDATION_FAILED_EXT, thrown); a buffer the driver created anyway is destroyed by the scope.
  try {
    vk.createBuffer(device, { size: 0n, usage: vkc.VK_BUFFER_USAGE_STORAGE_BUFFER_BIT });
  } catch (e) {
    if (!(e instanceof VkError)) throw e;
  }
  return reports;
}

if (import.meta.main) {
  await runExample(Deno.args, (raw) => {
    const reports = zeroSizeBufferReports(raw);
    for (const r of reports) console.log(`${r.id} (${r.severity}): ${r.message}`);
    if (reports.length === 0) throw new Error("The validation layer reported nothing for a buffer of size 0");
  });
}
