/**
 * What the loader answers itself about device layers and the layers' device extensions, for one instance's
 * activated layers (docs/behaviour.md F11, A04).
 *
 * @module
 */

import type { LayerManifest } from "../../discovery/layer_manifest.ts";
import type { LayerDiscovery } from "../../discovery/layers.ts";
import type { CallbackOwner } from "../../ffi/callback.ts";
import { fnFromPointer } from "../../ffi/library.ts";
import { type Pointer, readCString, readPointer, readU32 } from "../../ffi/memory.ts";
import type { Logger } from "../../loading/log.ts";
import {
  VK_ERROR_INITIALIZATION_FAILED,
  VK_ERROR_LAYER_NOT_PRESENT,
} from "../../vk/generated/vk_constants.js";
import { type ExtensionEntry, layerExtensions, mergeExtensions } from "./extensions.ts";
import { writeExtensionProperties, writeLayerProperties } from "./enumeration.ts";

/** `VkDeviceCreateInfo.enabledLayerCount` / `ppEnabledLayerNames` (LP64). */
const DEVICE_LAYER_COUNT_OFFSET = 32;
const DEVICE_LAYER_NAMES_OFFSET = 40;
const EXTENSION_PROPERTIES_SIZE = 260;
const ENUMERATE_EXTENSIONS = {
  parameters: ["pointer", "pointer", "pointer", "pointer"],
  result: "i32",
} as const;

/**
 * F11: device layers are deprecated; a `ppEnabledLayerNames` that differs from the instance's layers
 * (`active`, in order) only gets a warning.
 *
 * @example Usage
 * ```ts ignore
 * import { checkDeviceLayerNames } from "./device_layers.ts";
 * declare const log: import("../../loading/log.ts").Logger;
 * checkDeviceLayerNames(log, [], null);
 * ```
 */
export function checkDeviceLayerNames(
  log: Logger,
  active: readonly LayerManifest[],
  pCreateInfo: Pointer,
): void {
  if (pCreateInfo === null) return;
  const count = readU32(pCreateInfo, DEVICE_LAYER_COUNT_OFFSET);
  if (count === 0) return;
  const list = readPointer(pCreateInfo, DEVICE_LAYER_NAMES_OFFSET);
  const names = Array.from(
    { length: list === null ? 0 : count },
    (_, i) => readCString(readPointer(list, i * 8)),
  );
  const activeNames = active.map((l) => l.name);
  if (names.length === activeNames.length && names.every((n, i) => n === activeNames[i])) return;
  log.warn(
    `vkCreateDevice: ppEnabledLayerNames (${names.join(", ")}) differs from the instance's layers (${
      activeNames.join(", ") || "none"
    }); device layers are deprecated and the list is ignored`,
    "layer",
  );
}

/** The layers of one instance, as the device-layer answers need them. */
export interface DeviceLayerSource {
  /** The activated layers (meta layers included), in order. */
  readonly enabledLayers: readonly LayerManifest[];
  /** The layer discovery made for the instance (for a named layer's extensions). */
  readonly discovery: LayerDiscovery;
}

/** The device extensions the enabled implicit layers add to a driver's list (A04). */
function withImplicitDeviceExtensions(
  layers: DeviceLayerSource,
  base: readonly ExtensionEntry[],
): ExtensionEntry[] {
  const implicit = layers.enabledLayers.filter((l) => l.implicit).flatMap((l) => l.deviceExtensions);
  return mergeExtensions(base, implicit);
}

/**
 * Replacements for the instance table's `vkEnumerateDeviceLayerProperties` and
 * `vkEnumerateDeviceExtensionProperties` slots, made in `callbacks` (the loader answers the first and the
 * `pLayerName` form of the second, and adds the implicit layers' device extensions to the chain's list).
 * `current(name)` is what the slot held, called for the chain's own list.
 *
 * @example Usage
 * ```ts ignore
 * import { deviceLayerSlots } from "./device_layers.ts";
 * declare const layers: import("./device_layers.ts").DeviceLayerSource;
 * declare const callbacks: import("../../ffi/callback.ts").CallbackOwner;
 * console.log(Object.keys(deviceLayerSlots(layers, callbacks, () => null)));
 * ```
 */
export function deviceLayerSlots(
  layers: DeviceLayerSource,
  callbacks: CallbackOwner,
  current: (name: string) => Pointer,
): Record<string, Deno.PointerObject> {
  const layerProps = callbacks.create(
    { parameters: ["pointer", "pointer", "pointer"], result: "i32" },
    // vkEnumerateDeviceLayerProperties: the instance's activated layers, in order (F11).
    (_physicalDevice, pCount, pProperties) => writeLayerProperties(layers.enabledLayers, pCount, pProperties),
    { name: "vkEnumerateDeviceLayerProperties", onError: VK_ERROR_INITIALIZATION_FAILED },
  ).pointer as Deno.PointerObject;
  const below = current("vkEnumerateDeviceExtensionProperties");
  const extensionProps = callbacks.create(
    { parameters: ["pointer", "pointer", "pointer", "pointer"], result: "i32" },
    (physicalDevice, pLayerName, pCount, pProperties) => {
      if (pLayerName !== null && readCString(pLayerName) !== "") {
        // A named layer: its manifest's device extensions, VK_ERROR_LAYER_NOT_PRESENT when not available.
        const list = layerExtensions(layers.discovery, readCString(pLayerName), "device");
        if (list === undefined) return VK_ERROR_LAYER_NOT_PRESENT;
        return writeExtensionProperties(list, pCount, pProperties);
      }
      if (below === null) return VK_ERROR_INITIALIZATION_FAILED;
      const extra = withImplicitDeviceExtensions(layers, []);
      const call = fnFromPointer(below, ENUMERATE_EXTENSIONS);
      if (extra.length === 0) return call.call(physicalDevice, null, pCount, pProperties);
      const count = new Uint32Array(1);
      let r = call.call(physicalDevice, null, Deno.UnsafePointer.of(count), null);
      if (r < 0) return r;
      const buf = new Uint8Array(Math.max(1, count[0]!) * EXTENSION_PROPERTIES_SIZE);
      r = call.call(physicalDevice, null, Deno.UnsafePointer.of(count), Deno.UnsafePointer.of(buf));
      if (r < 0) return r;
      const base: ExtensionEntry[] = [];
      const dv = new DataView(buf.buffer);
      for (let i = 0; i < count[0]!; i++) {
        const name = buf.subarray(i * EXTENSION_PROPERTIES_SIZE, i * EXTENSION_PROPERTIES_SIZE + 256);
        const end = name.indexOf(0);
        base.push({
          name: new TextDecoder().decode(name.subarray(0, end < 0 ? 256 : end)),
          specVersion: dv.getUint32(i * EXTENSION_PROPERTIES_SIZE + 256, true),
        });
      }
      return writeExtensionProperties(withImplicitDeviceExtensions(layers, base), pCount, pProperties);
    },
    { name: "vkEnumerateDeviceExtensionProperties", onError: VK_ERROR_INITIALIZATION_FAILED },
  ).pointer as Deno.PointerObject;
  return {
    vkEnumerateDeviceLayerProperties: layerProps,
    vkEnumerateDeviceExtensionProperties: extensionProps,
  };
}
