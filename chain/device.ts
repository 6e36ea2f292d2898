/**
 * Devices: the driver's `VkDevice` handed to the application, its first word (the driver's
 * `ICD_LOADER_MAGIC`) replaced by the loader's device dispatch table, which is filled from the top of the
 * device chain. Without layers the chain's only link is the driver's own `vkGetDeviceProcAddr`, so every
 * slot holds the driver's function and a dispatch stub jumps straight into the driver.
 *
 * @module
 */

import { DispatchTable } from "../ffi/dispatch.ts";
import { cstringBuffer } from "../ffi/libc.ts";
import { fnFromPointer } from "../ffi/library.ts";
import { readCString, readPointer, readU32, readU64, writeU64 } from "../ffi/memory.ts";
import type { DriverInstance } from "./driver_instance.ts";
import type { LoaderInstance, TermPhysicalDevice } from "./instance.ts";
import { key } from "./_registry.ts";
import { ICD_LOADER_MAGIC, offsetOf } from "../loading/_layout.ts";
import { type ChainStubs, chainStubs, DEVICE_TABLE_SLOTS } from "./stubs.ts";
import { fillDeviceCommands } from "./table_fill.ts";

const GDPA_DEF = { parameters: ["pointer", "buffer"], result: "pointer" } as const;

/** The extensions named in a `VkDeviceCreateInfo`. */
export function deviceCreateInfoExtensions(p: Deno.PointerValue): string[] {
  if (p === null) return [];
  const s = "VkDeviceCreateInfo";
  const n = readU32(p, offsetOf(s, "enabledExtensionCount"));
  const names = readPointer(p, offsetOf(s, "ppEnabledExtensionNames"));
  const out: string[] = [];
  for (let i = 0; i < n && names !== null; i++) out.push(readCString(readPointer(names, i * 8)));
  return out;
}

/**
 * Devices the terminator made whose chain has not returned yet (innermost last): the trampoline's
 * `deviceCreated` takes them, whatever handle the top of the chain hands back.
 */
export const pendingDevices: LoaderDevice[] = [];

/** A device by any of its handles, or by the dispatch table in its first word. */
export function findDevice(handle: Deno.PointerValue): LoaderDevice | undefined {
  const direct = devices.get(key(handle));
  if (direct || handle === null) return direct;
  const word = readU64(handle, 0);
  for (const d of devices.values()) if (d.table.address === word) return d;
  return undefined;
}

/** Whether a driver's dispatchable object starts with `ICD_LOADER_MAGIC`. */
export function hasLoaderMagic(handle: Deno.PointerValue): boolean {
  return handle !== null && readU64(handle, 0) === ICD_LOADER_MAGIC;
}

/** Devices by the address of their `VkDevice` (the driver's object, stamped with the loader's table). */
export const devices: Map<bigint, LoaderDevice> = new Map();

/** A device made by the loader. */
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
  /** Slots the chain filled with a real function. */
  readonly supported: Set<number> = new Set();
  /** The top of the device chain's `vkGetDeviceProcAddr` and the handle it knows (set by the trampoline). */
  top: { getDeviceProcAddr: (name: string) => Deno.PointerValue } | undefined;
  /** The bottom of the device chain: the driver's `vkGetDeviceProcAddr`. */
  readonly driverGetDeviceProcAddr: Deno.PointerValue;
  #gdpa: Deno.UnsafeFnPointer<typeof GDPA_DEF> | undefined;
  #aliases = new Set<bigint>();

  constructor(instance: LoaderInstance, physicalDevice: TermPhysicalDevice, handle: Deno.PointerObject) {
    this.instance = instance;
    this.physicalDevice = physicalDevice;
    this.handle = handle;
    this.address = key(handle);
    this.driverGetDeviceProcAddr = physicalDevice.driverInstance.procAddr("vkGetDeviceProcAddr");
    if (this.driverGetDeviceProcAddr) this.#gdpa = fnFromPointer(this.driverGetDeviceProcAddr, GDPA_DEF);
    devices.set(this.address, this);
    instance.devices.add(this);
  }

  /** The driver instance. */
  get driverInstance(): DriverInstance {
    return this.physicalDevice.driverInstance;
  }

  /** The driver's `vkGetDeviceProcAddr(device, name)`. */
  driverProcAddr(name: string): Deno.PointerValue {
    return this.#gdpa ? this.#gdpa.call(this.handle, cstringBuffer(name)) : null;
  }

  /** Writes the table's address into the device's first word. */
  stamp(): void {
    writeU64(this.handle, 0, this.table.address);
  }

  /**
   * Fills every device slot through `gdpa(handle, name)` in one native call (chain/table_fill.ts); with
   * `slow`, the names it accepts are asked through `procAddr` instead. Unknown device commands taken so
   * far fill their reserved slots through `procAddr`.
   */
  fillTableFrom(
    stubs: ChainStubs,
    empty: Deno.PointerValue,
    gdpa: Deno.PointerObject,
    handle: Deno.PointerValue,
    procAddr: (name: string) => Deno.PointerValue,
    unknown: Iterable<[string, number]> = [],
    slow?: (name: string) => boolean,
  ): void {
    fillDeviceCommands(
      stubs,
      gdpa,
      handle,
      (slot, fn) => this.setSlot(slot, fn, empty),
      slow ? { asks: slow, procAddr } : undefined,
    );
    for (const [name, slot] of unknown) this.setSlot(slot, procAddr(name), empty);
  }

  /** Also finds this device by `handle` (a layer's wrapper handed to the application). */
  addAlias(handle: Deno.PointerValue): void {
    const k = key(handle);
    if (k === 0n || k === this.address) return;
    this.#aliases.add(k);
    devices.set(k, this);
  }

  /** Sets one slot (`empty` for null). */
  setSlot(slot: number, fn: Deno.PointerValue, empty: Deno.PointerValue): void {
    if (fn === null) this.supported.delete(slot);
    else this.supported.add(slot);
    const stamped = fn === null ? undefined : chainStubs().stampedQueueSlots.get(slot);
    if (stamped) {
      // The slot runs native code that calls `fn` (kept in a hidden word) and stamps the queue.
      this.table.set(stamped.next, fn);
      this.table.set(slot, stamped.helper);
    } else {
      this.table.set(slot, fn ?? empty);
    }
  }

  /** Forgets the device and frees its table (the driver's device must be destroyed already). */
  dispose(): void {
    if (this.table.disposed) return;
    devices.delete(this.address);
    for (const k of this.#aliases) if (devices.get(k) === this) devices.delete(k);
    this.instance.devices.delete(this);
    this.table.dispose();
  }
}
