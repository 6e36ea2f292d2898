/**
 * Profiles as exporters write them load as the Profiles layer reads them: every value taken reads back
 * unchanged through the Vulkan commands (64-bit values exact), every value skipped warns once by name.
 */
import { deepStrictEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import { asHandle, enumerate, VkApi, type VkCommandSource, VkScope, Vulkan, writeStruct } from "../../mod.ts";
import {
  loadProfileFile,
  MockDriver,
  mockEnvironment,
  parseProfile,
  type ProfileReading,
  PROFILES,
  type ProfilesFile,
  readProfile,
} from "../../testing/mod.ts";
import { ENUMS } from "../../vk/generated/enums.ts";

const isolated = mockEnvironment();
globalThis.addEventListener("unload", () => isolated.remove());
const MEMORY = "VkPhysicalDeviceMemoryProperties";
const FIXTURES = new URL("./fixtures/profiles/", import.meta.url);

const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** `struct`'s member at `path` (`limits.maxViewportDimensions`, `memoryHeaps[0].size`). */
function at(struct: unknown, path: string): unknown {
  let v = struct;
  for (const part of path.split(/\.|(?=\[)/)) {
    const index = /^\[(\d+)\]$/.exec(part);
    v = index ? (v as unknown[])[Number(index[1])] : (v as Record<string, unknown>)[part];
  }
  return v;
}

/** Whether `read` is what `value` says: lists compare their leading elements, integers across number/bigint. */
function same(value: unknown, read: unknown): boolean {
  if (Array.isArray(value)) {
    const got = Array.from(read as ArrayLike<unknown>);
    return value.every((v, i) => same(v, got[i]));
  }
  if (typeof value === "bigint" || typeof read === "bigint") {
    return typeof read !== "undefined" && BigInt(read as bigint) === BigInt(value as bigint);
  }
  return value === read;
}

/**
 * Reads every value `reading` took back through the mock: the property and feature structs chained into
 * one `...2` call each, memory, each format's `VkFormatProperties2` + `VkFormatProperties3`, each family's
 * `VkQueueFamilyProperties2` with its chain. Returns how many read back equal and the ones that did not.
 */
function readBack(reading: ProfileReading): { equal: number; different: string[] } {
  using mock = new MockDriver({ devices: [reading.device] });
  using raw = Vulkan.load({ drivers: [mock], env: isolated.env });
  using scope = new VkScope(raw);
  const instance = scope.create("vkCreateInstance", [
    writeStruct(scope.arena, "VkInstanceCreateInfo", {
      pApplicationInfo: { apiVersion: (1 << 22) | (4 << 12) },
    }),
    null,
  ]);
  const vk = VkApi.of(raw as unknown as VkCommandSource);
  const gpu = asHandle("VkPhysicalDevice", enumerate(raw.vkEnumeratePhysicalDevices, [instance])[0]!);
  const chained = (kind: string) =>
    [
      ...new Set(
        reading.taken.filter((t) => t.format === undefined && t.queueFamily === undefined)
          .map((t) => t.struct),
      ),
    ]
      .filter((s) => kind === "features" ? /Features/.test(s) : !/Features/.test(s) && s !== MEMORY)
      .filter((s) => s !== "VkPhysicalDeviceFeatures" && s !== "VkPhysicalDeviceProperties");
  const properties = vk.getPhysicalDeviceProperties2(gpu, chained("properties") as never[]);
  const features = vk.getPhysicalDeviceFeatures2(gpu, chained("features") as never[]);
  const memory = vk.getPhysicalDeviceMemoryProperties(gpu);
  const familyChain = [
    ...new Set(reading.taken.filter((t) => t.queueFamily !== undefined).map((t) => t.struct)),
  ]
    .filter((s) => s !== "VkQueueFamilyProperties");
  const families = vk.getPhysicalDeviceQueueFamilyProperties2(gpu, familyChain as never[]);
  const different: string[] = [];
  for (const t of reading.taken) {
    let struct: unknown;
    if (t.format !== undefined) {
      const format = vk.getPhysicalDeviceFormatProperties2(gpu, ENUMS[t.format] as never, [
        "VkFormatProperties3",
      ]);
      struct = t.struct === "VkFormatProperties3"
        ? format.chain.VkFormatProperties3
        : format.formatProperties;
    } else if (t.queueFamily !== undefined) {
      const f = families[t.queueFamily]!;
      struct = t.struct === "VkQueueFamilyProperties"
        ? f.queueFamilyProperties
        : (f.chain as Record<string, unknown>)[t.struct];
    } else if (t.struct === "VkPhysicalDeviceProperties") struct = properties.properties;
    else if (t.struct === "VkPhysicalDeviceFeatures") struct = features.features;
    else if (t.struct === MEMORY) struct = memory;
    else {struct =
        ((/Features/.test(t.struct) ? features : properties).chain as Record<string, unknown>)[t.struct];}
    const read = isRecord(struct) ? at(struct, t.member) : undefined;
    if (!same(t.value, read)) {
      different.push(`${t.format ?? t.queueFamily ?? ""} ${t.struct}.${t.member}: ${t.value} read ${read}`);
    }
  }
  return { equal: reading.taken.length - different.length, different };
}

/** One row of the table: file, profile loaded, members taken, skipped (their members), equal on read-back. */
function row(name: string, file: ProfilesFile): [string, number, number, string[], number] {
  const reading = readProfile(file, { onWarning: () => {} });
  const { equal, different } = readBack(reading);
  assertEquals(different, [], `${name}: values that read back different`);
  return [name, 1, reading.taken.length, reading.skipped.map((s) => `${s.struct}.${s.member}`), equal];
}

Deno.test("each exporter quirk and public-shaped profile loads; every member taken reads back equal", () => {
  const names = [...Deno.readDirSync(FIXTURES)].map((e) => e.name).sort();
  const table = names.map((n) => row(n, loadProfileFile(new URL(n, FIXTURES))));
  table.push(...Object.entries(PROFILES).map(([n, f]) => row(`PROFILES.${n}`, f)));
  // file, loaded, members taken, members skipped, taken members equal on read-back
  assertEquals(table, [
    ["aliases.json", 1, 11, [], 11],
    ["enum_junk_name.json", 1, 6, ["VkPhysicalDeviceDriverPropertiesKHR.driverID"], 6],
    ["enum_null.json", 1, 2, ["VkPhysicalDeviceVulkan12Properties.driverID"], 2],
    ["flags_64bit_bit_name.json", 1, 3, [], 3],
    ["flags_empty_array.json", 1, 9, [], 9],
    ["flags_number_strings.json", 1, 8, [], 8],
    ["format_properties3.json", 1, 5, [], 5],
    ["integer_strings.json", 1, 8, [], 8],
    ["out_of_range.json", 1, 2, [
      "VkPhysicalDeviceProperties.limits.maxImageDimension1D",
      "VkPhysicalDeviceProperties.limits.maxImageDimension2D",
      "VkPhysicalDeviceProperties.limits.maxComputeWorkGroupCount",
    ], 2],
    ["pointer_member.json", 1, 2, ["VkPhysicalDeviceHostImageCopyPropertiesEXT.pCopySrcLayouts"], 2],
    ["public_gpuinfo_discrete.json", 1, 92, [], 92],
    ["public_gpuinfo_integrated.json", 1, 59, [
      "VkPhysicalDeviceVulkan12Properties.driverID",
      "VkPhysicalDeviceDriverPropertiesKHR.driverID",
    ], 59],
    ["public_roadmap_shaped.json", 1, 64, [], 64],
    ["trailing_commas.json", 1, 3, [], 3],
    ["unknown_names.json", 1, 2, [
      "VkPhysicalDeviceFromTheFutureFeaturesXYZ.*",
      "VkPhysicalDeviceVulkan13Features.futureMember",
      "VkPhysicalDeviceMemoryBudgetPropertiesEXT.*",
    ], 2],
    ["PROFILES.desktopRayTracing", 1, 62, [], 62],
    ["PROFILES.mobile", 1, 30, [], 30],
    ["PROFILES.vulkan10", 1, 12, [], 12],
  ]);
});

const oneStruct = (struct: string, members: string): string =>
  `{ "capabilities": { "c": { "properties": { "${struct}": { ${members} } } } },
     "profiles": { "VP_test": { "api-version": "1.3.0", "capabilities": ["c"] } } }`;

Deno.test("64-bit values read back exact: parseProfile keeps them, JSON.parse's rounding is refused by name", () => {
  const text = oneStruct(
    "VkPhysicalDeviceVulkan12Properties",
    `"maxTimelineSemaphoreValueDifference": 9223372036854775807`,
  );
  const exact = readProfile(parseProfile(text));
  assertEquals(exact.taken.map((t) => t.value), [9223372036854775807n]);
  assertEquals(readBack(exact), { equal: 1, different: [] });
  const skipped: string[] = [];
  const rounded = readProfile(JSON.parse(text), { onWarning: (s) => skipped.push(s.message) });
  assertEquals([rounded.taken.length, skipped], [0, [
    'profile "VP_test", capability "c": VkPhysicalDeviceVulkan12Properties.maxTimelineSemaphoreValueDifference: ' +
    "9223372036854776000 is past 2^53 and was rounded by JSON.parse (read the file with parseProfile or " +
    "loadProfileFile); skipped",
  ]]);
});

Deno.test("a value that cannot be represented fails at load: strict throws, a mock device throws when made", () => {
  const text = oneStruct(
    "VkPhysicalDeviceShaderCoreProperties2AMD",
    `"shaderCoreFeatures": ["VK_BOGUS_BIT"]`,
  );
  assertThrows(() => readProfile(parseProfile(text), { strict: true }), {
    name: "TypeError",
    message: 'Invalid profile: profile "VP_test", capability "c": VkPhysicalDeviceShaderCoreProperties2AMD.' +
      'shaderCoreFeatures: "VK_BOGUS_BIT" is not a VkShaderCorePropertiesFlagBitsAMD name',
  });
  // Options written by hand are checked when the driver is made, never when an application reads them.
  assertThrows(
    () =>
      new MockDriver({
        devices: [{
          properties: {
            VkPhysicalDeviceShaderCoreProperties2AMD: { shaderCoreFeatures: ["VK_BOGUS_BIT"] },
            VkPhysicalDeviceMaintenance4Properties: { maxBufferSize: 1n << 40n },
          },
        }],
      }),
    {
      message: "Invalid mock device: property VkPhysicalDeviceShaderCoreProperties2AMD.shaderCoreFeatures: " +
        '"VK_BOGUS_BIT" is not a VkShaderCorePropertiesFlagBitsAMD name',
    },
  );
  // Not strict: the member is skipped at load and the structs after it in a chain still read their values.
  const reading = readProfile(
    parseProfile(oneStruct(
      "VkPhysicalDeviceShaderCoreProperties2AMD",
      `"shaderCoreFeatures": ["VK_BOGUS_BIT"], "activeComputeUnitCount": 40`,
    )),
    { onWarning: () => {} },
  );
  assertEquals([reading.skipped.length, readBack(reading)], [1, { equal: 1, different: [] }]);
});

Deno.test("each skipped value warns once per process on console.warn; onWarning takes them instead", () => {
  const text = oneStruct("VkPhysicalDeviceDriverProperties", `"driverID": "_KHR", "driverName": "x"`);
  const warn = console.warn;
  const lines: string[] = [];
  console.warn = (line: string) => lines.push(line);
  try {
    readProfile(parseProfile(text));
    readProfile(parseProfile(text));
  } finally {
    console.warn = warn;
  }
  assertEquals(lines, [
    'vkdeno testing: profile "VP_test", capability "c": VkPhysicalDeviceDriverProperties.driverID: "_KHR" is ' +
    "not a VkDriverId name; skipped",
  ]);
});

Deno.test("parseProfile and loadProfileFile name the file, line and column of bad JSON", () => {
  assertThrows(() => parseProfile('{ "profiles": { "a" 1 } }', "gpu.json"), {
    name: "SyntaxError",
    message: 'Invalid profile gpu.json: expected ":" after "a" at line 1, column 21',
  });
  const path = Deno.makeTempFileSync({ suffix: ".json" });
  try {
    Deno.writeTextFileSync(path, '{\n  "capabilities": [1 2]\n}');
    assertThrows(() => loadProfileFile(path), {
      message: `Invalid profile ${path}: expected "," or "]" at line 2, column 22`,
    });
  } finally {
    Deno.removeSync(path);
  }
});
