/**
 * The soak loop shared by `tests/reliability/soak_test.ts` (short) and `tools/soak.ts` (long): instance + device
 * create/destroy cycles through a loader's command object, with resident memory and the native-resource
 * counters (callbacks, arenas, libraries, dispatch tables, layer libraries, drivers) read before, after
 * warm-up and at the end.
 *
 * @module
 */

import { CallbackOwner } from "../../ffi/callback.ts";
import { DispatchTable } from "../../ffi/dispatch.ts";
import { Library } from "../../ffi/library.ts";
import { Arena } from "../../ffi/memory.ts";
import { enumerate, makeApiVersion, writeStruct } from "../../api/structs.ts";

// deno-lint-ignore no-explicit-any
type Fn = (...args: any[]) => any;

/** The commands a cycle calls (both loaders' command objects have them). */
export interface SoakCommands {
  vkCreateInstance: Fn;
  vkDestroyInstance: Fn;
  vkEnumeratePhysicalDevices: Fn;
  vkGetPhysicalDeviceProperties: Fn;
  vkCreateDevice: Fn;
  vkGetDeviceQueue: Fn;
  vkDestroyDevice: Fn;
}

/** Native resources alive at one moment. */
export interface ResourceCounts {
  /** `CallbackOwner.liveCount`: Deno.UnsafeCallbacks not closed. */
  callbacks: number;
  /** `Arena.liveCount`: native-memory arenas not disposed. */
  arenas: number;
  /** `Library.liveCount`: libraries open through `Library.open`. */
  libraries: number;
  /** `DispatchTable.liveCount`: dispatch tables not disposed. */
  tables: number;
  /** `LayerLibrary.liveCount`: layer library uses not released. */
  layerLibraries: number;
  /** `loadedDriverCount()`: driver libraries loaded. */
  drivers: number;
}

let layerLibraryCount = () => 0;
let driverCount = () => 0;

/** Loads the chain's counters when the chain exists (call once before {@linkcode resourceCounts}). */
export async function loadCounters(): Promise<void> {
  try {
    const { LayerLibrary } = await import("../../loading/layer_library.ts");
    layerLibraryCount = () => LayerLibrary.liveCount;
  } catch {
    // no layer chain in this tree
  }
  try {
    const { loadedDriverCount } = await import("../../loading/driver.ts");
    driverCount = loadedDriverCount;
  } catch {
    // no driver loading in this tree
  }
}

/** Reads every live counter the project keeps. */
export function resourceCounts(): ResourceCounts {
  return {
    callbacks: CallbackOwner.liveCount,
    arenas: Arena.liveCount,
    libraries: Library.liveCount,
    tables: DispatchTable.liveCount,
    layerLibraries: layerLibraryCount(),
    drivers: driverCount(),
  };
}

/** Options of {@linkcode soak}. */
export interface SoakOptions {
  cycles: number;
  /** Cycles before the RSS baseline is taken. */
  warmup: number;
  /** Instance layers to enable (e.g. the validation layer). */
  layers?: readonly string[];
  /**
   * Keep one extra instance alive for the whole soak, so drivers and layer libraries stay loaded and the
   * figures show the loader's own per-cycle memory, without dlopen/dlclose churn.
   */
  hold?: boolean;
  /**
   * Instead of whole cycles, call `vkEnumeratePhysicalDevices` (count, then fill) on the held instance:
   * isolates the loader's per-call memory of one instance-level trampoline. Implies `hold`.
   */
  enumerateOnly?: boolean;
  /** Called every `every` cycles with the cycle number and RSS in bytes. */
  progress?: (cycle: number, rss: number) => void;
  every?: number;
}

/** What a soak measured. */
export interface SoakReport {
  /** Cycles run. */
  cycles: number;
  /** Cycles before the baseline. */
  warmup: number;
  /** The device of the last cycle (`deviceName`). */
  device: string;
  /** Resident memory before the first cycle, bytes. */
  rssStart: number;
  /** Resident memory after warm-up, bytes. */
  rssAfterWarmup: number;
  /** Resident memory at the end, bytes. */
  rssEnd: number;
  /** RSS growth from the end of warm-up to the end, bytes. */
  growth: number;
  /** Native resources between cycles after warm-up (no cycle's instance alive). */
  countsAfterWarmup: ResourceCounts;
  /** Native resources at the end, the loader still alive. */
  countsEnd: ResourceCounts;
  /** Milliseconds per cycle after warm-up. */
  msPerCycle: number;
  /** RSS samples (cycle, bytes) for plotting. */
  samples: [number, number][];
  /** V8 heap in use and external (ArrayBuffer) memory after warm-up and at the end, bytes. */
  heap: { usedAfterWarmup: number; usedEnd: number; externalAfterWarmup: number; externalEnd: number };
  /** Bytes V8 has reserved for its heap, after warm-up and at the end. */
  heapTotal: { afterWarmup: number; end: number };
  /** glibc malloc: bytes in use (mallinfo2 `uordblks`) after warm-up and at the end; -1 if unknown. */
  malloc: { afterWarmup: number; end: number };
}

function check(result: number, what: string): void {
  if (result !== 0) throw new Error(`${what} returned VkResult "${result}"`);
}

let mallinfo: (() => number) | undefined;

/** Bytes in use in glibc's malloc arenas (`mallinfo2().uordblks`), or -1. */
export function mallocInUse(): number {
  if (mallinfo === undefined) {
    try {
      const libc = Deno.dlopen(
        "libc.so.6",
        {
          mallinfo2: { parameters: [], result: { struct: Array(10).fill("usize") } },
        } as const,
      );
      mallinfo = () => {
        const bytes = libc.symbols.mallinfo2() as Uint8Array;
        return Number(new BigUint64Array(bytes.buffer, bytes.byteOffset, 10)[7]!);
      };
    } catch {
      mallinfo = () => -1;
    }
  }
  return mallinfo();
}

function rss(): number {
  return Deno.memoryUsage().rss;
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/**
 * One instance + device create/destroy cycle: create the instance, enumerate physical devices, create a
 * device on the first one's first queue family, get its queue, destroy both. Returns the device name.
 */
export function cycle(vk: SoakCommands, layers: readonly string[] = []): string {
  using arena = new Arena();
  const slot = new BigUint64Array(new ArrayBuffer(8));
  const out = Deno.UnsafePointer.of(slot);
  check(
    vk.vkCreateInstance(
      writeStruct(arena, "VkInstanceCreateInfo", {
        pApplicationInfo: { pApplicationName: "vkdeno soak", apiVersion: makeApiVersion(1, 3) },
        ppEnabledLayerNames: [...layers],
      }),
      null,
      out,
    ),
    "vkCreateInstance",
  );
  const instance = Deno.UnsafePointer.create(slot[0]!);
  try {
    const devices = enumerate(vk.vkEnumeratePhysicalDevices, [instance], {
      name: "vkEnumeratePhysicalDevices",
    });
    const pd = devices[0];
    if (!pd) throw new Error("No physical device");
    const props = arena.alloc(824);
    vk.vkGetPhysicalDeviceProperties(pd, arena.pointer(props));
    const nameEnd = props.indexOf(0, 20);
    const name = new TextDecoder().decode(props.subarray(20, nameEnd));
    slot[0] = 0n;
    check(
      vk.vkCreateDevice(
        pd,
        writeStruct(arena, "VkDeviceCreateInfo", {
          pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
        }),
        null,
        out,
      ),
      "vkCreateDevice",
    );
    const device = Deno.UnsafePointer.create(slot[0]!);
    const queue = new BigUint64Array(new ArrayBuffer(8));
    vk.vkGetDeviceQueue(device, 0, 0, Deno.UnsafePointer.of(queue));
    if (queue[0] === 0n) throw new Error("vkGetDeviceQueue returned no queue");
    vk.vkDestroyDevice(device, null);
    return name;
  } finally {
    vk.vkDestroyInstance(instance, null);
  }
}

/**
 * Runs `options.cycles` cycles and measures resident memory.
 *
 * @example Usage
 * ```ts ignore
 * import { openLibvulkan } from "./libvulkan.ts";
 * import { soak } from "./reliability_soak.ts";
 * using vk = openLibvulkan();
 * console.log(soak(vk as never, { cycles: 100, warmup: 20 }).growth);
 * ```
 */
export function soak(vk: SoakCommands, options: SoakOptions): SoakReport {
  let held: Deno.PointerValue = null;
  if (options.hold || options.enumerateOnly) {
    using arena = new Arena();
    const slot = new BigUint64Array(new ArrayBuffer(8));
    check(
      vk.vkCreateInstance(
        writeStruct(arena, "VkInstanceCreateInfo", { ppEnabledLayerNames: [...(options.layers ?? [])] }),
        null,
        Deno.UnsafePointer.of(slot),
      ),
      "vkCreateInstance",
    );
    held = Deno.UnsafePointer.create(slot[0]!);
  }
  try {
    return soakLoop(vk, options, held);
  } finally {
    if (held !== null) vk.vkDestroyInstance(held, null);
  }
}

function soakLoop(vk: SoakCommands, options: SoakOptions, held: Deno.PointerValue): SoakReport {
  const samples: [number, number][] = [];
  gc();
  const rssStart = rss();
  let device = "";
  let rssAfterWarmup = rssStart;
  let countsAfterWarmup = resourceCounts();
  let heapAfterWarmup = Deno.memoryUsage();
  let mallocAfterWarmup = mallocInUse();
  let t0 = performance.now();
  const every = options.every ?? Math.max(1, Math.floor(options.cycles / 50));
  for (let i = 1; i <= options.cycles; i++) {
    if (options.enumerateOnly) {
      device = `${
        enumerate(vk.vkEnumeratePhysicalDevices, [held], { name: "vkEnumeratePhysicalDevices" }).length
      } device(s)`;
    } else device = cycle(vk, options.layers);
    if (i === options.warmup) {
      gc();
      rssAfterWarmup = rss();
      countsAfterWarmup = resourceCounts();
      heapAfterWarmup = Deno.memoryUsage();
      mallocAfterWarmup = mallocInUse();
      t0 = performance.now();
    }
    if (i % every === 0) {
      const now = rss();
      samples.push([i, now]);
      options.progress?.(i, now);
    }
  }
  const ms = (performance.now() - t0) / Math.max(1, options.cycles - options.warmup);
  gc();
  const rssEnd = rss();
  const heapEnd = Deno.memoryUsage();
  return {
    cycles: options.cycles,
    warmup: options.warmup,
    device,
    rssStart,
    rssAfterWarmup,
    rssEnd,
    growth: rssEnd - rssAfterWarmup,
    countsAfterWarmup,
    countsEnd: resourceCounts(),
    msPerCycle: ms,
    samples,
    heap: {
      usedAfterWarmup: heapAfterWarmup.heapUsed,
      usedEnd: heapEnd.heapUsed,
      externalAfterWarmup: heapAfterWarmup.external,
      externalEnd: heapEnd.external,
    },
    heapTotal: { afterWarmup: heapAfterWarmup.heapTotal, end: heapEnd.heapTotal },
    malloc: { afterWarmup: mallocAfterWarmup, end: mallocInUse() },
  };
}
