/**
 * Instance-level commands the loader answers for drivers that lack them (docs/behaviour.md I12).
 *
 * @module
 */

import { COMMAND_INDEX, COMMANDS } from "../vk/generated/commands.ts";
import { address, nativeBytes, type Pointer, pointerFromAddress, readU32, writeU32 } from "../ffi/memory.ts";
import { handleKey, handleText } from "../vk/handle_key.ts";
import type { HandleMaps } from "./objects.ts";
import { offsetOf, sizeOf } from "../vk/struct_layout.ts";
import { VK_SUCCESS } from "../vk/generated/vk_constants.js";

type Body = (...args: unknown[]) => unknown;
/** The loader's terminator physical devices by the driver's handle: where a body finds the driver. */
type Devices = HandleMaps["driverPhysicalDevices"];

function original(
  devices: Devices,
  pd: Pointer,
  name: string,
): ((...args: unknown[]) => unknown) | undefined {
  const term = devices.get(handleKey(pd));
  if (!term) throw new TypeError(`${name}: unknown driver VkPhysicalDevice "${handleText(handleKey(pd))}"`);
  return term.driverInstance.fn(name) ?? undefined;
}

function at(p: Pointer, offset: number): Pointer {
  return p === null ? null : pointerFromAddress(address(p) + BigInt(offset));
}

function embedded(
  devices: Devices,
  name: string,
  original: string,
  outParam: number,
  outStruct: string,
  member: string,
): Body {
  const offset = offsetOf(outStruct, member);
  return (...args) => {
    const fn = requireOriginal(devices, args[0] as Pointer, name, original);
    const next = [...args];
    next[outParam] = at(args[outParam] as Pointer, offset);
    return fn(...next);
  };
}

function requireOriginal(devices: Devices, pd: Pointer, name: string, originalName: string) {
  const fn = original(devices, pd, originalName);
  if (!fn) throw new TypeError(`${name}: the driver lacks "${originalName}" as well`);
  return fn;
}

/** Two-call queries: the 1.0 array is read into a scratch buffer, then copied into the `*2` structs. */
function arrayQuery(
  devices: Devices,
  name: string,
  originalName: string,
  countParam: number,
  outStruct: string,
  member: string,
  elementStruct: string,
  makeArgs: (args: unknown[], count: Pointer, out: Pointer) => unknown[],
): Body {
  const stride = sizeOf(outStruct);
  const inner = offsetOf(outStruct, member);
  const size = sizeOf(elementStruct);
  return (...args) => {
    const fn = requireOriginal(devices, args[0] as Pointer, name, originalName);
    const pCount = args[countParam] as Pointer;
    const pOut = args[countParam + 1] as Pointer;
    if (pOut === null) return fn(...makeArgs(args, pCount, null));
    const n = readU32(pCount, 0);
    const scratch = new Uint8Array(new ArrayBuffer(Math.max(1, n * size)));
    const result = fn(...makeArgs(args, pCount, Deno.UnsafePointer.of(scratch)));
    const got = readU32(pCount, 0);
    for (let i = 0; i < got; i++) {
      nativeBytes(pOut, size, i * stride + inner).set(scratch.subarray(i * size, (i + 1) * size));
    }
    return result;
  };
}

const BODIES: Record<string, (devices: Devices) => Body> = {
  vkGetPhysicalDeviceFeatures2: (devices) =>
    embedded(
      devices,
      "vkGetPhysicalDeviceFeatures2",
      "vkGetPhysicalDeviceFeatures",
      1,
      "VkPhysicalDeviceFeatures2",
      "features",
    ),
  vkGetPhysicalDeviceProperties2: (devices) =>
    embedded(
      devices,
      "vkGetPhysicalDeviceProperties2",
      "vkGetPhysicalDeviceProperties",
      1,
      "VkPhysicalDeviceProperties2",
      "properties",
    ),
  vkGetPhysicalDeviceFormatProperties2: (devices) =>
    embedded(
      devices,
      "vkGetPhysicalDeviceFormatProperties2",
      "vkGetPhysicalDeviceFormatProperties",
      2,
      "VkFormatProperties2",
      "formatProperties",
    ),
  vkGetPhysicalDeviceMemoryProperties2: (devices) =>
    embedded(
      devices,
      "vkGetPhysicalDeviceMemoryProperties2",
      "vkGetPhysicalDeviceMemoryProperties",
      1,
      "VkPhysicalDeviceMemoryProperties2",
      "memoryProperties",
    ),
  vkGetPhysicalDeviceImageFormatProperties2: (devices) => {
    const s = "VkPhysicalDeviceImageFormatInfo2";
    const [format, type, tiling, usage, flags] = ["format", "type", "tiling", "usage", "flags"].map((m) =>
      offsetOf(s, m)
    ) as [number, number, number, number, number];
    const out = offsetOf("VkImageFormatProperties2", "imageFormatProperties");
    return (pd, pInfo, pProps) => {
      const fn = requireOriginal(
        devices,
        pd as Pointer,
        "vkGetPhysicalDeviceImageFormatProperties2",
        "vkGetPhysicalDeviceImageFormatProperties",
      );
      const i = pInfo as Pointer;
      return fn(
        pd,
        readU32(i, format),
        readU32(i, type),
        readU32(i, tiling),
        readU32(i, usage),
        readU32(i, flags),
        at(pProps as Pointer, out),
      );
    };
  },
  vkGetPhysicalDeviceQueueFamilyProperties2: (devices) =>
    arrayQuery(
      devices,
      "vkGetPhysicalDeviceQueueFamilyProperties2",
      "vkGetPhysicalDeviceQueueFamilyProperties",
      1,
      "VkQueueFamilyProperties2",
      "queueFamilyProperties",
      "VkQueueFamilyProperties",
      (args, count, out) => [args[0], count, out],
    ),
  vkGetPhysicalDeviceSparseImageFormatProperties2: (devices) => {
    const s = "VkPhysicalDeviceSparseImageFormatInfo2";
    const [format, type, samples, usage, tiling] = ["format", "type", "samples", "usage", "tiling"].map((m) =>
      offsetOf(s, m)
    ) as [number, number, number, number, number];
    return arrayQuery(
      devices,
      "vkGetPhysicalDeviceSparseImageFormatProperties2",
      "vkGetPhysicalDeviceSparseImageFormatProperties",
      2,
      "VkSparseImageFormatProperties2",
      "properties",
      "VkSparseImageFormatProperties",
      (args, count, out) => {
        const i = args[1] as Pointer;
        return [
          args[0],
          readU32(i, format),
          readU32(i, type),
          readU32(i, samples),
          readU32(i, usage),
          readU32(i, tiling),
          count,
          out,
        ];
      },
    );
  },
  vkGetPhysicalDeviceToolProperties: () => (_pd, pCount) => {
    writeU32(pCount as Pointer, 0, 0);
    return VK_SUCCESS;
  },
};

let emulatedSlotSet: ReadonlySet<number> | undefined;

/**
 * Slots (command indices) the loader can emulate. Built on first use, not at import: the command index
 * decodes all 737 command entries (see chain/stubs.ts `slotNames`).
 *
 * @example Usage
 * ```ts
 * import { emulatedSlots } from "./emulation.ts";
 * import { COMMAND_INDEX } from "../vk/generated/commands.ts";
 * console.log(emulatedSlots().has(COMMAND_INDEX.vkGetPhysicalDeviceFeatures2KHR!)); // true
 * ```
 */
export function emulatedSlots(): ReadonlySet<number> {
  return emulatedSlotSet ??= new Set(Object.keys(BODIES).map((n) => COMMAND_INDEX[n]!));
}

/**
 * The emulation body for the command in `slot`, or undefined when the loader cannot supply it. The body
 * finds the driver behind the `VkPhysicalDevice` it is called with in `handleMaps` (its loader's).
 *
 * @example Usage
 * ```ts
 * import { COMMAND_INDEX } from "../vk/generated/commands.ts";
 * import { emulation } from "./emulation.ts";
 * import { HandleMaps } from "./objects.ts";
 * const handleMaps = new HandleMaps();
 * console.log(emulation(COMMAND_INDEX.vkGetPhysicalDeviceProperties2KHR!, handleMaps) !== undefined); // true
 * ```
 */
export function emulation(slot: number, handleMaps: HandleMaps): Body | undefined {
  const name = COMMANDS[slot]?.name;
  const make = name === undefined ? undefined : BODIES[name];
  return make?.(handleMaps.driverPhysicalDevices);
}
