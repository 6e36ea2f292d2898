/**
 * {@linkcode VkApi}: every Vulkan command the idiomatic way, over any command source (vkdeno's `Vulkan`, the
 * libvulkan wrapper, a device table): named without `vk`, throwing a `VkError` on a negative `VkResult`,
 * arrays for count + pointer pairs, struct literals for struct pointers, outputs returned. Each command is
 * compiled from its generated plan on first use (api/compile.ts).
 *
 * @module
 */
import type { VkIdiomaticCommands } from "../vk/generated/vk_idiomatic.ts";
import { type Destroyer, DESTROYERS } from "../vk/generated/lifecycles.ts";
import { isPointerObject } from "../vk/scalar.ts";
import { type CommandOwner, compileCommand, isCommand as isVkCommand, RUNTIME, targetOf } from "./compile.ts";
import { checkedCall, withHandleChecks } from "../vk/handle_check_interface.ts";
import { COMMAND_PARAMS } from "../vk/generated/commands.ts";
import type { VkCommandSource } from "./create.ts";

export type { VkCommandSource };

type Fn = (...args: unknown[]) => unknown;

/** Destroy command -> where its handle is among the arguments (after the parent, when it takes one). */
let destroyAt: Map<string, number> | undefined;
function destroyedArgument(command: string): number | undefined {
  if (!destroyAt) {
    destroyAt = new Map();
    for (const d of Object.values(DESTROYERS)) destroyAt.set(d.destroy, d.parent ? 1 : 0);
  }
  return destroyAt.get(command);
}

/**
 * Handle objects ended through any `VkApi`, with why: destroyed, or destroyed with a parent (a pool, a device,
 * an instance). Destroying one again or calling a command on one throws instead of reaching the driver
 * (docs/behaviour.md V11). Kept by object, not address: a driver may give a new object the address of a
 * destroyed one, and the handle a create command returns is always a new JavaScript object.
 */
const ended = RUNTIME.ended;
/** Handles made through any `VkApi` by their parent: a pool's buffers and sets, a device's objects and queues. */
const childrenOf = new WeakMap<object, Set<Deno.PointerObject>>();
const parentOf = new WeakMap<object, Deno.PointerObject>();
/** Queue family -> queue count of devices created through any `VkApi`, from their `pQueueCreateInfos`. */
const queuesOf = new WeakMap<object, Map<number, number>>();

const DESTROYED = "was destroyed already (through VkApi)";

/** A scope's entry for an object it will destroy: a new object per entry, naming the destroy command. */
interface OwnedEntry {
  readonly destroy: string;
}

/** Records `child` as made from `parent`, so ending the parent ends it. */
function adopt(parent: unknown, child: Deno.PointerObject): void {
  if (!isPointerObject(parent)) return;
  let children = childrenOf.get(parent);
  if (!children) childrenOf.set(parent, children = new Set());
  children.add(child);
  parentOf.set(child, parent);
}

/**
 * The destroy and free commands that end a dispatchable handle, a command buffer or a descriptor set: they
 * start a new `RUNTIME.epoch` (api/compile.ts), which the checks of parameters of those types read.
 */
const ENDS_CHECKED: ReadonlySet<string> = new Set([
  "vkDestroyInstance",
  "vkDestroyDevice",
  "vkFreeCommandBuffers",
  "vkFreeDescriptorSets",
]);

/** Ends `h` for `why`, and its children (transitively) as destroyed with it: a `type` destroyed by `command`. */
function end(h: Deno.PointerObject, why: string, type: () => string, command: string): void {
  // Its parent and children looked up before it is recorded: a handle no table holds yet has no identity
  // hash, and a lookup of such a key returns at once.
  const parent = parentOf.get(h);
  if (parent) childrenOf.get(parent)?.delete(h);
  const children = childrenOf.has(h);
  RUNTIME.end(h, why, ENDS_CHECKED.has(command));
  // The message (an address read, ~150 ns) only for a handle that has children.
  if (children) {
    endChildren(
      h,
      `was destroyed with its ${type()} 0x${address(h).toString(16)} (${command} through VkApi)`,
    );
  }
}

/** Ends the children of `h` (transitively) for `why`. */
function endChildren(h: Deno.PointerObject, why: string): void {
  const children = childrenOf.get(h);
  if (!children) return;
  childrenOf.delete(h);
  for (const child of children) {
    parentOf.delete(child);
    RUNTIME.end(child, why, true);
    endChildren(child, why);
  }
}

/** The queue counts a `VkDeviceCreateInfo` literal asks for, by family. */
function queueCounts(info: unknown): Map<number, number> | undefined {
  const infos = (info as { pQueueCreateInfos?: unknown } | null)?.pQueueCreateInfos;
  if (!Array.isArray(infos)) return undefined;
  const counts = new Map<number, number>();
  for (const q of infos as { queueFamilyIndex?: number; queueCount?: number; pQueuePriorities?: unknown }[]) {
    const n = q.queueCount ?? (Array.isArray(q.pQueuePriorities) ? q.pQueuePriorities.length : 0);
    counts.set(q.queueFamilyIndex ?? 0, n);
  }
  return counts;
}

/** Refuses a queue `device` was not created with (when it was created through a `VkApi`). */
function checkQueue(command: string, device: unknown, family: unknown, index: unknown): void {
  const counts = isPointerObject(device) ? queuesOf.get(device) : undefined;
  if (!counts || typeof family !== "number" || typeof index !== "number") return;
  const n = counts.get(family);
  if (n === undefined) {
    throw new RangeError(
      `${command}: queueFamilyIndex ${family} is not a family the device was created with (${
        [...counts.keys()].join(", ")
      })`,
    );
  }
  if (index >= n) {
    throw new RangeError(
      `${command}: queueIndex ${index} is out of range: family ${family} of this device has ${n} queue${
        n === 1 ? "" : "s"
      }`,
    );
  }
}

/**
 * Commands whose outputs have a parent that is not their first argument, or that end handles without being
 * destroy commands: where the parent is, and what to check or end.
 */
interface Lifecycle {
  parent?: (args: unknown[]) => unknown;
  before?: (args: unknown[]) => void;
  ends?: true;
}
const LIFECYCLE: Readonly<Record<string, Lifecycle>> = {
  vkCreateDevice: { parent: (args) => args[0] },
  vkEnumeratePhysicalDevices: { parent: (args) => args[0] },
  vkAllocateCommandBuffers: { parent: (args) => (args[1] as { commandPool?: unknown } | null)?.commandPool },
  vkAllocateDescriptorSets: {
    parent: (args) => (args[1] as { descriptorPool?: unknown } | null)?.descriptorPool,
  },
  vkGetDeviceQueue: {
    parent: (args) => args[0],
    before: (args) => checkQueue("vkGetDeviceQueue", args[0], args[1], args[2]),
  },
  vkGetDeviceQueue2: {
    parent: (args) => args[0],
    before: (args) => {
      const info = args[1] as { queueFamilyIndex?: unknown; queueIndex?: unknown; flags?: unknown } | null;
      if (!info || info.flags) return; // protected queues are counted apart
      checkQueue("vkGetDeviceQueue2", args[0], info.queueFamilyIndex ?? 0, info.queueIndex ?? 0);
    },
  },
  vkFreeCommandBuffers: { ends: true },
  vkFreeDescriptorSets: { ends: true },
  vkResetDescriptorPool: { ends: true },
};

/**
 * Create commands whose handles have children VkApi ends with them (pools' command buffers and descriptor
 * sets), beside the LIFECYCLE commands: they are recorded as their device's children.
 */
const PARENTS: ReadonlySet<string> = new Set(["vkCreateCommandPool", "vkCreateDescriptorPool"]);

function address(h: unknown): bigint {
  return BigInt(Deno.UnsafePointer.value(h as Deno.PointerValue));
}

/** `createBuffer` -> `vkCreateBuffer`. */
function vkName(name: string): string {
  return `vk${name[0]!.toUpperCase()}${name.slice(1)}`;
}

/** The unmap commands, and where their arguments name the memory. */
const UNMAPS: Readonly<Record<string, (args: unknown[]) => unknown>> = {
  vkUnmapMemory: (args) => args[1],
  vkUnmapMemory2: (args) => (args[1] as { memory?: unknown } | undefined)?.memory,
};

function isCommand(name: string): boolean {
  return /^[a-z]/.test(name) && isVkCommand(vkName(name));
}

/** The commands of {@linkcode VkApi}: every Vulkan command and alias, idiomatic (generated from vk.xml). */
export interface VkApi extends VkIdiomaticCommands {}

/**
 * Every Vulkan command the idiomatic way, beside the raw C-shaped ones of its command source. Get one with
 * {@linkcode VkApi.of}; {@linkcode VkApi.scope} gives one that destroys what it creates.
 *
 * - Names drop the `vk` prefix: `vkCreateBuffer` is `createBuffer`; `pAllocator` is left out (always null).
 * - A negative `VkResult` throws a `VkError` naming the command and the result. Commands whose other success
 *   codes carry meaning (`VK_TIMEOUT`, `VK_NOT_READY`, `VK_SUBOPTIMAL_KHR`, ...) return the code's name;
 *   `VK_INCOMPLETE` is handled inside two-call enumerations.
 * - Outputs are returned: created handles (arrays sized from the inputs for `allocateCommandBuffers` or
 *   `createGraphicsPipelines`), queried structs as objects (ask for pNext structs by name), two-call
 *   arrays, mapped memory as an `ArrayBuffer` (detached, 0 bytes long, once `unmapMemory` or `freeMemory`
 *   through this object or its scopes gives the memory back; unmapped through the raw commands, it must not be
 *   touched again). Several outputs (or a success code and outputs) come back as one object keyed by the
 *   parameter names without their `p`: `{ result, pipelines }`.
 * - Inputs are JavaScript values: arrays for count + pointer pairs (the count is filled in), struct literals
 *   as `writeStruct` takes them, strings, `boolean` for `VkBool32`. Memory for a call lives for that call.
 *
 * @example A buffer and its memory requirements (lavapipe or any driver)
 * ```ts ignore
 * import { VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, VkApi, Vulkan } from "@vkdeno/loader";
 * using raw = Vulkan.load();
 * using vk = VkApi.of(raw).scope(); // destroys what it creates, last first
 * const instance = vk.createInstance({ pApplicationInfo: { apiVersion: vk.enumerateInstanceVersion() } });
 * const [gpu] = vk.enumeratePhysicalDevices(instance);
 * const device = vk.createDevice(gpu!, { pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }] });
 * const buffer = vk.createBuffer(device, { size: 4096n, usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT });
 * console.log(vk.getBufferMemoryRequirements(device, buffer).size); // 4096n
 * ```
 */
export class VkApi implements Disposable {
  /** The command source: its raw commands, by their Vulkan names. */
  readonly raw: VkCommandSource;
  #stack: DisposableStack | undefined;
  #sizes: Map<bigint, bigint>;
  /**
   * What the scopes sharing this object's state will destroy, by address, with the scope's entry (a token
   * naming its destroy command): dropped when that command destroys it early through any of them, or when a
   * create command through any of them makes its address again.
   */
  #owned: Map<bigint, OwnedEntry>;
  /** What compiled commands ask of this object: the sizes of the memory allocated through it. */
  #hooks: CommandOwner = {
    noteAllocation: (memory, size) => {
      if (memory === null || (typeof size !== "bigint" && typeof size !== "number")) return;
      this.#sizes.set(BigInt(Deno.UnsafePointer.value(memory)), BigInt(size));
    },
    allocationSize: (memory) =>
      memory === null ? undefined : this.#sizes.get(BigInt(Deno.UnsafePointer.value(memory))),
    noteMapping: (memory, mapped) => {
      if (memory === null) return;
      const k = address(memory);
      this.#mapped.set(k, [...(this.#mapped.get(k) ?? []), mapped]);
    },
  };
  /** ArrayBuffers over mapped memory, by memory address: detached when it is unmapped or freed. */
  #mapped: Map<bigint, ArrayBuffer[]>;

  private constructor(
    raw: VkCommandSource,
    owning: boolean,
    sizes: Map<bigint, bigint>,
    owned: Map<bigint, OwnedEntry> = new Map(),
    mapped: Map<bigint, ArrayBuffer[]> = new Map(),
  ) {
    this.raw = raw;
    this.#stack = owning ? new DisposableStack() : undefined;
    this.#sizes = sizes;
    this.#owned = owned;
    this.#mapped = mapped;
  }

  /**
   * Detaches the ArrayBuffers this object returned over the memory at `k`, so that a later access reads a
   * 0-byte buffer rather than unmapped memory (a write there kills the process).
   */
  #unmapped(k: bigint): void {
    for (const mapped of this.#mapped.get(k) ?? []) if (!mapped.detached) mapped.transfer(0);
    this.#mapped.delete(k);
  }

  /**
   * The idiomatic commands over `source` (any object holding raw commands by name).
   *
   * @example Usage
   * ```ts ignore
   * import { VkApi, Vulkan } from "@vkdeno/loader";
   * using raw = Vulkan.load();
   * const vk = VkApi.of(raw);
   * console.log(vk.enumerateInstanceExtensionProperties().map((e) => e.extensionName));
   * ```
   */
  static of(source: VkCommandSource): VkApi {
    return new VkApi(source, false, new Map());
  }

  /**
   * The same commands, owning what they create: at `dispose()` (or the end of a `using` block) every handle
   * its create commands made is destroyed, last first, with the destroy command vk.xml pairs with each
   * (pool-allocated command buffers and descriptor sets go with their pool), with everything given to
   * {@linkcode VkApi.use} and {@linkcode VkApi.defer} in the same order.
   *
   * @example Usage
   * ```ts ignore
   * {
   *   using scope = vk.scope();
   *   const fence = scope.createFence(device, {});
   * } // vkDestroyFence(device, fence, null) runs here
   * ```
   */
  scope(): VkApi {
    return new VkApi(this.raw, true, this.#sizes, this.#owned, this.#mapped);
  }

  /**
   * Disposes `value` when this scope ends (in reverse order with what it created); returns it.
   *
   * @example Usage
   * ```ts ignore
   * const callback = vk.use(makeCallback("PFN_vkDebugUtilsMessengerCallbackEXT", () => false));
   * ```
   * @throws {TypeError} If this object is not a scope ({@linkcode VkApi.scope}).
   */
  use<T extends Disposable>(value: T): T {
    return this.#owner("use").use(value);
  }

  /**
   * Runs `fn` when this scope ends (in reverse order with what it created).
   *
   * @example Usage
   * ```ts ignore
   * vk.defer(() => vk.deviceWaitIdle(device));
   * ```
   * @throws {TypeError} If this object is not a scope ({@linkcode VkApi.scope}).
   */
  defer(fn: () => void): void {
    this.#owner("defer").defer(fn);
  }

  /** Destroys what this scope created, last first (nothing for an object from {@linkcode VkApi.of}). */
  dispose(): void {
    this.#stack?.dispose();
  }

  /** Same as {@linkcode VkApi.dispose}, for `using`. */
  [Symbol.dispose](): void {
    this.dispose();
  }

  #owner(what: string): DisposableStack {
    if (!this.#stack) throw new TypeError(`Cannot ${what}: this VkApi owns nothing (make one with scope())`);
    return this.#stack;
  }

  #command(name: string): Fn {
    const command = vkName(name);
    const target = targetOf(command);
    const source = this.raw as Record<string, unknown>;
    const raw = source[command] ?? source[target];
    if (typeof raw !== "function") {
      return () => {
        throw new TypeError(`Cannot call "${name}": the command source has no "${command}"`);
      };
    }
    // The raw command behind the command source's handle checks (a null, destroyed or foreign handle throws
    // naming the command and the parameter) when the source has them and the command lacks its own.
    // Both under the name called: an alias's errors name the alias (vkCmdSetLineStippleEXT), not its target.
    const call = checkedCall(source, command, raw as Fn);
    const fn = compileCommand(target)(RUNTIME, call.fn, this.#hooks, call.check, command);
    const at = destroyedArgument(target);
    if (at !== undefined) return this.#destroying(target, at, fn);
    // Unmapping detaches the ArrayBuffers mapped over the memory (vkUnmapMemory2 names it in a struct).
    const unmaps = Object.hasOwn(UNMAPS, target) ? UNMAPS[target] : undefined;
    if (unmaps) {
      return (...args: unknown[]) => {
        const out = fn(...args);
        const memory = unmaps(args);
        if (isPointerObject(memory)) this.#unmapped(address(memory));
        return out;
      };
    }
    const life = Object.hasOwn(LIFECYCLE, target) ? LIFECYCLE[target] : undefined;
    if (life?.ends) return this.#freeing(target, fn);
    const d = Object.hasOwn(DESTROYERS, target) ? DESTROYERS[target] : undefined;
    if (!d && !life) return fn;
    return this.#creating(target, fn, d, life);
  }

  /**
   * A command that makes handles (`target`, destroyed by `d`, with lifecycle rules `life`): records the
   * handles a parent's end must end (pools, devices, physical devices, queues, command buffers and
   * descriptor sets; a handle such as a buffer needs no record, as every later use names its device first),
   * and in a scope defers their destruction.
   */
  #creating(target: string, fn: Fn, d: Destroyer | undefined, life: Lifecycle | undefined): Fn {
    const stack = d ? this.#stack : undefined;
    const source = this.raw as Record<string, unknown>;
    const destroy = d ? source[d.destroy] : undefined;
    const owned = this.#owned;
    const parentOfArgs = life?.parent ??
      (d?.parent && PARENTS.has(target) ? (args: unknown[]) => args[0] : undefined);
    const made = (args: unknown[], out: unknown) => {
      if (target === "vkGetDeviceQueue" && out === null) {
        throw new TypeError(`vkGetDeviceQueue: the driver returned no queue ${args[2]} of family ${args[1]}`);
      }
      const handles = isPointerObject(out) ? [out] : Array.isArray(out) ? out : Object.values(out as object)
        .flatMap((v) => isPointerObject(v) ? [v] : Array.isArray(v) ? v : []);
      const parent = parentOfArgs?.(args);
      for (const h of handles) {
        if (!isPointerObject(h)) continue;
        // A new object at a destroyed one's address: no scope may destroy it for the old one.
        if (owned.size !== 0) owned.delete(address(h));
        adopt(parent, h);
      }
      if (target === "vkCreateDevice" && isPointerObject(out)) {
        const counts = queueCounts(args[1]);
        if (counts) queuesOf.set(out, counts);
      }
      if (!d || !stack || typeof destroy !== "function") return;
      // Through the source's handle checks: a parent destroyed behind VkApi's back throws, not kills.
      const checkedDestroy = withHandleChecks(source, d.destroy, destroy as Fn);
      const parentArg = d.parent ? [args[0]] : [];
      for (const h of handles) {
        if (!isPointerObject(h)) continue;
        const k = address(h);
        const token: OwnedEntry = { destroy: d.destroy };
        owned.set(k, token);
        stack.defer(() => {
          if (owned.get(k) !== token) return; // destroyed early, or its address made again
          // Destroyed with its parent: a scope never destroys a child after it.
          if (ended.has(h) || (d.parent && ended.has(args[0] as object))) return;
          this.#destroy(d.destroy, h, () => checkedDestroy(...parentArg, h, ...(d.allocator ? [null] : [])));
        });
      }
    };
    if (life || fn.length > 4) {
      return (...args: unknown[]) => {
        life?.before?.(args);
        const out = fn(...args);
        made(args, out);
        return out;
      };
    }
    // The common create command (`createBuffer(device, info)`): plain arguments, and nothing recorded for a
    // handle without children outside a scope.
    const plain = !stack && !parentOfArgs;
    return (a: unknown, b: unknown, c: unknown, e: unknown) => {
      const out = fn(a, b, c, e);
      if (plain && isPointerObject(out)) {
        if (owned.size !== 0) owned.delete(address(out));
      } else made([a, b, c, e], out);
      return out;
    };
  }

  /** A free or reset command (`vkFreeCommandBuffers`, `vkResetDescriptorPool`): ends what it frees. */
  #freeing(command: string, fn: Fn): Fn {
    return (...args: unknown[]) => {
      const out = fn(...args);
      if (typeof out === "number" && out < 0) return out;
      const freed = args[2];
      if (command === "vkResetDescriptorPool") {
        const pool = args[1];
        if (isPointerObject(pool)) {
          endChildren(
            pool,
            `was freed with its VkDescriptorPool 0x${address(pool).toString(16)} (${command})`,
          );
        }
      } else if (Array.isArray(freed)) {
        const why = `was freed (${command} through VkApi)`;
        for (const h of freed) if (isPointerObject(h)) end(h, why, () => "parent", command);
      }
      return out;
    };
  }

  /** Destroy command `command` (its handle at `at`): refuses a handle destroyed already, remembers this one. */
  #destroying(command: string, at: number, fn: Fn): Fn {
    if (fn.length > 3) {
      return (...args: unknown[]) => {
        const h = args[at];
        if (!isPointerObject(h)) return fn(...args);
        return this.#destroy(command, h, () => fn(...args));
      };
    }
    return (a: unknown, b: unknown, c: unknown) => {
      const h = at === 0 ? a : b;
      if (!isPointerObject(h)) return fn(a, b, c);
      this.#refuseEnded(command, h);
      if (this.#ownedAsOther(command, h)) return fn(a, b, c);
      const out = fn(a, b, c);
      this.#destroyed(command, h);
      return out;
    };
  }

  #destroy(command: string, h: Deno.PointerObject, call: () => unknown): unknown {
    this.#refuseEnded(command, h);
    if (this.#ownedAsOther(command, h)) return call();
    const out = call();
    this.#destroyed(command, h);
    return out;
  }

  /**
   * Whether a scope owns `h` as an object another destroy command ends: `command` was given the wrong handle,
   * so the object stays live to `VkApi` and the scope still destroys it at its end.
   */
  #ownedAsOther(command: string, h: Deno.PointerObject): boolean {
    if (this.#owned.size === 0) return false;
    const entry = this.#owned.get(address(h));
    return entry !== undefined && entry.destroy !== command;
  }

  /** After `command` destroyed `h` (it did not throw): no scope destroys it again, and it ends. */
  #destroyed(command: string, h: Deno.PointerObject): void {
    if (this.#owned.size !== 0) this.#owned.delete(address(h));
    this.#ended(command, h);
  }

  /** Throws when `h`, the handle destroy command `command` is given, was ended already. */
  #refuseEnded(command: string, h: Deno.PointerObject): void {
    const why = ended.get(h);
    if (why === undefined) return;
    const param = COMMAND_PARAMS[command]?.[destroyedArgument(command) ?? 0];
    throw new TypeError(`${command}: ${param?.name ?? "handle"} 0x${address(h).toString(16)} ${why}`);
  }

  /** Ends `h`, which `command` destroyed (and its children, and what was mapped over it). */
  #ended(command: string, h: Deno.PointerObject): void {
    end(
      h,
      DESTROYED,
      () => COMMAND_PARAMS[command]?.[destroyedArgument(command) ?? 0]?.type ?? "parent",
      command,
    );
    if (command === "vkFreeMemory" && this.#mapped.size !== 0) this.#unmapped(address(h));
  }

  static {
    // As vulkan.ts: a proxy at the end of the prototype chain binds a command on its first read and defines
    // it as an own property, so nothing is defined per name at import and later reads never reach the proxy.
    const commands = new Proxy(Object.create(Object.getPrototypeOf(VkApi.prototype)) as object, {
      get(target, name, receiver) {
        if (typeof name !== "string" || !(receiver instanceof VkApi) || !isCommand(name)) {
          return Reflect.get(target, name, receiver);
        }
        const fn = receiver.#command(name);
        Object.defineProperty(receiver, name, { value: fn, enumerable: false, configurable: true });
        return fn;
      },
      has: (target, name) => (typeof name === "string" && isCommand(name)) || name in target,
    });
    Object.setPrototypeOf(VkApi.prototype, commands);
  }
}
