/**
 * Layer manifests (file format 1.0.0 to 1.2.1) turned into plain layer records (docs/behaviour.md LM01-LM08,
 * O01, O04-O06); one layer object's fields are read in layer_manifest_fields.ts.
 *
 * @example Parsing a manifest's JSON
 * ```ts
 * import { parseLayerManifest } from "./layer_manifest.ts";
 * const result = parseLayerManifest({
 *   file_format_version: "1.0.0",
 *   layer: {
 *     name: "VK_LAYER_MESA_overlay",
 *     type: "GLOBAL",
 *     library_path: "libVkLayer_MESA_overlay.so",
 *     api_version: "1.3.211",
 *     implementation_version: "1",
 *     description: "Mesa Overlay layer",
 *   },
 * }, { manifestPath: "/usr/share/vulkan/explicit_layer.d/VkLayer_MESA_overlay.json", implicit: false });
 * console.log(result.layers[0]?.apiVersion); // 4206803
 * ```
 *
 * @module
 */

import { describeJsonType, isMemberName, parseVersionString } from "./manifest_file.ts";
import { isObject, numberAsText, readLayer } from "./layer_manifest_fields.ts";
import {
  KNOWN_LAYER_MANIFEST_VERSIONS,
  type LayerManifest,
  type LayerManifestResult,
  type LayerMessage,
  OVERRIDE_LAYER_NAME,
  type ParseLayerManifestOptions,
  type SkippedLayer,
} from "./layer_manifest_types.ts";

export {
  KNOWN_LAYER_MANIFEST_VERSIONS,
  MAX_NAME_SIZE,
  OVERRIDE_LAYER_NAME,
  PRE_INSTANCE_FUNCTIONS,
} from "./layer_manifest_types.ts";
export type {
  LayerEnvironmentVariable,
  LayerExtension,
  LayerFunctionNames,
  LayerManifest,
  LayerManifestResult,
  LayerMessage,
  ParseLayerManifestOptions,
  SkippedLayer,
} from "./layer_manifest_types.ts";
export { resolveLayerLibraryPath } from "./layer_manifest_fields.ts";

/**
 * Parses the JSON object of a layer manifest into layer records. Never throws.
 *
 * @example Usage
 * ```ts
 * import { parseLayerManifest } from "./layer_manifest.ts";
 * const r = parseLayerManifest({ file_format_version: "1.0.0", layer: { name: "VK_LAYER_a", type: "DEVICE" } },
 *   { manifestPath: "/a.json", implicit: false });
 * console.log(r.skipped[0]?.reason);
 * ```
 */
export function parseLayerManifest(json: unknown, options: ParseLayerManifestOptions): LayerManifestResult {
  const result = parseLayerManifestObject(json, options);
  // Every message is about this file: the log repeats a warning only once the file changed.
  const file = options.manifestPath;
  return { ...result, messages: result.messages.map((m) => ({ ...m, file })) };
}

function parseLayerManifestObject(json: unknown, options: ParseLayerManifestOptions): LayerManifestResult {
  const path = options.manifestPath;
  const layers: LayerManifest[] = [];
  const skipped: SkippedLayer[] = [];
  const messages: LayerMessage[] = [];
  const skipFile = (reason: string): LayerManifestResult => {
    skipped.push({ manifestPath: path, indexInFile: -1, reason });
    messages.push({ level: "warn", category: "layer", text: `Skipping layer manifest "${path}": ${reason}` });
    return { layers, skipped, messages };
  };
  if (!isObject(json)) return skipFile(`file holds ${describeJsonType(json)}, expected a JSON object`);

  const versionValue = numberAsText(
    json["file_format_version"],
    "file_format_version",
    (text) => messages.push({ level: "warn", category: "layer", text: `Layer manifest "${path}": ${text}` }),
  );
  if (typeof versionValue !== "string") {
    return skipFile(`"file_format_version" is ${describeJsonType(versionValue)}, expected a string`);
  }
  const version = parseVersionString(versionValue);
  if (version === undefined) {
    return skipFile(`"file_format_version" "${versionValue}" is not a version`);
  }
  const fileVersion = versionValue.trim();
  if (!KNOWN_LAYER_MANIFEST_VERSIONS.includes(`${version.major}.${version.minor}.${version.patch}`)) {
    messages.push({
      level: "info",
      category: "layer",
      text: `Layer manifest "${path}" has unknown file version "${fileVersion}", reading it anyway`,
    });
  }
  const atLeast = (major: number, minor: number, patch: number) =>
    version.major !== major
      ? version.major > major
      : version.minor !== minor
      ? version.minor > minor
      : version.patch >= patch;

  // Each layer object, with the member it came from.
  const entries: { readonly member: string; readonly value: unknown }[] = [];
  const layerValue = json["layer"];
  const layersValue = json["layers"];
  if (layersValue !== undefined) {
    if (!Array.isArray(layersValue)) {
      return skipFile(`"layers" is ${describeJsonType(layersValue)}, expected an array`);
    }
    if (!atLeast(1, 0, 1)) {
      messages.push({
        level: "warn",
        category: "layer",
        text:
          `Layer manifest "${path}" uses "layers" but its file version "${fileVersion}" is older than 1.0.1`,
      });
    }
    for (let i = 0; i < layersValue.length; i++) {
      const entry = layersValue[i];
      if (!isObject(entry)) {
        // The C loader stops reading the array at the first element that is not an object.
        const reason = `"layers[${i}]" is ${
          describeJsonType(entry)
        }, expected an object; the rest of the array is ignored`;
        skipped.push({ manifestPath: path, indexInFile: i, reason });
        messages.push({ level: "warn", category: "layer", text: `Layer manifest "${path}": ${reason}` });
        break;
      }
      entries.push({ member: "layers", value: entry });
    }
  } else if (layerValue !== undefined) {
    // The Khronos loader takes the first "layer" and every member after it as layer objects (it walks the
    // siblings, LM09): several "layer" members are file version 1.0.0's way to hold several layers.
    const members = options.members ?? Object.entries(json);
    const at = members.findIndex(([key]) => isMemberName(key, "layer"));
    const following = at < 0 ? [["layer", layerValue] as const] : members.slice(at);
    if (following.length > 1 && atLeast(1, 0, 1)) {
      const others = following.filter(([key]) => !isMemberName(key, "layer")).map(([key]) =>
        JSON.stringify(key)
      );
      return skipFile(
        others.length === 0
          ? `it has ${following.length} "layer" objects, which file version "${fileVersion}" forbids (use a "layers" array)`
          : `the members after "layer" (${
            others.join(", ")
          }) count as more "layer" objects, as the Khronos ` +
            `loader reads them, and file version "${fileVersion}" forbids more than one (put "layer" last, or ` +
            `use a "layers" array)`,
      );
    }
    for (const [member, value] of following) entries.push({ member, value });
  } else {
    return skipFile(`it has neither "layer" nor "layers"`);
  }

  for (let index = 0; index < entries.length; index++) {
    const { member, value } = entries[index]!;
    const read: LayerManifest | SkippedLayer = !isMemberName(member, "layer") && member !== "layers" &&
        !isObject(value)
      ? {
        manifestPath: path,
        indexInFile: index,
        reason: `"${member}" after "layer" is ${
          describeJsonType(value)
        }, expected an object (each member after the first "layer" is read as a layer object)`,
      }
      : readLayer(value, index, options, fileVersion, atLeast, messages);
    if ("reason" in read) {
      skipped.push(read);
      messages.push({
        level: "warn",
        category: "layer",
        text: `Skipping layer ${
          read.name === undefined ? `#${index}` : `"${read.name}"`
        } of "${path}": ${read.reason}`,
      });
    } else {
      layers.push(read);
    }
  }
  return { layers, skipped, messages };
}

/**
 * True when the layer is a meta layer (has `component_layers`).
 *
 * @example Usage
 * ```ts
 * import { isMetaLayer, type LayerManifest } from "./layer_manifest.ts";
 * const check = (layer: LayerManifest) => isMetaLayer(layer);
 * ```
 */
export function isMetaLayer(layer: LayerManifest): boolean {
  return layer.componentLayers !== undefined;
}

/**
 * True when the layer is the override meta layer (implicit, named `VK_LAYER_LUNARG_override`).
 *
 * @example Usage
 * ```ts
 * import { isOverrideLayer, type LayerManifest } from "./layer_manifest.ts";
 * const check = (layer: LayerManifest) => isOverrideLayer(layer);
 * ```
 */
export function isOverrideLayer(layer: LayerManifest): boolean {
  return layer.implicit && layer.componentLayers !== undefined && layer.name === OVERRIDE_LAYER_NAME;
}
