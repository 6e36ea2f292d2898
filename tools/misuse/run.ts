/**
 * Runs one case of the misuse catalogue (tools/misuse/cases.ts) by name, in this process: a thrown error is
 * caught and printed as `caught <name>: <message>` on stderr (exit 0), as an application catching it would.
 *
 * @module
 */
import { CASES } from "./cases.ts";

const name = Deno.args[0];
const found = CASES.find((c) => c.name === name);
if (!found) {
  console.error(`Unknown misuse case "${name}": one of ${CASES.map((c) => c.name).join(", ")}`);
  Deno.exit(2);
}
try {
  found.run();
} catch (e) {
  const error = e as Error;
  console.error(`caught ${error.name}: ${describe(error)}`);
}

/** The message, with what a `SuppressedError` (from a scope's disposal) holds. */
function describe(error: unknown): string {
  if (error instanceof SuppressedError) {
    return `${describe(error.error)}; suppressed: ${describe(error.suppressed)}`;
  }
  return error instanceof Error ? error.message : String(error);
}
