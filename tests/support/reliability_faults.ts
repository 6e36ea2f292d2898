/**
 * The driver and layer half of the fault catalogue: broken libraries and manifests set up beside lavapipe.
 *
 * @module
 */

import { MockEnvironment } from "./mock.ts";
import { cc, tryCc } from "./c_build.ts";
import { LAVAPIPE, LAVAPIPE_LIBRARY } from "./lavapipe.ts";

const REPO = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const C_DIR = `${REPO}/tests/support/c`;

/** The built fault libraries. */
export interface FaultBuild {
  readonly dir: string;
  /** Forwarding driver (`reliab_fault_icd.c`); behaviour from `<copy>.conf`. */
  readonly forwardingDriver: string;
  /** A shared object exporting no loader entry point. */
  readonly noExports: string;
  /** A driver with a DT_NEEDED on `libreliab_gone.so`, which is not on any search path. */
  readonly missingDependency: string;
  /** The fault layer (`reliab_fault_layer.c`); behaviour from `<copy>.conf`. */
  readonly layer: string;
  /** A 32-bit x86 ELF (`cc -m32`), or undefined when the compiler cannot make one. */
  readonly elf32?: string;
  /** The forwarding driver with `e_machine` patched to 183 (aarch64). */
  readonly aarch64: string;
}

let pending: Promise<FaultBuild> | undefined;

async function hash(names: string[]): Promise<string> {
  const parts = names.map((n) => `${n}\0${Deno.readTextFileSync(`${C_DIR}/${n}`)}`).join("\0");
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(parts));
  return Array.from(new Uint8Array(digest).slice(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function build(): Promise<FaultBuild> {
  const key = await hash(["reliab_fault_icd.c", "reliab_fault_layer.c", "reliab_gone.c"]);
  const dir = `${REPO}/.cache/reliab/${key}`;
  const result: FaultBuild = {
    dir,
    forwardingDriver: `${dir}/libreliab_fault_icd.so`,
    noExports: `${dir}/libreliab_no_exports.so`,
    missingDependency: `${dir}/libreliab_needs_gone.so`,
    layer: `${dir}/libreliab_fault_layer.so`,
    elf32: `${dir}/libreliab_i386.so`,
    aarch64: `${dir}/libreliab_aarch64.so`,
  };
  try {
    const done = JSON.parse(Deno.readTextFileSync(`${dir}/done.json`)) as FaultBuild;
    return done;
  } catch {
    // not built yet
  }
  const work = `${dir}.${Deno.pid}.tmp`;
  Deno.mkdirSync(`${work}/gone`, { recursive: true });
  const flags = ["-shared", "-fPIC", "-O1", "-Wall", "-Werror", "-fvisibility=hidden"];
  const icd = `${C_DIR}/reliab_fault_icd.c`;
  await cc([...flags, "-o", `${work}/libreliab_fault_icd.so`, icd, "-ldl", "-lpthread"]);
  await cc([...flags, "-DRELIAB_NO_EXPORTS", "-o", `${work}/libreliab_no_exports.so`, icd]);
  // The dependency is built into a folder no search path names, then the folder is deleted.
  await cc([...flags, "-o", `${work}/gone/libreliab_gone.so`, `${C_DIR}/reliab_gone.c`]);
  await cc([
    ...flags,
    "-DRELIAB_NEEDS_GONE",
    "-Wl,--no-as-needed",
    "-o",
    `${work}/libreliab_needs_gone.so`,
    icd,
    `-L${work}/gone`,
    "-lreliab_gone",
    "-ldl",
    "-lpthread",
  ]);
  Deno.removeSync(`${work}/gone`, { recursive: true });
  await cc([...flags, "-o", `${work}/libreliab_fault_layer.so`, `${C_DIR}/reliab_fault_layer.c`, "-ldl"]);
  // 32-bit: no 32-bit libc here, so no libc at all (-nostdlib); the ELF class is what matters.
  const m32 = await tryCc([
    "-m32",
    "-nostdlib",
    ...flags,
    "-o",
    `${work}/libreliab_i386.so`,
    `${C_DIR}/reliab_gone.c`,
  ]);
  const bytes = Deno.readFileSync(`${work}/libreliab_fault_icd.so`);
  new DataView(bytes.buffer).setUint16(18, 183, true); // e_machine = EM_AARCH64
  Deno.writeFileSync(`${work}/libreliab_aarch64.so`, bytes);
  const final: FaultBuild = { ...result, elf32: m32.success ? result.elf32 : undefined };
  Deno.writeTextFileSync(`${work}/done.json`, JSON.stringify(final));
  try {
    Deno.mkdirSync(`${REPO}/.cache/reliab`, { recursive: true });
    Deno.renameSync(work, dir);
  } catch {
    // another process built it first
    Deno.removeSync(work, { recursive: true });
  }
  return final;
}

/**
 * Builds the fault libraries once per source change (`.cache/reliab/<hash>/`).
 *
 * @example Usage
 * ```ts ignore
 * import { buildFaultLibraries } from "./reliability_faults.ts";
 * const b = await buildFaultLibraries();
 * ```
 */
export function buildFaultLibraries(): Promise<FaultBuild> {
  return pending ??= build();
}

/** What a fault setup produced: manifests and variables to add to a lavapipe run. */
export interface FaultSetup {
  /** Driver manifests listed in VK_DRIVER_FILES (before lavapipe's). */
  readonly driverManifests: readonly string[];
  /** A folder for VK_LAYER_PATH. */
  readonly layerPath?: string;
  /** Layers to enable through VK_INSTANCE_LAYERS. */
  readonly instanceLayers?: readonly string[];
  /** A string the loader's log should mention (the file or library at fault). */
  readonly culprit: string;
}

/** Where a fault bites. */
export type FaultStage =
  | "load"
  | "negotiate"
  | "gipa"
  | "create_instance"
  | "enumerate"
  | "create_device"
  | "layer";

/** One driver or layer fault. */
export interface LibraryFault {
  readonly id: string;
  /** What is wrong, for the README table. */
  readonly fault: string;
  readonly stage: FaultStage;
  /** Writes the faulty part into `env` and says how to find it. */
  readonly setup: (env: MockEnvironment, build: FaultBuild) => Promise<FaultSetup>;
}

function writeDriverManifest(env: MockEnvironment, name: string, libraryPath: string): string {
  const dir = env.path(`faults/${name}`);
  Deno.mkdirSync(dir, { recursive: true });
  const path = `${dir}/${name}.json`;
  Deno.writeTextFileSync(
    path,
    JSON.stringify({
      file_format_version: "1.0.1",
      ICD: { library_path: libraryPath, api_version: "1.3.0" },
    }),
  );
  return path;
}

function copyLibrary(env: MockEnvironment, source: string, name: string, conf?: string): string {
  const dir = env.path(`faults/lib`);
  Deno.mkdirSync(dir, { recursive: true });
  const path = `${dir}/lib${name}.so`;
  Deno.copyFileSync(source, path);
  if (conf !== undefined) Deno.writeTextFileSync(`${path}.conf`, conf);
  return path;
}

function forwarding(name: string, conf: string): LibraryFault["setup"] {
  return (env, build) => {
    const lib = copyLibrary(env, build.forwardingDriver, name, `target=${LAVAPIPE_LIBRARY}\n${conf}\n`);
    return Promise.resolve({ driverManifests: [writeDriverManifest(env, name, lib)], culprit: lib });
  };
}

function mockDriver(
  name: string,
  config: Parameters<MockEnvironment["addDriver"]>[0],
): LibraryFault["setup"] {
  return async (env) => {
    const d = await env.addDriver({ name, variant: "export", ...config }, { placement: "none" });
    return { driverManifests: [d.manifestPath], culprit: d.libraryPath };
  };
}

function faultLayer(name: string, conf: string): LibraryFault["setup"] {
  return (env, build) => {
    const lib = copyLibrary(env, build.layer, name, conf);
    const dir = env.path(`faults/layers`);
    Deno.mkdirSync(dir, { recursive: true });
    const layerName = `VK_LAYER_RELIAB_${name}`;
    Deno.writeTextFileSync(
      `${dir}/${name}.json`,
      JSON.stringify({
        file_format_version: "1.1.2",
        layer: {
          name: layerName,
          type: "GLOBAL",
          library_path: lib,
          api_version: "1.3.0",
          implementation_version: "1",
          description: `reliability fault layer (${name})`,
        },
      }),
    );
    return Promise.resolve({
      driverManifests: [],
      layerPath: dir,
      instanceLayers: [layerName],
      culprit: layerName,
    });
  };
}

function mockLayer(name: string, config: Parameters<MockEnvironment["addLayer"]>[0]): LibraryFault["setup"] {
  return async (env) => {
    const l = await env.addLayer({ name, ...config }, { placement: { folder: "faults/mock_layers" } });
    return {
      driverManifests: [],
      layerPath: env.path("faults/mock_layers"),
      instanceLayers: [l.name],
      culprit: l.name,
    };
  };
}

/**
 * The driver and layer faults, in catalogue order.
 *
 * @example Usage
 * ```ts ignore
 * import { LIBRARY_FAULTS } from "./reliability_faults.ts";
 * console.log(LIBRARY_FAULTS.map((f) => f.id));
 * ```
 */
export const LIBRARY_FAULTS: readonly LibraryFault[] = [
  {
    id: "library_missing",
    fault: "driver library_path names a file that does not exist",
    stage: "load",
    setup: (env) => {
      const lib = env.path("faults/lib/libreliab_absent.so");
      return Promise.resolve({ driverManifests: [writeDriverManifest(env, "absent", lib)], culprit: lib });
    },
  },
  {
    id: "not_elf",
    fault: "driver library is a text file",
    stage: "load",
    setup: (env) => {
      Deno.mkdirSync(env.path("faults/lib"), { recursive: true });
      const lib = env.path("faults/lib/libreliab_text.so");
      Deno.writeTextFileSync(lib, "this is not a shared object\n");
      return Promise.resolve({ driverManifests: [writeDriverManifest(env, "text", lib)], culprit: lib });
    },
  },
  {
    id: "wrong_class",
    fault: "driver library is a 32-bit ELF (cc -m32)",
    stage: "load",
    setup: (env, build) => {
      if (build.elf32 === undefined) throw new Error("cc -m32 is not available");
      const lib = copyLibrary(env, build.elf32, "reliab_i386");
      return Promise.resolve({ driverManifests: [writeDriverManifest(env, "i386", lib)], culprit: lib });
    },
  },
  {
    id: "wrong_machine",
    fault: "driver library is an aarch64 ELF (e_machine 183)",
    stage: "load",
    setup: (env, build) => {
      const lib = copyLibrary(env, build.aarch64, "reliab_aarch64");
      return Promise.resolve({ driverManifests: [writeDriverManifest(env, "aarch64", lib)], culprit: lib });
    },
  },
  {
    id: "missing_dependency",
    fault: "driver library has a DT_NEEDED on a missing .so",
    stage: "load",
    setup: (env, build) => {
      const lib = copyLibrary(env, build.missingDependency, "reliab_needs_gone");
      return Promise.resolve({
        driverManifests: [writeDriverManifest(env, "needs_gone", lib)],
        culprit: lib,
      });
    },
  },
  {
    id: "missing_exports",
    fault: "driver library exports no loader entry point",
    stage: "load",
    setup: (env, build) => {
      const lib = copyLibrary(env, build.noExports, "reliab_no_exports");
      return Promise.resolve({
        driverManifests: [writeDriverManifest(env, "no_exports", lib)],
        culprit: lib,
      });
    },
  },
  {
    id: "negotiation_fails",
    fault: "driver negotiation returns VK_ERROR_INCOMPATIBLE_DRIVER",
    stage: "negotiate",
    setup: mockDriver("nego_fails", { negotiateResult: -9 }),
  },
  {
    id: "impossible_version",
    fault: "driver negotiates interface version 99 (above the 7 offered)",
    stage: "negotiate",
    setup: forwarding("reliab_v99", "negotiate_version=99"),
  },
  {
    id: "null_gipa_create_instance",
    fault: "driver GIPA returns NULL for vkCreateInstance",
    stage: "gipa",
    setup: forwarding("reliab_null_create", "null_gipa=vkCreateInstance"),
  },
  {
    id: "null_gipa_enumerate",
    fault: "driver GIPA returns NULL for vkEnumeratePhysicalDevices",
    stage: "gipa",
    setup: forwarding("reliab_null_enum", "null_gipa=vkEnumeratePhysicalDevices"),
  },
  {
    id: "no_loader_magic",
    fault: "driver's dispatchable objects lack ICD_LOADER_MAGIC",
    stage: "create_instance",
    setup: mockDriver("no_magic", { loaderMagic: false }),
  },
  {
    id: "create_instance_fails",
    fault: "driver vkCreateInstance returns VK_ERROR_INITIALIZATION_FAILED",
    stage: "create_instance",
    setup: mockDriver("ci_fails", { createInstanceResult: -3 }),
  },
  {
    id: "enumerate_fails",
    fault: "driver vkEnumeratePhysicalDevices returns VK_ERROR_INITIALIZATION_FAILED",
    stage: "enumerate",
    setup: mockDriver("enum_fails", { enumeratePhysicalDevicesResult: -3 }),
  },
  {
    id: "create_device_fails",
    fault: "driver vkCreateDevice returns VK_ERROR_INITIALIZATION_FAILED",
    stage: "create_device",
    setup: mockDriver("cd_fails", {
      createDeviceResult: -3,
      physicalDevices: [{ name: "Reliab failing device" }],
    }),
  },
  {
    id: "layer_chain_error",
    fault: "layer vkCreateInstance returns VK_ERROR_INITIALIZATION_FAILED without calling down",
    stage: "layer",
    setup: mockLayer("VK_LAYER_RELIAB_chain_error", { createInstanceResult: -3 }),
  },
  {
    id: "layer_device_error",
    fault: "layer vkCreateDevice returns VK_ERROR_INITIALIZATION_FAILED without calling down",
    stage: "layer",
    setup: mockLayer("VK_LAYER_RELIAB_device_error", { createDeviceResult: -3 }),
  },
  {
    id: "layer_error_after_down",
    fault: "layer calls down, destroys the instance, returns VK_ERROR_INITIALIZATION_FAILED",
    stage: "layer",
    setup: faultLayer("create_error", "mode=create_error"),
  },
  {
    id: "layer_no_call_down",
    fault: "layer vkCreateInstance returns VK_SUCCESS without calling down",
    stage: "layer",
    setup: faultLayer("no_call_down", "mode=no_call_down"),
  },
  {
    id: "layer_null_create",
    fault: "layer GIPA returns NULL for vkCreateInstance",
    stage: "layer",
    setup: faultLayer("null_create", "mode=null_create"),
  },
  {
    id: "layer_impossible_version",
    fault: "layer negotiates interface version 99",
    stage: "layer",
    setup: faultLayer("v99", "mode=version\nversion=99"),
  },
  {
    id: "layer_library_missing",
    fault: "layer library_path names a file that does not exist",
    stage: "layer",
    setup: (env) => {
      const dir = env.path("faults/layers_missing");
      Deno.mkdirSync(dir, { recursive: true });
      Deno.writeTextFileSync(
        `${dir}/missing.json`,
        JSON.stringify({
          file_format_version: "1.1.2",
          layer: {
            name: "VK_LAYER_RELIAB_missing",
            type: "GLOBAL",
            library_path: `${dir}/libnone.so`,
            api_version: "1.3.0",
            implementation_version: "1",
            description: "missing library",
          },
        }),
      );
      return Promise.resolve({
        driverManifests: [],
        layerPath: dir,
        instanceLayers: ["VK_LAYER_RELIAB_missing"],
        culprit: "VK_LAYER_RELIAB_missing",
      });
    },
  },
];

/** The variables that run `setup` beside lavapipe, host layers and drivers kept out. */
export function faultVariables(env: MockEnvironment, setup: FaultSetup): Record<string, string> {
  const vars: Record<string, string> = {
    VK_DRIVER_FILES: [...setup.driverManifests, LAVAPIPE].join(":"),
    HOME: env.path("home"),
    XDG_DATA_DIRS: env.path("root/usr/share"),
    XDG_CONFIG_DIRS: env.path("root/etc/xdg"),
    // the host's implicit layers (MangoHud, vkBasalt, primus, device select) stay out of the measurement
    VK_LOADER_LAYERS_DISABLE: "~implicit~",
  };
  if (setup.layerPath !== undefined) vars["VK_LAYER_PATH"] = setup.layerPath;
  if (setup.instanceLayers !== undefined) vars["VK_INSTANCE_LAYERS"] = setup.instanceLayers.join(":");
  return vars;
}

export { MockEnvironment };
