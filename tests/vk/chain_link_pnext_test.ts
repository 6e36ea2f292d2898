// A pNext chain given as a list of structs is linked in the list's order (docs/behaviour.md V16). Structs read
// back through VkApi carry a null pNext, not the address of the chain their command filled in memory the next
// call reuses, so spread into a new chain they are linked afresh; a link's null pNext is no chain of its own
// wherever it sits in the list.
import { deepStrictEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import { Arena, readChain, VkApi, Vulkan, writeStruct } from "../../mod.ts";
import { MockDriver, mockEnvironment } from "../../testing/mod.ts";

const isolated = mockEnvironment();
globalThis.addEventListener("unload", () => isolated.remove());

Deno.test("a struct read back through VkApi and spread into a new chain is linked afresh, in the list's order", () => {
  for (const checked of [false, true]) {
    using mock = new MockDriver({ onProblem: () => {} });
    using raw = Vulkan.load({ drivers: [mock], env: isolated.env, checked });
    const vk = VkApi.of(raw);
    const instance = vk.createInstance({});
    const [gpu] = vk.enumeratePhysicalDevices(instance);
    const features = vk.getPhysicalDeviceFeatures2(gpu!, [
      "VkPhysicalDeviceVulkan11Features",
      "VkPhysicalDeviceVulkan12Features",
    ]);
    const { VkPhysicalDeviceVulkan11Features: f11, VkPhysicalDeviceVulkan12Features: f12 } = features.chain;
    // The query's chain ran on from the 1.1 features to the 1.2 ones, in VkApi's memory: not handed out.
    assertEquals([features.pNext, f11.pNext, f12.pNext], [null, null, null]);
    using arena = new Arena();
    const queues = [{ queueFamilyIndex: 0, pQueuePriorities: [1] }];
    const info = writeStruct(arena, "VkDeviceCreateInfo", {
      pQueueCreateInfos: queues,
      pNext: [
        { type: "VkPhysicalDeviceVulkan12Features", ...f12 },
        { type: "VkPhysicalDeviceVulkan11Features", ...f11 },
      ],
    });
    assertEquals(readChain(info, "VkDeviceCreateInfo").map((l) => l.type), [
      "VkPhysicalDeviceVulkan12Features",
      "VkPhysicalDeviceVulkan11Features",
    ]);
    const device = vk.createDevice(gpu!, {
      pQueueCreateInfos: queues,
      pNext: { type: "VkPhysicalDeviceVulkan11Features", ...f11 },
    });
    vk.destroyDevice(device);
    vk.destroyInstance(instance);
  }
});

Deno.test("a link's own chain goes on only from the list's last link", () => {
  using arena = new Arena();
  const queues = [{ queueFamilyIndex: 0, pQueuePriorities: [1] }];
  assertThrows(
    () =>
      writeStruct(arena, "VkDeviceCreateInfo", {
        pQueueCreateInfos: queues,
        pNext: [
          { type: "VkPhysicalDeviceVulkan11Features", pNext: { type: "VkPhysicalDeviceVulkan13Features" } },
          { type: "VkPhysicalDeviceVulkan12Features" },
        ],
      }),
    {
      name: "TypeError",
      message:
        'Cannot link pNext of "VkPhysicalDeviceVulkan11Features": it is given both in a list and as "pNext"',
    },
  );
  const info = writeStruct(arena, "VkDeviceCreateInfo", {
    pQueueCreateInfos: queues,
    pNext: [
      { type: "VkPhysicalDeviceVulkan11Features", pNext: null },
      { type: "VkPhysicalDeviceVulkan12Features", pNext: { type: "VkPhysicalDeviceVulkan13Features" } },
    ],
  });
  assertEquals(readChain(info, "VkDeviceCreateInfo").map((l) => l.type), [
    "VkPhysicalDeviceVulkan11Features",
    "VkPhysicalDeviceVulkan12Features",
    "VkPhysicalDeviceVulkan13Features",
  ]);
});
