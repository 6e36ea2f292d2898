/**
 * Per-call cost of one device command (`vkGetDeviceQueue`, the raw layer) on the first device, in ns per
 * call: the number docs/platforms.md compares between Linux (native stubs) and Windows under Wine (the
 * `UnsafeFnPointer` fallback). `deno run -A tools/wine/percall.ts [calls]`.
 *
 * @module
 */
import { VkApi, Vulkan } from "../../mod.ts";

const calls = Number(Deno.args[0] ?? 200_000);
using raw = Vulkan.load();
using vk = VkApi.of(raw).scope();
const instance = vk.createInstance({ pApplicationInfo: { apiVersion: vk.enumerateInstanceVersion() } });
const gpu = vk.enumeratePhysicalDevices(instance)[0];
if (gpu === undefined) throw new Error("no Vulkan device");
const device = vk.createDevice(gpu, { pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }] });
const out = new BigUint64Array(1);
const pQueue = Deno.UnsafePointer.of(out);
const loop = (n: number) => {
  for (let i = 0; i < n; i++) raw.vkGetDeviceQueue(device, 0, 0, pQueue);
};
loop(calls / 10); // warm-up: the JIT's fast path
const runs: number[] = [];
for (let r = 0; r < 5; r++) {
  const t0 = performance.now();
  loop(calls);
  runs.push((performance.now() - t0) * 1e6 / calls);
}
runs.sort((a, b) => a - b);
const name = vk.getPhysicalDeviceProperties(gpu).deviceName;
console.log(
  `${Deno.build.os} ${Deno.build.arch}: vkGetDeviceQueue ${runs[2]!.toFixed(1)} ns per call (median of 5 x ` +
    `${calls}; best ${runs[0]!.toFixed(1)}), native stubs: ${raw.native}, device: ${name}`,
);
