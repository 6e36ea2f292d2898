/**
 * The loader's debug messengers (docs/behaviour.md A17, G03): one messenger read from its create info, how a
 * loader message reaches it, and one instance's messengers with their terminators.
 *
 * @example The create info's messengers, active around a call
 * ```ts ignore
 * import { activateMessengers, readMessengerCreateInfos } from "./debug.ts";
 * import { Logger } from "../../loading/log.ts";
 * declare const pNext: Deno.PointerValue;
 * const log = new Logger({ vars: {}, elevated: false });
 * const done = activateMessengers(log, readMessengerCreateInfos(pNext), () => null);
 * log.warn("seen by the application's messenger");
 * done();
 * ```
 *
 * @example One instance's messengers from a create info, active around a call
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

import { CallbackOwner, holdCallback } from "../../ffi/callback.ts";
import { STRUCTS } from "../../vk/generated/structs.ts";
import { fnFromPointer } from "../../ffi/library.ts";
import { address, Arena, readPointer, readU32, writeU64 } from "../../ffi/memory.ts";
import { writeStruct } from "../../vk/struct_write.ts";
import type { VkObjectType } from "../../vk/generated/vk_types.ts";
import type { VkStructInputs } from "../../vk/generated/vk_structs.ts";
import { LOG_BITS, type Logger, type LogRecord } from "../../loading/log.ts";
import {
  VK_ERROR_INITIALIZATION_FAILED,
  VK_STRUCTURE_TYPE_DEBUG_REPORT_CALLBACK_CREATE_INFO_EXT,
  VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
  VK_SUCCESS,
} from "../../vk/generated/vk_constants.js";

const UTILS_CREATE_INFO = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
const REPORT_CREATE_INFO = VK_STRUCTURE_TYPE_DEBUG_REPORT_CALLBACK_CREATE_INFO_EXT;

/** `VkDebugUtilsMessageSeverityFlagBitsEXT`. */
export const SEVERITY = { verbose: 0x1, info: 0x10, warning: 0x100, error: 0x1000 } as const;
/** `VkDebugUtilsMessageTypeFlagBitsEXT`. */
export const MESSAGE_TYPE = { general: 0x1, validation: 0x2, performance: 0x4 } as const;
/** `VkDebugReportFlagBitsEXT`. */
export const REPORT_FLAGS = {
  information: 0x1,
  warning: 0x2,
  performance: 0x4,
  error: 0x8,
  debug: 0x10,
} as const;

const VK_OBJECT_TYPE_INSTANCE = 1 as VkObjectType;
const VK_DEBUG_REPORT_OBJECT_TYPE_INSTANCE_EXT = 1;

function offset(struct: string, member: string): number {
  const m = STRUCTS[struct]?.members.find((x) => x.name === member);
  if (m === undefined) throw new TypeError(`Struct "${struct}" has no member "${member}"`);
  return m.offset;
}

// Read on first use: at import they would make every start index the struct table.
let utilsOffsets: { severity: number; type: number; callback: number; userData: number } | undefined;
let reportOffsets: { flags: number; callback: number; userData: number } | undefined;
const U = () =>
  utilsOffsets ??= {
    severity: offset("VkDebugUtilsMessengerCreateInfoEXT", "messageSeverity"),
    type: offset("VkDebugUtilsMessengerCreateInfoEXT", "messageType"),
    callback: offset("VkDebugUtilsMessengerCreateInfoEXT", "pfnUserCallback"),
    userData: offset("VkDebugUtilsMessengerCreateInfoEXT", "pUserData"),
  };
const R = () =>
  reportOffsets ??= {
    flags: offset("VkDebugReportCallbackCreateInfoEXT", "flags"),
    callback: offset("VkDebugReportCallbackCreateInfoEXT", "pfnCallback"),
    userData: offset("VkDebugReportCallbackCreateInfoEXT", "pUserData"),
  };

/** The FFI definition of a `PFN_vkDebugUtilsMessengerCallbackEXT`. */
export const UTILS_CALLBACK = { parameters: ["u32", "u32", "pointer", "pointer"], result: "u32" } as const;
/** The FFI definition of a `PFN_vkDebugReportCallbackEXT`. */
export const REPORT_CALLBACK = {
  parameters: ["u32", "u32", "u64", "usize", "i32", "pointer", "pointer", "pointer"],
  result: "u32",
} as const;

/**
 * One messenger as the loader keeps it (a copy of its create info).
 *
 * @example Usage
 * ```ts
 * import type { DebugMessenger } from "./debug.ts";
 * const m: DebugMessenger = { kind: "utils", severities: 0x1111, types: 0x7, callback: null, userData: null };
 * ```
 */
export interface DebugMessenger {
  /** `utils` (VK_EXT_debug_utils) or `report` (VK_EXT_debug_report). */
  readonly kind: "utils" | "report";
  /** `messageSeverity` (utils) or `flags` (report). */
  readonly severities: number;
  /** `messageType` (utils only; 0 for report). */
  readonly types: number;
  /** `pfnUserCallback` / `pfnCallback`. */
  readonly callback: Deno.PointerValue;
  /** `pUserData`. */
  readonly userData: Deno.PointerValue;
}

/**
 * Reads the messenger create infos of a `pNext` chain, in chain order.
 *
 * @example Usage
 * ```ts
 * import { readMessengerCreateInfos } from "./debug.ts";
 * console.log(readMessengerCreateInfos(null)); // []
 * ```
 */
export function readMessengerCreateInfos(next: Deno.PointerValue): DebugMessenger[] {
  const out: DebugMessenger[] = [];
  for (let p = next; p !== null; p = readPointer(p, 8)) {
    const sType = readU32(p, 0);
    if (sType === UTILS_CREATE_INFO) out.push(readUtils(p));
    else if (sType === REPORT_CREATE_INFO) out.push(readReport(p));
  }
  return out;
}

/**
 * Reads one `VkDebugUtilsMessengerCreateInfoEXT`.
 *
 * @example Usage
 * ```ts ignore
 * import { readUtils } from "./debug.ts";
 * declare const createInfo: Deno.PointerObject;
 * console.log(readUtils(createInfo).kind); // "utils"
 * ```
 */
export function readUtils(p: Deno.PointerObject): DebugMessenger {
  return {
    kind: "utils",
    severities: readU32(p, U().severity),
    types: readU32(p, U().type),
    callback: readPointer(p, U().callback),
    userData: readPointer(p, U().userData),
  };
}

/**
 * Reads one `VkDebugReportCallbackCreateInfoEXT`.
 *
 * @example Usage
 * ```ts ignore
 * import { readReport } from "./debug.ts";
 * declare const createInfo: Deno.PointerObject;
 * console.log(readReport(createInfo).kind); // "report"
 * ```
 */
export function readReport(p: Deno.PointerObject): DebugMessenger {
  return {
    kind: "report",
    severities: readU32(p, R().flags),
    types: 0,
    callback: readPointer(p, R().callback),
    userData: readPointer(p, R().userData),
  };
}

/**
 * The debug-utils severity and type of a log record.
 *
 * @example Usage
 * ```ts
 * import { messageSeverityAndType } from "./debug.ts";
 * console.log(messageSeverityAndType({ level: "warn", category: "perf", text: "x", bits: 0x06 }));
 * // { severity: 256, type: 4 }
 * ```
 */
export function messageSeverityAndType(record: LogRecord): { severity: number; type: number } {
  const bits = record.bits;
  const severity = (bits & LOG_BITS.error) !== 0
    ? SEVERITY.error
    : (bits & LOG_BITS.warn) !== 0
    ? SEVERITY.warning
    : (bits & LOG_BITS.info) !== 0
    ? SEVERITY.info
    : SEVERITY.verbose;
  const type = (bits & LOG_BITS.perf) !== 0
    ? MESSAGE_TYPE.performance
    : (bits & LOG_BITS.validation) !== 0
    ? MESSAGE_TYPE.validation
    : MESSAGE_TYPE.general;
  return { severity, type };
}

function reportFlags(record: LogRecord): number {
  const bits = record.bits;
  if ((bits & LOG_BITS.error) !== 0) return REPORT_FLAGS.error;
  if ((bits & LOG_BITS.warn) !== 0) {
    return (bits & LOG_BITS.perf) !== 0 ? REPORT_FLAGS.performance : REPORT_FLAGS.warning;
  }
  if ((bits & LOG_BITS.info) !== 0) return REPORT_FLAGS.information;
  return REPORT_FLAGS.debug;
}

/**
 * Delivers one log record to one messenger (when its severity and type
 * match). The instance handle names the message's object.
 *
 * @example Usage
 * ```ts ignore
 * import { deliver, type DebugMessenger } from "./debug.ts";
 * declare const messenger: DebugMessenger;
 * deliver(messenger, { level: "error", text: "x", bits: 8 }, null);
 * ```
 */
export function deliver(messenger: DebugMessenger, record: LogRecord, instance: Deno.PointerValue): void {
  if (messenger.callback === null) return;
  const handle = address(instance);
  if (messenger.kind === "report") {
    const flags = reportFlags(record);
    if ((messenger.severities & flags) === 0) return;
    using strings = new Arena();
    fnFromPointer(messenger.callback, REPORT_CALLBACK).call(
      flags,
      VK_DEBUG_REPORT_OBJECT_TYPE_INSTANCE_EXT,
      handle,
      0n,
      0,
      strings.cstring("Loader Message"),
      strings.cstring(record.text),
      messenger.userData,
    );
    return;
  }
  const { severity, type } = messageSeverityAndType(record);
  if ((messenger.severities & severity) === 0 || (messenger.types & type) === 0) return;
  using arena = new Arena();
  // Typed before the call: a literal argument would be checked against every struct's input first.
  const callbackData: VkStructInputs["VkDebugUtilsMessengerCallbackDataEXT"] = {
    pMessageIdName: "Loader Message",
    messageIdNumber: 0,
    pMessage: record.text,
    pObjects: [{ objectType: VK_OBJECT_TYPE_INSTANCE, objectHandle: handle }],
  };
  const data = writeStruct(arena, "VkDebugUtilsMessengerCallbackDataEXT", callbackData);
  fnFromPointer(messenger.callback, UTILS_CALLBACK).call(severity, type, data, messenger.userData);
}

/**
 * Routes every message of `log` to `messengers` until the returned function
 * is called (nothing is attached for an empty list). `instance` names the
 * object of each message; it is read at delivery, so it may become known
 * after activation.
 *
 * @example Usage
 * ```ts
 * import { activateMessengers } from "./debug.ts";
 * import { Logger } from "../../loading/log.ts";
 * const log = new Logger({ vars: {}, elevated: false });
 * const done = activateMessengers(log, [], () => null);
 * done();
 * ```
 */
export function activateMessengers(
  log: Logger,
  messengers: readonly DebugMessenger[],
  instance: () => Deno.PointerValue,
): () => void {
  if (messengers.length === 0) return () => {};
  return log.addSink((record) => {
    for (const m of messengers) deliver(m, record, instance());
  });
}

let nextHandle = 0x7d9e_0000_0001n;

/** The handle type a messenger create command makes, for naming the holder of a callback. */
function holderType(create: string): string {
  return create === "vkCreateDebugReportCallbackEXT"
    ? "VkDebugReportCallbackEXT"
    : "VkDebugUtilsMessengerEXT";
}

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
  readonly #callbacks = new CallbackOwner();
  /** Per messenger made here, the release of its hold on the application's callback. */
  readonly #holds = new Map<bigint, () => void>();
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
          const messenger = read(info);
          this.#created.set(handle, messenger);
          // The application's callback may not close (nor its address go to another) while this holds it.
          this.#holds.set(
            handle,
            holdCallback(messenger.callback, `${holderType(name)} 0x${handle.toString(16)}`),
          );
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
          this.#holds.get(key)?.();
          this.#holds.delete(key);
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
    for (const release of this.#holds.values()) release();
    this.#holds.clear();
    this.#callbacks.dispose();
  }

  /** Same as {@linkcode DebugMessengers.dispose}, for `using`. */
  [Symbol.dispose](): void {
    this.dispose();
  }
}
