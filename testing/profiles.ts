/**
 * Mock devices from Khronos Vulkan Profiles JSON ({@linkcode profileDevice}; how fields map: docs/testing.md),
 * and three profiles written for tests ({@linkcode PROFILES}).
 *
 * @module
 */
import {
  MockDeviceModel,
  type MockDeviceOptions,
  type MockFormatProperties,
  type MockMemoryHeap,
  type MockMemoryType,
  type MockQueueFamily,
  type MockStructs,
  type MockStructValue,
} from "./device.ts";
import { findLayout, layoutOf, type StructLayout } from "../vk/struct_layout.ts";
import { ENUM_VALUES } from "../vk/generated/enums.ts";
import { STRUCT_ALIASES } from "../vk/generated/structs.ts";
import { type MemberProblem, type StructMembers, structMembers } from "./values.ts";
import desktopRayTracing from "./profiles/desktop_ray_tracing.json" with { type: "json" };
import mobile from "./profiles/mobile.json" with { type: "json" };
import vulkan10 from "./profiles/vulkan10.json" with { type: "json" };

/** One capability set of a profiles file. */
export interface ProfileCapabilities {
  /** Extension name -> spec version. */
  readonly extensions?: { readonly [name: string]: number };
  /** Feature struct name -> members. */
  readonly features?: MockStructs;
  /** Property struct name -> members. */
  readonly properties?: MockStructs;
  /** Format name -> `{ VkFormatProperties: {...} }`. */
  readonly formats?: { readonly [format: string]: { readonly [struct: string]: MockFormatProperties } };
  /** Queue families, each `{ VkQueueFamilyProperties: {...} }`. */
  readonly queueFamiliesProperties?: readonly { readonly [struct: string]: MockStructValue }[];
}

/** One profile: its version, Vulkan version and the capability sets it takes (an inner list: alternatives, the first used). */
export interface ProfileEntry {
  /** The profile's own version. */
  readonly version?: number;
  /** The Vulkan version it needs (`"1.3.250"`): the mock device's `apiVersion`. */
  readonly "api-version": string;
  /** A short name; the device's name when its properties give none. */
  readonly label?: string;
  /** What the profile stands for. */
  readonly description?: string;
  /** Capability set names, merged in order (a list inside: alternatives, the first is used). */
  readonly capabilities: readonly (string | readonly string[])[];
}

/** A Vulkan Profiles JSON document. */
export interface ProfilesFile {
  /** The schema's URL. */
  readonly $schema?: string;
  /** Capability sets by name. */
  readonly capabilities: { readonly [name: string]: ProfileCapabilities };
  /** Profiles by name (`VP_...`). */
  readonly profiles: { readonly [name: string]: ProfileEntry };
}

/** Options of {@linkcode profileDevice}: which profile, how to treat what cannot be represented, fields over it. */
export interface ProfileDeviceOptions extends MockDeviceOptions {
  /** The profile's name (default: the file's only profile). */
  readonly profile?: string;
  /** Throw at the first value that cannot be represented instead of skipping it with a warning. */
  readonly strict?: boolean;
  /** Receives each skipped value (default: `console.warn`, once per distinct message per process). */
  readonly onWarning?: (skip: ProfileSkip) => void;
}

/** A profile value the mock cannot represent, skipped at load (thrown with `strict`). */
export interface ProfileSkip {
  /** The profile's name. */
  readonly profile: string;
  /** The capability set that gives the value. */
  readonly capability: string;
  /** The struct, as the file names it (`formats.VK_FORMAT_X.VkFormatProperties`, `queueFamiliesProperties[1]...`). */
  readonly struct: string;
  /** The member's path in the struct (`limits.maxImageDimension2D`), or `*` for the whole struct. */
  readonly member: string;
  /** What is wrong. */
  readonly reason: string;
  /** The whole warning: profile, capability, struct, member, reason. */
  readonly message: string;
}

/** A profile value the mock reports, converted to what a struct read returns (64-bit integers as bigints). */
export interface ProfileMember {
  /** The capability set it came from (the last one that set it). */
  readonly capability: string;
  /** The struct, by its canonical Vulkan name (`VkPhysicalDeviceVulkan12Properties`). */
  readonly struct: string;
  /** The member's path in the struct (`limits.maxComputeWorkGroupSize`, `memoryHeaps[0].size`). */
  readonly member: string;
  /** The value: a number, bigint, string, or list (a fixed array's leading elements). */
  readonly value: unknown;
  /** For a format's struct: the format's name. */
  readonly format?: string;
  /** For a queue family's struct: the family's index. */
  readonly queueFamily?: number;
}

/** What {@linkcode readProfile} found: the device, every value taken and every value skipped. */
export interface ProfileReading {
  /** The mock device the profile describes. */
  readonly device: MockDeviceOptions;
  /** Each member the device reports from the profile. */
  readonly taken: readonly ProfileMember[];
  /** Each value left out, with its warning. */
  readonly skipped: readonly ProfileSkip[];
}

const LITERAL = /true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
// A JSON string; JSON.parse then checks it (control characters included) and decodes its escapes.
const STRING = /"(?:[^"\\]|\\.)*"/y;

/**
 * A Vulkan Profiles JSON text as a {@linkcode ProfilesFile}, read as the Profiles layer's JSON reader reads
 * it: integers past 2^53 stay exact as bigints (`JSON.parse` would round 9223372036854775807 to
 * 9223372036854775808), and trailing commas and comments are accepted.
 *
 * @example An exact 64-bit limit
 * ```ts
 * import { parseProfile } from "@vkdeno/loader/testing";
 * const file = parseProfile(`{ "capabilities": { "c": { "properties": { "VkPhysicalDeviceVulkan12Properties":
 *   { "maxTimelineSemaphoreValueDifference": 9223372036854775807 } } } },
 *   "profiles": { "VP_x": { "api-version": "1.3.0", "capabilities": ["c"] } } }`);
 * console.log(file.capabilities.c!.properties!.VkPhysicalDeviceVulkan12Properties!.maxTimelineSemaphoreValueDifference);
 * // 9223372036854775807n
 * ```
 * @throws {SyntaxError} Naming `source` (a file name), the line and the column where the text is not JSON.
 */
export function parseProfile(text: string, source?: string): ProfilesFile {
  source ??= "profile text";
  let i = 0;
  const fail = (what: string): never => {
    const before = text.slice(0, i).split("\n");
    throw new SyntaxError(
      `Invalid profile ${source}: ${what} at line ${before.length}, column ${before.at(-1)!.length + 1}`,
    );
  };
  const space = () => {
    for (;;) {
      while (text[i] === " " || text[i] === "\n" || text[i] === "\r" || text[i] === "\t") i++;
      if (text.startsWith("//", i)) i = text.indexOf("\n", i) < 0 ? text.length : text.indexOf("\n", i);
      else if (text.startsWith("/*", i)) {
        const end = text.indexOf("*/", i + 2);
        if (end < 0) fail("an unclosed comment");
        i = end + 2;
      } else return;
    }
  };
  const value = (): unknown => {
    space();
    const c = text[i];
    if (c === "{" || c === "[") {
      const object = c === "{";
      const out: Record<string, unknown> | unknown[] = object ? {} : [];
      i++;
      for (space(); text[i] !== (object ? "}" : "]"); space()) {
        if (object) {
          space();
          if (text[i] !== '"') fail("expected a member name");
          const key = string();
          space();
          if (text[i++] !== ":") i--, fail(`expected ":" after "${key}"`);
          (out as Record<string, unknown>)[key] = value();
        } else (out as unknown[]).push(value());
        space();
        if (text[i] === ",") i++;
        else if (text[i] !== (object ? "}" : "]")) fail(`expected "," or "${object ? "}" : "]"}"`);
      }
      i++;
      return out;
    }
    if (c === '"') return string();
    LITERAL.lastIndex = i;
    const literal = LITERAL.exec(text);
    if (!literal) fail(i >= text.length ? "unexpected end of text" : `unexpected "${c}"`);
    const word = literal![0];
    i += word.length;
    if (word === "true" || word === "false") return word === "true";
    if (word === "null") return null;
    const n = Number(word);
    return /^-?\d+$/.test(word) && !Number.isSafeInteger(n) ? BigInt(word) : n;
  };
  const string = (): string => {
    STRING.lastIndex = i;
    const m = STRING.exec(text);
    if (!m) fail("a malformed string");
    i += m![0].length;
    try {
      return JSON.parse(m![0]) as string;
    } catch {
      return fail("a malformed string");
    }
  };
  const out = value();
  space();
  if (i < text.length) fail("text after the document");
  return out as ProfilesFile;
}

/**
 * The Vulkan Profiles JSON file at `path`, read as {@linkcode parseProfile} reads text.
 *
 * @example A profile exported from a real device
 * ```ts ignore
 * import { loadProfileFile, MockDriver, profileDevice } from "@vkdeno/loader/testing";
 * using mock = new MockDriver({ devices: [profileDevice(loadProfileFile("gpu.json"))] });
 * ```
 * @throws {Deno.errors.NotFound} When there is no such file.
 * @throws {SyntaxError} Naming the file when it is not JSON.
 */
export function loadProfileFile(path: string | URL): ProfilesFile {
  return parseProfile(Deno.readTextFileSync(path), String(path));
}

function parseVersion(text: string, where: string): number {
  const m = /^(\d+)\.(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) throw new TypeError(`Invalid profile: ${where} "${text}" is not a version like "1.3.250"`);
  return ((Number(m[1]) << 22) | (Number(m[2]) << 12) | Number(m[3] ?? 0)) >>> 0;
}

const warned = new Set<string>();
/** A format's structs as the profile gives them, and the capability sets that gave them. */
type FormatEntry = { v: StructMembers; v3?: StructMembers; cap: string; cap3?: string };
const FEATURES2 = "VkPhysicalDeviceFeatures2";
const PROPERTIES2 = "VkPhysicalDeviceProperties2";
const MEMORY = "VkPhysicalDeviceMemoryProperties";
const FAMILY = "VkQueueFamilyProperties";

const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** Leaves of a converted struct as `path -> value` (nested structs and arrays of structs walked into). */
function leaves(value: StructMembers, prefix = ""): [string, unknown][] {
  const out: [string, unknown][] = [];
  for (const [k, v] of Object.entries(value)) {
    if (isRecord(v)) out.push(...leaves(v, `${prefix}${k}.`));
    else if (Array.isArray(v) && v.some(isRecord)) {
      v.forEach((e, i) => out.push(...leaves(e as StructMembers, `${prefix}${k}[${i}].`)));
    } else out.push([prefix + k, v]);
  }
  return out;
}

/** `from` merged into `into`: nested structs member by member, anything else replaced. */
function merge(into: StructMembers, from: StructMembers): void {
  for (const [k, v] of Object.entries(from)) {
    const old = into[k];
    if (isRecord(old) && isRecord(v)) merge(old, v);
    else into[k] = isRecord(v) ? structuredClone(v) : v;
  }
}

/** Whether a `features` / `properties` struct is one the mock reports. */
function reported(
  section: "features" | "properties",
  name: string,
  layout: StructLayout,
): string | undefined {
  if (section === "features") {
    if (name === "VkPhysicalDeviceFeatures" || layout.extends?.includes(FEATURES2)) return undefined;
    return `is not a feature struct (it does not extend ${FEATURES2})`;
  }
  if (name === "VkPhysicalDeviceProperties" || name === MEMORY || layout.extends?.includes(PROPERTIES2)) {
    return undefined;
  }
  return `is not a property struct (it does not extend ${PROPERTIES2})`;
}

/**
 * Reads one profile of a Vulkan Profiles file as the Khronos Profiles layer does (docs/testing.md,
 * "Profiles"): its capability sets merged in order, every value a Vulkan struct member can hold converted
 * and checked, so each value taken reads back unchanged. A value that cannot be represented (an unknown
 * struct or member, a name that is no enumerant of the member's type, a number out of range, a pointer
 * member) is skipped with one warning naming the profile, capability, struct and member; with `strict` it
 * throws instead.
 *
 * @example What a profile gives and what it loses
 * ```ts
 * import { readProfile } from "@vkdeno/loader/testing";
 * const reading = readProfile({
 *   capabilities: { c: { properties: { VkPhysicalDeviceDriverProperties: { driverID: "_KHR", driverName: "x" } } } },
 *   profiles: { VP_x: { "api-version": "1.3.0", capabilities: ["c"] } },
 * }, { onWarning: () => {} });
 * console.log(reading.taken.length, reading.skipped[0]!.message);
 * // 1 'profile "VP_x", capability "c": VkPhysicalDeviceDriverProperties.driverID: "_KHR" is not a VkDriverId name; skipped'
 * ```
 * @throws {TypeError} When the file has no such profile, a capability set is missing, the api-version is not
 * a version, (with `strict`) at the first value that cannot be represented, or when the device fields given
 * beside the profile in `options` are not a valid mock device (the `Invalid mock device: ...` error
 * `new MockDriver` would throw).
 */
export function readProfile(file: ProfilesFile, options?: ProfileDeviceOptions): ProfileReading {
  options ??= {};
  const names = Object.keys(file.profiles ?? {});
  const profileName = options.profile ?? (names.length === 1 ? names[0]! : undefined);
  if (profileName === undefined) {
    throw new TypeError(
      `Invalid profile choice: the file has ${names.length} profiles (${
        names.join(", ")
      }); name one with "profile"`,
    );
  }
  const profile = file.profiles[profileName];
  if (!profile) {
    throw new TypeError(`Invalid profile choice: "${profileName}" is not among ${names.join(", ")}`);
  }
  let apiVersion = parseVersion(profile["api-version"], `profile "${profileName}" api-version`);
  const skipped: ProfileSkip[] = [];
  const skip = (capability: string, struct: string, member: string, reason: string) => {
    const what = member === "*" ? struct : `${struct}.${member}`;
    const message = `profile "${profileName}", capability "${capability}": ${what}${
      reason.startsWith("is ") ? " " : ": "
    }${reason}; skipped`;
    if (options.strict) throw new TypeError(`Invalid profile: ${message.slice(0, -"; skipped".length)}`);
    const s: ProfileSkip = { profile: profileName, capability, struct, member, reason, message };
    skipped.push(s);
    if (options.onWarning) options.onWarning(s);
    else if (!warned.has(message)) warned.add(message), console.warn(`vkdeno testing: ${message}`);
  };
  /** `value` converted as struct `layout`; problems skipped under `where`. */
  const convert = (capability: string, where: string, name: string, layout: StructLayout, value: unknown) => {
    if (!isRecord(value)) return skip(capability, where, "*", "is not an object of members"), undefined;
    const problems: MemberProblem[] = [];
    const members = structMembers(layout, name, value, problems);
    for (const p of problems) skip(capability, where, p.member, p.reason);
    return members;
  };
  const extensions = new Map<string, number>();
  const structs = {
    features: {} as Record<string, StructMembers>,
    properties: {} as Record<string, StructMembers>,
  };
  const origin = new Map<string, string>();
  const formats = new Map<string, FormatEntry>();
  let families: { cap: string; family: StructMembers; chain: Record<string, StructMembers> }[] | undefined;
  if (!Array.isArray(profile.capabilities)) {
    throw new TypeError(
      `Invalid profile "${profileName}": "capabilities" is not a list of capability set names`,
    );
  }
  for (const entry of profile.capabilities) {
    const capName = typeof entry === "string" ? entry : entry[0]!;
    const cap = file.capabilities[capName];
    if (!cap) {
      throw new TypeError(`Invalid profile "${profileName}": capability set "${capName}" is not defined`);
    }
    for (const [name, version] of Object.entries(cap.extensions ?? {})) {
      if (typeof version === "number" && Number.isInteger(version) && version >= 0) {
        extensions.set(name, version);
      } else skip(capName, "extensions", name, `spec version ${JSON.stringify(version)} is not a number`);
    }
    for (const section of ["features", "properties"] as const) {
      for (const [given, value] of Object.entries(cap[section] ?? {})) {
        const name = STRUCT_ALIASES[given] ?? given;
        const layout = findLayout(name);
        const why = layout ? reported(section, name, layout) : "is not a Vulkan struct";
        if (why) {
          skip(capName, given, "*", why);
          continue;
        }
        const members = convert(capName, given, name, layout!, value);
        if (!members) continue;
        for (const [path] of leaves(members)) origin.set(`${name}\0${path}`, capName);
        merge(structs[section][name] ??= {}, members);
      }
    }
    for (const [format, byStruct] of Object.entries(cap.formats ?? {})) {
      if (!format.startsWith("VK_FORMAT_") || ENUM_VALUES.VkFormat?.[format] === undefined) {
        skip(capName, `formats.${format}`, "*", "is not a VkFormat name");
        continue;
      }
      for (const [given, value] of Object.entries(byStruct)) {
        const where = `formats.${format}.${given}`;
        const name = STRUCT_ALIASES[given] ?? given;
        const inner = name === "VkFormatProperties2" && isRecord(value) ? value.formatProperties : value;
        if (
          name !== "VkFormatProperties" && name !== "VkFormatProperties2" && name !== "VkFormatProperties3"
        ) {
          skip(capName, where, "*", "is not VkFormatProperties, VkFormatProperties2 or VkFormatProperties3");
          continue;
        }
        const struct = name === "VkFormatProperties3" ? name : "VkFormatProperties";
        const members = convert(capName, where, struct, layoutOf(struct), inner);
        if (!members) continue;
        const f: FormatEntry = formats.get(format) ?? { v: {}, cap: capName };
        if (struct === "VkFormatProperties3") f.v3 = { ...f.v3, ...members }, f.cap3 = capName;
        else Object.assign(f.v, members), f.cap = capName;
        formats.set(format, f);
      }
    }
    if (cap.queueFamiliesProperties?.length) {
      families = [];
      cap.queueFamiliesProperties.forEach((q, i) => {
        const where = `queueFamiliesProperties[${i}]`;
        const own = q.VkQueueFamilyProperties ??
          (q.VkQueueFamilyProperties2 as MockStructValue | undefined)?.queueFamilyProperties ??
          (q.VkQueueFamilyProperties2KHR as MockStructValue | undefined)?.queueFamilyProperties;
        const family = own === undefined
          ? (skip(capName, where, "*", `has no ${FAMILY}; the family is left out`), undefined)
          : convert(capName, `${where}.${FAMILY}`, FAMILY, layoutOf(FAMILY), own);
        if (!family) return;
        const chain: Record<string, StructMembers> = {};
        for (const [given, value] of Object.entries(q)) {
          if (/^VkQueueFamilyProperties(2(KHR)?)?$/.test(given)) continue;
          const name = STRUCT_ALIASES[given] ?? given;
          const layout = findLayout(name);
          if (!layout?.extends?.includes("VkQueueFamilyProperties2")) {
            skip(capName, `${where}.${given}`, "*", `does not extend VkQueueFamilyProperties2`);
            continue;
          }
          const members = convert(capName, `${where}.${given}`, name, layout, value);
          if (members) chain[name] = members;
        }
        families!.push({ cap: capName, family, chain });
      });
    }
  }
  const { features, properties } = structs;
  // The profile's core features are exact: every member it does not list is unsupported.
  const core: StructMembers = {};
  for (const m of layoutOf("VkPhysicalDeviceFeatures").members) core[m.name] = 0;
  features.VkPhysicalDeviceFeatures = { ...core, ...features.VkPhysicalDeviceFeatures };
  const memory = properties[MEMORY];
  delete properties[MEMORY];
  let memoryHeaps = memory?.memoryHeaps as MockMemoryHeap[] | undefined;
  let memoryTypes = memory?.memoryTypes as MockMemoryType[] | undefined;
  if (memory) {
    const capName = origin.get(`${MEMORY}\0memoryHeaps[0].size`) ?? profile.capabilities.flat()[0]!;
    for (
      const [count, list] of [["memoryHeapCount", memoryHeaps], ["memoryTypeCount", memoryTypes]] as const
    ) {
      if (memory[count] !== undefined && memory[count] !== (list?.length ?? 0)) {
        skip(capName, MEMORY, count, `${memory[count]} disagrees with the ${list?.length ?? 0} listed`);
      }
      delete memory[count];
    }
    const heaps = memoryHeaps?.length ?? 2;
    const bad = memoryTypes?.findIndex((t) => (t.heapIndex ?? 0) >= heaps) ?? -1;
    if (bad >= 0) {
      skip(
        capName,
        MEMORY,
        `memoryTypes[${bad}].heapIndex`,
        `${memoryTypes![bad]!.heapIndex} has no heap; memory is left out`,
      );
      memoryHeaps = memoryTypes = undefined;
      delete memory.memoryHeaps, delete memory.memoryTypes;
    }
  }
  const given = properties.VkPhysicalDeviceProperties;
  if (typeof given?.apiVersion === "number") apiVersion = given.apiVersion;
  const formatOptions: Record<string, MockFormatProperties> = {};
  for (const [format, f] of formats) {
    formatOptions[format] = { ...f.v, ...(f.v3 ? { properties3: f.v3 } : {}) } as MockFormatProperties;
  }
  const { profile: _p, strict: _s, onWarning: _w, ...overrides } = options;
  const device: MockDeviceOptions = {
    source: `profile "${profileName}"`,
    name: (given?.deviceName as string | undefined) ?? profile.label ?? profileName,
    apiVersion,
    extensions: [...extensions].map(([name, specVersion]) => ({ name, specVersion })),
    features,
    properties,
    ...(families?.length
      ? {
        queueFamilies: families.map(({ family, chain }) =>
          ({
            ...family,
            queueFlags: (family.queueFlags as number | undefined) ?? 0,
            ...Object.keys(chain).length ? { chain } : {},
          }) as MockQueueFamily
        ),
      }
      : {}),
    ...(memoryHeaps ? { memoryHeaps } : {}),
    ...(memoryTypes ? { memoryTypes } : {}),
    ...(formats.size > 0 ? { formats: formatOptions, onlyListedFormats: true } : {}),
    ...overrides,
  };
  const taken: ProfileMember[] = [];
  for (const byName of Object.values(structs)) {
    for (const [struct, members] of Object.entries(byName)) {
      for (const [member, value] of leaves(members)) {
        const capability = origin.get(`${struct}\0${member}`);
        // Members the profile's exact VkPhysicalDeviceFeatures only implies are not taken from it.
        if (capability === undefined) continue;
        taken.push({ capability, struct, member, value });
      }
    }
  }
  if (memory) {
    for (const [member, value] of leaves(memory)) {
      taken.push({ capability: origin.get(`${MEMORY}\0${member}`)!, struct: MEMORY, member, value });
    }
  }
  for (const [format, f] of formats) {
    for (const [member, value] of Object.entries(f.v)) {
      taken.push({ capability: f.cap, struct: "VkFormatProperties", member, value, format });
    }
    for (const [member, value] of Object.entries(f.v3 ?? {})) {
      taken.push({ capability: f.cap3!, struct: "VkFormatProperties3", member, value, format });
    }
  }
  families?.forEach(({ cap, family, chain }, queueFamily) => {
    for (const [member, value] of leaves(family)) {
      taken.push({ capability: cap, struct: FAMILY, member, value, queueFamily });
    }
    for (const [struct, members] of Object.entries(chain)) {
      for (const [member, value] of leaves(members)) {
        taken.push({ capability: cap, struct, member, value, queueFamily });
      }
    }
  });
  // Everything taken is written once now, so nothing fails later when an application reads it.
  new MockDeviceModel(device);
  return { device, taken, skipped };
}

/**
 * The mock device a profile describes ({@linkcode readProfile}'s `device`): its capability sets merged in
 * order (extensions and features added up, later properties over earlier ones), `api-version` as the
 * device's version. The profile's `VkPhysicalDeviceFeatures` is exact (unlisted members are unsupported);
 * formats are exactly the listed ones when it lists any. Memory is the kit's (unified for an integrated GPU
 * or a CPU) unless `VkPhysicalDeviceMemoryProperties` is given among the properties (`memoryHeaps` and
 * `memoryTypes` lists) or in `options`; `mock.devices[i].describe()` lists what the kit filled in, and the
 * device fields of `options` (type, IDs, driver version, memory) set them. Values that cannot be represented
 * are skipped with a warning (`strict`: thrown).
 *
 * @example The kit's mobile profile
 * ```ts
 * import { MockDriver, PROFILES, profileDevice } from "@vkdeno/loader/testing";
 * using mock = new MockDriver({ devices: [profileDevice(PROFILES.mobile)] });
 * console.log(mock.devices[0]!.name); // "vkdeno mobile GPU"
 * ```
 * @throws {TypeError} As {@linkcode readProfile}.
 */
export function profileDevice(file: ProfilesFile, options?: ProfileDeviceOptions): MockDeviceOptions {
  return readProfile(file, options).device;
}

/**
 * Profiles written for tests, in the Vulkan Profiles format:
 * - `desktopRayTracing`: a Vulkan 1.3 discrete GPU with ray tracing (`VK_KHR_ray_tracing_pipeline`,
 *   `VK_KHR_acceleration_structure`, buffer device address), 8 GiB of device-local memory;
 * - `mobile`: a small Vulkan 1.1 integrated GPU: no geometry shader, one 256 MiB heap shared with the host;
 * - `vulkan10`: a Vulkan 1.0 device with no extensions (`vkGetPhysicalDeviceFeatures2` is not there).
 *
 * @example Usage
 * ```ts
 * import { PROFILES } from "@vkdeno/loader/testing";
 * console.log(Object.keys(PROFILES.desktopRayTracing.profiles)); // ["VP_VKDENO_desktop_ray_tracing"]
 * ```
 */
export const PROFILES: {
  readonly desktopRayTracing: ProfilesFile;
  readonly mobile: ProfilesFile;
  readonly vulkan10: ProfilesFile;
} = {
  desktopRayTracing: desktopRayTracing as ProfilesFile,
  mobile: mobile as ProfilesFile,
  vulkan10: vulkan10 as ProfilesFile,
};
