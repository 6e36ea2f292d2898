// VkApi knows parents in plain mode: destroying a pool, a device or an instance through it ends their children
// for its checks (a later use throws naming the command and the destroyed parent instead of handing the driver
// freed memory), a scope never destroys a child after its parent, and getDeviceQueue refuses a queue the device
// was not created with. Each case runs in a child process: without these rules it dies by SIGSEGV.
import { ok as assert, strictEqual as assertEquals } from "node:assert/strict";
import { hasLavapipe, LAVAPIPE } from "../support/lavapipe.ts";

const MOD = new URL("../../mod.ts", import.meta.url).href;

/** Runs `body` after a device on lavapipe is made through `vk` (a VkApi); its stdout and exit code. */
async function run(body: string, layers: readonly string[] = []): Promise<{ code: number; out: string }> {
  const script = `
import { makeApiVersion, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, VkApi, Vulkan } from ${JSON.stringify(MOD)};
const raw = Vulkan.load();
const vk = VkApi.of(raw);
const instance = vk.createInstance({
  pApplicationInfo: { apiVersion: makeApiVersion(1, 3) },
  ppEnabledLayerNames: ${JSON.stringify(layers)},
});
const [gpu] = vk.enumeratePhysicalDevices(instance);
const device = vk.createDevice(gpu!, { pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }] });
const attempt = (what: () => unknown) => {
  try {
    what();
    console.log("no error");
  } catch (e) {
    console.log(\`threw \${(e as Error).name}: \${(e as Error).message}\`);
  }
};
void VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
${body}
`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--ext=ts", script],
    env: { VK_DRIVER_FILES: LAVAPIPE, NODEVICE_SELECT: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, out: new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr) };
}

Deno.test({
  name: "a command buffer used after its pool was destroyed throws naming the command and the pool",
  ignore: !hasLavapipe,
  fn: async () => {
    const { code, out } = await run(`
const pool = vk.createCommandPool(device, { queueFamilyIndex: 0 });
const [cb] = vk.allocateCommandBuffers(device, { commandPool: pool, commandBufferCount: 1 });
vk.destroyCommandPool(device, pool);
attempt(() => vk.beginCommandBuffer(cb!, {}));
attempt(() => vk.cmdSetLineWidth(cb!, 1));
vk.destroyDevice(device);
vk.destroyInstance(instance);
`);
    assertEquals(code, 0, out);
    const lines = out.trim().split("\n");
    assert(
      /^threw TypeError: vkBeginCommandBuffer: commandBuffer 0x[0-9a-f]+ .*VkCommandPool 0x[0-9a-f]+/.test(
        lines[0]!,
      ),
      out,
    );
    assert(/^threw TypeError: vkCmdSetLineWidth: commandBuffer .*VkCommandPool/.test(lines[1]!), out);
  },
});

Deno.test({
  name: "destroying a device ends its queues and children; destroying an instance ends its physical devices",
  ignore: !hasLavapipe,
  fn: async () => {
    const { code, out } = await run(`
const queue = vk.getDeviceQueue(device, 0, 0);
vk.destroyDevice(device);
attempt(() => vk.queueWaitIdle(queue));
attempt(() => vk.createBuffer(device, { size: 64n, usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT }));
vk.destroyInstance(instance);
attempt(() => vk.getPhysicalDeviceProperties(gpu!));
attempt(() => vk.enumeratePhysicalDevices(instance));
`);
    assertEquals(code, 0, out);
    const lines = out.trim().split("\n");
    assert(
      /^threw TypeError: vkQueueWaitIdle: queue 0x[0-9a-f]+ .*VkDevice 0x[0-9a-f]+/.test(lines[0]!),
      out,
    );
    assert(/^threw TypeError: vkCreateBuffer: device 0x[0-9a-f]+ was destroyed/.test(lines[1]!), out);
    assert(
      /^threw TypeError: vkGetPhysicalDeviceProperties: physicalDevice .*VkInstance/.test(lines[2]!),
      out,
    );
    assert(
      /^threw TypeError: vkEnumeratePhysicalDevices: instance 0x[0-9a-f]+ was destroyed/.test(lines[3]!),
      out,
    );
  },
});

Deno.test({
  name: "a scope never destroys a child after its parent (the validation layer loaded)",
  ignore: !hasLavapipe || !hasValidation(),
  fn: async () => {
    const { code, out } = await run(
      `
{
  using scope = vk.scope();
  scope.createBuffer(device, { size: 64n, usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT });
  vk.destroyDevice(device);
}
console.log("scope ended");
vk.destroyInstance(instance);
`,
      ["VK_LAYER_KHRONOS_validation"],
    );
    assertEquals(code, 0, out);
    // The layer reports the program's own error (the device destroyed with a live buffer), nothing after it.
    assert(out.includes("scope ended"), out);
    assert(!/vkDestroyBuffer/.test(out), out);
  },
});

Deno.test({
  name: "getDeviceQueue refuses a queue index or family the device was not created with",
  ignore: !hasLavapipe,
  fn: async () => {
    const { code, out } = await run(`
attempt(() => vk.getDeviceQueue(device, 0, 5));
attempt(() => vk.getDeviceQueue(device, 7, 0));
attempt(() => vk.getDeviceQueue(device, 0, 0));
vk.destroyDevice(device);
vk.destroyInstance(instance);
`);
    assertEquals(code, 0, out);
    const lines = out.trim().split("\n");
    assert(/^threw RangeError: vkGetDeviceQueue: queueIndex 5 .*1 queue/.test(lines[0]!), out);
    assert(/^threw RangeError: vkGetDeviceQueue: queueFamilyIndex 7 /.test(lines[1]!), out);
    assertEquals(lines[2], "no error", out);
  },
});

/** Whether the Khronos validation layer is installed where the loaders look. */
function hasValidation(): boolean {
  try {
    return Deno.statSync("/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json").isFile;
  } catch {
    return false;
  }
}
