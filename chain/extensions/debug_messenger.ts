/**
 * One debug messenger as the loader keeps it (LOADER_BEHAVIOUR A17, G03): read from the
 * `VkDebugUtilsMessengerCreateInfoEXT` or `VkDebugReportCallbackCreateInfoEXT` an application gives, and
 * how one loader log message reaches it: `pMessageIdName` "Loader Message", one `VK_OBJECT_TYPE_INSTANCE`
 * object, severity from the message level, type from its category. The messengers of one instance are
 * chain/extensions/debug.ts `DebugMessengers`.
 *
 * @example The create info's messengers, active around a call
 * ```ts ignore
 * import { activateMessengers, readMessengerCreateInfos } from "./debug_messenger.ts";
 * import { Logger } from "../../loading/log.ts";
 * declare const pNext: Deno.PointerValue;
 * const log = new Logger({ vars: {}, elevated: false });
 * const done = activateMessengers(log, readMessengerCreateInfos(pNext), () => null);
 * log.warn("seen by the application's messenger");
 * done();
 * ```
 *
 * @module
 */

import { STRUCTS } from "../../ffi/generated/structs.ts";
import { fnFromPointer } from "../../ffi/library.ts";
import { address, Arena, readPointer, readU32 } from "../../ffi/memory.ts";
import { writeStruct } from "../../ffi/struct_write.ts";
import { LOG_BITS, type Logger, type LogRecord } from "../../loading/log.ts";
import {
  VK_STRUCTURE_TYPE_DEBUG_REPORT_CALLBACK_CREATE_INFO_EXT,
  VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
} from "../../ffi/generated/vk_constants.js";

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

const VK_OBJECT_TYPE_INSTANCE = 1;
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
 * import type { DebugMessenger } from "./debug_messenger.ts";
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
 * import { readMessengerCreateInfos } from "./debug_messenger.ts";
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
 * import { readUtils } from "./debug_messenger.ts";
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
 * import { readReport } from "./debug_messenger.ts";
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
 * import { messageSeverityAndType } from "./debug_messenger.ts";
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
 * import { deliver, type DebugMessenger } from "./debug_messenger.ts";
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
  const data = writeStruct(arena, "VkDebugUtilsMessengerCallbackDataEXT", {
    pMessageIdName: "Loader Message",
    messageIdNumber: 0,
    pMessage: record.text,
    pObjects: [{ objectType: VK_OBJECT_TYPE_INSTANCE, objectHandle: handle }],
  });
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
 * import { activateMessengers } from "./debug_messenger.ts";
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
