/** Devices from Khronos Vulkan Profiles JSON: merged capability sets, exact features and formats, errors. */
import { deepStrictEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import {
  allocStruct,
  asHandle,
  enumerate,
  readStruct,
  VkApi,
  type VkCommandSource,
  VkScope,
  Vulkan,
  writeStruct,
} from "../../mod.ts";
import {
  type MockDeviceOptions,
  MockDriver,
  mockEnvironment,
  profileDevice,
  PROFILES,
  type ProfilesFile,
} from "../../testing/mod.ts";

const isolated = mockEnvironment();
globalThis.addEventListener("unload", () => isolated.remove());

function firstDevice(
  mock: MockDriver,
  fn: (vk: ReturnType<typeof Vulkan.load>, scope: VkScope, gpu: Deno.PointerValue) => void,
) {
  using vk = Vulkan.load({ drivers: [mock], env: isolated.env });
  using scope = new VkScope(vk);
  const instance = scope.create("vkCreateInstance", [
    writeStruct(scope.arena, "VkInstanceCreateInfo", {}),
    null,
  ]);
  fn(vk, scope, enumerate(vk.vkEnumeratePhysicalDevices, [instance])[0]!);
}

Deno.test("the ray-tracing profile: features through Features2 chains, by struct and by member name", () => {
  using mock = new MockDriver({ devices: [profileDevice(PROFILES.desktopRayTracing)] });
  firstDevice(mock, (vk, scope, gpu) => {
    const a = scope.arena;
    const rt = allocStruct(a, "VkPhysicalDeviceRayTracingPipelineFeaturesKHR");
    const bda = allocStruct(a, "VkPhysicalDeviceBufferDeviceAddressFeatures", { pNext: rt });
    const mesh = allocStruct(a, "VkPhysicalDeviceMeshShaderFeaturesEXT", { pNext: bda });
    const f2 = allocStruct(a, "VkPhysicalDeviceFeatures2", { pNext: mesh });
    vk.vkGetPhysicalDeviceFeatures2(gpu as never, f2);
    assertEquals(
      [
        readStruct("VkPhysicalDeviceFeatures2", f2).features.geometryShader,
        readStruct("VkPhysicalDeviceFeatures2", f2).features.wideLines, // not in the profile
        readStruct("VkPhysicalDeviceRayTracingPipelineFeaturesKHR", rt).rayTracingPipeline,
        readStruct("VkPhysicalDeviceBufferDeviceAddressFeatures", bda).bufferDeviceAddress, // from Vulkan12Features
        readStruct("VkPhysicalDeviceMeshShaderFeaturesEXT", mesh).meshShader,
      ],
      [1, 0, 1, 1, 0],
    );
    const rtp = allocStruct(a, "VkPhysicalDeviceRayTracingPipelinePropertiesKHR");
    const p2 = allocStruct(a, "VkPhysicalDeviceProperties2", { pNext: rtp });
    vk.vkGetPhysicalDeviceProperties2(gpu as never, p2);
    const props = readStruct("VkPhysicalDeviceProperties2", p2).properties;
    assertEquals(
      [
        props.deviceName,
        props.apiVersion,
        props.limits.maxImageDimension2D,
        readStruct("VkPhysicalDeviceRayTracingPipelinePropertiesKHR", rtp).shaderGroupHandleSize,
      ],
      ["vkdeno desktop RT GPU", (1 << 22) | (3 << 12) | 280, 32768, 32],
    );
    const families = enumerate(vk.vkGetPhysicalDeviceQueueFamilyProperties, [gpu as never], {
      struct: "VkQueueFamilyProperties",
    }).map((f) => [f.queueFlags, f.queueCount]);
    assertEquals(families, [[7, 16], [4, 2], [6, 8]]);
  });
});

Deno.test("a profile's formats are exact: listed ones have their features, others none", () => {
  using mock = new MockDriver({ devices: [profileDevice(PROFILES.mobile)] });
  firstDevice(mock, (vk, scope, gpu) => {
    const features = (format: number) => {
      const p = allocStruct(scope.arena, "VkFormatProperties");
      vk.vkGetPhysicalDeviceFormatProperties(gpu as never, format as never, p);
      return readStruct("VkFormatProperties", p);
    };
    // R8G8B8A8_UNORM: SAMPLED_IMAGE | COLOR_ATTACHMENT | TRANSFER_SRC | TRANSFER_DST; D32_SFLOAT is not listed.
    assertEquals(features(37).optimalTilingFeatures, 0x1 | 0x80 | 0x4000 | 0x8000);
    assertEquals(features(126).optimalTilingFeatures, 0);
    assertEquals(features(124).optimalTilingFeatures, 0x200); // D16_UNORM: depth attachment
  });
});

Deno.test("capability sets merge in order; options override the profile", () => {
  const file: ProfilesFile = {
    capabilities: {
      base: {
        extensions: { VK_KHR_swapchain: 70 },
        features: { VkPhysicalDeviceFeatures: { samplerAnisotropy: true } },
      },
      more: {
        extensions: { VK_KHR_maintenance1: 2 },
        properties: { VkPhysicalDeviceProperties: { deviceName: "Merged", limits: { maxViewports: 4 } } },
      },
    },
    profiles: { VP_TEST_a: { "api-version": "1.2.0", capabilities: ["base", ["more", "base"]] } },
  };
  const device = profileDevice(file, { vendorID: 42 });
  assertEquals(device.extensions, [{ name: "VK_KHR_swapchain", specVersion: 70 }, {
    name: "VK_KHR_maintenance1",
    specVersion: 2,
  }]);
  assertEquals([device.name, device.apiVersion, device.vendorID], ["Merged", (1 << 22) | (2 << 12), 42]);
  assertEquals(device.features?.VkPhysicalDeviceFeatures?.samplerAnisotropy, 1);
  assertEquals(device.features?.VkPhysicalDeviceFeatures?.geometryShader, 0);
});

Deno.test("a profile's queue family entry fills the pNext chain of that family's VkQueueFamilyProperties2", () => {
  const file: ProfilesFile = {
    capabilities: {
      c: {
        queueFamiliesProperties: [
          { VkQueueFamilyProperties: { queueFlags: ["VK_QUEUE_GRAPHICS_BIT"], queueCount: 1 } },
          {
            VkQueueFamilyProperties: { queueFlags: ["VK_QUEUE_COMPUTE_BIT"], queueCount: 2 },
            VkQueueFamilyGlobalPriorityPropertiesKHR: {
              priorityCount: 2,
              priorities: ["VK_QUEUE_GLOBAL_PRIORITY_LOW_KHR", "VK_QUEUE_GLOBAL_PRIORITY_HIGH_KHR"],
            },
          },
        ],
      },
    },
    profiles: { VP_q: { "api-version": "1.3.0", capabilities: ["c"] } },
  };
  using mock = new MockDriver({ devices: [profileDevice(file)] });
  firstDevice(mock, (raw, _scope, gpu) => {
    const vk = VkApi.of(raw as unknown as VkCommandSource);
    const families = vk.getPhysicalDeviceQueueFamilyProperties2(asHandle("VkPhysicalDevice", gpu!), [
      "VkQueueFamilyGlobalPriorityPropertiesKHR",
    ]);
    const chains = families.map((f) => f.chain.VkQueueFamilyGlobalPriorityPropertiesKHR);
    assertEquals(chains.map((c) => [c.priorityCount, c.priorities.slice(0, 2)]), [[0, [0, 0]], [2, [
      128,
      512,
    ]]]);
  });
});

Deno.test("a mock device naming what Vulkan does not have is refused when made, with the name at fault", () => {
  const refused = (device: MockDeviceOptions, message: string) =>
    assertThrows(() => new MockDriver({ devices: [device] }), { message });
  refused(
    { features: { VkNoSuchFeatures: {} } },
    'Invalid mock device: feature struct "VkNoSuchFeatures" is not a Vulkan struct',
  );
  refused(
    { features: { VkPhysicalDeviceFeatures: { flyingShader: true } } },
    "Invalid mock device: feature VkPhysicalDeviceFeatures.flyingShader is not a member of VkPhysicalDeviceFeatures",
  );
  refused(
    { queueFamilies: [{ queueFlags: ["VK_QUEUE_MAGIC_BIT"] }] },
    'Invalid mock device: queueFamilies[0] VkQueueFamilyProperties.queueFlags: "VK_QUEUE_MAGIC_BIT" is not a ' +
      "VkQueueFlagBits name",
  );
  refused(
    { queueFamilies: [{ queueFlags: 1, chain: { VkPhysicalDeviceDriverProperties: { driverName: "x" } } }] },
    'Invalid mock device: queueFamilies[0].chain struct "VkPhysicalDeviceDriverProperties" does not extend ' +
      '"VkQueueFamilyProperties2"',
  );
});

Deno.test("a profile's choice, capability sets and version are checked with the name at fault", () => {
  const file = (caps: ProfilesFile["capabilities"][string]): ProfilesFile => ({
    capabilities: { c: caps },
    profiles: { VP_bad: { "api-version": "1.3.0", capabilities: ["c"] } },
  });
  assertThrows(() => profileDevice(file({}), { profile: "VP_other" }), {
    message: 'Invalid profile choice: "VP_other" is not among VP_bad',
  });
  assertThrows(
    () => profileDevice({ ...file({}), profiles: { VP_x: { "api-version": "one", capabilities: [] } } }),
    { message: 'Invalid profile: profile "VP_x" api-version "one" is not a version like "1.3.250"' },
  );
  assertThrows(
    () => profileDevice({ ...file({}), profiles: { VP_x: { "api-version": "1.3.0", capabilities: ["d"] } } }),
    { message: 'Invalid profile "VP_x": capability set "d" is not defined' },
  );
});
