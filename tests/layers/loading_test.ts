/**
 * Loading TS layers: only the modules of the layers a `vkCreateInstance` would load are imported; an enabled
 * one that fails to load is reported by default (naming the layer, the file and the cause) and fails
 * `vkCreateInstance` with `VK_ERROR_LAYER_NOT_PRESENT` when the application named it; a `.vkdeno` manifest is
 * found by vkdeno and skipped without a word by the Khronos loader (vulkaninfo prints no error).
 */
import assert from "node:assert/strict";
import { importLayerModules, type ValidationMessage } from "../../layers/mod.ts";
import { VK_ERROR_LAYER_NOT_PRESENT, Vulkan, type VulkanCommands } from "../../mod.ts";
import { Arena } from "../../ffi/memory.ts";
import { createInstance } from "../support/chain.ts";
import { MockEnvironment } from "../support/mock.ts";
import { hasLavapipe, LAVAPIPE } from "../support/lavapipe.ts";

/** A `.vkdeno` manifest for `name` whose `library_path` is `./<file>`. */
function manifest(dir: string, name: string, file: string): void {
  Deno.writeTextFileSync(
    `${dir}/${name}.vkdeno`,
    JSON.stringify({
      file_format_version: "1.2.0",
      layer: {
        name,
        type: "GLOBAL",
        library_path: `./${file}`,
        api_version: "1.3.0",
        implementation_version: "1",
        description: name,
      },
    }),
  );
}

/** A layer module that counts its calls of vkCreateInstance into `globalThis.created[name]`. */
function layerModule(dir: string, name: string, file: string, topLevel = ""): void {
  const layers = new URL("../../layers/mod.ts", import.meta.url).href;
  Deno.writeTextFileSync(
    `${dir}/${file}`,
    `import { defineLayer } from "${layers}";\n${topLevel}\n` +
      `const g = globalThis as { created?: Record<string, number> };\n` +
      `export default defineLayer({ name: "${name}", description: "${name}", create: () => ({ intercepts: {\n` +
      `  vkCreateInstance: { postCallRecord: () => { (g.created ??= {})["${name}"] = ((g.created ?? {})["${name}"] ?? 0) + 1; } },\n` +
      `} }) });\n`,
  );
}

Deno.test("importLayerModules imports only the modules of enabled TS layers and of the ones the application will name; another's top-level code never runs", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({});
  const dir = env.path("ts_layers");
  Deno.mkdirSync(dir);
  const marker = `${dir}/ran`;
  manifest(dir, "VK_LAYER_test_enabled", "enabled.ts");
  layerModule(dir, "VK_LAYER_test_enabled", "enabled.ts");
  manifest(dir, "VK_LAYER_test_named", "named.ts");
  layerModule(dir, "VK_LAYER_test_named", "named.ts");
  manifest(dir, "VK_LAYER_test_idle", "idle.ts");
  layerModule(
    dir,
    "VK_LAYER_test_idle",
    "idle.ts",
    `Deno.writeTextFileSync(${JSON.stringify(marker)}, "x");`,
  );
  const snapshot = env.snapshot({ VK_ADD_LAYER_PATH: dir, VK_INSTANCE_LAYERS: "VK_LAYER_test_enabled" });
  const { layers, errors } = await importLayerModules(snapshot, { layers: ["VK_LAYER_test_named"] });
  assert.deepEqual(errors, []);
  assert.deepEqual(layers.map((l) => l.name).sort(), ["VK_LAYER_test_enabled", "VK_LAYER_test_named"]);
  assert.throws(() => Deno.statSync(marker), Deno.errors.NotFound);

  // Both run in the chain: one from the environment, one from ppEnabledLayerNames.
  const g = globalThis as { created?: Record<string, number> };
  g.created = {};
  using vk = Vulkan.load({ env: snapshot, layerModules: layers }) as Vulkan & VulkanCommands;
  using arena = new Arena();
  const made = createInstance({ vk, lines: [], arena, [Symbol.dispose]() {} }, {
    layers: ["VK_LAYER_test_named"],
  });
  assert.equal(made.result, 0);
  vk.vkDestroyInstance(made.instance, null);
  assert.deepEqual(g.created, { VK_LAYER_test_enabled: 1, VK_LAYER_test_named: 1 });
});

Deno.test("an enabled TS layer that fails to load is reported naming the layer, file and cause; named by the application it fails vkCreateInstance with VK_ERROR_LAYER_NOT_PRESENT", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({});
  const dir = env.path("ts_layers");
  Deno.mkdirSync(dir);
  manifest(dir, "VK_LAYER_test_broken", "broken.ts");
  Deno.writeTextFileSync(`${dir}/broken.ts`, 'throw new RangeError("no GPU budget");\n');
  const snapshot = env.snapshot({ VK_ADD_LAYER_PATH: dir, VK_INSTANCE_LAYERS: "VK_LAYER_test_broken" });
  const { layers, errors } = await importLayerModules(snapshot);
  assert.equal(errors.length, 1);
  const messages: ValidationMessage[] = [];
  using vk = Vulkan.load({
    env: snapshot,
    layerModules: layers,
    moduleLayerOptions: { onMessage: (m) => void messages.push(m) },
  }) as Vulkan & VulkanCommands;
  using arena = new Arena();
  const loaded = { vk, lines: [], arena, [Symbol.dispose]() {} };
  // Enabled by the environment: reported, and the instance is made without it.
  const made = createInstance(loaded);
  assert.equal(made.result, 0);
  vk.vkDestroyInstance(made.instance, null);
  assert.equal(messages.length, 1);
  assert.equal(messages[0]!.layer, "VK_LAYER_test_broken");
  assert.equal(messages[0]!.severity, "error");
  assert.match(
    messages[0]!.text,
    /Cannot load layer "VK_LAYER_test_broken" \(".*VK_LAYER_test_broken\.vkdeno"\): module ".*broken\.ts" failed to import \(RangeError: no GPU budget\)/,
  );
  // Named by the application: vkCreateInstance fails.
  assert.equal(
    createInstance(loaded, { layers: ["VK_LAYER_test_broken"] }).result,
    VK_ERROR_LAYER_NOT_PRESENT,
  );
});

Deno.test("with no onMessage, an enabled TS layer that fails to load prints one error on stderr without VK_LOADER_DEBUG", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({});
  const dir = env.path("ts_layers");
  Deno.mkdirSync(dir);
  manifest(dir, "VK_LAYER_test_missing", "missing.ts");
  const script = `${dir}/run.ts`;
  const root = new URL("../../", import.meta.url).href;
  Deno.writeTextFileSync(
    script,
    `import { Vulkan } from "${root}mod.ts";\nimport { importLayerModules } from "${root}layers/mod.ts";\n` +
      `import { Arena } from "${root}ffi/memory.ts";\nimport { createInstance } from "${root}tests/support/chain.ts";\n` +
      `const env = ${
        JSON.stringify(env.snapshot({ VK_ADD_LAYER_PATH: dir, VK_INSTANCE_LAYERS: "VK_LAYER_test_missing" }))
      };\n` +
      `const { layers } = await importLayerModules(env);\n` +
      `using vk = Vulkan.load({ env, layerModules: layers });\nusing arena = new Arena();\n` +
      `for (let i = 0; i < 2; i++) {\n` +
      `  const made = createInstance({ vk, lines: [], arena, [Symbol.dispose]() {} } as never);\n` +
      `  if (made.result !== 0) throw new Error("vkCreateInstance " + made.result);\n` +
      `  vk.vkDestroyInstance(made.instance, null);\n}\n`,
  );
  const out = await new Deno.Command(Deno.execPath(), { args: ["run", "-A", script], stderr: "piped" })
    .output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  const lines = stderr.split("\n").filter((l) => l.includes("VK_LAYER_test_missing"));
  assert.equal(lines.length, 1, stderr);
  assert.match(
    lines[0]!,
    /^vkdeno: Cannot load layer "VK_LAYER_test_missing" \(".*"\): module ".*missing\.ts" does not exist$/,
  );
});

const hasVulkaninfo = (() => {
  try {
    Deno.statSync("/usr/bin/vulkaninfo");
    return true;
  } catch {
    return false;
  }
})();

Deno.test({
  name:
    "a .vkdeno TS layer manifest is found by vkdeno and skipped without a word by the Khronos loader (vulkaninfo)",
  ignore: !hasVulkaninfo || !hasLavapipe,
  fn: async () => {
    await using env = await MockEnvironment.create();
    await env.addDriver({});
    const dir = env.path("ts_layers");
    Deno.mkdirSync(dir);
    manifest(dir, "VK_LAYER_test_quiet", "quiet.ts");
    layerModule(dir, "VK_LAYER_test_quiet", "quiet.ts");
    const snapshot = env.snapshot({ VK_ADD_LAYER_PATH: dir, VK_INSTANCE_LAYERS: "VK_LAYER_test_quiet" });
    const { layers, errors } = await importLayerModules(snapshot);
    assert.deepEqual(errors, []);
    assert.deepEqual(layers.map((l) => l.name), ["VK_LAYER_test_quiet"]);
    // The Khronos loader, installed where vkdeno finds the layer, and even asked to enable it.
    for (
      const vars of <Record<string, string>[]> [{ VK_ADD_LAYER_PATH: dir }, {
        VK_ADD_LAYER_PATH: dir,
        VK_INSTANCE_LAYERS: "VK_LAYER_test_quiet",
      }]
    ) {
      const out = await new Deno.Command("vulkaninfo", {
        args: ["--summary"],
        // The driver named, not inherited: tests in other modules of this process set VK_DRIVER_FILES.
        env: { ...vars, VK_DRIVER_FILES: LAVAPIPE, VK_LOADER_LAYERS_DISABLE: "~implicit~" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 0, text);
      assert.doesNotMatch(text, /ERROR|quiet\.ts|VK_LAYER_test_quiet\.vkdeno|ELF/, text);
    }
  },
});
