/**
 * The vkdeno side of the time-to-first-instance benchmark (bench/first_bench.ts): a script as a user
 * writes it: import mod.ts, load the loader, create an instance, read the first physical device's name, print
 * it. With `--marks` it prints the time of each step (ms since the process started) as JSON on stderr; with
 * `--json`, the marks and the peak RSS as a last line on stdout.
 *
 * @module
 */
import {
  Arena,
  asHandle,
  check,
  enumerate,
  makeApiVersion,
  readStruct,
  Vulkan,
  writeStruct,
} from "../../mod.ts";
// Imports are evaluated before the module body: this first mark is when mod.ts was imported.
const marks: Record<string, number> = { imported: performance.now() };

using vk = Vulkan.load();
marks.loaded = performance.now();
using arena = new Arena();
const slot = arena.pointer(arena.alloc(8));
check(
  vk.vkCreateInstance(
    writeStruct(arena, "VkInstanceCreateInfo", {
      pApplicationInfo: { pApplicationName: "first", apiVersion: makeApiVersion(1, 3) },
    }),
    null,
    slot,
  ),
  "vkCreateInstance",
);
const instance = asHandle("VkInstance", new Deno.UnsafePointerView(slot!).getPointer())!;
marks.instance = performance.now();
const [physicalDevice] = enumerate(vk.vkEnumeratePhysicalDevices, [instance]);
const properties = arena.alloc(1024);
vk.vkGetPhysicalDeviceProperties(physicalDevice!, arena.pointer(properties));
const name = readStruct("VkPhysicalDeviceProperties", properties).deviceName as string;
marks.named = performance.now();
vk.vkDestroyInstance(instance, null);
marks.destroyed = performance.now();
console.log(name);
if (Deno.args.includes("--marks")) console.error(JSON.stringify(marks));
if (Deno.args.includes("--json")) {
  // Peak resident set of the whole process so far (VmHWM, in kB).
  const hwm = /VmHWM:\s*(\d+)/.exec(Deno.readTextFileSync("/proc/self/status"))?.[1];
  console.log(JSON.stringify({ marks, peakRssMiB: Number(hwm ?? NaN) / 1024 }));
}
