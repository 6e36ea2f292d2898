import { deepStrictEqual as assertEquals, match as assertMatch, ok as assert } from "node:assert/strict";
import {
  formatVersion,
  parseManifestText,
  parseVersionString,
  readManifestFile,
} from "../../discovery/manifest_file.ts";
import { TempTree } from "../support/discovery_tree.ts";

function reason(text: string | Uint8Array): string {
  const r = parseManifestText(text, "t.json");
  return r.ok ? "ok" : r.reason;
}

Deno.test("plain JSON parses without warnings", () => {
  const r = parseManifestText('{"file_format_version": "1.0.0"}', "t.json");
  assertEquals(r.ok && [r.value, r.warnings], [{ file_format_version: "1.0.0" }, []]);
});

Deno.test("comments and trailing commas are accepted with a warning each", () => {
  const r = parseManifestText('{ /* a */ "a": [1, 2,], // b\n "b": 1, }', "t.json");
  assertEquals(r.ok, true);
  assertEquals(r.warnings, [
    "file has 2 comments, which the Khronos loader rejects",
    "file has 2 trailing commas, which the Khronos loader rejects",
  ]);
});

Deno.test("defects give a reason with line and column", () => {
  assertEquals(reason('{\n  "a": }'), "file is not valid JSON: value expected at line 2, column 8");
  assertEquals(reason(""), "file is empty");
  assertEquals(reason("  \n"), "file is empty");
  assertEquals(reason("[1]"), "file holds an array, expected a JSON object");
  assertEquals(reason("null"), "file holds null, expected a JSON object");
  assertEquals(reason('{"a": 1'), "file is not valid JSON: close brace expected at line 1, column 8");
});

Deno.test("text after the top-level object's closing brace is ignored with a warning (docs/behaviour.md M06)", () => {
  const r = parseManifestText('{"a": 1}\n} {} and a note', "t.json");
  assert(r.ok);
  assertEquals(r.value, { a: 1 });
  assertEquals(r.warnings, [
    "file has text after the closing brace of its top-level object (from line 1, column 9); it is ignored, " +
    "as the Khronos loader ignores it",
  ]);
});

Deno.test("invalid UTF-8 is refused with the offset of the bad byte", () => {
  assertEquals(
    reason(new Uint8Array([0x7b, 0x22, 0x61, 0xc3, 0x28, 0x22, 0x7d])),
    "file is not valid UTF-8 text (first bad byte at offset 3)",
  );
});

Deno.test("deep nesting is refused, not thrown", () => {
  assertMatch(reason("[".repeat(100000) + "]".repeat(100000)), /not valid JSON|holds an array/);
  assertEquals(reason('{"a":' + "[".repeat(200000)), "file is not valid JSON: nesting is too deep");
});

Deno.test("a byte order mark is dropped with a warning", () => {
  const r = parseManifestText(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]), "t.json");
  assertEquals([r.ok, r.warnings.length], [true, 1]);
});

Deno.test("file problems become reasons: missing, folder, too large, symlink loop", () => {
  using tree = new TempTree({
    "dir.json": { folder: true },
    "big.json": "{}" + " ".repeat(100),
    "loop_a.json": { symlink: "loop_b.json" },
    "loop_b.json": { symlink: "loop_a.json" },
    "dangling.json": { symlink: "nowhere.json" },
  });
  const read = (p: string, maxBytes?: number) => {
    const r = readManifestFile(tree.path(p), { maxBytes });
    return r.ok ? "ok" : r.reason;
  };
  assertEquals(read("missing.json"), "file does not exist");
  assertEquals(read("dir.json"), "is a folder, not a file");
  assertEquals(read("big.json", 10), "file is 102 bytes, larger than the 10-byte limit for manifests");
  assertEquals(read("big.json"), "ok");
  assertEquals(read("loop_a.json"), "file cannot be read: symbolic link loop");
  assertEquals(read("dangling.json"), "file does not exist");
});

Deno.test("version strings: three or four parts, packed like VK_MAKE_API_VERSION", () => {
  assertEquals(parseVersionString("1.3.230")?.packed, (1 << 22) | (3 << 12) | 230);
  assertEquals(parseVersionString("1.2")?.packed, (1 << 22) | (2 << 12));
  assertEquals(parseVersionString("1.1.0.0")?.variant, 1);
  assertEquals(formatVersion(parseVersionString("1.1.2.3")?.packed ?? 0), "1.1.2.3");
  for (const bad of ["", "1", "1.x.0", "1.0.0.0.0", "1.1024.0", "-1.0.0", "1.0.0 beta"]) {
    assertEquals(parseVersionString(bad), undefined, bad);
  }
});

Deno.test("a repeated key keeps its first value, as the Khronos loader does, with a warning", () => {
  const r = parseManifestText(
    '{"ICD": {"library_path": "a.so", "library_path": "b.so"}, "x": {"ICD": 1}}',
    "t.json",
  );
  assertEquals(r.ok && r.value, { ICD: { library_path: "a.so" }, x: { ICD: 1 } });
  assertEquals(r.warnings, [
    'file repeats member "library_path" in one object; the first value is used, as the Khronos loader does',
  ]);
});
