/**
 * TS layers are enabled by name like any layer: from `ppEnabledLayerNames` (the host takes its names out
 * before the loader sees them), from `VK_INSTANCE_LAYERS`, and from a layer manifest whose
 * `library_path` names a `.ts` module. Plus draw_stats, the layer guide's statistics.
 */
import assert from "node:assert/strict";
import { Arena, type Pointer, readPointer, writePointer } from "../../ffi/memory.ts";
import { check, enumerate, readStruct, writeStruct } from "../../api/structs.ts";
import { fillExtensions, fillLayers, namesOf } from "../../layers/_enumerate.ts";
import { defineLayer } from "../../layers/layer.ts";
import { importLayerModules } from "../../layers/catalog.ts";
import { installLayers } from "../../layers/top.ts";
import { openLibvulkan } from "../support/libvulkan.ts";
import { referenceLoaderTest } from "../support/ts_layer_harness.ts";
import { readHandle } from "../../vk/handle.ts";

// deno-lint-ignore no-explicit-any
type Commands = Record<string, (...args: any[]) => any>;

referenceLoaderTest(
  "a TS layer named in ppEnabledLayerNames is enabled and its name kept from the loader",
  import.meta,
  () => {
    {
      using base = openLibvulkan();
      const lines: string[] = [];
      using vk = installLayers(base, { output: (l) => void lines.push(l) });
      using arena = new Arena();
      const pInstance = arena.pointer(arena.alloc(8));
      const info = writeStruct(arena, "VkInstanceCreateInfo", {
        ppEnabledLayerNames: ["VK_LAYER_VKDENO_api_dump"],
      });
      // The reference loader would answer VK_ERROR_LAYER_NOT_PRESENT (-6) if it saw the name.
      check((vk as unknown as Commands).vkCreateInstance!(info, null, pInstance), "vkCreateInstance");
      const instance = readPointer(pInstance, 0);
      (vk as unknown as Commands).vkDestroyInstance!(instance, null);
      assert.deepEqual(vk.chassis.layers.map((l) => l.name), ["VK_LAYER_VKDENO_api_dump"]);
      assert.deepEqual(lines.map((l) => l.split("(")[0]), ["vkCreateInstance", "vkDestroyInstance"]);
    }
  },
);

Deno.test("TS layers named in VK_INSTANCE_LAYERS are enabled in order; other names are left to the loader", () => {
  {
    const base = { vkCmdDraw: () => {} };
    using vk = installLayers(base, {
      env: {
        vars: {
          VK_INSTANCE_LAYERS:
            "VK_LAYER_VKDENO_object_lifetimes:VK_LAYER_KHRONOS_validation:VK_LAYER_VKDENO_draw_stats",
        },
        elevated: false,
      },
    });
    assert.deepEqual(vk.chassis.layers.map((l) => l.name), [
      "VK_LAYER_VKDENO_object_lifetimes",
      "VK_LAYER_VKDENO_draw_stats",
    ]);
  }
});

Deno.test("a layer manifest whose library_path names a .ts module loads that module as a TS layer", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "ts_layer_module_" });
  try {
    Deno.mkdirSync(`${dir}/layers`);
    Deno.writeTextFileSync(
      `${dir}/layers/counter.ts`,
      `let calls = 0;
export default {
  name: "VK_LAYER_test_module_counter",
  description: "counts vkQueueWaitIdle",
  create: (env) => ({
    intercepts: { vkQueueWaitIdle: { postCallRecord: () => env.write(\`call \${++calls}\`) } },
  }),
};
`,
    );
    Deno.writeTextFileSync(
      `${dir}/layers/counter.json`,
      JSON.stringify({
        file_format_version: "1.2.0",
        layer: {
          name: "VK_LAYER_test_module_counter",
          type: "GLOBAL",
          library_path: "./counter.ts",
          api_version: "1.3.0",
          implementation_version: "1",
          description: "a TS module layer",
        },
      }),
    );
    const env = { vars: { VK_LAYER_PATH: `${dir}/layers` }, elevated: false, root: dir };
    const { layers, errors } = await importLayerModules(env, { layers: ["VK_LAYER_test_module_counter"] });
    assert.deepEqual(errors, []);
    assert.deepEqual(layers.map((l) => l.name), ["VK_LAYER_test_module_counter"]);
    const lines: string[] = [];
    const base = { vkQueueWaitIdle: (_q: Pointer) => 0 };
    const enabling = { vars: { VK_INSTANCE_LAYERS: "VK_LAYER_test_module_counter" }, elevated: false };
    // Importing registers nothing process-wide: a wrapper not given the layer cannot enable it.
    assert.throws(
      () => installLayers(base, { layers: ["VK_LAYER_test_module_counter"] }),
      /Cannot enable layer "VK_LAYER_test_module_counter": no TS layer of that name is available or shipped/,
    );
    using vk = installLayers(base, { env: enabling, available: layers, output: (l) => void lines.push(l) });
    vk.vkQueueWaitIdle(null);
    vk.vkQueueWaitIdle(null);
    assert.deepEqual(lines, ["call 1", "call 2"]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("draw_stats prints the draws, instances and vertices of each recording, counted again after begin", () => {
  let handle = 0x5000n;
  const make = (out: Pointer, n: number) => {
    for (let i = 0; i < n; i++) writePointer(out, i * 8, Deno.UnsafePointer.create(handle += 0x40n));
    return 0;
  };
  const base = {
    vkCreateCommandPool: (_d: Pointer, _i: Pointer, _a: Pointer, out: Pointer) => make(out, 1),
    vkAllocateCommandBuffers: (_d: Pointer, _i: Pointer, out: Pointer) => make(out, 1),
    vkBeginCommandBuffer: () => 0,
    vkEndCommandBuffer: () => 0,
    vkCmdDraw: () => {},
    vkCmdDrawIndexed: () => {},
    vkCmdDrawIndirect: () => {},
  };
  const lines: string[] = [];
  using layered = installLayers(base, {
    layers: ["VK_LAYER_VKDENO_draw_stats"],
    output: (l) => void lines.push(l),
  });
  const vk = layered as unknown as Commands;
  using arena = new Arena();
  const device = Deno.UnsafePointer.create(0x900n);
  const poolOut = arena.pointer(arena.alloc(8));
  vk.vkCreateCommandPool!(device, null, null, poolOut);
  const cbOut = arena.pointer(arena.alloc(8));
  const allocate = writeStruct(arena, "VkCommandBufferAllocateInfo", {
    commandPool: readHandle("VkCommandPool", poolOut)!,
    commandBufferCount: 1,
  });
  vk.vkAllocateCommandBuffers!(device, allocate, cbOut);
  const cb = readPointer(cbOut, 0);
  vk.vkBeginCommandBuffer!(cb, null);
  vk.vkCmdDraw!(cb, 3, 1, 0, 0);
  vk.vkCmdDrawIndexed!(cb, 36, 2, 0, 0, 0);
  vk.vkEndCommandBuffer!(cb);
  vk.vkBeginCommandBuffer!(cb, null);
  vk.vkCmdDrawIndirect!(cb, null, 0n, 4, 16);
  vk.vkEndCommandBuffer!(cb);
  const text = `0x${Deno.UnsafePointer.value(cb).toString(16)}`;
  assert.deepEqual(lines, [
    `Command buffer ${text} ended with 2 draws, 3 instances and 75 vertices`,
    `Command buffer ${text} ended with 4 draws, 0 instances and 0 vertices, 4 indirect draws`,
  ]);
  assert.equal(layered.chassis.adopted!.state!.get(cb)?.parent?.type, "VkCommandPool");
});

Deno.test("TS layers are listed by the enumeration commands, and their extensions kept from the loader below", () => {
  const seen: string[][] = [];
  const base = {
    vkEnumerateInstanceLayerProperties: (pCount: Pointer, pProps: Pointer) =>
      fillLayers(pCount, pProps, [
        {
          layerName: "VK_LAYER_KHRONOS_validation",
          specVersion: 1,
          implementationVersion: 1,
          description: "v",
        },
      ]),
    vkEnumerateInstanceExtensionProperties: (_layer: Pointer, pCount: Pointer, pProps: Pointer) =>
      fillExtensions(pCount, pProps, [{ name: "VK_KHR_surface", specVersion: 25 }]),
    vkCreateInstance: (pCreateInfo: Pointer, _a: Pointer, _i: Pointer) => {
      const info = readStruct("VkInstanceCreateInfo", pCreateInfo);
      seen.push([
        ...namesOf(info, "enabledLayerCount", "ppEnabledLayerNames"),
        ...namesOf(info, "enabledExtensionCount", "ppEnabledExtensionNames"),
      ]);
      return 0;
    },
  };
  const tracing = defineLayer({
    name: "VK_LAYER_test_ext_provider",
    description: "provides VK_EXT_debug_report",
    instanceExtensions: [{ name: "VK_EXT_debug_report", specVersion: 10 }],
    create: () => ({ intercepts: {} }),
  });
  using vk = installLayers(base, { available: [tracing] });
  const layers = enumerate(vk.vkEnumerateInstanceLayerProperties, [], { struct: "VkLayerProperties" })
    .map((l) => l.layerName);
  assert.deepEqual(layers.slice(0, 1), ["VK_LAYER_test_ext_provider"]);
  for (
    const name of ["VK_LAYER_VKDENO_api_dump", "VK_LAYER_VKDENO_draw_stats", "VK_LAYER_KHRONOS_validation"]
  ) {
    assert.ok(layers.includes(name), name);
  }
  using arena = new Arena();
  const ours = enumerate(vk.vkEnumerateInstanceExtensionProperties, [
    arena.cstring("VK_LAYER_test_ext_provider"),
  ], {
    struct: "VkExtensionProperties",
  });
  assert.deepEqual(ours.map((e) => [e.extensionName, e.specVersion]), [["VK_EXT_debug_report", 10]]);
  const info = writeStruct(arena, "VkInstanceCreateInfo", {
    ppEnabledLayerNames: ["VK_LAYER_KHRONOS_validation", "VK_LAYER_test_ext_provider"],
    ppEnabledExtensionNames: ["VK_KHR_surface", "VK_EXT_debug_report"],
  });
  assert.equal(vk.vkCreateInstance(info, null, null), 0);
  assert.deepEqual(seen, [["VK_LAYER_KHRONOS_validation", "VK_KHR_surface"]]);
  assert.deepEqual(vk.chassis.layers.map((l) => l.name), ["VK_LAYER_test_ext_provider"]);
});

Deno.test("object_lifetimes with stacks: a leak names the script line that created the object", () => {
  let handle = 0x7000n;
  const base = {
    vkCreateBuffer: (
      _d: Pointer,
      _i: Pointer,
      _a: Pointer,
      out: Pointer,
    ) => (writePointer(out, 0, Deno.UnsafePointer.create(handle += 0x10n)), 0),
    vkCreateDevice: (
      _pd: Pointer,
      _i: Pointer,
      _a: Pointer,
      out: Pointer,
    ) => (writePointer(out, 0, Deno.UnsafePointer.create(0x900n)), 0),
    vkDestroyDevice: () => {},
  };
  const messages: string[] = [];
  using layered = installLayers(base, {
    layers: ["VK_LAYER_VKDENO_object_lifetimes"],
    settings: { VK_LAYER_VKDENO_object_lifetimes: { stacks: true } },
    onMessage: (m) => void messages.push(m.text),
  });
  const vk = layered as unknown as Commands;
  using arena = new Arena();
  const out = arena.pointer(arena.alloc(8));
  vk.vkCreateDevice!(null, null, null, out);
  const device = readPointer(out, 0);
  vk.vkCreateBuffer!(device, null, null, out); // the leak
  vk.vkDestroyDevice!(device, null);
  assert.equal(messages.length, 1);
  assert.match(
    messages[0]!,
    /^VkBuffer 0x7010 created by vkCreateBuffer \(call #2\) is still alive at vkDestroyDevice/,
  );
  assert.match(messages[0]!, /layers\/enable_test\.ts:\d+/);
});

Deno.test("api_dump appends to the file its settings name", () => {
  const file = Deno.makeTempFileSync({ prefix: "ts_layer_api_dump_", suffix: ".jsonl" });
  try {
    const base = { vkCmdSetLineWidth: (_cb: Pointer, _w: number) => {} };
    using vk = installLayers(base, {
      layers: ["VK_LAYER_VKDENO_api_dump"],
      settings: { VK_LAYER_VKDENO_api_dump: { format: "json", timing: false, file } },
    });
    vk.vkCmdSetLineWidth(null, 2.5);
    assert.equal(
      Deno.readTextFileSync(file),
      '{"serial":1,"command":"vkCmdSetLineWidth","args":{"commandBuffer":null,"lineWidth":2.5}}\n',
    );
  } finally {
    Deno.removeSync(file);
  }
});
