/**
 * Shared libraries opened with libc's `dlopen` (kernel32's `LoadLibraryW` on Windows), symbols looked up on
 * demand, and cold-path calls through C function pointers.
 *
 * @module
 */

import { cstringBuffer, lastDlError, libcSymbols, RTLD_LAZY, RTLD_LOCAL, RTLD_NODELETE } from "./libc.ts";
import { hasGlibc } from "./host.ts";
import { freeLibrary, loadLibrary, procAddress } from "./kernel32.ts";

/** Options of {@linkcode Library.open}. */
export interface LibraryOpenOptions {
  /**
   * Add `RTLD_NODELETE`: the library stays mapped after `close()` (what the
   * Khronos loader does under `VK_LOADER_DISABLE_DYNAMIC_LIBRARY_UNLOADING`,
   * for tools that report leaks by symbol).
   */
  noDelete?: boolean;
  /**
   * The library stays loaded for the life of the process (layers may keep
   * pointers into it): it is left out of {@linkcode Library.liveCount}, which
   * leak checks expect to go back down.
   */
  permanent?: boolean;
}

/**
 * A shared library opened with `dlopen(path, RTLD_LAZY | RTLD_LOCAL)`, the
 * Khronos loader's `LOADER_DLOPEN_MODE` for drivers and layers: functions are
 * bound at their first call, so a driver linked against a large library (lavapipe
 * and LLVM) loads without resolving thousands of symbols it may never call. A
 * missing dependency still fails here; `LD_BIND_NOW=1` resolves everything at
 * load, as with libvulkan.
 *
 * @example Usage
 * ```ts
 * import { Library } from "./library.ts";
 * using libm = Library.open("libm.so.6");
 * const cos = libm.fn("cos", { parameters: ["f64"], result: "f64" });
 * console.log(cos?.call(0)); // 1
 * ```
 */
export class Library implements Disposable {
  static #live = 0;
  #handle: Deno.PointerValue;
  #path: string;
  #fns = new Map<string, Deno.UnsafeFnPointer<Deno.ForeignFunction>>();
  #counted: boolean;

  private constructor(path: string, handle: Deno.PointerObject, counted: boolean) {
    this.#path = path;
    this.#handle = handle;
    this.#counted = counted;
    if (counted) Library.#live++;
  }

  /**
   * Opens a library: a path, or a bare name the dynamic linker searches for.
   *
   * @example Usage
   * ```ts
   * import { Library } from "./library.ts";
   * const lib = Library.open("libm.so.6");
   * lib.close();
   * ```
   * @throws {Error} `Cannot load library "<path>": <dlerror text>` when dlopen fails.
   */
  static open(path: string, options: LibraryOpenOptions = {}): Library {
    if (!hasGlibc()) {
      // Windows (docs/behaviour.md V20): LoadLibraryW; noDelete has no counterpart there.
      const { handle, error } = loadLibrary(path);
      if (handle === null) {
        throw new Error(`Cannot load library "${path}": LoadLibraryW failed, error ${error}`);
      }
      return new Library(path, handle, !options.permanent);
    }
    const libc = libcSymbols();
    const flags = RTLD_LAZY | RTLD_LOCAL | (options.noDelete ? RTLD_NODELETE : 0);
    const handle = libc.dlopen(cstringBuffer(path), flags);
    if (handle === null) {
      throw new Error(`Cannot load library "${path}": ${lastDlError() || "unknown dlopen error"}`);
    }
    return new Library(path, handle, !options.permanent);
  }

  /** How many libraries are open through this class. */
  static get liveCount(): number {
    return Library.#live;
  }

  /** The path or name the library was opened with. */
  get path(): string {
    return this.#path;
  }

  /** True once {@linkcode Library.close} ran. */
  get closed(): boolean {
    return this.#handle === null;
  }

  /** The raw `dlopen` handle, for code that must pass it on to C. */
  get unsafeHandle(): Deno.PointerValue {
    return this.#handle;
  }

  /**
   * The address of a symbol, or `null` when the library has none by that name.
   *
   * @example Usage
   * ```ts
   * import { Library } from "./library.ts";
   * using libm = Library.open("libm.so.6");
   * console.log(libm.symbolAddress("no_such_symbol")); // null
   * ```
   * @throws {TypeError} If the library was closed.
   */
  symbolAddress(name: string): Deno.PointerValue {
    if (this.#handle === null) {
      throw new TypeError(`Cannot look up "${name}": library "${this.#path}" is closed`);
    }
    if (!hasGlibc()) return procAddress(this.#handle, name);
    return libcSymbols().dlsym(this.#handle, cstringBuffer(name));
  }

  /**
   * A callable for a symbol (slow: `UnsafeFnPointer`), or `null` when missing.
   * The same object is returned for the same name.
   *
   * @example Usage
   * ```ts
   * import { Library } from "./library.ts";
   * using libc = Library.open("libc.so.6");
   * const getpid = libc.fn("getpid", { parameters: [], result: "i32" });
   * console.log(getpid?.call() === Deno.pid);
   * ```
   */
  fn<const T extends Deno.ForeignFunction>(
    name: string,
    def: T,
  ): Deno.UnsafeFnPointer<T> | null {
    const cached = this.#fns.get(name);
    if (cached) return cached as unknown as Deno.UnsafeFnPointer<T>;
    const ptr = this.symbolAddress(name);
    if (ptr === null) return null;
    const fn = new Deno.UnsafeFnPointer(ptr as Deno.PointerObject<never>, def);
    this.#fns.set(name, fn as unknown as Deno.UnsafeFnPointer<Deno.ForeignFunction>);
    return fn;
  }

  /**
   * Closes the library (`dlclose`). Nothing may call into it afterwards:
   * close only once every table pointing into it is dead.
   *
   * @example Usage
   * ```ts
   * import { Library } from "./library.ts";
   * Library.open("libm.so.6").close();
   * ```
   */
  close(): void {
    if (this.#handle === null) return;
    if (hasGlibc()) libcSymbols().dlclose(this.#handle);
    else freeLibrary(this.#handle);
    this.#handle = null;
    this.#fns.clear();
    if (this.#counted) Library.#live--;
  }

  /** Same as {@linkcode Library.close}, for `using`. */
  [Symbol.dispose](): void {
    this.close();
  }
}

/**
 * A callable for any C function pointer (slow: `UnsafeFnPointer`, for cold
 * calls such as `vkGetInstanceProcAddr` results during negotiation).
 *
 * @example Usage
 * ```ts
 * import { fnFromPointer, Library } from "./library.ts";
 * using libc = Library.open("libc.so.6");
 * const getpid = fnFromPointer(libc.symbolAddress("getpid"), { parameters: [], result: "i32" });
 * console.log(getpid.call() === Deno.pid);
 * ```
 * @throws {TypeError} If `ptr` is null.
 */
export function fnFromPointer<const T extends Deno.ForeignFunction>(
  ptr: Deno.PointerValue,
  def: T,
): Deno.UnsafeFnPointer<T> {
  if (ptr === null) throw new TypeError("Cannot call a null function pointer");
  return new Deno.UnsafeFnPointer(ptr as Deno.PointerObject<never>, def);
}
