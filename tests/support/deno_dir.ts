/**
 * Deno's cache folder (`deno info --json`), for child processes run with an environment of their own: one
 * with a `HOME` of its own would otherwise transpile and compile every module again.
 *
 * @module
 */

/** Deno's cache folder, as this process's Deno reports it. */
export const DENO_DIR: string = (() => {
  const out = new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stdout: "piped", stderr: "null" })
    .outputSync();
  return (JSON.parse(new TextDecoder().decode(out.stdout)) as { denoDir: string }).denoDir;
})();
