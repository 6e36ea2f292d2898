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
export function buildTestLibrary(name: string): Promise<string> {
  return buildSharedLibrary(join(here, `${name}.c`), cacheDir);
}

/**
 * Compiles one C source to `<cacheDir>/lib<name>.so` unless a newer build is there, and returns its path.
 *
 * @example Usage
 * ```ts ignore
 * import { buildSharedLibrary } from "./build.ts";
 * const path = await buildSharedLibrary("/tmp/noop.c", "/tmp/cache", ["-fvisibility=hidden"]);
 * ```
 * @throws {Error} If `cc` fails, with its output.
 */
export async function buildSharedLibrary(
  source: string,
  outDir: string,
  extraArgs: readonly string[] = [],
): Promise<string> {
  const name = source.slice(source.lastIndexOf("/") + 1).replace(/\.c$/, "");
  const out = join(outDir, `lib${name}.so`);
  const src = await Deno.stat(source);
  try {
    const lib = await Deno.stat(out);
    if (lib.mtime && src.mtime && lib.mtime >= src.mtime) return out;
  } catch {
    // not built yet
  }
  await Deno.mkdir(outDir, { recursive: true });
  // Parallel test files may build at once: write aside, then rename.
  const tmp = `${out}.${Deno.pid}.tmp`;
  const cc = await new Deno.Command("cc", {
    args: ["-shared", "-fPIC", "-O2", "-Wall", ...extraArgs, "-o", tmp, source],
    stderr: "piped",
  }).output();
  if (!cc.success) {
    throw new Error(`Cannot build library "${source}": ${new TextDecoder().decode(cc.stderr)}`);
  }
  await Deno.rename(tmp, out);
  return out;
}
