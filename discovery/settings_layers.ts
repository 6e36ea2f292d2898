/**
 * What a loader settings file's `layers` list does to the layer list (docs/behaviour.md G07).
 *
 * @example Combining a settings list with found layers
 * ```ts
 * import { combineSettingsLayers } from "./settings_layers.ts";
 * const r = combineSettingsLayers([{ index: 0, control: "unordered_layer_location", treatAsImplicit: false }], []);
 * console.log(r.layers.length); // 0
 * ```
 *
 * @module
 */

import type { LayerManifest, LayerMessage } from "./layer_manifest.ts";
import { parseLayerManifest } from "./layer_manifest.ts";
import { readManifestFile } from "./manifest_file.ts";
import type { SettingsLayer, SettingsLayerControl } from "./settings_file.ts";

/**
 * What became of one settings entry.
 *
 * @example Usage
 * ```ts
 * import type { SettingsLayerOutcome } from "@vkdeno/loader/discovery";
 * const o: SettingsLayerOutcome = { entry: { index: 0, control: "off", name: "VK_LAYER_x", path: "/x.json", treatAsImplicit: false }, status: "used", reason: "off: hidden" };
 * ```
 */
export interface SettingsLayerOutcome {
  /** The entry. */
  readonly entry: SettingsLayer;
  /** `used`: the entry took effect; `skipped`: it was dropped (`reason`). */
  readonly status: "used" | "skipped";
  /** A clause saying what it did or why it was dropped. */
  readonly reason: string;
  /** The layer it read, when it read one. */
  readonly layer?: LayerManifest;
}

/**
 * The result of {@linkcode combineSettingsLayers}.
 *
 * @example Usage
 * ```ts
 * import type { SettingsLayerCombination } from "@vkdeno/loader/discovery";
 * const names = (c: SettingsLayerCombination) => c.layers.map((l) => l.name);
 * ```
 */
export interface SettingsLayerCombination {
  /** The layers the loader shows, in settings order (found layers at the unordered location). */
  readonly layers: readonly LayerManifest[];
  /** The control of every layer the list names (found layers placed at the unordered location: `auto`). */
  readonly controls: ReadonlyMap<LayerManifest, SettingsLayerControl>;
  /** Every entry and what became of it. */
  readonly outcomes: readonly SettingsLayerOutcome[];
  /** Found layers left out, and why. */
  readonly hidden: ReadonlyMap<LayerManifest, { status: "disabled" | "not applied"; reason: string }>;
  /** Log lines. */
  readonly messages: readonly LayerMessage[];
}

/**
 * Combines a settings `layers` list with the layers the search folders gave.
 * Never throws.
 *
 * @example Usage
 * ```ts
 * import { combineSettingsLayers } from "./settings_layers.ts";
 * const r = combineSettingsLayers([{ index: 0, control: "on", name: "VK_LAYER_x", path: "/nonexistent.json", treatAsImplicit: false }], []);
 * console.log(r.outcomes[0]?.reason); // "file does not exist"
 * ```
 */
export function combineSettingsLayers(
  entries: readonly SettingsLayer[],
  found: readonly LayerManifest[],
  options: { readonly pointerBits?: 32 | 64; readonly file?: string } = {},
): SettingsLayerCombination {
  const messages: LayerMessage[] = [];
  const outcomes: SettingsLayerOutcome[] = [];
  const controls = new Map<LayerManifest, SettingsLayerControl>();
  const hidden = new Map<LayerManifest, { status: "disabled" | "not applied"; reason: string }>();
  const file = options.file ?? "the loader settings file";
  // Slots in list order: a settings layer, an "off" name, or the unordered location.
  type Slot = { kind: "layer"; layer: LayerManifest } | { kind: "off"; name: string } | { kind: "unordered" };
  const slots: Slot[] = [];
  const offNames = new Set<string>();
  const listed = new Set<string>();
  let unordered = false;

  for (const entry of entries) {
    if (entry.control === "unordered_layer_location") {
      if (!unordered) slots.push({ kind: "unordered" });
      unordered = true;
      outcomes.push({ entry, status: "used", reason: "found layers the list does not name go here" });
      continue;
    }
    const name = entry.name ?? "";
    if (entry.control === "off") {
      offNames.add(name);
      listed.add(name);
      slots.push({ kind: "off", name });
      outcomes.push({ entry, status: "used", reason: `off: "${name}" is hidden` });
      continue;
    }
    const skip = (reason: string) => {
      outcomes.push({ entry, status: "skipped", reason });
      messages.push({
        level: "warn",
        category: "layer",
        text: `Loader settings layer "${name}" ("${entry.path}") dropped: ${reason}`,
        ...(entry.path === undefined ? {} : { file: entry.path }),
      });
    };
    const read = readManifestFile(entry.path ?? "");
    if (!read.ok) {
      skip(read.reason);
      continue;
    }
    const parsed = parseLayerManifest(read.value, {
      manifestPath: entry.path ?? "",
      implicit: entry.treatAsImplicit,
      pointerBits: options.pointerBits,
      members: read.members,
    });
    messages.push(...parsed.messages);
    const layer = parsed.layers.find((l) => l.name === name);
    if (layer === undefined) {
      const names = parsed.layers.map((l) => `"${l.name}"`).join(", ");
      const why = parsed.skipped.find((s) => s.name === name || s.indexInFile < 0)?.reason;
      skip(
        why !== undefined
          ? why
          : names === ""
          ? "the manifest holds no usable layer"
          : `the manifest names ${names}, not "${name}"`,
      );
      continue;
    }
    if (offNames.has(name)) {
      skip(`an earlier entry turns "${name}" off`);
      continue;
    }
    const twin = slots.find((s) =>
      s.kind === "layer" && s.layer.name === name &&
      (layer.componentLayers !== undefined || s.layer.libraryPath === layer.libraryPath)
    );
    if (twin !== undefined) {
      skip(`an earlier entry already lists "${name}" with the same library`);
      continue;
    }
    listed.add(name);
    controls.set(layer, entry.control);
    slots.push({ kind: "layer", layer });
    outcomes.push({
      entry,
      status: "used",
      reason: entry.control === "on" ? "on: always enabled" : "auto: enabled by the usual rules",
      layer,
    });
  }

  const layers: LayerManifest[] = [];
  const names = new Set<string>();
  for (const slot of slots) {
    if (slot.kind === "layer") {
      if (names.has(slot.layer.name)) continue;
      names.add(slot.layer.name);
      layers.push(slot.layer);
    } else if (slot.kind === "unordered") {
      for (const layer of found) {
        if (listed.has(layer.name) || names.has(layer.name)) continue;
        names.add(layer.name);
        controls.set(layer, "auto");
        layers.push(layer);
      }
    }
  }
  for (const layer of found) {
    if (layers.includes(layer)) continue;
    if (offNames.has(layer.name)) {
      hidden.set(layer, { status: "disabled", reason: `turned off by "${file}"` });
    } else if (listed.has(layer.name)) {
      hidden.set(layer, { status: "not applied", reason: `"${file}" lists its own "${layer.name}"` });
    } else {
      hidden.set(layer, {
        status: "not applied",
        reason: `"${file}" lists the layers to use and has no "unordered_layer_location" entry`,
      });
    }
  }
  for (const [layer, why] of hidden) {
    messages.push({
      level: "info",
      category: "layer",
      text: `Layer "${layer.name}" not used: ${why.reason}`,
    });
  }
  return { layers, controls, outcomes, hidden, messages };
}
