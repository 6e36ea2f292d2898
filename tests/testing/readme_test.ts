/**
 * README's "Testing Vulkan code without a GPU" block is a test file that passes as written, run by `deno test`
 * with `PATH` holding only deno (no C compiler) and an empty environment (no Vulkan driver or layer is found).
 */
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";

const root = new URL("../../", import.meta.url);

Deno.test("README's testing example passes with PATH holding only deno", async () => {
  const readme = await Deno.readTextFile(new URL("README.md", root));
  const start = readme.indexOf("\n## Testing Vulkan code without a GPU\n");
  const section = readme.slice(start, readme.indexOf("\n## ", start + 1));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  assert(
    start >= 0 && code !== undefined && code.includes("./testing/mod.ts"),
    "a ts block importing ./testing/mod.ts",
  );
  const dir = await Deno.makeTempDir({ prefix: "vkdeno_readme_testing_" });
  try {
    const source = code.replaceAll('from "./mod.ts"', `from "${new URL("mod.ts", root).href}"`)
      .replaceAll('from "./testing/mod.ts"', `from "${new URL("testing/mod.ts", root).href}"`);
    await Deno.writeTextFile(`${dir}/app_test.ts`, source);
    await Deno.mkdir(`${dir}/bin`);
    await Deno.symlink(Deno.execPath(), `${dir}/bin/deno`);
    const env: Record<string, string> = { PATH: `${dir}/bin` };
    for (const name of ["HOME", "DENO_DIR"]) {
      const value = Deno.env.get(name);
      if (value !== undefined) env[name] = value;
    }
    const out = await new Deno.Command(`${dir}/bin/deno`, {
      args: ["test", "--allow-all", "--no-lock", "app_test.ts"],
      cwd: dir,
      env,
      clearEnv: true,
    }).output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    assertEquals(out.code, 0, text);
    assert(
      /ok \| 2 passed \| 0 failed/.test(
        text.replace(new RegExp(String.fromCharCode(27) + "\\[[0-9;]*m", "g"), ""),
      ),
      text,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
