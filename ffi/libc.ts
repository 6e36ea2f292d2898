/**
 * The libc functions the ffi core needs (`dlopen` family, `memfd_create`, `statx` for file stamps), bound
 * once on first use, from one `Deno.dlopen` for the whole process: each `Deno.dlopen` costs ~0.3 ms at
 * start, and each symbol it declares ~0.1 ms more (Deno compiles a trampoline per symbol).
 *
 * @module
 */

import { hasGlibc } from "./host.ts";

/** The libc functions bound, with their C parameters. */
export const LIBC_SYMBOLS = {
  dlopen: { parameters: ["buffer", "i32"], result: "pointer" },
  dlsym: { parameters: ["pointer", "buffer"], result: "pointer" },
  dlclose: { parameters: ["pointer"], result: "i32" },
  dlerror: { parameters: [], result: "pointer" },
  memfd_create: { parameters: ["buffer", "u32"], result: "i32" },
  write: { parameters: ["i32", "buffer", "usize"], result: "isize" },
  close: { parameters: ["i32"], result: "i32" },
  statx: { parameters: ["i32", "buffer", "i32", "u32", "buffer"], result: "i32" },
  __errno_location: { parameters: [], result: "pointer" },
} as const satisfies Deno.ForeignLibraryInterface;

/** `dlopen` flags of glibc. */
export const RTLD_LAZY = 0x1;
/** Resolve every symbol at load time. */
export const RTLD_NOW = 0x2;
/** Symbols are not made available to later loads. */
export const RTLD_LOCAL = 0x0;
/** `dlclose` never unmaps the library (glibc value). */
export const RTLD_NODELETE = 0x1000;

/** The bound libc functions. */
export type LibcSymbols = Deno.DynamicLibrary<typeof LIBC_SYMBOLS>["symbols"];

let libc: LibcSymbols | undefined;

/**
 * The bound libc functions.
 *
 * @example Usage
 * ```ts
 * import { libcSymbols } from "./libc.ts";
 * console.log(typeof libcSymbols().dlerror);
 * ```
 */
export function libcSymbols(): LibcSymbols {
  if (libc) return libc;
  // Fast calls only where calls are many: dlsym (every command bound) and statx (every path of every kept
  // scan at every vkCreateInstance). The others are called a few times per process, through UnsafeFnPointer
  // (~2 us a call). statx is glibc 2.28+; without it, it is bound like the others and throws when called.
  let fast: { dlsym: LibcSymbols["dlsym"]; statx?: LibcSymbols["statx"] };
  try {
    fast = Deno.dlopen("libc.so.6", { dlsym: LIBC_SYMBOLS.dlsym, statx: LIBC_SYMBOLS.statx }).symbols;
  } catch {
    fast = Deno.dlopen("libc.so.6", { dlsym: LIBC_SYMBOLS.dlsym }).symbols;
  }
  const { dlsym } = fast;
  // Looked up now, not at first call: a dlsym at dlerror's first call would clear the error it reports.
  const cold = <K extends Exclude<keyof typeof LIBC_SYMBOLS, "dlsym">>(name: K): LibcSymbols[K] =>
    libcFunction(dlsym, name, LIBC_SYMBOLS[name]) as LibcSymbols[K];
  libc = {
    dlsym,
    dlopen: cold("dlopen"),
    dlclose: cold("dlclose"),
    dlerror: cold("dlerror"),
    memfd_create: cold("memfd_create"),
    write: cold("write"),
    close: cold("close"),
    statx: fast.statx ?? cold("statx"),
    __errno_location: cold("__errno_location"),
  };
  return libc;
}

/** A call of a libc function found by dlsym, or one that throws naming it when libc has none. */
function libcFunction<const D extends Deno.ForeignFunction>(
  dlsym: LibcSymbols["dlsym"],
  name: string,
  definition: D,
): (...args: Deno.ToNativeParameterTypes<D["parameters"]>) => Deno.FromNativeResultType<D["result"]> {
  const p = dlsym(null, cstringBuffer(name));
  if (p === null) {
    return () => {
      throw new Error(`Cannot find "${name}" in libc`);
    };
  }
  const fn = new Deno.UnsafeFnPointer(p as Deno.PointerObject<never>, definition);
  return fn.call.bind(fn) as never;
}

let granted: boolean | undefined;

/**
 * The bound libc functions when `--allow-ffi` is granted on Linux, else `null`: for code with a fallback
 * that must not prompt for the permission (e.g. `deno task inspect` without `--allow-ffi`).
 *
 * @example Usage
 * ```ts
 * import { libcIfGranted } from "./libc.ts";
 * console.log(libcIfGranted() === null); // true without --allow-ffi
 * ```
 */
export function libcIfGranted(): LibcSymbols | null {
  if (granted === undefined) {
    try {
      // Asked first, so a run without --allow-ffi is never prompted.
      granted = hasGlibc() && Deno.permissions.querySync({ name: "ffi" }).state === "granted";
      if (granted) libcSymbols();
    } catch {
      // no glibc (libc.so.6 cannot be opened)
      granted = false;
    }
  }
  return granted ? libcSymbols() : null;
}

/**
 * A libc function not in {@linkcode LIBC_SYMBOLS}, found by `dlsym` and called through `UnsafeFnPointer`
 * (a slow call, ~2 us): for functions a process calls a few times. Calling it throws when libc has none.
 *
 * @example Usage
 * ```ts
 * import { libcFunctionOf } from "./libc.ts";
 * const getpid = libcFunctionOf("getpid", { parameters: [], result: "i32" });
 * console.log(getpid() === Deno.pid); // true
 * ```
 */
export function libcFunctionOf<const D extends Deno.ForeignFunction>(
  name: string,
  definition: D,
): (...args: Deno.ToNativeParameterTypes<D["parameters"]>) => Deno.FromNativeResultType<D["result"]> {
  return libcFunction(libcSymbols().dlsym, name, definition);
}

const encoder = new TextEncoder();

/**
 * A NUL-terminated UTF-8 copy of `s` for a `buffer` parameter.
 *
 * @example Usage
 * ```ts
 * import { cstringBuffer } from "./libc.ts";
 * cstringBuffer("libvulkan.so.1");
 * ```
 */
export function cstringBuffer(s: string): Uint8Array<ArrayBuffer> {
  const bytes = encoder.encode(s);
  const out = new Uint8Array(bytes.length + 1);
  out.set(bytes);
  return out;
}

/**
 * The last `dlerror()` text, or "" when there is none.
 *
 * @example Usage
 * ```ts
 * import { lastDlError } from "./libc.ts";
 * lastDlError();
 * ```
 */
export function lastDlError(): string {
  const p = libcSymbols().dlerror();
  return p === null ? "" : Deno.UnsafePointerView.getCString(p);
}
