/**
 * Per-call cost of one device command (`vkGetDeviceQueue`) on the first device, in ns per call, through
 * vkdeno's raw layer and through an `UnsafeFnPointer` on the driver's own pointer: what docs/platforms.md
 * compares between Linux (native stubs) and Windows under Wine (the fallback).
 * `deno run -A tools/wine/percall.ts [calls]`.
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
const name = new TextEncoder().encode("vkGetDeviceQueue\0");
const address = raw.vkGetDeviceProcAddr(device, Deno.UnsafePointer.of(name));
if (address === null) throw new Error("no vkGetDeviceQueue");
const naive = new Deno.UnsafeFnPointer(address as Deno.PointerObject<never>, {
  parameters: ["pointer", "u32", "u32", "pointer"],
  result: "void",
});
const paths: Record<string, () => void> = {
  "vkdeno (raw layer)": () => raw.vkGetDeviceQueue(device, 0, 0, pQueue),
  "UnsafeFnPointer on vkGetDeviceProcAddr's pointer": () => naive.call(device, 0, 0, pQueue),
};
const device0 = vk.getPhysicalDeviceProperties(gpu).deviceName;
console.log(`${Deno.build.os} ${Deno.build.arch}, ${device0}, native stubs: ${raw.native}`);
for (const [label, call] of Object.entries(paths)) {
  for (let i = 0; i < calls / 10; i++) call(); // warm-up: the JIT's fast path
  const runs: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t0 = performance.now();
    for (let i = 0; i < calls; i++) call();
    runs.push((performance.now() - t0) * 1e6 / calls);
  }
  runs.sort((a, b) => a - b);
  console.log(`  vkGetDeviceQueue, ${label}: ${runs[2]!.toFixed(1)} ns per call (median of 5 x ${calls})`);
}
