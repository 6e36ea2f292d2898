/**
 * The chassis: one dispatch object per instance and per device, holding every layer's validation objects
 * for it, and the wrappers that run their hooks around each intercepted command in the validation layers'
 * sequence, over a state tracker per instance; the rules of a call and of the objects are in docs/layers.md.
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
import { compileRunner, type Runner, type RunnerShared } from "./_runner.ts";
import { commandInfo, destroyRule, dispatchKey } from "./_commands.ts";
import { type HandleKey, handleKey } from "../vk/handle_key.ts";
import type {
  CommandHooks,
  DeviceLayerEnv,
  Dispatch,
  LayerEnv,
  ReportOptions,
  TsLayer,
  ValidationMessage,
  ValidationObject,
  VulkanCommand,
} from "./layer.ts";
import { Call, skipValue } from "./call.ts";
import { commandFailure, type LayerCommand } from "./command.ts";
import { readPointer } from "../ffi/memory.ts";
import { COMMAND_INDEX } from "../vk/generated/commands.ts";
import { StateTracker } from "./state.ts";
import { type LayerSettingDeclarations, LayerSettingsSources } from "./settings.ts";
import type { EnvironmentSnapshot } from "../discovery/environment.ts";

/** Options of {@linkcode Chassis}. */
export interface ChassisOptions {
  /** Receives every reported message (default: one line on stderr). */
  onMessage?: (message: ValidationMessage) => void;
  /** Receives layer output lines (default: stdout). */
  output?: (line: string) => void;
  /**
   * Per-layer settings, by layer name: the last source of a declared setting, after the variables,
   * `vk_layer_settings.txt` and `VkLayerSettingsCreateInfoEXT` (docs/behaviour.md LS01).
   */
  settings?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /**
   * The environment layer settings are read from: its `VK_<LAYER>_<SETTING>` variables and the
   * `vk_layer_settings.txt` it finds (docs/behaviour.md LS04, LS05). Default: this process's.
   */
  env?: EnvironmentSnapshot;
}

/** The commands that make and end dispatch objects: every host routes them through the chassis. */
export const LIFECYCLE_COMMANDS: readonly string[] = [
  "vkCreateInstance",
  "vkDestroyInstance",
  "vkCreateDevice",
  "vkDestroyDevice",
];

/** The hooks one dispatch object runs for one command, split by phase. */
interface CommandHookSet {
  readonly validators: CommandHooks[];
  readonly pre: CommandHooks[];
  readonly post: CommandHooks[];
  /** Which layer each hook set belongs to, for messages. */
  readonly owners: Map<CommandHooks, string>;
  /** True when no hook runs: the call goes straight to the next link. */
  readonly none: boolean;
  /** The dispatch object's state tracker (read once per generation, not per call). */
  readonly state: StateTracker | null;
}

/**
 * The validation objects of every layer for one instance or one device: the validation layers' dispatch
 * object. A device's holds, per layer, the layer's device object (`createDevice`) or else its instance
 * object, and shares its instance's state tracker.
 */
export class DispatchObject {
  /** `"instance"` or `"device"`. */
  readonly kind: "instance" | "device";
  /** The instance's dispatch object, for a device; null for an instance. */
  readonly parent: DispatchObject | null;
  /** The layers, in call order (first is closest to the application). */
  readonly layers: TsLayer[] = [];
  /** Each layer's validation object for this instance or device, same order. */
  readonly objects: ValidationObject[] = [];
  /**
   * The instance or device handle: null until `vkCreateInstance` returns, and for the objects of calls on
   * handles the chassis did not see made.
   */
  handle: Deno.PointerValue = null;
  /** The physical device a device was made from (null for an instance). */
  physicalDevice: Deno.PointerValue = null;
  /** Bumped when a layer is added: wrappers re-read their hooks. */
  generation = 0;
  /** Each layer's resolved settings by layer name (an instance's; a device reads its parent's). */
  readonly settings: Map<string, Readonly<Record<string, unknown>>> = new Map();
  #state: StateTracker | null = null;
  /** The objects this dispatch object made (a device's own ones), disposed with it. */
  readonly #made: ValidationObject[] = [];
  readonly #hooks = new Map<string, CommandHookSet>();
  #key: HandleKey | undefined;

  /** An empty dispatch object; the chassis makes them. */
  constructor(kind: "instance" | "device", parent: DispatchObject | null) {
    this.kind = kind;
    this.parent = parent;
  }

  /** The shared state tracker of the instance (null when no layer declared `usesState`). */
  get state(): StateTracker | null {
    return this.parent === null ? this.#state : this.parent.state;
  }

  /** The handle's dispatch key, read once. */
  get key(): HandleKey {
    return this.#key ??= dispatchKey(this.handle);
  }

  /** @internal Makes the instance's state tracker if `layer` uses it, before the layer makes its object. */
  track(layer: TsLayer): void {
    if (layer.usesState && this.parent === null) this.#state ??= new StateTracker();
  }

  /** @internal Adds a layer's object (made here when `made`). */
  push(layer: TsLayer, object: ValidationObject, made: boolean): void {
    this.layers.push(layer);
    this.objects.push(object);
    if (made) this.#made.push(object);
    this.#hooks.clear();
    this.generation++;
  }

  /** Names of every command an object here (or the state tracker) intercepts. */
  intercepted(): Set<string> {
    const names = new Set<string>();
    for (const o of this.objects) for (const name of Object.keys(o.intercepts)) names.add(name);
    const state = this.state;
    if (state) { for (const name of Object.keys(state.intercepts)) names.add(name); }
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

  /** @internal The hooks for `name` split by phase, made once per generation. */
  hookSet(name: string): CommandHookSet {
    let set = this.#hooks.get(name);
    if (set) return set;
    const hooks = this.hooksFor(name);
    const owners = new Map<CommandHooks, string>();
    this.objects.forEach((o, i) => {
      const h = (o.intercepts as Record<string, CommandHooks | undefined>)[name];
      if (h) owners.set(h, this.layers[i]!.name);
    });
    set = {
      validators: hooks.filter((h) => h.preCallValidate !== undefined),
      pre: hooks.filter((h) => h.preCallRecord !== undefined),
      post: hooks.filter((h) => h.postCallRecord !== undefined),
      owners,
      none: hooks.length === 0,
      state: this.state,
    };
    this.#hooks.set(name, set);
    return set;
  }

  /** @internal Disposes the objects made for it, last first. */
  dispose(): void {
    for (const o of [...this.#made].reverse()) o.dispose?.();
    this.#made.length = 0;
  }
}

/** Live dispatch objects by handle value, the sole one kept at hand (one instance or device is the usual case). */
class LiveObjects {
  readonly #map = new Map<HandleKey, DispatchObject>();
  /** The only one, when there is exactly one. */
  sole: DispatchObject | undefined;

  /**
   * The one a call on `handle` runs on: with one live object no handle is read; with several, the handle's
   * value, then its dispatch key, finds it (out of line: the hot path stays small enough to inline).
   */
  find(handle: Deno.PointerValue): DispatchObject | undefined {
    return this.sole ?? this.#search(handle);
  }

  #search(handle: Deno.PointerValue): DispatchObject | undefined {
    if (this.#map.size === 0 || handle === null) return undefined;
    const direct = this.#map.get(handleKey(handle));
    if (direct !== undefined) return direct;
    const key = dispatchKey(handle);
    for (const d of this.#map.values()) if (d.key === key) return d;
    return undefined;
  }

  add(d: DispatchObject): void {
    this.#map.set(handleKey(d.handle), d);
    this.#changed();
  }

  delete(d: DispatchObject): void {
    this.#map.delete(handleKey(d.handle));
    this.#changed();
  }

  values(): IterableIterator<DispatchObject> {
    return this.#map.values();
  }

  clear(): void {
    this.#map.clear();
    this.#changed();
  }

  #changed(): void {
    this.sole = this.#map.size === 1 ? this.#map.values().next().value : undefined;
  }
}

/** Whether a creating command's result means the object exists. */
function succeeded(result: unknown): boolean {
  return typeof result === "number" && result >= 0;
}

/**
 * Validation objects of several TS layers around one next link: a dispatch object per instance and per
 * device made through it, and one more for calls on handles it did not see made (and global commands).
 */
export class Chassis implements Disposable {
  /** The layers, in call order (first is closest to the application). */
  readonly layers: TsLayer[] = [];
  readonly #dispatch: Dispatch;
  readonly #options: ChassisOptions;
  /** Live instances' dispatch objects. */
  readonly #instances = new LiveObjects();
  /** Live devices' dispatch objects. */
  readonly #devices = new LiveObjects();
  #adopted: DispatchObject | null = null;
  #disposed = false;
  /** `"<layer> <command>"` of every hook that threw, reported once. */
  readonly #threw = new Set<string>();
  /** `"<layer> <name>"` of every intercept that names no command, reported once. */
  readonly #unknown = new Set<string>();
  #changed: (() => void) | undefined;
  /** The call count and a call whose next link threw while its memory was allocated, for the runners. */
  readonly #shared: RunnerShared = { serial: 0, leftover: null };

  #freeLeftover(): void {
    this.#shared.leftover?.end();
    this.#shared.leftover = null;
  }

  /**
   * A chassis over `next` (the next link: a command object, which layers call through) running `layers`
   * in order. No validation object is made until an instance is created through it (or a call comes on a
   * handle it did not see made).
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
    return this.#shared.serial;
  }

  /** Dispatch objects of the live instances made through the chassis, oldest first. */
  get instances(): DispatchObject[] {
    return [...this.#instances.values()];
  }

  /** Dispatch objects of the live devices made through the chassis, oldest first. */
  get devices(): DispatchObject[] {
    return [...this.#devices.values()];
  }

  /**
   * The dispatch object for calls on handles the chassis did not see made (made before the layers were
   * installed, or fakes) and global commands: made at the first such call, null before.
   */
  get adopted(): DispatchObject | null {
    return this.#adopted;
  }

  /** Tells `listener` whenever a dispatch object is made or gains a layer (hosts re-wrap then). */
  onChange(listener: () => void): void {
    this.#changed = listener;
  }

  /**
   * Adds a layer below the ones already added: instances and devices made from now on get its objects,
   * and so do those alive now (their objects are made here).
   *
   * @throws {TypeError} If a layer of that name was already added, or the chassis is disposed.
   */
  add(layer: TsLayer): void {
    if (this.#disposed) throw new TypeError(`Cannot add layer "${layer.name}": the chassis is disposed`);
    if (this.layers.some((l) => l.name === layer.name)) {
      throw new TypeError(`Cannot add layer "${layer.name}" twice to one chassis`);
    }
    this.layers.push(layer);
    const instances = [...this.#instances.values(), ...(this.#adopted ? [this.#adopted] : [])];
    if (instances.length === 0) return;
    for (const d of instances) this.#addInstanceObject(d, layer);
    for (const d of this.#devices.values()) this.#addDeviceObject(d, layer);
    this.#changed?.();
  }

  /** Names of every command some live dispatch object intercepts, and the lifecycle commands. */
  intercepted(): Set<string> {
    const names = new Set<string>(LIFECYCLE_COMMANDS);
    const all = [...this.#instances.values(), ...this.#devices.values()];
    if (this.#adopted) all.push(this.#adopted);
    for (const d of all) for (const name of d.intercepted()) names.add(name);
    return names;
  }

  /**
   * The layer's settings for a new instance object (docs/behaviour.md LS01): resolved once here, so a hook
   * reading one reads a property of a frozen object. Warnings go out once per process.
   */
  #settingsFor(layer: TsLayer, sources: () => LayerSettingsSources): Readonly<Record<string, unknown>> {
    const declared = (layer.settings ?? {}) as LayerSettingDeclarations;
    const host = this.#options.settings?.[layer.name];
    if (Object.keys(declared).length === 0 && host === undefined) return NO_SETTINGS;
    const report = this.#options.onMessage ?? defaultReport;
    return sources().resolve(layer.name, declared, host, (id, text) => {
      const seen = WARNED.get(report) ?? new Set<string>();
      WARNED.set(report, seen);
      if (seen.has(`${layer.name} ${text}`)) return;
      seen.add(`${layer.name} ${text}`);
      report({ layer: layer.name, severity: "warning", id, text });
    });
  }

  /** The sources of one `vkCreateInstance` (its create info, or null), made on first need. */
  #sources(createInfo: Deno.PointerValue): () => LayerSettingsSources {
    let sources: LayerSettingsSources | undefined;
    return () => sources ??= new LayerSettingsSources(this.#options.env ?? processEnvironment(), createInfo);
  }

  /** The layers' environment for one object of `d`. */
  #env(layer: TsLayer, d: DispatchObject): LayerEnv {
    const report = this.#options.onMessage ?? defaultReport;
    return {
      dispatch: this.#dispatch,
      get state() {
        return layer.usesState ? d.state : null;
      },
      get handle() {
        return d.handle;
      },
      report: (id: string, text: string, options: ReportOptions = {}) =>
        report({
          layer: layer.name,
          severity: options.severity ?? "error",
          id,
          text,
          command: options.command,
        }),
      write: this.#options.output ?? ((line: string) => console.log(line)),
      settings: (d.parent ?? d).settings.get(layer.name) ?? NO_SETTINGS,
    };
  }

  #addInstanceObject(d: DispatchObject, layer: TsLayer, sources = this.#sources(null)): void {
    d.track(layer);
    d.settings.set(layer.name, this.#settingsFor(layer, sources));
    d.push(layer, this.#checked(layer, layer.create(this.#env(layer, d))), true);
  }

  /**
   * Warns, once per layer and name, of an intercept that names no Vulkan command (a misspelling that got
   * past `deno check`, or a plain JavaScript layer): its hooks would never run.
   */
  #checked(layer: TsLayer, object: ValidationObject): ValidationObject {
    const warn = (id: string, name: string, text: string) => this.#warnOnce(layer, id, name, text);
    for (const name of Object.keys(object.intercepts)) {
      if (name in COMMAND_INDEX) continue;
      warn(
        "Layer-UnknownIntercept",
        name,
        layer.commands?.some((c) => c.name === name)
          ? `intercepts "${name}", a command it declares: implement it in the object's commands with provide()`
          : `intercepts "${name}", which is no Vulkan command this loader knows: its hooks never run`,
      );
    }
    for (const { command } of object.commands ?? []) {
      if (layer.commands?.includes(command)) continue;
      warn(
        "Layer-UndeclaredCommand",
        command.name,
        `implements "${command.name}", which the layer's commands do not list: no one can get it`,
      );
    }
    return object;
  }

  /**
   * The layers' commands vk.xml does not have ({@linkcode TsLayer.commands}), by name: the first layer
   * declaring a name provides it.
   */
  commands(): Map<string, LayerCommand> {
    const out = new Map<string, LayerCommand>();
    for (const layer of this.layers) {
      for (const c of layer.commands ?? []) if (!out.has(c.name)) out.set(c.name, c);
    }
    return out;
  }

  /** Whether a layer lists vk.xml's command `name` among its extensions' entrypoints (it answers for it). */
  provides(name: string): boolean {
    return this.layers.some((l) =>
      [...(l.instanceExtensions ?? []), ...(l.deviceExtensions ?? [])].some((e) =>
        e.entrypoints?.includes(name)
      )
    );
  }

  /**
   * The function that runs `command` (a layer's, see {@linkcode Chassis.commands}) on the call's dispatch
   * object: the first of its objects that implements it, else of its instance's. A throw, or no object
   * implementing it, is reported once per layer and command and answers {@linkcode commandFailure}.
   */
  provider(command: LayerCommand): VulkanCommand {
    const failure = commandFailure(command.result);
    const report = (layer: string, id: string, text: string) => {
      if (this.#threw.has(`${layer} ${command.name}`)) return;
      this.#threw.add(`${layer} ${command.name}`);
      (this.#options.onMessage ?? defaultReport)({
        layer,
        severity: "error",
        id,
        text,
        command: command.name,
      });
    };
    return (...args: unknown[]) => {
      if (this.#disposed) return failure;
      const d = this.objectsFor(command.level, args[0]);
      // The device's objects, then its instance's (a layer may implement a device command in `create`).
      for (let o: DispatchObject | null = d; o !== null; o = o.parent) {
        for (let i = 0; i < o.objects.length; i++) {
          const found = o.objects[i]!.commands?.find((c) => c.command === command);
          if (found === undefined) continue;
          try {
            return callWith(found.fn as VulkanCommand, args);
          } catch (error) {
            const why = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
            report(o.layers[i]!.name, "Layer-HookThrew", `"${command.name}" threw ${why} (reported once)`);
            return failure;
          }
        }
      }
      const owner = this.layers.find((l) => l.commands?.includes(command))?.name ?? "vkdeno";
      report(
        owner,
        "Layer-CommandMissing",
        `declares "${command.name}" but its object for this ${d.kind} does not implement it (provide())`,
      );
      return failure;
    };
  }

  /** Reports `text` once per layer and `name` (a command or intercept name) in the process. */
  #warnOnce(layer: TsLayer, id: string, name: string, text: string): void {
    if (this.#unknown.has(`${layer.name} ${name}`)) return;
    this.#unknown.add(`${layer.name} ${name}`);
    (this.#options.onMessage ?? defaultReport)({ layer: layer.name, severity: "warning", id, text });
  }

  #addDeviceObject(d: DispatchObject, layer: TsLayer): void {
    const instanceObject = d.parent!.objects[d.parent!.layers.indexOf(layer)]!;
    if (!layer.createDevice) return d.push(layer, instanceObject, false);
    const base = this.#env(layer, d);
    const env: DeviceLayerEnv = Object.create(base, {
      physicalDevice: { value: d.physicalDevice, enumerable: true },
    });
    const deviceObject = this.#checked(layer, layer.createDevice(env, instanceObject));
    // A device's calls reach the device object only: a device command hooked in the instance object of a
    // layer with createDevice would never run, which a layer author does not expect (docs/layers.md, "Objects").
    for (const name of Object.keys(instanceObject.intercepts)) {
      if (
        !(name in COMMAND_INDEX) || commandInfo(name).level !== "device" || name in deviceObject.intercepts
      ) {
        continue;
      }
      this.#warnOnce(
        layer,
        "Layer-HookNeverRuns",
        name,
        `intercepts device command "${name}" in its instance object (create), but has createDevice: a device's ` +
          `calls reach only the object createDevice returns, so this hook never runs; move it there`,
      );
    }
    d.push(layer, deviceObject, true);
  }

  /** A new instance's dispatch object with an object of every layer; `createInfo` gives their settings. */
  #makeInstance(createInfo: Deno.PointerValue): DispatchObject {
    const d = new DispatchObject("instance", null);
    const sources = this.#sources(createInfo);
    for (const layer of this.layers) this.#addInstanceObject(d, layer, sources);
    return d;
  }

  /** The dispatch object for calls on a handle the chassis did not see made. */
  #adopt(): DispatchObject {
    if (this.#adopted) return this.#adopted;
    this.#adopted = this.#makeInstance(null);
    this.#changed?.();
    return this.#adopted;
  }

  /** @internal The dispatch object for a call at `level` whose first argument is `handle`. */
  objectsFor(level: string, handle: unknown): DispatchObject {
    const h = handle as Deno.PointerValue;
    if (level === "device") {
      const d = this.#devices.find(h);
      if (d !== undefined) return d;
    }
    if (level !== "global") {
      const d = this.#instances.find(h);
      if (d !== undefined) return d;
    }
    return this.#adopt();
  }

  /**
   * The function that runs the hooks of the call's dispatch object for `name` around the next link's
   * function, which `next` gives on first call (so binding it costs nothing until then). The lifecycle
   * commands also make and end dispatch objects.
   *
   * @throws {TypeError} If `name` is not a Vulkan command.
   */
  wrap(name: string, next: () => VulkanCommand): VulkanCommand {
    const level = commandInfo(name).level;
    // A new instance's objects know their handle in their post hooks already.
    const created = name === "vkCreateInstance"
      ? (d: DispatchObject, args: unknown[], result: unknown) => {
        if (succeeded(result) && args[2] !== null) d.handle = readPointer(args[2] as Deno.PointerValue, 0);
      }
      : undefined;
    const { run, entry } = this.#runner(name, level, next, created);
    switch (name) {
      case "vkCreateInstance":
        return (...args: unknown[]) => {
          const d = this.#makeInstance(args[0] as Deno.PointerValue);
          const result = run(d, ...args);
          if (succeeded(result)) {
            this.#instances.add(d);
            this.#changed?.();
          } else d.dispose();
          return result;
        };
      case "vkCreateDevice":
        return (...args: unknown[]) => {
          const parent = this.objectsFor(level, args[0]);
          const result = run(parent, ...args);
          if (succeeded(result)) {
            const d = new DispatchObject("device", parent);
            d.handle = args[3] === null ? null : readPointer(args[3] as Deno.PointerValue, 0);
            d.physicalDevice = args[0] as Deno.PointerValue;
            for (const layer of parent.layers) this.#addDeviceObject(d, layer);
            this.#devices.add(d);
            this.#changed?.();
          }
          return result;
        };
      case "vkDestroyDevice":
        return (...args: unknown[]) => {
          const d = this.objectsFor(level, args[0]);
          const result = run(d, ...args);
          if (d.kind === "device") this.#end(d);
          return result;
        };
      case "vkDestroyInstance":
        return (...args: unknown[]) => {
          const d = this.objectsFor(level, args[0]);
          const result = run(d, ...args);
          if (d !== this.#adopted) {
            for (const device of this.#devices.values()) if (device.parent === d) this.#end(device);
            this.#end(d);
          }
          return result;
        };
    }
    return entry;
  }

  /** Forgets `d` and disposes its objects. */
  #end(d: DispatchObject): void {
    (d.kind === "device" ? this.#devices : this.#instances).delete(d);
    d.dispose();
  }

  /**
   * The runner of `name` (`_runner.ts`): one call on a dispatch object, its hooks, and the next link unless
   * skipped (then `returned`, before the post hooks).
   */
  #runner(
    name: string,
    level: string,
    next: () => VulkanCommand,
    returned?: (d: DispatchObject, args: unknown[], result: unknown) => void,
  ): Runner<DispatchObject> {
    const info = commandInfo(name);
    const dispatch = this.#dispatch;
    const shared = this.#shared;
    return compileRunner<DispatchObject, CommandHookSet>({
      name,
      arity: info.params.length,
      objectsFor: (handle) => this.objectsFor(level, handle),
      next,
      record: (set) =>
        new Call(name, info, ++shared.serial, dispatch, set.state, new Array(info.params.length)),
      skipped: skipValue(info),
      threw: (set, hook, phase, error) => {
        const layer = set.owners.get(hook) ?? "the state tracker";
        // One message per layer and command: a hook that throws on every call would bury the output.
        if (this.#threw.has(`${layer} ${name}`)) return;
        this.#threw.add(`${layer} ${name}`);
        const why = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        (this.#options.onMessage ?? defaultReport)({
          layer,
          severity: "error",
          id: "Layer-HookThrew",
          text: `${phase} of "${name}" threw ${why}; the call went on without it (reported once)`,
          command: name,
        });
      },
      freeLeftover: () => this.#freeLeftover(),
      shared,
      ...(returned ? { returned } : {}),
    });
  }

  /** Disposes every dispatch object's validation objects (summaries print here): devices first, last first. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#freeLeftover();
    for (const d of [...this.#devices.values()].reverse()) d.dispose();
    for (const d of [...this.#instances.values()].reverse()) d.dispose();
    this.#adopted?.dispose();
    this.#devices.clear();
    this.#instances.clear();
  }

  /** Same as {@linkcode Chassis.dispose}. */
  [Symbol.dispose](): void {
    this.dispose();
  }
}

const NO_SETTINGS: Readonly<Record<string, unknown>> = Object.freeze({});

/** Setting warnings given so far (layer and text) by destination: one message per fault per process. */
const WARNED = new WeakMap<(m: ValidationMessage) => void, Set<string>>();

/** This process's variables and working folder, for settings when the host gave no environment. */
function processEnvironment(): EnvironmentSnapshot {
  let vars: Record<string, string> = {};
  try {
    vars = Deno.env.toObject();
  } catch {
    // Without --allow-env no variable is read: the file and the API still are.
  }
  let cwd: string | undefined;
  try {
    cwd = Deno.cwd();
  } catch {
    // Without --allow-read the working folder is unknown: a relative file name is tried as it is.
  }
  return { vars, elevated: false, ...(cwd === undefined ? {} : { cwd }) };
}

function defaultReport(m: ValidationMessage): void {
  console.error(`${m.layer} ${m.severity} [${m.id}]${m.command ? ` in ${m.command}` : ""}: ${m.text}`);
}
