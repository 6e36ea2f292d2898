/**
 * TS layers by name: the three shipped with vkdeno and those the caller passes; `importLayerModules` imports
 * layers whose manifest names a module.
 *
 * @example Enabling by name
 * ```ts
 * import { findLayer } from "./catalog.ts";
 * console.log(findLayer("VK_LAYER_VKDENO_draw_stats")?.description);
 * ```
 *
 * @module
 */
import { discoverLayers } from "../discovery/layers.ts";
import { activateLayers } from "../discovery/layer_activation.ts";
import { type EnvironmentSnapshot, getenv } from "../discovery/environment.ts";
import type { LayerManifest } from "../discovery/layer_manifest.ts";
import type { TsLayer } from "./layer.ts";
import { apiDumpLayer } from "./api_dump.ts";
import { drawStatsLayer } from "./draw_stats.ts";
import { objectLifetimesLayer } from "./object_lifetimes.ts";
import { isModuleLayer } from "./on_demand.ts";

export { isModuleLayer };

/**
 * Why importing a layer module failed, by module path: Deno keeps a failed import failed for the whole
 * process, so the chain can name the real cause when it meets the manifest later.
 */
const IMPORT_FAILURES = new Map<string, string>();

/** The URL each module path was last imported from, with the file's stamp then. */
const IMPORTED = new Map<string, { stamp: string; url: string }>();

/**
 * The URL to import `path` from: its plain URL the first time; after the file changed (a new stamp), the
 * URL with `?stamp=` so Deno, which keeps each URL's module for the whole process, imports the new text.
 */
function moduleUrl(path: string, href: string): string {
  let stamp = "";
  try {
    const s = Deno.statSync(path);
    stamp = `${s.mtime?.getTime() ?? 0}-${s.size}`;
  } catch {
    return href; // the import reports the missing file
  }
  const last = IMPORTED.get(path);
  if (last !== undefined && last.stamp === stamp) return last.url;
  const url = last === undefined ? href : `${href}?stamp=${stamp}`;
  IMPORTED.set(path, { stamp, url });
  return url;
}

function importCause(path: string, error: unknown): string {
  try {
    Deno.statSync(path);
  } catch {
    return "does not exist";
  }
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return `failed to import (${text.split("\n")[0]})`;
}

/**
 * What is wrong with the module of a layer manifest whose layer was not given: its import failed (the
 * cause), the file does not exist, or it was never imported.
 *
 * @example Usage
 * ```ts
 * import { moduleProblem } from "./catalog.ts";
 * console.log(moduleProblem("/nonexistent/layer.ts")); // "does not exist"
 * ```
 */
export function moduleProblem(path: string): string {
  const failed = IMPORT_FAILURES.get(path);
  if (failed !== undefined) return failed;
  try {
    Deno.statSync(path);
  } catch {
    return "does not exist";
  }
  return "was not imported (pass the layers of await importLayerModules(env) as Vulkan.load's layerModules)";
}

/** The layers shipped with vkdeno. */
export const BUILTIN_LAYERS: readonly TsLayer[] = [apiDumpLayer, drawStatsLayer, objectLifetimesLayer];

/**
 * The TS layer named `name` among `available` (first) and the shipped ones, or undefined.
 *
 * @example Usage
 * ```ts
 * import { findLayer } from "./catalog.ts";
 * console.log(findLayer("VK_LAYER_VKDENO_api_dump")?.name); // "VK_LAYER_VKDENO_api_dump"
 * console.log(findLayer("VK_LAYER_x_mine")); // undefined: not given, not shipped
 * ```
 */
export function findLayer(name: string, available: readonly TsLayer[] = []): TsLayer | undefined {
  return available.find((l) => l.name === name) ?? BUILTIN_LAYERS.find((l) => l.name === name);
}

/**
 * `available` and the shipped layers, each name once (the first of a name wins).
 *
 * @example Usage
 * ```ts
 * import { knownLayers } from "./catalog.ts";
 * console.log(knownLayers().length); // 3
 * ```
 */
export function knownLayers(available: readonly TsLayer[] = []): TsLayer[] {
  const byName = new Map<string, TsLayer>();
  for (const layer of [...available, ...BUILTIN_LAYERS]) {
    if (!byName.has(layer.name)) byName.set(layer.name, layer);
  }
  return [...byName.values()];
}

/**
 * The TS layers (of `available` and the shipped ones) named in `VK_INSTANCE_LAYERS` (colon-separated,
 * first closest to the application); other names are left to the loader.
 *
 * @example Usage
 * ```ts
 * import { layersFromEnvironment } from "./catalog.ts";
 * const env = { vars: { VK_INSTANCE_LAYERS: "VK_LAYER_KHRONOS_validation:VK_LAYER_VKDENO_api_dump" }, elevated: false };
 * console.log(layersFromEnvironment(env).map((l) => l.name)); // ["VK_LAYER_VKDENO_api_dump"]
 * ```
 */
export function layersFromEnvironment(
  env: EnvironmentSnapshot,
  available: readonly TsLayer[] = [],
): TsLayer[] {
  const names = (getenv(env, "VK_INSTANCE_LAYERS") ?? "").split(":").filter((n) => n !== "");
  return names.map((n) => findLayer(n, available)).filter((l): l is TsLayer => l !== undefined);
}

/**
 * Imports the module a layer manifest names and returns its layer. The module's default export (or
 * `layer` export) must be a {@linkcode TsLayer} of the manifest's name.
 *
 * @example Usage
 * ```ts ignore
 * import { importLayerModule } from "./catalog.ts";
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
  // Imported here, not with this module: node:url loads Deno's Node layer (~17 ms, ~12 MiB) at start.
  const { pathToFileURL } = await import("node:url");
  // Deno keeps each module once per process: importing an unchanged path again gives the same layer, an
  // edited one (see vk.watch()) is imported anew for the next loader.
  let module: { default?: TsLayer; layer?: TsLayer };
  try {
    module = await import(moduleUrl(path, pathToFileURL(path).href));
  } catch (error) {
    const cause = importCause(path, error);
    IMPORT_FAILURES.set(path, cause);
    throw new TypeError(
      `Cannot load layer "${manifest.name}" ("${manifest.manifestPath}"): module "${path}" ${cause}`,
      { cause: error },
    );
  }
  const layer = module.default ?? module.layer;
  if (layer === undefined || typeof layer.create !== "function") {
    throw new TypeError(
      `Cannot load layer "${manifest.name}" ("${manifest.manifestPath}"): module "${path}" exports no layer`,
    );
  }
  if (layer.name !== manifest.name) {
    throw new TypeError(
      `Cannot load layer "${manifest.name}" ("${manifest.manifestPath}"): module "${path}" exports layer "${layer.name}"`,
    );
  }
  return layer;
}

/** Options of {@linkcode importLayerModules}. */
export interface ImportLayerModulesOptions {
  /**
   * The layers the application will name in `VkInstanceCreateInfo.ppEnabledLayerNames`: their modules are
   * imported too (default none).
   */
  readonly layers?: readonly string[];
}

/**
 * Imports the modules of the TS layers `env` enables (implicit layers that are on, `VK_INSTANCE_LAYERS`,
 * `VK_LOADER_LAYERS_ENABLE`, the loader settings file) and of `options.layers`: the manifests whose
 * `library_path` is a TS/JS module among the layers a `vkCreateInstance` would load. No other module is
 * imported (its top-level code never runs). Returns the layers; failures are returned as messages, never
 * thrown. Nothing is registered anywhere: pass the layers to `Vulkan.load({ env, layerModules: layers })`
 * (its native chain loads a manifest's module layer from that list) or to
 * `installLayers(base, { available: layers })`.
 *
 * @example Usage
 * ```ts ignore
 * import { importLayerModules } from "@vkdeno/loader/layers";
 * import { snapshotProcessEnvironment, Vulkan } from "@vkdeno/loader";
 * const env = snapshotProcessEnvironment();
 * const { layers, errors } = await importLayerModules(env, { layers: ["VK_LAYER_acme_trace"] });
 * using vk = Vulkan.load({ env, layerModules: layers });
 * ```
 */
export async function importLayerModules(
  env: EnvironmentSnapshot,
  options: ImportLayerModulesOptions = {},
): Promise<{ layers: TsLayer[]; errors: string[] }> {
  if (typeof env !== "object" || env === null || typeof env.vars !== "object") {
    throw new TypeError(
      `importLayerModules: "env" must be an environment snapshot (snapshotProcessEnvironment()), got ${
        env === null ? "null" : typeof env
      }`,
    );
  }
  const discovery = discoverLayers(env);
  const known = new Set(discovery.layers.map((l) => l.name));
  // A name no manifest has is vkCreateInstance's error to report, not a reason to import nothing.
  const requestedLayers = (options.layers ?? []).filter((n) => known.has(n));
  const activation = activateLayers(env, discovery, { requestedLayers });
  const layers: TsLayer[] = [];
  const errors: string[] = [];
  if (!activation.ok) return { layers, errors: [activation.message] };
  for (const { layer: manifest } of activation.layers) {
    if (!isModuleLayer(manifest)) continue;
    try {
      layers.push(await importLayerModule(manifest));
    } catch (error) {
      errors.push(error instanceof Error ? error.message : String(error));
    }
  }
  return { layers, errors };
}
