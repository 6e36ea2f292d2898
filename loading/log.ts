/**
 * The loader log: `VK_LOADER_DEBUG` filtering on stderr and sinks that see every message (docs/behaviour.md
 * G01-G04, V01, V23).
 *
 * @module
 */

import { type EnvironmentSnapshot, getenv } from "../discovery/environment.ts";
import { LOG_BITS } from "../discovery/settings_file.ts";

/** Message severities. */
export type LogLevel = "error" | "warn" | "info" | "debug";
/** Message categories; `general` has no bit of its own. */
export type LogCategory = "perf" | "driver" | "layer" | "validation" | "general";

/** The loader's message bits (`VULKAN_LOADER_*_BIT`), defined with the settings file's `stderr_log` names. */
export { LOG_BITS };

const LEVEL_NAMES: Readonly<Record<LogLevel, string>> = {
  error: "ERROR",
  warn: "WARNING",
  info: "INFO",
  debug: "DEBUG",
};
const CATEGORY_ORDER = ["perf", "driver", "layer", "validation"] as const;
const ALL_BITS = 0xff;
const TAG_COLUMNS = 18;

/** A message as producers hand it over (discovery messages have this shape). */
export interface LogEntry {
  /** Severity; a message may have only a category (printed `LAYER: ...`). */
  readonly level?: LogLevel;
  /** The category that also shows it under `VK_LOADER_DEBUG`. */
  readonly category?: LogCategory;
  /** The message. */
  readonly text: string;
  /** The file the message is about: the same warning is printed again only once this file changed. */
  readonly file?: string;
  /**
   * Printed on stderr whatever `VK_LOADER_DEBUG` says (still once, V01): a fault the user could not tell
   * from its effect, such as a Deno permission the process lacks (docs/behaviour.md V23).
   */
  readonly always?: boolean;
}

/** What sinks receive: the entry plus its bits. */
export interface LogRecord extends LogEntry {
  /** `LOG_BITS` of the level and category. */
  readonly bits: number;
}

/** Receives every message, whatever `VK_LOADER_DEBUG` says. */
export type LogSink = (record: LogRecord) => void;

/** Options of the {@linkcode Logger} constructor. */
export interface LoggerOptions {
  /** Where printed lines go (without newline); defaults to stderr. */
  write?: (line: string) => void;
  /**
   * The loader settings file's `stderr_log` bits, which replace `VK_LOADER_DEBUG`'s filter when not 0
   * (default 0: no settings file). The loader passes those of the file its snapshot leads to.
   */
  settingsLogMask?: number;
}

/** Warnings and errors already printed on this process's stderr (their keys, see `printKey`). */
const printedOnStderr = new Set<string>();

/** What makes a warning or error "the same": its text, and the state of the file it is about. */
function printKey(entry: LogEntry): string {
  let state = "";
  if (entry.file !== undefined) {
    try {
      const info = Deno.statSync(entry.file);
      state = `${info.mtime?.getTime() ?? 0}:${info.size}:${info.ino ?? 0}`;
    } catch {
      state = "absent";
    }
  }
  return `${entry.level}\0${entry.text}\0${state}`;
}

const encoder = new TextEncoder();

function writeStderr(line: string): void {
  const bytes = encoder.encode(`${line}\n`);
  let done = 0;
  while (done < bytes.length) done += Deno.stderr.writeSync(bytes.subarray(done));
}

/**
 * Parses a `VK_LOADER_DEBUG` value into `LOG_BITS`.
 *
 * @example Usage
 * ```ts
 * import { LOG_BITS, parseLoaderDebug } from "./log.ts";
 * console.log(parseLoaderDebug("warn,dr") === (LOG_BITS.warn | LOG_BITS.driver)); // true
 * ```
 */
export function parseLoaderDebug(value: string | undefined): number {
  if (value === undefined) return 0;
  let mask = 0;
  for (const token of value.split(",")) {
    if (token.length === 0) continue;
    const is = (word: string) => word.startsWith(token);
    if (is("all")) mask |= ALL_BITS;
    else if (is("warn")) mask |= LOG_BITS.warn;
    else if (is("info")) mask |= LOG_BITS.info;
    else if (is("perf")) mask |= LOG_BITS.perf;
    else if (is("error")) mask |= LOG_BITS.error;
    else if (is("debug")) mask |= LOG_BITS.debug;
    else if (is("layer")) mask |= LOG_BITS.layer;
    else if (is("driver") || is("implem") || is("icd")) mask |= LOG_BITS.driver;
  }
  return mask;
}

/**
 * The bits of an entry.
 *
 * @example Usage
 * ```ts
 * import { entryBits, LOG_BITS } from "./log.ts";
 * console.log(entryBits({ level: "warn", category: "driver", text: "x" }) === (LOG_BITS.warn | LOG_BITS.driver));
 * ```
 */
export function entryBits(entry: LogEntry): number {
  let bits = entry.level ? LOG_BITS[entry.level] : 0;
  if (entry.category && entry.category !== "general") bits |= LOG_BITS[entry.category];
  return bits;
}

/**
 * Formats a line as the reference loader prints it, showing the categories
 * enabled in `mask`.
 *
 * @example Usage
 * ```ts
 * import { formatLogLine } from "./log.ts";
 * console.log(formatLogLine({ level: "warn", category: "driver", text: "x" }, 0xff)); // "WARNING | DRIVER: x"
 * ```
 */
export function formatLogLine(entry: LogEntry, mask: number = ALL_BITS): string {
  const parts: string[] = [];
  if (entry.level) parts.push(LEVEL_NAMES[entry.level]);
  const bits = entryBits(entry);
  for (const c of CATEGORY_ORDER) {
    // The reference loader names a category only when it is enabled, or when it is all there is.
    if ((bits & LOG_BITS[c]) !== 0 && ((mask & LOG_BITS[c]) !== 0 || !entry.level)) {
      parts.push(c.toUpperCase());
    }
  }
  return `${`${parts.join(" | ")}:`.padEnd(TAG_COLUMNS - 1)} ${entry.text}`;
}

/**
 * The loader log. One per loader instance, built from an environment
 * snapshot (never `Deno.env`).
 *
 * @example Usage
 * ```ts
 * import { Logger } from "@vkdeno/loader";
 * const lines: string[] = [];
 * const log = new Logger({ vars: { VK_LOADER_DEBUG: "warn" }, elevated: false }, { write: (l) => lines.push(l) });
 * log.warn("Driver \"x.json\" skipped", "driver");
 * log.info("not shown");
 * console.log(lines); // [ "WARNING | DRIVER: Driver \"x.json\" skipped" ]
 * ```
 */
export class Logger {
  #mask: number;
  #write: (line: string) => void;
  #sinks = new Set<LogSink>();
  #printed: Set<string>;

  /**
   * Reads `VK_LOADER_DEBUG` from the snapshot (with `getenv`: honoured when elevated); the settings file's
   * `stderr_log` bits (`options.settingsLogMask`), when not 0, replace it, as in the Khronos loader.
   */
  constructor(env: EnvironmentSnapshot, options?: LoggerOptions) {
    options ??= {};
    const settingsMask = options.settingsLogMask ?? 0;
    this.#mask = settingsMask !== 0 ? settingsMask : parseLoaderDebug(getenv(env, "VK_LOADER_DEBUG"));
    this.#write = options.write ?? writeStderr;
    this.#printed = options.write ? new Set() : printedOnStderr;
  }

  /** The enabled `LOG_BITS` from `VK_LOADER_DEBUG`. */
  get mask(): number {
    return this.#mask;
  }

  /** Number of sinks attached. */
  get sinkCount(): number {
    return this.#sinks.size;
  }

  /**
   * True when a message of this level or category would be printed (to skip
   * building expensive messages).
   *
   * @example Usage
   * ```ts
   * import { Logger } from "@vkdeno/loader";
   * console.log(new Logger({ vars: { VK_LOADER_DEBUG: "layer" }, elevated: false }).enabled("layer")); // true
   * ```
   */
  enabled(kind: LogLevel | Exclude<LogCategory, "general">): boolean {
    return (this.#mask & LOG_BITS[kind]) !== 0;
  }

  /**
   * Attaches a sink that receives every message; returns its detacher.
   *
   * @example Usage
   * ```ts
   * import { Logger } from "@vkdeno/loader";
   * const log = new Logger({ vars: {}, elevated: false });
   * const detach = log.addSink((r) => console.log(r.text));
   * log.debug("seen by the sink only");
   * detach();
   * ```
   */
  addSink(sink: LogSink): () => void {
    this.#sinks.add(sink);
    return () => this.#sinks.delete(sink);
  }

  /**
   * Logs one entry (the shape discovery messages have).
   *
   * @example Usage
   * ```ts
   * import { Logger } from "@vkdeno/loader";
   * const log = new Logger({ vars: { VK_LOADER_DEBUG: "all" }, elevated: false });
   * log.log({ level: "info", category: "layer", text: "Insert instance layer \"VK_LAYER_x\"" });
   * ```
   */
  log(entry: LogEntry): void {
    const bits = entryBits(entry);
    if (((bits & this.#mask) !== 0 || entry.always) && this.#firstTime(entry)) {
      this.#write(formatLogLine(entry, this.#mask));
    }
    if (this.#sinks.size === 0) return;
    const record: LogRecord = { ...entry, bits };
    for (const sink of this.#sinks) {
      try {
        sink(record);
      } catch (error) {
        // A faulty messenger must not break the loader; say so where it can be seen.
        this.#write(formatLogLine({ level: "error", text: `Log sink threw: ${String(error)}` }, this.#mask));
      }
    }
  }

  /** False for a warning or error already printed about an unchanged file (one message per fault). */
  #firstTime(entry: LogEntry): boolean {
    if (entry.level !== "warn" && entry.level !== "error") return true;
    const k = printKey(entry);
    if (this.#printed.has(k)) return false;
    this.#printed.add(k);
    return true;
  }

  /**
   * Logs every entry in order (e.g. a discovery result's `messages`).
   *
   * @example Usage
   * ```ts
   * import { Logger } from "@vkdeno/loader";
   * new Logger({ vars: {}, elevated: false }).logAll([{ level: "warn", category: "driver", text: "x" }]);
   * ```
   */
  logAll(entries: Iterable<LogEntry>): void {
    for (const e of entries) this.log(e);
  }

  /**
   * Logs an error.
   *
   * @example Usage
   * ```ts
   * import { Logger } from "@vkdeno/loader";
   * new Logger({ vars: {}, elevated: false }).error("Cannot load driver \"x.json\"", "driver");
   * ```
   */
  error(text: string, category?: LogCategory): void {
    this.log({ level: "error", category, text });
  }

  /**
   * Logs a warning.
   *
   * @example Usage
   * ```ts
   * import { Logger } from "@vkdeno/loader";
   * new Logger({ vars: {}, elevated: false }).warn("Layer \"x\" skipped", "layer");
   * ```
   */
  warn(text: string, category?: LogCategory): void {
    this.log({ level: "warn", category, text });
  }

  /**
   * Logs information.
   *
   * @example Usage
   * ```ts
   * import { Logger } from "@vkdeno/loader";
   * new Logger({ vars: {}, elevated: false }).info("Found manifest file \"x.json\"");
   * ```
   */
  info(text: string, category?: LogCategory): void {
    this.log({ level: "info", category, text });
  }

  /**
   * Logs a debug message.
   *
   * @example Usage
   * ```ts
   * import { Logger } from "@vkdeno/loader";
   * new Logger({ vars: {}, elevated: false }).debug("Searching for driver manifest files", "driver");
   * ```
   */
  debug(text: string, category?: LogCategory): void {
    this.log({ level: "debug", category, text });
  }

  /**
   * Prints an error whatever `VK_LOADER_DEBUG` says: for messages right
   * before the process aborts, which must never be lost.
   *
   * @example Usage
   * ```ts
   * import { Logger } from "@vkdeno/loader";
   * new Logger({ vars: {}, elevated: false }, { write: () => {} }).fatal("Invalid instance handle");
   * ```
   */
  fatal(text: string, category?: LogCategory): void {
    const entry: LogEntry = { level: "error", category, text };
    // Printed every time, before the sinks see it (and recorded, so a later plain error does not repeat it).
    this.#printed.add(printKey(entry));
    this.#write(formatLogLine(entry, this.#mask));
    this.log(entry);
  }
}
