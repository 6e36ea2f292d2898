/**
 * A first instance loads what it uses (docs/performance.md, "What loads when"): the program the time-to-first-
 * instance benchmark runs (bench/first/vkdeno.ts: mod.ts, `Vulkan.load()`, an instance, a device's name) loads
 * nothing of the TS layer machinery but layers/on_demand.ts, and nothing of the window toolkit or the testing
 * kit; a `.ts` layer manifest the environment enables still loads in a program that never imported `./layers`.
 * Read from the module graph `deno run` loads (`deno info`) and from a child process, never from timing.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { staticGraph } from "./support/module_graph.ts";
import { LAVAPIPE } from "./support/lavapipe.ts";
import { REPO_ROOT } from "./support/source_tree.ts";

/** The repository-relative paths of the modules `entry` loads before its first line runs. */
function loads(entry: string): string[] {
  return staticGraph(new URL(entry, REPO_ROOT).pathname).modules
    .filter((m) => m.startsWith(REPO_ROOT.href))
    .map((m) => m.slice(REPO_ROOT.href.length));
}

Deno.test("a first instance loads no TS layer machinery, window toolkit or testing kit", () => {
  const first = loads("bench/first/vkdeno.ts");
  assert(first.includes("vulkan.ts") && first.includes("mod.ts"), "the graph read is the program's");
  assertEquals(first.filter((m) => /^(layers|window|testing)\//.test(m)), ["layers/on_demand.ts"]);
  // What the rule keeps out is what the `./layers` entry brings in.
  assert(loads("layers/mod.ts").includes("layers/module_layer.ts"));
});

Deno.test("a .ts layer manifest enabled by the environment loads in a program that never imported ./layers", () => {
  const child = new URL("support/cache_child.ts", import.meta.url).pathname;
  assert(!loads("tests/support/cache_child.ts").includes("layers/module_layer.ts"));
  const denoDir = Deno.env.get("DENO_DIR");
  const out = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", child],
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: Deno.env.get("HOME") ?? "/",
      ...(denoDir === undefined ? {} : { DENO_DIR: denoDir }),
      VKDENO_CACHE: "0",
      VK_DRIVER_FILES: LAVAPIPE,
      VK_LOADER_LAYERS_DISABLE: "~implicit~",
      VK_ADD_LAYER_PATH: new URL("layers/manifests", REPO_ROOT).pathname,
      VK_INSTANCE_LAYERS: "VK_LAYER_VKDENO_api_dump",
    },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).outputSync();
  const text = new TextDecoder().decode(out.stdout);
  assert(out.success, `${text}\n${new TextDecoder().decode(out.stderr)}`);
  // api_dump writes each call it sees; the last line is the child's result.
  assert(/vkCreateInstance/.test(text), text);
  assert((JSON.parse(text.trim().split("\n").at(-1)!) as { devices: string[] }).devices.length > 0, text);
});
