/**
 * One object model in both placements: a TS layer's `create` runs once per instance and `createDevice` once
 * per device, whether the layer sits in the script (`installLayers`) or in vkdeno's native chain (a `.ts`
 * manifest); each object sees the calls on its own instance or device and is disposed when that is
 * destroyed; a device command hooked in the instance object of a layer with `createDevice` draws a warning.
 */
import assert from "node:assert/strict";
import { runCompute } from "../../examples/compute.ts";
import { Arena } from "../../ffi/memory.ts";
import { readHandle } from "../../vk/handle.ts";
import { enumerate, writeStruct } from "../../api/structs.ts";
import { defineLayer } from "../../layers/layer.ts";
import { importLayerModules } from "../../layers/catalog.ts";
import { installLayers } from "../../layers/top.ts";
import { Vulkan } from "../../mod.ts";
import { LAVAPIPE } from "../support/lavapipe.ts";

function snapshot(vars: Record<string, string> = {}) {
  return {
    vars: { VK_DRIVER_FILES: LAVAPIPE, VK_LOADER_LAYERS_DISABLE: "~implicit~", ...vars },
    elevated: false,
  };
}

/** A layer module logging when its objects are made and disposed, and what each one saw. */
const MODULE = `export const events = [];
let made = 0;
export function reset() { events.length = 0; made = 0; }
export default {
  name: "VK_LAYER_test_objects",
  description: "logs its objects",
  create(env) {
    const id = "instance " + ++made;
    let enumerated = 0;
    events.push("create " + id + (env.handle === null ? "" : " (handle already set)"));
    return {
      id,
      intercepts: {
        vkCreateInstance: { postCallRecord: () => void events.push(id + " made, handle " + (env.handle !== null)) },
        vkEnumeratePhysicalDevices: { postCallRecord: () => void enumerated++ },
        vkCmdDispatch: { preCallRecord: () => events.push(id + " saw a device call") },
      },
      dispose: () => events.push("dispose " + id + ": " + enumerated + " enumerations, handle " + (env.handle !== null)),
    };
  },
  createDevice(env, instance) {
    const id = instance.id + " device";
    let dispatches = 0;
    events.push("create " + id + (env.physicalDevice === null ? " without a physical device" : ""));
    return {
      intercepts: {
        vkCmdDispatch: { preCallRecord: () => void dispatches++ },
        vkDestroyDevice: { preCallRecord: () => void events.push(id + " destroyed after " + dispatches + " dispatch") },
      },
      dispose: () => events.push("dispose " + id),
    };
  },
};
`;

const EXPECTED = (n: number) => [
  `create instance ${n}`,
  `instance ${n} made, handle true`,
  `create instance ${n} device`,
  `instance ${n} device destroyed after 1 dispatch`,
  `dispose instance ${n} device`,
  `dispose instance ${n}: 2 enumerations, handle true`,
];

Deno.test("a TS layer gets one object per instance and per device, the same in the script and in the native chain", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "ts_layer_objects_" });
  try {
    Deno.writeTextFileSync(`${dir}/objects.ts`, MODULE);
    Deno.writeTextFileSync(
      `${dir}/objects.json`,
      JSON.stringify({
        file_format_version: "1.2.0",
        layer: {
          name: "VK_LAYER_test_objects",
          type: "GLOBAL",
          library_path: "./objects.ts",
          api_version: "1.3.0",
          implementation_version: "1",
          description: "a TS layer module",
        },
      }),
    );
    const env = snapshot({ VK_ADD_LAYER_PATH: dir, VK_INSTANCE_LAYERS: "VK_LAYER_test_objects" });
    const { layers, errors } = await importLayerModules(env);
    assert.deepEqual(errors, []);
    const module = await import(`file://${dir}/objects.ts`) as { events: string[]; reset(): void };

    // In the native chain: each vkCreateInstance loads the chain anew.
    {
      using vk = Vulkan.load({ env, layerModules: layers });
      assert.equal(runCompute(vk as never, { count: 4096 }).wrong, 0);
      assert.equal(runCompute(vk as never, { count: 4096 }).wrong, 0);
    }
    const native = [...module.events];
    module.reset();

    // In the script: one wrapper, two instances made through it.
    {
      using base = Vulkan.load({ env: snapshot() });
      using vk = installLayers(base, { layers });
      assert.equal(runCompute(vk as never, { count: 4096 }).wrong, 0);
      assert.equal(runCompute(vk as never, { count: 4096 }).wrong, 0);
      assert.deepEqual(vk.chassis.instances, []);
    }
    assert.deepEqual(module.events, [...EXPECTED(1), ...EXPECTED(2)]);
    assert.deepEqual(native, module.events);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("with two instances alive, each call runs on the objects of its own instance", () => {
  const counts = new Map<string, number>();
  let made = 0;
  const counter = defineLayer({
    name: "VK_LAYER_test_per_instance",
    description: "counts enumerations per instance",
    create: () => {
      const id = `instance ${++made}`;
      return {
        intercepts: {
          vkEnumeratePhysicalDevices: {
            preCallRecord: () => void counts.set(id, (counts.get(id) ?? 0) + 1),
          },
        },
      };
    },
  });
  using base = Vulkan.load({ env: snapshot() });
  using vk = installLayers(base, { layers: [counter] });
  using arena = new Arena();
  const create = () => {
    const pInstance = arena.pointer(arena.alloc(8));
    assert.equal(vk.vkCreateInstance(writeStruct(arena, "VkInstanceCreateInfo", {}), null, pInstance), 0);
    return readHandle("VkInstance", pInstance)!;
  };
  const first = create();
  const second = create();
  enumerate(vk.vkEnumeratePhysicalDevices, [second]);
  enumerate(vk.vkEnumeratePhysicalDevices, [second]);
  enumerate(vk.vkEnumeratePhysicalDevices, [first]);
  // enumerate() calls twice: once for the count, once for the handles.
  assert.deepEqual(Object.fromEntries(counts), { "instance 1": 2, "instance 2": 4 });
  assert.equal(vk.chassis.instances.length, 2);
  vk.vkDestroyInstance(first, null);
  vk.vkDestroyInstance(second, null);
  assert.equal(vk.chassis.instances.length, 0);
  assert.equal(vk.chassis.adopted, null);
});

Deno.test("a device command hooked in the instance object of a layer with createDevice draws one warning: it never runs", () => {
  const messages: string[] = [];
  let ran = 0;
  const misplaced = defineLayer({
    name: "VK_LAYER_test_misplaced",
    description: "hooks a device command in its instance object",
    create: () => ({ intercepts: { vkCmdDispatch: { preCallRecord: () => void ran++ } } }),
    createDevice: () => ({ intercepts: {} }),
  });
  using base = Vulkan.load({ env: snapshot() });
  using vk = installLayers(base, {
    layers: [misplaced],
    onMessage: (m) => void messages.push(`${m.layer} ${m.severity} [${m.id}]: ${m.text}`),
  });
  assert.equal(runCompute(vk as never, { count: 4096 }).wrong, 0);
  assert.equal(runCompute(vk as never, { count: 4096 }).wrong, 0);
  assert.equal(ran, 0);
  assert.deepEqual(messages, [
    'VK_LAYER_test_misplaced warning [Layer-HookNeverRuns]: intercepts device command "vkCmdDispatch" in its ' +
    "instance object (create), but has createDevice: a device's calls reach only the object createDevice " +
    "returns, so this hook never runs; move it there",
  ]);
});
