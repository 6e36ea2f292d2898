/**
 * The vkdeno side of the fault catalogue, one fault per process: prints "ok" or the failed expectation.
 *
 * @module
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { Logger, Vulkan } from "../../mod.ts";
import type { EnvironmentSnapshot } from "../../discovery/environment.ts";
import { Arena } from "../../ffi/memory.ts";
import { enumerate, makeApiVersion, writeStruct } from "../../api/structs.ts";
import {
  buildFaultLibraries,
  faultVariables,
  LIBRARY_FAULTS,
  type LibraryFault,
  MockEnvironment,
} from "./reliability_faults.ts";
import { loadCounters, resourceCounts } from "./reliability_soak.ts";
import { asHandle } from "../../vk/handle.ts";

await loadCounters();

/** What one run through vkdeno gave. */
interface Run {
  createInstance: number;
  enumerate?: number;
  /** Device name -> vkCreateDevice result. */
  devices: Record<string, number>;
  /** Every message logged at info, warn or error, as `<level>: <text>`. */
  log: string[];
}

function deviceName(props: Uint8Array): string {
  const name = new TextDecoder().decode(props.subarray(20, props.indexOf(0, 20)));
  return name.startsWith("llvmpipe") ? "llvmpipe" : name;
}

/** Instance, physical devices, a device on each, everything destroyed. */
function run(env: EnvironmentSnapshot, layers: readonly string[] = []): Run {
  const log: string[] = [];
  const logger = new Logger(env, { write: () => {} });
  logger.addSink((r) => {
    if (r.level !== undefined && r.level !== "debug") log.push(`${r.level}: ${r.text}`);
  });
  using vk = Vulkan.load({ env, logger });
  using arena = new Arena();
  const slot = new BigUint64Array(new ArrayBuffer(8));
  const createInstance = vk.vkCreateInstance(
    writeStruct(arena, "VkInstanceCreateInfo", {
      pApplicationInfo: { apiVersion: makeApiVersion(1, 3) },
      ppEnabledLayerNames: [...layers],
    }),
    null,
    Deno.UnsafePointer.of(slot),
  ) as number;
  const out: Run = { createInstance, devices: {}, log };
  if (createInstance !== 0) return out;
  const instance = asHandle("VkInstance", Deno.UnsafePointer.create(slot[0]!))!;
  try {
    const count = new Uint32Array(new ArrayBuffer(4));
    out.enumerate = vk.vkEnumeratePhysicalDevices(
      instance,
      Deno.UnsafePointer.of(count),
      null,
    ) as number;
    if (out.enumerate !== 0) return out;
    for (
      const pd of enumerate(vk.vkEnumeratePhysicalDevices, [instance], { name: "vkEnumeratePhysicalDevices" })
    ) {
      const props = arena.alloc(824);
      vk.vkGetPhysicalDeviceProperties(pd, arena.pointer(props));
      const device = new BigUint64Array(new ArrayBuffer(8));
      const r = vk.vkCreateDevice(
        pd,
        writeStruct(arena, "VkDeviceCreateInfo", {
          pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
        }),
        null,
        Deno.UnsafePointer.of(device),
      ) as number;
      out.devices[deviceName(props)] = r;
      if (r === 0) vk.vkDestroyDevice(asHandle("VkDevice", Deno.UnsafePointer.create(device[0]!)), null);
    }
  } finally {
    vk.vkDestroyInstance(instance, null);
  }
  return out;
}

/** What vkdeno must do for each fault. */
interface Expected {
  /** The result, any negative one, or anything (then only "no crash, the rest works" is checked). */
  createInstance: number | "error" | "any";
  devices?: Record<string, number>;
  /** A message naming the culprit and matching this, logged at `level` or above (default warn). */
  log?: RegExp;
  level?: "info" | "warn";
}

const LOADS_AND_SKIPS: Expected = { createInstance: 0, devices: { llvmpipe: 0 } };

/** What vkdeno must do, by fault id. */
export const EXPECTED: Record<string, Expected> = {
  library_missing: { ...LOADS_AND_SKIPS, log: /could not be loaded: .*No such file/ },
  not_elf: { ...LOADS_AND_SKIPS, log: /could not be loaded: .*(file too short|invalid ELF header)/ },
  wrong_class: { ...LOADS_AND_SKIPS, log: /could not be loaded: .*wrong ELF class/ },
  wrong_machine: { ...LOADS_AND_SKIPS, log: /could not be loaded/ },
  missing_dependency: { ...LOADS_AND_SKIPS, log: /could not be loaded: .*libreliab_gone\.so/ },
  missing_exports: { ...LOADS_AND_SKIPS, log: /exports neither "vk_icdGetInstanceProcAddr"/ },
  negotiation_fails: { ...LOADS_AND_SKIPS, log: /negotiation failed with VkResult "-9"/ },
  impossible_version: { ...LOADS_AND_SKIPS, log: /interface version "99", newer than the "7" offered/ },
  null_gipa_create_instance: { ...LOADS_AND_SKIPS, log: /"vkCreateInstance" is missing/ },
  null_gipa_enumerate: { ...LOADS_AND_SKIPS, log: /lacks "vkEnumeratePhysicalDevices"/ },
  // stricter than the Khronos loader: the device without the magic is refused (destroyed, logged)
  no_loader_magic: {
    createInstance: 0,
    devices: { "Mock Device 0": -3, llvmpipe: 0 },
    log: /without ICD_LOADER_MAGIC/,
  },
  create_instance_fails: { ...LOADS_AND_SKIPS, log: /vkCreateInstance failed with "-3"/ },
  // unlike the Khronos loader (whole enumeration fails), the failing driver is skipped
  enumerate_fails: { ...LOADS_AND_SKIPS, log: /vkEnumeratePhysicalDevices failed with "-3"/ },
  create_device_fails: {
    createInstance: 0,
    devices: { "Reliab failing device": -3, llvmpipe: 0 },
    // logged at error, as by the Khronos loader (docs/behaviour.md G11)
    log: /vkCreateDevice failed with "-3"/,
  },
  layer_chain_error: { createInstance: -3 },
  layer_device_error: { createInstance: 0, devices: { llvmpipe: -3 } },
  layer_error_after_down: { createInstance: -3 },
  // detected: the terminator was never reached (the Khronos loader crashes later, SIGSEGV)
  layer_no_call_down: { createInstance: "error", log: /without calling down the chain/ },
  layer_null_create: { createInstance: "error", log: /has no vkCreateInstance/ },
  layer_impossible_version: { ...LOADS_AND_SKIPS, log: /interface version 99, newer than the offered 2/ },
  // requested (VK_INSTANCE_LAYERS): logged at error, as by the Khronos loader; the instance is made without it
  layer_library_missing: { ...LOADS_AND_SKIPS, log: /failed to load: .*libnone\.so/ },
};

async function check(fault: LibraryFault): Promise<void> {
  const build = await buildFaultLibraries();
  await using env = await MockEnvironment.create();
  const setup = await fault.setup(env, build);
  const snapshot: EnvironmentSnapshot = {
    vars: faultVariables(env, setup),
    elevated: false,
    root: env.path("root"),
  };
  const before = resourceCounts();
  const got = run(snapshot);
  const want = EXPECTED[fault.id]!;
  if (want.createInstance === "error") {
    assert(got.createInstance < 0, `vkCreateInstance gave ${got.createInstance}`);
  } else if (want.createInstance !== "any") {
    assertEquals(got.createInstance, want.createInstance, got.log.join("\n"));
  }
  if (want.devices) assertEquals(got.devices, want.devices);
  if (want.log) {
    // named by its manifest file or its library (drivers), or by its layer name (layers)
    const names = [setup.culprit, ...setup.driverManifests].map((p) => p.slice(p.lastIndexOf("/") + 1));
    const levels = want.level === "info" ? /^(info|warn|error): / : /^(warn|error): /;
    const line = got.log.find((l) => levels.test(l) && want.log!.test(l));
    assert(
      line,
      `nothing logged at ${want.level ?? "warn"} or above matching ${want.log} in:\n${got.log.join("\n")}`,
    );
    const mentions = got.log.some((l) =>
      levels.test(l) && want.log!.test(l) && names.some((n) => l.includes(n))
    );
    assert(mentions, `the message names none of "${names.join('", "')}": ${line}`);
  }
  // The rest still works: lavapipe alone (no fault in the environment) in the same process.
  if (got.createInstance !== 0 || setup.instanceLayers) {
    const clean = { ...snapshot.vars };
    delete clean["VK_INSTANCE_LAYERS"];
    const again = run({ ...snapshot, vars: clean });
    assertEquals([again.createInstance, again.devices["llvmpipe"]], [0, 0]);
  }
  // Nothing left behind by the fault or its clean-up.
  const after = resourceCounts();
  assertEquals(
    {
      callbacks: after.callbacks,
      layerLibraries: after.layerLibraries,
      drivers: after.drivers,
      tables: after.tables,
    },
    {
      callbacks: before.callbacks,
      layerLibraries: before.layerLibraries,
      drivers: before.drivers,
      tables: before.tables,
    },
  );
}

/**
 * Runs one fault of the catalogue through vkdeno and checks the expectations.
 *
 * @throws {AssertionError} When vkdeno does not do what {@linkcode EXPECTED} says.
 */
export function checkFault(id: string): Promise<void> {
  const fault = LIBRARY_FAULTS.find((f) => f.id === id);
  if (!fault) throw new RangeError(`Unknown fault "${id}"`);
  return check(fault);
}

if (import.meta.main) {
  try {
    await checkFault(Deno.args[0] ?? "");
    console.log("ok");
  } catch (error) {
    console.log(error instanceof Error ? error.message : String(error));
    Deno.exit(1);
  }
}
