/**
 * What the loader answers about layers from a discovery (layers.ts): the entries of
 * `vkEnumerateInstanceLayerProperties` (`VkLayerProperties`) and a layer's extension list for
 * `vkEnumerate{Instance,Device}ExtensionProperties(pLayerName)`, a meta layer's merged with its components'.
 *
 * @example Listing no layers
 * ```ts
 * import { enumerateInstanceLayerProperties } from "./layer_properties.ts";
 * console.log(enumerateInstanceLayerProperties({ layers: [] }).length); // 0
 * ```
 *
 * @module
 */

import type { LayerExtension, LayerManifest } from "./layer_manifest.ts";
import { mergedExtensions } from "./meta_layers.ts";

/**
 * One entry of `vkEnumerateInstanceLayerProperties` (`VkLayerProperties`).
 *
 * @example Usage
 * ```ts
 * import type { LayerProperties } from "@vkdeno/loader/discovery";
 * const p: LayerProperties = {
 *   layerName: "VK_LAYER_KHRONOS_validation",
 *   specVersion: 4206831,
 *   implementationVersion: 1,
 *   description: "Khronos Validation Layer",
 * };
 * ```
 */
export interface LayerProperties {
  /** The manifest's `name`. */
  readonly layerName: string;
  /** The manifest's `api_version`, packed. */
  readonly specVersion: number;
  /** The manifest's `implementation_version`. */
  readonly implementationVersion: number;
  /** The manifest's `description`, cut to 255 UTF-8 bytes like the C array it fills. */
  readonly description: string;
}

/**
 * What `vkEnumerateInstanceLayerProperties` returns: every layer discovery
 * kept (implicit ones whatever their variables say; disabled and blacklisted
 * ones absent), implicit layers first, in discovery order. Any `{ layers }`
 * works, e.g. an activation's `activatedLayers` for `vkEnumerateDeviceLayerProperties`.
 *
 * @example Usage
 * ```ts
 * import { enumerateInstanceLayerProperties } from "@vkdeno/loader/discovery";
 * console.log(enumerateInstanceLayerProperties({ layers: [] })); // []
 * ```
 */
export function enumerateInstanceLayerProperties(
  discovery: { readonly layers: readonly LayerManifest[] },
): LayerProperties[] {
  return discovery.layers.map((layer) => ({
    layerName: layer.name,
    specVersion: layer.apiVersion,
    implementationVersion: layer.implementationVersion,
    description: cutUtf8(layer.description, 255),
  }));
}

/**
 * What `vkEnumerateInstanceExtensionProperties(pLayerName)` (`kind`
 * `"instance"`) or `vkEnumerateDeviceExtensionProperties(pLayerName)` (`"device"`)
 * returns for a layer: its manifest's list, merged with its components' for a
 * meta layer. `undefined` when no such layer is available
 * (`VK_ERROR_LAYER_NOT_PRESENT`).
 *
 * @example Usage
 * ```ts
 * import { layerExtensionProperties } from "./layer_properties.ts";
 * console.log(layerExtensionProperties({ layers: [] }, "VK_LAYER_x", "instance")); // undefined
 * ```
 */
export function layerExtensionProperties(
  discovery: { readonly layers: readonly LayerManifest[] },
  layerName: string,
  kind: "instance" | "device",
): LayerExtension[] | undefined {
  const layer = discovery.layers.find((l) => l.name === layerName);
  if (layer === undefined) return undefined;
  return mergedExtensions(layer, new Map(discovery.layers.map((l) => [l.name, l])), kind);
}

function cutUtf8(text: string, maxBytes: number): string {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return new TextDecoder().decode(bytes.subarray(0, end));
}
