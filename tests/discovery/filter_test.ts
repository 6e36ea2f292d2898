import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { matchesAnyFilter, matchesFilter, parseFilter, parseFilterList } from "../../discovery/filter.ts";

const NAME = "lvp_icd.x86_64.json";

Deno.test("filter kinds: exact, prefix, suffix, substring, all", () => {
  assertEquals(
    ["lvp_icd.x86_64.json", "lvp*", "*.json", "*x86*", "*", "**", "~all~"].map((t) => parseFilter(t).kind),
    [
      "exact",
      "prefix",
      "suffix",
      "substring",
      "all",
      "all",
      "all",
    ],
  );
  for (const t of ["lvp_icd.x86_64.json", "lvp*", "*.json", "*x86*", "*", "**", "~all~"]) {
    assertEquals(matchesFilter(parseFilter(t), NAME), true, t);
  }
  for (const t of ["lvp_icd", "icd*", "*.x86_64", "*radeon*", "lvp_icd.x86_64.json.bak"]) {
    assertEquals(matchesFilter(parseFilter(t), NAME), false, t);
  }
});

Deno.test("filters are case-insensitive", () => {
  assertEquals(matchesFilter(parseFilter("*LVP*"), NAME), true);
  assertEquals(matchesFilter(parseFilter("lvp*"), "LVP_ICD.json"), true);
});

Deno.test("the extension is part of the file name", () => {
  assertEquals(matchesFilter(parseFilter("lvp_icd.x86_64"), NAME), false);
});

Deno.test("other ~name~ tokens are special and match nothing", () => {
  const f = parseFilter("~implicit~");
  assertEquals([f.kind, f.value, matchesFilter(f, "~implicit~")], ["special", "~implicit~", false]);
});

Deno.test("comma lists skip empty items", () => {
  const { filters } = parseFilterList("*lvp*,,intel*,", "VK_LOADER_DRIVERS_SELECT");
  assertEquals(filters.map((f) => f.text), ["*lvp*", "intel*"]);
  assertEquals(matchesAnyFilter(filters, "intel_icd.x86_64.json"), true);
  assertEquals(matchesAnyFilter(filters, "radeon_icd.x86_64.json"), false);
  assertEquals(parseFilterList(undefined).filters.length, 0);
  assertEquals(parseFilterList("").filters.length, 0);
});

Deno.test("at most 16 filters per variable, each cut to 255 characters, with warnings", () => {
  const many = Array.from({ length: 20 }, (_, i) => `f${i}`).join(",");
  const list = parseFilterList(many, "VK_LOADER_DRIVERS_DISABLE");
  assertEquals(list.filters.length, 16);
  assertEquals(list.warnings.length, 4);
  assertEquals(list.warnings[0]?.includes("'VK_LOADER_DRIVERS_DISABLE'"), true);
  const long = parseFilterList("a".repeat(300));
  assertEquals(long.filters[0]?.text.length, 255);
  assertEquals(long.warnings.length, 1);
});
