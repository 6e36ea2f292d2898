/**
 * What the state tracker and the shipped layers read from the generated command table: which commands
 * create or destroy which handles, and the values of `len` expressions.
 *
 * @module
 */
import { COMMAND_INDEX, COMMANDS } from "../vk/generated/commands.ts";
import { canonicalHandle, isHandleType } from "../vk/handle_type.ts";
import type { CommandInfo, ParamInfo } from "../vk/generated/types.ts";
import { readStructValue } from "../vk/struct_read.ts";
import { type HandleKey, handleKey } from "../vk/handle_key.ts";

/** One parameter of a {@linkcode CommandDescription}, as vk.xml declares it: the generated table's own record. */
export type { ParamInfo as CommandParameter };

/** A command as the generated tables describe it (`vk/generated/commands.ts`). */
export interface CommandDescription {
  /** The command's name (an alias's target). */
  readonly name: string;
  /** Position in the generated table, shared by the command's aliases. */
  readonly index: number;
  /** Dispatch level: which dispatchable handle its first parameter descends from. */
  readonly level: "global" | "instance" | "physical_device" | "device";
  /** C result type (`VkResult`, `void`, ...). */
  readonly result: string;
  /** Parameters in order. */
  readonly params: readonly ParamInfo[];
}

/**
 * The dispatch key of a dispatchable handle: the loader's dispatch table pointer in its first word, shared
 * by an instance and its physical devices, and by a device, its queues and command buffers.
 */
export function dispatchKey(handle: Deno.PointerValue): HandleKey {
  if (handle === null) return 0;
  // Two 32-bit reads make the same number handleKey() would, without a pointer object or a bigint.
  const view = new Deno.UnsafePointerView(handle);
  const high = view.getUint32(4);
  return high < 0x200000 ? high * 0x100000000 + view.getUint32(0) : handleKey(view.getPointer(0));
}

/** The generated description of a command or alias name. */
export function commandInfo(name: string): CommandInfo {
  const index = COMMAND_INDEX[name];
  if (index === undefined) throw new TypeError(`Unknown Vulkan command "${name}"`);
  return COMMANDS[index]!;
}

/**
 * Evaluates a `len` expression (`createInfoCount`, `pCount`, `pAllocateInfo->commandBufferCount`) against
 * a call's arguments; `null` when it cannot be read (a null pointer, `null-terminated`).
 */
export function evaluateLen(info: CommandDescription, len: string, args: readonly unknown[]): number | null {
  const [head, member] = len.split(",")[0]!.split("->");
  const at = info.params.findIndex((p) => p.name === head);
  if (at < 0) return null;
  const param = info.params[at]!;
  const value = args[at];
  if (member !== undefined) {
    if (value === null || typeof value !== "object") return null;
    const n = readStructValue(param.type, value as Deno.PointerValue)[member];
    return typeof n === "number" ? n : null;
  }
  if (param.pointer === 0) {
    return typeof value === "number" ? value : typeof value === "bigint" ? Number(value) : null;
  }
  if (value === null || typeof value !== "object") return null;
  return new Deno.UnsafePointerView(value as Deno.PointerObject).getUint32(0);
}

/** Reads `count` handles from a `VkFoo*` array. */
export function readHandles(pointer: Deno.PointerValue, count: number): Deno.PointerValue[] {
  if (pointer === null || count <= 0) return [];
  const view = new Deno.UnsafePointerView(pointer);
  const out: Deno.PointerValue[] = [];
  for (let i = 0; i < count; i++) out.push(view.getPointer(i * 8));
  return out;
}

/** How a command makes handles: its output parameter, the handle type, and whether the app destroys them. */
export interface CreateRule {
  readonly param: number;
  readonly type: string;
  /** Physical devices, queues, swapchain images: owned by their parent, never destroyed by the app. */
  readonly implicit: boolean;
}

/** How a command destroys handles: the parameter naming them and whether it is an array. */
export interface DestroyRule {
  readonly param: number;
  readonly type: string;
  readonly array: boolean;
}

const IMPLICIT_CREATORS = new Set([
  "vkEnumeratePhysicalDevices",
  "vkGetDeviceQueue",
  "vkGetDeviceQueue2",
  "vkGetSwapchainImagesKHR",
]);

const createRules = new Map<number, CreateRule | null>();
const destroyRules = new Map<number, DestroyRule | null>();

/** The creation rule of a command, or null when it creates no tracked handle. */
export function createRule(info: CommandDescription): CreateRule | null {
  let rule = createRules.get(info.index);
  if (rule !== undefined) return rule;
  rule = null;
  const last = info.params.length - 1;
  const out: ParamInfo | undefined = info.params[last];
  const creates = /^vk(Create|Allocate)/.test(info.name) || IMPLICIT_CREATORS.has(info.name);
  if (creates && out && !out.const && out.pointer === 1 && isHandleType(out.type)) {
    rule = { param: last, type: canonicalHandle(out.type), implicit: IMPLICIT_CREATORS.has(info.name) };
  }
  createRules.set(info.index, rule);
  return rule;
}

/** The destruction rule of a command (`vkDestroy*`, `vkFree*`), or null. */
export function destroyRule(info: CommandDescription): DestroyRule | null {
  let rule = destroyRules.get(info.index);
  if (rule !== undefined) return rule;
  rule = null;
  if (/^vk(Destroy|Free)/.test(info.name)) {
    for (let i = info.params.length - 1; i >= 0 && rule === null; i--) {
      const p = info.params[i]!;
      if (!isHandleType(p.type)) continue;
      if (p.pointer === 0) rule = { param: i, type: canonicalHandle(p.type), array: false };
      else if (p.pointer === 1 && p.const && p.len !== undefined) {
        rule = { param: i, type: canonicalHandle(p.type), array: true };
      }
    }
  }
  destroyRules.set(info.index, rule);
  return rule;
}
