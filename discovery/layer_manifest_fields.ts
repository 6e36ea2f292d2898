/**
 * The fields of one layer object of a layer manifest (docs/behaviour.md LM02 to LM08, O01, O05, O06) read
 * into a layer record ({@linkcode LayerManifest}) or a skip reason naming the field; layer_manifest.ts reads
 * the file around them (its version, `layer` or `layers`). Also how `library_path` resolves against the
 * manifest's folder. Nothing here reads the file system.
 *
 * @example Resolving a relative library path
 * ```ts
 * import { resolveLayerLibraryPath } from "./layer_manifest_fields.ts";
 * console.log(resolveLayerLibraryPath("/opt/l/x.json", "./libx.so")); // "/opt/l/./libx.so"
 * ```
 *
 * @module
 */

import { describeJsonType, parseVersionString } from "./manifest_file.ts";
import {
  type LayerEnvironmentVariable,
  type LayerExtension,
  type LayerManifest,
  type LayerMessage,
  MAX_NAME_SIZE,
  OVERRIDE_LAYER_NAME,
  type ParseLayerManifestOptions,
  PRE_INSTANCE_FUNCTIONS,
  type SkippedLayer,
} from "./layer_manifest_types.ts";
import { libraryPathOn, platformRules } from "./platforms.ts";

/**
 * A version field given as a JSON number, read from its text as the Khronos loader reads it (it prints the
 * value), with a warning naming the field; any other value unchanged.
 *
 * @example Usage
 * ```ts
 * import { numberAsText } from "./layer_manifest_fields.ts";
 * console.log(numberAsText(1, "api_version", console.warn)); // "1"
 * ```
 */
export function numberAsText(value: unknown, field: string, warn: (text: string) => void): unknown {
  if (typeof value !== "number" || !Number.isFinite(value)) return value;
  const text = JSON.stringify(value);
  warn(`"${field}" is the number ${text}, expected a string; read as "${text}"`);
  return text;
}

/**
 * Reads one layer object of a manifest (the `layer` object or one element of `layers`) into a layer record,
 * or the reason it is skipped, naming the field at fault; version-dependent fields are read only from the
 * file versions that define them.
 *
 * @example Usage
 * ```ts
 * import { readLayer } from "./layer_manifest_fields.ts";
 * const atLeast = () => true;
 * const read = readLayer({}, 0, { manifestPath: "/opt/x.json", implicit: false }, "1.2.1", atLeast, []);
 * console.log("reason" in read); // true
 * ```
 */
export function readLayer(
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
  return libraryPathOn(platformRules(), libraryPath, manifestPath).path;
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

/**
 * Whether `value` is a JSON object (not null, not an array).
 *
 * @example Usage
 * ```ts
 * import { isObject } from "./layer_manifest_fields.ts";
 * console.log(isObject({}), isObject([])); // true false
 * ```
 */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
