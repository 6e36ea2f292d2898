/**
 * The driver (ICD) manifest, file format 1.0.0 and 1.0.1, read into a plain record or a reason naming the
 * field (docs/behaviour.md M01-M04, M06); how `library_path` reaches the dynamic linker.
 *
 * @example Parsing a manifest object
 * ```ts
 * import { parseDriverManifest } from "./driver_manifest.ts";
 * const result = parseDriverManifest(
 *   { file_format_version: "1.0.0", ICD: { library_path: "./libfoo.so", api_version: "1.3.0" } },
 *   "/opt/icd/foo.json",
 * );
 * if (result.ok) console.log(result.manifest.libraryPath); // "/opt/icd/./libfoo.so"
 * ```
 *
 * @module
 */

import { describeJsonType, formatVersion, parseVersionString } from "./manifest_file.ts";
import { baseName } from "./search_paths.ts";
import { type LibraryPathKind, libraryPathOn, platformRules } from "./platforms.ts";

/** The newest driver manifest file format this loader knows. */
export const DRIVER_MANIFEST_VERSION = "1.0.1";

export type { LibraryPathKind } from "./platforms.ts";

/**
 * A parsed, valid driver manifest.
 *
 * @example Usage
 * ```ts
 * import type { DriverManifest } from "@vkdeno/loader/discovery";
 * const m: DriverManifest = {
 *   manifestPath: "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json",
 *   fileName: "lvp_icd.x86_64.json",
 *   fileFormatVersion: "1.0.0",
 *   libraryPathField: "/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so",
 *   libraryPath: "/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so",
 *   libraryPathKind: "absolute",
 *   apiVersion: 4198630,
 *   apiVersionText: "1.1.230",
 *   isPortabilityDriver: false,
 * };
 * ```
 */
export interface DriverManifest {
  /** The manifest file, as opened. */
  readonly manifestPath: string;
  /** Its last path component: what the driver filters match. */
  readonly fileName: string;
  /** `file_format_version` as written. */
  readonly fileFormatVersion: string;
  /** `ICD.library_path` as written. */
  readonly libraryPathField: string;
  /** The path or name to give the dynamic linker. */
  readonly libraryPath: string;
  /** How `library_path` was written. */
  readonly libraryPathKind: LibraryPathKind;
  /** `ICD.api_version`, packed as `VK_MAKE_API_VERSION` does. */
  readonly apiVersion: number;
  /** `ICD.api_version` as written. */
  readonly apiVersionText: string;
  /** `ICD.library_arch` when present. */
  readonly libraryArch?: "32" | "64";
  /** `ICD.is_portability_driver`, false when absent. */
  readonly isPortabilityDriver: boolean;
}

/**
 * The outcome of {@linkcode parseDriverManifest}.
 *
 * @example Usage
 * ```ts
 * import type { DriverManifestResult } from "./driver_manifest.ts";
 * const bad: DriverManifestResult = { ok: false, reason: 'field "ICD" is missing, expected an object', warnings: [] };
 * ```
 */
export type DriverManifestResult =
  | { readonly ok: true; readonly manifest: DriverManifest; readonly warnings: readonly string[] }
  | {
    readonly ok: false;
    /** What is wrong, naming the field and what was expected. */
    readonly reason: string;
    readonly warnings: readonly string[];
    /** Fields that did parse, for reports. */
    readonly partial?: Readonly<Partial<DriverManifest>>;
  };

const VERSION_EXAMPLE = 'a version string such as "1.0.1"';
// 1.0.1 packed: the newest format read without a warning.
const NEWEST_FORMAT = (1 << 22) | (0 << 12) | 1;

/**
 * Validates a manifest's top-level object and resolves its library path.
 * Never throws.
 *
 * @example Usage
 * ```ts
 * import { parseDriverManifest } from "./driver_manifest.ts";
 * const result = parseDriverManifest({ file_format_version: "1.0.0", ICD: { library_path: 5 } }, "/a.json");
 * console.log(result.ok ? "" : result.reason); // 'field "ICD.library_path" is a number, expected a non-empty string'
 * ```
 */
export function parseDriverManifest(
  value: Readonly<Record<string, unknown>>,
  manifestPath: string,
): DriverManifestResult {
  const warnings: string[] = [];
  const partial: { -readonly [K in keyof DriverManifest]?: DriverManifest[K] } = {
    manifestPath,
    fileName: baseName(manifestPath),
  };
  const fail = (reason: string): DriverManifestResult => ({ ok: false, reason, warnings, partial });

  const format = versionText(value["file_format_version"], "file_format_version", warnings);
  if (typeof format !== "string") return fail(fieldIs("file_format_version", format, VERSION_EXAMPLE));
  const formatParsed = parseVersionString(format);
  if (formatParsed === undefined) return fail(fieldIs("file_format_version", format, VERSION_EXAMPLE));
  partial.fileFormatVersion = format;
  if ((formatParsed.packed & 0x1fffffff) > NEWEST_FORMAT) {
    warnings.push(
      `file_format_version "${format}" is newer than ${DRIVER_MANIFEST_VERSION}, the newest this loader knows; ` +
        `reading it as ${DRIVER_MANIFEST_VERSION} (may cause errors)`,
    );
  }

  const icd = value["ICD"];
  if (icd === undefined && ("layer" in value || "layers" in value)) {
    return fail('is a layer manifest (it has "layer" or "layers" and no "ICD"), not a driver manifest');
  }
  if (typeof icd !== "object" || icd === null || Array.isArray(icd)) {
    return fail(fieldIs("ICD", icd, "an object"));
  }
  const fields = icd as Record<string, unknown>;

  const library = fields["library_path"];
  if (typeof library !== "string" || library === "") {
    return fail(fieldIs("ICD.library_path", library, "a non-empty string"));
  }
  if (library.includes("\0")) {
    return fail(fieldIs("ICD.library_path", library, "a path without NUL characters"));
  }
  const resolved = resolveLibraryPath(library, manifestPath);
  partial.libraryPathField = library;
  partial.libraryPath = resolved.path;
  partial.libraryPathKind = resolved.kind;

  const api = versionText(fields["api_version"], "ICD.api_version", warnings);
  if (typeof api !== "string") return fail(fieldIs("ICD.api_version", api, VERSION_EXAMPLE));
  const apiVersion = parseVersionString(api);
  if (apiVersion === undefined) return fail(fieldIs("ICD.api_version", api, VERSION_EXAMPLE));
  partial.apiVersion = apiVersion.packed;
  partial.apiVersionText = api;
  if (apiVersion.variant !== 0) {
    return fail(
      `field "ICD.api_version" is "${api}", whose variant ${apiVersion.variant} is not Vulkan ` +
        `(expected variant 0, as in "${formatVersion(apiVersion.packed & 0x1fffffff)}")`,
    );
  }

  const archField = fields["library_arch"];
  const arch = archField === "32" || archField === "64" ? archField : undefined;
  if (archField !== undefined && arch === undefined) {
    warnings.push(`${fieldIs("ICD.library_arch", archField, '"32" or "64"')}; ignored`);
  }
  if (arch !== undefined) partial.libraryArch = arch;

  const portability = fields["is_portability_driver"];
  if (portability !== undefined && typeof portability !== "boolean") {
    warnings.push(
      `${fieldIs("ICD.is_portability_driver", portability, "true or false")}; ignored (an ordinary driver)`,
    );
  }

  const manifest: DriverManifest = {
    manifestPath,
    fileName: baseName(manifestPath),
    fileFormatVersion: format,
    libraryPathField: library,
    libraryPath: resolved.path,
    libraryPathKind: resolved.kind,
    apiVersion: apiVersion.packed,
    apiVersionText: api,
    ...(arch === undefined ? {} : { libraryArch: arch }),
    isPortabilityDriver: portability === true,
  };
  return { ok: true, manifest, warnings };
}

/**
 * A version field as text: a string as is; a number read from its JSON text
 * (as the Khronos loader does), with a warning naming the field; anything
 * else unchanged, for the caller to reject.
 */
function versionText(value: unknown, field: string, warnings: string[]): unknown {
  if (typeof value !== "number" || !Number.isFinite(value)) return value;
  const text = JSON.stringify(value);
  warnings.push(`field "${field}" is the number ${text}, expected a string; read as "${text}"`);
  return text;
}

/**
 * Turns `library_path` into what the dynamic linker should get (see the
 * module documentation), by the host's rules (`libraryPathOn`).
 *
 * @example Usage
 * ```ts
 * import { resolveLibraryPath } from "./driver_manifest.ts";
 * resolveLibraryPath("lib/libfoo.so", "/opt/icd/foo.json"); // { path: "/opt/icd/lib/libfoo.so", kind: "relative" }
 * resolveLibraryPath("libfoo.so.1", "/opt/icd/foo.json"); // { path: "libfoo.so.1", kind: "name" }
 * ```
 */
export function resolveLibraryPath(
  libraryPath: string,
  manifestPath: string,
): { path: string; kind: LibraryPathKind } {
  return libraryPathOn(platformRules(), libraryPath, manifestPath);
}

/**
 * Describes a wrong field for messages: `field "x" is missing, expected y`,
 * `field "x" is a number, expected y`, `field "x" is "abc", expected y`.
 *
 * @example Usage
 * ```ts
 * import { fieldIs } from "./driver_manifest.ts";
 * fieldIs("ICD.library_arch", "128", '"32" or "64"'); // 'field "ICD.library_arch" is "128", expected "32" or "64"'
 * ```
 */
export function fieldIs(field: string, value: unknown, expected: string): string {
  let actual: string;
  if (value === undefined) actual = "missing";
  else if (typeof value === "string") {
    actual = JSON.stringify(value.length > 80 ? value.slice(0, 80) + "..." : value);
  } else actual = describeJsonType(value);
  return `field "${field}" is ${actual}, expected ${expected}`;
}
