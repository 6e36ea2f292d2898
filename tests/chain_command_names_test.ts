/**
 * `chain/_command_names.ts` lists every command name and alias of the generated tables, so the command
 * object's type has a member per command. This test keeps it equal to `COMMAND_INDEX`;
 * `VKDENO_WRITE_COMMAND_NAMES=1 deno test -A tests/chain_command_names_test.ts` rewrites it.
 */

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { COMMAND_INDEX } from "../ffi/generated/commands.ts";

const path = new URL("../chain/_command_names.ts", import.meta.url);

function render(): string {
  const names = Object.keys(COMMAND_INDEX).sort();
  return [
    "// Every command name and alias of ffi/generated/commands.ts, for the command object's type.",
    "// Kept equal to COMMAND_INDEX by tests/chain_command_names_test.ts (VKDENO_WRITE_COMMAND_NAMES=1 rewrites it).",
    "",
    "/** A Vulkan command name (or alias) the generated tables know. */",
    "export type VulkanCommandName =",
    ...names.map((n, i) => `  | "${n}"${i === names.length - 1 ? ";" : ""}`),
    "",
  ].join("\n");
}

Deno.test("chain/_command_names.ts lists exactly the generated command names", () => {
  const text = render();
  if (Deno.env.get("VKDENO_WRITE_COMMAND_NAMES") === "1") Deno.writeTextFileSync(path, text);
  assertEquals(Deno.readTextFileSync(path), text);
});
