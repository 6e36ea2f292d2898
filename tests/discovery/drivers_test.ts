import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { discoverDrivers, type DriverDiscovery } from "../../discovery/drivers.ts";
import { driverManifest, TempTree } from "../support/discovery_tree.ts";

function used(found: DriverDiscovery): string[] {
  return found.drivers.map((d) => d.fileName);
}

function skipped(found: DriverDiscovery): [string, string | undefined][] {
  return found.candidates.filter((c) => c.status === "skipped").map((c) => [c.fileName, c.skip]);
}

/** A tree with one driver in each default search folder (under root) and in the home folders. */
function systemTree(): TempTree {
  return new TempTree({
    "home/.config/vulkan/icd.d/a_config_home.json": driverManifest("liba.so"),
    "etc/xdg/vulkan/icd.d/b_config_dirs.json": driverManifest("libb.so"),
    "etc/vulkan/icd.d/c_sysconf.json": driverManifest("libc.so"),
    "home/.local/share/vulkan/icd.d/d_data_home.json": driverManifest("libd.so"),
    "usr/local/share/vulkan/icd.d/e_local.json": driverManifest("libe.so"),
    "usr/share/vulkan/icd.d/f_share.json": driverManifest("libf.so"),
    "usr/share/vulkan/icd.d/g_share.json": driverManifest("libg.so"),
    "extra/x_add.json": driverManifest("libx.so"),
    "extra/y_add.json": driverManifest("liby.so"),
  });
}

Deno.test("default search order with no variables, under root, without host manifests", () => {
  using tree = systemTree();
  const found = discoverDrivers(tree.snapshot({ HOME: tree.path("home") }));
  assertEquals(used(found), [
    "a_config_home.json",
    "b_config_dirs.json",
    "c_sysconf.json",
    "d_data_home.json",
    "e_local.json",
    "f_share.json",
    "g_share.json",
  ]);
  assertEquals(found.drivers.map((d) => d.origin.source), [
    "XDG_CONFIG_HOME",
    "XDG_CONFIG_DIRS",
    "SYSCONFDIR",
    "XDG_DATA_HOME",
    "XDG_DATA_DIRS",
    "XDG_DATA_DIRS",
    "XDG_DATA_DIRS",
  ]);
  assertEquals(found.drivers.every((d) => d.manifestPath.startsWith(tree.root)), true);
});

Deno.test("XDG variables replace their defaults", () => {
  using tree = systemTree();
  tree.add({ "mine/vulkan/icd.d/m.json": driverManifest("libm.so") });
  const found = discoverDrivers(
    tree.snapshot({ XDG_DATA_DIRS: tree.path("mine") + "::" + tree.path("mine") + "/" }),
  );
  assertEquals(used(found), ["b_config_dirs.json", "c_sysconf.json", "m.json"]);
});

Deno.test("VK_DRIVER_FILES replaces the search; entries are files or folders", () => {
  using tree = systemTree();
  const found = discoverDrivers(tree.snapshot({
    HOME: tree.path("home"),
    VK_DRIVER_FILES: `${tree.path("extra/y_add.json")}::${tree.path("usr/share/vulkan/icd.d")}`,
    VK_ADD_DRIVER_FILES: tree.path("extra/x_add.json"),
    VK_ICD_FILENAMES: tree.path("etc/vulkan/icd.d/c_sysconf.json"),
  }));
  assertEquals(used(found), ["y_add.json", "f_share.json", "g_share.json"]);
  assertEquals(found.drivers.map((d) => d.origin.source), [
    "VK_DRIVER_FILES",
    "VK_DRIVER_FILES",
    "VK_DRIVER_FILES",
  ]);
  const texts = found.messages.map((m) => m.text);
  assertEquals(texts.includes("Ignoring env var 'VK_ICD_FILENAMES' because 'VK_DRIVER_FILES' is set"), true);
  assertEquals(
    texts.includes("Ignoring env var 'VK_ADD_DRIVER_FILES' because 'VK_DRIVER_FILES' is set"),
    true,
  );
});

Deno.test("VK_ICD_FILENAMES is used only when VK_DRIVER_FILES is unset", () => {
  using tree = systemTree();
  const found = discoverDrivers(
    tree.snapshot({ VK_ICD_FILENAMES: tree.path("extra/x_add.json") }),
  );
  assertEquals(used(found), ["x_add.json"]);
  assertEquals(found.drivers[0]?.origin.source, "VK_ICD_FILENAMES");
});

Deno.test("VK_ADD_DRIVER_FILES is searched before the default folders", () => {
  using tree = systemTree();
  const found = discoverDrivers(tree.snapshot({ VK_ADD_DRIVER_FILES: tree.path("extra") }));
  assertEquals(used(found), [
    "x_add.json",
    "y_add.json",
    "b_config_dirs.json",
    "c_sysconf.json",
    "e_local.json",
    "f_share.json",
    "g_share.json",
  ]);
});

Deno.test("a file reached twice is used once and the second is skipped as a duplicate", () => {
  using tree = systemTree();
  const found = discoverDrivers(tree.snapshot({
    VK_ADD_DRIVER_FILES: tree.path("usr/share/vulkan/icd.d/f_share.json") + ":" +
      tree.path("usr/share/vulkan/../vulkan/icd.d/f_share.json"),
  }));
  assertEquals(used(found).filter((n) => n === "f_share.json").length, 1);
  assertEquals(found.drivers[0]?.origin.source, "VK_ADD_DRIVER_FILES");
  assertEquals(skipped(found), [["f_share.json", "duplicate"], ["f_share.json", "duplicate"]]);
});

Deno.test("relative entries resolve against the snapshot's cwd", () => {
  using tree = systemTree();
  const found = discoverDrivers({
    vars: { VK_DRIVER_FILES: "extra/x_add.json" },
    elevated: false,
    cwd: tree.root,
  });
  assertEquals(found.drivers.map((d) => d.manifestPath), [tree.path("extra/x_add.json")]);
});

Deno.test("VK_LOADER_DRIVERS_SELECT keeps only matching file names and logs each drop", () => {
  using tree = systemTree();
  const found = discoverDrivers(tree.snapshot({ VK_LOADER_DRIVERS_SELECT: "*SHARE*,c_sysconf.json" }));
  assertEquals(used(found), ["c_sysconf.json", "f_share.json", "g_share.json"]);
  assertEquals(skipped(found), [["b_config_dirs.json", "not_selected"], ["e_local.json", "not_selected"]]);
  assertEquals(
    found.messages.filter((m) => m.level === "warn").map((m) => m.text),
    [
      `Driver "b_config_dirs.json" ignored because not selected by env var 'VK_LOADER_DRIVERS_SELECT'`,
      `Driver "e_local.json" ignored because not selected by env var 'VK_LOADER_DRIVERS_SELECT'`,
    ],
  );
});

Deno.test("VK_LOADER_DRIVERS_DISABLE drops matching file names and logs each drop", () => {
  using tree = systemTree();
  const found = discoverDrivers(tree.snapshot({ VK_LOADER_DRIVERS_DISABLE: "*_share.json" }));
  assertEquals(used(found), ["b_config_dirs.json", "c_sysconf.json", "e_local.json"]);
  assertEquals(skipped(found), [["f_share.json", "disabled"], ["g_share.json", "disabled"]]);
  assertEquals(
    found.messages.find((m) => m.text.startsWith(`Driver "f_share.json"`))?.text,
    `Driver "f_share.json" ignored because it was disabled by env var 'VK_LOADER_DRIVERS_DISABLE'`,
  );
});

Deno.test("a driver both selected and disabled is kept", () => {
  using tree = systemTree();
  const found = discoverDrivers(
    tree.snapshot({ VK_LOADER_DRIVERS_DISABLE: "~all~", VK_LOADER_DRIVERS_SELECT: "f_share.json" }),
  );
  assertEquals(used(found), ["f_share.json"]);
  assertEquals(found.candidates.filter((c) => c.skip === "disabled").length, 4);
});

Deno.test("elevated: override, add, filter and package variables and home/XDG paths are ignored", () => {
  using tree = systemTree();
  tree.add({ "mine/vulkan/icd.d/m.json": driverManifest("libm.so") });
  const vars = {
    HOME: tree.path("home"),
    XDG_DATA_DIRS: tree.path("mine"),
    XDG_CONFIG_HOME: tree.path("home/.config"),
    VK_DRIVER_FILES: tree.path("extra/x_add.json"),
    VK_ADD_DRIVER_FILES: tree.path("extra/y_add.json"),
    VK_LOADER_DRIVERS_DISABLE: "*",
    VK_LOADER_DRIVER_PACKAGES: tree.path("pkg"),
  };
  const found = discoverDrivers(tree.snapshot(vars, true));
  assertEquals(used(found), [
    "b_config_dirs.json",
    "c_sysconf.json",
    "e_local.json",
    "f_share.json",
    "g_share.json",
  ]);
  const warned = found.messages.filter((m) => m.text.includes("elevated privileges")).length;
  assertEquals(warned, 4);
  // The same snapshot, not elevated, honours them.
  assertEquals(used(discoverDrivers(tree.snapshot(vars, false))), []);
});

Deno.test("a broken manifest is skipped with its reason and the others still load", () => {
  using tree = new TempTree({
    "usr/share/vulkan/icd.d/a.json": driverManifest("liba.so"),
    "usr/share/vulkan/icd.d/b.json": '{"file_format_version": "1.0.0", "ICD": {"api_version": "1.3.0"}}',
    "usr/share/vulkan/icd.d/c.json": "{ nope",
    "usr/share/vulkan/icd.d/d.json": driverManifest("libd.so", { arch: "32" }),
    "usr/share/vulkan/icd.d/e.json": driverManifest("libe.so"),
    "usr/share/vulkan/icd.d/f.json": { folder: true },
  });
  const found = discoverDrivers(tree.snapshot());
  assertEquals(used(found), ["a.json", "e.json"]);
  assertEquals(found.candidates.filter((c) => c.status === "skipped").map((c) => [c.fileName, c.reason]), [
    ["b.json", 'field "ICD.library_path" is missing, expected a non-empty string'],
    ["c.json", "file is not valid JSON: invalid symbol at line 1, column 3"],
    ["d.json", 'field "ICD.library_arch" is "32" but this process is 64-bit'],
    ["f.json", "is a folder, not a file"],
  ]);
  assertEquals(
    found.messages.some((m) =>
      m.text === `Skipping driver manifest "${tree.path("usr/share/vulkan/icd.d/b.json")}": ` +
          'field "ICD.library_path" is missing, expected a non-empty string'
    ),
    true,
  );
});

Deno.test("library_arch matching the process is used; a 32-bit process skips 64-bit drivers", () => {
  using tree = new TempTree({
    "usr/share/vulkan/icd.d/a.json": driverManifest("liba.so", { arch: "64" }),
    "usr/share/vulkan/icd.d/b.json": driverManifest("libb.so", { arch: "32" }),
  });
  assertEquals(used(discoverDrivers(tree.snapshot())), ["a.json"]);
  assertEquals(used(discoverDrivers(tree.snapshot(), { pointerBits: 32 })), ["b.json"]);
});

Deno.test("every candidate is accounted for, and used candidates are exactly the drivers", () => {
  using tree = systemTree();
  const found = discoverDrivers(tree.snapshot({ HOME: tree.path("home"), VK_LOADER_DRIVERS_DISABLE: "*a*" }));
  assertEquals(found.candidates.length, 7);
  assertEquals(
    found.candidates.filter((c) => c.status === "used").map((c) => c.manifestPath),
    found.drivers.map((d) => d.manifestPath),
  );
  assertEquals(found.candidates.every((c) => c.status === "used" || (c.reason ?? "") !== ""), true);
});

Deno.test("the same folder listed three times in VK_DRIVER_FILES is searched once", () => {
  using tree = systemTree();
  const folder = tree.path("extra");
  const found = discoverDrivers({
    vars: { VK_DRIVER_FILES: `${folder}:${folder}/:${folder}` },
    elevated: false,
  });
  assertEquals(used(found), ["x_add.json", "y_add.json"]);
  assertEquals(found.locations.map((l) => l.status), ["scanned"]);
});

Deno.test("a VK_DRIVER_FILES entry that is neither a .json file nor a folder finds nothing, and says so", () => {
  using tree = systemTree();
  tree.add({ "notes.txt": driverManifest("libn.so"), "upper/a.JSON": driverManifest("liba.so") });
  const found = discoverDrivers({
    vars: { VK_DRIVER_FILES: `${tree.path("notes.txt")}:${tree.path("upper")}:${tree.path("nowhere")}` },
    elevated: false,
  });
  assertEquals(found.drivers.length, 0);
  assertEquals(found.candidates.length, 0);
  assertEquals(found.locations.map((l) => [l.status, l.fileCount]), [["not a folder", 0], ["scanned", 0], [
    "missing",
    0,
  ]]);
  assertEquals(found.messages.at(-1)?.text, "No driver manifest was found or accepted");
});
