/**
 * Devices: created on the owning driver, the loader's device table stamped into the VkDevice and into
 * every VkQueue and VkCommandBuffer, device commands going straight to the driver, the Volk-style table.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { readPointer } from "../../ffi/memory.ts";
import { writeStruct } from "../../api/structs.ts";
import { MockEnvironment } from "../support/mock.ts";
import {
  addr,
  calls,
  createDevice,
  createInstance,
  fields,
  firstWord,
  load,
  type Loaded,
  physicalDevices,
} from "../support/chain.ts";
import { asHandle, readHandle } from "../../vk/handle.ts";
import { VK_COMMAND_BUFFER_LEVEL_PRIMARY, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT } from "../../mod.ts";

const ICD_LOADER_MAGIC = 0x01cdc0den;
const VK_ERROR_INITIALIZATION_FAILED = -3;
const VK_ERROR_EXTENSION_NOT_PRESENT = -7;

async function setup(config: Parameters<MockEnvironment["addDriver"]>[0] = {}) {
  const env = await MockEnvironment.create();
  await env.addDriver({
    name: "drv",
    physicalDevices: [{ queueFamilies: [{ flags: 7, count: 4 }] }],
    ...config,
  });
  const l = load(env.snapshot());
  const { instance } = createInstance(l);
  const [pd] = physicalDevices(l, instance);
  return {
    env,
    l,
    instance,
    pd: pd!,
    [Symbol.dispose]() {
      l.vk.vkDestroyInstance(instance, null);
      l[Symbol.dispose]();
      env.dispose();
    },
  };
}

function commandBuffers(l: Loaded, device: Deno.PointerValue, n: number) {
  const { arena, vk } = l;
  const poolOut = arena.pointer(arena.alloc(8));
  const poolInfo = writeStruct(arena, "VkCommandPoolCreateInfo", { queueFamilyIndex: 0 });
  assertEquals(vk.vkCreateCommandPool(asHandle("VkDevice", device)!, poolInfo, null, poolOut), 0);
  const pool = readHandle("VkCommandPool", poolOut, 0)!;
  const info = writeStruct(arena, "VkCommandBufferAllocateInfo", {
    commandPool: pool,
    level: VK_COMMAND_BUFFER_LEVEL_PRIMARY,
    commandBufferCount: n,
  });
  const out = arena.pointer(arena.alloc(8 * n));
  assertEquals(vk.vkAllocateCommandBuffers(asHandle("VkDevice", device)!, info, out), 0);
  return { pool, buffers: Array.from({ length: n }, (_, i) => readPointer(out, i * 8)) };
}

Deno.test("vkCreateDevice runs on the owning driver; the VkDevice is the driver's, stamped with the loader's table", async () => {
  using t = await setup();
  const { result, device } = createDevice(t.l, t.pd);
  assertEquals(result, 0);
  const line = calls(t.env.callLog(), "vkCreateDevice")[0]!;
  assertEquals(BigInt(fields(line).device!), addr(device));
  const driverPd = BigInt(fields(line).physicalDevice!);
  assert(driverPd !== addr(t.pd), "the driver got the loader's physical device");
  const table = firstWord(device);
  assert(table !== ICD_LOADER_MAGIC && table !== 0n);
  // Not the instance table: the device has its own.
  assert(table !== firstWord(t.instance));
  t.l.vk.vkDestroyDevice(device, null);
  assertEquals(calls(t.env.callLog(), "vkDestroyDevice").map((x) => BigInt(fields(x).device!)), [
    addr(device),
  ]);
});

Deno.test("queues from vkGetDeviceQueue and vkGetDeviceQueue2 carry the device's table", async () => {
  using t = await setup();
  const { device } = createDevice(t.l, t.pd, { queues: 2 });
  const { arena, vk } = t.l;
  const out = arena.pointer(arena.alloc(8));
  vk.vkGetDeviceQueue(device, 0, 1, out);
  const q1 = readHandle("VkQueue", out, 0)!;
  assertEquals(firstWord(q1), firstWord(device));
  const info = writeStruct(arena, "VkDeviceQueueInfo2", { queueFamilyIndex: 0, queueIndex: 0 });
  vk.vkGetDeviceQueue2(device, info, out);
  const q0 = readPointer(out, 0);
  assertEquals(firstWord(q0), firstWord(device));
  // Queue commands dispatch through the stamped word to the driver.
  assertEquals(vk.vkQueueWaitIdle(q1), 0);
  assertEquals(calls(t.env.callLog(), "vkQueueWaitIdle").map((x) => BigInt(fields(x).queue!)), [addr(q1)]);
  vk.vkDestroyDevice(device, null);
});

Deno.test("command buffers from vkAllocateCommandBuffers carry the device's table and record on the driver", async () => {
  using t = await setup();
  const { device } = createDevice(t.l, t.pd);
  const { vk, arena } = t.l;
  const { pool, buffers } = commandBuffers(t.l, device, 3);
  for (const cb of buffers) assertEquals(firstWord(cb), firstWord(device));
  const cb = asHandle("VkCommandBuffer", buffers[1]!)!;
  assertEquals(
    vk.vkBeginCommandBuffer(
      cb,
      writeStruct(arena, "VkCommandBufferBeginInfo", { flags: VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT }),
    ),
    0,
  );
  vk.vkCmdDraw(cb, 3, 1, 0, 0);
  vk.vkCmdSetLineWidth(cb, 2.5);
  assertEquals(vk.vkEndCommandBuffer(cb), 0);
  const log = t.env.callLog();
  assertEquals(fields(calls(log, "vkCmdDraw")[0]!), {
    commandBuffer: fields(calls(log, "vkCmdDraw")[0]!).commandBuffer!,
    vertexCount: "3",
    instanceCount: "1",
    firstVertex: "0",
    firstInstance: "0",
  });
  assertEquals(BigInt(fields(calls(log, "vkCmdDraw")[0]!).commandBuffer!), addr(cb));
  assertEquals(fields(calls(log, "vkCmdSetLineWidth")[0]!).lineWidth, "2.5");
  vk.vkDestroyCommandPool(device, pool, null);
  vk.vkDestroyDevice(device, null);
});

Deno.test("a driver whose VkDevice lacks ICD_LOADER_MAGIC fails vkCreateDevice with a log line", async () => {
  using t = await setup({ loaderMagic: false });
  const { result, device } = createDevice(t.l, t.pd);
  assertEquals(result, VK_ERROR_INITIALIZATION_FAILED);
  assertEquals(device, null);
  assert(
    t.l.lines.some((x) => x.includes("ICD_LOADER_MAGIC") && x.includes("drv.json")),
    t.l.lines.join("\n"),
  );
  // The driver's object is not leaked.
  assertEquals(calls(t.env.callLog(), "vkDestroyDevice").length, 1);
});

Deno.test("driver failures of vkCreateDevice reach the application unchanged", async () => {
  using t = await setup({ createDeviceResult: VK_ERROR_INITIALIZATION_FAILED });
  assertEquals(createDevice(t.l, t.pd).result, VK_ERROR_INITIALIZATION_FAILED);
  using u = await setup();
  assertEquals(
    createDevice(u.l, u.pd, { extensions: ["VK_KHR_not_real"] }).result,
    VK_ERROR_EXTENSION_NOT_PRESENT,
  );
});

Deno.test("the device table lists what the device provides, extension commands only when enabled", async () => {
  using t = await setup({ physicalDevices: [{ extensions: ["VK_KHR_swapchain"] }] });
  const plain = createDevice(t.l, t.pd);
  const withSwapchain = createDevice(t.l, t.pd, { extensions: ["VK_KHR_swapchain"] });
  const a = t.l.vk.deviceTable(plain.device!);
  const b = t.l.vk.deviceTable(withSwapchain.device!);
  for (const name of ["vkCmdDraw", "vkQueueWaitIdle", "vkDestroyDevice", "vkGetDeviceQueue"]) {
    assert(typeof (a as Record<string, unknown>)[name] === "function", name);
  }
  assert(!("vkCreateSwapchainKHR" in a));
  assert(typeof b.vkCreateSwapchainKHR === "function");
  // Commands the driver does not implement are absent.
  assert(!("vkCmdDispatch" in a));
  // The same functions as the command object's.
  assertEquals(a.vkCmdDraw, t.l.vk.vkCmdDraw);
  assertEquals(a.vkCmdDraw, b.vkCmdDraw);
  t.l.vk.vkDestroyDevice(plain.device, null);
  t.l.vk.vkDestroyDevice(withSwapchain.device, null);
});

Deno.test("a device extension no driver or layer offers fails before the driver is called", async () => {
  using t = await setup({ physicalDevices: [{ extensions: ["VK_KHR_swapchain"] }] });
  t.env.clearCallLog();
  assertEquals(
    createDevice(t.l, t.pd, { extensions: ["VK_KHR_swapchain", "VK_EXT_not_here"] }).result,
    VK_ERROR_EXTENSION_NOT_PRESENT,
  );
  assertEquals(calls(t.env.callLog(), "vkCreateDevice"), []);
  assert(t.l.lines.some((x) => x.includes('"VK_EXT_not_here"')));
  const { result, device } = createDevice(t.l, t.pd, { extensions: ["VK_KHR_swapchain"] });
  assertEquals(result, 0);
  assertEquals(fields(calls(t.env.callLog(), "vkCreateDevice")[0]!).exts, "VK_KHR_swapchain");
  t.l.vk.vkDestroyDevice(device, null);
});
