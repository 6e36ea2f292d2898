/**
 * The environment snapshot that discovery reads instead of the live process.
 *
 * Discovery never calls `Deno.env` itself: tests build a snapshot and a temp
 * folder tree, so the host's own drivers and layers never leak into a test.
 *
 * @module
 */

import { HOST } from "../ffi/host.ts";
import { type RegistryReader, windowsRegistry } from "../ffi/registry.ts";
import { bundleResourcesOf, type DiscoveryOs, platformRules } from "./platforms.ts";

/**
 * Everything discovery may know about the process it runs for.
 *
 * @example Usage
 * ```ts
 * import type { EnvironmentSnapshot } from "@vkdeno/loader";
 * const env: EnvironmentSnapshot = { vars: { VK_DRIVER_FILES: "/tmp/icd.json" }, elevated: false };
 * ```
 */
export interface EnvironmentSnapshot {
  /** Environment variables, as `getenv` would see them. */
  readonly vars: Readonly<Record<string, string>>;
  /**
   * True when the process runs with elevated privileges (the kernel's
   * `AT_SECURE`): user-controlled variables and paths are then ignored.
   */
  readonly elevated: boolean;
  /**
   * A folder that absolute system paths (`/etc`, `/usr/share`, ...) are
   * resolved under, so tests can fake a whole file system. Defaults to `/`.
   */
  readonly root?: string;
  /**
   * The working folder that relative entries of path variables
   * (`VK_DRIVER_FILES=drivers/a.json`) are resolved against, as the C loader's
   * `open` would. When absent, relative entries stay relative and are opened
   * against the process's own working folder.
   */
  readonly cwd?: string;
  /**
   * The paths this process answers to when a loader settings file's
   * `app_keys` name an application: Deno's own executable (what
   * `/proc/self/exe` gives, as libvulkan would match) and the main module's
   * file path. Absent or empty: no application entry matches.
   */
  readonly executablePaths?: readonly string[];
  /**
   * The system whose discovery rules apply (docs/behaviour.md D20): its separators, folders, bundle or
   * registry. Absent: the host's.
   */
  readonly os?: DiscoveryOs;
  /** macOS: the application bundle's `Contents/Resources` folder, searched first (D22). */
  readonly bundleResources?: string;
  /** Windows: the registry the `SOFTWARE\Khronos\Vulkan` keys are read from (D23). Absent: none is read. */
  readonly registry?: RegistryReader;
}

/**
 * Tells whether the process runs with elevated privileges, as the kernel's
 * `AT_SECURE` says: read from `/proc/self/auxv` (entry type 23). A process
 * that a setuid, setgid or file-capability exec made non-dumpable cannot read
 * its own auxv; that failure, or real and effective ids that differ in
 * `/proc/self/status`, count as elevated too.
 *
 * @example Usage
 * ```ts
 * import { isProcessElevated } from "./environment.ts";
 * console.log(isProcessElevated());
 * ```
 */
export function isProcessElevated(): boolean {
  let auxv: Uint8Array;
  try {
    auxv = Deno.readFileSync("/proc/self/auxv");
  } catch (error) {
    // Only a secure exec leaves a process unable to read its own auxv.
    return error instanceof Deno.errors.PermissionDenied || idsDiffer();
  }
  const view = new DataView(auxv.buffer, auxv.byteOffset, auxv.byteLength);
  for (let off = 0; off + 16 <= auxv.byteLength; off += 16) {
    const type = view.getBigUint64(off, true);
    if (type === 0n) break;
    if (type === 23n) return view.getBigUint64(off + 8, true) !== 0n;
  }
  return idsDiffer();
}

/** Real and effective user or group ids differ (`/proc/self/status`). */
function idsDiffer(): boolean {
  let status: string;
  try {
    status = Deno.readTextFileSync("/proc/self/status");
  } catch {
    return false;
  }
  for (const key of ["Uid:", "Gid:"]) {
    const line = status.split("\n").find((l) => l.startsWith(key));
    const [real, effective] = line?.slice(key.length).trim().split(/\s+/) ?? [];
    if (real !== undefined && effective !== undefined && real !== effective) return true;
  }
  return false;
}

/**
 * Takes a snapshot of the current process: its variables, elevation and
 * working folder.
 *
 * @example Usage
 * ```ts
 * import { snapshotProcessEnvironment } from "@vkdeno/loader";
 * const env = snapshotProcessEnvironment();
 * console.log(env.elevated);
 * ```
 */
export function snapshotProcessEnvironment(): EnvironmentSnapshot {
  const executablePaths = processExecutablePaths();
  const os = platformRules(HOST.os).os;
  const bundleResources = os === "darwin" && executablePaths[0] !== undefined
    ? bundleResourcesOf(executablePaths[0])
    : undefined;
  return {
    vars: Deno.env.toObject(),
    elevated: isProcessElevated(),
    cwd: Deno.cwd(),
    executablePaths,
    os,
    ...(bundleResources === undefined ? {} : { bundleResources }),
    ...(os === "windows" ? { registry: windowsRegistry() } : {}),
  };
}

/**
 * The paths a settings file's `app_keys` may use to name this process: Deno's
 * executable and, when the main module is a local file, its path.
 *
 * @example Usage
 * ```ts
 * import { processExecutablePaths } from "./environment.ts";
 * console.log(processExecutablePaths()[0]); // e.g. "/usr/local/bin/deno"
 * ```
 */
export function processExecutablePaths(): string[] {
  const out: string[] = [];
  try {
    out.push(Deno.execPath());
  } catch {
    // No --allow-read for the executable: only the script can match.
  }
  try {
    const main = new URL(Deno.mainModule);
    if (main.protocol === "file:") out.push(decodeURIComponent(main.pathname));
  } catch {
    // A main module that is not a URL names no file.
  }
  return out;
}

/**
 * Reads a variable the way the Khronos loader's `secure_getenv` does: unset
 * when the process is elevated.
 *
 * @example Usage
 * ```ts
 * import { secureGetenv } from "./environment.ts";
 * secureGetenv({ vars: { HOME: "/root" }, elevated: true }, "HOME"); // undefined
 * ```
 */
export function secureGetenv(env: EnvironmentSnapshot, name: string): string | undefined {
  return env.elevated ? undefined : getenv(env, name);
}

/**
 * Reads a variable the way `getenv` does: honoured even when elevated.
 *
 * @example Usage
 * ```ts
 * import { getenv } from "./environment.ts";
 * getenv({ vars: { VK_LOADER_DEBUG: "all" }, elevated: true }, "VK_LOADER_DEBUG"); // "all"
 * ```
 */
export function getenv(env: EnvironmentSnapshot, name: string): string | undefined {
  const value = env.vars[name];
  if (value !== undefined || platformRules(env.os).os !== "windows") return value;
  // Windows' environment names are case-insensitive (D21).
  const upper = name.toUpperCase();
  const key = Object.keys(env.vars).find((k) => k.toUpperCase() === upper);
  return key === undefined ? undefined : env.vars[key];
}

const LONG_MAX = (1n << 63n) - 1n;
const LONG_MIN = -(1n << 63n);

/**
 * Reads a number the way the Khronos loader reads its on/off variables, with glibc's `atoi`: leading
 * white space, an optional sign, decimal digits, the rest ignored; 0 where no digit comes. `strtol`
 * clamps to a 64-bit `long` and `atoi` keeps the low 32 bits, so `"4294967296"` is 0 (off).
 *
 * @example Usage
 * ```ts
 * import { atoi } from "./environment.ts";
 * console.log(atoi(" 2x"), atoi("yes"), atoi("4294967296"), atoi("-1")); // 2 0 0 -1
 * ```
 */
export function atoi(text: string): number {
  const m = /^[\t\n\v\f\r ]*([+-]?\d+)/.exec(text);
  if (m === null) return 0;
  let value = BigInt(m[1]!);
  value = value > LONG_MAX ? LONG_MAX : value < LONG_MIN ? LONG_MIN : value;
  return Number(BigInt.asIntN(32, value));
}
