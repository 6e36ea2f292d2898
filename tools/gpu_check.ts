/**
 * `tools/gpu_check.ts`: runs vkdeno on a real GPU driver next to the reference loader, step by step in child
 * processes, and writes `gpu_report.json` and `gpu_report.md`; `--render` prints docs/gpu.md (docs/tools.md).
 *
 * @module
 */

import { parseArgs } from "node:util";
import { join } from "node:path";
import type { InfoReport } from "../examples/info.ts";
import type { PairedOutput } from "../bench/_paired.ts";
import { beforeAfterRows, machineLine } from "../bench/_report_paired.ts";
import {
  binaryKnows,
  compareInfo,
  compareNameSets,
  judgeOrdering,
  judgeTsLayers,
  type OrderedDevice,
  parseNegotiations,
  summarizeBench,
  validationMessages,
} from "./_gpu_compare.ts";
import { findNvidiaManifest } from "./_gpu_find.ts";
import type { ProcAddrProbe } from "./_gpu_procaddr.ts";
import type { TsLayersProbe } from "./_gpu_tslayers.ts";
import {
  type GpuReport,
  keptSections,
  renderMarkdown,
  type RunOutput,
  type StepResult,
} from "./_gpu_report.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const DENO = Deno.execPath();
const V8_FLAGS = "--v8-flags=--no-concurrent-recompilation";

/** Options of {@linkcode runGpuCheck}. */
export interface GpuCheckOptions {
  out: string;
  driver?: string;
  layerPath?: string;
  cpuDriver?: string;
  benchRuns: number;
  benchRounds: number;
  skip: ReadonlySet<string>;
  cachedOnly: boolean;
  log: (line: string) => void;
}

function tail(text: string, lines = 15): string {
  return text.trim().split("\n").slice(-lines).join("\n");
}

/** A deno.json task's command line as argv for this Deno (optionally `--cached-only`). */
function taskArgs(task: string, cachedOnly: boolean): string[] {
  const config = JSON.parse(Deno.readTextFileSync(join(ROOT, "deno.json"))) as {
    tasks: Record<string, string>;
  };
  const words = config.tasks[task]?.split(/\s+/) ?? [];
  if (words[0] !== "deno" || words[1] !== "run") {
    throw new Error(
      `Cannot run task "${task}" of deno.json: expected "deno run ...", got "${config.tasks[task]}"`,
    );
  }
  return ["run", ...(cachedOnly ? ["--cached-only"] : []), ...words.slice(2)];
}

/** The child environment: nothing of the caller's Vulkan variables, only what is given. */
function childEnv(vars: Record<string, string | undefined>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ["PATH", "HOME", "DENO_DIR", "LD_LIBRARY_PATH", "XDG_RUNTIME_DIR"]) {
    const v = Deno.env.get(name);
    if (v !== undefined) env[name] = v;
  }
  env.NODEVICE_SELECT = "1";
  for (const [k, v] of Object.entries(vars)) if (v !== undefined) env[k] = v;
  return env;
}

async function run(
  args: string[],
  vars: Record<string, string | undefined>,
  timeoutMs = 180_000,
): Promise<RunOutput> {
  const command = `deno ${args.join(" ")}`;
  const child = new Deno.Command(DENO, {
    args,
    cwd: ROOT,
    clearEnv: true,
    env: childEnv(vars),
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const timer = setTimeout(() => {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }, timeoutMs);
  const out = await child.output();
  clearTimeout(timer);
  const stderr = new TextDecoder().decode(out.stderr);
  return {
    command,
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderrTail: stderr.length > 200_000 ? stderr.slice(-200_000) : stderr,
  };
}

function lastJson<T>(text: string): T | undefined {
  const line = text.trim().split("\n").reverse().find((l) => l.startsWith("{"));
  try {
    return line === undefined ? undefined : JSON.parse(line) as T;
  } catch {
    return undefined;
  }
}

async function command(cmd: string, args: string[]): Promise<string | undefined> {
  try {
    const out = await new Deno.Command(cmd, { args, stdout: "piped", stderr: "null" }).output();
    return out.success ? new TextDecoder().decode(out.stdout).trim() : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The Markdown as `deno fmt` (this repository's deno.json) leaves it, so that the generated docs/gpu.md passes
 * `deno fmt --check`; unformatted when formatting fails.
 */
async function formatMarkdown(text: string): Promise<string> {
  try {
    const child = new Deno.Command(DENO, {
      args: ["fmt", "--ext=md", "-"],
      cwd: ROOT,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(text));
    await writer.close();
    const out = await child.output();
    return out.success ? new TextDecoder().decode(out.stdout) : text;
  } catch {
    return text;
  }
}

/** libvulkan.so.1 as the dynamic linker finds it (`ldconfig -p`), or a usual path. */
async function findLibvulkan(): Promise<string | undefined> {
  const listed = await command("ldconfig", ["-p"]);
  // ldconfig names the running architecture "x86-64" or "AArch64"; the multiarch folders use Deno's name.
  const abi = Deno.build.arch === "aarch64" ? "AArch64" : "x86-64";
  const fromCache = listed?.split("\n").find((l) => l.includes("libvulkan.so.1 (") && l.includes(`${abi})`))
    ?.split("=> ")[1]?.trim();
  const multiarch = `${Deno.build.arch}-linux-gnu`;
  for (
    const path of [fromCache, `/usr/lib/${multiarch}/libvulkan.so.1`, `/lib/${multiarch}/libvulkan.so.1`]
  ) {
    if (!path) continue;
    try {
      Deno.statSync(path);
      return path;
    } catch {
      // next
    }
  }
  return undefined;
}

async function machineFacts(): Promise<GpuReport["machine"]> {
  const smi = await command("nvidia-smi", ["--query-gpu=name,driver_version", "--format=csv,noheader"]);
  const rows = smi?.split("\n").filter((l) => l.trim() !== "") ?? [];
  let [gpu, driverVersion] = rows[0]?.split(",").map((s) => s.trim()) ?? [];
  if (gpu && rows.length > 1) gpu = `${rows.length} × ${gpu}`;
  if (driverVersion === undefined) {
    try {
      driverVersion = /Kernel Module\s+(\S+)/.exec(Deno.readTextFileSync("/proc/driver/nvidia/version"))?.[1];
    } catch {
      // no NVIDIA kernel module
    }
  }
  let cpu = "unknown CPU";
  try {
    cpu = /model name\s*:\s*(.*)/.exec(Deno.readTextFileSync("/proc/cpuinfo"))?.[1]?.trim() ?? cpu;
  } catch {
    // not Linux
  }
  const kind = Deno.env.get("GPU_KIND");
  return {
    ...(gpu ? { gpu } : {}),
    ...(driverVersion ? { driverVersion } : {}),
    kernel: Deno.osRelease(),
    cpu,
    deno: `Deno ${Deno.version.deno} (V8 ${Deno.version.v8})`,
    ...(kind ? { kindNote: `device kind ${kind}` } : {}),
  };
}

/**
 * Runs every step and returns the report (also written to `options.out`).
 *
 * @example Usage
 * ```ts ignore
 * import { runGpuCheck } from "./gpu_check.ts";
 * const report = await runGpuCheck({ out: "/tmp/gpu", benchRuns: 1, benchRounds: 11, skip: new Set(),
 *   cachedOnly: false, log: console.error });
 * ```
 */
export async function runGpuCheck(options: GpuCheckOptions): Promise<GpuReport> {
  const { log } = options;
  const steps: StepResult[] = [];
  const step = async (name: string, body: () => Promise<{ ok: boolean; note?: string } | "skip">) => {
    if (options.skip.has(name)) {
      steps.push({ name, status: "skip", note: "skipped by --skip", ms: 0 });
      return;
    }
    const t0 = performance.now();
    let result: StepResult;
    try {
      const r = await body();
      result = r === "skip"
        ? { name, status: "skip", ms: 0 }
        : { name, status: r.ok ? "pass" : "fail", ...(r.note ? { note: r.note } : {}), ms: 0 };
    } catch (error) {
      result = {
        name,
        status: "fail",
        note: `threw: ${error instanceof Error ? error.message : error}`,
        ms: 0,
      };
    }
    result.ms = Math.round(performance.now() - t0);
    steps.push(result);
    log(`[gpu_check] ${name}: ${result.status}${result.note ? ` (${result.note})` : ""} in ${result.ms} ms`);
  };

  const first = [options.driver, ...(Deno.env.get("VK_DRIVER_FILES")?.split(":") ?? [])].filter(
    (p): p is string => !!p,
  );
  const manifest = findNvidiaManifest({ first });
  // An explicit --driver is used even when it is not NVIDIA's (lavapipe, to try the script without a GPU).
  if (!manifest.chosen && options.driver) {
    manifest.chosen = manifest.candidates.find((c) => c.path === options.driver && c.status !== "invalid");
  }
  const report: GpuReport = {
    kind: "vkdeno-gpu-check",
    date: new Date().toISOString(),
    machine: await machineFacts(),
    manifest,
    steps,
    negotiation: { vkdeno: [], libvulkanLines: [] },
  };
  const driver = manifest.chosen?.path;
  steps.push({
    name: "manifest",
    status: driver ? "pass" : "fail",
    note: driver ?? `looked at ${manifest.candidates.length} manifest(s), none names an NVIDIA library`,
    ms: 0,
  });
  log(`[gpu_check] driver manifest: ${driver ?? "none"}`);
  if (!driver) return report;

  const base = { VK_DRIVER_FILES: driver };
  const info = taskArgs("info", options.cachedOnly);
  const demo = taskArgs("demo", options.cachedOnly);

  await step("info", async () => {
    const ours = await run([...info, "--json"], { ...base, VK_LOADER_DEBUG: "error,warn,driver" });
    const ref = await run([...info, "--json", "--loader=libvulkan"], { ...base, VK_LOADER_DEBUG: "driver" });
    report.negotiation.vkdeno = parseNegotiations(ours.stderrTail);
    report.loaderWarnings = ours.stderrTail.split("\n").filter((l) => /^(WARNING|ERROR)\b/.test(l)).slice(
      0,
      30,
    );
    report.negotiation.libvulkanLines = ref.stderrTail.split("\n").filter((l) =>
      /interface|ICD|driver/i.test(l)
    )
      .slice(0, 20);
    const a = lastJson<InfoReport>(ours.stdout);
    const b = lastJson<InfoReport>(ref.stdout);
    report.info = { ...(a ? { vkdeno: a } : {}), ...(b ? { libvulkan: b } : {}) };
    if (!a?.devices || !b?.devices) {
      return {
        ok: false,
        note: `no report: vkdeno exit ${ours.code} ${
          tail(ours.stdout + ours.stderrTail, 5)
        }; libvulkan exit ${ref.code} ${tail(ref.stdout + ref.stderrTail, 5)}`,
      };
    }
    const libvulkanPath = await findLibvulkan();
    const comparison = compareInfo(
      a,
      b,
      libvulkanPath ? { referenceKnows: binaryKnows(Deno.readFileSync(libvulkanPath)) } : {},
    );
    report.info.comparison = comparison;
    const n = report.negotiation.vkdeno.map((x) => `${x.manifest}: interface ${x.interfaceVersion}`).join(
      ", ",
    );
    return {
      ok: comparison.equal && report.negotiation.vkdeno.length > 0,
      note: `${comparison.devices.length} device(s), equal: ${comparison.equal}; ${
        n || "no negotiation line"
      }`,
    };
  });

  await step("compute", async () => {
    // The first run on a fresh machine pays for NVIDIA's shader compilation (then in its disk cache) and the
    // GPU's wake-up: it is reported apart, and the compared runs come after it.
    const cold = await run(demo, base);
    const ours = await run(demo, base);
    const ref = await run([...demo, "--loader=libvulkan"], base);
    report.compute = { cold, vkdeno: ours, libvulkan: ref };
    const ok = (o: RunOutput) => o.code === 0 && /all \d+ values correct/.test(o.stdout);
    return {
      ok: ok(cold) && ok(ours) && ok(ref),
      note: `vkdeno exit ${cold.code} (first run), ${ours.code}; libvulkan exit ${ref.code}`,
    };
  });

  await step("validation", async () => {
    const layerPath = options.layerPath ?? "/usr/share/vulkan/explicit_layer.d";
    const layerManifest = join(layerPath, "VkLayer_khronos_validation.json");
    try {
      Deno.statSync(layerManifest);
    } catch {
      return { ok: false, note: `no "${layerManifest}"` };
    }
    report.validation = { layerManifest };
    const vars = { ...base, VK_LAYER_PATH: layerPath };
    const clean = await run(demo, {
      ...vars,
      VK_INSTANCE_LAYERS: "VK_LAYER_KHRONOS_validation",
      VK_LOADER_DEBUG: "layer",
    });
    const messages = validationMessages(clean.stdout + "\n" + clean.stderrTail);
    const inserted = clean.stderrTail.includes('Insert instance layer "VK_LAYER_KHRONOS_validation"');
    report.validation.compute = { ...clean, inserted, messages };
    const probe = await run([
      "run",
      ...(options.cachedOnly ? ["--cached-only"] : []),
      "-A",
      "tools/_gpu_layer.ts",
    ], vars);
    const line = probe.stdout.split("\n").find((l) => l.startsWith("GPU_VUID "));
    if (line) {
      const p = JSON.parse(line.slice("GPU_VUID ".length)) as {
        ids: string[];
        results: Record<string, number>;
      };
      report.validation.vuid = { ...p, found: p.ids.includes("VUID-VkBufferCreateInfo-size-00912") };
    }
    const cleanOk = clean.code === 0 && /all \d+ values correct/.test(clean.stdout) && inserted &&
      messages.length === 0;
    const vuidOk = report.validation.vuid?.found === true;
    return {
      ok: cleanOk && vuidOk,
      note:
        `compute through the layer: ${
          cleanOk ? "clean" : `exit ${clean.code}, ${messages.length} message(s)`
        }; ` +
        `VUID-VkBufferCreateInfo-size-00912: ${
          vuidOk
            ? "delivered"
            : `not seen (probe exit ${probe.code}: ${tail(probe.stdout + probe.stderrTail, 4)})`
        }`,
    };
  });

  await step("tslayers", async () => {
    // The same two TS layers in the script (installLayers over Vulkan.load()) and in the native chain (`.ts`
    // manifests below the validation layer), each over two compute runs: tools/_gpu_tslayers.ts.
    const layerPath = options.layerPath ?? "/usr/share/vulkan/explicit_layer.d";
    try {
      Deno.statSync(join(layerPath, "VkLayer_khronos_validation.json"));
    } catch {
      return { ok: false, note: `no "${join(layerPath, "VkLayer_khronos_validation.json")}"` };
    }
    const child = ["run", ...(options.cachedOnly ? ["--cached-only"] : []), "-A", "tools/_gpu_tslayers.ts"];
    const script = await run([...child, "script"], base);
    const native = await run([...child, "native"], {
      ...base,
      VK_LAYER_PATH: layerPath,
      VK_LOADER_DEBUG: "layer",
    });
    const probe = (o: RunOutput) => {
      const line = o.stdout.split("\n").find((l) => l.startsWith("GPU_TSLAYERS "));
      return line ? JSON.parse(line.slice("GPU_TSLAYERS ".length)) as TsLayersProbe : undefined;
    };
    const a = probe(script), b = probe(native);
    // The instance chain as the loader built it, nearest the application first.
    const layerOrder = [
      ...new Set(
        native.stderrTail.split("\n").map((l) => /Insert instance layer "([^"]+)"/.exec(l)?.[1])
          .filter((n): n is string => n !== undefined && n !== "VK_LAYER_MESA_device_select"),
      ),
    ];
    const messages = validationMessages(native.stdout + "\n" + native.stderrTail);
    report.tsLayers = {
      script: { ...script, probe: a },
      native: { ...native, probe: b },
      layerOrder,
      messages,
    };
    if (!a || !b) {
      const failed = a ? native : script;
      return {
        ok: false,
        note: `no result from ${a ? "native" : "script"}: exit ${failed.code}: ${tail(failed.stderrTail, 4)}`,
      };
    }
    const verdict = judgeTsLayers(a, b);
    report.tsLayers.verdict = verdict;
    const below = JSON.stringify(layerOrder) ===
      JSON.stringify([
        "VK_LAYER_KHRONOS_validation",
        "VK_LAYER_gpucheck_objects",
        "VK_LAYER_gpucheck_reader",
      ]);
    const ok = script.code === 0 && native.code === 0 && verdict.problems.length === 0 && below &&
      messages.length === 0;
    const yes = (x: boolean) => x ? "yes" : "NO";
    return {
      ok,
      note:
        `script and native chain (${
          below ? "below VK_LAYER_KHRONOS_validation" : `order ${layerOrder.join(", ")}`
        }): ` +
        `${verdict.runs} instances and devices, one object each: ${yes(verdict.oneObjectEach)}; ` +
        `same calls: ${yes(verdict.sameCalls)}; edit read below: ${yes(verdict.editSeenBelow)}; ` +
        `validation messages: ${messages.length}; compute correct: ${yes(verdict.computeCorrect)}` +
        (verdict.problems.length > 0 ? `; ${verdict.problems.join("; ")}` : ""),
    };
  });

  await step("procaddr", async () => {
    const ask = async (loader: string) => {
      const child = await run(
        ["run", ...(options.cachedOnly ? ["--cached-only"] : []), "-A", "tools/_gpu_procaddr.ts", loader],
        base,
      );
      const line = child.stdout.split("\n").find((l) => l.startsWith("GPU_PROCADDR "));
      if (!line) throw new Error(`${loader}: exit ${child.code}: ${tail(child.stderrTail, 4)}`);
      return JSON.parse(line.slice("GPU_PROCADDR ".length)) as ProcAddrProbe;
    };
    const ours = await ask("vkdeno");
    const ref = await ask("libvulkan");
    const libvulkanPath = await findLibvulkan();
    const knows = libvulkanPath ? binaryKnows(Deno.readFileSync(libvulkanPath)) : undefined;
    const instance = compareNameSets(ours.instance, ref.instance, knows);
    const device = compareNameSets(ours.device, ref.device, knows);
    report.procAddr = { asked: ours.asked, instance, device };
    const real = instance.onlyVkdeno.length + instance.onlyLibvulkan.length + device.onlyVkdeno.length +
      device.onlyLibvulkan.length;
    const passed = device.passedToDriver.length + instance.passedToDriver.length;
    return {
      ok: real === 0,
      note: `vkGetDeviceProcAddr: ${device.both} in both, ${device.onlyVkdeno.length} only vkdeno, ` +
        `${device.onlyLibvulkan.length} only libvulkan (+${passed} it does not know, passed to the driver); ` +
        `vkGetInstanceProcAddr: ${instance.both} in both, ` +
        `${instance.onlyVkdeno.length} only vkdeno (+${instance.explained.length} libvulkan does not know), ` +
        `${instance.onlyLibvulkan.length} only libvulkan`,
    };
  });

  await step("lifecycle", async () => {
    const child = await run([
      "run",
      ...(options.cachedOnly ? ["--cached-only"] : []),
      "-A",
      "tools/_gpu_lifecycle.ts",
    ], base);
    const line = child.stdout.split("\n").find((l) => l.startsWith("GPU_LIFECYCLE "));
    if (!line) return { ok: false, note: `no result: exit ${child.code}: ${tail(child.stderrTail, 5)}` };
    const probe = JSON.parse(line.slice("GPU_LIFECYCLE ".length)) as NonNullable<GpuReport["lifecycle"]>;
    report.lifecycle = { ...probe, code: child.code };
    const failed = probe.steps.filter((s) => s.result !== 0);
    const same = JSON.stringify(probe.devices.first) === JSON.stringify(probe.devices.second);
    return {
      ok: child.code === 0 && failed.length === 0 && same && probe.devices.first.length > 0,
      note: failed.length > 0
        ? `failed: ${failed.map((s) => `${s.name} -> ${s.result}`).join("; ")}`
        : `two instances at once, reload: ${same ? "same devices" : "devices differ"}, exit ${child.code}`,
    };
  });

  await step("ordering", async () => {
    let second: { manifest: string; label: string; dispose?: () => void } | undefined;
    if (options.cpuDriver) second = { manifest: options.cpuDriver, label: options.cpuDriver };
    if (!second) {
      try {
        const { MockEnvironment } = await import("../tests/support/mock.ts");
        const env = await MockEnvironment.create();
        const mock = await env.addDriver({
          name: "cpu",
          physicalDevices: [{ type: "cpu", name: "vkdeno mock CPU device" }],
        });
        second = {
          manifest: mock.manifestPath,
          label: "the mock driver (tests/support/mock) as a CPU device",
          dispose: () => env.dispose(),
        };
      } catch (error) {
        return {
          ok: false,
          note: `no CPU driver: ${error instanceof Error ? error.message.split("\n")[0] : error}`,
        };
      }
    }
    try {
      // NVIDIA listed first: unsorted, the Khronos loader would list the CPU device first (drivers are
      // prepended), so "discrete first" shows the sort at work.
      const vars = { VK_DRIVER_FILES: `${driver}:${second.manifest}`, VK_LOADER_DEBUG: "driver" };
      const cached = options.cachedOnly ? ["--cached-only"] : [];
      const ours = await run(["run", ...cached, "-A", "tools/_gpu_devices.ts", "vkdeno"], vars);
      const ref = await run(["run", ...cached, "-A", "tools/_gpu_devices.ts", "libvulkan"], vars);
      const listed = (o: RunOutput) => {
        const line = o.stdout.split("\n").find((l) => l.startsWith("GPU_DEVICES "));
        return line
          ? { devices: JSON.parse(line.slice("GPU_DEVICES ".length)) as OrderedDevice[] }
          : undefined;
      };
      const a = listed(ours);
      const b = listed(ref);
      if (!a || !b) {
        return {
          ok: false,
          note: `no report: vkdeno exit ${ours.code}, libvulkan exit ${ref.code}: ${
            tail(ours.stderrTail, 4)
          }`,
        };
      }
      const verdict = judgeOrdering(a.devices, b.devices);
      const orderLog = ours.stderrTail.split("\n").filter((l) => /Physical device order|\[\d+\] "/.test(l))
        .slice(0, 12);
      report.ordering = { ...verdict, secondDriver: second.label, orderLog };
      return {
        ok: (!verdict.applicable || verdict.discreteFirst) && verdict.sameAsLibvulkan,
        note: `${verdict.applicable ? "" : "no discrete GPU and CPU pair, order compared only; "}vkdeno: ${
          verdict.vkdeno.map((d) => d.type).join(", ")
        }; libvulkan: ${verdict.libvulkan.map((d) => d.type).join(", ")}`,
      };
    } finally {
      second.dispose?.();
    }
  });

  await step("bench", async () => {
    const runs: PairedOutput[] = [];
    let last: RunOutput | undefined;
    for (let i = 0; i < options.benchRuns; i++) {
      last = await run(
        [
          "run",
          ...(options.cachedOnly ? ["--cached-only"] : []),
          "--allow-all",
          V8_FLAGS,
          "tools/_gpu_bench.ts",
          "--json",
          "--rounds",
          String(options.benchRounds),
        ],
        base,
      );
      const out = lastJson<PairedOutput>(last.stdout);
      if (out) runs.push(out);
    }
    if (runs.length === 0) {
      return { ok: false, note: `no bench output: exit ${last?.code}: ${tail(last?.stderrTail ?? "", 5)}` };
    }
    const rows = summarizeBench(runs);
    report.bench = { runs: runs.length, rows, machine: runs[0]!.machine };
    return {
      ok: rows.every((r) => Number.isFinite(r.publicVsLibvulkan)),
      note: rows.map((r) => `${r.command} public/libvulkan ${r.publicVsLibvulkan.toFixed(2)}`).join("; "),
    };
  });
  return report;
}

/**
 * The "Startup and creation" section from the kept runs of bench/first_bench.ts and bench/create_bench.ts
 * that `GPU_STARTUP=. bash tools/gpu_run.sh` leaves (bench/report.ts --kept), in `dir`, and those of an
 * earlier checkout in `dir/before` when there are some.
 */
function startupSection(dir: string): string[] {
  const read = (path: string): PairedOutput[] | undefined => {
    try {
      return JSON.parse(Deno.readTextFileSync(path)) as PairedOutput[];
    } catch {
      return undefined;
    }
  };
  const rows: string[] = [];
  let about = "";
  for (const file of ["first_bench", "create_bench"]) {
    const after = read(join(dir, `${file}.json`));
    if (!after || after.length === 0) continue;
    about ||= machineLine(after);
    rows.push(...beforeAfterRows(read(join(dir, "before", `${file}.json`)) ?? [], after));
  }
  if (rows.length === 0) return [];
  return [
    "## Startup and creation",
    "",
    "Time to first instance (bench/first_bench.ts: a whole process creating an instance and reading the device " +
    "name, vkdeno script against a libvulkan-through-Deno.dlopen script) and repeated instance + device " +
    "creation (bench/create_bench.ts, the driver library kept loaded), run by `GPU_STARTUP=. bash " +
    "tools/gpu_run.sh`; before: the same bench files on commit 1f808ac, carried to the machine. Ratios against " +
    `libvulkan in the same runs (peak RSS: a difference in MiB). After: ${about}.`,
    "",
    "| target | before | after | goal | now |",
    "|---|---:|---:|---:|---|",
    ...rows,
    "",
    `Kept runs: \`${dir}\` (ignored by git); BENCHMARKS.md's targets table and H100 sections render them.`,
    "",
  ];
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      out: { type: "string" },
      driver: { type: "string" },
      "layer-path": { type: "string" },
      "cpu-driver": { type: "string" },
      "bench-runs": { type: "string", default: "3" },
      "bench-rounds": { type: "string", default: "31" },
      skip: { type: "string", default: "" },
      "cached-only": { type: "boolean", default: false },
      render: { type: "string" },
      startup: { type: "string" },
      "keep-also": { type: "string" },
      output: { type: "string" },
    },
  });
  if (values.render) {
    const [main, ...others] = values.render.split(",").map((path) =>
      JSON.parse(Deno.readTextFileSync(path)) as GpuReport
    );
    const extra = values.startup ? startupSection(values.startup) : [];
    // Read before `--output` is written: `--keep-also docs/gpu.md --output docs/gpu.md` renders the page anew.
    const kept = values["keep-also"] ? keptSections(Deno.readTextFileSync(values["keep-also"])) : [];
    const command = ["deno run -A tools/gpu_check.ts", ...Deno.args].join(" ");
    const md = await formatMarkdown(renderMarkdown(main!, others, extra, { command, kept }));
    if (values.output) Deno.writeTextFileSync(values.output, md);
    else await Deno.stdout.write(new TextEncoder().encode(md));
    Deno.exit(0);
  }
  const out = values.out ?? Deno.env.get("OUT") ?? join(ROOT, ".cache", "gpu");
  Deno.mkdirSync(out, { recursive: true });
  const report = await runGpuCheck({
    out,
    ...(values.driver ? { driver: values.driver } : {}),
    ...(values["layer-path"] ? { layerPath: values["layer-path"] } : {}),
    ...(values["cpu-driver"] ? { cpuDriver: values["cpu-driver"] } : {}),
    benchRuns: Number(values["bench-runs"]),
    benchRounds: Number(values["bench-rounds"]),
    skip: new Set(values.skip.split(",").filter(Boolean)),
    cachedOnly: values["cached-only"],
    log: (line) => console.error(line),
  });
  Deno.writeTextFileSync(join(out, "gpu_report.json"), JSON.stringify(report, null, 2));
  Deno.writeTextFileSync(join(out, "gpu_report.md"), await formatMarkdown(renderMarkdown(report)));
  console.error(`[gpu_check] wrote ${join(out, "gpu_report.json")} and gpu_report.md`);
  Deno.exit(report.steps.some((s) => s.status === "fail") ? 1 : 0);
}
