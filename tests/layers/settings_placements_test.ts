/**
 * The example call counter configured through each settings source (docs/behaviour.md LS01), in both
 * placements, on a mock driver: in the script (`installLayers`) and in vkdeno's native chain (its `.vkdeno`
 * manifest). Its `top` setting is how many command lines it prints when its instance is destroyed; each
 * instance has its own settings (`VkLayerSettingsCreateInfoEXT` is per `vkCreateInstance`). Public API only.
 */
import assert from "node:assert/strict";
import {
  Arena,
  VK_LAYER_SETTING_TYPE_STRING_EXT,
  VK_LAYER_SETTING_TYPE_UINT32_EXT,
  VkApi,
  Vulkan,
  type VulkanCommands,
} from "../../mod.ts";
import {
  importLayerModules,
  installLayers,
  layerSettingsCreateInfo,
  type ValidationMessage,
} from "../../layers/mod.ts";
import callCounter from "../../examples/layers/call_counter.ts";
import { MockDriver, mockEnvironment } from "../../testing/mod.ts";

const EXAMPLES = new URL("../../examples/layers", import.meta.url).pathname;
const isolated = mockEnvironment();
globalThis.addEventListener("unload", () => isolated.remove());

/** A temp working folder holding `file` as its vk_layer_settings.txt (if given), and a snapshot over it. */
function sandbox(vars: Record<string, string>, file?: string) {
  const cwd = Deno.makeTempDirSync({ prefix: "settings_placements_" });
  if (file !== undefined) Deno.writeTextFileSync(`${cwd}/vk_layer_settings.txt`, file);
  const env = { ...isolated.env, vars: { ...isolated.env.vars, ...vars }, cwd };
  return { env, [Symbol.dispose]: () => Deno.removeSync(cwd, { recursive: true }) };
}

/** Where the settings' values live until vkCreateInstance returns. */
const arena = new Arena();
globalThis.addEventListener("unload", () => arena.dispose());

/** `top` through VkLayerSettingsCreateInfoEXT (odd: written by hand; even: by layerSettingsCreateInfo), or nothing. */
function chain(top: number | undefined) {
  if (top === undefined) return {};
  if (top % 2 === 0) return { pNext: [layerSettingsCreateInfo(arena, callCounter, { top })] };
  return {
    pNext: [{
      type: "VkLayerSettingsCreateInfoEXT" as const,
      pSettings: [{
        pLayerName: "VK_LAYER_EXAMPLE_call_counter",
        pSettingName: "top",
        type: VK_LAYER_SETTING_TYPE_UINT32_EXT,
        valueCount: 1,
        pValues: new Uint32Array([top]),
      }],
    }],
  };
}

/**
 * One instance through `vk` making four distinct calls (create, enumerate, properties, destroy), so the
 * counter prints min(top, 4) lines; returns how many it printed.
 */
function linesPrinted(vk: object, lines: string[], top?: number): number {
  const api = VkApi.of(vk as VulkanCommands);
  const before = lines.length;
  const instance = api.createInstance(chain(top));
  for (const gpu of api.enumeratePhysicalDevices(instance)) api.getPhysicalDeviceProperties(gpu);
  api.destroyInstance(instance);
  return lines.length - before;
}

type Placement = (
  env: ReturnType<typeof sandbox>["env"],
  run: (vk: object, lines: string[], messages: ValidationMessage[]) => void,
) => Promise<void>;

const script: Placement = async (env, run) => {
  using mock = new MockDriver({ onProblem: () => {} });
  using base = Vulkan.load({ drivers: [mock], env });
  const lines: string[] = [], messages: ValidationMessage[] = [];
  using vk = installLayers(base, {
    layers: [callCounter],
    env,
    output: (l) => void lines.push(l),
    onMessage: (m) => void messages.push(m),
  });
  run(vk, lines, messages);
  await Promise.resolve();
};

const native: Placement = async (env, run) => {
  const layered = {
    ...env,
    vars: { ...env.vars, VK_ADD_LAYER_PATH: EXAMPLES, VK_INSTANCE_LAYERS: "VK_LAYER_EXAMPLE_call_counter" },
  };
  const { layers, errors } = await importLayerModules(layered);
  assert.deepEqual(errors, []);
  using mock = new MockDriver({ onProblem: () => {} });
  const lines: string[] = [], messages: ValidationMessage[] = [];
  using vk = Vulkan.load({
    drivers: [mock],
    env: layered,
    layerModules: layers,
    moduleLayerOptions: { output: (l) => void lines.push(l), onMessage: (m) => void messages.push(m) },
  });
  run(vk, lines, messages);
};

for (const [placement, host] of [["script", script], ["native chain", native]] as const) {
  Deno.test(`${placement}: the call counter's top from a variable, vk_layer_settings.txt, VkLayerSettingsCreateInfoEXT, else its default`, async () => {
    {
      using box = sandbox({ VK_EXAMPLE_CALL_COUNTER_TOP: "1" }, "example_call_counter.top = 2\n");
      await host(box.env, (vk, lines, messages) => {
        assert.equal(linesPrinted(vk, lines, 3), 1);
        assert.deepEqual(messages, []);
      });
    }
    {
      using box = sandbox({}, "example_call_counter.top = 2\n");
      await host(box.env, (vk, lines) => assert.equal(linesPrinted(vk, lines, 3), 2));
    }
    using box = sandbox({});
    await host(box.env, (vk, lines) => {
      // It lists VK_EXT_layer_settings, as Khronos layers that read settings do.
      const own = VkApi.of(vk as VulkanCommands).enumerateInstanceExtensionProperties(
        "VK_LAYER_EXAMPLE_call_counter",
      );
      assert.deepEqual(own.map((e) => [e.extensionName, e.specVersion]), [["VK_EXT_layer_settings", 2]]);
      assert.equal(linesPrinted(vk, lines, 3), 3);
      assert.equal(linesPrinted(vk, lines), 4, "the default, 10, prints all four commands");
      // Settings are per instance: two alive at once, each with its own.
      const api = VkApi.of(vk as VulkanCommands);
      const a = api.createInstance(chain(1));
      const b = api.createInstance(chain(2));
      const before = lines.length;
      api.destroyInstance(b);
      assert.equal(lines.length - before, 2);
      api.destroyInstance(a);
      assert.equal(lines.length - before, 3);
    });
  });

  Deno.test(`${placement}: a malformed setting is one warning naming the source, the layer and the setting; the layer runs with the next source`, async () => {
    using box = sandbox({ VK_EXAMPLE_CALL_COUNTER_TOP: "all" }, "example_call_counter.top = 2\n");
    await host(box.env, (vk, lines, messages) => {
      const api = VkApi.of(vk as VulkanCommands);
      const instance = api.createInstance({
        pNext: [{
          type: "VkLayerSettingsCreateInfoEXT",
          pSettings: [{
            pLayerName: "VK_LAYER_EXAMPLE_call_counter",
            pSettingName: "top",
            type: VK_LAYER_SETTING_TYPE_STRING_EXT,
            valueCount: 1,
            pValues: new BigUint64Array([0n]),
          }],
        }],
      });
      api.destroyInstance(instance);
      assert.equal(lines.length, 2);
      assert.equal(messages.length, 1, JSON.stringify(messages));
      assert.equal(messages[0]!.layer, "VK_LAYER_EXAMPLE_call_counter");
      assert.equal(messages[0]!.severity, "warning");
      assert.match(
        messages[0]!.text,
        /^setting "top" from the variable VK_EXAMPLE_CALL_COUNTER_TOP is ignored: "all" is not an integer$/,
      );
    });
  });
}
