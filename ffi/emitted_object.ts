/**
 * Loading a shared object vkdeno emitted in memory: through a memfd, or a temp file where a caller allows it.
 *
 * @example Usage
 * ```ts
 * import { emitStubObject } from "./elf.ts";
 * import { EmittedObject } from "./emitted_object.ts";
 * import { hasX86_64Helpers } from "./host.ts";
 * if (hasX86_64Helpers()) {
 *   const { bytes } = emitStubObject(["vkdeno_example"], "x86_64");
 *   using object = EmittedObject.open(bytes, { name: "vkdeno-example" });
 *   console.log(object.library.symbolAddress("vkdeno_example") !== null); // true
 * }
 * ```
 *
 * @module
 */

import type { CallbackOwner } from "./callback.ts";
import { cstringBuffer, libcSymbols } from "./libc.ts";
import { Library } from "./library.ts";

const MFD_CLOEXEC = 1;

/** Options of {@linkcode EmittedObject.open}. */
export interface EmittedObjectOptions {
  /** The memfd's name (shown in `/proc/self/maps`) and the temp file's prefix. */
  name: string;
  /**
   * Where the object is loaded from: `"memfd"` only (the default),
   * `"memfd-or-tempfile"` (a temp file where the memfd fails) or `"tempfile"`.
   */
  from?: "memfd" | "memfd-or-tempfile" | "tempfile";
  /** Never closed: see `LibraryOpenOptions.permanent`. */
  permanent?: boolean;
}

/**
 * An emitted object loaded with `dlopen`. The memfd stays open while the
 * object is loaded: glibc matches a later `dlopen` of a reused
 * `/proc/self/fd/N` to the old library by name.
 *
 * @example Usage
 * ```ts
 * import { EmittedObject } from "./emitted_object.ts";
 * const object = EmittedObject.attach("libm.so.6");
 * console.log(object.path); // libm.so.6
 * object.close();
 * ```
 */
export class EmittedObject implements Disposable {
  /** The path the object was opened with (`/proc/self/fd/N`, a temp file, or an attached path). */
  readonly path: string;
  /** The opened library. */
  readonly library: Library;
  #fd: number | undefined;
  #tempFile: string | undefined;

  private constructor(path: string, library: Library, fd?: number, tempFile?: string) {
    this.path = path;
    this.library = library;
    this.#fd = fd;
    this.#tempFile = tempFile;
  }

  /**
   * Writes `bytes` to a memfd (or temp file) and opens it.
   *
   * @example Usage
   * ```ts
   * import { EmittedObject } from "./emitted_object.ts";
   * try {
   *   EmittedObject.open(new Uint8Array(4), { name: "vkdeno-not-elf" });
   * } catch (error) {
   *   console.log((error as Error).message.startsWith("Cannot load library")); // true
   * }
   * ```
   * @throws {Error} Naming the object when the memfd cannot be made or
   * written, or `Library.open`'s error when `dlopen` refuses it.
   */
  static open(bytes: Uint8Array, options: EmittedObjectOptions): EmittedObject {
    const from = options.from ?? "memfd";
    if (from !== "tempfile") {
      try {
        return EmittedObject.#fromMemfd(bytes, options);
      } catch (error) {
        if (from === "memfd") throw error;
      }
    }
    const tempFile = Deno.makeTempFileSync({ prefix: `${options.name}-`, suffix: ".so" });
    try {
      Deno.writeFileSync(tempFile, bytes);
      return new EmittedObject(tempFile, Library.open(tempFile, options), undefined, tempFile);
    } catch (error) {
      Deno.removeSync(tempFile);
      throw error;
    }
  }

  static #fromMemfd(bytes: Uint8Array, options: EmittedObjectOptions): EmittedObject {
    const name = options.name;
    const libc = libcSymbols();
    const fd = libc.memfd_create(cstringBuffer(name), MFD_CLOEXEC);
    if (fd < 0) throw new Error(`Cannot create a memfd for "${name}"`);
    const path = `/proc/self/fd/${fd}`;
    try {
      let done = 0;
      while (done < bytes.length) {
        const rest = bytes.subarray(done) as Uint8Array<ArrayBuffer>;
        const n = Number(libc.write(fd, rest, BigInt(bytes.length - done)));
        if (n <= 0) break;
        done += n;
      }
      if (done !== bytes.length) throw new Error(`Cannot write "${name}" to "${path}"`);
      return new EmittedObject(path, Library.open(path, options), fd);
    } catch (error) {
      libc.close(fd);
      throw error;
    }
  }

  /**
   * Opens an object another isolate of this process loaded (by its path);
   * closing it here leaves that isolate's memfd or temp file alone.
   *
   * @example Usage
   * ```ts
   * import { EmittedObject } from "./emitted_object.ts";
   * using object = EmittedObject.attach("libm.so.6");
   * console.log(object.library.symbolAddress("cos") !== null); // true
   * ```
   * @throws {Error} If `path` cannot be opened.
   */
  static attach(path: string): EmittedObject {
    return new EmittedObject(path, Library.open(path));
  }

  /**
   * Closes the library, then its memfd or temp file. Nothing may call into
   * the object afterwards.
   *
   * @example Usage
   * ```ts
   * import { EmittedObject } from "./emitted_object.ts";
   * EmittedObject.attach("libm.so.6").close();
   * ```
   */
  close(): void {
    if (this.library.closed) return;
    this.library.close();
    if (this.#fd !== undefined) libcSymbols().close(this.#fd);
    if (this.#tempFile !== undefined) Deno.removeSync(this.#tempFile);
    this.#fd = undefined;
    this.#tempFile = undefined;
  }

  /** Same as {@linkcode EmittedObject.close}, for `using`. */
  [Symbol.dispose](): void {
    this.close();
  }
}

/** What a set of stubs (ffi/dispatch.ts `DispatchStubs`, ffi/unwrap_stubs.ts `UnwrapStubs`) holds open. */
export interface StubParts<K> {
  /** The emitted object the stubs live in (none on the fallback). */
  readonly object: EmittedObject | undefined;
  /** Libraries opened to bind stubs as FFI functions. */
  readonly libraries: Deno.DynamicLibrary<Deno.ForeignLibraryInterface>[];
  /** One-stub objects made to bind stubs that have no symbol in the main object. */
  readonly singles: EmittedObject[];
  /** The bound functions, by key. */
  readonly bound: Map<K, unknown>;
  /** The stubs' addresses, by key. */
  readonly addresses: Map<K, Deno.PointerObject>;
  /** The fallback's callbacks. */
  readonly callbacks: CallbackOwner;
}

/**
 * Closes what a set of stubs holds: the libraries bound through it, the one-stub objects, the callbacks,
 * then the object itself. Nothing may call the stubs afterwards.
 *
 * @example Usage
 * ```ts
 * import { CallbackOwner } from "./callback.ts";
 * import { disposeStubParts } from "./emitted_object.ts";
 * disposeStubParts({
 *   object: undefined,
 *   libraries: [],
 *   singles: [],
 *   bound: new Map(),
 *   addresses: new Map(),
 *   callbacks: new CallbackOwner(),
 * });
 * ```
 */
export function disposeStubParts<K>(parts: StubParts<K>): void {
  for (const lib of parts.libraries) lib.close();
  parts.libraries.length = 0;
  for (const single of parts.singles) single.close();
  parts.singles.length = 0;
  parts.bound.clear();
  parts.addresses.clear();
  parts.callbacks.dispose();
  parts.object?.close();
}
