/**
 * Layer enumeration over 10 to 10,000 explicit layer manifests: vkdeno's `discoverLayers` and
 * `enumerateInstanceLayerProperties` against libvulkan's `vkEnumerateInstanceLayerProperties`, warm.
 */

import { snapshotProcessEnvironment } from "../discovery/environment.ts";
import { discoverLayers } from "../discovery/layers.ts";
import { enumerateInstanceLayerProperties } from "../discovery/layer_properties.ts";

const SIZES = [10, 100, 1_000, 10_000];
const PROPERTIES_SIZE = 256 + 4 + 4 + 256;

const root = Deno.makeTempDirSync({ prefix: "vkdeno_layers_bench_" });
const empty = `${root}/empty`;
Deno.mkdirSync(empty);
for (const size of SIZES) {
  const folder = `${root}/layers_${size}`;
  Deno.mkdirSync(folder);
  for (let i = 0; i < size; i++) {
    const name = `VK_LAYER_BENCH_${String(i).padStart(5, "0")}`;
    Deno.writeTextFileSync(
      `${folder}/${name}.json`,
      JSON.stringify(
        {
          file_format_version: "1.2.0",
          layer: {
            name,
            type: "GLOBAL",
            library_path: `libVkLayer_bench_${i}.so`,
            api_version: "1.3.239",
            implementation_version: "1",
            description: `Bench layer ${i}`,
            instance_extensions: [{ name: "VK_EXT_debug_utils", spec_version: "2" }],
            device_extensions: [{
              name: "VK_EXT_tooling_info",
              spec_version: "1",
              entrypoints: ["vkGetPhysicalDeviceToolPropertiesEXT"],
            }],
          },
        },
        null,
        2,
      ),
    );
  }
}
globalThis.addEventListener("unload", () => Deno.removeSync(root, { recursive: true }));

for (const name of ["XDG_CONFIG_HOME", "XDG_DATA_HOME", "VK_ADD_LAYER_PATH", "VK_LOADER_LAYERS_DISABLE"]) {
  Deno.env.delete(name);
}
Deno.env.set("HOME", empty);
Deno.env.set("XDG_CONFIG_DIRS", empty);
Deno.env.set("XDG_DATA_DIRS", empty);

const vulkan = Deno.dlopen("libvulkan.so.1", {
  vkEnumerateInstanceLayerProperties: { parameters: ["buffer", "buffer"], result: "i32" },
});
const count = new Uint32Array(1);
let properties = new Uint8Array(PROPERTIES_SIZE);

function libvulkanEnumerate(): number {
  count[0] = 0;
  let result = vulkan.symbols.vkEnumerateInstanceLayerProperties(count, null);
  if (result !== 0) throw new Error(`vkEnumerateInstanceLayerProperties returned ${result}`);
  const n = count[0] ?? 0;
  if (properties.length < n * PROPERTIES_SIZE) properties = new Uint8Array(n * PROPERTIES_SIZE);
  result = vulkan.symbols.vkEnumerateInstanceLayerProperties(count, properties);
  if (result !== 0) throw new Error(`vkEnumerateInstanceLayerProperties returned ${result}`);
  return count[0] ?? 0;
}

function vkdenoEnumerate(cache: boolean): number {
  return enumerateInstanceLayerProperties(discoverLayers(snapshotProcessEnvironment(), { cache })).length;
}

// Let every generated file age past the cache's racy window, then check both sides agree.
await new Promise((resolve) => setTimeout(resolve, 2100));
for (const size of SIZES) {
  Deno.env.set("VK_LAYER_PATH", `${root}/layers_${size}`);
  const theirs = libvulkanEnumerate();
  const ours = vkdenoEnumerate(true);
  if (theirs !== size || ours !== size) {
    throw new Error(`Expected ${size} layers, libvulkan found ${theirs}, vkdeno ${ours}`);
  }
}

for (const size of SIZES) {
  const group = `${size.toLocaleString("en-US")} manifests`;
  const path = `${root}/layers_${size}`;
  const n = size >= 10_000 ? 10 : size >= 1_000 ? 30 : undefined;
  Deno.bench({
    name: `libvulkan vkEnumerateInstanceLayerProperties, count + fill (${size})`,
    group,
    baseline: true,
    n,
    fn() {
      Deno.env.set("VK_LAYER_PATH", path);
      libvulkanEnumerate();
    },
  });
  Deno.bench({
    name: `vkdeno discoverLayers + enumerate, warm (${size})`,
    group,
    n,
    fn() {
      Deno.env.set("VK_LAYER_PATH", path);
      vkdenoEnumerate(true);
    },
  });
  Deno.bench({
    name: `vkdeno discoverLayers + enumerate, cold: no cache (${size})`,
    group,
    n: size >= 10_000 ? 5 : n,
    fn() {
      Deno.env.set("VK_LAYER_PATH", path);
      vkdenoEnumerate(false);
    },
  });
}
