/**
 * Layer manifests (file format 1.0.0 to 1.2.1) turned into plain layer
 * records, following the Khronos loader's Linux rules (LOADER_BEHAVIOUR LM01 to
 * LM08, O01, O04 to O06).
 *
 * A manifest holds one `layer` object or, from 1.0.1, a `layers` array. Every
 * layer needs `name`, `type` (`INSTANCE` or `GLOBAL`; `DEVICE` is skipped as
 * deprecated), `api_version`, `implementation_version`, `description` and
 * exactly one of `library_path` and `component_layers` (a meta layer);
 * implicit layers also need `disable_environment`. A defective layer is skipped
 * with a message naming the file and the field; the other layers of the file
 * still load. Nothing here reads the file system or loads a library.
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

import { describeJsonType, formatVersion, parseVersionString } from "./manifest_file.ts";
import { dirName } from "./search_paths.ts";

/** The name that makes an implicit meta layer the override layer (O04). */
export const OVERRIDE_LAYER_NAME = "VK_LAYER_LUNARG_override";

/** Longest layer or extension name, in bytes with the terminating NUL (`VK_MAX_EXTENSION_NAME_SIZE`). */
export const MAX_NAME_SIZE = 256;

/** Manifest versions the Khronos loader reads without a message (LM01, §1.15 item 6). */
export const KNOWN_LAYER_MANIFEST_VERSIONS: readonly string[] = [
  "1.0.0",
  "1.0.1",
  "1.1.0",
  "1.1.1",
  "1.1.2",
  "1.2.0",
  "1.2.1",
];

/** The pre-instance commands an implicit layer may intercept (file format 1.1.2 and later). */
export const PRE_INSTANCE_FUNCTIONS: readonly string[] = [
  "vkEnumerateInstanceExtensionProperties",
  "vkEnumerateInstanceLayerProperties",
  "vkEnumerateInstanceVersion",
];

/**
 * A message for the loader log (loading/log.ts prints it under VK_LOADER_DEBUG).
 *
 * @example Usage
 * ```ts
 * import type { LayerMessage } from "./layer_manifest.ts";
 * const m: LayerMessage = { level: "warn", category: "layer", text: "Layer \"x\" skipped" };
 * ```
 */
export interface LayerMessage {
  /** The `VK_LOADER_DEBUG` level. */
  readonly level: "error" | "warn" | "info" | "debug";
  /** The `VK_LOADER_DEBUG` category that also shows it (same shape as drivers.ts's `DiscoveryMessage`). */
  readonly category: "layer";
  /** The message, naming the file and field at fault. */
  readonly text: string;
  /** The manifest the message is about, if any (the log prints a repeated warning only once it changed). */
  readonly file?: string;
}

/**
 * One extension a layer declares.
 *
 * @example Usage
 * ```ts
 * import type { LayerExtension } from "./layer_manifest.ts";
 * const ext: LayerExtension = { name: "VK_EXT_debug_utils", specVersion: 2, entrypoints: [] };
 * ```
 */
export interface LayerExtension {
  /** `VkExtensionProperties.extensionName`. */
  readonly name: string;
  /** `VkExtensionProperties.specVersion` (the manifest's decimal string, read as `strtoul` would). */
  readonly specVersion: number;
  /** Commands the extension adds (device extensions only; empty otherwise). */
  readonly entrypoints: readonly string[];
}

/**
 * An environment variable named by `enable_environment` or `disable_environment`
 * (only the first key/value pair of the object counts, LM07).
 *
 * @example Usage
 * ```ts
 * import type { LayerEnvironmentVariable } from "./layer_manifest.ts";
 * const v: LayerEnvironmentVariable = { name: "ENABLE_VKBASALT", value: "1" };
 * ```
 */
export interface LayerEnvironmentVariable {
  /** The variable's name. */
  readonly name: string;
  /** The value it must equal (enable) or that is ignored (disable: any value counts). */
  readonly value: string;
}

/**
 * Renamed layer interface functions (`functions` in the manifest).
 *
 * @example Usage
 * ```ts
 * import type { LayerFunctionNames } from "./layer_manifest.ts";
 * const f: LayerFunctionNames = { getInstanceProcAddr: "overlay_GetInstanceProcAddr" };
 * ```
 */
export interface LayerFunctionNames {
  /** Symbol to use for `vkGetInstanceProcAddr` (used only when negotiation supplies no pointer). */
  readonly getInstanceProcAddr?: string;
  /** Symbol to use for `vkGetDeviceProcAddr` (used only when negotiation supplies no pointer). */
  readonly getDeviceProcAddr?: string;
  /** Symbol to use for `vkNegotiateLoaderLayerInterfaceVersion` (honoured from file format 1.1.0). */
  readonly negotiateLoaderLayerInterfaceVersion?: string;
}

/**
 * One layer read from a manifest.
 *
 * @example Usage
 * ```ts
 * import { parseLayerManifest, type LayerManifest } from "./layer_manifest.ts";
 * const layer: LayerManifest | undefined = parseLayerManifest(
 *   { file_format_version: "1.0.0", layer: { name: "VK_LAYER_x", type: "GLOBAL", library_path: "./x.so",
 *     api_version: "1.3.0", implementation_version: "1", description: "x" } },
 *   { manifestPath: "/opt/layers/x.json", implicit: false },
 * ).layers[0];
 * console.log(layer?.libraryPath); // "/opt/layers/./x.so"
 * ```
 */
export interface LayerManifest {
  /** `VkLayerProperties.layerName`. */
  readonly name: string;
  /** `INSTANCE` or `GLOBAL` (the same thing today). */
  readonly type: "INSTANCE" | "GLOBAL";
  /** True when found in an implicit search folder (a `VK_LAYER_PATH` layer is always explicit). */
  readonly implicit: boolean;
  /** The manifest file, as discovery opened it. */
  readonly manifestPath: string;
  /** The manifest's `file_format_version`, as written (`"1.2.0"`). */
  readonly fileFormatVersion: string;
  /**
   * The library as the dynamic linker should get it: absolute paths as written,
   * paths with a `/` joined to the manifest's folder (no normalisation), bare
   * names unchanged (system search). `$LIB` and similar tokens are left for
   * the dynamic linker. Absent for meta layers.
   */
  readonly libraryPath?: string;
  /** `library_path` as written in the manifest. */
  readonly libraryPathRaw?: string;
  /** `library_arch` (`"32"` or `"64"`) when given. */
  readonly libraryArch?: "32" | "64";
  /** `api_version` packed as `VK_MAKE_API_VERSION` (= `VkLayerProperties.specVersion`). */
  readonly apiVersion: number;
  /** `VkLayerProperties.implementationVersion`. */
  readonly implementationVersion: number;
  /** `VkLayerProperties.description` (not cut; enumeration cuts it to 255 bytes). */
  readonly description: string;
  /** Interface function renames the loader honours for this file version. */
  readonly functions: LayerFunctionNames;
  /** `instance_extensions`, valid entries only. */
  readonly instanceExtensions: readonly LayerExtension[];
  /** `device_extensions`, valid entries only, with their `entrypoints`. */
  readonly deviceExtensions: readonly LayerExtension[];
  /** Implicit layers: the variable that must equal its value for the layer to be on. */
  readonly enableEnvironment?: LayerEnvironmentVariable;
  /** Implicit layers: the variable whose presence (any value) turns the layer off. */
  readonly disableEnvironment?: LayerEnvironmentVariable;
  /** Implicit layers, file format 1.1.2 and later: Vulkan command name -> exported symbol. */
  readonly preInstanceFunctions: Readonly<Record<string, string>>;
  /** Meta layers: the component layer names, first closest to the application. */
  readonly componentLayers?: readonly string[];
  /** Override layer only: executables it applies to (empty: every application). */
  readonly appKeys: readonly string[];
  /** Override layer only: layers removed from the list. */
  readonly blacklistedLayers: readonly string[];
  /** Override layer only: folders that replace the explicit layer search. */
  readonly overridePaths: readonly string[];
  /** Position of the layer in its file (0 for a single `layer` object). */
  readonly indexInFile: number;
}

/**
 * A layer of a manifest that was skipped, and why.
 *
 * @example Usage
 * ```ts
 * import type { SkippedLayer } from "./layer_manifest.ts";
 * const s: SkippedLayer = { manifestPath: "/x.json", indexInFile: 0, reason: "\"type\" is \"DEVICE\"" };
 * ```
 */
export interface SkippedLayer {
  /** The manifest file. */
  readonly manifestPath: string;
  /** The layer's `name` when it had one. */
  readonly name?: string;
  /** Position in the file (-1 for the whole file). */
  readonly indexInFile: number;
  /** A clause naming the field at fault. */
  readonly reason: string;
}

/**
 * What {@linkcode parseLayerManifest} found in one manifest.
 *
 * @example Usage
 * ```ts
 * import type { LayerManifestResult } from "./layer_manifest.ts";
 * const empty: LayerManifestResult = { layers: [], skipped: [], messages: [] };
 * ```
 */
export interface LayerManifestResult {
  /** Usable layers, in file order. */
  readonly layers: readonly LayerManifest[];
  /** Layers skipped (and a whole-file problem as one entry with index -1). */
  readonly skipped: readonly SkippedLayer[];
  /** Warnings and notes about the file, each naming it. */
  readonly messages: readonly LayerMessage[];
}

/**
 * Options for {@linkcode parseLayerManifest}.
 *
 * @example Usage
 * ```ts
 * import type { ParseLayerManifestOptions } from "./layer_manifest.ts";
 * const o: ParseLayerManifestOptions = { manifestPath: "/x.json", implicit: true, pointerBits: 64 };
 * ```
 */
export interface ParseLayerManifestOptions {
  /** The manifest's path (names it in messages; relative library paths are joined to its folder). */
  readonly manifestPath: string;
  /** True for a manifest found in an implicit layer folder. */
  readonly implicit: boolean;
  /** The running process's pointer size, for `library_arch` (default 64). */
  readonly pointerBits?: 32 | 64;
  /**
   * The manifest's text, when known: lets the parser see repeated `layer`
   * keys, which a parsed object hides (the last one wins there).
   */
  readonly text?: string;
}

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

  const entries: unknown[] = [];
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
      entries.push(entry);
    }
  } else if (layerValue !== undefined) {
    const repeats = options.text === undefined ? 1 : countTopLevelLayerKeys(options.text);
    if (repeats > 1 && atLeast(1, 0, 1)) {
      return skipFile(
        `it has ${repeats} "layer" objects, which file version "${fileVersion}" forbids (use a "layers" array)`,
      );
    }
    if (repeats > 1) {
      messages.push({
        level: "warn",
        category: "layer",
        text: `Layer manifest "${path}" has ${repeats} "layer" objects; only the last one is read`,
      });
    }
    entries.push(layerValue);
  } else {
    return skipFile(`it has neither "layer" nor "layers"`);
  }

  for (let index = 0; index < entries.length; index++) {
    const read = readLayer(entries[index], index, options, fileVersion, atLeast, messages);
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
 * A version field given as a JSON number, read from its text as the Khronos loader reads it (it prints the
 * value), with a warning naming the field; any other value unchanged.
 */
function numberAsText(value: unknown, field: string, warn: (text: string) => void): unknown {
  if (typeof value !== "number" || !Number.isFinite(value)) return value;
  const text = JSON.stringify(value);
  warn(`"${field}" is the number ${text}, expected a string; read as "${text}"`);
  return text;
}

function readLayer(
  value: unknown,
  index: number,
  options: ParseLayerManifestOptions,
  fileFormatVersion: string,
  atLeast: (major: number, minor: number, patch: number) => boolean,
  messages: LayerMessage[],
): LayerManifest | SkippedLayer {
  const manifestPath = options.manifestPath;
  const skip = (reason: string, name?: string): SkippedLayer => ({
    manifestPath,
    indexInFile: index,
    name,
    reason,
  });
  if (!isObject(value)) return skip(`"layer" is ${describeJsonType(value)}, expected an object`);
  const layer = value;
  const field = (key: string) => layer[key];
  const nameValue = field("name");
  if (typeof nameValue !== "string" || nameValue === "") {
    return skip(`required field "name" is ${describeField(nameValue)}, expected a non-empty string`);
  }
  const name = nameValue;
  const note = (level: LayerMessage["level"], text: string) =>
    messages.push({ level, category: "layer", text: `Layer "${name}" of "${manifestPath}": ${text}` });
  if (new TextEncoder().encode(name).length >= MAX_NAME_SIZE) {
    return skip(`"name" is longer than ${MAX_NAME_SIZE - 1} bytes`, name);
  }
  if (!name.startsWith("VK_LAYER_")) note("warn", `"name" does not start with "VK_LAYER_"`);

  const typeValue = field("type");
  if (typeof typeValue !== "string") {
    return skip(`required field "type" is ${describeField(typeValue)}, expected a string`, name);
  }
  if (typeValue === "DEVICE") return skip(`"type" is "DEVICE": device layers are deprecated`, name);
  if (typeValue !== "INSTANCE" && typeValue !== "GLOBAL") {
    return skip(`"type" "${typeValue}" is not "INSTANCE" or "GLOBAL"`, name);
  }

  const libraryValue = field("library_path");
  const componentsValue = field("component_layers");
  if (libraryValue !== undefined && componentsValue !== undefined) {
    return skip(`it has both "library_path" and "component_layers" (a meta layer has no library)`, name);
  }
  if (libraryValue === undefined && componentsValue === undefined) {
    return skip(`required field "library_path" is missing (and it is not a meta layer)`, name);
  }
  let libraryPath: string | undefined;
  let libraryPathRaw: string | undefined;
  let componentLayers: string[] | undefined;
  if (libraryValue !== undefined) {
    if (typeof libraryValue !== "string" || libraryValue === "") {
      return skip(`"library_path" is ${describeField(libraryValue)}, expected a non-empty string`, name);
    }
    libraryPathRaw = libraryValue;
    libraryPath = resolveLayerLibraryPath(manifestPath, libraryValue);
  } else {
    const list = stringArray(componentsValue);
    if (list === undefined) {
      return skip(
        `"component_layers" is ${describeField(componentsValue)}, expected an array of strings`,
        name,
      );
    }
    if (list.length === 0) return skip(`"component_layers" is empty`, name);
    if (!atLeast(1, 1, 1)) {
      note(
        "warn",
        `"component_layers" needs file version 1.1.1 or later, the file says "${fileFormatVersion}"`,
      );
    }
    componentLayers = list;
  }

  let libraryArch: "32" | "64" | undefined;
  const archValue = field("library_arch");
  if (archValue !== undefined) {
    if (archValue !== "32" && archValue !== "64") {
      note("warn", `"library_arch" ${JSON.stringify(archValue)} is not "32" or "64" and is ignored`);
    } else {
      libraryArch = archValue;
      const bits = options.pointerBits ?? 64;
      if (libraryArch !== String(bits)) {
        return skip(`"library_arch" is "${libraryArch}" but this process is ${bits}-bit`, name);
      }
    }
  }

  const apiValue = numberAsText(field("api_version"), "api_version", (text) => note("warn", text));
  if (typeof apiValue !== "string") {
    return skip(`required field "api_version" is ${describeField(apiValue)}, expected a string`, name);
  }
  const api = parseVersionString(apiValue);
  if (api === undefined) return skip(`"api_version" "${apiValue}" is not a version`, name);
  if (api.variant !== 0) {
    return skip(
      `"api_version" "${apiValue}" has a non-zero variant (${api.variant}): not a Vulkan layer`,
      name,
    );
  }

  const implValue = field("implementation_version");
  if (implValue === undefined) {
    return skip(`required field "implementation_version" is missing`, name);
  }
  const implementationVersion = readUnsigned(implValue);
  if (typeof implValue !== "string") {
    // The Khronos loader lists such a layer with version 0 rather than skipping it.
    note(
      "warn",
      `"implementation_version" is ${describeJsonType(implValue)}, expected a decimal string; read as 0`,
    );
  }

  const descriptionField = field("description");
  if (descriptionField === undefined) {
    return skip(`required field "description" is missing, expected a string`, name);
  }
  let descriptionValue = "";
  if (typeof descriptionField === "string") descriptionValue = descriptionField;
  else {
    // The layer works without it: the Khronos loader lists it with the value's JSON text.
    note("warn", `"description" is ${describeJsonType(descriptionField)}, expected a string; ignored`);
  }

  let disableEnvironment: LayerEnvironmentVariable | undefined;
  let enableEnvironment: LayerEnvironmentVariable | undefined;
  const disableValue = field("disable_environment");
  const enableValue = field("enable_environment");
  if (options.implicit) {
    disableEnvironment = firstPair(disableValue);
    if (disableEnvironment === undefined) {
      return skip(
        `required field "disable_environment" of an implicit layer is ${
          describeField(disableValue)
        }, expected an object with one variable`,
        name,
      );
    }
    if (enableValue !== undefined) {
      enableEnvironment = firstPair(enableValue);
      if (enableEnvironment === undefined) {
        note("warn", `"enable_environment" is not an object with a string value and is ignored`);
      }
    }
  }

  const functions: {
    getInstanceProcAddr?: string;
    getDeviceProcAddr?: string;
    negotiateLoaderLayerInterfaceVersion?: string;
  } = {};
  const functionsValue = field("functions");
  if (functionsValue !== undefined) {
    if (!isObject(functionsValue)) {
      note("warn", `"functions" is ${describeJsonType(functionsValue)}, expected an object; ignored`);
    } else {
      const gipa = functionsValue["vkGetInstanceProcAddr"];
      const gdpa = functionsValue["vkGetDeviceProcAddr"];
      const negotiate = functionsValue["vkNegotiateLoaderLayerInterfaceVersion"];
      if (typeof gipa === "string" && gipa !== "") functions.getInstanceProcAddr = gipa;
      if (typeof gdpa === "string" && gdpa !== "") functions.getDeviceProcAddr = gdpa;
      if (typeof negotiate === "string" && negotiate !== "") {
        if (atLeast(1, 1, 0)) {
          functions.negotiateLoaderLayerInterfaceVersion = negotiate;
        } else if (negotiate !== "vkNegotiateLoaderLayerInterfaceVersion") {
          note(
            "info",
            `"functions.vkNegotiateLoaderLayerInterfaceVersion" is ignored before file version 1.1.0 (the file says "${fileFormatVersion}")`,
          );
        }
      }
    }
  }

  const instanceExtensions = readExtensions(field("instance_extensions"), "instance_extensions", false, note);
  const deviceExtensions = readExtensions(field("device_extensions"), "device_extensions", true, note);

  const preInstanceFunctions: Record<string, string> = {};
  const preValue = field("pre_instance_functions");
  if (preValue !== undefined) {
    if (!options.implicit) {
      note("warn", `"pre_instance_functions" of an explicit layer is ignored`);
    } else if (!atLeast(1, 1, 2)) {
      note("warn", `"pre_instance_functions" needs file version 1.1.2 or later and is ignored`);
    } else if (!isObject(preValue)) {
      note("warn", `"pre_instance_functions" is ${describeJsonType(preValue)}, expected an object; ignored`);
    } else {
      for (const command of PRE_INSTANCE_FUNCTIONS) {
        const symbol = preValue[command];
        if (typeof symbol === "string" && symbol !== "") preInstanceFunctions[command] = symbol;
      }
    }
  }

  const isOverride = options.implicit && componentLayers !== undefined && name === OVERRIDE_LAYER_NAME;
  let appKeys: string[] = [];
  let blacklistedLayers: string[] = [];
  let overridePaths: string[] = [];
  const appKeysValue = field("app_keys");
  if (appKeysValue !== undefined) {
    if (!isOverride) {
      note("warn", `"app_keys" is only honoured on the override meta layer and is ignored`);
    } else {
      appKeys = stringArray(appKeysValue) ?? [];
    }
  }
  if (isOverride) {
    blacklistedLayers = stringArray(field("blacklisted_layers")) ?? [];
    overridePaths = stringArray(field("override_paths")) ?? [];
  }

  return {
    name,
    type: typeValue,
    implicit: options.implicit,
    manifestPath,
    fileFormatVersion,
    libraryPath,
    libraryPathRaw,
    libraryArch,
    apiVersion: api.packed,
    implementationVersion,
    description: descriptionValue,
    functions,
    instanceExtensions,
    deviceExtensions,
    enableEnvironment,
    disableEnvironment,
    preInstanceFunctions,
    componentLayers,
    appKeys,
    blacklistedLayers,
    overridePaths,
    indexInFile: index,
  };
}

/**
 * Resolves `library_path` as the Khronos loader does (M04): absolute as is, a
 * path with a `/` joined to the manifest's folder by plain concatenation, a
 * bare name unchanged for the dynamic linker's own search.
 *
 * @example Usage
 * ```ts
 * import { resolveLayerLibraryPath } from "./layer_manifest.ts";
 * resolveLayerLibraryPath("/opt/l/x.json", "../lib/libx.so"); // "/opt/l/../lib/libx.so"
 * resolveLayerLibraryPath("/opt/l/x.json", "libx.so"); // "libx.so"
 * ```
 */
export function resolveLayerLibraryPath(manifestPath: string, libraryPath: string): string {
  if (libraryPath.startsWith("/") || !libraryPath.includes("/")) return libraryPath;
  const folder = dirName(manifestPath);
  return (folder.endsWith("/") ? folder : folder + "/") + libraryPath;
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

/**
 * Formats a layer's packed API version for messages (`1.3.211`).
 *
 * @example Usage
 * ```ts
 * import { layerApiVersionText } from "./layer_manifest.ts";
 * layerApiVersionText(4206803); // "1.3.211"
 * ```
 */
export function layerApiVersionText(packed: number): string {
  return formatVersion(packed);
}

function readExtensions(
  value: unknown,
  key: string,
  device: boolean,
  note: (level: LayerMessage["level"], text: string) => void,
): LayerExtension[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    note("warn", `"${key}" is ${describeJsonType(value)}, expected an array; ignored`);
    return [];
  }
  const out: LayerExtension[] = [];
  value.forEach((entry, i) => {
    if (!isObject(entry)) {
      note("warn", `"${key}[${i}]" is ${describeJsonType(entry)}, expected an object; ignored`);
      return;
    }
    const extName = entry["name"];
    if (typeof extName !== "string" || extName === "") {
      note("warn", `"${key}[${i}].name" is ${describeField(extName)}, expected a string; entry ignored`);
      return;
    }
    if (new TextEncoder().encode(extName).length >= MAX_NAME_SIZE) {
      note("warn", `"${key}[${i}].name" is longer than ${MAX_NAME_SIZE - 1} bytes; entry ignored`);
      return;
    }
    const spec = readUnsigned(entry["spec_version"]);
    const points = device ? stringArray(entry["entrypoints"]) ?? [] : [];
    out.push({ name: extName, specVersion: spec, entrypoints: points });
  });
  return out;
}

/** Reads a decimal string the way `strtoul(s, NULL, 10)` does: leading digits, else 0 (and 0 for a non-string). */
function readUnsigned(value: unknown): number {
  if (typeof value !== "string") return 0;
  const match = /^\s*\+?([0-9]+)/.exec(value);
  if (match === null || match[1] === undefined) return 0;
  const n = Number(match[1]);
  return n > 0xffffffff ? 0xffffffff : n;
}

function firstPair(value: unknown): LayerEnvironmentVariable | undefined {
  if (!isObject(value)) return undefined;
  for (const [key, v] of Object.entries(value)) {
    if (key === "") return undefined;
    if (typeof v === "string") return { name: key, value: v };
    if (typeof v === "number") return { name: key, value: String(v) };
    return undefined;
  }
  return undefined;
}

function stringArray(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: string[] = [];
  for (const v of value) {
    if (typeof v !== "string") return undefined;
    out.push(v);
  }
  return out;
}

function describeField(value: unknown): string {
  if (value === undefined) return "missing";
  if (value === "") return "an empty string";
  return describeJsonType(value);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Counts `"layer"` keys of the top-level object, which a parsed object collapses into one. */
function countTopLevelLayerKeys(text: string): number {
  const quick = text.match(/"layer"\s*:/g);
  if (quick === null || quick.length < 2) return quick === null ? 0 : 1;
  // Rare case: walk the text, tracking depth outside strings, to count only top-level keys.
  let depth = 0;
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      if (depth === 1 && text.slice(i, j + 1) === '"layer"' && /^\s*:/.test(text.slice(j + 1, j + 20))) {
        count++;
      }
      i = j;
    } else if (c === "{" || c === "[") {
      depth++;
    } else if (c === "}" || c === "]") {
      depth--;
    }
  }
  return count;
}
