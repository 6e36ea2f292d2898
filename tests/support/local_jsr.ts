/**
 * A JSR registry on 127.0.0.1 holding this checkout as `jsr:@vkdeno/loader`, the files `deno publish` would
 * upload, so a program can be checked and run against the package as its users get it (bench/check_bench.ts,
 * tests/published_package_test.ts). Run as a module, it is the registry's server: a child process, so that a
 * caller may block on `deno check`.
 *
 * @module
 */

import { fileURLToPath } from "node:url";

/** The checkout's root, ending in "/". */
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** A running local registry: its URL for `JSR_URL`, the package's version, and how to stop it. */
export interface LocalJsr extends Disposable {
  readonly url: string;
  readonly version: string;
  close(): void;
}

/** The files `deno publish` would upload, by path from the checkout's root ("/mod.ts"). */
function publishedFiles(): string[] {
  const out = new Deno.Command(Deno.execPath(), {
    args: ["publish", "--dry-run", "--allow-dirty", "--no-check"],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).outputSync();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  const files = [...text.matchAll(/^\s+(file:\/\/\S+) \(/gm)].map((m) =>
    fileURLToPath(m[1]!).slice(ROOT.length - 1)
  );
  if (!out.success || files.length === 0) throw new Error(`deno publish --dry-run failed:\n${text}`);
  return files;
}

async function sha256(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return [...hash].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Writes the registry's folder (JSR's layout: meta.json, <version>_meta.json, <version>/files) and serves it. */
export async function startLocalJsr(): Promise<LocalJsr> {
  const config = JSON.parse(Deno.readTextFileSync(`${ROOT}deno.json`)) as {
    version: string;
    exports: unknown;
  };
  const dir = Deno.makeTempDirSync({ prefix: "vkdeno-jsr-" });
  const pkg = `${dir}/@vkdeno/loader`;
  const manifest: Record<string, { size: number; checksum: string }> = {};
  for (const file of publishedFiles()) {
    const bytes = Deno.readFileSync(ROOT + file.slice(1));
    manifest[file] = { size: bytes.length, checksum: `sha256-${await sha256(bytes)}` };
    const dest = `${pkg}/${config.version}${file}`;
    Deno.mkdirSync(dest.slice(0, dest.lastIndexOf("/")), { recursive: true });
    Deno.writeFileSync(dest, bytes);
  }
  const versions = { [config.version]: {} };
  Deno.writeTextFileSync(`${pkg}/meta.json`, JSON.stringify({ scope: "vkdeno", name: "loader", versions }));
  Deno.writeTextFileSync(
    `${pkg}/${config.version}_meta.json`,
    JSON.stringify({ manifest, exports: config.exports }),
  );
  const server = new Deno.Command(Deno.execPath(), {
    args: ["run", `--allow-read=${dir}`, "--allow-net=127.0.0.1", fileURLToPath(import.meta.url), dir],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const first = await reader.read();
  const port = Number(first.value?.trim());
  if (!(port > 0)) throw new Error(`the local JSR registry did not start: ${first.value ?? "no output"}`);
  const close = () => {
    reader.releaseLock();
    server.kill();
    Deno.removeSync(dir, { recursive: true });
  };
  return { url: `http://127.0.0.1:${port}/`, version: config.version, close, [Symbol.dispose]: close };
}

if (import.meta.main) {
  const dir = Deno.args[0]!;
  Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: ({ port }) => console.log(port),
  }, (request) => {
    try {
      return new Response(Deno.readFileSync(dir + decodeURIComponent(new URL(request.url).pathname)));
    } catch {
      return new Response("not found", { status: 404 });
    }
  });
}
