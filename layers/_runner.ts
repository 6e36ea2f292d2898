/**
 * The hot path of an intercepted call (the chassis's hooks around the next link), compiled per command with
 * its parameters spelled out: no array and no call record made per call, and call sites of the command's own.
 * The rules it follows are docs/layers.md's "Hooks" and "Control of the call".
 *
 * @module
 */
import type { Call } from "./call.ts";
import type { CommandHooks, VulkanCommand } from "./layer.ts";
import type { StateTracker } from "./state.ts";

/** The hooks of one dispatch object for one command, by phase (the chassis's `CommandHookSet`). */
export interface PhasedHooks {
  readonly validators: readonly CommandHooks[];
  readonly pre: readonly CommandHooks[];
  readonly post: readonly CommandHooks[];
  /** True when no hook runs: the call goes straight to the next link. */
  readonly none: boolean;
  /** The state tracker its calls' contexts hand out. */
  readonly state: StateTracker | null;
}

/** The dispatch object a call runs on, as the runner reads it. */
export interface HookedObject<S extends PhasedHooks> {
  readonly generation: number;
  hookSet(name: string): S;
}

/** What every runner of one chassis shares. */
export interface RunnerShared {
  /** Intercepted calls so far (each call's `ctx.serial`). */
  serial: number;
  /** A call whose next link threw while its memory was allocated: freed at the next call. */
  leftover: Call | null;
}

/** What a runner is compiled with. */
export interface RunnerParts<D extends HookedObject<S>, S extends PhasedHooks> {
  /** The command's name. */
  readonly name: string;
  /** Its number of parameters. */
  readonly arity: number;
  /** The dispatch object of a call whose first argument is `handle`. */
  readonly objectsFor: (handle: unknown) => D;
  /** The next link's function, asked for at the first call that goes down. */
  readonly next: () => VulkanCommand;
  /** A new call record of the command, its `args` of `arity` elements, at the shared serial. */
  readonly record: (set: S) => Call;
  /** What a call skipped without a chosen result returns. */
  readonly skipped: unknown;
  /** Reports a hook that threw (once per layer and command). */
  readonly threw: (set: S, hook: CommandHooks, phase: string, error: unknown) => void;
  /** Frees `shared.leftover`'s memory. */
  readonly freeLeftover: () => void;
  readonly shared: RunnerShared;
  /** Told the next link's result before the post hooks (a created instance's handle). */
  readonly returned?: (d: D, args: unknown[], result: unknown) => void;
}

/** A compiled runner: `run(d, ...args)` on a dispatch object; `entry(...args)` finds it from the first argument. */
export interface Runner<D> {
  readonly run: (d: D, ...args: unknown[]) => unknown;
  readonly entry: VulkanCommand;
}

let compiled = 0;

/**
 * The runner of one command. Its source is compiled once per command (the comment makes it unique): V8 keeps
 * what it learns per source, and a `Deno.dlopen` function is a fast call only at a call site that has seen
 * that one function (~30-40 ns against ~110 on lavapipe's vkCmdSetLineWidth), so one shared runner would lose
 * the fast call as soon as it ran two commands; its hook calls would also see every command's hooks. A hook
 * that throws is reported and passed over: the application's call is never lost to a layer's bug. The next
 * link is called outside any `try` (V8 makes no fast call inside one): a call's memory left by a throwing
 * next link is freed at the next call. The call record is the command's own, opened again per call. The
 * validators, the post hooks and a call with no hook run in functions of their own, so that `run` with only
 * pre hooks stays small enough for V8 to inline into the caller (~10 ns a call on lavapipe, docs/performance.md).
 */
export function compileRunner<D extends HookedObject<S>, S extends PhasedHooks>(
  parts: RunnerParts<D, S>,
): Runner<D> {
  const params = Array.from({ length: parts.arity }, (_, i) => `a${i}`).join(", ");
  const values = Array.from({ length: parts.arity }, (_, i) => `a[${i}]`).join(", ");
  const stores = Array.from({ length: parts.arity }, (_, i) => `a[${i}] = a${i};`).join(" ");
  /** One hook's call, `then` done with its return value; a throw is reported and passed over. */
  const hook = (list: string, phase: string, then = (call: string) => `${call};`) =>
    `try { ${then(`${list}[i].${phase}(ctx${values ? ", " + values : ""})`)} } ` +
    `catch (error) { threw(set, ${list}[i], "${phase}", error); }`;
  const source = `// vkdeno TS layer runner ${JSON.stringify(parts.name)} ${++compiled}
const { name, objectsFor, next, record, skipped, threw, freeLeftover, shared, returned } = parts;
let fn, last = null, generation = -1, hooks, spare = null;
function close(ctx, result) {
  ctx.end();
  spare = ctx;
  return result;
}
function open(set, ${params}) {
  let ctx = spare;
  if (ctx === null) ctx = record(set);
  else {
    spare = null;
    ctx.reopen(++shared.serial, set.state);
  }
  const a = ctx.args;
  ${stores}
  return ctx;
}
function direct(d, ${params}) {
  const result = (fn ??= next())(${params});
  if (returned !== undefined) returned(d, [${params}], result);
  return result;
}
function validate(ctx, set) {
  const validators = set.validators, a = ctx.args;
  let skip = false;
  for (let i = 0; i < validators.length; i++) {
    ${hook("validators", "preCallValidate", (call) => `if (${call} === true) skip = true;`)}
  }
  return skip || ctx.skipped;
}
function after(ctx, set, result) {
  const post = set.post, a = ctx.args;
  ctx.result = result;
  for (let i = 0; i < post.length; i++) {
    ${hook("post", "postCallRecord")}
  }
  return close(ctx, ctx.result);
}
function run(d, ${params}) {
  if (shared.leftover !== null) freeLeftover();
  if (d !== last || d.generation !== generation) {
    hooks = d.hookSet(name);
    last = d;
    generation = d.generation;
  }
  const set = hooks;
  if (set.none) return direct(d, ${params});
  const ctx = open(set, ${params});
  if (set.validators.length !== 0 && validate(ctx, set)) return close(ctx, ctx.skipped ? ctx.result : skipped);
  const pre = set.pre, a = ctx.args;
  for (let i = 0; i < pre.length && !ctx.skipped; i++) {
    ${hook("pre", "preCallRecord")}
  }
  if (ctx.skipped) return close(ctx, ctx.result);
  ctx.after = true;
  if (ctx.hasMemory) shared.leftover = ctx;
  const result = (fn ??= next())(${values});
  shared.leftover = null;
  if (returned !== undefined) returned(d, a, result);
  return set.post.length === 0 ? close(ctx, result) : after(ctx, set, result);
}
return { run, entry: (${params}) => run(objectsFor(${parts.arity === 0 ? "null" : "a0"}), ${params}) };`;
  return new Function("parts", source)(parts) as Runner<D>;
}
