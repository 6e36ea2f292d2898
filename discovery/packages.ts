/**
 * Driver packages, the shape the Fuchsia Vulkan loader service takes drivers in (docs/behaviour.md V02):
 * reading and checking one package folder.
 *
 * @example Reading a package
 * ```ts
 * import { readDriverPackage } from "./packages.ts";
 * const result = readDriverPackage("/opt/vulkan/example_driver");
 * console.log(result.ok ? result.package.libraryPath : result.reason);
 * ```
 *
 * @module
 */

import { readManifestFile } from "./manifest_file.ts";
import { fieldIs } from "./driver_manifest.ts";
import { joinPath } from "./search_paths.ts";

/** Where the metadata file sits inside a package. */
export const PACKAGE_METADATA_PATH = "meta/metadata/metadata.json";

/** The metadata version this loader reads. */
export const PACKAGE_METADATA_VERSION = 1;

/**
 * A package whose metadata is valid.
 *
 * @example Usage
 * ```ts
 * import type { DriverPackage } from "@vkdeno/loader/discovery";
 * const p: DriverPackage = {
 *   folder: "/pkg",
 *   metadataPath: "/pkg/meta/metadata/metadata.json",
 *   filePath: "lib/libvulkan_example.so",
 *   libraryPath: "/pkg/lib/libvulkan_example.so",
 *   manifestPathField: "meta/icd.d/example.json",
 *   manifestPath: "/pkg/meta/icd.d/example.json",
 * };
 * ```
 */
export interface DriverPackage {
  /** The package folder, as given. */
  readonly folder: string;
  /** Its metadata file. */
  readonly metadataPath: string;
  /** `file_path` as written. */
  readonly filePath: string;
  /** The library inside the package (folder + `file_path`). */
  readonly libraryPath: string;
  /** `manifest_path` as written. */
  readonly manifestPathField: string;
  /** The Khronos manifest inside the package (folder + `manifest_path`). */
  readonly manifestPath: string;
}

/**
 * The outcome of {@linkcode readDriverPackage}.
 *
 * @example Usage
 * ```ts
 * import type { DriverPackageResult } from "./packages.ts";
 * const bad: DriverPackageResult = {
 *   ok: false,
 *   folder: "/pkg",
 *   metadataPath: "/pkg/meta/metadata/metadata.json",
 *   reason: 'field "version" is 2, expected 1',
 *   warnings: [],
 * };
 * ```
 */
export type DriverPackageResult =
  | { readonly ok: true; readonly package: DriverPackage; readonly warnings: readonly string[] }
  | {
    readonly ok: false;
    readonly folder: string;
    readonly metadataPath: string;
    /** What is wrong, naming the field or file. */
    readonly reason: string;
    readonly warnings: readonly string[];
  };

/**
 * Reads and checks a package's metadata. Never throws. The manifest itself
 * is not read here: `discoverDrivers` reads it like any other.
 *
 * @example Usage
 * ```ts
 * import { readDriverPackage } from "./packages.ts";
 * const result = readDriverPackage("/nonexistent");
 * console.log(result.ok ? "" : result.reason); // 'metadata "meta/metadata/metadata.json": file does not exist'
 * ```
 */
export function readDriverPackage(folder: string): DriverPackageResult {
  const metadataPath = joinPath(folder, PACKAGE_METADATA_PATH);
  const fail = (reason: string, warnings: readonly string[] = []): DriverPackageResult => ({
    ok: false,
    folder,
    metadataPath,
    reason,
    warnings,
  });
  const file = readManifestFile(metadataPath);
  if (!file.ok) return fail(`metadata "${PACKAGE_METADATA_PATH}": ${file.reason}`, file.warnings);
  const warnings = [...file.warnings];
  const metadata = file.value;

  const version = metadata["version"];
  if (version !== PACKAGE_METADATA_VERSION) {
    const shown = typeof version === "number" ? String(version) : undefined;
    return fail(
      shown === undefined
        ? fieldIs("version", version, `${PACKAGE_METADATA_VERSION}`)
        : `field "version" is ${shown}, expected ${PACKAGE_METADATA_VERSION} (the only metadata version)`,
      warnings,
    );
  }
  const filePath = insidePath(metadata, "file_path");
  if (typeof filePath !== "object") return fail(filePath, warnings);
  const manifestPath = insidePath(metadata, "manifest_path");
  if (typeof manifestPath !== "object") return fail(manifestPath, warnings);

  const library = joinPath(folder, filePath.value);
  const manifest = joinPath(folder, manifestPath.value);
  const libraryProblem = escapeOrMissing(folder, library, "file_path", filePath.value);
  if (libraryProblem !== undefined) return fail(libraryProblem, warnings);
  const manifestProblem = escapeOrMissing(folder, manifest, "manifest_path", manifestPath.value);
  if (manifestProblem !== undefined) return fail(manifestProblem, warnings);

  return {
    ok: true,
    package: {
      folder,
      metadataPath,
      filePath: filePath.value,
      libraryPath: library,
      manifestPathField: manifestPath.value,
      manifestPath: manifest,
    },
    warnings,
  };
}

function insidePath(metadata: Readonly<Record<string, unknown>>, field: string): { value: string } | string {
  const value = metadata[field];
  const expected = 'a relative path inside the package (not absolute, no "..")';
  if (typeof value !== "string" || value === "" || value.includes("\0")) {
    return fieldIs(field, value, expected);
  }
  if (value.startsWith("/") || value.split("/").includes("..")) return fieldIs(field, value, expected);
  return { value };
}

function escapeOrMissing(folder: string, path: string, field: string, written: string): string | undefined {
  let realFolder: string;
  let realPath: string;
  try {
    realFolder = Deno.realPathSync(folder);
  } catch (error) {
    return `package folder cannot be resolved: ${error instanceof Error ? error.message : String(error)}`;
  }
  try {
    realPath = Deno.realPathSync(path);
  } catch (error) {
    const why = error instanceof Deno.errors.NotFound ? "does not exist" : "cannot be resolved";
    return `file "${written}" named by field "${field}" ${why} in the package`;
  }
  if (
    realPath !== realFolder && !realPath.startsWith(realFolder.endsWith("/") ? realFolder : realFolder + "/")
  ) {
    return `file "${written}" named by field "${field}" leads out of the package through a symbolic link ` +
      `(to "${realPath}")`;
  }
  return undefined;
}
