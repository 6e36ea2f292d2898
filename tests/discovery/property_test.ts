/**
 * Property tests: whatever the manifests hold, discovery never throws and
 * accounts for every file as used, or skipped with a reason.
 *
 * Most cases go through the same two functions discovery uses for every file
 * (`parseManifestText` then `parseDriverManifest`) in memory; a few hundred
 * are written as real files next to the awkward ones (folders named `*.json`,
 * unreadable files, symlink loops, a FIFO, invalid UTF-8, an oversized file)
 * and run through `discoverDrivers`.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import fc from "fast-check";
import { parseManifestText } from "../../discovery/manifest_file.ts";
import { parseDriverManifest } from "../../discovery/driver_manifest.ts";
import { discoverDrivers } from "../../discovery/drivers.ts";
import { driverManifest, TempTree } from "../support/discovery_tree.ts";

const PATH = "/opt/icd.d/fuzz.json";
const encoder = new TextEncoder();

/** The two steps discovery applies to a file's bytes; must never throw. */
function check(bytes: Uint8Array | string): { ok: boolean; reason?: string } {
  const file = parseManifestText(bytes, PATH);
  if (!file.ok) return { ok: false, reason: file.reason };
  const parsed = parseDriverManifest(file.value, PATH);
  if (!parsed.ok) return { ok: false, reason: parsed.reason };
  const m = parsed.manifest;
  assert(typeof m.libraryPath === "string" && m.libraryPath.length > 0);
  assert(Number.isInteger(m.apiVersion) && m.apiVersion >= 0 && m.apiVersion <= 0xffffffff);
  assert(m.apiVersion >>> 29 === 0, "a non-Vulkan variant was accepted");
  assert(typeof m.isPortabilityDriver === "boolean");
  assert(m.libraryArch === undefined || m.libraryArch === "32" || m.libraryArch === "64");
  return { ok: true };
}

function accounted(bytes: Uint8Array | string): void {
  const r = check(bytes);
  assert(r.ok || (typeof r.reason === "string" && r.reason.length > 0), "a skip without a reason");
}

const validValue = {
  file_format_version: "1.0.1",
  ICD: { library_path: "libx.so", api_version: "1.3.0", library_arch: "64", is_portability_driver: false },
};

/** A valid manifest with one field (or the whole ICD object) replaced by anything. */
const fieldMutation = fc.tuple(
  fc.constantFrom(
    "file_format_version",
    "ICD",
    "library_path",
    "api_version",
    "library_arch",
    "is_portability_driver",
  ),
  fc.oneof(
    fc.anything(),
    fc.string(),
    fc.constantFrom("", "1.0", "1.0.0.0", "7.127.1023.4095", "1.2.3.4.5", "64", "32"),
  ),
).map(([field, value]) => {
  const copy = structuredClone(validValue) as Record<string, unknown>;
  if (field === "file_format_version" || field === "ICD") copy[field] = value;
  else (copy["ICD"] as Record<string, unknown>)[field] = value;
  return JSON.stringify(copy);
});

/** Byte-level damage to a valid manifest: flips, cuts, insertions. */
const byteMutation = fc.tuple(
  fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 }), fc.constantFrom("set", "cut", "insert")), {
    minLength: 1,
    maxLength: 8,
  }),
).map(([edits]) => {
  let bytes = Array.from(encoder.encode(JSON.stringify(validValue, null, 2)));
  for (const [at, value, kind] of edits) {
    const i = bytes.length === 0 ? 0 : at % bytes.length;
    if (kind === "set") bytes[i] = value;
    else if (kind === "cut") bytes = bytes.slice(0, i);
    else bytes.splice(i, 0, value);
  }
  return new Uint8Array(bytes);
});

Deno.test("property: any JSON text is used or skipped with a reason (4,000 cases)", () => {
  fc.assert(fc.property(fc.json({ depthSize: "medium" }), (text) => accounted(text)), {
    numRuns: 2000,
    seed: 1,
  });
  fc.assert(
    fc.property(fc.anything({ withObjectString: true, withNullPrototype: true }), (value) => {
      const text = JSON.stringify(value);
      accounted(text === undefined ? "" : text);
      accounted(JSON.stringify({ file_format_version: "1.0.0", ICD: value }));
    }),
    { numRuns: 2000, seed: 2 },
  );
});

Deno.test("property: valid manifests with one field of any type (3,000 cases)", () => {
  fc.assert(fc.property(fieldMutation, (text) => accounted(text)), { numRuns: 3000, seed: 3 });
});

Deno.test("property: byte-damaged manifests and random bytes (3,000 cases)", () => {
  fc.assert(fc.property(byteMutation, (bytes) => accounted(bytes)), { numRuns: 2000, seed: 4 });
  fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => accounted(bytes)), {
    numRuns: 1000,
    seed: 5,
  });
});

Deno.test("property: huge strings, deep nesting, empty and odd texts are skipped or used, never thrown", () => {
  const huge = "x".repeat(3_000_000);
  const cases: (string | Uint8Array)[] = [
    "",
    " \n\t",
    "\uFEFF",
    JSON.stringify({ ...validValue, ICD: { ...validValue.ICD, library_path: huge } }),
    JSON.stringify({ file_format_version: huge, ICD: {} }),
    `{"a": "${"\\u0000".repeat(10000)}"}`,
    JSON.stringify({ ...validValue, ICD: { ...validValue.ICD, library_path: "lib\u0000x.so" } }),
    new Uint8Array([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00]),
    new Uint8Array([0x7b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x3a, 0x31, 0x7d]),
  ];
  for (const depth of [100, 1_000, 10_000, 100_000, 1_000_000]) {
    cases.push("[".repeat(depth) + "]".repeat(depth));
    cases.push('{"a":'.repeat(depth) + "1" + "}".repeat(depth));
    cases.push(
      JSON.stringify({ file_format_version: "1.0.0", ICD: { library_path: "l.so", api_version: "1.0.0" } })
        .replace("}}", `, "deep": ${"[".repeat(depth)}${"]".repeat(depth)}}}`),
    );
  }
  let used = 0;
  for (const c of cases) {
    const r = check(c);
    if (r.ok) used++;
    else assert((r.reason ?? "") !== "");
  }
  // The deep-but-valid manifests up to the parser's depth are used; nothing else is.
  assert(used >= 2, `only ${used} deep manifests were used`);
});

Deno.test("property: a few hundred real files, with folders, loops, FIFOs and unreadable files, are all accounted for", async () => {
  using tree = new TempTree();
  const dir = "usr/share/vulkan/icd.d";
  const samples = fc.sample(fc.oneof(fieldMutation, byteMutation, fc.json()), { numRuns: 300, seed: 6 });
  const entries: Record<string, string | Uint8Array> = {};
  samples.forEach((s, i) => entries[`${dir}/gen_${String(i).padStart(3, "0")}.json`] = s);
  entries[`${dir}/valid.json`] = driverManifest("libvalid.so");
  entries[`${dir}/empty.json`] = "";
  entries[`${dir}/latin1.json`] = new Uint8Array([0x7b, 0x22, 0xe9, 0x22, 0x3a, 0x31, 0x7d]);
  entries[`${dir}/big.json`] = " ".repeat(5 * 1024 * 1024) + "{}";
  entries[`${dir}/unreadable.json`] = driverManifest("libunreadable.so");
  entries[`${dir}/not_a_manifest.txt`] = "ignored: not .json";
  tree.add(entries);
  tree.add({
    [`${dir}/folder.json`]: { folder: true },
    [`${dir}/loop_a.json`]: { symlink: "loop_b.json" },
    [`${dir}/loop_b.json`]: { symlink: "loop_a.json" },
    [`${dir}/dangling.json`]: { symlink: "/nonexistent/x.json" },
    [`${dir}/self.json`]: { symlink: "self.json" },
  });
  Deno.chmodSync(tree.path(`${dir}/unreadable.json`), 0o000);
  const fifo = await new Deno.Command("mkfifo", { args: [tree.path(`${dir}/fifo.json`)] }).output();

  const found = discoverDrivers(tree.snapshot());
  const names = [...Deno.readDirSync(tree.path(dir))].map((e) => e.name).filter((n) => n.endsWith(".json"))
    .sort();
  assertEquals(
    found.candidates.map((c) => c.fileName).sort(),
    names,
    "every .json name is a candidate, once",
  );
  for (const c of found.candidates) {
    assert(c.status === "used" || (c.reason ?? "").length > 0, `${c.fileName} skipped without a reason`);
  }
  assertEquals(
    found.candidates.filter((c) => c.status === "used").map((c) => c.manifestPath),
    found.drivers.map((d) => d.manifestPath),
  );
  const reasonOf = (name: string) => found.candidates.find((c) => c.fileName === name)?.reason;
  assertEquals(found.candidates.find((c) => c.fileName === "valid.json")?.status, "used");
  assertEquals(reasonOf("empty.json"), "file is empty");
  assertEquals(reasonOf("latin1.json"), "file is not valid UTF-8 text (first bad byte at offset 2)");
  assertEquals(
    reasonOf("big.json"),
    "file is 5242882 bytes, larger than the 4194304-byte limit for manifests",
  );
  assertEquals(reasonOf("folder.json"), "is a folder, not a file");
  assertEquals(reasonOf("loop_a.json"), "file cannot be read: symbolic link loop");
  assertEquals(reasonOf("self.json"), "file cannot be read: symbolic link loop");
  assertEquals(reasonOf("dangling.json"), "file does not exist");
  if (fifo.success) assertEquals(reasonOf("fifo.json"), "is not a regular file");
  // chmod 000 stops other users only: root (tests usually run as root here) still reads the file.
  const unreadable = found.candidates.find((c) => c.fileName === "unreadable.json");
  if (Deno.uid() === 0) assertEquals(unreadable?.status, "used");
  else assertEquals(unreadable?.reason, "file cannot be read: permission denied");
  // And the same awkward paths named directly in VK_DRIVER_FILES.
  const direct = discoverDrivers({
    vars: {
      VK_DRIVER_FILES: ["folder.json", "loop_a.json", "missing.json", "fifo.json", "valid.json"]
        .map((n) => tree.path(`${dir}/${n}`)).join(":"),
    },
    elevated: false,
  });
  assertEquals(direct.drivers.map((d) => d.fileName), ["valid.json"]);
  assertEquals(direct.candidates.length, 5);
});
