/**
 * The loader settings file's part of the inspect report: every location
 * searched, the file used (or why it was not), and what each of its entries
 * did (layer entries, additional drivers, `stderr_log`).
 *
 * @example Printing the section
 * ```ts
 * import { settingsInspectSection } from "./settings_inspect.ts";
 * const section = settingsInspectSection({ vars: {}, elevated: false, root: "/nonexistent" });
 * console.log(section.title, section.used); // "Loader settings file" 0
 * ```
 *
 * @module
 */

import type { EnvironmentSnapshot } from "./environment.ts";
import type { InspectEntry, InspectSection, InspectValue } from "./inspect_section.ts";
import { discoverDrivers } from "./drivers.ts";
import { discoverLayers } from "./layers.ts";
import { formatUuid, readLoaderSettings } from "./settings_file.ts";

/**
 * Builds the settings-file section for a snapshot (runs layer and driver
 * discovery to tell what each entry did).
 *
 * @example Usage
 * ```ts
 * import { settingsInspectSection } from "./settings_inspect.ts";
 * const s = settingsInspectSection({ vars: {}, elevated: false, root: "/nonexistent" });
 * console.log(s.locations.length); // 4
 * ```
 */
export function settingsInspectSection(env: EnvironmentSnapshot): InspectSection {
  const result = readLoaderSettings(env);
  const settings = result.settings;
  const locations = result.searched.map((l) => ({
    path: l.path,
    source: l.source,
    defaulted: false,
    status: l.status === "skipped" ? `unusable: ${l.reason}` : l.status,
    files: l.status === "used" ? 1 : 0,
  }));
  const entries: InspectEntry[] = [];
  const bad = result.searched.find((l) => l.status === "skipped");
  if (bad !== undefined) {
    entries.push({
      path: bad.path,
      source: bad.source,
      location: bad.path,
      status: "skipped",
      reason: `no loader settings are active: ${bad.reason}`,
      fields: {},
      warnings: [],
    });
  }
  if (settings !== undefined) {
    const fields: Record<string, InspectValue> = {
      file_format_version: settings.fileFormatVersion,
      entry: settings.entryIndex,
    };
    if (settings.matchedAppKey !== undefined) fields["app_key"] = settings.matchedAppKey;
    if (settings.stderrLog !== undefined) fields["stderr_log"] = settings.stderrLog.join(", ");
    entries.push({
      path: settings.path,
      source: settings.source,
      location: settings.path,
      status: "used",
      reason: settings.matchedAppKey !== undefined
        ? `entry ${settings.entryIndex} applies: its app_keys name "${settings.matchedAppKey}"`
        : `entry ${settings.entryIndex} applies: the first entry without app_keys` +
          (settings.stderrLog === undefined
            ? ""
            : settings.logMask !== 0
            ? "; stderr_log replaces VK_LOADER_DEBUG"
            : "; stderr_log names no known filter"),
      fields,
      warnings: settings.warnings,
    });
    if (settings.layers !== undefined) {
      const combined = discoverLayers(env).settingsLayers;
      for (const outcome of combined?.outcomes ?? []) {
        const e = outcome.entry;
        entries.push({
          path: e.path ?? settings.path,
          source: `layers[${e.index}]`,
          location: settings.path,
          status: outcome.status,
          reason: `${e.name === undefined ? "" : `"${e.name}" `}${e.control}: ${outcome.reason}`,
          fields: {
            control: e.control,
            ...(e.name === undefined ? {} : { name: e.name }),
            ...(outcome.layer?.libraryPath === undefined ? {} : { library: outcome.layer.libraryPath }),
          },
          warnings: [],
        });
      }
    }
    if (settings.deviceConfigurations !== undefined) {
      // Which devices these name is known only once drivers are loaded (`deno task info`, VK_LOADER_DEBUG).
      if (settings.deviceConfigurations.length === 0) {
        entries.push({
          path: settings.path,
          source: "device_configurations",
          location: settings.path,
          status: "used",
          reason: "an empty list: no physical device is shown; the driver variables are ignored",
          fields: {},
          warnings: [],
        });
      }
      settings.deviceConfigurations.forEach((c, position) => {
        entries.push({
          path: settings.path,
          source: `device_configurations[${c.index}]`,
          location: settings.path,
          status: "used",
          reason: `${c.deviceName === undefined ? "" : `("${c.deviceName}"): `}deviceUUID ${
            formatUuid(c.deviceUUID)
          }, driverUUID ${
            formatUuid(c.driverUUID)
          }, driverVersion ${c.driverVersion}: enumerated at position ${position} when present; unlisted devices are hidden and the driver variables ignored`,
          fields: {
            deviceUUID: formatUuid(c.deviceUUID),
            driverUUID: formatUuid(c.driverUUID),
            driverVersion: c.driverVersion,
            ...(c.deviceName === undefined ? {} : { deviceName: c.deviceName }),
            ...(c.driverName === undefined ? {} : { driverName: c.driverName }),
          },
          warnings: [],
        });
      });
    }
    if (settings.additionalDrivers.length > 0) {
      const drivers = discoverDrivers(env).candidates.filter((c) =>
        c.origin.source === "loader settings file"
      );
      for (const c of drivers) {
        entries.push({
          path: c.manifestPath,
          source: "additional_drivers",
          location: settings.path,
          status: c.status,
          reason: c.status === "used"
            ? `searched before every other driver${
              settings.additionalDriversExclusive
                ? ", and the only one (additional_drivers_use_exclusively)"
                : ""
            }`
            : c.reason,
          fields: c.manifest?.libraryPath === undefined ? {} : { library: c.manifest.libraryPath },
          warnings: c.warnings,
        });
      }
    }
  }
  return {
    title: "Loader settings file",
    locations,
    entries,
    used: entries.filter((e) => e.status === "used").length,
    skipped: entries.filter((e) => e.status === "skipped").length,
  };
}
