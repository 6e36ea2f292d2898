/**
 * The shape of the inspect report's sections ({@linkcode InspectSection}), which every discovery module
 * that reports on its files fills (drivers, layers, the settings file); inspect.ts gathers and prints them.
 * Kept apart from inspect.ts so that those modules need not import the report that imports them.
 *
 * @example A section with no candidates
 * ```ts
 * import type { InspectSection } from "./inspect_section.ts";
 * const empty: InspectSection = { title: "Drivers", locations: [], entries: [], used: 0, skipped: 0 };
 * ```
 *
 * @module
 */

import type { LocationReport } from "./search_paths.ts";

/** A field value shown in the report. */
export type InspectValue = string | number | boolean;

/**
 * One candidate manifest.
 *
 * @example Usage
 * ```ts
 * import type { InspectEntry } from "@vkdeno/loader/discovery";
 * const entry: InspectEntry = {
 *   path: "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json",
 *   source: "XDG_DATA_DIRS",
 *   location: "/usr/share/vulkan/icd.d",
 *   status: "used",
 *   fields: { api_version: "1.1.230" },
 *   warnings: [],
 * };
 * ```
 */
export interface InspectEntry {
  /** The manifest file. */
  readonly path: string;
  /** The variable or rule that found it (`VK_DRIVER_FILES`, `XDG_DATA_DIRS`, ...). */
  readonly source: string;
  /** The folder, file entry or package it was found in. */
  readonly location: string;
  /** Used, or skipped with `reason`. */
  readonly status: "used" | "skipped";
  /** Why it was skipped. */
  readonly reason?: string;
  /** The manifest's parsed fields, under their manifest names (plus derived ones such as `library`). */
  readonly fields: Readonly<Record<string, InspectValue>>;
  /** Accepted oddities. */
  readonly warnings: readonly string[];
}

/**
 * One searched location.
 *
 * @example Usage
 * ```ts
 * import type { InspectLocation } from "@vkdeno/loader/discovery";
 * const l: InspectLocation = { path: "/etc/vulkan/icd.d", source: "SYSCONFDIR", defaulted: true, status: "missing", files: 0 };
 * ```
 */
export interface InspectLocation {
  /** The folder or file entry. */
  readonly path: string;
  /** The variable or rule that put it in the list. */
  readonly source: string;
  /** True when the variable was unset and its fallback was used. */
  readonly defaulted: boolean;
  /** What came of searching it (`scanned`, `missing`, ...). */
  readonly status: string;
  /** How many manifest names it gave. */
  readonly files: number;
}

/**
 * A section of the report: drivers, layers, ...
 *
 * @example Usage
 * ```ts
 * import type { InspectSection } from "@vkdeno/loader/discovery";
 * const empty: InspectSection = { title: "Drivers", locations: [], entries: [], used: 0, skipped: 0 };
 * ```
 */
export interface InspectSection {
  /** Heading, e.g. `Drivers`. */
  readonly title: string;
  /** Locations searched, in order. */
  readonly locations: readonly InspectLocation[];
  /** Every candidate, in discovery order. */
  readonly entries: readonly InspectEntry[];
  /** How many entries are used. */
  readonly used: number;
  /** How many entries are skipped. */
  readonly skipped: number;
}

/**
 * Converts a search-location report (from `search_paths.ts`) for a section.
 *
 * @example Usage
 * ```ts
 * import { inspectLocation } from "./inspect_section.ts";
 * inspectLocation({
 *   location: { path: "/etc/vulkan/icd.d", source: "SYSCONFDIR", defaulted: true, isFile: false },
 *   status: "missing",
 *   fileCount: 0,
 * });
 * ```
 */
export function inspectLocation(report: LocationReport): InspectLocation {
  return {
    path: report.location.path,
    source: report.location.source,
    defaulted: report.location.defaulted,
    status: report.status + (report.detail === undefined ? "" : `: ${report.detail}`),
    files: report.fileCount,
  };
}

/**
 * The warning for a manifest whose library file does not exist (a `stat`, nothing loaded), or undefined.
 * A bare name (`libvulkan_lvp.so`) is found by the dynamic linker's search and is not checked.
 *
 * @example Usage
 * ```ts
 * import { missingLibraryWarning } from "./inspect_section.ts";
 * console.log(missingLibraryWarning("/nonexistent/libx.so")); // library "/nonexistent/libx.so" does not exist: loading it will fail
 * ```
 */
export function missingLibraryWarning(library: string | undefined): string | undefined {
  if (library === undefined || !library.includes("/")) return undefined;
  try {
    Deno.statSync(library);
    return undefined;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) return undefined;
    return `library "${library}" does not exist: loading it will fail`;
  }
}
