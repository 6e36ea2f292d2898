/**
 * A layer providing a made-up device extension, `VK_VKDENO_example`, that no driver has: its command
 * `vkExampleDoThingVKDENO(VkDevice device, uint32_t amount, uint32_t* pTotal)` adds `amount` to the
 * device's total and writes the total to `*pTotal` (`VK_ERROR_VALIDATION_FAILED_EXT` for an amount of 0);
 * `vkGetPhysicalDeviceThingLimitVKDENO(VkPhysicalDevice physicalDevice)` returns the largest total the layer
 * allows (setting `limit`, default 1000). The application imports the two declarations below to bind the
 * commands (examples/new_command.ts). Manifest: `thing_counter.vkdeno`.
 * @module
 */
import { defineCommand, defineLayer, provide } from "../../layers/mod.ts";

/** The made-up extension's name. */
export const EXAMPLE_EXTENSION = "VK_VKDENO_example";

/** `VkResult vkExampleDoThingVKDENO(VkDevice device, uint32_t amount, uint32_t* pTotal)`. */
export const vkExampleDoThingVKDENO = defineCommand({
  name: "vkExampleDoThingVKDENO",
  level: "device",
  parameters: ["pointer", "u32", "pointer"],
  result: "i32",
});

/** `uint32_t vkGetPhysicalDeviceThingLimitVKDENO(VkPhysicalDevice physicalDevice)`. */
export const vkGetPhysicalDeviceThingLimitVKDENO = defineCommand({
  name: "vkGetPhysicalDeviceThingLimitVKDENO",
  level: "physical_device",
  parameters: ["pointer"],
  result: "u32",
});

export default defineLayer({
  name: "VK_LAYER_EXAMPLE_thing_counter",
  description: "Provides VK_VKDENO_example, a made-up extension",
  deviceExtensions: [{
    name: EXAMPLE_EXTENSION,
    specVersion: 1,
    entrypoints: [vkExampleDoThingVKDENO.name, vkGetPhysicalDeviceThingLimitVKDENO.name],
  }],
  commands: [vkExampleDoThingVKDENO, vkGetPhysicalDeviceThingLimitVKDENO],
  settings: { limit: { type: "uint32", default: 1000, description: "The largest total allowed" } },
  create(env) {
    const limit = env.settings.limit;
    return {
      intercepts: {},
      commands: [provide(vkGetPhysicalDeviceThingLimitVKDENO, () => limit)],
    };
  },
  createDevice(env) {
    const limit = env.settings.limit;
    let total = 0;
    return {
      intercepts: {},
      commands: [
        provide(vkExampleDoThingVKDENO, (_device, amount, pTotal) => {
          if (amount === 0 || pTotal === null) return -1000011001; // VK_ERROR_VALIDATION_FAILED_EXT
          total = Math.min(total + amount, limit);
          new DataView(Deno.UnsafePointerView.getArrayBuffer(pTotal, 4)).setUint32(0, total, true);
          return 0;
        }),
      ],
    };
  },
});
