/**
 * The loader's objects (instance, driver instances, physical devices, device, the handle maps) with their
 * fields, memory layout and invariants; what acts on them lives in the modules that do the work.
 *
 * @module
 */

import { GET_PROC_ADDR } from "../vk/proc_addr.ts";
import { COMMAND_INDEX, COMMANDS } from "../vk/generated/commands.ts";
import { DispatchTable } from "../ffi/dispatch.ts";
import { cstringBuffer } from "../ffi/libc.ts";
import { fnFromPointer } from "../ffi/library.ts";
import { address, Arena, pointerFromAddress, readU64, writeU64 } from "../ffi/memory.ts";
import { type HandleKey, handleKey } from "../vk/handle_key.ts";
import { commandDef } from "../vk/command_ffi.ts";
import type { Driver } from "../loading/driver.ts";
import type { Logger } from "../loading/log.ts";
import type { DevicePolicy } from "../discovery/device_selection.ts";
import type { InstanceWsi, WsiSupport } from "./wsi_interface.ts";
import type { InstanceLayers } from "./layer_chain/instance_layers.ts";
import { chainStubs, DEVICE_TABLE_SLOTS, SLOT_COUNT } from "./stubs.ts";
import { deviceCommandAnswers } from "./table_fill.ts";

/**
 * The handle maps of one loader (a `Loader`, so one per `Vulkan.load()`): terminators and trampolines
 * receive bare handles from C and look them up here, so a handle one loader made is unknown to another's
 * (and gets the invalid-handle answer the trampolines give any unknown handle). Objects add and remove
 * themselves as they are made and disposed.
 *
 * @example Usage
 * ```ts
 * import { HandleMaps } from "./objects.ts";
 * const handleMaps = new HandleMaps();
 * console.log(handleMaps.instances.size, handleMaps.findDevice(null)); // 0 undefined
 * ```
 */
export class HandleMaps {
  /** Loader instances by the address of their `VkInstance`. */
  readonly instances: Map<HandleKey, LoaderInstance> = new Map();
  /** Application-visible physical devices by address. */
  readonly trampPhysicalDevices: Map<HandleKey, TrampPhysicalDevice> = new Map();
  /** Terminator physical devices by address. */
  readonly termPhysicalDevices: Map<HandleKey, TermPhysicalDevice> = new Map();
  /** Terminator physical devices by the address of the driver's own `VkPhysicalDevice`. */
  readonly driverPhysicalDevices: Map<HandleKey, TermPhysicalDevice> = new Map();
  /** Devices by the address of their `VkDevice` (the driver's object) and of any layer wrapper of it. */
  readonly devices: Map<HandleKey, LoaderDevice> = new Map();
  /**
   * Instances, physical devices and devices destroyed, by address, with their type: handle checks tell a
   * destroyed handle from one that never was (forgotten when the address is made again).
   */
  readonly gone: Map<HandleKey, string> = new Map();
  /** Bumped whenever an object is destroyed: handle checks cached before are stale then. */
  epoch = 0;

  /** A device by any of its handles, or by the dispatch table in its first word. */
  findDevice(handle: Deno.PointerValue): LoaderDevice | undefined {
    const direct = this.devices.get(handleKey(handle));
    if (direct || handle === null) return direct;
    const word = readU64(handle, 0);
    for (const d of this.devices.values()) if (d.table.address === word) return d;
    return undefined;
  }
}

/** One link of the instance chain: what fills the dispatch table of the link above it. */
export interface InstanceLink {
  /** The link's `vkGetInstanceProcAddr` for `name` (null when it has nothing). */
  getInstanceProcAddr(instance: Deno.PointerValue, name: string): Deno.PointerValue;
}

/** Writes `words` into a fresh 8-byte-aligned object in `arena`; its handle and address. */
function object(arena: Arena, words: readonly bigint[]): { handle: Deno.PointerObject; address: bigint } {
  const buf = arena.alloc(words.length * 8, 8);
  const view = new BigUint64Array(buf.buffer, buf.byteOffset, words.length);
  words.forEach((w, i) => view[i] = w);
  const handle = arena.pointer(buf);
  return { handle, address: address(handle) };
}

/**
 * A loader instance: the application's `VkInstance`, its chain, its drivers' instances and its physical
 * devices.
 *
 * The instance chain is the active layers (chain/layer_chain/instance_layers.ts, an empty chain when none are active)
 * above the terminator link (the loader's terminators). The terminator's `vkCreateInstance` leaves this same
 * handle in `*pInstance`, as the Khronos loader's does, so layers can key on its first word.
 *
 * @example Made in a loader's handle maps, found there by its handle until disposed
 * ```ts
 * import { HandleMaps, LoaderInstance } from "./objects.ts";
 * import { Logger } from "../loading/log.ts";
 * import { readDevicePolicy } from "../discovery/device_selection.ts";
 * const env = { vars: {}, elevated: false, root: "/nonexistent" };
 * const handleMaps = new HandleMaps();
 * const inst = new LoaderInstance({
 *   handleMaps,
 *   enabledExtensions: [],
 *   apiVersion: 1 << 22,
 *   log: new Logger(env),
 *   heldDrivers: [],
 *   devicePolicy: readDevicePolicy(env),
 * });
 * console.log(handleMaps.instances.get(inst.address) === inst); // true
 * inst.dispose();
 * console.log(handleMaps.instances.size); // 0
 * ```
 */
export class LoaderInstance {
  /** The handle maps of the loader that made it. */
  readonly handleMaps: HandleMaps;
  /** Holds the native object and the physical-device objects. */
  readonly arena: Arena = new Arena();
  /** The instance dispatch table (word 0 of the handle and of every physical-device object). */
  readonly table: DispatchTable = new DispatchTable(SLOT_COUNT);
  /** The application's `VkInstance`. */
  readonly handle: Deno.PointerObject;
  /** Its address. */
  readonly address: bigint;
  /** Instance extensions the application enabled. */
  readonly enabledExtensions: ReadonlySet<string>;
  /** `VkApplicationInfo::apiVersion` (1.0 when absent or 0). */
  readonly apiVersion: number;
  /** The log. */
  readonly log: Logger;
  /** Drivers whose `vkCreateInstance` succeeded. */
  drivers: DriverInstance[] = [];
  /** Every driver held for this instance (released at destruction). */
  readonly heldDrivers: Driver[];
  /** Window-system terminators and surfaces (set once the drivers are known). */
  wsi: InstanceWsi | undefined;
  readonly #wsiSupport: WsiSupport | undefined;
  /** Devices created from it and not yet destroyed. */
  readonly devices: Set<LoaderDevice> = new Set();
  /** Order and filters for physical devices (discovery/device_selection.ts), read at creation. */
  readonly devicePolicy: DevicePolicy;
  /** Set once the chain's `vkCreateInstance` reached the terminator. */
  terminatorReached = false;
  /** Set once the drivers' instances were destroyed (by the terminator, or after a failed create). */
  driverInstancesDestroyed = false;
  /** The layers of this instance (an empty chain when none are active). */
  layers: InstanceLayers | undefined;
  /** The chain, top first; the last link is the terminator. */
  chain: InstanceLink[] = [];
  /** Per driver instance (by index), its terminator physical devices by the driver's handle. */
  #terms: Map<HandleKey, TermPhysicalDevice>[] = [];
  #tramps = new Map<HandleKey, TrampPhysicalDevice>();
  #destroyed = false;

  constructor(options: {
    handleMaps: HandleMaps;
    enabledExtensions: Iterable<string>;
    apiVersion: number;
    log: Logger;
    heldDrivers: Driver[];
    devicePolicy: DevicePolicy;
    /** Window-system support; none when left out. */
    wsi?: WsiSupport;
  }) {
    this.handleMaps = options.handleMaps;
    this.#wsiSupport = options.wsi;
    this.enabledExtensions = new Set(options.enabledExtensions);
    this.apiVersion = options.apiVersion;
    this.log = options.log;
    this.heldDrivers = options.heldDrivers;
    this.devicePolicy = options.devicePolicy;
    // Word 0: the dispatch table; word 1: the handle instance commands pass down (set after creation).
    const buf = this.arena.alloc(16, 16);
    new BigUint64Array(buf.buffer, buf.byteOffset, 2)[0] = this.table.address;
    this.handle = this.arena.pointer(buf);
    this.address = address(this.handle);
    this.handleMaps.instances.set(handleKey(this.address), this);
    this.handleMaps.gone.delete(handleKey(this.address));
  }

  /** Starts the window-system terminators once the drivers are known. */
  startWsi(): void {
    this.wsi = this.#wsiSupport?.forInstance({
      drivers: this.drivers.map((d) => ({
        index: d.index,
        interfaceVersion: d.driver.interfaceVersion,
        instance: d.handle,
        procAddr: (name: string) => d.procAddr(name),
        name: d.name,
      })),
      enabledExtensions: this.enabledExtensions,
      physicalDevice: (handle) => {
        const term = this.handleMaps.termPhysicalDevices.get(handleKey(handle));
        return term ? { driverIndex: term.driverInstance.index, handle: term.driverHandle } : undefined;
      },
      log: (entry) => this.log.log(entry),
    });
  }

  /**
   * The terminator physical device for a driver's handle, given by its address (made once, then the same
   * object). Addresses, not pointer objects: both enumerations read them as numbers, and a pointer object
   * made per handle per call only to be turned back into a number showed in the enumeration's profile.
   */
  termFor(driverInstance: DriverInstance, driverHandle: bigint): TermPhysicalDevice {
    const terms = this.#terms[driverInstance.index] ??= new Map();
    let term = terms.get(handleKey(driverHandle));
    if (!term) {
      term = new TermPhysicalDevice(this, driverInstance, pointerFromAddress(driverHandle)!);
      terms.set(handleKey(driverHandle), term);
    }
    return term;
  }

  /** The application's physical device for a next-level handle's address (made once, then the same object). */
  trampFor(next: bigint): TrampPhysicalDevice {
    let tramp = this.#tramps.get(handleKey(next));
    if (!tramp) {
      tramp = new TrampPhysicalDevice(this, pointerFromAddress(next)!);
      this.#tramps.set(handleKey(next), tramp);
    }
    return tramp;
  }

  /** Every terminator physical device made so far. */
  get termPhysicalDevices(): Iterable<TermPhysicalDevice> {
    return this.#terms.flatMap((terms) => [...terms.values()]);
  }

  /** True once destroyed. */
  get destroyed(): boolean {
    return this.#destroyed;
  }

  /** Forgets every object and frees the tables (the drivers' instances must be destroyed already). */
  dispose(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.handleMaps.instances.delete(handleKey(this.address));
    this.handleMaps.gone.set(handleKey(this.address), "VkInstance");
    this.handleMaps.epoch++;
    for (const terms of this.#terms) for (const t of terms?.values() ?? []) t.unregister();
    for (const t of this.#tramps.values()) t.unregister();
    this.wsi?.dispose();
    for (const d of this.drivers) d.dispose();
    this.table.dispose();
    this.arena.dispose();
  }
}

type NativeFn = (...args: unknown[]) => unknown;

/**
 * A driver's `VkInstance` inside a loader instance (created by chain/driver_instances.ts with a create info
 * rewritten for that driver, driver_instances.ts), with the driver's function table (physical-device slots)
 * that terminator physical devices point to.
 *
 * @example Usage
 * ```ts ignore
 * const d = new DriverInstance(driver, inst.drivers.length, driverHandle, ci.extensions);
 * d.fn("vkDestroyInstance")?.(d.handle, null);
 * ```
 */
export class DriverInstance {
  /** The driver. */
  readonly driver: Driver;
  /** Position among the instance's drivers. */
  readonly index: number;
  /** The driver's `VkInstance`. */
  readonly handle: Deno.PointerObject;
  /** Extensions it was created with. */
  readonly enabledExtensions: readonly string[];
  /** The driver's functions by slot (physical-device commands; empty slots hold the error function). */
  readonly table: DispatchTable = new DispatchTable(SLOT_COUNT);
  #fns = new Map<string, NativeFn | null>();

  constructor(
    driver: Driver,
    index: number,
    handle: Deno.PointerObject,
    enabledExtensions: readonly string[],
  ) {
    this.driver = driver;
    this.index = index;
    this.handle = handle;
    this.enabledExtensions = enabledExtensions;
  }

  /** `vk_icdGetInstanceProcAddr(this instance, name)`. */
  procAddr(name: string): Deno.PointerValue {
    return this.driver.procAddr(this.handle, name);
  }

  /** The driver's function for a known command (trying its aliases), first non-null. */
  commandAddress(slot: number): Deno.PointerValue {
    const info = COMMANDS[slot];
    if (!info) return null;
    for (const name of [info.name, ...info.aliases]) {
      const p = this.procAddr(name);
      if (p !== null) return p;
    }
    return null;
  }

  /**
   * Fills the function table from one fill of the driver's physical-device commands (chain/table_fill.ts);
   * `missing(slot)` answers the slots the driver leaves empty. {@linkcode DriverInstance.fn} then takes
   * these commands' addresses from the fill instead of asking the driver again, name by name.
   */
  setTable(
    filled: { readonly slots: Uint32Array; readonly fns: BigUint64Array },
    missing: (slot: number) => Deno.PointerValue,
  ): void {
    const { slots, fns } = filled;
    this.table.setAll(slots, fns, 0n);
    const halves = new Uint32Array(fns.buffer, fns.byteOffset, fns.length * 2);
    const answered = new Uint8Array(SLOT_COUNT);
    for (let k = 0; k < slots.length; k++) {
      if ((halves[k * 2]! | halves[k * 2 + 1]!) !== 0) answered[slots[k]!] = 1;
      else this.table.set(slots[k]!, missing(slots[k]!));
    }
    this.#answered = answered;
  }

  /** 1 at each physical-device slot the driver answered in {@linkcode DriverInstance.setTable}'s fill. */
  #answered: Uint8Array | undefined;

  /** The driver's function `name` (or an alias), callable from TypeScript (cold path), or null. */
  fn(name: string): NativeFn | null {
    let fn = this.#fns.get(name);
    if (fn === undefined) {
      const slot = COMMAND_INDEX[name];
      const info = slot === undefined ? undefined : COMMANDS[slot];
      // A physical-device command's address is in the filled table (the same question, asked natively).
      const filled = this.#answered !== undefined && info?.level === "physical_device";
      const p = !info
        ? null
        : filled
        ? (this.#answered![slot!] === 1 ? this.table.get(slot!) : null)
        : this.commandAddress(slot!);
      if (p === null || !info) {
        fn = null;
      } else {
        const f = new Deno.UnsafeFnPointer(p as Deno.PointerObject<never>, commandDef(info));
        fn = f.call.bind(f) as NativeFn;
      }
      this.#fns.set(name, fn);
    }
    return fn;
  }

  /** A name for messages. */
  get name(): string {
    return this.driver.name;
  }

  /** Frees the function table. */
  dispose(): void {
    this.table.dispose();
  }
}

/**
 * A driver's physical device as the bottom of the chain sees it.
 *
 * @example Usage
 * ```ts ignore
 * const term = inst.termFor(driverInstance, 0x1234n); // made once per driver handle
 * console.log(term.address === inst.termFor(driverInstance, 0x1234n).address); // true
 * ```
 */
export class TermPhysicalDevice {
  /** The loader object's handle. */
  readonly handle: Deno.PointerObject;
  /** Its address. */
  readonly address: bigint;
  /** The driver instance it belongs to. */
  readonly driverInstance: DriverInstance;
  /** The driver's own `VkPhysicalDevice`. */
  readonly driverHandle: Deno.PointerObject;
  /** The loader instance. */
  readonly instance: LoaderInstance;

  constructor(instance: LoaderInstance, driverInstance: DriverInstance, driverHandle: Deno.PointerObject) {
    this.instance = instance;
    const o = object(instance.arena, [
      instance.table.address,
      driverInstance.table.address,
      address(driverHandle),
    ]);
    this.handle = o.handle;
    this.address = o.address;
    this.driverInstance = driverInstance;
    this.driverHandle = driverHandle;
    instance.handleMaps.termPhysicalDevices.set(handleKey(this.address), this);
    instance.handleMaps.driverPhysicalDevices.set(handleKey(driverHandle), this);
  }

  /** Forgets the object (its memory goes with the instance's arena). */
  unregister(): void {
    const handleMaps = this.instance.handleMaps;
    handleMaps.termPhysicalDevices.delete(handleKey(this.address));
    const k = handleKey(this.driverHandle);
    if (handleMaps.driverPhysicalDevices.get(k) === this) {
      // A driver may hand the same VkPhysicalDevice to several instances: keep one that lives.
      const other = [...handleMaps.termPhysicalDevices.values()].find((t) => handleKey(t.driverHandle) === k);
      if (other) handleMaps.driverPhysicalDevices.set(k, other);
      else handleMaps.driverPhysicalDevices.delete(k);
    }
  }
}

/**
 * An application-visible physical device.
 *
 * @example Usage
 * ```ts ignore
 * const tramp = inst.trampFor(0x5678n); // what vkEnumeratePhysicalDevices hands the application
 * console.log(tramp.term?.driverHandle);
 * ```
 */
export class TrampPhysicalDevice {
  /** The application's `VkPhysicalDevice`. */
  readonly handle: Deno.PointerObject;
  /** Its address. */
  readonly address: bigint;
  /** The handle the top of the chain gets. */
  readonly next: Deno.PointerObject;
  /** The instance it belongs to. */
  readonly instance: LoaderInstance;

  constructor(instance: LoaderInstance, next: Deno.PointerObject) {
    const o = object(instance.arena, [instance.table.address, address(next)]);
    this.handle = o.handle;
    this.address = o.address;
    this.next = next;
    this.instance = instance;
    instance.handleMaps.trampPhysicalDevices.set(handleKey(this.address), this);
    instance.handleMaps.gone.delete(handleKey(this.address));
  }

  /** The terminator physical device below, when no layer wrapped it. */
  get term(): TermPhysicalDevice | undefined {
    return this.instance.handleMaps.termPhysicalDevices.get(handleKey(this.next));
  }

  /** Forgets the object. */
  unregister(): void {
    this.instance.handleMaps.trampPhysicalDevices.delete(handleKey(this.address));
    this.instance.handleMaps.gone.set(handleKey(this.address), "VkPhysicalDevice");
    this.instance.handleMaps.epoch++;
  }
}

/**
 * A device made by the loader: the driver's `VkDevice` handed to the application, its first word (the
 * driver's `ICD_LOADER_MAGIC`) replaced by the loader's device dispatch table ({@linkcode LoaderDevice.stamp}),
 * which device.ts fills from the top of the device chain.
 *
 * @example Usage
 * ```ts ignore
 * const ld = new LoaderDevice(term.instance, term, driverDevice);
 * ld.stamp(); // the driver's VkDevice now dispatches through ld.table
 * ```
 */
export class LoaderDevice {
  /** The `VkDevice` (the driver's object). */
  readonly handle: Deno.PointerObject;
  /** Its address. */
  readonly address: bigint;
  /** The device dispatch table (word 0 of the device, its queues and command buffers). */
  readonly table: DispatchTable = new DispatchTable(DEVICE_TABLE_SLOTS);
  /** The instance. */
  readonly instance: LoaderInstance;
  /** The physical device below it. */
  readonly physicalDevice: TermPhysicalDevice;
  /** Device extensions enabled at creation. */
  enabledExtensions: ReadonlySet<string> = new Set();
  /** 1 at each slot the chain filled with a real function. */
  readonly #supported = new Uint8Array(DEVICE_TABLE_SLOTS);
  /** The top of the device chain's `vkGetDeviceProcAddr` (set once the device came back up the chain). */
  top: { getDeviceProcAddr: (name: string) => Deno.PointerValue } | undefined;
  /** The bottom of the device chain: the driver's `vkGetDeviceProcAddr`. */
  readonly driverGetDeviceProcAddr: Deno.PointerValue;
  #gdpa: Deno.UnsafeFnPointer<typeof GET_PROC_ADDR> | undefined;
  #aliases = new Set<HandleKey>();

  constructor(instance: LoaderInstance, physicalDevice: TermPhysicalDevice, handle: Deno.PointerObject) {
    this.instance = instance;
    this.physicalDevice = physicalDevice;
    this.handle = handle;
    this.address = address(handle);
    this.driverGetDeviceProcAddr = physicalDevice.driverInstance.procAddr("vkGetDeviceProcAddr");
    if (this.driverGetDeviceProcAddr) this.#gdpa = fnFromPointer(this.driverGetDeviceProcAddr, GET_PROC_ADDR);
    instance.handleMaps.devices.set(handleKey(this.address), this);
    instance.handleMaps.gone.delete(handleKey(this.address));
    instance.devices.add(this);
  }

  /** The driver instance. */
  get driverInstance(): DriverInstance {
    return this.physicalDevice.driverInstance;
  }

  /** The driver's `vkGetDeviceProcAddr(device, name)`. */
  driverProcAddr(name: string): Deno.PointerValue {
    if (!this.#gdpa) return null;
    // Layers ask the bottom of the device chain for every command: past a few names (the loader's own
    // few WSI questions), answer from one native fill of them all.
    if (this.#answers === undefined && ++this.#asked > 32) {
      this.#answers = deviceCommandAnswers(chainStubs(), this.driverGetDeviceProcAddr!, this.handle) ?? null;
    }
    const known = this.#answers?.(name);
    return known !== undefined ? known : this.#gdpa.call(this.handle, cstringBuffer(name));
  }

  #answers: ((name: string) => Deno.PointerValue | undefined) | null | undefined;
  #asked = 0;

  /** Writes the table's address into the device's first word. */
  stamp(): void {
    writeU64(this.handle, 0, this.table.address);
  }

  /** Also finds this device by `handle` (a layer's wrapper handed to the application). */
  addAlias(handle: Deno.PointerValue): void {
    const k = handleKey(handle);
    if (k === 0 || k === handleKey(this.address)) return;
    this.#aliases.add(k);
    this.instance.handleMaps.devices.set(k, this);
    this.instance.handleMaps.gone.delete(k);
  }

  /** Whether the chain filled `slot` with a real function (not the empty slot's error function). */
  supports(slot: number): boolean {
    return this.#supported[slot] === 1;
  }

  /**
   * Sets every slot a table fill answered (`empty` where it found none), in one copy
   * (`DispatchTable.setAll`); the queue-stamping slots as {@linkcode LoaderDevice.setSlot} would.
   */
  setSlots(
    filled: { readonly slots: Uint32Array; readonly fns: BigUint64Array },
    empty: Deno.PointerValue,
  ): void {
    const { slots, fns } = filled;
    this.table.setAll(slots, fns, empty);
    const halves = new Uint32Array(fns.buffer, fns.byteOffset, fns.length * 2);
    for (let k = 0; k < slots.length; k++) {
      this.#supported[slots[k]!] = (halves[k * 2]! | halves[k * 2 + 1]!) === 0 ? 0 : 1;
    }
    // The queue-stamping slots take what the copy put there, through the one rule for them.
    for (const slot of chainStubs().stampedQueueSlots.keys()) {
      if (this.#supported[slot] === 1) this.setSlot(slot, this.table.get(slot), empty);
    }
  }

  /** Sets one slot (`empty` for null), keeping {@linkcode LoaderDevice.supports} in step. */
  setSlot(slot: number, fn: Deno.PointerValue | bigint, empty: Deno.PointerValue): void {
    // An address (from the table fills) or a pointer; 0n and null alike mean none.
    const none = fn === null || fn === 0n;
    this.#supported[slot] = none ? 0 : 1;
    const stamped = none ? undefined : chainStubs().stampedQueueSlots.get(slot);
    if (stamped) {
      // The slot runs native code that calls `fn` (kept in a hidden word) and stamps the queue.
      this.table.set(stamped.next, fn);
      this.table.set(slot, stamped.helper);
    } else {
      this.table.set(slot, none ? empty : fn);
    }
  }

  /** Forgets the device and frees its table (the driver's device must be destroyed already). */
  dispose(): void {
    if (this.table.disposed) return;
    const devices = this.instance.handleMaps.devices;
    devices.delete(handleKey(this.address));
    this.instance.handleMaps.gone.set(handleKey(this.address), "VkDevice");
    this.instance.handleMaps.epoch++;
    for (const k of this.#aliases) {
      if (devices.get(k) !== this) continue;
      devices.delete(k);
      this.instance.handleMaps.gone.set(k, "VkDevice");
      this.instance.handleMaps.epoch++;
    }
    this.instance.devices.delete(this);
    this.table.dispose();
  }
}
