/**
 * The loader-owned `VkInstance`: a native object whose first word is the instance dispatch table, the
 * drivers' instances behind it, and its physical devices.
 *
 * The instance chain: the active layers (chain/layer_instance.ts, an empty chain when none are active)
 * above the terminator link ({@linkcode InstanceLink}, the loader's terminators). The dispatch table is
 * filled from the top of the chain; the terminator's `vkCreateInstance` leaves this same handle in
 * `*pInstance`, as the Khronos loader's does, so layers can key on its first word.
 *
 * Its physical devices are two kinds of loader object, as the Khronos loader has them:
 *
 * - a terminator physical device wraps one driver's `VkPhysicalDevice`:
 *   `{ word0: instance dispatch table, word1: the driver's function table, word2: the driver's handle }`.
 *   Layers see these (their first word is the instance's dispatch table, so they can key on it); the
 *   terminator unwrap stubs jump from them into the driver's function with the driver's handle.
 * - a trampoline physical device is what the application holds:
 *   `{ word0: instance dispatch table, word1: the next level's handle }` (a terminator physical device,
 *   or whatever a layer handed up). The trampoline unwrap stubs pass word1 to the top of the chain.
 *
 * Both live in their instance's arena and keep their address for the instance's lifetime: the same
 * device gives the same handle on every enumeration.
 *
 * @module
 */

import { COMMANDS } from "../ffi/generated/commands.ts";
import { DispatchTable } from "../ffi/dispatch.ts";
import { Arena } from "../ffi/memory.ts";
import type { Driver } from "../loading/driver.ts";
import type { DevicePolicy } from "../discovery/device_selection.ts";
import type { DriverInstance } from "./driver_instance.ts";
import type { Logger } from "../loading/log.ts";
import type { InstanceWsi, WsiSupport } from "./wsi_interface.ts";
import type { InstanceLayers } from "./layer_instance.ts";
import { key } from "./_registry.ts";
import { SLOT_COUNT } from "./stubs.ts";

/** One link of the instance chain: what fills the dispatch table of the link above it. */
export interface InstanceLink {
  /** The link's `vkGetInstanceProcAddr` for `name` (null when it has nothing). */
  getInstanceProcAddr(instance: Deno.PointerValue, name: string): Deno.PointerValue;
}

/** Loader instances by the address of their `VkInstance`. */
export const instances: Map<bigint, LoaderInstance> = new Map();

/**
 * A device as its instance keeps it (device.ts's `LoaderDevice`): named here, below device.ts, so that
 * the instance need not import the module of the devices it outlives.
 */
export interface InstanceDevice {
  /** Destroys what the loader made for the device (when the instance goes first). */
  dispose(): void;
}

/** A loader instance. */
export class LoaderInstance {
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
  readonly devices: Set<InstanceDevice> = new Set();
  /** Order and filters for physical devices (chain/device_order.ts), read at creation. */
  readonly devicePolicy: DevicePolicy;
  /** Set once the chain's `vkCreateInstance` reached the terminator. */
  terminatorReached = false;
  /** Set once the drivers' instances were destroyed (by the terminator, or after a failed create). */
  driverInstancesDestroyed = false;
  /** The layers of this instance (an empty chain when none are active). */
  layers: InstanceLayers | undefined;
  /** The chain, top first; the last link is the terminator. */
  chain: InstanceLink[] = [];
  #terms = new Map<string, TermPhysicalDevice>();
  #tramps = new Map<bigint, TrampPhysicalDevice>();
  #destroyed = false;

  constructor(options: {
    enabledExtensions: Iterable<string>;
    apiVersion: number;
    log: Logger;
    heldDrivers: Driver[];
    devicePolicy: DevicePolicy;
    /** Window-system support; none when left out. */
    wsi?: WsiSupport;
  }) {
    this.#wsiSupport = options.wsi;
    this.enabledExtensions = new Set(options.enabledExtensions);
    this.apiVersion = options.apiVersion;
    this.log = options.log;
    this.heldDrivers = options.heldDrivers;
    this.devicePolicy = options.devicePolicy;
    const buf = this.arena.alloc(16, 16);
    new BigUint64Array(buf.buffer, buf.byteOffset, 2)[0] = this.table.address;
    this.handle = this.arena.pointer(buf);
    this.address = key(this.handle);
    instances.set(this.address, this);
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
        const term = termPhysicalDevices.get(key(handle));
        return term ? { driverIndex: term.driverInstance.index, handle: term.driverHandle } : undefined;
      },
      log: (entry) => this.log.log(entry),
    });
  }

  /** Fills every instance-level slot from the top of the chain; empty slots get `empty`. */
  fillTable(empty: Deno.PointerValue): void {
    const top = this.chain[0];
    if (!top) throw new TypeError("Cannot fill an instance table without a chain");
    for (const info of COMMANDS) {
      if (info.level !== "instance" && info.level !== "physical_device") continue;
      this.table.set(info.index, top.getInstanceProcAddr(this.handle, info.name) ?? empty);
    }
  }

  /** The terminator physical device for a driver's handle (made once, then the same object). */
  termFor(driverInstance: DriverInstance, driverHandle: Deno.PointerObject): TermPhysicalDevice {
    const k = `${driverInstance.index}/${key(driverHandle)}`;
    let term = this.#terms.get(k);
    if (!term) {
      term = new TermPhysicalDevice(this, driverInstance, driverHandle);
      this.#terms.set(k, term);
    }
    return term;
  }

  /** The application's physical device for a next-level handle (made once, then the same object). */
  trampFor(next: Deno.PointerObject): TrampPhysicalDevice {
    const k = key(next);
    let tramp = this.#tramps.get(k);
    if (!tramp) {
      tramp = new TrampPhysicalDevice(this, next);
      this.#tramps.set(k, tramp);
    }
    return tramp;
  }

  /** Every terminator physical device made so far. */
  get termPhysicalDevices(): Iterable<TermPhysicalDevice> {
    return this.#terms.values();
  }

  /** True once destroyed. */
  get destroyed(): boolean {
    return this.#destroyed;
  }

  /** Forgets every object and frees the tables (the drivers' instances must be destroyed already). */
  dispose(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    instances.delete(this.address);
    for (const t of this.#terms.values()) t.unregister();
    for (const t of this.#tramps.values()) t.unregister();
    this.wsi?.dispose();
    for (const d of this.drivers) d.dispose();
    this.table.dispose();
    this.arena.dispose();
  }
}

function object(arena: Arena, words: readonly bigint[]): { handle: Deno.PointerObject; address: bigint } {
  const buf = arena.alloc(words.length * 8, 8);
  const view = new BigUint64Array(buf.buffer, buf.byteOffset, words.length);
  words.forEach((w, i) => view[i] = w);
  const handle = arena.pointer(buf);
  return { handle, address: BigInt(Deno.UnsafePointer.value(handle)) };
}

/** Application-visible physical devices by address. */
export const trampPhysicalDevices: Map<bigint, TrampPhysicalDevice> = new Map();

/** Terminator physical devices by address. */
export const termPhysicalDevices: Map<bigint, TermPhysicalDevice> = new Map();

/** Terminator physical devices by the address of the driver's own `VkPhysicalDevice`. */
export const driverPhysicalDevices: Map<bigint, TermPhysicalDevice> = new Map();

/** A driver's physical device as the bottom of the chain sees it. */
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
      key(driverHandle),
    ]);
    this.handle = o.handle;
    this.address = o.address;
    this.driverInstance = driverInstance;
    this.driverHandle = driverHandle;
    termPhysicalDevices.set(this.address, this);
    driverPhysicalDevices.set(key(driverHandle), this);
  }

  /** Forgets the object (its memory goes with the instance's arena). */
  unregister(): void {
    termPhysicalDevices.delete(this.address);
    const k = key(this.driverHandle);
    if (driverPhysicalDevices.get(k) === this) {
      // A driver may hand the same VkPhysicalDevice to several instances: keep one that lives.
      const other = [...termPhysicalDevices.values()].find((t) => key(t.driverHandle) === k);
      if (other) driverPhysicalDevices.set(k, other);
      else driverPhysicalDevices.delete(k);
    }
  }
}

/** An application-visible physical device. */
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
    const o = object(instance.arena, [instance.table.address, key(next)]);
    this.handle = o.handle;
    this.address = o.address;
    this.next = next;
    this.instance = instance;
    trampPhysicalDevices.set(this.address, this);
  }

  /** The terminator physical device below, when no layer wrapped it. */
  get term(): TermPhysicalDevice | undefined {
    return termPhysicalDevices.get(key(this.next));
  }

  /** Forgets the object. */
  unregister(): void {
    trampPhysicalDevices.delete(this.address);
  }
}
