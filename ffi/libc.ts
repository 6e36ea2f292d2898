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
  libc ??= Deno.dlopen("libc.so.6", LIBC_SYMBOLS).symbols;
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
