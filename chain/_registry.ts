/**
 * Process-wide lookups from native handle addresses to the loader's objects. Terminators and
 * trampolines receive bare handles from C; these maps find what they belong to (cold paths only).
 *
 * @module
 */

import type { LoaderDevice } from "./device.ts";
import type { LoaderInstance } from "./instance.ts";
import type { TermPhysicalDevice, TrampPhysicalDevice } from "./physical_device.ts";

/** Loader instances by the address of their `VkInstance`. */
export const instances: Map<bigint, LoaderInstance> = new Map();
/** Application-visible physical devices by address. */
export const trampPhysicalDevices: Map<bigint, TrampPhysicalDevice> = new Map();
/** Terminator physical devices by address. */
export const termPhysicalDevices: Map<bigint, TermPhysicalDevice> = new Map();
/** Terminator physical devices by the address of the driver's own `VkPhysicalDevice`. */
export const driverPhysicalDevices: Map<bigint, TermPhysicalDevice> = new Map();
/** Devices by the address of their `VkDevice` (the driver's object, stamped with the loader's table). */
export const devices: Map<bigint, LoaderDevice> = new Map();

/** The address of a handle (0n for null). */
export function key(handle: Deno.PointerValue | unknown): bigint {
  return handle === null || handle === undefined
    ? 0n
    : BigInt(Deno.UnsafePointer.value(handle as Deno.PointerValue));
}
