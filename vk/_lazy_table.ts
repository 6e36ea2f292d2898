/**
 * Read-only tables built on first use for vk/generated/: each module holds its data as one compact JSON
 * text and exports a proxy that parses it when a script first reads the table.
 *
 * @module
 */
import type {
  CommandInfo,
  CommandLevel,
  EnumTypeInfo,
  MemberInfo,
  ParamInfo,
  StructInfo,
} from "./generated/types.ts";

/**
 * The text a function returns as its one `String.raw` template, read from the function's source: V8
 * keeps a module's source for as long as its functions live, and `Function.prototype.toString` answers a
 * slice of it, not a copy, where calling the function would build the string again (a string literal is
 * held twice: the source and the string). The generated `*_text.js` modules hold their tables this way
 * (tools/_gen_emit.ts `splitTableTexts`); a raw template's text is its source, character for character.
 * If the source does not show the template (a tool rewrote the module), the function is called.
 *
 * @param source A function whose body is `return String.raw\`...\`;`.
 * @returns The template's text.
 *
 * @example Usage
 * ```ts
 * import { sourceText } from "./_lazy_table.ts";
 * const text = () => String.raw`a\tb`;
 * console.log(sourceText(text)); // "a\\tb" (a, backslash, t, b)
 * ```
 */
export function sourceText(source: () => string): string {
  const s = Function.prototype.toString.call(source);
  // The first backtick opens the template (`deno fmt` may break `String.raw` over two lines).
  const open = s.indexOf("`");
  const close = s.lastIndexOf("`");
  return open > 3 && close > open && s.startsWith(".raw", open - 4) ? s.slice(open + 1, close) : source();
}

/** Types a lazily built table may hold (what the generated tables hold). */
type Entry = object | string | number | boolean | readonly unknown[];

/**
 * A read-only record whose text is parsed on first use and whose entries are decoded on first read.
 *
 * @param text JSON text of an object whose values are the raw entries.
 * @param decode Turns a raw entry into the public one (identity when left out); called once per key.
 * @returns A proxy that behaves as the plain record (`name in t`, `Object.keys`, `Object.hasOwn`).
 *
 * @example Usage
 * ```ts
 * import { lazyRecord } from "./_lazy_table.ts";
 * const t = lazyRecord<number>('{"a":[1,2]}', (raw) => (raw as number[]).length);
 * console.log(t.a, Object.keys(t)); // 2 ["a"]
 * ```
 */
export function lazyRecord<T extends Entry>(
  text: string,
  decode?: (raw: unknown, key: string) => T,
): Readonly<Record<string, T>> {
  let raw: Record<string, unknown> | undefined;
  const decoded = new Map<string, T>();
  const source = (): Record<string, unknown> => raw ??= JSON.parse(text) as Record<string, unknown>;
  const read = (key: string): T | undefined => {
    const r = source();
    if (!Object.hasOwn(r, key)) return undefined;
    if (!decode) return r[key] as T;
    let v = decoded.get(key);
    if (v === undefined) {
      v = decode(r[key], key);
      decoded.set(key, v);
    }
    return v;
  };
  return readOnlyRecord(
    read,
    () => (key) => Object.hasOwn(source(), key),
    () => Object.keys(source()),
    decode ? undefined : source,
  );
}

/**
 * The proxy of a read-only record given how to read an entry, test a key and list the keys. With `whole`
 * (the complete record, for tables built all at once), the first access copies it into the proxy's
 * target, freezes the target and empties the handler: later reads are the engine's own, with no trap
 * called per key (the chain reads ~1,700 keys at the first instance; a trap run that often is compiled by
 * Maglev, and the process's first optimising compile pages in ~2.4 MiB of Deno's code).
 */
function readOnlyRecord<T>(
  read: (key: string) => T | undefined,
  tester: () => (key: string) => boolean,
  keys: () => string[],
  whole?: () => object | ReadonlyMap<string, T>,
): Readonly<Record<string, T>> {
  // No prototype: a record answers only its own keys (`t.constructor`, `"toString" in t`: none), before and
  // after it is settled, and copying a `__proto__` key into it defines that key.
  const target = Object.create(null) as Record<string, T>;
  const handler: ProxyHandler<Record<string, T>> = {
    get: (_t, key) => typeof key === "string" ? read(key) : undefined,
    has: (_t, key) => typeof key === "string" && tester()(key),
    ownKeys: keys,
    getOwnPropertyDescriptor: (_t, key) => {
      if (typeof key !== "string" || !tester()(key)) return undefined;
      // An accessor, so that listing the keys (Object.keys, spreading) decodes nothing by itself.
      return { get: () => read(key), enumerable: true, configurable: true };
    },
    set: () => false,
    defineProperty: () => false,
    deleteProperty: () => false,
    setPrototypeOf: () => false,
  };
  // Object.assign copies without a descriptor object per key (~1,000-5,000 keys: less garbage at the first
  // instance, where one scavenge more grows the young generation). A map's entries are set one by one on the
  // target, which `Object.create(null)` made a dictionary: `Object.fromEntries` builds a fast-mode object, a
  // new hidden class per key (~5 ms of CPU for the command index's 842 names, against ~1 ms).
  if (whole) {
    settleOnFirstUse(target, handler, (t) => {
      const from = whole();
      if (!(from instanceof Map)) return void Object.assign(t, from);
      for (const [key, value] of from as ReadonlyMap<string, T>) t[key] = value;
    });
  }
  return new Proxy(target, handler);
}

/**
 * Makes the first read trap of `handler` `fill` the target, freeze it and remove every trap, then answer
 * from the target: the proxy then behaves as the frozen plain object or array.
 */
function settleOnFirstUse<T extends object>(
  target: T,
  handler: ProxyHandler<T>,
  fill: (target: T) => void,
): void {
  const settle = (): T => {
    if (Object.isFrozen(target)) return target;
    fill(target);
    Object.freeze(target);
    for (const trap of Object.keys(handler)) delete handler[trap as keyof ProxyHandler<T>];
    return target;
  };
  handler.get = (_t, key) => Reflect.get(settle(), key);
  handler.has = (_t, key) => Reflect.has(settle(), key);
  handler.ownKeys = () => Reflect.ownKeys(settle());
  handler.getOwnPropertyDescriptor = (_t, key) => Reflect.getOwnPropertyDescriptor(settle(), key);
}

/**
 * A read-only record held as one line per entry, `key<TAB>JSON`, the lines sorted by key (code-unit order,
 * as `<` compares): an entry is found by a binary search over the text and its JSON parsed when that key is
 * first read (structs.ts: a script reads a few dozen of 1,490 layouts; parsing them all took ~5 ms, and
 * indexing every line start ~2 ms of a cold start).
 *
 * @param text Lines `key\tJSON`, separated by `\n`, sorted by key.
 * @param decode Turns a parsed entry into the public one; called once per key.
 * @returns A proxy that behaves as the plain record.
 *
 * @example Usage
 * ```ts
 * import { lazyLines } from "./_lazy_table.ts";
 * const t = lazyLines<number>("a\t[1,2]\nb\t[3]", (raw) => (raw as number[]).length);
 * console.log(t.b, Object.keys(t)); // 1 ["a", "b"]
 * ```
 */
export function lazyLines<T extends Entry>(
  text: string,
  decode: (raw: unknown, key: string) => T,
): Readonly<Record<string, T>> {
  const decoded = new Map<string, T>();
  /** Where each key's line starts (-1: no such key), for keys looked up so far. */
  const found = new Map<string, number>();
  const lineStart = (key: string): number => {
    let at = found.get(key);
    if (at !== undefined) return at;
    at = -1;
    // Candidate line starts lie in [lo, hi).
    let lo = 0;
    let hi = text.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      let start = mid;
      if (mid > 0 && text.charCodeAt(mid - 1) !== 10) {
        const newline = text.indexOf("\n", mid);
        start = newline < 0 ? text.length : newline + 1; // text.length: no line starts after mid
      }
      if (start >= hi) {
        hi = mid;
        continue;
      }
      const tab = text.indexOf("\t", start);
      const k = text.slice(start, tab);
      if (k === key) {
        at = start;
        break;
      }
      if (k < key) {
        const end = text.indexOf("\n", tab);
        lo = end < 0 ? text.length : end + 1;
      } else {
        hi = start;
      }
    }
    found.set(key, at);
    return at;
  };
  const read = (key: string): T | undefined => {
    let v = decoded.get(key);
    if (v !== undefined) return v;
    const start = lineStart(key);
    if (start < 0) return undefined;
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    v = decode(JSON.parse(text.slice(start + key.length + 1, end)), key);
    decoded.set(key, v);
    return v;
  };
  let keys: string[] | undefined;
  const allKeys = (): string[] => {
    if (keys) return keys;
    keys = [];
    for (let start = 0; start < text.length;) {
      const tab = text.indexOf("\t", start);
      const end = text.indexOf("\n", tab);
      keys.push(text.slice(start, tab));
      start = end < 0 ? text.length : end + 1;
    }
    return keys;
  };
  return readOnlyRecord(read, () => (key) => lineStart(key) >= 0, () => [...allKeys()]);
}

/**
 * A read-only array whose text is parsed and decoded on first use (all entries at once).
 *
 * @param text JSON text of an array of raw entries.
 * @param decode Turns a raw entry into the public one.
 * @returns A proxy that behaves as the plain array (`Array.isArray`, `length`, iteration, `map`).
 *
 * @example Usage
 * ```ts
 * import { lazyArray } from "./_lazy_table.ts";
 * const a = lazyArray<string>("[1,2]", (raw) => String(raw));
 * console.log(a.length, a.map((x) => x + "!")); // 2 ["1!", "2!"]
 * ```
 */
export function lazyArray<T extends Entry>(
  text: string,
  decode: (raw: unknown, index: number) => T,
): readonly T[] {
  return lazyList(text, (raws) => raws.map(decode));
}

/**
 * A read-only array whose text is parsed and decoded on first use by one call of `decodeAll` (for tables
 * with hundreds of entries: a per-entry callback run that often is compiled by Maglev, and the process's
 * first optimising compile pages in ~2.4 MiB of Deno's code).
 *
 * @param text JSON text of an array of raw entries.
 * @param decodeAll Turns the raw entries into the public ones.
 * @returns A proxy that behaves as the plain array, frozen once read.
 *
 * @example Usage
 * ```ts
 * import { lazyList } from "./_lazy_table.ts";
 * const a = lazyList<string>("[1,2]", (raws) => raws.map(String));
 * console.log(a.length, a[1]); // 2 "2"
 * ```
 */
export function lazyList<T extends Entry>(text: string, decodeAll: (raws: unknown[]) => T[]): readonly T[] {
  const target: T[] = [];
  const handler: ProxyHandler<T[]> = {
    set: () => false,
    defineProperty: () => false,
    deleteProperty: () => false,
    setPrototypeOf: () => false,
  };
  settleOnFirstUse(target, handler, (t) => t.push(...decodeAll(JSON.parse(text) as unknown[])));
  return new Proxy(target, handler);
}

/**
 * A struct of vk/generated/structs.ts from its compact entry
 * `[size, align, flags, sType or null, extends or null, members]`, each member
 * `[name, type index, offset, size, pointer, const (0/1), {count, len, bits, bitOffset}?]` (tools/_gen_emit.ts
 * writes them). Flags: 1 a union; 2 the struct opens with `VkStructureType sType` and `void* pNext`, which
 * the list leaves out; 4 that `pNext` is `const void*`. Types are indices into `types`.
 *
 * @example Usage
 * ```ts
 * import { decodeStruct } from "./_lazy_table.ts";
 * const s = decodeStruct([24, 8, 6, 7, null, [["width", 0, 16, 4, 0, 0]]], ["uint32_t"]);
 * console.log(s.members.map((m) => `${m.type} ${m.name}`)); // ["VkStructureType sType", "void pNext", "uint32_t width"]
 * ```
 */
export function decodeStruct(raw: unknown, types: readonly string[]): StructInfo {
  const [size, align, flags, sType, ext, members] = raw as [
    number,
    number,
    number,
    number | null,
    string[] | null,
    [string, number, number, number, number, number, Partial<MemberInfo>?][],
  ];
  const out: MemberInfo[] = [];
  if (flags & 2) {
    out.push({ name: "sType", type: "VkStructureType", offset: 0, size: 4, pointer: 0, const: false });
    out.push({ name: "pNext", type: "void", offset: 8, size: 8, pointer: 1, const: (flags & 4) !== 0 });
  }
  for (const [name, type, offset, size, pointer, isConst, rest] of members) {
    const m = { name, type: types[type]!, offset, size, pointer, const: isConst === 1 };
    out.push(rest === undefined ? m : { ...m, ...rest });
  }
  const s: { -readonly [K in keyof StructInfo]: StructInfo[K] } = {
    size,
    align,
    union: (flags & 1) !== 0,
    members: out,
  };
  if (sType !== null) s.sType = sType;
  if (ext !== null) s.extends = ext;
  return s;
}

/**
 * A command of vk/generated/commands.ts from its compact entry
 * `[name, level, result, ffi parameters, ffi result, aliases, providers, alias providers?]` (its index is
 * its position); its parameters come from `params` (by name) when first read.
 *
 * @example Usage
 * ```ts
 * import { decodeCommand, decodeParams } from "./_lazy_table.ts";
 * const params = { vkF: decodeParams([["device", "VkDevice", 0, 0]]) };
 * const c = decodeCommand(["vkF", "device", "void", ["pointer"], "void", [], []], 7, params);
 * console.log(c.index, c.params[0]!.type); // 7 "VkDevice"
 * ```
 */
export function decodeCommand(
  raw: unknown,
  index: number,
  params: Readonly<Record<string, readonly ParamInfo[]>> = {},
): CommandInfo {
  return decodeCommands([raw], params, index)[0]!;
}

/**
 * Every command of vk/generated/commands.ts from its compact entries (see {@linkcode decodeCommand}), in
 * one loop: the chain reads all 737 at the first instance, and a per-entry function or constructor run
 * that often is compiled by Maglev (the process's first optimising compile pages in ~2.4 MiB of Deno's
 * code). Each command is a plain object whose prototype reads its parameters from `params` when asked.
 *
 * @param raws The entries, in index order.
 * @param params Command name -> its parameters.
 * @param first The index of the first entry.
 * @returns The commands.
 *
 * @example Usage
 * ```ts
 * import { decodeCommands } from "./_lazy_table.ts";
 * const [a, b] = decodeCommands([["vkA", "device", "void", [], "void", [], []], ["vkB", "instance", "void", [], "void", [], []]], {});
 * console.log(a!.index, b!.index, b!.level); // 0 1 "instance"
 * ```
 */
export function decodeCommands(
  raws: readonly unknown[],
  params: Readonly<Record<string, readonly ParamInfo[]>>,
  first = 0,
): CommandInfo[] {
  const proto: DecodedCommand = Object.create(DecodedCommand.prototype, { [PARAMS]: { value: params } });
  const out: CommandInfo[] = [];
  for (let i = 0; i < raws.length; i++) {
    const r = raws[i] as RawCommand;
    out.push(Object.setPrototypeOf({
      name: r[0],
      index: first + i,
      level: r[1],
      result: r[2],
      ffi: { parameters: r[3], result: r[4] },
      aliases: r[5],
      providers: r[6],
      aliasProviders: r[7] ?? NO_ALIAS_PROVIDERS,
    }, proto));
  }
  return out;
}

/** The parameter table a command's prototype reads from. */
const PARAMS: unique symbol = Symbol("params");
const NO_ALIAS_PROVIDERS: readonly (readonly string[])[] = Object.freeze([]);

type RawParam = [string, string, number, number, Partial<ParamInfo>?];
type RawCommand = [
  string,
  CommandLevel,
  string,
  Deno.NativeType[],
  Deno.NativeResultType,
  string[],
  string[],
  string[][]?,
];

/**
 * A command's parameters from their compact entries `[name, type, pointer, const (0/1), {len, optional,
 * array}?]`.
 *
 * @example Usage
 * ```ts
 * import { decodeParams } from "./_lazy_table.ts";
 * console.log(decodeParams([["pName", "char", 1, 1, { len: "null-terminated" }]])[0]!.len); // "null-terminated"
 * ```
 */
export function decodeParams(raw: unknown): readonly ParamInfo[] {
  return (raw as RawParam[]).map(([name, type, pointer, isConst, rest]) =>
    rest === undefined
      ? { name, type, pointer, const: isConst === 1 }
      : { name, type, pointer, const: isConst === 1, ...rest }
  );
}

/**
 * The prototype of a decoded command (never constructed: {@linkcode decodeCommands} sets it on plain
 * objects): its parameters are read when first asked for: the chain walks every command's name, level and
 * aliases at the first instance, and only TypeScript layers read parameters (decoding all 737 commands'
 * took ~3 ms of a cold start).
 */
class DecodedCommand implements CommandInfo {
  declare readonly name: string;
  declare readonly index: number;
  declare readonly level: CommandLevel;
  declare readonly result: string;
  declare readonly ffi: { parameters: Deno.NativeType[]; result: Deno.NativeResultType };
  declare readonly aliases: readonly string[];
  declare readonly providers: readonly string[];
  /** The providers of each alias, in {@linkcode DecodedCommand.aliases} order. */
  declare readonly aliasProviders: readonly (readonly string[])[];
  declare readonly [PARAMS]: Readonly<Record<string, readonly ParamInfo[]>>;

  private constructor() {}

  get params(): readonly ParamInfo[] {
    return this[PARAMS][this.name] ?? [];
  }

  /** The plain object, with the parameters (for `JSON.stringify` and logs). */
  toJSON(): CommandInfo {
    const { name, index, level, result, params, ffi, aliases, providers } = this;
    return { name, index, level, result, params, ffi, aliases, providers };
  }
}

/**
 * A read-only record that `build` makes on first use: for tables derived from another (commands.ts's
 * name index and providers come from the command entries instead of texts of their own).
 *
 * @example Usage
 * ```ts
 * import { lazyBuilt } from "./_lazy_table.ts";
 * const t = lazyBuilt(() => new Map([["a", 1]]));
 * console.log(t.a, "b" in t); // 1 false
 * ```
 */
export function lazyBuilt<T>(build: () => ReadonlyMap<string, T>): Readonly<Record<string, T>> {
  let map: ReadonlyMap<string, T> | undefined;
  const all = () => map ??= build();
  return readOnlyRecord(
    (key) => all().get(key),
    () => (key) => all().has(key),
    () => [...all().keys()],
    all,
  );
}

/**
 * Command name or alias -> its index, from the decoded commands (each name, then its aliases).
 *
 * @example Usage
 * ```ts
 * import { commandIndex, decodeCommand } from "./_lazy_table.ts";
 * const c = decodeCommand(["vkF", "device", "void", [], "void", ["vkFKHR"], [], [["X"]]], 0);
 * console.log(commandIndex([c]).get("vkFKHR")); // 0
 * ```
 */
export function commandIndex(commands: readonly CommandInfo[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const c of commands) {
    out.set(c.name, c.index);
    for (const a of c.aliases) out.set(a, c.index);
  }
  return out;
}

/**
 * Command name or alias -> the versions and extensions that require that exact name, from the decoded
 * commands (an alias's own providers are kept with its command).
 *
 * @example Usage
 * ```ts
 * import { commandProviders, decodeCommand } from "./_lazy_table.ts";
 * const c = decodeCommand(["vkF", "device", "void", [], "void", ["vkFKHR"], ["VK_VERSION_1_1"], [["VK_KHR_f"]]], 0);
 * console.log(commandProviders([c]).get("vkFKHR")); // ["VK_KHR_f"]
 * ```
 */
export function commandProviders(commands: readonly CommandInfo[]): Map<string, readonly string[]> {
  const out = new Map<string, readonly string[]>();
  for (const c of commands) {
    out.set(c.name, c.providers);
    const own = c instanceof DecodedCommand ? c.aliasProviders : [];
    c.aliases.forEach((a, i) => out.set(a, own[i] ?? []));
  }
  return out;
}

/** An enum type's line of vk/generated/enums.ts: `[bitmask (0/1), bitwidth, prefix, [suffix, value, ...]]`. */
type RawEnumType = [number, 32 | 64, string, (string | number)[]];

/**
 * An enum type of vk/generated/enums.ts from its compact entry `[bitmask (0/1), bitwidth, prefix,
 * [suffix, value, suffix, value, ...]]`: each enumerant is the prefix plus a suffix (64-bit values are
 * decimal strings).
 *
 * @example Usage
 * ```ts
 * import { decodeEnumType } from "./_lazy_table.ts";
 * console.log(decodeEnumType([0, 32, "VK_FRONT_FACE_", ["COUNTER_CLOCKWISE", 0, "CLOCKWISE", 1]]).values);
 * // ["VK_FRONT_FACE_COUNTER_CLOCKWISE", "VK_FRONT_FACE_CLOCKWISE"]
 * ```
 */
export function decodeEnumType(raw: unknown): EnumTypeInfo {
  const [bitmask, bitwidth, prefix, pairs] = raw as RawEnumType;
  const values: string[] = [];
  for (let i = 0; i < pairs.length; i += 2) values.push(prefix + pairs[i]);
  return { bitmask: bitmask === 1, bitwidth, values };
}

/**
 * An enum type's enumerants with their values, from the compact entry {@linkcode decodeEnumType} reads
 * (64-bit values as bigint).
 *
 * @example Usage
 * ```ts
 * import { decodeEnumValues } from "./_lazy_table.ts";
 * console.log(decodeEnumValues([0, 32, "VK_FRONT_FACE_", ["COUNTER_CLOCKWISE", 0, "CLOCKWISE", 1]]));
 * // { VK_FRONT_FACE_COUNTER_CLOCKWISE: 0, VK_FRONT_FACE_CLOCKWISE: 1 }
 * ```
 */
export function decodeEnumValues(raw: unknown): Readonly<Record<string, number | bigint>> {
  const [, bitwidth, prefix, pairs] = raw as RawEnumType;
  const value = (i: number) => bitwidth === 64 ? BigInt(pairs[i + 1]!) : pairs[i + 1] as number;
  // A name is looked up by its suffix, without building the type's ~1,300 names (VkStructureType) unless
  // they are listed: the loader reads a few sTypes per instance.
  let all: Map<string, number | bigint> | undefined;
  let scans = 0;
  const read = (key: string): number | bigint | undefined => {
    if (all) return all.get(key);
    // Past a few lookups (a decoder naming every value) the map pays for itself.
    if (++scans > 8) return (keys(), all!.get(key));
    if (!key.startsWith(prefix)) return undefined;
    // The engine's own search, not a loop here: a scan of VkStructureType's ~2,600 entries run in a small
    // function is compiled by Maglev (the process's first optimising compile pages in ~2.4 MiB of Deno's
    // code). Suffixes are at even positions; a value equal to a suffix is skipped.
    const suffix = key.slice(prefix.length);
    let i = pairs.indexOf(suffix);
    while (i % 2 === 1) i = pairs.indexOf(suffix, i + 1);
    return i < 0 ? undefined : value(i);
  };
  // Listing the names (Object.keys, Object.entries) builds them all once; reads then use that map.
  const keys = (): string[] => {
    if (!all) {
      all = new Map();
      for (let i = 0; i < pairs.length; i += 2) {
        const name = prefix + pairs[i];
        if (!all.has(name)) all.set(name, value(i));
      }
    }
    return [...all.keys()];
  };
  return readOnlyRecord(read, () => (key) => read(key) !== undefined, keys);
}

/**
 * Every enumerant's value, from the enum-type lines of vk/generated/enums.ts (`type<TAB>JSON`, the
 * entries {@linkcode decodeEnumType} reads), built on first use: the 32-bit ones as numbers or the 64-bit
 * ones as bigints.
 *
 * @param text The enum-type lines.
 * @param bitwidth Which enumerants: those of 32-bit or of 64-bit types.
 * @returns A proxy that behaves as the plain record.
 *
 * @example Usage
 * ```ts
 * import { enumValues } from "./_lazy_table.ts";
 * const lines = 'VkFrontFace\t[0,32,"VK_FRONT_FACE_",["COUNTER_CLOCKWISE",0,"CLOCKWISE",1]]';
 * console.log(enumValues(lines, 32).VK_FRONT_FACE_CLOCKWISE); // 1
 * ```
 */
export function enumValues(text: string, bitwidth: 32): Readonly<Record<string, number>>;
export function enumValues(text: string, bitwidth: 64): Readonly<Record<string, bigint>>;
export function enumValues(text: string, bitwidth: 32 | 64): Readonly<Record<string, number | bigint>> {
  let values: Map<string, number | bigint> | undefined;
  const all = (): Map<string, number | bigint> => {
    if (values) return values;
    values = new Map();
    for (const line of text.split("\n")) {
      const [, width, prefix, pairs] = JSON.parse(line.slice(line.indexOf("\t") + 1)) as RawEnumType;
      if (width !== bitwidth) continue;
      for (let i = 0; i < pairs.length; i += 2) {
        const name = prefix + pairs[i];
        // A name listed twice (an alias in two groups) keeps its first value, as vk.xml has one.
        if (!values.has(name)) {
          values.set(name, width === 64 ? BigInt(pairs[i + 1]!) : pairs[i + 1] as number);
        }
      }
    }
    return values;
  };
  return readOnlyRecord(
    (key) => all().get(key),
    () => (key) => all().has(key),
    () => [...all().keys()],
    all,
  );
}
