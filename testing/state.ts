/**
 * A mock driver's objects: dispatchable handles in native memory (the loader writes their first word),
 * non-dispatchable handles as unique numbers, each tracked with its type, device and data until destroyed.
 *
 * @module
 */
import { readPointer, readU32, readU64, writePointer } from "../ffi/memory.ts";
import { layoutOf } from "../vk/struct_layout.ts";
import { ICD_LOADER_MAGIC } from "../vk/handle.ts";
import { type HandleKey, handleKey, handleText } from "../vk/handle_key.ts";
import type { MockDeviceModel } from "./device.ts";

/** Hex text of a handle. */
export function hex(p: Deno.PointerValue | number): string {
  return handleText(handleKey(p));
}

const offsets = new Map<string, number>();

/** The byte offset of `member` in struct `struct` (from the generated layouts, cached). */
export function at(struct: string, member: string): number {
  const k = `${struct}.${member}`;
  let o = offsets.get(k);
  if (o === undefined) {
    const m = layoutOf(struct).members.find((x) => x.name === member);
    if (!m) throw new TypeError(`"${struct}" has no member "${member}"`);
    offsets.set(k, o = m.offset);
  }
  return o;
}

/** Reads a u32 member. */
export function u32(p: Deno.PointerObject, struct: string, member: string): number {
  return readU32(p, at(struct, member));
}

/** Reads a u64 member. */
export function u64(p: Deno.PointerObject, struct: string, member: string): bigint {
  return readU64(p, at(struct, member));
}

/** Reads a pointer or handle member. */
export function ptr(p: Deno.PointerObject, struct: string, member: string): Deno.PointerValue {
  return readPointer(p, at(struct, member));
}

/** Reads `count` pointers or handles from an array. */
export function pointers(p: Deno.PointerValue, count: number): Deno.PointerValue[] {
  const out: Deno.PointerValue[] = [];
  for (let i = 0; i < count && p !== null; i++) out.push(readPointer(p, i * 8));
  return out;
}

/** What a command-buffer is doing. */
export type CommandBufferState = "initial" | "recording" | "executable" | "invalid";

/** An object the mock made: its handle type, owner and per-type data. */
export interface MockObject {
  /** `VkBuffer`, `VkFence`, ... */
  readonly type: string;
  /** The handle as a number (the address, for dispatchable ones). */
  readonly key: number;
  /** The device it belongs to (undefined for instances and physical devices). */
  readonly device: MockLogicalDevice | undefined;
  /** For a dispatchable object: the native memory behind the handle. */
  readonly memory?: Uint8Array;
  /** Fences: signalled; semaphores: signalled or the timeline value. */
  signaled?: boolean;
  value?: bigint;
  timeline?: boolean;
  /** Buffers and images: size of their memory requirements; memory: allocation size. */
  size?: bigint;
  /** Memory: its type index, host bytes once mapped, whether mapped. */
  memoryType?: number;
  host?: Uint8Array;
  mapped?: boolean;
  /** Command buffers: their state, pool and recorded commands. */
  state?: CommandBufferState;
  pool?: number;
  commands?: string[];
  /** Descriptor sets: their pool. Pools: their sets or command buffers. */
  children?: Set<number>;
}

/** One `VkInstance` of the mock. */
export interface MockInstanceState {
  readonly object: MockObject;
  readonly apiVersion: number;
  readonly extensions: readonly string[];
  readonly physicalDevices: MockPhysicalDeviceState[];
}

/** One `VkPhysicalDevice` (per instance). */
export interface MockPhysicalDeviceState {
  readonly object: MockObject;
  readonly model: MockDeviceModel;
  readonly instance: MockInstanceState;
}

/** One `VkDevice` of the mock: its objects, queues and whether it was lost. */
export interface MockLogicalDevice {
  readonly object: MockObject;
  readonly physical: MockPhysicalDeviceState;
  readonly extensions: readonly string[];
  /** Queues by `family:index`. */
  readonly queues: Map<string, MockObject>;
  /** Live objects of this device (not the queues). */
  readonly objects: Map<HandleKey, MockObject>;
  /** Bytes allocated per heap. */
  readonly heapUsed: bigint[];
  lost: boolean;
}

/**
 * Handles of one mock driver.
 *
 * @example Usage
 * ```ts ignore
 * const handles = new MockHandles();
 * const obj = handles.dispatchable("VkInstance", undefined);
 * ```
 */
export class MockHandles {
  /** Every live object by handle. */
  readonly objects: Map<HandleKey, MockObject> = new Map();
  /** Dispatchable objects' memory, kept until the driver is disposed (a stale handle must not crash). */
  readonly #kept: Uint8Array[] = [];
  #next = 0x1000;
  /** Destroyed non-dispatchable handle values, the latest last, when they are given out again. */
  readonly #free: number[] | undefined;

  /** Handles; with `reuse`, a new non-dispatchable object takes the most recently destroyed one's value. */
  constructor(reuse = false) {
    this.#free = reuse ? [] : undefined;
  }

  /** A dispatchable object: native memory whose first word is `ICD_LOADER_MAGIC` (the loader overwrites it). */
  dispatchable(type: string, device: MockLogicalDevice | undefined): MockObject {
    const memory = new Uint8Array(64);
    new BigUint64Array(memory.buffer)[0] = ICD_LOADER_MAGIC;
    this.#kept.push(memory);
    const key = Number(Deno.UnsafePointer.value(Deno.UnsafePointer.of(memory)));
    const object: MockObject = { type, key, device, memory };
    this.objects.set(key, object);
    device?.objects.set(key, object);
    return object;
  }

  /** A non-dispatchable object with a fresh handle value, or a destroyed one's when reusing. */
  plain(type: string, device: MockLogicalDevice | undefined): MockObject {
    const key = this.#free?.pop() ?? (this.#next += 0x10);
    const object: MockObject = { type, key, device };
    this.objects.set(object.key, object);
    device?.objects.set(object.key, object);
    return object;
  }

  /** The live object of `handle`, if it is one of type `type` (any type when left out). */
  get(handle: Deno.PointerValue | number, type?: string): MockObject | undefined {
    const o = this.objects.get(handleKey(handle));
    return o === undefined || (type !== undefined && o.type !== type) ? undefined : o;
  }

  /** Forgets an object. */
  remove(object: MockObject): void {
    this.objects.delete(object.key);
    object.device?.objects.delete(object.key);
    if (object.memory === undefined) this.#free?.push(object.key);
  }

  /** Writes `object`'s handle at `out[index]`. */
  static write(out: Deno.PointerValue, object: MockObject, index = 0): void {
    if (out !== null) writePointer(out, index * 8, Deno.UnsafePointer.create(BigInt(object.key)));
  }
}
