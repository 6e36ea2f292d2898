/**
 * `deno task validation` as a user runs it: the Khronos validation layer's VUID for a buffer of size 0
 * reaches the TypeScript messenger, through vkdeno and through the Khronos loader; without the layer the
 * example says how to install it.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { LAVAPIPE } from "../support/lavapipe.ts";

const root = new URL("../../", import.meta.url).pathname;

function pick(...names: string[]): Record<string, string> {
  return Object.fromEntries(
    names.flatMap((n) => Deno.env.get(n) === undefined ? [] : [[n, Deno.env.get(n)!]]),
  );
}

/** Runs `deno task validation`'s command line with only `vars` (and what Deno needs) in the environment. */
async function runValidation(loader: string, vars: Record<string, string>) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-env",
      "--allow-ffi",
      "examples/validation.ts",
      `--loader=${loader}`,
    ],
    cwd: root,
    env: { ...pick("HOME", "PATH", "DENO_DIR"), ...vars },
    clearEnv: true,
  }).output();
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

for (const loader of ["vkdeno", "libvulkan"]) {
  Deno.test(`validation example prints the VUID of a zero-size buffer (${loader})`, async () => {
    const run = await runValidation(loader, { VK_DRIVER_FILES: LAVAPIPE });
    assertEquals(run.code, 0, run.stdout + run.stderr);
    const lines = run.stdout.trim().split("\n");
    // Exactly the one mistake the example makes: creating the instance, messenger and device is clean.
    assertEquals(lines.length, 1, run.stdout);
    assert(lines[0]!.startsWith("VUID-VkBufferCreateInfo-size-00912 (error): "), run.stdout);
    assert(lines[0]!.includes("vkCreateBuffer"), run.stdout);
  });

  Deno.test(`validation example without the layer says how to install it (${loader})`, async () => {
    const empty = await Deno.makeTempDir({ prefix: "vkdeno_no_layers_" });
    try {
      // No default data folder holds the layer's manifest any more.
      const run = await runValidation(loader, {
        VK_DRIVER_FILES: LAVAPIPE,
        XDG_DATA_DIRS: empty,
        XDG_DATA_HOME: empty,
        XDG_CONFIG_DIRS: empty,
        XDG_CONFIG_HOME: empty,
      });
      assertEquals(run.code, 1, run.stdout + run.stderr);
      assert(run.stderr.includes(`Cannot find layer "VK_LAYER_KHRONOS_validation"`), run.stderr);
      assert(run.stderr.includes("apt-get install vulkan-validationlayers"), run.stderr);
      assert(!run.stderr.includes("No Vulkan driver found"), run.stderr);
      assertEquals(run.stdout, "");
    } finally {
      await Deno.remove(empty, { recursive: true });
    }
  });
}
