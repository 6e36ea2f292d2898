/**
 * Checked mode is off by default and then changes nothing on the hot path (docs/behaviour.md V08): a device
 * command is the very native dispatch stub, not a wrapper. `VKDENO_CHECKED` of the loader's environment turns
 * it on (not `0`), the `checked` option wins over it, and then device commands check their handles; destroying
 * a pool or a device ends what was made from it.
 */

import { deepStrictEqual as assertEquals, ok as assert, throws as assertThrows } from "node:assert/strict";
import { COMMAND_INDEX, COMMANDS } from "../vk/generated/commands.ts";
import { commandDef } from "../vk/command_ffi.ts";
import {
  Arena,
  asHandle,
  readPointer,
  VK_COMMAND_BUFFER_LEVEL_PRIMARY,
  Vulkan,
  writeStruct,
} from "../mod.ts";
import type { VkCommandBuffer, VkCommandPool, VkDevice, VkInstance, VkQueue } from "../mod.ts";
import { MockDriver, mockEnvironment } from "../testing/mod.ts";
import { loaderOf } from "../vulkan.ts";

const env = (vars: Record<string, string>) => ({ vars, elevated: false });

function stubOf(vk: ReturnType<typeof Vulkan.load>, name: string): unknown {
  const info = COMMANDS[COMMAND_INDEX[name]!]!;
  return loaderOf(vk).stubs.bindDispatch(info.index, commandDef(info));
}

Deno.test("with checked mode off a device command is the bare dispatch stub; on, it checks first", () => {
  using off = Vulkan.load({ env: env({}) });
  assertEquals(off.checked, false);
  assert(off.vkCmdSetLineWidth === stubOf(off, "vkCmdSetLineWidth"));
  assert(off.vkCreateBuffer === stubOf(off, "vkCreateBuffer"));
  // Commands whose structs checked mode scans for handles too.
  assert(off.vkUpdateDescriptorSets === stubOf(off, "vkUpdateDescriptorSets"));
  assert(off.vkQueueSubmit === stubOf(off, "vkQueueSubmit"));
  using on = Vulkan.load({ env: env({}), checked: true });
  assert(on.vkCmdSetLineWidth !== stubOf(on, "vkCmdSetLineWidth"));
  assert(on.vkUpdateDescriptorSets !== stubOf(on, "vkUpdateDescriptorSets"));
  assertThrows(() => on.vkDeviceWaitIdle(asHandle("VkDevice", Deno.UnsafePointer.create(0x40n)!)), {
    name: "TypeError",
    message: "vkDeviceWaitIdle: device 0x40 is not a VkDevice of this loader",
  });
});

Deno.test("VKDENO_CHECKED of the loader's environment turns checked mode on; the option wins over it", () => {
  for (const [value, expected] of [["1", true], ["yes", true], ["0", false], ["", false]] as const) {
    using vk = Vulkan.load({ env: env({ VKDENO_CHECKED: value }) });
    assertEquals(vk.checked, expected, `VKDENO_CHECKED=${JSON.stringify(value)}`);
  }
  using forced = Vulkan.load({ env: env({ VKDENO_CHECKED: "1" }), checked: false });
  assertEquals(forced.checked, false);
});

const isolated = mockEnvironment();
globalThis.addEventListener("unload", () => isolated.remove());

Deno.test("checked mode: destroying a pool ends its command buffers, destroying a device ends all made from it", () => {
  using mock = new MockDriver({ onProblem: () => {} });
  using vk = Vulkan.load({ drivers: [mock], env: isolated.env, checked: true });
  using a = new Arena();
  const out = a.pointer(a.alloc(8 * 4));
  const made = <T>(result: unknown) => (assertEquals(result, 0), readPointer(out, 0) as T);
  const instance = made<VkInstance>(
    vk.vkCreateInstance(writeStruct(a, "VkInstanceCreateInfo", {}), null, out),
  );
  const count = new Uint32Array(1);
  count[0] = 1;
  vk.vkEnumeratePhysicalDevices(instance, Deno.UnsafePointer.of(count), out);
  const gpu = readPointer(out, 0) as never;
  const pQueueCreateInfos = [{ queueFamilyIndex: 0, pQueuePriorities: [1] }];
  const device = made<VkDevice>(
    vk.vkCreateDevice(gpu, writeStruct(a, "VkDeviceCreateInfo", { pQueueCreateInfos }), null, out),
  );
  vk.vkGetDeviceQueue(device, 0, 0, out);
  const queue = readPointer(out, 0) as VkQueue;
  const pool = () =>
    made<VkCommandPool>(
      vk.vkCreateCommandPool(device, writeStruct(a, "VkCommandPoolCreateInfo", {}), null, out),
    );
  const commandBuffer = (commandPool: VkCommandPool) => {
    const info = { commandPool, level: VK_COMMAND_BUFFER_LEVEL_PRIMARY, commandBufferCount: 1 };
    return made<VkCommandBuffer>(
      vk.vkAllocateCommandBuffers(device, writeStruct(a, "VkCommandBufferAllocateInfo", info), out),
    );
  };
  const begin = writeStruct(a, "VkCommandBufferBeginInfo", {});
  // How it ended, as the error says: with its pool or device, by the command that destroyed that.
  const destroyed = (what: string, how = "") => ({
    name: "TypeError",
    message: new RegExp(`^${what} 0x[0-9a-f]+ was destroyed${how.replace(/[()]/g, "\\$&")}$`),
  });
  const hex = (h: unknown) => `0x${Deno.UnsafePointer.value(h as Deno.PointerValue).toString(16)}`;

  // A destroyed pool ends its command buffers; the device and another pool's command buffer live on.
  const first = pool();
  const ended = commandBuffer(first);
  const second = pool();
  const kept = commandBuffer(second);
  vk.vkDestroyCommandPool(device, first, null);
  assertThrows(
    () => vk.vkBeginCommandBuffer(ended, begin),
    destroyed(
      "vkBeginCommandBuffer: commandBuffer",
      ` with its VkCommandPool ${hex(first)} (vkDestroyCommandPool)`,
    ),
  );
  assertEquals(vk.vkBeginCommandBuffer(kept, begin), 0);
  vk.vkCmdSetLineWidth(kept, 1);
  assertEquals(vk.vkEndCommandBuffer(kept), 0);

  // A destroyed device ends everything made from it: its queue, its pools' command buffers.
  vk.vkDestroyDevice(device, null);
  const withDevice = ` with its VkDevice ${hex(device)} (vkDestroyDevice)`;
  assertThrows(
    () => vk.vkCmdSetLineWidth(kept, 1),
    destroyed("vkCmdSetLineWidth: commandBuffer", withDevice),
  );
  assertThrows(
    () => vk.vkBeginCommandBuffer(kept, begin),
    destroyed("vkBeginCommandBuffer: commandBuffer", withDevice),
  );
  assertThrows(() => vk.vkQueueWaitIdle(queue), destroyed("vkQueueWaitIdle: queue", withDevice));
  assertThrows(() => vk.vkDeviceWaitIdle(device), destroyed("vkDeviceWaitIdle: device"));
  vk.vkDestroyInstance(instance, null);
});
