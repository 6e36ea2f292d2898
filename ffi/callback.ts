/**
 * C-callable JavaScript functions with an owner: wrapped to return a chosen error value on a throw, released
 * only when the owner is disposed, and kept for reuse rather than closed.
 *
 * @module
 */

/** What a callback returns to C when its body throws. */
export type CallbackErrorValue<R extends Deno.NativeResultType> = Deno.ToNativeResultType<R>;

/** Options of {@linkcode CallbackOwner.create}. */
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

/** Options of the {@linkcode CallbackOwner} constructor. */
export interface CallbackOwnerOptions {
  /** Receives a line for every throw caught; defaults to `console.error`. */
  report?: (message: string, error: unknown) => void;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

type Body = (...args: unknown[]) => unknown;

/** One open `Deno.UnsafeCallback`, running whatever its current owner put in it. */
interface Cell {
  readonly callback: Deno.UnsafeCallback;
  /** The owner's body; undefined while the cell waits to be reused (it then answers `onError`). */
  body: Body | undefined;
  onError: unknown;
  name: string;
  report: (message: string, error: unknown) => void;
}

function ignore(): void {}

/** Released cells by signature, reused last in first out. */
const released = new Map<string, Cell[]>();
/** Cells kept per signature at most; more are closed. */
const MAX_RELEASED = 32;

function signature(def: Deno.UnsafeCallbackDefinition): string {
  let key = String(def.result);
  for (const p of def.parameters) key += "," + (typeof p === "string" ? p : JSON.stringify(p));
  return key;
}

/**
 * A new cell for `def`: its C entry calls the cell's current body, and its error value when that throws.
 * A thread-safe cell is its owner's alone (closed with it, never reused).
 */
function openCell(def: Deno.UnsafeCallbackDefinition, threadSafe = false): Cell {
  const cell: Cell = {
    callback: undefined as unknown as Deno.UnsafeCallback,
    body: undefined,
    onError: undefined,
    name: "",
    report: ignore,
  };
  const failed = (error: unknown) => {
    const onError = cell.onError;
    const shown = typeof onError === "bigint" ? `${onError}n` : String(onError ?? "nothing");
    cell.report(`Callback "${cell.name}" threw: ${describe(error)}; returning ${shown} to C`, error);
    return onError;
  };
  // Fixed arities for the usual lengths: a rest parameter and a spread cost an array per call, on the hot
  // path of a TS layer in a native chain (each of its intercepted calls enters here).
  type U = unknown;
  let entry: (...args: U[]) => U;
  switch (def.parameters.length) {
    case 1:
      entry = (a: U) => {
        const body = cell.body;
        if (body === undefined) return cell.onError;
        try {
          return body(a);
        } catch (error) {
          return failed(error);
        }
      };
      break;
    case 2:
      entry = (a: U, b: U) => {
        const body = cell.body;
        if (body === undefined) return cell.onError;
        try {
          return body(a, b);
        } catch (error) {
          return failed(error);
        }
      };
      break;
    case 3:
      entry = (a: U, b: U, c: U) => {
        const body = cell.body;
        if (body === undefined) return cell.onError;
        try {
          return body(a, b, c);
        } catch (error) {
          return failed(error);
        }
      };
      break;
    case 4:
      entry = (a: U, b: U, c: U, d: U) => {
        const body = cell.body;
        if (body === undefined) return cell.onError;
        try {
          return body(a, b, c, d);
        } catch (error) {
          return failed(error);
        }
      };
      break;
    default:
      entry = (...args: U[]) => {
        const body = cell.body;
        if (body === undefined) return cell.onError;
        try {
          return body(...args);
        } catch (error) {
          return failed(error);
        }
      };
  }
  (cell as { callback: Deno.UnsafeCallback }).callback = threadSafe
    ? Deno.UnsafeCallback.threadSafe(def, entry as never)
    : new Deno.UnsafeCallback(def, entry as never);
  return cell;
}

/**
 * Who holds a callback: a description (`"VkDebugUtilsMessengerEXT 0x1"`), or a function giving one when asked
 * (a holder standing for many objects names them only then; `""` while it holds nothing).
 */
export type CallbackHolder = string | (() => string);

/**
 * Callbacks C still holds, by address: who holds each (a live messenger, report callback, allocator). A held
 * callback cannot be closed through {@linkcode VkCallback}, and a released one is not pooled while held, so
 * its address is never handed to a new owner that the holder would then call.
 */
const holds = new Map<bigint, CallbackHolder[]>();

/**
 * Records that `holder` (e.g. `"VkDebugUtilsMessengerEXT 0x1"`) calls the callback at `pointer` (a pointer or
 * its address) until the returned function is called.
 *
 * @example Usage
 * ```ts
 * import { holdCallback, holdersOf } from "./callback.ts";
 * const p = Deno.UnsafePointer.create(0x1000n);
 * const release = holdCallback(p, "VkDebugUtilsMessengerEXT 0x1");
 * console.log(holdersOf(p)); // [ "VkDebugUtilsMessengerEXT 0x1" ]
 * release();
 * console.log(holdersOf(p)); // []
 * ```
 */
export function holdCallback(pointer: Deno.PointerValue | bigint, holder: CallbackHolder): () => void {
  if (pointer === null || pointer === 0n) return ignore;
  const k = typeof pointer === "bigint" ? pointer : BigInt(Deno.UnsafePointer.value(pointer));
  let list = holds.get(k);
  if (!list) holds.set(k, list = []);
  list.push(holder);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    const at = list.indexOf(holder);
    if (at >= 0) list.splice(at, 1);
    if (list.length === 0 && holds.get(k) === list) holds.delete(k);
  };
}

/** Who still holds the callback at `pointer` (empty when nothing does). */
export function holdersOf(pointer: Deno.PointerValue): readonly string[] {
  if (pointer === null) return [];
  const list = holds.get(BigInt(Deno.UnsafePointer.value(pointer)));
  if (list === undefined) return [];
  return list.map((holder) => typeof holder === "string" ? holder : holder()).filter((h) => h !== "");
}

/** Drops the owner's body (its closures can be collected) and keeps the cell for reuse, or closes it. */
function release(cell: Cell, key: string): void {
  cell.body = undefined;
  cell.report = ignore;
  // Still held by C: neither reused (the holder would call the next owner's body) nor closed (a call would
  // crash); it answers its error value.
  if (holdersOf(cell.callback.pointer).length > 0) return;
  let list = released.get(key);
  if (list === undefined) released.set(key, list = []);
  if (list.length < MAX_RELEASED) list.push(cell);
  else cell.callback.close();
}

/**
 * Owns `Deno.UnsafeCallback`s: creates them wrapped in try/catch and closes
 * them all on {@linkcode CallbackOwner.dispose}, never earlier.
 *
 * @example Usage
 * ```ts
 * import { CallbackOwner } from "./callback.ts";
 * using callbacks = new CallbackOwner();
 * const cb = callbacks.create({ parameters: ["u32"], result: "i32" }, (x) => {
 *   if (x === 0) throw new Error("zero");
 *   return x;
 * }, { name: "example", onError: -3 });
 * console.log(cb.pointer !== null, callbacks.size); // true 1
 * ```
 */
export class CallbackOwner implements Disposable {
  static #live = 0;
  /** Thread-safe callbacks, made for this owner alone and closed with it. */
  #threadSafe = new Set<Deno.UnsafeCallback>();
  /** The reusable callbacks among them, with their signatures. */
  #cells: { cell: Cell; key: string }[] = [];
  #report: (message: string, error: unknown) => void;
  #disposed = false;

  /** An owner of no callbacks yet; `options.report` receives a line for every throw caught. */
  constructor(options: CallbackOwnerOptions = {}) {
    this.#report = options.report ?? ((message) => console.error(message));
  }

  /** Callbacks open in every owner: leak tests expect it back at its start value. */
  static get liveCount(): number {
    return CallbackOwner.#live;
  }

  /** Callbacks open in this owner. */
  get size(): number {
    return this.#cells.length + this.#threadSafe.size;
  }

  /**
   * Creates a callback whose throws are reported and turned into
   * `options.onError` for the C caller.
   *
   * @example A VkResult-returning callback
   * ```ts
   * import { CallbackOwner } from "./callback.ts";
   * using callbacks = new CallbackOwner({ report: () => {} });
   * const cb = callbacks.create({ parameters: [], result: "i32" }, () => {
   *   throw new Error("no");
   * }, { name: "vkFoo", onError: -1 });
   * console.log(cb.callback()); // -1
   * ```
   * @throws {TypeError} If the owner is disposed, or a numeric result has no `onError`.
   */
  create<const D extends Deno.UnsafeCallbackDefinition>(
    def: D,
    fn: Deno.UnsafeCallbackFunction<D["parameters"], D["result"]>,
    options: CallbackOptions<D["result"]>,
  ): Deno.UnsafeCallback<D> {
    if (this.#disposed) {
      throw new TypeError(`Cannot create callback "${options.name}": its owner is disposed`);
    }
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
    let cell: Cell;
    if (options.threadSafe) {
      cell = openCell(def, true);
      this.#threadSafe.add(cell.callback);
    } else {
      const key = signature(def);
      cell = released.get(key)?.pop() ?? openCell(def);
      this.#cells.push({ cell, key });
    }
    cell.body = fn as Body;
    cell.onError = onError;
    cell.name = options.name;
    cell.report = this.#report;
    CallbackOwner.#live++;
    return cell.callback as unknown as Deno.UnsafeCallback<D>;
  }

  /**
   * Releases every callback. C must not call any of them afterwards (one that is called anyway returns its
   * error value, or runs the body of the owner that reused it).
   *
   * @example Usage
   * ```ts
   * import { CallbackOwner } from "./callback.ts";
   * const callbacks = new CallbackOwner();
   * callbacks.create({ parameters: [], result: "void" }, () => {}, { name: "noop" });
   * callbacks.dispose();
   * console.log(callbacks.size); // 0
   * ```
   */
  dispose(): void {
    this.#disposed = true;
    CallbackOwner.#live -= this.size;
    for (const { cell, key } of this.#cells) release(cell, key);
    for (const cb of this.#threadSafe) cb.close();
    this.#threadSafe.clear();
    this.#cells = [];
  }

  /** Same as {@linkcode CallbackOwner.dispose}, for `using`. */
  [Symbol.dispose](): void {
    this.dispose();
  }
}
