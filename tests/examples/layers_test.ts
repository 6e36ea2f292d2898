/**
 * The three example layers of `examples/layers/` (call counter, leak finder, fault injector), loaded from
 * their manifests into vkdeno's native chain stacked with the Khronos validation layer, and the fault
 * injector in the script too, on lavapipe.
 */
import assert from "node:assert/strict";
import { runCompute } from "../../examples/compute.ts";
import { counts } from "../../examples/layers/call_counter.ts";
import faultInjector from "../../examples/layers/fault_injector.ts";
import { importLayerModules, installLayers, type ValidationMessage } from "../../layers/mod.ts";
import { VkError, Vulkan, type VulkanCommands } from "../../mod.ts";
import { Arena } from "../../ffi/memory.ts";
import { writeStruct } from "../../api/structs.ts";
import type { VkDevice } from "../../vk/generated/vk_types.ts";
import { createDevice, createInstance, physicalDevices } from "../support/chain.ts";
import { LAVAPIPE } from "../support/lavapipe.ts";

const EXAMPLES = new URL("../../examples/layers", import.meta.url).pathname;

function snapshot(layers: string[], vars: Record<string, string> = {}) {
  return {
    vars: {
      VK_DRIVER_FILES: LAVAPIPE,
      VK_LOADER_LAYERS_DISABLE: "~implicit~",
      VK_ADD_LAYER_PATH: EXAMPLES,
      VK_INSTANCE_LAYERS: layers.join(":"),
      ...vars,
    },
    elevated: false,
  };
}

Deno.test("the call counter and the leak finder run in vkdeno's native chain around the Khronos validation layer", async () => {
  const env = snapshot([
    "VK_LAYER_EXAMPLE_call_counter",
    "VK_LAYER_KHRONOS_validation",
    "VK_LAYER_EXAMPLE_leak_finder",
  ]);
  const { layers, errors } = await importLayerModules(env);
  assert.deepEqual(errors, []);
  const messages: ValidationMessage[] = [];
  const lines: string[] = [];
  let maps = "";
  using vk = Vulkan.load({
    env,
    layerModules: layers,
    moduleLayerOptions: {
      onMessage: (m) => void messages.push(m),
      output: (l) => void lines.push(l),
      settings: { VK_LAYER_EXAMPLE_call_counter: { top: 100 } },
    },
  });
  assert.equal(runCompute(vk, { count: 4096 }).wrong, 0);
  assert.equal(counts.get("vkCmdDispatch"), 1);
  assert.equal(counts.get("vkCreateComputePipelines"), 1);
  assert.ok((counts.get("vkDestroyBuffer") ?? 0) >= 1);
  assert.equal(messages.length, 0, JSON.stringify(messages));
  assert.match(lines.join("\n"), /^\s+1 vkCmdDispatch$/m);

  // A fence left alive at vkDestroyDevice is reported with the call that made it.
  using arena = new Arena();
  const loaded = { vk: vk as Vulkan & VulkanCommands, lines: [], arena, [Symbol.dispose]() {} };
  const { instance } = createInstance(loaded);
  const device = createDevice(loaded, physicalDevices(loaded, instance)[0]!).device as VkDevice;
  maps = Deno.readTextFileSync("/proc/self/maps");
  vk.vkCreateFence(device, writeStruct(arena, "VkFenceCreateInfo", {}), null, arena.pointer(arena.alloc(8)));
  vk.vkDestroyDevice(device, null);
  vk.vkDestroyInstance(instance, null);
  assert.match(maps, /libVkLayer_khronos_validation\.so/);
  assert.equal(messages.length, 1, JSON.stringify(messages));
  assert.equal(messages[0]!.layer, "VK_LAYER_EXAMPLE_leak_finder");
  // Reported by the layer's object for that device, at its vkDestroyDevice.
  assert.equal(messages[0]!.command, "vkDestroyDevice");
  assert.match(messages[0]!.text, /VkFence .* created by vkCreateFence .* is still alive/);
});

Deno.test("the fault injector fails the compute example's allocation with VK_ERROR_OUT_OF_DEVICE_MEMORY, in the native chain below the validation layer and in the script", async () => {
  const env = snapshot(["VK_LAYER_KHRONOS_validation", "VK_LAYER_EXAMPLE_fault_injector"]);
  const { layers } = await importLayerModules(env);
  const messages: ValidationMessage[] = [];
  {
    using vk = Vulkan.load({
      env,
      layerModules: layers,
      moduleLayerOptions: { onMessage: (m) => void messages.push(m) },
    });
    assert.throws(
      () => runCompute(vk, { count: 4096 }),
      (e: unknown) => e instanceof VkError && e.result === "VK_ERROR_OUT_OF_DEVICE_MEMORY",
    );
  }
  {
    using base = Vulkan.load({ env: snapshot([]) });
    using vk = installLayers(base, {
      layers: [faultInjector],
      onMessage: (m) => void messages.push(m),
      settings: { VK_LAYER_EXAMPLE_fault_injector: { command: "vkAllocateMemory", nth: 1 } },
    });
    assert.throws(
      () => runCompute(vk, { count: 4096 }),
      (e: unknown) => e instanceof VkError && e.result === "VK_ERROR_OUT_OF_DEVICE_MEMORY",
    );
  }
  assert.deepEqual(messages.map((m) => m.id), ["EXAMPLE-Injected", "EXAMPLE-Injected"]);
});
