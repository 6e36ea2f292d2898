/**
 * Soak: instance + device create/destroy cycles on a real driver, measuring resident memory growth after
 * warm-up and the native resources left at the end (options: docs/tools.md).
 *
 * @module
 */

import {
  loadCounters,
  type ResourceCounts,
  resourceCounts,
  soak,
  type SoakReport,
} from "../tests/support/reliability_soak.ts";
import { LAVAPIPE } from "../tests/support/lavapipe.ts";

interface Args {
  loader: string;
  cycles: number;
  warmup: number;
  layers: string[];
  driver: string;
  json: boolean;
  hold: boolean;
  enumerate: boolean;
  label: string;
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = {
    loader: "vkdeno",
    cycles: 10_000,
    warmup: -1,
    layers: [],
    driver: LAVAPIPE,
    json: false,
    hold: false,
    enumerate: false,
    label: "",
  };
  for (const a of argv) {
    const text = a.replace(/^--/, "");
    const eq = text.indexOf("=");
    const [key, value] = eq < 0 ? [text, ""] : [text.slice(0, eq), text.slice(eq + 1)];
    if (key === "loader") args.loader = value;
    else if (key === "cycles") args.cycles = Number(value);
    else if (key === "warmup") args.warmup = Number(value);
    else if (key === "layer") args.layers.push(value);
    else if (key === "driver") args.driver = value;
    else if (key === "json") args.json = true;
    else if (key === "hold") args.hold = true;
    else if (key === "enumerate") args.enumerate = true;
    else if (key === "label") args.label = value;
    else throw new TypeError(`Unknown option "${a}"`);
  }
  if (!Number.isInteger(args.cycles) || args.cycles <= 0) {
    throw new RangeError(`Invalid value for --cycles "${args.cycles}": must be a positive integer`);
  }
  if (args.warmup < 0) args.warmup = Math.min(args.cycles, Math.max(50, Math.floor(args.cycles / 10)));
  return args;
}

function mib(bytes: number): string {
  return `${(bytes / (1 << 20)).toFixed(2)} MiB`;
}

/** The soak's result as tools and tests read it. */
export interface SoakOutput extends SoakReport {
  /** `vkdeno` or `libvulkan`. */
  loader: string;
  /** Instance layers enabled in every cycle. */
  layers: string[];
  /** Whether one more instance stayed alive throughout (`--hold`). */
  hold: boolean;
  /** `--label`, e.g. the V8 flags of the run. */
  label: string;
  /** Live native resources before the loader was made. */
  countsBefore: ResourceCounts;
  /** Live native resources after the loader was disposed. */
  countsAfterDispose: ResourceCounts;
  /** Whether `gc()` was available (`--v8-flags=--expose-gc`), so RSS was read after a full collection. */
  gcExposed: boolean;
}

export type { ResourceCounts, SoakReport };

/**
 * Runs the soak with command-line style arguments.
 *
 * @example Usage
 * ```ts ignore
 * import { runSoak } from "./soak.ts";
 * const out = await runSoak(["--cycles=100"]);
 * console.log(out.growth);
 * ```
 */
export async function runSoak(argv: readonly string[]): Promise<SoakOutput> {
  const args = parseArgs(argv);
  await loadCounters();
  const vars = { VK_DRIVER_FILES: args.driver, VK_LOADER_LAYERS_DISABLE: "~implicit~" };
  const countsBefore = resourceCounts();
  // deno-lint-ignore no-explicit-any
  let vk: any;
  if (args.loader === "libvulkan") {
    for (const [k, v] of Object.entries(vars)) Deno.env.set(k, v);
    const { openLibvulkan } = await import("../tests/support/libvulkan.ts");
    vk = openLibvulkan();
  } else if (args.loader === "vkdeno") {
    const { Vulkan } = await import("../vulkan.ts");
    const env = { vars: { ...Deno.env.toObject(), ...vars }, elevated: false };
    vk = Vulkan.load({ env });
  } else {
    throw new TypeError(`Unknown loader "${args.loader}": expected "vkdeno" or "libvulkan"`);
  }
  let report: SoakReport;
  try {
    report = soak(vk, {
      cycles: args.cycles,
      warmup: args.warmup,
      layers: args.layers,
      hold: args.hold,
      enumerateOnly: args.enumerate,
      progress: args.json ? undefined : (i, rss) => console.error(`cycle ${i}: rss ${mib(rss)}`),
    });
  } finally {
    vk[Symbol.dispose]();
  }
  return {
    ...report,
    loader: args.loader,
    layers: args.layers,
    hold: args.hold,
    label: args.label,
    countsBefore,
    countsAfterDispose: resourceCounts(),
    gcExposed: typeof (globalThis as { gc?: unknown }).gc === "function",
  };
}

if (import.meta.main) {
  const out = await runSoak(Deno.args);
  if (Deno.args.includes("--json")) {
    console.log(JSON.stringify(out));
  } else {
    console.log(
      `loader ${out.loader}, device "${out.device}", layers [${out.layers.join(", ")}]${
        out.hold ? ", held" : ""
      }`,
    );
    console.log(`cycles ${out.cycles} (warm-up ${out.warmup}), ${out.msPerCycle.toFixed(2)} ms per cycle`);
    console.log(
      `rss: start ${mib(out.rssStart)}, after warm-up ${mib(out.rssAfterWarmup)}, end ${mib(out.rssEnd)}, ` +
        `growth after warm-up ${mib(out.growth)}${out.gcExposed ? "" : " (no --expose-gc)"}`,
    );
    console.log(
      `v8 heap used: after warm-up ${mib(out.heap.usedAfterWarmup)}, end ${mib(out.heap.usedEnd)}; ` +
        `external: ${mib(out.heap.externalAfterWarmup)} -> ${mib(out.heap.externalEnd)}; ` +
        `reserved: ${mib(out.heapTotal.afterWarmup)} -> ${mib(out.heapTotal.end)}`,
    );
    console.log(`malloc in use: after warm-up ${mib(out.malloc.afterWarmup)}, end ${mib(out.malloc.end)}`);
    console.log(`resources after warm-up ${JSON.stringify(out.countsAfterWarmup)}`);
    console.log(`resources at the end     ${JSON.stringify(out.countsEnd)}`);
    console.log(`resources after dispose  ${JSON.stringify(out.countsAfterDispose)}`);
  }
}
