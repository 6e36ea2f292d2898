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
import type { VulkanCommands } from "../vulkan.ts";
import { Arena, readCString, readPointer } from "../ffi/memory.ts";
import { check, enumerate, readStruct, writeStruct } from "../ffi/structs.ts";
import { INSTALL_HINT, loaderArg, type LoaderCommands, NoDeviceError, openLoader } from "./_loader.ts";

/** The layer this example enables. */
export const VALIDATION_LAYER = "VK_LAYER_KHRONOS_validation";

/** One message the messenger received. */
export interface ValidationReport {
  /** The VUID or other message id name, e.g. `"VUID-VkBufferCreateInfo-size-00912"`. */
  id: string;
  severity: "verbose" | "info" | "warning" | "error";
  message: string;
}

const SEVERITIES = { 0x1: "verbose", 0x10: "info", 0x100: "warning", 0x1000: "error" } as const;

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
export function zeroSizeBufferReports(vk: LoaderCommands): ValidationReport[] {
  using arena = new Arena();
  using cleanup = new DisposableStack();
  const reports: ValidationReport[] = [];
  const layers = enumerate(vk.vkEnumerateInstanceLayerProperties, [], { struct: "VkLayerProperties" });
  if (!layers.some((l) => l.layerName === VALIDATION_LAYER)) {
    throw new Error(
      `Cannot find layer "${VALIDATION_LAYER}": install it (Debian: apt-get install vulkan-validationlayers)`,
    );
  }

  // The messenger: PFN_vkDebugUtilsMessengerCallbackEXT as a TypeScript function. The layer calls it on
  // the thread that made the faulty call, so a plain (not thread-safe) callback is enough.
  const callback = new Deno.UnsafeCallback(
    { parameters: ["u32", "u32", "pointer", "pointer"], result: "u32" } as const,
    (severity, _types, pData) => {
      const data = readStruct("VkDebugUtilsMessengerCallbackDataEXT", pData);
      reports.push({
        id: data.pMessageIdName === null ? "" : readCString(data.pMessageIdName as Deno.PointerObject),
        severity: SEVERITIES[severity as keyof typeof SEVERITIES] ?? "info",
        message: data.pMessage === null ? "" : readCString(data.pMessage as Deno.PointerObject),
      });
      return 0; // VK_FALSE: the call that triggered the message goes on
    },
  );
  cleanup.defer(() => callback.close());
  const messengerInfo = {
    messageSeverity: 0x100 | 0x1000, // WARNING | ERROR
    messageType: 0x1 | 0x2 | 0x4, // GENERAL | VALIDATION | PERFORMANCE
    pfnUserCallback: callback.pointer,
  };

  const out = arena.pointer(arena.alloc(8));
  check(
    vk.vkCreateInstance(
      writeStruct(arena, "VkInstanceCreateInfo", {
        pApplicationInfo: { pApplicationName: "vkdeno validation", apiVersion: 1 << 22 },
        ppEnabledLayerNames: [VALIDATION_LAYER],
        ppEnabledExtensionNames: ["VK_EXT_debug_utils"],
      }),
      null,
      out,
    ),
    "vkCreateInstance",
  );
  const instance = readPointer(out);
  cleanup.defer(() => vk.vkDestroyInstance(instance, null));
  check(
    vk.vkCreateDebugUtilsMessengerEXT(
      instance,
      writeStruct(arena, "VkDebugUtilsMessengerCreateInfoEXT", messengerInfo),
      null,
      out,
    ),
    "vkCreateDebugUtilsMessengerEXT",
  );
  const messenger = readPointer(out);
  cleanup.defer(() => vk.vkDestroyDebugUtilsMessengerEXT(instance, messenger, null));

  const gpu = enumerate(vk.vkEnumeratePhysicalDevices, [instance])[0];
  if (gpu === undefined) throw new NoDeviceError("no Vulkan device");
  check(
    vk.vkCreateDevice(
      gpu,
      writeStruct(arena, "VkDeviceCreateInfo", {
        pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
      }),
      null,
      out,
    ),
    "vkCreateDevice",
  );
  const device = readPointer(out);
  const d = vk.deviceTable(device) as VulkanCommands;
  cleanup.defer(() => d.vkDestroyDevice(device, null));

  // The mistake: size must be greater than 0. The layer reports it and may skip the call
  // (VK_ERROR_VALIDATION_FAILED_EXT); if the driver created a buffer anyway, it is destroyed.
  const result = d.vkCreateBuffer(
    device,
    writeStruct(arena, "VkBufferCreateInfo", { size: 0n, usage: 0x20 }), // STORAGE_BUFFER
    null,
    out,
  );
  const buffer = readPointer(out);
  if (result === 0 && buffer !== null) d.vkDestroyBuffer(device, buffer, null);
  return reports;
}

if (import.meta.main) {
  const loader = loaderArg(Deno.args);
  try {
    using vk = await openLoader(loader);
    const reports = zeroSizeBufferReports(vk);
    for (const r of reports) console.log(`${r.id} (${r.severity}): ${r.message}`);
    if (reports.length === 0) {
      console.error("The validation layer reported nothing for a buffer of size 0");
      Deno.exit(1);
    }
  } catch (e) {
    console.error(e instanceof NoDeviceError ? `${INSTALL_HINT}\n(${e.message})` : (e as Error).message);
    Deno.exit(1);
  }
}
