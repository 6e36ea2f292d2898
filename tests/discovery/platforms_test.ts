import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { decidePortability } from "../../chain/extensions/portability.ts";
import { discoverDrivers } from "../../discovery/drivers.ts";
import { discoverLayers } from "../../discovery/layers.ts";
import { getenv } from "../../discovery/environment.ts";
import { bundleResourcesOf, libraryPathOn, platformRules, PLATFORMS } from "../../discovery/platforms.ts";
import { defaultSearchLocations, pathListLocations, registryEntries } from "../../discovery/search_paths.ts";
import { registryFromTree, type RegistryTree } from "../../ffi/registry.ts";
import { driverManifest, TempTree } from "../support/discovery_tree.ts";

const DRIVERS = "HKEY_LOCAL_MACHINE\\SOFTWARE\\Khronos\\Vulkan\\Drivers";
const USER_DRIVERS = "HKEY_CURRENT_USER\\SOFTWARE\\Khronos\\Vulkan\\Drivers";
const IMPLICIT = "SOFTWARE\\Khronos\\Vulkan\\ImplicitLayers";

function layerManifest(name: string): string {
  return JSON.stringify({
    file_format_version: "1.2.0",
    layer: {
      name,
      type: "GLOBAL",
      library_path: "libx.so",
      api_version: "1.3.0",
      implementation_version: "1",
      description: name,
      disable_environment: { [`DISABLE_${name}`]: "1" },
    },
  });
}

// macOS

Deno.test("macOS searches the bundle's Resources first, then the Linux order with /usr/local/etc and /etc", () => {
  const env = {
    vars: { HOME: "/Users/Me" },
    elevated: false,
    os: "darwin" as const,
    bundleResources: "/Applications/Viewer.app/Contents/Resources",
  };
  assertEquals(defaultSearchLocations(env, "driver").map((l) => [l.path, l.source]), [
    ["/Applications/Viewer.app/Contents/Resources/vulkan/icd.d", "bundle"],
    ["/Users/Me/.config/vulkan/icd.d", "XDG_CONFIG_HOME"],
    ["/etc/xdg/vulkan/icd.d", "XDG_CONFIG_DIRS"],
    ["/usr/local/etc/vulkan/icd.d", "SYSCONFDIR"],
    ["/etc/vulkan/icd.d", "EXTRASYSCONFDIR"],
    ["/Users/Me/.local/share/vulkan/icd.d", "XDG_DATA_HOME"],
    ["/usr/local/share/vulkan/icd.d", "XDG_DATA_DIRS"],
    ["/usr/share/vulkan/icd.d", "XDG_DATA_DIRS"],
  ]);
  assertEquals(
    defaultSearchLocations(env, "implicit_layer")[0]?.path,
    "/Applications/Viewer.app/Contents/Resources/vulkan/implicit_layer.d",
  );
});

Deno.test("VK_LOADER_SEARCH_ONLY_IN_BUNDLE leaves only the bundle; an executable outside a bundle has none", () => {
  const bundled = {
    vars: { HOME: "/Users/Me", VK_LOADER_SEARCH_ONLY_IN_BUNDLE: "1" },
    elevated: false,
    os: "darwin" as const,
    bundleResources: "/A.app/Contents/Resources",
  };
  assertEquals(defaultSearchLocations(bundled, "explicit_layer").map((l) => l.path), [
    "/A.app/Contents/Resources/vulkan/explicit_layer.d",
  ]);
  const { bundleResources: _, ...plain } = bundled;
  assertEquals(defaultSearchLocations(plain, "driver")[0]?.path, "/Users/Me/.config/vulkan/icd.d");
  assertEquals(bundleResourcesOf("/A.app/Contents/MacOS/deno"), "/A.app/Contents/Resources");
  assertEquals(bundleResourcesOf("/opt/homebrew/bin/deno"), undefined);
  assertEquals(bundleResourcesOf("/A.app/Contents/MacOS/tools/deno"), undefined);
});

Deno.test({
  name:
    "a simulated Mac: MoltenVK bundled as a portability driver, its .dylib beside the bundle's Frameworks",
  // The tree's paths are joined by the host's rules (D20): a Windows host joins them with backslashes.
  ignore: platformRules().directorySymbol !== "/",
}, () => {
  using tree = new TempTree({
    "Viewer.app/Contents/Resources/vulkan/icd.d/MoltenVK_icd.json": driverManifest(
      "../../../Frameworks/libMoltenVK.dylib",
      { portability: true },
    ),
    "usr/local/etc/vulkan/icd.d/a_sysconf.json": driverManifest("libvulkan_a.dylib"),
    "usr/local/share/vulkan/icd.d/b_share.json": driverManifest("/usr/local/lib/libvulkan_b.dylib"),
    "usr/share/vulkan/icd.d/c_linux_only.json": driverManifest("libc.so"),
  });
  const env = {
    vars: { HOME: tree.path("Users/Me"), XDG_DATA_DIRS: tree.path("usr/local/share") },
    elevated: false,
    root: tree.root,
    os: "darwin" as const,
    bundleResources: tree.path("Viewer.app/Contents/Resources"),
  };
  const found = discoverDrivers(env);
  assertEquals(found.drivers.map((d) => [d.fileName, d.origin.source]), [
    ["MoltenVK_icd.json", "bundle"],
    ["a_sysconf.json", "SYSCONFDIR"],
    ["b_share.json", "XDG_DATA_DIRS"],
  ]);
  assertEquals(
    found.drivers[0]?.libraryPath,
    tree.path("Viewer.app/Contents/Resources/vulkan/icd.d/../../../Frameworks/libMoltenVK.dylib"),
  );
  assertEquals(found.drivers[1]?.libraryPath, "libvulkan_a.dylib");
  const portable = found.drivers.map((d) => ({
    fileName: d.fileName,
    isPortabilityDriver: d.isPortabilityDriver,
  }));
  assertEquals(decidePortability(portable, { flags: 0, enabledExtensions: [] }).used.map((d) => d.fileName), [
    "a_sysconf.json",
    "b_share.json",
  ]);
  const both = { flags: 1, enabledExtensions: ["VK_KHR_portability_enumeration"] };
  assertEquals(decidePortability(portable, both).used.length, 3);
});

Deno.test("library names carry each system's suffix, and the system loader has each system's name", () => {
  assertEquals(
    Object.values(PLATFORMS).map((p) => [p.os, p.librarySuffix, p.loaderLibrary]),
    [
      ["linux", ".so", "libvulkan.so.1"],
      ["darwin", ".dylib", "libvulkan.1.dylib"],
      ["windows", ".dll", "vulkan-1.dll"],
    ],
  );
  assertEquals(platformRules("freebsd").os, "linux");
});

// Windows

Deno.test("Windows: a library_path is relative only with a backslash; a drive or a leading backslash is absolute", () => {
  const win = PLATFORMS.windows;
  assertEquals(libraryPathOn(win, "bin\\icd.dll", "C:\\vk\\icd.json"), {
    path: "C:\\vk\\bin\\icd.dll",
    kind: "relative",
  });
  assertEquals(libraryPathOn(win, "D:\\icd.dll", "C:\\vk\\icd.json").kind, "absolute");
  assertEquals(libraryPathOn(win, "\\\\server\\icd.dll", "C:\\vk\\icd.json").kind, "absolute");
  assertEquals(libraryPathOn(win, "winevulkan.dll", "C:\\vk\\icd.json"), {
    path: "winevulkan.dll",
    kind: "name",
  });
  assertEquals(libraryPathOn(win, "lib/icd.dll", "C:\\vk\\icd.json").kind, "name");
  assertEquals(libraryPathOn(PLATFORMS.linux, "C:\\icd.dll", "/vk/icd.json").kind, "name");
});

Deno.test("Windows: path variables are ;-separated, relative entries join the cwd with a backslash", () => {
  const env = { vars: {}, elevated: false, os: "windows" as const, cwd: "C:\\work" };
  assertEquals(
    pathListLocations(env, "C:\\vk\\a.json;;drivers;D:\\b\\", "VK_DRIVER_FILES").map((
      l,
    ) => [l.path, l.isFile]),
    [["C:\\vk\\a.json", true], ["C:\\work\\drivers", false], ["D:\\b\\", false]],
  );
});

Deno.test("Windows: variable names match in any case", () => {
  const env = { vars: { vk_driver_files: "C:\\a.json" }, elevated: false, os: "windows" as const };
  assertEquals(getenv(env, "VK_DRIVER_FILES"), "C:\\a.json");
  assertEquals(getenv({ ...env, os: "linux" as const }, "VK_DRIVER_FILES"), undefined);
});

Deno.test("Windows: drivers come from HKLM's Drivers key, values whose data is the DWORD 0; HKCU is not read", () => {
  const registry = registryFromTree({
    [DRIVERS]: [
      ["C:\\vendor a\\a.json", 0],
      ["C:\\windows\\system32\\b.json", 1],
      ["C:\\c.json", "0"],
      ["C:\\d.json", 0],
    ],
    [USER_DRIVERS]: [["C:\\user.json", 0]],
  });
  const env = { vars: {}, elevated: false, os: "windows" as const, registry };
  assertEquals(registryEntries(env, "driver").map((e) => [e.name, e.enabled]), [
    ["C:\\vendor a\\a.json", true],
    ["C:\\windows\\system32\\b.json", false],
    ["C:\\c.json", false],
    ["C:\\d.json", true],
  ]);
  assertEquals(defaultSearchLocations(env, "driver").map((l) => [l.path, l.source, l.isFile]), [
    ["C:\\vendor a\\a.json", DRIVERS, true],
    ["C:\\d.json", DRIVERS, true],
  ]);
});

Deno.test("Windows: layers come from HKLM then HKCU; an elevated process reads HKLM only", () => {
  const tree: RegistryTree = {
    [`HKEY_LOCAL_MACHINE\\${IMPLICIT}`]: [["C:\\m.json", 0]],
    [`HKEY_CURRENT_USER\\${IMPLICIT}`]: [["C:\\u.json", 0], ["C:\\off.json", 7]],
  };
  const env = { vars: {}, elevated: false, os: "windows" as const, registry: registryFromTree(tree) };
  assertEquals(defaultSearchLocations(env, "implicit_layer").map((l) => [l.path, l.source]), [
    ["C:\\m.json", `HKEY_LOCAL_MACHINE\\${IMPLICIT}`],
    ["C:\\u.json", `HKEY_CURRENT_USER\\${IMPLICIT}`],
  ]);
  assertEquals(defaultSearchLocations({ ...env, elevated: true }, "implicit_layer").map((l) => l.path), [
    "C:\\m.json",
  ]);
  assertEquals(defaultSearchLocations(env, "explicit_layer"), []);
  assertEquals(defaultSearchLocations({ ...env, registry: undefined }, "driver"), []);
});

Deno.test("Windows discovery over a registry tree: VK_ADD_DRIVER_FILES first, VK_DRIVER_FILES replaces the registry", () => {
  using tree = new TempTree({
    "vk/a.json": driverManifest("a.dll"),
    "vk/b.json": driverManifest("b.dll"),
    "extra/x.json": driverManifest("x.dll"),
  });
  const registry = registryFromTree({
    [DRIVERS]: [[tree.path("vk/b.json"), 0], [tree.path("vk/a.json"), 0]],
  });
  const env = { vars: {}, elevated: false, os: "windows" as const, registry };
  const names = (vars: Record<string, string>) =>
    discoverDrivers({ ...env, vars }).drivers.map((d) => [d.fileName, d.origin.source]);
  assertEquals(names({}), [["b.json", DRIVERS], ["a.json", DRIVERS]]);
  assertEquals(names({ VK_ADD_DRIVER_FILES: tree.path("extra/x.json") }), [
    ["x.json", "VK_ADD_DRIVER_FILES"],
    ["b.json", DRIVERS],
    ["a.json", DRIVERS],
  ]);
  assertEquals(names({ VK_DRIVER_FILES: `${tree.path("extra/x.json")};${tree.path("vk/a.json")}` }), [
    ["x.json", "VK_DRIVER_FILES"],
    ["a.json", "VK_DRIVER_FILES"],
  ]);
  assertEquals(names({ VK_LOADER_DRIVERS_SELECT: "a.json" }), [["a.json", DRIVERS]]);
});

Deno.test("Windows: a registry change is seen by the next discovery (no stamp to keep a stale scan)", () => {
  using tree = new TempTree({ "vk/a.json": driverManifest("a.dll"), "vk/b.json": driverManifest("b.dll") });
  const values: [string, number][] = [[tree.path("vk/a.json"), 0]];
  const registry = registryFromTree({ [DRIVERS]: values });
  const env = { vars: {}, elevated: false, os: "windows" as const, registry };
  assertEquals(discoverDrivers(env).drivers.map((d) => d.fileName), ["a.json"]);
  values.push([tree.path("vk/b.json"), 0]);
  assertEquals(discoverDrivers(env).drivers.map((d) => d.fileName), ["a.json", "b.json"]);
});

Deno.test("Windows: implicit layers listed in the registry are discovered, HKCU's after HKLM's", () => {
  using tree = new TempTree({ "m.json": layerManifest("VK_LAYER_m"), "u.json": layerManifest("VK_LAYER_u") });
  const registry = registryFromTree({
    [`HKEY_LOCAL_MACHINE\\${IMPLICIT}`]: [[tree.path("m.json"), 0]],
    [`HKEY_CURRENT_USER\\${IMPLICIT}`]: [[tree.path("u.json"), 0]],
  });
  const found = discoverLayers({ vars: {}, elevated: false, os: "windows", registry });
  assertEquals(found.layers.map((l) => l.name), ["VK_LAYER_m", "VK_LAYER_u"]);
});
