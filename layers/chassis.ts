/**
 * The chassis: runs several validation objects, in order, around each intercepted command, over one
 * shared {@linkcode StateTracker}, in the validation layers' sequence:
 *
 * ```
 * for every object: skip ||= preCallValidate(...)     (all run, so every problem is reported)
 * if skip: return VK_ERROR_VALIDATION_FAILED_EXT
 * for every object: preCallRecord(...)
 * result = next(...)
 * for every object: postCallRecord(...)
 * ```
 *
 * The state tracker runs first, except for commands that destroy objects, where it runs last so the
 * other objects still see the object being destroyed. Where the chassis sits (above the loader's
 * command object, or between native layers) is up to its host: `layers/top.ts`, `layers/native.ts`.
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
import type { CommandInfo } from "../ffi/generated/types.ts";
import { callWith } from "./_call.ts";
import { commandInfo, destroyRule } from "./_commands.ts";
import {
  type CallContext,
  type CommandHooks,
  type Dispatch,
  type ReportOptions,
  type TsLayer,
  type ValidationMessage,
  type ValidationObject,
  VK_ERROR_VALIDATION_FAILED_EXT,
  type VulkanCommand,
} from "./layer.ts";
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

class Call implements CallContext {
  readonly command: string;
  readonly info: CommandInfo;
  readonly serial: number;
  readonly dispatch: Dispatch;
  readonly state: StateTracker | null;
  result: unknown = undefined;
  #scratch: Map<object, unknown> | undefined;

  constructor(
    command: string,
    info: CommandInfo,
    serial: number,
    dispatch: Dispatch,
    state: StateTracker | null,
  ) {
    this.command = command;
    this.info = info;
    this.serial = serial;
    this.dispatch = dispatch;
    this.state = state;
  }

  get scratch(): Map<object, unknown> {
    return this.#scratch ??= new Map();
  }
}

function skipValue(info: CommandInfo): unknown {
  switch (info.ffi.result) {
    case "void":
      return undefined;
    case "pointer":
    case "function":
    case "buffer":
      return null;
    case "u64":
    case "i64":
      return 0n;
    default:
      return info.result === "VkResult" ? VK_ERROR_VALIDATION_FAILED_EXT : 0;
  }
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
    const own = this.objects.map((o) => o.intercepts[name]).filter((h): h is CommandHooks => h !== undefined);
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
    const validators = hooks.filter((h) => h.preCallValidate !== undefined);
    const pre = hooks.filter((h) => h.preCallRecord !== undefined);
    const post = hooks.filter((h) => h.postCallRecord !== undefined);
    const skipped = skipValue(info);
    const dispatch = this.#dispatch;
    let fn: VulkanCommand | undefined;
    // deno-lint-ignore no-this-alias
    const chassis = this;
    const state = () => chassis.state;
    return function (...args: unknown[]): unknown {
      const ctx = new Call(name, info, ++chassis.#serial, dispatch, state());
      let skip = false;
      for (let i = 0; i < validators.length; i++) {
        if (validators[i]!.preCallValidate!(ctx, ...args) === true) skip = true;
      }
      if (skip) return skipped;
      for (let i = 0; i < pre.length; i++) pre[i]!.preCallRecord!(ctx, ...args);
      const f = fn ??= next();
      // Written out by length, not spread: a spread call into a Deno.dlopen function from this site,
      // shared by every intercepted command, takes V8's slow path (~110 ns instead of ~30-40 ns).
      const n = args.length;
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
      ctx.result = result;
      for (let i = 0; i < post.length; i++) post[i]!.postCallRecord!(ctx, ...args);
      return result;
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
