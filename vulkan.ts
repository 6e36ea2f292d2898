/**
 * The public command object: every Vulkan command by its name with its C parameter list, bound on first use;
 * device-level commands are the native dispatch stubs themselves.
 *
 * @module
 */

import { COMMAND_INDEX, COMMANDS } from "./vk/generated/commands.ts";
import type { VkCommands, VkDeviceCommandName } from "./vk/generated/vk_commands.ts";
import type { VkDevice } from "./vk/generated/vk_types.ts";
import { type EnvironmentSnapshot, snapshotProcessEnvironment } from "./discovery/environment.ts";
import type { DriverEntryPoint } from "./loading/direct_driver.ts";
import { WSI_SUPPORT } from "./wsi/terminators.ts";
import { onDemandModuleLayers } from "./layers/on_demand.ts";
import type { NativeLayerBridgeOptions } from "./layers/native.ts";
import type { TsLayer } from "./layers/layer.ts";
import type { LoaderDevice } from "./chain/objects.ts";
import { handleKey, handleText } from "./vk/handle_key.ts";
import type { VkCommandName as VulkanCommandName } from "./vk/generated/vk_commands.ts";
import { Loader } from "./chain/loader.ts";
import type { Logger } from "./loading/log.ts";
import { deviceProcAddrRule, isLoaderTrampoline } from "./chain/proc_addr.ts";
import type { VulkanCommand } from "./chain/stubs.ts";
import { stampingTrampolines } from "./chain/trampoline.ts";
import { DiscoveryWatcher, type DiscoveryWatchOptions } from "./discovery/watch.ts";
import { waitForDevices, type WaitForDevicesOptions } from "./chain/wait_devices.ts";
import { commandDef } from "./vk/command_ffi.ts";
import { HANDLE_CHECKS, type HandleChecks, registerCommand } from "./vk/handle_check_interface.ts";

export type { DriverEntryPoint, VulkanCommand };

/**
 * Every command of vk.xml (names and aliases) with its typed signature (generated from vk.xml into
 * `vk/generated/vk_commands.ts`): spec parameter names, branded handles, enums as unions of their values,
 * flags as numbers, 64-bit values as bigints, pointers as `Deno.PointerValue`.
 */
export type VulkanCommands = VkCommands;

export type { VulkanCommandName };

/**
 * Device-level commands of one device (Volk-style), typed: a command is present when the device provides
 * it (its driver returned it and its extension or version is enabled), absent (undefined) otherwise.
 */
export type DeviceTable = { readonly [K in VkDeviceCommandName]?: VkCommands[K] };

/** The function a {@linkcode Vulkan.getUnknownCommand} call with FFI signature `D` returns. */
export type UnknownCommand<D extends Deno.ForeignFunction> = (
  ...args: Deno.ToNativeParameterTypes<D["parameters"]>
) => Deno.FromNativeResultType<D["result"]>;

/** Options of {@linkcode Vulkan.load}. */
export interface VulkanOptions {
  /** The environment driver discovery reads; default a snapshot of this process. */
  env?: EnvironmentSnapshot;
  /** The log; default one filtered by `VK_LOADER_DEBUG` from `env` or the settings file's `stderr_log`. */
  logger?: Logger;
  /** `false` forces the `UnsafeFnPointer` fallback (only effective before the process's first load). */
  nativeStubs?: boolean;
  /**
   * Exactly these drivers: library paths (`.so`, loaded and negotiated as a manifest's library would be),
   * driver manifest paths (`.json`), or driver objects that give their `vk_icdGetInstanceProcAddr` (the
   * testing kit's mock drivers, `@vkdeno/loader/testing`). With the default `driversMode: "exclusive"` nothing is discovered from
   * the system (no search folders, no driver variables); `"inclusive"` adds them to the found drivers, and
   * their devices enumerate after the found drivers' ones (when device sorting is off or ties).
   */
  drivers?: readonly (string | DriverEntryPoint)[];
  /** How `drivers` mix with discovered ones (default `"exclusive"`). */
  driversMode?: "exclusive" | "inclusive";
  /**
   * The TS layers that layer manifests naming a `.ts` module stand for: a manifest enabled in the chain
   * loads the layer of its name from this list (the shipped layers are always there). Loading is
   * synchronous, so the modules are imported first: `(await importLayerModules(env)).layers` from
   * `@vkdeno/loader/layers`. Only this object's chains see them.
   */
  layerModules?: readonly TsLayer[];
  /** For layers whose manifest's `library_path` names a `.ts` module: where their messages and output go, and their settings. */
  moduleLayerOptions?: NativeLayerBridgeOptions;
  /**
   * Checked mode: every command checks each of its handles (dispatchable or not) against this loader's
   * handle maps (made, not destroyed, this device's) before the driver is called, and throws a `TypeError`
   * naming the command, the parameter and what is wrong. Off by default (device commands are then one
   * native call, unchecked); default: the `VKDENO_CHECKED` variable of `env` (on when set and not `0`).
   * Costs a JavaScript call per command (BENCHMARKS.md).
   */
  checked?: boolean;
}

const loaders = new WeakMap<Vulkan, Loader>();

/**
 * The loader behind a command object (environment, log, stubs, live instances): for tests and tools.
 *
 * @example Usage
 * ```ts ignore
 * import { loaderOf, Vulkan } from "./vulkan.ts";
 * using vk = Vulkan.load();
 * console.log(loaderOf(vk).instances.size); // 0
 * ```
 */
export function loaderOf(vk: Vulkan): Loader {
  return loaders.get(vk)!;
}

/**
 * The loader's command object. Get one with {@linkcode Vulkan.load}.
 *
 * @example Instance version and instance creation
 * ```ts ignore
 * import { Vulkan, Arena } from "@vkdeno/loader";
 * using vk = Vulkan.load();
 * using arena = new Arena();
 * const version = arena.alloc(4);
 * vk.vkEnumerateInstanceVersion(arena.pointer(version));
 * ```
 */
export class Vulkan implements Disposable {
  #loader: Loader;
  #commands = new Map<string, VulkanCommand>();
  #tables = new WeakMap<LoaderDevice, DeviceTable>();
  #options: VulkanOptions;
  #watchers = new Set<DiscoveryWatcher>();
  /** Every device table handed out (emptied at dispose). */
  #tableList = new Set<Record<string, VulkanCommand>>();
  #disposed = false;

  private constructor(loader: Loader, options: VulkanOptions) {
    this.#loader = loader;
    this.#options = options;
    loaders.set(this, loader);
  }

  /**
   * Makes a loader over `options.env`; the returned object has every Vulkan command as a method.
   *
   * @example Usage
   * ```ts ignore
   * import { Vulkan } from "@vkdeno/loader";
   * using vk = Vulkan.load({ env: { vars: { VK_DRIVER_FILES: "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json" }, elevated: false } });
   * ```
   */
  static load(options?: VulkanOptions): Vulkan & VulkanCommands {
    options ??= {};
    const env = options.env ?? snapshotProcessEnvironment();
    return new Vulkan(
      new Loader({
        ...options,
        env,
        wsi: WSI_SUPPORT,
        // TS layers read their settings' variables and file from the loader's environment (LS04, LS05).
        moduleLayers: onDemandModuleLayers(
          { env, ...options.moduleLayerOptions },
          options.layerModules ?? [],
        ),
      }),
      options,
    ) as Vulkan & VulkanCommands;
  }

  /** True when commands go through native stubs (false: the `UnsafeFnPointer` fallback). */
  get native(): boolean {
    return this.#loader.stubs.native;
  }

  /** True when commands go through checked mode (see {@linkcode VulkanOptions.checked}). */
  get checked(): boolean {
    return this.#loader.checks.checked;
  }

  /** The handle checks `create`, `enumerate`, `VkScope` and the idiomatic API run (vk/handle_check_interface.ts). */
  get [HANDLE_CHECKS](): HandleChecks {
    return this.#loader.checks;
  }

  #command(name: string): VulkanCommand {
    let fn = this.#commands.get(name);
    if (fn) return fn;
    if (this.#disposed) return refused(name);
    const info = COMMANDS[COMMAND_INDEX[name]!]!;
    const l = this.#loader;
    const stubs = l.stubs;
    const checks = l.checks;
    let js = true; // whether the bound function runs JavaScript (a trampoline body) rather than one stub
    switch (info.name) {
      case "vkGetDeviceQueue":
      case "vkGetDeviceQueue2":
        // The device table's slot stamps natively where it can (chain/stubs.ts stampedQueueSlots): then
        // the command is a plain dispatch stub, as fast as libvulkan's trampoline.
        js = !stubs.stampedQueueSlots.has(info.index);
        fn = js
          ? stampingTrampolines(stubs)[info.name]
          : stubs.bindDispatch(info.index, commandDef(info)) as VulkanCommand;
        break;
      case "vkAllocateCommandBuffers":
        // Stub call then native stamping: no JavaScript touches memory (chain/trampoline.ts).
        fn = stampingTrampolines(stubs)[info.name];
        break;
      default:
        if (isLoaderTrampoline(info.name)) {
          fn = l.trampolineCall(info.name) as VulkanCommand;
          break;
        }
        js = false;
        if (info.level === "physical_device") {
          fn = stubs.bindTrampoline(info.index, commandDef(info)) as VulkanCommand;
        } else if (info.level === "instance") {
          // Word 1 of the loader's VkInstance is the handle the top of the chain knows (a layer may wrap it).
          fn = stubs.bindTrampoline(info.index, commandDef(info)) as VulkanCommand;
        } else if (info.level === "device") {
          const mayCallJs = WSI_SUPPORT.callsJavaScript(info.name);
          fn = stubs.bindDispatch(info.index, commandDef(info), mayCallJs) as VulkanCommand;
        } else {
          throw new TypeError(`Cannot bind "${name}": unknown dispatch level "${info.level}"`);
        }
    }
    // The commands that run JavaScript anyway check their handles; checked mode puts every command but
    // the proc-addr queries behind the checks (chain/handle_check.ts). Native stubs stay bare otherwise.
    // The checks' errors name the command as called (an alias too).
    const bare = fn;
    if (!PROC_ADDR.has(info.name) && (checks.checked || js)) {
      fn = checks.wrap(name, fn as (...a: unknown[]) => unknown) as VulkanCommand;
    }
    registerCommand(fn, info.name, checks, fn !== bare || PROC_ADDR.has(info.name));
    this.#commands.set(name, fn);
    return fn;
  }

  /**
   * The device-level commands `device` provides (its driver returned them and their extension is
   * enabled), Volk-style. The functions are the same as this object's: native stubs, so a call costs
   * one stub jump; the table only tells which commands exist for the device.
   *
   * @example Usage
   * ```ts ignore
   * const d = vk.deviceTable(device);
   * d.vkCmdDraw?.(commandBuffer, 3, 1, 0, 0); // typed; absent when the device lacks it
   * ```
   * @throws {TypeError} If `device` is not a device this object's loader created.
   */
  deviceTable(device: VkDevice): DeviceTable {
    const ld = this.#loader.handleMaps.devices.get(handleKey(device));
    if (!ld) {
      throw new TypeError(`Cannot make a device table: "${handleText(handleKey(device))}" is not a VkDevice`);
    }
    const cached = this.#tables.get(ld);
    if (cached) return cached;
    const table: Record<string, VulkanCommand> = {};
    const instanceExtensions = ld.instance.enabledExtensions;
    for (const [name, index] of Object.entries(COMMAND_INDEX)) {
      const info = COMMANDS[index]!;
      if (info.level !== "device") continue;
      const answer = deviceProcAddrRule(name, instanceExtensions, ld.enabledExtensions);
      if (answer.kind === "null" || (answer.kind === "device_table" && !ld.supports(index))) continue;
      Object.defineProperty(table, name, {
        enumerable: true,
        configurable: true,
        get: () => {
          const fn = this.#command(name);
          Object.defineProperty(table, name, { value: fn, enumerable: true });
          return fn;
        },
      });
    }
    this.#tables.set(ld, table);
    this.#tableList.add(table);
    return table as unknown as DeviceTable; // a direct cast compares every command (docs/performance.md)
  }

  /**
   * A command the generated tables do not know, resolved through the drivers of this loader's live
   * instances and bound to a reserved stub slot with `def` (its FFI signature). `null` when no driver
   * knows it. Known names give the regular command.
   *
   * @example Usage
   * ```ts ignore
   * const fn = vk.getUnknownCommand("vkGetPhysicalDeviceFooVENDOR", { parameters: ["pointer", "u32"], result: "u32" });
   * ```
   */
  getUnknownCommand<const D extends Deno.ForeignFunction>(name: string, def: D): UnknownCommand<D> | null {
    if (name in COMMAND_INDEX) return this.#command(name);
    const cached = this.#commands.get(name);
    if (cached) return cached;
    // Only the signature: a `name` member (a layer's command declaration has one) would make Deno.dlopen
    // look the stub up by that name.
    def = { parameters: def.parameters, result: def.result } as D;
    const found = this.#loader.resolveUnknown(name, def);
    if (!found) return null;
    const stubs = this.#loader.stubs;
    const fn =
      (found.kind === "physical_device"
        ? stubs.bindTrampoline(found.slot, def)
        : stubs.bindDispatch(found.slot, def)) as VulkanCommand;
    this.#commands.set(name, fn);
    return fn;
  }

  /**
   * Changes to the drivers, layers and loader settings this object's environment leads to: an async
   * iterable of batches (`{ kind, change, path }`: a driver or layer manifest, driver package or settings
   * file added, removed or edited), debounced. It never keeps the process alive by itself, and stops
   * when the iteration ends or this object is disposed (discovery/watch.ts).
   *
   * @example Usage
   * ```ts ignore
   * import { Vulkan } from "@vkdeno/loader";
   * using vk = Vulkan.load();
   * for await (const changes of vk.watch()) console.log(changes);
   * ```
   */
  watch(options?: DiscoveryWatchOptions): DiscoveryWatcher {
    options ??= {};
    const watcher = new DiscoveryWatcher(this.#loader.env, options);
    this.#watchers.add(watcher);
    return watcher;
  }

  /**
   * Resolves `true` as soon as an instance created now would see at least one physical device (at once
   * when one is there), `false` after `timeoutMs`. Instances made earlier keep their device lists
   * (chain/wait_devices.ts).
   *
   * @example Usage
   * ```ts ignore
   * import { Vulkan } from "@vkdeno/loader";
   * using vk = Vulkan.load();
   * if (!(await vk.waitForDevices({ timeoutMs: 10_000 }))) console.log("no GPU yet");
   * ```
   */
  waitForDevices(options?: WaitForDevicesOptions): Promise<boolean> {
    options ??= {};
    const { env: _env, logger: _logger, ...rest } = this.#options;
    const stop = new AbortController();
    const watcher = { close: () => stop.abort() } as DiscoveryWatcher;
    this.#watchers.add(watcher);
    const signal = options.signal === undefined
      ? stop.signal
      : AbortSignal.any([stop.signal, options.signal]);
    return waitForDevices({ ...rest, env: this.#loader.env }, { ...options, signal }).finally(() =>
      this.#watchers.delete(watcher)
    );
  }

  /**
   * Ends this loader (docs/behaviour.md V09): every command of this object throws from now on,
   * and its callbacks close. Instances and devices still alive are not destroyed (the application owns
   * them): one warning names them, and the callbacks they need stay open. Destroy them first.
   */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const w of this.#watchers) w.close();
    this.#watchers.clear();
    const live = [...this.#loader.instances].map((inst) => {
      const devices = [...inst.devices].map((d) => `VkDevice 0x${d.address.toString(16)}`);
      return `VkInstance 0x${inst.address.toString(16)}${devices.length ? ` (${devices.join(", ")})` : ""}`;
    });
    if (live.length > 0) {
      console.warn(
        `Vulkan.dispose: disposed with live objects: ${live.join(", ")}; they are not destroyed, and ` +
          `this object's commands now throw: destroy them before disposing`,
      );
    }
    // Commands already bound (own properties, device tables) are replaced by ones that refuse.
    for (const name of this.#commands.keys()) {
      Object.defineProperty(this, name, { value: refused(name), enumerable: false, configurable: true });
    }
    for (const table of this.#tableList) {
      for (const name of Object.keys(table)) {
        Object.defineProperty(table, name, { value: refused(name), enumerable: true, configurable: true });
      }
    }
    this.#tableList.clear();
    this.#commands.clear();
    this.#loader.dispose();
  }

  /** Same as {@linkcode Vulkan.dispose}. */
  [Symbol.dispose](): void {
    this.dispose();
  }

  static {
    // Commands are found through a proxy at the end of the prototype chain instead of 842 getters defined
    // at import: a property the object lacks reaches the proxy, which binds the command (when the name is
    // one) and defines it as an own data property, so later reads never leave the object.
    const commands = new Proxy(Object.create(Object.getPrototypeOf(Vulkan.prototype)) as object, {
      get(target, name, receiver) {
        if (typeof name !== "string" || !Object.hasOwn(COMMAND_INDEX, name) || !(#loader in receiver)) {
          return Reflect.get(target, name, receiver);
        }
        const fn = (receiver as Vulkan).#command(name);
        Object.defineProperty(receiver, name, { value: fn, enumerable: false, configurable: true });
        return fn;
      },
      has: (target, name) =>
        (typeof name === "string" && Object.hasOwn(COMMAND_INDEX, name)) || name in target,
      // Code that walks the prototype chain for descriptors (layers/top.ts) sees each command as an accessor,
      // as it would a getter defined per name.
      getOwnPropertyDescriptor: (target, name) =>
        typeof name === "string" && Object.hasOwn(COMMAND_INDEX, name)
          ? {
            get(this: Vulkan) {
              return (this as unknown as Record<string, unknown>)[name];
            },
            enumerable: false,
            configurable: true,
          }
          : Reflect.getOwnPropertyDescriptor(target, name),
    });
    Object.setPrototypeOf(Vulkan.prototype, commands);
  }
}

/** The proc-addr queries: answer for any handle as the Khronos loader does (NULL), never checked. */
const PROC_ADDR = new Set(["vkGetInstanceProcAddr", "vkGetDeviceProcAddr"]);

/** A command of a disposed `Vulkan`: it throws, naming itself. */
function refused(name: string): VulkanCommand {
  const fn = () => {
    throw new TypeError(`${name}: this Vulkan loader is disposed`);
  };
  return fn as unknown as VulkanCommand;
}

/**
 * Same as {@linkcode Vulkan.load}, kept for scripts written against it.
 *
 * @deprecated Use {@linkcode Vulkan.load}, the one documented way to load.
 *
 * @example Usage
 * ```ts ignore
 * import { loadVulkan } from "@vkdeno/loader";
 * using vk = loadVulkan();
 * ```
 */
export function loadVulkan(options?: VulkanOptions): Vulkan & VulkanCommands {
  options ??= {};
  return Vulkan.load(options);
}
