/**
 * The idiomatic API's cost per call against the raw command it wraps, on vkdeno over lavapipe: no pointer
 * (`vkCmdSetLineWidth`, void; `vkGetFenceStatus`, its result returned by name), one struct in
 * (`vkCmdPipelineBarrier2` with a `VkDependencyInfo` holding one memory barrier), arrays in (`vkCmdSetViewport`
 * with one viewport literal, `vkCmdSetScissor` with one rect, `vkResetFences` with one fence), bytes in
 * (`vkCmdPushConstants`, 64 bytes), a handle out (`vkCreateBuffer` + `vkDestroyBuffer`), and the public struct
 * writer alone. The raw baseline passes a struct or array written once before the loop; "raw + writeStruct"
 * writes it on every call with the public struct writer into a new arena (what a raw-layer program pays to
 * marshal the same literal); the idiomatic API marshals the literal on every call into its reused scratch
 * memory.
 *
 * The command buffer is reset (untimed) before every batch, so each batch records into an empty buffer.
 *
 * `--garbage` measures instead what 1,000,000 idiomatic calls of each shape leave on the heap: each shape in a
 * child process under `--trace-gc`, counting the collections between two markers and the heap's growth.
 */

import { callLoop, type PairedGroup, runPaired, type Target } from "./_paired.ts";
import { BenchDevice, setBenchEnvironment } from "./_vulkan.ts";
import {
  Arena,
  asHandle,
  readPointer,
  VK_ACCESS_2_SHADER_WRITE_BIT,
  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
  VK_SHADER_STAGE_VERTEX_BIT,
  VkApi,
  type VkCommandSource,
  writeStruct,
} from "../mod.ts";
import { VK_FENCE_CREATE_SIGNALED_BIT, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT } from "../mod.ts";

const RAW = "raw, written once";
const MARSHAL = "raw + writeStruct per call";
const IDIOMATIC = "idiomatic";
const WRITE = "writeStruct";

/** The shapes `--garbage` measures, by name: one idiomatic call each. */
const GARBAGE_CASES = [
  "cmdSetViewport",
  "cmdSetScissor",
  "cmdPipelineBarrier2",
  "cmdPushConstants",
  "resetFences",
];
const GARBAGE_CALLS = 1_000_000;

if (import.meta.main && Deno.args[0] === "--garbage-case") {
  await garbageChild(Deno.args[1]!);
} else if (import.meta.main && Deno.args.includes("--garbage")) {
  await garbage();
} else if (import.meta.main) {
  await runPaired("bench/idiomatic_bench.ts", async () => {
    setBenchEnvironment();
    const { Vulkan } = await import("../mod.ts");
    const raw = Vulkan.load();
    const bench = BenchDevice.create(raw);
    const rec = bench.recording();
    const cmd = rec.commandBuffer;
    const device = asHandle("VkDevice", bench.device);
    const source = raw as unknown as VkCommandSource;
    const vk = VkApi.of(source);
    const t = raw as unknown as Record<string, (...a: unknown[]) => unknown>;
    const arena = new Arena();
    const fence = vk.createFence(device, { flags: VK_FENCE_CREATE_SIGNALED_BIT });
    const barrier = {
      pMemoryBarriers: [{
        srcStageMask: VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
        srcAccessMask: VK_ACCESS_2_SHADER_WRITE_BIT,
      }],
    };
    const viewport = { x: 0, y: 0, width: 64, height: 64, minDepth: 0, maxDepth: 1 };
    const dependency = writeStruct(arena, "VkDependencyInfo", barrier);
    const viewports = writeStruct(arena, "VkViewport", viewport);
    const fences = arena.pointerArray([fence]);
    const scissor = { offset: { x: 0, y: 0 }, extent: { width: 64, height: 64 } };
    const scissors = writeStruct(arena, "VkRect2D", scissor);
    const stage = VK_SHADER_STAGE_VERTEX_BIT;
    const layout = vk.createPipelineLayout(device, {
      pPushConstantRanges: [{ stageFlags: stage, offset: 0, size: 64 }],
    });
    const bytes64 = new Uint8Array(64).fill(7);
    const pushed = arena.copy(bytes64);
    const bufferLiteral = { size: 4096n, usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT };
    const bufferInfo = writeStruct(arena, "VkBufferCreateInfo", bufferLiteral);
    const slot = arena.pointer(arena.alloc(8));
    let writeArena = new Arena();
    const prepare = () => rec.restart();
    const marshal = (fn: (a: Arena) => void) => {
      return (n: number) => {
        for (let i = 0; i < n; i++) {
          using a = new Arena();
          fn(a);
        }
      };
    };
    const groups: PairedGroup[] = [
      {
        name: "no pointer: vkCmdSetLineWidth (void)",
        baseline: RAW,
        cases: [
          { name: RAW, prepare, run: callLoop("raw line", t.vkCmdSetLineWidth!, [cmd, 1]) },
          { name: IDIOMATIC, prepare, run: callLoop("idiom line", vk.cmdSetLineWidth, [cmd, 1]) },
        ],
      },
      {
        name: "no pointer: vkGetFenceStatus (result returned by name)",
        baseline: RAW,
        cases: [
          { name: RAW, run: callLoop("raw status", t.vkGetFenceStatus!, [device, fence]) },
          { name: IDIOMATIC, run: callLoop("idiom status", vk.getFenceStatus, [device, fence]) },
        ],
      },
      {
        name: "one struct in: vkCmdPipelineBarrier2 (VkDependencyInfo, one VkMemoryBarrier2)",
        baseline: RAW,
        cases: [
          { name: RAW, prepare, run: callLoop("raw barrier", t.vkCmdPipelineBarrier2!, [cmd, dependency]) },
          {
            name: MARSHAL,
            prepare,
            run: marshal((a) => t.vkCmdPipelineBarrier2!(cmd, writeStruct(a, "VkDependencyInfo", barrier))),
          },
          {
            name: IDIOMATIC,
            prepare,
            run: callLoop("idiom barrier", vk.cmdPipelineBarrier2, [cmd, barrier]),
          },
        ],
      },
      {
        name: "array in: vkCmdSetViewport (one VkViewport)",
        baseline: RAW,
        cases: [
          { name: RAW, prepare, run: callLoop("raw viewport", t.vkCmdSetViewport!, [cmd, 0, 1, viewports]) },
          {
            name: MARSHAL,
            prepare,
            run: marshal((a) => t.vkCmdSetViewport!(cmd, 0, 1, writeStruct(a, "VkViewport", viewport))),
          },
          {
            name: IDIOMATIC,
            prepare,
            run: callLoop("idiom viewport", vk.cmdSetViewport, [cmd, 0, [viewport]]),
          },
        ],
      },
      {
        name: "array in: vkResetFences (one fence)",
        baseline: RAW,
        cases: [
          { name: RAW, run: callLoop("raw reset", t.vkResetFences!, [device, 1, fences]) },
          {
            name: MARSHAL,
            run: marshal((a) => t.vkResetFences!(device, 1, a.pointerArray([fence]))),
          },
          { name: IDIOMATIC, run: callLoop("idiom reset", vk.resetFences, [device, [fence]]) },
        ],
      },
      {
        name: "array in: vkCmdSetScissor (one VkRect2D)",
        baseline: RAW,
        cases: [
          { name: RAW, prepare, run: callLoop("raw scissor", t.vkCmdSetScissor!, [cmd, 0, 1, scissors]) },
          {
            name: MARSHAL,
            prepare,
            run: marshal((a) => t.vkCmdSetScissor!(cmd, 0, 1, writeStruct(a, "VkRect2D", scissor))),
          },
          { name: IDIOMATIC, prepare, run: callLoop("idiom scissor", vk.cmdSetScissor, [cmd, 0, [scissor]]) },
        ],
      },
      {
        name: "bytes in: vkCmdPushConstants (64 bytes)",
        baseline: RAW,
        cases: [
          {
            name: RAW,
            prepare,
            run: callLoop("raw push", t.vkCmdPushConstants!, [cmd, layout, stage, 0, 64, pushed]),
          },
          {
            name: IDIOMATIC,
            prepare,
            run: callLoop("idiom push", vk.cmdPushConstants, [cmd, layout, stage, 0, bytes64]),
          },
        ],
      },
      {
        name: "handle out: vkCreateBuffer + vkDestroyBuffer (one VkBufferCreateInfo)",
        baseline: RAW,
        cases: [
          {
            name: RAW,
            run: (n) => {
              const create = t.vkCreateBuffer!, destroy = t.vkDestroyBuffer!;
              for (let i = 0; i < n; i++) {
                create(device, bufferInfo, null, slot);
                destroy(device, readPointer(slot), null);
              }
            },
          },
          {
            name: MARSHAL,
            run: marshal((a) => {
              t.vkCreateBuffer!(device, writeStruct(a, "VkBufferCreateInfo", bufferLiteral), null, slot);
              t.vkDestroyBuffer!(device, readPointer(slot), null);
            }),
          },
          {
            name: IDIOMATIC,
            run: (n) => {
              for (let i = 0; i < n; i++) vk.destroyBuffer(device, vk.createBuffer(device, bufferLiteral));
            },
          },
        ],
      },
      {
        name: "struct writer: writeStruct(VkBufferCreateInfo) into one arena",
        baseline: WRITE,
        note: "The target is absolute: <= 150 ns per struct on lavapipe's machine.",
        cases: [{
          name: WRITE,
          prepare: () => {
            writeArena.dispose();
            writeArena = new Arena();
          },
          run: (n) => {
            for (let i = 0; i < n; i++) writeStruct(writeArena, "VkBufferCreateInfo", bufferLiteral);
          },
        }],
      },
    ];
    // What every idiomatic call adds to the raw one at least (measured apart, docs/performance.md): one WeakMap
    // lookup for its dispatchable handle (ended through VkApi?), the loader's null checks (and one more lookup
    // for a device), the scratch's enter and leave; an array of handles one lookup per handle for its address.
    const perStruct =
      "each struct costs ~45-55 ns over the raw call: the writer's count of the literal's members (~9 ns, " +
      "what refuses a misspelled one), its reads, tests and stores (~10), the scratch's enter and leave (~7), " +
      "the one-literal test (~10-13) and the loader's handle check (~5-6) (docs/performance.md)";
    const floors: Record<string, string> = {
      [groups[2]!.name]: perStruct,
      [groups[3]!.name]: perStruct,
      [groups[5]!.name]: perStruct,
      [groups[4]!.name]:
        "the raw call is ~22-37 ns; the scratch's enter and leave (~14 ns), the one-handle write (~12), " +
        "the handle checks (~6) and the call through the command's function add ~30-50 ns (docs/performance.md)",
      [groups[7]!.name]:
        "a destroy records the handle in a WeakMap (to refuse a second destroy): a new key each time; " +
        "the raw pair plus that one WeakMap.set alone is 2.3-2.7x the raw pair (docs/performance.md)",
    };
    const targets: Target[] = groups.filter((g) => g.cases.some((c) => c.name === IDIOMATIC)).map((g) => ({
      label: `${g.name}: idiomatic / ${RAW}`,
      group: g.name,
      case: IDIOMATIC,
      against: RAW,
      op: "<=",
      limit: g.name.startsWith("handle out") ? 1.1 : 1.5,
      ...(floors[g.name] ? { whyMissed: floors[g.name] } : {}),
    }));
    return {
      groups,
      targets,
      dispose: () => {
        vk.destroyFence(device, fence);
        vk.destroyPipelineLayout(device, layout);
        writeArena.dispose();
        arena.dispose();
        bench[Symbol.dispose]();
        raw[Symbol.dispose]();
      },
    };
  });
}

/** Prints per shape the collections and heap growth over 1,000,000 idiomatic calls (each in a child process). */
async function garbage(): Promise<void> {
  console.log(
    `load ${Deno.loadavg()[0]}; ${GARBAGE_CALLS} idiomatic calls per shape, after 20,000 to warm up`,
  );
  console.log("| call | scavenges | mark-compacts | heap growth |");
  console.log("|---|---:|---:|---:|");
  for (const name of GARBAGE_CASES) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--v8-flags=--trace-gc,--expose-gc",
        new URL(import.meta.url).pathname,
        "--garbage-case",
        name,
      ],
      stdout: "piped",
      stderr: "inherit",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    const during = text.slice(text.indexOf("BEGIN"), text.indexOf("END"));
    const scavenges = during.match(/Scavenge/g)?.length ?? 0;
    const majors = during.match(/Mark-Compact/g)?.length ?? 0;
    const growth = Number(/END (\d+)/.exec(text)?.[1] ?? NaN);
    console.log(`| ${name} | ${scavenges} | ${majors} | ${(growth / 1024).toFixed(0)} KiB |`);
  }
}

/** One `--garbage` shape: warm up, collect, then 1,000,000 calls between the markers the parent reads. */
async function garbageChild(name: string): Promise<void> {
  setBenchEnvironment();
  const { Vulkan } = await import("../mod.ts");
  const raw = Vulkan.load();
  const bench = BenchDevice.create(raw);
  const rec = bench.recording();
  const cmd = asHandle("VkCommandBuffer", rec.commandBuffer);
  const device = asHandle("VkDevice", bench.device);
  const vk = VkApi.of(raw as unknown as VkCommandSource);
  const fence = vk.createFence(device, { flags: VK_FENCE_CREATE_SIGNALED_BIT });
  const stage = VK_SHADER_STAGE_VERTEX_BIT;
  const layout = vk.createPipelineLayout(device, {
    pPushConstantRanges: [{ stageFlags: stage, offset: 0, size: 64 }],
  });
  const bytes64 = new Uint8Array(64).fill(7);
  const fences = [fence];
  const viewports = [{ x: 0, y: 0, width: 64, height: 64, minDepth: 0, maxDepth: 1 }];
  const scissors = [{ offset: { x: 0, y: 0 }, extent: { width: 64, height: 64 } }];
  const barrier = {
    pMemoryBarriers: [{
      srcStageMask: VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
      srcAccessMask: VK_ACCESS_2_SHADER_WRITE_BIT,
    }],
  };
  const calls: Record<string, () => void> = {
    cmdSetViewport: () => vk.cmdSetViewport(cmd, 0, viewports),
    cmdSetScissor: () => vk.cmdSetScissor(cmd, 0, scissors),
    cmdPipelineBarrier2: () => vk.cmdPipelineBarrier2(cmd, barrier),
    cmdPushConstants: () => vk.cmdPushConstants(cmd, layout, stage, 0, bytes64),
    resetFences: () => vk.resetFences(device, fences),
  };
  const call = calls[name]!;
  // The command buffer restarts every 5,000 calls (lavapipe grows its recording otherwise).
  for (let i = 0; i < 20_000; i++) {
    if (i % 5000 === 0) rec.restart();
    call();
  }
  (globalThis as { gc?: () => void }).gc?.();
  const before = Deno.memoryUsage().heapUsed;
  console.log("BEGIN");
  for (let i = 0; i < GARBAGE_CALLS; i++) {
    if (i % 5000 === 0) rec.restart();
    call();
  }
  console.log(`END ${Deno.memoryUsage().heapUsed - before}`);
  vk.destroyFence(device, fence);
  vk.destroyPipelineLayout(device, layout);
  bench[Symbol.dispose]();
  raw[Symbol.dispose]();
}
