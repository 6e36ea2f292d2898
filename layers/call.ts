/**
 * One intercepted call as its hooks see it ({@linkcode CallContext}): arguments to replace, pNext chains to
 * read and edit, a result to choose or replace, outputs to fill. The same in both placements.
 *
 * @module
 */
import type { VkCommandName, VkCommands } from "../vk/generated/vk_commands.ts";
import type { VkExtendingStructOf, VkStructChains, VkStructInputs } from "../vk/generated/vk_structs.ts";
import type { ChainRead } from "../vk/struct_read.ts";
import type { pointee, structType } from "../vk/generated/vk_types.ts";
import type { CommandInfo, ParamInfo, StructInfo as StructLayout } from "../vk/generated/types.ts";
import { Arena, nativeBytes, readPointer, readU32, writePointer, writeU32, writeU64 } from "../ffi/memory.ts";
import { readStructValue, sizeOfStruct } from "../vk/struct_read.ts";
import { writeStruct, writeStructArray } from "../vk/struct_write.ts";
import { findLayout } from "../vk/struct_layout.ts";
import { STRUCT_BY_STYPE } from "../vk/generated/structs.ts";
import type { StructValue } from "../vk/struct_value.ts";
import type { ChainInput } from "../vk/struct_input.ts";
import type { StateTracker } from "./state.ts";
import type { CommandDescription } from "./_commands.ts";

/** `VK_ERROR_VALIDATION_FAILED_EXT`: what a skipped command returning `VkResult` returns. */
export const VK_ERROR_VALIDATION_FAILED_EXT: number = -1000011001;
/** `VK_ERROR_UNKNOWN`: what a `VkResult` command returns when another thread calls a TS layer's creating entry point. */
export const VK_ERROR_UNKNOWN: number = -13;

/** `VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO` and `..._DEVICE_CREATE_INFO`: the loader's link structs. */
const LOADER_INSTANCE_CREATE_INFO = 47;
const LOADER_DEVICE_CREATE_INFO = 48;
/** Sizes of `VkLayerInstanceCreateInfo` / `VkLayerDeviceCreateInfo` (LP64), which vk.xml does not lay out. */
const LOADER_STRUCT_SIZE: Record<number, number> = {
  [LOADER_INSTANCE_CREATE_INFO]: 40,
  [LOADER_DEVICE_CREATE_INFO]: 32,
};

/** The next link: every Vulkan command by name (aliases too), typed as `Vulkan.load()` types them. */
export type Dispatch = Readonly<VkCommands>;

/** The C arguments of command `K` as its generated signature types them (`unknown[]` for any command). */
export type CommandArguments<K extends VkCommandName> = VkCommandName extends K ? readonly unknown[]
  : Parameters<VkCommands[K]>;

/** The result of command `K` as its generated signature types it (`unknown` for any command). */
export type CommandResult<K extends VkCommandName> = VkCommandName extends K ? unknown
  : ReturnType<VkCommands[K]>;

/** Positions of a tuple's elements (`0 | 1 | 2` for three parameters); `number` for an array. */
export type ArgumentIndex<T extends readonly unknown[]> = number extends T["length"] ? number
  : Exclude<Partial<T>["length"], T["length"]>;

/** The members of struct `S` as `writeStruct` takes them (any object for a struct the types do not know). */
export type StructMembers<S> = S extends keyof VkStructInputs ? VkStructInputs[S] : never;

/**
 * What {@linkcode CallContext.setArgument} accepts for a parameter typed `P`: a value of that type, or
 * for a pointer to struct(s), the struct's members (one object, or an array for an array parameter).
 */
export type ArgumentValue<P> =
  | P
  | (NonNullable<P> extends { readonly [structType]?: infer S }
    ? StructMembers<S> | readonly StructMembers<S>[]
    : never);

/**
 * What {@linkcode CallContext.setOutput} writes through a parameter typed `P` (`VkDeviceMemory` for `pMemory`,
 * a number for a count pointer).
 */
export type OutputValue<P> = NonNullable<P> extends { readonly [pointee]?: infer T } ? T
  : NonNullable<P> extends { readonly [structType]?: infer S } ? StructMembers<S>
  // An unbranded pointer (`uint32_t* pPropertyCount`, `size_t* pDataSize`): a count or size, or a pointer.
  : Deno.PointerValue extends P ? number | bigint | Deno.PointerValue
  : never;

/** One struct of a pNext chain as {@linkcode CallContext.chain} reads it: `type` names the struct. */
export type ExtendingStruct = StructValue & { readonly type: string };

/** @deprecated Use {@linkcode ExtendingStruct} ("link" names a link of the layer chain). */
export type ChainLink = ExtendingStruct;

/** The struct a parameter typed `P` points to (`unknown` for an untyped parameter, `never` for no struct). */
export type PointedStruct<P> = NonNullable<P> extends { readonly [structType]?: infer S } ? S : never;

// `infer S extends keyof VkStructChains` below, not `PointedStruct<P> extends keyof VkStructChains`: checking
// the latter's `ChainRead<PointedStruct<P>>` relates it to the constraint over every struct name
// (docs/performance.md).

/**
 * A struct of the pNext chain of the struct a parameter typed `P` points to, as {@linkcode CallContext.chain}
 * reads it: a union on `type` of the structs that may extend it ({@linkcode ExtendingStruct} for any command).
 */
export type ExtendingStructRead<P> = unknown extends PointedStruct<P> ? ExtendingStruct
  : PointedStruct<P> extends infer S extends keyof VkStructChains ? ChainRead<S>
  : ExtendingStruct;

/** @deprecated Use {@linkcode ExtendingStructRead} ("link" names a link of the layer chain). */
export type ChainLinkRead<P> = ExtendingStructRead<P>;

/**
 * A struct {@linkcode CallContext.extendChain} accepts for a parameter typed `P`: only structs that may
 * extend the struct it points to, with their members (any `{ type, ...members }` for any command).
 */
export type ExtendingStructInput<P> = unknown extends PointedStruct<P> ? ChainInput
  : PointedStruct<P> extends infer S extends keyof VkStructChains ? VkExtendingStructOf<S>
  : never;

/** @deprecated Use {@linkcode ExtendingStructInput} ("link" names a link of the layer chain). */
export type ChainLinkInput<P> = ExtendingStructInput<P>;

/**
 * What a hook gets besides the command's C arguments. One object per call, shared by every validation
 * object of the chassis for that call, the same in both placements (over a command object in the script,
 * or as a link of a native chain). It is valid during its call: the chassis opens the same object again
 * for the command's next call (nothing is made per call), so keep what you need from it, not the object.
 *
 * Control of the call:
 * - a pre hook (`preCallValidate`, `preCallRecord`) may {@linkcode CallContext.skip} the call with a chosen
 *   result: no later pre hook runs, the next link is not called, no post hook runs, and the command
 *   returns that result; it may fill the outputs first with {@linkcode CallContext.setOutput};
 * - a post hook (`postCallRecord`) may replace `result`, which the command then returns;
 * - a pre hook may replace arguments ({@linkcode CallContext.setArgument}) and edit pNext chains
 *   ({@linkcode CallContext.extendChain}, {@linkcode CallContext.removeFromChain}): hooks after it and
 *   the next link see the new values, the application's memory is never written;
 * - a hook that throws is reported as an error message (id `Layer-HookThrew`, naming the layer and the
 *   command), once per layer and command, and passed over: the call still goes down to the next link
 *   (thrown before it) or keeps its result (thrown after it); no application call is lost to a layer's bug.
 */
export interface CallContextOf<in out A extends readonly unknown[], out R> {
  // The variances TypeScript would measure, written out: measuring them relates `chain`'s and `extendChain`'s
  // extending-struct types over every struct name, seconds of every `deno check` of a program importing mod.ts.
  /**
   * The command's name as called (an alias stays an alias). Typed as any command name, so that one hooks
   * object serves a command and its aliases (`{ vkCmdDrawIndirectCount: h, vkCmdDrawIndirectCountKHR: h }`).
   */
  readonly command: VkCommandName;
  /** The command's generated description (parameter names, C types, pointer depth, `len`). */
  readonly info: CommandDescription;
  /** Sequence number of this call in its chassis (1 for the first intercepted call). */
  readonly serial: number;
  /** The next link. */
  readonly dispatch: Dispatch;
  /** The shared state tracker (null when no validation object asked for one). */
  readonly state: StateTracker | null;
  /** The arguments as the next link will get them (after replacements). */
  readonly args: A;
  /**
   * The result: set by {@linkcode CallContext.skip}, or the next link's return value before the post
   * hooks, which may replace it.
   */
  result: R | undefined;
  /** True once a pre hook skipped the call. */
  readonly skipped: boolean;
  /** Free slot for a validation object to pass data from its pre hooks to its post hook. */
  readonly scratch: Map<object, unknown>;
  /**
   * Skips the call (pre hooks only): the next link is not called and the command returns `result`
   * (default `VK_ERROR_VALIDATION_FAILED_EXT` for `VkResult`, nothing for `void`, else 0 or null).
   *
   * @example An allocation that fails as on a device out of memory, the driver not called
   * ```ts
   * import { defineLayer } from "@vkdeno/loader/layers";
   * import { VK_ERROR_OUT_OF_DEVICE_MEMORY } from "@vkdeno/loader";
   * export default defineLayer({
   *   name: "VK_LAYER_example_no_memory",
   *   description: "Every vkAllocateMemory fails",
   *   create: () => ({
   *     intercepts: { vkAllocateMemory: { preCallRecord: (ctx) => ctx.skip(VK_ERROR_OUT_OF_DEVICE_MEMORY) } },
   *   }),
   * });
   * ```
   * @throws {TypeError} In a post hook.
   */
  skip(result?: R): void;
  /**
   * Replaces argument `index` (or the parameter of that name) for the next link and later hooks: a value
   * of the parameter's type, or for a pointer to struct(s) the struct's members, written into memory that
   * lives until the call returns.
   *
   * @example Every buffer also usable as a transfer source (positions count the C parameters, `ctx` not)
   * ```ts
   * import { defineLayer } from "@vkdeno/loader/layers";
   * import { flags, readStruct, VK_BUFFER_USAGE_TRANSFER_SRC_BIT } from "@vkdeno/loader";
   * export default defineLayer({
   *   name: "VK_LAYER_example_transfer_src",
   *   description: "Adds TRANSFER_SRC to every buffer's usage",
   *   create: () => ({
   *     intercepts: {
   *       vkCreateBuffer: {
   *         preCallRecord(ctx, _device, pCreateInfo) {
   *           const info = readStruct("VkBufferCreateInfo", pCreateInfo);
   *           ctx.setArgument(1, { ...info, usage: flags(info.usage, VK_BUFFER_USAGE_TRANSFER_SRC_BIT) });
   *         },
   *       },
   *     },
   *   }),
   * });
   * ```
   * @throws {TypeError} After the call, for an unknown parameter, or a struct literal the struct writer refuses.
   */
  setArgument<I extends ArgumentIndex<A>>(
    index: I,
    value: ArgumentValue<A[I & keyof A]>,
  ): void;
  /** Same, by parameter name (checked when called). */
  setArgument(name: string, value: unknown): void;
  /**
   * The pNext chain of the struct that argument `index` points to, one object per struct with `type`
   * naming the struct. The loader's link structs (`VkLayerInstanceCreateInfo`, `VkLayerDeviceCreateInfo`)
   * and structs vk.xml does not know are left out. Empty for a null pointer.
   *
   * @example Turning a feature on for every device, and reading what the application asked for
   * ```ts
   * import { defineLayer } from "@vkdeno/loader/layers";
   * export default defineLayer({
   *   name: "VK_LAYER_example_draw_parameters",
   *   description: "Enables shaderDrawParameters",
   *   create: (env) => ({
   *     intercepts: {
   *       vkCreateDevice: {
   *         preCallRecord(ctx) {
   *           for (const link of ctx.chain(1)) {
   *             if (link.type === "VkPhysicalDeviceVulkan11Features") env.write(`asked: ${link.shaderDrawParameters}`);
   *           }
   *           ctx.removeFromChain(1, "VkPhysicalDeviceVulkan11Features");
   *           ctx.extendChain(1, { type: "VkPhysicalDeviceVulkan11Features", shaderDrawParameters: true });
   *         },
   *       },
   *     },
   *   }),
   * });
   * ```
   */
  chain<I extends ArgumentIndex<A>>(
    index: I,
  ): ExtendingStructRead<A[I & keyof A]>[];
  /** Same, by parameter name (untyped structs: only positions are typed). */
  chain(name: string): ExtendingStruct[];
  /**
   * Puts `links` (structs: `{ type: "VkPhysicalDeviceVulkan11Features", ... }`) at the front of the pNext chain of
   * the struct argument `index` points to, by replacing the argument with a copy: the application's struct
   * is not written. By position, only structs that extend that struct are accepted (`deno check`).
   */
  extendChain<I extends ArgumentIndex<A>>(
    index: I,
    ...links: ExtendingStructInput<A[I & keyof A]>[]
  ): void;
  /** Same, by parameter name (checked when called, structs untyped). */
  extendChain(name: string, ...links: ChainInput[]): void;
  /**
   * Removes every struct of type `type` from the pNext chain of the struct argument `index` points to
   * (copying the struct and the structs before it). Returns whether any was found.
   */
  removeFromChain(index: number | string, type: string): boolean;
  /**
   * Writes `value` through the output pointer argument `index` (`pMemory` of `vkAllocateMemory`): a
   * handle, a number (32 bits), a bigint (64 bits), or a struct's members. For a struct, only the members
   * given are written (a nested struct member by member), the others are left as they are; `pNext` lists
   * structs (`{ type, ...members }`) written the same way into the structs of that type the caller chained
   * (a type not chained is skipped: the caller did not ask for it). In a pre hook that skips the call it
   * answers in the driver's place; in a post hook it edits what the driver wrote, keeping its other values.
   *
   * @example A Profiles-style shim: the driver's answer, with a device name and a driver name of its own
   * ```ts
   * import { defineLayer } from "@vkdeno/loader/layers";
   * export default defineLayer({
   *   name: "VK_LAYER_example_profile",
   *   description: "Reports a profile's device name",
   *   create: () => ({
   *     intercepts: {
   *       vkGetPhysicalDeviceProperties2: {
   *         postCallRecord(ctx) {
   *           ctx.setOutput(1, {
   *             properties: { deviceName: "Profile GPU", limits: { maxImageDimension2D: 4096 } },
   *             pNext: [{ type: "VkPhysicalDeviceDriverProperties", driverName: "profile" }],
   *           });
   *         },
   *       },
   *     },
   *   }),
   * });
   * ```
   * @throws {TypeError} If the argument is null or not a pointer to writable memory, a `pNext` entry names no struct,
   *   or a pointer member is given something other than a pointer.
   */
  setOutput<I extends ArgumentIndex<A>>(
    index: I,
    value: OutputValue<A[I & keyof A]>,
  ): void;
  /** Same, by parameter name (checked when called). */
  setOutput(name: string, value: unknown): void;
  /** Memory that lives until the call returns, for values a hook hands to the next link. */
  readonly memory: Arena;
}

/**
 * {@linkcode CallContextOf} for command `K`: its arguments and result typed from the generated signature
 * (untyped for any command). A command and its aliases share one signature, so they share one context type
 * and one hooks object serves them all.
 */
export type CallContext<K extends VkCommandName = VkCommandName> = VkCommandName extends K
  ? CallContextOf<readonly unknown[], unknown>
  : CallContextOf<CommandArguments<K>, CommandResult<K>>;

/** What a skipped command returns unless its hook chose. */
export function skipValue(info: CommandInfo): unknown {
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

function isLiteral(v: unknown): v is object {
  return v !== null && typeof v === "object" &&
    (Array.isArray(v) || Object.getPrototypeOf(v) === Object.prototype);
}

/**
 * Writes the members `value` names into the struct `type` at `target`, leaving the others as they are (a
 * nested struct member by member), then the structs of `value.pNext` into the structs of the same type the
 * chain at `target` already holds (types it does not hold are skipped: the caller did not ask for them).
 */
function writeGiven(
  command: string,
  type: string,
  layout: StructLayout,
  value: Record<string, unknown>,
  target: Deno.PointerObject,
): void {
  const { pNext, ...members } = value;
  using scratch = new Arena();
  const written = writeStruct(scratch, type as never, members as never);
  copyGiven(
    command,
    type,
    layout,
    members,
    nativeBytes(target, layout.size),
    nativeBytes(written, layout.size),
    0,
  );
  if (pNext === undefined || pNext === null) return;
  if (layout.members[1]?.name !== "pNext") {
    throw new TypeError(`Cannot write extending structs through "${type}" of "${command}": it has no pNext`);
  }
  for (const link of Array.isArray(pNext) ? pNext : [pNext]) {
    const linkType = isLiteral(link) ? (link as { type?: unknown }).type : undefined;
    const linkLayout = typeof linkType === "string" ? findLayout(linkType) : undefined;
    if (linkLayout?.sType === undefined) {
      throw new TypeError(
        `Cannot write extending struct ${
          JSON.stringify(linkType ?? link)
        } of "${type}" of "${command}": expected { type, ...members } of a struct with sType`,
      );
    }
    for (
      let p = readPointer(target, 8), guard = 0;
      p !== null && guard < 256;
      p = readPointer(p, 8), guard++
    ) {
      if (readU32(p, 0) !== linkLayout.sType) continue;
      const { type: _, ...linkMembers } = link as Record<string, unknown>;
      writeGiven(command, linkType as string, linkLayout, linkMembers, p);
      break;
    }
  }
}

/** Copies from `from` to `to` (bytes of one struct at `base`) the members `value` gives. */
function copyGiven(
  command: string,
  type: string,
  layout: StructLayout,
  value: Record<string, unknown>,
  to: Uint8Array,
  from: Uint8Array,
  base: number,
): void {
  for (const m of layout.members) {
    if (m.name === "sType" || m.name === "pNext" || value[m.name] === undefined) continue;
    const v = value[m.name];
    const at = base + m.offset;
    const nested = m.pointer === 0 && m.count === undefined ? findLayout(m.type) : undefined;
    if (nested !== undefined && isLiteral(v) && !Array.isArray(v)) {
      copyGiven(command, m.type, nested, v as Record<string, unknown>, to, from, at);
    } else if (m.pointer > 0 && v !== null && !(typeof v === "object" && Object.getPrototypeOf(v) === null)) {
      // Whatever writeStruct made for it lives in scratch memory, gone when the call returns.
      throw new TypeError(
        `Cannot write "${type}.${m.name}" through an output of "${command}": a pointer member takes a pointer value only`,
      );
    } else if (m.bits !== undefined) {
      const view = new DataView(to.buffer, to.byteOffset), src = new DataView(from.buffer, from.byteOffset);
      const mask = ((2 ** m.bits - 1) << (m.bitOffset ?? 0)) >>> 0;
      view.setUint32(at, ((view.getUint32(at, true) & ~mask) | (src.getUint32(at, true) & mask)) >>> 0, true);
    } else {
      to.set(from.subarray(at, at + m.size), at);
    }
  }
}

/**
 * The chassis's call record: one per intercepted call at a time. The chassis keeps a record per command and
 * opens it again for the command's next call (no object made per call), so a hook reads it during its call only.
 */
export class Call implements CallContext {
  readonly command: VkCommandName;
  readonly info: CommandInfo;
  serial: number;
  readonly dispatch: Dispatch;
  state: StateTracker | null;
  readonly args: unknown[];
  result: unknown = undefined;
  skipped = false;
  /** True once the next link was called (or the call skipped): arguments are final. */
  after = false;
  #scratch: Map<object, unknown> | undefined;
  #memory: Arena | undefined;

  constructor(
    command: string,
    info: CommandInfo,
    serial: number,
    dispatch: Dispatch,
    state: StateTracker | null,
    args: unknown[],
  ) {
    this.command = command as VkCommandName;
    this.info = info;
    this.serial = serial;
    this.dispatch = dispatch;
    this.state = state;
    this.args = args;
  }

  get scratch(): Map<object, unknown> {
    return this.#scratch ??= new Map();
  }

  get memory(): Arena {
    return this.#memory ??= new Arena();
  }

  /** True once a hook used {@linkcode Call.memory}. */
  get hasMemory(): boolean {
    return this.#memory !== undefined;
  }

  /** Frees the call's memory (the chassis, once the call returned). */
  end(): void {
    this.#memory?.dispose();
    this.#memory = undefined;
  }

  /** Opens the record again for the next call of its command (the chassis, after {@linkcode Call.end}). */
  reopen(serial: number, state: StateTracker | null): void {
    this.serial = serial;
    this.state = state;
    this.result = undefined;
    this.skipped = false;
    this.after = false;
    this.#scratch?.clear();
  }

  /** Ends the call with `result` after a hook before it threw (the chassis). */
  fail(result: unknown): void {
    this.skipped = true;
    this.result = result;
  }

  skip(result?: unknown): void {
    if (this.after) throw new TypeError(`Cannot skip "${this.command}" from a post hook: the call was made`);
    this.skipped = true;
    this.result = result === undefined ? skipValue(this.info) : result;
  }

  #param(which: number | string, verb: string): [number, ParamInfo] {
    const params = this.info.params;
    const index = typeof which === "number" ? which : params.findIndex((p) => p.name === which);
    const param = params[index];
    if (param === undefined) {
      throw new TypeError(
        `Cannot ${verb} argument ${JSON.stringify(which)} of "${this.command}": no such parameter (it has ${
          params.map((p) => p.name).join(", ")
        })`,
      );
    }
    return [index, param];
  }

  #before(verb: string, param: ParamInfo): void {
    if (this.after) {
      throw new TypeError(
        `Cannot ${verb} "${param.name}" of "${this.command}" from a post hook: the call was made`,
      );
    }
  }

  setArgument(which: number | string, value: unknown): void {
    const [index, param] = this.#param(which, "replace");
    this.#before("replace", param);
    if (isLiteral(value) && param.pointer === 1 && findLayout(param.type) !== undefined) {
      const name = param.type as never;
      this.args[index] = Array.isArray(value)
        ? writeStructArray(this.memory, name, value as never)
        : writeStruct(this.memory, name, value as never);
      return;
    }
    this.args[index] = value;
  }

  #struct(which: number | string, verb: string): [number, ParamInfo, Deno.PointerValue] {
    const [index, param] = this.#param(which, verb);
    const layout = findLayout(param.type);
    if (param.pointer !== 1 || layout === undefined || layout.members[1]?.name !== "pNext") {
      throw new TypeError(
        `Cannot ${verb} the pNext chain of "${param.name}" of "${this.command}": it is not a pointer to a struct with pNext`,
      );
    }
    return [index, param, this.args[index] as Deno.PointerValue];
  }

  chain(which: number | string): ExtendingStruct[] {
    const [, , pointer] = this.#struct(which, "read");
    const out: ExtendingStruct[] = [];
    if (pointer === null) return out;
    for (
      let p = readPointer(pointer, 8), guard = 0;
      p !== null && guard < 256;
      p = readPointer(p, 8), guard++
    ) {
      const sType = readU32(p, 0);
      const type = Object.hasOwn(STRUCT_BY_STYPE, sType) ? STRUCT_BY_STYPE[sType] : undefined;
      if (type === undefined || findLayout(type) === undefined) continue;
      out.push({ ...readStructValue(type, p), type } as ExtendingStruct);
    }
    return out;
  }

  /** A copy of `size` bytes at `from` in the call's memory. */
  #copy(from: Deno.PointerObject, size: number): Deno.PointerObject {
    const buffer = this.memory.alloc(size, 8);
    buffer.set(nativeBytes(from, size));
    return this.memory.pointer(buffer);
  }

  extendChain(which: number | string, ...links: ChainInput[]): void {
    const [index, param, pointer] = this.#struct(which, "extend");
    this.#before("extend the pNext chain of", param);
    if (pointer === null) {
      throw new TypeError(
        `Cannot extend the pNext chain of "${param.name}" of "${this.command}": it is null`,
      );
    }
    let next = readPointer(pointer, 8);
    for (const { type, ...members } of [...links].reverse()) {
      next = writeStruct(this.memory, type as never, { ...members, pNext: next } as never);
    }
    const copy = this.#copy(pointer, sizeOfStruct(param.type as never));
    writePointer(copy, 8, next);
    this.args[index] = copy;
  }

  removeFromChain(which: number | string, type: string): boolean {
    const [index, param, pointer] = this.#struct(which, "edit");
    this.#before("edit the pNext chain of", param);
    const sType = findLayout(type)?.sType;
    if (sType === undefined) {
      throw new TypeError(`Cannot remove "${type}" from a pNext chain: no such struct`);
    }
    if (pointer === null) return false;
    const links: Deno.PointerObject[] = [];
    let last = -1;
    for (let p = readPointer(pointer, 8); p !== null && links.length < 256; p = readPointer(p, 8)) {
      if (readU32(p, 0) === sType) last = links.length;
      links.push(p);
    }
    if (last < 0) return false;
    const head = this.#copy(pointer, sizeOfStruct(param.type as never));
    let tail: Deno.PointerObject = head;
    for (let i = 0; i <= last; i++) {
      const link = links[i]!;
      const s = readU32(link, 0);
      if (s === sType) continue;
      const known = STRUCT_BY_STYPE[s];
      const size = LOADER_STRUCT_SIZE[s] ?? (known === undefined ? undefined : findLayout(known)?.size);
      if (size === undefined) {
        throw new TypeError(
          `Cannot remove "${type}" from the pNext chain of "${param.name}" of "${this.command}": an unknown struct (sType ${s}) comes before it`,
        );
      }
      const copy = this.#copy(link, size);
      writePointer(tail, 8, copy);
      tail = copy;
    }
    writePointer(tail, 8, links[last + 1] ?? null);
    this.args[index] = head;
    return true;
  }

  setOutput(which: number | string, value: unknown): void {
    const [index, param] = this.#param(which, "write");
    const pointer = this.args[index] as Deno.PointerValue;
    if (param.pointer < 1 || param.const) {
      throw new TypeError(`Cannot write through "${param.name}" of "${this.command}": it is not an output`);
    }
    if (pointer === null) {
      throw new TypeError(`Cannot write through "${param.name}" of "${this.command}": it is null`);
    }
    if (typeof value === "bigint") return writeU64(pointer, 0, value);
    if (typeof value === "number") return writeU32(pointer, 0, value);
    const layout = findLayout(param.type);
    if (isLiteral(value) && !Array.isArray(value) && layout !== undefined) {
      return writeGiven(this.command, param.type, layout, value as Record<string, unknown>, pointer);
    }
    if (value === null || (typeof value === "object" && Object.getPrototypeOf(value) === null)) {
      return writePointer(pointer, 0, value as Deno.PointerValue);
    }
    throw new TypeError(
      `Cannot write through "${param.name}" of "${this.command}": expected a handle, a number, a bigint or a struct's members`,
    );
  }
}
