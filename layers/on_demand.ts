/**
 * What `Vulkan.load()` holds for layers whose manifest names a script module: a `ModuleLayerLoader` that
 * brings in the TS layer machinery (module_layer.ts, the chassis and the shipped layers behind it) only when
 * such a manifest is met, so that a program using no TS layer never loads it (docs/performance.md, "What
 * loads when").
 *
 * @module
 */
import type { LayerManifest } from "../discovery/layer_manifest.ts";
import type { ModuleLayerLoader } from "../chain/layer_chain/module_interface.ts";
import type { NativeLayerBridgeOptions } from "./native.ts";
import type { TsLayer } from "./layer.ts";

/** How module_layer.ts makes its loader: `moduleLayerLoader(options, layers)`. */
export type ModuleLayerLoaderFactory = (
  options: NativeLayerBridgeOptions,
  layers: readonly TsLayer[],
) => ModuleLayerLoader;

/** The factory module_layer.ts provided when it was evaluated; undefined until then. */
let provided: ModuleLayerLoaderFactory | undefined;

/**
 * Called once by module_layer.ts as it is evaluated (imported by the `./layers` entry, or brought in by
 * {@linkcode onDemandModuleLayers}).
 *
 * @example Usage
 * ```ts ignore
 * import { provideModuleLayers } from "./on_demand.ts";
 * provideModuleLayers(moduleLayerLoader);
 * ```
 */
export function provideModuleLayers(factory: ModuleLayerLoaderFactory): void {
  provided = factory;
}

/**
 * True when a layer manifest names a TypeScript or JavaScript module as its library.
 *
 * @example Usage
 * ```ts
 * import { isModuleLayer } from "./on_demand.ts";
 * console.log(isModuleLayer({ libraryPath: "/opt/layers/mine.ts" })); // true
 * ```
 */
export function isModuleLayer(manifest: Pick<LayerManifest, "libraryPath">): boolean {
  return manifest.libraryPath !== undefined && /\.(ts|mts|js|mjs)$/.test(manifest.libraryPath);
}

/**
 * The module-layer loader with `options` and `layers`, made on the first manifest it must describe or load:
 * from module_layer.ts when something imported it already (the `./layers` entry does), otherwise after
 * loading it synchronously (Deno's `require` of an ES module: it starts Deno's Node compatibility once,
 * ~60 ms, paid only by a program that meets a `.ts` layer manifest without importing `./layers`).
 *
 * @example Usage
 * ```ts
 * import { onDemandModuleLayers } from "./on_demand.ts";
 * const loader = onDemandModuleLayers({}, []);
 * console.log(loader.handles({ libraryPath: "/opt/layers/mine.ts" })); // true
 * ```
 */
export function onDemandModuleLayers(
  options: NativeLayerBridgeOptions,
  layers: readonly TsLayer[],
): ModuleLayerLoader {
  let loader: ModuleLayerLoader | undefined;
  const made = (manifest: LayerManifest) => loader ??= machinery(manifest)(options, layers);
  return {
    handles: isModuleLayer,
    describe: (manifest) => {
      try {
        return made(manifest).describe?.(manifest) ?? manifest;
      } catch {
        return manifest; // As a layer not at hand; loading it reports why.
      }
    },
    load: (manifest) => made(manifest).load(manifest),
  };
}

/** module_layer.ts's factory, loading that module first when nothing has. */
function machinery(manifest: LayerManifest): ModuleLayerLoaderFactory {
  if (provided === undefined) {
    try {
      const { createRequire } = process.getBuiltinModule("node:module");
      createRequire(import.meta.url)("./module_layer.ts");
    } catch (error) {
      const cause = (error as Error).message;
      throw new TypeError(
        `Cannot load layer "${manifest.name}" ("${manifest.manifestPath}"): the TS layer support ` +
          `(${new URL("./module_layer.ts", import.meta.url).href}) failed to load (${cause}); ` +
          `import "@vkdeno/loader/layers" before Vulkan.load() to load it up front`,
        { cause: error },
      );
    }
  }
  return provided!;
}
