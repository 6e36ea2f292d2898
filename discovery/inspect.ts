/**
 * The inspect report (`deno task inspect`): what discovery found and what it did with each file, in sections
 * of one shape, like the Fuchsia loader service's inspect data.
 *
 * @example Printing the report for a snapshot
 * ```ts
 * import { buildInspectReport, formatInspectReport } from "./inspect.ts";
 * const report = buildInspectReport({ vars: {}, elevated: false, root: "/nonexistent" });
 * console.log(formatInspectReport(report));
 * ```
 *
 * @module
 */

import type { EnvironmentSnapshot } from "./environment.ts";
import {
  discoverDrivers,
  type DiscoverDriversOptions,
  DRIVER_VARIABLES,
  type DriverDiscovery,
} from "./drivers.ts";
import { LAYER_VARIABLES, layerInspectSection } from "./layer_inspect.ts";
import { settingsInspectSection } from "./settings_inspect.ts";
import type { InspectEntry, InspectSection, InspectValue } from "./inspect_section.ts";
import { inspectLocation, missingLibraryWarning } from "./inspect_section.ts";

export type { InspectEntry, InspectLocation, InspectSection, InspectValue } from "./inspect_section.ts";
export { inspectLocation } from "./inspect_section.ts";

/**
 * The whole report.
 *
 * @example Usage
 * ```ts
 * import type { InspectReport } from "@vkdeno/loader/discovery";
 * const titles = (r: InspectReport) => [r.drivers.title, r.layers?.title];
 * ```
 */
export interface InspectReport {
  /** Whether the process was elevated, and the discovery variables that were set. */
  readonly environment: {
    readonly elevated: boolean;
    readonly root?: string;
    readonly variables: Readonly<Record<string, string>>;
  };
  /** The driver section. */
  readonly drivers: InspectSection;
  /** The layer section, when layer discovery supplies one. */
  readonly layers?: InspectSection;
  /** The loader settings file section (settings_inspect.ts). */
  readonly settings?: InspectSection;
}

/**
 * Options for {@linkcode buildInspectReport}.
 *
 * @example Usage
 * ```ts
 * import type { InspectOptions } from "@vkdeno/loader/discovery";
 * const options: InspectOptions = { packages: ["/opt/vulkan/example_driver"] };
 * ```
 */
export interface InspectOptions extends DiscoverDriversOptions {
  /** A layer section built by layer discovery (default: `layerInspectSection(env)` of layer_inspect.ts). */
  readonly layers?: InspectSection;
  /** More variable names to list in the environment part (layer variables, ...). */
  readonly variables?: readonly string[];
}

const SHOWN_VARIABLES = [
  ...DRIVER_VARIABLES,
  "HOME",
  "XDG_CONFIG_HOME",
  "XDG_CONFIG_DIRS",
  "XDG_DATA_HOME",
  "XDG_DATA_DIRS",
];

/** The variables whose empty value replaces a whole search with nothing, and which (D12). */
const EMPTY_REPLACES: Readonly<Record<string, string>> = {
  VK_DRIVER_FILES: "no driver",
  VK_ICD_FILENAMES: "no driver",
  VK_LAYER_PATH: "no explicit layer",
  VK_IMPLICIT_LAYER_PATH: "no implicit layer",
};

/**
 * Runs driver discovery for a snapshot and builds the report.
 *
 * @example Usage
 * ```ts
 * import { buildInspectReport } from "@vkdeno/loader/discovery";
 * const report = buildInspectReport({ vars: { VK_DRIVER_FILES: "/nonexistent.json" }, elevated: false });
 * console.log(report.drivers.entries[0]?.reason); // "file does not exist"
 * ```
 */
export function buildInspectReport(env: EnvironmentSnapshot, options: InspectOptions = {}): InspectReport {
  const variables: Record<string, string> = {};
  for (const name of [...SHOWN_VARIABLES, ...LAYER_VARIABLES, ...(options.variables ?? [])]) {
    const value = env.vars[name];
    if (value !== undefined) variables[name] = value;
  }
  return {
    environment: { elevated: env.elevated, ...(env.root === undefined ? {} : { root: env.root }), variables },
    drivers: driverInspectSection(discoverDrivers(env, options)),
    layers: options.layers ?? layerInspectSection(env),
    settings: settingsInspectSection(env),
  };
}

/**
 * Turns a driver discovery into a report section.
 *
 * @example Usage
 * ```ts
 * import { discoverDrivers } from "./drivers.ts";
 * import { driverInspectSection } from "./inspect.ts";
 * const section = driverInspectSection(discoverDrivers({ vars: {}, elevated: false, root: "/nonexistent" }));
 * console.log(section.used, section.skipped);
 * ```
 */
export function driverInspectSection(discovery: DriverDiscovery): InspectSection {
  const entries = discovery.candidates.map((c): InspectEntry => {
    const m = c.manifest ?? {};
    const fields: Record<string, InspectValue> = {};
    if (m.fileFormatVersion !== undefined) fields["file_format_version"] = m.fileFormatVersion;
    if (m.libraryPathField !== undefined) fields["library_path"] = m.libraryPathField;
    if (m.libraryPath !== undefined) fields["library"] = m.libraryPath;
    if (m.apiVersionText !== undefined) fields["api_version"] = m.apiVersionText;
    if (m.libraryArch !== undefined) fields["library_arch"] = m.libraryArch;
    if (m.isPortabilityDriver !== undefined) fields["is_portability_driver"] = m.isPortabilityDriver;
    if (c.origin.package !== undefined) fields["package"] = c.origin.package;
    return {
      path: c.manifestPath,
      source: c.origin.source,
      location: c.origin.location,
      status: c.status,
      ...(c.reason === undefined ? {} : { reason: c.reason }),
      fields,
      warnings: withMissingLibrary(c.warnings, c.status === "used" ? m.libraryPath : undefined),
    };
  });
  return {
    title: "Drivers",
    locations: discovery.locations.map(inspectLocation),
    entries,
    used: entries.filter((e) => e.status === "used").length,
    skipped: entries.filter((e) => e.status === "skipped").length,
  };
}

function withMissingLibrary(warnings: readonly string[], library: string | undefined): string[] {
  const missing = missingLibraryWarning(library);
  return missing === undefined ? [...warnings] : [...warnings, missing];
}

/**
 * Prints one section as text tables: locations, then entries.
 *
 * @example Usage
 * ```ts
 * import { formatInspectSection } from "./inspect.ts";
 * console.log(formatInspectSection({ title: "Drivers", locations: [], entries: [], used: 0, skipped: 0 }));
 * ```
 */
export function formatInspectSection(section: InspectSection): string {
  const lines = [`${section.title}: ${section.used} used, ${section.skipped} skipped`, ""];
  lines.push("  Searched");
  lines.push(
    ...indent(
      formatTable(
        ["LOCATION", "FROM", "RESULT"],
        section.locations.map((l) => [
          l.path,
          l.source + (l.defaulted ? " (default)" : ""),
          l.status === "scanned" ? `${l.files} file(s)` : l.status,
        ]),
      ),
      "    ",
    ),
  );
  lines.push("", "  Manifests");
  if (section.entries.length === 0) lines.push("    (none)");
  const rows: string[][] = [];
  for (const e of section.entries) {
    const version = e.fields["api_version"] ?? e.fields["file_format_version"] ?? "";
    rows.push([e.status, e.path, e.source, String(version), String(e.fields["library"] ?? "")]);
  }
  const table = formatTable(["STATUS", "MANIFEST", "FROM", "API", "LIBRARY"], rows);
  if (section.entries.length > 0) lines.push("    " + table[0]);
  section.entries.forEach((e, i) => {
    lines.push("    " + (table[i + 1] ?? ""));
    if (e.reason !== undefined) lines.push(`        reason: ${e.reason}`);
    for (const w of e.warnings) lines.push(`        warning: ${w}`);
  });
  return lines.join("\n");
}

/**
 * Prints the whole report: the environment, then each section present.
 *
 * @example Usage
 * ```ts
 * import { buildInspectReport, formatInspectReport } from "@vkdeno/loader/discovery";
 * console.log(formatInspectReport(buildInspectReport({ vars: {}, elevated: false, root: "/nonexistent" })));
 * ```
 */
export function formatInspectReport(report: InspectReport): string {
  const lines = ["vkdeno loader inspect", ""];
  lines.push(`  elevated privileges: ${report.environment.elevated ? "yes" : "no"}`);
  if (report.environment.root !== undefined) lines.push(`  root: ${report.environment.root}`);
  const names = Object.keys(report.environment.variables);
  if (names.length === 0) lines.push("  no discovery variables set");
  for (const name of names) {
    // Set to the empty string is set (docs/behaviour.md D12): say so, and what it replaces.
    const value = report.environment.variables[name];
    const empty = EMPTY_REPLACES[name];
    lines.push(
      `  ${name}=${
        value !== ""
          ? value
          : `"" (set to the empty string${empty === undefined ? "" : `: ${empty} manifest is searched`})`
      }`,
    );
  }
  lines.push("", formatInspectSection(report.drivers));
  if (report.layers !== undefined) lines.push("", formatInspectSection(report.layers));
  if (report.settings !== undefined) lines.push("", formatInspectSection(report.settings));
  return lines.join("\n") + "\n";
}

/**
 * Aligns rows under a header, two spaces between columns.
 *
 * @example Usage
 * ```ts
 * import { formatTable } from "./inspect.ts";
 * formatTable(["A", "B"], [["1", "2"]]); // ["A  B", "1  2"]
 * ```
 */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join("  ").trimEnd();
  return [line(header), ...rows.map(line)];
}

function indent(lines: readonly string[], prefix: string): string[] {
  return lines.map((l) => prefix + l);
}
