/**
 * Side by side with the Khronos loader (libvulkan.so.1) over this machine's
 * layer manifests: a tiny C program prints what its
 * vkEnumerateInstanceLayerProperties returns, and vkdeno's enumeration must
 * give the same layers (name, spec version, implementation version,
 * description). Within one folder the Khronos loader keeps readdir order and
 * vkdeno sorts by file name, so the comparison is by set, plus the rule that
 * implicit layers come first on both sides.
 *
 * @module
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { activateLayers, implicitLayerInstanceExtensions } from "../../discovery/layer_activation.ts";
import { discoverLayers } from "../../discovery/layers.ts";
import {
  enumerateInstanceLayerProperties,
  layerExtensionProperties,
} from "../../discovery/layer_properties.ts";
import { TempTree } from "../support/discovery_tree.ts";
import { implicitFields, layerManifest, layersManifest } from "../support/layer_tree.ts";
import { ccSync } from "../support/c_build.ts";

const SOURCE = `
#include <vulkan/vulkan.h>
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  uint32_t n = 0;
  if (vkEnumerateInstanceLayerProperties(&n, NULL) != VK_SUCCESS) return 2;
  VkLayerProperties *p = calloc(n ? n : 1, sizeof *p);
  if (vkEnumerateInstanceLayerProperties(&n, p) != VK_SUCCESS) return 3;
  for (uint32_t i = 0; i < n; i++)
    printf("%s\\t%u\\t%u\\t%s\\n", p[i].layerName, p[i].specVersion, p[i].implementationVersion, p[i].description);
  return 0;
}
`;

/** Creates an instance with the layers named on its command line and prints the VkResult. */
const CREATE_SOURCE = `
#include <vulkan/vulkan.h>
#include <stdio.h>
int main(int argc, char **argv) {
  VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_0;
  VkInstanceCreateInfo ci = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ci.pApplicationInfo = &app;
  ci.enabledLayerCount = (uint32_t)(argc - 1);
  ci.ppEnabledLayerNames = (const char *const *)(argv + 1);
  VkInstance instance;
  VkResult result = vkCreateInstance(&ci, NULL, &instance);
  printf("result %d\\n", result);
  if (result == VK_SUCCESS) vkDestroyInstance(instance, NULL);
  return 0;
}
`;

const programDir = Deno.makeTempDirSync({ prefix: "vkdeno_khronos_layers_" });
globalThis.addEventListener("unload", () => Deno.removeSync(programDir, { recursive: true }));

function buildProgram(name: string, source: string): string | undefined {
  const dir = programDir;
  Deno.writeTextFileSync(`${dir}/${name}.c`, source);
  try {
    const args = [`${dir}/${name}.c`, "-o", `${dir}/${name}`, "-lvulkan"];
    ccSync(args);
    return `${dir}/${name}`;
  } catch {
    return undefined;
  }
}

/** Prints every layer's instance extensions: `layer<TAB>extension<TAB>specVersion`. */
const EXTENSIONS_SOURCE = `
#include <vulkan/vulkan.h>
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  uint32_t n = 0;
  if (vkEnumerateInstanceLayerProperties(&n, NULL) != VK_SUCCESS) return 2;
  VkLayerProperties *p = calloc(n ? n : 1, sizeof *p);
  if (vkEnumerateInstanceLayerProperties(&n, p) != VK_SUCCESS) return 3;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t m = 0;
    if (vkEnumerateInstanceExtensionProperties(p[i].layerName, &m, NULL) != VK_SUCCESS) return 4;
    VkExtensionProperties *e = calloc(m ? m : 1, sizeof *e);
    if (vkEnumerateInstanceExtensionProperties(p[i].layerName, &m, e) != VK_SUCCESS) return 5;
    for (uint32_t j = 0; j < m; j++) printf("%s\\t%s\\t%u\\n", p[i].layerName, e[j].extensionName, e[j].specVersion);
    free(e);
  }
  return vkEnumerateInstanceExtensionProperties("VK_LAYER_not_there", &n, NULL) == VK_ERROR_LAYER_NOT_PRESENT ? 0 : 6;
}
`;

/** Prints the global instance extension list (`pLayerName` NULL). */
const GLOBAL_EXTENSIONS_SOURCE = `
#include <vulkan/vulkan.h>
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  uint32_t n = 0;
  if (vkEnumerateInstanceExtensionProperties(NULL, &n, NULL) != VK_SUCCESS) return 2;
  VkExtensionProperties *e = calloc(n ? n : 1, sizeof *e);
  if (vkEnumerateInstanceExtensionProperties(NULL, &n, e) != VK_SUCCESS) return 3;
  for (uint32_t i = 0; i < n; i++) printf("%s\\t%u\\n", e[i].extensionName, e[i].specVersion);
  return 0;
}
`;

const program = buildProgram("enum", SOURCE);
const extensionsProgram = buildProgram("extensions", EXTENSIONS_SOURCE);
const globalExtensionsProgram = buildProgram("global_extensions", GLOBAL_EXTENSIONS_SOURCE);
const createProgram = buildProgram("create", CREATE_SOURCE);
const hostHasLayers = (() => {
  try {
    return [...Deno.readDirSync("/usr/share/vulkan/implicit_layer.d")].length > 0;
  } catch {
    return false;
  }
})();

function khronos(vars: Record<string, string>): string[] {
  const out = new Deno.Command(program ?? "false", {
    env: vars,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(30_000),
  }).outputSync();
  if (!out.success) throw new Error(`Khronos enumeration failed: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout).split("\n").filter((line) => line !== "");
}

function vkdeno(vars: Record<string, string>): string[] {
  const env = { vars, elevated: false };
  return enumerateInstanceLayerProperties(discoverLayers(env)).map((p) =>
    `${p.layerName}\t${p.specVersion}\t${p.implementationVersion}\t${p.description}`
  );
}

function base(): Record<string, string> {
  const home = Deno.env.get("HOME");
  return home === undefined ? {} : { HOME: home };
}

function compare(vars: Record<string, string>): string[] {
  const theirs = khronos(vars);
  const ours = vkdeno(vars);
  assertEquals([...ours].sort(), [...theirs].sort());
  // Implicit layers first on both sides: the same names occupy the leading positions.
  const implicitCount = discoverLayers({ vars, elevated: false }).layers.filter((l) => l.implicit).length;
  const head = (list: string[]) => list.slice(0, implicitCount).map((l) => l.split("\t")[0]).sort();
  assertEquals(head(ours), head(theirs));
  return ours;
}

const ignore = program === undefined || !hostHasLayers;

Deno.test({ name: "khronos side by side: no variables", ignore }, () => {
  const layers = compare(base());
  assert(layers.length >= 4, `expected the host's layers, got ${layers.length}`);
});

Deno.test({ name: "khronos side by side: VK_LAYER_PATH with a file and a folder", ignore }, () => {
  const layers = compare({
    ...base(),
    VK_LAYER_PATH:
      "/usr/share/vulkan/explicit_layer.d/VkLayer_MESA_overlay.json:/etc/vulkan/explicit_layer.d",
  });
  assert(layers.some((l) => l.startsWith("VK_LAYER_MESA_overlay\t")));
  assert(!layers.some((l) => l.startsWith("VK_LAYER_KHRONOS_validation\t")));
});

Deno.test({ name: "khronos side by side: VK_LOADER_LAYERS_DISABLE=~implicit~", ignore }, () => {
  const layers = compare({ ...base(), VK_LOADER_LAYERS_DISABLE: "~implicit~" });
  assert(!layers.some((l) => l.startsWith("VK_LAYER_MESA_device_select\t")));
});

Deno.test({ name: "khronos side by side: VK_INSTANCE_LAYERS does not change enumeration", ignore }, () => {
  const vars = { ...base(), VK_INSTANCE_LAYERS: "VK_LAYER_KHRONOS_validation:VK_LAYER_MESA_device_select" };
  assertEquals(compare(vars).length, compare(base()).length);
});

Deno.test({ name: "khronos side by side: implicit disable variables do not hide layers", ignore }, () => {
  compare({ ...base(), NODEVICE_SELECT: "1", DISABLE_MANGOHUD: "1", VK_LOADER_LAYERS_DISABLE: "*basalt*" });
});

Deno.test({
  name: "khronos side by side: a generated VK_LAYER_PATH folder with defects and duplicates",
  ignore,
}, () => {
  using tree = new TempTree({
    "layers/a.json": layersManifest([{ name: "VK_LAYER_TEST_a" }, {
      name: "VK_LAYER_TEST_b",
      type: "DEVICE",
    }]),
    "layers/h.json": layerManifest({
      name: "VK_LAYER_TEST_h",
      implementation_version: 5,
      api_version: "1.1",
    }),
    "layers/b.json": layerManifest({
      name: "VK_LAYER_TEST_c",
      api_version: "1.2.3",
      implementation_version: "7",
    }),
    "layers/d.json": layerManifest({ name: "VK_LAYER_TEST_d", description: undefined }),
    "layers/e.json": layerManifest(implicitFields("VK_LAYER_TEST_e")),
    "layers/f.json": layersManifest([
      {
        name: "VK_LAYER_TEST_meta",
        component_layers: ["VK_LAYER_TEST_a", "VK_LAYER_TEST_c"],
        api_version: "1.2.0",
      },
      { name: "VK_LAYER_TEST_badmeta", component_layers: ["VK_LAYER_TEST_nope"] },
    ]),
  });
  const vars = { ...base(), VK_LAYER_PATH: tree.path("layers") };
  const layers = compare(vars);
  const names = layers.map((l) => l.split("\t")[0]).filter((n) => n?.startsWith("VK_LAYER_TEST_")).sort();
  assertEquals(names, [
    "VK_LAYER_TEST_a",
    "VK_LAYER_TEST_c",
    "VK_LAYER_TEST_e",
    "VK_LAYER_TEST_h",
    "VK_LAYER_TEST_meta",
  ]);
  // libvulkan 1.3.239 lists a repeated layer name twice; newer loaders (1.3.247+, and
  // docs/behaviour.md L05) keep the first only, as vkdeno does. Compare names as sets.
  tree.add({ "layers/g.json": layerManifest({ name: "VK_LAYER_TEST_a", description: "duplicate" }) });
  const nameSet = (list: string[]) => [...new Set(list.map((l) => l.split("\t")[0]))].sort();
  const withDuplicate = vkdeno(vars);
  assertEquals(withDuplicate, layers);
  assertEquals(nameSet(khronos(vars)), nameSet(withDuplicate));
  // Divergence on purpose: one unparsable manifest makes libvulkan 1.3.239's enumeration fail
  // ("Failed to parse JSON file ..., this is usually because something ran out of memory");
  // vkdeno skips that file and still lists the rest.
  tree.add({ "layers/c.json": "{ broken" });
  let failed = false;
  try {
    khronos(vars);
  } catch {
    failed = true;
  }
  assert(failed, "libvulkan was expected to fail on an unparsable layer manifest");
  assertEquals(vkdeno(vars), layers);
});

/** The Khronos loader's chain (first closest to the app) from its "Insert instance layer" log lines. */
function khronosChain(
  vars: Record<string, string>,
  requested: string[],
): { result: number; chain: string[] } {
  const out = new Deno.Command(createProgram ?? "false", {
    args: requested,
    env: { ...vars, VK_LOADER_DEBUG: "layer" },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(30_000),
  }).outputSync();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  const result = Number(/result (-?\d+)/.exec(text)?.[1] ?? "NaN");
  // The loader inserts from the driver upwards, so the log lists the chain bottom first.
  const chain = [...text.matchAll(/Insert instance layer "([^"]+)"/g)].map((m) => m[1] ?? "").reverse();
  return { result, chain };
}

function vkdenoChain(vars: Record<string, string>, requested: string[]): { result: number; chain: string[] } {
  const env = { vars, elevated: false };
  const r = activateLayers(env, discoverLayers(env), { requestedLayers: requested });
  return r.ok ? { result: 0, chain: r.layers.map((a) => a.layer.name) } : { result: -6, chain: [] };
}

// Only layers that load cheaply and without a display: device-select (implicit), Mesa overlay, Intel nullhw.
const ACTIVATION_CASES: { vars: Record<string, string>; requested: string[] }[] = [
  { vars: {}, requested: [] },
  { vars: {}, requested: ["VK_LAYER_INTEL_nullhw", "VK_LAYER_MESA_overlay"] },
  {
    vars: { VK_INSTANCE_LAYERS: "VK_LAYER_MESA_overlay" },
    requested: ["VK_LAYER_INTEL_nullhw", "VK_LAYER_MESA_overlay"],
  },
  {
    vars: { VK_LOADER_LAYERS_ENABLE: "*nullhw", VK_INSTANCE_LAYERS: "VK_LAYER_MESA_overlay" },
    requested: [],
  },
  { vars: { NODEVICE_SELECT: "1" }, requested: ["VK_LAYER_INTEL_nullhw"] },
  { vars: { VK_LOADER_LAYERS_DISABLE: "~implicit~" }, requested: ["VK_LAYER_INTEL_nullhw"] },
  {
    vars: { VK_LOADER_LAYERS_DISABLE: "*overlay", VK_INSTANCE_LAYERS: "VK_LAYER_MESA_overlay" },
    requested: [],
  },
  { vars: { VK_LOADER_LAYERS_DISABLE: "*nullhw" }, requested: ["VK_LAYER_INTEL_nullhw"] },
  { vars: {}, requested: ["VK_LAYER_NOT_INSTALLED"] },
];

const hasActivationLayers = ["VkLayer_MESA_overlay.json", "VkLayer_INTEL_nullhw.json"].every((f) => {
  try {
    return Deno.statSync(`/usr/share/vulkan/explicit_layer.d/${f}`).isFile;
  } catch {
    return false;
  }
});

for (const { vars, requested } of ACTIVATION_CASES) {
  const label = `${JSON.stringify(vars)} app ${JSON.stringify(requested)}`;
  Deno.test({
    name: `khronos side by side: activation order, ${label}`,
    ignore: createProgram === undefined || !hostHasLayers || !hasActivationLayers,
  }, () => {
    const all = { ...base(), ...vars };
    assertEquals(vkdenoChain(all, requested), khronosChain(all, requested));
  });
}

Deno.test({
  name:
    "khronos side by side: an implicit layer in VK_INSTANCE_LAYERS takes its env position (libvulkan 1.3.239 differs)",
  ignore: createProgram === undefined || !hostHasLayers || !hasActivationLayers,
}, () => {
  // docs/behaviour.md F03 (current loader, fixed in 1.3.247 "Fix ordering regression for
  // VK_INSTANCE_LAYERS"): the implicit layer moves to its VK_INSTANCE_LAYERS position. The
  // installed 1.3.239 still puts it with the implicit layers. vkdeno follows the current loader.
  const vars = { ...base(), VK_INSTANCE_LAYERS: "VK_LAYER_MESA_overlay:VK_LAYER_MESA_device_select" };
  const ours = vkdenoChain(vars, []);
  assertEquals(ours.chain, ["VK_LAYER_MESA_overlay", "VK_LAYER_MESA_device_select"]);
  const theirs = khronosChain(vars, []);
  assertEquals([...theirs.chain].sort(), [...ours.chain].sort());
});

Deno.test({
  name: "khronos side by side: the override layer's blacklist, override_paths and app_keys",
  ignore,
}, () => {
  using tree = new TempTree({
    "share/vulkan/implicit_layer.d/ok.json": layerManifest(implicitFields("VK_LAYER_TEST_imp")),
    "share/vulkan/implicit_layer.d/nodisable.json": layerManifest({ name: "VK_LAYER_TEST_nodisable" }),
    "share/vulkan/explicit_layer.d/comp.json": layerManifest({ name: "VK_LAYER_TEST_comp" }),
    "share/vulkan/explicit_layer.d/bad.json": layerManifest({ name: "VK_LAYER_TEST_bad" }),
    "ovr/comp.json": layerManifest({ name: "VK_LAYER_TEST_comp" }),
    "ovr/only.json": layerManifest({ name: "VK_LAYER_TEST_only_in_override_paths" }),
  });
  const exe = Deno.realPathSync(program ?? "");
  const other = `${tree.path("other_exe")}`;
  Deno.copyFileSync(exe, other);
  Deno.chmodSync(other, 0o755);
  const override = (extra: Record<string, unknown>) =>
    tree.add({
      "share/vulkan/implicit_layer.d/override.json": layerManifest({
        name: "VK_LAYER_LUNARG_override",
        component_layers: ["VK_LAYER_TEST_comp"],
        disable_environment: { DISABLE_TEST_OVERRIDE: "1" },
        ...extra,
      }),
    });
  const vars = { HOME: tree.path("nohome"), XDG_DATA_DIRS: tree.path("share") };
  const sideBySide = (extra: Record<string, string>, executable = exe) => {
    const all = { ...vars, ...extra };
    const out = new Deno.Command(executable, { env: all, clearEnv: true, stdout: "piped", stderr: "null" })
      .outputSync();
    const theirs = new TextDecoder().decode(out.stdout).split("\n").filter((l) => l !== "").map((l) =>
      l.split("\t")[0]
    );
    const d = discoverLayers({ vars: all, elevated: false }, { executablePath: executable, cache: false });
    const ours = enumerateInstanceLayerProperties(d).map((p) => p.layerName);
    assertEquals([...ours].sort(), [...theirs].sort(), JSON.stringify(extra));
    return ours.sort();
  };
  override({ blacklisted_layers: ["VK_LAYER_TEST_bad"] });
  assertEquals(sideBySide({}), ["VK_LAYER_LUNARG_override", "VK_LAYER_TEST_comp", "VK_LAYER_TEST_imp"]);
  assert(sideBySide({ DISABLE_TEST_OVERRIDE: "1" }).includes("VK_LAYER_TEST_bad"));
  override({ override_paths: [tree.path("ovr")], app_keys: [exe] });
  assert(sideBySide({}).includes("VK_LAYER_TEST_only_in_override_paths"));
  assert(
    sideBySide({ VK_LAYER_PATH: tree.path("share/vulkan/explicit_layer.d") }).includes(
      "VK_LAYER_TEST_only_in_override_paths",
    ),
  );
  assert(!sideBySide({}, other).includes("VK_LAYER_LUNARG_override"));
});

Deno.test({
  name: "khronos side by side: vkEnumerateInstanceExtensionProperties(pLayerName), meta layers merged",
  ignore: ignore || extensionsProgram === undefined,
}, () => {
  using tree = new TempTree({
    "layers/a.json": layersManifest([
      { name: "VK_LAYER_TEST_a", instance_extensions: [{ name: "VK_EXT_debug_utils", spec_version: "2" }] },
      {
        name: "VK_LAYER_TEST_b",
        instance_extensions: [{ name: "VK_EXT_debug_report", spec_version: "9" }, {
          name: "VK_EXT_test_b",
          spec_version: "3",
        }],
      },
      { name: "VK_LAYER_TEST_meta", component_layers: ["VK_LAYER_TEST_a", "VK_LAYER_TEST_b"] },
    ]),
  });
  const cases: Record<string, string>[] = [{}, { VK_LAYER_PATH: tree.path("layers") }];
  for (const extra of cases) {
    const vars = { ...base(), ...extra };
    const out = new Deno.Command(extensionsProgram ?? "false", {
      env: vars,
      clearEnv: true,
      stdout: "piped",
      stderr: "null",
      signal: AbortSignal.timeout(30_000),
    }).outputSync();
    assertEquals(out.code, 0);
    const theirs = new TextDecoder().decode(out.stdout).split("\n").filter((l) => l !== "");
    const d = discoverLayers({ vars, elevated: false });
    const ours = d.layers.flatMap((l) =>
      (layerExtensionProperties(d, l.name, "instance") ?? []).map((e) =>
        `${l.name}\t${e.name}\t${e.specVersion}`
      )
    );
    assertEquals([...ours].sort(), [...theirs].sort());
    assert(ours.length > 0);
  }
});

Deno.test({
  name: "khronos side by side: enabled implicit layers' instance extensions join the global list",
  ignore: globalExtensionsProgram === undefined,
}, () => {
  using tree = new TempTree({
    "share/vulkan/implicit_layer.d/a.json": layerManifest(
      implicitFields("VK_LAYER_TEST_on", {
        instance_extensions: [{ name: "VK_EXT_test_on", spec_version: "3" }],
      }),
    ),
    "share/vulkan/implicit_layer.d/b.json": layerManifest(implicitFields("VK_LAYER_TEST_off", {
      enable_environment: { ENABLE_TEST_OFF: "1" },
      instance_extensions: [{ name: "VK_EXT_test_off", spec_version: "1" }],
    })),
    "empty/.keep": "",
  });
  const global = (vars: Record<string, string>) => {
    const out = new Deno.Command(globalExtensionsProgram ?? "false", {
      env: vars,
      clearEnv: true,
      stdout: "piped",
      stderr: "null",
      signal: AbortSignal.timeout(30_000),
    }).outputSync();
    assertEquals(out.code, 0);
    return new TextDecoder().decode(out.stdout).split("\n").filter((l) => l !== "");
  };
  // No drivers either way (XDG_DATA_DIRS hides icd.d): the loader's own list is the baseline.
  const baseline = new Set(global({ HOME: tree.path("nohome"), XDG_DATA_DIRS: tree.path("empty") }));
  const cases: Record<string, string>[] = [{}, { ENABLE_TEST_OFF: "1" }, {
    ENABLE_TEST_OFF: "1",
    DISABLE_VK_LAYER_TEST_on: "",
  }];
  for (const extra of cases) {
    const vars = { HOME: tree.path("nohome"), XDG_DATA_DIRS: tree.path("share"), ...extra };
    const theirs = global(vars).filter((l) => !baseline.has(l)).sort();
    const env = { vars, elevated: false };
    const ours = implicitLayerInstanceExtensions(env, discoverLayers(env)).map((e) =>
      `${e.name}\t${e.specVersion}`
    ).sort();
    assertEquals(ours, theirs, JSON.stringify(extra));
  }
});
