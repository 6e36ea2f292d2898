/**
 * A Worker's side of tests/testing/threads_test.ts: a loader of its own over a mock driver living in the
 * main isolate (given its `vk_icdGetInstanceProcAddr` address), which makes an instance and a device and
 * records into a command buffer, destroys it all, then reports the device's name.
 *
 * @module
 */
import { allocStruct, enumerate, readStruct, VkScope, Vulkan, writeStruct } from "../../mod.ts";

const worker = self as unknown as {
  onmessage: (event: MessageEvent<{ gipa: bigint; root: string }>) => void;
  postMessage(message: string): void;
};

worker.onmessage = (event) => {
  // Everything is destroyed before the answer goes out: the main isolate may dispose the mock on it.
  worker.postMessage(run(event.data));
};

function run(data: { gipa: bigint; root: string }): string {
  const event = { data };
  const driver = {
    name: "main-thread-mock",
    getInstanceProcAddr: Deno.UnsafePointer.create(event.data.gipa)!,
  };
  using vk = Vulkan.load({ drivers: [driver], env: { vars: {}, elevated: false, root: event.data.root } });
  using scope = new VkScope(vk);
  const a = scope.arena;
  const instance = scope.create("vkCreateInstance", [writeStruct(a, "VkInstanceCreateInfo", {}), null]);
  const [gpu] = enumerate(vk.vkEnumeratePhysicalDevices, [instance]);
  const props = allocStruct(a, "VkPhysicalDeviceProperties");
  vk.vkGetPhysicalDeviceProperties(gpu!, props);
  const pQueueCreateInfos = [{ queueFamilyIndex: 0, pQueuePriorities: [1] }];
  const device = scope.create("vkCreateDevice", [
    gpu!,
    writeStruct(a, "VkDeviceCreateInfo", { pQueueCreateInfos }),
    null,
  ]);
  const commandPool = scope.create("vkCreateCommandPool", [
    device,
    writeStruct(a, "VkCommandPoolCreateInfo", {}),
    null,
  ]);
  const info = writeStruct(a, "VkCommandBufferAllocateInfo", { commandPool, commandBufferCount: 1 });
  const cmd = scope.createMany("vkAllocateCommandBuffers", [device, info], 1)[0]!;
  vk.vkBeginCommandBuffer(cmd, writeStruct(a, "VkCommandBufferBeginInfo", {}));
  for (let i = 0; i < 100; i++) vk.vkCmdSetLineWidth(cmd, 1);
  vk.vkEndCommandBuffer(cmd);
  return readStruct("VkPhysicalDeviceProperties", props).deviceName;
}
