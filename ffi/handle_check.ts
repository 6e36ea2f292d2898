/**
 * How the helpers of this level (`create`, `createMany`, `enumerate`, `VkScope`, the idiomatic layer) ask a
 * command object to check handles before a call, without knowing the loader above them: a command object
 * that can check implements {@linkcode HANDLE_CHECKS}, and the functions it hands out are registered here
 * with their command name ({@linkcode commandNameOf}).
 *
 * @module
 */

/**
 * What a command object that knows its handles offers the helpers (vkdeno's `Vulkan` does), under
 * {@linkcode HANDLE_CHECKS}; code that calls commands on a user's behalf (a wrapper layer) asks it first.
 *
 * @example Checking arguments before a call
 * ```ts
 * import { HANDLE_CHECKS, Vulkan } from "@vkdeno/loader";
 * using vk = Vulkan.load({ env: { vars: {}, elevated: false } });
 * try {
 *   vk[HANDLE_CHECKS].checkArgs("vkDeviceWaitIdle", [null]);
 * } catch (e) {
 *   console.log((e as Error).message); // "vkDeviceWaitIdle: device is null"
 * }
 * ```
 */
export interface HandleChecks {
  /**
   * Throws a `TypeError` naming `command`, the parameter and what is wrong when a handle among `args` (the
   * command's parameters in order; fewer is fine) is null where it may not be, destroyed, another loader's,
   * or not a handle of the loader at all.
   */
  checkArgs(command: string, args: readonly unknown[]): void;
  /** Called after `command` destroyed `handle` outside the object's own commands (a scope's destroy). */
  destroyed?(command: string, handle: unknown): void;
}

/**
 * The key under which a command object offers its {@linkcode HandleChecks}.
 *
 * @example Usage
 * ```ts
 * import { HANDLE_CHECKS, Vulkan } from "@vkdeno/loader";
 * using vk = Vulkan.load({ env: { vars: {}, elevated: false } });
 * console.log(typeof vk[HANDLE_CHECKS].checkArgs); // "function"
 * ```
 */
export const HANDLE_CHECKS: unique symbol = Symbol.for("vkdeno.handleChecks");

/** The checks a command object offers, if any. */
export function handleChecksOf(source: object): HandleChecks | undefined {
  return (source as { [HANDLE_CHECKS]?: HandleChecks })[HANDLE_CHECKS];
}

const names = new WeakMap<object, { name: string; checks: HandleChecks | undefined }>();

/** Records that `fn` is command `name` of a command object offering `checks`. */
export function registerCommand(fn: object, name: string, checks: HandleChecks | undefined): void {
  names.set(fn, { name, checks });
}

/** The command a function handed out by a command object is, and its object's checks. */
export function commandNameOf(fn: object): { name: string; checks: HandleChecks | undefined } | undefined {
  return names.get(fn);
}
