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
      const ctx = new Call(name, info, ++chassis.#serial, dispatch, chassis.state, args);
      let hook: CommandHooks | undefined;
      let phase = "preCallValidate";
      try {
        let skip = false;
        for (let i = 0; i < validators.length; i++) {
          hook = validators[i]!;
          if (hook.preCallValidate!(ctx as never, ...args) === true) skip = true;
        }
        if (skip || ctx.skipped) return ctx.skipped ? ctx.result : skipped;
        phase = "preCallRecord";
        for (let i = 0; i < pre.length && !ctx.skipped; i++) {
          hook = pre[i]!;
          hook.preCallRecord!(ctx as never, ...args);
        }
      } catch (error) {
        threw(hook!, phase, error);
        ctx.end();
        return failed;
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
      let result: unknown;
      try {
        result = n === 2
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
      } catch (error) {
        ctx.end();
        throw error;
      }
      ctx.result = result;
      for (let i = 0; i < post.length; i++) {
        try {
          post[i]!.postCallRecord!(ctx as never, ...args);
        } catch (error) {
          threw(post[i]!, "postCallRecord", error);
        }
      }
      ctx.end();
      return ctx.result;
    };
  }

  /** Disposes every validation object (summaries print here), last first. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const o of [...this.objects].reverse()) o.dispose?.();
  }

  /** Same as {@linkcode Chassis.dispose}. */
  [Symbol.dispose](): void {
    this.dispose();
  }
}

function defaultReport(m: ValidationMessage): void {
  console.error(`${m.layer} ${m.severity} [${m.id}]${m.command ? ` in ${m.command}` : ""}: ${m.text}`);
}
