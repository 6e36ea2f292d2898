/**
 * The layer part of the instance and device chains (docs/behaviour.md F11, F12, LI01-LI07, LI11): loads the
 * active layers' libraries and keeps what lives as long as the chain; chain/layer_chain/instance.ts and
 * device.ts build and run each chain.
 *
 * @example Loading the chain for an activation
 * ```ts ignore
 * import { LayerChain } from "./chain.ts";
 * import { activateLayers } from "../../discovery/layer_activation.ts";
 * import { discoverLayers } from "../../discovery/layers.ts";
 * const env = { vars: {}, elevated: false };
 * const activation = activateLayers(env, discoverLayers(env), { requestedLayers: [] });
 * if (activation.ok) {
 *   using chain = LayerChain.load(activation, { requestedLayers: [] });
 *   console.log(chain.libraries.map((l) => l.layer.name));
 * }
 * ```
 *
 * @module
 */

import type { LayerActivationOk } from "../../discovery/layer_activation.ts";
import type { LayerManifest } from "../../discovery/layer_manifest.ts";
import type { ModuleLayerLoader } from "./module_interface.ts";
import { enumerateInstanceLayerProperties, type LayerProperties } from "../../discovery/layer_properties.ts";
import { CallbackOwner } from "../../ffi/callback.ts";
import { Arena } from "../../ffi/memory.ts";
import { VkError } from "../../vk/errors.ts";
import { LayerLibrary, LayerLoadError } from "../../loading/layer_library.ts";
import type { InstanceLink } from "./nodes.ts";
import type { Logger } from "../../loading/log.ts";
import { type DeviceChainArgs, type DeviceChainResult, DeviceLoaderData, runDeviceChain } from "./device.ts";
import { type InstanceChainArgs, type InstanceChainResult, runInstanceChain } from "./instance.ts";

/**
 * Options of {@linkcode LayerChain.load}.
 *
 * @example Usage
 * ```ts
 * import type { LayerChainOptions } from "./chain.ts";
 * const o: LayerChainOptions = { requestedLayers: ["VK_LAYER_KHRONOS_validation"] };
 * ```
 */
export interface LayerChainOptions {
  /** `VkInstanceCreateInfo.ppEnabledLayerNames`: a layer named here that fails to load fails the instance. */
  readonly requestedLayers?: readonly string[];
  /** Where load failures and chain messages go. */
  readonly log?: Logger;
  /**
   * Finds the loader's device dispatch table for a device-level handle that
   * `vkSetDeviceLoaderData` is given, when its first word is not a table
   * passed to {@linkcode LayerChain.createDevice} (the core knows its devices).
   */
  readonly findDeviceTable?: (handle: Deno.PointerValue) => Deno.PointerValue;
  /** Never close the libraries (`VK_LOADER_DISABLE_DYNAMIC_LIBRARY_UNLOADING=1`). */
  readonly keepLoaded?: boolean;
  /** Loads the layers whose library is a script module (layers/module_layer.ts provides one). */
  readonly moduleLayers?: ModuleLayerLoader;
}

/**
 * The loaded layers of one instance, in chain order (first closest to the application).
 *
 * @example Usage
 * ```ts ignore
 * import { LayerChain } from "./chain.ts";
 * import type { LayerActivationOk } from "../../discovery/layer_activation.ts";
 * declare const activation: LayerActivationOk;
 * const chain = LayerChain.load(activation);
 * chain.release();
 * ```
 */
export class LayerChain implements Disposable {
  /** Loaded layers in the instance chain, first closest to the application. */
  readonly libraries: readonly LayerLibrary[];
  /** The activated layers as `vkEnumerateDeviceLayerProperties` lists them (F11). */
  readonly activatedLayers: readonly LayerManifest[];
  readonly #log: Logger | undefined;
  readonly #callbacks = new CallbackOwner();
  readonly #arenas: Arena[] = [];
  readonly #deviceLoaderData: DeviceLoaderData;
  #released = false;

  private constructor(
    libraries: LayerLibrary[],
    activated: readonly LayerManifest[],
    options: LayerChainOptions,
  ) {
    this.libraries = libraries;
    this.activatedLayers = activated;
    this.#log = options.log;
    this.#deviceLoaderData = new DeviceLoaderData(this.#callbacks, options.log, options.findDeviceTable);
  }

  /**
   * Loads every active layer's library. A layer that fails to load is skipped
   * with a message, unless the application named it: then every library
   * loaded so far is released and `VK_ERROR_LAYER_NOT_PRESENT` is thrown (F12).
   *
   * @example Usage
   * ```ts ignore
   * import { LayerChain } from "./chain.ts";
   * import type { LayerActivationOk } from "../../discovery/layer_activation.ts";
   * declare const activation: LayerActivationOk;
   * LayerChain.load(activation, { requestedLayers: ["VK_LAYER_KHRONOS_validation"] }).release();
   * ```
   * @throws {VkError} `VK_ERROR_LAYER_NOT_PRESENT` when an application-requested layer cannot be loaded.
   */
  static load(activation: LayerActivationOk, options: LayerChainOptions = {}): LayerChain {
    const log = options.log;
    const requested = new Set(options.requestedLayers ?? []);
    const loaded: LayerLibrary[] = [];
    const failed = new Set<string>();
    for (const active of activation.layers) {
      try {
        loaded.push(
          options.moduleLayers?.handles(active.layer)
            ? loadModuleLayer(options.moduleLayers, active.layer, log)
            : LayerLibrary.load(active.layer, { log, keepLoaded: options.keepLoaded }),
        );
      } catch (error) {
        if (!(error instanceof LayerLoadError)) {
          for (const l of loaded) l.release();
          throw error;
        }
        failed.add(active.layer.name);
        const byApp = requested.has(active.layer.name) ||
          (active.via !== undefined && requested.has(active.via));
        if (byApp) {
          for (const l of loaded) l.release();
          log?.error(`Requested layer "${active.layer.name}" ${error.failure}: ${error.message}`, "layer");
          throw new VkError("VK_ERROR_LAYER_NOT_PRESENT", error.message, { cause: error });
        }
        // A layer someone asked for (VK_INSTANCE_LAYERS, VK_LOADER_LAYERS_ENABLE, the settings file) that
        // cannot be loaded is an error the user must see (docs/behaviour.md G11); an implicit one only informs.
        const text = `Requested layer "${active.layer.name}" ${error.failure}: ${error.message}`;
        if (active.source === "implicit") log?.info(text, "layer");
        else log?.error(text, "layer");
      }
    }
    const activated = activation.activatedLayers.filter((l) => !failed.has(l.name));
    return new LayerChain(loaded, activated, options);
  }

  /** True when no layer is loaded (the core may skip the layer path entirely). */
  get empty(): boolean {
    return this.libraries.length === 0;
  }

  /** The layers taking part in device chains (those with a `vkGetDeviceProcAddr`), in chain order. */
  get deviceLibraries(): LayerLibrary[] {
    return this.libraries.filter((l) => l.getDeviceProcAddr !== null);
  }

  /**
   * `vkEnumerateDeviceLayerProperties`: the instance's activated layers in
   * activation order (a meta layer after its components).
   *
   * @example Usage
   * ```ts ignore
   * import type { LayerChain } from "./chain.ts";
   * declare const chain: LayerChain;
   * console.log(chain.enumerateDeviceLayerProperties().map((p) => p.layerName));
   * ```
   */
  enumerateDeviceLayerProperties(): LayerProperties[] {
    return enumerateInstanceLayerProperties({ layers: this.activatedLayers });
  }

  /**
   * The top of the instance chain's `vkGetInstanceProcAddr` (the first layer's, or the bottom's).
   *
   * @example Usage
   * ```ts ignore
   * import type { LayerChain } from "./chain.ts";
   * import type { InstanceLink } from "./nodes.ts";
   * declare const chain: LayerChain;
   * declare const bottom: InstanceLink;
   * chain.topGetInstanceProcAddr(bottom);
   * ```
   */
  topGetInstanceProcAddr(bottom: InstanceLink): Deno.PointerValue {
    return this.libraries[0]?.getInstanceProcAddr ?? bottom.getInstanceProcAddr;
  }

  /**
   * Runs `vkCreateInstance` down the chain (chain/layer_chain/instance.ts `runInstanceChain`): builds the loader
   * nodes, asks the first layer's `vkGetInstanceProcAddr` (with the loader's non-null instance, as the C
   * loader does) for `vkCreateInstance`, and calls it.
   *
   * @example Usage
   * ```ts ignore
   * import type { LayerChain } from "./chain.ts";
   * import type { InstanceChainArgs } from "./instance.ts";
   * declare const chain: LayerChain;
   * declare const args: InstanceChainArgs;
   * const { result, instance } = chain.createInstance(args);
   * ```
   * @throws {TypeError} If the chain was released.
   */
  createInstance(args: InstanceChainArgs): InstanceChainResult {
    this.#checkLive("vkCreateInstance");
    const arena = this.#arena();
    return runInstanceChain(this.libraries, args, arena, this.#callbacks, this.#log);
  }

  /**
   * Runs `vkCreateDevice` down the device-capable layers (all of them, or
   * those below `args.below`) to the bottom link, with the device nodes in
   * front of the application's `pNext` and its device group unwrapped
   * (chain/layer_chain/device.ts `runDeviceChain`).
   *
   * @example Usage
   * ```ts ignore
   * import type { LayerChain } from "./chain.ts";
   * import type { DeviceChainArgs } from "./device.ts";
   * declare const chain: LayerChain;
   * declare const args: DeviceChainArgs;
   * const { result, device, getDeviceProcAddr } = chain.createDevice(args);
   * ```
   * @throws {TypeError} If the chain was released.
   */
  createDevice(args: DeviceChainArgs): DeviceChainResult {
    this.#checkLive("vkCreateDevice");
    const arena = this.#arena();
    return runDeviceChain(this.deviceLibraries, args, arena, this.#deviceLoaderData, this.#log);
  }

  /**
   * Releases the libraries and closes the loader callbacks. Call it after
   * `vkDestroyInstance` went down the chain (or after a failed
   * `vkCreateInstance`): nothing may call into the layers afterwards.
   *
   * @example Usage
   * ```ts ignore
   * import type { LayerChain } from "./chain.ts";
   * declare const chain: LayerChain;
   * chain.release();
   * ```
   */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    for (const l of this.libraries) l.release();
    this.#callbacks.dispose();
    for (const a of this.#arenas) a.dispose();
    this.#arenas.length = 0;
  }

  /** Same as {@linkcode LayerChain.release}, for `using`. */
  [Symbol.dispose](): void {
    this.release();
  }

  #checkLive(what: string): void {
    if (this.#released) throw new TypeError(`Cannot run "${what}" through a released layer chain`);
  }

  #arena(): Arena {
    // Layers may keep pointers into the create info (the validation layer copies lazily): keep it for the instance's life.
    const arena = new Arena();
    this.#arenas.push(arena);
    return arena;
  }
}

/** A layer whose `library_path` names a script module: its chain link, used as a library. */
function loadModuleLayer(
  loader: ModuleLayerLoader,
  layer: LayerManifest,
  log: Logger | undefined,
): LayerLibrary {
  try {
    const link = loader.load(layer);
    log?.debug(
      `Loaded layer "${layer.name}" from "${link.path}" (script module, interface ${link.interfaceVersion})`,
      "layer",
    );
    // The chain reads only the ModuleLayerLink members of a LayerLibrary.
    return link as unknown as LayerLibrary;
  } catch (error) {
    throw new LayerLoadError(layer.name, "failed to load", (error as Error).message, { cause: error });
  }
}
