/**
 * Unwrap stubs: native stubs that swap the first argument for a handle the object points to, then jump
 * through a table the object also points to.
 *
 * @module
 */

import { CallbackOwner } from "./callback.ts";
import { emitterIdentity, nativeStubArch } from "./dispatch.ts";
import { cachedBytes } from "./persistent_cache.ts";
import { emitStubObject, STUB_SIZE } from "./elf.ts";
import { disposeStubParts, EmittedObject } from "./emitted_object.ts";
import { noStubsReason } from "./host.ts";
import {
  FILL_TABLE_DEF,
  FILL_TABLE_SYMBOL,
  HELPER_FALLBACKS,
  STAMPED_QUEUE_SYMBOLS,
  UNWRAP_HELPERS,
} from "./native_helpers.ts";
import { emitUnwrapObject, UNWRAP_ERROR_SYMBOL, type UnwrapSet } from "./unwrap_object.ts";
import { UNWRAP_ERROR_RESULT, unwrapStubCode } from "./unwrap_stub_code.ts";

/** Options of {@linkcode UnwrapStubs.load}. */
export interface UnwrapStubsOptions {
  /** `false` forces the TypeScript fallback. Default: native where supported. */
  native?: boolean;
  /**
   * Per set, how many leading names get a symbol (default all). The others are code only: their addresses
   * are computed, and binding one loads a one-stub object of its own (see `DispatchStubsOptions.exported`).
   */
  exported?: readonly number[];
}

/**
 * Unwrap stubs for a list of slot names, in one or more sets (offset pairs).
 *
 * @example Usage
 * ```ts
 * import { UnwrapStubs } from "./unwrap_stubs.ts";
 * using stubs = UnwrapStubs.load(["vkGetPhysicalDeviceFeatures"], [
 *   { prefix: "tramp_", tableOffset: 0, handleOffset: 8 },
 * ]);
 * console.log(stubs.address(0, 0) !== null, stubs.native);
 * ```
 */
export class UnwrapStubs implements Disposable {
  #names: readonly string[];
  #sets: readonly UnwrapSet[];
  #loaded: EmittedObject | undefined;
  #bound = new Map<string, unknown>();
  #libraries: Deno.DynamicLibrary<Deno.ForeignLibraryInterface>[] = [];
  /** One-stub objects made to bind stubs that have no symbol in the main object. */
  #singles: EmittedObject[] = [];
  #addresses = new Map<string, Deno.PointerObject>();
  #stub0: bigint | undefined;
  #callbacks = new CallbackOwner();
  #disposed = false;
  readonly #fallbackReason: string | undefined;

  private constructor(
    names: readonly string[],
    sets: readonly UnwrapSet[],
    loaded?: EmittedObject,
    reason?: string,
  ) {
    this.#names = names;
    this.#sets = sets;
    this.#loaded = loaded;
    this.#fallbackReason = loaded ? undefined : reason ?? "no stub object";
  }

  /**
   * Emits and loads the stubs, or sets up the TypeScript fallback.
   *
   * @example Usage
   * ```ts
   * import { UnwrapStubs } from "./unwrap_stubs.ts";
   * using stubs = UnwrapStubs.load(["a"], [{ prefix: "t_", tableOffset: 8, handleOffset: 16 }], { native: false });
   * console.log(stubs.native); // false
   * ```
   */
  static load(
    names: readonly string[],
    sets: readonly UnwrapSet[],
    options: UnwrapStubsOptions = {},
  ): UnwrapStubs {
    const arch = nativeStubArch();
    if (options.native === false) {
      return new UnwrapStubs(names, sets, undefined, "native stubs were turned off");
    }
    if (arch === undefined) {
      return new UnwrapStubs(
        names,
        sets,
        undefined,
        noStubsReason(),
      );
    }
    const key = `${arch} ${options.exported ?? ""} ${names.length}\n${
      JSON.stringify(sets, (_, v) => ArrayBuffer.isView(v) ? Array.from(v as Uint32Array) : v)
    }\n${names.join("\0")}\n${emitterIdentity()}`; // NUL: no valid name holds one (ffi/dispatch.ts)
    const bytes = cachedBytes(
      `stubs-unwrap-${arch}`,
      key,
      () => emitUnwrapObject(names, sets, arch, options.exported),
    );
    try {
      return new UnwrapStubs(names, sets, EmittedObject.open(bytes, { name: "vkdeno-unwrap" }));
    } catch (error) {
      return new UnwrapStubs(names, sets, undefined, error instanceof Error ? error.message : String(error));
    }
  }

  /** True when the stubs are native code. */
  get native(): boolean {
    return this.#loaded !== undefined;
  }

  /** Why the fallback is used; `undefined` when native. */
  get fallbackReason(): string | undefined {
    return this.#fallbackReason;
  }

  /** The object file's path (`/proc/self/fd/N`), when native. */
  get path(): string | undefined {
    return this.#loaded?.path;
  }

  #symbol(set: number, index: number): string {
    if (this.#disposed) throw new TypeError("Cannot use disposed unwrap stubs");
    const s = this.#sets[set];
    const name = this.#names[index];
    if (s === undefined) throw new RangeError(`Unwrap set "${set}" is out of range`);
    if (name === undefined) throw new RangeError(`Unwrap stub index "${index}" is out of range`);
    return `${s.prefix}${name}`;
  }

  /**
   * The JavaScript function for stub `index` of set `set`, declared with `def` (bound once, cached).
   *
   * @example Usage
   * ```ts
   * import { UnwrapStubs } from "./unwrap_stubs.ts";
   * using stubs = UnwrapStubs.load(["f"], [{ prefix: "t_", tableOffset: 0, handleOffset: 8 }]);
   * const f = stubs.bind(0, 0, { parameters: ["pointer"], result: "void" });
   * console.log(typeof f); // "function"
   * ```
   */
  bind<const T extends Deno.ForeignFunction>(
    set: number,
    index: number,
    def: T,
  ): Deno.StaticForeignSymbol<T> {
    const symbol = this.#symbol(set, index);
    const cached = this.#bound.get(symbol);
    if (cached !== undefined) return cached as Deno.StaticForeignSymbol<T>;
    let fn: unknown;
    if (this.#loaded) {
      let path = this.#loaded.path;
      if (this.#loaded.library.symbolAddress(symbol) === null) {
        // A stub without a symbol: Deno.dlopen binds by name, so give it an object of its own, same code.
        const arch = nativeStubArch() ?? "x86_64";
        const s = this.#sets[set]!;
        const code = unwrapStubCode(index, s.tableOffset, s.handleOffset, arch);
        const single = EmittedObject.open(
          emitStubObject([symbol], arch, (out, at) => out.set(code, at)).bytes,
          { name: "vkdeno-unwrap-stub", from: "memfd-or-tempfile" },
        );
        this.#singles.push(single);
        path = single.path;
      }
      const lib = Deno.dlopen(path, { [symbol]: def } as Deno.ForeignLibraryInterface);
      this.#libraries.push(lib);
      fn = lib.symbols[symbol];
    } else {
      fn = this.#fallback(this.#sets[set]!, index, def);
    }
    this.#bound.set(symbol, fn);
    return fn as Deno.StaticForeignSymbol<T>;
  }

  /**
   * The C address of stub `index` of set `set`. In fallback mode a callback declared with `def` (required).
   *
   * @example Usage
   * ```ts
   * import { UnwrapStubs } from "./unwrap_stubs.ts";
   * using stubs = UnwrapStubs.load(["f"], [{ prefix: "t_", tableOffset: 0, handleOffset: 8 }]);
   * if (stubs.native) console.log(stubs.address(0, 0) !== null); // true
   * ```
   * @throws {TypeError} In fallback mode without `def`.
   */
  address(set: number, index: number, def?: Deno.UnsafeCallbackDefinition): Deno.PointerObject {
    const symbol = this.#symbol(set, index);
    const cached = this.#addresses.get(symbol);
    if (cached) return cached;
    let ptr: Deno.PointerValue;
    if (this.#loaded) {
      // Stubs are STUB_SIZE apart, set after set; the error function follows the last one.
      if (this.#stub0 === undefined) {
        const error = this.errorFunction;
        if (error === null) throw new Error(`Unwrap stub "${symbol}" is missing from "${this.#loaded.path}"`);
        this.#stub0 = Deno.UnsafePointer.value(error) -
          BigInt(this.#sets.length * this.#names.length * STUB_SIZE);
      }
      const n = set * this.#names.length + index;
      ptr = Deno.UnsafePointer.create(this.#stub0 + BigInt(n * STUB_SIZE))!;
    } else {
      if (!def) {
        throw new TypeError(
          `Cannot take the address of "${symbol}" without native stubs: pass its definition`,
        );
      }
      const call = this.#fallback(this.#sets[set]!, index, def) as (...a: unknown[]) => unknown;
      ptr = this.#callbacks.create(def, call as never, {
        name: symbol,
        onError:
          (def.result === "i32" ? UNWRAP_ERROR_RESULT : def.result === "void" ? undefined : 0) as never,
      }).pointer;
    }
    this.#addresses.set(symbol, ptr);
    return ptr;
  }

  /**
   * The error function (returns -7): what empty slots point to. `null` in fallback mode.
   *
   * @example Usage
   * ```ts
   * import { UnwrapStubs } from "./unwrap_stubs.ts";
   * using stubs = UnwrapStubs.load([], []);
   * console.log(stubs.native ? stubs.errorFunction !== null : true); // true
   * ```
   */
  get errorFunction(): Deno.PointerValue {
    if (!this.#loaded) return null;
    const cached = this.#addresses.get(UNWRAP_ERROR_SYMBOL);
    if (cached) return cached;
    const ptr = this.#loaded.library.symbolAddress(UNWRAP_ERROR_SYMBOL);
    if (ptr) this.#addresses.set(UNWRAP_ERROR_SYMBOL, ptr);
    return ptr;
  }

  /**
   * The native table filler (`fillTableCode` in `ffi/native_helpers.ts`), or undefined where there is none (fallback mode,
   * aarch64).
   */
  get fillTable(): Deno.StaticForeignSymbol<typeof FILL_TABLE_DEF> | undefined {
    if (!this.#loaded || this.#disposed) return undefined;
    if (this.#fill !== undefined) return this.#fill ?? undefined;
    const p = this.#loaded.library.symbolAddress(FILL_TABLE_SYMBOL);
    if (p === null) {
      this.#fill = null;
      return undefined;
    }
    // Called a few times per instance or device, each call filling a whole table: a slow call (~2 us) costs
    // nothing there, where declaring a fast-call symbol costs every start ~0.4 ms.
    const fn = new Deno.UnsafeFnPointer(p as Deno.PointerObject<never>, FILL_TABLE_DEF);
    this.#fill = fn.call.bind(fn) as unknown as Deno.StaticForeignSymbol<typeof FILL_TABLE_DEF>;
    return this.#fill;
  }

  #fill: Deno.StaticForeignSymbol<typeof FILL_TABLE_DEF> | null | undefined;

  /**
   * The address of stamped-queue helper `which` ({@linkcode STAMPED_QUEUE_SYMBOLS}), or null where there is
   * none (fallback mode, aarch64).
   */
  stampedQueueAddress(which: 0 | 1): Deno.PointerValue {
    if (!this.#loaded) return null;
    const name = STAMPED_QUEUE_SYMBOLS[which];
    const cached = this.#addresses.get(name);
    if (cached) return cached;
    let ptr: Deno.PointerValue = null;
    try {
      ptr = this.#loaded.library.symbolAddress(name);
    } catch {
      return null;
    }
    if (ptr) this.#addresses.set(name, ptr);
    return ptr;
  }

  /**
   * One of the {@linkcode UNWRAP_HELPERS} as a JavaScript function: native code, or a TypeScript
   * equivalent in fallback mode.
   *
   * @example Usage
   * ```ts
   * import { UnwrapStubs } from "./unwrap_stubs.ts";
   * using stubs = UnwrapStubs.load([], []);
   * const read = stubs.helper("vkdeno_read_u32");
   * console.log(read(Deno.UnsafePointer.of(new Uint32Array([7, 9])), 4n)); // 9
   * ```
   */
  helper<const K extends keyof typeof UNWRAP_HELPERS>(
    name: K,
  ): Deno.StaticForeignSymbol<(typeof UNWRAP_HELPERS)[K]> {
    if (this.#disposed) throw new TypeError("Cannot use disposed unwrap stubs");
    const cached = this.#bound.get(name);
    if (cached !== undefined) return cached as Deno.StaticForeignSymbol<(typeof UNWRAP_HELPERS)[K]>;
    let fn: unknown;
    if (this.#loaded) {
      const lib = Deno.dlopen(
        this.#loaded.path,
        { [name]: UNWRAP_HELPERS[name] } as Deno.ForeignLibraryInterface,
      );
      this.#libraries.push(lib);
      fn = lib.symbols[name];
    } else {
      fn = HELPER_FALLBACKS[name];
    }
    this.#bound.set(name, fn);
    return fn as Deno.StaticForeignSymbol<(typeof UNWRAP_HELPERS)[K]>;
  }

  #fallback(set: UnwrapSet, index: number, def: Deno.ForeignFunction): (...args: unknown[]) => unknown {
    const fns = new Map<bigint, Deno.UnsafeFnPointer<Deno.ForeignFunction>>();
    const callDef = { parameters: def.parameters, result: def.result };
    return (...args: unknown[]) => {
      const object = args[0] as Deno.PointerValue;
      if (object === null) throw new TypeError("Cannot unwrap a null handle");
      const view = new Deno.UnsafePointerView(object);
      const table = view.getPointer(set.tableOffset);
      if (table === null) throw new TypeError("Cannot unwrap a handle without a table");
      const fp = new Deno.UnsafePointerView(table).getPointer(index * 8);
      if (fp === null) return def.result === "i32" ? UNWRAP_ERROR_RESULT : undefined;
      const key = Deno.UnsafePointer.value(fp);
      let fn = fns.get(key);
      if (!fn) {
        fn = new Deno.UnsafeFnPointer(fp as Deno.PointerObject<never>, callDef);
        fns.set(key, fn);
      }
      const next = [...args];
      next[0] = view.getPointer(set.handleOffset);
      return (fn.call as (...a: unknown[]) => unknown)(...next);
    };
  }

  /**
   * Unloads the stubs. Nothing may call them afterwards.
   *
   * @example Usage
   * ```ts
   * import { UnwrapStubs } from "./unwrap_stubs.ts";
   * UnwrapStubs.load(["f"], [{ prefix: "t_", tableOffset: 0, handleOffset: 8 }]).dispose();
   * ```
   */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    disposeStubParts({
      object: this.#loaded,
      libraries: this.#libraries,
      singles: this.#singles,
      bound: this.#bound,
      addresses: this.#addresses,
      callbacks: this.#callbacks,
    });
  }

  /** Same as {@linkcode UnwrapStubs.dispose}. */
  [Symbol.dispose](): void {
    this.dispose();
  }
}
