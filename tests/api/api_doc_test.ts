/**
 * docs/api.md's "The raw commands" section says what it shows: its program runs on lavapipe as written, and
 * every line of its "deno check rejects" block is a type error (each gets a `@ts-expect-error`, which fails
 * when the line compiles).
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { LAVAPIPE } from "../support/lavapipe.ts";

const root = new URL("../../", import.meta.url);

/** The fenced code blocks of docs/api.md's raw-commands section, with their info strings. */
async function usageBlocks(): Promise<{ info: string; code: string }[]> {
  const page = await Deno.readTextFile(new URL("docs/api.md", root));
  const start = page.indexOf("\n## The raw commands\n");
  assert(start >= 0, "the section");
  const section = page.slice(start, page.indexOf("\n## ", start + 1));
  return [...section.matchAll(/```(ts[^\n]*)\n([\s\S]*?)```/g)].map((m) => ({ info: m[1]!, code: m[2]! }));
}

/** Runs deno with `args` in `dir`, with only lavapipe and what Deno needs in the environment. */
async function deno(dir: string, args: string[]) {
  const env: Record<string, string> = { VK_DRIVER_FILES: LAVAPIPE };
  for (const name of ["HOME", "PATH", "DENO_DIR"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  const out = await new Deno.Command(Deno.execPath(), { args, cwd: dir, env, clearEnv: true }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  return { code: out.code, text };
}

Deno.test("docs/api.md's raw-commands program runs on lavapipe", async () => {
  const [program] = await usageBlocks();
  assert(program && program.info === "ts" && program.code.includes('from "./mod.ts"'), "first block");
  const dir = await Deno.makeTempDir({ prefix: "vkdeno_api_doc_" });
  try {
    const code = program.code.replace('from "./mod.ts"', `from "${new URL("mod.ts", root).href}"`);
    await Deno.writeTextFile(`${dir}/usage.ts`, code);
    const run = await deno(dir, ["run", "--allow-read", "--allow-env", "--allow-ffi", "usage.ts"]);
    assertEquals(run.code, 0, run.text);
    // deviceName and maxComputeWorkGroupSize, as console.log prints a string and a number array.
    assert(/^llvmpipe .* \[ \d+, \d+, \d+ \]$/m.test(run.text), run.text);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("docs/api.md's rejected lines are type errors", async () => {
  const rejected = (await usageBlocks()).find((b) => b.info === "ts ignore");
  assert(rejected, "a `ts ignore` block of rejected lines");
  const lines = rejected.code.trim().split("\n");
  assert(lines.length >= 4, rejected.code);
  const mod = new URL("mod.ts", root).href;
  const source = [
    `import { type Arena, type VkBuffer, type VkCommandBuffer, type VkImage, type VulkanCommands, writeStruct } from "${mod}";`,
    "declare const arena: Arena, vk: VulkanCommands, cmd: VkCommandBuffer, image: VkImage, buffer: VkBuffer;",
    "declare const regions: Deno.PointerValue;",
    ...lines.flatMap((line) => ["// @ts-expect-error docs/api.md says this line is rejected", line]),
    // The same calls written correctly compile, so the errors above come from what the comments say.
    'writeStruct(arena, "VkBufferCreateInfo", { size: 4096n });',
    "vk.vkCmdCopyBuffer(cmd, buffer, buffer, 1, regions);",
    "vk.vkCmdDraw(cmd, 3, 1, 0, 0);",
  ].join("\n");
  const dir = await Deno.makeTempDir({ prefix: "vkdeno_api_doc_" });
  try {
    await Deno.writeTextFile(`${dir}/rejected.ts`, source + "\n");
    const check = await deno(dir, ["check", "rejected.ts"]);
    assertEquals(check.code, 0, check.text);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
