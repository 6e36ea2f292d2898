/**
 * What one process sees of layers, for the layer-manifest cache's tests (tests/discovery/persistent_manifests_test.ts):
 * discovery's layer records as `Deno.inspect` shows them (undefined members too), the layers
 * `vkEnumerateInstanceLayerProperties` lists with their instance extensions, and the first instance's physical
 * devices with the layers of `VK_INSTANCE_LAYERS` (or its error), as one JSON line; the loader log goes to stderr.
 *
 * @module
 */
import { VkApi, Vulkan } from "../../mod.ts";
import { discoverLayers, snapshotProcessEnvironment } from "../../discovery/mod.ts";

using raw = Vulkan.load();
const vk = VkApi.of(raw);
const records = Deno.inspect(discoverLayers(snapshotProcessEnvironment()).layers, { depth: 8 });
const layers = vk.enumerateInstanceLayerProperties().map((l) => ({
  name: l.layerName,
  specVersion: l.specVersion,
  implementationVersion: l.implementationVersion,
  description: l.description,
  extensions: vk.enumerateInstanceExtensionProperties(l.layerName).map((e) => e.extensionName),
}));
let devices: string[] | string;
try {
  const instance = vk.createInstance({});
  devices = vk.enumeratePhysicalDevices(instance).map((gpu) =>
    vk.getPhysicalDeviceProperties(gpu).deviceName
  );
  vk.destroyInstance(instance);
} catch (error) {
  devices = String(error);
}
console.log(JSON.stringify({ records, layers, devices }));
