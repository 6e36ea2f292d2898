/**
 * Everything layers add to one loader instance, behind the few entry points the loader core calls from its
 * trampolines (prepare, create the instance and device chains, extension checks, release).
 *
 * @example Preparing the layers of an instance
 * ```ts
 * import { InstanceLayers } from "./instance_layers.ts";
 * import { Logger } from "../../loading/log.ts";
 * const env = { vars: {}, elevated: false, root: "/nonexistent" };
 * using layers = InstanceLayers.prepare({ env, log: new Logger(env), requestedLayers: [] });
 * console.log(layers.active); // false
 * ```
 *
 * @module
 */

import { type EnvironmentSnapshot, getenv } from "../../discovery/environment.ts";
import { activateLayers } from "../../discovery/layer_activation.ts";
import type { LayerManifest } from "../../discovery/layer_manifest.ts";
import { discoverLayers, type LayerDiscovery } from "../../discovery/layers.ts";
import { CallbackOwner } from "../../ffi/callback.ts";
import { activateMessengers, type DebugMessenger } from "../extensions/debug.ts";
import { DebugMessengers } from "../extensions/debug.ts";
import { VkError } from "../../vk/errors.ts";
import { callGetProcAddr } from "../../vk/proc_addr.ts";
import type { DeviceChainResult } from "./device.ts";
import { LayerChain } from "./chain.ts";
import type { ModuleLayerLoader } from "./module_interface.ts";
import { firstUnsupportedExtension, withModuleLayers } from "./extensions.ts";
import { ChainBottom, type LoaderTerminators } from "./bottom.ts";
import { checkDeviceLayerNames, deviceLayerSlots } from "./device_layers.ts";
import type { Logger } from "../../loading/log.ts";
import { VK_ERROR_INITIALIZATION_FAILED, VK_SUCCESS } from "../../vk/generated/vk_constants.js";
import type { Pointer } from "../../ffi/memory.ts";

/**
 * Options of {@linkcode InstanceLayers.prepare}.
 *
 * @example Usage
 * ```ts ignore
 * import type { PrepareLayersOptions } from "./instance_layers.ts";
 * declare const options: PrepareLayersOptions;
 * ```
 */
export interface PrepareLayersOptions {
  /** The environment discovery reads. */
  readonly env: EnvironmentSnapshot;
  /** The loader log. */
  readonly log: Logger;
  /** `ppEnabledLayerNames`. */
  readonly requestedLayers: readonly string[];
  /** `VkApplicationInfo.apiVersion`, packed (older layers get a warning). */
  readonly apiVersion?: number;
  /** For the override layer's `app_keys`. */
  readonly executablePath?: string;
  /** The create info's messengers (`readMessengerCreateInfos`), active again during `vkDestroyInstance`. */
  readonly createMessengers?: readonly DebugMessenger[];
  /** Loads the layers whose library is a script module; such layers fail to load without it. */
  readonly moduleLayers?: ModuleLayerLoader;
}

/**
 * The layers of one instance.
 *
 * @example Usage
 * ```ts ignore
 * import { InstanceLayers } from "./instance_layers.ts";
 * import type { PrepareLayersOptions } from "./instance_layers.ts";
 * declare const options: PrepareLayersOptions;
 * const layers = InstanceLayers.prepare(options);
 * layers.release();
 * ```
 */
export class InstanceLayers implements Disposable {
  /** The discovery made for this instance. */
  readonly discovery: LayerDiscovery;
  /** The loaded chain. */
  readonly chain: LayerChain;
  /** Loader-side messengers (`vkCreateDebugUtilsMessengerEXT` terminators). */
  readonly messengers: DebugMessengers = new DebugMessengers();
  readonly #log: Logger;
  readonly #callbacks = new CallbackOwner();
  readonly #createMessengers: readonly DebugMessenger[];
  readonly #bottom: ChainBottom;
  #topInstance: Pointer = null;
  #released = false;

  private constructor(
    discovery: LayerDiscovery,
    chain: LayerChain,
    log: Logger,
    createMessengers: readonly DebugMessenger[],
  ) {
    this.discovery = discovery;
    this.chain = chain;
    this.#log = log;
    this.#createMessengers = createMessengers;
    this.#bottom = new ChainBottom(this.#callbacks, this.messengers);
  }

  /**
   * Discovers and activates the layers for `vkCreateInstance` and loads their libraries.
   *
   * @example Usage
   * ```ts
   * import { InstanceLayers } from "./instance_layers.ts";
   * import { VkError } from "../../vk/errors.ts";
   * import { Logger } from "../../loading/log.ts";
   * const env = { vars: {}, elevated: false, root: "/nonexistent" };
   * try {
   *   InstanceLayers.prepare({ env, log: new Logger(env), requestedLayers: ["VK_LAYER_missing"] });
   * } catch (e) {
   *   console.log((e as VkError).result); // "VK_ERROR_LAYER_NOT_PRESENT"
   * }
   * ```
   * @throws {VkError} `VK_ERROR_LAYER_NOT_PRESENT` for a requested layer that is unknown or fails to load.
   */
  static prepare(options: PrepareLayersOptions): InstanceLayers {
    const log = options.log;
    const discovery = withModuleLayers(
      discoverLayers(options.env, { executablePath: options.executablePath }),
      options.moduleLayers,
    );
    log.logAll(discovery.messages);
    const activation = activateLayers(options.env, discovery, {
      requestedLayers: options.requestedLayers,
      apiVersion: options.apiVersion,
    });
    log.logAll(activation.messages);
    if (!activation.ok) throw new VkError("VK_ERROR_LAYER_NOT_PRESENT", activation.message);
    const holder: { owner?: InstanceLayers } = {};
    const chain = LayerChain.load(activation, {
      requestedLayers: options.requestedLayers,
      log,
      findDeviceTable: (device) => holder.owner?.deviceTableOf(device) ?? null,
      // LI11: only the exact value 1 keeps the libraries loaded.
      keepLoaded: getenv(options.env, "VK_LOADER_DISABLE_DYNAMIC_LIBRARY_UNLOADING") === "1",
      moduleLayers: options.moduleLayers,
    });
    holder.owner = new InstanceLayers(discovery, chain, log, options.createMessengers ?? []);
    return holder.owner;
  }

  /** True when at least one layer is loaded. */
  get active(): boolean {
    return !this.chain.empty;
  }

  /** The activated layers (meta layers included), for extension checks and device layer enumeration. */
  get enabledLayers(): readonly LayerManifest[] {
    return this.chain.activatedLayers;
  }

  /**
   * The first requested instance or device extension that no driver and no
   * enabled layer offers (A05), or `undefined`.
   *
   * @example Usage
   * ```ts ignore
   * import type { InstanceLayers } from "./instance_layers.ts";
   * declare const layers: InstanceLayers;
   * layers.unsupportedExtension(["VK_EXT_debug_utils"], [], "instance");
   * ```
   */
  unsupportedExtension(
    requested: readonly string[],
    driverExtensions: Iterable<string>,
    kind: "instance" | "device",
  ): string | undefined {
    return firstUnsupportedExtension(requested, driverExtensions, this.enabledLayers, kind);
  }

  /**
   * Runs `vkCreateInstance` through the layers to the core's terminators,
   * with the create info's messengers active. Returns the `VkResult`; on
   * success the instance table must be filled through
   * {@linkcode InstanceLayers.getInstanceProcAddr}.
   *
   * @example Usage
   * ```ts ignore
   * import type { InstanceLayers } from "./instance_layers.ts";
   * import type { LoaderTerminators } from "./bottom.ts";
   * declare const layers: InstanceLayers;
   * declare const terminators: LoaderTerminators;
   * declare const info: Deno.PointerObject, handle: Deno.PointerObject, table: Deno.PointerObject;
   * layers.createInstance(terminators, { pCreateInfo: info, pAllocator: null, loaderInstance: handle, instanceTable: table });
   * ```
   */
  createInstance(
    terminators: LoaderTerminators,
    args: { pCreateInfo: Pointer; pAllocator: Pointer; loaderInstance: Pointer; instanceTable: Pointer },
  ): number {
    this.#bottom.terminators = terminators;
    const made = this.chain.createInstance({
      bottom: this.#bottom.link(),
      createInfo: args.pCreateInfo,
      allocator: args.pAllocator,
      loaderInstance: args.loaderInstance,
      instanceTable: args.instanceTable,
      createDeviceForLayer: (request) => {
        const physicalDevice = request.instance === null
          ? terminators.unwrapPhysicalDevice(request.physicalDevice)
          : request.physicalDevice;
        return this.createDevice({
          physicalDevice,
          pCreateInfo: request.createInfo,
          pAllocator: request.allocator,
          below: request.below,
        });
      },
      deviceDestroyedByLayer: (device) => terminators.layerDestroyedDevice(device),
    });
    this.#topInstance = made.result === VK_SUCCESS ? made.instance : null;
    return made.result;
  }

  /** The top of the instance chain's answer for `name` (what the instance table slot gets). */
  getInstanceProcAddr(name: string): Pointer {
    return callGetProcAddr(this.chain.topGetInstanceProcAddr(this.#bottom.link()), this.#topInstance, name);
  }

  /**
   * What {@linkcode InstanceLayers.getInstanceProcAddr} calls: the top of the chain's
   * `vkGetInstanceProcAddr` and the instance it answers for (to ask many names in one native call).
   */
  get top(): {
    readonly getInstanceProcAddr: Pointer;
    readonly instance: Pointer;
    readonly answer?: (name: string) => Pointer;
  } {
    const getInstanceProcAddr = this.chain.topGetInstanceProcAddr(this.#bottom.link());
    // No layer: the top is the loader's own bottom link, whose answers need no trip through C.
    const own = this.#bottom.isOwnInstanceProcAddr(getInstanceProcAddr);
    return {
      getInstanceProcAddr,
      instance: this.#topInstance,
      ...(own ? { answer: this.#bottom.answer } : {}),
    };
  }

  /**
   * The answer of the first layer with interface 2 and a
   * `vk_layerGetPhysicalDeviceProcAddr` for `name` (which calls down the
   * chain itself), or null: what classifies an unknown command as a
   * physical-device command and what its instance table slot gets (LI08).
   *
   * @example Usage
   * ```ts ignore
   * import type { InstanceLayers } from "./instance_layers.ts";
   * declare const layers: InstanceLayers;
   * layers.physicalDeviceProcAddr("vkGetPhysicalDeviceFooVENDOR");
   * ```
   */
  physicalDeviceProcAddr(name: string): Pointer {
    const first = this.chain.libraries.find((l) =>
      l.interfaceVersion >= 2 && l.getPhysicalDeviceProcAddr !== null
    );
    if (first === undefined || this.#topInstance === null) return null;
    return callGetProcAddr(first.getPhysicalDeviceProcAddr, this.#topInstance, name);
  }

  /** The core's device dispatch table for a device-level handle, or null. */
  deviceTableOf(device: Pointer): Pointer {
    return this.#bottom.terminators?.deviceDispatchTable(device) ?? null;
  }

  /** The instance handle the top layer gave back (the loader's own unless a layer wraps it). */
  get topInstance(): Pointer {
    return this.#topInstance;
  }

  /**
   * Runs `vkCreateDevice` through the device layers (or those below `below`),
   * then lets the core fill the device's table from the chain's top.
   *
   * @example Usage
   * ```ts ignore
   * import type { InstanceLayers } from "./instance_layers.ts";
   * declare const layers: InstanceLayers;
   * declare const pd: Deno.PointerObject, info: Deno.PointerObject;
   * const made = layers.createDevice({ physicalDevice: pd, pCreateInfo: info, pAllocator: null });
   * ```
   */
  createDevice(
    args: { physicalDevice: Pointer; pCreateInfo: Pointer; pAllocator: Pointer; below?: Pointer },
  ): DeviceChainResult {
    const terminators = this.#bottom.terminators;
    if (args.below === undefined) checkDeviceLayerNames(this.#log, this.enabledLayers, args.pCreateInfo);
    if (terminators === undefined) {
      return { result: VK_ERROR_INITIALIZATION_FAILED, device: null, getDeviceProcAddr: null };
    }
    const made = this.chain.createDevice({
      bottom: {
        getInstanceProcAddr: this.#bottom.getInstanceProcAddr(),
        getDeviceProcAddr: this.#bottom.getDeviceProcAddr(),
      },
      instance: this.#topInstance,
      physicalDevice: args.physicalDevice,
      createInfo: args.pCreateInfo,
      allocator: args.pAllocator,
      loaderDevice: null,
      unwrapPhysicalDevice: (pd) => terminators.unwrapPhysicalDevice(pd),
      below: args.below,
    });
    if (made.result !== VK_SUCCESS) return made;
    const filled = terminators.deviceCreated(made.device, made.getDeviceProcAddr);
    return filled === VK_SUCCESS ? made : { result: filled, device: null, getDeviceProcAddr: null };
  }

  /**
   * Replacements for the instance table's `vkEnumerateDeviceLayerProperties` and
   * `vkEnumerateDeviceExtensionProperties` slots (chain/layer_chain/device_layers.ts `deviceLayerSlots`); `current(name)`
   * is what the slot held.
   *
   * @example Usage
   * ```ts ignore
   * import type { InstanceLayers } from "./instance_layers.ts";
   * declare const layers: InstanceLayers;
   * const slots = layers.instanceSlotOverrides(() => null);
   * console.log(Object.keys(slots));
   * ```
   */
  instanceSlotOverrides(current: (name: string) => Pointer): Record<string, Deno.PointerObject> {
    return deviceLayerSlots(this, this.#callbacks, current);
  }

  /**
   * Makes the create info's debug messengers active again for `vkDestroyInstance`
   * (A17); call the returned function when it ends.
   *
   * @example Usage
   * ```ts ignore
   * import type { InstanceLayers } from "./instance_layers.ts";
   * declare const layers: InstanceLayers;
   * declare const handle: Deno.PointerObject;
   * const done = layers.activateDestroyMessengers(handle);
   * done();
   * ```
   */
  activateDestroyMessengers(instance: Pointer): () => void {
    return activateMessengers(this.#log, this.#createMessengers, () => instance);
  }

  /**
   * Closes the layer libraries and every callback handed to layers. Call it
   * after `vkDestroyInstance` went down the chain, or after a failed create.
   *
   * @example Usage
   * ```ts
   * import { InstanceLayers } from "./instance_layers.ts";
   * import { Logger } from "../../loading/log.ts";
   * const env = { vars: {}, elevated: false, root: "/nonexistent" };
   * InstanceLayers.prepare({ env, log: new Logger(env), requestedLayers: [] }).release();
   * ```
   */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.chain.release();
    this.messengers.dispose();
    this.#callbacks.dispose();
    this.#bottom.terminators = undefined;
  }

  /** Same as {@linkcode InstanceLayers.release}, for `using`. */
  [Symbol.dispose](): void {
    this.release();
  }

  /**
   * The loader's own `vkGetDeviceProcAddr` at the bottom of this instance's device chains (null before the
   * first device): a device whose chain's top is this has no device layers.
   */
  get bottomDeviceProcAddr(): Pointer {
    return this.#bottom.deviceProcAddr;
  }
}
