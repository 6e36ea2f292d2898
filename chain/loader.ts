/**
 * One loader: its environment snapshot, log and handle maps, the proc-addr queries and the loader's
 * trampolines, over the modules that own each part of the chain.
 *
 * @module
 */

import { COMMAND_INDEX, COMMANDS } from "../vk/generated/commands.ts";
import { type Pointer, readCString } from "../ffi/memory.ts";
import { takeCacheUses } from "../ffi/persistent_cache.ts";
import { commandDef } from "../vk/command_ffi.ts";
import { type EnvironmentSnapshot, snapshotProcessEnvironment } from "../discovery/environment.ts";
import { readLoaderSettings } from "../discovery/settings_file.ts";
import type { DirectDriverMode, DriverEntryPoint } from "../loading/direct_driver.ts";
import { Logger } from "../loading/log.ts";
import { makeApiVersion as makeVersion } from "../vk/api_version.ts";
import { HandleMaps, type LoaderInstance } from "./objects.ts";
import { handleKey, handleText } from "../vk/handle_key.ts";
import { HandleChecker } from "./handle_check.ts";
import { type TrampolineBodies, trampolineBodies, type TrampolineContext } from "./trampoline.ts";
import type { WsiSupport } from "./wsi_interface.ts";
import type { ModuleLayerLoader } from "./layer_chain/module_interface.ts";
import { GlobalCommands } from "./global_commands.ts";
import { createInstance, type InstanceCreationContext } from "./instance_create.ts";
import { LoaderCallbacks } from "./loader_callbacks.ts";
import { LoaderDevices } from "./device.ts";
import {
  deviceProcAddrRule,
  instanceProcAddrRule,
  isLoaderTrampoline,
  type LoaderTrampolineName,
} from "./proc_addr.ts";
import { type ChainStubs, chainStubs } from "./stubs.ts";
import { terminatorBodies } from "./terminator.ts";
import { resolveUnknown, trackUnknownSlots, unknownSlotDef } from "./unknown.ts";

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
  drivers?: readonly (string | DriverEntryPoint)[];
  /** With `drivers`: `exclusive` (default) uses only them, `inclusive` adds them (their devices after the found ones'). */
  driversMode?: DirectDriverMode;
  /** Window-system support (wsi/terminators.ts's `WSI_SUPPORT`); none when left out. */
  wsi?: WsiSupport;
  /** Loads layers whose library is a script module (layers/module_layer.ts); none when left out. */
  moduleLayers?: ModuleLayerLoader;
  /**
   * Checked mode (docs/behaviour.md V08): every handle of every command is checked before the
   * driver is called. Default: `VKDENO_CHECKED` of `env` (on when set and not `0`).
   */
  checked?: boolean;
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
export class Loader implements Disposable, TrampolineContext, InstanceCreationContext {
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
  readonly handleMaps: HandleMaps = new HandleMaps();
  /** Device creation and destruction (chain/device.ts). */
  readonly devices: LoaderDevices;
  /** The global commands and the driver scan (chain/global_commands.ts). */
  readonly global: GlobalCommands;
  /** The C callbacks it hands out: terminators, emulations, trampolines (chain/loader_callbacks.ts). */
  readonly callbacks: LoaderCallbacks;
  /** The handle checks of this loader's commands and helpers (chain/handle_check.ts). */
  readonly checks: HandleChecker;
  #trampolineBodies: TrampolineBodies | undefined;
  #disposed = false;

  /** A loader over `options.env`. */
  constructor(options: LoaderOptions = {}) {
    this.env = options.env ?? snapshotProcessEnvironment();
    this.log = options.logger ??
      new Logger(this.env, { settingsLogMask: readLoaderSettings(this.env).settings?.logMask });
    this.global = new GlobalCommands({
      env: this.env,
      log: this.log,
      drivers: options.drivers,
      driversMode: options.driversMode ?? "exclusive",
      moduleLayers: options.moduleLayers,
    });
    this.wsi = options.wsi;
    this.moduleLayers = options.moduleLayers;
    this.stubs = chainStubs({ native: options.nativeStubs });
    const checkedVar = this.env.vars.VKDENO_CHECKED;
    this.checks = new HandleChecker(
      this.handleMaps,
      options.checked ?? (checkedVar !== undefined && checkedVar !== "" && checkedVar !== "0"),
    );
    trackUnknownSlots(this.handleMaps);
    this.devices = new LoaderDevices({
      handleMaps: this.handleMaps,
      stubs: this.stubs,
      log: this.log,
      wsi: this.wsi,
    });
    this.callbacks = new LoaderCallbacks({
      handleMaps: this.handleMaps,
      stubs: this.stubs,
      log: this.log,
      terminatorBodies: {
        ...terminatorBodies(this.handleMaps),
        vkCreateDevice: (a, b, c, d) =>
          this.devices.terminatorCreateDevice(a as Pointer, b as Pointer, c as Pointer, d as Pointer),
      },
    });
    if (!this.stubs.native) {
      this.log.warn(
        `Native dispatch stubs are unavailable (${
          this.stubs.dispatch.fallbackReason ?? this.stubs.unwrap.fallbackReason
        }): commands go through UnsafeFnPointer`,
        "perf",
      );
    }
    this.#logCacheUses();
  }

  /** Says which persistent cache entries were read or made since the last time (docs/api.md). */
  #logCacheUses(): void {
    for (const text of takeCacheUses()) this.log.info(`Persistent cache ${text}`, "perf");
  }

  // ------------------------------------------------------------------------------------- global commands

  /** `vkEnumerateInstanceVersion` (chain/global_commands.ts). */
  enumerateInstanceVersion(pApiVersion: Pointer): number {
    return this.global.enumerateInstanceVersion(pApiVersion);
  }

  /** `vkEnumerateInstanceLayerProperties` (chain/global_commands.ts). */
  enumerateInstanceLayerProperties(pPropertyCount: Pointer, pProperties: Pointer): number {
    const result = this.global.enumerateInstanceLayerProperties(pPropertyCount, pProperties);
    this.#logCacheUses();
    return result;
  }

  /** `vkEnumerateInstanceExtensionProperties` (chain/global_commands.ts). */
  enumerateInstanceExtensionProperties(
    pLayerName: Pointer,
    pPropertyCount: Pointer,
    pProperties: Pointer,
  ): number {
    const result = this.global.enumerateInstanceExtensionProperties(pLayerName, pPropertyCount, pProperties);
    this.#logCacheUses();
    return result;
  }

  /** `vkCreateInstance` (chain/instance_create.ts). */
  createInstance(pCreateInfo: Pointer, pAllocator: Pointer, pInstance: Pointer): number {
    const result = createInstance(this, pCreateInfo, pAllocator, pInstance);
    this.#logCacheUses();
    return result;
  }

  // ----------------------------------------------------------------------------------------- trampolines

  #instance(handle: Pointer, command: string): LoaderInstance | undefined {
    const inst = this.handleMaps.instances.get(handleKey(handle));
    if (!inst) this.log.error(`${command}: invalid VkInstance "${handleText(handleKey(handle))}"`);
    return inst;
  }

  // ------------------------------------------------------------------------------------------ proc addr

  /** `vkGetInstanceProcAddr` (`pName` as a C string or a JavaScript string). */
  getInstanceProcAddr(instance: Pointer, pName: Pointer | string): Pointer {
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
  getDeviceProcAddr(device: Pointer, pName: Pointer | string): Pointer {
    const name = typeof pName === "string" ? pName : pName === null ? "" : readCString(pName);
    const ld = this.handleMaps.devices.get(handleKey(device));
    if (!ld) {
      this.log.error(`vkGetDeviceProcAddr: invalid VkDevice "${handleText(handleKey(device))}"`);
      return null;
    }
    const answer = deviceProcAddrRule(name, ld.instance.enabledExtensions, ld.enabledExtensions);
    switch (answer.kind) {
      case "trampoline":
        return this.trampoline(name);
      case "device_table":
        return ld.supports(answer.info.index) ? ld.table.get(answer.info.index) : null;
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
    if (!isLoaderTrampoline(primary)) throw new RangeError(`No loader trampoline for "${name}"`);
    return this.callbacks.trampoline(primary, () => this.trampolineCall(primary));
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
    this.checks.close();
    if (this.instances.size > 0) {
      this.log.warn(
        `Loader disposed with ${this.instances.size} live instance(s): their callbacks stay open`,
      );
      return;
    }
    this.callbacks.dispose();
  }

  /** Same as {@linkcode Loader.dispose}. */
  [Symbol.dispose](): void {
    this.dispose();
  }
}

/** Makes a packed version (re-exported for tests). */
export const makeApiVersion = makeVersion;
