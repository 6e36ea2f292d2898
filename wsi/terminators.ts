/**
 * The bottom of the instance chain for window-system commands: one set of terminators per instance, fanning
 * out to the instance's drivers (docs/behaviour.md W01-W05, I04).
 *
 * @module
 */
import { COMMAND_INDEX, COMMANDS } from "../vk/generated/commands.ts";
import { EXTENSIONS } from "../vk/generated/extensions.ts";
import { DISPLAY_COMMANDS, SURFACE_COMMANDS, type SurfaceUse } from "../vk/generated/wsi_commands.ts";
import type { CommandInfo } from "../vk/generated/types.ts";
import { CallbackOwner } from "../ffi/callback.ts";
import { address, Arena, nativeBytes, pointerFromAddress, writeU32, writeU64 } from "../ffi/memory.ts";
import type { LogEntry } from "../loading/log.ts";
import type { InstanceWsi, WsiDriver, WsiInstanceOptions, WsiSupport } from "../chain/wsi_interface.ts";
import { SURFACE_CREATE_COMMANDS, type SurfaceContainer, SurfaceTable } from "./surface.ts";
import { type Emulation, emulation } from "./_emulate.ts";
import {
  VK_ERROR_EXTENSION_NOT_PRESENT,
  VK_ERROR_UNKNOWN,
  VK_SUCCESS,
} from "../vk/generated/vk_constants.js";
import { commandCallbackDef } from "../vk/command_ffi.ts";

/** A C function called through `UnsafeFnPointer` with its C parameters (cold path). */
// deno-lint-ignore no-explicit-any
type NativeFn = (...args: any[]) => any;

function nativeFn(pointer: Deno.PointerObject, info: CommandInfo): NativeFn {
  const fn = new Deno.UnsafeFnPointer(pointer as Deno.PointerObject<never>, info.ffi);
  return fn.call.bind(fn) as NativeFn;
}

export type { SurfaceUse };

const WSI_EXTENSIONS = new Set(["VK_KHR_display", "VK_KHR_get_display_properties2"]);

export type { WsiDriver, WsiInstanceOptions, WsiPhysicalDevice } from "../chain/wsi_interface.ts";

/** A command these terminators handle, with where its surface is (if it takes one). */
export interface WsiCommand {
  /** The command's generated entry. */
  readonly info: CommandInfo;
  /** Where it carries its surface; absent for the surface-creating and display commands. */
  readonly surface?: SurfaceUse;
}

let wsiTable: Map<string, WsiCommand> | undefined;

/**
 * Every command these terminators handle, with where its surface is (if it takes one): the generated
 * vk/generated/wsi_commands.ts tables plus the surface-creating commands of wsi/surface.ts, in command
 * order. Built on first use: it decodes each command's entry.
 *
 * @example Usage
 * ```ts
 * import { wsiCommands } from "./terminators.ts";
 * console.log(wsiCommands().get("vkCreateSwapchainKHR")?.surface); // { param: 1, struct: { size: 104, surfaceOffset: 24 } }
 * ```
 */
export function wsiCommands(): ReadonlyMap<string, WsiCommand> {
  if (wsiTable) return wsiTable;
  const names = new Set([
    ...Object.keys(SURFACE_COMMANDS),
    ...DISPLAY_COMMANDS,
    ...Object.keys(SURFACE_CREATE_COMMANDS),
  ]);
  const infos = [...names].map((n) => COMMANDS[COMMAND_INDEX[n]!]!).sort((a, b) => a.index - b.index);
  wsiTable = new Map(infos.map((info) => {
    const surface = SURFACE_COMMANDS[info.name];
    return [info.name, surface ? { info, surface } : { info }];
  }));
  return wsiTable;
}

let displayCommands: Set<string> | undefined;

/** The entry of a WSI command by its name, without building the whole table. */
function wsiCommand(name: string): WsiCommand | undefined {
  if (wsiTable) return wsiTable.get(name);
  const surface = Object.hasOwn(SURFACE_COMMANDS, name) ? SURFACE_COMMANDS[name] : undefined;
  // Asked for every instance command at every vkCreateInstance: a set, not a scan of the list.
  displayCommands ??= new Set(DISPLAY_COMMANDS);
  if (!surface && !displayCommands.has(name) && !Object.hasOwn(SURFACE_CREATE_COMMANDS, name)) {
    return undefined;
  }
  const info = COMMANDS[COMMAND_INDEX[name]!]!;
  // Aliases are not WSI commands by their alias name (the table is keyed by primary names).
  if (info.name !== name) return undefined;
  return surface ? { info, surface } : { info };
}

/**
 * The instance extension a WSI command needs enabled before it resolves, or undefined when it needs none
 * (device-extension commands are checked by the device, not here).
 *
 * @example Usage
 * ```ts
 * import { requiredInstanceExtensions } from "./terminators.ts";
 * console.log(requiredInstanceExtensions("vkCreateXcbSurfaceKHR")); // ["VK_KHR_xcb_surface"]
 * ```
 */
export function requiredInstanceExtensions(name: string): readonly string[] | undefined {
  // Asked for each WSI command at every vkCreateInstance; the answer depends on the name alone.
  const known = requiredMemo.get(name);
  if (known !== undefined) return known ?? undefined;
  const command = wsiCommand(name);
  const providers = command?.info.providers ?? [];
  const instance = providers.filter((p) => EXTENSIONS[p]?.type === "instance");
  const out = instance.length > 0 && instance.length === providers.length ? instance : undefined;
  // Kept for WSI commands only: other names are answered by the lookup above, and are not bounded.
  if (command) requiredMemo.set(name, out ?? null);
  return out;
}

const requiredMemo = new Map<string, readonly string[] | null>();

/**
 * The surface extensions in `requested` that no driver offers: `vkCreateInstance` must fail with
 * `VK_ERROR_EXTENSION_NOT_PRESENT` when this is not empty.
 *
 * @example Usage
 * ```ts
 * import { unsupportedSurfaceExtensions } from "./terminators.ts";
 * const drivers = [["VK_KHR_surface", "VK_KHR_xlib_surface"]];
 * console.log(unsupportedSurfaceExtensions(["VK_KHR_surface", "VK_KHR_xcb_surface"], drivers));
 * // ["VK_KHR_xcb_surface"]
 * ```
 */
export function unsupportedSurfaceExtensions(
  requested: Iterable<string>,
  driverExtensions: Iterable<Iterable<string>>,
): string[] {
  const offered = new Set<string>();
  for (const list of driverExtensions) for (const e of list) offered.add(e);
  const surfaceExtensions = new Set<string>(["VK_KHR_surface", ...WSI_EXTENSIONS]);
  for (const c of Object.values(SURFACE_CREATE_COMMANDS)) surfaceExtensions.add(c.extension);
  return [...requested].filter((e) => surfaceExtensions.has(e) && !offered.has(e));
}

/**
 * The WSI terminators of one instance, and its surfaces.
 *
 * @example Resolve a terminator
 * ```ts
 * import { WsiTerminators } from "./terminators.ts";
 * using wsi = new WsiTerminators({
 *   drivers: [],
 *   enabledExtensions: ["VK_KHR_surface", "VK_EXT_headless_surface"],
 *   physicalDevice: () => undefined,
 * });
 * console.log(wsi.terminator("vkCreateHeadlessSurfaceEXT") !== null); // true
 * console.log(wsi.terminator("vkCreateXcbSurfaceKHR")); // null: VK_KHR_xcb_surface is not enabled
 * console.log(wsi.terminator("vkCreateBuffer")); // undefined: not a WSI command
 * ```
 */
export class WsiTerminators implements InstanceWsi {
  /** This instance's surfaces. */
  readonly surfaces: SurfaceTable;
  #drivers: readonly WsiDriver[];
  #enabled: ReadonlySet<string>;
  #physicalDevice: WsiInstanceOptions["physicalDevice"];
  #log: (entry: LogEntry) => void;
  #callbacks: CallbackOwner;
  #terminators = new Map<string, Deno.PointerObject>();
  #deviceTerminators = new Map<string, Deno.PointerObject>();
  #driverFns = new Map<string, NativeFn | null>();

  /** Terminators over `options.drivers`; callbacks are made on first request. */
  constructor(options: WsiInstanceOptions) {
    this.#drivers = options.drivers;
    this.#enabled = new Set(options.enabledExtensions);
    this.#physicalDevice = options.physicalDevice;
    this.#log = options.log ?? ((e) => console.error(e.text));
    this.#callbacks = new CallbackOwner({ report: (text) => this.#log({ level: "error", text }) });
    const slots = this.#drivers.reduce((n, d) => Math.max(n, d.index + 1), 0);
    this.surfaces = new SurfaceTable(slots);
  }

  /**
   * The terminator for an instance- or physical-device-level WSI command: a C function pointer to put at
   * the bottom of the instance chain. `null` when the command's instance extension is not enabled;
   * undefined when `name` is not a WSI command (or a device-level one: see
   * {@linkcode WsiTerminators.deviceProcAddr}).
   */
  terminator(name: string): Deno.PointerValue | undefined {
    const command = wsiCommand(name);
    if (!command || command.info.level === "device" || command.info.level === "global") return undefined;
    const needs = requiredInstanceExtensions(name);
    if (needs && !needs.some((e) => this.#enabled.has(e))) return null;
    let pointer = this.#terminators.get(name);
    if (!pointer) {
      pointer = this.#callback(command.info, this.#body(command.info, command.surface));
      this.#terminators.set(name, pointer);
    }
    return pointer;
  }

  /**
   * What the device chain's bottom `vkGetDeviceProcAddr` must return for `name` on a device of driver
   * `driverIndex` whose own function is `driverFunction`: a terminator that swaps in the driver's surface
   * for the surface-taking commands, `driverFunction` unchanged for every other command.
   */
  deviceProcAddr(name: string, driverIndex: number, driverFunction: Deno.PointerValue): Deno.PointerValue {
    const command = wsiCommand(name);
    if (!command?.surface || command.info.level !== "device" || driverFunction === null) {
      return driverFunction;
    }
    const key = `${name}/${driverIndex}/${address(driverFunction)}`;
    let pointer = this.#deviceTerminators.get(key);
    if (!pointer) {
      const fn = nativeFn(driverFunction, command.info);
      const use = command.surface;
      pointer = this.#callback(command.info, (...args) => {
        using arena = new Arena();
        return fn(...this.#withDriverSurface(arena, args, use, driverIndex));
      });
      this.#deviceTerminators.set(key, pointer);
    }
    return pointer;
  }

  /** Closes every terminator and frees the surfaces left alive; no driver or layer may call them after. */
  dispose(): void {
    this.#callbacks.dispose();
    this.#terminators.clear();
    this.#deviceTerminators.clear();
    this.surfaces.dispose();
  }

  /** Same as {@linkcode WsiTerminators.dispose}. */
  [Symbol.dispose](): void {
    this.dispose();
  }

  #callback(info: CommandInfo, body: (...args: unknown[]) => unknown): Deno.PointerObject {
    const def = commandCallbackDef(info);
    const onError = info.ffi.result === "i32" ? VK_ERROR_UNKNOWN : undefined;
    const cb = this.#callbacks.create(
      def,
      body as never,
      { name: `terminator ${info.name}`, onError } as never,
    );
    return cb.pointer;
  }

  #driverName(d: WsiDriver): string {
    return d.name ?? `driver ${d.index}`;
  }

  #driverFn(driver: WsiDriver, name: string): NativeFn | null {
    const key = `${driver.index}/${name}`;
    let fn = this.#driverFns.get(key);
    if (fn === undefined) {
      const p = driver.procAddr(name);
      const info = COMMANDS[COMMAND_INDEX[name]!]!;
      fn = p === null ? null : nativeFn(p, info);
      this.#driverFns.set(key, fn);
    }
    return fn;
  }

  #body(info: CommandInfo, use: SurfaceUse | undefined): (...args: unknown[]) => unknown {
    if (info.name in SURFACE_CREATE_COMMANDS) return (...args) => this.#createSurface(info.name, args);
    if (info.name === "vkDestroySurfaceKHR") return (...args) => this.#destroySurface(args);
    const emulated = emulation(info.name);
    return (...args) => {
      const pd = this.#physicalDevice(args[0] as Deno.PointerValue);
      if (!pd) {
        throw new TypeError(
          `${info.name}: unknown VkPhysicalDevice "0x${address(args[0] as never).toString(16)}"`,
        );
      }
      const driver = this.#drivers.find((d) => d.index === pd.driverIndex);
      if (!driver) throw new RangeError(`${info.name}: no driver with index "${pd.driverIndex}"`);
      using arena = new Arena();
      const callArgs = use ? this.#withDriverSurface(arena, args, use, driver.index) : [...args];
      callArgs[0] = pd.handle;
      const fn = this.#driverFn(driver, info.name);
      if (fn) return fn(...callArgs);
      return this.#missing(info.name, driver, callArgs, emulated, arena);
    };
  }

  #missing(name: string, driver: WsiDriver, args: unknown[], emulated: Emulation | undefined, arena: Arena) {
    if (emulated) {
      const original = this.#driverFn(driver, emulated.original);
      if (original) return emulated.call(original, args, arena);
    }
    this.#log({
      level: "error",
      category: "driver",
      text: `Driver "${this.#driverName(driver)}" does not provide "${name}"`,
    });
    if (name === "vkGetPhysicalDeviceSurfaceSupportKHR") {
      // A driver without WSI cannot present: answer "unsupported" rather than fail the query.
      writeU32(args[3] as Deno.PointerValue, 0, 0);
      return VK_SUCCESS;
    }
    return COMMANDS[COMMAND_INDEX[name]!]!.ffi.result === "i32" ? VK_ERROR_EXTENSION_NOT_PRESENT : undefined;
  }

  /** Copies `args`, replacing the surface (or the structs carrying it) with driver `index`'s surface. */
  #withDriverSurface(arena: Arena, args: unknown[], use: SurfaceUse, index: number): unknown[] {
    const out = [...args];
    const value = args[use.param] as Deno.PointerValue;
    if (!use.struct) {
      out[use.param] = this.surfaces.surfaceForDriver(value, index);
      return out;
    }
    if (value === null) return out;
    const count = use.struct.countParam === undefined ? 1 : Number(args[use.struct.countParam]);
    const { size, surfaceOffset } = use.struct;
    const copy = arena.alloc(size * count);
    copy.set(nativeBytes(value, size * count));
    const view = new DataView(copy.buffer, copy.byteOffset, copy.byteLength);
    for (let i = 0; i < count; i++) {
      const surface = view.getBigUint64(i * size + surfaceOffset, true);
      view.setBigUint64(
        i * size + surfaceOffset,
        address(this.surfaces.surfaceForDriver(surface, index)),
        true,
      );
    }
    out[use.param] = arena.pointer(copy);
    return out;
  }

  #createSurface(name: string, args: unknown[]): number {
    const [, pCreateInfo, pAllocator, pSurface] = args as Deno.PointerValue[];
    const container = this.surfaces.create(name, pCreateInfo ?? null);
    for (const driver of this.#drivers) {
      if (driver.interfaceVersion < 3) continue;
      const fn = this.#driverFn(driver, name);
      if (!fn) continue;
      const out = new BigUint64Array(new ArrayBuffer(8));
      const result = fn(driver.instance, pCreateInfo, pAllocator, Deno.UnsafePointer.of(out)) as number;
      if (result !== VK_SUCCESS) {
        this.#destroyDriverSurfaces(container, pAllocator ?? null);
        this.surfaces.destroy(container.handle);
        return result;
      }
      container.setDriverSurface(driver.index, out[0]!);
    }
    writeU64(pSurface ?? null, 0, container.address);
    return VK_SUCCESS;
  }

  #destroySurface(args: unknown[]): void {
    const [, surface, pAllocator] = args as Deno.PointerValue[];
    const container = this.surfaces.get(surface ?? null);
    if (!container) return;
    this.#destroyDriverSurfaces(container, pAllocator ?? null);
    this.surfaces.destroy(container.handle);
  }

  #destroyDriverSurfaces(container: SurfaceContainer, pAllocator: Deno.PointerValue): void {
    for (const driver of this.#drivers) {
      const own = container.driverSurface(driver.index);
      if (own === 0n) continue;
      this.#driverFn(driver, "vkDestroySurfaceKHR")?.(driver.instance, pointerFromAddress(own), pAllocator);
      container.setDriverSurface(driver.index, 0n);
    }
  }
}

/**
 * Window-system support for a loader: what the public `Vulkan` object passes to the chain.
 *
 * @example Usage
 * ```ts
 * import { WSI_SUPPORT } from "./terminators.ts";
 * console.log(WSI_SUPPORT.callsJavaScript("vkCreateSwapchainKHR")); // true
 * ```
 */
export const WSI_SUPPORT: WsiSupport = {
  forInstance: (options) => new WsiTerminators(options),
  unsupportedExtensions: unsupportedSurfaceExtensions,
  callsJavaScript: (name) => Object.hasOwn(SURFACE_COMMANDS, name),
};
