// The generated declarations carry `@ts-nocheck` so that a program's `deno check` only resolves the names it
// uses; this test checks them once without it, strict, so that a generator mistake (a name that does not
// exist, a member typed wrong) still fails here instead of turning silently into `any` for users.
import { deepEqual as assertEquals, ok as assert } from "node:assert/strict";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { DECLARATIONS_PRAGMA } from "../../tools/_gen_api_common.ts";

const GENERATED = resolve(dirname(fileURLToPath(import.meta.url)), "../../vk/generated");
const PRAGMA_LINE = `// ${DECLARATIONS_PRAGMA}\n`;

/** The generated files that declare types only: `vk_*.ts` and `vk_constants.d.ts`. */
function declarationFiles(): string[] {
  return [...Deno.readDirSync(GENERATED)].map((e) => e.name)
    .filter((n) => /^vk_[a-z]+\.ts$/.test(n) || n === "vk_constants.d.ts").sort();
}

Deno.test("every type-only generated file carries the pragma, and no run-time file does", () => {
  const typeOnly = declarationFiles();
  assertEquals(typeOnly.length >= 7, true, `too few declaration files: ${typeOnly.join(", ")}`);
  for (const name of [...Deno.readDirSync(GENERATED)].map((e) => e.name)) {
    const text = Deno.readTextFileSync(join(GENERATED, name));
    assertEquals(
      text.includes(PRAGMA_LINE),
      typeOnly.includes(name),
      `${name}: pragma where it does not belong`,
    );
  }
});

Deno.test("the generated declarations type-check strictly without the pragma", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vkdeno-generated-types-" });
  try {
    const names = declarationFiles();
    for (const name of names) {
      await Deno.writeTextFile(
        join(dir, name),
        Deno.readTextFileSync(join(GENERATED, name)).replace(PRAGMA_LINE, ""),
      );
    }
    // A probe: the names resolve to real types (an `any` would make the expect-error lines unused, an error).
    await Deno.writeTextFile(
      join(dir, "probe.ts"),
      [
        'import type { VkStructInputs, VkChain, VkChainRead } from "./vk_structs.ts";',
        'import type { VkCommands } from "./vk_commands.ts";',
        'import type { VkIdiomaticCommands } from "./vk_idiomatic.ts";',
        "// @ts-expect-error: a string is not a width",
        'export const extent: VkStructInputs["VkExtent2D"] = { width: "640" };',
        "// @ts-expect-error: VkExtent2D does not extend VkBufferCreateInfo",
        'export const chain: VkChain<"VkBufferCreateInfo"> = { type: "VkExtent2D" };',
        'export type Read = VkChainRead<"VkPhysicalDeviceProperties2">["type"];',
        "// @ts-expect-error: not a command",
        'export type Missing = VkCommands["vkCreateBufferX"];',
        'export type Create = VkIdiomaticCommands["createBuffer"];',
        "",
      ].join("\n"),
    );
    await Deno.writeTextFile(
      join(dir, "deno.json"),
      JSON.stringify({ compilerOptions: { strict: true, noUncheckedIndexedAccess: true } }),
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "check",
        "--quiet",
        "--config",
        join(dir, "deno.json"),
        ...names.map((n) => join(dir, n)),
        join(dir, "probe.ts"),
      ],
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const report = new TextDecoder().decode(out.stderr);
    assert(out.success, `deno check of the generated declarations failed:\n${report.slice(0, 4000)}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
