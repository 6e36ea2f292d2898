/**
 * Short soak (the long one is `tools/soak.ts`, figures in BENCHMARKS.md): 200 instance + device
 * create/destroy cycles on lavapipe, and 30 with the validation layer, leak no callback, arena, library,
 * dispatch table, layer library or driver, and resident memory grows by less than a generous bound after
 * warm-up. Each run is its own process (`--expose-gc`, V8's young generation held at its minimum, no other
 * test's memory in the figure).
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import type { SoakOutput } from "../../tools/soak.ts";
import { LAVAPIPE } from "../support/lavapipe.ts";

const REPO = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const VALIDATION = "/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json";

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

async function runSoak(args: string[]): Promise<SoakOutput> {
  const out = await new Deno.Command(Deno.execPath(), {
    // The young generation held at its minimum: V8 growing it for a fast allocator is not the loader's.
    args: [
      "run",
      "--allow-all",
      "--v8-flags=--expose-gc,--max-semi-space-size=1",
      `${REPO}/tools/soak.ts`,
      "--json",
      ...args,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) throw new Error(`Soak ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  return JSON.parse(text.trim().split("\n").at(-1)!) as SoakOutput;
}

/** Resources the loader keeps for the process's lifetime: the dispatch and unwrap stub objects. */
function assertNoLeaks(out: SoakOutput): void {
  // Between cycles nothing accumulates: the counts after warm-up and at the end are the same.
  assertEquals(out.countsEnd, out.countsAfterWarmup);
  // With no instance alive there is no driver, layer library, table or arena left.
  assertEquals(
    {
      drivers: out.countsEnd.drivers,
      layerLibraries: out.countsEnd.layerLibraries,
      tables: out.countsEnd.tables,
    },
    { drivers: 0, layerLibraries: 0, tables: 0 },
  );
  // After the loader is disposed, only the process-wide stub libraries stay open.
  assertEquals(out.countsAfterDispose.callbacks, 0);
  assertEquals(out.countsAfterDispose.arenas, 0);
  assert(out.countsAfterDispose.libraries <= 2, `libraries left open: ${out.countsAfterDispose.libraries}`);
}

Deno.test({
  name: "soak: 200 instance+device cycles on lavapipe leak nothing and grow RSS < 16 MiB after warm-up",
  ignore: !exists(LAVAPIPE),
  async fn() {
    const out = await runSoak(["--cycles=200", "--warmup=50"]);
    assert(out.gcExposed);
    assert(out.device.startsWith("llvmpipe"), out.device);
    assertNoLeaks(out);
    // lavapipe itself grows a few MiB over the first hundreds of cycles (LLVM caches); a leak of a
    // per-cycle buffer of the loader's would show far above this
    assert(out.growth < 16 << 20, `RSS grew ${out.growth} bytes after warm-up`);
  },
});

Deno.test({
  name: "soak: 30 cycles with VK_LAYER_KHRONOS_validation leak no callback, layer library or driver",
  ignore: !exists(LAVAPIPE) || !exists(VALIDATION),
  async fn() {
    const out = await runSoak(["--cycles=30", "--warmup=10", "--layer=VK_LAYER_KHRONOS_validation"]);
    assertNoLeaks(out);
    assert(out.growth < 64 << 20, `RSS grew ${out.growth} bytes after warm-up`);
  },
});
