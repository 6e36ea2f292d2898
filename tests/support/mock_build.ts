/**
 * Builds the mock driver and mock layer libraries from `tests/support/mock/*.c` with
 * `cc`, once per set of sources: the output lives in `.cache/mock/<hash>/`,
 * keyed by a hash of the sources and flags, so an edit rebuilds and a rerun
 * does not. Parallel test processes build into private folders and rename.
 *
 * @module
 */

import { cc } from "./c_build.ts";

/** A mock driver library build; each exports a different set of loader entry points. */
export type MockDriverVariant = "v0" | "v1" | "export" | "export_nophys" | "v7";

/** A mock layer library build. */
export type MockLayerVariant = "layer" | "layer_nonego" | "layer_renamed";

/** Where each built variant is. */
export interface MockBuild {
  /** The cache folder holding this build. */
  readonly dir: string;
  /** Absolute path of each driver variant (`libmock_icd_<variant>.so`). */
  readonly drivers: Readonly<Record<MockDriverVariant, string>>;
  /** Absolute path of each layer variant (`libmock_layer_<variant>.so`). */
  readonly layers: Readonly<Record<MockLayerVariant, string>>;
  /**
   * Helper programs: `khronos_client` (a small app linked against the Khronos loader, `libvulkan.so.1`;
   * argument `surface` adds a headless surface and a swapchain) and `harness` (a loader-free
   * create/destroy cycle: `harness <driver.so> [layer.so ...]`, for valgrind) and `conform_client` (what an
   * application checks, printed line by line under the Khronos loader; see tests/support/conform.ts).
   */
  readonly programs: Readonly<Record<MockProgram, string>>;
}

/** Helper programs built beside the mocks. */
export type MockProgram = "khronos_client" | "harness" | "conform_client";

const PROGRAMS: Record<MockProgram, string[]> = {
  khronos_client: ["-lvulkan"],
  harness: ["-ldl"],
  conform_client: ["-lvulkan"],
};

/** The repository root (this file is `tests/support/mock_build.ts`). */
export const REPO_ROOT: string = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/** The folder with the mock C sources: they live beside the tests, which build them through this module. */
export const MOCK_SOURCE_DIR: string = `${REPO_ROOT}/tests/support/mock`;

const SOURCES = [
  "mock_common.h",
  "mock_icd.c",
  "mock_layer.c",
  "khronos_client.c",
  "harness.c",
  "conform_client.c",
];

/** Compiler flags shared by every mock library. */
export const MOCK_CFLAGS: readonly string[] = [
  "-std=c11",
  "-Wall",
  "-Wextra",
  "-Wno-unused-parameter",
  "-Werror",
  "-fPIC",
  "-shared",
  "-fvisibility=hidden",
  "-O1",
  "-g",
];

const DRIVER_VARIANTS: Record<MockDriverVariant, string> = {
  v0: "MOCK_VARIANT_V0",
  v1: "MOCK_VARIANT_V1",
  export: "MOCK_VARIANT_EXPORT",
  export_nophys: "MOCK_VARIANT_EXPORT_NOPHYS",
  v7: "MOCK_VARIANT_V7",
};

const LAYER_VARIANTS: Record<MockLayerVariant, string> = {
  layer: "MOCK_LAYER_VARIANT_STANDARD",
  layer_nonego: "MOCK_LAYER_VARIANT_NONEGO",
  layer_renamed: "MOCK_LAYER_VARIANT_RENAMED",
};

let pending: Promise<MockBuild> | undefined;

async function sourceHash(): Promise<string> {
  const parts: string[] = [MOCK_CFLAGS.join(" ")];
  for (const name of SOURCES) {
    let text = "";
    try {
      text = await Deno.readTextFile(`${MOCK_SOURCE_DIR}/${name}`);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    parts.push(`${name}\0${text}`);
  }
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(parts.join("\0")));
  return Array.from(new Uint8Array(digest).slice(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
}

function compileLibrary(source: string, define: string, output: string): Promise<void> {
  return cc([...MOCK_CFLAGS, `-D${define}`, "-o", output, source, "-ldl", "-lpthread"]);
}

function compileProgram(program: MockProgram, output: string): Promise<void> {
  const flags = MOCK_CFLAGS.filter((f) => !["-shared", "-fPIC", "-fvisibility=hidden"].includes(f));
  return cc([...flags, "-o", output, `${MOCK_SOURCE_DIR}/${program}.c`, ...PROGRAMS[program]]);
}

function layout(dir: string): MockBuild {
  const drivers = {} as Record<MockDriverVariant, string>;
  for (const v of Object.keys(DRIVER_VARIANTS) as MockDriverVariant[]) {
    drivers[v] = `${dir}/libmock_icd_${v}.so`;
  }
  const layers = {} as Record<MockLayerVariant, string>;
  for (const v of Object.keys(LAYER_VARIANTS) as MockLayerVariant[]) {
    layers[v] = `${dir}/libmock_layer_${v}.so`;
  }
  const programs = {
    khronos_client: `${dir}/khronos_client`,
    harness: `${dir}/harness`,
    conform_client: `${dir}/conform_client`,
  };
  return { dir, drivers, layers, programs };
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Removes builds of older sources once they are a day old (a running test may still use a recent one). */
async function pruneStale(cache: string, keep: string): Promise<void> {
  const dayAgo = Date.now() - 24 * 3600 * 1000;
  for await (const entry of Deno.readDir(cache)) {
    if (entry.name === keep || !entry.isDirectory) continue;
    const path = `${cache}/${entry.name}`;
    const info = await Deno.stat(path).catch(() => null);
    if (info?.mtime && info.mtime.getTime() < dayAgo) {
      await Deno.remove(path, { recursive: true }).catch(() => {});
    }
  }
}

async function build(): Promise<MockBuild> {
  const hash = await sourceHash();
  const cache = `${REPO_ROOT}/.cache/mock`;
  const dir = `${cache}/${hash}`;
  if (await exists(`${dir}/.complete`)) return layout(dir);
  await pruneStale(cache, hash).catch(() => {});
  await Deno.mkdir(cache, { recursive: true });
  const tmp = await Deno.makeTempDir({ dir: cache, prefix: `${hash}.tmp-` });
  try {
    const jobs: Promise<void>[] = [];
    for (const [v, define] of Object.entries(DRIVER_VARIANTS)) {
      jobs.push(compileLibrary(`${MOCK_SOURCE_DIR}/mock_icd.c`, define, `${tmp}/libmock_icd_${v}.so`));
    }
    if (await exists(`${MOCK_SOURCE_DIR}/mock_layer.c`)) {
      for (const [v, define] of Object.entries(LAYER_VARIANTS)) {
        jobs.push(compileLibrary(`${MOCK_SOURCE_DIR}/mock_layer.c`, define, `${tmp}/libmock_layer_${v}.so`));
      }
    }
    for (const program of Object.keys(PROGRAMS) as MockProgram[]) {
      jobs.push(compileProgram(program, `${tmp}/${program}`));
    }
    await Promise.all(jobs);
    await Deno.writeTextFile(`${tmp}/.complete`, hash);
    try {
      await Deno.rename(tmp, dir);
    } catch {
      // another process finished the same build first: use theirs
      if (!(await exists(`${dir}/.complete`))) throw new Error(`Cannot publish mock build "${dir}"`);
      await Deno.remove(tmp, { recursive: true });
    }
  } catch (error) {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
    throw error;
  }
  return layout(dir);
}

/**
 * Builds (or finds in the cache) every mock library variant.
 *
 * @example Build once per test file
 * ```ts
 * import { buildMocks } from "./mock_build.ts";
 * const build = await buildMocks();
 * console.log(build.drivers.v7);
 * ```
 */
export function buildMocks(): Promise<MockBuild> {
  pending ??= build().catch((error) => {
    pending = undefined;
    throw error;
  });
  return pending;
}
