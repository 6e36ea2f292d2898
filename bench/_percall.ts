/**
 * Per-call cases shared by bench/percall_bench.ts and bench/scaling_bench.ts: the same two commands
 * (`vkCmdSetLineWidth` on a recording command buffer, `vkGetDeviceQueue`) through every path, on devices
 * made through either loader.
 *
 * @module
 */

import { Arena } from "../ffi/memory.ts";
import { buildBenchLibrary } from "./_native.ts";
import { callLoop, type PairedCase } from "./_paired.ts";
import { BenchDevice, type Command, type Commands, type RecordingCommandBuffer } from "./_vulkan.ts";

/** The two measured commands. */
export type Measured = "vkCmdSetLineWidth" | "vkGetDeviceQueue";

const DEFS = {
  vkCmdSetLineWidth: { parameters: ["pointer", "f32"], result: "void" },
  vkGetDeviceQueue: { parameters: ["pointer", "u32", "u32", "pointer"], result: "void" },
} as const;

/** A device made through one loader, with what the measured commands need. */
export class Subject implements Disposable {
  readonly label: string;
  readonly vk: Commands;
  readonly device: BenchDevice;
  readonly recording: RecordingCommandBuffer;
  readonly #arena = new Arena();
  readonly #queue: Deno.PointerObject;

  constructor(label: string, vk: Commands, layers: readonly string[] = []) {
    this.label = label;
    this.vk = vk;
    this.device = BenchDevice.create(vk, { layers });
    this.recording = this.device.recording();
    this.#queue = this.#arena.pointer(this.#arena.alloc(8));
  }

  /** The arguments of a measured command on this subject. */
  args(command: Measured): unknown[] {
    return command === "vkCmdSetLineWidth"
      ? [this.recording.commandBuffer, 1.0]
      : [this.device.device, 0, 0, this.#queue];
  }

  /** Untimed work before a batch of `command`. */
  prepare(command: Measured): (() => void) | undefined {
    return command === "vkCmdSetLineWidth" ? this.recording.restart : undefined;
  }

  /** A case calling `fn` with this subject's arguments. */
  case(name: string, command: Measured, fn: Command): PairedCase {
    const prepare = this.prepare(command);
    return {
      name,
      run: callLoop(`${this.label} ${name}`, fn, this.args(command)),
      ...(prepare ? { prepare } : {}),
    };
  }

  /** The loader's public command (`vk.vkCmdSetLineWidth`: libvulkan's exported symbol, or vkdeno's). */
  publicCase(name: string, command: Measured): PairedCase {
    return this.case(name, command, this.vk[command]!);
  }

  /** The per-device table's command (`vk.deviceTable(device)[command]`). */
  tableCase(name: string, command: Measured): PairedCase {
    return this.case(name, command, this.device.table[command]!);
  }

  /**
   * `Deno.UnsafeFnPointer` on what `vkGetDeviceProcAddr` returns (the driver's function, or the first
   * layer's): what a loader that calls drivers from JavaScript would do.
   */
  naiveCase(name: string, command: Measured): PairedCase {
    const cname = this.#arena.cstring(command);
    const pointer = this.vk.vkGetDeviceProcAddr!(this.device.device, cname) as Deno.PointerObject | null;
    if (!pointer) throw new Error(`Cannot benchmark "${command}": vkGetDeviceProcAddr returned NULL`);
    const fn = new Deno.UnsafeFnPointer(pointer as Deno.PointerObject<never>, DEFS[command]);
    const call = fn.call.bind(fn) as Command;
    return this.case(name, command, call);
  }

  [Symbol.dispose](): void {
    this.device[Symbol.dispose]();
    this.#arena.dispose();
  }
}

/** The FFI floor: C no-ops with the measured signatures, declared with `Deno.dlopen`. */
export async function floorSymbols(): Promise<Record<Measured, Command>> {
  const path = await buildBenchLibrary("noop");
  const lib = Deno.dlopen(path, {
    bench_cmd_set_line_width: DEFS.vkCmdSetLineWidth,
    bench_get_device_queue: DEFS.vkGetDeviceQueue,
  });
  return {
    vkCmdSetLineWidth: lib.symbols.bench_cmd_set_line_width,
    vkGetDeviceQueue: lib.symbols.bench_get_device_queue,
  };
}

/** The floor case for `command`, with a subject's arguments (the no-op reads none of them). */
export function floorCase(
  name: string,
  floor: Record<Measured, Command>,
  subject: Subject,
  command: Measured,
): PairedCase {
  return { name, run: callLoop(`floor ${name}`, floor[command], subject.args(command)) };
}

/**
 * vkdeno's command object, or undefined while mod.ts does not export `Vulkan` yet (the benches then
 * measure the reference side only).
 */
export async function loadVkdeno(): Promise<(Commands & Disposable) | undefined> {
  const mod = await import("../mod.ts") as Record<string, unknown>;
  const Vulkan = mod.Vulkan as { load(): Commands & Disposable } | undefined;
  return Vulkan?.load();
}

/**
 * A subject on `vk`, or the reason there is none: no command object yet (mod.ts without `Vulkan`),
 * or creation failed (a loader that does not support layers yet answers `VK_ERROR_LAYER_NOT_PRESENT`).
 */
export function trySubject(
  label: string,
  vk: Commands | undefined,
  layers: readonly string[] = [],
): [Subject | undefined, string | undefined] {
  if (!vk) return [undefined, "mod.ts has no Vulkan yet"];
  try {
    return [new Subject(label, vk, layers), undefined];
  } catch (error) {
    return [undefined, `creating its device failed (${error instanceof Error ? error.message : error})`];
  }
}
