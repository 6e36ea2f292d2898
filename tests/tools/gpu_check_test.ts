// tools/gpu_check.ts without a GPU: its judging (tools/_gpu_compare.ts), manifest search (tools/_gpu_find.ts)
// and Markdown (tools/_gpu_report.ts) on made-up inputs shaped like the NVIDIA run's, then the whole script on
// lavapipe in place of NVIDIA's driver.
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import type { InfoReport } from "../../examples/info.ts";
import type { PairedOutput } from "../../bench/_paired.ts";
import {
  BENCH_CASES,
  binaryKnows,
  compareInfo,
  compareNameSets,
  judgeOrdering,
  judgeTsLayers,
  parseNegotiations,
  summarizeBench,
  validationMessages,
} from "../../tools/_gpu_compare.ts";
import { classifyManifest, findNvidiaManifest } from "../../tools/_gpu_find.ts";
import { type GpuReport, keptSections, renderMarkdown } from "../../tools/_gpu_report.ts";
import type { TsLayersProbe } from "../../tools/_gpu_tslayers.ts";
import { LAVAPIPE, mesaManifestName } from "../support/lavapipe.ts";

const root = new URL("../..", import.meta.url).pathname;

function device(name: string, type: string, extensions: string[]) {
  return {
    name,
    type,
    apiVersion: "1.4.312",
    driverVersion: 2435301632,
    vendorID: 0x10de,
    deviceID: 0x2330,
    extensions,
  };
}

function info(extensions: string[], devices = [device("NVIDIA H100", "DISCRETE_GPU", ["VK_KHR_swapchain"])]) {
  return {
    instanceVersion: "1.4.359",
    layers: [],
    extensions: extensions.map((name) => ({ name, specVersion: 1 })),
    devices,
    groups: devices.map((_, i) => ({ devices: [i] })),
  } satisfies InfoReport;
}

Deno.test("negotiation: the interface version comes from vkdeno's driver log line, once per driver", () => {
  const line =
    'INFO | DRIVER:    Driver "nvidia_icd.json" ("libGLX_nvidia.so.0") negotiated interface 7, Vulkan 1.4.312';
  const other =
    'INFO | DRIVER:    Driver "lvp.json" ("/usr/lib/libvulkan_lvp.so") negotiated interface 5, Vulkan 1.3.230';
  assertEquals(parseNegotiations([line, "INFO | DRIVER: unrelated", line, other].join("\n")), [
    {
      manifest: "nvidia_icd.json",
      library: "libGLX_nvidia.so.0",
      interfaceVersion: 7,
      apiVersion: "1.4.312",
    },
    {
      manifest: "lvp.json",
      library: "/usr/lib/libvulkan_lvp.so",
      interfaceVersion: 5,
      apiVersion: "1.3.230",
    },
  ]);
  assertEquals(parseNegotiations("DRIVER: Searching for ICD drivers named libGLX_nvidia.so.0"), []);
});

Deno.test("info comparison: same reports are equal; an extension libvulkan's headers lack is explained, not a difference", () => {
  const same = compareInfo(info(["VK_KHR_surface"]), info(["VK_KHR_surface"]));
  assert(same.equal);
  assertEquals(same.devices[0]!.extensions, { vkdeno: 1, libvulkan: 1 });

  const knows = binaryKnows(new TextEncoder().encode("\0VK_KHR_surface\0VK_KHR_display\0"));
  const newer = compareInfo(info(["VK_KHR_surface", "VK_NV_display_stereo"]), info(["VK_KHR_surface"]), {
    referenceKnows: knows,
  });
  assert(newer.equal, newer.differences.join("\n"));
  assertEquals(newer.instanceExtensions, { vkdeno: 2, libvulkan: 1 });
  assert(newer.explained[0]!.includes('"VK_NV_display_stereo"'));

  // An extension libvulkan knows but does not list is a real difference, and so is one only libvulkan has.
  const missing = compareInfo(info(["VK_KHR_display"]), info(["VK_KHR_surface"]), { referenceKnows: knows });
  assert(!missing.equal);
  assertEquals(missing.differences, [
    'Instance extension "VK_KHR_display" only in vkdeno',
    'Instance extension "VK_KHR_surface" only in libvulkan',
  ]);
});

Deno.test("info comparison: device fields, device extensions and order are compared device by device", () => {
  const gpu = device("NVIDIA H100", "DISCRETE_GPU", ["VK_KHR_swapchain", "VK_NV_ray_tracing"]);
  const cpu = device("CPU", "CPU", []);
  const r = compareInfo(info([], [gpu, cpu]), info([], [cpu, { ...gpu, extensions: ["VK_KHR_swapchain"] }]));
  assert(!r.equal);
  assert(r.differences.includes('Device 0 name differs: vkdeno "NVIDIA H100", libvulkan "CPU"'));
  assert(r.differences.includes('Device 0 extension "VK_NV_ray_tracing" only in vkdeno'));
  assertEquals(r.devices.map((d) => d.extensions), [{ vkdeno: 2, libvulkan: 0 }, {
    vkdeno: 0,
    libvulkan: 1,
  }]);
});

Deno.test("commands handed out: names libvulkan does not know are explained, others are differences", () => {
  const knows = (n: string) => n !== "vkCmdBindDescriptorSets2";
  assertEquals(
    compareNameSets(["vkA", "vkB", "vkCmdBindDescriptorSets2"], ["vkA", "vkC"], knows),
    {
      both: 1,
      onlyVkdeno: ["vkB"],
      explained: ["vkCmdBindDescriptorSets2"],
      onlyLibvulkan: ["vkC"],
      passedToDriver: [],
    },
  );
  // libvulkan hands a name it does not know to the driver; vkdeno knows it and applies its rule.
  assertEquals(
    compareNameSets(["vkA"], ["vkA", "vkCmdBindDescriptorSets2"], knows).passedToDriver,
    ["vkCmdBindDescriptorSets2"],
  );
});

Deno.test("ordering: the discrete GPU before the CPU device, in libvulkan's order", () => {
  const gpu = { name: "NVIDIA H100", type: "DISCRETE_GPU" };
  const cpu = { name: "mock CPU", type: "CPU" };
  const good = judgeOrdering([gpu, cpu], [gpu, cpu]);
  assert(good.applicable && good.discreteFirst && good.sameAsLibvulkan);
  const reversed = judgeOrdering([cpu, gpu], [gpu, cpu]);
  assert(reversed.applicable && !reversed.discreteFirst && !reversed.sameAsLibvulkan);
  // Two identical GPUs in swapped order differ only by UUID.
  const h200a = { name: "NVIDIA H200", type: "DISCRETE_GPU", uuid: "aa", pci: "0000:00:06.0" };
  const h200b = { name: "NVIDIA H200", type: "DISCRETE_GPU", uuid: "bb", pci: "0000:00:07.0" };
  assert(!judgeOrdering([h200a, h200b, cpu], [h200b, h200a, cpu]).sameAsLibvulkan);
  assert(judgeOrdering([h200a, h200b, cpu], [h200a, h200b, cpu]).sameAsLibvulkan);
  const cpus = judgeOrdering([cpu, cpu], [cpu, cpu]);
  assert(!cpus.applicable && !cpus.discreteFirst && cpus.sameAsLibvulkan);
});

Deno.test("bench summary: medians per case, ratios are medians of per-round ratios over runs", () => {
  const run = (pub: number[], ref: number[], floor: number[]): PairedOutput => ({
    kind: "vkdeno-paired",
    file: "tools/_gpu_bench.ts",
    date: "",
    machine: { cpu: "", cores: 1, os: "", runtime: "", load: 0 },
    targets: [],
    groups: [{
      name: "vkCmdSetLineWidth",
      baseline: BENCH_CASES.reference,
      unit: "ns",
      cases: [
        { name: BENCH_CASES.reference, batch: 1, samples: ref },
        { name: BENCH_CASES.floor, batch: 1, samples: floor },
        { name: BENCH_CASES.public, batch: 1, samples: pub },
      ],
    }],
  });
  const [row] = summarizeBench([
    run([20, 30, 10], [10, 10, 10], [5, 5, 5]),
    run([10, 10, 10], [10, 10, 10], [5, 5, 5]),
  ]);
  assertEquals(row!.command, "vkCmdSetLineWidth");
  assertEquals(row!.ns[BENCH_CASES.public], 15); // median of the runs' medians 20 and 10
  assertEquals(row!.publicVsLibvulkan, 1.5); // per run: median(2, 3, 1) = 2 and 1
  assertEquals(row!.libvulkanVsFloor, 2);
  assert(Number.isNaN(row!.tableVsLibvulkan)); // no table case
});

Deno.test("validation messages: VUIDs and validation errors are picked from output", () => {
  assertEquals(validationMessages("Result: all 4 values correct\nValidation Error: [ VUID-x ]\nok"), [
    "Validation Error: [ VUID-x ]",
  ]);
});

/** What tools/_gpu_tslayers.ts prints for `runs` compute runs where everything went right. */
function tsLayersProbe(placement: "script" | "native", runs = 2): TsLayersProbe {
  const events: string[] = [];
  for (let k = 1; k <= runs; k++) {
    events.push(
      `objects: create instance ${k}`,
      `reader: create instance ${k}`,
      `objects: instance ${k} made, 0`,
      "reader: vkCreateDevice chain has VkPhysicalDeviceVulkan11Features: shaderDrawParameters 1",
      "reader: vkCreateDevice -> 0",
      `objects: create instance ${k} device ${k}`,
      `objects: instance ${k} device ${k} destroyed after 1 dispatch, 1 submit`,
      `objects: dispose instance ${k} device ${k}`,
      `reader: dispose instance ${k}`,
      `objects: dispose instance ${k}`,
    );
  }
  return {
    placement,
    events,
    objects: { instances: runs, devices: runs, readerInstances: runs, disposed: 3 * runs },
    chains: Array.from({ length: runs }, () => ["VkPhysicalDeviceVulkan11Features"]),
    compute: Array.from({ length: runs }, () => ({ device: "NVIDIA H100 80GB HBM3", wrong: 0 })),
    errors: [],
  };
}

Deno.test("TS layers: one object per instance and device, the same calls in both placements, the edit read below", () => {
  const good = judgeTsLayers(tsLayersProbe("script"), tsLayersProbe("native"));
  assertEquals(good, {
    runs: 2,
    oneObjectEach: true,
    sameCalls: true,
    editSeenBelow: true,
    computeCorrect: true,
    problems: [],
  });

  // A second instance object made for one instance (its calls then run twice).
  const twice = tsLayersProbe("native");
  twice.objects.instances = 3;
  twice.events.splice(1, 0, "objects: create instance 1");
  const extra = judgeTsLayers(tsLayersProbe("script"), twice);
  assertEquals([extra.oneObjectEach, extra.sameCalls, extra.editSeenBelow], [false, false, true]);
  assert(
    extra.problems.some((p) => p.startsWith("native: 2 run(s) made 3 instance")),
    extra.problems.join("\n"),
  );
  assert(extra.problems.some((p) => p.includes('differ at 1: script "reader: create instance 1"')));

  // The edit lost on the way down, and a device object never disposed.
  const lost = tsLayersProbe("native");
  lost.chains[1] = [];
  lost.objects.disposed = 5;
  const judged = judgeTsLayers(tsLayersProbe("script"), lost);
  assertEquals([judged.oneObjectEach, judged.editSeenBelow, judged.computeCorrect], [false, false, true]);
  assert(judged.problems.includes("native: the edit was read below in 1 of 2 vkCreateDevice call(s)"));

  const wrong = tsLayersProbe("script");
  wrong.compute[0]!.wrong = 7;
  assertEquals(judgeTsLayers(wrong, tsLayersProbe("native")).computeCorrect, false);
});

Deno.test("manifest search: NVIDIA's manifest is found by its library in a folder, or by a walk when elsewhere", () => {
  const tree = Deno.makeTempDirSync({ prefix: "vkdeno_gpu_find_" });
  try {
    const icd = `${tree}/usr/share/vulkan/icd.d`;
    const deep = `${tree}/usr/local/nvidia/share/vulkan/icd.d`;
    Deno.mkdirSync(icd, { recursive: true });
    Deno.mkdirSync(deep, { recursive: true });
    Deno.writeTextFileSync(
      `${icd}/lvp.json`,
      '{"file_format_version":"1.0.0","ICD":{"library_path":"libvulkan_lvp.so"}}',
    );
    Deno.writeTextFileSync(`${icd}/broken.json`, "{");
    Deno.writeTextFileSync(
      `${deep}/nvidia_icd.json`,
      '{"file_format_version":"1.0.1","ICD":{"library_path":"libGLX_nvidia.so.0","api_version":"1.4.312"}}',
    );
    const inFolder = findNvidiaManifest({ folders: [icd, deep], walkRoots: [] });
    assertEquals(inFolder.chosen, {
      path: `${deep}/nvidia_icd.json`,
      status: "nvidia",
      libraryPath: "libGLX_nvidia.so.0",
      apiVersion: "1.4.312",
      fileFormatVersion: "1.0.1",
    });
    assertEquals(inFolder.candidates.map((c) => c.status), ["invalid", "other", "nvidia"]);
    const walked = findNvidiaManifest({ folders: [icd], walkRoots: [`${tree}/usr`] });
    assertEquals(walked.chosen?.path, `${deep}/nvidia_icd.json`);
    const none = findNvidiaManifest({ folders: [icd], walkRoots: [] });
    assertEquals(none.chosen, undefined);
  } finally {
    Deno.removeSync(tree, { recursive: true });
  }
  assertEquals(classifyManifest("x.json", '{"ICD":{}}').status, "invalid");
});

Deno.test("markdown: the interface, devices, compute output, ordering and bench ratios are in the report", () => {
  const report: GpuReport = {
    kind: "vkdeno-gpu-check",
    date: "2026-11-22T01:00:00.000Z",
    machine: {
      gpu: "NVIDIA H100 80GB HBM3",
      driverVersion: "580.159.04",
      kernel: "6.18",
      cpu: "Xeon",
      deno: "Deno",
    },
    manifest: { candidates: [] },
    steps: [{ name: "info", status: "pass", ms: 1 }],
    negotiation: {
      vkdeno: [{
        manifest: "nvidia_icd.json",
        library: "libGLX_nvidia.so.0",
        interfaceVersion: 7,
        apiVersion: "1.4.312",
      }],
      libvulkanLines: [],
    },
    info: { comparison: compareInfo(info(["a"]), info(["a"])) },
    compute: {
      vkdeno: {
        command: "",
        code: 0,
        stdout: "Loader:  vkdeno\nResult:  all 1048576 values correct\n",
        stderrTail: "",
      },
    },
    ordering: {
      ...judgeOrdering([{ name: "GPU", type: "DISCRETE_GPU" }, { name: "CPU", type: "CPU" }], [
        { name: "GPU", type: "DISCRETE_GPU" },
        { name: "CPU", type: "CPU" },
      ]),
      secondDriver: "mock",
      orderLog: [],
    },
    tsLayers: {
      script: { command: "", code: 0, stdout: "", stderrTail: "", probe: tsLayersProbe("script") },
      native: { command: "", code: 0, stdout: "", stderrTail: "", probe: tsLayersProbe("native") },
      layerOrder: ["VK_LAYER_KHRONOS_validation", "VK_LAYER_gpucheck_objects", "VK_LAYER_gpucheck_reader"],
      messages: [],
      verdict: judgeTsLayers(tsLayersProbe("script"), tsLayersProbe("native")),
    },
    bench: {
      runs: 1,
      rows: [{
        command: "vkGetDeviceQueue",
        ns: { [BENCH_CASES.reference]: 10, [BENCH_CASES.public]: 14 },
        publicVsLibvulkan: 1.4,
        publicVsFloor: 2.1,
        libvulkanVsFloor: 1.5,
        tableVsLibvulkan: NaN,
      }],
    },
  };
  const md = renderMarkdown(report);
  for (
    const text of [
      "| nvidia_icd.json | `libGLX_nvidia.so.0` | 7 | 1.4.312 |",
      "- NVIDIA driver: 580.159.04",
      "| 0 | NVIDIA H100 | DISCRETE_GPU | 1.4.312 | 2435301632 | 0x10de:0x2330 | 1 | 1 |",
      "Result:  all 1048576 values correct",
      "Discrete GPU first: yes; same order as libvulkan: yes.",
      "| vkGetDeviceQueue | 10.0 | n/a | 14.0 | n/a | 1.40 | 2.10 | 1.50 |",
      "| objects: instance / device / lower layer's instance | 2 / 2 / 2, 6 disposed | 2 / 2 / 2, 6 disposed |",
      "VK_LAYER_KHRONOS_validation, VK_LAYER_gpucheck_objects, VK_LAYER_gpucheck_reader |",
      "One object per instance and device: yes; the same calls in both placements: yes; the edit read below: yes.",
      "objects: instance 2 device 2 destroyed after 1 dispatch, 1 submit",
    ]
  ) assert(md.includes(text), `missing ${JSON.stringify(text)} in\n${md}`);
});

Deno.test('markdown: an earlier page\'s "Also run on" sections are kept, unless a report rendered has the heading', () => {
  const report = (gpu: string): GpuReport => ({
    kind: "vkdeno-gpu-check",
    date: "2026-11-27T01:00:00.000Z",
    machine: { gpu, kernel: "6.18", cpu: "Xeon", deno: "Deno" },
    manifest: { candidates: [] },
    steps: [{ name: "info", status: "pass", ms: 1 }],
    negotiation: { vkdeno: [], libvulkanLines: [] },
  });
  const earlier = renderMarkdown(report("NVIDIA H100"), [report("2 × NVIDIA H200"), report("NVIDIA L4")]);
  const kept = keptSections(earlier);
  assertEquals(kept.map((s) => s.split("\n", 1)[0]), [
    "## Also run on 2 × NVIDIA H200",
    "## Also run on NVIDIA L4",
  ]);
  assert(kept[0]!.includes("### Steps") && !kept[1]!.includes("## How to run it"));

  const page = renderMarkdown(report("NVIDIA H100"), [report("NVIDIA L4")], [], {
    kept,
    command: "render X",
  });
  assertEquals(page.split("\n").filter((l) => l.startsWith("## Also run on ")), [
    "## Also run on NVIDIA L4",
    "## Also run on 2 × NVIDIA H200",
  ]);
  assert(page.includes("do not edit by hand: `render X`."));
  assert(page.trimEnd().endsWith(earlier.slice(earlier.indexOf("## How to run it")).trimEnd()));
});

Deno.test({
  name:
    "gpu_check on lavapipe: the report has the negotiated interface, equal info from both loaders, and the TS layers alike in both placements",
  ignore: (() => {
    try {
      Deno.statSync(LAVAPIPE);
      return false;
    } catch {
      return true;
    }
  })(),
}, async () => {
  const out = Deno.makeTempDirSync({ prefix: "vkdeno_gpu_check_" });
  try {
    const env: Record<string, string> = {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: Deno.env.get("HOME") ?? "/root",
    };
    const denoDir = Deno.env.get("DENO_DIR");
    if (denoDir) env.DENO_DIR = denoDir;
    const result = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        `${root}tools/gpu_check.ts`,
        "--out",
        out,
        "--driver",
        LAVAPIPE,
        "--skip",
        "procaddr,validation,lifecycle,ordering,bench",
      ],
      clearEnv: true,
      env,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(result.stderr);
    assert(result.success, stderr);
    const report = JSON.parse(Deno.readTextFileSync(`${out}/gpu_report.json`)) as GpuReport;
    assertEquals(report.manifest.chosen?.path, LAVAPIPE);
    assertEquals(report.negotiation.vkdeno.map((n) => n.interfaceVersion), [5]);
    assert(report.info?.comparison?.equal, JSON.stringify(report.info?.comparison?.differences));
    assertEquals(report.steps.map((s) => [s.name, s.status]), [
      ["manifest", "pass"],
      ["info", "pass"],
      ["compute", "pass"],
      ["validation", "skip"],
      ["tslayers", "pass"],
      ["procaddr", "skip"],
      ["lifecycle", "skip"],
      ["ordering", "skip"],
      ["bench", "skip"],
    ]);
    assert(Deno.readTextFileSync(`${out}/gpu_report.md`).includes(`| ${mesaManifestName("lvp")} |`));
    assertEquals(report.tsLayers?.verdict?.problems, []);
    assertEquals(report.tsLayers?.native.probe?.objects, {
      instances: 2,
      devices: 2,
      readerInstances: 2,
      disposed: 6,
    });
  } finally {
    Deno.removeSync(out, { recursive: true });
  }
});
