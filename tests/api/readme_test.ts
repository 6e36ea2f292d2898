/** README's "Vulkan in TypeScript" section: its program runs on lavapipe as written and prints what it says. */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { LAVAPIPE } from "../support/lavapipe.ts";

const root = new URL("../../", import.meta.url);

Deno.test("README's idiomatic program runs on lavapipe and prints what its comment says", async () => {
  const readme = await Deno.readTextFile(new URL("README.md", root));
  const start = readme.indexOf("\n## Vulkan in TypeScript\n");
  assert(start >= 0, "the section");
  const section = readme.slice(start, readme.indexOf("\n## ", start + 1));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  assert(code?.includes('from "./mod.ts"'), "a program importing ./mod.ts");
  const dir = await Deno.makeTempDir({ prefix: "vkdeno_readme_api_" });
  try {
    await Deno.writeTextFile(
      `${dir}/usage.ts`,
      code.replace('from "./mod.ts"', `from "${new URL("mod.ts", root).href}"`),
    );
    const env: Record<string, string> = { VK_DRIVER_FILES: LAVAPIPE };
    for (const name of ["HOME", "PATH", "DENO_DIR"]) {
      const value = Deno.env.get(name);
      if (value !== undefined) env[name] = value;
    }
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-read", "--allow-env", "--allow-ffi", "usage.ts"],
      cwd: dir,
      env,
      clearEnv: true,
    }).output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    assertEquals(out.code, 0, text);
    assert(/^llvmpipe .* llvmpipe$/m.test(text), text);
    assert(text.includes("4096n VK_TIMEOUT"), text);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
