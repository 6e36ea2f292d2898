/**
 * The compute job, whole process: `deno run examples/compute.ts` (VkApi over vkdeno) against the same program
 * over libvulkan (`--loader=libvulkan`) and against bench/webgpu/compute.ts (the same job on Deno's WebGPU),
 * a fresh process per sample, rotating, each on the bench environment's driver.
 *
 * @module
 */

import { runPaired } from "./_paired.ts";
import { setBenchEnvironment } from "./_vulkan.ts";

const COMPUTE = new URL("../examples/compute.ts", import.meta.url).pathname;
const WEBGPU = new URL("./webgpu/compute.ts", import.meta.url).pathname;

/** One whole `deno run` of `args`, in milliseconds; throws when it fails or a value comes back wrong. */
function runProcess(args: string[]): number {
  const t0 = performance.now();
  const out = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", ...args],
    stdout: "piped",
    stderr: "piped",
  })
    .outputSync();
  const ms = performance.now() - t0;
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success || !/all \d+ values correct/.test(text)) {
    throw new Error(
      `"${args.join(" ")}" failed (exit ${out.code}):\n${text}\n${new TextDecoder().decode(out.stderr)}`,
    );
  }
  return ms;
}

const WEBGPU_CASE = "WebGPU program";
const LIBVULKAN_CASE = "VkApi over libvulkan";
const VKDENO_CASE = "VkApi over vkdeno";
const WALL = "whole process";

if (import.meta.main) {
  await runPaired("bench/compute_bench.ts", () => {
    setBenchEnvironment();
    return Promise.resolve({
      groups: [{
        name: WALL,
        baseline: WEBGPU_CASE,
        unit: "ms",
        rounds: 11,
        warmup: 1,
        note: "Doubling 1,048,576 uints on the first device with a compute queue, checked, one process each.",
        cases: [
          { name: WEBGPU_CASE, run: () => {}, sample: () => runProcess([WEBGPU]) },
          { name: LIBVULKAN_CASE, run: () => {}, sample: () => runProcess([COMPUTE, "--loader=libvulkan"]) },
          { name: VKDENO_CASE, run: () => {}, sample: () => runProcess([COMPUTE]) },
        ],
      }],
      targets: [
        {
          label: "the compute job, whole process: vkdeno / Deno's WebGPU",
          group: WALL,
          case: VKDENO_CASE,
          against: WEBGPU_CASE,
          op: "<=",
          limit: 1.0,
          whyMissed:
            "on lavapipe the job's own JavaScript (filling and checking 1,048,576 values in a loop) and " +
            "lavapipe's dispatch dominate: the same program over libvulkan is as far from WebGPU (1.78x)",
        },
        {
          label: "the compute job, whole process: vkdeno / the same VkApi program over libvulkan",
          group: WALL,
          case: VKDENO_CASE,
          against: LIBVULKAN_CASE,
          op: "<=",
          limit: 1.05,
          whyMissed:
            "the program's own start (module loading, ~35 ms on the H200 host) against a ~310 ms job; the rounds spread 308-369 ms (docs/gpu.md)",
        },
      ],
    });
  }, { warmup: 1 });
}
