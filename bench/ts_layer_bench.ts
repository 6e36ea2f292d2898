/**
 * The cost of a TS layer intercepting `vkCmdSetLineWidth` (a `preCallRecord` counting calls) on lavapipe,
 * through vkdeno, in the two placements, measured in the same rounds: no layer; the layer in the script
 * (`installLayers`); the layer in the native chain (a `.vkdeno` manifest); and the floor of any native
 * placement, C calling an empty JS callback with a command buffer handle (bench/c/js_callback.c: Deno makes
 * an object of every non-NULL pointer argument, ~40-60 ns here that a NULL handle, which no native link gets,
 * would skip). Targets: the script adds at most 25 ns per intercepted call; the native chain adds at most the
 * floor plus 3 times what the script adds. Where the native chain's time goes: docs/performance.md.
 * Run: `deno run --allow-all bench/ts_layer_bench.ts` (one process); BENCHMARKS.md takes the median of 12.
 */

import { Vulkan } from "../mod.ts";
import { defineLayer, installLayers } from "../layers/mod.ts";
import { buildBenchLibrary } from "./_native.ts";
import { type PairedCase, runPaired } from "./_paired.ts";
import { Subject } from "./_percall.ts";
import { type Commands, setBenchEnvironment } from "./_vulkan.ts";

const LAYER = "VK_LAYER_BENCH_line_width";
const NONE = "no layer";
const SCRIPT = "TS layer in the script";
const NATIVE = "TS layer in the native chain";
const FLOOR = "floor: C calling an empty JS callback";
const GROUP = "vkCmdSetLineWidth, one TS layer intercepting it";

let counted = 0;
const counting = defineLayer({
  name: LAYER,
  description: "counts vkCmdSetLineWidth",
  create: () => ({ intercepts: { vkCmdSetLineWidth: { preCallRecord: () => void counted++ } } }),
});

/** A case running `fn(commandBuffer, 1.0f)` `n` times from C, `fn` an empty JS callback: what a native link pays first. */
async function floorCase(): Promise<{ case: PairedCase; dispose(): void }> {
  const lib = Deno.dlopen(
    await buildBenchLibrary("js_callback"),
    {
      callLineWidth: { parameters: ["function", "i32"], result: "void" },
    } as const,
  );
  const empty = new Deno.UnsafeCallback(
    { parameters: ["pointer", "f32"], result: "void" } as const,
    () => {},
  );
  const call = lib.symbols.callLineWidth;
  return {
    case: { name: FLOOR, run: (n) => call(empty.pointer, n) },
    dispose() {
      empty.close();
      lib.close();
    },
  };
}

if (import.meta.main) {
  await runPaired("bench/ts_layer_bench.ts", async () => {
    const folder = await Deno.makeTempDir({ prefix: "vkdeno_bench_ts_layer_" });
    await Deno.writeTextFile(
      `${folder}/line_width.vkdeno`,
      JSON.stringify({
        file_format_version: "1.2.0",
        layer: {
          name: LAYER,
          type: "GLOBAL",
          library_path: "./line_width.ts",
          api_version: "1.3.0",
          implementation_version: "1",
          description: "counts vkCmdSetLineWidth",
        },
      }),
    );
    setBenchEnvironment({ VK_ADD_LAYER_PATH: folder });
    const plain = Vulkan.load();
    const chained = Vulkan.load({ layerModules: [counting] });
    const scripted = installLayers(Vulkan.load(), { layers: [counting], disposeBase: true });
    const none = new Subject("vkdeno", plain as unknown as Commands);
    const script = new Subject("script", scripted as unknown as Commands);
    const native = new Subject("native", chained as unknown as Commands, [LAYER]);
    const floor = await floorCase();
    const command = "vkCmdSetLineWidth";
    return {
      groups: [{
        name: GROUP,
        baseline: NONE,
        note: "Each case's added cost is its time minus the no-layer time of the same round.",
        cases: [
          none.publicCase(NONE, command),
          script.publicCase(SCRIPT, command),
          native.publicCase(NATIVE, command),
          floor.case,
        ],
      }],
      targets: [
        {
          label: "TS layer in the script: ns added per intercepted vkCmdSetLineWidth",
          group: GROUP,
          case: SCRIPT,
          against: NONE,
          op: "<=",
          limit: 25,
          difference: true,
        },
        {
          label: "TS layer in the native chain: ns added per call - (floor + 3 x the script's)",
          group: GROUP,
          case: NATIVE,
          against: NONE,
          // native - none - (floor + 3 (script - none))
          terms: [[NATIVE, 1], [NONE, 2], [FLOOR, -1], [SCRIPT, -3]],
          op: "<=",
          limit: 0,
          difference: true,
        },
      ],
      dispose() {
        floor.dispose();
        for (const s of [native, script, none]) s[Symbol.dispose]();
        scripted[Symbol.dispose]();
        chained.dispose();
        plain.dispose();
        Deno.removeSync(folder, { recursive: true });
        if (counted === 0) throw new Error("The TS layer saw no call");
      },
    };
  });
}
