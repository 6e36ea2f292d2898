/**
 * A TS layer module that cannot be loaded is named with its file and the real cause, both by
 * `importLayerModules` and by the chain when the layer is enabled (missing file, syntax error, throw at
 * import); a TS layer that loads gets a `Loaded layer` debug line like a C layer.
 */
import assert from "node:assert/strict";
import { defineLayer, importLayerModules } from "../../layers/mod.ts";
import { Logger } from "../../loading/log.ts";
import { Vulkan } from "../../mod.ts";
import { createInstance } from "../support/chain.ts";
import { Arena } from "../../ffi/memory.ts";
import { MockEnvironment } from "../support/mock.ts";

function manifest(dir: string, name: string, file: string): void {
  Deno.writeTextFileSync(
    `${dir}/${name}.json`,
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

Deno.test("a layer module that is missing, does not parse or throws at import is named with its file and cause; a loaded one gets a Loaded layer line", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({});
  const dir = env.path("ts_layers");
  Deno.mkdirSync(dir);
  manifest(dir, "VK_LAYER_test_missing", "missing.ts");
  manifest(dir, "VK_LAYER_test_syntax", "syntax.ts");
  Deno.writeTextFileSync(`${dir}/syntax.ts`, "export default {{{;\n");
  manifest(dir, "VK_LAYER_test_throws", "throws.ts");
  Deno.writeTextFileSync(`${dir}/throws.ts`, 'throw new RangeError("no GPU budget");\n');
  manifest(dir, "VK_LAYER_test_good", "good.ts");
  Deno.writeTextFileSync(`${dir}/good.ts`, "export const unused = 1;\n");
  const names = [
    "VK_LAYER_test_missing",
    "VK_LAYER_test_syntax",
    "VK_LAYER_test_throws",
    "VK_LAYER_test_good",
  ];
  const snapshot = env.snapshot({
    VK_ADD_LAYER_PATH: dir,
    VK_INSTANCE_LAYERS: names.join(":"),
    VK_LOADER_DEBUG: "all",
  });
  const { layers, errors } = await importLayerModules(snapshot);
  assert.equal(errors.length, 4);
  assert.match(
    errors.find((e) => e.includes("missing"))!,
    /"VK_LAYER_test_missing".*missing\.ts" does not exist/,
  );
  assert.match(
    errors.find((e) => e.includes("syntax"))!,
    /"VK_LAYER_test_syntax".*syntax\.ts" failed to import \(/,
  );
  assert.match(
    errors.find((e) => e.includes("throws"))!,
    /"VK_LAYER_test_throws".*throws\.ts" failed to import \(RangeError: no GPU budget\)/,
  );
  assert.match(errors.find((e) => e.includes("good"))!, /good\.ts" exports no layer/);

  const good = defineLayer({
    name: "VK_LAYER_test_good",
    description: "good",
    create: () => ({ intercepts: {} }),
  });
  const lines: string[] = [];
  const logger = new Logger(snapshot, { write: (line) => void lines.push(line) });
  using vk = Vulkan.load({ env: snapshot, logger, layerModules: [...layers, good] });
  using arena = new Arena();
  const made = createInstance({ vk, lines, arena, [Symbol.dispose]() {} });
  assert.equal(made.result, 0);
  vk.vkDestroyInstance(made.instance, null);
  const text = lines.join("\n");
  assert.match(text, /Requested layer "VK_LAYER_test_missing" failed to load: .*missing\.ts" does not exist/);
  assert.match(
    text,
    /Requested layer "VK_LAYER_test_syntax" failed to load: .*syntax\.ts" failed to import \(/,
  );
  assert.match(
    text,
    /Requested layer "VK_LAYER_test_throws" failed to load: .*failed to import \(RangeError: no GPU budget\)/,
  );
  assert.match(text, /Loaded layer "VK_LAYER_test_good" from ".*good\.ts" \(script module, interface 2\)/);
  assert.doesNotMatch(text, /was not imported/);
});

Deno.test("an edited layer module is imported anew for the next loader; an unchanged one is the same layer", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "vkdeno_ts_reload_" });
  try {
    manifest(dir, "VK_LAYER_test_reload", "reload.ts");
    const write = (text: string) =>
      Deno.writeTextFileSync(
        `${dir}/reload.ts`,
        `export default { name: "VK_LAYER_test_reload", description: "${text}", create: () => ({ intercepts: {} }) };\n`,
      );
    write("first");
    const env = { vars: { VK_LAYER_PATH: dir }, elevated: false, root: `${dir}/root` };
    const [first] = (await importLayerModules(env, { layers: ["VK_LAYER_test_reload"] })).layers;
    const [again] = (await importLayerModules(env, { layers: ["VK_LAYER_test_reload"] })).layers;
    assert.equal(first?.description, "first");
    assert.equal(again, first);
    write("second, longer");
    const [edited] = (await importLayerModules(env, { layers: ["VK_LAYER_test_reload"] })).layers;
    assert.equal(edited?.description, "second, longer");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("importLayerModules called without an environment snapshot throws naming the parameter", async () => {
  for (const env of [undefined, null, {}]) {
    await assert.rejects(
      // @ts-expect-error: a plain-JavaScript caller can leave out the required snapshot
      () => importLayerModules(env),
      (error: Error) =>
        error instanceof TypeError &&
        /importLayerModules: "env" must be an environment snapshot/.test(error.message),
    );
  }
});
