/**
 * Property tests over what users type into the environment: driver and layer
 * filter globs, path lists, physical-device id filters, and mixed sets of
 * driver and layer manifests. Whatever the values, nothing throws and every
 * input is accounted for (used, or skipped with a reason); where the rule is
 * simple enough, the result also matches a model of the rule.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import fc from "fast-check";
import { discoverDrivers } from "../../discovery/drivers.ts";
import { discoverLayers } from "../../discovery/layers.ts";
import { activateLayers } from "../../discovery/layer_activation.ts";
import { parseManifestText } from "../../discovery/manifest_file.ts";
import { parseLayerManifest } from "../../discovery/layer_manifest.ts";
import { orderPhysicalDevices } from "../../chain/order/devices.ts";
import type { DeviceRecord } from "../../chain/order/sort.ts";
import { readDevicePolicy } from "../../discovery/device_selection.ts";
import { goodDriverManifest, goodLayerManifest } from "../support/reliability_manifests.ts";
import { asHandle } from "../../vk/handle.ts";

/** Counts for the README (printed at the end). */
const counted = {
  driverFilterRuns: 0,
  layerFilterRuns: 0,
  pathListRuns: 0,
  idFilterRuns: 0,
  layerManifests: 0,
  mixedSets: 0,
  mixedManifests: 0,
};

function makeTree(): string {
  const dir = Deno.makeTempDirSync({ prefix: "vkdeno_prop_" });
  Deno.mkdirSync(`${dir}/root`);
  return dir;
}

// ---------------------------------------------------------------------------------------------- globs

const DRIVER_FILES = [
  "lvp_icd.x86_64.json",
  "Nvidia_ICD.json",
  "radeon_icd.x86_64.json",
  "intel_icd.json",
  "\u{1F30B}.json",
  "mock-a.json",
];

/** The glob rule of docs/behaviour.md D07, for tokens made by `cleanToken`. */
function globMatches(token: string, name: string): boolean {
  const t = token.toLowerCase();
  const n = name.toLowerCase();
  if (t === "*" || t === "**" || t === "~all~") return true;
  const starts = t.startsWith("*");
  const ends = t.endsWith("*") && t.length > 1;
  const core = t.slice(starts ? 1 : 0, ends ? -1 : undefined);
  if (starts && ends) return n.includes(core);
  if (starts) return n.endsWith(core);
  if (ends) return n.startsWith(core);
  return n === t;
}

function randomCase(text: string, seed: number): string {
  return [...text].map((c, i) => ((seed >> (i % 30)) & 1 ? c.toUpperCase() : c)).join("");
}

/** A glob built from one of `names`: exact, prefix*, *suffix, *substring*, or match-all; now and then with a blank. */
function cleanToken(names: readonly string[]) {
  return fc.tuple(
    fc.constantFrom(...names),
    fc.constantFrom("exact", "prefix", "suffix", "substring", "all"),
    fc.nat(),
    fc.nat(),
    fc.nat(),
  ).map(([name, kind, a, b, seed]) => {
    const chars = [...name];
    const i = a % chars.length;
    const j = i + 1 + (b % (chars.length - i));
    const slice = chars.slice(i, j).join("").replace(/[*,~\s]/g, "") || "x";
    const token = kind === "exact"
      ? name
      : kind === "prefix"
      ? `${chars.slice(0, j).join("")}*`
      : kind === "suffix"
      ? `*${chars.slice(i).join("")}`
      : kind === "substring"
      ? `*${slice}*`
      : ["*", "**", "~all~"][seed % 3]!;
    // A blank before or after is part of the glob (D07): such a token matches no name here.
    const pad = (seed >> 3) % 8;
    return (pad === 0 ? " " : "") + randomCase(token, seed) + (pad === 1 ? " " : "");
  }).filter((t) => !t.includes(",") && t.length > 0 && !/^\*+$/.test(t.replace(/^\*|\*$/g, "")));
}

/** Anything at all, commas and whitespace and odd characters included. */
const wildValue = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.array(fc.constantFrom("*", "**", "~all~", "~implicit~", "~explicit~", "", " ", ",", "a*b", "*.json*"), {
    maxLength: 20,
  }).map((l) => l.join(",")),
  fc.constant("x".repeat(300)),
  fc.constant(Array.from({ length: 40 }, (_, i) => `f${i}`).join(",")),
);

Deno.test("property: driver select/disable globs, model-checked on clean globs and never thrown on any value (3,000 runs)", () => {
  const dir = makeTree();
  try {
    Deno.mkdirSync(`${dir}/m`);
    for (const name of DRIVER_FILES) {
      Deno.writeTextFileSync(`${dir}/m/${name}`, goodDriverManifest(`/opt/${name}.so`));
    }
    const clean = fc.option(fc.array(cleanToken(DRIVER_FILES), { minLength: 1, maxLength: 16 }), {
      nil: undefined,
    });
    fc.assert(
      fc.property(clean, clean, (select, disable) => {
        counted.driverFilterRuns++;
        const vars: Record<string, string> = { VK_DRIVER_FILES: `${dir}/m` };
        if (select) vars["VK_LOADER_DRIVERS_SELECT"] = select.join(",");
        if (disable) vars["VK_LOADER_DRIVERS_DISABLE"] = disable.join(",");
        const found = discoverDrivers({ vars, elevated: false, root: `${dir}/root` });
        const kept = DRIVER_FILES.filter((name) => {
          const selected = select?.some((t) => globMatches(t, name)) ?? false;
          if (select && !selected) return false;
          return !(disable?.some((t) => globMatches(t, name)) && !selected);
        });
        assertEquals(found.drivers.map((d) => d.fileName).sort(), [...kept].sort());
        assertEquals(found.candidates.length, DRIVER_FILES.length);
        for (const c of found.candidates) {
          if (c.status === "skipped") assert(c.skip === "not_selected" || c.skip === "disabled", c.reason);
        }
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(wildValue, wildValue, (select, disable) => {
        counted.driverFilterRuns++;
        const found = discoverDrivers({
          vars: {
            VK_DRIVER_FILES: `${dir}/m`,
            VK_LOADER_DRIVERS_SELECT: select,
            VK_LOADER_DRIVERS_DISABLE: disable,
          },
          elevated: false,
          root: `${dir}/root`,
        });
        assertEquals(found.candidates.length, DRIVER_FILES.length);
        for (const c of found.candidates) assert(c.status === "used" || (c.reason ?? "").length > 0);
        assertEquals(found.drivers.length, found.candidates.filter((c) => c.status === "used").length);
      }),
      { numRuns: 1000 },
    );
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

const LAYER_NAMES = [
  "VK_LAYER_KHRONOS_validation",
  "VK_LAYER_MESA_overlay",
  "VK_LAYER_LUNARG_api_dump",
  "VK_LAYER_mock_A",
  "VK_LAYER_implicit_B",
];

Deno.test("property: layer enable/disable/allow globs and VK_INSTANCE_LAYERS never throw; chains hold only discovered layers, once (2,000 runs)", () => {
  const dir = makeTree();
  try {
    Deno.mkdirSync(`${dir}/explicit`);
    Deno.mkdirSync(`${dir}/implicit`);
    for (const name of LAYER_NAMES) {
      const implicit = name.includes("implicit");
      const text = implicit
        ? JSON.stringify({
          file_format_version: "1.2.0",
          layer: {
            ...JSON.parse(goodLayerManifest(name, `/opt/${name}.so`)).layer,
            disable_environment: { DISABLE_B: "1" },
          },
        })
        : goodLayerManifest(name, `/opt/${name}.so`);
      Deno.writeTextFileSync(`${dir}/${implicit ? "implicit" : "explicit"}/${name}.json`, text);
    }
    const value = fc.oneof(
      fc.array(cleanToken(LAYER_NAMES), { maxLength: 18 }).map((l) => l.join(",")),
      wildValue,
    );
    const instanceLayers = fc.oneof(
      fc.array(fc.constantFrom(...LAYER_NAMES, "VK_LAYER_absent", ""), { maxLength: 8 }).map((l) =>
        l.join(":")
      ),
      fc.string({ maxLength: 30 }),
    );
    const requested = fc.array(fc.constantFrom(...LAYER_NAMES, "VK_LAYER_absent"), { maxLength: 4 });
    fc.assert(
      fc.property(
        fc.option(value, { nil: undefined }),
        fc.option(value, { nil: undefined }),
        fc.option(value, { nil: undefined }),
        fc.option(instanceLayers, { nil: undefined }),
        requested,
        fc.boolean(),
        (enable, disable, allow, envLayers, apps, disableB) => {
          counted.layerFilterRuns++;
          const vars: Record<string, string> = {
            VK_LAYER_PATH: `${dir}/explicit`,
            VK_IMPLICIT_LAYER_PATH: `${dir}/implicit`,
          };
          if (enable !== undefined) vars["VK_LOADER_LAYERS_ENABLE"] = enable;
          if (disable !== undefined) vars["VK_LOADER_LAYERS_DISABLE"] = disable;
          if (allow !== undefined) vars["VK_LOADER_LAYERS_ALLOW"] = allow;
          if (envLayers !== undefined) vars["VK_INSTANCE_LAYERS"] = envLayers;
          if (disableB) vars["DISABLE_B"] = "1";
          const env = { vars, elevated: false, root: `${dir}/root` };
          const discovery = discoverLayers(env, { cache: false });
          for (const c of discovery.candidates) assert(c.reason.length > 0);
          assertEquals(new Set(discovery.layers.map((l) => l.name)).size, discovery.layers.length);
          const known = new Set(discovery.layers.map((l) => l.name));
          const r = activateLayers(env, discovery, { requestedLayers: apps });
          if (r.ok) {
            const names = r.layers.map((a) => a.layer.name);
            assertEquals(new Set(names).size, names.length, `duplicate in chain ${names}`);
            for (const n of names) assert(known.has(n), `${n} in the chain but not discovered`);
            for (const n of apps) assert(names.includes(n), `requested ${n} missing from chain`);
          } else {
            assertEquals(r.result, "VK_ERROR_LAYER_NOT_PRESENT");
            assert(!known.has(r.layerName) && apps.includes(r.layerName), r.message);
          }
        },
      ),
      { numRuns: 2000 },
    );
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

// ------------------------------------------------------------------------------------------ path lists

Deno.test("property: driver path lists of folders, files, junk, duplicates and odd entries find exactly the valid manifests they reach (2,000 runs)", () => {
  const dir = makeTree();
  try {
    const valid = (lib: string) => goodDriverManifest(`/opt/${lib}.so`);
    const files: Record<string, string> = {
      "a/one.json": valid("one"),
      "a/two.json": valid("two"),
      "b/three.json": valid("three"),
      "b/garbage.json": "{ not json",
      "b/readme.txt": valid("txt"),
      "f/single.json": valid("single"),
      "f/bad.json": JSON.stringify({ file_format_version: "1.0.1" }),
    };
    Deno.mkdirSync(`${dir}/e`);
    for (const [rel, text] of Object.entries(files)) {
      Deno.mkdirSync(`${dir}/${rel.slice(0, rel.lastIndexOf("/"))}`, { recursive: true });
      Deno.writeTextFileSync(`${dir}/${rel}`, text);
    }
    const reaches: Record<string, string[]> = {
      [`${dir}/a`]: ["a/one.json", "a/two.json"],
      [`${dir}/a/`]: ["a/one.json", "a/two.json"],
      [`${dir}//a`]: ["a/one.json", "a/two.json"],
      "a": ["a/one.json", "a/two.json"], // relative to the snapshot's cwd
      [`${dir}/b`]: ["b/three.json"],
      [`${dir}/e`]: [],
      [`${dir}/f/single.json`]: ["f/single.json"],
      "f/single.json": ["f/single.json"],
      [`${dir}/f/bad.json`]: [],
      [`${dir}/b/readme.txt`]: [],
      [`${dir}/nonexistent`]: [],
      [`${dir}/nonexistent.json`]: [],
      "": [],
      "\0": [],
      [`${dir}/a\0b`]: [],
      ["/" + "long/".repeat(1000)]: [],
      "~": [],
      ".": [],
    };
    const entry = fc.constantFrom(...Object.keys(reaches));
    fc.assert(
      fc.property(
        fc.array(entry, { maxLength: 10 }),
        fc.constantFrom("VK_DRIVER_FILES", "VK_ICD_FILENAMES", "VK_ADD_DRIVER_FILES"),
        (entries, variable) => {
          counted.pathListRuns++;
          const found = discoverDrivers({
            vars: { [variable]: entries.join(":"), HOME: `${dir}/home` },
            elevated: false,
            root: `${dir}/root`,
            cwd: dir,
          });
          const want = new Set(
            entries.flatMap((e) => reaches[e]!).map((r) => Deno.realPathSync(`${dir}/${r}`)),
          );
          const got = found.drivers.map((d) => Deno.realPathSync(d.manifestPath));
          assertEquals(new Set(got), want);
          assertEquals(got.length, want.size, `a manifest was used twice: ${got}`);
          for (const c of found.candidates) assert(c.status === "used" || (c.reason ?? "").length > 0);
        },
      ),
      { numRuns: 2000 },
    );
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("property: any text in any discovery variable never throws (2,000 runs)", () => {
  const variables = [
    "VK_DRIVER_FILES",
    "VK_ICD_FILENAMES",
    "VK_ADD_DRIVER_FILES",
    "VK_LOADER_DRIVER_PACKAGES",
    "XDG_CONFIG_HOME",
    "XDG_CONFIG_DIRS",
    "XDG_DATA_HOME",
    "XDG_DATA_DIRS",
    "HOME",
    "VK_LAYER_PATH",
    "VK_ADD_LAYER_PATH",
    "VK_IMPLICIT_LAYER_PATH",
    "VK_ADD_IMPLICIT_LAYER_PATH",
    "VK_INSTANCE_LAYERS",
  ];
  fc.assert(
    fc.property(
      fc.dictionary(fc.constantFrom(...variables), fc.oneof(fc.string({ maxLength: 60 }), wildValue)),
      fc.boolean(),
      (vars, elevated) => {
        counted.pathListRuns++;
        const env = { vars, elevated, root: "/nonexistent-vkdeno-root" };
        const drivers = discoverDrivers(env);
        for (const c of drivers.candidates) assert(c.status === "used" || (c.reason ?? "").length > 0);
        const layers = discoverLayers(env, { cache: false });
        activateLayers(env, layers);
      },
    ),
    { numRuns: 2000 },
  );
});

// ------------------------------------------------------------------------------------------ id filters

Deno.test("property: device id filters, select and disable-select: every device kept or removed with a reason, as the filters say (3,000 runs)", () => {
  const id = fc.oneof(fc.integer({ min: 0, max: 0xffff }), fc.constantFrom(0x10de, 0x1002, 0x8086, 0x10005));
  const device = fc.record({
    vendorID: id,
    deviceID: id,
    deviceType: fc.integer({ min: 0, max: 6 }),
    driverID: fc.option(fc.integer({ min: 1, max: 30 }), { nil: undefined }),
    pciBus: fc.option(
      fc.record({
        domain: fc.nat(0xffff),
        bus: fc.nat(0xff),
        device: fc.nat(0x1f),
        function: fc.nat(7),
      }),
      { nil: undefined },
    ),
  }).map((d): DeviceRecord => ({ ...d, name: `dev ${d.vendorID.toString(16)}:${d.deviceID.toString(16)}` }));
  const filterText = fc.oneof(
    fc.array(
      fc.oneof(
        id.map(String),
        id.map((n) => `0x${n.toString(16)}`),
        fc.tuple(id, id).map(([a, b]) => `${a}-${b}`),
        fc.tuple(id, id).map(([a, b]) => `0x${a.toString(16)}:0x${b.toString(16)}`),
      ),
      { minLength: 1, maxLength: 20 },
    ).map((l) => l.join(",")),
    wildValue,
  );
  fc.assert(
    fc.property(
      fc.array(device, { maxLength: 8 }),
      fc.record({
        VK_LOADER_DEVICE_ID_FILTER: filterText,
        VK_LOADER_VENDOR_ID_FILTER: filterText,
        VK_LOADER_DRIVER_ID_FILTER: filterText,
        VK_LOADER_DEVICE_SELECT: fc.oneof(
          fc.tuple(id, id).map(([v, d]) => `${v.toString(16)}:${d.toString(16)}`),
          fc.string({ maxLength: 12 }),
        ),
        VK_LOADER_DISABLE_SELECT: fc.oneof(
          fc.constantFrom("0", "1", "", "x", "-1", "99999999999"),
          fc.string(),
        ),
      }, { requiredKeys: [] }),
      fc.boolean(),
      (devices, vars, canSort) => {
        counted.idFilterRuns++;
        const policy = readDevicePolicy({ vars, elevated: false });
        const order = orderPhysicalDevices(devices, policy, { canSort });
        const kept = order.devices.map((p) => p.device);
        const removed = order.removed.map((r) => r.device);
        assertEquals(kept.length + removed.length, devices.length);
        for (const d of devices) assert(kept.includes(d) || removed.includes(d));
        for (const r of order.removed) assert(r.why.length > 0);
        const inRanges = (f: typeof policy.deviceIdFilter, value: number | undefined) =>
          f === undefined ||
          (value !== undefined && f.ranges.some((r) => r.first <= value && value <= r.last));
        for (const d of devices) {
          const passes = inRanges(policy.deviceIdFilter, d.deviceID) &&
            inRanges(policy.vendorIdFilter, d.vendorID) &&
            inRanges(policy.driverIdFilter, d.driverID);
          assertEquals(kept.includes(d), passes, `${d.name} kept=${kept.includes(d)} passes=${passes}`);
        }
        if (!order.sorted) {
          // unsorted: the input order of the kept devices is preserved
          const indexes = kept.map((d) => devices.indexOf(d));
          assertEquals(indexes, [...indexes].sort((a, b) => a - b));
        }
      },
    ),
    { numRuns: 3000 },
  );
});

// --------------------------------------------------------------------------------------- layer manifests

const layerBase = JSON.parse(goodLayerManifest("VK_LAYER_fuzz", "libfuzz.so")) as {
  file_format_version: string;
  layer: Record<string, unknown>;
};
const LAYER_FIELDS = [
  "name",
  "type",
  "library_path",
  "api_version",
  "implementation_version",
  "description",
  "functions",
  "instance_extensions",
  "device_extensions",
  "enable_environment",
  "disable_environment",
  "component_layers",
  "pre_instance_functions",
  "override_paths",
  "blacklisted_layers",
  "app_keys",
  "library_arch",
];

Deno.test("property: 10,000 generated and damaged layer manifests parse to layers or skips with reasons, never a throw", () => {
  const mutated = fc.tuple(
    fc.array(
      fc.tuple(fc.constantFrom(...LAYER_FIELDS), fc.oneof(fc.anything(), fc.string(), fc.constant(null))),
      {
        maxLength: 4,
      },
    ),
    fc.constantFrom("1.0.0", "1.1.2", "1.2.0", "1.2.1", "2.0.0", "x", ""),
    fc.constantFrom("layer", "layers", "ICD", "other"),
    fc.boolean(),
  ).map(([edits, version, key, implicit]) => {
    const layer: Record<string, unknown> = { ...layerBase.layer };
    for (const [field, value] of edits) layer[field] = value;
    return {
      value: { file_format_version: version, [key]: key === "layers" ? [layer, layer] : layer },
      implicit,
    };
  });
  const text = fc.oneof(
    mutated.map((m) => ({ text: JSON.stringify(m.value), implicit: m.implicit })),
    fc.tuple(fc.jsonValue(), fc.boolean()).map(([v, implicit]) => ({ text: JSON.stringify(v), implicit })),
    fc.tuple(fc.string({ maxLength: 200 }), fc.boolean()).map(([t, implicit]) => ({ text: t, implicit })),
  );
  fc.assert(
    fc.property(text, ({ text, implicit }) => {
      counted.layerManifests++;
      const file = parseManifestText(text, "/opt/layers/fuzz.json");
      if (!file.ok) {
        assert(file.reason.length > 0);
        return;
      }
      const r = parseLayerManifest(file.value, {
        manifestPath: "/opt/layers/fuzz.json",
        implicit,
        members: file.members,
      });
      for (const s of r.skipped) assert(s.reason.length > 0);
      for (const l of r.layers) {
        assert(typeof l.name === "string" && l.name.length > 0 && l.name.length < 256);
        assert(l.implicit === implicit);
      }
      if (r.layers.length === 0) assert(r.skipped.length > 0 || r.messages.length > 0, text);
    }),
    { numRuns: 10_000 },
  );
});

// ------------------------------------------------------------------------------------------ mixed sets

Deno.test("property: mixed sets of good and bad driver and layer manifests are each accounted for once (400 trees)", () => {
  const driverKind = fc.constantFrom(
    "good",
    "garbage",
    "no_icd",
    "no_library",
    "layer_in_icd_dir",
    "folder",
  );
  const layerKind = fc.constantFrom(
    "good",
    "garbage",
    "meta_ok",
    "meta_missing",
    "device_type",
    "dup_name",
    "implicit_no_disable",
  );
  fc.assert(
    fc.property(
      fc.array(driverKind, { maxLength: 8 }),
      fc.array(layerKind, { maxLength: 8 }),
      (drivers, layers) => {
        counted.mixedSets++;
        counted.mixedManifests += drivers.length + layers.length;
        const dir = makeTree();
        try {
          Deno.mkdirSync(`${dir}/d`);
          Deno.mkdirSync(`${dir}/l`);
          let goodDrivers = 0;
          drivers.forEach((kind, i) => {
            const path = `${dir}/d/drv${i}.json`;
            if (kind === "good") {
              goodDrivers++;
              Deno.writeTextFileSync(path, goodDriverManifest(`/opt/drv${i}.so`));
            } else if (kind === "garbage") Deno.writeTextFileSync(path, "\u0000garbage");
            else if (kind === "no_icd") {
              Deno.writeTextFileSync(path, JSON.stringify({ file_format_version: "1.0.0" }));
            } else if (kind === "no_library") {
              Deno.writeTextFileSync(path, goodDriverManifest("").replace('"library_path": "",', ""));
            } else if (kind === "layer_in_icd_dir") {
              Deno.writeTextFileSync(path, goodLayerManifest(`VK_LAYER_x${i}`, "/x.so"));
            } else Deno.mkdirSync(path);
          });
          layers.forEach((kind, i) => {
            const path = `${dir}/l/layer${i}.json`;
            const good = JSON.parse(goodLayerManifest(`VK_LAYER_l${i}`, `/opt/l${i}.so`));
            if (kind === "good") Deno.writeTextFileSync(path, JSON.stringify(good));
            else if (kind === "garbage") Deno.writeTextFileSync(path, "[[[");
            else if (kind === "meta_ok" || kind === "meta_missing") {
              const { library_path: _drop, ...rest } = good.layer;
              Deno.writeTextFileSync(
                path,
                JSON.stringify({
                  file_format_version: "1.2.0",
                  layer: {
                    ...rest,
                    component_layers: [kind === "meta_ok" ? `VK_LAYER_l${i}_part` : "VK_LAYER_nowhere"],
                  },
                }),
              );
              if (kind === "meta_ok") {
                Deno.writeTextFileSync(
                  `${dir}/l/layer${i}_part.json`,
                  goodLayerManifest(`VK_LAYER_l${i}_part`, "/p.so"),
                );
              }
            } else if (kind === "device_type") {
              Deno.writeTextFileSync(
                path,
                JSON.stringify({ ...good, layer: { ...good.layer, type: "DEVICE" } }),
              );
            } else if (kind === "dup_name") {
              Deno.writeTextFileSync(path, goodLayerManifest("VK_LAYER_dup", "/dup.so"));
            } else {
              Deno.writeTextFileSync(`${dir}/l/implicit${i}.json`, JSON.stringify(good));
            }
          });
          const env = {
            vars: {
              VK_DRIVER_FILES: `${dir}/d`,
              VK_LAYER_PATH: `${dir}/l`,
              VK_IMPLICIT_LAYER_PATH: `${dir}/l`,
            },
            elevated: false,
            root: `${dir}/root`,
          };
          const found = discoverDrivers(env);
          assertEquals(found.drivers.length, goodDrivers);
          assertEquals(found.candidates.length, drivers.length);
          for (const c of found.candidates) assert(c.status === "used" || (c.reason ?? "").length > 0);
          const discovery = discoverLayers(env, { cache: false });
          const files = new Set([...Deno.readDirSync(`${dir}/l`)].map((e) => `${dir}/l/${e.name}`));
          const seen = new Set(discovery.candidates.map((c) => c.manifestPath));
          for (const f of files) assert(seen.has(f), `${f} not accounted for`);
          for (const c of discovery.candidates) assert(c.reason.length > 0);
          const r = activateLayers(env, discovery, { requestedLayers: discovery.layers.map((l) => l.name) });
          assert(r.ok, r.ok ? "" : r.message);
        } finally {
          Deno.removeSync(dir, { recursive: true });
        }
      },
    ),
    { numRuns: 400 },
  );
});

// ------------------------------------------------------------------------- mixed sets through the loader

Deno.test("property: mixed sets of good and faulty mock drivers and layers through vkdeno: a result code, never a throw; devices and messages as the parts say (200 sets)", async () => {
  const { MockEnvironment } = await import("../support/mock.ts");
  const { Logger, Vulkan } = await import("../../mod.ts");
  const { Arena } = await import("../../ffi/memory.ts");
  const { writeStruct } = await import("../../api/structs.ts");
  const { loadCounters, resourceCounts } = await import("../support/reliability_soak.ts");
  await loadCounters();
  type DriverKind =
    | "good7"
    | "good5"
    | "good1"
    | "two_devices"
    | "zero"
    | "nego_fails"
    | "ci_fails"
    | "enum_fails"
    | "missing";
  type LayerKind = "pass" | "implicit" | "chain_error" | "missing";
  const drivers = fc.array(
    fc.constantFrom<DriverKind>(
      "good7",
      "good5",
      "good1",
      "two_devices",
      "zero",
      "nego_fails",
      "ci_fails",
      "enum_fails",
      "missing",
    ),
    { minLength: 1, maxLength: 4 },
  );
  const layers = fc.array(fc.constantFrom<LayerKind>("pass", "implicit", "chain_error", "missing"), {
    maxLength: 3,
  });
  const sets = fc.sample(fc.tuple(drivers, layers), { numRuns: 200, seed: 11 });
  const devicesOf: Record<DriverKind, number> = {
    good7: 1,
    good5: 1,
    good1: 1,
    two_devices: 2,
    zero: 0,
    nego_fails: 0,
    ci_fails: 0,
    enum_fails: 0,
    missing: 0,
  };
  const faulty = new Set<DriverKind>(["nego_fails", "ci_fails", "enum_fails", "missing"]);
  const before = resourceCounts();
  for (const [driverKinds, layerKinds] of sets) {
    counted.mixedSets++;
    counted.mixedManifests += driverKinds.length + layerKinds.length;
    await using env = await MockEnvironment.create();
    const names: string[] = [];
    for (const [i, kind] of driverKinds.entries()) {
      const name = `d${i}_${kind}`;
      names.push(name);
      const devices = kind === "two_devices" ? [{}, { type: "cpu" as const }] : kind === "zero" ? [] : [{}];
      const config = {
        name,
        physicalDevices: devices,
        interfaceVersion: kind === "good5" ? 5 : kind === "good1" ? 1 : 7,
        negotiateResult: kind === "nego_fails" ? -9 : undefined,
        createInstanceResult: kind === "ci_fails" ? -3 : undefined,
        enumeratePhysicalDevicesResult: kind === "enum_fails" ? -3 : undefined,
      };
      await env.addDriver(
        config,
        kind === "missing" ? { manifest: { libraryPath: env.path(`lib/none/lib${name}.so`) } } : {},
      );
    }
    const enabled: string[] = [];
    for (const [i, kind] of layerKinds.entries()) {
      const name = `VK_LAYER_MOCK_${kind}${i}`;
      if (kind === "implicit") {
        await env.addLayer({ name }, { implicit: true });
        continue;
      }
      await env.addLayer(
        { name, createInstanceResult: kind === "chain_error" ? -3 : undefined },
        kind === "missing" ? { manifest: { libraryPath: env.path(`lib/none/lib${name}.so`) } } : {},
      );
      enabled.push(name);
    }
    const snapshot = env.snapshot(enabled.length ? { VK_INSTANCE_LAYERS: enabled.join(":") } : {});
    const log: string[] = [];
    const logger = new Logger(snapshot, { write: () => {} });
    logger.addSink((r) => {
      if (r.level !== undefined && r.level !== "debug") log.push(r.text);
    });
    const what = `drivers [${driverKinds}] layers [${layerKinds}]`;
    {
      using vk = Vulkan.load({ env: snapshot, logger });
      using arena = new Arena();
      const slot = new BigUint64Array(new ArrayBuffer(8));
      const created = vk.vkCreateInstance(
        writeStruct(arena, "VkInstanceCreateInfo", {}),
        null,
        Deno.UnsafePointer.of(slot),
      );
      assert(typeof created === "number" && created <= 0, `${what}: vkCreateInstance gave ${created}`);
      // drivers that get an instance (enumeration may still fail for enum_fails)
      const usable = driverKinds.filter((k) =>
        k !== "nego_fails" && k !== "ci_fails" && k !== "missing"
      ).length;
      if (usable === 0) {
        assert(created < 0, `${what}: vkCreateInstance gave ${created} with no usable driver`);
      } else if (layerKinds.includes("chain_error")) assertEquals(created, -3, what);
      if (created === 0) {
        const instance = asHandle("VkInstance", Deno.UnsafePointer.create(slot[0]!))!;
        const count = new Uint32Array(new ArrayBuffer(4));
        const r = vk.vkEnumeratePhysicalDevices(
          instance,
          Deno.UnsafePointer.of(count),
          null,
        );
        const want = driverKinds.reduce((n, k) => n + devicesOf[k], 0);
        if (want === 0) assert(r < 0, `${what}: vkEnumeratePhysicalDevices gave ${r} with no device`);
        else assertEquals([r, count[0]], [0, want], what);
        vk.vkDestroyInstance(instance, null);
      }
    }
    // every faulty driver is named in a message once instance creation reached it
    if (!layerKinds.includes("chain_error")) {
      for (const [i, kind] of driverKinds.entries()) {
        if (!faulty.has(kind) || (kind === "enum_fails" && log.length === 0)) continue;
        assert(
          log.some((l) => l.includes(`${names[i]}.json`)),
          `${what}: nothing names ${names[i]}.json in\n${log.join("\n")}`,
        );
      }
    }
  }
  const after = resourceCounts();
  assertEquals(
    [after.callbacks, after.drivers, after.layerLibraries, after.tables],
    [before.callbacks, before.drivers, before.layerLibraries, before.tables],
  );
});

Deno.test("property: counts", () => {
  // Printed for BENCHMARKS.md / README (the reliability section's "manifests fuzzed" row).
  console.log(`property counts: ${JSON.stringify(counted)}`);
  assert(counted.layerManifests === 0 || counted.layerManifests >= 10_000);
});
