/**
 * Scoped cleanup: `VkScope` creates handles and callbacks and destroys them in reverse order with the destroy
 * command vk.xml pairs with each create command; `scope.destroy(handle)` destroys one early, and a second
 * destroy of it throws instead of reaching the driver.
 *
 * @module
 */
import { createHandle, createHandles, type VkCommandSource } from "./create.ts";
import { DESTROYERS } from "../vk/generated/lifecycles.ts";
import { COMMAND_PARAMS } from "../vk/generated/commands.ts";
import { handleChecksOf } from "../vk/handle_check_interface.ts";
import type { VkCallbackFunctions, VkCallbackName } from "../vk/generated/vk_callbacks.ts";
import type { VkCreateArgs, VkCreateManyOutputs, VkCreateOutputs } from "../vk/generated/vk_create.ts";
import { Arena } from "../ffi/memory.ts";
import { makeCallback, type MakeCallbackOptions } from "../vk/vk_callback.ts";
import type { VkCallbackPointer } from "../vk/generated/vk_types.ts";

/**
 * Owns what a block creates: handles, callbacks, an arena for the structs it writes, any disposable, and
 * deferred functions; disposing it releases them last-created first.
 *
 * @example A buffer destroyed at the end of the block
 * ```ts ignore
 * import { VkScope } from "@vkdeno/loader";
 * {
 *   using scope = new VkScope(vk);
 *   const info = writeStruct(scope.arena, "VkBufferCreateInfo", { size: 64n, usage: VK_BUFFER_USAGE_TRANSFER_DST_BIT });
 *   const buffer = scope.create("vkCreateBuffer", [device, info, null]);
 * } // vkDestroyBuffer(device, buffer, null) runs here, then the arena is freed
 * ```
 */
export class VkScope implements Disposable {
  #stack = new DisposableStack();
  #vk: VkCommandSource;
  /** Owned handles by address: how to destroy each (the entry of the latest object at that address). */
  #owned = new Map<bigint, Owned>();
  /** Handles destroyed early through {@linkcode VkScope.destroy}, with their destroy command. */
  #destroyedEarly = new Map<bigint, Owned>();
  /** An arena freed after everything else in the scope: write create infos here. */
  readonly arena: Arena;

  /** A scope creating through `vk` (vkdeno's `Vulkan`, the libvulkan wrapper, or any command object). */
  constructor(vk: VkCommandSource) {
    this.#vk = vk;
    this.arena = this.#stack.use(new Arena());
  }

  /**
   * Creates one handle with `create` (api/create.ts) and destroys it when the scope ends (when vk.xml has a
   * destroy command for it; queues and display modes have none).
   *
   * @example Usage
   * ```ts ignore
   * const pool = scope.create("vkCreateCommandPool", [device, poolInfo, null]);
   * ```
   * @throws {VkError} If the command fails.
   */
  create<N extends keyof VkCreateOutputs>(name: N, args: NoInfer<VkCreateArgs[N]>): VkCreateOutputs[N] {
    const raw = args as readonly unknown[];
    const handle = createHandle(this.#vk, name, raw) as VkCreateOutputs[N];
    this.#destroyLater(name, raw, handle);
    return handle;
  }

  /**
   * Creates `count` handles with `createMany` (api/create.ts); pipelines are destroyed when the scope ends,
   * pool-allocated handles (command buffers, descriptor sets) go with their pool.
   *
   * @example Usage
   * ```ts ignore
   * const [pipeline] = scope.createMany("vkCreateComputePipelines", [device, null, 1, info, null], 1);
   * ```
   * @throws {VkError} If the command fails.
   */
  createMany<N extends keyof VkCreateManyOutputs>(
    name: N,
    args: NoInfer<VkCreateArgs[N]>,
    count: number,
  ): VkCreateManyOutputs[N][] {
    const raw = args as readonly unknown[];
    const handles = createHandles(this.#vk, name, raw, count) as VkCreateManyOutputs[N][];
    for (const h of handles) this.#destroyLater(name, raw, h);
    return handles;
  }

  /**
   * Makes a typed callback ({@linkcode makeCallback}) closed when the scope ends: after whatever was
   * created later (the messenger that calls it) is destroyed.
   *
   * @example Usage
   * ```ts ignore
   * const pfn = scope.callback("PFN_vkDebugUtilsMessengerCallbackEXT", (_s, _t, data) => {
   *   console.log(data?.pMessage);
   *   return false;
   * });
   * ```
   */
  callback<N extends VkCallbackName>(
    type: N,
    fn: VkCallbackFunctions[N],
    options?: MakeCallbackOptions,
  ): VkCallbackPointer<N> {
    return this.#stack.use(makeCallback(type, fn, options)).pointer;
  }

  /**
   * Disposes `value` when the scope ends; returns it.
   *
   * @example Usage
   * ```ts ignore
   * const extra = scope.use(new Arena());
   * ```
   */
  use<T extends Disposable>(value: T): T {
    return this.#stack.use(value);
  }

  /**
   * Runs `fn` when the scope ends (in reverse order with everything else).
   *
   * @example Usage
   * ```ts ignore
   * scope.defer(() => vk.vkDeviceWaitIdle(device));
   * ```
   */
  defer(fn: () => void): void {
    this.#stack.defer(fn);
  }

  /**
   * Destroys one handle the scope owns now (with the destroy command vk.xml pairs with its create command)
   * and forgets it, so the end of the scope does not destroy it again.
   *
   * @example Usage
   * ```ts ignore
   * const staging = scope.create("vkCreateBuffer", [device, info, null]);
   * scope.destroy(staging); // vkDestroyBuffer(device, staging, null), now
   * ```
   * @throws {TypeError} If `handle` was destroyed already through the scope, or the scope does not own it.
   */
  destroy(handle: Deno.PointerObject): void {
    const k = BigInt(Deno.UnsafePointer.value(handle));
    const owned = this.#owned.get(k);
    if (owned === undefined) {
      const early = this.#destroyedEarly.get(k);
      throw new TypeError(
        early
          ? `${early.command}: ${early.param} 0x${k.toString(16)} was destroyed already (VkScope.destroy)`
          : `VkScope.destroy: 0x${
            k.toString(16)
          } is not owned by this scope (destroyed already, or made elsewhere)`,
      );
    }
    this.#owned.delete(k);
    this.#destroyedEarly.set(k, owned);
    owned.run();
  }

  /** Destroys everything the scope owns, last created first. */
  dispose(): void {
    this.#stack.dispose();
  }

  /** Same as {@linkcode VkScope.dispose}, for `using`. */
  [Symbol.dispose](): void {
    this.dispose();
  }

  #destroyLater(name: string, args: readonly unknown[], handle: unknown): void {
    const d = Object.hasOwn(DESTROYERS, name) ? DESTROYERS[name] : undefined;
    if (!d) return;
    const destroy = (this.#vk as Record<string, unknown>)[d.destroy];
    if (typeof destroy !== "function") {
      throw new TypeError(`Cannot own "${name}"'s handle: the command object has no "${d.destroy}"`);
    }
    const allocator = d.allocatorAt >= 0 ? args[d.allocatorAt] ?? null : null;
    const call = [...(d.parent ? [args[0]] : []), handle, ...(d.allocator ? [allocator] : [])];
    const vk = this.#vk;
    const owned: Owned = {
      command: d.destroy,
      param: COMMAND_PARAMS[d.destroy]?.[d.parent ? 1 : 0]?.name ?? "handle",
      run() {
        // The loader refuses a parent destroyed by hand (and, checked, the handle itself) before the driver.
        const checks = handleChecksOf(vk);
        checks?.checkArgs(d.destroy, call);
        (destroy as (...a: unknown[]) => unknown)(...call);
      },
    };
    const k = BigInt(Deno.UnsafePointer.value(handle as Deno.PointerValue));
    this.#owned.set(k, owned);
    this.#destroyedEarly.delete(k);
    this.#stack.defer(() => {
      if (this.#owned.get(k) !== owned) return; // destroyed early
      this.#owned.delete(k);
      owned.run();
    });
  }
}

/** One owned handle: its destroy command, the parameter that takes it, and the call. */
interface Owned {
  readonly command: string;
  readonly param: string;
  run(): void;
}
