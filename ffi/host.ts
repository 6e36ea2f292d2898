/**
 * The host this process runs on and what vkdeno can do natively there: the one place that reads
 * `Deno.build` for native code (emitted ELF objects, the x86-64 helpers, glibc). Discovery's rules per
 * operating system are data in discovery/platforms.ts; docs/behaviour.md V20 says which paths run where.
 *
 * @module
 */

import type { StubArch } from "./elf.ts";

/**
 * The host as `Deno.build` names it.
 *
 * @example Usage
 * ```ts
 * import { HOST } from "./host.ts";
 * console.log(`${HOST.os} ${HOST.arch}`); // e.g. "linux x86_64"
 * ```
 */
export const HOST: { readonly os: typeof Deno.build.os; readonly arch: typeof Deno.build.arch } = {
  os: Deno.build.os,
  arch: Deno.build.arch,
};

/**
 * The architecture whose stubs can be emitted and loaded here, or `undefined`: stubs are ELF shared objects
 * loaded through a memfd, so Linux only (x86-64 and arm64).
 *
 * @example Usage
 * ```ts
 * import { elfStubArch } from "./host.ts";
 * console.log(elfStubArch() ?? "no native stubs: the UnsafeFnPointer path");
 * ```
 */
export function elfStubArch(
  host: { readonly os: string; readonly arch: string } = HOST,
): StubArch | undefined {
  if (host.os !== "linux") return undefined;
  return host.arch === "x86_64" || host.arch === "aarch64" ? host.arch : undefined;
}

/**
 * True where the x86-64-only native helpers (thread guards, the set-loader-data function, the native table
 * fill) run: x86-64 Linux.
 *
 * @example Usage
 * ```ts
 * import { hasX86_64Helpers } from "./host.ts";
 * console.log(hasX86_64Helpers());
 * ```
 */
export function hasX86_64Helpers(host: { readonly os: string; readonly arch: string } = HOST): boolean {
  return elfStubArch(host) === "x86_64";
}

/**
 * True where libc is glibc's `libc.so.6`, which vkdeno binds for `dlopen`, `memfd_create` and file stamps:
 * Linux.
 *
 * @example Usage
 * ```ts
 * import { hasGlibc } from "./host.ts";
 * console.log(hasGlibc());
 * ```
 */
export function hasGlibc(host: { readonly os: string } = HOST): boolean {
  return host.os === "linux";
}

/**
 * The reason a native path is missing here, for messages: `no native stubs for "windows" on "x86_64"`.
 *
 * @example Usage
 * ```ts
 * import { noStubsReason } from "./host.ts";
 * noStubsReason({ os: "darwin", arch: "aarch64" }); // 'no native stubs for "darwin" on "aarch64"'
 * ```
 */
export function noStubsReason(host: { readonly os: string; readonly arch: string } = HOST): string {
  return `no native stubs for "${host.os}" on "${host.arch}"`;
}

/** The environment variable that moves vkdeno's persistent cache (an absolute folder) or turns it off (`0`). */
export const CACHE_VARIABLE = "VKDENO_CACHE";

/**
 * The folder of vkdeno's persistent cache on `host`, from the variables `get` returns: `$VKDENO_CACHE` when it
 * is an absolute path; none when it is `0`, `off` or `false`; else the platform cache folder's `vkdeno`
 * (`$XDG_CACHE_HOME` or `~/.cache` on Linux and other Unix systems, `~/Library/Caches` on macOS,
 * `%LOCALAPPDATA%` on Windows). Relative paths are ignored, as the XDG base directory specification says.
 *
 * @example Usage
 * ```ts
 * import { cacheFolderOf } from "./host.ts";
 * const vars: Record<string, string> = { HOME: "/home/ada" };
 * console.log(cacheFolderOf((name) => vars[name], { os: "linux" })); // "/home/ada/.cache/vkdeno"
 * ```
 */
export function cacheFolderOf(
  get: (name: string) => string | undefined,
  host: { readonly os: string } = HOST,
): string | undefined {
  const chosen = get(CACHE_VARIABLE);
  if (chosen !== undefined && /^(0|off|false)$/i.test(chosen)) return undefined;
  const absolute = (path: string | undefined) =>
    path !== undefined && (host.os === "windows" ? /^([A-Za-z]:)?[\\/]/.test(path) : path.startsWith("/"))
      ? path.replace(/[\\/]+$/, "")
      : undefined;
  if (absolute(chosen)) return absolute(chosen);
  if (host.os === "windows") {
    const local = absolute(get("LOCALAPPDATA"));
    return local === undefined ? undefined : `${local}\\vkdeno`;
  }
  const home = absolute(get("HOME"));
  if (host.os === "darwin") return home === undefined ? undefined : `${home}/Library/Caches/vkdeno`;
  const base = absolute(get("XDG_CACHE_HOME")) ?? (home === undefined ? undefined : `${home}/.cache`);
  return base === undefined ? undefined : `${base}/vkdeno`;
}
