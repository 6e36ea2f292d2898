/**
 * Dispatch tables and the native stubs that jump through them (one stub per command index), with the
 * `Deno.UnsafeFnPointer` fallback where stubs cannot be emitted.
 *
 * @module
 */

import { CallbackOwner } from "./callback.ts";
import { emitStubObject, STUB_SIZE, type StubArch, stubCode, validateNames } from "./elf.ts";
import { disposeStubParts, EmittedObject } from "./emitted_object.ts";
import { elfStubArch, noStubsReason } from "./host.ts";
import { cachedBytes, codeIdentity } from "./persistent_cache.ts";

/** Disposed tables' memory kept per size at most (an instance and its device hold three). */
const MAX_RELEASED_TABLES = 8;

/**
 * A table of function pointers indexed by command index, in memory that stays
 * valid (and at the same address) until {@linkcode DispatchTable.dispose}:
 * every undisposed table is kept referenced, since C may hold its address in
 * a handle's first word even when no JavaScript object refers to the table.
 *
 * @example Usage
 * ```ts
 * import { DispatchTable } from "./dispatch.ts";
 * using table = new DispatchTable(4);
 * table.set(2, Deno.UnsafePointer.create(0x1000n));
 * console.log(table.address !== 0n, Deno.UnsafePointer.value(table.get(2))); // true 4096n
 * ```
 */
export class DispatchTable implements Disposable {
  static #live = new Set<DispatchTable>();
  /**
   * Memory of disposed tables, by size, for the next table of that size: every instance and device makes
   * three ~10 KB tables, and a fresh buffer and its address cost more than zeroing a kept one.
   */
  static #released = new Map<number, { words: BigUint64Array<ArrayBuffer>; pointer: Deno.PointerObject }[]>();
  #words: BigUint64Array<ArrayBuffer>;
  #pointer: Deno.PointerObject;
  #disposed = false;

  /**
   * A zero-filled table of `slots` entries.
   *
   * @throws {RangeError} If `slots` is not a positive integer.
   */
  constructor(slots: number) {
    if (!Number.isInteger(slots) || slots <= 0) {
      throw new RangeError(`Invalid dispatch table size "${slots}"`);
    }
    const kept = DispatchTable.#released.get(slots)?.pop();
    if (kept) {
      kept.words.fill(0n);
      this.#words = kept.words;
      this.#pointer = kept.pointer;
    } else {
      // An explicit ArrayBuffer lives off the V8 heap: never moved by the GC.
      this.#words = new BigUint64Array(new ArrayBuffer(slots * 8));
      this.#pointer = Deno.UnsafePointer.of(this.#words)!;
    }
    DispatchTable.#live.add(this);
  }

  /** Tables created and not yet disposed. */
  static get liveCount(): number {
    return DispatchTable.#live.size;
  }

  /** Number of slots. */
  get slots(): number {
    return this.#words.length;
  }

  /** The table's address as a pointer: what goes into a dispatchable handle's first word. */
  get pointer(): Deno.PointerObject {
    return this.#pointer;
  }

  /** The table's address as a number. */
  get address(): bigint {
    return Deno.UnsafePointer.value(this.#pointer);
  }

  /** True once {@linkcode DispatchTable.dispose} ran. */
  get disposed(): boolean {
    return this.#disposed;
  }

  #check(i: number): void {
    if (!Number.isInteger(i) || i < 0 || i >= this.#words.length) {
      throw new RangeError(`Dispatch slot "${i}" is out of range 0..${this.#words.length - 1}`);
    }
  }

  /**
   * Stores a function pointer (or `null`) in slot `i`.
   *
   * @example Usage
   * ```ts
   * import { DispatchTable } from "./dispatch.ts";
   * using table = new DispatchTable(1);
   * table.set(0, null);
   * ```
   * @throws {RangeError} If `i` is out of range.
   */
  set(i: number, fnptr: Deno.PointerValue | bigint): void {
    this.#check(i);
    this.#words[i] = typeof fnptr === "bigint" ? fnptr : Deno.UnsafePointer.value(fnptr);
  }

  /**
   * Stores `fns[k]` in slot `slots[k]` for every `k`, and `empty` where `fns[k]` is 0: a whole table in one
   * loop that copies 32-bit words, where ~500 {@linkcode DispatchTable.set} calls (a BigInt read and a range
   * check each) showed at every `vkCreateDevice` in the profile.
   *
   * @example Usage
   * ```ts
   * import { DispatchTable } from "./dispatch.ts";
   * using table = new DispatchTable(4);
   * table.setAll(Uint32Array.of(1, 3), BigUint64Array.of(0x1000n, 0n), 0x2000n);
   * console.log(Deno.UnsafePointer.value(table.get(1)), Deno.UnsafePointer.value(table.get(3))); // 4096n 8192n
   * ```
   * @throws {RangeError} If the lists differ in length or a slot is out of range (nothing is written then).
   */
  setAll(slots: Uint32Array, fns: BigUint64Array, empty: Deno.PointerValue | bigint): void {
    const size = this.#words.length;
    if (slots.length !== fns.length) {
      throw new RangeError(`Cannot fill a dispatch table: ${slots.length} slots for ${fns.length} functions`);
    }
    for (let k = 0; k < slots.length; k++) if (slots[k]! >= size) this.#check(slots[k]!);
    const none = new BigUint64Array(1);
    none[0] = typeof empty === "bigint" ? empty : Deno.UnsafePointer.value(empty);
    const [emptyA, emptyB] = new Uint32Array(none.buffer);
    // Each address as its two 32-bit words, copied in memory order (no BigInt made per slot).
    const to = new Uint32Array(this.#words.buffer);
    const from = new Uint32Array(fns.buffer, fns.byteOffset, fns.length * 2);
    for (let k = 0; k < slots.length; k++) {
      const s = slots[k]! * 2, a = from[k * 2]!, b = from[k * 2 + 1]!;
      const isNone = (a | b) === 0;
      to[s] = isNone ? emptyA! : a;
      to[s + 1] = isNone ? emptyB! : b;
    }
  }

  /**
   * The function pointer in slot `i` (`null` when empty).
   *
   * @example Usage
   * ```ts
   * import { DispatchTable } from "./dispatch.ts";
   * using table = new DispatchTable(1);
   * console.log(table.get(0)); // null
   * ```
   * @throws {RangeError} If `i` is out of range.
   */
  get(i: number): Deno.PointerValue {
    this.#check(i);
    return Deno.UnsafePointer.create(this.#words[i]!);
  }

  /**
   * Lets the table be freed. No handle may point to it any more.
   *
   * @example Usage
   * ```ts
   * import { DispatchTable } from "./dispatch.ts";
   * new DispatchTable(8).dispose();
   * ```
   */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    DispatchTable.#live.delete(this);
    const size = this.#words.length;
    let list = DispatchTable.#released.get(size);
    if (list === undefined) DispatchTable.#released.set(size, list = []);
    if (list.length < MAX_RELEASED_TABLES) list.push({ words: this.#words, pointer: this.#pointer });
    // The memory may be another table's now: a late set or get is refused as out of range.
    this.#words = new BigUint64Array(0);
  }

  /** Same as {@linkcode DispatchTable.dispose}, for `using`. */
  [Symbol.dispose](): void {
    this.dispose();
  }
}

/** Options of {@linkcode DispatchStubs.load}. */
export interface DispatchStubsOptions {
  /**
   * `false` forces the `UnsafeFnPointer` fallback even where native stubs
   * work (for tests and comparisons). Default: native where supported.
   */
  native?: boolean;
  /**
   * Where the stub object is loaded from: a memfd (`/proc/self/fd/N`, the
   * default, falling back to a temp file) or straight from a temp file.
   */
  source?: "memfd" | "tempfile";
  /**
   * How many leading names get a symbol in the object (default all, at least
   * one). The others are code only: their addresses are computed, and
   * binding one loads a one-stub object of its own. Each symbol costs every
   * start a name to hash and write; the chain names its ~740 commands and
   * leaves its 500 reserved slots unnamed.
   */
  exported?: number;
  /** The `elfHash` of each exported name where the caller has it (see `StubLayout.hashes`). */
  hashes?: ArrayLike<number | undefined>;
}

/** The architecture stubs can be emitted for in this process, or `undefined`. */
export function nativeStubArch(): StubArch | undefined {
  return elfStubArch();
}

let identity: string | undefined;

/**
 * The code that shapes an emitted stub object, for the persistent cache's keys (ffi/persistent_cache.ts).
 *
 * @example Usage
 * ```ts
 * import { emitterIdentity } from "./dispatch.ts";
 * console.log(emitterIdentity().includes("elf.ts")); // true
 * ```
 */
export function emitterIdentity(): string {
  return identity ??= codeIdentity(
    ["./elf.ts", "./dispatch.ts", "./unwrap_object.ts", "./unwrap_stub_code.ts", "./native_helpers.ts"].map(
      (path) => new URL(path, import.meta.url),
    ),
  );
}

/**
 * One native stub per command index, or the `UnsafeFnPointer` fallback.
 *
 * @example Usage
 * ```ts
 * import { DispatchStubs } from "./dispatch.ts";
 * using stubs = DispatchStubs.load(["vkGetDeviceQueue", "vkdeno_unknown_0"]);
 * const getDeviceQueue = stubs.bind(0, { parameters: ["pointer", "u32", "u32", "pointer"], result: "void" });
 * console.log(typeof getDeviceQueue, stubs.native);
 * ```
 */
export class DispatchStubs implements Disposable {
  #names: readonly string[];
  #index: Map<string, number> | undefined;
  #object: EmittedObject | undefined;
  #bound = new Map<number, unknown>();
  #libraries: Deno.DynamicLibrary<Deno.ForeignLibraryInterface>[] = [];
  /** One-stub objects made to bind stubs that have no symbol in the main object. */
  #singles: EmittedObject[] = [];
  #addresses = new Map<number, Deno.PointerObject>();
  #stub0: bigint | undefined;
  #callbacks = new CallbackOwner();
  #disposed = false;

  #fallbackReason: string | undefined;

  private constructor(names: readonly string[], object: EmittedObject | undefined, fallbackReason?: string) {
    this.#names = names;
    this.#object = object;
    this.#fallbackReason = object === undefined ? fallbackReason ?? "no stub object" : undefined;
  }

  /** Why calls go through the `UnsafeFnPointer` fallback; `undefined` when native. */
  get fallbackReason(): string | undefined {
    return this.#fallbackReason;
  }

  /**
   * Emits and loads stubs for `names` (stub N is named `names[N]`), or sets
   * up the fallback where native stubs are unavailable or `native: false`.
   *
   * @example Forcing the fallback
   * ```ts
   * import { DispatchStubs } from "./dispatch.ts";
   * using stubs = DispatchStubs.load(["vkQueueSubmit"], { native: false });
   * console.log(stubs.native); // false
   * ```
   * @throws {TypeError} If a name is empty, repeated, or contains NUL.
   */
  static load(names: readonly string[], options: DispatchStubsOptions = {}): DispatchStubs {
    const arch = nativeStubArch();
    const named = Math.min(names.length, Math.max(1, options.exported ?? names.length));
    if (options.native === false || arch === undefined) {
      validateNames(names); // the fallback refuses the names the emitter would
      return new DispatchStubs(
        [...names],
        undefined,
        options.native === false ? "native stubs were turned off" : noStubsReason(),
      );
    }
    // The same names, counts and emitter give the same bytes: kept across processes (ffi/persistent_cache.ts).
    // Joined by NUL, which no valid name holds: a kept entry's key names a list that was checked when the
    // entry was made, so only an emission checks them (~1-2 ms for the chain's 1,480 at a first start).
    const key = `${arch} ${named} ${names.length}\n${Array.from(options.hashes ?? []).join(",")}\n${
      names.join("\0")
    }\n${emitterIdentity()}`;
    const bytes = cachedBytes(`stubs-dispatch-${arch}`, key, () => {
      validateNames(names); // the unnamed ones too
      return emitStubObject(names.slice(0, named), arch, undefined, {
        stubs: names.length,
        validated: true,
        hashes: options.hashes,
      }).bytes;
    });
    let object: EmittedObject;
    try {
      const from = options.source === "tempfile" ? "tempfile" : "memfd-or-tempfile";
      object = EmittedObject.open(bytes, { name: "vkdeno-stubs", from });
    } catch (error) {
      return new DispatchStubs([...names], undefined, error instanceof Error ? error.message : String(error));
    }
    return new DispatchStubs([...names], object);
  }

  /**
   * Uses stubs another isolate of this process loaded (a worker given the
   * main thread's `path` and `names`): handles made there dispatch here too.
   * The loading isolate keeps ownership: it must dispose its stubs last.
   * `path` `undefined` (the loader runs the fallback) gives fallback stubs.
   *
   * @example In a worker
   * ```ts ignore
   * import { DispatchStubs } from "./dispatch.ts";
   * self.onmessage = (e) => {
   *   using stubs = DispatchStubs.attach(e.data.path, e.data.names);
   * };
   * ```
   * @throws {Error} If `path` cannot be opened.
   */
  static attach(path: string | undefined, names: readonly string[]): DispatchStubs {
    if (path === undefined) {
      return new DispatchStubs([...names], undefined, "the loading isolate uses the fallback");
    }
    return new DispatchStubs([...names], EmittedObject.attach(path));
  }

  /** True when calls go through native stubs; false for the `UnsafeFnPointer` fallback. */
  get native(): boolean {
    return this.#object !== undefined;
  }

  /** The stub names, in index order. */
  get names(): readonly string[] {
    return this.#names;
  }

  /** The path the stub object was loaded from (`/proc/self/fd/N` or a temp file), if native. */
  get path(): string | undefined {
    return this.#object?.path;
  }

  /**
   * The index of a stub name, or `undefined`.
   *
   * @example Usage
   * ```ts
   * import { DispatchStubs } from "./dispatch.ts";
   * using stubs = DispatchStubs.load(["a", "b"]);
   * console.log(stubs.indexOf("b")); // 1
   * ```
   */
  indexOf(name: string): number | undefined {
    // Built on first use: the loader addresses stubs by slot, never by name.
    this.#index ??= new Map(this.#names.map((n, i) => [n, i]));
    return this.#index.get(name);
  }

  #check(index: number): string {
    if (this.#disposed) throw new TypeError("Cannot use disposed dispatch stubs");
    const name = this.#names[index];
    if (name === undefined) {
      throw new RangeError(`Stub index "${index}" is out of range 0..${this.#names.length - 1}`);
    }
    return name;
  }

  /**
   * The JavaScript function for stub `index`, declared with `def`: its first
   * argument must be a pointer whose first word is a dispatch table address.
   * Bound lazily (declaring a fast symbol costs ~80 us) and cached per index.
   *
   * @example Usage
   * ```ts
   * import { DispatchStubs } from "./dispatch.ts";
   * using stubs = DispatchStubs.load(["vkCmdSetLineWidth"]);
   * const setLineWidth = stubs.bind(0, { parameters: ["pointer", "f32"], result: "void" });
   * ```
   * @throws {RangeError} If `index` is out of range.
   */
  bind<const T extends Deno.ForeignFunction>(index: number, def: T): Deno.StaticForeignSymbol<T> {
    const name = this.#check(index);
    const cached = this.#bound.get(index);
    if (cached !== undefined) return cached as Deno.StaticForeignSymbol<T>;
    if (def.parameters[0] !== "pointer") {
      throw new TypeError(
        `Cannot bind stub "${name}": its first parameter must be "pointer" (a dispatchable handle)`,
      );
    }
    let fn: unknown;
    if (this.#object !== undefined) {
      let path = this.#object.path;
      if (this.#object.library.symbolAddress(name) === null) {
        // A stub without a symbol (a reserved slot): Deno.dlopen binds by name, so give it an object of its
        // own holding the same code.
        const arch = nativeStubArch() ?? "x86_64";
        const single = EmittedObject.open(
          emitStubObject([name], arch, (out, at) => out.set(stubCode(index, arch), at)).bytes,
          { name: "vkdeno-stub", from: "memfd-or-tempfile" },
        );
        this.#singles.push(single);
        path = single.path;
      }
      const lib = Deno.dlopen(path, {
        [name]: { parameters: def.parameters, result: def.result },
      } as Deno.ForeignLibraryInterface);
      this.#libraries.push(lib);
      fn = lib.symbols[name];
    } else {
      fn = fallbackCall(index, name, def);
    }
    this.#bound.set(index, fn);
    return fn as Deno.StaticForeignSymbol<T>;
  }

  /**
   * The C-callable address of stub `index`: what `vkGet*ProcAddr` returns.
   * Native mode: the stub itself. Fallback mode: a callback (declared with
   * `def`, required there) that does the table lookup in TypeScript.
   *
   * @example Usage
   * ```ts
   * import { DispatchStubs } from "./dispatch.ts";
   * using stubs = DispatchStubs.load(["vkDestroyDevice"]);
   * if (stubs.native) console.log(stubs.address(0) !== null); // true
   * ```
   * @throws {TypeError} In fallback mode without `def`.
   */
  address(index: number, def?: Deno.UnsafeCallbackDefinition): Deno.PointerObject {
    const name = this.#check(index);
    const cached = this.#addresses.get(index);
    if (cached !== undefined) return cached;
    let ptr: Deno.PointerValue;
    if (this.#object !== undefined) {
      // Stubs are STUB_SIZE apart from stub 0, named or not.
      if (this.#stub0 === undefined) {
        const first = this.#object.library.symbolAddress(this.#names[0]!);
        if (first === null) {
          throw new Error(`Stub "${this.#names[0]}" is missing from "${this.#object.path}"`);
        }
        this.#stub0 = Deno.UnsafePointer.value(first);
      }
      ptr = Deno.UnsafePointer.create(this.#stub0 + BigInt(index * STUB_SIZE))!;
    } else {
      if (def === undefined) {
        throw new TypeError(
          `Cannot take the address of stub "${name}" without native stubs: pass its definition`,
        );
      }
      const call = fallbackCall(index, name, def) as (...args: unknown[]) => unknown;
      ptr = this.#callbacks.create(
        def,
        call as Deno.UnsafeCallbackFunction<typeof def.parameters, typeof def.result>,
        { name, onError: fallbackErrorValue(def.result) as never },
      ).pointer;
    }
    this.#addresses.set(index, ptr);
    return ptr;
  }

  /**
   * Unloads the stubs. No table may be called through them any more.
   *
   * @example Usage
   * ```ts
   * import { DispatchStubs } from "./dispatch.ts";
   * DispatchStubs.load(["a"]).dispose();
   * ```
   */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    disposeStubParts({
      object: this.#object,
      libraries: this.#libraries,
      singles: this.#singles,
      bound: this.#bound,
      addresses: this.#addresses,
      callbacks: this.#callbacks,
    });
  }

  /** Same as {@linkcode DispatchStubs.dispose}, for `using`. */
  [Symbol.dispose](): void {
    this.dispose();
  }
}

/**
 * What a fallback callback returns to C when the lookup fails (null handle
 * or empty slot, where a native stub would crash): `VkResult` commands get
 * `VK_ERROR_INITIALIZATION_FAILED` (-3), pointers NULL, other numbers 0.
 */
function fallbackErrorValue(result: Deno.NativeResultType): unknown {
  if (result === "void" || result === "pointer" || result === "buffer" || result === "function") {
    return undefined;
  }
  if (result === "i32") return -3;
  return result === "u64" || result === "i64" || result === "usize" || result === "isize" ? 0n : 0;
}

/**
 * The fallback for stub `index`: reads the table from the first word of the
 * first argument, then calls slot `index` through a cached `UnsafeFnPointer`.
 */
function fallbackCall(
  index: number,
  name: string,
  def: Deno.ForeignFunction,
): (...args: unknown[]) => unknown {
  const fns = new Map<bigint, Deno.UnsafeFnPointer<Deno.ForeignFunction>>();
  const callDef = { parameters: def.parameters, result: def.result };
  return (...args: unknown[]) => {
    const handle = args[0] as Deno.PointerValue;
    if (handle === null) throw new TypeError(`Cannot call "${name}" on a null handle`);
    const table = new Deno.UnsafePointerView(handle).getPointer(0);
    if (table === null) throw new TypeError(`Cannot call "${name}": the handle has no dispatch table`);
    const fp = new Deno.UnsafePointerView(table).getPointer(index * 8);
    if (fp === null) throw new TypeError(`Cannot call "${name}": dispatch slot ${index} is empty`);
    const key = Deno.UnsafePointer.value(fp);
    let fn = fns.get(key);
    if (fn === undefined) {
      fn = new Deno.UnsafeFnPointer(fp as Deno.PointerObject<never>, callDef);
      fns.set(key, fn);
    }
    return (fn.call as (...a: unknown[]) => unknown)(...args);
  };
}
