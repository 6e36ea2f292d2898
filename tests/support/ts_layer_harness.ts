/**
 * Test helpers for TS layers: a tiny C shim library per TS layer so the reference loader can load a {@linkcode NativeLayerBridge} from a manifest like any C layer, placing it
 * anywhere among native layers (here: below the Khronos validation layer).
 *
 * @module
 */
import type { NativeLayerBridge } from "../../layers/native.ts";
import { ccSync } from "./c_build.ts";
import { LAVAPIPE } from "./lavapipe.ts";

const SHIM_C = `
#include <stddef.h>
typedef void (*PFN_vkVoidFunction)(void);
typedef PFN_vkVoidFunction (*PFN_gpa)(void *, const char *);
static PFN_gpa next_gipa, next_gdpa;
__attribute__((visibility("default"))) void tslayer_set(PFN_gpa gipa, PFN_gpa gdpa) { next_gipa = gipa; next_gdpa = gdpa; }
__attribute__((visibility("default"))) PFN_vkVoidFunction vkGetInstanceProcAddr(void *instance, const char *name) {
  return next_gipa ? next_gipa(instance, name) : NULL;
}
__attribute__((visibility("default"))) PFN_vkVoidFunction vkGetDeviceProcAddr(void *device, const char *name) {
  return next_gdpa ? next_gdpa(device, name) : NULL;
}
`;

/**
 * Builds a C shim for `layerName` in `dir`, writes its manifest there, and points the shim at the
 * bridge's entry points. The returned library must stay open while the loader may call the layer.
 */
export function installShim(dir: string, layerName: string, bridge: NativeLayerBridge): Deno.DynamicLibrary<{
  tslayer_set: { parameters: ["pointer", "pointer"]; result: "void" };
}> {
  const source = `${dir}/${layerName}.c`;
  const library = `${dir}/lib${layerName}.so`;
  Deno.writeTextFileSync(source, SHIM_C);
  ccSync(["-shared", "-fPIC", "-O1", "-o", library, source]);
  Deno.writeTextFileSync(
    `${dir}/${layerName}.json`,
    JSON.stringify({
      file_format_version: "1.1.2",
      layer: {
        name: layerName,
        type: "GLOBAL",
        library_path: library,
        api_version: "1.3.0",
        implementation_version: "1",
        description: "TS layer (test shim)",
      },
    }),
  );
  const lib = Deno.dlopen(library, { tslayer_set: { parameters: ["pointer", "pointer"], result: "void" } });
  lib.symbols.tslayer_set(bridge.getInstanceProcAddr, bridge.getDeviceProcAddr);
  return lib;
}

/** Environment for the reference loader: lavapipe only, no implicit layers, layers from `dir` too. */
export function referenceLoaderEnv(dir: string): Record<string, string> {
  return {
    VK_DRIVER_FILES: LAVAPIPE,
    VK_LOADER_LAYERS_DISABLE: "~implicit~",
    VK_ADD_LAYER_PATH: dir,
  };
}

const CHILD = "VKDENO_TS_LAYER_CHILD";

/**
 * A test that runs on the reference loader, which reads the process environment: the test re-runs its
 * own file in a child `deno test` filtered to itself, with {@linkcode referenceLoaderEnv} (plus `extra`)
 * set there, so no other test running in parallel sees those variables. `body` gets the temp folder
 * holding the test's manifests (removed afterwards).
 */
export function referenceLoaderTest(
  name: string,
  meta: ImportMeta,
  body: (dir: string) => void | Promise<void>,
  extra: (dir: string) => Record<string, string> = () => ({}),
): void {
  Deno.test(name, async () => {
    if (Deno.env.get(CHILD) === name) {
      await body(Deno.env.get(`${CHILD}_DIR`)!);
      return;
    }
    const dir = Deno.makeTempDirSync({ prefix: "ts_layer_" });
    try {
      const escaped = name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
      const child = await new Deno.Command(Deno.execPath(), {
        args: ["test", "--allow-all", "--no-check", "--filter", `/^${escaped}$/`, meta.filename!],
        env: {
          ...referenceLoaderEnv(dir),
          ...extra(dir),
          [CHILD]: name,
          [`${CHILD}_DIR`]: dir,
          NO_COLOR: "1",
        },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const text = new TextDecoder().decode(child.stdout) + new TextDecoder().decode(child.stderr);
      if (!child.success || !/ok \| 1 passed/.test(text)) {
        throw new Error(`Child test "${name}" failed:\n${text}`);
      }
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  });
}
