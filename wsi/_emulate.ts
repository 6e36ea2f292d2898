/**
 * Emulation of the `*2` WSI queries through their original commands, for drivers that lack them: the
 * loader answers `vkGetPhysicalDeviceSurfaceCapabilities2KHR`, `...Formats2KHR` and the
 * `VK_KHR_get_display_properties2` queries by calling the `VK_KHR_surface` / `VK_KHR_display` command and
 * copying each result into the wrapping struct (pNext chains of the outputs are left untouched).
 *
 * @module
 */
import { STRUCTS } from "../vk/generated/structs.ts";
import { type Arena, nativeBytes, pointerFromAddress, readU32, readU64 } from "../ffi/memory.ts";

/** How to answer one `*2` command through its original. */
export interface Emulation {
  /** The command called instead. */
  readonly original: string;
  /** Runs the emulation: `args` are the `*2` command's (already holding the driver's handles). */
  call(original: (...args: unknown[]) => unknown, args: unknown[], arena: Arena): unknown;
}

function offsetOf(struct: string, member: string): number {
  const m = STRUCTS[struct]?.members.find((x) => x.name === member);
  if (!m) throw new TypeError(`Struct "${struct}" has no member "${member}"`);
  return m.offset;
}

function sizeOf(struct: string): number {
  const s = STRUCTS[struct];
  if (!s) throw new TypeError(`Unknown struct "${struct}"`);
  return s.size;
}

function at(p: unknown, offset: number): Deno.PointerValue {
  const base = Deno.UnsafePointer.value(p as Deno.PointerValue);
  return pointerFromAddress(BigInt(base) + BigInt(offset));
}

/**
 * `(..., pCount, pItems2)` answered by `(..., pCount, pItems)`: each `item` is copied into
 * `pItems2[i].<member>`.
 */
function arrayOf(original: string, item: string, wrapper: string, member: string): Emulation {
  return {
    original,
    call(fn, args, arena) {
      const n = args.length;
      const pCount = args[n - 2] as Deno.PointerValue;
      const out = args[n - 1] as Deno.PointerValue;
      if (out === null) return fn(...args.slice(0, n - 1), null);
      const itemSize = sizeOf(item);
      const stride = sizeOf(wrapper);
      const offset = offsetOf(wrapper, member);
      const tmp = arena.alloc(itemSize * readU32(pCount));
      const result = fn(...args.slice(0, n - 1), arena.pointer(tmp));
      const got = readU32(pCount);
      for (let i = 0; i < got; i++) {
        nativeBytes(out, itemSize, i * stride + offset).set(tmp.subarray(i * itemSize, (i + 1) * itemSize));
      }
      return result;
    },
  };
}

const EMULATIONS: Readonly<Record<string, Emulation>> = {
  vkGetPhysicalDeviceSurfaceCapabilities2KHR: {
    original: "vkGetPhysicalDeviceSurfaceCapabilitiesKHR",
    call(fn, [pd, pSurfaceInfo, pCapabilities]) {
      const surface = readU64(
        pSurfaceInfo as Deno.PointerValue,
        offsetOf("VkPhysicalDeviceSurfaceInfo2KHR", "surface"),
      );
      const caps = at(pCapabilities, offsetOf("VkSurfaceCapabilities2KHR", "surfaceCapabilities"));
      return fn(pd, pointerFromAddress(surface), caps);
    },
  },
  vkGetPhysicalDeviceSurfaceFormats2KHR: {
    original: "vkGetPhysicalDeviceSurfaceFormatsKHR",
    call(fn, [pd, pSurfaceInfo, pCount, pFormats], arena) {
      const surface = readU64(
        pSurfaceInfo as Deno.PointerValue,
        offsetOf("VkPhysicalDeviceSurfaceInfo2KHR", "surface"),
      );
      const inner = arrayOf("", "VkSurfaceFormatKHR", "VkSurfaceFormat2KHR", "surfaceFormat");
      return inner.call(fn, [pd, pointerFromAddress(surface), pCount, pFormats], arena);
    },
  },
  vkGetPhysicalDeviceDisplayProperties2KHR: arrayOf(
    "vkGetPhysicalDeviceDisplayPropertiesKHR",
    "VkDisplayPropertiesKHR",
    "VkDisplayProperties2KHR",
    "displayProperties",
  ),
  vkGetPhysicalDeviceDisplayPlaneProperties2KHR: arrayOf(
    "vkGetPhysicalDeviceDisplayPlanePropertiesKHR",
    "VkDisplayPlanePropertiesKHR",
    "VkDisplayPlaneProperties2KHR",
    "displayPlaneProperties",
  ),
  vkGetDisplayModeProperties2KHR: arrayOf(
    "vkGetDisplayModePropertiesKHR",
    "VkDisplayModePropertiesKHR",
    "VkDisplayModeProperties2KHR",
    "displayModeProperties",
  ),
  vkGetDisplayPlaneCapabilities2KHR: {
    original: "vkGetDisplayPlaneCapabilitiesKHR",
    call(fn, [pd, pInfo, pCapabilities]) {
      const info = pInfo as Deno.PointerValue;
      const mode = readU64(info, offsetOf("VkDisplayPlaneInfo2KHR", "mode"));
      const plane = readU32(info, offsetOf("VkDisplayPlaneInfo2KHR", "planeIndex"));
      const caps = at(pCapabilities, offsetOf("VkDisplayPlaneCapabilities2KHR", "capabilities"));
      return fn(pd, pointerFromAddress(mode), plane, caps);
    },
  },
};

/**
 * The emulation of `name` through its original command, or undefined when it has none.
 *
 * @example Usage
 * ```ts
 * import { emulation } from "./_emulate.ts";
 * console.log(emulation("vkGetDisplayModeProperties2KHR")?.original); // "vkGetDisplayModePropertiesKHR"
 * ```
 */
export function emulation(name: string): Emulation | undefined {
  return Object.hasOwn(EMULATIONS, name) ? EMULATIONS[name] : undefined;
}
