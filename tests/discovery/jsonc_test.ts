/**
 * discovery/jsonc.ts, the handwritten JSONC reader behind manifests and the settings file that are not
 * strict JSON: comments and trailing commas are read and counted, strings keep what looks like comments,
 * escapes decode as JSON.parse decodes them, and every defect is named with the offset of the token at
 * fault.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { type JsoncResult, MAX_JSONC_DEPTH, readJsonc } from "../../discovery/jsonc.ts";

function defect(text: string): string {
  const r = readJsonc(text);
  return r.ok ? "ok" : `${r.defect} at ${r.offset}`;
}

function value(text: string): JsoncResult & { ok: true } {
  const r = readJsonc(text);
  assert(r.ok, `${JSON.stringify(text)}: ${r.ok ? "" : `${r.defect} at ${r.offset}`}`);
  return r;
}

Deno.test("strict JSON reads as JSON.parse reads it, with nothing counted", () => {
  const texts = [
    '{"a": 1, "b": [true, false, null], "c": {"d": "e"}, "f": -0.5e+3, "g": 0, "h": 1E2}',
    "[]",
    "{}",
    '"just a string"',
    " 42 ",
    '{"big": 1e999, "small": -1e-999}',
  ];
  for (const text of texts) {
    const r = value(text);
    assertEquals([r.value, r.comments, r.trailingCommas, r.repeatedKeys], [JSON.parse(text), 0, 0, []], text);
    assertEquals(r.ignoredFrom, undefined);
  }
});

Deno.test("line and block comments are skipped and counted, wherever they stand", () => {
  const r = value('// head\n{ /* a */ "a" /* b */ : /* c */ 1 // d\n, "e": [ /* f */ ] } // tail');
  assertEquals(r.value, { a: 1, e: [] });
  assertEquals(r.comments, 7);
  assertEquals(value("/**/{}").comments, 1);
  assertEquals(value('{"a": 1 /* a\n multi-line\r\n comment */}').value, { a: 1 });
});

Deno.test("trailing commas in objects and arrays are read and counted", () => {
  const r = value('{"a": [1, 2, ], "b": {"c": 1,}, }');
  assertEquals(r.value, { a: [1, 2], b: { c: 1 } });
  assertEquals(r.trailingCommas, 3);
  assertEquals(value('{"a": [1, /* x */ ] }').trailingCommas, 1);
});

Deno.test("strings holding // and /* are strings, not comments", () => {
  const r = value('{"url": "http://example.com/*x*/", "p": "a // b", "q": "*/"}');
  assertEquals(r.value, { url: "http://example.com/*x*/", p: "a // b", q: "*/" });
  assertEquals(r.comments, 0);
});

Deno.test("escapes decode as JSON.parse decodes them", () => {
  const text = String.raw`{"e": "q\" b\\ s\/ \b\f\n\r\t u\u00e9\u20AC\ud83d\ude00 end"}`;
  assertEquals(value("// c\n" + text).value, JSON.parse(text));
  assertEquals(value('{"": "", "\\u0000": 1}').value, { "": "", "\u0000": 1 });
});

Deno.test("repeated keys keep the first value and are each named once", () => {
  const r = value('{"a": 1, "b": {"a": 2, "a": 3}, "a": 4, "a": 5, "b": {}}');
  assertEquals(r.value, { a: 1, b: { a: 2 } });
  assertEquals(r.repeatedKeys, ["a", "b"]);
  // The same key in different objects is no repeat.
  assertEquals(value('{"a": {"x": 1}, "b": {"x": 2}}').repeatedKeys, []);
});

Deno.test("a __proto__ key becomes an own property, as with JSON.parse", () => {
  const r = value('{"__proto__": {"polluted": true}, /* c */ "a": 1}');
  const v = r.value as Record<string, unknown>;
  assertEquals(Object.getPrototypeOf(v), Object.prototype);
  assertEquals(Object.keys(v), ["__proto__", "a"]);
  assertEquals(({} as Record<string, unknown>)["polluted"], undefined);
});

Deno.test("defects are named at the offset of the token at fault", () => {
  const cases: [string, string][] = [
    ['{\n  "a": }', "value expected at 9"],
    ['{"a": 1', "close brace expected at 7"],
    ["{", "close brace expected at 1"],
    ["[1, 2", "close bracket expected at 5"],
    ['{"a" 1}', "colon expected at 5"],
    ['{"a": 1 "b": 2}', "comma expected at 8"],
    ["[1 2]", "comma expected at 3"],
    ["{1: 2}", "property name expected at 1"],
    ['{"a": 1,, "b": 2}', "property name expected at 8"],
    ["{,}", "value expected at 1"],
    ["[,1]", "value expected at 1"],
    ["{ not json", "invalid symbol at 2"],
    ['{"a": nul}', "invalid symbol at 6"],
    ['{"a": truex}', "invalid symbol at 6"],
    ["{'a': 1}", "invalid symbol at 1"],
    ['{"a": 1 / 2}', "invalid symbol at 8"],
    ['{"a": -}', "invalid symbol at 6"],
    ['{"a": 1x}', "invalid symbol at 7"],
    ['{"a": 1.}', "unexpected end of number at 6"],
    ['{"a": 1e+}', "unexpected end of number at 6"],
    ['{"a": "b}', "unexpected end of string at 6"],
    ['{"a": "b\n"}', "unexpected end of string at 6"],
    ['{"a": "\\x"}', "invalid escape character at 6"],
    ['{"a": "\\u12G4"}', "invalid unicode at 6"],
    ['{"a": "tab\there"}', "invalid character at 6"],
    ['{"a": 1} /* open', "ok"],
    ['{"a": /* open', "unexpected end of comment at 6"],
    ["[1] 2", "end of file expected at 4"],
    ['"a" x', "invalid symbol at 4"],
    ["", "value expected at 0"],
    ["// only a comment", "value expected at 17"],
  ];
  for (const [text, expected] of cases) assertEquals(defect(text), expected, JSON.stringify(text));
});

Deno.test("text after the top-level object's closing brace is not read, and where it starts is returned", () => {
  const r = value('{"a": 1} // c\n} {} and "a note');
  assertEquals([r.value, r.ignoredFrom, r.comments], [{ a: 1 }, 8, 1]);
  assertEquals(value('{"a": 1}  \n // only trivia after\n').ignoredFrom, undefined);
  assertEquals(value('{"a": 1}/* never closed').ignoredFrom, 8);
});

Deno.test("nesting deeper than the limit is a defect, not a stack overflow", () => {
  assertEquals(readJsonc("[".repeat(MAX_JSONC_DEPTH) + "]".repeat(MAX_JSONC_DEPTH)).ok, true);
  const deep = readJsonc('{"a":' + "[".repeat(200_000));
  assertEquals(deep.ok ? "ok" : deep.defect, "nesting is too deep");
});
