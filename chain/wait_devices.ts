/**
 * Waiting for a GPU to appear (docs/behaviour.md V04): `true` once an instance created now would see a
 * physical device, `false` when the time is up.
 *
 * @module
 */

import type { EnvironmentSnapshot } from "../discovery/environment.ts";
import { DiscoveryWatcher } from "../discovery/watch.ts";
import { Arena, readPointer, readU32 } from "../ffi/memory.ts";
import { writeStruct } from "../vk/struct_write.ts";
import type { VkStructInputs } from "../vk/generated/vk_structs.ts";
import { Loader, type LoaderOptions } from "./loader.ts";
import { Logger } from "../loading/log.ts";
import { VK_INCOMPLETE, VK_SUCCESS } from "../vk/generated/vk_constants.js";

/**
 * Options of {@linkcode waitForDevices}.
 *
 * @example Usage
 * ```ts
 * import type { WaitForDevicesOptions } from "@vkdeno/loader";
 * const o: WaitForDevicesOptions = { timeoutMs: 5000 };
 * ```
 */
export interface WaitForDevicesOptions {
  /** Give up after this many milliseconds (default: wait as long as it takes). */
  readonly timeoutMs?: number;
  /** Probe this often besides watching files (default 1000 ms). */
  readonly pollMs?: number;
  /** Stops waiting (resolves `false`). */
  readonly signal?: AbortSignal;
}

/**
 * Counts the physical devices an instance created now would see (0 when no instance can be made).
 *
 * @example Usage
 * ```ts ignore
 * import { countDevicesNow } from "./wait_devices.ts";
 * console.log(countDevicesNow({ env: { vars: {}, elevated: false, root: "/nonexistent" } })); // 0
 * ```
 */
export function countDevicesNow(options: LoaderOptions & { env: EnvironmentSnapshot }): number {
  using loader = new Loader({ ...options, logger: new Logger(options.env, { write: () => {} }) });
  using arena = new Arena();
  const out = arena.pointer(arena.alloc(8));
  // Values typed before the call: a literal argument would be checked against every struct's input first.
  const appInfo: VkStructInputs["VkApplicationInfo"] = { apiVersion: (1 << 22) | (1 << 12) };
  const app = writeStruct(arena, "VkApplicationInfo", appInfo);
  const createInfo: VkStructInputs["VkInstanceCreateInfo"] = { pApplicationInfo: app };
  const info = writeStruct(arena, "VkInstanceCreateInfo", createInfo);
  if (loader.createInstance(info, null, out) !== VK_SUCCESS) return 0;
  const instance = readPointer(out, 0);
  try {
    const count = arena.pointer(arena.alloc(4));
    const result = loader.trampolineCall("vkEnumeratePhysicalDevices")(instance, count, null);
    return result === VK_SUCCESS || result === VK_INCOMPLETE ? readU32(count, 0) : 0;
  } finally {
    loader.trampolineCall("vkDestroyInstance")(instance, null);
  }
}

/**
 * Resolves `true` once an instance made over `loaderOptions` would see a physical device, `false` after
 * `options.timeoutMs` or when `options.signal` aborts.
 *
 * @example Usage
 * ```ts ignore
 * import { waitForDevices } from "./wait_devices.ts";
 * const env = { vars: {}, elevated: false, root: "/nonexistent" };
 * console.log(await waitForDevices({ env }, { timeoutMs: 100 })); // false
 * ```
 */
export async function waitForDevices(
  loaderOptions: LoaderOptions & { env: EnvironmentSnapshot },
  options: WaitForDevicesOptions = {},
): Promise<boolean> {
  if (options.signal?.aborted) return false;
  if (countDevicesNow(loaderOptions) > 0) return true;
  const stop = new AbortController();
  const watcher = new DiscoveryWatcher(loaderOptions.env, { signal: stop.signal });
  const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
  const onAbort = () => stop.abort();
  options.signal?.addEventListener("abort", onAbort);
  let wake: (() => void) | undefined;
  let pending = false;
  const signal = () => {
    if (wake === undefined) pending = true;
    else wake();
  };
  // The caller is waiting on this promise: these timers hold the process, the watcher does not.
  const poll = setInterval(signal, options.pollMs ?? 1000);
  const timeout = deadline === Infinity
    ? undefined
    : setTimeout(() => stop.abort(), Math.max(0, deadline - Date.now()));
  stop.signal.addEventListener("abort", signal);
  try {
    const changes = (async () => {
      for await (const _ of watcher) signal();
    })();
    while (!stop.signal.aborted) {
      if (!pending) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
      wake = undefined;
      pending = false;
      if (stop.signal.aborted) break;
      if (countDevicesNow(loaderOptions) > 0) return true;
    }
    await changes.catch(() => {});
    return false;
  } finally {
    stop.abort();
    watcher.close();
    clearInterval(poll);
    if (timeout !== undefined) clearTimeout(timeout);
    options.signal?.removeEventListener("abort", onAbort);
  }
}
