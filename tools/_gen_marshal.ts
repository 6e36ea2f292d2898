/**
 * Emits the run-time marshalling as plain JavaScript a person can open: per struct a writer
 * (`writeVkBufferCreateInfo(m, o, v, k)`) and a reader (`readVkBufferCreateInfo(m, o)`) over the typed-array
 * views of a `Scratch` (ffi/scratch.ts), member offsets as literals, in a few files by group (core, KHR,
 * EXT, the rest), each with a small `.d.ts` declaring its tables, and `struct_marshal.js`, the index.
 *
 * @module
 */
import type { Registry } from "./_gen_registry.ts";
import type { Layouts, MemberLayout, StructLayout } from "./_gen_layout.ts";
import { header } from "./_gen_api_common.ts";

/**
 * How one element is stored (as ffi/struct_layout.ts's `MemberKind`); `bool`, a VkBool32, is a `u32` that
 * takes 1 or 0 only (docs/behaviour.md V14).
 */
type Kind = "u8" | "i8" | "u16" | "i16" | "u32" | "i32" | "bool" | "f32" | "f64" | "u64" | "i64" | "pointer";

const SIGNED = new Set(["int8_t", "int16_t", "int32_t", "int64_t", "int", "char"]);
const SHIFT: Record<string, number> = { u8: 0, i8: 0, u16: 1, i16: 1, u32: 2, i32: 2, f32: 2, f64: 3 };
const GROUPS = ["core", "khr", "ext", "vendor"] as const;
type Group = typeof GROUPS[number];

/**
 * The file a struct's writer and reader go to, by the author tag ending its name: the first rule that matches,
 * else core. The index tests the same expressions to find a struct's file without loading the others.
 */
const GROUP_RULES: readonly (readonly [Group, RegExp])[] = [
  ["vendor", /^(?!Vk)/],
  ["khr", /KHR\d*$/],
  ["ext", /EXT\d*$/],
  ["vendor", /[A-Z]{2,}\d*$/],
];

function groupOf(name: string): Group {
  return GROUP_RULES.find(([, rule]) => rule.test(name))?.[0] ?? "core";
}

class Emitter {
  #reg: Registry;
  #layouts: Layouts;
  #names: Set<string>;
  /** The group of the file being emitted: nested structs of other groups are reached through the runtime. */
  group: Group = "core";

  constructor(reg: Registry, layouts: Layouts, names: Set<string>) {
    this.#reg = reg;
    this.#layouts = layouts;
    this.#names = names;
  }

  /** A call of struct \`n\`'s writer: direct in its own file, through the runtime's lookup across files. */
  #write(n: string, args: string): string {
    return groupOf(n) === this.group ? `write${n}(${args})` : `writeNamed(${JSON.stringify(n)}, ${args})`;
  }

  /** A call of struct \`n\`'s reader (as {@linkcode Emitter.#write}). */
  #readCall(n: string, args: string): string {
    return groupOf(n) === this.group ? `read${n}(${args})` : `readNamed(${JSON.stringify(n)}, ${args})`;
  }

  #isStruct(type: string): boolean {
    const c = this.#layouts.resolve(type)?.category;
    return c === "struct" || c === "union";
  }

  /** The non-alias struct name. */
  #struct(type: string): string {
    return this.#layouts.resolve(type)!.name;
  }

  #pointerLike(type: string): boolean {
    return this.#layouts.resolve(type)?.category === "handle" || type.startsWith("PFN_");
  }

  #width(type: string): number | undefined {
    try {
      return this.#layouts.sizeOf(type).size;
    } catch {
      return undefined;
    }
  }

  #kindOfWidth(type: string, width: number | undefined): Kind | undefined {
    if (type === "VkBool32") return "bool";
    if (type === "float") return "f32";
    if (type === "double") return "f64";
    const signed = SIGNED.has(type);
    switch (width) {
      case 1:
        return signed ? "i8" : "u8";
      case 2:
        return signed ? "i16" : "u16";
      case 4:
        return signed ? "i32" : "u32";
      case 8:
        return signed ? "i64" : "u64";
    }
    return undefined;
  }

  /** How an in-place element of member `m` is stored. */
  #kind(m: MemberLayout): Kind | undefined {
    if (m.pointer > 0 || this.#pointerLike(m.type)) return "pointer";
    return this.#kindOfWidth(m.type, m.bits !== undefined ? m.size : m.size / (m.count ?? 1));
  }

  /** How one pointed-to element of a single-level pointer member is stored ("bytes" for void). */
  #pointee(m: MemberLayout): [Kind | "bytes", number] {
    if (m.pointer > 1 || this.#pointerLike(m.type)) return ["pointer", 8];
    if (m.type === "void" || m.type === "char") return ["bytes", 1];
    const w = this.#width(m.type) ?? 4;
    return [this.#kindOfWidth(m.type, w) ?? "bytes", w];
  }

  /** The count member a `len` names, with its bytes-per-element factor (as ffi/struct_layout.ts). */
  #countOf(l: StructLayout, m: MemberLayout): { name: string; scale: number } | undefined {
    if (m.len === undefined) return undefined;
    const first = m.len.split(",")[0]!.trim();
    if (/^[A-Za-z_]\w*$/.test(first)) {
      return l.members.some((x) => x.name === first && x.pointer === 0)
        ? { name: first, scale: 1 }
        : undefined;
    }
    const bytes = /(?:\\textrm\{)?([A-Za-z_]\w*)\}?\s*(?:\/|\\over)\s*(\d+)/.exec(first);
    if (bytes && l.members.some((x) => x.name === bytes[1] && x.pointer === 0)) {
      return { name: bytes[1]!, scale: Number(bytes[2]) };
    }
    return undefined;
  }

  /** The store of a scalar of `kind` at byte expression `at`. */
  #store(kind: Kind, at: string, x: string, S: string, K: string): string {
    if (kind === "u64" || kind === "i64") {
      return `put${kind === "i64" ? "i" : ""}64(m, ${at}, ${x}, ${S}, ${K})`;
    }
    if (kind === "pointer") return `putPointer(m, ${at}, ${x}, ${S}, ${K})`;
    return `${kind}(m, ${at}, ${x}, ${S}, ${K})`;
  }

  writer(l: StructLayout): string {
    const name = l.name;
    const S = "S";
    const lines: string[] = [`const S = ${JSON.stringify(name)};`];
    const at = (off: number) => off === 0 ? "o" : `o + ${off}`;
    const counts = new Map<string, number>();
    const countNames = new Set<string>();
    for (const m of l.members) {
      const c = this.#countOf(l, m);
      if (c && m.pointer > 0 && m.name !== "pNext") countNames.add(c.name);
    }
    let slot = 0;
    for (const name of countNames) {
      counts.set(name, slot);
      lines.push(`let n${slot} = -1, f${slot} = "";`);
      slot++;
    }
    if (l.sType !== undefined) lines.push(`m.u32[${at(0)} >> 2] = ${l.sType};`);
    lines.push(`let seen = 0, x;`);
    const tail: string[] = [];
    const required = this.#required(l.name);
    const needed = this.#neededArrays(l, required);
    for (const m of l.members) {
      const K = JSON.stringify(m.name);
      const what = required.get(m.name);
      // A required member: one loose test sends undefined and null to the throw (docs/behaviour.md V13).
      const get = `(x = v.${/^[A-Za-z_$][\w$]*$/.test(m.name) ? m.name : `[${K}]`}) ${
        what !== undefined ? "!= null" : "!== undefined"
      }`;
      const simple = this.#simple(m);
      const block = (simple
        ? `if (${get}) seen += ${this.#store(simple, at(m.offset), "x", S, K)};`
        : `if (${get}) {\nseen++;\n${this.#member(l, m, at(m.offset), S, K, counts)}\n}`) +
        (what === undefined
          ? ""
          : ` else missing(v, ${S}, ${K}, x${what === "pointer" ? "" : `, ${JSON.stringify(what)}`});`);
      if (countNames.has(m.name)) {
        const n = counts.get(m.name)!;
        const store = (value: string) =>
          this.#store(simple!, at(m.offset), value, S, K);
        const arrays = l.members.filter((a) =>
          a.pointer > 0 && a.name !== "pNext" && this.#countOf(l, a)?.name === m.name
        );
        const bytes = arrays.some((a) => a.type === "void" || this.#countOf(l, a)!.scale !== 1);
        // A count not 0 needs each array vk.xml does not let be null (docs/behaviour.md V15); a lone array that
        // gave the count's length is there.
        const need = arrays.filter((a) => needed.has(a.name)).map((a) => a.name);
        const absent = (value: string) => {
          if (need.length === 0) return "";
          const nulls = need.map((a) => `v.${a} == null`).join(" || ");
          const which = need.length === 1
            ? JSON.stringify(need[0])
            : `${JSON.stringify(need)}.find((a) => v[a] == null)`;
          const test = `${arrays.length === 1 ? `n${n} < 0 && ` : ""}${value} != 0 && ${
            need.length === 1 ? nulls : `(${nulls})`
          }`;
          return `\nif (${test}) absent(v, ${S}, ${K}, ${value}, ${which});`;
        };
        // Given beside its array, a count must not exceed the array's length (docs/behaviour.md V15).
        tail.push(`if (${get}) {
seen += ${store("x")};
if (n${n} >= 0) covers(x, n${n}, ${S}, ${K}, f${n}${bytes ? `, "byte"` : ""});${absent("x")}
} else if (n${n} >= 0) {
${store(`n${n}`)};${arrays.length === 1 ? "" : absent(`n${n}`)}
}`);
      } else lines.push(block);
    }
    lines.push(...tail);
    // The unknown-member check counts the literal's keys here, not in a shared helper: a for-in at a site that
    // sees every struct's literals goes megamorphic (V8 then enumerates keys the slow way).
    lines.push(`let keys = 0;`, `for (const _ in v) keys++;`, `if (seen + k !== keys) unknown(v, ${S});`);
    return `/** Writes \`v\` as ${name} (${l.size} bytes) at byte \`o\` of \`m\`; \`k\` extra keys are allowed (a link's \`type\`). */
function write${name}(m, o, v, k) {
${lines.join("\n")}
}`;
  }

  /**
   * The members of `struct` that must be given whenever it is written (docs/behaviour.md V13), each with what
   * it is: "pointer", or its handle type. vk.xml marks them neither \`optional\` nor \`noautovalidity\`; a
   * pointer's \`len\` (if any) names no \`optional\` count (which would let the pointer be null with a count
   * of 0). None for unions and returned-only structs. The input types follow the same rule
   * (tools/_gen_api_structs.ts).
   */
  #required(struct: string): Map<string, string> {
    const t = this.#layouts.resolve(struct);
    const required = new Map<string, string>();
    if (!t || t.category === "union" || t.returnedOnly) return required;
    const members = t.members ?? [];
    const byName = new Map(members.map((m) => [m.name, m]));
    for (const m of members) {
      if (m.name === "pNext" || m.optional || m.noautovalidity) continue;
      if (m.pointer === 0) {
        if (!m.dims.length && this.#layouts.resolve(m.type)?.category === "handle") {
          required.set(m.name, m.type);
        }
        continue;
      }
      // The count a \`len\` names (\`queueCreateInfoCount\`, or \`codeSize\` inside pCode's latexmath).
      const ref = m.len?.match(/[A-Za-z_]\w*/g)?.find((w) => byName.has(w));
      if (ref === undefined || !byName.get(ref)!.optional) required.set(m.name, "pointer");
    }
    return required;
  }

  /**
   * The arrays of `l` that must not be null while their count is not 0 (docs/behaviour.md V15): those vk.xml
   * marks neither \`optional\` nor \`noautovalidity\` (\`pViewports\`, ignored under dynamic state, is
   * optional), in a struct that is neither a union nor returned-only, and not required anyway.
   */
  #neededArrays(l: StructLayout, required: Map<string, string>): Set<string> {
    const t = this.#layouts.resolve(l.name);
    if (!t || t.category === "union" || t.returnedOnly) return new Set();
    return new Set(
      (t.members ?? []).filter((m) =>
        m.pointer > 0 && m.name !== "pNext" && !m.optional && !m.noautovalidity && !required.has(m.name)
      ).map((m) => m.name),
    );
  }

  /**
   * Whether member `member` of `struct` is an array of handles whose elements must be valid handles (docs/behaviour.md
   * V12): vk.xml lets them be \`VK_NULL_HANDLE\` with a second \`optional\` value or \`noautovalidity\`.
   */
  #validHandles(struct: string, member: string): boolean {
    const m = this.#layouts.resolve(struct)?.members?.find((x) => x.name === member);
    return m !== undefined && this.#layouts.resolve(m.type)?.category === "handle" && !m.elementsOptional &&
      !m.noautovalidity;
  }

  /** The kind of a member stored by one helper call (a scalar, handle or pointer in place), else undefined. */
  #simple(m: MemberLayout): Kind | undefined {
    if (m.bits !== undefined || m.pointer > 0 || m.count !== undefined || this.#isStruct(m.type)) {
      return undefined;
    }
    return this.#kind(m);
  }

  #member(
    l: StructLayout,
    m: MemberLayout,
    at: string,
    S: string,
    K: string,
    counts: Map<string, number>,
  ): string {
    if (m.bits !== undefined) return `bits(m, ${at}, ${m.bits}, ${m.bitOffset ?? 0}, x, ${S}, ${K});`;
    if (m.pointer === 0) {
      if (m.count === undefined) {
        if (this.#isStruct(m.type)) {
          const n = this.#struct(m.type);
          return `if (typeof x !== "object" || x === null) badValue(${S}, ${K}, x, "an object");\n${
            this.#write(n, `m, ${at}, x, 0`)
          };`;
        }
        return `badValue(${S}, ${K}, x, "nothing: its type cannot be written from JavaScript");`;
      }
      if (m.type === "char") return `fixedString(m, ${at}, ${m.count}, x, ${S}, ${K});`;
      const step = m.size / m.count;
      if (this.#isStruct(m.type)) {
        const n = this.#struct(m.type);
        return `if (!Array.isArray(x) || x.length > ${m.count}) badValue(${S}, ${K}, x, "an array of at most ${m.count} objects");
for (let i = 0; i < x.length; i++) ${this.#write(n, `m, ${at} + i * ${step}, x[i], 0`)};`;
      }
      const kind = this.#kind(m);
      if (!kind) return `badValue(${S}, ${K}, x, "nothing: its type cannot be written from JavaScript");`;
      return `fixedArray(m, ${at}, ${JSON.stringify(kind)}, ${step}, ${m.count}, x, ${S}, ${K});`;
    }
    if (m.name === "pNext") return `writeChain(m, ${at}, x, ${S});`;
    const count = this.#countOf(l, m);
    const n = count ? counts.get(count.name) : undefined;
    const record = (statements: string) =>
      `${n === undefined && !statements.startsWith("t = ") ? "" : "let t = -1;\n"}${statements}${
        n === undefined ? "" : `
if (t >= 0) {
if (n${n} >= 0 && n${n} !== t) mismatch(${S}, ${JSON.stringify(count!.name)}, f${n}, n${n}, ${K}, t);
n${n} = t;
f${n} = ${K};
}`
      }`;
    const set = (e: string) => n === undefined ? `${e};` : `t = ${e};`;
    const scale = count && m.type !== "void" ? count.scale : 1;
    const scaled = (e: string) => scale === 1 ? e : `${e} * ${scale}`;
    if (m.type === "char" && m.pointer === 1) return record(set(`str(m, ${at}, x, ${S}, ${K})`));
    if (m.type === "char" && m.pointer === 2) return record(set(`strings(m, ${at}, x, ${S}, ${K})`));
    if (this.#isStruct(m.type) && m.pointer === 1) {
      const s = this.#layouts.layout(this.#struct(m.type));
      const w = (args: string) => this.#write(s.name, args);
      return record(`t = pointee(m, ${at}, x, ${s.size}, ${S}, ${K});
if (t === -2) {
if (!Array.isArray(x)) {
const c = m.alloc(${s.size}, ${s.align});
${w("m, c, x, 0")};
putAddress(m, ${at}, m.base + c);
t = 1;
} else if (x.length !== 0) {
const c = m.alloc(${s.size} * x.length, ${s.align});
let i = 0;
try {
for (; i < x.length; i++) ${w(`m, c + i * ${s.size}, element(x[i], ${S}, ${K}), 0`)};
} catch (e) {
throw inElement(e, ${K}, i);
}
putAddress(m, ${at}, m.base + c);
t = x.length;
} else t = 0;
}`);
    }
    if (this.#isStruct(m.type)) {
      return record(set(`structPointers(m, ${at}, x, ${JSON.stringify(this.#struct(m.type))}, ${S}, ${K})`));
    }
    if (m.pointer === 1 && this.#validHandles(l.name, m.name)) {
      return record(set(`handles(m, ${at}, x, ${JSON.stringify(m.type)}, ${S}, ${K})`));
    }
    const [kind, size] = this.#pointee(m);
    return record(set(scaled(`array(m, ${at}, x, ${JSON.stringify(kind)}, ${size}, ${S}, ${K})`)));
  }

  reader(l: StructLayout): string {
    const at = (off: number) => off === 0 ? "o" : `o + ${off}`;
    const fields = l.members.map((m) => {
      const key = /^[A-Za-z_$][\w$]*$/.test(m.name) ? m.name : JSON.stringify(m.name);
      return `${key}: ${this.#read(m, at(m.offset))},`;
    });
    return `/** Reads ${l.name} (${l.size} bytes) at byte \`o\` of \`m\`. */
function read${l.name}(m, o) {
return {
${fields.join("\n")}
};
}`;
  }

  #read(m: MemberLayout, at: string): string {
    if (m.bits !== undefined) {
      const mask = m.bits >= 32 ? 0xffffffff : (1 << m.bits) - 1;
      return `(m.u32[(${at}) >> 2] >>> ${m.bitOffset ?? 0}) & ${mask}`;
    }
    if (m.pointer > 0) return `getPointer(m, ${at})`;
    if (m.count === undefined) {
      if (this.#isStruct(m.type)) return this.#readCall(this.#struct(m.type), `m, ${at}`);
      return this.#load(this.#kind(m), at);
    }
    if (m.type === "char") return `fixedStringAt(m, ${at}, ${m.count})`;
    const step = m.size / m.count;
    if (this.#isStruct(m.type)) {
      const n = this.#struct(m.type);
      return `[${
        Array.from({ length: m.count }, (_, i) => this.#readCall(n, `m, ${at} + ${i * step}`)).join(", ")
      }]`;
    }
    const kind = this.#view(this.#kind(m)) ?? "u8";
    return `fixedArrayAt(m, ${at}, ${JSON.stringify(kind)}, ${step}, ${m.count})`;
  }

  /** The typed-array view a value of `kind` is read through (a VkBool32 reads back as the number stored). */
  #view(kind: Kind | undefined): Exclude<Kind, "bool"> | undefined {
    return kind === "bool" ? "u32" : kind;
  }

  #load(stored: Kind | undefined, at: string): string {
    const kind = this.#view(stored);
    if (!kind) return "undefined";
    if (kind === "pointer") return `getPointer(m, ${at})`;
    if (kind === "u64" || kind === "i64") return `m.${kind}[(${at}) >> 3]`;
    const shift = SHIFT[kind]!;
    return `m.${kind}[${shift ? `(${at}) >> ${shift}` : at}]`;
  }
}

const RUNTIME = [
  "array",
  "bool",
  "f32",
  "f64",
  "i16",
  "i32",
  "i8",
  "u16",
  "u32",
  "u8",
  "badValue",
  "bits",
  "element",
  "inElement",
  "fixedArray",
  "fixedArrayAt",
  "fixedString",
  "fixedStringAt",
  "handles",
  "getPointer",
  "mismatch",
  "missing",
  "covers",
  "absent",
  "num",
  "pointee",
  "put64",
  "puti64",
  "putAddress",
  "putPointer",
  "str",
  "strings",
  "unknown",
  "writeChain",
  "structPointers",
  "writeNamed",
  "readNamed",
];

/** The generated marshalling files: file name -> text. */
export function emitMarshal(reg: Registry, layouts: Layouts): { files: Map<string, string>; count: number } {
  const names = [...reg.types.values()].filter((t) =>
    (t.category === "struct" || t.category === "union") && !t.alias
  ).map((t) => t.name).sort();
  const e = new Emitter(reg, layouts, new Set(names));
  const byGroup = new Map<Group, string[]>(GROUPS.map((g) => [g, []]));
  for (const n of names) byGroup.get(groupOf(n))!.push(n);
  const files = new Map<string, string>();
  for (const g of GROUPS) {
    const list = byGroup.get(g)!;
    e.group = g;
    const body = list.map((n) => {
      const l = layouts.layout(n);
      return `${e.writer(l)}\n\n${e.reader(l)}`;
    });
    const text = body.join("\n");
    const used = (name: string) => new RegExp(`\\b${name}\\(`).test(text);
    const table = list.map((n) => {
      const l = layouts.layout(n);
      return `${n}: [write${n}, read${n}, ${l.size}, ${l.align}],`;
    });
    files.set(
      `struct_${g}.js`,
      `// @ts-self-types="./struct_${g}.d.ts"
${
        header(
          reg,
          `The writers and readers of the ${
            g === "core"
              ? "core structs (no author tag)"
              : g === "vendor"
              ? "other authors' structs"
              : `${g.toUpperCase()} structs`
          }: offsets as literals, over a \`Scratch\`'s typed-array views (ffi/scratch.ts).`,
        )
      }
import { ${RUNTIME.filter(used).sort().join(", ")} } from "../_struct_runtime.ts";

/**
 * Defines the group's writers and readers and returns its table: struct name -> [writer, reader, size,
 * alignment]. The index calls it once, when a struct of the group is first asked for: V8 sets up every
 * function of a module when it is imported, the functions inside a function only when that one first runs,
 * so importing this file costs little more than reading it (docs/performance.md, "Time to first instance").
 */
export function structs() {
${body.join("\n\n")}

return {
${table.join("\n")}
};
}
`,
    );
    files.set(
      `struct_${g}.d.ts`,
      `${
        header(
          reg,
          `Declarations of struct_${g}.js: its table (the functions are reached through struct_marshal.js).`,
        )
      }
import type { StructEntry } from "../_struct_runtime.ts";

/** Defines the group's writers and readers; returns struct name -> [writer, reader, size, alignment]. */
export declare function structs(): Readonly<Record<string, StructEntry>>;
`,
    );
  }
  files.set(
    "struct_marshal.js",
    `// @ts-self-types="./struct_marshal.d.ts"
${header(reg, "The index of the generated struct writers and readers: a struct's entry by name.")}
${GROUPS.map((g) => `import { structs as ${g} } from "./struct_${g}.js";`).join("\n")}
import { STRUCT_ALIASES } from "./structs.ts";

/** Each group's table, made when a struct of the group is first asked for. */
const tables = {};

/** The group of struct ${"`n`"}: by the author tag ending its name (as tools/_gen_marshal.ts splits them). */
function tableOf(n) {
  ${GROUP_RULES.map(([g, rule]) => `if (${rule}.test(n)) return (tables.${g} ??= ${g}());`).join("\n  ")}
  return (tables.core ??= core());
}

/** Struct ${"`name`"}'s [writer, reader, size, alignment], aliases followed; undefined for no such struct. */
export function structEntry(name) {
  const n = Object.hasOwn(STRUCT_ALIASES, name) ? STRUCT_ALIASES[name] : name;
  const table = tableOf(n);
  return Object.hasOwn(table, n) ? table[n] : undefined;
}
`,
  );
  files.set(
    "struct_marshal.d.ts",
    `${header(reg, "Declarations of struct_marshal.js.")}
import type { StructEntry } from "../_struct_runtime.ts";

/** Struct \`name\`'s [writer, reader, size, alignment], aliases followed; undefined for no such struct. */
export declare function structEntry(name: string): StructEntry | undefined;
`,
  );
  return { files, count: names.length };
}
