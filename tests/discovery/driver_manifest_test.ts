import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import {
  type DriverManifest,
  type DriverManifestResult,
  parseDriverManifest,
} from "../../discovery/driver_manifest.ts";
import { discoverDrivers } from "../../discovery/drivers.ts";
import { TempTree } from "../support/discovery_tree.ts";

const PATH = "/opt/vendor/icd.d/vendor_icd.json";

function parse(icd: Record<string, unknown>, format: unknown = "1.0.1"): DriverManifestResult {
  return parseDriverManifest({ file_format_version: format, ICD: icd }, PATH);
}

function reason(result: DriverManifestResult): string {
  return result.ok ? "ok" : result.reason;
}

Deno.test("manifest 1.0.0 reads library_path and api_version", () => {
  const r = parse({ library_path: "/usr/lib/libv.so", api_version: "1.3.230" }, "1.0.0");
  assertEquals(r.ok && r.manifest, {
    manifestPath: PATH,
    fileName: "vendor_icd.json",
    fileFormatVersion: "1.0.0",
    libraryPathField: "/usr/lib/libv.so",
    libraryPath: "/usr/lib/libv.so",
    libraryPathKind: "absolute",
    apiVersion: (1 << 22) | (3 << 12) | 230,
    apiVersionText: "1.3.230",
    isPortabilityDriver: false,
  });
  assertEquals(r.warnings, []);
});

Deno.test("manifest 1.0.1 reads library_arch and is_portability_driver", () => {
  const r = parse({
    library_path: "libv.so",
    api_version: "1.2.0",
    library_arch: "64",
    is_portability_driver: true,
  });
  assertEquals(r.ok && [r.manifest.libraryArch, r.manifest.isPortabilityDriver], ["64", true]);
});

Deno.test("library_path: absolute as is, relative joined to the manifest folder, bare name untouched", () => {
  const lib = (p: string) => {
    const r = parse({ library_path: p, api_version: "1.0.0" });
    return r.ok ? [r.manifest.libraryPath, r.manifest.libraryPathKind] : [];
  };
  assertEquals(lib("/abs/libv.so"), ["/abs/libv.so", "absolute"]);
  assertEquals(lib("./libv.so"), ["/opt/vendor/icd.d/./libv.so", "relative"]);
  assertEquals(lib("../lib/libv.so"), ["/opt/vendor/icd.d/../lib/libv.so", "relative"]);
  assertEquals(lib("libv.so.1"), ["libv.so.1", "name"]);
  assertEquals(lib("/usr/$LIB/libv.so"), ["/usr/$LIB/libv.so", "absolute"]);
  assertEquals(lib("libv_$PLATFORM.so"), ["libv_$PLATFORM.so", "name"]);
});

Deno.test("api_version with a non-zero variant is skipped", () => {
  assertEquals(
    reason(parse({ library_path: "libv.so", api_version: "1.1.3.0" })),
    'field "ICD.api_version" is "1.1.3.0", whose variant 1 is not Vulkan (expected variant 0, as in "1.3.0")',
  );
  assertEquals(parse({ library_path: "libv.so", api_version: "0.1.3.0" }).ok, true);
});

Deno.test("a newer file_format_version is accepted with a warning", () => {
  const r = parse({ library_path: "libv.so", api_version: "1.3.0" }, "1.0.2");
  assertEquals(r.ok, true);
  assertEquals(r.warnings, [
    'file_format_version "1.0.2" is newer than 1.0.1, the newest this loader knows; reading it as 1.0.1 (may cause errors)',
  ]);
});

Deno.test("each defect names the field and what was expected", () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ ICD: {} }, 'field "file_format_version" is missing, expected a version string such as "1.0.1"'],
    [
      { file_format_version: 1 },
      'field "file_format_version" is "1", expected a version string such as "1.0.1"',
    ],
    [
      { file_format_version: "one" },
      'field "file_format_version" is "one", expected a version string such as "1.0.1"',
    ],
    [{ file_format_version: "1.0.0" }, 'field "ICD" is missing, expected an object'],
    [{ file_format_version: "1.0.0", ICD: [] }, 'field "ICD" is an array, expected an object'],
    [
      { file_format_version: "1.0.0", layer: {} },
      'is a layer manifest (it has "layer" or "layers" and no "ICD"), not a driver manifest',
    ],
    [
      { file_format_version: "1.0.0", ICD: { library_path: "", api_version: "1.0.0" } },
      'field "ICD.library_path" is "", expected a non-empty string',
    ],
    [
      { file_format_version: "1.0.0", ICD: { library_path: null, api_version: "1.0.0" } },
      'field "ICD.library_path" is null, expected a non-empty string',
    ],
    [
      { file_format_version: "1.0.0", ICD: { library_path: "l.so" } },
      'field "ICD.api_version" is missing, expected a version string such as "1.0.1"',
    ],
    [
      { file_format_version: "1.0.0", ICD: { library_path: "l.so", api_version: 4206822 } },
      'field "ICD.api_version" is "4206822", expected a version string such as "1.0.1"',
    ],
  ];
  for (const [value, expected] of cases) assertEquals(reason(parseDriverManifest(value, PATH)), expected);
});

Deno.test("a field of the wrong type the manifest can do without is ignored with a warning naming it (docs/behaviour.md M06)", () => {
  const icd = (extra: Record<string, unknown>) => ({
    file_format_version: "1.0.1",
    ICD: { library_path: "l.so", api_version: "1.0.0", ...extra },
  });
  const cases: [Record<string, unknown>, string, Partial<DriverManifest>][] = [
    [icd({ library_arch: 64 }), 'field "ICD.library_arch" is a number, expected "32" or "64"; ignored', {
      libraryArch: undefined,
    }],
    [
      icd({ library_arch: "x86_64" }),
      'field "ICD.library_arch" is "x86_64", expected "32" or "64"; ignored',
      {},
    ],
    [
      icd({ is_portability_driver: "true" }),
      'field "ICD.is_portability_driver" is "true", expected true or false; ignored (an ordinary driver)',
      { isPortabilityDriver: false },
    ],
    [
      icd({ api_version: 1.2 }),
      'field "ICD.api_version" is the number 1.2, expected a string; read as "1.2"',
      { apiVersionText: "1.2", apiVersion: (1 << 22) | (2 << 12) },
    ],
    [
      { file_format_version: 1.0, ICD: { library_path: "l.so", api_version: "1.3.0" } },
      'field "file_format_version" is the number 1, expected a string; read as "1"',
      {},
    ],
  ];
  for (const [value, warning, fields] of cases.slice(0, 4)) {
    const r = parseDriverManifest(value, PATH);
    assert(r.ok, JSON.stringify(r));
    assertEquals(r.warnings, [warning]);
    for (const [k, v] of Object.entries(fields)) assertEquals(r.manifest[k as keyof DriverManifest], v, k);
  }
  // A version that stays unreadable after the number is read as text cannot be used: skipped.
  const [value, warning] = cases[4]!;
  const r = parseDriverManifest(value, PATH);
  assertEquals([r.ok, r.warnings], [false, [warning]]);
});

Deno.test("comments and trailing commas load with a warning that other loaders reject them", () => {
  using tree = new TempTree({
    "usr/share/vulkan/icd.d/c.json": `{
      // vendor note
      "file_format_version": "1.0.0",
      "ICD": { "library_path": "libc.so", "api_version": "1.3.0", },
    }`,
  });
  const found = discoverDrivers(tree.snapshot());
  assertEquals(found.drivers.map((d) => d.fileName), ["c.json"]);
  assertEquals(found.candidates[0]?.warnings, [
    "file has a comment, which the Khronos loader rejects",
    "file has 2 trailing commas, which the Khronos loader rejects",
  ]);
  assertEquals(
    found.messages.filter((m) => m.level === "warn" && m.text.startsWith("Driver manifest")).length,
    2,
  );
});

Deno.test("unknown fields are ignored", () => {
  const r = parse({ library_path: "libv.so", api_version: "1.0.0", vendor_extra: { x: 1 } });
  assertEquals(r.ok, true);
});
