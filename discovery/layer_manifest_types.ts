/**
 * The records a layer manifest is read into (layer_manifest.ts, layer_manifest_fields.ts): one layer
 * ({@linkcode LayerManifest}), a skipped layer, the messages for the loader log, and the names and limits
 * the manifest rules use (the override layer's name, the known file versions, the pre-instance commands).
 *
 * @example A message for the loader log
 * ```ts
 * import type { LayerMessage } from "./layer_manifest_types.ts";
 * const m: LayerMessage = { level: "info", category: "layer", text: "Layer \"x\" found" };
 * ```
 *
 * @module
 */
import type { DiscoveryMessage } from "./message.ts";

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
 * A log line: the one shape discovery's messages share.
 *
 * @deprecated Use {@linkcode DiscoveryMessage} (the same shape).
 */
export type LayerMessage = DiscoveryMessage;

/**
 * One extension a layer declares.
 *
 * @example Usage
 * ```ts
 * import type { LayerExtension } from "@vkdeno/loader/discovery";
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
 * import type { LayerEnvironmentVariable } from "@vkdeno/loader/discovery";
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
 * import type { LayerFunctionNames } from "@vkdeno/loader/discovery";
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
 * import { parseLayerManifest } from "./layer_manifest.ts";
 * import { type LayerManifest } from "@vkdeno/loader/discovery";
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
   * The top-level members in text order, repeated names included (`ManifestFileOk.members`): lets the
   * parser see repeated `layer` members, which a parsed object holds once. Default: the object's entries.
   */
  readonly members?: readonly (readonly [string, unknown])[];
}
