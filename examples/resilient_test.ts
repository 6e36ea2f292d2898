/**
 * `examples/resilient.ts` tested without a GPU: mock drivers from the testing kit, devices from Vulkan
 * Profiles, injected out-of-memory and device-loss faults. No compiler and no installed driver is used:
 * every loader here is given its drivers (`Vulkan.load({ drivers })`) or finds them through a manifest the
 * kit writes to a temp folder.
 *
 * @module
 */
import { deepStrictEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import {
  VK_API_VERSION_1_0,
  VK_ERROR_DEVICE_LOST,
  VK_ERROR_OUT_OF_DEVICE_MEMORY,
  VkError,
  Vulkan,
} from "../mod.ts";
import { MockDriver, mockEnvironment, profileDevice, PROFILES } from "../testing/mod.ts";
import { runJob } from "./resilient.ts";

/** An empty temp root and no variables: the host's drivers, layers and settings stay out. */
const isolated = mockEnvironment();
globalThis.addEventListener("unload", () => isolated.remove());
const env = isolated.env;

Deno.test("picks the ray-tracing discrete GPU among a mobile GPU and a Vulkan 1.0 device", () => {
  using mock = new MockDriver({
    devices: [
      profileDevice(PROFILES.mobile),
      profileDevice(PROFILES.vulkan10),
      profileDevice(PROFILES.desktopRayTracing),
    ],
  });
  using vk = Vulkan.load({ drivers: [mock], env });
  const report = runJob(vk);
  assertEquals([report.device, report.rayTracing, report.attempts], ["vkdeno desktop RT GPU", true, 1]);
  assertEquals(report.result, [1, 2, 3, 4]);
  assertEquals(mock.liveObjects(), []); // everything it made was destroyed
  assertEquals(mock.problems, []);
});

Deno.test("falls back to the mobile GPU when no device has ray tracing", () => {
  using mock = new MockDriver({ devices: [profileDevice(PROFILES.mobile)] });
  using vk = Vulkan.load({ drivers: [mock], env });
  const report = runJob(vk);
  assertEquals([report.device, report.rayTracing], ["vkdeno mobile GPU", false]);
  assertEquals(mock.problems, []);
});

Deno.test("runs on a Vulkan 1.0 driver and device without asking for 1.1 commands", () => {
  using mock = new MockDriver({
    apiVersion: VK_API_VERSION_1_0,
    instanceExtensions: [],
    devices: [profileDevice(PROFILES.vulkan10)],
    unimplemented: "absent",
  });
  using vk = Vulkan.load({ drivers: [mock], env });
  const report = runJob(vk);
  assertEquals(report.device, "vkdeno Vulkan 1.0 device");
  assertEquals(mock.callCount("vkGetPhysicalDeviceFeatures2"), 0);
  assertEquals(mock.problems, []);
});

Deno.test("an integrated GPU with ray tracing wins over a discrete GPU without it", () => {
  using mock = new MockDriver({
    devices: [
      { name: "Discrete, no ray tracing", type: "discrete-gpu" },
      profileDevice(PROFILES.desktopRayTracing, { name: "Laptop RT", type: "integrated-gpu" }),
    ],
  });
  using vk = Vulkan.load({ drivers: [mock], env });
  assertEquals([runJob(vk).device, runJob(vk).rayTracing], ["Laptop RT", true]);
});

Deno.test("a discrete GPU whose ray-tracing feature is off is not taken for ray tracing", () => {
  const noRayTracing = profileDevice(PROFILES.desktopRayTracing, {
    name: "RT extension, feature off",
    features: { VkPhysicalDeviceRayTracingPipelineFeaturesKHR: { rayTracingPipeline: false } },
  });
  using mock = new MockDriver({ devices: [noRayTracing] });
  using vk = Vulkan.load({ drivers: [mock], env });
  assertEquals(runJob(vk).rayTracing, false);
});

Deno.test("allocation retries in another memory type when the first runs out of device memory", () => {
  using mock = new MockDriver({ devices: [profileDevice(PROFILES.mobile)], record: true });
  // The mobile profile's memory type 0 is HOST_VISIBLE and preferred: make it fail.
  const fault = mock.fail("vkAllocateMemory", VK_ERROR_OUT_OF_DEVICE_MEMORY, {
    when: (args) => (args.pAllocateInfo as { memoryTypeIndex: number }).memoryTypeIndex === 0,
  });
  using vk = Vulkan.load({ drivers: [mock], env });
  const report = runJob(vk);
  assertEquals([fault.hits, report.memoryTypeIndex], [1, 1]);
  const allocations = mock.calls.filter((c) => c.command === "vkAllocateMemory").map((c) => c.result);
  assertEquals(allocations, ["VK_ERROR_OUT_OF_DEVICE_MEMORY", "VK_SUCCESS"]);
});

Deno.test("a buffer larger than the heap fails with VK_ERROR_OUT_OF_DEVICE_MEMORY from every type", () => {
  using mock = new MockDriver({ devices: [profileDevice(PROFILES.mobile)] });
  using vk = Vulkan.load({ drivers: [mock], env });
  assertThrows(
    () => runJob(vk, { bufferSize: 512 << 20 }), // the mobile profile has one 256 MiB heap
    (e: unknown) => e instanceof VkError && e.code === VK_ERROR_OUT_OF_DEVICE_MEMORY,
  );
  assertEquals(mock.callCount("vkAllocateMemory"), 2);
  assertEquals(mock.liveObjects(), []);
});

Deno.test("a device lost at submission is rebuilt and the job runs again", () => {
  using mock = new MockDriver();
  mock.fail("vkQueueSubmit", VK_ERROR_DEVICE_LOST, { call: 1 });
  using vk = Vulkan.load({ drivers: [mock], env });
  const report = runJob(vk);
  assertEquals(report.attempts, 2);
  assertEquals(mock.callCount("vkCreateDevice"), 2);
  assertEquals(mock.counts, { instances: 0, devices: 0, lostDevices: 0 });
  assertEquals(mock.liveObjects(), []);
});

Deno.test("a device lost while waiting is rebuilt too; losing every device gives up after maxAttempts", () => {
  using mock = new MockDriver();
  let losses = 2; // the first two devices are lost while the job waits
  mock.override("vkWaitForFences", (call) => {
    if (losses > 0 && mock.loseDevice() > 0) losses--;
    return call.next();
  });
  using vk = Vulkan.load({ drivers: [mock], env });
  assertEquals(runJob(vk).attempts, 3);
  losses = 1;
  assertThrows(
    () => runJob(vk, { maxAttempts: 1 }),
    (e: unknown) => e instanceof VkError && e.code === VK_ERROR_DEVICE_LOST,
  );
  assertEquals(mock.liveObjects(), []);
});

Deno.test("the job runs on mocks found by discovery; VK_LOADER_DRIVERS_SELECT picks one", () => {
  using desktop = new MockDriver({
    name: "desktop-mock",
    devices: [profileDevice(PROFILES.desktopRayTracing)],
  });
  using mobile = new MockDriver({ name: "mobile-mock", devices: [profileDevice(PROFILES.mobile)] });
  using both = mockEnvironment({ drivers: [desktop, mobile] });
  using vk = Vulkan.load({ env: both.env });
  assertEquals(runJob(vk).device, "vkdeno desktop RT GPU");
  using selected = mockEnvironment({
    drivers: [desktop, mobile],
    vars: { VK_LOADER_DRIVERS_SELECT: "mobile-*" },
  });
  using vk2 = Vulkan.load({ env: selected.env });
  assertEquals(runJob(vk2).device, "vkdeno mobile GPU");
  assertEquals(desktop.callCount("vkCreateDevice"), 1);
});

Deno.test("the job runs on a mock named by VK_DRIVER_FILES (a manifest the kit wrote)", () => {
  using mock = new MockDriver({ devices: [profileDevice(PROFILES.mobile)] });
  using manifest = mock.writeManifest();
  using vk = Vulkan.load({ env: { ...env, vars: { VK_DRIVER_FILES: manifest.manifestPath } } });
  assertEquals(runJob(vk).device, "vkdeno mobile GPU");
});

Deno.test("the device-selection variables apply to mocks: a vendor filter hides the desktop GPU", () => {
  using mock = new MockDriver({
    devices: [profileDevice(PROFILES.desktopRayTracing), profileDevice(PROFILES.mobile)],
  });
  // The mobile profile's vendorID is 5045 (0x13b5); the desktop's 4318.
  using filtered = mockEnvironment({ vars: { VK_LOADER_VENDOR_ID_FILTER: "0x13b5" } });
  using vk = Vulkan.load({ drivers: [mock], env: filtered.env });
  assertEquals([runJob(vk).device, runJob(vk).rayTracing], ["vkdeno mobile GPU", false]);
});
