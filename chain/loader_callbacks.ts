/**
 * The C callbacks one loader hands out and keeps open until it is disposed: the terminator link's entry
 * points (its `vkGetInstanceProcAddr` answers), the loader's emulations of commands a driver leaves
 * empty (chain/emulation.ts), and the C pointers of the loader's trampolines. Each is made once per
 * command and kept, since every `vkCreateInstance` asks for all of them again.
 *
 * @module
 */

import { COMMAND_INDEX, COMMANDS } from "../vk/generated/commands.ts";
import { CallbackOwner } from "../ffi/callback.ts";
import { commandCallbackDef, commandDef } from "../vk/command_ffi.ts";
import type { Logger } from "../loading/log.ts";
import { VK_ERROR_UNKNOWN } from "../vk/generated/vk_constants.js";
import { emulation } from "./emulation.ts";
import type { HandleMaps, LoaderInstance } from "./objects.ts";
import type { ChainStubs } from "./stubs.ts";
import { unknownPhysicalDeviceSlot, unknownSlotDef } from "./unknown.ts";
import type { Pointer } from "../ffi/memory.ts";

type Fn = (...args: unknown[]) => unknown;

/** A command's terminator answers that are the same for every instance (its canonical name first). */
interface FixedTerminator {
  name?: string;
  body?: Pointer;
  stub: Pointer;
  /** Set once an instance's WSI said the name is not a WSI command (that depends on the name alone). */
  notWsi?: boolean;
}

/** What {@linkcode LoaderCallbacks} needs from its loader. */
export interface LoaderCallbacksOptions {
  /** The loader's handle maps (the emulations look handles up in them). */
  handleMaps: HandleMaps;
  /** The process's stubs. */
  stubs: ChainStubs;
  /** The log (a callback that throws is reported there). */
  log: Logger;
  /** The JavaScript bodies of the terminators the loader implements, by command name. */
  terminatorBodies: Readonly<Record<string, Fn>>;
}

/**
 * One loader's C callbacks.
 *
 * @example Usage
 * ```ts ignore
 * import { LoaderCallbacks } from "./loader_callbacks.ts";
 * declare const options: import("./loader_callbacks.ts").LoaderCallbacksOptions;
 * const callbacks = new LoaderCallbacks(options);
 * callbacks.dispose();
 * ```
 */
export class LoaderCallbacks {
  readonly #handleMaps: HandleMaps;
  readonly #stubs: ChainStubs;
  readonly #terminatorBodies: Readonly<Record<string, Fn>>;
  readonly #callbacks: CallbackOwner;
  readonly #trampolines = new Map<string, Deno.PointerObject>();
  readonly #terminators = new Map<string, Deno.PointerObject>();
  readonly #emulations = new Map<number, Deno.PointerObject | null>();
  readonly #fixedTerminators = new Map<string, FixedTerminator>();

  /** The callbacks of one loader. */
  constructor(options: LoaderCallbacksOptions) {
    this.#handleMaps = options.handleMaps;
    this.#stubs = options.stubs;
    this.#terminatorBodies = options.terminatorBodies;
    const log = options.log;
    this.#callbacks = new CallbackOwner({ report: (text) => log.error(text) });
  }

  /** The terminator link's `vkGetInstanceProcAddr` for `inst`. */
  terminatorProcAddr(inst: LoaderInstance, name: string): Pointer {
    // Asked for every instance command at every vkCreateInstance: what does not depend on the instance is
    // worked out once per name.
    let fixed = this.#fixedTerminators.get(name);
    if (fixed === undefined) {
      fixed = this.#fixedTerminator(name);
      this.#fixedTerminators.set(name, fixed);
    }
    if (fixed.name === undefined || fixed.body !== undefined) return fixed.body ?? null;
    if (fixed.notWsi === true || inst.wsi === undefined) return fixed.stub;
    const wsi = inst.wsi.terminator(fixed.name);
    if (wsi !== undefined) return wsi;
    // Most of the ~380 names asked at every vkCreateInstance are not WSI commands: asked once.
    fixed.notWsi = true;
    return fixed.stub;
  }

  /**
   * The terminator's answer to `vk_layerGetPhysicalDeviceProcAddr`: an unknown physical-device command's
   * terminator stub, else the terminator link's entry point.
   */
  terminatorPhysicalDeviceProcAddr(inst: LoaderInstance, name: string): Pointer {
    const s = unknownPhysicalDeviceSlot(name);
    return s === undefined
      ? this.terminatorProcAddr(inst, name)
      : this.#stubs.terminatorAddress(s, unknownSlotDef(s));
  }

  #fixedTerminator(name: string): FixedTerminator {
    const s = COMMAND_INDEX[name];
    const info = s === undefined ? undefined : COMMANDS[s];
    if (!info) return { stub: null };
    if (info.name in this.#terminatorBodies) {
      return { name: info.name, body: this.#terminator(info.name), stub: null };
    }
    const stub = info.level === "physical_device"
      ? this.#stubs.terminatorAddress(info.index, commandDef(info))
      : null;
    return { name: info.name, stub };
  }

  #terminator(name: string): Deno.PointerObject {
    let p = this.#terminators.get(name);
    if (!p) {
      p = this.#callback(name, this.#terminatorBodies[name]!, `terminator ${name}`);
      this.#terminators.set(name, p);
    }
    return p;
  }

  /** The loader's emulation of the command in slot `s` (chain/emulation.ts), or null when it has none. */
  emulation(s: number): Pointer {
    // Asked for every slot a driver leaves empty at every vkCreateInstance: "none" is kept too.
    const kept = this.#emulations.get(s);
    if (kept !== undefined) return kept;
    const body = emulation(s, this.#handleMaps);
    const p = body ? this.#callback(COMMANDS[s]!.name, body, `emulated ${COMMANDS[s]!.name}`) : null;
    this.#emulations.set(s, p);
    return p;
  }

  /** The C pointer of the trampoline of `primary` (a canonical name), made from `body()` the first time. */
  trampoline(primary: string, body: () => Fn): Deno.PointerObject {
    let p = this.#trampolines.get(primary);
    if (!p) {
      p = this.#callback(primary, body(), `trampoline ${primary}`);
      this.#trampolines.set(primary, p);
    }
    return p;
  }

  #callback(name: string, body: Fn, label: string): Deno.PointerObject {
    const info = COMMANDS[COMMAND_INDEX[name]!]!;
    const d = commandCallbackDef(info);
    const onError = info.ffi.result === "i32"
      ? VK_ERROR_UNKNOWN
      : info.ffi.result === "pointer"
      ? null
      : undefined;
    return this.#callbacks.create(d, body as never, { name: label, onError } as never).pointer;
  }

  /** Closes every callback: C must not call one afterwards. */
  dispose(): void {
    this.#callbacks.dispose();
  }
}
