/**
 * TS layers on vkdeno's own loader (environment passed as a snapshot, lavapipe only): at the top of the
 * chain over the `vk` command object, and, once the chain assembly loads `.ts` layer manifests (see the
 * integration note in `layers/native.ts`), below the Khronos validation layer in vkdeno's native chain.
 */
import assert from "node:assert/strict";
import { runCompute } from "../../examples/compute.ts";
import { defineLayer, type ValidationMessage } from "../../layers/layer.ts";
import { importLayerModules } from "../../layers/catalog.ts";
import { installLayers } from "../../layers/top.ts";
import { Vulkan } from "../../mod.ts";
import { Logger } from "../../loading/log.ts";
import { LAVAPIPE } from "../support/lavapipe.ts";

function snapshot(vars: Record<string, string> = {}) {
  return {
    vars: { VK_DRIVER_FILES: LAVAPIPE, VK_LOADER_LAYERS_DISABLE: "~implicit~", ...vars },
    elevated: false,
  };
}

Deno.test("TS layers at the top of vkdeno's chain: compute runs, leaks none, commands not intercepted are vkdeno's own", () => {
  using base = Vulkan.load({ env: snapshot() });
  const messages: ValidationMessage[] = [];
  const lines: string[] = [];
  using vk = installLayers(base, {
    layers: ["VK_LAYER_VKDENO_object_lifetimes", "VK_LAYER_VKDENO_api_dump"],
    output: (l) => void lines.push(l),
    onMessage: (m) => void messages.push(m),
    settings: { VK_LAYER_VKDENO_api_dump: { format: "json" } },
  });
  assert.equal(runCompute(vk as never, { count: 4096 }).wrong, 0);
  assert.deepEqual(messages, []);
  const commands = lines.map((l) => (JSON.parse(l) as { command: string }).command);
  for (
    const c of ["vkCreateInstance", "vkCreateDevice", "vkCmdDispatch", "vkQueueSubmit", "vkDestroyInstance"]
  ) {
    assert.ok(commands.includes(c), c);
  }
  using idle = installLayers(base, {
    layers: [
      defineLayer({ name: "VK_LAYER_test_idle", description: "idle", create: () => ({ intercepts: {} }) }),
    ],
  });
  assert.equal(runCompute(idle as never, { count: 4096 }).wrong, 0);
  assert.equal(idle.vkCmdSetLineWidth, base.vkCmdSetLineWidth);
  assert.equal(idle.vkQueueSubmit, base.vkQueueSubmit);
});

Deno.test({
  name:
    "a .ts layer manifest below the Khronos validation layer in vkdeno's chain sees the compute example's calls",
  fn: async () => {
    const dir = Deno.makeTempDirSync({ prefix: "ts_layer_vkdeno_" });
    try {
      Deno.writeTextFileSync(
        `${dir}/below.ts`,
        `export const calls = [];
const hooks = {
  preCallRecord(ctx) {
    calls.push(ctx.command);
    if (ctx.command === "vkCreateDevice") {
      calls.push(/libVkLayer_khronos_validation/.test(Deno.readTextFileSync("/proc/self/maps")) ? "validation loaded" : "no validation");
    }
  },
};
const names = ["vkCreateInstance", "vkCreateDevice", "vkCmdDispatch", "vkQueueSubmit", "vkDestroyDevice"];
export default {
  name: "VK_LAYER_VKDENO_test_below",
  description: "records calls",
  create: () => ({ intercepts: Object.fromEntries(names.map((n) => [n, hooks])) }),
};
`,
      );
      Deno.writeTextFileSync(
        `${dir}/below.json`,
        JSON.stringify({
          file_format_version: "1.2.0",
          layer: {
            name: "VK_LAYER_VKDENO_test_below",
            type: "GLOBAL",
            library_path: "./below.ts",
            api_version: "1.3.0",
            implementation_version: "1",
            description: "a TS layer module",
          },
        }),
      );
      const env = snapshot({
        VK_ADD_LAYER_PATH: dir,
        VK_INSTANCE_LAYERS: "VK_LAYER_KHRONOS_validation:VK_LAYER_VKDENO_test_below",
      });
      const { layers, errors } = await importLayerModules(env);
      assert.deepEqual(errors, []);
      const { calls } = await import(`file://${dir}/below.ts`) as { calls: string[] };
      using base = Vulkan.load({ env, layerModules: layers });
      const above: string[] = [];
      const hooks = { preCallRecord: (ctx: { command: string }) => void above.push(ctx.command) };
      using vk = installLayers(base, {
        layers: [defineLayer({
          name: "VK_LAYER_test_above",
          description: "records calls",
          create: () => ({
            intercepts: { vkCreateDevice: hooks, vkCmdDispatch: hooks, vkQueueSubmit: hooks },
          }),
        })],
      });
      assert.equal(runCompute(vk as never, { count: 4096 }).wrong, 0);
      assert.deepEqual(above, ["vkCreateDevice", "vkCmdDispatch", "vkQueueSubmit"]);
      assert.deepEqual(calls, [
        "vkCreateInstance",
        "vkCreateDevice",
        "validation loaded",
        "vkCmdDispatch",
        "vkQueueSubmit",
        "vkDestroyDevice",
      ]);
      // The layer went to that loader only: another over the same environment, not given it, skips the
      // manifest with an error saying its module was not imported, and the layer sees none of its calls.
      const printed: string[] = [];
      const logger = new Logger({ ...env, vars: { ...env.vars, VK_LOADER_DEBUG: "error" } }, {
        write: (l) => void printed.push(l),
      });
      {
        using other = Vulkan.load({ env, logger });
        assert.equal(runCompute(other as never, { count: 256 }).wrong, 0);
      }
      assert.ok(
        printed.some((l) =>
          l.includes('Requested layer "VK_LAYER_VKDENO_test_below" failed to load') &&
          l.includes("was not imported")
        ),
        printed.join("\n"),
      );
      assert.equal(calls.length, 6);
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "the shipped api_dump, enabled by name from its manifest, runs below the validation layer in vkdeno's chain",
  fn: () => {
    const lines: string[] = [];
    const env = snapshot({
      VK_ADD_LAYER_PATH: new URL("../../layers/manifests", import.meta.url).pathname,
      VK_INSTANCE_LAYERS: "VK_LAYER_KHRONOS_validation:VK_LAYER_VKDENO_api_dump",
    });
    {
      using vk = Vulkan.load({
        env,
        moduleLayerOptions: {
          output: (l) => void lines.push(l),
          settings: { VK_LAYER_VKDENO_api_dump: { format: "json" } },
        },
      });
      assert.equal(runCompute(vk as never, { count: 4096 }).wrong, 0);
    }
    const dump = lines.map((l) => JSON.parse(l) as { command: string; args: Record<string, unknown> });
    const dispatch = dump.find((l) => l.command === "vkCmdDispatch");
    assert.equal(dispatch?.args.groupCountX, 16);
    for (
      const c of [
        "vkCreateInstance",
        "vkCreateDevice",
        "vkQueueSubmit",
        "vkDestroyDevice",
        "vkDestroyInstance",
      ]
    ) {
      assert.ok(dump.some((l) => l.command === c), c);
    }
  },
});
