/**
 * The process-wide native stubs of the chain, and the slot numbering every dispatch table shares.
 *
 * @module
 */

import { COMMAND_COUNT, COMMANDS } from "../vk/generated/commands.ts";
import { commandNameHashes, TRAMP_SYMBOL_PREFIX, trampSymbolHashes } from "../vk/generated/stub_hashes.ts";
import { DispatchStubs } from "../ffi/dispatch.ts";
import { STAMPED_QUEUE_SYMBOLS } from "../ffi/native_helpers.ts";
import { UnwrapStubs } from "../ffi/unwrap_stubs.ts";

/** Reserved slots for unknown device commands (as the Khronos loader's `MAX_NUM_UNKNOWN_EXTS`). */
export const UNKNOWN_DEVICE_SLOTS = 250;
/** Reserved slots for unknown physical-device commands. */
export const UNKNOWN_PHYSICAL_DEVICE_SLOTS = 250;
/** First unknown device slot. */
export const UNKNOWN_DEVICE_BASE: number = COMMAND_COUNT;
/** First unknown physical-device slot. */
export const UNKNOWN_PHYSICAL_DEVICE_BASE: number = COMMAND_COUNT + UNKNOWN_DEVICE_SLOTS;
/** Slots in every dispatch table. */
export const SLOT_COUNT: number = UNKNOWN_PHYSICAL_DEVICE_BASE + UNKNOWN_PHYSICAL_DEVICE_SLOTS;

/**
 * Slots in a device's dispatch table: {@linkcode SLOT_COUNT}, then the hidden words that the native
 * stamped-queue helpers call (the next `vkGetDeviceQueue`, then the next `vkGetDeviceQueue2`).
 */
export const DEVICE_TABLE_SLOTS: number = SLOT_COUNT + STAMPED_QUEUE_SYMBOLS.length;

let slotNameList: readonly string[] | undefined;

/**
 * The symbol name of every slot, in slot order (one frozen list: both stub objects check it, once:
 * ffi/elf.ts). Built when the first stubs are loaded, not at import: listing the names decodes all 737
 * command entries, which made V8 compile the decoders with Maglev during the import, paging in ~2.5 MiB
 * of Deno's code for a script that only imports mod.ts.
 *
 * @example Usage
 * ```ts
 * import { slotNames } from "./stubs.ts";
 * console.log(slotNames()[0], slotNames() === slotNames()); // "vkCreateInstance" true
 * ```
 */
export function slotNames(): readonly string[] {
  if (slotNameList) return slotNameList;
  // Inline loops, not `map` / `Array.from` callbacks: a small function run ~700 times is compiled by
  // Maglev, and the process's first optimising compile pages in ~2.4 MiB of Deno's code.
  const names: string[] = [];
  for (let i = 0; i < COMMANDS.length; i++) names.push(COMMANDS[i]!.name);
  for (let i = 0; i < UNKNOWN_DEVICE_SLOTS; i++) names.push(`vkdeno_unknown_device_${i}`);
  for (let i = 0; i < UNKNOWN_PHYSICAL_DEVICE_SLOTS; i++) names.push(`vkdeno_unknown_physical_device_${i}`);
  return slotNameList = Object.freeze(names);
}

/** Byte layout of the loader's physical-device objects. */
export const TRAMP_TABLE_OFFSET = 0;
/** Offset of the next level's handle in a trampoline physical device. */
export const TRAMP_HANDLE_OFFSET = 8;
/** Offset of the driver's function table in a terminator physical device (word 0 is the instance table). */
export const TERM_TABLE_OFFSET = 8;
/** Offset of the driver's `VkPhysicalDevice` in a terminator physical device. */
export const TERM_HANDLE_OFFSET = 16;

const TRAMP_SET = 0;
const TERM_SET = 1;

/**
 * A Vulkan command as an untyped JavaScript function taking the C parameter list: what layer dispatch
 * tables hold. The public command object is typed per command (`VulkanCommands`).
 */
// deno-lint-ignore no-explicit-any
export type VulkanCommand = (...args: any[]) => any;

/**
 * The chain's stubs: one object per process.
 *
 * @example Usage
 * ```ts
 * import { chainStubs } from "./stubs.ts";
 * const stubs = chainStubs();
 * console.log(stubs.native);
 * ```
 */
export class ChainStubs {
  /** Dispatch stubs, one per slot. */
  readonly dispatch: DispatchStubs;
  /** Trampoline and terminator unwrap stubs, one pair per slot. */
  readonly unwrap: UnwrapStubs;

  constructor(options: { native?: boolean } = {}) {
    // Symbols only where a stub is bound by name (Deno.dlopen): the commands' dispatch and trampoline
    // stubs. Reserved slots and terminator stubs are found by address; each symbol costs every start a
    // name to hash and write (3,700 names took ~3 ms and ~2 MiB).
    // Their hashes come from tools/gen.ts (vk/generated/stub_hashes.ts), in slot order.
    this.dispatch = DispatchStubs.load(slotNames(), {
      native: options.native,
      exported: COMMAND_COUNT,
      hashes: commandNameHashes(),
    });
    this.unwrap = UnwrapStubs.load(slotNames(), [
      {
        prefix: TRAMP_SYMBOL_PREFIX,
        tableOffset: TRAMP_TABLE_OFFSET,
        handleOffset: TRAMP_HANDLE_OFFSET,
        hashes: trampSymbolHashes(),
      },
      { prefix: "vkdeno_term_", tableOffset: TERM_TABLE_OFFSET, handleOffset: TERM_HANDLE_OFFSET },
    ], { native: options.native, exported: [COMMAND_COUNT, 0] });
  }

  /** True when both stub objects are native code. */
  get native(): boolean {
    return this.dispatch.native && this.unwrap.native;
  }

  /**
   * The JavaScript function of dispatch stub `slot`. (Deno 2 lets any FFI call re-enter JavaScript
   * through a callback, so a slot holding a TypeScript terminator needs no special declaration.)
   */
  bindDispatch(slot: number, def: Deno.ForeignFunction, _mayCallJs = false): (...args: unknown[]) => unknown {
    return this.dispatch.bind(slot, def) as (...a: unknown[]) => unknown;
  }

  /** The JavaScript function of trampoline unwrap stub `slot` (physical-device commands). */
  bindTrampoline(slot: number, def: Deno.ForeignFunction): (...args: unknown[]) => unknown {
    return this.unwrap.bind(TRAMP_SET, slot, def) as (...args: unknown[]) => unknown;
  }

  /**
   * A slow-call function for trampoline unwrap stub `slot`, for the loader's own calls down the chain made
   * once per instance or per application call (vkEnumeratePhysicalDevices, vkDestroyInstance): declaring a
   * fast-call symbol costs every start ~0.1-0.3 ms, a call through UnsafeFnPointer ~2 us.
   */
  trampolineCaller(slot: number, def: Deno.ForeignFunction): (...args: unknown[]) => unknown {
    if (!this.unwrap.native) return this.bindTrampoline(slot, def);
    let fn = this.#callers.get(slot);
    if (fn === undefined) {
      const address = this.trampolineAddress(slot, def) as Deno.PointerObject<never>;
      const pointer = new Deno.UnsafeFnPointer(address, { parameters: def.parameters, result: def.result });
      fn = pointer.call.bind(pointer) as (...args: unknown[]) => unknown;
      this.#callers.set(slot, fn);
    }
    return fn;
  }

  #callers = new Map<number, (...args: unknown[]) => unknown>();

  /** The C address of dispatch stub `slot`. */
  dispatchAddress(slot: number, def: Deno.ForeignFunction): Deno.PointerObject {
    return this.dispatch.address(slot, def as Deno.UnsafeCallbackDefinition);
  }

  /** The C address of trampoline unwrap stub `slot`. */
  trampolineAddress(slot: number, def: Deno.ForeignFunction): Deno.PointerObject {
    return this.unwrap.address(TRAMP_SET, slot, def as Deno.UnsafeCallbackDefinition);
  }

  /** The C address of terminator unwrap stub `slot`. */
  terminatorAddress(slot: number, def: Deno.ForeignFunction): Deno.PointerObject {
    return this.unwrap.address(TERM_SET, slot, def as Deno.UnsafeCallbackDefinition);
  }

  /**
   * Device-table slots whose function the loader wraps in native code that stamps the new queue
   * (`vkGetDeviceQueue`, `vkGetDeviceQueue2`): slot -> the hidden slot holding the next function and the
   * helper's address. Empty where the helpers are not native (then the public commands stamp in
   * TypeScript, chain/trampoline.ts).
   */
  get stampedQueueSlots(): ReadonlyMap<
    number,
    { readonly next: number; readonly helper: Deno.PointerObject }
  > {
    if (this.#stamped) return this.#stamped;
    const made = new Map<number, { next: number; helper: Deno.PointerObject }>();
    const commands = ["vkGetDeviceQueue", "vkGetDeviceQueue2"] as const;
    const helpers = ([0, 1] as const).map((w) => this.unwrap.stampedQueueAddress(w));
    if (helpers[0] && helpers[1]) {
      commands.forEach((name, w) => {
        const slot = COMMANDS.findIndex((c) => c.name === name);
        made.set(slot, { next: SLOT_COUNT + w, helper: helpers[w]! });
      });
    }
    this.#stamped = made;
    return made;
  }

  #stamped: Map<number, { next: number; helper: Deno.PointerObject }> | undefined;

  /** What empty slots point to (returns `VK_ERROR_EXTENSION_NOT_PRESENT`); null without native stubs. */
  get errorFunction(): Deno.PointerValue {
    return this.unwrap.errorFunction;
  }
}

let shared: ChainStubs | undefined;

/**
 * The process's chain stubs, loaded on first use. The first caller's `native: false` forces the
 * `UnsafeFnPointer` fallback for the whole process (later callers share what was loaded).
 *
 * @example Usage
 * ```ts
 * import { chainStubs } from "./stubs.ts";
 * console.log(chainStubs() === chainStubs()); // true
 * ```
 */
export function chainStubs(options: { native?: boolean } = {}): ChainStubs {
  shared ??= new ChainStubs(options);
  return shared;
}
