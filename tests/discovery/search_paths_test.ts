import { deepStrictEqual as assertEquals } from "node:assert/strict";
import {
  defaultSearchLocations,
  pathListLocations,
  scanSearchLocations,
  splitPathList,
} from "../../discovery/search_paths.ts";
import { TempTree } from "../support/discovery_tree.ts";

Deno.test("search order is XDG_CONFIG_HOME, XDG_CONFIG_DIRS, SYSCONFDIR, XDG_DATA_HOME, XDG_DATA_DIRS", () => {
  const env = {
    vars: {
      HOME: "/h",
      XDG_CONFIG_HOME: "/ch",
      XDG_CONFIG_DIRS: "/cd1:/cd2",
      XDG_DATA_HOME: "/dh",
      XDG_DATA_DIRS: "/dd1:/dd2",
    },
    elevated: false,
  };
  assertEquals(defaultSearchLocations(env, "driver").map((l) => [l.path, l.source, l.defaulted]), [
    ["/ch/vulkan/icd.d", "XDG_CONFIG_HOME", false],
    ["/cd1/vulkan/icd.d", "XDG_CONFIG_DIRS", false],
    ["/cd2/vulkan/icd.d", "XDG_CONFIG_DIRS", false],
    ["/etc/vulkan/icd.d", "SYSCONFDIR", true],
    ["/dh/vulkan/icd.d", "XDG_DATA_HOME", false],
    ["/dd1/vulkan/icd.d", "XDG_DATA_DIRS", false],
    ["/dd2/vulkan/icd.d", "XDG_DATA_DIRS", false],
  ]);
});

Deno.test("unset XDG variables fall back to HOME and the built-in folders under root", () => {
  const env = { vars: { HOME: "/home/me" }, elevated: false, root: "/fake" };
  assertEquals(defaultSearchLocations(env, "driver").map((l) => l.path), [
    "/home/me/.config/vulkan/icd.d",
    "/fake/etc/xdg/vulkan/icd.d",
    "/fake/etc/vulkan/icd.d",
    "/home/me/.local/share/vulkan/icd.d",
    "/fake/usr/local/share/vulkan/icd.d",
    "/fake/usr/share/vulkan/icd.d",
  ]);
});

Deno.test("empty XDG variables count as unset", () => {
  const env = { vars: { XDG_DATA_DIRS: "", XDG_CONFIG_HOME: "" }, elevated: false };
  assertEquals(defaultSearchLocations(env, "driver").map((l) => l.path), [
    "/etc/xdg/vulkan/icd.d",
    "/etc/vulkan/icd.d",
    "/usr/local/share/vulkan/icd.d",
    "/usr/share/vulkan/icd.d",
  ]);
});

Deno.test("layer kinds use their own subfolders", () => {
  const env = { vars: { XDG_DATA_DIRS: "/d" }, elevated: true };
  assertEquals(
    defaultSearchLocations(env, "implicit_layer").map((l) => l.path).at(-1),
    "/usr/share/vulkan/implicit_layer.d",
  );
  assertEquals(
    defaultSearchLocations(env, "explicit_layer").map((l) => l.path).at(0),
    "/etc/xdg/vulkan/explicit_layer.d",
  );
});

Deno.test("elevated privileges drop home folders and ignore XDG variables", () => {
  const env = {
    vars: {
      HOME: "/h",
      XDG_CONFIG_HOME: "/ch",
      XDG_CONFIG_DIRS: "/cd",
      XDG_DATA_HOME: "/dh",
      XDG_DATA_DIRS: "/dd",
    },
    elevated: true,
  };
  assertEquals(defaultSearchLocations(env, "driver").map((l) => l.path), [
    "/etc/xdg/vulkan/icd.d",
    "/etc/vulkan/icd.d",
    "/usr/local/share/vulkan/icd.d",
    "/usr/share/vulkan/icd.d",
  ]);
});

Deno.test("path lists skip empty segments, trailing slashes and duplicates", () => {
  assertEquals(splitPathList("::/a/::/b//:/a:/"), ["/a", "/b", "/"]);
  const env = { vars: { XDG_DATA_DIRS: "/x/:/x::/y", XDG_CONFIG_DIRS: "/y" }, elevated: false, root: "/r" };
  const paths = defaultSearchLocations(env, "driver").map((l) => l.path);
  assertEquals(paths.filter((p) => p === "/y/vulkan/icd.d").length, 1);
  assertEquals(paths.filter((p) => p === "/x/vulkan/icd.d").length, 1);
});

Deno.test("a .json entry in an XDG list names a file directly", () => {
  const env = { vars: { XDG_DATA_DIRS: "/opt/one.json:/opt/share" }, elevated: false };
  const locations = defaultSearchLocations(env, "driver");
  assertEquals(locations.filter((l) => l.source === "XDG_DATA_DIRS").map((l) => [l.path, l.isFile]), [
    ["/opt/one.json", true],
    ["/opt/share/vulkan/icd.d", false],
  ]);
});

Deno.test("relative variable entries resolve against env.cwd", () => {
  const env = { vars: {}, elevated: false, cwd: "/work" };
  assertEquals(
    pathListLocations(env, "icd/a.json:/abs:b", "VK_DRIVER_FILES").map((l) => [l.path, l.isFile]),
    [
      ["/work/icd/a.json", true],
      ["/abs", false],
      ["/work/b", false],
    ],
  );
});

Deno.test("folder scan lists only .json names, sorted, and reports every location", () => {
  using tree = new TempTree({
    // A name that is nothing but ".json" ends in .json too (the Khronos loader 1.3.239 loads it, measured).
    "a/vulkan/icd.d/.json": "{}",
    "a/vulkan/icd.d/b.json": "{}",
    "a/vulkan/icd.d/a.json": "{}",
    "a/vulkan/icd.d/c.JSON": "{}",
    "a/vulkan/icd.d/readme.txt": "",
    "a/vulkan/icd.d/nojson": "{}",
    "a/vulkan/icd.d/dir.json": { folder: true },
    "plain.txt": "x",
  });
  const env = tree.snapshot({ XDG_DATA_DIRS: tree.path("a") + ":" + tree.path("missing") });
  const locations = [
    ...pathListLocations(env, tree.path("plain.txt"), "VK_ADD_DRIVER_FILES"),
    ...defaultSearchLocations(env, "driver").filter((l) => l.source === "XDG_DATA_DIRS"),
    ...pathListLocations(env, tree.path("a/vulkan/icd.d"), "VK_ADD_DRIVER_FILES"),
  ];
  const scan = scanSearchLocations(locations);
  assertEquals(scan.files.map((f) => f.fileName), [".json", "a.json", "b.json", "dir.json"]);
  assertEquals(scan.locations.map((r) => [r.status, r.fileCount]), [
    ["not a folder", 0],
    ["scanned", 4],
    ["missing", 0],
    ["duplicate", 0],
  ]);
});
