/** Each error text docs/testing.md and README show for the kit is the one a test meets. */
import { deepStrictEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import {
  Logger,
  VK_ERROR_OUT_OF_DEVICE_MEMORY,
  VK_ERROR_UNKNOWN,
  VkApi,
  type VkCommandSource,
  Vulkan,
} from "../../mod.ts";
import { MockDriver, mockEnvironment, profileDevice, PROFILES } from "../../testing/mod.ts";

const isolated = mockEnvironment();
globalThis.addEventListener("unload", () => isolated.remove());

/** A loader over `mock` whose error lines land in `lines`. */
function open(mock: MockDriver, lines: string[]) {
  const logger = new Logger(isolated.env, { write: () => {} });
  logger.addSink((r) => r.level === "error" && lines.push(r.text));
  const raw = Vulkan.load({ drivers: [mock], env: isolated.env, logger });
  const vk = VkApi.of(raw as unknown as VkCommandSource);
  const instance = vk.createInstance({});
  return { raw, vk, instance, [Symbol.dispose]: () => (vk.destroyInstance(instance), raw.dispose()) };
}

Deno.test("a refused device extension: VK_ERROR_EXTENSION_NOT_PRESENT, named in the loader's log", () => {
  const lines: string[] = [];
  using mock = new MockDriver({ onProblem: (p) => lines.push(`problem: ${p}`) });
  using t = open(mock, lines);
  const gpu = t.vk.enumeratePhysicalDevices(t.instance)[0]!;
  assertThrows(
    () =>
      t.vk.createDevice(gpu, {
        pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
        ppEnabledExtensionNames: ["VK_KHR_swapchain"],
      }),
    { message: 'Command "vkCreateDevice" failed with "VK_ERROR_EXTENSION_NOT_PRESENT"' },
  );
  assertEquals(lines, [
    'vkCreateDevice: device extension "VK_KHR_swapchain" is offered by neither driver "vkdeno-mock" nor an enabled layer',
    'vkCreateDevice: the device chain returned "-7": no device was created',
  ]);
  assertEquals(mock.problems, []);
});

Deno.test("a driver with no device: vkEnumeratePhysicalDevices fails with VK_ERROR_INITIALIZATION_FAILED", () => {
  const lines: string[] = [];
  using mock = new MockDriver({ devices: [] });
  using t = open(mock, lines);
  assertThrows(() => t.vk.enumeratePhysicalDevices(t.instance), {
    message: 'Command "vkEnumeratePhysicalDevices" failed with "VK_ERROR_INITIALIZATION_FAILED"',
  });
  assertEquals(lines, ["vkEnumeratePhysicalDevices: no driver reported a physical device"]);
});

Deno.test("an unimplemented command's report is the documented text", () => {
  const seen: string[] = [];
  using mock = new MockDriver({ onProblem: (p) => seen.push(p) });
  using t = open(mock, []);
  const gpu = t.vk.enumeratePhysicalDevices(t.instance)[0]!;
  const device = t.vk.createDevice(gpu, {
    pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
  });
  const raw = t.raw as unknown as Record<string, (...a: unknown[]) => unknown>;
  assertEquals(
    raw.vkGetRenderAreaGranularity!(device, null, Deno.UnsafePointer.of(new BigUint64Array(1))),
    undefined,
  );
  assertEquals(raw.vkGetEventStatus!(device, null), VK_ERROR_UNKNOWN);
  t.vk.destroyDevice(device);
  assertEquals(seen, [
    'Mock driver "vkdeno-mock": vkGetRenderAreaGranularity is not implemented by the mock (give it a behaviour ' +
    'with override("vkGetRenderAreaGranularity", ...))',
    'Mock driver "vkdeno-mock": vkGetEventStatus is not implemented by the mock: returning VK_ERROR_UNKNOWN ' +
    '(give it a behaviour with override("vkGetEventStatus", ...))',
  ]);
});

Deno.test("fail() without options fails every call", () => {
  using mock = new MockDriver();
  const every = mock.fail("vkAllocateMemory", VK_ERROR_OUT_OF_DEVICE_MEMORY);
  using t = open(mock, []);
  const gpu = t.vk.enumeratePhysicalDevices(t.instance)[0]!;
  const device = t.vk.createDevice(gpu, {
    pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
  });
  for (let i = 0; i < 3; i++) {
    assertThrows(() => t.vk.allocateMemory(device, { allocationSize: 64n, memoryTypeIndex: 0 }), {
      message: 'Command "vkAllocateMemory" failed with "VK_ERROR_OUT_OF_DEVICE_MEMORY"',
    });
  }
  assertEquals(every.hits, 3);
  t.vk.destroyDevice(device);
});

Deno.test("profileDevice throws for the profile it cannot find; a bad option beside it throws as new MockDriver would", () => {
  assertThrows(() => profileDevice(PROFILES.mobile, { profile: "VP_nope" }), {
    message: 'Invalid profile choice: "VP_nope" is not among VP_VKDENO_mobile',
  });
  assertThrows(() => profileDevice(PROFILES.mobile, { memoryTypes: [{ heapIndex: 3, propertyFlags: 1 }] }), {
    message: "Invalid mock device: memory type heapIndex 3 has no heap",
  });
  assertThrows(() => new MockDriver({ devices: [{ memoryTypes: [{ heapIndex: 3, propertyFlags: 1 }] }] }), {
    message: "Invalid mock device: memory type heapIndex 3 has no heap",
  });
});
