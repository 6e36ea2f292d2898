/**
 * End to end on a real driver: Mesa lavapipe (interface 5, Vulkan 1.3), found through VK_DRIVER_FILES.
 * Instance, physical device queries through the native stubs, a device, a queue, a recorded and
 * submitted command buffer, a fence wait.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { readU32 } from "../../ffi/memory.ts";
import { readStruct, writeStruct } from "../../api/structs.ts";
import {
  addr,
  createDevice,
  createInstance,
  firstWord,
  load,
  physicalDevices,
  u32Slot,
} from "../support/chain.ts";
import { readHandle } from "../../vk/handle.ts";
import { VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT } from "../../mod.ts";
import { hasLavapipe, LAVAPIPE } from "../support/lavapipe.ts";

const env = { vars: { VK_DRIVER_FILES: LAVAPIPE }, elevated: false };

Deno.test({
  name: "lavapipe: instance, physical device, device, queue submit",
  ignore: !hasLavapipe,
  fn() {
    using l = load(env);
    const { vk, arena } = l;
    const { result, instance } = createInstance(l, { apiVersion: "1.3.0" });
    assertEquals(result, 0);
    assert(
      l.lines.some((x) => x.includes("lvp_icd") && x.includes("negotiated interface")),
      l.lines.join("\n"),
    );
    const pds = physicalDevices(l, instance);
    assertEquals(pds.length, 1);
    const pd = pds[0]!;

    const driverProps = writeStruct(arena, "VkPhysicalDeviceDriverProperties", {});
    const props2 = writeStruct(arena, "VkPhysicalDeviceProperties2", { pNext: driverProps });
    vk.vkGetPhysicalDeviceProperties2(pd, props2);
    const props = readStruct("VkPhysicalDeviceProperties2", props2);
    const core = props.properties as Record<string, unknown>;
    assert(String(core.deviceName).startsWith("llvmpipe"), String(core.deviceName));
    assertEquals(readU32(driverProps, 16), 13); // VK_DRIVER_ID_MESA_LLVMPIPE

    const groups = u32Slot(l);
    assertEquals(vk.vkEnumeratePhysicalDeviceGroups(instance, groups.pointer, null), 0);
    assertEquals(groups.read(), 1);

    const { result: dr, device } = createDevice(l, pd);
    assertEquals(dr, 0);
    const queueOut = arena.pointer(arena.alloc(8));
    vk.vkGetDeviceQueue(device, 0, 0, queueOut);
    const queue = readHandle("VkQueue", queueOut, 0)!;
    assertEquals(firstWord(queue), firstWord(device));

    const poolOut = arena.pointer(arena.alloc(8));
    assertEquals(
      vk.vkCreateCommandPool(
        device,
        writeStruct(arena, "VkCommandPoolCreateInfo", { queueFamilyIndex: 0 }),
        null,
        poolOut,
      ),
      0,
    );
    const pool = readHandle("VkCommandPool", poolOut, 0)!;
    const cbOut = arena.pointer(arena.alloc(8));
    const allocInfo = writeStruct(arena, "VkCommandBufferAllocateInfo", {
      commandPool: pool,
      commandBufferCount: 1,
    });
    assertEquals(vk.vkAllocateCommandBuffers(device, allocInfo, cbOut), 0);
    const cb = readHandle("VkCommandBuffer", cbOut, 0)!;
    assertEquals(firstWord(cb), firstWord(device));
    assertEquals(
      vk.vkBeginCommandBuffer(
        cb,
        writeStruct(arena, "VkCommandBufferBeginInfo", {
          flags: VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
        }),
      ),
      0,
    );
    const TOP = VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT;
    vk.vkCmdPipelineBarrier(cb, TOP, TOP, 0, 0, null, 0, null, 0, null);
    assertEquals(vk.vkEndCommandBuffer(cb), 0);

    const fenceOut = arena.pointer(arena.alloc(8));
    assertEquals(vk.vkCreateFence(device, writeStruct(arena, "VkFenceCreateInfo", {}), null, fenceOut), 0);
    const fence = readHandle("VkFence", fenceOut, 0)!;
    const submit = writeStruct(arena, "VkSubmitInfo", { commandBufferCount: 1, pCommandBuffers: cbOut });
    assertEquals(vk.vkQueueSubmit(queue, 1, submit, fence), 0);
    assertEquals(vk.vkWaitForFences(device, 1, fenceOut, 1, 5_000_000_000n), 0);
    assertEquals(vk.vkGetFenceStatus(device, fence), 0);
    assert(addr(vk.vkGetDeviceProcAddr(device, "vkCmdDraw")) !== 0n);

    vk.vkDestroyFence(device, fence, null);
    vk.vkDestroyCommandPool(device, pool, null);
    assertEquals(vk.vkDeviceWaitIdle(device), 0);
    vk.vkDestroyDevice(device, null);
    vk.vkDestroyInstance(instance, null);
  },
});

Deno.test({
  name: "lavapipe: a Vulkan 1.0 application still gets the *2 queries (through the extension or the loader)",
  ignore: !hasLavapipe,
  fn() {
    using l = load(env);
    const { instance } = createInstance(l, { apiVersion: "1.0.0" });
    const [pd] = physicalDevices(l, instance);
    const features2 = writeStruct(l.arena, "VkPhysicalDeviceFeatures2", {});
    l.vk.vkGetPhysicalDeviceFeatures2(pd!, features2);
    // lavapipe supports robustBufferAccess: the first VkBool32 of the embedded VkPhysicalDeviceFeatures.
    assertEquals(readU32(features2, 16), 1);
    const mem2 = writeStruct(l.arena, "VkPhysicalDeviceMemoryProperties2", {});
    l.vk.vkGetPhysicalDeviceMemoryProperties2(pd!, mem2);
    assert(readU32(mem2, 16) > 0, "no memory types");
    const count = u32Slot(l);
    l.vk.vkGetPhysicalDeviceQueueFamilyProperties2(pd!, count.pointer, null);
    assert(count.read() >= 1);
    l.vk.vkDestroyInstance(instance, null);
  },
});
