/**
 * TS layers at the top of the chain, with no FFI crossing: `installLayers` wraps a command object so that each
 * intercepted command runs the chassis (on the objects of the call's instance or device); every other command
 * is the wrapped object's own function.
 *
 * @example api_dump over the reference loader
 * ```ts ignore
 * import { openLibvulkan } from "../tests/support/libvulkan.ts";
 * import { installLayers } from "./top.ts";
 * using base = openLibvulkan();
 * using vk = installLayers(base, { layers: ["VK_LAYER_VKDENO_api_dump"] });
 * // Calls through `vk` are dumped from its vkCreateInstance on (global commands pass no layer).
 * ```
 *
 * @module
 */
import { COMMAND_INDEX } from "../vk/generated/commands.ts";
import { Arena, type Pointer, readCString } from "../ffi/memory.ts";
import { readStruct } from "../vk/struct_read.ts";
import type { EnvironmentSnapshot } from "../discovery/environment.ts";
import { CallbackOwner } from "../ffi/callback.ts";
import { EntryGuards } from "./_guard.ts";
import { commandInfo } from "./_commands.ts";
import { Chassis, type ChassisOptions, LIFECYCLE_COMMANDS } from "./chassis.ts";
import { callWith } from "./_call.ts";
import type { Dispatch, TsLayer, VulkanCommand } from "./layer.ts";
import type { LayerCommand } from "./command.ts";
import { findLayer, knownLayers, layersFromEnvironment } from "./catalog.ts";
import {
  fillExtensions,
  fillLayers,
  layerProperty,
  namesOf,
  readExtensions,
  readLayers,
  withNames,
} from "./_enumerate.ts";

const COMMAND_NAMES = Object.keys(COMMAND_INDEX);
const COMMAND_LEVEL = new Map(COMMAND_NAMES.map((name) => [name, commandInfo(name).level]));

/** A loader command object: every Vulkan command by name, and maybe `deviceTable(device)`. */
export type CommandObject = object;

/** Options of {@linkcode installLayers}. */
export interface InstallLayersOptions extends ChassisOptions {
  /** Layers to enable now, in order (first closest to the application): objects, or names of `available` or shipped layers. */
  layers?: readonly (TsLayer | string)[];
  /**
   * Enable the TS layers named in this snapshot's `VK_INSTANCE_LAYERS` (after `layers`); the layers'
   * settings variables and `vk_layer_settings.txt` are read from it too (default: this process's).
   */
  env?: EnvironmentSnapshot;
  /**
   * Layers that names (in `layers`, `VK_INSTANCE_LAYERS` and `ppEnabledLayerNames`) may enable besides the
   * shipped ones, e.g. those `importLayerModules(env)` imported.
   */
  available?: readonly TsLayer[];
  /** Dispose the wrapped object too when the wrapper is disposed (default false). */
  disposeBase?: boolean;
}

/** What {@linkcode installLayers} returns: the wrapped commands plus the host's own members. */
export type LayeredCommands<T extends CommandObject> = T & {
  /** The object that was wrapped. */
  readonly base: T;
  /** The chassis running the layers. */
  readonly chassis: Chassis;
  /** Enables one more layer (below those enabled) and re-wraps. */
  enable(layer: TsLayer | string): void;
  /** Disposes the layers (and the base object when `disposeBase`). */
  [Symbol.dispose](): void;
};

/**
 * Wraps `base` so the given TS layers run at the top of the chain.
 *
 * @example A layer that intercepts nothing changes nothing
 * ```ts
 * import { installLayers, defineLayer } from "@vkdeno/loader/layers";
 * const base = { vkCmdSetLineWidth: (_cb: Deno.PointerValue, _w: number) => {} };
 * const idle = defineLayer({ name: "VK_LAYER_x_idle", description: "idle", create: () => ({ intercepts: {} }) });
 * using vk = installLayers(base, { layers: [idle] });
 * console.log(vk.vkCmdSetLineWidth === base.vkCmdSetLineWidth); // true
 * ```
 * @throws {TypeError} If a layer name is not registered.
 */
export function installLayers<T extends CommandObject>(
  base: T,
  options: InstallLayersOptions = {},
): LayeredCommands<T> {
  const source = base as unknown as Record<string, unknown>;
  const chassis = new Chassis([], base as unknown as Dispatch, options);
  // The host's commands live on its prototype, a table rebuilt whole when a layer is enabled: V8 keeps a
  // freshly built object in fast mode (loads through a stable prototype cost what own loads do), where
  // redefining hundreds of properties in place would be slow and leave a slow dictionary-mode object.
  const host: Record<string | symbol, unknown> = {};
  const resolve = (layer: TsLayer | string): TsLayer => {
    if (typeof layer !== "string") return layer;
    const found = findLayer(layer, options.available);
    if (!found) {
      throw new TypeError(`Cannot enable layer "${layer}": no TS layer of that name is available or shipped`);
    }
    return found;
  };
  /** Device tables of the base, and the objects handed out for them. */
  const tables = new Map<object, Record<string, unknown>>();
  let intercepted = new Set<string>();

  const buildTable = (from: Record<string, unknown>, names: Iterable<string>) => {
    const table: Record<string, unknown> = {};
    // Until an instance is made through the host (or a call adopts a handle made before), no validation
    // object exists to say what it intercepts: commands on handles wait for the first call to make one.
    const pending = chassis.instances.length === 0 && chassis.adopted === null;
    for (const name of names) {
      // A command the wrapped object lacks stays absent, intercepted or not.
      const found = findDescriptor(from, name);
      if (found === undefined || ("value" in found && typeof found.value !== "function")) continue;
      // Global commands other than vkCreateInstance never pass through a layer (docs/layers.md).
      const layered = LIFECYCLE_COMMANDS.includes(name) || COMMAND_LEVEL.get(name) !== "global";
      if (layered && intercepted.has(name)) {
        define(table, name, { value: chassis.wrap(name, () => from[name] as VulkanCommand) });
      } else if (layered && pending) {
        define(table, name, {
          value: (...args: unknown[]) => {
            chassis.objectsFor(COMMAND_LEVEL.get(name)!, args[0]);
            return callWith((host as Record<string, unknown>)[name] as VulkanCommand, args);
          },
        });
      } else if ("value" in found) {
        define(table, name, { value: found.value });
      } else {
        // Not bound yet (vkdeno binds stubs on first read): read it once, then hand out that function.
        let fn: unknown;
        define(table, name, { get: () => fn ??= from[name] });
      }
    }
    // Read-only, non-configurable: V8 treats loads from it as constants and can inline the fast call.
    return Object.freeze(table);
  };
  const rewrap = () => {
    intercepted = chassis.intercepted();
    Object.setPrototypeOf(host, buildTable(source, COMMAND_NAMES));
    for (const [table, wrapped] of tables) {
      Object.setPrototypeOf(wrapped, buildTable(table as Record<string, unknown>, Object.keys(table)));
    }
  };
  chassis.onChange(rewrap);
  // Live instances and devices get the layer's objects; the chassis then calls rewrap.
  const enable = (layer: TsLayer | string) => chassis.add(resolve(layer));

  for (const layer of options.layers ?? []) chassis.add(resolve(layer));
  if (options.env) {
    for (const layer of layersFromEnvironment(options.env, options.available)) {
      if (!chassis.layers.some((l) => l.name === layer.name)) chassis.add(layer);
    }
  }
  rewrap();

  const arena = new Arena();
  const callbacks = new CallbackOwner();
  const guards = new EntryGuards(() => chassis.layers);
  defineHostCommands(host, {
    arena,
    callbacks,
    guards,
    chassis,
    intercepted: () => intercepted,
    // The layers enabled here count as available: ppEnabledLayerNames may name them.
    known: () => knownLayers([...chassis.layers, ...(options.available ?? [])]),
    enabled: () => chassis.layers,
    enable: (name) => {
      if (!chassis.layers.some((l) => l.name === name)) enable(name);
    },
  });
  if (typeof source.deviceTable === "function") {
    host.deviceTable = (device: Deno.PointerValue) => {
      const table = (source.deviceTable as (d: Deno.PointerValue) => object)(device);
      let wrapped = tables.get(table);
      if (!wrapped) {
        wrapped = Object.create(buildTable(table as Record<string, unknown>, Object.keys(table))) as Record<
          string,
          unknown
        >;
        tables.set(table, wrapped);
      }
      return wrapped;
    };
  }
  if (typeof source.getUnknownCommand === "function") {
    // The layers' own commands run in JavaScript here, with no FFI crossing; others are the base's.
    host.getUnknownCommand = (name: string, def: Deno.ForeignFunction) => {
      const made = chassis.commands().get(name);
      return made === undefined
        ? (source.getUnknownCommand as (n: string, d: Deno.ForeignFunction) => unknown)(name, def)
        : chassis.provider(made);
    };
  }
  forwardOthers(host, base);
  Object.defineProperty(host, "base", { value: base });
  Object.defineProperty(host, "chassis", { value: chassis });
  Object.defineProperty(host, "enable", { value: enable });
  let disposed = false;
  host[Symbol.dispose] = () => {
    if (disposed) return;
    disposed = true;
    chassis.dispose();
    guards[Symbol.dispose]();
    callbacks.dispose();
    arena.dispose();
    if (options.disposeBase) (base as Partial<Disposable>)[Symbol.dispose]?.();
  };
  return host as LayeredCommands<T>;
}

function define(target: object, name: string, descriptor: PropertyDescriptor): void {
  Object.defineProperty(target, name, { ...descriptor, configurable: true, enumerable: true });
}

/** The descriptor of `name` on `object` or its prototype chain. */
function findDescriptor(object: object, name: string): PropertyDescriptor | undefined {
  for (let o: object | null = object; o !== null; o = Object.getPrototypeOf(o)) {
    const d = Object.getOwnPropertyDescriptor(o, name);
    if (d !== undefined) return d;
  }
  return undefined;
}

/** Non-command members of the base (vkdeno's `loader`, `getUnknownCommand`, ...), read through. */
function forwardOthers(host: Record<string | symbol, unknown>, base: object): void {
  const seen = new Set<string>(["constructor", "deviceTable", "dispose"]);
  for (let o: object | null = base; o !== null && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    for (const key of Object.getOwnPropertyNames(o)) {
      if (seen.has(key) || key.startsWith("vk") || key in host) continue;
      seen.add(key);
      Object.defineProperty(host, key, {
        configurable: true,
        get() {
          const v = (base as Record<string, unknown>)[key];
          return typeof v === "function" ? v.bind(base) : v;
        },
      });
    }
  }
}

interface HostState {
  readonly arena: Arena;
  /** Owns the C entry points handed out by the host's `vkGet*ProcAddr`. */
  readonly callbacks: CallbackOwner;
  /** Thread guards in front of those entry points. */
  readonly guards: EntryGuards;
  /** The chassis: the commands the layers provide. */
  readonly chassis: Chassis;
  /** Commands the chassis intercepts now. */
  intercepted(): ReadonlySet<string>;
  /** Every TS layer that can be enabled by name. */
  known(): readonly TsLayer[];
  /** The enabled ones, in order. */
  enabled(): readonly TsLayer[];
  enable(name: string): void;
}

/**
 * The host's own commands, in front of its table: TS layers are listed by the enumeration commands,
 * enabled from `ppEnabledLayerNames`, and their names and extensions kept from the loader below.
 */
function defineHostCommands(host: Record<string | symbol, unknown>, state: HostState): void {
  const next = (name: string) => (Object.getPrototypeOf(host) as Record<string, VulkanCommand>)[name]!;
  const named = (pLayerName: Pointer) =>
    pLayerName === null
      ? undefined
      : [...state.enabled(), ...state.known()].find((l) => l.name === readCString(pLayerName));
  const entries = new Map<string, (forward: Deno.PointerValue) => Deno.PointerObject>();
  /**
   * A C entry point into the host's current function for `name` (so C callers see the TS layers); other
   * threads' calls go down to `below`, the function the wrapped object handed out.
   */
  const entry = (command: string | LayerCommand, below: Deno.PointerValue): Deno.PointerObject => {
    const name = typeof command === "string" ? command : command.name;
    let make = entries.get(name);
    if (!make) {
      make = state.guards.command(
        state.callbacks,
        command,
        typeof command === "string"
          ? (...args: unknown[]) => (host[name] as VulkanCommand)(...args)
          : state.chassis.provider(command),
        `TS layers ${name}`,
      );
      entries.set(name, make);
    }
    return make(below);
  };
  const procAddr =
    (command: "vkGetInstanceProcAddr" | "vkGetDeviceProcAddr") =>
    (handle: Pointer, pName: Pointer | string) => {
      const found = next(command)(handle, pName) as Deno.PointerValue;
      const name = typeof pName === "string" ? pName : readCString(pName);
      // A command the layers add: theirs alone (docs/behaviour.md V22).
      const made = state.chassis.commands().get(name);
      if (made !== undefined && handle !== null) {
        return command === "vkGetInstanceProcAddr" || made.level === "device" ? entry(made, null) : null;
      }
      // A command the layers provide is returned even where the loader below has none.
      return (found !== null || state.chassis.provides(name)) && state.intercepted().has(name) &&
          name in COMMAND_INDEX
        ? entry(name, found)
        : found;
    };
  const own = {
    vkGetInstanceProcAddr: procAddr("vkGetInstanceProcAddr"),
    vkGetDeviceProcAddr: procAddr("vkGetDeviceProcAddr"),
    vkEnumerateInstanceLayerProperties(pCount: Pointer, pProps: Pointer): number {
      const below = readLayers(next("vkEnumerateInstanceLayerProperties"), []);
      const ours = state.known().filter((l, i, all) =>
        all.findIndex((o) => o.name === l.name) === i && !below.some((b) => b.layerName === l.name)
      );
      return fillLayers(pCount, pProps, [...ours.map(layerProperty), ...below]);
    },
    vkEnumerateInstanceExtensionProperties(pLayerName: Pointer, pCount: Pointer, pProps: Pointer): number {
      const layer = named(pLayerName);
      if (layer) return fillExtensions(pCount, pProps, layer.instanceExtensions ?? []);
      return next("vkEnumerateInstanceExtensionProperties")(pLayerName, pCount, pProps);
    },
    vkEnumerateDeviceLayerProperties(physicalDevice: Pointer, pCount: Pointer, pProps: Pointer): number {
      const below = readLayers(next("vkEnumerateDeviceLayerProperties"), [physicalDevice]);
      return fillLayers(pCount, pProps, [...state.enabled().map(layerProperty), ...below]);
    },
    vkEnumerateDeviceExtensionProperties(
      physicalDevice: Pointer,
      pLayerName: Pointer,
      pCount: Pointer,
      pProps: Pointer,
    ): number {
      const layer = named(pLayerName);
      if (layer) return fillExtensions(pCount, pProps, layer.deviceExtensions ?? []);
      const below = readExtensions(next("vkEnumerateDeviceExtensionProperties"), [
        physicalDevice,
        pLayerName,
      ]);
      const ours = state.enabled().flatMap((l) => l.deviceExtensions ?? [])
        .filter((e) => !below.some((b) => b.name === e.name));
      return fillExtensions(pCount, pProps, [...below, ...ours]);
    },
    vkCreateInstance(pCreateInfo: Pointer, pAllocator: Pointer, pInstance: Pointer): number {
      let info = pCreateInfo;
      if (pCreateInfo !== null) {
        const raw = readStruct("VkInstanceCreateInfo", pCreateInfo);
        const layers = namesOf(raw, "enabledLayerCount", "ppEnabledLayerNames");
        const ours = layers.filter((n) => state.known().some((l) => l.name === n));
        for (const name of ours) state.enable(name);
        // Extensions the enabled TS layers implement are theirs: the loader below does not know them.
        const served = new Set(state.enabled().flatMap((l) => l.instanceExtensions ?? []).map((e) => e.name));
        const extensions = namesOf(raw, "enabledExtensionCount", "ppEnabledExtensionNames");
        if (ours.length > 0 || extensions.some((e) => served.has(e))) {
          info = withNames(state.arena, "VkInstanceCreateInfo", pCreateInfo, {
            layers: layers.filter((n) => !ours.includes(n)),
            extensions: extensions.filter((e) => !served.has(e)),
          });
        }
      }
      return next("vkCreateInstance")(info, pAllocator, pInstance);
    },
    vkCreateDevice(
      physicalDevice: Pointer,
      pCreateInfo: Pointer,
      pAllocator: Pointer,
      pDevice: Pointer,
    ): number {
      let info = pCreateInfo;
      const served = new Set(state.enabled().flatMap((l) => l.deviceExtensions ?? []).map((e) => e.name));
      if (pCreateInfo !== null && served.size > 0) {
        const raw = readStruct("VkDeviceCreateInfo", pCreateInfo);
        const extensions = namesOf(raw, "enabledExtensionCount", "ppEnabledExtensionNames");
        if (extensions.some((e) => served.has(e))) {
          info = withNames(state.arena, "VkDeviceCreateInfo", pCreateInfo, {
            layers: namesOf(raw, "enabledLayerCount", "ppEnabledLayerNames"),
            extensions: extensions.filter((e) => !served.has(e)),
          });
        }
      }
      return next("vkCreateDevice")(physicalDevice, info, pAllocator, pDevice);
    },
  };
  for (const [name, fn] of Object.entries(own)) {
    Object.defineProperty(host, name, { value: fn, configurable: true, enumerable: true, writable: true });
  }
}
