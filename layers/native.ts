/**
 * TS layers between native layers: a `vkGetInstanceProcAddr` / `vkGetDeviceProcAddr` pair in TypeScript
 * that a native chain treats like a C layer's; calls the layers do not intercept never enter JavaScript.
 * Its entry points are thread guards (`ffi/thread_guard.ts`): calls from other threads go down to the next
 * link without the layers' hooks.
 *
 * @example Handing a bridge to a native chain
 * ```ts ignore
 * import { NativeLayerBridge } from "./native.ts";
 * import { apiDumpLayer } from "./api_dump.ts";
 * using bridge = new NativeLayerBridge([apiDumpLayer]);
 * // bridge.getInstanceProcAddr / bridge.getDeviceProcAddr go where a layer library's would.
 * ```
 *
 * @module
 */
import { callGetProcAddr, GET_PROC_ADDR, GET_PROC_ADDR_CALLBACK } from "../vk/proc_addr.ts";
import { COMMAND_INDEX, COMMANDS } from "../vk/generated/commands.ts";
import type { CommandInfo } from "../vk/generated/types.ts";
import { CallbackOwner } from "../ffi/callback.ts";
import { Arena, readCString, readPointer, readU32, writePointer } from "../ffi/memory.ts";
import { UnwrapStubs } from "../ffi/unwrap_stubs.ts";
import { callSite, callWith } from "./_call.ts";
import { commandInfo, dispatchKey } from "./_commands.ts";
import type { HandleKey } from "../vk/handle_key.ts";
import { Chassis, type ChassisOptions } from "./chassis.ts";
import type { Dispatch, TsLayer, VulkanCommand } from "./layer.ts";
import {
  VK_ERROR_EXTENSION_NOT_PRESENT,
  VK_ERROR_INITIALIZATION_FAILED,
} from "../vk/generated/vk_constants.js";
import { skipValue } from "./call.ts";
import type { LayerCommand } from "./command.ts";
import { commandDef } from "../vk/command_ffi.ts";
import { cstringBuffer } from "../ffi/libc.ts";
import { EntryGuards } from "./_guard.ts";

const LOADER_INSTANCE_CREATE_INFO = 47;
const LOADER_DEVICE_CREATE_INFO = 48;
const VK_LAYER_LINK_INFO = 0;

/**
 * One instance or device this link is part of, with the next link's functions. They are all resolved
 * in `vkCreateInstance` / `vkCreateDevice`, as C layers fill their dispatch tables there: the Khronos
 * loader's terminator `vkGetInstanceProcAddr` answers from the instance's dispatch table, which holds the
 * terminators only until the chain is built, and the top of the chain (this link) afterwards.
 */
interface ChainRecord {
  /** The instance or device handle the link was created with. */
  readonly handle: Deno.PointerValue;
  /** The next link's `vkGetInstanceProcAddr` or `vkGetDeviceProcAddr`. */
  readonly next: Deno.PointerObject;
  /** The next link's functions by command name (aliases under their command's name); 0n: none. */
  readonly addresses: Map<string, bigint>;
  /** The next link's `vk_layerGetPhysicalDeviceProcAddr` (instances only; null: none). */
  readonly nextPhysical?: Deno.PointerValue;
  /** `UnsafeFnPointer`s over them, for the fallback without native stubs. */
  readonly fns: Map<string, VulkanCommand | null>;
  /** False once its instance or device is destroyed. */
  alive: boolean;
}

/** Resolves every command of `levels` through `gpa`, as a layer fills its dispatch table. */
function resolveAll(
  gpa: Deno.PointerObject,
  handle: Deno.PointerValue,
  levels: readonly string[],
): Map<string, bigint> {
  const fn = new Deno.UnsafeFnPointer(gpa as Deno.PointerObject<never>, GET_PROC_ADDR);
  const out = new Map<string, bigint>();
  for (const info of COMMANDS) {
    if (!levels.includes(info.level)) continue;
    let p: Deno.PointerValue = null;
    for (const name of [info.name, ...info.aliases]) {
      p = fn.call(handle, cstringBuffer(name)) as Deno.PointerValue;
      if (p !== null) break;
    }
    out.set(info.name, BigInt(Deno.UnsafePointer.value(p)));
  }
  return out;
}

const INSTANCE_LEVELS = ["instance", "physical_device"] as const;
const DEVICE_LEVELS = ["device"] as const;

/**
 * Calls into the next link go through native unwrap stubs (`ffi/unwrap_stubs.ts`) declared with
 * `Deno.dlopen`, V8 fast calls: stub N reads a table and a handle from the object its first argument
 * points to, puts the handle in the first argument and jumps to the table's slot N. Before each call
 * the link writes the next function's address into slot N and the real handle into the object.
 */
const NEXT_SET = [{ prefix: "tsl_next_", tableOffset: 0, handleOffset: 8 }] as const;

function callable(pointer: Deno.PointerValue, info: CommandInfo): VulkanCommand | null {
  if (pointer === null) return null;
  const fn = new Deno.UnsafeFnPointer(pointer as Deno.PointerObject<never>, commandDef(info));
  return fn.call.bind(fn) as VulkanCommand;
}

/** Finds the first loader node of `sType` with `function == VK_LAYER_LINK_INFO` in a create info's pNext. */
function findLinkNode(createInfo: Deno.PointerValue, sType: number): Deno.PointerValue {
  if (createInfo === null) return null;
  for (let p = readPointer(createInfo, 8); p !== null; p = readPointer(p, 8)) {
    if (readU32(p, 0) === sType && readU32(p, 16) === VK_LAYER_LINK_INFO) return p;
  }
  return null;
}

/** Options of {@linkcode NativeLayerBridge}. */
export interface NativeLayerBridgeOptions extends ChassisOptions {
  /**
   * vk.xml's commands the link answers for even where the next link has none, besides those the layers'
   * extensions list: the `entrypoints` of the layer manifest's extensions.
   */
  entrypoints?: readonly string[];
}

/**
 * TS layers as one native chain link: a chassis behind C-callable `vkGetInstanceProcAddr` and
 * `vkGetDeviceProcAddr`.
 */
export class NativeLayerBridge implements Disposable {
  /** The chassis running the layers. */
  readonly chassis: Chassis;
  /** This link's `vkGetInstanceProcAddr`. */
  readonly getInstanceProcAddr: Deno.PointerObject;
  /** This link's `vkGetDeviceProcAddr`. */
  readonly getDeviceProcAddr: Deno.PointerObject;
  /**
   * `vk_layerGetPhysicalDeviceProcAddr`, when the layers provide physical-device commands (it answers
   * those and asks the next link for the rest); null otherwise: unknown physical-device commands pass by.
   */
  readonly getPhysicalDeviceProcAddr: Deno.PointerValue = null;
  /** The loader/layer interface this link speaks. */
  readonly interfaceVersion = 2;
  readonly #callbacks: CallbackOwner;
  readonly #own = new Map<string, (next: Deno.PointerValue) => Deno.PointerObject>();
  readonly #instances = new Map<HandleKey, ChainRecord>();
  readonly #devices = new Map<HandleKey, ChainRecord>();
  /** Commands the live validation objects intercept, made again when they change. */
  #interceptedNames: Set<string> | undefined;
  readonly #stubs: UnwrapStubs;
  readonly #arena = new Arena();
  /** Slot N: the next function of the command with index N, written before each call. */
  readonly #table: BigUint64Array;
  /** `{ table, handle }`: what the stubs' first argument points to. */
  readonly #proxyPointer: Deno.PointerObject;
  /** Its handle word, written before each call by a native store (no address read in JavaScript). */
  readonly #proxyHandle: Deno.PointerObject;
  /** Guards in front of every entry point handed out. */
  readonly #guards: EntryGuards;
  /** vk.xml's commands the manifest lists as its extensions' entrypoints. */
  readonly #entrypoints: ReadonlySet<string>;
  #disposed = false;

  /** A link running `layers` (first closest to the application). */
  constructor(layers: readonly TsLayer[], options: NativeLayerBridgeOptions = {}) {
    this.#callbacks = new CallbackOwner();
    this.#entrypoints = new Set(options.entrypoints ?? []);
    this.#stubs = UnwrapStubs.load(COMMANDS.map((c) => c.name), NEXT_SET);
    const table = this.#arena.alloc(8 * COMMANDS.length, 8);
    const proxy = this.#arena.alloc(16, 8);
    this.#table = new BigUint64Array(table.buffer, table.byteOffset, COMMANDS.length);
    new BigUint64Array(proxy.buffer, proxy.byteOffset, 1)[0] = BigInt(
      Deno.UnsafePointer.value(this.#arena.pointer(table)),
    );
    this.#proxyPointer = this.#arena.pointer(proxy);
    this.#proxyHandle = Deno.UnsafePointer.offset(this.#proxyPointer, 8)!;
    this.chassis = new Chassis(layers, this.#routedDispatch(), options);
    this.chassis.onChange(() => this.#interceptedNames = undefined);
    // Grows as entry points are handed out: the layers' objects, made per instance, say what they intercept.
    this.#guards = new EntryGuards(() => layers);
    this.getInstanceProcAddr = this.#guards.guard(
      "vkGetInstanceProcAddr",
      this.#callbacks.create(
        GET_PROC_ADDR_CALLBACK,
        (instance, pName) => this.#gipa(instance, readCString(pName)),
        { name: "TS layer vkGetInstanceProcAddr" },
      ).pointer,
    );
    this.getDeviceProcAddr = this.#guards.guard(
      "vkGetDeviceProcAddr",
      this.#callbacks.create(
        GET_PROC_ADDR_CALLBACK,
        (device, pName) => this.#gdpa(device, readCString(pName)),
        { name: "TS layer vkGetDeviceProcAddr" },
      ).pointer,
    );
    const physical = [...this.chassis.commands().values()].some((c) => c.level === "physical_device") ||
      COMMANDS.some((c) => c.level === "physical_device" && this.#provides(c.name));
    if (physical) {
      this.getPhysicalDeviceProcAddr = this.#guards.guard(
        "vkGetInstanceProcAddr",
        this.#callbacks.create(
          GET_PROC_ADDR_CALLBACK,
          (instance, pName) => this.#gpdpa(instance, readCString(pName)),
          { name: "TS layer vk_layerGetPhysicalDeviceProcAddr" },
        ).pointer,
      );
    }
  }

  /** Whether the link answers for vk.xml's command `name` even where the next link has none. */
  #provides(name: string): boolean {
    const info = COMMAND_INDEX[name] === undefined ? undefined : commandInfo(name);
    return info !== undefined &&
      [info.name, ...info.aliases].some((n) => this.#entrypoints.has(n) || this.chassis.provides(n));
  }

  /** LI08: the layers' physical-device commands, else the next link's answer. */
  #gpdpa(instance: Deno.PointerValue, name: string): Deno.PointerValue {
    const made = this.chassis.commands().get(name);
    if (made !== undefined) return made.level === "physical_device" ? this.#ownPointer(made, null) : null;
    const rec = instance === null ? undefined : this.#instances.get(dispatchKey(instance));
    if (
      COMMAND_INDEX[name] !== undefined && commandInfo(name).level === "physical_device" &&
      this.#provides(name)
    ) {
      return this.#ownPointer(name, rec ? this.#nextAddress(rec, name) : null);
    }
    const next = rec?.nextPhysical ?? null;
    return next === null ? null : callGetProcAddr(next, instance, name);
  }

  get #intercepted(): Set<string> {
    return this.#interceptedNames ??= this.chassis.intercepted();
  }

  /** Instances and devices this link is part of now. */
  get live(): { instances: number; devices: number } {
    return { instances: this.#instances.size, devices: this.#devices.size };
  }

  #gipa(instance: Deno.PointerValue, name: string): Deno.PointerValue {
    switch (name) {
      case "vkGetInstanceProcAddr":
        return this.getInstanceProcAddr;
      case "vkGetDeviceProcAddr":
        return this.getDeviceProcAddr;
      case "vkCreateInstance":
      case "vkCreateDevice":
        // Another thread's call cannot go down untouched: the link must advance the loader's chain info.
        return this.#ownPointer(name, null);
    }
    // A command the layers add: theirs alone (docs/behaviour.md V22).
    const made = this.chassis.commands().get(name);
    if (made !== undefined) return instance === null ? null : this.#ownPointer(made, null);
    const rec = instance === null ? undefined : this.#instances.get(dispatchKey(instance));
    const next = rec ? this.#nextAddress(rec, name) : null;
    if (name === "vkDestroyInstance") return this.#ownPointer(name, next);
    // Global commands other than vkCreateInstance never go through a layer's vkGetInstanceProcAddr.
    const layered = name in COMMAND_INDEX && commandInfo(name).level !== "global";
    const answers = rec === undefined || next !== null || this.#provides(name);
    if (this.#intercepted.has(name) && layered && answers) return this.#ownPointer(name, next);
    return next;
  }

  #gdpa(device: Deno.PointerValue, name: string): Deno.PointerValue {
    if (name === "vkGetDeviceProcAddr") return this.getDeviceProcAddr;
    const rec = this.#devices.get(dispatchKey(device));
    if (!rec) return null;
    const made = this.chassis.commands().get(name);
    if (made !== undefined) return made.level === "device" ? this.#ownPointer(made, null) : null;
    const next = this.#nextAddress(rec, name);
    if (name === "vkDestroyDevice") return this.#ownPointer(name, next);
    if (
      this.#intercepted.has(name) && COMMAND_INDEX[name] !== undefined && commandInfo(name).level === "device"
    ) {
      // Only commands the device has (the next link decides what exists), and those the layers provide.
      return next === null && !this.#provides(name) ? null : this.#ownPointer(name, next);
    }
    return next;
  }

  /**
   * The next link's function for `name`: from the table resolved at creation, or asked now for names the
   * generated tables do not know.
   */
  #nextAddress(rec: ChainRecord, name: string): Deno.PointerValue {
    const index = COMMAND_INDEX[name];
    if (index === undefined) return callGetProcAddr(rec.next, rec.handle, name);
    const address = rec.addresses.get(COMMANDS[index]!.name);
    return address === undefined || address === 0n ? null : Deno.UnsafePointer.create(address);
  }

  /**
   * This link's entry point for `command` (vk.xml's, by name, or one the layers add); other threads' calls
   * go down to `next` (null: they fail).
   */
  #ownPointer(command: string | LayerCommand, next: Deno.PointerValue): Deno.PointerObject {
    const name = typeof command === "string" ? command : command.name;
    let entry = this.#own.get(name);
    if (!entry) {
      const fn = typeof command === "string" ? this.#entry(command) : this.chassis.provider(command);
      entry = this.#guards.command(this.#callbacks, command, fn, `TS layer ${name}`);
      this.#own.set(name, entry);
    }
    return entry(next);
  }

  /** The JS function behind this link's entry point for `name`: the chassis around the next link. */
  #entry(name: string): VulkanCommand {
    switch (name) {
      case "vkCreateInstance":
        return this.chassis.wrap(
          name,
          () => (pCreateInfo, pAllocator, pInstance) =>
            this.#createInstance(pCreateInfo, pAllocator, pInstance),
        );
      case "vkCreateDevice":
        return this.chassis.wrap(
          name,
          () => (pd, pCreateInfo, pAllocator, pDevice) =>
            this.#createDevice(pd, pCreateInfo, pAllocator, pDevice),
        );
      case "vkDestroyInstance": {
        const wrapped = this.chassis.wrap(name, () => this.#route(name));
        return (instance: Deno.PointerValue, pAllocator: Deno.PointerValue) => {
          const key = dispatchKey(instance);
          wrapped(instance, pAllocator);
          this.#forget(this.#instances, key);
        };
      }
      case "vkDestroyDevice": {
        const wrapped = this.chassis.wrap(name, () => this.#route(name));
        return (device: Deno.PointerValue, pAllocator: Deno.PointerValue) => {
          const key = dispatchKey(device);
          wrapped(device, pAllocator);
          this.#forget(this.#devices, key);
        };
      }
    }
    if (!this.#provides(name)) return this.chassis.wrap(name, () => this.#route(name));
    // Provided: where the next link has none, a hook answers (ctx.skip), or the call finds no extension.
    const info = commandInfo(name);
    const records = info.level === "device" ? this.#devices : this.#instances;
    const unanswered = info.result === "VkResult" ? VK_ERROR_EXTENSION_NOT_PRESENT : skipValue(info);
    return this.chassis.wrap(name, () => {
      const route = this.#route(name);
      return (...args: unknown[]) => {
        const rec = records.size === 1
          ? records.values().next().value
          : records.get(dispatchKey(args[0] as Deno.PointerValue));
        return (rec?.addresses.get(info.name) ?? 0n) === 0n ? unanswered : callWith(route, args);
      };
    });
  }

  #createInstance(
    pCreateInfo: Deno.PointerValue,
    pAllocator: Deno.PointerValue,
    pInstance: Deno.PointerValue,
  ): number {
    const node = findLinkNode(pCreateInfo, LOADER_INSTANCE_CREATE_INFO);
    const link = node === null ? null : readPointer(node, 24);
    if (node === null || link === null) return VK_ERROR_INITIALIZATION_FAILED;
    const nextGipa = readPointer(link, 8);
    if (nextGipa === null) return VK_ERROR_INITIALIZATION_FAILED;
    const nextPhysical = readPointer(link, 16);
    // Move the chain on for the layers below, as every layer does.
    writePointer(node, 24, readPointer(link, 0));
    const create = callable(
      callGetProcAddr(nextGipa, null, "vkCreateInstance"),
      commandInfo("vkCreateInstance"),
    );
    if (!create) return VK_ERROR_INITIALIZATION_FAILED;
    const result = create(pCreateInfo, pAllocator, pInstance) as number;
    if (result >= 0) {
      const instance = readPointer(pInstance, 0);
      const addresses = resolveAll(nextGipa, instance, INSTANCE_LEVELS);
      this.#instances.set(dispatchKey(instance), {
        handle: instance,
        next: nextGipa,
        nextPhysical,
        addresses,
        fns: new Map(),
        alive: true,
      });
    }
    return result;
  }

  #createDevice(
    physicalDevice: Deno.PointerValue,
    pCreateInfo: Deno.PointerValue,
    pAllocator: Deno.PointerValue,
    pDevice: Deno.PointerValue,
  ): number {
    const node = findLinkNode(pCreateInfo, LOADER_DEVICE_CREATE_INFO);
    const link = node === null ? null : readPointer(node, 24);
    if (node === null || link === null) return VK_ERROR_INITIALIZATION_FAILED;
    const nextGipa = readPointer(link, 8);
    const nextGdpa = readPointer(link, 16);
    if (nextGipa === null || nextGdpa === null) return VK_ERROR_INITIALIZATION_FAILED;
    writePointer(node, 24, readPointer(link, 0));
    const instance = this.#instances.get(dispatchKey(physicalDevice))?.handle ?? null;
    const create = callable(
      callGetProcAddr(nextGipa, instance, "vkCreateDevice"),
      commandInfo("vkCreateDevice"),
    );
    if (!create) return VK_ERROR_INITIALIZATION_FAILED;
    const result = create(physicalDevice, pCreateInfo, pAllocator, pDevice) as number;
    if (result >= 0) {
      const device = readPointer(pDevice, 0);
      const addresses = resolveAll(nextGdpa, device, DEVICE_LEVELS);
      this.#devices.set(dispatchKey(device), {
        handle: device,
        next: nextGdpa,
        addresses,
        fns: new Map(),
        alive: true,
      });
    }
    return result;
  }

  #forget(records: Map<HandleKey, ChainRecord>, key: HandleKey): void {
    const rec = records.get(key);
    if (rec) rec.alive = false;
    records.delete(key);
  }

  /** The next link's function for `name`, found from the dispatchable first argument of each call. */
  #route(name: string): VulkanCommand {
    const info = commandInfo(name);
    const device = info.level === "device";
    const lookup = (handle: Deno.PointerValue): ChainRecord => {
      const records = device ? this.#devices : this.#instances;
      // One device (or instance) on this link, the usual case: no need to read the handle's dispatch key
      // (~100 ns through Deno.UnsafePointerView).
      if (records.size === 1) return records.values().next().value!;
      const rec = records.get(dispatchKey(handle));
      if (!rec) {
        throw new TypeError(
          `Cannot call "${name}": the TS layer link knows no ${
            device ? "device" : "instance"
          } for its handle`,
        );
      }
      return rec;
    };
    const addressOf = (rec: ChainRecord): bigint => {
      const address = rec.addresses.get(info.name) ?? 0n;
      if (address === 0n) throw new TypeError(`Cannot call "${name}": the next link has no such command`);
      return address;
    };
    if (!this.#stubs.native) {
      return (...args: unknown[]) => {
        const rec = lookup(args[0] as Deno.PointerValue);
        let fn = rec.fns.get(info.name);
        if (fn === undefined) {
          rec.fns.set(info.name, fn = callable(Deno.UnsafePointer.create(addressOf(rec)), info));
        }
        return fn!(...args);
      };
    }
    const slot = info.index;
    const store = this.#stubs.helper("vkdeno_store_pointer");
    let stub: VulkanCommand | undefined;
    // The last record and its next function: with one instance (or device) on the link, the only one.
    let last: ChainRecord | undefined;
    let address = 0n;
    const records = device ? this.#devices : this.#instances;
    const p = this.#proxyPointer;
    /** The stub, with the next function in its slot and `handle` in the proxy. */
    const next = (handle: Deno.PointerValue): VulkanCommand => {
      if (last === undefined || !last.alive || records.size !== 1) {
        last = lookup(handle);
        address = addressOf(last);
      }
      stub ??= this.#stubs.bind(0, slot, commandDef(info)) as VulkanCommand;
      this.#table[slot] = address;
      store(this.#proxyHandle, handle);
      return stub;
    };
    // Fixed arities, not a rest parameter (an array per call costs), and a call site of the command's own
    // (a spread call into a Deno.dlopen function, or one from a site other commands share, is slow).
    type H = Deno.PointerValue;
    const s = callSite(info.params.length);
    switch (info.params.length) {
      case 1:
        return (h: H) => s(next(h), p);
      case 2:
        return (h: H, a: unknown) => s(next(h), p, a);
      case 3:
        return (h: H, a: unknown, b: unknown) => s(next(h), p, a, b);
      case 4:
        return (h: H, a: unknown, b: unknown, c: unknown) => s(next(h), p, a, b, c);
      case 5:
        return (h: H, a: unknown, b: unknown, c: unknown, d: unknown) => s(next(h), p, a, b, c, d);
    }
    return (...args: unknown[]) => {
      const f = next(args[0] as H);
      args[0] = p;
      return callWith(f, args);
    };
  }

  #routedDispatch(): Dispatch {
    const dispatch: Record<string, unknown> = {};
    for (const name of Object.keys(COMMAND_INDEX)) {
      Object.defineProperty(dispatch, name, {
        configurable: true,
        enumerable: true,
        get: () => {
          const fn = this.#route(name);
          // Delete first: V8 turns an accessor into data on a large object far slower.
          delete dispatch[name];
          Object.defineProperty(dispatch, name, { value: fn, enumerable: true });
          return fn;
        },
      });
    }
    return dispatch as unknown as Dispatch; // a direct cast compares every command (docs/performance.md)
  }

  /**
   * Closes the callbacks and disposes the layers. Only after every instance using this link is
   * destroyed: a C caller of a closed callback crashes the process.
   */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.chassis.dispose();
    this.#callbacks.dispose();
    this.#stubs.dispose();
    this.#guards[Symbol.dispose]();
    this.#arena.dispose();
  }

  /** Same as {@linkcode NativeLayerBridge.dispose}. */
  [Symbol.dispose](): void {
    this.dispose();
  }
}
