/**
 * The loader's two physical-device objects, as the Khronos loader has them:
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

import type { Arena } from "../ffi/memory.ts";
import type { DriverInstance } from "./driver_instance.ts";
import type { LoaderInstance } from "./instance.ts";
import { key } from "./_registry.ts";

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
