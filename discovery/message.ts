/**
 * The one shape of what discovery has to say (drivers, layers, the settings file): a line for the loader log
 * (`loading/log.ts`) to print under `VK_LOADER_DEBUG`.
 *
 * @module
 */

/**
 * A log line for `loading/log.ts` to print under `VK_LOADER_DEBUG`.
 *
 * @example Usage
 * ```ts
 * import type { DiscoveryMessage } from "@vkdeno/loader/discovery";
 * const m: DiscoveryMessage = { level: "info", category: "driver", text: "Searching for driver manifest files" };
 * ```
 */
export interface DiscoveryMessage {
  /** Severity, as `VK_LOADER_DEBUG` names it. */
  readonly level: "error" | "warn" | "info" | "debug";
  /** The `VK_LOADER_DEBUG` category that also shows it. */
  readonly category: "driver" | "layer" | "general";
  /** The message, naming the file and field at fault. */
  readonly text: string;
  /** The manifest or settings file the message is about, if any (the log prints a repeated warning only once it changed). */
  readonly file?: string;
  /** Printed whatever `VK_LOADER_DEBUG` says, once per process: a Deno permission refused (docs/behaviour.md V23). */
  readonly always?: boolean;
}
