/**
 * The chassis: runs several validation objects, in order, around each intercepted command, over one shared
 * `StateTracker`, in the validation layers' sequence; the rules of a call are in docs/layers.md.
 *
 * @example Two objects around one command
 * ```ts
 * import { Chassis } from "./chassis.ts";
 * import { defineLayer } from "./layer.ts";
 * const log: string[] = [];
 * const tracer = (tag: string) =>
 *   defineLayer({
 *     name: `VK_LAYER_test_${tag}`,
 *     description: tag,
 *     create: () => ({ intercepts: { vkCmdSetLineWidth: { preCallRecord: () => void log.push(tag) } } }),
 *   });
 * const next = { vkCmdSetLineWidth: () => void log.push("next") };
 * using chassis = new Chassis([tracer("a"), tracer("b")], next);
 * chassis.wrap("vkCmdSetLineWidth", () => next.vkCmdSetLineWidth)(null, 1);
 * console.log(log); // ["a", "b", "next"]
 * ```
 *
 * @module
 */
import { callWith } from "./_call.ts";
import { commandInfo, destroyRule } from "./_commands.ts";
import type {
  CommandHooks,
  Dispatch,
  ReportOptions,
  TsLayer,
  ValidationMessage,
  ValidationObject,
  VulkanCommand,
} from "./layer.ts";
import { Call, errorValue, skipValue } from "./call.ts";
import { StateTracker } from "./state.ts";

/** Options of {@linkcode Chassis}. */
export interface ChassisOptions {
  /** Receives every reported message (default: one line on stderr). */
  onMessage?: (message: ValidationMessage) => void;
  /** Receives layer output lines (default: stdout). */
  output?: (line: string) => void;
  /** Per-layer settings, by layer name. */
  settings?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/**
 * Validation objects of several TS layers around one next link, sharing one state tracker.
 */
export class Chassis implements Disposable {
  /** The layers, in call order (first is closest to the application). */
  readonly layers: TsLayer[] = [];
  /** Their validation objects, same order. */
  readonly objects: ValidationObject[] = [];
  /** The shared tracker, made when the first layer with `usesState` is added. */
  state: StateTracker | null = null;
  readonly #dispatch: Dispatch;
  readonly #options: ChassisOptions;
  #serial = 0;
  #disposed = false;
  /** A call whose next link threw while its memory was allocated. */
  #leftover: Call | null = null;

  #freeLeftover(): void {
    this.#leftover?.end();
    this.#leftover = null;
  }

  /**
   * A chassis over `next` (the next link: a command object, which layers call through) with `layers`
   * added in order.
   */
  constructor(layers: readonly TsLayer[], next: object, options: ChassisOptions = {}) {
    this.#dispatch = next as Dispatch;
    this.#options = options;
    for (const layer of layers) this.add(layer);
  }

  /** The next link. */
  get dispatch(): Dispatch {
    return this.#dispatch;
  }

  /** Intercepted calls so far. */
  get calls(): number {
    return this.#serial;
  }

  /**
   * Adds a layer below the ones already added (its object runs after theirs). Wrappers made before
   * do not see it: hosts re-wrap (see `layers/top.ts`).
   *
   * @throws {TypeError} If a layer of that name was already added, or the chassis is disposed.
   */
  add(layer: TsLayer): ValidationObject {
    if (this.#disposed) throw new TypeError(`Cannot add layer "${layer.name}": the chassis is disposed`);
    if (this.layers.some((l) => l.name === layer.name)) {
      throw new TypeError(`Cannot add layer "${layer.name}" twice to one chassis`);
    }
    if (layer.usesState && this.state === null) this.state = new StateTracker();
    const report = this.#options.onMessage ?? defaultReport;
    const output = this.#options.output ?? ((line: string) => console.log(line));
    const object = layer.create({
      dispatch: this.#dispatch,
      state: layer.usesState ? this.state : null,
      report: (id: string, text: string, options: ReportOptions = {}) =>
        report({
          layer: layer.name,
          severity: options.severity ?? "error",
          id,
          text,
          command: options.command,
        }),
      write: output,
      settings: this.#options.settings?.[layer.name] ?? {},
    });
    this.layers.push(layer);
    this.objects.push(object);
    return object;
  }

  /** Names of every command some object (or the state tracker) intercepts. */
  intercepted(): Set<string> {
    const names = new Set<string>();
    for (const o of this.objects) for (const name of Object.keys(o.intercepts)) names.add(name);
    if (this.state) { for (const name of Object.keys(this.state.intercepts)) names.add(name); }
    return names;
  }

  /** The hook sets for `name`, in run order (the tracker first, or last for destroying commands). */
  hooksFor(name: string): CommandHooks[] {
    const own = this.objects.map((o) => (o.intercepts as Record<string, CommandHooks | undefined>)[name])
      .filter((h): h is CommandHooks => h !== undefined);
    const tracked = this.state?.intercepts[name];
    if (!tracked) return own;
    const destroys = destroyRule(commandInfo(name)) !== null || name === "vkResetDescriptorPool";
    return destroys ? [...own, tracked] : [tracked, ...own];
  }

  /**
   * The function that runs the hooks for `name` around the next link's function, which `next` gives on
   * first call (so binding it costs nothing until then).
   *
   * @throws {TypeError} If `name` is not a Vulkan command.
   */
  wrap(name: string, next: () => VulkanCommand): VulkanCommand {
    const info = commandInfo(name);
    const hooks = this.hooksFor(name);
    const owners = new Map<CommandHooks, string>();
    this.objects.forEach((o, i) => {
      const h = (o.intercepts as Record<string, CommandHooks | undefined>)[name];
      if (h) owners.set(h, this.layers[i]!.name);
    });
    const validators = hooks.filter((h) => h.preCallValidate !== undefined);
    const pre = hooks.filter((h) => h.preCallRecord !== undefined);
    const post = hooks.filter((h) => h.postCallRecord !== undefined);
    const skipped = skipValue(info);
    const failed = errorValue(info);
    const dispatch = this.#dispatch;
    let fn: VulkanCommand | undefined;
    // deno-lint-ignore no-this-alias
    const chassis = this;
    const threw = (hook: CommandHooks, phase: string, error: unknown) => {
      const layer = owners.get(hook) ?? "the state tracker";
      const why = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      (chassis.#options.onMessage ?? defaultReport)({
        layer,
        severity: "error",
        id: "Layer-HookThrew",
        text: `${phase} of "${name}" threw ${why}`,
        command: name,
      });
    };
    return function (...args: unknown[]): unknown {
      if (chassis.#leftover !== null) chassis.#freeLeftover();
      const ctx = new Call(name, info, ++chassis.#serial, dispatch, chassis.state, args);
      let skip = false;
      for (let i = 0; i < validators.length; i++) {
        const h = validators[i]!;
        const r = guarded(h.preCallValidate!, h, ctx, args, threw, "preCallValidate");
        if (r === THREW) return ctx.end(), failed;
        if (r === true) skip = true;
      }
      if (skip || ctx.skipped) return ctx.end(), ctx.skipped ? ctx.result : skipped;
      for (let i = 0; i < pre.length && !ctx.skipped; i++) {
        const h = pre[i]!;
        if (guarded(h.preCallRecord!, h, ctx, args, threw, "preCallRecord") === THREW) {
          return ctx.end(), failed;
        }
      }
      if (ctx.skipped) {
        ctx.end();
        return ctx.result;
      }
      ctx.after = true;
      const f = fn ??= next();
      // Written out by length, not spread: a spread call into a Deno.dlopen function from this site,
      // shared by every intercepted command, takes V8's slow path (~110 ns instead of ~30-40 ns).
      const n = args.length;
      // No try here: V8 calls a Deno.dlopen function the fast way only outside exception handlers. A call's
      // memory left by a throwing next link is freed by the chassis's next call (or its dispose).
      if (ctx.hasMemory) chassis.#leftover = ctx;
      const result = n === 2
        ? f(args[0], args[1])
        : n === 3
        ? f(args[0], args[1], args[2])
        : n === 4
        ? f(args[0], args[1], args[2], args[3])
        : n === 1
        ? f(args[0])
        : n === 5
        ? f(args[0], args[1], args[2], args[3], args[4])
        : n === 6
        ? f(args[0], args[1], args[2], args[3], args[4], args[5])
        : callWith(f, args);
      chassis.#leftover = null;
      ctx.result = result;
      for (let i = 0; i < post.length; i++) {
        guarded(post[i]!.postCallRecord!, post[i]!, ctx, args, threw, "postCallRecord");
      }
      ctx.end();
      return ctx.result;
    };
  }

  /** Disposes every validation object (summaries print here), last first. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#freeLeftover();
    for (const o of [...this.objects].reverse()) o.dispose?.();
  }

  /** Same as {@linkcode Chassis.dispose}. */
  [Symbol.dispose](): void {
    this.dispose();
  }
}

type Hook = (this: CommandHooks, ctx: never, ...args: never[]) => unknown;

/**
 * Calls a hook with the call's arguments written out by length: the argument array is the call's own
 * (hooks may replace its members), and spreading such an array costs V8's slow spread path on every call.
 */
function hook_(fn: Hook, hook: CommandHooks, ctx: Call, a: unknown[]): unknown {
  const c = ctx as never, n = a.length;
  const v = a as never[];
  return n === 2
    ? fn.call(hook, c, v[0]!, v[1]!)
    : n === 3
    ? fn.call(hook, c, v[0]!, v[1]!, v[2]!)
    : n === 4
    ? fn.call(hook, c, v[0]!, v[1]!, v[2]!, v[3]!)
    : n === 1
    ? fn.call(hook, c, v[0]!)
    : n === 5
    ? fn.call(hook, c, v[0]!, v[1]!, v[2]!, v[3]!, v[4]!)
    : fn.call(hook, c, ...v);
}

/** What {@linkcode guarded} returns when the hook threw. */
const THREW: unique symbol = Symbol("threw");

/**
 * Runs a hook, reporting a throw: kept out of the wrapper so that it has no exception handler (V8 calls a
 * Deno.dlopen function the fast way only outside one).
 */
function guarded(
  fn: Hook,
  hook: CommandHooks,
  ctx: Call,
  args: unknown[],
  threw: (hook: CommandHooks, phase: string, error: unknown) => void,
  phase: string,
): unknown {
  try {
    return hook_(fn, hook, ctx, args);
  } catch (error) {
    threw(hook, phase, error);
    return THREW;
  }
}

function defaultReport(m: ValidationMessage): void {
  console.error(`${m.layer} ${m.severity} [${m.id}]${m.command ? ` in ${m.command}` : ""}: ${m.text}`);
}
