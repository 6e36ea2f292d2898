/**
 * The generated tables are parsed on first use (vk/_lazy_table.ts) yet read as the plain records and
 * arrays they replace: keys, `in`, `Object.hasOwn`, iteration, and no writes.
 */

import { deepStrictEqual as assertEquals, ok as assert, throws as assertThrows } from "node:assert/strict";
import {
  decodeCommands,
  decodeEnumValues,
  decodeStruct,
  lazyArray,
  lazyBuilt,
  lazyLines,
  lazyList,
  lazyRecord,
  sourceText,
} from "../../vk/_lazy_table.ts";
import { COMMAND_INDEX, COMMAND_PARAMS, COMMAND_PROVIDERS, COMMANDS } from "../../vk/generated/commands.ts";
import { STRUCTS } from "../../vk/generated/structs.ts";
import { API_CONSTANTS, ENUM_TYPES, ENUM_VALUES, ENUMS, ENUMS64 } from "../../vk/generated/enums.ts";
import * as VK from "../../vk/generated/vk_constants.js";

Deno.test("a lazy record reads as the plain record and refuses writes", () => {
  let decoded = 0;
  const t = lazyRecord<number[]>('{"a":[1],"b":[2,3]}', (raw) => (decoded++, raw as number[]));
  assertEquals(decoded, 0);
  assertEquals(t.b, [2, 3]);
  assert(t.b === t.b, "an entry is decoded once");
  assertEquals(decoded, 1);
  assertEquals(Object.keys(t), ["a", "b"]);
  assertEquals({ ...t }, { a: [1], b: [2, 3] });
  assert("a" in t && Object.hasOwn(t, "a") && !("c" in t) && t.c === undefined);
  assertThrows(() => {
    "use strict";
    (t as Record<string, number[]>).c = [4];
  }, TypeError);
});

Deno.test("a lazy line table parses only the entries read", () => {
  const seen: string[] = [];
  const t = lazyLines<string>("x\t[1]\ny\t{not json}", (raw, key) => (seen.push(key), JSON.stringify(raw)));
  assertEquals(t.x, "[1]");
  assertEquals(seen, ["x"]);
  assertEquals(Object.keys(t), ["x", "y"]);
  assert(Object.hasOwn(t, "y") && !Object.hasOwn(t, "z"));
});

Deno.test("a lazy array reads as the plain array", () => {
  const a = lazyArray<string>("[1,2,3]", (raw, i) => `${raw}@${i}`);
  assert(Array.isArray(a));
  assertEquals(a.length, 3);
  assertEquals([...a], ["1@0", "2@1", "3@2"]);
  assertEquals(a.map((x) => x.length), [3, 3, 3]);
  assertEquals(Object.keys(a), ["0", "1", "2"]);
});

Deno.test("the generated tables decode to their documented shapes", () => {
  const create = COMMANDS[COMMAND_INDEX.vkCreateInstance!]!;
  assertEquals(create.index, 0);
  assertEquals(create.ffi, { parameters: ["pointer", "pointer", "pointer"], result: "i32" });
  assertEquals(create.params[1], {
    name: "pAllocator",
    type: "VkAllocationCallbacks",
    pointer: 1,
    const: true,
    optional: true,
  });
  assertEquals(STRUCTS.VkExtent2D, {
    size: 8,
    align: 4,
    union: false,
    members: [
      { name: "width", type: "uint32_t", offset: 0, size: 4, pointer: 0, const: false },
      { name: "height", type: "uint32_t", offset: 4, size: 4, pointer: 0, const: false },
    ],
  });
  assertEquals(STRUCTS.VkApplicationInfo?.sType, 0);
  assertEquals(STRUCTS.VkClearColorValue?.union, true);
});

Deno.test("enum values are read from the one enum-type text and agree with the exported constants", () => {
  const constants = VK as unknown as Record<string, unknown>;
  // Every 32-bit enumerant is the same number as the constant of that name, and the constants that are
  // numbers but not enumerants are the API constants, versions and extension spec versions.
  for (const [name, value] of Object.entries(ENUMS)) assertEquals(constants[name], value, name);
  const others = Object.keys(constants).filter((n) => typeof constants[n] === "number" && !(n in ENUMS));
  for (const n of others) {
    assert(n.endsWith("_SPEC_VERSION") || n in API_CONSTANTS || /^VK_(API|HEADER)_VERSION/.test(n), n);
  }
  for (const [name, value] of Object.entries(ENUMS64)) assertEquals(constants[name], value, name);
  assertEquals(Object.keys(ENUMS).length + Object.keys(ENUMS64).length > 4500, true);
  // A type's values match its names, in order, and its bit width.
  for (const type of ["VkStructureType", "VkResult", "VkPipelineStageFlagBits2", "VkFormat"]) {
    const info = ENUM_TYPES[type]!;
    const values = ENUM_VALUES[type]!;
    assertEquals(Object.keys(values), [...new Set(info.values)], type);
    for (const n of info.values) assertEquals(values[n], info.bitwidth === 64 ? ENUMS64[n] : ENUMS[n], n);
  }
  assertEquals(ENUM_VALUES.VkStructureType!.VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, 1);
  assertEquals(ENUM_VALUES.VkPipelineStageFlagBits2!.VK_PIPELINE_STAGE_2_HOST_BIT, 0x4000n);
  assertEquals(ENUM_VALUES.VkNotAnEnum, undefined);
});

Deno.test("struct entries name member types by index and leave out the sType and pNext they open with", () => {
  const types = ["uint32_t", "float"];
  const out = decodeStruct([24, 8, 2, 5, ["VkX"], [["a", 1, 16, 4, 0, 0, { count: 1 }]]], types);
  assertEquals(out.members, [
    { name: "sType", type: "VkStructureType", offset: 0, size: 4, pointer: 0, const: false },
    { name: "pNext", type: "void", offset: 8, size: 8, pointer: 1, const: false },
    { name: "a", type: "float", offset: 16, size: 4, pointer: 0, const: false, count: 1 },
  ]);
  assertEquals([out.sType, out.extends, out.union], [5, ["VkX"], false]);
  assertEquals(decodeStruct([8, 8, 1 | 2 | 4, null, null, []], types).members[1]!.const, true);
  assertEquals(decodeStruct([8, 8, 1, null, null, []], types).union, true);
  // In the generated table every struct with an sType opens with sType and pNext.
  for (const name of Object.keys(STRUCTS)) {
    const s = STRUCTS[name]!;
    if (s.sType === undefined) continue;
    assertEquals(s.members.slice(0, 2).map((m) => `${m.type}${"*".repeat(m.pointer)} ${m.name}`), [
      "VkStructureType sType",
      "void* pNext",
    ], name);
  }
  assertEquals(STRUCTS.VkInstanceCreateInfo!.members[1]!.const, true);
  assertEquals(STRUCTS.VkPhysicalDeviceProperties2!.members[1]!.const, false);
});

Deno.test("the command index and providers are built from the command entries, aliases included", () => {
  assertEquals(
    Object.keys(COMMAND_INDEX).length,
    COMMANDS.length + COMMANDS.reduce((n, c) => n + c.aliases.length, 0),
  );
  const draw = COMMANDS[COMMAND_INDEX.vkCmdDrawIndirectCount!]!;
  for (const alias of draw.aliases) assertEquals(COMMAND_INDEX[alias], draw.index);
  assertEquals(COMMAND_PROVIDERS.vkCmdDrawIndirectCount, ["VK_VERSION_1_2"]);
  assertEquals(COMMAND_PROVIDERS.vkCmdDrawIndirectCountKHR, ["VK_KHR_draw_indirect_count"]);
  assertEquals(COMMAND_PROVIDERS.vkNotACommand, undefined);
});

Deno.test("a line table finds each key by a binary search over its sorted lines", () => {
  const keys = ["A", "Vk", "VkA", "VkAB", "VkB", "Vkb", "a", "b\u00e9", "z"];
  const text = keys.map((k, i) => `${k}\t${i}`).join("\n");
  const t = lazyLines<number>(text, (raw) => raw as number);
  for (const [i, k] of keys.entries()) assertEquals(t[k], i, k);
  for (const missing of ["", "0", "B", "V", "VkAA", "VkC", "Z", "zz", "\uffff"]) {
    assertEquals(t[missing], undefined, missing);
    assert(!(missing in t) && !Object.hasOwn(t, missing), missing);
  }
  assertEquals(Object.keys(t), keys);
  const one = lazyLines<number>("only\t7", (raw) => raw as number);
  assertEquals([one.only, one.other, Object.keys(one)], [7, undefined, ["only"]]);
  assertEquals(Object.keys(lazyLines<number>("", (raw) => raw as number)), []);
  // Every generated struct and enum type is found.
  for (const name of Object.keys(STRUCTS)) assert(STRUCTS[name] !== undefined, name);
  for (const name of Object.keys(ENUM_TYPES)) assert(ENUM_VALUES[name] !== undefined, name);
});

Deno.test("a command's parameters come from their own line table, read when first asked for", () => {
  const create = COMMANDS[COMMAND_INDEX.vkCreateDevice!]!;
  assertEquals(create.params.map((p) => p.name), ["physicalDevice", "pCreateInfo", "pAllocator", "pDevice"]);
  assert(create.params === create.params, "the same array on every read");
  assertEquals(COMMAND_PARAMS.vkCreateDevice, create.params);
  for (const c of COMMANDS) assertEquals(c.params.length, c.ffi.parameters.length, c.name);
  assertEquals(JSON.parse(JSON.stringify(create)).params[3].name, "pDevice");
});

Deno.test("a table text is read from its function's source, not built by calling the function", () => {
  let calls = 0;
  const text = () => {
    calls++;
    return String.raw`Vk\tA	["latexmath:[\\lceil x \\rceil]"]
next "line"`;
  };
  const read = sourceText(text);
  assertEquals(read, text());
  assertEquals(calls, 1, "sourceText read the source without calling the function");
  // As `deno fmt` writes a long line: `String` and `.raw` on two lines.
  // deno-fmt-ignore
  const broken = () => String
    .raw`a\b`;
  assertEquals(sourceText(broken), "a\\b");
  // A function whose source shows no template (a bound function prints as native code) is called instead.
  assertEquals(sourceText(text.bind(null)), text());
  assertEquals(sourceText(() => "plain"), "plain");
});

Deno.test("every generated table text is a raw template that sourceText reads from the source", () => {
  const dir = new URL("../../vk/generated/", import.meta.url);
  let seen = 0;
  let tables = 0;
  for (const entry of Deno.readDirSync(dir)) {
    if (!entry.name.endsWith("_text.js")) continue;
    const src = Deno.readTextFileSync(new URL(entry.name, dir));
    tables += [...src.matchAll(/function \w+_SOURCE\(\)/g)].length;
    for (const m of src.matchAll(/function (\w+)_SOURCE\(\) \{\s*return String\s*\.raw`/g)) {
      seen++;
      const end = src.indexOf("`;\n}", m.index + m[0].length);
      assert(end > 0 && !src.slice(m.index + m[0].length, end).includes("`"), `${m[1]} is one raw template`);
      assert(
        src.includes(`export const ${m[1]} = sourceText(${m[1]}_SOURCE);`),
        `${m[1]} is read by sourceText`,
      );
    }
  }
  assert(tables > 0, "no generated table text found");
  assertEquals(seen, tables, "every table text is one raw template");
});

Deno.test("a table built whole becomes a frozen plain record or array at its first read, with the same answers", () => {
  let builds = 0;
  const record = lazyBuilt(() => (builds++, new Map([["a", 1], ["b", 2]])));
  const list = lazyList<string>('["x","y"]', (raws) => (builds++, raws.map(String)));
  const plain = lazyRecord<number>('{"a":1,"__proto__":2}');
  assertEquals(builds, 0);
  // Only own keys, before and after the first read: nothing from Object.prototype.
  assertEquals([(record as Record<string, unknown>).constructor, "toString" in record], [undefined, false]);
  assertEquals([record.a, "b" in record, "c" in record, Object.keys(record)], [1, true, false, ["a", "b"]]);
  assertEquals([list.length, list[1], [...list], Array.isArray(list)], [2, "y", ["x", "y"], true]);
  assertEquals([plain.a, Object.hasOwn(plain, "a"), Object.hasOwn(plain, "__proto__")], [1, true, true]);
  assertEquals([(record as Record<string, unknown>).constructor, "toString" in record], [undefined, false]);
  assertEquals(
    [COMMAND_INDEX.vkCreateInstance, COMMAND_INDEX.constructor, "hasOwnProperty" in COMMAND_INDEX],
    [
      0,
      undefined,
      false,
    ],
  );
  assertEquals(builds, 2);
  for (const [t, key] of [[record, "a"], [list, "0"], [plain, "a"]] as const) {
    assert(Object.isFrozen(t));
    assertThrows(() => ((t as Record<string, unknown>)[key] = 3), TypeError);
    assertThrows(() => delete (t as Record<string, unknown>)[key], TypeError);
  }
  assertThrows(() => (list as string[]).push("z"), TypeError);
  assertEquals([COMMAND_INDEX.vkCreateInstance, COMMANDS[0]!.name], [0, "vkCreateInstance"]);
  assert(Object.isFrozen(COMMAND_INDEX) && Object.isFrozen(COMMANDS));
});

Deno.test("decodeCommands numbers the commands from the first index and reads parameters through their prototype", () => {
  const params = { vkB: [{ name: "device", type: "VkDevice", pointer: 0, const: false }] };
  const [a, b] = decodeCommands(
    [
      ["vkA", "device", "void", [], "void", [], ["VK_VERSION_1_0"]],
      ["vkB", "instance", "VkResult", ["pointer"], "i32", ["vkBKHR"], [], [["VK_KHR_b"]]],
    ],
    params,
    5,
  );
  assertEquals([a!.index, b!.index, a!.params, b!.params[0]!.type, b!.ffi.result], [
    5,
    6,
    [],
    "VkDevice",
    "i32",
  ]);
  assertEquals(JSON.parse(JSON.stringify(b)).params, params.vkB);
  assertEquals(Object.keys(a!).slice(0, 3), ["name", "index", "level"]);
});

Deno.test("an enum value looked up by name skips a 64-bit value written as the same text as the suffix", () => {
  const values = decodeEnumValues([0, 64, "P_", ["X", "1", "1", "2"]]);
  assertEquals([values.P_X, values.P_1, values.P_2], [1n, 2n, undefined]);
});
