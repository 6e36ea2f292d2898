/**
 * No test changes the test process's environment: `deno task test` runs test modules in parallel as threads of
 * one process, so a variable one test sets (`VK_DRIVER_FILES` for libvulkan, say) is seen by every module
 * running beside it, by the libraries they load and by the processes they start. A test that needs a variable
 * passes it explicitly (`Vulkan.load({ env })`, a child's `env`) or runs that part in a child process
 * (tests/support/libvulkan_half.ts). Source text inside a template literal is a child's script and may.
 */

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
/** The folders whose modules `deno task test` runs or imports in its process. */
const FOLDERS = ["tests", "testing"];

function* modules(dir: string): Generator<string> {
  for (const entry of Deno.readDirSync(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* modules(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}

/** Whether `at` lies inside a template literal of `text` (an odd number of unescaped backticks before it). */
function inTemplate(text: string, at: number): boolean {
  return (text.slice(0, at).match(/(?<!\\)`/g)?.length ?? 0) % 2 === 1;
}

Deno.test("no test module sets or deletes a variable of the test process's environment", () => {
  const found: string[] = [];
  for (const folder of FOLDERS) {
    for (const path of modules(join(ROOT, folder))) {
      if (path === fileURLToPath(import.meta.url)) continue;
      const text = Deno.readTextFileSync(path);
      for (
        const m of text.matchAll(/Deno\.env\.(set|delete)\(|process\.env\.\w+ *=(?!=)|delete process\.env/g)
      ) {
        if (inTemplate(text, m.index)) continue;
        const line = text.slice(0, m.index).split("\n").length;
        found.push(`${relative(ROOT, path)}:${line}: ${m[0]}`);
      }
    }
  }
  assertEquals(found, []);
});
