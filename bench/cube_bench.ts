/**
 * `examples/cube.ts` on lavapipe through vkdeno against `--loader=libvulkan`: the same example, a fresh
 * process per sample (the two loaders alternating), 256 x 256, 600 frames timed by the example itself: the
 * median time between two presents' returns (setup and process start excluded; the median, not the mean,
 * so that a moment of another process's load does not count). Xlib under a
 * private Xvfb with `--present-mode immediate` (no pacing: the frame rate is what the CPU renders), and
 * Wayland under a private headless weston with `mailbox` (the compositor's frame callbacks do not pace it).
 * "JavaScript per frame" is the example's time outside the waits (uniform update, command recording,
 * submit) in the same runs. Frame times are compared, so the fps goal of >= 0.98x is a frame-time ratio of
 * <= 1.02.
 */

import { startWeston } from "../window/weston.ts";
import { startXvfb } from "../window/xvfb.ts";
import { type PairedCase, type PairedGroup, runPaired, type Target } from "./_paired.ts";
import { LAVAPIPE } from "./_vulkan.ts";

const FRAMES = 600;
const root = new URL("../", import.meta.url).pathname;

interface CubeJson {
  frames: number;
  seconds: number;
  medianFrameMs: number;
  cpuMsPerFrame: number;
}

/** One run of the example; its report. */
function runCube(loader: string, args: string[], vars: Record<string, string>): CubeJson {
  const out = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      "examples/cube.ts",
      `--loader=${loader}`,
      `--frames=${FRAMES}`,
      "--json",
      ...args,
    ],
    cwd: root,
    env: {
      PATH: Deno.env.get("PATH") ?? "",
      HOME: Deno.env.get("HOME") ?? "/",
      VK_DRIVER_FILES: LAVAPIPE,
      ...vars,
    },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).outputSync();
  const text = new TextDecoder().decode(out.stdout);
  const line = text.split("\n").find((l) => l.startsWith("{"));
  if (!out.success || !line) {
    throw new Error(
      `examples/cube.ts --loader=${loader} failed: ${text}${new TextDecoder().decode(out.stderr)}`,
    );
  }
  const report = JSON.parse(line) as CubeJson;
  if (report.frames !== FRAMES) throw new Error(`examples/cube.ts presented ${report.frames} frames`);
  return report;
}

if (import.meta.main) {
  await using x = await startXvfb();
  await using w = await startWeston();
  const systems: { name: string; args: string[]; vars: Record<string, string> }[] = [
    {
      name: "xlib, immediate",
      args: ["--wsi=xlib", "--present-mode=immediate"],
      vars: { DISPLAY: x.display },
    },
    {
      name: "wayland, mailbox",
      args: ["--wsi=wayland", "--present-mode=mailbox"],
      vars: { WAYLAND_DISPLAY: w.display },
    },
  ];
  // The JavaScript group reads the reports of the frame-time group's runs, in the order they were made.
  const reports: Record<string, CubeJson[]> = {};
  const groups: PairedGroup[] = [];
  const targets: Target[] = [];
  for (const system of systems) {
    const frameCase = (loader: string): PairedCase => ({
      name: loader,
      run: () => {},
      sample: () => {
        const report = runCube(loader, system.args, system.vars);
        (reports[`${system.name}/${loader}`] ??= []).push(report);
        return report.medianFrameMs;
      },
    });
    const frameGroup = `frame time, ${system.name}`;
    groups.push({
      name: frameGroup,
      baseline: "libvulkan",
      unit: "ms",
      note: `median ms per frame (fps = 1000 / ms), ${FRAMES} frames a run`,
      cases: [frameCase("libvulkan"), frameCase("vkdeno")],
    });
    targets.push({
      label: `cube frame time, ${system.name}: vkdeno / libvulkan (fps >= 0.98x)`,
      group: frameGroup,
      case: "vkdeno",
      against: "libvulkan",
      op: "<=",
      limit: 1.02,
    });
  }
  for (const system of systems) {
    const jsCase = (loader: string): PairedCase => ({
      name: loader,
      run: () => {},
      sample: () => reports[`${system.name}/${loader}`]!.shift()!.cpuMsPerFrame,
    });
    groups.push({
      name: `JavaScript per frame, ${system.name}`,
      baseline: "libvulkan",
      unit: "ms",
      note:
        "the example's median ms per frame outside the waits (uniform update, recording, submit), same runs",
      cases: [jsCase("libvulkan"), jsCase("vkdeno")],
    });
  }
  await runPaired("bench/cube_bench.ts", () => Promise.resolve({ groups, targets }), {
    rounds: 9,
    warmup: 1,
  });
}
