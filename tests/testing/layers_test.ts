/** Layers over a mock device: the Khronos validation layer (installed) and vkdeno's TypeScript layers. */
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { enumerate, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, VkScope, Vulkan, writeStruct } from "../../mod.ts";
import { installLayers, objectLifetimesLayer } from "../../layers/mod.ts";
import { MockDriver, mockEnvironment } from "../../testing/mod.ts";
import { zeroSizeBufferReports } from "../../examples/validation.ts";

const VALIDATION = "/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json";
const noValidation = (() => {
  try {
    return !Deno.statSync(VALIDATION).isFile;
  } catch {
    return true;
  }
})();

Deno.test({
  name: "the Khronos validation layer runs over a mock device and reports a zero-size buffer",
  ignore: noValidation,
  fn() {
    using mock = new MockDriver({ onProblem: () => {} });
    using env = mockEnvironment({ vars: { VK_LAYER_PATH: "/usr/share/vulkan/explicit_layer.d" } });
    using vk = Vulkan.load({ drivers: [mock], env: env.env });
    const reports = zeroSizeBufferReports(vk);
    assert(reports.some((r) => r.id === "VUID-VkBufferCreateInfo-size-00912"), JSON.stringify(reports));
    assertEquals(mock.counts, { instances: 0, devices: 0, lostDevices: 0 });
  },
});

Deno.test("the TypeScript object-lifetimes layer over a mock reports a leaked buffer at vkDestroyDevice", () => {
  using mock = new MockDriver({ onProblem: () => {} });
  using env = mockEnvironment();
  using base = Vulkan.load({ drivers: [mock], env: env.env });
  const messages: string[] = [];
  using vk = installLayers(base, { layers: [objectLifetimesLayer], onMessage: (m) => messages.push(m.id) });
  {
    using scope = new VkScope(vk);
    const a = scope.arena;
    const instance = scope.create("vkCreateInstance", [writeStruct(a, "VkInstanceCreateInfo", {}), null]);
    const [gpu] = enumerate(vk.vkEnumeratePhysicalDevices, [instance]);
    const pQueueCreateInfos = [{ queueFamilyIndex: 0, pQueuePriorities: [1] }];
    const device = scope.create("vkCreateDevice", [
      gpu!,
      writeStruct(a, "VkDeviceCreateInfo", { pQueueCreateInfos }),
      null,
    ]);
    vk.vkCreateBuffer(
      device,
      writeStruct(a, "VkBufferCreateInfo", { size: 16n, usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT }),
      null,
      a.pointer(a.alloc(8)),
    );
  }
  assertEquals(messages, ["ObjectLifetimes-Leak"]);
  assert(mock.problems.some((p) => p.includes("VkBuffer x1")));
});
