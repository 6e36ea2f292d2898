/**
 * Builds the benchmarks' C libraries (bench/c/) with `cc` into `.cache/bench/`, rebuilding only when the
 * source is newer, and writes the pass-through layer's copies and manifests.
 *
 * @module
 */

import { join } from "node:path";
import { buildSharedLibrary } from "../tests/support/c_build.ts";

const here = import.meta.dirname!;
const cacheDir = join(here, "..", ".cache", "bench");

/** Compiles `bench/c/<name>.c` to a shared library and returns its path. */
export function buildBenchLibrary(name: string): Promise<string> {
  return buildSharedLibrary(join(here, "c", `${name}.c`), cacheDir, ["-fvisibility=hidden"]);
}

/** A folder of pass-through layer manifests, each layer a copy of the library of its own. */
export interface PassthroughLayers {
  /** The folder to put in `VK_LAYER_PATH`. */
  readonly folder: string;
  /** Layer names, `VK_LAYER_BENCH_passthrough_<i>`. */
  readonly names: readonly string[];
}

/** Writes a layer manifest (explicit, file format 1.2.0) for `library` into `folder`. */
function writeLayerManifest(
  folder: string,
  name: string,
  library: string,
  description: string,
): Promise<void> {
  const manifest = {
    file_format_version: "1.2.0",
    layer: {
      name,
      type: "GLOBAL",
      library_path: library,
      api_version: "1.3.239",
      implementation_version: "1",
      description,
    },
  };
  return Deno.writeTextFile(`${folder}/${name}.json`, JSON.stringify(manifest, null, 2));
}

async function layerFolder(): Promise<string> {
  const folder = await Deno.makeTempDir({ prefix: "vkdeno_bench_layers_" });
  globalThis.addEventListener("unload", () => Deno.removeSync(folder, { recursive: true }));
  return folder;
}

/**
 * Writes the null-commands layer (bench/c/null_layer.c: the pass-through layer whose frame commands return at
 * once) into a temp folder removed when the process unloads: the folder for `VK_LAYER_PATH`, and its name.
 */
export async function nullCommandsLayer(): Promise<PassthroughLayers> {
  const library = await buildBenchLibrary("null_layer");
  const folder = await layerFolder();
  const name = "VK_LAYER_BENCH_null_commands";
  await writeLayerManifest(folder, name, library, "vkdeno bench layer: a frame's commands do nothing");
  return { folder, names: [name] };
}

/**
 * Writes `count` pass-through layers (explicit, manifest file format 1.2.0) into a temp folder that is
 * removed when the process unloads. Each layer loads its own copy of the library: the loaders open a
 * path once, and stacked layers must not share globals.
 */
export async function passthroughLayers(count: number): Promise<PassthroughLayers> {
  const library = await buildBenchLibrary("passthrough_layer");
  const folder = await layerFolder();
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    const name = `VK_LAYER_BENCH_passthrough_${i}`;
    const copy = `${folder}/libpassthrough_${i}.so`;
    await Deno.copyFile(library, copy);
    await writeLayerManifest(folder, name, copy, `vkdeno bench pass-through layer ${i}`);
    names.push(name);
  }
  return { folder, names };
}
