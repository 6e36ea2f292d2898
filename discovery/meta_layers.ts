/**
 * Meta layers: validating layers with `component_layers` and removing invalid ones (docs/behaviour.md O01,
 * O02).
 *
 * @example Validating a list
 * ```ts
 * import { validateMetaLayers } from "./meta_layers.ts";
 * const { layers, removed } = validateMetaLayers([]);
 * console.log(layers.length, removed.length); // 0 0
 * ```
 *
 * @module
 */

import { formatVersion } from "./manifest_file.ts";
import type { LayerExtension, LayerManifest } from "./layer_manifest.ts";

/**
 * A meta layer taken out of the list, and why.
 *
 * @example Usage
 * ```ts
 * import type { RemovedMetaLayer } from "./meta_layers.ts";
 * const check = (r: RemovedMetaLayer) => `${r.layer.name}: ${r.reason}`;
 * ```
 */
export interface RemovedMetaLayer {
  /** The meta layer. */
  readonly layer: LayerManifest;
  /** Why, naming the component at fault. */
  readonly reason: string;
}

/**
 * The result of {@linkcode validateMetaLayers}.
 *
 * @example Usage
 * ```ts
 * import type { MetaLayerValidation } from "./meta_layers.ts";
 * const none: MetaLayerValidation = { layers: [], removed: [] };
 * ```
 */
export interface MetaLayerValidation {
  /** The input list, in order, without the invalid meta layers. */
  readonly layers: readonly LayerManifest[];
  /** The meta layers removed, in the order they fell out. */
  readonly removed: readonly RemovedMetaLayer[];
}

/**
 * Removes invalid meta layers, repeating until no more fall out. Layer names
 * are assumed unique (discovery removes duplicates first).
 *
 * @example Usage
 * ```ts
 * import { validateMetaLayers } from "./meta_layers.ts";
 * import type { LayerManifest } from "./layer_manifest.ts";
 * const check = (list: LayerManifest[]) => validateMetaLayers(list).removed.map((r) => r.reason);
 * ```
 */
export function validateMetaLayers(layers: readonly LayerManifest[]): MetaLayerValidation {
  if (!layers.some((l) => l.componentLayers !== undefined)) return { layers, removed: [] };
  let current = [...layers];
  const removed: RemovedMetaLayer[] = [];
  for (;;) {
    const byName = new Map(current.map((l) => [l.name, l]));
    const bad = new Map<LayerManifest, string>();
    for (const layer of current) {
      if (layer.componentLayers === undefined) continue;
      const reason = metaLayerDefect(layer, byName);
      if (reason !== undefined) bad.set(layer, reason);
    }
    if (bad.size === 0) return { layers: current, removed };
    for (const [layer, reason] of bad) removed.push({ layer, reason });
    current = current.filter((l) => !bad.has(l));
  }
}

function metaLayerDefect(
  meta: LayerManifest,
  byName: ReadonlyMap<string, LayerManifest>,
): string | undefined {
  const components = meta.componentLayers ?? [];
  for (let i = 0; i < components.length; i++) {
    const name = components[i] ?? "";
    if (name === meta.name) return `it lists itself as component ${i}`;
    const component = byName.get(name);
    if (component === undefined) return `component layer "${name}" (index ${i}) was not found`;
    if (majorMinor(component.apiVersion) < majorMinor(meta.apiVersion)) {
      return `component layer "${name}" has API version ${
        formatVersion(component.apiVersion)
      }, older than the meta layer's ${formatVersion(meta.apiVersion)}`;
    }
  }
  const loop = findLoop(meta, byName);
  if (loop !== undefined) return `its component layers loop back to it (${loop.join(" -> ")})`;
  return undefined;
}

function findLoop(meta: LayerManifest, byName: ReadonlyMap<string, LayerManifest>): string[] | undefined {
  const path: string[] = [meta.name];
  const visit = (layer: LayerManifest): string[] | undefined => {
    for (const name of layer.componentLayers ?? []) {
      const component = byName.get(name);
      if (component?.componentLayers === undefined) continue;
      if (path.includes(name)) return [...path, name];
      path.push(name);
      const found = visit(component);
      path.pop();
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return visit(meta);
}

function majorMinor(packed: number): number {
  return (packed >>> 12) & 0x1ffff;
}

/**
 * The libraries a layer stands for, in chain order (first closest to the
 * application): the layer itself, or a meta layer's components expanded
 * recursively, each name once. `include` may drop components (an implicit
 * component whose variables keep it off).
 *
 * @example Usage
 * ```ts
 * import { expandLayer } from "./meta_layers.ts";
 * import type { LayerManifest } from "./layer_manifest.ts";
 * const names = (layer: LayerManifest, all: Map<string, LayerManifest>) => expandLayer(layer, all).map((l) => l.name);
 * ```
 */
export function expandLayer(
  layer: LayerManifest,
  byName: ReadonlyMap<string, LayerManifest>,
  include: (component: LayerManifest, meta: LayerManifest) => boolean = () => true,
): LayerManifest[] {
  const out: LayerManifest[] = [];
  const seen = new Set<string>();
  const walk = (current: LayerManifest, depth: number) => {
    if (current.componentLayers === undefined) {
      if (!seen.has(current.name)) {
        seen.add(current.name);
        out.push(current);
      }
      return;
    }
    if (depth > byName.size) return; // Validation removed loops; this only guards unvalidated input.
    for (const name of current.componentLayers) {
      const component = byName.get(name);
      if (component !== undefined && include(component, current)) walk(component, depth + 1);
    }
  };
  walk(layer, 0);
  return out;
}

/**
 * A meta layer's extensions merged with its components' (recursively), each
 * name once, the first occurrence kept. For a plain layer, its own list.
 *
 * @example Usage
 * ```ts
 * import { mergedExtensions } from "./meta_layers.ts";
 * import type { LayerManifest } from "./layer_manifest.ts";
 * const names = (l: LayerManifest, all: Map<string, LayerManifest>) =>
 *   mergedExtensions(l, all, "instance").map((e) => e.name);
 * ```
 */
export function mergedExtensions(
  layer: LayerManifest,
  byName: ReadonlyMap<string, LayerManifest>,
  kind: "instance" | "device",
): LayerExtension[] {
  const out: LayerExtension[] = [];
  const seen = new Set<string>();
  const add = (list: readonly LayerExtension[]) => {
    for (const ext of list) {
      if (!seen.has(ext.name)) {
        seen.add(ext.name);
        out.push(ext);
      }
    }
  };
  const visited = new Set<string>();
  const walk = (current: LayerManifest) => {
    if (visited.has(current.name)) return;
    visited.add(current.name);
    add(kind === "instance" ? current.instanceExtensions : current.deviceExtensions);
    for (const name of current.componentLayers ?? []) {
      const component = byName.get(name);
      if (component !== undefined) walk(component);
    }
  };
  walk(layer);
  return out;
}
