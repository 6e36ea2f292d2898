/**
 * Loader-side debug messengers (LOADER_BEHAVIOUR A17, G03): the
 * `VkDebugUtilsMessengerCreateInfoEXT` and `VkDebugReportCallbackCreateInfoEXT`
 * structs an application chains into `VkInstanceCreateInfo.pNext` are active
 * while `vkCreateInstance` runs and again while `vkDestroyInstance` runs, not
 * in between; messengers made with `vkCreateDebugUtilsMessengerEXT` /
 * `vkCreateDebugReportCallbackEXT` (through {@linkcode DebugMessengers.terminators})
 * are active until destroyed. While active, every loader log message
 * ({@linkcode Logger} sink) reaches them, whatever `VK_LOADER_DEBUG` says, as
 * chain/extensions/debug_messenger.ts delivers it. This module keeps one instance's messengers
 * and the debug-utils and debug-report terminators that make them.
 *
 * @example Messengers from a create info, active around a call
 * ```ts ignore
 * import { DebugMessengers } from "./debug.ts";
 * import { Logger } from "../../loading/log.ts";
 * declare const createInfo: Deno.PointerObject;
 * const log = new Logger({ vars: {}, elevated: false });
 * using messengers = new DebugMessengers();
 * const detach = messengers.activateCreateInfo(createInfo, log, null);
 * log.warn("seen by the application's messenger");
 * detach();
 * ```
 *
 * @module
 */

import { CallbackRegistry } from "../../ffi/callback.ts";
import { fnFromPointer } from "../../ffi/library.ts";
import { readPointer, writeU64 } from "../../ffi/memory.ts";
import type { Logger } from "../../loading/log.ts";
import { VK_ERROR_INITIALIZATION_FAILED, VK_SUCCESS } from "../../ffi/generated/vk_constants.js";
import {
  activateMessengers,
  type DebugMessenger,
  deliver,
  readMessengerCreateInfos,
  readReport,
  readUtils,
  REPORT_CALLBACK,
  UTILS_CALLBACK,
} from "./debug_messenger.ts";

let nextHandle = 0x7d9e_0000_0001n;

/**
 * A driver instance that may implement the messenger commands itself (the
 * loader core's view of one driver's `VkInstance`).
 *
 * @example Usage
 * ```ts
 * import type { DriverMessengerTarget } from "./debug.ts";
 * const none: DriverMessengerTarget = { handle: null, procAddr: () => null };
 * ```
 */
export interface DriverMessengerTarget {
  /** The driver's `VkInstance`. */
  readonly handle: Deno.PointerValue;
  /** The driver's `vkGetInstanceProcAddr(handle, name)`. */
  procAddr(name: string): Deno.PointerValue;
}

interface DriverMessenger {
  readonly target: DriverMessengerTarget;
  readonly handle: bigint;
}

const CREATE_MESSENGER = { parameters: ["pointer", "pointer", "pointer", "pointer"], result: "i32" } as const;
const DESTROY_MESSENGER = { parameters: ["pointer", "u64", "pointer"], result: "void" } as const;

function destroyDriverMessengers(
  made: readonly DriverMessenger[],
  name: string,
  allocator: Deno.PointerValue,
): void {
  for (const m of made) {
    const fn = m.target.procAddr(name);
    if (fn !== null) fnFromPointer(fn, DESTROY_MESSENGER).call(m.target.handle, m.handle, allocator);
  }
}

/**
 * One instance's loader-side messengers: those of its create info (active
 * around create and destroy) and those made through the debug-utils and
 * debug-report terminators.
 *
 * @example Usage
 * ```ts
 * import { DebugMessengers } from "./debug.ts";
 * using messengers = new DebugMessengers();
 * console.log(messengers.size); // 0
 * ```
 */
export class DebugMessengers implements Disposable {
  readonly #created = new Map<bigint, DebugMessenger>();
  readonly #driverMessengers = new Map<bigint, DriverMessenger[]>();
  readonly #callbacks = new CallbackRegistry();
  #detach: (() => void) | undefined;
  #instance: Deno.PointerValue = null;

  /** Messengers made through the terminators and not yet destroyed. */
  get size(): number {
    return this.#created.size;
  }

  /**
   * Makes the create info's messengers active and routes `log` to them until
   * the returned function is called (the C loader's temporary messengers).
   *
   * @example Usage
   * ```ts ignore
   * import { DebugMessengers } from "./debug.ts";
   * import type { Logger } from "../../loading/log.ts";
   * declare const createInfo: Deno.PointerObject;
   * declare const log: Logger;
   * const messengers = new DebugMessengers();
   * const done = messengers.activateCreateInfo(createInfo, log, null);
   * done();
   * ```
   */
  activateCreateInfo(createInfo: Deno.PointerValue, log: Logger, instance: Deno.PointerValue): () => void {
    const list = createInfo === null ? [] : readMessengerCreateInfos(readPointer(createInfo, 8));
    return activateMessengers(log, list, () => instance);
  }

  /**
   * Routes `log` to the messengers made through the terminators, naming
   * `instance` as the object, until {@linkcode DebugMessengers.dispose}.
   *
   * @example Usage
   * ```ts ignore
   * import { DebugMessengers } from "./debug.ts";
   * import type { Logger } from "../../loading/log.ts";
   * declare const log: Logger;
   * new DebugMessengers().attach(log, null);
   * ```
   */
  attach(log: Logger, instance: Deno.PointerValue): void {
    this.#detach?.();
    this.#instance = instance;
    this.#detach = log.addSink((record) => {
      for (const m of this.#created.values()) deliver(m, record, this.#instance);
    });
  }

  /**
   * The loader's terminators for `vkCreateDebugUtilsMessengerEXT`,
   * `vkDestroyDebugUtilsMessengerEXT`, `vkSubmitDebugUtilsMessageEXT`,
   * `vkCreateDebugReportCallbackEXT`, `vkDestroyDebugReportCallbackEXT` and
   * `vkDebugReportMessageEXT`, keyed by command name: the bottom of the
   * instance chain for these commands. Messengers are kept loader-side (the
   * loader's messages reach them) and made in every driver of `drivers()`
   * that has the command (the drivers' messages reach them); a driver that
   * fails the create undoes the others and its error is returned.
   *
   * @example Usage
   * ```ts
   * import { DebugMessengers } from "./debug.ts";
   * using messengers = new DebugMessengers();
   * console.log(Object.keys(messengers.terminators()).length); // 6
   * ```
   */
  terminators(
    drivers: () => readonly DriverMessengerTarget[] = () => [],
  ): Record<string, Deno.PointerObject> {
    const cb = this.#callbacks;
    const create = (read: (p: Deno.PointerObject) => DebugMessenger, name: string, destroyName: string) =>
      cb.create(
        { parameters: ["pointer", "pointer", "pointer", "pointer"], result: "i32" },
        (_instance, info, allocator, pHandle) => {
          if (info === null || pHandle === null) return VK_ERROR_INITIALIZATION_FAILED;
          // Drivers that have the command get the messenger too, so their own messages reach it.
          const made: DriverMessenger[] = [];
          for (const target of drivers()) {
            const fn = target.procAddr(name);
            if (fn === null) continue;
            const out = new BigUint64Array(1);
            const r = fnFromPointer(fn, CREATE_MESSENGER).call(
              target.handle,
              info,
              allocator,
              Deno.UnsafePointer.of(out),
            );
            if (r < 0) {
              destroyDriverMessengers(made, destroyName, allocator);
              return r;
            }
            made.push({ target, handle: out[0]! });
          }
          const handle = nextHandle++;
          this.#created.set(handle, read(info));
          this.#driverMessengers.set(handle, made);
          writeU64(pHandle, 0, handle);
          return VK_SUCCESS;
        },
        { name, onError: VK_ERROR_INITIALIZATION_FAILED },
      ).pointer as Deno.PointerObject;
    const destroy = (name: string) =>
      cb.create(
        { parameters: ["pointer", "u64", "pointer"], result: "void" },
        (_instance, handle, allocator) => {
          const key = BigInt(handle);
          destroyDriverMessengers(this.#driverMessengers.get(key) ?? [], name, allocator);
          this.#driverMessengers.delete(key);
          this.#created.delete(key);
        },
        { name },
      ).pointer as Deno.PointerObject;
    const submit = cb.create(
      { parameters: ["pointer", "u32", "u32", "pointer"], result: "void" },
      (_instance, severity, types, data) => {
        if (data === null) return;
        for (const m of this.#created.values()) {
          if (m.kind !== "utils" || m.callback === null) continue;
          if ((m.severities & severity) === 0 || (m.types & types) === 0) continue;
          fnFromPointer(m.callback, UTILS_CALLBACK).call(severity, types, data, m.userData);
        }
      },
      { name: "vkSubmitDebugUtilsMessageEXT" },
    ).pointer as Deno.PointerObject;
    const report = cb.create(
      { parameters: ["pointer", "u32", "u32", "u64", "usize", "i32", "pointer", "pointer"], result: "void" },
      (_instance, flags, objectType, object, location, code, prefix, message) => {
        for (const m of this.#created.values()) {
          if (m.kind !== "report" || m.callback === null || (m.severities & flags) === 0) continue;
          fnFromPointer(m.callback, REPORT_CALLBACK)
            .call(flags, objectType, BigInt(object), BigInt(location), code, prefix, message, m.userData);
        }
      },
      { name: "vkDebugReportMessageEXT" },
    ).pointer as Deno.PointerObject;
    return {
      vkCreateDebugUtilsMessengerEXT: create(
        readUtils,
        "vkCreateDebugUtilsMessengerEXT",
        "vkDestroyDebugUtilsMessengerEXT",
      ),
      vkDestroyDebugUtilsMessengerEXT: destroy("vkDestroyDebugUtilsMessengerEXT"),
      vkSubmitDebugUtilsMessageEXT: submit,
      vkCreateDebugReportCallbackEXT: create(
        readReport,
        "vkCreateDebugReportCallbackEXT",
        "vkDestroyDebugReportCallbackEXT",
      ),
      vkDestroyDebugReportCallbackEXT: destroy("vkDestroyDebugReportCallbackEXT"),
      vkDebugReportMessageEXT: report,
    };
  }

  /**
   * Detaches from the log and closes the terminator callbacks (after
   * `vkDestroyInstance`).
   *
   * @example Usage
   * ```ts
   * import { DebugMessengers } from "./debug.ts";
   * new DebugMessengers().dispose();
   * ```
   */
  dispose(): void {
    this.#detach?.();
    this.#detach = undefined;
    this.#created.clear();
    this.#driverMessengers.clear();
    this.#callbacks.dispose();
  }

  /** Same as {@linkcode DebugMessengers.dispose}, for `using`. */
  [Symbol.dispose](): void {
    this.dispose();
  }
}
