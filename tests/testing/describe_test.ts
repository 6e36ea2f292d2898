/** Nothing invented silently: a mock device lists what it made up, what it derived and what it was given. */
import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { asHandle, enumerate, VkApi, type VkCommandSource, VkScope, Vulkan, writeStruct } from "../../mod.ts";
import { MockDriver, mockEnvironment, parseProfile, profileDevice } from "../../testing/mod.ts";

const isolated = mockEnvironment();
globalThis.addEventListener("unload", () => isolated.remove());

const integrated = parseProfile(`{
  "capabilities": { "c": { "properties": {
    "VkPhysicalDeviceProperties": { "deviceName": "Laptop GPU", "deviceType": "VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU",
      "vendorID": 32902, "limits": { "maxImageDimension2D": 16384 } },
    "VkPhysicalDeviceVulkan12Properties": { "driverID": "VK_DRIVER_ID_INTEL_OPEN_SOURCE_MESA", "driverName": "Intel open-source Mesa driver" }
  } } },
  "profiles": { "VP_laptop": { "api-version": "1.3.0", "capabilities": ["c"] } } }`);

const from = (d: ReturnType<MockDriver["devices"][number]["describe"]>) =>
  Object.fromEntries(Object.entries(d.values).map(([k, v]) => [k, v.from]));

Deno.test("describe() says which values a profile gave, which it implies and which the kit made up", () => {
  using mock = new MockDriver({ devices: [profileDevice(integrated)] });
  const d = mock.devices[0]!.describe();
  assertEquals([d.source, from(d)], ['profile "VP_laptop"', {
    deviceName: "given",
    deviceType: "given",
    vendorID: "given",
    deviceID: "default",
    driverVersion: "default",
    apiVersion: "given",
    memoryHeaps: "implied", // an integrated GPU: one heap shared with the host
    memoryTypes: "implied",
    queueFamilies: "default",
    formats: "default",
    driverID: "implied", // VkPhysicalDeviceDriverProperties answers from VkPhysicalDeviceVulkan12Properties
    driverName: "implied",
  }]);
  assertEquals(
    [d.values.deviceType.value, d.values.memoryHeaps.value, d.values.memoryTypes.value],
    ["VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU", [{ size: 256n << 20n, flags: 1 }], [
      { heapIndex: 0, propertyFlags: 0x7 },
      { heapIndex: 0, propertyFlags: 0xf },
    ]],
  );
  assertEquals(d.defaultLimits.includes("maxImageDimension2D"), false);
  assertEquals(d.defaultLimits.includes("maxBoundDescriptorSets"), true);
  assertEquals(d.defaultFeatures, []); // a profile's VkPhysicalDeviceFeatures is exact
  // What describe() says the application reads.
  using raw = Vulkan.load({ drivers: [mock], env: isolated.env });
  using scope = new VkScope(raw);
  const instance = scope.create("vkCreateInstance", [
    writeStruct(scope.arena, "VkInstanceCreateInfo", {
      pApplicationInfo: { apiVersion: (1 << 22) | (3 << 12) },
    }),
    null,
  ]);
  const vk = VkApi.of(raw as unknown as VkCommandSource);
  const gpu = asHandle("VkPhysicalDevice", enumerate(raw.vkEnumeratePhysicalDevices, [instance])[0]!);
  const p = vk.getPhysicalDeviceProperties2(gpu, ["VkPhysicalDeviceDriverProperties"]);
  const memory = vk.getPhysicalDeviceMemoryProperties(gpu);
  assertEquals(
    [p.properties.deviceType, p.chain.VkPhysicalDeviceDriverProperties.driverName, memory.memoryHeapCount],
    [1, "Intel open-source Mesa driver", 1],
  );
});

Deno.test("what a profile leaves out is set in the options beside it, and then reads as given", () => {
  using mock = new MockDriver({
    devices: [
      profileDevice(integrated, {
        deviceID: 0x9a49,
        driverVersion: 0x5c02000,
        memoryHeaps: [{ size: 2n << 30n, flags: 1 }],
        memoryTypes: [{ heapIndex: 0, propertyFlags: 0xf }],
      }),
      {},
    ],
  });
  const [laptop, plain] = mock.devices.map((m) => m.describe());
  assertEquals(
    [laptop!.values.deviceID, laptop!.values.driverVersion.from, laptop!.values.memoryHeaps.from],
    [{ value: 0x9a49, from: "given" }, "given", "given"],
  );
  assertEquals([plain!.source, new Set(Object.values(from(plain!)))], ["options", new Set(["default"])]);
  assertEquals(plain!.values.deviceType.value, "VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU");
});
