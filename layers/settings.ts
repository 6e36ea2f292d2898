/**
 * Layer settings as Khronos layers read them (docs/behaviour.md LS01-LS12): what a TS layer declares (names,
 * types, defaults), the three sources (`VkLayerSettingsCreateInfoEXT` in `vkCreateInstance`'s chain,
 * `vk_layer_settings.txt`, `VK_<LAYER>_<SETTING>` variables) and the host's option, resolved once per
 * instance into the frozen object a hook reads as `env.settings`.
 *
 * @example The values a layer gets with nothing set: its defaults
 * ```ts
 * import { LayerSettingsSources } from "./settings.ts";
 * const sources = new LayerSettingsSources({ vars: {}, elevated: false, cwd: "/nonexistent" }, null);
 * const values = sources.resolve("VK_LAYER_example_x", { depth: { type: "uint32", default: 4 } });
 * console.log(values.depth); // 4
 * ```
 *
 * @module
 */
import { type EnvironmentSnapshot, getenv } from "../discovery/environment.ts";
import { joinPath, resolveEntry } from "../discovery/search_paths.ts";
import { type Arena, nativeBytes, readCString, readPointer, readU32 } from "../ffi/memory.ts";
import type { VkExtendingStruct } from "../vk/generated/vk_structs.ts";
import type { VkLayerSettingTypeEXT } from "../vk/generated/vk_types.ts";
import {
  VK_LAYER_SETTING_TYPE_BOOL32_EXT,
  VK_LAYER_SETTING_TYPE_FLOAT32_EXT,
  VK_LAYER_SETTING_TYPE_FLOAT64_EXT,
  VK_LAYER_SETTING_TYPE_INT32_EXT,
  VK_LAYER_SETTING_TYPE_INT64_EXT,
  VK_LAYER_SETTING_TYPE_STRING_EXT,
  VK_LAYER_SETTING_TYPE_UINT32_EXT,
  VK_LAYER_SETTING_TYPE_UINT64_EXT,
  VK_STRUCTURE_TYPE_LAYER_SETTINGS_CREATE_INFO_EXT,
} from "../vk/generated/vk_constants.js";

/** The JavaScript type of each scalar setting type (64-bit integers are `bigint`). */
export interface ScalarSettingTypes {
  /** `true`/`false`, `on`/`off` or an integer (non-zero: true) in text; `VK_LAYER_SETTING_TYPE_BOOL32_EXT`. */
  bool: boolean;
  /** `VK_LAYER_SETTING_TYPE_INT32_EXT`. */
  int32: number;
  /** `VK_LAYER_SETTING_TYPE_UINT32_EXT`. */
  uint32: number;
  /** `VK_LAYER_SETTING_TYPE_INT64_EXT`. */
  int64: bigint;
  /** `VK_LAYER_SETTING_TYPE_UINT64_EXT`. */
  uint64: bigint;
  /** `VK_LAYER_SETTING_TYPE_FLOAT32_EXT`. */
  float32: number;
  /** `VK_LAYER_SETTING_TYPE_FLOAT64_EXT`. */
  float64: number;
  /** Any text; through the API, `VK_LAYER_SETTING_TYPE_STRING_EXT` or any other type, written as text. */
  string: string;
}

/** A setting of one scalar type: one value, or with `list: true` a list of them. */
export type ScalarSettingDeclaration = {
  [T in keyof ScalarSettingTypes]:
    | {
      /** The value's type. */
      readonly type: T;
      /** One value (the default). */
      readonly list?: false;
      /** The value when no source sets it. */
      readonly default: ScalarSettingTypes[T];
      /** One line for `deno doc` readers and tools. */
      readonly description?: string;
    }
    | {
      /** The values' type. */
      readonly type: T;
      /** A list: `a,b,c` in text (or `a:b:c` when there is no comma). */
      readonly list: true;
      /** The values when no source sets them. */
      readonly default: readonly ScalarSettingTypes[T][];
      /** One line for `deno doc` readers and tools. */
      readonly description?: string;
    };
}[keyof ScalarSettingTypes];

/** A string setting taking one of `values` (vkconfig's `ENUM`), or with `list: true` several (`FLAGS`). */
export type EnumSettingDeclaration =
  | {
    /** `"enum"`. */
    readonly type: "enum";
    /** The values allowed, compared case-sensitively. */
    readonly values: readonly string[];
    /** One value (the default). */
    readonly list?: false;
    /** The value when no source sets it: one of `values`. */
    readonly default: string;
    /** One line for `deno doc` readers and tools. */
    readonly description?: string;
  }
  | {
    /** `"enum"`. */
    readonly type: "enum";
    /** The values allowed, compared case-sensitively. */
    readonly values: readonly string[];
    /** A list of them. */
    readonly list: true;
    /** The values when no source sets them, each one of `values`. */
    readonly default: readonly string[];
    /** One line for `deno doc` readers and tools. */
    readonly description?: string;
  };

/** A frame range: `first`, then `count` frames `step` apart (`first-count-step` in text). */
export interface LayerSettingFrameset {
  /** The first frame. */
  readonly first: number;
  /** How many frames (text default 1). */
  readonly count: number;
  /** Frames between two (text default 1). */
  readonly step: number;
}

/** Frame ranges, as the screenshot layers take them: `0-3,10,20-5-2` in text. */
export interface FramesetSettingDeclaration {
  /** `"frameset"`. */
  readonly type: "frameset";
  /** The ranges when no source sets them. */
  readonly default: readonly LayerSettingFrameset[];
  /** One line for `deno doc` readers and tools. */
  readonly description?: string;
}

/** One setting a layer declares: its type and default. */
export type LayerSettingDeclaration =
  | ScalarSettingDeclaration
  | EnumSettingDeclaration
  | FramesetSettingDeclaration;

/** A layer's settings by name (`snake_case`, as Khronos layers name theirs). */
export type LayerSettingDeclarations = { readonly [name: string]: LayerSettingDeclaration };

/** The settings of a layer that declares none: its `env.settings` has no member. */
export type NoLayerSettings = Record<never, never>;

/** The value a hook reads for declaration `D`. */
export type LayerSettingValue<D> = D extends { readonly type: "frameset" } ? readonly LayerSettingFrameset[]
  : D extends { readonly type: "enum"; readonly values: readonly (infer V)[]; readonly list: true }
    ? readonly V[]
  : D extends { readonly type: "enum"; readonly values: readonly (infer V)[] } ? V
  : D extends { readonly type: infer T extends keyof ScalarSettingTypes; readonly list: true }
    ? readonly ScalarSettingTypes[T][]
  : D extends { readonly type: infer T extends keyof ScalarSettingTypes } ? ScalarSettingTypes[T]
  : never;

/** `env.settings` of a layer declaring `S`: every declared setting, typed; nothing else. */
export type LayerSettingValues<S> = { readonly [K in keyof S]: LayerSettingValue<S[K]> };

/** Where a setting's value came from, as warnings name it. */
type Source = string;

/** One `VkLayerSettingEXT` read out of the application's chain. */
interface ApiSetting {
  readonly layer: string;
  readonly name: string;
  readonly type: number;
  readonly count: number;
  readonly values: Deno.PointerValue;
}

/** One `key = value` line of the settings file. */
interface FileEntry {
  readonly value: string;
  readonly line: number;
}

/** The settings file of one `vkCreateInstance`: its path, entries by key, and lines with no `=`. */
interface SettingsFile {
  readonly path: string;
  readonly entries: ReadonlyMap<string, FileEntry>;
  readonly malformed: readonly { readonly text: string; readonly line: number }[];
}

/** Receives one warning about a layer's settings: its id (`Layer-SettingInvalid`, `Layer-SettingUnknown`) and text. */
export type SettingWarning = (id: string, text: string) => void;

/** `VK_LAYER_KHRONOS_validation` -> `KHRONOS_validation` (LS03). */
function trimPrefix(layer: string): string {
  return layer.startsWith("VK_LAYER_") ? layer.slice("VK_LAYER_".length) : layer;
}

/**
 * The key of a layer's lines in `vk_layer_settings.txt` (LS03): the name without `VK_LAYER_`, lowercased.
 *
 * @example Usage
 * ```ts
 * import { settingsFileKey } from "@vkdeno/loader/layers";
 * console.log(settingsFileKey("VK_LAYER_KHRONOS_validation")); // "khronos_validation"
 * ```
 */
export function settingsFileKey(layer: string): string {
  return trimPrefix(layer).toLowerCase();
}

/**
 * The variables a setting is read from, first found wins (LS04): `VK_<KEY>_<SETTING>` with the layer key
 * uppercased, the same without the vendor (`VK_VALIDATION_<SETTING>`), then `VK_<SETTING>`.
 *
 * @example Usage
 * ```ts
 * import { settingVariables } from "@vkdeno/loader/layers";
 * console.log(settingVariables("VK_LAYER_KHRONOS_validation", "debug_action"));
 * // ["VK_KHRONOS_VALIDATION_DEBUG_ACTION", "VK_VALIDATION_DEBUG_ACTION", "VK_DEBUG_ACTION"]
 * ```
 */
export function settingVariables(layer: string, setting: string): string[] {
  const key = trimPrefix(layer);
  const vendor = key.indexOf("_");
  const names = [
    `VK_${key.toUpperCase()}_${setting.toUpperCase()}`,
    `VK_${(vendor < 0 ? key : key.slice(vendor + 1)).toUpperCase()}_${setting.toUpperCase()}`,
    `VK_${setting.toUpperCase()}`,
  ];
  return names.filter((n, i) => names.indexOf(n) === i);
}

/**
 * Where `vk_layer_settings.txt` is read from (LS05): `$XDG_DATA_HOME` (else `$HOME/.local/share`)
 * `/vulkan/settings.d/vk_layer_settings.txt` when it is a file; else `VK_LAYER_SETTINGS_PATH` when it exists
 * (a folder gets `/vk_layer_settings.txt`); else the working folder's `vk_layer_settings.txt`.
 *
 * @example Usage
 * ```ts
 * import { layerSettingsFilePath } from "@vkdeno/loader/layers";
 * console.log(layerSettingsFilePath({ vars: {}, elevated: false, cwd: "/nonexistent" }));
 * // "/nonexistent/vk_layer_settings.txt"
 * ```
 */
export function layerSettingsFilePath(env: EnvironmentSnapshot): string {
  const value = (name: string) => {
    const v = getenv(env, name);
    return v === undefined || v === "" ? undefined : v;
  };
  const home = value("HOME");
  const data = value("XDG_DATA_HOME") ?? (home === undefined ? undefined : joinPath(home, ".local/share"));
  if (data !== undefined) {
    const path = joinPath(resolveEntry(env, data), "vulkan/settings.d/vk_layer_settings.txt");
    if (statKind(path) === "file") return path;
  }
  const named = value("VK_LAYER_SETTINGS_PATH");
  if (named !== undefined) {
    const path = resolveEntry(env, named);
    const kind = statKind(path);
    if (kind === "folder") return joinPath(path, "vk_layer_settings.txt");
    if (kind !== "missing") return path;
  }
  return joinPath(env.cwd ?? currentFolder(), "vk_layer_settings.txt");
}

function statKind(path: string): "file" | "folder" | "other" | "missing" {
  try {
    const info = Deno.statSync(path);
    return info.isFile ? "file" : info.isDirectory ? "folder" : "other";
  } catch {
    return "missing";
  }
}

function currentFolder(): string {
  try {
    return Deno.cwd();
  } catch {
    return ".";
  }
}

/** Reads the settings file's `key = value` lines (LS06); a missing or unreadable file has none. */
function readSettingsFile(path: string): SettingsFile {
  const entries = new Map<string, FileEntry>();
  const malformed: { text: string; line: number }[] = [];
  let text = "";
  try {
    text = Deno.readTextFileSync(path);
  } catch {
    return { path, entries, malformed };
  }
  text.split("\n").forEach((raw, i) => {
    const hash = raw.indexOf("#");
    const line = hash < 0 ? raw : raw.slice(0, hash);
    const eq = line.indexOf("=");
    if (eq < 0) {
      if (line.trim() !== "") malformed.push({ text: line.trim(), line: i + 1 });
      return;
    }
    // A later line for the same key replaces an earlier one.
    entries.set(line.slice(0, eq).trim(), { value: line.slice(eq + 1).trim(), line: i + 1 });
  });
  return { path, entries, malformed };
}

/** Every `VkLayerSettingEXT` of the `VkLayerSettingsCreateInfoEXT` structs chained to a `VkInstanceCreateInfo`, in chain order (LS02). */
function readApiSettings(createInfo: Deno.PointerValue): ApiSetting[] {
  const out: ApiSetting[] = [];
  if (createInfo === null) return out;
  for (let p = readPointer(createInfo, 8); p !== null; p = readPointer(p, 8)) {
    if (readU32(p, 0) !== VK_STRUCTURE_TYPE_LAYER_SETTINGS_CREATE_INFO_EXT) continue;
    const count = readU32(p, 16);
    const settings = readPointer(p, 24);
    for (let i = 0; i < count && settings !== null; i++) {
      const at = i * 32;
      const layer = readPointer(settings, at);
      const name = readPointer(settings, at + 8);
      if (layer === null || name === null) continue;
      out.push({
        layer: readCString(layer),
        name: readCString(name),
        type: readU32(settings, at + 16),
        count: readU32(settings, at + 20),
        values: readPointer(settings, at + 24),
      });
    }
  }
  return out;
}

/** `VkLayerSettingTypeEXT` names, for messages. */
const API_TYPE_NAMES = [
  "VK_LAYER_SETTING_TYPE_BOOL32_EXT",
  "VK_LAYER_SETTING_TYPE_INT32_EXT",
  "VK_LAYER_SETTING_TYPE_INT64_EXT",
  "VK_LAYER_SETTING_TYPE_UINT32_EXT",
  "VK_LAYER_SETTING_TYPE_UINT64_EXT",
  "VK_LAYER_SETTING_TYPE_FLOAT32_EXT",
  "VK_LAYER_SETTING_TYPE_FLOAT64_EXT",
  "VK_LAYER_SETTING_TYPE_STRING_EXT",
];

/** The `VkLayerSettingTypeEXT` a scalar type is given as through the API. */
const API_TYPES: Readonly<Record<keyof ScalarSettingTypes, VkLayerSettingTypeEXT>> = {
  bool: VK_LAYER_SETTING_TYPE_BOOL32_EXT,
  int32: VK_LAYER_SETTING_TYPE_INT32_EXT,
  uint32: VK_LAYER_SETTING_TYPE_UINT32_EXT,
  int64: VK_LAYER_SETTING_TYPE_INT64_EXT,
  uint64: VK_LAYER_SETTING_TYPE_UINT64_EXT,
  float32: VK_LAYER_SETTING_TYPE_FLOAT32_EXT,
  float64: VK_LAYER_SETTING_TYPE_FLOAT64_EXT,
  string: VK_LAYER_SETTING_TYPE_STRING_EXT,
};

const API_SIZES = [4, 4, 8, 4, 8, 4, 8, 8];

/** The result of reading a value: the value, or what is wrong with it. */
type Parsed = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly why: string };

const fail = (why: string): Parsed => ({ ok: false, why });
const ok = (value: unknown): Parsed => ({ ok: true, value });

const INTEGER = /^(-?)(0x[0-9a-f]+|[0-9]+)$/;
const FLOAT = /^-?(\d+(\.\d*)?|\.\d+)f?$/;
const FRAMESET = /^(\d+)(?:-(\d+))?(?:-(\d+))?$/;

const RANGES = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
} as const;

/** One text item as a scalar of `type` (LS07). */
function parseItem(type: keyof ScalarSettingTypes, item: string): Parsed {
  const lower = item.toLowerCase();
  switch (type) {
    case "string":
      return ok(item);
    case "bool": {
      if (lower === "true" || lower === "on") return ok(true);
      if (lower === "false" || lower === "off") return ok(false);
      const n = INTEGER.exec(lower);
      if (n) return ok(BigInt(n[2]!) !== 0n);
      return fail(`"${item}" is not a boolean (true, false, on, off or an integer)`);
    }
    case "float32":
    case "float64":
      return FLOAT.test(lower) ? ok(parseFloat(lower)) : fail(`"${item}" is not a floating-point number`);
    default: {
      const n = INTEGER.exec(lower);
      if (!n) return fail(`"${item}" is not an integer`);
      const value = (n[1] === "-" ? -1n : 1n) * BigInt(n[2]!);
      const [min, max] = RANGES[type];
      if (value < min || value > max) return fail(`${item} is out of the range of ${type}`);
      return ok(type === "int64" || type === "uint64" ? value : Number(value));
    }
  }
}

function parseFrameset(item: string): Parsed {
  const m = FRAMESET.exec(item);
  if (!m) return fail(`"${item}" is not a frame range (first[-count[-step]])`);
  return ok(Object.freeze({ first: Number(m[1]), count: Number(m[2] ?? 1), step: Number(m[3] ?? 1) }));
}

/** A list value split as the library splits it (LS08): on `,` if any, else `:`; a trailing empty item dropped. */
function splitList(text: string): string[] {
  const items = text.split(text.includes(",") ? "," : ":");
  if (items.at(-1) === "") items.pop();
  return items;
}

/** A value from text (a variable or the file) for `decl` (LS07, LS08). */
function fromText(decl: LayerSettingDeclaration, text: string): Parsed {
  if (decl.type === "frameset") return many(splitList(text), parseFrameset);
  const one = (item: string): Parsed =>
    decl.type === "enum" ? enumValue(decl.values, item) : parseItem(decl.type, item);
  if (decl.list) return many(splitList(text), one);
  return one(text);
}

function enumValue(values: readonly string[], item: unknown): Parsed {
  if (typeof item === "string" && values.includes(item)) return ok(item);
  return fail(`${describe(item)} is not one of ${values.map((v) => `"${v}"`).join(", ")}`);
}

function many(items: readonly unknown[], one: (item: never) => Parsed): Parsed {
  const out: unknown[] = [];
  for (const item of items) {
    const r = one(item as never);
    if (!r.ok) return r;
    out.push(r.value);
  }
  return ok(Object.freeze(out));
}

function describe(value: unknown): string {
  return typeof value === "string" ? `"${value}"` : typeof value === "bigint" ? `${value}n` : String(value);
}

/** The values of a `VkLayerSettingEXT` for `decl` (LS09). */
function fromApi(decl: LayerSettingDeclaration, s: ApiSetting): Parsed {
  const typeName = API_TYPE_NAMES[s.type] ?? `VkLayerSettingTypeEXT ${s.type}`;
  if (API_TYPE_NAMES[s.type] === undefined) return fail(`its type is ${typeName}, no VkLayerSettingTypeEXT`);
  if (s.count > 0 && s.values === null) return fail(`valueCount is ${s.count} and pValues is NULL`);
  const list = decl.type === "frameset" || decl.list === true;
  if (!list && s.count === 0) return fail("valueCount is 0: no value");
  const raw = s.count === 0 ? [] : readApiValues(s);
  if (decl.type === "frameset") {
    if (s.type === VK_LAYER_SETTING_TYPE_STRING_EXT) return many(raw.map(String), parseFrameset);
    if (s.type !== VK_LAYER_SETTING_TYPE_UINT32_EXT || s.count % 3 !== 0) {
      return fail(
        `a frameset is given as VK_LAYER_SETTING_TYPE_UINT32_EXT triples or strings, not ${s.count} ${typeName}`,
      );
    }
    const out: LayerSettingFrameset[] = [];
    for (let i = 0; i < raw.length; i += 3) {
      out.push(
        Object.freeze({ first: raw[i] as number, count: raw[i + 1] as number, step: raw[i + 2] as number }),
      );
    }
    return ok(Object.freeze(out));
  }
  let one: (v: unknown) => Parsed;
  if (decl.type === "string") {
    // Any type reads as text for a string setting, as the library writes it.
    one = (v) => ok(typeof v === "string" ? v : apiText(s.type, v));
  } else if (decl.type === "enum") {
    if (s.type !== VK_LAYER_SETTING_TYPE_STRING_EXT) return fail(`its type is ${typeName}, not STRING`);
    one = (v) => enumValue(decl.values, v);
  } else {
    const want = API_TYPES[decl.type];
    if (s.type !== want) return fail(`its type is ${typeName}, not ${API_TYPE_NAMES[want]}`);
    one = decl.type === "bool"
      ? (v) => (v === 0 || v === 1 ? ok(v === 1) : fail(`${v} is no VkBool32 (VK_TRUE or VK_FALSE)`))
      : ok;
  }
  return list ? many(raw, one) : one(raw[0]);
}

function apiText(type: number, v: unknown): string {
  if (type === VK_LAYER_SETTING_TYPE_BOOL32_EXT) return v === 1 ? "true" : "false";
  if (type === VK_LAYER_SETTING_TYPE_FLOAT32_EXT || type === VK_LAYER_SETTING_TYPE_FLOAT64_EXT) {
    return (v as number).toFixed(6);
  }
  return String(v);
}

function readApiValues(s: ApiSetting): unknown[] {
  const size = API_SIZES[s.type]!;
  const bytes = nativeBytes(s.values, size * s.count);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: unknown[] = [];
  for (let i = 0; i < s.count; i++) {
    const at = i * size;
    switch (s.type) {
      case VK_LAYER_SETTING_TYPE_BOOL32_EXT:
      case VK_LAYER_SETTING_TYPE_UINT32_EXT:
        out.push(view.getUint32(at, true));
        break;
      case VK_LAYER_SETTING_TYPE_INT32_EXT:
        out.push(view.getInt32(at, true));
        break;
      case VK_LAYER_SETTING_TYPE_INT64_EXT:
        out.push(view.getBigInt64(at, true));
        break;
      case VK_LAYER_SETTING_TYPE_UINT64_EXT:
        out.push(view.getBigUint64(at, true));
        break;
      case VK_LAYER_SETTING_TYPE_FLOAT32_EXT:
        out.push(view.getFloat32(at, true));
        break;
      case VK_LAYER_SETTING_TYPE_FLOAT64_EXT:
        out.push(view.getFloat64(at, true));
        break;
      default: {
        const p = readPointer(s.values, at);
        out.push(p === null ? "" : readCString(p));
      }
    }
  }
  return out;
}

/** A JavaScript value (the host's option, a declared default) for `decl` (LS10). */
function fromValue(decl: LayerSettingDeclaration, value: unknown): Parsed {
  const list = decl.type === "frameset" || decl.list === true;
  if (list && !Array.isArray(value)) return fail(`${describe(value)} is not an array`);
  const one = (v: unknown): Parsed => {
    if (decl.type === "frameset") {
      if (typeof v === "string") return parseFrameset(v);
      const f = v as Partial<LayerSettingFrameset> | null;
      const whole = (n: unknown) => Number.isInteger(n) && (n as number) >= 0;
      return typeof f === "object" && f !== null && whole(f.first) && whole(f.count) && whole(f.step)
        ? ok(Object.freeze({ first: f.first, count: f.count, step: f.step }))
        : fail(`${JSON.stringify(v)} is not a { first, count, step } frame range`);
    }
    if (decl.type === "enum") return enumValue(decl.values, v);
    switch (decl.type) {
      case "bool":
        return typeof v === "boolean" ? ok(v) : fail(`${describe(v)} is not a boolean`);
      case "string":
        return typeof v === "string" ? ok(v) : fail(`${describe(v)} is not a string`);
      case "float32":
      case "float64":
        return typeof v === "number" ? ok(v) : fail(`${describe(v)} is not a number`);
      default: {
        const wide = decl.type === "int64" || decl.type === "uint64";
        if (typeof v !== "bigint" && !Number.isInteger(v)) {
          return fail(`${describe(v)} is not an integer${wide ? " (a bigint)" : ""}`);
        }
        const n = BigInt(v as number | bigint);
        const [min, max] = RANGES[decl.type];
        if (n < min || n > max) return fail(`${describe(v)} is out of the range of ${decl.type}`);
        return ok(wide ? n : Number(n));
      }
    }
  };
  return list ? many(value as unknown[], one) : one(value);
}

/**
 * Checks a layer's declarations (each default of its declared type, each enum default one of its values).
 *
 * @example Usage
 * ```ts
 * import { checkDeclarations } from "./settings.ts";
 * checkDeclarations("VK_LAYER_example_x", { depth: { type: "uint32", default: 4 } }); // no throw
 * ```
 * @throws {TypeError} Naming the layer and the setting, if a declaration is wrong.
 */
export function checkDeclarations(layer: string, declarations: LayerSettingDeclarations): void {
  for (const [name, decl] of Object.entries(declarations)) {
    const r = typeof decl === "object" && decl !== null && typeof decl.type === "string"
      ? (decl.type !== "frameset" && decl.type !== "enum" && !(decl.type in API_TYPES))
        ? fail(
          `its type "${decl.type}" is none of bool, int32, uint32, int64, uint64, float32, float64, string, enum, frameset`,
        )
        : decl.type === "enum" && !Array.isArray(decl.values)
        ? fail("an enum setting needs its values")
        : fromValue(decl, decl.default)
      : fail("its declaration has no type");
    if (!/^\w+$/.test(name) || !r.ok) {
      const why = r.ok ? "a setting name is letters, digits and _" : `default: ${r.why}`;
      throw new TypeError(`Layer "${layer}" declares setting "${name}" wrongly: ${why}`);
    }
  }
}

/**
 * What one `vkCreateInstance` gives the layers' settings: the variables and the settings file of `env`
 * (read once, on first need) and the `VkLayerSettingsCreateInfoEXT` structs chained to `createInfo`.
 */
export class LayerSettingsSources {
  readonly #env: EnvironmentSnapshot;
  readonly #createInfo: Deno.PointerValue;
  #file: SettingsFile | undefined;
  #api: ApiSetting[] | undefined;

  /** Sources for an instance made with `createInfo` (a `VkInstanceCreateInfo`, or null) in `env`. */
  constructor(env: EnvironmentSnapshot, createInfo: Deno.PointerValue) {
    this.#env = env;
    this.#createInfo = createInfo;
  }

  get #settingsFile(): SettingsFile {
    return this.#file ??= readSettingsFile(layerSettingsFilePath(this.#env));
  }

  get #apiSettings(): ApiSetting[] {
    return this.#api ??= readApiSettings(this.#createInfo);
  }

  /**
   * The frozen settings of `layer` (LS01): for each declared setting, the first source that sets it with a
   * value of its type: a variable, the settings file, `VkLayerSettingsCreateInfoEXT` (its first struct that
   * names it), `host` (the host's option for this layer); else its default. A value that does not read as
   * its type, a setting the layer does not declare and a file line without `=` for the layer each get one
   * `warn` naming the source, the layer and the setting (LS11).
   */
  resolve(
    layer: string,
    declarations: LayerSettingDeclarations,
    host: Readonly<Record<string, unknown>> = {},
    warn: SettingWarning = () => {},
  ): Readonly<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    const key = settingsFileKey(layer);
    const file = this.#settingsFile;
    const api = this.#apiSettings.filter((s) => s.layer === layer);
    const bad = (source: Source, name: string, why: string) =>
      warn("Layer-SettingInvalid", `setting "${name}" from ${source} is ignored: ${why}`);
    for (const [name, decl] of Object.entries(declarations)) {
      const pick = (): unknown => {
        for (const variable of settingVariables(layer, name)) {
          const text = getenv(this.#env, variable);
          if (text === undefined || text === "") continue;
          const r = fromText(decl, text);
          if (r.ok) return r.value;
          bad(`the variable ${variable}`, name, r.why);
          break;
        }
        const entry = file.entries.get(`${key}.${name}`);
        if (entry !== undefined && entry.value !== "") {
          const r = fromText(decl, entry.value);
          if (r.ok) return r.value;
          bad(`${file.path}:${entry.line}`, name, r.why);
        }
        const given = api.find((s) => s.name === name);
        if (given !== undefined) {
          const r = fromApi(decl, given);
          if (r.ok) return r.value;
          bad("VkLayerSettingsCreateInfoEXT", name, r.why);
        }
        if (Object.hasOwn(host, name)) {
          const r = fromValue(decl, host[name]);
          if (r.ok) return r.value;
          bad("the host's settings option", name, r.why);
        }
        const d = fromValue(decl, decl.default);
        return d.ok ? d.value : decl.default;
      };
      out[name] = pick();
    }
    const unknown = (source: string, name: string) =>
      warn(
        "Layer-SettingUnknown",
        `${source} sets "${name}", which the layer does not declare (it declares ${
          Object.keys(declarations).map((n) => `"${n}"`).join(", ") || "none"
        })`,
      );
    for (const [k, entry] of file.entries) {
      if (k.startsWith(`${key}.`) && !Object.hasOwn(declarations, k.slice(key.length + 1))) {
        unknown(`${file.path}:${entry.line}`, k.slice(key.length + 1));
      }
    }
    for (const m of file.malformed) {
      if (m.text.startsWith(`${key}.`)) {
        warn("Layer-SettingInvalid", `${file.path}:${m.line} is ignored: "${m.text}" has no "="`);
      }
    }
    for (const s of api) {
      if (!Object.hasOwn(declarations, s.name)) unknown("VkLayerSettingsCreateInfoEXT", s.name);
    }
    for (const name of Object.keys(host)) {
      if (!Object.hasOwn(declarations, name)) unknown("the host's settings option", name);
    }
    return Object.freeze(out);
  }
}

/** Values an application gives some of a layer's declared settings, each typed as the layer reads it. */
export type LayerSettingInputs<S> = { readonly [K in keyof S]?: LayerSettingValue<S[K]> };

/** The typed array each scalar type is written through, and its `VkLayerSettingTypeEXT`. */
const API_ARRAYS = {
  bool: Uint32Array,
  int32: Int32Array,
  uint32: Uint32Array,
  int64: BigInt64Array,
  uint64: BigUint64Array,
  float32: Float32Array,
  float64: Float64Array,
} as const;

/**
 * A `VkLayerSettingsCreateInfoEXT` extending struct setting `values` for `layer` (LS02, LS09), for the `pNext`
 * of the `VkInstanceCreateInfo` given to `vkCreateInstance` (`VkApi.createInstance({ pNext: [settings] })` or
 * `writeStruct`): each value written with its setting's `VkLayerSettingTypeEXT`, strings and enums as
 * `STRING`, frame ranges as `UINT32` triples, into `arena`, which must outlive the call.
 *
 * @example Verbose, through the API, for the instance made with it
 * ```ts
 * import { Arena } from "@vkdeno/loader";
 * import { layerSettingsCreateInfo } from "@vkdeno/loader/layers";
 * const layer = { name: "VK_LAYER_example_x", settings: { verbose: { type: "bool", default: false } } } as const;
 * using arena = new Arena();
 * const settings = layerSettingsCreateInfo(arena, layer, { verbose: true });
 * console.log(settings.type); // "VkLayerSettingsCreateInfoEXT"
 * ```
 * @throws {TypeError} Naming the layer and the setting, for a setting the layer does not declare or a
 * value not of its type.
 */
export function layerSettingsCreateInfo<const S extends LayerSettingDeclarations>(
  arena: Arena,
  layer: { readonly name: string; readonly settings?: S },
  values: LayerSettingInputs<S>,
): VkExtendingStruct<"VkLayerSettingsCreateInfoEXT", "VkInstanceCreateInfo"> {
  const declared: LayerSettingDeclarations = layer.settings ?? {};
  const bytes = (view: ArrayBufferView) => {
    const buffer = arena.alloc(Math.max(view.byteLength, 8), 8);
    buffer.set(new Uint8Array(view.buffer, view.byteOffset, view.byteLength));
    return arena.pointer(buffer);
  };
  const pSettings = Object.entries(values).map(([name, value]) => {
    const decl = Object.hasOwn(declared, name) ? declared[name] : undefined;
    if (decl === undefined) {
      throw new TypeError(`layerSettingsCreateInfo: layer "${layer.name}" declares no setting "${name}"`);
    }
    const r = fromValue(decl, value);
    if (!r.ok) throw new TypeError(`layerSettingsCreateInfo: setting "${name}" of "${layer.name}": ${r.why}`);
    const items = decl.type === "frameset" || decl.list === true ? r.value as unknown[] : [r.value];
    const setting = { pLayerName: layer.name, pSettingName: name };
    if (decl.type === "frameset") {
      const triples = (items as LayerSettingFrameset[]).flatMap((f) => [f.first, f.count, f.step]);
      return {
        ...setting,
        type: VK_LAYER_SETTING_TYPE_UINT32_EXT,
        valueCount: triples.length,
        pValues: bytes(new Uint32Array(triples)),
      };
    }
    if (decl.type === "string" || decl.type === "enum") {
      const table = new BigUint64Array(items.length);
      items.forEach((text, i) => {
        const encoded = new TextEncoder().encode(`${text}\0`);
        table[i] = BigInt(Deno.UnsafePointer.value(bytes(encoded)));
      });
      return {
        ...setting,
        type: VK_LAYER_SETTING_TYPE_STRING_EXT,
        valueCount: items.length,
        pValues: bytes(table),
      };
    }
    const array = API_ARRAYS[decl.type] as new (items: unknown[]) => ArrayBufferView;
    return {
      ...setting,
      type: API_TYPES[decl.type],
      valueCount: items.length,
      pValues: bytes(new array(decl.type === "bool" ? items.map((b) => (b ? 1 : 0)) : items)),
    };
  });
  return { type: "VkLayerSettingsCreateInfoEXT", pSettings };
}
