/**
 * `deno task info --json` against the Khronos loader: a C probe linked with libvulkan1 prints the same JSON
 * shape, in the same environment, and the parsed objects must match (devices and instance extensions, and
 * the rest of the report where the loaders must agree too).
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { buildProgram } from "../support/c_build.ts";
import { LAVAPIPE } from "../support/lavapipe.ts";

const root = new URL("../../", import.meta.url).pathname;

const PROBE = String.raw`
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

static void str(const char* s) {
  putchar('"');
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') printf("\\%c", c);
    else if (c < 0x20) printf("\\u%04x", c);
    else putchar(c);
  }
  putchar('"');
}
static void version(uint32_t v) {
  printf("\"%u.%u.%u\"", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v), VK_API_VERSION_PATCH(v));
}
static const char* type_name(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "INTEGRATED_GPU";
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "DISCRETE_GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "VIRTUAL_GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU";
    default: return "OTHER";
  }
}
static const char* result_name(VkResult r) {
  switch (r) {
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
    default: return "VK_ERROR_UNKNOWN";
  }
}

int main(void) {
  uint32_t api = VK_API_VERSION_1_0;
  vkEnumerateInstanceVersion(&api);
  uint32_t nl = 0;
  vkEnumerateInstanceLayerProperties(&nl, NULL);
  VkLayerProperties* layers = calloc(nl + 1, sizeof *layers);
  vkEnumerateInstanceLayerProperties(&nl, layers);
  uint32_t ne = 0;
  vkEnumerateInstanceExtensionProperties(NULL, &ne, NULL);
  VkExtensionProperties* exts = calloc(ne + 1, sizeof *exts);
  vkEnumerateInstanceExtensionProperties(NULL, &ne, exts);
  int portability = 0;
  for (uint32_t i = 0; i < ne; i++) {
    if (!strcmp(exts[i].extensionName, "VK_KHR_portability_enumeration")) portability = 1;
  }
  const char* names[] = {"VK_KHR_portability_enumeration"};
  VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO, NULL, "probe", 0, NULL, 0, api};
  VkInstanceCreateInfo ci = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ci.pApplicationInfo = &app;
  ci.flags = portability ? VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR : 0;
  ci.enabledExtensionCount = portability ? 1 : 0;
  ci.ppEnabledExtensionNames = portability ? names : NULL;
  VkInstance instance;
  VkResult r = vkCreateInstance(&ci, NULL, &instance);
  if (r != VK_SUCCESS) {
    printf("{\"error\":\"%s\"}\n", result_name(r));
    return 1;
  }
  printf("{\"instanceVersion\":");
  version(api);
  printf(",\"layers\":[");
  for (uint32_t i = 0; i < nl; i++) {
    printf("%s{\"name\":", i ? "," : "");
    str(layers[i].layerName);
    printf(",\"specVersion\":");
    version(layers[i].specVersion);
    printf(",\"implementationVersion\":%u,\"description\":", layers[i].implementationVersion);
    str(layers[i].description);
    printf("}");
  }
  printf("],\"extensions\":[");
  for (uint32_t i = 0; i < ne; i++) {
    printf("%s{\"name\":", i ? "," : "");
    str(exts[i].extensionName);
    printf(",\"specVersion\":%u}", exts[i].specVersion);
  }
  uint32_t nd = 0;
  vkEnumeratePhysicalDevices(instance, &nd, NULL);
  VkPhysicalDevice* devs = calloc(nd + 1, sizeof *devs);
  vkEnumeratePhysicalDevices(instance, &nd, devs);
  printf("],\"devices\":[");
  for (uint32_t i = 0; i < nd; i++) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(devs[i], &p);
    printf("%s{\"name\":", i ? "," : "");
    str(p.deviceName);
    printf(",\"type\":\"%s\",\"apiVersion\":", type_name(p.deviceType));
    version(p.apiVersion);
    printf(",\"driverVersion\":%u,\"vendorID\":%u,\"deviceID\":%u,\"extensions\":[", p.driverVersion, p.vendorID,
           p.deviceID);
    uint32_t nx = 0;
    vkEnumerateDeviceExtensionProperties(devs[i], NULL, &nx, NULL);
    VkExtensionProperties* dx = calloc(nx + 1, sizeof *dx);
    vkEnumerateDeviceExtensionProperties(devs[i], NULL, &nx, dx);
    for (uint32_t j = 0; j < nx; j++) {
      if (j) putchar(',');
      str(dx[j].extensionName);
    }
    free(dx);
    printf("]}");
  }
  printf("],\"groups\":[");
  if (api >= VK_API_VERSION_1_1) {
    uint32_t ng = 0;
    vkEnumeratePhysicalDeviceGroups(instance, &ng, NULL);
    VkPhysicalDeviceGroupProperties* groups = calloc(ng + 1, sizeof *groups);
    for (uint32_t i = 0; i < ng; i++) groups[i].sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES;
    vkEnumeratePhysicalDeviceGroups(instance, &ng, groups);
    for (uint32_t i = 0; i < ng; i++) {
      printf("%s{\"devices\":[", i ? "," : "");
      for (uint32_t j = 0; j < groups[i].physicalDeviceCount; j++) {
        int index = -1;
        for (uint32_t k = 0; k < nd; k++) if (devs[k] == groups[i].physicalDevices[j]) index = (int)k;
        printf("%s%d", j ? "," : "", index);
      }
      printf("]}");
    }
    free(groups);
  } else {
    for (uint32_t i = 0; i < nd; i++) printf("%s{\"devices\":[%u]}", i ? "," : "", i);
  }
  printf("]}\n");
  vkDestroyInstance(instance, NULL);
  return 0;
}
`;

let probePath: Promise<string> | undefined;

/** Compiles the probe once per test run (into a temp folder removed at exit). */
function buildProbe(): Promise<string> {
  probePath ??= (async () => {
    const dir = await Deno.makeTempDir({ prefix: "vkdeno_info_probe_" });
    globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
    return await buildProgram(dir, PROBE, ["-lvulkan"]);
  })();
  return probePath;
}

interface Run {
  code: number;
  json: Record<string, unknown>;
  stdout: string;
}

async function run(command: string, args: string[], env: Record<string, string>): Promise<Run> {
  const out = await new Deno.Command(command, { args, cwd: root, env, clearEnv: true }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(stdout);
  } catch {
    throw new Error(
      `${command} ${args.join(" ")} printed no JSON (exit ${out.code}):\n${stdout}\n${
        new TextDecoder().decode(out.stderr)
      }`,
    );
  }
  return { code: out.code, json, stdout };
}

/** The same environment for both sides: only PATH, HOME and the variables a scenario sets. */
function environment(vars: Record<string, string>): Record<string, string> {
  return { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: Deno.env.get("HOME") ?? "/root", ...vars };
}

async function sideBySide(loader: string, vars: Record<string, string>): Promise<{ info: Run; probe: Run }> {
  const env = environment(vars);
  const [probe, info] = await Promise.all([
    buildProbe().then((path) => run(path, [], env)),
    run(Deno.execPath(), [
      "run",
      "--allow-read",
      "--allow-env",
      "--allow-ffi",
      "--allow-run",
      "examples/info.ts",
      "--json",
      `--loader=${loader}`,
    ], env),
  ]);
  return { info, probe };
}

const SCENARIOS: [string, Record<string, string>][] = [
  ["the host's drivers and layers", {}],
  ["lavapipe only", { VK_DRIVER_FILES: LAVAPIPE }],
  ["lavapipe without implicit layers", { VK_DRIVER_FILES: LAVAPIPE, VK_LOADER_LAYERS_DISABLE: "~implicit~" }],
];

for (const loader of ["vkdeno", "libvulkan"]) {
  for (const [scenario, vars] of SCENARIOS) {
    Deno.test(`info --json devices and instance extensions equal libvulkan1's, ${scenario} (${loader})`, async () => {
      const { info, probe } = await sideBySide(loader, vars);
      assertEquals(probe.code, 0, probe.stdout);
      assertEquals(info.code, 0, info.stdout);
      assert((probe.json.devices as unknown[]).length > 0, "the probe found no device");
      assertEquals(info.json.devices, probe.json.devices);
      // VK_LUNARG_direct_driver_loading is a loader extension libvulkan1 1.3.239 does not implement.
      assertEquals(withoutDirectDriverLoading(info.json.extensions), probe.json.extensions);
      assertEquals(info.json.groups, probe.json.groups);
      // vkdeno reports its own loader version (the registry it was generated from), not libvulkan's.
      if (loader === "libvulkan") assertEquals(info.json.instanceVersion, probe.json.instanceVersion);
      else {assert(
          /^1\.\d+\.\d+$/.test(info.json.instanceVersion as string),
          String(info.json.instanceVersion),
        );}
    });
  }

  Deno.test(`info --json lists the same layers as libvulkan1, with the same properties (${loader})`, async () => {
    const { info, probe } = await sideBySide(loader, {});
    // Within one folder libvulkan keeps readdir order and vkdeno sorts by file name (discovery/layers.ts),
    // so the lists are compared as sets; each side prints its own loader's enumeration order.
    const byName = (list: unknown) =>
      [...(list as { name: string }[])].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    assert((probe.json.layers as unknown[]).length > 0, "the host has no layers to compare");
    assertEquals(byName(info.json.layers), byName(probe.json.layers));
    if (loader === "libvulkan") assertEquals(info.json.layers, probe.json.layers);
  });

  Deno.test(`info --json reports the instance creation error and exits 1 (${loader})`, async () => {
    const empty = await Deno.makeTempDir({ prefix: "vkdeno_no_drivers_" });
    try {
      const { info, probe } = await sideBySide(loader, { VK_DRIVER_FILES: empty });
      assertEquals(probe.json, { error: "VK_ERROR_INCOMPATIBLE_DRIVER" });
      assertEquals(info.json, probe.json);
      assertEquals(info.stdout.trim(), JSON.stringify(probe.json));
      assertEquals([info.code, probe.code], [1, 1]);
    } finally {
      await Deno.remove(empty, { recursive: true });
    }
  });
}

function withoutDirectDriverLoading(list: unknown): unknown {
  return (list as { name: string }[]).filter((e) => e.name !== "VK_LUNARG_direct_driver_loading");
}
