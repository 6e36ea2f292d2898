/**
 * Handle checks of one loader: each handle parameter against the loader's handle maps (null where vk.xml does
 * not allow it, destroyed, another loader's, not a handle), a `TypeError` naming command, parameter and fault
 * (docs/behaviour.md V07); checked mode (V08) tracks every handle from the generated parameters alone, and
 * holds the allocation callbacks each was made with until it is destroyed (V10).
 *
 * @module
 */

import { COMMAND_INDEX, COMMANDS } from "../vk/generated/commands.ts";
import { HANDLES } from "../vk/generated/handles.ts";
import { STRUCTS } from "../vk/generated/structs.ts";
import type { ParamInfo } from "../vk/generated/types.ts";
import type { Check, HandleChecks } from "../vk/handle_check_interface.ts";
import { holdCallback } from "../ffi/callback.ts";
import { readU32, readU64 } from "../ffi/memory.ts";
import { type HandleKey, handleKey, handleText } from "../vk/handle_key.ts";
import { canonicalHandle } from "../vk/handle_type.ts";
import type { HandleMaps, LoaderDevice, LoaderInstance } from "./objects.ts";
import { type HandleVisitor, type StructScan, structScan } from "./struct_handles.ts";

type Fn = (...args: unknown[]) => unknown;
type Owner = LoaderInstance | LoaderDevice;

/** A handle checked mode saw made and not yet destroyed. */
interface Tracked {
  readonly type: string;
  /** The device (or instance) it belongs to. */
  readonly owner: Owner;
  /** The object whose destruction destroys it (its pool, or its owner). */
  readonly parent: HandleKey;
  /** The command that made it. */
  command: string;
  /** The allocation callbacks it was made with, which it holds (V10). */
  hold: AllocatorHold | undefined;
}

interface HandleParam {
  readonly index: number;
  readonly name: string;
  readonly type: string;
  readonly optional: boolean;
  /** An instance, physical device or device: a handle the loader always knows. */
  readonly root: boolean;
}

/** An input array of handles (`const VkFence* pFences`), checked element by element in checked mode. */
interface HandleArrayParam extends HandleParam {
  /** How many handles the call passes. */
  readonly count: (args: readonly unknown[]) => number;
}

interface OutputParam {
  /** The command writing it. */
  readonly command: string;
  readonly index: number;
  readonly type: string;
  /** How many handles the call wrote (read after it). */
  readonly count: (args: readonly unknown[]) => number;
  /** Where the parent of a pool-allocated handle is (a parameter or a member of a struct parameter). */
  readonly parent: ((args: readonly unknown[]) => HandleKey) | undefined;
}

/** What checking and tracking one command takes, from its generated parameters. */
interface Plan {
  /** Number of parameters. */
  readonly arity: number;
  /** Index of the `pAllocator` parameter (`const VkAllocationCallbacks*`), or -1. */
  readonly allocator: number;
  readonly handles: readonly HandleParam[];
  /** Input handle arrays: checked mode checks each element as it checks a handle parameter. */
  readonly arrays: readonly HandleArrayParam[];
  readonly outputs: readonly OutputParam[];
  /** The handles a destroy or free command ends (the last handle parameter, scalar or array). */
  readonly destroys: ((args: readonly unknown[]) => HandleKey[]) | undefined;
  /** Whether a const pointer parameter may be a struct: checked mode scans those for handles. */
  readonly structs: boolean;
  /** The scan of the handles inside the struct parameters, made at the first checked call; null for none. */
  scan: StructScan | null | undefined;
  readonly params: readonly ParamInfo[];
}

/** Argument `i` of the first eight (a switch, so a check reads arguments without an array per call). */
function nth(
  i: number,
  a: unknown,
  b: unknown,
  c: unknown,
  d: unknown,
  e: unknown,
  f: unknown,
  g: unknown,
  h: unknown,
) {
  switch (i) {
    case 0:
      return a;
    case 1:
      return b;
    case 2:
      return c;
    case 3:
      return d;
    case 4:
      return e;
    case 5:
      return f;
    case 6:
      return g;
  }
  return h;
}

const ROOTS = new Set(["VkInstance", "VkPhysicalDevice", "VkDevice"]);

/** Every live loader's handle maps, to tell another loader's handle from no handle at all. */
const allHandleMaps = new Set<WeakRef<HandleMaps>>();
/** Each loader's checker by its handle maps: checked mode's tracked handles, for the same question. */
const checkers = new WeakMap<HandleMaps, HandleChecker>();

/** How a handle destroy or free command `command` ends reads in an error: `was freed (vkFreeMemory)`. */
function endedBy(command: string): string {
  return `was ${command.startsWith("vkFree") ? "freed" : "destroyed"} (${command})`;
}

/**
 * Handle types whose every source is a command's output parameter (so checked mode sees each one made);
 * handles also read out of returned structs (displays, ...) are checked only for null and destruction.
 */
let strictTypes: Set<string> | undefined;
function isStrict(type: string): boolean {
  if (!strictTypes) {
    const outputStructs = new Set<string>();
    for (const info of COMMANDS) {
      for (const p of info.params) {
        if (p.pointer > 0 && !p.const && STRUCTS[p.type]) outputStructs.add(p.type);
      }
    }
    const loose = new Set<string>();
    for (const s of outputStructs) {
      for (const m of STRUCTS[s]!.members) if (HANDLES[m.type]) loose.add(canonicalHandle(m.type));
    }
    strictTypes = new Set(
      Object.keys(HANDLES).map(canonicalHandle).filter((t) => !loose.has(t) && !ROOTS.has(t)),
    );
  }
  return strictTypes.has(type);
}

/**
 * The handle checks of one loader over its handle maps; `checked` turns on tracking of every handle.
 *
 * @example Usage
 * ```ts
 * import { HandleChecker } from "./handle_check.ts";
 * import { HandleMaps } from "./objects.ts";
 * const checks = new HandleChecker(new HandleMaps(), false);
 * try {
 *   checks.checkArgs("vkDeviceWaitIdle", [null]);
 * } catch (e) {
 *   console.log((e as Error).message); // "vkDeviceWaitIdle: device is null"
 * }
 * ```
 */
export class HandleChecker implements HandleChecks {
  /** Whether every handle is tracked (checked mode). */
  readonly checked: boolean;
  readonly #handleMaps: HandleMaps;
  readonly #ref: WeakRef<HandleMaps>;
  readonly #plans = new Map<string, Plan>();
  readonly #objects = new Map<HandleKey, Tracked>();
  /**
   * Destroyed tracked handles by address, with how they ended, as the error says it (`was destroyed
   * (vkDestroyBuffer)`; a child's names its parent, one string shared by its siblings), forgotten when the
   * address is made again.
   */
  readonly #gone = new Map<HandleKey, string>();
  readonly #children = new Map<HandleKey, Set<HandleKey>>();
  /** The sets of allocation callbacks seen, by their function pointers (swept when a new one comes). */
  readonly #holds = new Map<string, AllocatorHold>();
  /** The set of allocation callbacks seen last: the one an application passes again, compared first. */
  #lastHold: AllocatorHold | undefined;
  /** Per `pAllocator` pointer object: a view of the struct. */
  readonly #allocatorViews = new WeakMap<object, BigUint64Array>();
  /** Bumped when a tracked handle is destroyed (with the handle maps' epoch: when any object is). */
  #epoch = 0;
  /**
   * Handle objects that passed, with the epoch and type they passed at: a loop passing the same handle
   * object skips the lookups (a Map keyed by bigint costs ~100s of ns) until anything is destroyed.
   */
  readonly #passed = new WeakMap<object, { epoch: number; type: string; owner: Owner | undefined }>();
  /** Per output pointer object: a view of it, and the handle last recorded from it. */
  readonly #outs = new WeakMap<object, { view: BigUint64Array; last: bigint; epoch: number }>();

  constructor(handleMaps: HandleMaps, checked: boolean) {
    this.#handleMaps = handleMaps;
    this.checked = checked;
    this.#ref = new WeakRef(handleMaps);
    allHandleMaps.add(this.#ref);
    checkers.set(handleMaps, this);
  }

  /** Stops telling other loaders this loader's handles are its (at dispose). */
  close(): void {
    allHandleMaps.delete(this.#ref);
  }

  /** Throws when a handle among `args` is wrong for `command` (see the module). */
  checkArgs(command: string, args: readonly unknown[]): void {
    const plan = this.#plan(command);
    if (plan) this.#check(command, plan, args);
  }

  /**
   * `fn` (command `name`) behind the checks: always for the dispatchable handles, and in checked mode for
   * every handle, recording what the call made and destroyed. `fn` itself when nothing needs checking.
   */
  wrap(name: string, fn: Fn): Fn {
    const plan = this.#plan(name);
    if (
      !plan ||
      (plan.handles.length === 0 &&
        (!this.checked || (plan.outputs.length === 0 && plan.arrays.length === 0 && !plan.structs)))
    ) return fn;
    if (!this.checked) {
      return (...args: unknown[]) => {
        this.#check(name, plan, args);
        return fn(...args);
      };
    }
    const endsRoot = name === "vkDestroyDevice" || name === "vkDestroyInstance";
    // How what it destroys ended, made once here: the error a later use of such a handle throws says it.
    const why = plan.destroys || endsRoot ? endedBy(name) : "";
    const before = (args: readonly unknown[]) => {
      const context = this.#check(name, plan, args);
      return {
        context,
        ended: plan.destroys?.(args),
        root: endsRoot && args[0] ? this.#root(args[0]) : undefined,
      };
    };
    const after = (args: readonly unknown[], result: unknown, seen: ReturnType<typeof before>) => {
      if (typeof result === "number" && result < 0) return;
      if (seen.ended) { for (const k of seen.ended) this.#end(k, why, name); }
      if (seen.root) {
        const k = handleKey(seen.root.address);
        const root = "physicalDevice" in seen.root ? "VkDevice" : "VkInstance";
        if (this.#children.has(k)) {
          this.#endChildren(k, `was destroyed with its ${root} ${handleText(k)} (${name})`);
        }
      }
      if (plan.outputs.length > 0 && seen.context) this.#record(plan, args, seen.context);
    };
    // Commands that neither make nor destroy handles only check: the common case, kept short.
    const checkOnly = plan.outputs.length === 0 && !plan.destroys && !endsRoot;
    const full = (args: unknown[], call: () => unknown) => {
      const seen = before(args);
      const result = call();
      after(args, result, seen);
      return result;
    };
    // Fixed arities call the stub with plain arguments, not a spread.
    switch (plan.arity) {
      case 1:
        return checkOnly ? (a) => (this.#check(name, plan, [a]), fn(a)) : (a) => full([a], () => fn(a));
      case 2:
        return checkOnly
          ? (a, b) => (this.#check(name, plan, [a, b]), fn(a, b))
          : (a, b) => full([a, b], () => fn(a, b));
      case 3:
        return checkOnly
          ? (a, b, c) => (this.#check(name, plan, [a, b, c]), fn(a, b, c))
          : (a, b, c) => full([a, b, c], () => fn(a, b, c));
      case 4:
        return checkOnly
          ? (a, b, c, d) => (this.#check(name, plan, [a, b, c, d]), fn(a, b, c, d))
          : (a, b, c, d) => full([a, b, c, d], () => fn(a, b, c, d));
    }
    return (...args: unknown[]) => full(args, () => fn(...args));
  }

  /**
   * `fn` (raw command `name`) behind the checks a JavaScript layer over raw commands needs: in checked mode
   * {@linkcode HandleChecker.wrap}'s; otherwise each handle parameter checked for null (where vk.xml does not
   * allow it) and for being an object, and the dispatchable handles the loader always knows (instances,
   * physical devices, devices) against its handle maps, once per handle object until anything is destroyed:
   * a call that passes costs a few comparisons and one `WeakMap` lookup per such handle, and allocates nothing.
   */
  guard(name: string, fn: Fn): Fn {
    const plan = this.#plan(name);
    if (!plan) return fn;
    if (this.checked) return this.wrap(name, fn);
    const handles = plan.handles;
    if (handles.length === 0) return fn;
    // A call that fails the quick test takes the full check, which throws naming the fault (or passes and
    // records the handle for the next call).
    const passes = this.#quick(handles);
    // Beyond 8 parameters the handles are all among the first 8 for every command vk.xml has but a few;
    // those take the full check every call.
    const late = handles.some((p) => p.index >= 8);
    const full = (args: unknown[]) => this.#check(name, plan, args);
    switch (late ? -1 : plan.arity) {
      case 1:
        return (a) => (passes(a, 0, 0, 0, 0, 0, 0, 0) || full([a]), fn(a));
      case 2:
        return (a, b) => (passes(a, b, 0, 0, 0, 0, 0, 0) || full([a, b]), fn(a, b));
      case 3:
        return (a, b, c) => (passes(a, b, c, 0, 0, 0, 0, 0) || full([a, b, c]), fn(a, b, c));
      case 4:
        return (a, b, c, d) => (passes(a, b, c, d, 0, 0, 0, 0) || full([a, b, c, d]), fn(a, b, c, d));
      case 5:
        return (
          a,
          b,
          c,
          d,
          e,
        ) => (passes(a, b, c, d, e, 0, 0, 0) || full([a, b, c, d, e]), fn(a, b, c, d, e));
      case 6:
        return (a, b, c, d, e, f) => (
          passes(a, b, c, d, e, f, 0, 0) || full([a, b, c, d, e, f]), fn(a, b, c, d, e, f)
        );
      case 7:
        return (a, b, c, d, e, f, g) => (
          passes(a, b, c, d, e, f, g, 0) || full([a, b, c, d, e, f, g]), fn(a, b, c, d, e, f, g)
        );
      case 8:
        return (a, b, c, d, e, f, g, h) => (
          passes(a, b, c, d, e, f, g, h) || full([a, b, c, d, e, f, g, h]), fn(a, b, c, d, e, f, g, h)
        );
      case 9:
        return (a, b, c, d, e, f, g, h, i) => (
          passes(a, b, c, d, e, f, g, h) || full([a, b, c, d, e, f, g, h, i]), fn(a, b, c, d, e, f, g, h, i)
        );
      case 10:
        return (a, b, c, d, e, f, g, h, i, j) => (
          passes(a, b, c, d, e, f, g, h) || full([a, b, c, d, e, f, g, h, i, j]),
            fn(a, b, c, d, e, f, g, h, i, j)
        );
      case 11:
        return (a, b, c, d, e, f, g, h, i, j, k) => (
          passes(a, b, c, d, e, f, g, h) || full([a, b, c, d, e, f, g, h, i, j, k]),
            fn(a, b, c, d, e, f, g, h, i, j, k)
        );
    }
    return (...args) => (full(args), fn(...args));
  }

  /** Forgets `handle` as checked mode's destroy commands would (a scope destroying it). */
  destroyed(command: string, handle: unknown): void {
    if (this.checked && handle) this.#end(handleKey(handle as Deno.PointerObject), endedBy(command), command);
  }

  /**
   * {@linkcode HandleChecker.guard}'s check of raw command `name` apart from the call, for a caller that calls
   * the command from a site of its own (the idiomatic commands): a function of its first 8 parameters. Null
   * when nothing needs checking; undefined where only `guard` will do (checked mode records what calls make,
   * and a few commands have handles past the 8th parameter).
   */
  precheck(name: string): Check | null | undefined {
    const plan = this.#plan(name);
    if (!plan || plan.handles.length === 0) return null;
    if (this.checked || plan.handles.some((p) => p.index >= 8)) return undefined;
    const passes = this.#quick(plan.handles);
    const only = plan.handles.length === 1 && plan.handles[0]!.root && plan.handles[0]!.index === 0;
    if (!only) {
      return (a, b, c, d, e, f, g, h) => {
        if (!passes(a, b, c, d, e, f, g, h)) {
          this.#check(name, plan, [a, b, c, d, e, f, g, h].slice(0, plan.arity));
        }
      };
    }
    // The command's one handle is its first parameter and a root (vkResetFences' device): the object that
    // passed last, while nothing was destroyed since, is the whole test, here rather than in the quick test.
    let seen: unknown = undefined, seenAt = -1;
    return (a, b, c, d, e, f, g, h) => {
      if (a === seen && this.#now() === seenAt) return;
      if (!passes(a, b, c, d, e, f, g, h)) {
        this.#check(name, plan, [a, b, c, d, e, f, g, h].slice(0, plan.arity));
      }
      seen = a;
      seenAt = this.#now();
    };
  }

  /**
   * The quick test of `handles` among a call's first 8 arguments: each present where required and an object,
   * and each instance, physical device or device one that passed the full check since nothing was destroyed.
   */
  #quick(handles: readonly HandleParam[]): Check<boolean> {
    // The root handle that passed last, with its type and epoch: a loop on one device skips the lookup.
    let seen: unknown = undefined, seenType = "", seenAt = -1;
    return (a, b, c, d, e, f, g, h) => {
      const now = this.#now();
      for (let i = 0; i < handles.length; i++) {
        const p = handles[i]!;
        const v = nth(p.index, a, b, c, d, e, f, g, h);
        if (v === null || v === undefined) {
          if (p.optional) continue;
          return false;
        }
        if (typeof v !== "object") return false;
        if (!p.root || (v === seen && now === seenAt && p.type === seenType)) continue;
        const hit = this.#passed.get(v);
        if (hit === undefined || hit.epoch !== now || hit.type !== p.type) return false;
        seen = v;
        seenType = p.type;
        seenAt = now;
      }
      return true;
    };
  }

  #root(handle: unknown): Owner | undefined {
    const k = handleKey(handle as Deno.PointerObject);
    return this.#handleMaps.devices.get(k) ?? this.#handleMaps.instances.get(k);
  }

  #plan(name: string): Plan | undefined {
    let plan = this.#plans.get(name);
    if (plan) return plan;
    const index = COMMAND_INDEX[name];
    if (index === undefined) return undefined;
    const info = COMMANDS[index]!;
    plan = makePlan(info.name, info.params);
    this.#plans.set(name, plan);
    return plan;
  }

  /** Checks every handle parameter; the owner the command runs on (its first handle's). */
  #check(command: string, plan: Plan, args: readonly unknown[]): Owner | undefined {
    let context: Owner | undefined;
    for (const p of plan.handles) {
      const value = args[p.index];
      if (value === null || value === undefined) {
        if (p.optional) continue;
        throw new TypeError(`${command}: ${p.name} is null`);
      }
      if (typeof value !== "object") {
        throw new TypeError(`${command}: ${p.name} is not a handle (a ${typeof value})`);
      }
      const owner = this.#checkOne(command, p, value, context);
      context ??= owner;
    }
    if (this.checked) {
      for (const p of plan.arrays) {
        context = this.#checkElements(command, p, args, context);
      }
      if (plan.structs) context = this.#checkStructs(command, plan, args, context);
    }
    return context;
  }

  /**
   * Checks each handle inside the struct parameters as a handle parameter. The scan runs without paths (no
   * string made per handle); a handle that fails is named by a second scan with them.
   */
  #checkStructs(command: string, plan: Plan, args: readonly unknown[], context: Owner | undefined) {
    if (plan.scan === undefined) {
      const indexOf = (name: string) => plan.params.findIndex((p) => p.name === name);
      plan.scan = structScan(command, plan.params, (p) => countOf(p, plan.params, indexOf)) ?? null;
    }
    if (plan.scan === null) return context;
    this.#visiting = command;
    this.#visitContext = context;
    try {
      plan.scan(args, this.#visit, false);
    } catch (e) {
      this.#visitContext = context;
      plan.scan(args, this.#visit, true);
      throw e;
    }
    return this.#visitContext;
  }

  /** The command a struct scan checks, and the owner its handles must share (see #checkStructs). */
  #visiting = "";
  #visitContext: Owner | undefined;
  readonly #visit: HandleVisitor = (type, k, path) => {
    const tracked = this.#objects.get(k);
    const context = this.#visitContext;
    // A live handle of its type on the command's device: the common case, without a lookup's allocations.
    if (
      tracked !== undefined && tracked.type === type && (context === undefined || tracked.owner === context)
    ) {
      this.#visitContext = tracked.owner;
      return;
    }
    const member = { index: -1, name: path ?? "", type, optional: true, root: ROOTS.has(type) };
    const [owner, isTracked] = this.#lookup(this.#visiting, member, k);
    if (isTracked) this.#sameOwner(this.#visiting, member, k, owner!, context);
    this.#visitContext ??= owner;
  };

  /**
   * Checks each handle of input array `p` as a handle parameter (destroyed, another kind, another device's);
   * a null element is left to the driver and the validation layers (vk.xml lets some arrays hold them).
   */
  #checkElements(command: string, p: HandleArrayParam, args: readonly unknown[], context: Owner | undefined) {
    const list = args[p.index] as Deno.PointerValue | undefined;
    const n = list === null || list === undefined ? 0 : p.count(args);
    for (let i = 0; i < n; i++) {
      const word = readU64(list!, i * 8);
      if (word === 0n) continue;
      const element = { ...p, name: `${p.name}[${i}]` };
      const k = handleKey(word);
      const [owner, tracked] = this.#lookup(command, element, k);
      if (tracked) this.#sameOwner(command, element, k, owner!, context);
      context ??= owner;
    }
    return context;
  }

  /** Throws when tracked handle `k` of `p`, owned by `owner`, belongs to another device or instance. */
  #sameOwner(command: string, p: HandleParam, k: HandleKey, owner: Owner, context: Owner | undefined): void {
    if (context === undefined || owner === context || !sameKind(owner, context)) return;
    const kind = "physicalDevice" in owner ? "VkDevice" : "VkInstance";
    throw new TypeError(
      `${command}: ${p.name} ${handleText(k)} belongs to another ${kind} (${
        handleText(handleKey(owner.address))
      })`,
    );
  }

  #now(): number {
    return this.#epoch + this.#handleMaps.epoch * 0x100000;
  }

  #checkOne(command: string, p: HandleParam, value: object, context: Owner | undefined): Owner | undefined {
    const now = this.#now();
    const hit = this.#passed.get(value);
    let owner: Owner | undefined;
    let tracked: boolean;
    if (hit !== undefined && hit.epoch === now && hit.type === p.type) {
      owner = hit.owner;
      tracked = owner !== undefined && !p.root;
    } else {
      const k = handleKey(value as Deno.PointerObject);
      [owner, tracked] = this.#lookup(command, p, k);
      this.#passed.set(value, { epoch: now, type: p.type, owner });
    }
    if (tracked) this.#sameOwner(command, p, handleKey(value as Deno.PointerObject), owner!, context);
    return owner;
  }

  /** The owner of handle `k` of parameter `p`, and whether checked mode tracks it; throws when it is wrong. */
  #lookup(command: string, p: HandleParam, k: HandleKey): [Owner | undefined, boolean] {
    const r = this.#handleMaps;
    switch (p.type) {
      case "VkInstance":
        return [r.instances.get(k) ?? this.#unknown(command, p, k), false];
      case "VkPhysicalDevice":
        return [r.trampPhysicalDevices.get(k)?.instance ?? this.#unknown(command, p, k), false];
      case "VkDevice":
        return [r.devices.get(k) ?? this.#unknown(command, p, k), false];
    }
    if (!this.checked) return [undefined, false];
    const tracked = this.#objects.get(k);
    if (!tracked) {
      const gone = this.#gone.get(k);
      if (gone !== undefined) throw new TypeError(`${command}: ${p.name} ${handleText(k)} ${gone}`);
      if (isStrict(p.type) || HANDLES[p.type]?.dispatchable) {
        if (this.#another(p.type, k)) {
          throw new TypeError(`${command}: ${p.name} ${handleText(k)} belongs to another Vulkan loader`);
        }
        throw new TypeError(`${command}: ${p.name} ${handleText(k)} is not a live ${p.type} of this loader`);
      }
      return [undefined, false];
    }
    if (tracked.type !== p.type) {
      throw new TypeError(`${command}: ${p.name} ${handleText(k)} is a ${tracked.type}, not a ${p.type}`);
    }
    return [tracked.owner, true];
  }

  #unknown(command: string, p: HandleParam, k: HandleKey): never {
    const r = this.#handleMaps;
    if (r.gone.has(k)) throw new TypeError(`${command}: ${p.name} ${handleText(k)} was destroyed`);
    if (this.#another(p.type, k)) {
      throw new TypeError(`${command}: ${p.name} ${handleText(k)} belongs to another Vulkan loader`);
    }
    throw new TypeError(`${command}: ${p.name} ${handleText(k)} is not a ${p.type} of this loader`);
  }

  /**
   * Whether another live loader holds handle `k` of `type`: an instance, physical device or device it always
   * knows, or any handle its checked mode tracks (for an error only: it visits every loader).
   */
  #another(type: string, k: HandleKey): boolean {
    for (const ref of allHandleMaps) {
      const other = ref.deref();
      if (other === undefined) {
        allHandleMaps.delete(ref);
        continue;
      }
      if (other === this.#handleMaps) continue;
      if (ROOTS.has(type)) {
        if (isKnown(other, type, k)) return true;
        continue;
      }
      const checker = checkers.get(other);
      if (checker !== undefined && checker.#objects.get(k)?.type === type) return true;
    }
    return false;
  }

  #record(plan: Plan, args: readonly unknown[], owner: Owner): void {
    for (const out of plan.outputs) {
      const at = args[out.index] as Deno.PointerValue;
      if (at === null || at === undefined) continue;
      const n = out.count(args);
      if (n <= 0) continue;
      let seen = this.#outs.get(at);
      if (seen === undefined || seen.view.length < n) {
        seen = {
          view: new BigUint64Array(Deno.UnsafePointerView.getArrayBuffer(at, 8 * n)),
          last: 0n,
          epoch: -1,
        };
        this.#outs.set(at, seen);
      }
      const now = this.#now();
      // The same queue asked for again into the same slot: nothing new to record.
      if (n === 1 && seen.view[0] === seen.last && seen.epoch === now) continue;
      const parent = out.parent?.(args) ?? handleKey(owner.address);
      // The instance's and the device's are held by the trampolines, in both modes.
      const hold = plan.allocator < 0 || ROOTS.has(out.type)
        ? undefined
        : this.#allocatorHold(args[plan.allocator] as Deno.PointerValue);
      for (let i = 0; i < n; i++) {
        const word = seen.view[i]!;
        if (word === 0n) continue;
        const k = handleKey(word);
        hold?.add();
        const known = this.#objects.get(k);
        if (known !== undefined) {
          // An address made again without a destroy this loader saw.
          known.hold?.drop();
          known.hold = hold;
          known.command = out.command;
          if (known.owner === owner && known.parent === parent) continue;
          this.#children.get(known.parent)?.delete(k);
        }
        this.#objects.set(k, { type: out.type, owner, parent, command: out.command, hold });
        this.#gone.delete(k);
        let set = this.#children.get(parent);
        if (!set) this.#children.set(parent, set = new Set());
        set.add(k);
      }
      seen.last = seen.view[0]!;
      seen.epoch = this.#now();
    }
  }

  /** The hold of the allocation callbacks `pAllocator` points to, or undefined for none. */
  #allocatorHold(pAllocator: Deno.PointerValue | undefined): AllocatorHold | undefined {
    if (pAllocator === null || pAllocator === undefined) return undefined;
    let view = this.#allocatorViews.get(pAllocator);
    if (view === undefined) {
      view = new BigUint64Array(Deno.UnsafePointerView.getArrayBuffer(pAllocator, ALLOCATION_CALLBACKS_SIZE));
      this.#allocatorViews.set(pAllocator, view);
    }
    // The five function pointers (after pUserData), read again each call: the application may rewrite them.
    const last = this.#lastHold;
    if (last !== undefined && last.matches(view)) return last;
    const key = `${view[1]} ${view[2]} ${view[3]} ${view[4]} ${view[5]}`;
    let hold = this.#holds.get(key);
    if (hold === undefined) {
      // Sets no live object holds any more let their callbacks go (an application making an allocator per
      // object would otherwise pile them up).
      for (const [k, h] of this.#holds) {
        if (h.count === 0) {
          h.release();
          this.#holds.delete(k);
        }
      }
      hold = new AllocatorHold(view, this.#objects);
      this.#holds.set(key, hold);
    }
    return this.#lastHold = hold;
  }

  /**
   * Ends tracked handle `k` for `why`, and its children (transitively) as destroyed with it by `command`
   * (their message made here only when it has children); a child ended with its parent passes no command.
   */
  #end(k: HandleKey, why: string, command?: string): void {
    const tracked = this.#objects.get(k);
    if (!tracked) return;
    tracked.hold?.drop();
    this.#objects.delete(k);
    this.#gone.set(k, why);
    this.#epoch++;
    this.#children.get(tracked.parent)?.delete(k);
    if (!this.#children.has(k)) return;
    this.#endChildren(
      k,
      command === undefined ? why : `was destroyed with its ${tracked.type} ${handleText(k)} (${command})`,
    );
  }

  #endChildren(parent: HandleKey, why: string): void {
    const children = this.#children.get(parent);
    if (!children) return;
    this.#children.delete(parent);
    for (const c of children) this.#end(c, why);
  }
}

/** sizeof(VkAllocationCallbacks): pUserData, then five function pointers. */
const ALLOCATION_CALLBACKS_SIZE = 48;

/**
 * One set of allocation callbacks, held (docs/behaviour.md V10) while a live object was made with it: it counts
 * them (a create and a destroy cost an increment each, however many live) and names a few only when a
 * callback's `dispose` asks who holds it.
 */
class AllocatorHold {
  /** The function pointers' addresses (pfnAllocation ... pfnInternalFree). */
  readonly #addresses: readonly bigint[];
  /** The checker's tracked objects, to name this set's. */
  readonly #objects: ReadonlyMap<HandleKey, Tracked>;
  readonly #releases: (() => void)[];
  /** Live objects made with this set. */
  count = 0;

  constructor(view: BigUint64Array, objects: ReadonlyMap<HandleKey, Tracked>) {
    this.#addresses = [view[1]!, view[2]!, view[3]!, view[4]!, view[5]!];
    this.#objects = objects;
    // Registered once, for as long as the set is kept: a holder naming nothing holds nothing.
    const holder = () => this.count === 0 ? "" : this.#describe();
    this.#releases = this.#addresses.map((address) => holdCallback(address, holder));
  }

  /** Whether `view` (a VkAllocationCallbacks) holds these function pointers. */
  matches(view: BigUint64Array): boolean {
    const a = this.#addresses;
    return view[1] === a[0] && view[2] === a[1] && view[3] === a[2] && view[4] === a[3] && view[5] === a[4];
  }

  add(): void {
    this.count++;
  }

  drop(): void {
    this.count--;
  }

  /** Forgets the set (once no object holds it). */
  release(): void {
    for (const release of this.#releases) release();
  }

  /** `VkBuffer 0x... (vkCreateBuffer)`, up to three of them, and how many more. */
  #describe(): string {
    const shown: string[] = [];
    for (const [k, o] of this.#objects) {
      if (o.hold !== this) continue;
      shown.push(`${o.type} ${handleText(k)} (${o.command})`);
      if (shown.length === 3) break;
    }
    const more = this.count - shown.length;
    return more > 0 ? `${shown.join(", ")} and ${more} more` : shown.join(", ");
  }
}

function sameKind(a: Owner, b: Owner): boolean {
  return ("physicalDevice" in a) === ("physicalDevice" in b);
}

function isKnown(r: HandleMaps, type: string, k: HandleKey): boolean {
  return type === "VkInstance"
    ? r.instances.has(k)
    : type === "VkPhysicalDevice"
    ? r.trampPhysicalDevices.has(k)
    : r.devices.has(k);
}

/** The plan of a command with parameters `params`. */
function makePlan(name: string, params: readonly ParamInfo[]): Plan {
  const handles: HandleParam[] = [];
  const arrays: HandleArrayParam[] = [];
  const outputs: OutputParam[] = [];
  let destroys: Plan["destroys"] = undefined;
  const indexOf = (name: string) => params.findIndex((p) => p.name === name);
  params.forEach((p, index) => {
    if (!HANDLES[p.type]) return;
    const type = canonicalHandle(p.type);
    const handle = { index, name: p.name, type, optional: p.optional === true, root: ROOTS.has(type) };
    if (p.pointer === 0) handles.push(handle);
    else if (p.pointer === 1 && p.const) {
      const count = countOf(p, params, indexOf);
      if (count && p.len !== undefined) arrays.push({ ...handle, count });
    } else if (p.pointer === 1 && !p.const) {
      const count = countOf(p, params, indexOf);
      if (count) outputs.push({ command: name, index, type, count, parent: parentOf(type, params) });
    }
  });
  if (/^vk(Destroy|Free)/.test(name)) {
    const at = params.findLastIndex((p, i) => i > 0 && HANDLES[p.type] !== undefined && p.pointer <= 1);
    const p = params[at];
    if (p?.pointer === 0) destroys = (args) => [handleKey(args[at] as Deno.PointerValue | undefined)];
    else if (p) {
      const count = countOf(p, params, indexOf);
      if (count) {
        destroys = (args) => {
          const list = args[at] as Deno.PointerValue;
          if (list === null || list === undefined) return [];
          return Array.from({ length: count(args) }, (_, i) => handleKey(readU64(list, i * 8)));
        };
      }
    }
  }
  const allocator = params.findIndex((p) => p.type === "VkAllocationCallbacks" && p.pointer === 1);
  // Told apart from scalars and handles by name alone: the struct layouts are read at the first call.
  const structs = params.some((p) =>
    p.pointer === 1 && p.const && p.type.startsWith("Vk") && !HANDLES[p.type] &&
    p.type !== "VkAllocationCallbacks"
  );
  return {
    arity: params.length,
    allocator: outputs.length > 0 ? allocator : -1,
    handles,
    arrays,
    outputs,
    destroys,
    structs,
    scan: undefined,
    params,
  };
}

/** How many handles an output parameter receives, or undefined when its length cannot be read. */
function countOf(
  p: ParamInfo,
  params: readonly ParamInfo[],
  indexOf: (name: string) => number,
): ((args: readonly unknown[]) => number) | undefined {
  if (p.len === undefined) return () => 1;
  const [head, member] = p.len.split("->");
  const at = indexOf(head!);
  const lenParam = params[at];
  if (!lenParam) return undefined;
  if (member === undefined) {
    return lenParam.pointer === 0
      ? (args) => Number(args[at] ?? 0)
      : (args) => args[at] === null ? 0 : readU32(args[at] as Deno.PointerValue, 0);
  }
  const m = STRUCTS[lenParam.type]?.members.find((x) => x.name === member);
  if (!m) return undefined;
  return (args) => args[at] === null ? 0 : readU32(args[at] as Deno.PointerValue, m.offset);
}

/** Where a pool-allocated handle's pool is: a parameter, or a member of a create-info parameter. */
function parentOf(type: string, params: readonly ParamInfo[]): OutputParam["parent"] {
  const parentType = HANDLES[type]?.parent;
  if (parentType === undefined || ROOTS.has(parentType)) return undefined;
  const direct = params.findIndex((p) => p.pointer === 0 && canonicalHandle(p.type) === parentType);
  if (direct >= 0) return (args) => handleKey(args[direct] as Deno.PointerValue | undefined);
  for (let i = 0; i < params.length; i++) {
    const p = params[i]!;
    if (p.pointer !== 1 || !p.const) continue;
    const m = STRUCTS[p.type]?.members.find((x) => x.pointer === 0 && canonicalHandle(x.type) === parentType);
    if (m) {
      return (args) => handleKey(args[i] === null ? 0n : readU64(args[i] as Deno.PointerValue, m.offset));
    }
  }
  return undefined;
}
