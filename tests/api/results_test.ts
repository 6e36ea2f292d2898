/**
 * Negative `VkResult`s from the driver, down to the first one (`VK_ERROR_OUT_OF_HOST_MEMORY`, -1), throw a
 * `VkError` naming the command and the result, on each shape of compiled command: a direct call, a struct in
 * with a handle out, a two-call enumeration.
 */

import { deepStrictEqual as assertEquals, ok as assert, throws as assertThrows } from "node:assert/strict";
import {
  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
  VK_ERROR_OUT_OF_HOST_MEMORY,
  VkApi,
  VkError,
  Vulkan,
} from "../../mod.ts";
import { MockDriver, mockEnvironment } from "../../testing/mod.ts";

const isolated = mockEnvironment();
globalThis.addEventListener("unload", () => isolated.remove());

/** Asserts `call` throws a VkError for `VK_ERROR_OUT_OF_HOST_MEMORY` naming `command`. */
function throwsOutOfHostMemory(call: () => unknown, command: string): void {
  assertThrows(call, (e) => {
    assert(e instanceof VkError, String(e));
    assertEquals([e.result, e.code], ["VK_ERROR_OUT_OF_HOST_MEMORY", -1]);
    assert(e.message.includes(command), e.message);
    return true;
  });
}

Deno.test("VK_ERROR_OUT_OF_HOST_MEMORY (-1) throws a VkError naming the command, whatever the command's shape", () => {
  assertEquals(VK_ERROR_OUT_OF_HOST_MEMORY, -1);
  using mock = new MockDriver({ onProblem: () => {} });
  using vk = Vulkan.load({ drivers: [mock], env: isolated.env });
  using api = VkApi.of(vk).scope();
  const instance = api.createInstance({});
  const [gpu] = api.enumeratePhysicalDevices(instance);
  const device = api.createDevice(gpu!, {
    pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
  });
  const cases: [string, () => unknown][] = [
    ["vkDeviceWaitIdle", () => api.deviceWaitIdle(device)],
    [
      "vkCreateBuffer",
      () => api.createBuffer(device, { size: 64n, usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT }),
    ],
    ["vkEnumerateDeviceExtensionProperties", () => api.enumerateDeviceExtensionProperties(gpu!, null)],
  ];
  for (const [command, call] of cases) {
    const fault = mock.fail(command as "vkDeviceWaitIdle", VK_ERROR_OUT_OF_HOST_MEMORY, { times: 1 });
    throwsOutOfHostMemory(call, command);
    assertEquals(fault.hits, 1, command);
    call(); // the next call succeeds: the fault was one call
  }
});
