/**
 * TS layers placed anywhere in the chain, around the Khronos validation layer, running the compute
 * example on lavapipe: one at the top (wrapping the command object, no FFI crossing) and one below the
 * validation layer (a native link: C-callable GIPA/GDPA, loaded by the reference loader through a C shim
 * named in a manifest). Both must see the example's calls, in the chain's order.
 */
import assert from "node:assert/strict";
import { runCompute } from "../../examples/compute.ts";
import { Arena, readPointer } from "../../ffi/memory.ts";
import { check, enumerate, writeStruct } from "../../api/structs.ts";
import { defineLayer, type ValidationMessage, VK_ERROR_VALIDATION_FAILED_EXT } from "../../layers/layer.ts";
import { objectLifetimesLayer } from "../../layers/object_lifetimes.ts";
import { NativeLayerBridge } from "../../layers/native.ts";
import { installLayers } from "../../layers/top.ts";
import { openLibvulkan } from "../support/libvulkan.ts";
import { installShim, referenceLoaderTest } from "../support/ts_layer_harness.ts";
import { VK_BUFFER_USAGE_STORAGE_BUFFER_BIT } from "../../mod.ts";

// deno-lint-ignore no-explicit-any
type Commands = Record<string, (...args: any[]) => any>;

const COMPUTE_CALLS = [
  "vkCreateInstance",
  "vkCreateDevice",
  "vkCreateBuffer",
  "vkCreateComputePipelines",
  "vkBeginCommandBuffer",
  "vkCmdBindPipeline",
  "vkCmdDispatch",
  "vkEndCommandBuffer",
  "vkQueueSubmit",
  "vkWaitForFences",
  "vkDestroyBuffer",
  "vkDestroyDevice",
  "vkDestroyInstance",
];

/** A layer that logs `<tag>:<command>` for the compute example's calls, before the next link. */
function recorder(tag: string, log: string[], onCall?: (command: string) => void) {
  return defineLayer({
    name: `VK_LAYER_VKDENO_test_${tag}`,
    description: `records calls (${tag})`,
    create: () => {
      const hooks = {
        preCallRecord: (ctx: { command: string }) => {
          log.push(`${tag}:${ctx.command}`);
          onCall?.(ctx.command);
        },
      };
      return { intercepts: Object.fromEntries(COMPUTE_CALLS.map((c) => [c, hooks])) };
    },
  });
}

referenceLoaderTest(
  "a TS layer above and one below the Khronos validation layer both see the compute example's calls",
  import.meta,
  (dir) => {
    const log: string[] = [];
    const messages: ValidationMessage[] = [];
    let mapsAtCreateDevice = "";
    const below = recorder("below", log, (command) => {
      // The validation layer is unloaded with the instance: look while the chain is alive.
      if (command === "vkCreateDevice") mapsAtCreateDevice = Deno.readTextFileSync("/proc/self/maps");
    });
    const bridge = new NativeLayerBridge([below], { onMessage: (m) => void messages.push(m) });
    const shim = installShim(dir, "VK_LAYER_VKDENO_test_below", bridge);
    try {
      using base = openLibvulkan();
      using vk = installLayers(base, { layers: [recorder("above", log)] });
      const report = runCompute(vk as never, { count: 4096 });
      assert.equal(report.wrong, 0);
      assert.match(mapsAtCreateDevice, /libVkLayer_khronos_validation\.so/);
      for (const tag of ["above", "below"]) {
        const seen = log.filter((l) => l.startsWith(`${tag}:`)).map((l) => l.slice(tag.length + 1));
        // Every call of the example, in the example's order.
        assert.deepEqual(
          seen.filter((c) => COMPUTE_CALLS.includes(c)).filter((c, i, a) => a.indexOf(c) === i),
          COMPUTE_CALLS,
        );
      }
      // Each call reaches the top layer before the link below the validation layer.
      for (const command of ["vkCreateDevice", "vkCmdDispatch", "vkQueueSubmit"]) {
        assert.ok(log.indexOf(`above:${command}`) < log.indexOf(`below:${command}`), command);
      }
      assert.deepEqual(bridge.live, { instances: 0, devices: 0 });
      assert.deepEqual(messages, []);
    } finally {
      bridge.dispose();
      shim.close();
    }
  },
  () => ({ VK_INSTANCE_LAYERS: "VK_LAYER_KHRONOS_validation:VK_LAYER_VKDENO_test_below" }),
);

referenceLoaderTest(
  "a TS layer as a native link skips the calls its validators reject and tracks state from the loader's calls",
  import.meta,
  (dir) => {
    const messages: ValidationMessage[] = [];
    const bridge = new NativeLayerBridge([objectLifetimesLayer], { onMessage: (m) => void messages.push(m) });
    const shim = installShim(dir, "VK_LAYER_VKDENO_test_lifetimes", bridge);
    try {
      using vk = openLibvulkan();
      const v = vk as unknown as Commands;
      using arena = new Arena();
      const slot = () => arena.pointer(arena.alloc(8));
      const pInstance = slot();
      check(
        v.vkCreateInstance!(writeStruct(arena, "VkInstanceCreateInfo", {}), null, pInstance),
        "vkCreateInstance",
      );
      const instance = readPointer(pInstance, 0);
      const [physicalDevice] = enumerate(v.vkEnumeratePhysicalDevices!, [instance]);
      const pDevice = slot();
      const queues = [{ queueFamilyIndex: 0, pQueuePriorities: [1] }];
      check(
        v.vkCreateDevice!(
          physicalDevice,
          writeStruct(arena, "VkDeviceCreateInfo", { pQueueCreateInfos: queues }),
          null,
          pDevice,
        ),
        "vkCreateDevice",
      );
      const device = readPointer(pDevice, 0);
      const pBuffer = slot();
      const info = writeStruct(arena, "VkBufferCreateInfo", {
        size: 64n,
        usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
      });
      check(v.vkCreateBuffer!(device, info, null, pBuffer), "vkCreateBuffer");
      const buffer = readPointer(pBuffer, 0);
      v.vkDestroyBuffer!(device, buffer, null);
      // Through libvulkan's trampoline, down to the TS link, which refuses it.
      assert.equal(v.vkBindBufferMemory!(device, buffer, null, 0n), VK_ERROR_VALIDATION_FAILED_EXT);
      check(v.vkCreateBuffer!(device, info, null, pBuffer), "vkCreateBuffer");
      v.vkDestroyDevice!(device, null);
      v.vkDestroyInstance!(instance, null);
      assert.deepEqual(messages.map((m) => [m.id, m.command]), [
        ["ObjectLifetimes-UseAfterDestroy", "vkBindBufferMemory"],
        ["ObjectLifetimes-Leak", "vkDestroyDevice"],
      ]);
      assert.deepEqual(bridge.live, { instances: 0, devices: 0 });
    } finally {
      bridge.dispose();
      shim.close();
    }
  },
  () => ({ VK_INSTANCE_LAYERS: "VK_LAYER_VKDENO_test_lifetimes" }),
);
