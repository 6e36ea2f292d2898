/**
 * The kernel32 functions `Library` needs on Windows (`LoadLibraryW`, `GetProcAddress`, `FreeLibrary`), bound
 * once on first use: Windows' counterparts of libc's `dlopen` family (docs/behaviour.md V20).
 *
 * @module
 */

import { cstringBuffer } from "./libc.ts";

const KERNEL32_SYMBOLS = {
  LoadLibraryW: { parameters: ["buffer"], result: "pointer" },
  GetProcAddress: { parameters: ["pointer", "buffer"], result: "pointer" },
  FreeLibrary: { parameters: ["pointer"], result: "i32" },
  GetLastError: { parameters: [], result: "u32" },
} as const satisfies Deno.ForeignLibraryInterface;

let kernel32: Deno.DynamicLibrary<typeof KERNEL32_SYMBOLS>["symbols"] | undefined;

function symbols(): Deno.DynamicLibrary<typeof KERNEL32_SYMBOLS>["symbols"] {
  return kernel32 ??= Deno.dlopen("kernel32.dll", KERNEL32_SYMBOLS).symbols;
}

/**
 * `LoadLibraryW`: a DLL by path, or by name through Windows' DLL search; `null` and the error code when it
 * fails.
 *
 * @example Usage
 * ```ts ignore
 * import { loadLibrary } from "./kernel32.ts";
 * console.log(loadLibrary("vulkan-1.dll"));
 * ```
 */
export function loadLibrary(path: string): { handle: Deno.PointerValue; error: number } {
  const wide = new Uint16Array(path.length + 1);
  for (let i = 0; i < path.length; i++) wide[i] = path.charCodeAt(i);
  const handle = symbols().LoadLibraryW(wide);
  return { handle, error: handle === null ? symbols().GetLastError() : 0 };
}

/**
 * `GetProcAddress`: an exported symbol's address, or `null`.
 *
 * @example Usage
 * ```ts ignore
 * import { loadLibrary, procAddress } from "./kernel32.ts";
 * console.log(procAddress(loadLibrary("kernel32.dll").handle, "GetLastError"));
 * ```
 */
export function procAddress(handle: Deno.PointerValue, name: string): Deno.PointerValue {
  return symbols().GetProcAddress(handle, cstringBuffer(name));
}

/**
 * `FreeLibrary`.
 *
 * @example Usage
 * ```ts ignore
 * import { freeLibrary, loadLibrary } from "./kernel32.ts";
 * freeLibrary(loadLibrary("version.dll").handle);
 * ```
 */
export function freeLibrary(handle: Deno.PointerValue): void {
  symbols().FreeLibrary(handle);
}
