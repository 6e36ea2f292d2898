/**
 * {@linkcode VkApi}: every Vulkan command the idiomatic way, over any command source (vkdeno's `Vulkan`, the
 * libvulkan wrapper, a device table): named without `vk`, throwing a `VkError` on a negative `VkResult`,
 * arrays for count + pointer pairs, struct literals for struct pointers, outputs returned. Each command is
 * compiled from its generated plan on first use (api/compile.ts).
 *
 * @module
 */
import type { VkIdiomaticCommands } from "../vk/generated/vk_idiomatic.ts";
import { DESTROYERS } from "../vk/generated/lifecycles.ts";
import { isPointerObject } from "../vk/_scalar.ts";
import { type CommandOwner, compileCommand, planOf, RUNTIME, targetOf } from "./compile.ts";
import { withHandleChecks } from "../vk/handle_check.ts";
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
 * Handle objects destroyed through any `VkApi`: destroying one again throws instead of reaching the driver
 * (docs/behaviour.md V11). Kept by object, not address: a driver may give a new object the address of a
 * destroyed one, and the handle a create command returns is always a new JavaScript object.
 */
const destroyed = new WeakSet<Deno.PointerObject>();

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
  return /^[a-z]/.test(name) && planOf(vkName(name)) !== undefined;
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
 *   `createGraphicsPipelines`), queried structs as objects (ask for pNext links by struct name), two-call
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
   * What the scopes sharing this object's state will destroy, by address, with the token of the scope's entry:
   * dropped when it is destroyed early through any of them, or when a create command through any of them makes
   * its address again.
   */
  #owned: Map<bigint, object>;
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
    owned: Map<bigint, object> = new Map(),
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
    const fn = compileCommand(target)(RUNTIME, withHandleChecks(source, target, raw as Fn), this.#hooks);
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
    const d = Object.hasOwn(DESTROYERS, target) ? DESTROYERS[target] : undefined;
    if (!d) return fn;
    const stack = this.#stack;
    const destroy = source[d.destroy];
    const owned = this.#owned;
    return (...args: unknown[]) => {
      const out = fn(...args);
      const handles = isPointerObject(out) ? [out] : Array.isArray(out) ? out : Object.values(out as object)
        .flatMap((v) => isPointerObject(v) ? [v] : Array.isArray(v) ? v : []);
      // A new object at a destroyed one's address: no scope may destroy it for the old one.
      for (const h of handles) if (h !== null) owned.delete(address(h));
      if (!stack || typeof destroy !== "function") return out;
      const parent = d.parent ? [args[0]] : [];
      for (const h of handles) {
        if (h === null) continue;
        const k = address(h);
        const token = {};
        owned.set(k, token);
        stack.defer(() => {
          if (owned.get(k) !== token) return; // destroyed early, or its address made again
          this.#destroy(d.destroy, h, () => (destroy as Fn)(...parent, h, ...(d.allocator ? [null] : [])));
        });
      }
      return out;
    };
  }

  /** Destroy command `command` (its handle at `at`): refuses a handle destroyed already, remembers this one. */
  #destroying(command: string, at: number, fn: Fn): Fn {
    return (...args: unknown[]) => {
      const h = args[at];
      if (!isPointerObject(h)) return fn(...args);
      return this.#destroy(command, h, () => fn(...args));
    };
  }

  #destroy(command: string, h: Deno.PointerObject, call: () => unknown): unknown {
    const k = address(h);
    if (destroyed.has(h)) {
      const param = COMMAND_PARAMS[command]?.[destroyedArgument(command) ?? 0]?.name ?? "handle";
      throw new TypeError(`${command}: ${param} 0x${k.toString(16)} was destroyed already (through VkApi)`);
    }
    this.#owned.delete(k);
    const out = call();
    destroyed.add(h);
    if (command === "vkFreeMemory") this.#unmapped(k);
    return out;
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
