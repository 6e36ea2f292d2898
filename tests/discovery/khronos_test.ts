/**
 * vkdeno's driver discovery side by side with the Khronos loader (libvulkan1,
 * through `vulkaninfo`) on this machine's real manifests.
 *
 * What is compared: the manifests the Khronos loader *found* and *accepted*.
 * With `VK_LOADER_DEBUG=driver` it logs, for its first scan:
 *
 * - `Found the following files:` then one path per line: every file found;
 * - `Found ICD manifest file <path>, version "<v>"`: each manifest it parsed;
 * - `Driver "<file>" ignored because ...`: each one a filter dropped;
 * - `loader_parse_icd_manifest: ... <path> ... Skipping ICD JSON`: a manifest defect.
 *
 * Accepted = parsed minus ignored minus defective. That is what discovery decides. The loader
 * later also drops drivers whose library fails to load or that report zero
 * devices (intel and radeon here, with no such GPU); discovery never loads a
 * library, so that second cut is not compared. Sets are compared, not order:
 * the loader lists a folder in `readdir` order, vkdeno sorts by name. A file
 * the loader finds twice (through `VK_ADD_DRIVER_FILES` and its folder) it
 * loads twice; vkdeno uses it once and lists the second as a skipped
 * duplicate, so the multiset of *found* files still matches.
 *
 * Not compared, because this machine's loader (Debian libvulkan1 1.3.239) is
 * older than the behaviour vkdeno follows (docs/behaviour.md M02, M05): it does
 * not know `library_arch` (a `"32"` driver is parsed and dlopen'd), and one
 * manifest with a JSON syntax error ends its whole driver scan, where vkdeno
 * skips that file and goes on.
 *
 * Both sides get the same variables: this process's environment without any
 * `VK_*`, plus the case's own, plus `VK_LOADER_LAYERS_DISABLE=~all~` for
 * vulkaninfo so the machine's implicit layers stay out of the way.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { discoverDrivers } from "../../discovery/drivers.ts";
import { driverManifest, TempTree } from "../support/discovery_tree.ts";
import { LAVAPIPE_LIBRARY, mesaManifestName } from "../support/lavapipe.ts";

const ICD_DIR = "/usr/share/vulkan/icd.d";
const LVP = `${ICD_DIR}/${mesaManifestName("lvp")}`;
const INTEL = `${ICD_DIR}/${mesaManifestName("intel")}`;

function hasTool(): boolean {
  try {
    Deno.statSync("/usr/bin/vulkaninfo");
    Deno.statSync(LVP);
    return true;
  } catch {
    return false;
  }
}
const ignore = !hasTool();

interface KhronosScan {
  found: string[];
  parsed: string[];
  ignored: string[];
  accepted: string[];
}

function baseEnv(extra: Record<string, string>): Record<string, string> {
  const vars = Deno.env.toObject();
  for (const name of Object.keys(vars)) if (name.startsWith("VK_")) delete vars[name];
  return { ...vars, ...extra };
}

async function khronos(vars: Record<string, string>): Promise<KhronosScan> {
  const output = await new Deno.Command("vulkaninfo", {
    args: ["--summary"],
    clearEnv: true,
    env: { ...vars, VK_LOADER_DEBUG: "driver", VK_LOADER_LAYERS_DISABLE: "~all~" },
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(30_000),
  }).output();
  const text = new TextDecoder().decode(output.stderr) + "\n" + new TextDecoder().decode(output.stdout);
  const lines = text.split("\n");
  const start = lines.findIndex((l) => l.includes("Searching for driver manifest files"));
  assert(start >= 0, `vulkaninfo logged no driver search:\n${text.slice(0, 2000)}`);
  let end = lines.findIndex((l, i) => i > start && l.includes("Searching for driver manifest files"));
  if (end < 0) end = lines.length;
  const block = lines.slice(start, end);
  const found: string[] = [];
  const parsed: string[] = [];
  const ignored: string[] = [];
  let inFiles = false;
  for (const line of block) {
    const body = line.replace(/^.*?DRIVER:\s*/, "");
    if (body.startsWith("Found the following files:")) {
      inFiles = true;
      continue;
    }
    const manifest = /Found ICD manifest file (.+), version/.exec(line);
    if (manifest?.[1] !== undefined) {
      inFiles = false;
      parsed.push(manifest[1]);
      continue;
    }
    const dropped = /Driver "(.+)" ignored because/.exec(line);
    if (dropped?.[1] !== undefined) {
      ignored.push(dropped[1]);
      continue;
    }
    if (inFiles && body.startsWith("/")) found.push(body.trim());
  }
  // Manifest defects: "loader_parse_icd_manifest: ... <path> ... Skipping ICD JSON".
  const rejected = parsed.filter((p) => block.some((l) => l.includes(p) && /Skipping ICD JSON/.test(l)));
  const accepted = parsed.filter((p) =>
    !ignored.includes(p.slice(p.lastIndexOf("/") + 1)) && !rejected.includes(p)
  );
  return { found, parsed, ignored, accepted };
}

async function compare(extra: Record<string, string>): Promise<{ vkdeno: string[]; loader: KhronosScan }> {
  const vars = baseEnv(extra);
  const loader = await khronos(vars);
  const found = discoverDrivers({ vars, elevated: false, cwd: Deno.cwd() });
  const vkdeno = found.drivers.map((d) => d.manifestPath);
  assertEquals(new Set(vkdeno), new Set(loader.accepted), "used drivers");
  assertEquals(found.candidates.map((c) => c.manifestPath).sort(), [...loader.found].sort(), "files found");
  assert(loader.parsed.length > 0, "the Khronos loader parsed no manifest");
  return { vkdeno, loader };
}

Deno.test({
  name: "same drivers as the Khronos loader: no variables",
  ignore,
  fn: async () => {
    const { vkdeno } = await compare({});
    for (
      const name of [
        mesaManifestName("lvp"),
        mesaManifestName("intel"),
        mesaManifestName("intel_hasvk"),
        mesaManifestName("radeon"),
      ]
    ) {
      assert(vkdeno.includes(`${ICD_DIR}/${name}`), name);
    }
  },
});

Deno.test({
  name: "same drivers as the Khronos loader: VK_DRIVER_FILES with a file and a folder",
  ignore,
  fn: async () => {
    using tree = new TempTree({ "d/extra_lvp.json": Deno.readTextFileSync(LVP) });
    const { vkdeno } = await compare({ VK_DRIVER_FILES: `${INTEL}:${tree.path("d")}` });
    assertEquals(vkdeno, [INTEL, tree.path("d/extra_lvp.json")]);
  },
});

Deno.test({
  name:
    "same drivers as the Khronos loader: VK_ADD_DRIVER_FILES (new file, and a file already in the search path)",
  ignore,
  fn: async () => {
    using tree = new TempTree({ "added_lvp.json": Deno.readTextFileSync(LVP) });
    const added = await compare({ VK_ADD_DRIVER_FILES: tree.path("added_lvp.json") });
    assertEquals(added.vkdeno.length, 5);
    assertEquals(added.vkdeno[0], tree.path("added_lvp.json"));
    const twice = await compare({ VK_ADD_DRIVER_FILES: LVP });
    // The Khronos loader parsed lvp twice; vkdeno uses it once, first, from VK_ADD_DRIVER_FILES.
    assertEquals(twice.loader.parsed.filter((p) => p === LVP).length, 2);
    assertEquals(twice.vkdeno.filter((p) => p === LVP).length, 1);
    assertEquals(twice.vkdeno[0], LVP);
  },
});

Deno.test({
  name: "same drivers as the Khronos loader: VK_LOADER_DRIVERS_SELECT=*lvp*",
  ignore,
  fn: async () => {
    const { vkdeno, loader } = await compare({ VK_LOADER_DRIVERS_SELECT: "*lvp*" });
    assertEquals(vkdeno, [LVP]);
    assertEquals(loader.ignored.length, 3);
  },
});

Deno.test({
  name: "same drivers as the Khronos loader: VK_LOADER_DRIVERS_DISABLE=*lvp*",
  ignore,
  fn: async () => {
    const { vkdeno, loader } = await compare({ VK_LOADER_DRIVERS_DISABLE: "*lvp*" });
    assertEquals(vkdeno.length, 3);
    assertEquals(loader.ignored, [mesaManifestName("lvp")]);
  },
});

Deno.test({
  name: "same drivers as the Khronos loader: disabled ~all~ but selected *lvp* keeps lvp",
  ignore,
  fn: async () => {
    const { vkdeno } = await compare({
      VK_LOADER_DRIVERS_DISABLE: "~all~",
      VK_LOADER_DRIVERS_SELECT: "*LVP*",
    });
    assertEquals(vkdeno, [LVP]);
  },
});

Deno.test({
  name:
    "same drivers as the Khronos loader: XDG_DATA_DIRS with a .json entry and a folder, plus broken manifests",
  ignore,
  fn: async () => {
    using tree = new TempTree({
      "share/vulkan/icd.d/mine.json": driverManifest(LAVAPIPE_LIBRARY),
      "share/vulkan/icd.d/broken.json": '{"file_format_version": "1.0.0"}',
      "share/vulkan/icd.d/variant.json": driverManifest("libx.so", { api: "1.1.3.0" }),
      "direct.json": driverManifest(LAVAPIPE_LIBRARY),
    });
    const { vkdeno } = await compare({ XDG_DATA_DIRS: `${tree.path("direct.json")}:${tree.path("share")}` });
    assertEquals(vkdeno.filter((p) => p.startsWith(tree.root)), [
      tree.path("direct.json"),
      tree.path("share/vulkan/icd.d/mine.json"),
    ]);
  },
});
