/**
 * How the helpers of this level (`create`, `createMany`, `enumerate`, `VkScope`, the idiomatic API) ask a
 * command object to check handles before a call, without knowing the loader above them: a command object
 * that can check implements {@linkcode HANDLE_CHECKS}, and the functions it hands out are registered here
 * with their command name ({@linkcode commandNameOf}).
 *
 * @module
 */

import { COMMAND_PARAMS } from "./generated/commands.ts";

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
  /**
   * `fn`, raw command `command`, behind the checks a JavaScript layer over raw commands should run (the
   * cheapest that still refuse what would kill the process where the object can tell).
   */
  guard?(command: string, fn: (...args: unknown[]) => unknown): (...args: unknown[]) => unknown;
  /**
   * `guard`'s check of `command` apart from the call: a function of the command's first 8 parameters that
   * throws as `checkArgs` does, for a caller that calls the raw command from a call site of its own (V8 makes
   * a native command a fast call only at a site that sees one target; a shared wrapper's site sees them all).
   * Null when nothing needs checking; undefined when only `guard` will do.
   */
  precheck?(command: string): ((...args: unknown[]) => void) | null | undefined;
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

/** What a command object says of a function it handed out. */
interface CommandInfo {
  readonly name: string;
  readonly checks: HandleChecks | undefined;
  /** The function checks its handles itself (a trampoline, or checked mode). */
  readonly checked: boolean;
}

const names = new WeakMap<object, CommandInfo>();

/** Records that `fn` is command `name` of a command object offering `checks` (`checked`: it checks itself). */
export function registerCommand(
  fn: object,
  name: string,
  checks: HandleChecks | undefined,
  checked = false,
): void {
  names.set(fn, { name, checks, checked });
}

/** The command a function handed out by a command object is, and its object's checks. */
export function commandNameOf(fn: object): CommandInfo | undefined {
  return names.get(fn);
}

type Fn = (...args: unknown[]) => unknown;

/** A check of a call's first 8 arguments (fewer are passed as `undefined`). */
export type Check<R = void> = (
  a: unknown,
  b: unknown,
  c: unknown,
  d: unknown,
  e: unknown,
  f: unknown,
  g: unknown,
  h: unknown,
) => R;

/** The check of a command that needs none. */
export const NO_CHECK: Check = () => {};

/**
 * Raw command `fn` (`name` of `source`) and the check to run before calling it from a call site of the
 * caller's own: {@linkcode HandleChecks.precheck}'s where the source offers one, else `fn` behind
 * {@linkcode withHandleChecks} and no check.
 */
export function checkedCall(source: object, name: string, fn: Fn): { fn: Fn; check: Check } {
  const checks = handleChecksOf(source);
  if (checks === undefined || names.get(fn)?.checked) return { fn, check: NO_CHECK };
  const check = checks.precheck?.(name);
  if (check === null) return { fn, check: NO_CHECK };
  if (check !== undefined) return { fn, check: check as Check };
  return { fn: withHandleChecks(source, name, fn), check: NO_CHECK };
}

/**
 * `fn`, raw command `name` of `source`, behind `source`'s handle checks when it has them and `fn` does not
 * check by itself: what a layer of JavaScript over raw commands (the idiomatic `VkApi`) calls.
 */
export function withHandleChecks(source: object, name: string, fn: Fn): Fn {
  const checks = handleChecksOf(source);
  if (checks === undefined || names.get(fn)?.checked) return fn;
  if (checks.guard) return checks.guard(name, fn);
  // Fixed arities call `fn` with plain arguments (a spread call into a native symbol is slower).
  switch (COMMAND_PARAMS[name]?.length) {
    case 1:
      return (a) => (checks.checkArgs(name, [a]), fn(a));
    case 2:
      return (a, b) => (checks.checkArgs(name, [a, b]), fn(a, b));
    case 3:
      return (a, b, c) => (checks.checkArgs(name, [a, b, c]), fn(a, b, c));
    case 4:
      return (a, b, c, d) => (checks.checkArgs(name, [a, b, c, d]), fn(a, b, c, d));
  }
  return (...args) => (checks.checkArgs(name, args), fn(...args));
}
