/**
 * The shared state tracker: one per instance's dispatch object, following every handle a create or allocate
 * command makes and a destroy or free command ends, from the generated command table.
 *
 * @example Finding a buffer's creator
 * ```ts ignore
 * import type { StateTracker } from "./state.ts";
 * declare const state: StateTracker;
 * declare const buffer: Deno.PointerValue;
 * console.log(state.get(buffer)?.createdBy.command); // "vkCreateBuffer"
 * ```
 *
 * @module
 */
import { COMMAND_INDEX, COMMANDS } from "../vk/generated/commands.ts";
import { HANDLES } from "../vk/generated/handles.ts";
import { readStructValue } from "../vk/struct_read.ts";
import { createRule, destroyRule, evaluateLen, readHandles } from "./_commands.ts";
import { type HandleKey, handleKey, handleText } from "../vk/handle_key.ts";
import type { CommandDescription } from "./_commands.ts";
import { VK_SUCCESS } from "../vk/generated/vk_constants.js";

export type { HandleKey };

/** The call that created or destroyed a state object. */
export interface CallRecord {
  /** The command's name. */
  readonly command: string;
  /** The chassis call number. */
  readonly serial: number;
}

/**
 * A sub-state slot: extra data a validation object keeps on state objects. `onDestroy` runs when an
 * object holding a value in the slot is destroyed.
 */
export class SubStateSlot<T> {
  /** Position in slot order. */
  readonly id: number;
  /** Who owns the slot (a layer name). */
  readonly owner: string;
  /** Told when an object with a value in this slot is destroyed (before it is marked destroyed). */
  readonly onDestroy?: (object: StateObject, value: T) => void;

  /** A slot; use {@linkcode StateTracker.createSlot}. */
  constructor(id: number, owner: string, onDestroy?: (object: StateObject, value: T) => void) {
    this.id = id;
    this.owner = owner;
    this.onDestroy = onDestroy;
  }
}

/** One tracked Vulkan object. */
export class StateObject {
  /** The handle as the application sees it. */
  readonly handle: Deno.PointerValue;
  /** The handle as a map key. */
  readonly key: HandleKey;
  /** Handle type (`VkBuffer`). */
  readonly type: string;
  /** The object it was made from (`VkCommandPool` for a command buffer), when tracked. */
  readonly parent: StateObject | null;
  /** Live objects made from this one. */
  readonly children: Set<StateObject> = new Set();
  /** The call that made it. */
  readonly createdBy: CallRecord;
  /** Physical devices, queues, swapchain images: owned by the parent, never destroyed by the app. */
  readonly implicit: boolean;
  /** Set when destroyed (explicitly, or with its parent). */
  destroyedBy: CallRecord | null = null;
  #sub: unknown[] = [];

  /** A state object; the tracker makes them. */
  constructor(
    handle: Deno.PointerValue,
    type: string,
    parent: StateObject | null,
    createdBy: CallRecord,
    implicit: boolean,
  ) {
    this.handle = handle;
    this.key = handleKey(handle);
    this.type = type;
    this.parent = parent;
    this.createdBy = createdBy;
    this.implicit = implicit;
  }

  /** `VkBuffer 0x55d0c0de1230`. */
  get label(): string {
    return `${this.type} ${handleText(this.key)}`;
  }

  /** This object's value in `slot`. */
  getSubState<T>(slot: SubStateSlot<T>): T | undefined {
    return this.#sub[slot.id] as T | undefined;
  }

  /** Sets this object's value in `slot`. */
  setSubState<T>(slot: SubStateSlot<T>, value: T): void {
    this.#sub[slot.id] = value;
  }

  /** The nearest ancestor (or itself) of `type`, e.g. the `VkDevice` of a command buffer. */
  ancestor(type: string): StateObject | null {
    if (this.type === type) return this;
    return this.parent === null ? null : this.parent.ancestor(type);
  }

  /** Children, grandchildren, ... depth first, children before their parent. */
  descendants(): StateObject[] {
    const out: StateObject[] = [];
    const walk = (o: StateObject) => {
      for (const c of o.children) {
        walk(c);
        out.push(c);
      }
    };
    walk(this);
    return out;
  }

  /** @internal Slot values in slot order. */
  subStates(): readonly unknown[] {
    return this.#sub;
  }
}

/**
 * What the tracker's hooks read of a call: the chassis's `CallContext` (layer.ts) carries all of it, so
 * the tracker runs as one of the chassis's validation objects without importing the layer API.
 */
export interface TrackedCall {
  /** The command's name as called. */
  readonly command: string;
  /** Sequence number of the call in its chassis. */
  readonly serial: number;
  /** The command's generated description. */
  readonly info: CommandDescription;
  /** The next link's return value (set before `postCallRecord`). */
  readonly result: unknown;
}

/** The tracker's hooks for one command (a subset of layer.ts's `CommandHooks`). */
export interface TrackerHooks {
  /** Records what the call is about to destroy. */
  // deno-lint-ignore no-explicit-any
  preCallRecord?(ctx: TrackedCall, ...args: any[]): void;
  /** Records what the call created. */
  // deno-lint-ignore no-explicit-any
  postCallRecord?(ctx: TrackedCall, ...args: any[]): void;
}

/** The shared state tracker (a validation object itself, run by the chassis with the order rule). */
export class StateTracker {
  readonly #live = new Map<HandleKey, StateObject>();
  readonly #destroyed = new Map<HandleKey, StateObject>();
  readonly #slots: SubStateSlot<unknown>[] = [];
  /** Hooks for every lifetime command. */
  readonly intercepts: { readonly [command: string]: TrackerHooks };

  /** A tracker with nothing tracked. */
  constructor() {
    const intercepts: Record<string, TrackerHooks> = {};
    for (const [name, index] of Object.entries(COMMAND_INDEX)) {
      const info = COMMANDS[index]!;
      const create = createRule(info);
      const destroy = destroyRule(info);
      if (create) intercepts[name] = { postCallRecord: (ctx, ...args) => this.#recordCreate(ctx, args) };
      else if (destroy) {
        intercepts[name] = { preCallRecord: (ctx, ...args) => this.#recordDestroy(ctx, args) };
      }
    }
    intercepts.vkResetDescriptorPool = {
      preCallRecord: (ctx, _device, pool) => {
        const o = this.get(pool);
        if (o) {
          for (const c of [...o.children]) {
            this.#end(c, { command: ctx.command, serial: ctx.serial });
          }
        }
      },
    };
    this.intercepts = intercepts;
  }

  /**
   * A new sub-state slot; slots are told about destruction in creation order.
   *
   * @example Usage
   * ```ts ignore
   * const slot = state.createSlot<{ draws: number }>("VK_LAYER_x_draws");
   * state.get(commandBuffer)?.setSubState(slot, { draws: 0 });
   * ```
   */
  createSlot<T>(owner: string, onDestroy?: (object: StateObject, value: T) => void): SubStateSlot<T> {
    const slot = new SubStateSlot<T>(this.#slots.length, owner, onDestroy);
    this.#slots.push(slot as SubStateSlot<unknown>);
    return slot;
  }

  /** The live object of `handle`, or undefined. */
  get(handle: Deno.PointerValue | HandleKey): StateObject | undefined {
    return this.#live.get(typeof handle === "object" ? handleKey(handle) : handle);
  }

  /** The last destroyed object of `handle` when no live object has that handle now, or undefined. */
  destroyed(handle: Deno.PointerValue | HandleKey): StateObject | undefined {
    const key = typeof handle === "object" ? handleKey(handle) : handle;
    return this.#live.has(key) ? undefined : this.#destroyed.get(key);
  }

  /** Every live object, optionally of one type, in creation order. */
  objects(type?: string): StateObject[] {
    const all = [...this.#live.values()];
    return type === undefined ? all : all.filter((o) => o.type === type);
  }

  /** Number of live objects. */
  get size(): number {
    return this.#live.size;
  }

  #parentOf(info: CommandDescription, type: string, args: readonly unknown[]): StateObject | null {
    const parentType = HANDLES[type]?.parent;
    if (parentType === undefined) return null;
    const first = info.params[0];
    if (first && first.pointer === 0 && first.type === parentType) {
      return this.get(args[0] as Deno.PointerValue) ?? null;
    }
    // Pools and other parents named inside the create/allocate info (VkCommandBufferAllocateInfo.commandPool).
    for (let i = 0; i < info.params.length; i++) {
      const p = info.params[i]!;
      if (p.pointer !== 1 || !p.const || args[i] === null || args[i] === undefined) continue;
      const struct = readStructSafe(p.type, args[i] as Deno.PointerValue);
      if (!struct) continue;
      for (const value of Object.values(struct)) {
        const o = isPointer(value) ? this.get(value) : undefined;
        if (o && o.type === parentType) return o;
      }
    }
    return first && first.pointer === 0 ? this.get(args[0] as Deno.PointerValue) ?? null : null;
  }

  #recordCreate(ctx: TrackedCall, args: readonly unknown[]): void {
    if (typeof ctx.result === "number" && ctx.result < VK_SUCCESS) return;
    const rule = createRule(ctx.info)!;
    const out = args[rule.param] as Deno.PointerValue;
    const param = ctx.info.params[rule.param]!;
    const count = param.len === undefined ? 1 : evaluateLen(ctx.info, param.len, args) ?? 0;
    const parent = this.#parentOf(ctx.info, rule.type, args);
    const record = { command: ctx.command, serial: ctx.serial };
    for (const handle of readHandles(out, count)) {
      if (handle === null) continue;
      const key = handleKey(handle);
      const existing = this.#live.get(key);
      // Enumerations and queue queries hand out the same handle again: keep the first object.
      if (existing && existing.type === rule.type && rule.implicit) continue;
      if (existing) this.#end(existing, record);
      const o = new StateObject(handle, rule.type, parent, record, rule.implicit);
      parent?.children.add(o);
      this.#live.set(key, o);
      this.#destroyed.delete(key);
    }
  }

  #recordDestroy(ctx: TrackedCall, args: readonly unknown[]): void {
    const rule = destroyRule(ctx.info)!;
    const value = args[rule.param] as Deno.PointerValue;
    let handles: Deno.PointerValue[] = [value];
    if (rule.array) {
      const len = ctx.info.params[rule.param]!.len!;
      handles = readHandles(value, evaluateLen(ctx.info, len, args) ?? 0);
    }
    const record = { command: ctx.command, serial: ctx.serial };
    for (const h of handles) {
      if (h === null) continue;
      const o = this.get(h);
      if (o && o.type === rule.type) this.#end(o, record);
    }
  }

  #end(o: StateObject, record: CallRecord): void {
    for (const c of o.descendants()) this.#endOne(c, record);
    this.#endOne(o, record);
  }

  #endOne(o: StateObject, record: CallRecord): void {
    if (o.destroyedBy !== null) return;
    const values = o.subStates();
    for (const slot of this.#slots) {
      const v = values[slot.id];
      if (v !== undefined) slot.onDestroy?.(o, v);
    }
    o.destroyedBy = record;
    o.parent?.children.delete(o);
    if (this.#live.get(o.key) === o) this.#live.delete(o.key);
    this.#destroyed.set(o.key, o);
  }
}

/** Pointer values read from structs are opaque objects with no keys; nested structs have members. */
function isPointer(value: unknown): value is Deno.PointerObject {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    Object.keys(value).length === 0;
}

function readStructSafe(type: string, pointer: Deno.PointerValue): Record<string, unknown> | null {
  try {
    return readStructValue(type, pointer);
  } catch {
    return null;
  }
}
