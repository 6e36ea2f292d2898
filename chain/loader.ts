/**
 * One loader: an environment snapshot, a log, its handle maps (chain/objects.ts `HandleRegistry`: its
 * objects are unknown to every other loader), and the application-facing side of the chain: the global
 * commands, instance creation, the proc-addr queries, and the C callbacks handed to drivers, layers and
 * applications for them. The other trampolines get their bodies in chain/trampoline.ts, device creation
 * and destruction in chain/device.ts (`LoaderDevices`, one per loader).
 *
 * Everything else reaches the chain through native stubs and never enters TypeScript.
 *
 * @module
 */

import { COMMAND_INDEX, COMMANDS } from "../ffi/generated/commands.ts";
import { CallbackRegistry } from "../ffi/callback.ts";
import { readCString, writeU64 } from "../ffi/memory.ts";
import { type EnvironmentSnapshot, snapshotProcessEnvironment } from "../discovery/environment.ts";
import { acquireDrivers, releaseDriver } from "../loading/driver.ts";
import {
  acquireDirectDrivers,
  type DirectDriverMode,
  readDirectDriverList,
} from "../loading/direct_driver.ts";
import { type InstanceCreateInfo, readInstanceCreateInfo } from "./driver_instance.ts";
import { emulation } from "./emulation.ts";
import { HandleRegistry, key, LoaderInstance } from "./objects.ts";
import { createDriverInstances, destroyDriverInstances } from "./terminator_instance.ts";
import { type TrampolineBodies, trampolineBodies, type TrampolineContext } from "./trampoline.ts";
import { Logger } from "../loading/log.ts";
import type { WsiSupport } from "./wsi_interface.ts";
import type { ModuleLayerLoader } from "./layer_chain.ts";
import { readDevicePolicy } from "../discovery/device_selection.ts";
import { decidePortability, portabilityError } from "./portability.ts";
import { activateMessengers, readMessengerCreateInfos } from "./debug_utils.ts";
import { VkError } from "../ffi/errors.ts";
import { type CoreHooks, InstanceLayers } from "./layer_instance.ts";
import { GlobalCommands } from "./global_commands.ts";
import { LoaderDevices } from "./device.ts";
import {
  deviceProcAddrRule,
  instanceProcAddrRule,
  isLoaderTrampoline,
  type LoaderTrampolineName,
} from "./proc_addr.ts";
import { type ChainStubs, chainStubs } from "./stubs.ts";
import { fillInstanceCommands } from "./table_fill.ts";
import { terminatorBodies } from "./terminator.ts";
import {
  fillPhysicalSlot,
  resolveUnknown,
  trackUnknownSlots,
  unknownPhysicalDeviceSlot,
  unknownPhysicalDeviceSlots,
  unknownSlotDef,
} from "./unknown.ts";
import { apiVersion as makeVersion, versionText, VK, VK_API_VERSION_1_0 } from "../loading/_layout.ts";
import { commandCallbackDef, commandDef } from "../ffi/command_ffi.ts";

type P = Deno.PointerValue;
type Fn = (...args: unknown[]) => unknown;

/** Options of {@linkcode Loader}. */
export interface LoaderOptions {
  /** What discovery reads; default a snapshot of this process. */
  env?: EnvironmentSnapshot;
  /** The log; default one reading `VK_LOADER_DEBUG` from `env`. */
  logger?: Logger;
  /** `false` forces the `UnsafeFnPointer` fallback for the process's stubs (only before the first load). */
  nativeStubs?: boolean;
  /** Driver libraries (`.so`) or manifests (`.json`) to use (loading/direct_driver.ts). */
  drivers?: readonly string[];
  /** With `drivers`: `exclusive` (default) uses only them, `inclusive` adds them (their devices after the found ones'). */
  driversMode?: DirectDriverMode;
  /** Window-system support (wsi/terminators.ts's `WSI_SUPPORT`); none when left out. */
  wsi?: WsiSupport;
  /** Loads layers whose library is a script module (layers/module_layer.ts); none when left out. */
  moduleLayers?: ModuleLayerLoader;
}

function slot(name: string): number {
  return COMMAND_INDEX[name]!;
}

/**
 * A loader: what `Vulkan.load()` wraps.
 *
 * @example Usage
 * ```ts ignore
 * import { Loader } from "./loader.ts";
 * using loader = new Loader({ env: { vars: {}, elevated: false } });
 * ```
 */
export class Loader implements Disposable, TrampolineContext {
  /** The environment discovery reads. */
  readonly env: EnvironmentSnapshot;
  /** The log. */
  readonly log: Logger;
  /** Window-system support, if any. */
  readonly wsi: WsiSupport | undefined;
  /** Loader of script-module layers, if any. */
  readonly moduleLayers: ModuleLayerLoader | undefined;
  /** The process's stubs. */
  readonly stubs: ChainStubs;
  /** Instances this loader made that are alive. */
  readonly instances: Set<LoaderInstance> = new Set();
  /** This loader's handle maps: another loader's handles are unknown here. */
  readonly registry: HandleRegistry = new HandleRegistry();
  /** Device creation and destruction (chain/device.ts). */
  readonly devices: LoaderDevices;
  /** The global commands and the driver scan (chain/global_commands.ts). */
  readonly global: GlobalCommands;
  #callbacks: CallbackRegistry;
  #terminatorBodies: Readonly<Record<string, Fn>>;
  #trampolineBodies: TrampolineBodies | undefined;
  #trampolines = new Map<string, Deno.PointerObject>();
  #terminators = new Map<string, Deno.PointerObject>();
  #emulations = new Map<number, Deno.PointerObject | null>();
  #disposed = false;

  /** A loader over `options.env`. */
  constructor(options: LoaderOptions = {}) {
    this.env = options.env ?? snapshotProcessEnvironment();
    this.log = options.logger ?? new Logger(this.env);
    this.global = new GlobalCommands({
      env: this.env,
      log: this.log,
      drivers: options.drivers,
      driversMode: options.driversMode ?? "exclusive",
    });
    this.wsi = options.wsi;
    this.moduleLayers = options.moduleLayers;
    this.stubs = chainStubs({ native: options.nativeStubs });
    this.#callbacks = new CallbackRegistry({ report: (text) => this.log.error(text) });
    trackUnknownSlots(this.registry);
    this.devices = new LoaderDevices({
      registry: this.registry,
      stubs: this.stubs,
      log: this.log,
      wsi: this.wsi,
    });
    this.#terminatorBodies = {
      ...terminatorBodies(this.registry),
      vkCreateDevice: (a, b, c, d) => this.devices.terminatorCreateDevice(a as P, b as P, c as P, d as P),
    };
    if (!this.stubs.native) {
      this.log.warn(
        `Native dispatch stubs are unavailable (${
          this.stubs.dispatch.fallbackReason ?? this.stubs.unwrap.fallbackReason
        }): commands go through UnsafeFnPointer`,
        "perf",
      );
    }
  }

  // ------------------------------------------------------------------------------------- global commands

  /** `vkEnumerateInstanceVersion` (chain/global_commands.ts). */
  enumerateInstanceVersion(pApiVersion: P): number {
    return this.global.enumerateInstanceVersion(pApiVersion);
  }

  /** `vkEnumerateInstanceLayerProperties` (chain/global_commands.ts). */
  enumerateInstanceLayerProperties(pPropertyCount: P, pProperties: P): number {
    return this.global.enumerateInstanceLayerProperties(pPropertyCount, pProperties);
  }

  /** `vkEnumerateInstanceExtensionProperties` (chain/global_commands.ts). */
  enumerateInstanceExtensionProperties(pLayerName: P, pPropertyCount: P, pProperties: P): number {
    return this.global.enumerateInstanceExtensionProperties(pLayerName, pPropertyCount, pProperties);
  }

  /**
   * `vkCreateInstance`: layers prepared (discovery, activation, libraries), drivers loaded, extensions
   * checked, then the chain: the layers' `vkCreateInstance` down to the terminator, which makes every
   * driver's instance. The instance dispatch table is filled from the top of the chain.
   */
  createInstance(pCreateInfo: P, pAllocator: P, pInstance: P): number {
    if (pInstance === null) return VK.ERROR_INITIALIZATION_FAILED;
    const info = readInstanceCreateInfo(pCreateInfo);
    // The create info's messengers hear everything the loader says during the call (A17).
    const made: { instance: P } = { instance: null };
    const done = activateMessengers(this.log, readMessengerCreateInfos(info.pNext), () => made.instance);
    try {
      return this.#createInstance(info, pAllocator, pInstance, made);
    } finally {
      done();
    }
  }

  #createInstance(
    info: InstanceCreateInfo,
    pAllocator: P,
    pInstance: Deno.PointerObject,
    made: { instance: P },
  ): number {
    const pCreateInfo = info.pointer;
    let layers: InstanceLayers;
    try {
      layers = InstanceLayers.prepare({
        env: this.env,
        log: this.log,
        requestedLayers: info.layers,
        apiVersion: info.appApiVersion || VK_API_VERSION_1_0,
        createMessengers: readMessengerCreateInfos(info.pNext),
        moduleLayers: this.moduleLayers,
      });
    } catch (error) {
      if (!(error instanceof VkError)) throw error;
      this.log.error(`vkCreateInstance: ${error.message}`, "layer");
      return error.code;
    }
    checkApiVersion(this.log, info.appApiVersion);
    const devicePolicy = readDevicePolicy(this.env);
    this.log.logAll(devicePolicy.messages);
    // VK_LUNARG_direct_driver_loading: the application's drivers, with the found ones or alone.
    const direct = readDirectDriverList(info.pNext, info.extensions, this.log);
    const found = direct?.mode === "exclusive" ? [] : this.global.driverManifests();
    // VK_KHR_portability_enumeration: portability drivers only when the application asked for them.
    const portability = decidePortability(found, {
      flags: info.flags,
      enabledExtensions: info.extensions,
    });
    this.log.logAll(portability.messages);
    // Scanned as the Khronos loader scans them (loader_icd_scan): the direct drivers first, in pDrivers
    // order, then the found ones. Listing drivers reverses that (A16), so with sorting off the direct
    // drivers' devices come last (D10), in reverse pDrivers order.
    const held = direct === undefined ? [] : acquireDirectDrivers(direct, this.log);
    held.push(...acquireDrivers(portability.used, this.log));
    const fail = (result: number, text: string) => {
      this.log.error(text);
      held.forEach(releaseDriver);
      layers.release();
      return result;
    };
    if (held.length === 0) {
      const onlyPortability = portability.used.length === 0 ? portabilityError(portability) : undefined;
      if (onlyPortability) return fail(onlyPortability.code, onlyPortability.message);
      return fail(VK.ERROR_INCOMPATIBLE_DRIVER, "vkCreateInstance: found no drivers");
    }
    const offered = this.global.instanceExtensions(held).map((e) => e.name);
    const missing = layers.unsupportedExtension(info.extensions, offered, "instance");
    if (missing !== undefined) {
      return fail(
        VK.ERROR_EXTENSION_NOT_PRESENT,
        `vkCreateInstance: instance extension "${missing}" is not supported`,
      );
    }
    const surfaces = this.wsi?.unsupportedExtensions(
      info.extensions,
      held.map((d) => d.instanceExtensions().map((e) => e.name)),
    ) ?? [];
    if (surfaces.length > 0) {
      return fail(VK.ERROR_EXTENSION_NOT_PRESENT, `vkCreateInstance: no driver supports "${surfaces[0]}"`);
    }
    const inst = new LoaderInstance({
      registry: this.registry,
      enabledExtensions: info.extensions,
      apiVersion: info.appApiVersion || VK_API_VERSION_1_0,
      log: this.log,
      heldDrivers: held,
      devicePolicy,
      wsi: this.wsi,
    });
    inst.layers = layers;
    made.instance = inst.handle;
    inst.chain = [{ getInstanceProcAddr: (_i, name) => this.#terminatorProcAddr(inst, name) }];
    const result = layers.createInstance(this.#hooks(inst), {
      pCreateInfo,
      pAllocator,
      loaderInstance: inst.handle,
      instanceTable: inst.table.pointer,
    });
    let failure = result;
    if (result >= 0 && !inst.terminatorReached) {
      this.log.error(
        `vkCreateInstance: a layer of "${
          layers.enabledLayers.map((l) => l.name).join('", "')
        }" returned success without calling down the chain to the terminator: no driver has an instance`,
        "layer",
      );
      failure = VK.ERROR_INITIALIZATION_FAILED;
    }
    if (failure < 0) {
      // A layer may fail after the drivers' instances were made.
      destroyDriverInstances(inst, pAllocator);
      inst.dispose();
      layers.release();
      held.forEach(releaseDriver);
      return failure;
    }
    // Word 1: the handle instance commands pass down (the loader's own unless a layer wrapped it).
    writeU64(inst.handle, 8, key(layers.topInstance ?? inst.handle));
    // The top of the chain fills the table; the loader's device-layer and layer-extension answers go
    // above it.
    // One native call asks the top for every instance and physical-device command (chain/table_fill.ts).
    const top = layers.top;
    fillInstanceCommands(this.stubs, top.getInstanceProcAddr, top.instance, (at, fn) => {
      inst.table.set(at, fn === 0n ? this.stubs.errorFunction : fn);
    }, top.answer);
    const overrides = layers.instanceSlotOverrides((name) => inst.table.get(slot(name)));
    for (const [name, fn] of Object.entries(overrides)) inst.table.set(slot(name), fn);
    for (const [name, s] of unknownPhysicalDeviceSlots()) {
      fillPhysicalSlot(inst, name, s, this.stubs, unknownSlotDef(s));
    }
    layers.messengers.attach(this.log, inst.handle);
    this.instances.add(inst);
    writeU64(pInstance, 0, inst.address);
    this.log.info(
      `vkCreateInstance: Vulkan ${
        versionText(inst.apiVersion)
      } instance over ${inst.drivers.length} driver(s)${
        layers.active ? ` and ${layers.enabledLayers.length} layer(s)` : ""
      }`,
    );
    return result;
  }

  /** What the layer chain needs from the core for `inst` (the device half from chain/device.ts). */
  #hooks(inst: LoaderInstance): CoreHooks {
    return {
      terminatorProcAddr: (name) => this.#terminatorProcAddr(inst, name),
      terminatorPhysicalDeviceProcAddr: (name) => {
        const s = unknownPhysicalDeviceSlot(name);
        return s === undefined
          ? this.#terminatorProcAddr(inst, name)
          : this.stubs.terminatorAddress(s, unknownSlotDef(s));
      },
      terminatorCreateInstance: (pCreateInfo, pAllocator) =>
        this.#terminatorCreateInstance(inst, pCreateInfo, pAllocator),
      // Drivers that enabled a debug extension get the application's messengers too (their own messages).
      driverInstances: () =>
        inst.drivers
          .filter((d) =>
            d.enabledExtensions.includes("VK_EXT_debug_utils") ||
            d.enabledExtensions.includes("VK_EXT_debug_report")
          )
          .map((d) => ({ handle: d.handle, procAddr: (name: string) => d.procAddr(name) })),
      ...this.devices.hooks(inst),
    };
  }

  /** The terminator of `vkCreateInstance` (chain/terminator_instance.ts), with the loader's emulations. */
  #terminatorCreateInstance(inst: LoaderInstance, pCreateInfo: P, pAllocator: P): number {
    return createDriverInstances(
      inst,
      pCreateInfo,
      pAllocator,
      (s) => this.#emulation(s) ?? this.stubs.errorFunction,
    );
  }

  #emulation(s: number): P {
    // Asked for every slot a driver leaves empty at every vkCreateInstance: "none" is kept too.
    const kept = this.#emulations.get(s);
    if (kept !== undefined) return kept;
    const body = emulation(s, this.registry);
    const p = body ? this.#callback(COMMANDS[s]!.name, body, `emulated ${COMMANDS[s]!.name}`) : null;
    this.#emulations.set(s, p);
    return p;
  }

  /** The terminator link's `vkGetInstanceProcAddr`. */
  #terminatorProcAddr(inst: LoaderInstance, name: string): P {
    // Asked for every instance command at every vkCreateInstance: what does not depend on the instance is
    // worked out once per name.
    let fixed = this.#fixedTerminators.get(name);
    if (fixed === undefined) {
      fixed = this.#fixedTerminator(name);
      this.#fixedTerminators.set(name, fixed);
    }
    if (fixed.name === undefined || fixed.body !== undefined) return fixed.body ?? null;
    const wsi = inst.wsi?.terminator(fixed.name);
    return wsi !== undefined ? wsi : fixed.stub;
  }

  /** A command's terminator answers that are the same for every instance (its canonical name first). */
  #fixedTerminator(name: string): { name?: string; body?: P; stub: P } {
    const s = COMMAND_INDEX[name];
    const info = s === undefined ? undefined : COMMANDS[s];
    if (!info) return { stub: null };
    if (info.name in this.#terminatorBodies) {
      return { name: info.name, body: this.#terminator(info.name), stub: null };
    }
    const stub = info.level === "physical_device"
      ? this.stubs.terminatorAddress(info.index, commandDef(info))
      : null;
    return { name: info.name, stub };
  }

  #fixedTerminators = new Map<string, { name?: string; body?: P; stub: P }>();

  #terminator(name: string): Deno.PointerObject {
    let p = this.#terminators.get(name);
    if (!p) {
      p = this.#callback(name, this.#terminatorBodies[name]!, `terminator ${name}`);
      this.#terminators.set(name, p);
    }
    return p;
  }

  #callback(name: string, body: Fn, label: string): Deno.PointerObject {
    const info = COMMANDS[slot(name)]!;
    const d = commandCallbackDef(info);
    const onError = info.ffi.result === "i32"
      ? VK.ERROR_UNKNOWN
      : info.ffi.result === "pointer"
      ? null
      : undefined;
    return this.#callbacks.create(d, body as never, { name: label, onError } as never).pointer;
  }

  // ----------------------------------------------------------------------------------------- trampolines

  #instance(handle: P, command: string): LoaderInstance | undefined {
    const inst = this.registry.instances.get(key(handle));
    if (!inst) this.log.error(`${command}: invalid VkInstance "0x${key(handle).toString(16)}"`);
    return inst;
  }

  // ------------------------------------------------------------------------------------------ proc addr

  /** `vkGetInstanceProcAddr` (`pName` as a C string or a JavaScript string). */
  getInstanceProcAddr(instance: P, pName: P | string): P {
    const name = typeof pName === "string" ? pName : pName === null ? "" : readCString(pName);
    const inst = instance === null ? undefined : this.#instance(instance, "vkGetInstanceProcAddr");
    if (instance !== null && !inst) return null;
    const answer = instanceProcAddrRule(name, inst);
    switch (answer.kind) {
      case "trampoline":
        return this.trampoline(name);
      case "dispatch":
        // Instance commands unwrap to the chain's top instance (word 1), device ones dispatch as they are.
        return answer.info.level === "instance"
          ? this.stubs.trampolineAddress(answer.info.index, commandDef(answer.info))
          : this.stubs.dispatchAddress(answer.info.index, commandDef(answer.info));
      case "physical_device":
        return this.stubs.trampolineAddress(answer.info.index, commandDef(answer.info));
      case "unknown": {
        if (!inst) return null;
        const unknown = resolveUnknown(inst, name, this.stubs);
        if (!unknown) return null;
        const d = unknownSlotDef(unknown.slot);
        if (!this.stubs.native) return null; // the fallback needs the caller's signature: see getUnknownCommand
        return unknown.kind === "device"
          ? this.stubs.dispatchAddress(unknown.slot, d)
          : this.stubs.trampolineAddress(unknown.slot, d);
      }
      default:
        return null;
    }
  }

  /** `vkGetDeviceProcAddr` (`pName` as a C string or a JavaScript string). */
  getDeviceProcAddr(device: P, pName: P | string): P {
    const name = typeof pName === "string" ? pName : pName === null ? "" : readCString(pName);
    const ld = this.registry.devices.get(key(device));
    if (!ld) {
      this.log.error(`vkGetDeviceProcAddr: invalid VkDevice "0x${key(device).toString(16)}"`);
      return null;
    }
    const answer = deviceProcAddrRule(name, ld.instance.enabledExtensions, ld.enabledExtensions);
    switch (answer.kind) {
      case "trampoline":
        return this.trampoline(name);
      case "device_table":
        return ld.supported.has(answer.info.index) ? ld.table.get(answer.info.index) : null;
      case "unknown":
        // Names the tables do not know: the top of the device chain answers (a layer's or the driver's).
        return ld.top ? ld.top.getDeviceProcAddr(name) : ld.driverProcAddr(name);
      default:
        return null;
    }
  }

  /** The C function pointer of the loader's trampoline for `name`. */
  trampoline(name: string): Deno.PointerObject {
    const primary = COMMANDS[slot(name)]!.name;
    let p = this.#trampolines.get(primary);
    if (!p) {
      if (!isLoaderTrampoline(primary)) throw new RangeError(`No loader trampoline for "${name}"`);
      p = this.#callback(primary, this.trampolineCall(primary), `trampoline ${primary}`);
      this.#trampolines.set(primary, p);
    }
    return p;
  }

  /**
   * The JavaScript body of one of the loader's trampolines (chain/proc_addr.ts LOADER_TRAMPOLINES,
   * chain/trampoline.ts `trampolineBodies`): what its C pointer from {@linkcode Loader.trampoline} runs,
   * and what vulkan.ts binds.
   */
  trampolineCall(name: LoaderTrampolineName): Fn {
    this.#trampolineBodies ??= trampolineBodies(this);
    return this.#trampolineBodies[name];
  }

  /**
   * An unknown command's slot, resolved through this loader's live instances.
   * `undefined` when no driver of any of them knows the name.
   */
  resolveUnknown(
    name: string,
    d: Deno.ForeignFunction,
  ): { kind: "physical_device" | "device"; slot: number } | undefined {
    for (const inst of this.instances) {
      const found = resolveUnknown(inst, name, this.stubs, d);
      if (found) return found;
    }
    return undefined;
  }

  /** True once disposed. */
  get disposed(): boolean {
    return this.#disposed;
  }

  /**
   * Closes the loader's callbacks. Instances still alive keep theirs (a closed callback C still calls
   * would crash the process): destroy them first.
   */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    if (this.instances.size > 0) {
      this.log.warn(
        `Loader disposed with ${this.instances.size} live instance(s): their callbacks stay open`,
      );
      return;
    }
    this.#callbacks.dispose();
  }

  /** Same as {@linkcode Loader.dispose}. */
  [Symbol.dispose](): void {
    this.dispose();
  }
}

/** Makes a packed version (re-exported for tests). */
export const makeApiVersion = makeVersion;

/**
 * What the Khronos loader says about `VkApplicationInfo::apiVersion` (LOADER_BEHAVIOUR.md A06): a value
 * below 1.0 other than 0 is an error (creation continues), a non-zero variant a warning.
 */
function checkApiVersion(log: Logger, version: number): void {
  if (version !== 0 && version < VK_API_VERSION_1_0) {
    log.error(
      `vkCreateInstance: VkApplicationInfo::apiVersion "${version}" is below VK_API_VERSION_1_0 ` +
        "(VUID-VkApplicationInfo-apiVersion-04010): treated as 1.0",
      "validation",
    );
  } else if (version >>> 29 !== 0) {
    log.warn(
      `vkCreateInstance: VkApplicationInfo::apiVersion "${versionText(version)}" has variant "${
        version >>> 29
      }": only variant 0 (Vulkan) is supported`,
      "validation",
    );
  }
}
