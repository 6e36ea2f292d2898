import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { buildInspectReport, formatInspectReport, type InspectSection } from "../../discovery/inspect.ts";
import { driverManifest, TempTree } from "../support/discovery_tree.ts";

function tree(): TempTree {
  return new TempTree({
    "usr/share/vulkan/icd.d/good.json": driverManifest("libgood.so", {
      version: "1.0.1",
      arch: "64",
      api: "1.3.5",
    }),
    "usr/share/vulkan/icd.d/bad.json": '{"file_format_version": "1.0.0", "ICD": {"library_path": 3}}',
    "usr/share/vulkan/icd.d/off.json": driverManifest("liboff.so"),
  });
}

Deno.test("the report lists every candidate with origin, parsed fields and status", () => {
  using t = tree();
  const report = buildInspectReport(t.snapshot({ VK_LOADER_DRIVERS_DISABLE: "off*" }));
  assertEquals(report.environment.variables, { VK_LOADER_DRIVERS_DISABLE: "off*" });
  assertEquals(report.drivers.used, 1);
  assertEquals(report.drivers.skipped, 2);
  assertEquals(
    report.drivers.entries.map((e) => [e.path.slice(t.root.length), e.source, e.status, e.reason]),
    [
      [
        "/usr/share/vulkan/icd.d/bad.json",
        "XDG_DATA_DIRS",
        "skipped",
        'field "ICD.library_path" is a number, expected a non-empty string',
      ],
      ["/usr/share/vulkan/icd.d/good.json", "XDG_DATA_DIRS", "used", undefined],
      [
        "/usr/share/vulkan/icd.d/off.json",
        "XDG_DATA_DIRS",
        "skipped",
        "disabled by env var 'VK_LOADER_DRIVERS_DISABLE'",
      ],
    ],
  );
  assertEquals(report.drivers.entries[1]?.fields, {
    file_format_version: "1.0.1",
    library_path: "libgood.so",
    library: "libgood.so",
    api_version: "1.3.5",
    library_arch: "64",
    is_portability_driver: false,
  });
  assertEquals(report.drivers.entries[0]?.fields, { file_format_version: "1.0.0" });
  // No HOME: the two home folders drop out; /etc/xdg, /etc, /usr/local/share and /usr/share are under root.
  assertEquals(report.drivers.locations.map((l) => l.status), [
    "missing",
    "missing",
    "missing",
    "scanned",
  ]);
});

Deno.test("the table shows each manifest, its status and the skip reason", () => {
  using t = tree();
  const text = formatInspectReport(buildInspectReport(t.snapshot()));
  assert(text.includes("Drivers: 2 used, 1 skipped"), text);
  assert(/used\s+\S+good\.json\s+XDG_DATA_DIRS\s+1\.3\.5\s+libgood\.so/.test(text), text);
  assert(text.includes('reason: field "ICD.library_path" is a number, expected a non-empty string'), text);
});

Deno.test("a layers section of the same shape is printed after drivers", () => {
  using t = tree();
  const layers: InspectSection = {
    title: "Layers",
    locations: [],
    entries: [{
      path: "/x/VkLayer_x.json",
      source: "VK_ADD_LAYER_PATH",
      location: "/x",
      status: "used",
      fields: {},
      warnings: [],
    }],
    used: 1,
    skipped: 0,
  };
  const text = formatInspectReport(buildInspectReport(t.snapshot(), { layers }));
  assert(text.indexOf("Layers: 1 used, 0 skipped") > text.indexOf("Drivers:"), text);
});

/** The real environment without discovery variables (proxy and Deno settings kept), plus `extra`. */
function childEnv(extra: Record<string, string>): Record<string, string> {
  const vars = Deno.env.toObject();
  for (const name of Object.keys(vars)) {
    if (name.startsWith("VK_") || name.startsWith("XDG_")) delete vars[name];
  }
  return { ...vars, NO_COLOR: "1", ...extra };
}

Deno.test("deno task inspect: tools/inspect.ts prints JSON of the real process environment", async () => {
  using t = tree();
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-env", "tools/inspect.ts", "--json"],
    cwd: new URL("../..", import.meta.url).pathname,
    clearEnv: true,
    env: childEnv({ VK_DRIVER_FILES: t.path("usr/share/vulkan/icd.d"), HOME: t.root }),
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(output.code, 0, new TextDecoder().decode(output.stderr));
  const report = JSON.parse(new TextDecoder().decode(output.stdout));
  assertEquals(report.drivers.entries.map((e: { status: string }) => e.status), ["skipped", "used", "used"]);
  assertEquals(report.environment.variables.VK_DRIVER_FILES, t.path("usr/share/vulkan/icd.d"));
  const table = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-env", "tools/inspect.ts"],
    cwd: new URL("../..", import.meta.url).pathname,
    clearEnv: true,
    env: childEnv({ VK_DRIVER_FILES: t.path("usr/share/vulkan/icd.d") }),
    stdout: "piped",
  }).output();
  assert(new TextDecoder().decode(table.stdout).includes("Drivers: 2 used, 1 skipped"));
});

Deno.test("a manifest whose library file does not exist is marked in the report (a stat, nothing loaded)", () => {
  using t = new TempTree({
    "usr/share/vulkan/icd.d/gone.json": driverManifest("./libgone.so"),
    "usr/share/vulkan/icd.d/here.json": driverManifest("./here.json"),
    "usr/share/vulkan/icd.d/bare.json": driverManifest("libbare.so"),
  });
  const report = buildInspectReport(t.snapshot());
  const warnings = Object.fromEntries(
    report.drivers.entries.map((e) => [e.path.slice(e.path.lastIndexOf("/") + 1), e.warnings]),
  );
  assertEquals(warnings["gone.json"], [
    `library "${t.root}/usr/share/vulkan/icd.d/./libgone.so" does not exist: loading it will fail`,
  ]);
  assertEquals(warnings["here.json"], []);
  assertEquals(warnings["bare.json"], []);
  assert(formatInspectReport(report).includes('libgone.so" does not exist'));
});
