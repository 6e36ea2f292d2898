/**
 * C-callable JavaScript functions with an owner.
 *
 * Two facts shape this module: a `Deno.UnsafeCallback` that throws returns 0
 * to C (`VK_SUCCESS` for a `VkResult`), and a closed callback that C still
 * calls crashes the process. So every callback is wrapped to return a chosen
 * error value on a throw, and is closed only when its owner is disposed.
 *
 * @module
 */

/** What a callback returns to C when its body throws. */
export type CallbackErrorValue<R extends Deno.NativeResultType> = Deno.ToNativeResultType<R>;

/** Options of {@linkcode CallbackRegistry.create}. */
export interface CallbackOptions<R extends Deno.NativeResultType> {
  /** Names the callback in error reports, e.g. `"terminator vkCreateInstance"`. */
  name: string;
  /**
   * Returned to C when the body throws: a `VK_ERROR_*` code for a `VkResult`,
   * `null` for a pointer. Required for numeric results (0 would read as
   * success); defaults to `null` for pointers and nothing for `void`.
   */
  onError?: CallbackErrorValue<R>;
  /** Wake the event loop when called from a foreign thread (`UnsafeCallback.threadSafe`). */
  threadSafe?: boolean;
}

/** Options of the {@linkcode CallbackRegistry} constructor. */
export interface CallbackRegistryOptions {
  /** Receives a line for every throw caught; defaults to `console.error`. */
  report?: (message: string, error: unknown) => void;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Owns `Deno.UnsafeCallback`s: creates them wrapped in try/catch and closes
 * them all on {@linkcode CallbackRegistry.dispose}, never earlier.
 *
 * @example Usage
 * ```ts
 * import { CallbackRegistry } from "./callback.ts";
 * using callbacks = new CallbackRegistry();
 * const cb = callbacks.create({ parameters: ["u32"], result: "i32" }, (x) => {
 *   if (x === 0) throw new Error("zero");
 *   return x;
 * }, { name: "example", onError: -3 });
 * console.log(cb.pointer !== null, callbacks.size); // true 1
 * ```
 */
export class CallbackRegistry implements Disposable {
  static #live = 0;
  #callbacks = new Set<Deno.UnsafeCallback>();
  #report: (message: string, error: unknown) => void;
  #disposed = false;

  /** An empty registry; `options.report` receives a line for every throw caught. */
  constructor(options: CallbackRegistryOptions = {}) {
    this.#report = options.report ?? ((message) => console.error(message));
  }

  /** Callbacks open in every registry: leak tests expect it back at its start value. */
  static get liveCount(): number {
    return CallbackRegistry.#live;
  }

  /** Callbacks open in this registry. */
  get size(): number {
    return this.#callbacks.size;
  }

  /**
   * Creates a callback whose throws are reported and turned into
   * `options.onError` for the C caller.
   *
   * @example A VkResult-returning callback
   * ```ts
   * import { CallbackRegistry } from "./callback.ts";
   * using callbacks = new CallbackRegistry({ report: () => {} });
   * const cb = callbacks.create({ parameters: [], result: "i32" }, () => {
   *   throw new Error("no");
   * }, { name: "vkFoo", onError: -1 });
   * console.log(cb.callback()); // -1
   * ```
   * @throws {TypeError} If the registry is disposed, or a numeric result has no `onError`.
   */
  create<const D extends Deno.UnsafeCallbackDefinition>(
    def: D,
    fn: Deno.UnsafeCallbackFunction<D["parameters"], D["result"]>,
    options: CallbackOptions<D["result"]>,
  ): Deno.UnsafeCallback<D> {
    if (this.#disposed) throw new TypeError(`Cannot create callback "${options.name}": registry is disposed`);
    let onError = options.onError;
    if (onError === undefined) {
      if (def.result === "pointer" || def.result === "buffer" || def.result === "function") {
        onError = null as CallbackErrorValue<D["result"]>;
      } else if (def.result !== "void") {
        throw new TypeError(
          `Cannot create callback "${options.name}": result "${String(def.result)}" needs an onError value`,
        );
      }
    }
    const report = this.#report;
    const name = options.name;
    const body = fn as (...args: unknown[]) => unknown;
    const wrapped = ((...args: unknown[]) => {
      try {
        return body(...args);
      } catch (error) {
        const shown = typeof onError === "bigint" ? `${onError}n` : String(onError ?? "nothing");
        report(`Callback "${name}" threw: ${describe(error)}; returning ${shown} to C`, error);
        return onError;
      }
    }) as unknown as Deno.UnsafeCallbackFunction<D["parameters"], D["result"]>;
    const cb = options.threadSafe
      ? Deno.UnsafeCallback.threadSafe(def, wrapped) as Deno.UnsafeCallback<D>
      : new Deno.UnsafeCallback(def, wrapped);
    this.#callbacks.add(cb as unknown as Deno.UnsafeCallback);
    CallbackRegistry.#live++;
    return cb;
  }

  /**
   * Closes every callback. C must not call any of them afterwards.
   *
   * @example Usage
   * ```ts
   * import { CallbackRegistry } from "./callback.ts";
   * const callbacks = new CallbackRegistry();
   * callbacks.create({ parameters: [], result: "void" }, () => {}, { name: "noop" });
   * callbacks.dispose();
   * console.log(callbacks.size); // 0
   * ```
   */
  dispose(): void {
    this.#disposed = true;
    for (const cb of this.#callbacks) cb.close();
    CallbackRegistry.#live -= this.#callbacks.size;
    this.#callbacks.clear();
  }

  /** Same as {@linkcode CallbackRegistry.dispose}, for `using`. */
  [Symbol.dispose](): void {
    this.dispose();
  }
}
