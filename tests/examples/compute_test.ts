/** Examples as a user runs them: `deno task demo` on lavapipe, its install hint without drivers, its shader. */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { compileGlsl } from "../../examples/shaders/embed.ts";
import { DOUBLE_SPV } from "../../examples/shaders/double_spv.ts";
import { LAVAPIPE } from "../support/lavapipe.ts";

const root = new URL("../../", import.meta.url).pathname;
const LOADERS = ["vkdeno", "libvulkan"];

/** Runs `deno task demo`'s command line with `vars` added to the environment. */
async function runDemo(loader: string, vars: Record<string, string>) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-env",
      "--allow-ffi",
      "--allow-write",
      "examples/compute.ts",
      `--loader=${loader}`,
    ],
    cwd: root,
    env: vars,
  }).output();
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

for (const loader of LOADERS) {
  Deno.test(`demo doubles every value on lavapipe (${loader})`, async () => {
    const run = await runDemo(loader, { VK_DRIVER_FILES: LAVAPIPE });
    assertEquals(run.code, 0, run.stdout + run.stderr);
    assert(run.stdout.includes("Result:  all 1048576 values correct"), run.stdout);
    assert(/Device: +llvmpipe/.test(run.stdout), run.stdout);
    assert(/Driver: +llvmpipe Mesa/.test(run.stdout), run.stdout);
  });

  Deno.test(`demo runs clean under the Khronos validation layer (${loader})`, async () => {
    const run = await runDemo(loader, {
      VK_DRIVER_FILES: LAVAPIPE,
      VK_INSTANCE_LAYERS: "VK_LAYER_KHRONOS_validation",
      VK_LOADER_DEBUG: "layer",
    });
    assertEquals(run.code, 0, run.stdout + run.stderr);
    // The loader's log proves the layer was in the chain; the layer prints "Validation Error" on stdout.
    assert(/Insert instance layer "VK_LAYER_KHRONOS_validation"/.test(run.stderr), run.stderr);
    assert(!/Validation (Error|Warning)/.test(run.stdout + run.stderr), run.stdout);
    assert(run.stdout.includes("Result:  all 1048576 values correct"), run.stdout);
  });

  Deno.test(`demo without drivers says how to install one and exits 1 (${loader})`, async () => {
    const empty = await Deno.makeTempDir({ prefix: "vkdeno_no_drivers_" });
    try {
      const run = await runDemo(loader, { VK_DRIVER_FILES: empty });
      assertEquals(run.code, 1, run.stdout + run.stderr);
      assert(run.stderr.includes("No Vulkan driver found"), run.stderr);
      assert(run.stderr.includes("apt-get install mesa-vulkan-drivers"), run.stderr);
      assert(!run.stdout.includes("values correct"), run.stdout);
    } finally {
      await Deno.remove(empty, { recursive: true });
    }
  });
}

Deno.test("embedded SPIR-V equals double.comp compiled by glslangValidator -V", async () => {
  const words = await compileGlsl(`${root}examples/shaders/double.comp`);
  assertEquals(words.length, DOUBLE_SPV.length);
  assertEquals([...words], [...DOUBLE_SPV]);
  assertEquals(DOUBLE_SPV[0], 0x07230203);
});
