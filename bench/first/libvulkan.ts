/**
 * The reference side of the time-to-first-instance benchmark (bench/first_bench.ts): the same steps as
 * bench/first/vkdeno.ts through `libvulkan.so.1` with `Deno.dlopen`, importing nothing of vkdeno. With `--marks`
 * it prints the time of each step (ms since the process started) as JSON on stderr; with `--json`, the marks
 * and the peak RSS as a last line on stdout.
 *
 * @module
 */
const marks: Record<string, number> = { imported: performance.now() };
const fn = (parameters: Deno.NativeType[], result: Deno.NativeResultType) => ({ parameters, result });
const vk = Deno.dlopen("libvulkan.so.1", {
  vkCreateInstance: fn(["pointer", "pointer", "pointer"], "i32"),
  vkEnumeratePhysicalDevices: fn(["pointer", "buffer", "buffer"], "i32"),
  vkGetPhysicalDeviceProperties: fn(["pointer", "buffer"], "void"),
  vkDestroyInstance: fn(["pointer", "pointer"], "void"),
}).symbols;
marks.loaded = performance.now();

const keep: Uint8Array[] = [];
const cstring = (s: string) => {
  const b = new TextEncoder().encode(s + "\0");
  keep.push(b);
  return BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(b)));
};
// VkApplicationInfo: sType 0, pNext, pApplicationName, applicationVersion, pEngineName, engineVersion, apiVersion
const app = new DataView(new ArrayBuffer(48));
app.setUint32(0, 0, true);
app.setBigUint64(16, cstring("first"), true);
app.setUint32(40, (1 << 22) | (3 << 12), true);
// VkInstanceCreateInfo: sType 1, pNext, flags, pApplicationInfo at 24, layer and extension lists (empty)
const info = new DataView(new ArrayBuffer(64));
info.setUint32(0, 1, true);
info.setBigUint64(24, BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(app.buffer))), true);
const slot = new BigUint64Array(1);
const result = vk.vkCreateInstance(Deno.UnsafePointer.of(info.buffer), null, Deno.UnsafePointer.of(slot));
if (result !== 0) throw new Error(`vkCreateInstance failed: ${result}`);
const instance = Deno.UnsafePointer.create(slot[0]!);
marks.instance = performance.now();
const count = new Uint32Array(1);
vk.vkEnumeratePhysicalDevices(instance, count, null);
const devices = new BigUint64Array(count[0]!);
vk.vkEnumeratePhysicalDevices(instance, count, devices);
const properties = new Uint8Array(1024);
vk.vkGetPhysicalDeviceProperties(Deno.UnsafePointer.create(devices[0]!), properties);
const nameBytes = properties.subarray(20, 20 + 256);
const name = new TextDecoder().decode(nameBytes.subarray(0, nameBytes.indexOf(0)));
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
