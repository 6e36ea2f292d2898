/**
 * Drivers the application hands over: `VK_LUNARG_direct_driver_loading` (exclusive and inclusive modes,
 * ordering after found drivers, interface 7 required, the VK_LOADER_DEBUG lines) and
 * `Vulkan.load({ drivers })` with library and manifest paths; lavapipe loaded directly runs the compute
 * example. Checked against LoaderDriverInterface.md (Debian's libvulkan1 1.3.239 predates the extension).
 */

import { deepStrictEqual as assertEquals, match as assertMatch, ok as assert } from "node:assert/strict";
import { Library } from "../../ffi/library.ts";
import { readStruct, writeStruct } from "../../api/structs.ts";
import { Arena, type Pointer, readPointer } from "../../ffi/memory.ts";
import { Logger } from "../../loading/log.ts";
import { Vulkan } from "../../vulkan.ts";
import { loadedDriverCount } from "../../loading/driver.ts";
import { runCompute } from "../../examples/compute.ts";
import type { EnvironmentSnapshot } from "../../discovery/environment.ts";
import { type Loaded, physicalDevices } from "../support/chain.ts";
import { MockEnvironment } from "../support/mock.ts";
import { asHandle } from "../../vk/handle.ts";
import type { VkDirectDriverLoadingModeLUNARG } from "../../mod.ts";
import { LAVAPIPE_LIBRARY } from "../support/lavapipe.ts";

const EXT = "VK_LUNARG_direct_driver_loading";
const EXCLUSIVE = 0;
const INCLUSIVE = 1;

function loadWith(
  env: EnvironmentSnapshot,
  options: { drivers?: string[]; driversMode?: "exclusive" | "inclusive" } = {},
): Loaded {
  const lines: string[] = [];
  const logger = new Logger({ ...env, vars: { VK_LOADER_DEBUG: "all", ...env.vars } }, {
    write: (line) => lines.push(line),
  });
  const vk = Vulkan.load({ env, logger, ...options });
  const arena = new Arena();
  return {
    vk,
    lines,
    arena,
    [Symbol.dispose]() {
      vk.dispose();
      arena.dispose();
    },
  };
}

/** vkCreateInstance with the extension (unless `enable` is false) and a direct driver list in pNext. */
function createDirect(
  l: Loaded,
  gipas: Pointer[],
  mode: number,
  enable = true,
): { result: number; instance: Pointer } {
  const a = l.arena;
  const infos = a.alloc(32 * Math.max(1, gipas.length));
  const base = a.pointer(infos);
  gipas.forEach((g, i) => {
    const bytes = new DataView(infos.buffer, infos.byteOffset + i * 32, 32);
    bytes.setUint32(0, 1000459000, true);
    bytes.setBigUint64(24, g === null ? 0n : BigInt(Deno.UnsafePointer.value(g)), true);
  });
  const list = writeStruct(a, "VkDirectDriverLoadingListLUNARG", {
    mode: mode as VkDirectDriverLoadingModeLUNARG,
    driverCount: gipas.length,
    pDrivers: base,
  });
  const extensions = enable ? [EXT] : [];
  const ci = writeStruct(a, "VkInstanceCreateInfo", {
    pNext: list,
    enabledExtensionCount: extensions.length,
    ppEnabledExtensionNames: a.cstringArray(extensions),
  });
  const out = a.pointer(a.alloc(8));
  const result = l.vk.vkCreateInstance(ci, null, out) as number;
  return { result, instance: readPointer(out, 0) };
}

function deviceNames(l: Loaded, instance: Pointer): string[] {
  return physicalDevices(l, asHandle("VkInstance", instance)!).map((pd) => {
    const props = l.arena.pointer(l.arena.alloc(1024));
    l.vk.vkGetPhysicalDeviceProperties(pd, props);
    return String(readStruct("VkPhysicalDeviceProperties", props).deviceName);
  });
}

async function setup() {
  const env = await MockEnvironment.create();
  await env.addDriver(
    { name: "system", physicalDevices: [{ name: "System GPU", type: "cpu" }] },
    { placement: { system: "usr/share/vulkan/icd.d" } },
  );
  const direct = await env.addDriver(
    { name: "direct", physicalDevices: [{ name: "Direct GPU", type: "discrete" }] },
    { placement: "none" },
  );
  const library = Library.open(direct.libraryPath);
  const gipa = library.symbolAddress("vk_icdGetInstanceProcAddr");
  assert(gipa !== null);
  return { env, direct, library, gipa };
}

Deno.test("VK_LUNARG_direct_driver_loading is listed as a loader instance extension", async () => {
  await using env = await MockEnvironment.create();
  using l = loadWith(env.snapshot({ VK_DRIVER_FILES: "" }));
  const count = new Uint32Array(1);
  assertEquals(l.vk.vkEnumerateInstanceExtensionProperties(null, Deno.UnsafePointer.of(count), null), 0);
  const props = new Uint8Array(260 * count[0]!);
  l.vk.vkEnumerateInstanceExtensionProperties(
    null,
    Deno.UnsafePointer.of(count),
    Deno.UnsafePointer.of(props),
  );
  const names = Array.from({ length: count[0]! }, (_, i) => {
    const s = props.subarray(i * 260, i * 260 + 256);
    return new TextDecoder().decode(s.subarray(0, s.indexOf(0)));
  });
  assert(names.includes(EXT), names.join(","));
});

Deno.test("exclusive mode: only the given driver, driver variables have no effect, the debug line says so", async () => {
  const { env, library, gipa } = await setup();
  try {
    // VK_DRIVER_FILES would otherwise replace the search; exclusive mode ignores every driver source.
    using l = loadWith(
      env.snapshot({ VK_DRIVER_FILES: env.drivers[0]!.manifestPath, VK_LOADER_DRIVERS_DISABLE: "*" }),
    );
    const { result, instance } = createDirect(l, [gipa], EXCLUSIVE);
    assertEquals(result, 0, l.lines.join("\n"));
    assertEquals(deviceNames(l, instance), ["Direct GPU"]);
    assert(l.lines.some((x) => /VK_DIRECT_DRIVER_LOADING_MODE_EXCLUSIVE_LUNARG: skipping system/.test(x)));
    assert(
      l.lines.some((x) =>
        /DRIVER: +Adding the driver in VkDirectDriverLoadingListLUNARG::pDrivers\[0\]/.test(x)
      ),
    );
    assertEquals(env.callLog("system"), []);
    l.vk.vkDestroyInstance(asHandle("VkInstance", instance), null);
  } finally {
    library.close();
    env.dispose();
  }
});

Deno.test("inclusive mode: the found and the given drivers' devices together, vkCreateInstance in the Khronos loader's scan order", async () => {
  const { env, library, gipa } = await setup();
  try {
    // (Device sorting may reorder the devices themselves: the discrete direct device comes first here.)
    using l = loadWith(env.snapshot());
    const { result, instance } = createDirect(l, [gipa], INCLUSIVE);
    assertEquals(result, 0, l.lines.join("\n"));
    const names = deviceNames(l, instance);
    assertEquals([...names].sort(), ["Direct GPU", "System GPU"]);
    // vkCreateInstance goes down in the Khronos loader's scan order: direct drivers first (loader_icd_scan),
    // which listing reverses so that their devices come after (the next test pins that order).
    const order = env.callLog().filter((x) => x.split(" ")[1] === "vkCreateInstance").map((x) =>
      x.split(" ")[0]
    );
    assertEquals(order, ["direct", "system"]);
    l.vk.vkDestroyInstance(asHandle("VkInstance", instance), null);
  } finally {
    library.close();
    env.dispose();
  }
});

/**
 * Two found drivers (VK_DRIVER_FILES, in that order) and two drivers the application gives, one CPU device
 * each. With sorting off (VK_LOADER_DISABLE_SELECT), the order is the loader's own: docs/behaviour.md A16
 * (drivers are prepended, so unsorted devices come in reverse discovery order) and D10 (inclusive: the given
 * drivers' devices enumerate after the system drivers'). The Khronos loader scans the direct drivers first,
 * in pDrivers order, then the manifests, and prepends each: found drivers reversed, then given ones reversed.
 */
async function inclusiveSetup() {
  const env = await MockEnvironment.create();
  for (const name of ["found0", "found1"]) {
    await env.addDriver({ name, physicalDevices: [{ name: `${name} CPU`, type: "cpu" }] });
  }
  const given = [];
  for (const name of ["given0", "given1"]) {
    given.push(
      await env.addDriver({ name, physicalDevices: [{ name: `${name} CPU`, type: "cpu" }] }, {
        placement: "none",
      }),
    );
  }
  return { env, given };
}

const LOADER_ORDER = ["found1 CPU", "found0 CPU", "given1 CPU", "given0 CPU"];

Deno.test("inclusive mode, sorting off: found drivers' devices in reverse discovery order, then the given drivers' in reverse pDrivers order", async () => {
  const { env, given } = await inclusiveSetup();
  const libraries = given.map((g) => Library.open(g.libraryPath));
  try {
    using l = loadWith(env.snapshot({ VK_LOADER_DISABLE_SELECT: "1" }));
    const gipas = libraries.map((lib) => lib.symbolAddress("vk_icdGetInstanceProcAddr"));
    const { result, instance } = createDirect(l, gipas, INCLUSIVE);
    assertEquals(result, 0, l.lines.join("\n"));
    assertEquals(deviceNames(l, instance), LOADER_ORDER);
    l.vk.vkDestroyInstance(asHandle("VkInstance", instance), null);
    // With sorting on the type decides first: a discrete given driver comes before the found CPUs.
    const discrete = await env.addDriver(
      { name: "given_gpu", physicalDevices: [{ name: "given GPU", type: "discrete" }] },
      { placement: "none" },
    );
    using gpu = Library.open(discrete.libraryPath);
    using sorted = loadWith(env.snapshot());
    const both = createDirect(sorted, [...gipas, gpu.symbolAddress("vk_icdGetInstanceProcAddr")], INCLUSIVE);
    assertEquals(both.result, 0, sorted.lines.join("\n"));
    assertEquals(deviceNames(sorted, both.instance)[0], "given GPU");
    sorted.vk.vkDestroyInstance(asHandle("VkInstance", both.instance), null);
  } finally {
    for (const lib of libraries) lib.close();
    env.dispose();
  }
});

Deno.test("Vulkan.load({ drivers, driversMode: \"inclusive\" }), sorting off: the given drivers' devices after the found ones, as the extension's", async () => {
  const { env, given } = await inclusiveSetup();
  try {
    using l = loadWith(env.snapshot({ VK_LOADER_DISABLE_SELECT: "1" }), {
      drivers: given.map((g) => g.libraryPath),
      driversMode: "inclusive",
    });
    const { result, instance } = createDirect(l, [], INCLUSIVE, false);
    assertEquals(result, 0, l.lines.join("\n"));
    assertEquals(deviceNames(l, instance), LOADER_ORDER);
    l.vk.vkDestroyInstance(asHandle("VkInstance", instance), null);
  } finally {
    env.dispose();
  }
});

Deno.test("a list without the extension enabled is ignored with a warning; a NULL or pre-7 driver is skipped by index", async () => {
  const { env, library, gipa } = await setup();
  const old = await env.addDriver({ name: "old", interfaceVersion: 5, physicalDevices: [{ name: "Old" }] }, {
    placement: "none",
  });
  const oldLibrary = Library.open(old.libraryPath);
  try {
    using l = loadWith(env.snapshot());
    const off = createDirect(l, [gipa], EXCLUSIVE, false);
    assertEquals(off.result, 0);
    assertEquals(deviceNames(l, off.instance), ["System GPU"]);
    assert(
      l.lines.some((x) =>
        /holds a VkDirectDriverLoadingListLUNARG but the application did not enable/.test(x)
      ),
    );
    l.vk.vkDestroyInstance(asHandle("VkInstance", off.instance), null);
    l.lines.length = 0;
    const mixed = createDirect(
      l,
      [null, oldLibrary.symbolAddress("vk_icdGetInstanceProcAddr"), gipa],
      EXCLUSIVE,
    );
    assertEquals(mixed.result, 0, l.lines.join("\n"));
    assertEquals(deviceNames(l, mixed.instance), ["Direct GPU"]);
    assert(l.lines.some((x) => /pDrivers\[0\]: pfnGetInstanceProcAddr is NULL/.test(x)), l.lines.join("\n"));
    assert(
      l.lines.some((x) => /pDrivers\[1\]: .*vk_icdNegotiateLoaderICDInterfaceVersion/.test(x)),
      l.lines.join("\n"),
    );
    l.vk.vkDestroyInstance(asHandle("VkInstance", mixed.instance), null);
    // Nothing usable in exclusive mode: no driver at all.
    assertEquals(createDirect(l, [null], EXCLUSIVE).result, -9);
  } finally {
    oldLibrary.close();
    library.close();
    env.dispose();
  }
});

Deno.test("a driver answering an interface version above the 7 offered is skipped by index", async () => {
  const { env, library, gipa } = await setup();
  const above = await env.addDriver({
    name: "above",
    physicalDevices: [{ name: "Above" }],
    negotiateAnswer: 8,
  }, {
    placement: "none",
  });
  const aboveLibrary = Library.open(above.libraryPath);
  try {
    using l = loadWith(env.snapshot());
    const { result, instance } = createDirect(
      l,
      [aboveLibrary.symbolAddress("vk_icdGetInstanceProcAddr"), gipa],
      EXCLUSIVE,
    );
    assertEquals(result, 0, l.lines.join("\n"));
    assertEquals(deviceNames(l, instance), ["Direct GPU"]);
    assert(l.lines.some((x) => /pDrivers\[0\]: it supports interface version 8/.test(x)), l.lines.join("\n"));
    l.vk.vkDestroyInstance(asHandle("VkInstance", instance), null);
  } finally {
    aboveLibrary.close();
    library.close();
    env.dispose();
  }
});

Deno.test("Vulkan.load({ drivers }): a library path or a manifest path, exclusive by default, inclusive on request", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "system", physicalDevices: [{ name: "System GPU" }] }, {
    placement: { system: "usr/share/vulkan/icd.d" },
  });
  const given = await env.addDriver({ name: "given", physicalDevices: [{ name: "Given GPU" }] }, {
    placement: "none",
  });
  const before = loadedDriverCount();
  for (const path of [given.libraryPath, given.manifestPath]) {
    using l = loadWith(env.snapshot(), { drivers: [path] });
    const { result, instance } = createDirect(l, [], INCLUSIVE, false);
    assertEquals(result, 0, l.lines.join("\n"));
    assertEquals(deviceNames(l, instance), ["Given GPU"], path);
    l.vk.vkDestroyInstance(asHandle("VkInstance", instance), null);
  }
  using l = loadWith(env.snapshot(), { drivers: [given.libraryPath], driversMode: "inclusive" });
  const { result, instance } = createDirect(l, [], INCLUSIVE, false);
  assertEquals(result, 0);
  assertEquals(deviceNames(l, instance).sort(), ["Given GPU", "System GPU"]);
  l.vk.vkDestroyInstance(asHandle("VkInstance", instance), null);
  assertEquals(loadedDriverCount(), before);
  // A path that is not there: logged, and no driver.
  using bad = loadWith(env.snapshot(), { drivers: [env.path("nope.json")] });
  assertEquals(createDirect(bad, [], INCLUSIVE, false).result, -9);
  assert(bad.lines.some((x) => x.includes(`Skipping driver manifest "${env.path("nope.json")}"`)));
});

Deno.test("lavapipe loaded directly by library path runs the compute example; through the extension it is refused as pre-7", () => {
  try {
    Deno.statSync(LAVAPIPE_LIBRARY);
  } catch {
    throw new Error(
      `Lavapipe is not installed at "${LAVAPIPE_LIBRARY}" (Debian package mesa-vulkan-drivers)`,
    );
  }
  // Nothing from the system: the root points nowhere.
  const env: EnvironmentSnapshot = { vars: {}, elevated: false, root: "/nonexistent" };
  using vk = Vulkan.load({ env, drivers: [LAVAPIPE_LIBRARY], logger: new Logger(env, { write: () => {} }) });
  const report = runCompute(vk, { count: 65536 });
  assertEquals(report.wrong, 0);
  assertMatch(report.device.name, /llvmpipe/);
  // Mesa 22.3's vk_icdGetInstanceProcAddr does not answer the negotiate function: the extension's rule
  // (interface 7 through that pointer) refuses it, as the Khronos loader does.
  const library = Library.open(LAVAPIPE_LIBRARY);
  try {
    using l = loadWith(env);
    assertEquals(createDirect(l, [library.symbolAddress("vk_icdGetInstanceProcAddr")], EXCLUSIVE).result, -9);
    assert(l.lines.some((x) => /pDrivers\[0\]: its vkGetInstanceProcAddr does not give/.test(x)));
  } finally {
    library.close();
  }
});
