/**
 * VK_KHR_portability_enumeration as pure decisions (chain/extensions/portability.ts): which drivers an instance uses
 * for flag only, extension only, both and neither, with mixed drivers; the per-driver flag stripping; and
 * one distinct message per misuse.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import {
  decidePortability,
  driverPortabilityInfo,
  PORTABILITY_ENUMERATION_EXTENSION as EXT,
  portabilityError,
  VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR as FLAG,
} from "../../../chain/extensions/portability.ts";
import { allocStruct, readStruct } from "../../../api/structs.ts";
import { MockEnvironment } from "../../support/mock.ts";
import { createInstance, fields, load, type Loaded, physicalDevices } from "../../support/chain.ts";
import { buildProgram } from "../../support/c_build.ts";
import { asHandle } from "../../../vk/handle.ts";

const REGULAR = { fileName: "lvp_icd.x86_64.json", isPortabilityDriver: false };
const PORTABLE = { fileName: "MoltenVK_icd.json", isPortabilityDriver: true };
const PORTABLE2 = { fileName: "kosmickrisp_icd.json", isPortabilityDriver: true };
const MIXED = [PORTABLE, REGULAR, PORTABLE2];

const BOTH = { flags: FLAG, enabledExtensions: ["VK_KHR_surface", EXT] };
const FLAG_ONLY = { flags: FLAG, enabledExtensions: ["VK_KHR_surface"] };
const EXT_ONLY = { flags: 0, enabledExtensions: [EXT] };
const NEITHER = { flags: 0, enabledExtensions: [] };

const fileNames = (list: readonly { fileName: string }[]) => list.map((d) => d.fileName);

Deno.test("portability drivers are used when the flag is set and the extension enabled", () => {
  const d = decidePortability(MIXED, BOTH);
  assert(d.enumeratePortability);
  assertEquals(fileNames(d.used), fileNames(MIXED));
  assertEquals(d.skipped, []);
  assertEquals(d.messages.map((m) => m.level), ["info"]);
  assertEquals(portabilityError(d), undefined);
});

Deno.test("flag without the extension: portability drivers left out, VUID warning even with other drivers", () => {
  const d = decidePortability(MIXED, FLAG_ONLY);
  assert(!d.enumeratePortability);
  assertEquals(fileNames(d.used), [REGULAR.fileName]);
  assertEquals(fileNames(d.skipped.map((s) => s.driver)), [PORTABLE.fileName, PORTABLE2.fileName]);
  const warn = d.messages.filter((m) => m.level === "warn");
  assertEquals(warn.length, 1);
  assert(warn[0]!.text.includes("VUID-VkInstanceCreateInfo-flags-06559"), warn[0]!.text);
  assertEquals(
    d.skipped[0]!.why,
    `it is a portability driver ("is_portability_driver": true) and "${EXT}" is not enabled`,
  );
  // Invalid usage is reported even when there is no portability driver at all.
  assert(decidePortability([REGULAR], FLAG_ONLY).messages.some((m) => m.text.includes("06559")));
});

Deno.test("extension without the flag: portability drivers left out, one warning naming them", () => {
  const d = decidePortability(MIXED, EXT_ONLY);
  assertEquals(fileNames(d.used), [REGULAR.fileName]);
  const warn = d.messages.filter((m) => m.level === "warn");
  assertEquals(warn.length, 1);
  assert(warn[0]!.text.includes('"MoltenVK_icd.json", "kosmickrisp_icd.json"'), warn[0]!.text);
  assert(warn[0]!.text.includes("lacks VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR"), warn[0]!.text);
  assertEquals(decidePortability([REGULAR], EXT_ONLY).messages, []);
});

Deno.test("neither flag nor extension: portability drivers left out quietly (info lines only)", () => {
  const d = decidePortability(MIXED, NEITHER);
  assertEquals(fileNames(d.used), [REGULAR.fileName]);
  assertEquals(d.messages.map((m) => m.level), ["info", "info"]);
  assertEquals(
    d.messages[0]!.text,
    'Driver "MoltenVK_icd.json" not used: it is a portability driver ("is_portability_driver": true) and ' +
      `VkInstanceCreateInfo.flags lacks VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR and "${EXT}" is not enabled`,
  );
  assertEquals(decidePortability([REGULAR], NEITHER).messages, []);
});

Deno.test("only portability drivers: each misuse fails with VK_ERROR_INCOMPATIBLE_DRIVER and its own message", () => {
  const errors = [FLAG_ONLY, EXT_ONLY, NEITHER].map((request) => {
    const d = decidePortability([PORTABLE], request);
    assertEquals(d.used, []);
    const e = portabilityError(d)!;
    assertEquals([e.result, e.code], ["VK_ERROR_INCOMPATIBLE_DRIVER", -9]);
    assert(
      e.message.startsWith(
        'Cannot create instance: the only drivers found are portability drivers ("MoltenVK_icd.json")',
      ),
    );
    return e.message;
  });
  assertEquals(new Set(errors).size, 3);
  assert(
    errors[0]!.includes("VUID-VkInstanceCreateInfo-flags-06559") &&
      errors[0]!.endsWith("enable the extension to use them"),
  );
  assert(errors[1]!.endsWith("set the flag to use them"), errors[1]);
  assert(
    errors[2]!.includes("set VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR") &&
      errors[2]!.includes(`"${EXT}"`),
  );
  assertEquals(portabilityError(decidePortability([PORTABLE], BOTH)), undefined);
  assertEquals(portabilityError(decidePortability([], NEITHER)), undefined);
});

Deno.test("the flag counts only as bit 0x1; other flag bits do not opt in", () => {
  assert(!decidePortability([PORTABLE], { flags: 0x2, enabledExtensions: [EXT] }).enumeratePortability);
  assert(decidePortability([PORTABLE], { flags: 0x3, enabledExtensions: [EXT] }).enumeratePortability);
});

Deno.test("the portability flag is stripped for drivers without the extension and kept for those with it", () => {
  const without = driverPortabilityInfo(BOTH, {
    fileName: "lvp.json",
    instanceExtensions: ["VK_KHR_surface"],
  });
  assertEquals([without.flags, without.flagStripped, without.passExtension], [0, true, false]);
  assert(without.message?.text.includes('Driver "lvp.json" does not advertise'));
  const withExt = driverPortabilityInfo(BOTH, { fileName: "mvk.json", instanceExtensions: [EXT] });
  assertEquals([withExt.flags, withExt.flagStripped, withExt.passExtension, withExt.message], [
    FLAG,
    false,
    true,
    undefined,
  ]);
  const otherBits = driverPortabilityInfo({ flags: FLAG | 0x4, enabledExtensions: [EXT] }, {
    fileName: "lvp.json",
    instanceExtensions: [],
  });
  assertEquals(otherBits.flags, 0x4);
  const unset = driverPortabilityInfo(NEITHER, { fileName: "mvk.json", instanceExtensions: [EXT] });
  assertEquals([unset.flags, unset.flagStripped, unset.passExtension], [0, false, false]);
});

// ---------------------------------------------------------------------------------------------------
// End to end: vkCreateInstance through vkdeno over a regular and a portability mock driver.
// ---------------------------------------------------------------------------------------------------

const DEFAULT_EXTENSIONS = ["VK_KHR_surface", "VK_KHR_get_physical_device_properties2"];

/** A regular driver ("regular.json") and/or a portability driver ("portable.json", offering the extension). */
async function drivers(which: { regular?: boolean; portable?: boolean }): Promise<MockEnvironment> {
  const env = await MockEnvironment.create();
  if (which.regular) {
    await env.addDriver({ name: "regular", physicalDevices: [{ name: "Regular GPU", type: "discrete" }] });
  }
  if (which.portable) {
    await env.addDriver(
      {
        name: "portable",
        instanceExtensions: [...DEFAULT_EXTENSIONS, EXT],
        physicalDevices: [{
          name: "Portable GPU",
          type: "integrated",
          extensions: ["VK_KHR_portability_subset"],
        }],
      },
      { manifest: { isPortabilityDriver: true } },
    );
  }
  return env;
}

function devicesThrough(l: Loaded, instance: Deno.PointerValue): string[] {
  return physicalDevices(l, asHandle("VkInstance", instance)!).map((pd) => {
    const props = allocStruct(l.arena, "VkPhysicalDeviceProperties");
    l.vk.vkGetPhysicalDeviceProperties(pd, props);
    return readStruct("VkPhysicalDeviceProperties", props).deviceName as string;
  });
}

const CASES = [
  ["both", BOTH],
  ["flag only", FLAG_ONLY],
  ["extension only", EXT_ONLY],
  ["neither", NEITHER],
] as const;

Deno.test("through the loader, mixed drivers: the portability driver's device only with flag and extension", async () => {
  await using env = await drivers({ regular: true, portable: true });
  const seen: Record<string, { devices: string[]; warnings: string[] }> = {};
  for (const [name, request] of CASES) {
    using l = load(env.snapshot());
    const { result, instance } = createInstance(l, {
      flags: request.flags,
      extensions: [...request.enabledExtensions],
    });
    assertEquals(result, 0, name);
    seen[name] = {
      devices: devicesThrough(l, instance).sort(),
      warnings: l.lines.filter((x) => x.startsWith("WARNING")),
    };
    l.vk.vkDestroyInstance(instance, null);
  }
  assertEquals(seen.both!.devices, ["Portable GPU", "Regular GPU"]);
  assertEquals(seen["flag only"]!.devices, ["Regular GPU"]);
  assertEquals(seen["extension only"]!.devices, ["Regular GPU"]);
  assertEquals(seen.neither!.devices, ["Regular GPU"]);
  assert(seen["flag only"]!.warnings.some((w) => w.includes("VUID-VkInstanceCreateInfo-flags-06559")));
  assert(
    seen["extension only"]!.warnings.some((w) =>
      w.includes('portability drivers "portable.json" are not enumerated')
    ),
  );
  assertEquals(seen.neither!.warnings.filter((w) => w.includes("portab")), []);
  assertEquals(seen.both!.warnings.filter((w) => w.includes("portab")), []);
});

Deno.test("through the loader, only a portability driver: each misuse fails VK_ERROR_INCOMPATIBLE_DRIVER with its message", async () => {
  await using env = await drivers({ portable: true });
  const errors: string[] = [];
  for (const [name, request] of CASES) {
    env.clearCallLog();
    using l = load(env.snapshot());
    const { result, instance } = createInstance(l, {
      flags: request.flags,
      extensions: [...request.enabledExtensions],
    });
    if (name === "both") {
      assertEquals(result, 0);
      assertEquals(devicesThrough(l, instance), ["Portable GPU"]);
      l.vk.vkDestroyInstance(instance, null);
      continue;
    }
    assertEquals(result, -9, name);
    const line = l.lines.find((x) => x.startsWith("ERROR") && x.includes("Cannot create instance"));
    assert(line?.includes('portability drivers ("portable.json")'), `${name}: ${l.lines.join("\n")}`);
    errors.push(line!);
    assertEquals(
      env.callLog().filter((x) => x.includes("vkCreateInstance")),
      [],
      "the driver was not loaded",
    );
  }
  assertEquals(new Set(errors).size, 3);
  assert(errors[0]!.includes("VUID-VkInstanceCreateInfo-flags-06559"));
  assert(errors[1]!.includes("set the flag to use them"));
  assert(errors[2]!.includes("and enable"));
});

Deno.test("through the loader: the portability flag reaches only drivers offering the extension", async () => {
  await using env = await drivers({ regular: true, portable: true });
  using l = load(env.snapshot());
  const { result, instance } = createInstance(l, { flags: FLAG, extensions: [EXT] });
  assertEquals(result, 0);
  const created = Object.fromEntries(
    env.callLog().filter((x) => x.split(" ")[1] === "vkCreateInstance").map((
      x,
    ) => [x.split(" ")[0], fields(x)]),
  );
  assertEquals(created.regular?.flags, "0x0");
  assert(!created.regular?.exts?.includes(EXT));
  assertEquals(created.portable?.flags, "0x1");
  assert(created.portable?.exts?.includes(EXT), created.portable?.exts);
  l.vk.vkDestroyInstance(instance, null);
});

// ---------------------------------------------------------------------------------------------------
// Side by side with the Khronos loader (libvulkan1 1.3.239 implements VK_KHR_portability_enumeration).
// ---------------------------------------------------------------------------------------------------

const PROBE = String.raw`
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>
/* argv[1]: VkInstanceCreateInfo::flags; argv[2]: "ext" to enable VK_KHR_portability_enumeration.
 * Prints the vkCreateInstance result and the device names, sorted. */
static int cmp(const void* a, const void* b) { return strcmp((const char*)a, (const char*)b); }
int main(int argc, char** argv) {
  const char* names[] = {"VK_KHR_portability_enumeration"};
  VkInstanceCreateInfo ci = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ci.flags = (VkInstanceCreateFlags)atoi(argv[1]);
  ci.enabledExtensionCount = argc > 2 && !strcmp(argv[2], "ext") ? 1 : 0;
  ci.ppEnabledExtensionNames = names;
  VkInstance inst;
  VkResult r = vkCreateInstance(&ci, NULL, &inst);
  printf("%d", (int)r);
  if (r == VK_SUCCESS) {
    uint32_t n = 0;
    vkEnumeratePhysicalDevices(inst, &n, NULL);
    VkPhysicalDevice* d = calloc(n + 1, sizeof *d);
    char (*dn)[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE] = calloc(n + 1, sizeof *dn);
    vkEnumeratePhysicalDevices(inst, &n, d);
    for (uint32_t i = 0; i < n; i++) {
      VkPhysicalDeviceProperties p;
      vkGetPhysicalDeviceProperties(d[i], &p);
      strcpy(dn[i], p.deviceName);
    }
    qsort(dn, n, sizeof *dn, cmp);
    for (uint32_t i = 0; i < n; i++) printf(",%s", dn[i]);
    vkDestroyInstance(inst, NULL);
  }
  printf("\n");
  return 0;
}
`;

let probe: Promise<string> | undefined;

function buildProbe(): Promise<string> {
  probe ??= (async () => {
    const dir = await Deno.makeTempDir({ prefix: "vkdeno_portability_probe_" });
    globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
    return await buildProgram(dir, PROBE, ["-lvulkan"]);
  })();
  return probe;
}

Deno.test("portability outcomes equal libvulkan1's for every flag/extension combination and driver mix", async () => {
  const path = await buildProbe();
  for (const mix of [{ regular: true, portable: true }, { portable: true }, { regular: true }]) {
    await using env = await drivers(mix);
    const snapshot = env.snapshot();
    const vars = {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: snapshot.vars.HOME!,
      VK_DRIVER_FILES: snapshot.vars.VK_DRIVER_FILES!,
      VK_LOADER_LAYERS_DISABLE: "~implicit~",
    };
    for (const [name, request] of CASES) {
      const ext = (request.enabledExtensions as readonly string[]).includes(EXT);
      const out = await new Deno.Command(path, {
        args: [String(request.flags), ext ? "ext" : "none"],
        env: vars,
        clearEnv: true,
      }).output();
      const theirs = new TextDecoder().decode(out.stdout).trim();
      using l = load({ vars, elevated: false });
      const { result, instance } = createInstance(l, {
        apiVersion: "1.0.0",
        flags: request.flags,
        extensions: ext ? [EXT] : [],
      });
      const ours = result === 0
        ? [String(result), ...devicesThrough(l, instance).sort()].join(",")
        : String(result);
      if (result === 0) l.vk.vkDestroyInstance(instance, null);
      assertEquals(ours, theirs, `${JSON.stringify(mix)} ${name}`);
    }
  }
});

Deno.test("deno task info --portability lists portability drivers' devices; without it they are left out", async () => {
  await using env = await drivers({ regular: true, portable: true });
  const snapshot = env.snapshot();
  const vars = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    DENO_DIR: Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME") ?? "/root"}/.cache/deno`,
    HOME: snapshot.vars.HOME!,
    VK_DRIVER_FILES: snapshot.vars.VK_DRIVER_FILES!,
    VK_LOADER_LAYERS_DISABLE: "~implicit~",
  };
  const info = async (...args: string[]) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", new URL("../../../examples/info.ts", import.meta.url).pathname, "--json", ...args],
      env: vars,
      clearEnv: true,
    }).output();
    const report = JSON.parse(new TextDecoder().decode(out.stdout));
    return (report.devices as { name: string }[]).map((d) => d.name).sort();
  };
  assertEquals(await info("--portability"), ["Portable GPU", "Regular GPU"]);
  assertEquals(await info(), ["Regular GPU"]);
});
