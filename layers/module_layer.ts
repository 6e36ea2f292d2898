/**
 * Layers whose manifest's `library_path` names a `.ts` (or `.js`) module, in a native chain: what the chain
 * assembly loads instead of a shared library, a `NativeLayerBridge` around the module's layer.
 *
 * @example What the chain assembly does with a manifest
 * ```ts ignore
 * import { isModuleLayer, ModuleLayerLibrary } from "./module_layer.ts";
 * declare const manifest: import("../discovery/layer_manifest.ts").LayerManifest;
 * if (isModuleLayer(manifest)) {
 *   const library = new ModuleLayerLibrary(manifest);
 *   console.log(library.getInstanceProcAddr);
 * }
 * ```
 *
 * @module
 */
import type { LayerExtension, LayerManifest } from "../discovery/layer_manifest.ts";
import type { ModuleLayerLink, ModuleLayerLoader } from "../chain/layer_chain/module_interface.ts";
import type { TsLayer, TsLayerExtension, ValidationMessage } from "./layer.ts";
import { COMMAND_INDEX } from "../vk/generated/commands.ts";
import { NativeLayerBridge, type NativeLayerBridgeOptions } from "./native.ts";
import { findLayer, isModuleLayer, moduleProblem } from "./catalog.ts";
import { provideModuleLayers } from "./on_demand.ts";

export { isModuleLayer };

/**
 * The loader of `.ts` layer manifests that the public `Vulkan` object gives the chain: each manifest's
 * layer, found by name among `layers` (imported already) and the shipped ones, becomes a
 * {@linkcode ModuleLayerLibrary} with `options` (where its messages and output go, its settings).
 *
 * @example Usage
 * ```ts
 * import { moduleLayerLoader } from "./module_layer.ts";
 * const loader = moduleLayerLoader({ settings: { VK_LAYER_VKDENO_api_dump: { format: "json" } } });
 * console.log(loader.handles({ libraryPath: "/opt/layers/mine.ts" })); // true
 * ```
 */
export function moduleLayerLoader(
  options: NativeLayerBridgeOptions = {},
  layers: readonly TsLayer[] = [],
): ModuleLayerLoader {
  return {
    handles: isModuleLayer,
    describe: (manifest) => {
      const layer = findLayer(manifest.name, layers);
      if (layer === undefined) return manifest;
      const merge = (own: readonly LayerExtension[], declared: readonly TsLayerExtension[] = []) => [
        ...own,
        ...declared.filter((e) => !own.some((o) => o.name === e.name))
          .map((e) => ({ name: e.name, specVersion: e.specVersion, entrypoints: e.entrypoints ?? [] })),
      ];
      return {
        ...manifest,
        instanceExtensions: merge(manifest.instanceExtensions, layer.instanceExtensions),
        deviceExtensions: merge(manifest.deviceExtensions, layer.deviceExtensions),
      };
    },
    load: (manifest) => {
      try {
        return new ModuleLayerLibrary(manifest, options, layers);
      } catch (error) {
        reportLoadFailure(manifest.name, (error as Error).message, options);
        throw error;
      }
    },
  };
}

/** Load messages reported so far (layer and text): one message per fault per process. */
const REPORTED = new Set<string>();

/**
 * An enabled TS layer that cannot be loaded is an error the user must see whatever `VK_LOADER_DEBUG` says
 * (the chain also logs it, and fails `vkCreateInstance` when the application named the layer).
 */
function reportLoadFailure(layer: string, text: string, options: NativeLayerBridgeOptions): void {
  reportOnce(options, { layer, severity: "error", id: "Layer-LoadFailed", text });
}

function reportOnce(options: NativeLayerBridgeOptions, message: ValidationMessage): void {
  if (REPORTED.has(`${message.layer} ${message.text}`)) return;
  REPORTED.add(`${message.layer} ${message.text}`);
  if (options.onMessage) options.onMessage(message);
  else console.error(`vkdeno: ${message.text}`);
}

/**
 * A TS layer shaped like `loading/layer_library.ts`'s `LayerLibrary`, for a manifest whose `library_path`
 * names a `.ts` module: what the native chain assembly loads instead of a shared library. The module must
 * have been imported already (`importLayerModules(env)` in `layers/catalog.ts`) and its layer given, since
 * loading is synchronous.
 */
export class ModuleLayerLibrary implements ModuleLayerLink {
  /** The layer's manifest record. */
  readonly layer: LayerManifest;
  /** The bridge behind the entry points. */
  readonly bridge: NativeLayerBridge;
  #released = false;

  /**
   * Finds the layer for `manifest` among `layers` and the shipped ones, and makes its chain link.
   *
   * @throws {TypeError} If no layer of the manifest's name was given: names the module and why (its
   * import failed and how, the file does not exist, or it was never imported).
   */
  constructor(
    manifest: LayerManifest,
    options: NativeLayerBridgeOptions = {},
    layers: readonly TsLayer[] = [],
  ) {
    const layer = findLayer(manifest.name, layers);
    if (!layer) {
      throw new TypeError(
        `Cannot load layer "${manifest.name}" ("${manifest.manifestPath}"): module "${manifest.libraryPath}" ${
          moduleProblem(manifest.libraryPath ?? "")
        }`,
      );
    }
    this.layer = manifest;
    const entrypoints = [...manifest.instanceExtensions, ...manifest.deviceExtensions].flatMap((e) =>
      e.entrypoints
    );
    const unknown = entrypoints.filter((n) =>
      !(n in COMMAND_INDEX) && !layer.commands?.some((c) => c.name === n)
    );
    for (const name of unknown) {
      reportOnce(options, {
        layer: manifest.name,
        severity: "warning",
        id: "Layer-UndeclaredCommand",
        text:
          `"${manifest.manifestPath}" lists entrypoint "${name}", which vk.xml does not have and the layer's commands do not declare (defineCommand): no one can get it`,
      });
    }
    this.bridge = new NativeLayerBridge([layer], { ...options, entrypoints });
  }

  /** The module path. */
  get path(): string {
    return this.layer.libraryPath ?? "";
  }
  /** Interface 2, as negotiated by a C layer. */
  get interfaceVersion(): number {
    return 2;
  }
  /** The link's `vkGetInstanceProcAddr`. */
  get getInstanceProcAddr(): Deno.PointerObject {
    return this.bridge.getInstanceProcAddr;
  }
  /** The link's `vkGetDeviceProcAddr`. */
  get getDeviceProcAddr(): Deno.PointerValue {
    return this.bridge.getDeviceProcAddr;
  }
  /** The link's `vk_layerGetPhysicalDeviceProcAddr`, when the layer provides physical-device commands. */
  get getPhysicalDeviceProcAddr(): Deno.PointerValue {
    return this.bridge.getPhysicalDeviceProcAddr;
  }
  /** True once released. */
  get released(): boolean {
    return this.#released;
  }
  /** A module exports no C symbols. */
  symbolAddress(_name: string): Deno.PointerValue {
    return null;
  }
  /** Disposes the link (after the instance is destroyed). */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.bridge.dispose();
  }
  /** Same as {@linkcode ModuleLayerLibrary.release}. */
  [Symbol.dispose](): void {
    this.release();
  }
}

// What vulkan.ts holds (on_demand.ts) makes its loader with this, once this module is loaded.
provideModuleLayers(moduleLayerLoader);
