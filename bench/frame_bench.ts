/**
 * A renderer's frame: one command buffer of N draws (N = 1,000 and 10,000), each draw binding one descriptor
 * set with one dynamic offset, pushing 64 bytes of constants, setting the viewport and the scissor and drawing;
 * one `vkCmdPipelineBarrier2` every 100 draws. Recorded through: C through libvulkan's exports (bench/c/frame.c,
 * built with cc: the physical limit), libvulkan's exports through Deno FFI, vkdeno's raw commands with every
 * struct and array written once, vkdeno's raw commands with `writeStruct` per call (one arena per frame), and
 * the idiomatic `VkApi`. Every path records the same values; the command pool is reset (untimed) before each
 * frame, and every path first records 200,000 draws unmeasured (a renderer that has run a while). The
 * `writeStruct` per call frame is measured in groups of its own, after the others (its garbage slowed the cases
 * that followed it).
 *
 * `BENCH_NULL_COMMANDS=1`: every path records through bench/c/null_layer.c, a layer whose frame commands return
 * at once (enabled with `VK_INSTANCE_LAYERS` for all five), so the loaders' own per-call cost shows as it does
 * over a driver that records a command in a few ns (a GPU's), not lavapipe's ~100 ns.
 */

import { type PairedCase, type PairedGroup, runPaired, type Target } from "./_paired.ts";
import { BenchDevice, type Commands, setBenchEnvironment } from "./_vulkan.ts";
import { buildBenchLibrary, nullCommandsLayer } from "./_native.ts";
import { openLibvulkan } from "../tests/support/libvulkan.ts";
import {
  Arena,
  asHandle,
  VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
  VK_ACCESS_2_SHADER_READ_BIT,
  VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC,
  VK_PIPELINE_BIND_POINT_GRAPHICS,
  VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
  VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
  VK_SHADER_STAGE_VERTEX_BIT,
  VkApi,
  type VkCommandSource,
  writeStruct,
} from "../mod.ts";

const C = "C through libvulkan";
const LIBVULKAN = "libvulkan exports through Deno FFI";
const RAW = "vkdeno raw, written once";
const MARSHAL = "vkdeno raw + writeStruct per call";
const IDIOMATIC = "VkApi";

const VIEWPORT = { x: 0, y: 0, width: 64, height: 64, minDepth: 0, maxDepth: 1 };
const SCISSOR = { offset: { x: 0, y: 0 }, extent: { width: 64, height: 64 } };
const DEPENDENCY = {
  pMemoryBarriers: [{
    srcStageMask: VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
    srcAccessMask: VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
    dstStageMask: VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
    dstAccessMask: VK_ACCESS_2_SHADER_READ_BIT,
  }],
};
/**
 * Draws every path records in unmeasured rounds first: a renderer records frame after frame, and VkApi's frame
 * (a dozen functions, each optimized on its own) takes ~30,000 draws to reach its speed (docs/performance.md).
 */
const WARM_DRAWS = 200_000;
const OFFSETS = new Uint32Array([256]);
const PUSHED = new Uint8Array(64).fill(7);
const STAGE = VK_SHADER_STAGE_VERTEX_BIT;
const GRAPHICS = VK_PIPELINE_BIND_POINT_GRAPHICS;

/** A device of one loader with what a frame binds: a pipeline layout, a descriptor set, a command buffer. */
class Frame implements Disposable {
  readonly device: BenchDevice;
  readonly vk: VkApi;
  readonly commandBuffer: Deno.PointerObject;
  readonly restart: () => void;
  readonly layout: Deno.PointerObject;
  readonly set: Deno.PointerObject;
  readonly #scope: VkApi;

  constructor(loader: Commands) {
    this.device = BenchDevice.create(loader);
    const rec = this.device.recording();
    this.commandBuffer = rec.commandBuffer;
    this.restart = rec.restart;
    this.vk = VkApi.of(loader as unknown as VkCommandSource);
    this.#scope = this.vk.scope();
    const device = asHandle("VkDevice", this.device.device);
    const setLayout = this.#scope.createDescriptorSetLayout(device, {
      pBindings: [{
        binding: 0,
        descriptorType: VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC,
        descriptorCount: 1,
        stageFlags: STAGE,
      }],
    });
    this.layout = this.#scope.createPipelineLayout(device, {
      pSetLayouts: [setLayout],
      pPushConstantRanges: [{ stageFlags: STAGE, offset: 0, size: 64 }],
    });
    const pool = this.#scope.createDescriptorPool(device, {
      maxSets: 1,
      pPoolSizes: [{ type: VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, descriptorCount: 1 }],
    });
    this.set = this.vk.allocateDescriptorSets(device, { descriptorPool: pool, pSetLayouts: [setLayout] })[0];
  }

  [Symbol.dispose](): void {
    this.#scope.dispose();
    this.device[Symbol.dispose]();
  }
}

/**
 * The raw frame, its structs and arrays written once, compiled on its own per loader (as bench/_paired.ts's
 * callLoop does) so that each loop's call sites see one loader's functions.
 */
function rawFrame(id: string, cmds: Commands, frame: Frame, arena: Arena): (draws: number) => void {
  const source = `// ${JSON.stringify(id)} ${Math.random()}
return function frame(draws) {
  for (let i = 0; i < draws; i++) {
    bind(cb, ${GRAPHICS}, layout, 0, 1, sets, 1, offsets);
    push(cb, layout, ${STAGE}, 0, 64, pushed);
    viewport(cb, 0, 1, viewports);
    scissor(cb, 0, 1, scissors);
    draw(cb, 3, 1, 0, 0);
    if (i % 100 === 99) barrier(cb, dependency);
  }
};`;
  return new Function(
    "bind",
    "push",
    "viewport",
    "scissor",
    "draw",
    "barrier",
    "cb",
    "layout",
    "sets",
    "offsets",
    "pushed",
    "viewports",
    "scissors",
    "dependency",
    source,
  )(
    cmds.vkCmdBindDescriptorSets,
    cmds.vkCmdPushConstants,
    cmds.vkCmdSetViewport,
    cmds.vkCmdSetScissor,
    cmds.vkCmdDraw,
    cmds.vkCmdPipelineBarrier2,
    frame.commandBuffer,
    frame.layout,
    arena.pointerArray([frame.set]),
    arena.copy(OFFSETS),
    arena.copy(PUSHED),
    writeStruct(arena, "VkViewport", VIEWPORT),
    writeStruct(arena, "VkRect2D", SCISSOR),
    writeStruct(arena, "VkDependencyInfo", DEPENDENCY),
  );
}

/** The raw frame marshalling every struct and array per call with the public writers, one arena a frame. */
function marshalFrame(cmds: Commands, frame: Frame): (draws: number) => void {
  const { commandBuffer: cb, layout, set } = frame;
  return (draws) => {
    using a = new Arena();
    for (let i = 0; i < draws; i++) {
      cmds.vkCmdBindDescriptorSets(cb, GRAPHICS, layout, 0, 1, a.pointerArray([set]), 1, a.copy(OFFSETS));
      cmds.vkCmdPushConstants(cb, layout, STAGE, 0, 64, a.copy(PUSHED));
      cmds.vkCmdSetViewport(cb, 0, 1, writeStruct(a, "VkViewport", VIEWPORT));
      cmds.vkCmdSetScissor(cb, 0, 1, writeStruct(a, "VkRect2D", SCISSOR));
      cmds.vkCmdDraw(cb, 3, 1, 0, 0);
      if (i % 100 === 99) cmds.vkCmdPipelineBarrier2(cb, writeStruct(a, "VkDependencyInfo", DEPENDENCY));
    }
  };
}

/** The idiomatic frame: literals and arrays, as a renderer written against `VkApi` records. */
function idiomaticFrame(frame: Frame): (draws: number) => void {
  const { vk } = frame;
  const cb = asHandle("VkCommandBuffer", frame.commandBuffer);
  const layout = asHandle("VkPipelineLayout", frame.layout);
  const sets = [asHandle("VkDescriptorSet", frame.set)];
  const viewports = [VIEWPORT];
  const scissors = [SCISSOR];
  return (draws) => {
    for (let i = 0; i < draws; i++) {
      vk.cmdBindDescriptorSets(cb, GRAPHICS, layout, 0, sets, OFFSETS);
      vk.cmdPushConstants(cb, layout, STAGE, 0, PUSHED);
      vk.cmdSetViewport(cb, 0, viewports);
      vk.cmdSetScissor(cb, 0, scissors);
      vk.cmdDraw(cb, 3, 1, 0, 0);
      if (i % 100 === 99) vk.cmdPipelineBarrier2(cb, DEPENDENCY);
    }
  };
}

/** bench/c/frame.c, opened: its own instance and device through libvulkan. */
async function nativeFrame(): Promise<
  { reset: () => void; record: (draws: number) => void; close: () => void }
> {
  const lib = Deno.dlopen(await buildBenchLibrary("frame"), {
    frame_open: { parameters: [], result: "i32" },
    frame_reset: { parameters: [], result: "void" },
    frame_record: { parameters: ["u32"], result: "void" },
    frame_close: { parameters: [], result: "void" },
  });
  const r = lib.symbols.frame_open();
  if (r !== 0) throw new Error(`Cannot benchmark the C frame: frame_open returned ${r}`);
  return {
    reset: () => lib.symbols.frame_reset(),
    record: (draws) => lib.symbols.frame_record(draws),
    close: () => {
      lib.symbols.frame_close();
      lib.close();
    },
  };
}

if (import.meta.main) {
  await runPaired("bench/frame_bench.ts", async () => {
    const nulled = Deno.env.get("BENCH_NULL_COMMANDS") === "1" ? await nullCommandsLayer() : undefined;
    setBenchEnvironment(
      nulled ? { VK_LAYER_PATH: nulled.folder, VK_INSTANCE_LAYERS: nulled.names.join(":") } : {},
    );
    const { Vulkan } = await import("../mod.ts");
    const native = await nativeFrame();
    const libvulkan = openLibvulkan();
    const vkdeno = Vulkan.load();
    const ref = new Frame(libvulkan);
    const ours = new Frame(vkdeno);
    const arena = new Arena();
    const paths: [string, (draws: number) => void, () => void][] = [
      [C, native.record, native.reset],
      [LIBVULKAN, rawFrame("libvulkan", libvulkan, ref, arena), ref.restart],
      [RAW, rawFrame("vkdeno", vkdeno, ours, arena), ours.restart],
      [MARSHAL, marshalFrame(vkdeno, ours), ours.restart],
      [IDIOMATIC, idiomaticFrame(ours), ours.restart],
    ];
    // The writeStruct-per-call frame runs in groups of its own, after the others: in the same rotation, the
    // garbage and native memory it leaves slowed the cases after it (at 10,000 draws vkdeno raw read 1.78-1.86x
    // libvulkan and the C frame 1.45x, against 0.96x and 0.93x without it, docs/performance.md).
    const group = (draws: number, suffix: string, only: (name: string) => boolean): PairedGroup => ({
      name: `${draws.toLocaleString("en")} draws${suffix}`,
      baseline: LIBVULKAN,
      unit: "ms",
      rounds: draws > 1000 ? 11 : undefined,
      warmup: Math.ceil(WARM_DRAWS / draws),
      cases: paths.filter(([name]) => only(name)).map(([name, record, prepare]): PairedCase => ({
        name,
        prepare,
        batch: 1,
        run: (n) => {
          for (let i = 0; i < n; i++) record(draws);
        },
      })),
    });
    const main = [1000, 10000].map((draws) => group(draws, "", (name) => name !== MARSHAL));
    const groups: PairedGroup[] = [
      ...main,
      ...[1000, 10000].map((draws) =>
        group(draws, ", writeStruct per call", (name) => [LIBVULKAN, RAW, MARSHAL].includes(name))
      ),
    ];
    const targets: Target[] = main.flatMap((g) => [
      {
        label: `${g.name}: ${IDIOMATIC} / ${RAW}`,
        group: g.name,
        case: IDIOMATIC,
        against: RAW,
        op: "<=",
        limit: 1.5,
        whyMissed: "VkApi adds ~45-55 ns of checks and writing per struct command over the raw call (the " +
          "Idiomatic API section's floors), 2-3x a call over a driver that records a command in a few ns (the " +
          "H200, the null layer); lavapipe's ~100 ns per command hides part of it (docs/performance.md)",
      },
      {
        label: `${g.name}: ${RAW} / ${LIBVULKAN}`,
        group: g.name,
        case: RAW,
        against: LIBVULKAN,
        op: "<=",
        limit: 1.05,
      },
    ]);
    return {
      groups,
      targets,
      dispose: () => {
        arena.dispose();
        ours[Symbol.dispose]();
        ref[Symbol.dispose]();
        native.close();
        vkdeno[Symbol.dispose]();
      },
    };
  }, { warmup: 3 });
}
