/**
 * TS layers by name: the three shipped with vkdeno (`VK_LAYER_VKDENO_api_dump`,
 * `VK_LAYER_VKDENO_draw_stats`, `VK_LAYER_VKDENO_object_lifetimes`), those registered by the application,
 * and those whose manifest's `library_path` names a `.ts` (or `.js`) module, imported by
 * {@linkcode loadLayerModules}. A layer module's default export (or its `layer` export) is the layer.
 *
 * @example Enabling by name
 * ```ts
 * import { findLayer } from "./registry.ts";
 * console.log(findLayer("VK_LAYER_VKDENO_draw_stats")?.description);
 * ```
 *
 * @module
 */
import { discoverLayers } from "../discovery/layers.ts";
import { type EnvironmentSnapshot, getenv } from "../discovery/environment.ts";
import type { LayerManifest } from "../discovery/layer_manifest.ts";
import type { TsLayer } from "./layer.ts";
import { apiDumpLayer } from "./api_dump.ts";
import { drawStatsLayer } from "./draw_stats.ts";
import { objectLifetimesLayer } from "./object_lifetimes.ts";

/** The layers shipped with vkdeno. */
export const BUILTIN_LAYERS: readonly TsLayer[] = [apiDumpLayer, drawStatsLayer, objectLifetimesLayer];

const registered = new Map<string, TsLayer>(BUILTIN_LAYERS.map((l) => [l.name, l]));
const byModule = new Map<string, TsLayer>();

/**
 * Makes `layer` findable by name (replacing a registered layer of that name).
 *
 * @example Usage
 * ```ts
 * import { findLayer, registerLayer } from "./registry.ts";
 * registerLayer({ name: "VK_LAYER_x_none", description: "none", create: () => ({ intercepts: {} }) });
 * console.log(findLayer("VK_LAYER_x_none") !== undefined); // true
 * ```
 */
export function registerLayer(layer: TsLayer): void {
  registered.set(layer.name, layer);
}

/**
 * The registered TS layer named `name`, or undefined.
 *
 * @example Usage
 * ```ts
 * import { findLayer } from "./registry.ts";
 * console.log(findLayer("VK_LAYER_VKDENO_api_dump")?.name); // "VK_LAYER_VKDENO_api_dump"
 * ```
 */
export function findLayer(name: string): TsLayer | undefined {
  return registered.get(name);
}

/**
 * Every registered TS layer, shipped ones first.
 *
 * @example Usage
 * ```ts
 * import { registeredLayers } from "./registry.ts";
 * console.log(registeredLayers().length >= 3); // true
 * ```
 */
export function registeredLayers(): TsLayer[] {
  return [...registered.values()];
}

/**
 * The registered TS layers named in `VK_INSTANCE_LAYERS` (colon-separated, first closest to the
 * application); other names are left to the loader.
 *
 * @example Usage
 * ```ts
 * import { layersFromEnvironment } from "./registry.ts";
 * const env = { vars: { VK_INSTANCE_LAYERS: "VK_LAYER_KHRONOS_validation:VK_LAYER_VKDENO_api_dump" }, elevated: false };
 * console.log(layersFromEnvironment(env).map((l) => l.name)); // ["VK_LAYER_VKDENO_api_dump"]
 * ```
 */
export function layersFromEnvironment(env: EnvironmentSnapshot): TsLayer[] {
  const names = (getenv(env, "VK_INSTANCE_LAYERS") ?? "").split(":").filter((n) => n !== "");
  return names.map((n) => registered.get(n)).filter((l): l is TsLayer => l !== undefined);
}

/**
 * True when a layer manifest names a TypeScript or JavaScript module as its library.
 *
 * @example Usage
 * ```ts
 * import { isModuleLayer } from "./registry.ts";
 * console.log(isModuleLayer({ libraryPath: "/opt/layers/mine.ts" })); // true
 * ```
 */
export function isModuleLayer(manifest: Pick<LayerManifest, "libraryPath">): boolean {
  return manifest.libraryPath !== undefined && /\.(ts|mts|js|mjs)$/.test(manifest.libraryPath);
}

/**
 * Imports the module a layer manifest names and registers its layer under the manifest's name. The
 * module's default export (or `layer` export) must be a {@linkcode TsLayer} of that name.
 *
 * @example Usage
 * ```ts ignore
 * import { importLayerModule } from "./registry.ts";
 * declare const manifest: import("../discovery/layer_manifest.ts").LayerManifest;
 * const layer = await importLayerModule(manifest);
 * ```
 * @throws {TypeError} If the module exports no layer, or one of another name.
 */
export async function importLayerModule(manifest: LayerManifest): Promise<TsLayer> {
  const path = manifest.libraryPath;
  if (path === undefined || !isModuleLayer(manifest)) {
    throw new TypeError(`Cannot import layer "${manifest.name}": its library is not a TS/JS module`);
  }
  let layer = byModule.get(path);
  if (layer === undefined) {
    // Imported here, not with this module: node:url loads Deno's Node layer (~17 ms, ~12 MiB) at start.
    const { pathToFileURL } = await import("node:url");
    const url = pathToFileURL(path).href;
    const module = await import(url) as { default?: TsLayer; layer?: TsLayer };
    const found = module.default ?? module.layer;
    if (found === undefined || typeof found.create !== "function") {
      throw new TypeError(
        `Cannot load layer "${manifest.name}" ("${manifest.manifestPath}"): module "${path}" exports no layer`,
      );
    }
    layer = found;
    byModule.set(path, layer);
  }
  if (layer.name !== manifest.name) {
    throw new TypeError(
      `Cannot load layer "${manifest.name}" ("${manifest.manifestPath}"): module "${path}" exports layer "${layer.name}"`,
    );
  }
  registerLayer(layer);
  return layer;
}

/**
 * Finds the layer manifests of `env` whose `library_path` is a TS/JS module, imports them and registers
 * their layers, so they can be enabled by name. Returns the layers loaded; failures are returned as
 * messages, never thrown.
 *
 * @example Usage
 * ```ts ignore
 * import { loadLayerModules } from "./registry.ts";
 * import { snapshotProcessEnvironment } from "../discovery/environment.ts";
 * const { layers, errors } = await loadLayerModules(snapshotProcessEnvironment());
 * ```
 */
export async function loadLayerModules(
  env: EnvironmentSnapshot,
): Promise<{ layers: TsLayer[]; errors: string[] }> {
  const layers: TsLayer[] = [];
  const errors: string[] = [];
  for (const manifest of discoverLayers(env).layers) {
    if (!isModuleLayer(manifest)) continue;
    try {
      layers.push(await importLayerModule(manifest));
    } catch (error) {
      errors.push(error instanceof Error ? error.message : String(error));
    }
  }
  return { layers, errors };
}
