/**
 * Physical-device order against the Khronos loader (libvulkan1 1.3.239): a tiny C program linked with
 * libvulkan prints the devices in `vkEnumeratePhysicalDevices` order (and the groups), for lavapipe plus a
 * mock discrete GPU and for two mock drivers with every device type. vkdeno's policy must give the same
 * order in the same environment.
 *
 * Both sides run with `VK_LOADER_LAYERS_DISABLE=~implicit~`: Mesa's implicit `VK_LAYER_MESA_device_select`
 * (installed here) reorders devices above the loader by its own rules, which would hide the loader's order.
 * libvulkan1 1.3.239 predates the id filters, so only the order, the select and the disable-select are
 * compared here (the filters are pinned by tests/chain/order/linux_order_test.ts).
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { orderPhysicalDevices } from "../../../chain/order/devices.ts";
import type { DeviceRecord } from "../../../chain/order/sort.ts";
import { readDevicePolicy } from "../../../discovery/device_selection.ts";
import { allocStruct, readStruct, sizeOfStruct } from "../../../api/structs.ts";
import { addr, createInstance, load, physicalDevices, u32Slot } from "../../support/chain.ts";
import { MockEnvironment } from "../../support/mock.ts";
import { buildProgram } from "../../support/c_build.ts";
import { LAVAPIPE } from "../../support/lavapipe.ts";

const PROBE = String.raw`
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

/* argv[1]: the application's minor API version. Prints one JSON object: devices in enumeration order
 * (with PCI bus info and driverID when the device offers them) and groups as lists of device indices. */
static int has_ext(VkPhysicalDevice d, const char* name) {
  uint32_t n = 0;
  vkEnumerateDeviceExtensionProperties(d, NULL, &n, NULL);
  VkExtensionProperties* e = calloc(n + 1, sizeof *e);
  vkEnumerateDeviceExtensionProperties(d, NULL, &n, e);
  int found = 0;
  for (uint32_t i = 0; i < n; i++) found |= !strcmp(e[i].extensionName, name);
  free(e);
  return found;
}
int main(int argc, char** argv) {
  uint32_t minor = argc > 1 ? (uint32_t)atoi(argv[1]) : 1;
  VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO, NULL, "order probe", 0, NULL, 0,
                           VK_MAKE_API_VERSION(0, 1, minor, 0)};
  VkInstanceCreateInfo ci = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ci.pApplicationInfo = &app;
  VkInstance inst;
  VkResult r = vkCreateInstance(&ci, NULL, &inst);
  if (r != VK_SUCCESS) { printf("{\"error\":%d}\n", r); return 1; }
  uint32_t n = 0;
  vkEnumeratePhysicalDevices(inst, &n, NULL);
  VkPhysicalDevice* d = calloc(n + 1, sizeof *d);
  vkEnumeratePhysicalDevices(inst, &n, d);
  printf("{\"devices\":[");
  for (uint32_t i = 0; i < n; i++) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(d[i], &p);
    printf("%s{\"name\":\"%s\",\"vendorID\":%u,\"deviceID\":%u,\"deviceType\":%d", i ? "," : "", p.deviceName,
           p.vendorID, p.deviceID, (int)p.deviceType);
    if (minor >= 1 && p.apiVersion >= VK_API_VERSION_1_1) {
      VkPhysicalDevicePCIBusInfoPropertiesEXT pci = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT};
      VkPhysicalDeviceDriverProperties drv = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
      VkPhysicalDeviceProperties2 p2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
      int with_pci = has_ext(d[i], "VK_EXT_pci_bus_info");
      int with_driver = p.apiVersion >= VK_API_VERSION_1_2 || has_ext(d[i], "VK_KHR_driver_properties");
      void** tail = &p2.pNext;
      if (with_pci) { *tail = &pci; tail = &pci.pNext; }
      if (with_driver) { *tail = &drv; }
      vkGetPhysicalDeviceProperties2(d[i], &p2);
      if (with_pci) printf(",\"pciBus\":{\"domain\":%u,\"bus\":%u,\"device\":%u,\"function\":%u}", pci.pciDomain,
                           pci.pciBus, pci.pciDevice, pci.pciFunction);
      if (with_driver) printf(",\"driverID\":%d", (int)drv.driverID);
    }
    printf("}");
  }
  printf("],\"groups\":[");
  if (minor >= 1) {
    uint32_t ng = 0;
    vkEnumeratePhysicalDeviceGroups(inst, &ng, NULL);
    VkPhysicalDeviceGroupProperties* g = calloc(ng + 1, sizeof *g);
    for (uint32_t i = 0; i < ng; i++) g[i].sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES;
    vkEnumeratePhysicalDeviceGroups(inst, &ng, g);
    for (uint32_t i = 0; i < ng; i++) {
      printf("%s[", i ? "," : "");
      for (uint32_t j = 0; j < g[i].physicalDeviceCount; j++) {
        int index = -1;
        for (uint32_t k = 0; k < n; k++) if (d[k] == g[i].physicalDevices[j]) index = (int)k;
        printf("%s%d", j ? "," : "", index);
      }
      printf("]");
    }
  }
  printf("]}\n");
  vkDestroyInstance(inst, NULL);
  return 0;
}
`;

let probePath: Promise<string> | undefined;

/** Compiles the probe once per test run, into a temp folder removed at exit. */
function buildProbe(): Promise<string> {
  probePath ??= (async () => {
    const dir = await Deno.makeTempDir({ prefix: "vkdeno_order_probe_" });
    globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
    return await buildProgram(dir, PROBE, ["-lvulkan"]);
  })();
  return probePath;
}

interface ProbeDevice extends DeviceRecord {
  readonly name: string;
}

interface ProbeResult {
  readonly devices: ProbeDevice[];
  readonly groups: number[][];
}

/** Runs the Khronos loader's probe with only these variables (and PATH) set. */
async function khronos(vars: Record<string, string>, appMinor = 1): Promise<ProbeResult> {
  const probe = await buildProbe();
  const out = await new Deno.Command(probe, {
    args: [String(appMinor)],
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", ...vars },
    clearEnv: true,
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (out.code !== 0) {
    throw new Error(`The probe failed (${out.code}): ${text}${new TextDecoder().decode(out.stderr)}`);
  }
  return JSON.parse(text);
}

const names = (list: readonly { name: string }[]) => list.map((d) => d.name);

/** vkdeno in this process over the same variables: device names in order, and groups as device indices. */
function vkdeno(vars: Record<string, string>, appMinor = 1): { names: string[]; groups: number[][] } {
  using l = load({ vars, elevated: false });
  const { result, instance } = createInstance(l, { apiVersion: `1.${appMinor}.0` });
  assertEquals(result, 0);
  try {
    const pds = physicalDevices(l, instance);
    const list = pds.map((pd) => {
      const props = allocStruct(l.arena, "VkPhysicalDeviceProperties");
      l.vk.vkGetPhysicalDeviceProperties(pd, props);
      return readStruct("VkPhysicalDeviceProperties", props).deviceName as string;
    });
    const groups: number[][] = [];
    if (appMinor >= 1) {
      const count = u32Slot(l);
      l.vk.vkEnumeratePhysicalDeviceGroups(instance, count.pointer, null);
      const size = sizeOfStruct("VkPhysicalDeviceGroupProperties");
      const p = allocStruct(l.arena, "VkPhysicalDeviceGroupProperties", { count: Math.max(1, count.read()) });
      assertEquals(l.vk.vkEnumeratePhysicalDeviceGroups(instance, count.pointer, p), 0);
      for (let i = 0; i < count.read(); i++) {
        const g = readStruct(
          "VkPhysicalDeviceGroupProperties",
          Deno.UnsafePointer.create(addr(p) + BigInt(i * size)),
        );
        const members = (g.physicalDevices as Deno.PointerValue[]).slice(0, g.physicalDeviceCount as number);
        groups.push(members.map((m) => pds.findIndex((pd) => addr(pd) === addr(m))));
      }
    }
    return { names: list, groups };
  } finally {
    l.vk.vkDestroyInstance(instance, null);
  }
}

/** The order vkdeno's policy gives the loader's unsorted list, under `vars`. */
function policyOrder(unsorted: readonly ProbeDevice[], vars: Record<string, string>): string[] {
  const order = orderPhysicalDevices(unsorted, readDevicePolicy({ vars, elevated: false }), {
    canSort: true,
  });
  return order.devices.map((p) => p.device.name);
}

/** lavapipe beside one mock discrete GPU, the two manifests in `VK_DRIVER_FILES` in the given order. */
async function lavapipeAndDiscrete(
  mockFirst: boolean,
): Promise<{ env: MockEnvironment; vars: Record<string, string> }> {
  const env = await MockEnvironment.create();
  const mock = await env.addDriver({
    name: "discrete",
    physicalDevices: [{
      name: "Mock Discrete GPU",
      type: "discrete",
      vendorId: 0x10de,
      deviceId: 0x2204,
      pciBus: { domain: 0, bus: 1, device: 0, function: 0 },
      driverId: 4,
    }],
  });
  const files = mockFirst ? [mock.manifestPath, LAVAPIPE] : [LAVAPIPE, mock.manifestPath];
  const snapshot = env.snapshot();
  return {
    env,
    vars: {
      HOME: snapshot.vars.HOME!,
      VK_DRIVER_FILES: files.join(":"),
      VK_LOADER_LAYERS_DISABLE: "~implicit~",
    },
  };
}

for (const mockFirst of [true, false]) {
  const where = mockFirst ? "mock manifest listed first" : "lavapipe manifest listed first";

  Deno.test(`lavapipe and a mock discrete GPU: the discrete GPU comes first, as in libvulkan1 (${where})`, async () => {
    const { env, vars } = await lavapipeAndDiscrete(mockFirst);
    try {
      const sorted = await khronos(vars);
      assertEquals(sorted.devices.length, 2);
      assertEquals(sorted.devices[0]!.name, "Mock Discrete GPU");
      assertEquals(sorted.devices[1]!.deviceType, 4);
      const unsorted = await khronos({ ...vars, VK_LOADER_DISABLE_SELECT: "1" });
      assertEquals(policyOrder(unsorted.devices, vars), names(sorted.devices));
      assertEquals(vkdeno(vars).names, names(sorted.devices));
      assertEquals(vkdeno({ ...vars, VK_LOADER_DISABLE_SELECT: "1" }).names, names(unsorted.devices));
    } finally {
      env.dispose();
    }
  });

  Deno.test(`VK_LOADER_DEVICE_SELECT with lavapipe's IDs puts lavapipe first, as in libvulkan1 (${where})`, async () => {
    const { env, vars } = await lavapipeAndDiscrete(mockFirst);
    try {
      const lavapipe = (await khronos(vars)).devices.find((d) => d.deviceType === 4)!;
      assert(lavapipe.name.startsWith("llvmpipe"), lavapipe.name);
      const select = {
        ...vars,
        VK_LOADER_DEVICE_SELECT: `0x${lavapipe.vendorID.toString(16)}:${lavapipe.deviceID}`,
      };
      const selected = await khronos(select);
      assertEquals(names(selected.devices), [lavapipe.name, "Mock Discrete GPU"]);
      const unsorted = await khronos({ ...vars, VK_LOADER_DISABLE_SELECT: "1" });
      assertEquals(policyOrder(unsorted.devices, select), names(selected.devices));
      assertEquals(vkdeno(select).names, names(selected.devices));
    } finally {
      env.dispose();
    }
  });
}

/** Two mock drivers, A (discovered first) and B, with every device type, with and without PCI bus info. */
async function twoMockDrivers(): Promise<{ env: MockEnvironment; vars: Record<string, string> }> {
  const env = await MockEnvironment.create();
  await env.addDriver({
    name: "A",
    physicalDevices: [
      { name: "A-cpu", type: "cpu", vendorId: 0x10, deviceId: 1 },
      { name: "A-integrated", type: "integrated", vendorId: 0x10, deviceId: 2 },
      { name: "A-virtual", type: "virtual", vendorId: 0x10, deviceId: 3 },
    ],
  });
  await env.addDriver({
    name: "B",
    physicalDevices: [
      { name: "B-other", type: "other", vendorId: 0x20, deviceId: 1 },
      {
        name: "B-discrete-pci-4",
        type: "discrete",
        vendorId: 0x20,
        deviceId: 2,
        pciBus: { domain: 0, bus: 4, device: 0, function: 0 },
      },
      { name: "B-discrete", type: "discrete", vendorId: 0x20, deviceId: 3 },
      {
        name: "B-discrete-pci-3",
        type: "discrete",
        vendorId: 0x20,
        deviceId: 4,
        pciBus: { domain: 0, bus: 3, device: 0, function: 1 },
      },
    ],
  });
  const s = env.snapshot();
  return {
    env,
    vars: {
      HOME: s.vars.HOME!,
      VK_DRIVER_FILES: s.vars.VK_DRIVER_FILES!,
      VK_LOADER_LAYERS_DISABLE: "~implicit~",
    },
  };
}

Deno.test("unsorted, libvulkan1 lists drivers in reverse discovery order, each driver's devices in its order", async () => {
  const { env, vars } = await twoMockDrivers();
  try {
    const unsorted = await khronos({ ...vars, VK_LOADER_DISABLE_SELECT: "1" });
    assertEquals(names(unsorted.devices), [
      "B-other",
      "B-discrete-pci-4",
      "B-discrete",
      "B-discrete-pci-3",
      "A-cpu",
      "A-integrated",
      "A-virtual",
    ]);
    assertEquals(unsorted.groups, unsorted.devices.map((_, i) => [i]));
    const ours = vkdeno({ ...vars, VK_LOADER_DISABLE_SELECT: "1" });
    assertEquals(ours, { names: names(unsorted.devices), groups: unsorted.groups });
  } finally {
    env.dispose();
  }
});

Deno.test("two mock drivers, every type, with and without PCI: the policy matches libvulkan1 for each select", async () => {
  const { env, vars } = await twoMockDrivers();
  try {
    const unsorted = (await khronos({ ...vars, VK_LOADER_DISABLE_SELECT: "1" })).devices;
    const sorted = await khronos(vars);
    assertEquals(names(sorted.devices), [
      "B-discrete-pci-3",
      "B-discrete-pci-4",
      "B-discrete",
      "A-integrated",
      "A-virtual",
      "B-other",
      "A-cpu",
    ]);
    assertEquals(policyOrder(unsorted, vars), names(sorted.devices));
    // Groups follow the same order (one group per device here).
    assertEquals(sorted.groups, sorted.devices.map((_, i) => [i]));
    for (const d of unsorted) {
      const select = {
        ...vars,
        VK_LOADER_DEVICE_SELECT: `${d.vendorID.toString(16)}:${d.deviceID.toString(16)}`,
      };
      const selected = await khronos(select);
      assertEquals(selected.devices[0]!.name, d.name);
      assertEquals(policyOrder(unsorted, select), names(selected.devices), d.name);
      assertEquals(vkdeno(select), { names: names(selected.devices), groups: selected.groups }, d.name);
    }
    assertEquals(vkdeno(vars), { names: names(sorted.devices), groups: sorted.groups });
  } finally {
    env.dispose();
  }
});

Deno.test("an application at Vulkan 1.0 still gets sorted devices when its drivers have properties2 (libvulkan1)", async () => {
  const { env, vars } = await twoMockDrivers();
  try {
    const app10 = await khronos(vars, 0);
    const app11 = await khronos(vars, 1);
    assertEquals(names(app10.devices), names(app11.devices));
    assertEquals(vkdeno(vars, 0).names, names(app10.devices));
  } finally {
    env.dispose();
  }
});

Deno.test('VK_LOADER_DEVICE_SELECT is read like sscanf("%x:%x") in both loaders (trailing text, blanks, 0x)', async () => {
  const { env, vars } = await twoMockDrivers();
  try {
    const plain = names((await khronos(vars)).devices);
    const selects: [string, boolean][] = [
      ["10:1zzz", true],
      ["10: 1", true],
      ["0x10:0X1", true],
      ["010:001", true],
      [" 10 : 1", false],
      ["10 :1", false],
      ["x10:1", false],
      ["10:", false],
      ["zz", false],
    ];
    for (const [value, selected] of selects) {
      const select = { ...vars, VK_LOADER_DEVICE_SELECT: value };
      const theirs = names((await khronos(select)).devices);
      assertEquals(theirs[0] === "A-cpu", selected, value);
      if (!selected) assertEquals(theirs, plain, value);
      assertEquals(vkdeno(select).names, theirs, value);
    }
  } finally {
    env.dispose();
  }
});

Deno.test("VK_LOADER_DISABLE_SELECT is read like atoi() in both loaders (non-zero turns sorting off)", async () => {
  const { env, vars } = await twoMockDrivers();
  try {
    const sorted = names((await khronos(vars)).devices);
    const values: [string, boolean][] = [["1", true], ["-1", true], [" 2x", true], ["0", false], [
      "abc",
      false,
    ], ["", false]];
    for (const [value, off] of values) {
      const disable = { ...vars, VK_LOADER_DISABLE_SELECT: value };
      const theirs = names((await khronos(disable)).devices);
      assertEquals(theirs[0] === "B-other", off, value);
      if (!off) assertEquals(theirs, sorted, value);
      assertEquals(vkdeno(disable).names, theirs, value);
    }
  } finally {
    env.dispose();
  }
});

Deno.test("without properties2 on any driver the order is the loader's, in both loaders (app 1.0, or 1.0 drivers)", async () => {
  for (const apiVersion of ["1.0.0", "1.3.0"]) {
    await using env = await MockEnvironment.create();
    for (const name of ["A", "B"]) {
      await env.addDriver({
        name,
        apiVersion,
        instanceExtensions: ["VK_KHR_surface"],
        physicalDevices: [
          { name: `${name}-cpu`, type: "cpu", vendorId: 0x10, deviceId: name === "A" ? 1 : 2 },
          { name: `${name}-discrete`, type: "discrete", vendorId: 0x10, deviceId: name === "A" ? 3 : 4 },
        ],
      });
    }
    const s = env.snapshot();
    const vars = {
      HOME: s.vars.HOME!,
      VK_DRIVER_FILES: s.vars.VK_DRIVER_FILES!,
      VK_LOADER_LAYERS_DISABLE: "~implicit~",
    };
    const loaderOrder = ["B-cpu", "B-discrete", "A-cpu", "A-discrete"];
    const app10 = names((await khronos(vars, 0)).devices);
    const app11 = names((await khronos(vars, 1)).devices);
    assertEquals(app10, loaderOrder, `drivers ${apiVersion}, app 1.0`);
    assertEquals(vkdeno(vars, 0).names, app10, `drivers ${apiVersion}, app 1.0`);
    // An app at 1.1 sorts only when a driver is 1.1 too.
    assertEquals(
      app11,
      apiVersion === "1.0.0" ? loaderOrder : ["A-discrete", "B-discrete", "A-cpu", "B-cpu"],
      apiVersion,
    );
    assertEquals(vkdeno(vars, 1).names, app11, `drivers ${apiVersion}, app 1.1`);
  }
});
