/**
 * Implicit layer switches (docs/behaviour.md F08): an implicit layer whose `disable_environment` variable is set
 * (to any value, even "0": docs/behaviour.md F08, and its "Docs and code disagree" 3) stays off even when
 * `VK_LOADER_LAYERS_ENABLE` matches it. The current Khronos loader applies the forced enable first and the
 * disable variable after it (`loader_implicit_layer_is_enabled`: "The disable_environment has priority over
 * everything else"). Without the disable variable, `VK_LOADER_LAYERS_ENABLE` does force the layer on. Each
 * case runs a mock implicit layer under vkdeno and under the Khronos loader.
 */

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { MockEnvironment } from "../../support/mock.ts";
import { khronosProbe, vkdenoProbe } from "../../support/conform.ts";

async function withImplicitLayer(): Promise<{ env: MockEnvironment; name: string }> {
  const env = await MockEnvironment.create();
  await env.addDriver({ name: "drv", variant: "export", physicalDevices: [{ name: "Drv0" }] });
  const layer = await env.addLayer(
    { name: "VK_LAYER_MOCK_switched" },
    {
      implicit: true,
      manifest: {
        enableEnvironment: { VK_MOCK_ENABLE_switched: "1" },
        disableEnvironment: { VK_MOCK_DISABLE_switched: "1" },
      },
    },
  );
  return { env, name: layer.name };
}

/** Whether the layer's vkCreateInstance ran, under each loader. */
async function inChain(env: MockEnvironment, name: string, vars: Record<string, string>) {
  env.clearCallLog();
  vkdenoProbe(env, { vars });
  const ours = env.callLog().some((l) => l.startsWith(`${name} vkCreateInstance `));
  env.clearCallLog();
  await khronosProbe(env, { vars });
  const theirs = env.callLog().some((l) => l.startsWith(`${name} vkCreateInstance `));
  return { ours, theirs };
}

Deno.test("implicit layer switches: a set disable variable keeps the layer off even when VK_LOADER_LAYERS_ENABLE matches it", async () => {
  const { env, name } = await withImplicitLayer();
  await using _ = env;
  // any value, even "0" (an empty value reads as unset in both loaders here)
  for (const value of ["1", "0"]) {
    const r = await inChain(env, name, {
      VK_LOADER_LAYERS_ENABLE: "*switched",
      VK_MOCK_DISABLE_switched: value,
    });
    assertEquals(r, { ours: false, theirs: false }, `disable variable "${value}"`);
  }
});

Deno.test("implicit layer switches: VK_LOADER_LAYERS_ENABLE forces on an implicit layer whose enable variable is unset", async () => {
  const { env, name } = await withImplicitLayer();
  await using _ = env;
  assertEquals(await inChain(env, name, {}), { ours: false, theirs: false });
  assertEquals(await inChain(env, name, { VK_LOADER_LAYERS_ENABLE: "*switched" }), {
    ours: true,
    theirs: true,
  });
  assertEquals(await inChain(env, name, { VK_MOCK_ENABLE_switched: "1" }), { ours: true, theirs: true });
});
