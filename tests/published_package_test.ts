/**
 * The package as published works for its users: a program importing `jsr:@vkdeno/loader` (the files `deno
 * publish` uploads, from a local registry) type-checks through the package's public declarations, its
 * mistakes are `deno check` errors, and it runs (a mock driver's device through VkApi).
 */

import { deepStrictEqual as assertEquals, match as assertMatch, ok as assert } from "node:assert/strict";
import { startLocalJsr } from "./support/local_jsr.ts";

/** A program against the published package: the device a mock driver offers, read through VkApi. */
const PROGRAM = `import { VkApi, Vulkan } from "@vkdeno/loader";
import { MockDriver, mockEnvironment } from "@vkdeno/loader/testing";

using mock = new MockDriver({ devices: [{ name: "Published", type: "cpu" }] });
using isolated = mockEnvironment();
using raw = Vulkan.load({ drivers: [mock], env: isolated.env });
using vk = VkApi.of(raw).scope();
const [gpu] = vk.enumeratePhysicalDevices(vk.createInstance({}));
const name: string = vk.getPhysicalDeviceProperties(gpu!).deviceName;
console.log(name);
`;

/** `deno <args>` in `dir` (where the program's deno.json maps `@vkdeno/loader`), with the registry's URL. */
function deno(dir: string, env: Record<string, string>, ...args: string[]) {
  const out = new Deno.Command(Deno.execPath(), { args, cwd: dir, env, stdout: "piped", stderr: "piped" })
    .outputSync();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { success: out.success, stdout: text(out.stdout), stderr: text(out.stderr) };
}

Deno.test("the package as published type-checks and runs a program", async (t) => {
  using jsr = await startLocalJsr();
  const dir = Deno.makeTempDirSync({ prefix: "vkdeno-published-" });
  // A DENO_DIR of its own: the package's modules come from this registry, never from an earlier one's cache.
  const env = { DENO_DIR: `${dir}/deno_dir`, JSR_URL: jsr.url, NO_COLOR: "1" };
  try {
    const pkg = `jsr:@vkdeno/loader@${jsr.version}`;
    const imports = { "@vkdeno/loader": pkg, "@vkdeno/loader/testing": `${pkg}/testing` };
    Deno.writeTextFileSync(`${dir}/deno.json`, JSON.stringify({ imports }));
    Deno.writeTextFileSync(`${dir}/main.ts`, PROGRAM);
    Deno.writeTextFileSync(`${dir}/mistake.ts`, PROGRAM.replace("const name: string", "const name: number"));

    await t.step("a correct program checks", () => {
      const checked = deno(dir, env, "check", "main.ts");
      assert(checked.success, checked.stderr);
    });
    await t.step("a mistake against the package's types is a deno check error", () => {
      const checked = deno(dir, env, "check", "mistake.ts");
      assert(!checked.success, "mistake.ts type-checked");
      assertMatch(checked.stderr, /TS2322 \[ERROR\]: Type 'string' is not assignable to type 'number'/);
    });
    await t.step("the program runs", () => {
      const ran = deno(
        dir,
        env,
        "run",
        "--allow-ffi",
        "--allow-env",
        "--allow-read",
        "--allow-write",
        "main.ts",
      );
      assert(ran.success, ran.stderr);
      assertEquals(ran.stdout, "Published\n");
    });
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
