import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { discoverDrivers } from "../../discovery/drivers.ts";
import { readDriverPackage } from "../../discovery/packages.ts";
import { driverManifest, TempTree, type TreeEntry } from "../support/discovery_tree.ts";

function pkg(
  prefix: string,
  metadata: unknown,
  manifest = driverManifest("libvulkan_example.so"),
): Record<string, TreeEntry> {
  return {
    [`${prefix}/meta/metadata/metadata.json`]: JSON.stringify(metadata),
    [`${prefix}/meta/icd.d/example.json`]: manifest,
    [`${prefix}/lib/libvulkan_example.so`]: "not really a library",
  };
}

const GOOD = { file_path: "lib/libvulkan_example.so", version: 1, manifest_path: "meta/icd.d/example.json" };

function reason(folder: string): string {
  const r = readDriverPackage(folder);
  return r.ok ? "ok" : r.reason;
}

Deno.test("a package names its library and manifest; the library is loaded from the package", () => {
  using tree = new TempTree(pkg("p", GOOD));
  const found = discoverDrivers(tree.snapshot(), { packages: [tree.path("p")] });
  assertEquals(found.drivers.map((d) => [d.fileName, d.libraryPath, d.origin.source, d.origin.package]), [
    ["example.json", tree.path("p/lib/libvulkan_example.so"), "api", tree.path("p")],
  ]);
  assertEquals(found.drivers[0]?.package?.manifestPath, tree.path("p/meta/icd.d/example.json"));
});

Deno.test("version must be 1", () => {
  using tree = new TempTree({
    ...pkg("two", { ...GOOD, version: 2 }),
    ...pkg("str", { ...GOOD, version: "1" }),
    ...pkg("none", { file_path: GOOD.file_path, manifest_path: GOOD.manifest_path }),
  });
  assertEquals(reason(tree.path("two")), 'field "version" is 2, expected 1 (the only metadata version)');
  assertEquals(reason(tree.path("str")), 'field "version" is "1", expected 1');
  assertEquals(reason(tree.path("none")), 'field "version" is missing, expected 1');
});

Deno.test("paths must stay inside the package", () => {
  const expected = 'a relative path inside the package (not absolute, no "..")';
  using tree = new TempTree({
    ...pkg("abs", { ...GOOD, file_path: "/usr/lib/libvulkan_example.so" }),
    ...pkg("up", { ...GOOD, manifest_path: "meta/../../other/example.json" }),
    ...pkg("num", { ...GOOD, file_path: 7 }),
    ...pkg("link", { ...GOOD, manifest_path: "meta/icd.d/escape.json" }),
    "outside.json": driverManifest("libx.so"),
  });
  tree.add({ "link/meta/icd.d/escape.json": { symlink: tree.path("outside.json") } });
  assertEquals(
    reason(tree.path("abs")),
    `field "file_path" is "/usr/lib/libvulkan_example.so", expected ${expected}`,
  );
  assertEquals(
    reason(tree.path("up")),
    `field "manifest_path" is "meta/../../other/example.json", expected ${expected}`,
  );
  assertEquals(reason(tree.path("num")), `field "file_path" is a number, expected ${expected}`);
  assertEquals(
    reason(tree.path("link")),
    `file "meta/icd.d/escape.json" named by field "manifest_path" leads out of the package through a symbolic link (to "${
      Deno.realPathSync(tree.path("outside.json"))
    }")`,
  );
});

Deno.test("missing metadata, library or manifest are clear errors", () => {
  using tree = new TempTree({
    "empty/readme.txt": "",
    ...pkg("nolib", { ...GOOD, file_path: "lib/missing.so" }),
    ...pkg("nomanifest", { ...GOOD, manifest_path: "meta/icd.d/missing.json" }),
    "badjson/meta/metadata/metadata.json": "{",
  });
  assertEquals(reason(tree.path("empty")), 'metadata "meta/metadata/metadata.json": file does not exist');
  assertEquals(
    reason(tree.path("nolib")),
    'file "lib/missing.so" named by field "file_path" does not exist in the package',
  );
  assertEquals(
    reason(tree.path("nomanifest")),
    'file "meta/icd.d/missing.json" named by field "manifest_path" does not exist in the package',
  );
  assertEquals(
    reason(tree.path("badjson")).startsWith('metadata "meta/metadata/metadata.json": file is not valid JSON'),
    true,
  );
});

Deno.test("a package's broken manifest is skipped like any manifest", () => {
  using tree = new TempTree(pkg("p", GOOD, '{"file_format_version": "1.0.0"}'));
  const found = discoverDrivers(tree.snapshot(), { packages: [tree.path("p")] });
  assertEquals(found.drivers.length, 0);
  assertEquals(found.candidates.map((c) => [c.skip, c.reason]), [[
    "manifest",
    'field "ICD" is missing, expected an object',
  ]]);
});

Deno.test("order: VK_ADD_DRIVER_FILES, API packages, VK_LOADER_DRIVER_PACKAGES, default folders", () => {
  using tree = new TempTree({
    ...pkg("api", GOOD, driverManifest("libvulkan_example.so")),
    ...pkg("envpkg", { ...GOOD, manifest_path: "meta/icd.d/env.json" }),
    "envpkg/meta/icd.d/env.json": driverManifest("libvulkan_example.so"),
    "add/added.json": driverManifest("libadd.so"),
    "usr/share/vulkan/icd.d/system.json": driverManifest("libsys.so"),
  });
  const found = discoverDrivers(
    tree.snapshot({
      VK_ADD_DRIVER_FILES: tree.path("add/added.json"),
      VK_LOADER_DRIVER_PACKAGES: `${tree.path("envpkg")}::`,
    }),
    { packages: [tree.path("api")] },
  );
  assertEquals(found.drivers.map((d) => [d.fileName, d.origin.source]), [
    ["added.json", "VK_ADD_DRIVER_FILES"],
    ["example.json", "api"],
    ["env.json", "VK_LOADER_DRIVER_PACKAGES"],
    ["system.json", "XDG_DATA_DIRS"],
  ]);
});

Deno.test("VK_LOADER_DRIVER_PACKAGES is ignored with VK_DRIVER_FILES or when elevated; API packages are kept", () => {
  using tree = new TempTree({
    ...pkg("api", GOOD),
    ...pkg("envpkg", GOOD),
    "only.json": driverManifest("libonly.so"),
  });
  const vars = { VK_LOADER_DRIVER_PACKAGES: tree.path("envpkg"), VK_DRIVER_FILES: tree.path("only.json") };
  const withOverride = discoverDrivers(tree.snapshot(vars), { packages: [tree.path("api")] });
  assertEquals(withOverride.drivers.map((d) => d.origin.source), ["VK_DRIVER_FILES", "api"]);
  const elevated = discoverDrivers(tree.snapshot({ VK_LOADER_DRIVER_PACKAGES: tree.path("envpkg") }, true), {
    packages: [tree.path("api")],
  });
  assertEquals(elevated.drivers.map((d) => d.origin.source), ["api"]);
});

Deno.test("driver filters match a package's manifest file name", () => {
  using tree = new TempTree(pkg("p", GOOD));
  const found = discoverDrivers(tree.snapshot({ VK_LOADER_DRIVERS_DISABLE: "example*" }), {
    packages: [tree.path("p")],
  });
  assertEquals(found.candidates.map((c) => c.skip), ["disabled"]);
});

Deno.test("a library_path that differs from file_path is a warning; file_path wins", () => {
  using tree = new TempTree(pkg("p", GOOD, driverManifest("libother.so")));
  const found = discoverDrivers(tree.snapshot(), { packages: [tree.path("p")] });
  assertEquals(found.drivers[0]?.libraryPath, tree.path("p/lib/libvulkan_example.so"));
  assertEquals(found.candidates[0]?.warnings.length, 1);
});
