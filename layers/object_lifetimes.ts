/**
 * `VK_LAYER_VKDENO_object_lifetimes`: objects used after they were destroyed (the call skipped) and objects
 * still alive at `vkDestroyDevice` / `vkDestroyInstance` (settings and messages: docs/internals.md).
 *
 * @example Usage
 * ```ts ignore
 * import { installLayers } from "./top.ts";
 * using vk = installLayers(base, {
 *   layers: ["VK_LAYER_VKDENO_object_lifetimes"],
 *   onMessage: (m) => console.log(m.text),
 * });
 * ```
 *
 * @module
 */
import { COMMAND_INDEX, COMMANDS } from "../vk/generated/commands.ts";
import { STRUCTS } from "../vk/generated/structs.ts";
import { readStructValue } from "../vk/struct_read.ts";
import { createRule, evaluateLen, readHandles } from "./_commands.ts";
import { isHandleType } from "../vk/handle_type.ts";
import {
  type CallContext,
  type CommandDescription,
  type CommandHooks,
  defineLayer,
  type TsLayer,
} from "./layer.ts";
import type { StateObject, StateTracker } from "./state.ts";

/** A handle found in a call's arguments, with where it was found (`pSubmits[0].pCommandBuffers[1]`). */
interface FoundHandle {
  readonly handle: Deno.PointerValue;
  readonly where: string;
}

type Finder = (args: readonly unknown[], out: FoundHandle[]) => void;

/** Levels of pointed-to structs followed below a command's struct parameters. */
const STRUCT_DEPTH = 2;

/** True when struct `type` holds handles, by value or within `depth` levels of pointed-to structs. */
function holdsHandles(type: string, depth: number, seen = new Set<string>()): boolean {
  const info = STRUCTS[type];
  if (!info || seen.has(type)) return false;
  seen.add(type);
  return info.members.some((m) =>
    m.name !== "pNext" && (
      (isHandleType(m.type) && (m.pointer === 0 || m.len !== undefined)) ||
      (STRUCTS[m.type] !== undefined && m.pointer === 0 && holdsHandles(m.type, depth, seen)) ||
      (STRUCTS[m.type] !== undefined && m.pointer === 1 && depth > 0 && holdsHandles(m.type, depth - 1, seen))
    )
  );
}

/** Collects the handles of a struct read back as `value`, following pointed-to structs `depth` levels. */
function walkStruct(
  type: string,
  value: Record<string, unknown>,
  where: string,
  depth: number,
  out: FoundHandle[],
) {
  for (const m of STRUCTS[type]?.members ?? []) {
    if (m.name === "pNext") continue;
    const v = value[m.name];
    const count = m.len === undefined ? 1 : value[m.len.split(",")[0]!];
    const n = typeof count === "number" ? count : 0;
    if (isHandleType(m.type) && m.count === undefined) {
      if (m.pointer === 0 && v !== null) {
        out.push({ handle: v as Deno.PointerValue, where: `${where}.${m.name}` });
      } else if (m.pointer === 1 && m.len !== undefined) {
        readHandles(v as Deno.PointerValue, n).forEach((h, i) =>
          out.push({ handle: h, where: `${where}.${m.name}[${i}]` })
        );
      }
    } else if (
      STRUCTS[m.type] && m.pointer === 0 && m.count === undefined && typeof v === "object" && v !== null
    ) {
      walkStruct(m.type, v as Record<string, unknown>, `${where}.${m.name}`, depth, out);
    } else if (
      STRUCTS[m.type] && m.pointer === 1 && depth > 0 && v !== null && holdsHandles(m.type, depth - 1)
    ) {
      for (let i = 0; i < n; i++) {
        const item = readStructValue(m.type, v as Deno.PointerValue, i);
        walkStruct(m.type, item, `${where}.${m.name}[${i}]`, depth - 1, out);
      }
    }
  }
}

const finders = new Map<number, Finder[]>();

/**
 * The handle checks of a command: direct handles, handle arrays, and handles in its input structs (by
 * value, and {@linkcode STRUCT_DEPTH} levels of pointed-to structs: `pWrites[0].pBufferInfo[0].buffer`).
 */
function findersFor(info: CommandDescription): Finder[] {
  let list = finders.get(info.index);
  if (list) return list;
  list = [];
  const created = createRule(info)?.param;
  info.params.forEach((p, i) => {
    if (i === created) return;
    if (p.pointer === 0 && isHandleType(p.type)) {
      list!.push((args, out) => {
        if (args[i] !== null) out.push({ handle: args[i] as Deno.PointerValue, where: p.name });
      });
    } else if (p.pointer === 1 && p.const && isHandleType(p.type) && p.len !== undefined) {
      list!.push((args, out) => {
        const n = evaluateLen(info, p.len!, args) ?? 0;
        readHandles(args[i] as Deno.PointerValue, n).forEach((h, k) =>
          out.push({ handle: h, where: `${p.name}[${k}]` })
        );
      });
    } else if (p.pointer === 1 && p.const && STRUCTS[p.type] && holdsHandles(p.type, STRUCT_DEPTH)) {
      list!.push((args, out) => {
        const ptr = args[i] as Deno.PointerValue;
        if (ptr === null) return;
        const n = p.len === undefined ? 1 : evaluateLen(info, p.len, args) ?? 0;
        for (let k = 0; k < n; k++) {
          walkStruct(p.type, readStructValue(p.type, ptr, k), `${p.name}[${k}]`, STRUCT_DEPTH, out);
        }
      });
    }
  });
  finders.set(info.index, list);
  return list;
}

function creation(o: StateObject): string {
  return `created by ${o.createdBy.command} (call #${o.createdBy.serial})`;
}

/** The object lifetimes layer. */
export const objectLifetimesLayer: TsLayer = defineLayer({
  name: "VK_LAYER_VKDENO_object_lifetimes",
  description: "Objects used after destroy, or alive at vkDestroyDevice / vkDestroyInstance (vkdeno)",
  implementationVersion: 1,
  usesState: true,
  settings: { stacks: { type: "bool", default: false, description: "Keep each creating call's stack" } },
  create(env) {
    const state: StateTracker = env.state!;
    const stacks = env.settings.stacks;
    const stackSlot = state.createSlot<string>("VK_LAYER_VKDENO_object_lifetimes");
    const validate = (ctx: CallContext, ...args: unknown[]): boolean => {
      const found: FoundHandle[] = [];
      for (const find of findersFor(ctx.info)) find(args, found);
      let skip = false;
      for (const { handle, where } of found) {
        if (handle === null || state.get(handle) !== undefined) continue;
        const dead = state.destroyed(handle);
        if (dead === undefined) continue;
        skip = true;
        env.report(
          "ObjectLifetimes-UseAfterDestroy",
          `${dead.label} used in ${ctx.command} (${where}, call #${ctx.serial}) after ${
            dead.destroyedBy!.command
          } destroyed it (call #${dead.destroyedBy!.serial}); it was ${creation(dead)}`,
          { command: ctx.command },
        );
      }
      return skip;
    };
    const leaks = (ctx: CallContext, handle: Deno.PointerValue) => {
      const root = state.get(handle);
      if (!root) return;
      for (const o of root.descendants()) {
        if (o.implicit) continue;
        const stack = o.getSubState(stackSlot);
        env.report(
          "ObjectLifetimes-Leak",
          `${o.label} ${creation(o)} is still alive at ${ctx.command} of ${root.label}${
            stack ? `\n${stack}` : ""
          }`,
          { command: ctx.command },
        );
      }
    };
    const intercepts: Record<string, CommandHooks> = {};
    for (const [name, index] of Object.entries(COMMAND_INDEX)) {
      const info = COMMANDS[index]!;
      const hooks: CommandHooks = {};
      if (findersFor(info).length > 0) hooks.preCallValidate = validate;
      if (stacks && createRule(info)) {
        hooks.postCallRecord = (ctx: CallContext, ...args: unknown[]) => {
          const rule = createRule(ctx.info)!;
          const param = ctx.info.params[rule.param]!;
          const n = param.len === undefined ? 1 : evaluateLen(ctx.info, param.len, args) ?? 0;
          const stack = new Error().stack?.split("\n").slice(2).join("\n") ?? "";
          for (const h of readHandles(args[rule.param] as Deno.PointerValue, n)) {
            state.get(h)?.setSubState(stackSlot, stack);
          }
        };
      }
      if (hooks.preCallValidate || hooks.postCallRecord) intercepts[name] = hooks;
    }
    // Leaks are judged before the tracker (which runs last for destroying commands) ends the children.
    intercepts.vkDestroyDevice = {
      ...intercepts.vkDestroyDevice,
      preCallRecord: (ctx, device) => leaks(ctx, device as Deno.PointerValue),
    };
    intercepts.vkDestroyInstance = {
      ...intercepts.vkDestroyInstance,
      preCallRecord: (ctx, instance) => leaks(ctx, instance as Deno.PointerValue),
    };
    return { intercepts };
  },
});

export default objectLifetimesLayer;
