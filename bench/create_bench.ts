/**
 * Instance and device creation and destruction, vkdeno against libvulkan: first in a fresh process and
 * repeated in a warm one, with no layer, the Khronos validation layer and RenderDoc's capture layer.
 */

import { Arena } from "../ffi/memory.ts";
import { enumerate } from "../api/structs.ts";
import { openLibvulkan } from "../tests/support/libvulkan.ts";
import { loadVkdeno } from "./_percall.ts";
import { type PairedCase, type PairedGroup, runPaired, type Target } from "./_paired.ts";
import { type Commands, createDevice, createInstance, setBenchEnvironment, VALIDATION } from "./_vulkan.ts";

type Side = "libvulkan" | "vkdeno";

/** One iteration on `vk`; returns its milliseconds. */
function iteration(vk: Commands, layers: readonly string[], withDevice: boolean): number {
  const t0 = performance.now();
  using arena = new Arena();
  const instance = createInstance(vk, arena, layers);
  if (withDevice) {
    const [physicalDevice] = enumerate(vk.vkEnumeratePhysicalDevices!, [instance]) as Deno.PointerValue[];
    const device = createDevice(vk, arena, physicalDevice!);
    vk.vkDestroyDevice!(device, null);
  }
  vk.vkDestroyInstance!(instance, null);
  return performance.now() - t0;
}

/** The RenderDoc capture layer's enable variable (its implicit manifest: /usr/share/vulkan/implicit_layer.d). */
const RENDERDOC = "ENABLE_VULKAN_RENDERDOC_CAPTURE";

/** Timed iterations of a `--repeat` child. */
const RD_ITERATIONS = 5;

/** Child mode: RenderDoc's layer on, two untimed iterations, then the median of the timed ones. */
async function repeat(side: Side): Promise<void> {
  setBenchEnvironment({ [RENDERDOC]: "1" });
  const vk: Commands = side === "vkdeno" ? (await loadVkdeno())! : openLibvulkan();
  // The probe is a whole sample: a crash can take several instances to show.
  for (let i = 0; i < 2; i++) iteration(vk, [], true);
  const n = RD_ITERATIONS;
  const times = Array.from({ length: n }, () => iteration(vk, [], true)).sort((a, b) => a - b);
  console.log(JSON.stringify({ ms: times[Math.floor(times.length / 2)] }));
}

/** Runs a `--repeat` child. */
function repeatChild(side: Side): Deno.CommandOutput {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", import.meta.filename!, "--repeat", side],
    stdout: "piped",
    stderr: "inherit",
  }).outputSync();
}

/** Child processes that failed, per side (RenderDoc's layer sometimes crashes a process: exit code 139). */
const failedChildren: Record<Side, number[]> = { vkdeno: [], libvulkan: [] };

/** A case whose sample is a `--repeat` child process (a failed child is run again, twice at most, and counted). */
function repeatedCase(name: string, side: Side): PairedCase {
  return {
    name,
    run: () => {},
    sample() {
      let out = repeatChild(side);
      for (let retry = 0; !out.success && retry < 2; retry++) {
        failedChildren[side].push(out.code);
        out = repeatChild(side);
      }
      if (!out.success) {
        throw new Error(`Cannot measure RenderDoc's layer on "${side}": exit code ${out.code}`);
      }
      return (JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!) as { ms: number })
        .ms;
    },
  };
}

/**
 * With `BENCH_PIN_DRIVER=1` (tools/gpu_run.sh sets it), keeps the driver's library loaded for the whole run
 * (a `Deno.dlopen` of the library that the first manifest of `VK_DRIVER_FILES` names), so that neither
 * loader unloads and reloads it between iterations: NVIDIA's driver, loaded and unloaded in turn by two
 * loaders of one process, fails its next vkCreateInstance with VK_ERROR_INCOMPATIBLE_DRIVER. Off by
 * default: then both loaders also pay the driver's unload and reload at every instance, as applications do.
 */
function pinDriver(): Deno.DynamicLibrary<Record<string, never>> | undefined {
  if (Deno.env.get("BENCH_PIN_DRIVER") !== "1") return undefined;
  const manifest = Deno.env.get("VK_DRIVER_FILES")?.split(":")[0];
  if (!manifest) return undefined;
  try {
    const path = (JSON.parse(Deno.readTextFileSync(manifest)) as { ICD?: { library_path?: string } }).ICD
      ?.library_path;
    if (!path) return undefined;
    const resolved = path.includes("/") && !path.startsWith("/")
      ? new URL(path, `file://${manifest}`).pathname
      : path;
    return Deno.dlopen(resolved, {});
  } catch {
    return undefined;
  }
}

/** Whether RenderDoc's implicit layer manifest is installed where both loaders look. */
function hasRenderDoc(): boolean {
  for (const dir of ["/usr/share/vulkan/implicit_layer.d", "/etc/vulkan/implicit_layer.d"]) {
    try {
      if (Deno.statSync(`${dir}/renderdoc_capture.json`).isFile) return true;
    } catch {
      // not there
    }
  }
  return false;
}

/** Child mode: the first iteration of a fresh process, printed as JSON. */
async function first(side: Side, validation: boolean): Promise<void> {
  setBenchEnvironment();
  const layers = validation ? [VALIDATION] : [];
  const t0 = performance.now();
  let vk: Commands;
  if (side === "vkdeno") {
    vk = (await loadVkdeno())!;
  } else {
    const f = (parameters: Deno.NativeType[], result: Deno.NativeResultType) => ({ parameters, result });
    vk = Deno.dlopen("libvulkan.so.1", {
      vkCreateInstance: f(["pointer", "pointer", "pointer"], "i32"),
      vkEnumeratePhysicalDevices: f(["pointer", "pointer", "pointer"], "i32"),
      vkCreateDevice: f(["pointer", "pointer", "pointer", "pointer"], "i32"),
      vkDestroyDevice: f(["pointer", "pointer"], "void"),
      vkDestroyInstance: f(["pointer", "pointer"], "void"),
    }).symbols;
  }
  const load = performance.now() - t0;
  iteration(vk, layers, true);
  console.log(JSON.stringify({ ms: performance.now() - t0, loadMs: load }));
}

/** A case that runs the first iteration in a child process and reads back its time. */
function firstCase(name: string, side: Side, validation: boolean): PairedCase {
  return {
    name,
    run: () => {},
    sample() {
      const out = new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--allow-all",
          import.meta.filename!,
          "--first",
          side,
          ...(validation ? ["--validation"] : []),
        ],
        stdout: "piped",
        stderr: "inherit",
      }).outputSync();
      if (!out.success) {
        throw new Error(`Cannot measure the first creation on "${side}": exit code ${out.code}`);
      }
      return (JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!) as { ms: number })
        .ms;
    },
  };
}

/** Whether one iteration works on `vk` (vkdeno without layer support fails with the validation layer). */
function probe(vk: Commands, layers: readonly string[]): string | undefined {
  try {
    iteration(vk, layers, true);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

const REF = "libvulkan: instance + device";
const OURS = "vkdeno: instance + device";

if (import.meta.main) {
  const r = Deno.args.indexOf("--repeat");
  if (r >= 0) {
    await repeat(Deno.args[r + 1] as Side);
    Deno.exit(0);
  }
  const i = Deno.args.indexOf("--first");
  if (i >= 0) {
    await first(Deno.args[i + 1] as Side, Deno.args.includes("--validation"));
    Deno.exit(0);
  }
  await runPaired("bench/create_bench.ts", async () => {
    setBenchEnvironment();
    const pinned = pinDriver();
    const libvulkan = openLibvulkan() as unknown as Commands & Disposable;
    const vkdeno = await loadVkdeno();
    const groups: PairedGroup[] = [];
    const targets: Target[] = [];
    for (const validation of [false, true]) {
      const layers = validation ? [VALIDATION] : [];
      const suffix = validation ? "validation layer" : "no layers";
      // Both probes run before any group is measured, and that order matters to libvulkan: loading the
      // validation layer's library once leaves glibc's malloc (which the two loaders share) in a state where
      // the Khronos loader's own allocations reuse heap pages (its thresholds raised and the heap's top held
      // by what the layer keeps). Without it, libvulkan's no-layer iteration takes ~610 minor page faults
      // instead of ~200 (vkdeno's: ~200 either way) and ~0.7 ms longer, and the ratio reads ~0.92x. Fixed
      // GLIBC_TUNABLES mmap and trim thresholds remove the difference. The bench keeps libvulkan's faster state.
      const missing = vkdeno ? probe(vkdeno, layers) : "mod.ts has no Vulkan yet";
      const note = missing ? `vkdeno is not measured here: ${missing}` : undefined;
      const repeated = `repeated, ${suffix}`;
      groups.push({
        name: repeated,
        baseline: REF,
        unit: "ms",
        // Each sample is one iteration: 41 of them keep the median steadier on a shared machine.
        rounds: validation ? 9 : 41,
        // A warm process: vkdeno's JavaScript reaches its optimized code after a few dozen instances.
        warmup: validation ? 4 : 40,
        ...(note ? { note } : {}),
        cases: [
          { name: REF, run: () => iteration(libvulkan, layers, true), batch: 1 },
          { name: "libvulkan: instance only", run: () => iteration(libvulkan, layers, false), batch: 1 },
          ...(vkdeno && !missing
            ? [
              { name: OURS, run: () => iteration(vkdeno, layers, true), batch: 1 },
              { name: "vkdeno: instance only", run: () => iteration(vkdeno, layers, false), batch: 1 },
            ]
            : []),
        ],
      });
      groups.push({
        name: `first in a process, ${suffix}`,
        baseline: REF,
        unit: "ms",
        rounds: 5,
        warmup: 1,
        ...(note ? { note } : {}),
        cases: [
          firstCase(REF, "libvulkan", validation),
          ...(vkdeno && !missing ? [firstCase(OURS, "vkdeno", validation)] : []),
        ],
      });
      if (vkdeno && !missing) {
        targets.push({
          label: `${repeated}: vkdeno / libvulkan, instance + device`,
          group: repeated,
          case: OURS,
          against: REF,
          op: "<=",
          limit: validation ? 1.05 : 1.0,
          whyMissed: validation
            ? "both loaders load and unload the validation layer's 22 MB library at every instance; what is left " +
              "is vkdeno's chain built in JavaScript and the layer's lookups through a C-to-JavaScript callback " +
              "(docs/performance.md)"
            : "the driver's own work is most of an iteration and the same for both loaders; vkdeno's extra " +
              "~0.1-0.2 ms is spread thinly over enumeration, device creation and the destroys " +
              "(docs/performance.md)",
        });
      }
    }
    // RenderDoc's capture layer: an implicit layer enabled by its variable. It crashes a process that has
    // both loaders (it hooks library loading), so each sample is a child process of one loader.
    if (hasRenderDoc()) {
      const name = "repeated, RenderDoc capture layer";
      const probed = repeatChild("vkdeno");
      const crashed = probed.success ? undefined : `vkdeno's child process failed (exit code ${probed.code})`;
      groups.push({
        name,
        baseline: REF,
        unit: "ms",
        rounds: 5,
        warmup: 1,
        // Read after the rounds: it counts the children that failed.
        get note() {
          const failed = (["libvulkan", "vkdeno"] as const).filter((s) => failedChildren[s].length > 0).map((
            s,
          ) => `${s} ${failedChildren[s].length} (exit code ${[...new Set(failedChildren[s])].join(", ")})`);
          return `The layer is enabled by ${RENDERDOC}=1 (Debian package renderdoc). RenderDoc crashes a ` +
            "process holding both loaders, so each sample is a child process of one loader: two untimed " +
            `iterations, then the median of ${RD_ITERATIONS} timed ones.` +
            (crashed ? ` vkdeno is not measured here: ${crashed}.` : "") +
            ` Child processes that failed and were run again: ${
              failed.length > 0 ? failed.join("; ") : "none"
            }.`;
        },
        cases: [repeatedCase(REF, "libvulkan"), ...(crashed ? [] : [repeatedCase(OURS, "vkdeno")])],
      });
      if (!crashed) {
        targets.push({
          label: `${name}: vkdeno / libvulkan, instance + device`,
          group: name,
          case: OURS,
          against: REF,
          op: "<=",
          limit: 1.05,
          whyMissed: "both loaders load and unload RenderDoc's library at every instance; what remains is " +
            "vkdeno's own JavaScript on the instance chain: the chain's nodes and callbacks, and the layer's " +
            "questions to the loader's bottom vkGetInstanceProcAddr and vkGetDeviceProcAddr, each a " +
            "C-to-JavaScript callback (the device's answers come from one native fill)",
        });
      }
    }
    return {
      groups,
      targets,
      dispose() {
        libvulkan[Symbol.dispose]();
        vkdeno?.[Symbol.dispose]();
        pinned?.close();
      },
    };
  }, { warmup: 2 });
}
