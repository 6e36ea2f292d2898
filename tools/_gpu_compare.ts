/**
 * The judging side of tools/gpu_check.ts, kept free of processes and drivers so that
 * tests/tools/gpu_check_test.ts can feed it made-up inputs: the negotiated interface from `VK_LOADER_DEBUG=driver`
 * lines, the comparison of two `deno task info --json` reports, the physical-device ordering verdict, the
 * per-call benchmark summary, and the TS layers' verdict over both placements.
 *
 * @module
 */

import { median, type PairedOutput } from "../bench/_paired.ts";
import type { InfoReport } from "../examples/info.ts";
import type { TsLayersProbe } from "./_gpu_tslayers.ts";

/** One driver's negotiation, as vkdeno's `VK_LOADER_DEBUG=driver` log states it. */
export interface Negotiation {
  /** Manifest file name. */
  manifest: string;
  library: string;
  interfaceVersion: number;
  /** The manifest's Vulkan version, "M.m.p". */
  apiVersion: string;
}

const NEGOTIATED = /Driver "([^"]+)" \("([^"]*)"\) negotiated interface (\d+), Vulkan (\d+\.\d+\.\d+)/;

/**
 * The negotiations stated in a vkdeno log (one per driver; a driver loaded again by a later instance is
 * listed once).
 *
 * @example Usage
 * ```ts
 * import { parseNegotiations } from "./_gpu_compare.ts";
 * const line = 'INFO | DRIVER:    Driver "nvidia_icd.json" ("libGLX_nvidia.so.0") negotiated interface 7, Vulkan 1.4.312';
 * console.log(parseNegotiations(line)[0]?.interfaceVersion); // 7
 * ```
 */
export function parseNegotiations(log: string): Negotiation[] {
  const seen = new Map<string, Negotiation>();
  for (const line of log.split("\n")) {
    const m = NEGOTIATED.exec(line);
    if (!m) continue;
    const key = `${m[1]}\0${m[2]}`;
    if (!seen.has(key)) {
      seen.set(key, { manifest: m[1]!, library: m[2]!, interfaceVersion: Number(m[3]), apiVersion: m[4]! });
    }
  }
  return [...seen.values()];
}

/** One device as both loaders report it. */
export interface DeviceRow {
  name: string;
  type: string;
  apiVersion: string;
  driverVersion: number;
  vendorID: number;
  deviceID: number;
  extensions: { vkdeno: number; libvulkan: number };
}

/** The result of comparing vkdeno's and libvulkan's info reports. */
export interface InfoComparison {
  equal: boolean;
  /** What differs, one sentence each (empty when equal). */
  differences: string[];
  /**
   * Differences with a known cause that is no fault of either loader: an extension vkdeno lists and
   * libvulkan filters out because its headers predate it (the Khronos loader keeps only driver instance
   * extensions it knows).
   */
  explained: string[];
  instanceExtensions: { vkdeno: number; libvulkan: number };
  instanceVersion: { vkdeno: string; libvulkan: string };
  devices: DeviceRow[];
}

/** Extensions the loader itself implements that Debian's libvulkan 1.3.239 knows by name but does not offer. */
const LOADER_EXTENSIONS_NEWER_THAN_REFERENCE: readonly string[] = ["VK_LUNARG_direct_driver_loading"];

function setDifference(a: readonly string[], b: readonly string[]): string[] {
  const other = new Set(b);
  return a.filter((x) => !other.has(x));
}

/** Options of {@linkcode compareInfo}. */
export interface CompareOptions {
  /** Whether the reference loader knows an extension name (see {@linkcode binaryKnows}). */
  referenceKnows?: (extension: string) => boolean;
}

/**
 * Whether a library's bytes hold `name` as a NUL-terminated string: the Khronos loader compiles in the
 * names of the instance extensions it knows, and drops a driver's others from its list.
 *
 * @example Usage
 * ```ts
 * import { binaryKnows } from "./_gpu_compare.ts";
 * const bytes = new TextEncoder().encode("x\0VK_KHR_surface\0y");
 * console.log(binaryKnows(bytes)("VK_KHR_surface"), binaryKnows(bytes)("VK_NV_display_stereo")); // true false
 * ```
 */
export function binaryKnows(bytes: Uint8Array): (name: string) => boolean {
  // latin1 maps each byte to one UTF-16 unit, so indexOf on the string finds byte sequences.
  const text = new TextDecoder("latin1").decode(bytes);
  // No NUL looked for before the name: a linker may store it as the tail of a longer string. A false "known"
  // leaves a difference standing, which is the safe side.
  return (name) => text.includes(`${name}\0`);
}

/**
 * Compares two info reports: instance version and extensions, then the devices in order (name, type,
 * versions, IDs and extension lists), then the groups.
 *
 * @example Usage
 * ```ts
 * import { compareInfo } from "./_gpu_compare.ts";
 * const r = { instanceVersion: "1.4.0", layers: [], extensions: [], devices: [], groups: [] };
 * console.log(compareInfo(r, r).equal); // true
 * ```
 */
export function compareInfo(
  vkdeno: InfoReport,
  libvulkan: InfoReport,
  options: CompareOptions = {},
): InfoComparison {
  const differences: string[] = [];
  const explained: string[] = [];
  const onlyOurs = (name: string, where: string) => {
    if (LOADER_EXTENSIONS_NEWER_THAN_REFERENCE.includes(name)) {
      explained.push(
        `${where} "${name}" only in vkdeno: a loader extension libvulkan 1.3.239 does not implement`,
      );
    } else if (options.referenceKnows && !options.referenceKnows(name)) {
      explained.push(
        `${where} "${name}" only in vkdeno: libvulkan does not know it (newer than its headers)`,
      );
    } else differences.push(`${where} "${name}" only in vkdeno`);
  };
  // The instance version is each loader's own (vkdeno's headers against Debian's libvulkan): reported, not compared.
  const ours = vkdeno.extensions.map((e) => e.name);
  const theirs = libvulkan.extensions.map((e) => e.name);
  for (const name of setDifference(ours, theirs)) onlyOurs(name, "Instance extension");
  for (const name of setDifference(theirs, ours)) {
    differences.push(`Instance extension "${name}" only in libvulkan`);
  }
  if (vkdeno.devices.length !== libvulkan.devices.length) {
    differences.push(
      `Device count differs: vkdeno ${vkdeno.devices.length}, libvulkan ${libvulkan.devices.length}`,
    );
  }
  const devices: DeviceRow[] = [];
  const count = Math.min(vkdeno.devices.length, libvulkan.devices.length);
  for (let i = 0; i < count; i++) {
    const a = vkdeno.devices[i]!;
    const b = libvulkan.devices[i]!;
    for (const field of ["name", "type", "apiVersion", "driverVersion", "vendorID", "deviceID"] as const) {
      if (a[field] !== b[field]) {
        differences.push(
          `Device ${i} ${field} differs: vkdeno "${a[field]}", libvulkan "${b[field]}"`,
        );
      }
    }
    for (const name of setDifference(a.extensions, b.extensions)) onlyOurs(name, `Device ${i} extension`);
    for (const name of setDifference(b.extensions, a.extensions)) {
      differences.push(`Device ${i} extension "${name}" only in libvulkan`);
    }
    devices.push({
      name: a.name,
      type: a.type,
      apiVersion: a.apiVersion,
      driverVersion: a.driverVersion,
      vendorID: a.vendorID,
      deviceID: a.deviceID,
      extensions: { vkdeno: a.extensions.length, libvulkan: b.extensions.length },
    });
  }
  if (JSON.stringify(vkdeno.groups) !== JSON.stringify(libvulkan.groups)) {
    differences.push(
      `Device groups differ: vkdeno ${JSON.stringify(vkdeno.groups)}, libvulkan ${
        JSON.stringify(libvulkan.groups)
      }`,
    );
  }
  return {
    equal: differences.length === 0,
    differences,
    explained,
    instanceExtensions: { vkdeno: ours.length, libvulkan: theirs.length },
    instanceVersion: { vkdeno: vkdeno.instanceVersion, libvulkan: libvulkan.instanceVersion },
    devices,
  };
}

/** The ordering check's verdict. */
export interface OrderingVerdict {
  /** False when the run had no discrete GPU and CPU device together (nothing to order). */
  applicable: boolean;
  /** The discrete GPU comes before every CPU device in vkdeno's list. */
  discreteFirst: boolean;
  /** vkdeno lists the devices in libvulkan's order. */
  sameAsLibvulkan: boolean;
  vkdeno: OrderedDevice[];
  libvulkan: OrderedDevice[];
}

/** A device in a loader's order; `uuid` and `pci` tell identical GPUs apart. */
export interface OrderedDevice {
  name: string;
  type: string;
  uuid?: string;
  pci?: string;
}

/**
 * Judges the physical-device order of a run with a discrete GPU and a CPU device: the Khronos loader's
 * Linux sort puts discrete GPUs before CPUs, and vkdeno must agree with libvulkan device by device.
 *
 * @example Usage
 * ```ts
 * import { judgeOrdering } from "./_gpu_compare.ts";
 * const list = [{ name: "GPU", type: "DISCRETE_GPU" }, { name: "CPU", type: "CPU" }];
 * console.log(judgeOrdering(list, list).discreteFirst); // true
 * ```
 */
export function judgeOrdering(
  vkdeno: readonly OrderedDevice[],
  libvulkan: readonly OrderedDevice[],
): OrderingVerdict {
  const types = vkdeno.map((d) => d.type);
  const firstCpu = types.indexOf("CPU");
  const lastDiscrete = types.lastIndexOf("DISCRETE_GPU");
  const applicable = firstCpu >= 0 && lastDiscrete >= 0;
  const key = (l: readonly OrderedDevice[]) => JSON.stringify(l.map((d) => [d.name, d.type, d.uuid ?? ""]));
  const copy = (l: readonly OrderedDevice[]) =>
    l.map((d) => ({
      name: d.name,
      type: d.type,
      ...(d.uuid ? { uuid: d.uuid } : {}),
      ...(d.pci ? { pci: d.pci } : {}),
    }));
  return {
    applicable,
    discreteFirst: applicable && lastDiscrete < firstCpu,
    sameAsLibvulkan: key(vkdeno) === key(libvulkan),
    vkdeno: copy(vkdeno),
    libvulkan: copy(libvulkan),
  };
}

/** Case names of the GPU per-call benchmark (tools/_gpu_bench.ts). */
export const BENCH_CASES = {
  reference: "libvulkan export (reference)",
  floor: "floor: C no-op, Deno.dlopen",
  public: "vkdeno public command",
  table: "vkdeno device table",
} as const;

/** One command's per-call times (median of the runs' medians, ns) and ratios. */
export interface BenchRow {
  command: string;
  /** Case name -> ns per call. */
  ns: Record<string, number>;
  /** Median over runs of each run's median per-round ratio (NaN when a case is missing). */
  publicVsLibvulkan: number;
  publicVsFloor: number;
  libvulkanVsFloor: number;
  tableVsLibvulkan: number;
}

function caseSamples(run: PairedOutput, group: string, name: string): number[] | undefined {
  return run.groups.find((g) => g.name === group)?.cases.find((c) => c.name === name)?.samples;
}

function ratio(runs: readonly PairedOutput[], group: string, a: string, b: string): number {
  const per: number[] = [];
  for (const run of runs) {
    const sa = caseSamples(run, group, a);
    const sb = caseSamples(run, group, b);
    if (sa && sb && sa.length === sb.length && sa.length > 0) per.push(median(sa.map((x, i) => x / sb[i]!)));
  }
  return median(per);
}

/**
 * Summarises paired per-call runs (each group named after its command): per case the median over runs of
 * the runs' medians, per pair the median over runs of the median per-round ratio.
 *
 * @example Usage
 * ```ts ignore
 * import { summarizeBench } from "./_gpu_compare.ts";
 * console.log(summarizeBench(runs)[0]?.publicVsLibvulkan);
 * ```
 */
export function summarizeBench(runs: readonly PairedOutput[]): BenchRow[] {
  const groups = [...new Set(runs.flatMap((r) => r.groups.map((g) => g.name)))];
  return groups.map((group) => {
    const caseNames = [
      ...new Set(runs.flatMap((r) => r.groups.find((g) => g.name === group)?.cases.map((c) => c.name) ?? [])),
    ];
    const ns: Record<string, number> = {};
    for (const name of caseNames) {
      ns[name] = median(
        runs.map((r) => caseSamples(r, group, name)).filter((s) => s !== undefined).map((s) => median(s)),
      );
    }
    return {
      command: group,
      ns,
      publicVsLibvulkan: ratio(runs, group, BENCH_CASES.public, BENCH_CASES.reference),
      publicVsFloor: ratio(runs, group, BENCH_CASES.public, BENCH_CASES.floor),
      libvulkanVsFloor: ratio(runs, group, BENCH_CASES.reference, BENCH_CASES.floor),
      tableVsLibvulkan: ratio(runs, group, BENCH_CASES.table, BENCH_CASES.reference),
    };
  });
}

/** `VUID-...` identifiers and validation messages in a text (stdout or stderr of a run under the layer). */
export function validationMessages(text: string): string[] {
  return text.split("\n").filter((l) => /Validation (Error|Warning)|VUID-/.test(l));
}

/** Two loaders' answers to the same set of questions (command names handed out), side by side. */
export interface NameSetComparison {
  both: number;
  /** Only vkdeno, and libvulkan knows the name: a real difference. */
  onlyVkdeno: string[];
  /** Only vkdeno, and libvulkan does not know the name (newer than its headers, or another platform's). */
  explained: string[];
  /** Only libvulkan, and libvulkan knows the name: a real difference. */
  onlyLibvulkan: string[];
  /**
   * Only libvulkan, for a name libvulkan does not know: it hands such names to the driver's
   * `vkGetDeviceProcAddr` untouched (docs/behaviour.md A09), where vkdeno, knowing the command, answers
   * NULL unless its extension is enabled, as libvulkan does for the names it knows.
   */
  passedToDriver: string[];
}

/**
 * Compares the names two loaders answered non-NULL for.
 *
 * @example Usage
 * ```ts
 * import { compareNameSets } from "./_gpu_compare.ts";
 * const r = compareNameSets(["vkA", "vkNew"], ["vkA"], (n) => n !== "vkNew");
 * console.log(r.explained); // [ "vkNew" ]
 * ```
 */
export function compareNameSets(
  vkdeno: readonly string[],
  libvulkan: readonly string[],
  referenceKnows: (name: string) => boolean = () => true,
): NameSetComparison {
  const extra = setDifference(vkdeno, libvulkan);
  return {
    both: vkdeno.length - extra.length,
    onlyVkdeno: extra.filter(referenceKnows),
    explained: extra.filter((n) => !referenceKnows(n)),
    onlyLibvulkan: setDifference(libvulkan, vkdeno).filter(referenceKnows),
    passedToDriver: setDifference(libvulkan, vkdeno).filter((n) => !referenceKnows(n)),
  };
}

/** What the TS layers step found: each check over both placements, and what failed, in words. */
export interface TsLayersVerdict {
  /** Compute runs per placement (one instance and one device each). */
  runs: number;
  /** Each instance got one object of each layer, each device one of the upper layer, all disposed. */
  oneObjectEach: boolean;
  /** The layers' objects saw the same calls, in the same order, in both placements. */
  sameCalls: boolean;
  /** The lower layer read the upper layer's vkCreateDevice edit, for every device, in both placements. */
  editSeenBelow: boolean;
  computeCorrect: boolean;
  problems: string[];
}

/**
 * Judges the two placements' probes of tools/_gpu_tslayers.ts (`script`, then `native`).
 *
 * @example Usage
 * ```ts ignore
 * const verdict = judgeTsLayers(scriptProbe, nativeProbe);
 * console.log(verdict.problems.join("; ") || "pass");
 * ```
 */
export function judgeTsLayers(script: TsLayersProbe, native: TsLayersProbe): TsLayersVerdict {
  const problems: string[] = [];
  const runs = script.compute.length;
  let oneObjectEach = true, editSeenBelow = true, computeCorrect = true;
  for (const p of [script, native]) {
    const n = p.compute.length;
    const o = p.objects;
    const count = (event: string) => p.events.filter((e) => e === event).length;
    const each = Array.from({ length: n }, (_, i) => i + 1).every((k) =>
      count(`objects: create instance ${k}`) === 1 &&
      count(`objects: create instance ${k} device ${k}`) === 1 &&
      count(`reader: create instance ${k}`) === 1 && count(`objects: dispose instance ${k}`) === 1 &&
      count(`objects: dispose instance ${k} device ${k}`) === 1 &&
      count(`reader: dispose instance ${k}`) === 1
    );
    if (
      !(n > 0 && o.instances === n && o.devices === n && o.readerInstances === n && o.disposed === 3 * n &&
        each)
    ) {
      oneObjectEach = false;
      problems.push(
        `${p.placement}: ${n} run(s) made ${o.instances} instance, ${o.devices} device and ${o.readerInstances} ` +
          `lower-layer object(s), disposed ${o.disposed}`,
      );
    }
    const seen = p.chains.filter((types) => types.includes("VkPhysicalDeviceVulkan11Features")).length;
    if (seen !== n || p.chains.length !== n) {
      editSeenBelow = false;
      problems.push(
        `${p.placement}: the edit was read below in ${seen} of ${p.chains.length} vkCreateDevice call(s)`,
      );
    }
    const wrong = p.compute.filter((c) => c.wrong !== 0).length;
    if (n !== runs || wrong > 0) {
      computeCorrect = false;
      problems.push(`${p.placement}: ${wrong} of ${n} compute run(s) wrong`);
    }
    if (p.errors.length > 0) problems.push(`${p.placement}: ${p.errors.join("; ")}`);
  }
  const sameCalls = JSON.stringify(script.events) === JSON.stringify(native.events);
  if (!sameCalls) {
    const i = script.events.findIndex((e, k) => e !== native.events[k]);
    const at = i < 0 ? script.events.length : i;
    problems.push(
      `the placements' calls differ at ${at}: script "${script.events[at] ?? "(end)"}", native "${
        native.events[at] ?? "(end)"
      }"`,
    );
  }
  return { runs, oneObjectEach, sameCalls, editSeenBelow, computeCorrect, problems };
}
