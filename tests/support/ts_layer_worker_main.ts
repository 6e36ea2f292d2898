/**
 * Child process of `tests/layers/worker_test.ts`: a TS layer over the mock driver, in vkdeno's native chain
 * (argument `native`) or in the script (`script`, `installLayers`); this thread calls two commands through
 * the pointers `vkGetInstanceProcAddr`/`vkGetDeviceProcAddr` gave, then Workers each begin their own command
 * buffer and record `COMMANDS` commands through them while this thread waits in `Atomics.wait` (up to 60 s).
 * Prints one JSON line: how the wait ended, how long it took, what the calls returned, what the layer saw,
 * and how many commands the driver recorded per Worker.
 *
 * @module
 */

import { defineLayer, installLayers } from "../../layers/mod.ts";
import { Vulkan, type VulkanCommands } from "../../mod.ts";
import { Arena, readPointer } from "../../ffi/memory.ts";
import { writeStruct } from "../../api/structs.ts";
import { createDevice, createInstance, physicalDevices } from "./chain.ts";
import { MockEnvironment } from "./mock.ts";
import type { VkCommandBuffer, VkCommandPool, VkDevice } from "../../vk/generated/vk_types.ts";
import type { WorkerJob } from "./ts_layer_worker.ts";

const NAME = "VK_LAYER_VKDENO_test_threads";
await using env = await MockEnvironment.create();
await env.addDriver({});
const dir = env.path("ts_layers");
Deno.mkdirSync(dir);
Deno.writeTextFileSync(
  `${dir}/threads.json`,
  JSON.stringify({
    file_format_version: "1.2.0",
    layer: {
      name: NAME,
      type: "GLOBAL",
      library_path: "./threads.ts",
      api_version: "1.3.0",
      implementation_version: "1",
      description: "threads",
    },
  }),
);
const seen: string[] = [];
const record = { preCallRecord: (ctx: { command: string }) => void seen.push(ctx.command) };
const layer = defineLayer({
  name: NAME,
  description: "threads",
  create: () => ({ intercepts: { vkBeginCommandBuffer: record, vkCmdSetLineWidth: record } }),
});
const placement = Deno.args[0];
if (placement !== "native" && placement !== "script") throw new TypeError(`placement "${placement}"`);
using vk = placement === "native"
  ? Vulkan.load({
    env: env.snapshot({ VK_ADD_LAYER_PATH: dir, VK_INSTANCE_LAYERS: NAME }),
    layerModules: [layer],
  }) as Vulkan & VulkanCommands
  : installLayers(Vulkan.load({ env: env.snapshot({}) }) as Vulkan & VulkanCommands, {
    layers: [layer],
    disposeBase: true,
  });
using arena = new Arena();
const loaded = { vk, lines: [], arena, [Symbol.dispose]() {} };
const { instance } = createInstance(loaded);
const device = createDevice(loaded, physicalDevices(loaded, instance)[0]!).device as VkDevice;
const slot = () => arena.pointer(arena.alloc(8));
const pPool = slot();
vk.vkCreateCommandPool(
  device,
  writeStruct(arena, "VkCommandPoolCreateInfo", { queueFamilyIndex: 0 }),
  null,
  pPool,
);
const WORKERS = 2;
const COMMANDS = 100_000;
const pCb = slot();
vk.vkAllocateCommandBuffers(
  device,
  writeStruct(arena, "VkCommandBufferAllocateInfo", {
    commandPool: readPointer(pPool, 0) as VkCommandPool,
    commandBufferCount: 1 + WORKERS,
  }),
  pCb,
);
const cbs = Array.from({ length: 1 + WORKERS }, (_, i) => readPointer(pCb, 8 * i) as VkCommandBuffer);
const cb = cbs[0]!;
const begin = vk.vkGetInstanceProcAddr(instance, arena.cstring("vkBeginCommandBuffer")) as Deno.PointerObject;
const setLineWidth = vk.vkGetDeviceProcAddr(device, arena.cstring("vkCmdSetLineWidth")) as Deno.PointerObject;
// The main thread's calls through those pointers run the layer.
const mainResult = new Deno.UnsafeFnPointer(begin as Deno.PointerObject<never>, {
  parameters: ["pointer", "pointer"],
  result: "i32",
}).call(cb, writeStruct(arena, "VkCommandBufferBeginInfo", {}));
new Deno.UnsafeFnPointer(setLineWidth as Deno.PointerObject<never>, {
  parameters: ["pointer", "f32"],
  result: "void",
}).call(cb, 2);
vk.vkEndCommandBuffer(cb);
const main = [...seen];
seen.length = 0;
env.clearCallLog();
// [workers done, then each Worker's vkBeginCommandBuffer result]
const shared = new SharedArrayBuffer(4 * (1 + WORKERS));
const workers = cbs.slice(1).map((commandBuffer, index) => {
  const worker = new Worker(new URL("./ts_layer_worker.ts", import.meta.url), { type: "module" });
  const job: WorkerJob = {
    begin: BigInt(Deno.UnsafePointer.value(begin)),
    setLineWidth: BigInt(Deno.UnsafePointer.value(setLineWidth)),
    commandBuffer: BigInt(Deno.UnsafePointer.value(commandBuffer)),
    commands: COMMANDS,
    index,
    shared,
  };
  worker.postMessage(job);
  return worker;
});
const start = performance.now();
const flags = new Int32Array(shared);
let wait: string = "ok";
while (Atomics.load(flags, 0) < WORKERS && wait !== "timed-out") {
  wait = Atomics.wait(flags, 0, Atomics.load(flags, 0), 60_000);
  if (wait === "not-equal") wait = "ok";
}
const ms = Math.round(performance.now() - start);
const results = [...flags.slice(1)];
for (const worker of workers) worker.terminate();
const log = env.callLog();
const recorded = cbs.slice(1).map((commandBuffer) => {
  const tag = `vkCmdSetLineWidth commandBuffer=0x${Deno.UnsafePointer.value(commandBuffer).toString(16)} `;
  return log.filter((l) => l.includes(tag)).length;
});
console.log(JSON.stringify({ wait, ms, mainResult, main, results, seen, recorded, expected: COMMANDS }));
vk.vkDestroyDevice(device, null);
vk.vkDestroyInstance(instance, null);
