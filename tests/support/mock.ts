/**
 * The mock test environment: a temp tree holding copies of the mock driver and
 * mock layer libraries, their manifests and configs, and one shared call log.
 *
 * @example A driver and a layer, as discovery sees them
 * ```ts
 * import { MockEnvironment } from "./mock.ts";
 * await using env = await MockEnvironment.create();
 * const drv = await env.addDriver({ physicalDevices: [{ type: "discrete" }] });
 * await env.addLayer({ name: "VK_LAYER_MOCK_a" });
 * const snapshot = env.snapshot({ VK_INSTANCE_LAYERS: "VK_LAYER_MOCK_a" });
 * // discoverDrivers(snapshot) finds drv.manifestPath; after a run: env.callLog()
 * ```
 *
 * @module
 */

import type { EnvironmentSnapshot } from "../../discovery/environment.ts";
import { buildMocks, type MockBuild, type MockDriverVariant, type MockLayerVariant } from "./mock_build.ts";
import {
  driverConfigText,
  driverVariant,
  layerConfigText,
  layerVariant,
  type MockDriverConfig,
  type MockLayerConfig,
} from "./mock_config.ts";

export * from "./mock_config.ts";
export { buildMocks, type MockBuild, type MockDriverVariant, type MockLayerVariant } from "./mock_build.ts";

/**
 * Where a driver manifest goes and how the snapshot finds it.
 * - `driver_files` (default): listed in `VK_DRIVER_FILES`; `icd_filenames`: in `VK_ICD_FILENAMES`;
 *   `add_driver_files`: in `VK_ADD_DRIVER_FILES`;
 * - `xdg_config_home`, `xdg_config_dirs`, `xdg_data_home`, `xdg_data_dirs`: `<dir>/vulkan/icd.d` of a tree
 *   folder that the snapshot names in that variable;
 * - `home_config`, `home_data`: `$HOME/.config/vulkan/icd.d`, `$HOME/.local/share/vulkan/icd.d` (XDG unset);
 * - `{ system: "/etc/vulkan/icd.d" }`: a built-in path, under the snapshot's `root`;
 * - `{ folder: "rel/dir" }` or `"none"`: written in the tree (or beside the library), referenced by nothing.
 */
export type DriverPlacement =
  | "driver_files"
  | "icd_filenames"
  | "add_driver_files"
  | "xdg_config_home"
  | "xdg_config_dirs"
  | "xdg_data_home"
  | "xdg_data_dirs"
  | "home_config"
  | "home_data"
  | "none"
  | { readonly system: string }
  | { readonly folder: string };

/** Driver manifest fields; `undefined` keeps the default, `null` leaves the field out. */
export interface DriverManifestFields {
  /** Default "1.0.1". */
  readonly fileFormatVersion?: string | null;
  /** Default the config's `apiVersion` or "1.3.0". */
  readonly apiVersion?: string | null;
  /** "32" or "64"; left out by default. */
  readonly libraryArch?: string | null;
  /** Left out by default. */
  readonly isPortabilityDriver?: boolean | null;
  /** Replaces `library_path` verbatim. */
  readonly libraryPath?: string | null;
  /** Extra top-level `ICD` members. */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/** Options of {@linkcode MockEnvironment.addDriver}. */
export interface AddDriverOptions {
  /** Manifest field overrides. */
  readonly manifest?: DriverManifestFields;
  /** The whole manifest text (`${libraryPath}` is replaced by the library's absolute path). */
  readonly manifestText?: string;
  /** Manifest file name; default `<name>.json`. */
  readonly manifestName?: string;
  /** Where the manifest goes; default `driver_files`. */
  readonly placement?: DriverPlacement;
  /** How `library_path` names the library: absolute (default), relative to the manifest, or bare file name. */
  readonly libraryPathStyle?: "absolute" | "relative" | "bare";
}

/** A driver added to an environment. */
export interface MockDriver {
  /** The log prefix and file stem. */
  readonly name: string;
  readonly manifestPath: string;
  /** The library copy (`<tree>/lib/<name>/libmock_icd_<name>.so`); its config is `<libraryPath>.conf`. */
  readonly libraryPath: string;
  readonly configPath: string;
  readonly variant: MockDriverVariant;
  readonly config: MockDriverConfig;
}

/**
 * Where a layer manifest goes: `layer_path` (default for explicit: a folder listed in `VK_LAYER_PATH`),
 * `add_layer_path` (`VK_ADD_LAYER_PATH`), `implicit_layer_path` (`VK_IMPLICIT_LAYER_PATH`),
 * `home_data` (default for implicit: `$HOME/.local/share/vulkan/{implicit,explicit}_layer.d`),
 * `home_config`, `{ system: "/usr/share/vulkan/implicit_layer.d" }` (under `root`), `{ folder }`, `"none"`.
 */
export type LayerPlacement =
  | "layer_path"
  | "add_layer_path"
  | "implicit_layer_path"
  | "home_config"
  | "home_data"
  | "none"
  | { readonly system: string }
  | { readonly folder: string };

/** Layer manifest fields; `undefined` keeps the default, `null` leaves the field out. */
export interface LayerManifestFields {
  /** Default "1.2.0" (1.1.2 or newer is needed for pre-instance functions). */
  readonly fileFormatVersion?: string | null;
  /** Default "INSTANCE". */
  readonly type?: string | null;
  /** Default "1.3.0". */
  readonly apiVersion?: string | null;
  /** Default "1". */
  readonly implementationVersion?: string | null;
  readonly description?: string | null;
  readonly libraryPath?: string | null;
  readonly libraryArch?: string | null;
  /** `functions` (renamed entry points); default: the renamed set when the variant is `layer_renamed`. */
  readonly functions?: Readonly<Record<string, string>> | null;
  /** Implicit only; default `{ "VK_MOCK_DISABLE_<name>": "1" }`. */
  readonly disableEnvironment?: Readonly<Record<string, string>> | null;
  readonly enableEnvironment?: Readonly<Record<string, string>> | null;
  /** `pre_instance_functions`; default: all three mapped to the mock's exports when the layer is implicit. */
  readonly preInstanceFunctions?: Readonly<Record<string, string>> | null;
  /** Extra members of the layer object. */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/** Options of {@linkcode MockEnvironment.addLayer}. */
export interface AddLayerOptions {
  /** An implicit layer (manifest in an implicit folder, `disable_environment` set). */
  readonly implicit?: boolean;
  readonly manifest?: LayerManifestFields;
  /** The whole manifest text (`${libraryPath}` is replaced). */
  readonly manifestText?: string;
  readonly manifestName?: string;
  readonly placement?: LayerPlacement;
  readonly libraryPathStyle?: "absolute" | "relative" | "bare";
}

/** A layer added to an environment. */
export interface MockLayer {
  readonly name: string;
  readonly manifestPath: string;
  readonly libraryPath: string;
  readonly configPath: string;
  readonly variant: MockLayerVariant;
  readonly implicit: boolean;
  readonly config: MockLayerConfig;
}

/** Exports of the `layer_renamed` variant, as the manifest's `functions` names them. */
export const RENAMED_LAYER_FUNCTIONS: Readonly<Record<string, string>> = {
  vkNegotiateLoaderLayerInterfaceVersion: "MockLayer_NegotiateLoaderLayerInterfaceVersion",
  vkGetInstanceProcAddr: "MockLayer_GetInstanceProcAddr",
  vkGetDeviceProcAddr: "MockLayer_GetDeviceProcAddr",
};

/** Exported pre-instance functions of every layer variant. */
export const LAYER_PRE_INSTANCE_FUNCTIONS: Readonly<Record<string, string>> = {
  vkEnumerateInstanceExtensionProperties: "MockLayer_PreEnumerateInstanceExtensionProperties",
  vkEnumerateInstanceLayerProperties: "MockLayer_PreEnumerateInstanceLayerProperties",
  vkEnumerateInstanceVersion: "MockLayer_PreEnumerateInstanceVersion",
};

/** The `functions` of a `layer_renamed` manifest: without the negotiate rename below interface 2. */
function renamedFunctions(config: MockLayerConfig): Record<string, string> {
  const functions: Record<string, string> = { ...RENAMED_LAYER_FUNCTIONS };
  if ((config.interfaceVersion ?? 2) < 2) delete functions["vkNegotiateLoaderLayerInterfaceVersion"];
  return functions;
}

function relativePath(fromDir: string, to: string): string {
  const a = fromDir.split("/").filter(Boolean);
  const b = to.split("/").filter(Boolean);
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return [...a.slice(i).map(() => ".."), ...b.slice(i)].join("/") || ".";
}

function dirname(path: string): string {
  return path.slice(0, path.lastIndexOf("/")) || "/";
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

function setField(target: Record<string, unknown>, key: string, value: unknown, fallback: unknown): void {
  if (value === null) return;
  const v = value === undefined ? fallback : value;
  if (v !== undefined) target[key] = v;
}

/**
 * A temp tree of mock drivers and layers and the environment snapshot that finds them.
 *
 * The snapshot sets `HOME` inside the tree and `root` to `<tree>/root`, so built-in system folders are
 * the tree's and the host's own drivers and layers never leak in. All mocks of one environment append to
 * `<tree>/calls.log`; {@linkcode MockEnvironment.callLog} returns its lines in call order.
 *
 * @example Usage
 * ```ts
 * import { MockEnvironment } from "./mock.ts";
 * await using env = await MockEnvironment.create();
 * await env.addDriver({ interfaceVersion: 5, physicalDevices: [{}, { type: "cpu" }] });
 * console.log(env.snapshot().vars.VK_DRIVER_FILES);
 * ```
 */
export class MockEnvironment implements AsyncDisposable, Disposable {
  /** The temp tree's absolute path. */
  readonly root: string;
  /** The shared call log file. */
  readonly logPath: string;
  /** The library builds used. */
  readonly build: MockBuild;
  readonly #drivers: MockDriver[] = [];
  readonly #layers: MockLayer[] = [];
  readonly #lists: Record<string, string[]> = {};
  readonly #vars: Record<string, string> = {};
  #disposed = false;

  private constructor(root: string, build: MockBuild) {
    this.root = root;
    this.build = build;
    this.logPath = `${root}/calls.log`;
    Deno.writeTextFileSync(this.logPath, "");
    Deno.mkdirSync(`${root}/home`, { recursive: true });
    Deno.mkdirSync(`${root}/root`, { recursive: true });
  }

  /**
   * Builds the mocks if needed and makes an empty temp tree.
   *
   * @example Usage
   * ```ts
   * import { MockEnvironment } from "./mock.ts";
   * const env = await MockEnvironment.create();
   * env.dispose();
   * ```
   */
  static async create(): Promise<MockEnvironment> {
    const build = await buildMocks();
    const root = await Deno.makeTempDir({ prefix: "vkdeno_mock_" });
    return new MockEnvironment(root, build);
  }

  /** Drivers added so far, in order. */
  get drivers(): readonly MockDriver[] {
    return this.#drivers;
  }

  /** Layers added so far, in order. */
  get layers(): readonly MockLayer[] {
    return this.#layers;
  }

  /** The absolute path of a tree-relative path. */
  path(relative: string): string {
    return `${this.root}/${relative}`.replace(/\/{2,}/g, "/").replace(/\/$/, "");
  }

  #copyLibrary(source: string, kind: string, name: string): string {
    const dir = this.path(`lib/${name}`);
    Deno.mkdirSync(dir, { recursive: true });
    const target = `${dir}/libmock_${kind}_${name}.so`;
    Deno.copyFileSync(source, target);
    return target;
  }

  #libraryField(libraryPath: string, manifestPath: string, style: string | undefined): string {
    if (style === "relative") return relativePath(dirname(manifestPath), libraryPath);
    if (style === "bare") return basename(libraryPath);
    return libraryPath;
  }

  #listIn(variable: string, entry: string): void {
    (this.#lists[variable] ??= []).includes(entry) || this.#lists[variable]!.push(entry);
  }

  #driverDir(placement: DriverPlacement, name: string): string {
    if (typeof placement === "object") {
      return "system" in placement ? this.path(`root/${placement.system}`) : this.path(placement.folder);
    }
    switch (placement) {
      case "driver_files":
      case "icd_filenames":
      case "add_driver_files":
      case "none":
        return this.path(`manifests/${name}`);
      case "home_config":
        return this.path("home/.config/vulkan/icd.d");
      case "home_data":
        return this.path("home/.local/share/vulkan/icd.d");
      default: {
        const base = this.path(placement);
        this.#vars[placement.toUpperCase()] = base;
        return `${base}/vulkan/icd.d`;
      }
    }
  }

  /**
   * Adds a mock driver: copies the library variant the config needs to a file of its own, writes its
   * config beside it and its manifest where `placement` says.
   *
   * @example Usage
   * ```ts
   * import { MockEnvironment } from "./mock.ts";
   * await using env = await MockEnvironment.create();
   * const drv = await env.addDriver({ name: "old", interfaceVersion: 1 }, { manifest: { apiVersion: "1.0.0" } });
   * console.log(drv.manifestPath, drv.libraryPath);
   * ```
   */
  addDriver(config: MockDriverConfig = {}, options: AddDriverOptions = {}): Promise<MockDriver> {
    const name = config.name ?? `driver${this.#drivers.length}`;
    if (!/^[A-Za-z0-9_.-]+$/.test(name)) {
      throw new RangeError(`Mock driver name "${name}" is not a plain file name`);
    }
    if (this.#drivers.some((d) => d.name === name)) {
      throw new RangeError(`Mock driver "${name}" already exists`);
    }
    const variant = driverVariant(config);
    const libraryPath = this.#copyLibrary(this.build.drivers[variant], "icd", name);
    const configPath = `${libraryPath}.conf`;
    Deno.writeTextFileSync(configPath, driverConfigText(config, name, this.logPath));
    const placement = options.placement ?? "driver_files";
    const dir = this.#driverDir(placement, name);
    Deno.mkdirSync(dir, { recursive: true });
    const manifestPath = `${dir}/${options.manifestName ?? `${name}.json`}`;
    let text: string;
    if (options.manifestText !== undefined) {
      text = options.manifestText.replaceAll("${libraryPath}", libraryPath);
    } else {
      const m = options.manifest ?? {};
      const icd: Record<string, unknown> = {};
      setField(
        icd,
        "library_path",
        m.libraryPath,
        this.#libraryField(libraryPath, manifestPath, options.libraryPathStyle),
      );
      setField(icd, "api_version", m.apiVersion, config.apiVersion ?? "1.3.0");
      setField(icd, "library_arch", m.libraryArch, undefined);
      setField(icd, "is_portability_driver", m.isPortabilityDriver, undefined);
      Object.assign(icd, m.extra ?? {});
      const top: Record<string, unknown> = {};
      setField(top, "file_format_version", m.fileFormatVersion, "1.0.1");
      top["ICD"] = icd;
      text = JSON.stringify(top, null, 2) + "\n";
    }
    Deno.writeTextFileSync(manifestPath, text);
    if (placement === "driver_files") this.#listIn("VK_DRIVER_FILES", manifestPath);
    if (placement === "icd_filenames") this.#listIn("VK_ICD_FILENAMES", manifestPath);
    if (placement === "add_driver_files") this.#listIn("VK_ADD_DRIVER_FILES", manifestPath);
    const driver: MockDriver = { name, manifestPath, libraryPath, configPath, variant, config };
    this.#drivers.push(driver);
    return Promise.resolve(driver);
  }

  #layerDir(placement: LayerPlacement, implicit: boolean): string {
    const kind = implicit ? "implicit_layer.d" : "explicit_layer.d";
    if (typeof placement === "object") {
      return "system" in placement ? this.path(`root/${placement.system}`) : this.path(placement.folder);
    }
    switch (placement) {
      case "layer_path":
        this.#listIn("VK_LAYER_PATH", this.path("layers/layer_path"));
        return this.path("layers/layer_path");
      case "add_layer_path":
        this.#listIn("VK_ADD_LAYER_PATH", this.path("layers/add_layer_path"));
        return this.path("layers/add_layer_path");
      case "implicit_layer_path":
        this.#listIn("VK_IMPLICIT_LAYER_PATH", this.path("layers/implicit_layer_path"));
        return this.path("layers/implicit_layer_path");
      case "home_config":
        return this.path(`home/.config/vulkan/${kind}`);
      case "home_data":
        return this.path(`home/.local/share/vulkan/${kind}`);
      case "none":
        return this.path("layers/unlisted");
    }
  }

  /**
   * Adds a mock layer: a library copy, its config and a manifest (explicit by default, in a folder
   * listed in `VK_LAYER_PATH`; implicit ones go to `$HOME/.local/share/vulkan/implicit_layer.d`).
   *
   * @example Usage
   * ```ts
   * import { MockEnvironment } from "./mock.ts";
   * await using env = await MockEnvironment.create();
   * await env.addDriver();
   * const layer = await env.addLayer({ name: "VK_LAYER_MOCK_implicit" }, { implicit: true });
   * console.log(layer.manifestPath);
   * ```
   */
  addLayer(config: MockLayerConfig = {}, options: AddLayerOptions = {}): Promise<MockLayer> {
    const name = config.name ?? `VK_LAYER_MOCK_layer${this.#layers.length}`;
    if (!/^[A-Za-z0-9_.-]+$/.test(name)) {
      throw new RangeError(`Mock layer name "${name}" is not a plain file name`);
    }
    if (this.#layers.some((l) => l.name === name)) {
      throw new RangeError(`Mock layer "${name}" already exists`);
    }
    const implicit = options.implicit ?? false;
    const variant = layerVariant(config);
    const libraryPath = this.#copyLibrary(this.build.layers[variant], "layer", name);
    const configPath = `${libraryPath}.conf`;
    Deno.writeTextFileSync(configPath, layerConfigText(config, name, this.logPath));
    const placement = options.placement ?? (implicit ? "home_data" : "layer_path");
    const dir = this.#layerDir(placement, implicit);
    Deno.mkdirSync(dir, { recursive: true });
    const manifestPath = `${dir}/${options.manifestName ?? `${name}.json`}`;
    let text: string;
    if (options.manifestText !== undefined) {
      text = options.manifestText.replaceAll("${libraryPath}", libraryPath);
    } else {
      const m = options.manifest ?? {};
      const layer: Record<string, unknown> = { name };
      setField(layer, "type", m.type, "INSTANCE");
      setField(
        layer,
        "library_path",
        m.libraryPath,
        this.#libraryField(libraryPath, manifestPath, options.libraryPathStyle),
      );
      setField(layer, "library_arch", m.libraryArch, undefined);
      setField(layer, "api_version", m.apiVersion, "1.3.0");
      setField(layer, "implementation_version", m.implementationVersion, "1");
      setField(layer, "description", m.description, `vkdeno mock layer ${name}`);
      setField(
        layer,
        "functions",
        m.functions,
        variant === "layer_renamed" ? renamedFunctions(config) : undefined,
      );
      const ext = (list: MockLayerConfig["instanceExtensions"]) =>
        list?.map((e) => ({
          name: e.name,
          spec_version: String(e.specVersion ?? 1),
          ...(e.entrypoints ? { entrypoints: e.entrypoints } : {}),
        }));
      setField(layer, "instance_extensions", undefined, ext(config.instanceExtensions));
      setField(layer, "device_extensions", undefined, ext(config.deviceExtensions));
      if (implicit) {
        setField(layer, "disable_environment", m.disableEnvironment, { [`VK_MOCK_DISABLE_${name}`]: "1" });
        setField(layer, "enable_environment", m.enableEnvironment, undefined);
        setField(layer, "pre_instance_functions", m.preInstanceFunctions, LAYER_PRE_INSTANCE_FUNCTIONS);
      } else {
        setField(layer, "disable_environment", m.disableEnvironment, undefined);
        setField(layer, "enable_environment", m.enableEnvironment, undefined);
        setField(layer, "pre_instance_functions", m.preInstanceFunctions, undefined);
      }
      Object.assign(layer, m.extra ?? {});
      const top: Record<string, unknown> = {};
      setField(top, "file_format_version", m.fileFormatVersion, "1.2.0");
      top["layer"] = layer;
      text = JSON.stringify(top, null, 2) + "\n";
    }
    Deno.writeTextFileSync(manifestPath, text);
    const added: MockLayer = { name, manifestPath, libraryPath, configPath, variant, implicit, config };
    this.#layers.push(added);
    return Promise.resolve(added);
  }

  /**
   * The environment snapshot discovery takes: `HOME` in the tree, `root` = `<tree>/root`, the path lists
   * (`VK_DRIVER_FILES`, `VK_LAYER_PATH`, ...) of what was added, XDG variables for XDG placements, then
   * `extraVars` (an empty string removes a variable).
   *
   * @example Usage
   * ```ts
   * import { MockEnvironment } from "./mock.ts";
   * await using env = await MockEnvironment.create();
   * await env.addDriver();
   * const snap = env.snapshot({ VK_LOADER_DEBUG: "all" });
   * ```
   */
  snapshot(
    extraVars: Readonly<Record<string, string>> = {},
    options: { elevated?: boolean } = {},
  ): EnvironmentSnapshot {
    const vars: Record<string, string> = { HOME: this.path("home"), ...this.#vars };
    for (const [k, list] of Object.entries(this.#lists)) vars[k] = list.join(":");
    for (const [k, v] of Object.entries(extraVars)) {
      if (v === "") delete vars[k];
      else vars[k] = v;
    }
    return { vars, elevated: options.elevated ?? false, root: this.path("root") };
  }

  /**
   * Every call-log line written so far by the mocks of this environment, in order
   * (`<mock name> <command> key=value ...`); `prefix` keeps only one mock's lines.
   *
   * @example Usage
   * ```ts
   * import { MockEnvironment } from "./mock.ts";
   * await using env = await MockEnvironment.create();
   * console.log(env.callLog()); // []
   * ```
   */
  callLog(prefix?: string): string[] {
    const lines = Deno.readTextFileSync(this.logPath).split("\n").filter((l) => l !== "");
    return prefix === undefined ? lines : lines.filter((l) => l.startsWith(`${prefix} `));
  }

  /** Empties the call log. */
  clearCallLog(): void {
    Deno.writeTextFileSync(this.logPath, "");
  }

  /** Removes the temp tree (libraries already loaded stay mapped). */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    Deno.removeSync(this.root, { recursive: true });
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  [Symbol.asyncDispose](): Promise<void> {
    this.dispose();
    return Promise.resolve();
  }
}
