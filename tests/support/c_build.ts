/**
 * The one place tests, benches and tools run `cc`: the C test libraries of
 * tests/support/c/ into `.cache/c/` (rebuilt only when the source is newer than the
 * library), probe programs built from C text, and plain `cc` runs with the
 * caller's arguments (mocks, fault libraries).
 *
 * @module
 */

import { join } from "node:path";

const here = import.meta.dirname!;
const cacheDir = join(here, "../..", ".cache", "c");

/**
 * Compiles `tests/support/c/<name>.c` to a shared library and returns its path.
 *
 * @example Usage
 * ```ts ignore
 * import { buildTestLibrary } from "./c_build.ts";
 * const path = await buildTestLibrary("stub_target");
 * ```
 * @throws {Error} If `cc` fails, with its output.
 */
export function buildTestLibrary(name: string): Promise<string> {
  return buildSharedLibrary(join(here, "c", `${name}.c`), cacheDir);
}

/**
 * Compiles one C source to `<cacheDir>/lib<name>.so` unless a newer build is there, and returns its path.
 *
 * @example Usage
 * ```ts ignore
 * import { buildSharedLibrary } from "./c_build.ts";
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
  const result = await tryCc(["-shared", "-fPIC", "-O2", "-Wall", ...extraArgs, "-o", tmp, source]);
  if (!result.success) throw new Error(`Cannot build library "${source}": ${result.stderr}`);
  await Deno.rename(tmp, out);
  return out;
}

/** What a `cc` run said. */
export interface CcResult {
  /** Whether `cc` exited 0. */
  success: boolean;
  /** Its stderr. */
  stderr: string;
}

/**
 * Runs `cc` with `args` and reports how it went (for builds that may fail, such as `-m32`).
 *
 * @example Usage
 * ```ts ignore
 * import { tryCc } from "./c_build.ts";
 * const m32 = await tryCc(["-m32", "-shared", "-o", "/tmp/x.so", "/tmp/x.c"]);
 * ```
 */
export async function tryCc(args: readonly string[]): Promise<CcResult> {
  const out = await new Deno.Command("cc", { args: [...args], stdout: "piped", stderr: "piped" }).output();
  return { success: out.success, stderr: new TextDecoder().decode(out.stderr) };
}

function ccError(args: readonly string[], stderr: string): Error {
  const output = args[args.indexOf("-o") + 1] ?? "a.out";
  return new Error(`Cannot build "${output}": cc ${args.join(" ")} failed\n${stderr}`);
}

/**
 * Runs `cc` with `args`.
 *
 * @example Usage
 * ```ts ignore
 * import { cc } from "./c_build.ts";
 * await cc(["-O1", "-o", "/tmp/drop", "tests/support/c/reliab_drop.c"]);
 * ```
 * @throws {Error} Naming the output and the command, with `cc`'s stderr, when it fails.
 */
export async function cc(args: readonly string[]): Promise<void> {
  const result = await tryCc(args);
  if (!result.success) throw ccError(args, result.stderr);
}

/**
 * {@linkcode cc}, synchronously (for module-level setup that cannot await).
 *
 * @example Usage
 * ```ts ignore
 * import { ccSync } from "./c_build.ts";
 * ccSync(["-shared", "-fPIC", "-o", "/tmp/libnoop.so", "/tmp/noop.c"]);
 * ```
 * @throws {Error} Naming the output and the command, with `cc`'s stderr, when it fails.
 */
export function ccSync(args: readonly string[]): void {
  const out = new Deno.Command("cc", { args: [...args], stdout: "piped", stderr: "piped" }).outputSync();
  if (!out.success) throw ccError(args, new TextDecoder().decode(out.stderr));
}

/**
 * Writes C text to `<dir>/<name>.c`, builds the program `<dir>/<name>` linked with `libs`, and returns its path.
 *
 * @example Usage
 * ```ts ignore
 * import { buildProgram } from "./c_build.ts";
 * const probe = await buildProgram(dir, "int main(void) { return 0; }", ["-lvulkan"]);
 * ```
 * @throws {Error} If `cc` fails, with its output.
 */
export async function buildProgram(
  dir: string,
  source: string,
  libs: readonly string[] = [],
  name = "probe",
): Promise<string> {
  await Deno.writeTextFile(`${dir}/${name}.c`, source);
  await cc([`${dir}/${name}.c`, "-o", `${dir}/${name}`, ...libs]);
  return `${dir}/${name}`;
}
