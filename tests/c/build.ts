/**
 * Builds the C test libraries of tests/c/ with `cc` into `.cache/c/`,
 * rebuilding only when the source is newer than the library.
 *
 * @module
 */

import { join } from "node:path";

const here = import.meta.dirname!;
const cacheDir = join(here, "..", "..", ".cache", "c");

/**
 * Compiles `tests/c/<name>.c` to a shared library and returns its path.
 *
 * @example Usage
 * ```ts ignore
 * import { buildTestLibrary } from "./build.ts";
 * const path = await buildTestLibrary("stub_target");
 * ```
 * @throws {Error} If `cc` fails, with its output.
 */
export async function buildTestLibrary(name: string): Promise<string> {
  const source = join(here, `${name}.c`);
  const out = join(cacheDir, `lib${name}.so`);
  const src = await Deno.stat(source);
  try {
    const lib = await Deno.stat(out);
    if (lib.mtime && src.mtime && lib.mtime >= src.mtime) return out;
  } catch {
    // not built yet
  }
  await Deno.mkdir(cacheDir, { recursive: true });
  // Parallel test files may build at once: write aside, then rename.
  const tmp = `${out}.${Deno.pid}.tmp`;
  const cc = await new Deno.Command("cc", {
    args: ["-shared", "-fPIC", "-O2", "-Wall", "-o", tmp, source],
    stderr: "piped",
  }).output();
  if (!cc.success) {
    throw new Error(`Cannot build test library "${source}": ${new TextDecoder().decode(cc.stderr)}`);
  }
  await Deno.rename(tmp, out);
  return out;
}
