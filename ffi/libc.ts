/**
 * The few libc functions the ffi core needs (`dlopen` family, `memfd_create`),
 * bound once on first use.
 *
 * @module
 */

/** The libc functions bound, with their C parameters. */
export const LIBC_SYMBOLS = {
  dlopen: { parameters: ["buffer", "i32"], result: "pointer" },
  dlsym: { parameters: ["pointer", "buffer"], result: "pointer" },
  dlclose: { parameters: ["pointer"], result: "i32" },
  dlerror: { parameters: [], result: "pointer" },
  memfd_create: { parameters: ["buffer", "u32"], result: "i32" },
  write: { parameters: ["i32", "buffer", "usize"], result: "isize" },
  close: { parameters: ["i32"], result: "i32" },
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
  // Only dlsym is a fast-call symbol: Deno compiles a trampoline per declared symbol (~0.1 ms each at every
  // start), and the others are called a few times per process, through UnsafeFnPointer (~2 us a call).
  const { dlsym } = Deno.dlopen("libc.so.6", { dlsym: LIBC_SYMBOLS.dlsym }).symbols;
  // Looked up now, not at first call: a dlsym at dlerror's first call would clear the error it reports.
  const cold = <K extends Exclude<keyof typeof LIBC_SYMBOLS, "dlsym">>(name: K): LibcSymbols[K] => {
    const p = dlsym(null, cstringBuffer(name));
    if (p === null) {
      return (() => {
        throw new Error(`Cannot find "${name}" in libc`);
      }) as LibcSymbols[K];
    }
    const fn = new Deno.UnsafeFnPointer(p as Deno.PointerObject<never>, LIBC_SYMBOLS[name]);
    return fn.call.bind(fn) as unknown as LibcSymbols[K];
  };
  libc = {
    dlsym,
    dlopen: cold("dlopen"),
    dlclose: cold("dlclose"),
    dlerror: cold("dlerror"),
    memfd_create: cold("memfd_create"),
    write: cold("write"),
    close: cold("close"),
  };
  return libc;
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
