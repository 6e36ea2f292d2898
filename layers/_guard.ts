/**
 * Thread guards in front of the C entry points TS layers hand out, in either placement: a call from a thread
 * other than the one that loaded the layers never enters the isolate; with one stderr line it goes down to the
 * next link untouched, or fails fast where the entry point has none (the creating commands).
 *
 * @module
 */
import type { CallbackOwner } from "../ffi/callback.ts";
import { commandCallbackDef } from "../vk/command_ffi.ts";
import { VK_ERROR_UNKNOWN } from "../vk/generated/vk_constants.js";
import { ThreadGuards } from "../ffi/thread_guard.ts";
import { commandInfo } from "./_commands.ts";
import type { TsLayer, VulkanCommand } from "./layer.ts";
import { commandFailure, type LayerCommand } from "./command.ts";

/** Guards added per emitted object once the first is full. */
const CHUNK = 32;
/** Room for the message: the fixed text plus several layer names. */
const MESSAGE_BYTES = 1024;

/** What another thread's call returns and the name the message gives it, from the command's C result. */
function refusal(command: string | LayerCommand): { value: bigint; text: string } {
  const result = typeof command === "string"
    ? commandInfo(command).result
    : { i32: "VkResult", void: "void", pointer: "void*", buffer: "void*", function: "PFN_" }[
      command.result as string
    ] ?? "number";
  if (result === "VkResult") return { value: BigInt(VK_ERROR_UNKNOWN), text: "VK_ERROR_UNKNOWN" };
  if (result === "void") return { value: 0n, text: "nothing" };
  return { value: 0n, text: result.startsWith("PFN_") || result.endsWith("*") ? "NULL" : "0" };
}

/**
 * Thread guards owned by the thread that makes this object, growing as entry points are guarded; where guards
 * are not written (not x86-64 Linux) every entry point is handed out as it is.
 */
export class EntryGuards implements Disposable {
  readonly #layers: () => readonly TsLayer[];
  readonly #sets: ThreadGuards[] = [];
  /** Free guards in the last set. */
  #free = 0;
  #next: number;
  #unavailable = false;

  /** Guards naming `layers()` (read at each guard), the first object sized for `reserve` entry points. */
  constructor(layers: () => readonly TsLayer[], reserve = CHUNK) {
    this.#layers = layers;
    this.#next = Math.max(1, reserve);
  }

  /**
   * `callback`, the C entry point of `command`, behind a guard: other threads' calls go to `forward` (the
   * next link's function) without the layers' hooks, or without one get `VK_ERROR_UNKNOWN` for a `VkResult`
   * command (0 or NULL otherwise, nothing for `void`); either way one stderr line names the layers.
   */
  guard(
    command: string | LayerCommand,
    callback: Deno.PointerObject,
    forward: Deno.PointerValue = null,
  ): Deno.PointerObject {
    const set = this.#set();
    if (set === undefined) return callback;
    const names = this.#layers().map((l) => `"${l.name}"`);
    const { value, text } = refusal(command);
    const outcome = forward === null
      ? `the call was not made and returns ${text}`
      : "the call went down to the next link without the layer's hooks";
    return set.guard(
      callback,
      `vkdeno: TS layer${names.length === 1 ? "" : "s"} ${names.join(", ")}: ${
        typeof command === "string" ? command : command.name
      } was called from a thread other than the one that loaded the layer (a Worker?); a TS layer runs only on that thread, so ${outcome}\n`,
      value,
      forward,
    );
  }

  /**
   * The C entry points of `command` running `fn` (one callback made in `callbacks`, named `label`), behind
   * guards: one per next-link function other threads' calls go down to (the function returned makes or finds
   * it; null: they fail). A throw from `fn` answers what a refused call gets.
   */
  command(
    callbacks: CallbackOwner,
    command: string | LayerCommand,
    fn: VulkanCommand,
    label: string,
  ): (forward: Deno.PointerValue) => Deno.PointerObject {
    const info = typeof command === "string" ? commandInfo(command) : undefined;
    const def = typeof command === "string"
      ? commandCallbackDef(info!)
      : { parameters: command.parameters, result: command.result } as Deno.UnsafeCallbackDefinition;
    const onError = info === undefined
      ? commandFailure(def.result) ?? undefined
      : info.result === "VkResult"
      ? VK_ERROR_UNKNOWN
      : info.ffi.result === "u64" || info.ffi.result === "i64"
      ? 0n
      : info.ffi.result === "void" || info.ffi.result === "pointer"
      ? undefined
      : 0;
    const callback = callbacks.create(
      def,
      fn as Deno.UnsafeCallbackFunction,
      { name: label, onError: onError as never },
    );
    const guarded = new Map<bigint, Deno.PointerObject>();
    return (forward) => {
      const key = BigInt(Deno.UnsafePointer.value(forward));
      let p = guarded.get(key);
      if (p === undefined) guarded.set(key, p = this.guard(command, callback.pointer, forward));
      return p;
    };
  }

  /** A set with a free guard (a new one when the last is full), or undefined where guards are not written. */
  #set(): ThreadGuards | undefined {
    if (this.#unavailable) return undefined;
    if (this.#free === 0) {
      const made = ThreadGuards.create(this.#next, MESSAGE_BYTES);
      if (made === undefined) {
        this.#unavailable = true;
        return undefined;
      }
      this.#sets.push(made);
      this.#free = made.capacity;
      this.#next = CHUNK;
    }
    this.#free--;
    return this.#sets.at(-1);
  }

  /** Unloads every guard: nothing may call an entry point handed out afterwards. */
  [Symbol.dispose](): void {
    for (const set of this.#sets.splice(0)) set.dispose();
    this.#free = 0;
  }
}
