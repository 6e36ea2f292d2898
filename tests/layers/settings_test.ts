/**
 * Layer settings as Khronos layers read them (docs/behaviour.md LS01-LS12): each source, where the settings
 * file is found, the precedence, the text and API forms of every type, and each malformed input drawing one
 * warning naming the source, the layer and the setting before the next source is used. Every environment
 * is a snapshot over an own temp folder (its `cwd` included): nothing of the host's is read.
 */
import assert from "node:assert/strict";
import { Arena, writeStruct } from "../../mod.ts";
import { defineLayer, layerSettingsCreateInfo } from "../../layers/mod.ts";
import {
  type LayerSettingDeclarations,
  layerSettingsFilePath,
  LayerSettingsSources,
  settingVariables,
} from "../../layers/settings.ts";
import type { EnvironmentSnapshot } from "../../discovery/environment.ts";

const LAYER = "VK_LAYER_TEST_settings";

const DECLARED = {
  limit: { type: "uint32", default: 8 },
  verbose: { type: "bool", default: false },
  mode: { type: "enum", values: ["warn", "fail"], default: "warn" },
  ratio: { type: "float64", default: 0.5 },
  budget: { type: "uint64", default: 256n },
  offset: { type: "int32", default: 0 },
  name: { type: "string", default: "" },
  tags: { type: "string", list: true, default: [] },
  frames: { type: "frameset", default: [] },
} as const satisfies LayerSettingDeclarations;

/** A temp folder (the snapshot's cwd) with `files` written under it, and a snapshot with `vars`. */
function sandbox(files: Record<string, string> = {}, vars: Record<string, string> = {}) {
  const dir = Deno.makeTempDirSync({ prefix: "layer_settings_" });
  for (const [rel, text] of Object.entries(files)) {
    const path = `${dir}/${rel}`;
    Deno.mkdirSync(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    Deno.writeTextFileSync(path, text);
  }
  const expand = (v: string) => v.replaceAll("$DIR", dir);
  const env: EnvironmentSnapshot = {
    vars: Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, expand(v)])),
    elevated: false,
    cwd: dir,
  };
  return { dir, env, [Symbol.dispose]: () => Deno.removeSync(dir, { recursive: true }) };
}

interface ApiEntry {
  layer?: string;
  name: string;
  type: number;
  values: ArrayBufferView | Deno.PointerValue;
  count: number;
}

/** A `VkInstanceCreateInfo` with one `VkLayerSettingsCreateInfoEXT` per group of entries, in chain order. */
function createInfo(arena: Arena, ...groups: ApiEntry[][]): Deno.PointerValue {
  const pNext = groups.map((entries) => ({
    type: "VkLayerSettingsCreateInfoEXT",
    pSettings: entries.map((e) => ({
      pLayerName: e.layer ?? LAYER,
      pSettingName: e.name,
      type: e.type,
      valueCount: e.count,
      pValues: e.values,
    })),
  }));
  // The entries' types are plain numbers here (a bogus one among them): the chain is written unchecked.
  return writeStruct(arena, "VkInstanceCreateInfo", { pNext: pNext as never });
}

function strings(arena: Arena, ...texts: string[]): Deno.PointerValue {
  const table = arena.alloc(8 * texts.length, 8);
  const words = new BigUint64Array(table.buffer, table.byteOffset, texts.length);
  texts.forEach((t, i) => {
    const bytes = new TextEncoder().encode(t + "\0");
    const buffer = arena.alloc(bytes.length);
    buffer.set(bytes);
    words[i] = BigInt(Deno.UnsafePointer.value(arena.pointer(buffer)));
  });
  return arena.pointer(table);
}

function resolve(
  env: EnvironmentSnapshot,
  info: Deno.PointerValue = null,
  host: Record<string, unknown> = {},
  declared: LayerSettingDeclarations = DECLARED,
) {
  const warnings: string[] = [];
  const values = new LayerSettingsSources(env, info).resolve(
    LAYER,
    declared,
    host,
    (id, text) => void warnings.push(`${id}: ${text}`),
  );
  return { values, warnings };
}

const UINT32 = 3, INT32 = 1, BOOL32 = 0, STRING = 7, FLOAT64 = 6, UINT64 = 4;

Deno.test("LS01 with nothing set every declared setting has its default, frozen, and nothing is warned", () => {
  using box = sandbox();
  const { values, warnings } = resolve(box.env);
  assert.deepEqual(values, {
    limit: 8,
    verbose: false,
    mode: "warn",
    ratio: 0.5,
    budget: 256n,
    offset: 0,
    name: "",
    tags: [],
    frames: [],
  });
  assert.ok(Object.isFrozen(values));
  assert.deepEqual(warnings, []);
});

Deno.test("LS01 precedence: a variable over vk_layer_settings.txt over VkLayerSettingsCreateInfoEXT over the host option over the default", () => {
  using arena = new Arena();
  const api = createInfo(arena, [{ name: "limit", type: UINT32, values: new Uint32Array([3]), count: 1 }]);
  const file = "test_settings.limit = 2\n";
  const host = { limit: 4 };
  {
    using box = sandbox({ "vk_layer_settings.txt": file }, { VK_TEST_SETTINGS_LIMIT: "1" });
    assert.equal(resolve(box.env, api, host).values.limit, 1);
  }
  {
    using box = sandbox({ "vk_layer_settings.txt": file });
    assert.equal(resolve(box.env, api, host).values.limit, 2);
  }
  using box = sandbox();
  assert.equal(resolve(box.env, api, host).values.limit, 3);
  assert.equal(resolve(box.env, null, host).values.limit, 4);
  assert.equal(resolve(box.env).values.limit, 8);
});

Deno.test("LS02 VkLayerSettingsCreateInfoEXT: settings for the layer by exact name, the first struct in the chain that names one wins", () => {
  using box = sandbox();
  using arena = new Arena();
  const api = createInfo(
    arena,
    [
      { layer: "VK_LAYER_TEST_other", name: "limit", type: UINT32, values: new Uint32Array([99]), count: 1 },
      {
        layer: "vk_layer_test_settings",
        name: "limit",
        type: UINT32,
        values: new Uint32Array([98]),
        count: 1,
      },
      { name: "verbose", type: BOOL32, values: new Uint32Array([1]), count: 1 },
    ],
    [
      { name: "limit", type: UINT32, values: new Uint32Array([5]), count: 1 },
      { name: "verbose", type: BOOL32, values: new Uint32Array([0]), count: 1 },
    ],
    [{ name: "limit", type: UINT32, values: new Uint32Array([6]), count: 1 }],
  );
  const { values, warnings } = resolve(box.env, api);
  assert.equal(values.limit, 5);
  assert.equal(values.verbose, true);
  assert.deepEqual(warnings, []);
});

Deno.test("LS09 VkLayerSettingsCreateInfoEXT values of every type: lists, 64-bit, strings, framesets, any type as text for a string setting", () => {
  using box = sandbox();
  using arena = new Arena();
  const api = createInfo(arena, [
    { name: "budget", type: UINT64, values: new BigUint64Array([2n ** 40n]), count: 1 },
    { name: "offset", type: INT32, values: new Int32Array([-7]), count: 1 },
    { name: "ratio", type: FLOAT64, values: new Float64Array([0.25]), count: 1 },
    { name: "mode", type: STRING, values: strings(arena, "fail"), count: 1 },
    { name: "tags", type: STRING, values: strings(arena, "a", "b c"), count: 2 },
    { name: "frames", type: UINT32, values: new Uint32Array([0, 3, 1, 10, 2, 5]), count: 6 },
    { name: "name", type: INT32, values: new Int32Array([42]), count: 1 },
  ]);
  const { values, warnings } = resolve(box.env, api);
  assert.deepEqual(warnings, []);
  assert.equal(values.budget, 2n ** 40n);
  assert.equal(values.offset, -7);
  assert.equal(values.ratio, 0.25);
  assert.equal(values.mode, "fail");
  assert.deepEqual(values.tags, ["a", "b c"]);
  assert.deepEqual(values.frames, [{ first: 0, count: 3, step: 1 }, { first: 10, count: 2, step: 5 }]);
  assert.equal(values.name, "42");
});

Deno.test("LS03 vk_layer_settings.txt: key without VK_LAYER_ lowercased, # comments, spaces, the last line of a key wins, an empty value is unset", () => {
  using box = sandbox({
    "vk_layer_settings.txt": [
      "# settings for the test layer",
      "test_settings.limit = 3   # trailing comment",
      "  test_settings.limit=12  ",
      "TEST_settings.verbose = true",
      "test_settings.mode =",
      "test_settings.name = a = b",
      "other_layer.limit = 1",
      "",
    ].join("\r\n"),
  });
  const { values, warnings } = resolve(box.env);
  assert.equal(values.limit, 12);
  assert.equal(values.verbose, false, "the key is the lowercased name: TEST_settings is another layer's");
  assert.equal(values.mode, "warn", "an empty value leaves the setting to the next source");
  assert.equal(values.name, "a = b");
  assert.deepEqual(warnings, []);
});

Deno.test("LS04 variables: VK_<KEY>_<SETTING>, then without the vendor, then VK_<SETTING>; an empty one is unset", () => {
  assert.deepEqual(settingVariables(LAYER, "limit"), [
    "VK_TEST_SETTINGS_LIMIT",
    "VK_SETTINGS_LIMIT",
    "VK_LIMIT",
  ]);
  const cases: [Record<string, string>, number][] = [
    [{ VK_TEST_SETTINGS_LIMIT: "1", VK_SETTINGS_LIMIT: "2", VK_LIMIT: "3" }, 1],
    [{ VK_SETTINGS_LIMIT: "2", VK_LIMIT: "3" }, 2],
    [{ VK_LIMIT: "3" }, 3],
    [{ VK_TEST_SETTINGS_LIMIT: "", VK_LIMIT: "3" }, 3],
  ];
  for (const [vars, want] of cases) {
    using box = sandbox({}, vars);
    assert.equal(resolve(box.env).values.limit, want, JSON.stringify(vars));
  }
});

Deno.test("LS05 the settings file: $XDG_DATA_HOME/vulkan/settings.d first, then VK_LAYER_SETTINGS_PATH (file or folder), then the working folder", () => {
  const line = (n: number) => `test_settings.limit = ${n}\n`;
  const files = {
    "xdg/vulkan/settings.d/vk_layer_settings.txt": line(1),
    "home/.local/share/vulkan/settings.d/vk_layer_settings.txt": line(2),
    "named/vk_layer_settings.txt": line(3),
    "named.txt": line(4),
    "vk_layer_settings.txt": line(5),
  };
  const cases: [Record<string, string>, number][] = [
    [{ XDG_DATA_HOME: "$DIR/xdg", HOME: "$DIR/home", VK_LAYER_SETTINGS_PATH: "$DIR/named" }, 1],
    [{ XDG_DATA_HOME: "", HOME: "$DIR/home", VK_LAYER_SETTINGS_PATH: "$DIR/named" }, 2],
    [{ XDG_DATA_HOME: "$DIR/none", HOME: "$DIR/home", VK_LAYER_SETTINGS_PATH: "$DIR/named" }, 3],
    [{ VK_LAYER_SETTINGS_PATH: "named" }, 3],
    [{ VK_LAYER_SETTINGS_PATH: "$DIR/named.txt" }, 4],
    [{ VK_LAYER_SETTINGS_PATH: "$DIR/missing" }, 5],
    [{}, 5],
  ];
  for (const [vars, want] of cases) {
    using box = sandbox(files, vars);
    assert.equal(resolve(box.env).values.limit, want, JSON.stringify(vars));
  }
  // A named folder without the file is used anyway: nothing is read, and the working folder is not tried.
  using box = sandbox({ "empty/.keep": "", "vk_layer_settings.txt": line(5) }, {
    VK_LAYER_SETTINGS_PATH: "$DIR/empty",
  });
  assert.equal(layerSettingsFilePath(box.env), `${box.dir}/empty/vk_layer_settings.txt`);
  assert.equal(resolve(box.env).values.limit, 8);
});

Deno.test("LS07 LS08 text values: booleans, integers in decimal and hex, floats, lists split on , (else :), framesets", () => {
  using box = sandbox({}, {
    VK_TEST_SETTINGS_VERBOSE: "On",
    VK_TEST_SETTINGS_LIMIT: "0x10",
    VK_TEST_SETTINGS_OFFSET: "-3",
    VK_TEST_SETTINGS_RATIO: "1.5f",
    VK_TEST_SETTINGS_BUDGET: "18446744073709551615",
    VK_TEST_SETTINGS_TAGS: "a:b:c",
    VK_TEST_SETTINGS_NAME: "x:y,z",
    VK_TEST_SETTINGS_FRAMES: "0-3,10,20-5-2",
  });
  const { values, warnings } = resolve(box.env);
  assert.deepEqual(warnings, []);
  assert.equal(values.verbose, true);
  assert.equal(values.limit, 16);
  assert.equal(values.offset, -3);
  assert.equal(values.ratio, 1.5);
  assert.equal(values.budget, 2n ** 64n - 1n);
  assert.deepEqual(values.tags, ["a", "b", "c"]);
  assert.equal(values.name, "x:y,z", "a string setting that is no list keeps its text whole");
  assert.deepEqual(values.frames, [
    { first: 0, count: 3, step: 1 },
    { first: 10, count: 1, step: 1 },
    { first: 20, count: 5, step: 2 },
  ]);
  using listed = sandbox({}, { VK_TEST_SETTINGS_TAGS: "a,b:c," });
  assert.deepEqual(resolve(listed.env).values.tags, ["a", "b:c"]);
});

Deno.test("LS11 an unparsable variable: one warning naming the variable, the layer's setting and why, then the file's value", () => {
  using box = sandbox({ "vk_layer_settings.txt": "test_settings.limit = 2\n" }, {
    VK_TEST_SETTINGS_LIMIT: "lots",
    VK_LIMIT: "5",
  });
  const { values, warnings } = resolve(box.env);
  assert.equal(values.limit, 2, "the next source, not the next variable");
  assert.deepEqual(warnings, [
    `Layer-SettingInvalid: setting "limit" from the variable VK_TEST_SETTINGS_LIMIT is ignored: "lots" is not an integer`,
  ]);
});

Deno.test("LS11 bad file lines: a value of the wrong type, out of range, not among an enum's values, a line without =, an undeclared setting", () => {
  using box = sandbox({
    "vk_layer_settings.txt": [
      "test_settings.limit = -1",
      "test_settings.verbose = maybe",
      "test_settings.mode = loud",
      "test_settings.ratio = 1e3",
      "test_settings.frames = 1-2-3-4",
      "test_settings.offset 4",
      "test_settings.colour = red",
      "unrelated line of another tool",
    ].join("\n"),
  });
  using arena = new Arena();
  const api = createInfo(arena, [{ name: "mode", type: STRING, values: strings(arena, "fail"), count: 1 }]);
  const { values, warnings } = resolve(box.env, api);
  const path = `${box.dir}/vk_layer_settings.txt`;
  assert.equal(values.limit, 8);
  assert.equal(values.mode, "fail", "the next source after the bad line");
  assert.deepEqual(warnings, [
    `Layer-SettingInvalid: setting "limit" from ${path}:1 is ignored: -1 is out of the range of uint32`,
    `Layer-SettingInvalid: setting "verbose" from ${path}:2 is ignored: "maybe" is not a boolean (true, false, on, off or an integer)`,
    `Layer-SettingInvalid: setting "mode" from ${path}:3 is ignored: "loud" is not one of "warn", "fail"`,
    `Layer-SettingInvalid: setting "ratio" from ${path}:4 is ignored: "1e3" is not a floating-point number`,
    `Layer-SettingInvalid: setting "frames" from ${path}:5 is ignored: "1-2-3-4" is not a frame range (first[-count[-step]])`,
    `Layer-SettingUnknown: ${path}:7 sets "colour", which the layer does not declare (it declares "limit", "verbose", "mode", "ratio", "budget", "offset", "name", "tags", "frames")`,
    `Layer-SettingInvalid: ${path}:6 is ignored: "test_settings.offset 4" has no "="`,
  ]);
});

Deno.test("LS11 VkLayerSettingsCreateInfoEXT of the wrong type, with no value, a NULL pValues, a VkBool32 not 0 or 1, an undeclared name: warned, then the host's value or the default", () => {
  using box = sandbox();
  using arena = new Arena();
  const api = createInfo(arena, [
    { name: "limit", type: INT32, values: new Int32Array([3]), count: 1 },
    { name: "offset", type: INT32, values: new Int32Array([]), count: 0 },
    { name: "ratio", type: FLOAT64, values: null, count: 1 },
    { name: "verbose", type: BOOL32, values: new Uint32Array([2]), count: 1 },
    { name: "mode", type: 9, values: new Uint32Array([0]), count: 1 },
    { name: "colour", type: STRING, values: strings(arena, "red"), count: 1 },
  ]);
  const { values, warnings } = resolve(box.env, api, { limit: 4 });
  assert.equal(values.limit, 4);
  assert.equal(values.offset, 0);
  assert.equal(values.verbose, false);
  const from = `Layer-SettingInvalid: setting`;
  assert.deepEqual(warnings, [
    `${from} "limit" from VkLayerSettingsCreateInfoEXT is ignored: its type is VK_LAYER_SETTING_TYPE_INT32_EXT, not VK_LAYER_SETTING_TYPE_UINT32_EXT`,
    `${from} "verbose" from VkLayerSettingsCreateInfoEXT is ignored: 2 is no VkBool32 (VK_TRUE or VK_FALSE)`,
    `${from} "mode" from VkLayerSettingsCreateInfoEXT is ignored: its type is VkLayerSettingTypeEXT 9, no VkLayerSettingTypeEXT`,
    `${from} "ratio" from VkLayerSettingsCreateInfoEXT is ignored: valueCount is 1 and pValues is NULL`,
    `${from} "offset" from VkLayerSettingsCreateInfoEXT is ignored: valueCount is 0: no value`,
    `Layer-SettingUnknown: VkLayerSettingsCreateInfoEXT sets "colour", which the layer does not declare (it declares "limit", "verbose", "mode", "ratio", "budget", "offset", "name", "tags", "frames")`,
  ]);
});

Deno.test("LS10 the host's settings option: values of the wrong type and undeclared names are warned, then the default", () => {
  using box = sandbox();
  const { values, warnings } = resolve(box.env, null, { limit: "4", budget: 5, tags: "a", extra: 1 });
  assert.equal(values.limit, 8);
  assert.equal(values.budget, 5n, "an integer number is taken for a 64-bit setting");
  assert.deepEqual(values.tags, []);
  assert.deepEqual(warnings, [
    `Layer-SettingInvalid: setting "limit" from the host's settings option is ignored: "4" is not an integer`,
    `Layer-SettingInvalid: setting "tags" from the host's settings option is ignored: "a" is not an array`,
    `Layer-SettingUnknown: the host's settings option sets "extra", which the layer does not declare (it declares "limit", "verbose", "mode", "ratio", "budget", "offset", "name", "tags", "frames")`,
  ]);
});

Deno.test("LS12 declarations: a default of another type or not among an enum's values is refused by defineLayer, and such mistakes fail deno check", () => {
  const create = () => ({ intercepts: {} });
  assert.throws(
    () =>
      defineLayer({
        name: "VK_LAYER_TEST_bad_enum",
        description: "",
        settings: { mode: { type: "enum", values: ["a", "b"], default: "c" } },
        create,
      }),
    /Layer "VK_LAYER_TEST_bad_enum" declares setting "mode" wrongly: default: "c" is not one of "a", "b"/,
  );
  assert.throws(
    () =>
      defineLayer({
        name: "VK_LAYER_TEST_bad_default",
        description: "",
        // @ts-expect-error: a bool setting's default is a boolean
        settings: { on: { type: "bool", default: 1 } },
        create,
      }),
    /declares setting "on" wrongly: default: 1 is not a boolean/,
  );
  const layer = defineLayer({
    name: "VK_LAYER_TEST_typed",
    description: "",
    settings: {
      limit: { type: "uint32", default: 8 },
      mode: { type: "enum", values: ["a", "b"], default: "a" },
    },
    create(env) {
      const limit: number = env.settings.limit;
      const mode: "a" | "b" = env.settings.mode;
      // @ts-expect-error: an undeclared setting
      const missing = env.settings.limits;
      // @ts-expect-error: a uint32 setting is a number
      const text: string = env.settings.limit;
      // @ts-expect-error: "c" is not among the values
      const other: typeof env.settings.mode = "c";
      return { intercepts: {}, dispose: () => void [limit, mode, missing, text, other] };
    },
  });
  assert.deepEqual(layer.instanceExtensions, [{ name: "VK_EXT_layer_settings", specVersion: 2 }]);
});

Deno.test("LS09 layerSettingsCreateInfo writes every declared type with its VkLayerSettingTypeEXT, and the layer reads back the same values", () => {
  using box = sandbox();
  using arena = new Arena();
  const layer = { name: LAYER, settings: DECLARED };
  const given = {
    limit: 4_000_000_000,
    verbose: true,
    mode: "fail",
    ratio: -0.125,
    budget: 2n ** 63n,
    offset: -5,
    name: "a:b,c",
    tags: ["x", "", "y z"],
    frames: [{ first: 1, count: 2, step: 3 }],
  } as const;
  const settings = layerSettingsCreateInfo(arena, layer, given);
  const info = writeStruct(arena, "VkInstanceCreateInfo", { pNext: [settings] });
  const { values, warnings } = resolve(box.env, info);
  assert.deepEqual(warnings, []);
  assert.deepEqual(values, given);
  assert.deepEqual(
    resolve(
      box.env,
      writeStruct(arena, "VkInstanceCreateInfo", {
        pNext: [layerSettingsCreateInfo(arena, layer, { tags: [] })],
      }),
    ).values.tags,
    [],
  );
});

Deno.test("LS12 layerSettingsCreateInfo refuses an undeclared setting or a value of another type, naming the layer and the setting", () => {
  using arena = new Arena();
  const layer = { name: LAYER, settings: DECLARED };
  assert.throws(
    // @ts-expect-error: the layer declares no "limits"
    () => layerSettingsCreateInfo(arena, layer, { limits: 1 }),
    /layerSettingsCreateInfo: layer "VK_LAYER_TEST_settings" declares no setting "limits"/,
  );
  assert.throws(
    // @ts-expect-error: "loud" is not among mode's values
    () => layerSettingsCreateInfo(arena, layer, { mode: "loud" }),
    /setting "mode" of "VK_LAYER_TEST_settings": "loud" is not one of "warn", "fail"/,
  );
  assert.throws(
    () => layerSettingsCreateInfo(arena, layer, { limit: -1 }),
    /setting "limit" of "VK_LAYER_TEST_settings": -1 is out of the range of uint32/,
  );
});
