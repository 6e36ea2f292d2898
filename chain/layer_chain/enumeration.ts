/**
 * The global enumerations with layers: layer properties (docs/behaviour.md L06), layer and implicit-layer
 * instance extensions (A02), each through the pre-instance functions (LI09); the property writers.
 *
 * @example Layers of an empty tree
 * ```ts
 * import { enumerateInstanceLayers } from "./enumeration.ts";
 * const count = new Uint32Array(1);
 * enumerateInstanceLayers({ vars: {}, elevated: false, root: "/nonexistent" }, Deno.UnsafePointer.of(count), null);
 * console.log(count[0]); // 0
 * ```
 *
 * @module
 */

import type { EnvironmentSnapshot } from "../../discovery/environment.ts";
import type { LayerManifest } from "../../discovery/layer_manifest.ts";
import { discoverLayers } from "../../discovery/layers.ts";
import { enumerateInstanceLayerProperties } from "../../discovery/layer_properties.ts";
import { nativeBytes, type Pointer, readCString, writeU32 } from "../../ffi/memory.ts";
import { writeTwoCall } from "../../vk/two_call.ts";
import {
  type ExtensionEntry,
  layerExtensions,
  withImplicitLayerExtensions,
  withModuleLayers,
} from "./extensions.ts";
import type { ModuleLayerLoader } from "./module_interface.ts";
import { callPreInstance } from "./pre_instance.ts";
import { VK_ERROR_LAYER_NOT_PRESENT } from "../../vk/generated/vk_constants.js";

const LAYER_PROPERTIES_SIZE = 520;
const EXTENSION_PROPERTIES_SIZE = 260;

/**
 * `vkEnumerateInstanceLayerProperties`: every available layer (L06).
 *
 * @example Usage
 * ```ts
 * import { enumerateInstanceLayers } from "./enumeration.ts";
 * const count = new Uint32Array(1);
 * enumerateInstanceLayers({ vars: {}, elevated: false, root: "/nonexistent" }, Deno.UnsafePointer.of(count), null);
 * console.log(count[0]); // 0
 * ```
 */
export function enumerateInstanceLayers(
  env: EnvironmentSnapshot,
  pCount: Pointer,
  pProperties: Pointer,
): number {
  return callPreInstance(
    env,
    "vkEnumerateInstanceLayerProperties",
    [pCount, pProperties],
    (count, props) => writeLayerProperties(discoverLayers(env).layers, count, props),
  );
}

/**
 * `vkEnumerateInstanceVersion` through the enabled implicit layers'
 * pre-instance functions (LI09), down to the loader's own `answer`.
 *
 * @example Usage
 * ```ts
 * import { enumerateInstanceVersion } from "./enumeration.ts";
 * const version = new Uint32Array(1);
 * const env = { vars: {}, elevated: false, root: "/nonexistent" };
 * enumerateInstanceVersion(env, Deno.UnsafePointer.of(version), (p) => {
 *   new DataView(new Deno.UnsafePointerView(p!).getArrayBuffer(4)).setUint32(0, 4206592, true);
 *   return 0;
 * });
 * console.log(version[0]); // 4206592
 * ```
 */
export function enumerateInstanceVersion(
  env: EnvironmentSnapshot,
  pApiVersion: Pointer,
  answer: (pApiVersion: Pointer) => number,
): number {
  return callPreInstance(env, "vkEnumerateInstanceVersion", [pApiVersion], (p) => answer(p));
}

/**
 * `vkEnumerateInstanceExtensionProperties` with layers: `pLayerName` set
 * lists that layer's instance extensions (`VK_ERROR_LAYER_NOT_PRESENT` when it
 * is not available; a script-module layer's as `moduleLayers` describes them); null appends the enabled implicit layers' extensions to
 * the core's list `base`.
 *
 * @example Usage
 * ```ts
 * import { enumerateInstanceExtensions } from "./enumeration.ts";
 * const count = new Uint32Array(1);
 * const env = { vars: {}, elevated: false, root: "/nonexistent" };
 * enumerateInstanceExtensions(env, () => [{ name: "VK_KHR_surface", specVersion: 25 }], null, Deno.UnsafePointer.of(count), null);
 * console.log(count[0]); // 1
 * ```
 */
export function enumerateInstanceExtensions(
  env: EnvironmentSnapshot,
  base: () => readonly ExtensionEntry[],
  pLayerName: Pointer,
  pCount: Pointer,
  pProperties: Pointer,
  moduleLayers?: ModuleLayerLoader,
): number {
  return callPreInstance(
    env,
    "vkEnumerateInstanceExtensionProperties",
    [pLayerName, pCount, pProperties],
    (name, count, props) => {
      const discovery = withModuleLayers(discoverLayers(env), moduleLayers);
      if (name !== null) {
        const list = layerExtensions(discovery, readCString(name), "instance");
        if (list === undefined) return VK_ERROR_LAYER_NOT_PRESENT;
        return writeExtensionProperties(list, count, props);
      }
      return writeExtensionProperties(withImplicitLayerExtensions(base(), env, discovery), count, props);
    },
  );
}

const encoder = new TextEncoder();

function putString(out: Uint8Array, offset: number, text: string): void {
  out.fill(0, offset, offset + 256);
  out.set(encoder.encode(text).subarray(0, 255), offset);
}

/**
 * Writes `VkLayerProperties` for `layers` with the two-call idiom.
 *
 * @example Usage
 * ```ts
 * import { writeLayerProperties } from "./enumeration.ts";
 * const count = new Uint32Array(1);
 * console.log(writeLayerProperties([], Deno.UnsafePointer.of(count), null)); // 0
 * ```
 */
export function writeLayerProperties(
  layers: readonly LayerManifest[],
  pCount: Pointer,
  pProperties: Pointer,
): number {
  const props = enumerateInstanceLayerProperties({ layers });
  return writeTwoCall(pCount, pProperties, props, (i, p) => {
    const out = nativeBytes(pProperties, LAYER_PROPERTIES_SIZE, i * LAYER_PROPERTIES_SIZE);
    putString(out, 0, p.layerName);
    new DataView(out.buffer, out.byteOffset).setUint32(256, p.specVersion, true);
    new DataView(out.buffer, out.byteOffset).setUint32(260, p.implementationVersion, true);
    putString(out, 264, p.description);
  });
}

/**
 * Writes `VkExtensionProperties` for `list` with the two-call idiom.
 *
 * @example Usage
 * ```ts
 * import { writeExtensionProperties } from "./enumeration.ts";
 * const count = new Uint32Array(1);
 * console.log(writeExtensionProperties([], Deno.UnsafePointer.of(count), null)); // 0
 * ```
 */
export function writeExtensionProperties(
  list: readonly ExtensionEntry[],
  pCount: Pointer,
  pProperties: Pointer,
): number {
  return writeTwoCall(pCount, pProperties, list, (i, e) => {
    const out = nativeBytes(pProperties, EXTENSION_PROPERTIES_SIZE, i * EXTENSION_PROPERTIES_SIZE);
    putString(out, 0, e.name);
    writeU32(pProperties, i * EXTENSION_PROPERTIES_SIZE + 256, e.specVersion);
  });
}
