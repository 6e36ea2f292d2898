/**
 * TS layers at the top of the chain, with no FFI crossing: {@linkcode installLayers} wraps a loader's
 * command object (vkdeno's `vk`, or `tools/libvulkan.ts`'s) so that each intercepted command runs the
 * chassis, then the wrapped object's function (the native stub). Every command no layer intercepts is
 * the very same function object as on the wrapped object: it costs nothing.
 *
 * Layers are enabled by name like any layer: in `options.layers`, in `VK_INSTANCE_LAYERS` (given through
 * `options.env`), or in `VkInstanceCreateInfo.ppEnabledLayerNames`, where the wrapper removes the names
 * it serves before the loader sees them. A layer enabled at `vkCreateInstance` re-wraps the object's
 * commands and device tables made since; functions the application copied out earlier are not re-wrapped.
 *
 * @example api_dump over the reference loader
 * ```ts ignore
 * import { openLibvulkan } from "../tools/libvulkan.ts";
 * import { installLayers } from "./top.ts";
 * using base = openLibvulkan();
 * using vk = installLayers(base, { layers: ["VK_LAYER_VKDENO_api_dump"] });
 * vk.vkEnumerateInstanceVersion(Deno.UnsafePointer.of(new Uint32Array(1)));
 * ```
 *
 * @module
 */
import { COMMAND_INDEX } from "../ffi/generated/commands.ts";
import { Arena, readCString, readPointer } from "../ffi/memory.ts";
import { readStruct, writeStruct } from "../ffi/structs.ts";
import type { EnvironmentSnapshot } from "../discovery/environment.ts";
import { Chassis, type ChassisOptions } from "./chassis.ts";
import type { Dispatch, TsLayer, VulkanCommand } from "./layer.ts";
import { findLayer, layersFromEnvironment } from "./registry.ts";

const COMMAND_NAMES = Object.keys(COMMAND_INDEX).filter((name) => name !== "vkCreateInstance");

/** A loader command object: every Vulkan command by name, and maybe `deviceTable(device)`. */
export type CommandObject = object;

/** Options of {@linkcode installLayers}. */
export interface InstallLayersOptions extends ChassisOptions {
  /** Layers to enable now, in order (first closest to the application): objects or registered names. */
  layers?: readonly (TsLayer | string)[];
  /** Enable the TS layers named in this snapshot's `VK_INSTANCE_LAYERS` (after `layers`). */
  env?: EnvironmentSnapshot;
  /** Layers `ppEnabledLayerNames` may enable besides the registered ones. */
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
 * import { installLayers } from "./top.ts";
 * import { defineLayer } from "./layer.ts";
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
    const found = options.available?.find((l) => l.name === layer) ?? findLayer(layer);
    if (!found) throw new TypeError(`Cannot enable layer "${layer}": no TS layer of that name is registered`);
    return found;
  };
  /** Device tables of the base, and the objects handed out for them. */
  const tables = new Map<object, Record<string, unknown>>();
  let intercepted = new Set<string>();

  const buildTable = (from: Record<string, unknown>, names: Iterable<string>) => {
    const table: Record<string, unknown> = {};
    for (const name of names) {
      if (intercepted.has(name)) {
        define(table, name, { value: chassis.wrap(name, () => from[name] as VulkanCommand) });
        continue;
      }
      const found = findDescriptor(from, name);
      if (found === undefined) continue;
      if ("value" in found) {
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
    // The host's own vkCreateInstance calls the chassis for it.
    Object.setPrototypeOf(host, buildTable(source, COMMAND_NAMES));
    for (const [table, wrapped] of tables) {
      Object.setPrototypeOf(wrapped, buildTable(table as Record<string, unknown>, Object.keys(table)));
    }
    createInstance = chassis.intercepted().has("vkCreateInstance")
      ? chassis.wrap("vkCreateInstance", () => source.vkCreateInstance as VulkanCommand)
      : null;
  };
  let createInstance: VulkanCommand | null = null;
  const enable = (layer: TsLayer | string) => {
    chassis.add(resolve(layer));
    rewrap();
  };

  for (const layer of options.layers ?? []) chassis.add(resolve(layer));
  if (options.env) {
    for (const layer of layersFromEnvironment(options.env)) {
      if (!chassis.layers.some((l) => l.name === layer.name)) chassis.add(layer);
    }
  }
  rewrap();

  const arena = new Arena();
  // vkCreateInstance is always the host's: it takes the TS layer names out of ppEnabledLayerNames.
  Object.defineProperty(host, "vkCreateInstance", {
    configurable: true,
    enumerable: true,
    value: (pCreateInfo: Deno.PointerValue, pAllocator: Deno.PointerValue, pInstance: Deno.PointerValue) => {
      let info = pCreateInfo;
      if (pCreateInfo !== null) {
        const names = enabledLayerNames(pCreateInfo);
        const ours = names.filter((n) =>
          options.available?.some((l) => l.name === n) || findLayer(n) !== undefined
        );
        if (ours.length > 0) {
          for (const name of ours) if (!chassis.layers.some((l) => l.name === name)) enable(name);
          info = withLayerNames(arena, pCreateInfo, names.filter((n) => !ours.includes(n)));
        }
      }
      return (createInstance ?? (source.vkCreateInstance as VulkanCommand))(info, pAllocator, pInstance);
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
  forwardOthers(host, base);
  Object.defineProperty(host, "base", { value: base });
  Object.defineProperty(host, "chassis", { value: chassis });
  Object.defineProperty(host, "enable", { value: enable });
  let disposed = false;
  host[Symbol.dispose] = () => {
    if (disposed) return;
    disposed = true;
    chassis.dispose();
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

function enabledLayerNames(pCreateInfo: Deno.PointerObject): string[] {
  const info = readStruct("VkInstanceCreateInfo", pCreateInfo);
  const count = info.enabledLayerCount as number;
  const list = info.ppEnabledLayerNames as Deno.PointerValue;
  const out: string[] = [];
  for (let i = 0; i < count && list !== null; i++) out.push(readCString(readPointer(list, i * 8)));
  return out;
}

/** A copy of the create info with another layer list (the rest, pNext included, is shared). */
function withLayerNames(arena: Arena, pCreateInfo: Deno.PointerObject, names: string[]): Deno.PointerObject {
  const info = readStruct("VkInstanceCreateInfo", pCreateInfo);
  const copy = writeStruct(arena, "VkInstanceCreateInfo", {
    pNext: info.pNext as Deno.PointerValue,
    flags: info.flags as number,
    pApplicationInfo: info.pApplicationInfo as Deno.PointerValue,
    enabledExtensionCount: info.enabledExtensionCount as number,
    ppEnabledExtensionNames: info.ppEnabledExtensionNames as Deno.PointerValue,
    ppEnabledLayerNames: names,
  });
  return copy;
}
