/**
 * Emits the idiomatic API's per-command data from the registry: `vk_idiomatic.ts` (every
 * command's idiomatic signature, type-only) and, through tools/_gen_idiomatic_code.ts, `idiomatic_commands.js`
 * (every command's function, from its marshalling plan). One analysis per command feeds both, so the types
 * and the run-time shape cannot disagree (api/README.md describes the shapes).
 *
 * @module
 */
import type { Decl, Registry } from "./_gen_registry.ts";
import type { Layouts } from "./_gen_layout.ts";
import { declarationsHeader, doc, paramName, TypeMapper } from "./_gen_api_common.ts";
import { emitIdiomaticCode } from "./_gen_idiomatic_code.ts";

/**
 * What a C parameter becomes (the plan's first element; the rest depends on the role):
 * - `v` a value given as is [its default when left out, the kind of a 64-bit integer also taken as a
 *   number]; `b` a VkBool32 given as boolean; `n` pAllocator, always null;
 * - `s` a C string [optional]; `st` a struct literal [struct, optional];
 * - `a` an input array [element kind, element, optional, elements may be null (1; handles)]; `c` a count
 *   filled from arrays [ffi kind, array parameters]; `fix` a fixed-size array [ffi kind, length]; `buf` bytes
 *   C writes into [optional];
 *   `raw` a pointer given as is;
 * - outputs: `oh` a handle; `os` a struct [struct, takes a chain]; `ox` a scalar [ffi kind or "bool"];
 *   `om` mapped memory [how to find memory, offset and size]; `op` a pointer; `oa` an array of a size the
 *   inputs give [element kind, element, size, count required, takes a chain?]; `tc` / `ta` a two-call count
 *   and its arrays [element kind, element, count parameter, takes a chain?]. "Takes a chain" (1) is there
 *   only for struct elements that other structs extend: each element gets its own copy of the chain asked for.
 */
type Role = [string, ...unknown[]];

/** The plan of one command: result kind (0 void, 1 VkResult, 2 value, 3 VkBool32), returned codes, roles. */
type Plan = [number, string[], Role[]];

interface Analysis {
  plan: Plan;
  signature: string;
  /** For a command whose output array takes a chain: the JSDoc saying so, with an example. */
  chainDoc?: string;
}

const SCALAR_OUT_EXCLUDED = new Set(["void", "char"]);
/** The FFI kinds of integers narrower than 64 bits: a parameter of one is range-tested (docs/behaviour.md V14). */
const NARROW = new Set(["u8", "i8", "u16", "i16", "u32", "i32"]);

/** `vkCreateBuffer` -> `createBuffer`. */
export function idiomaticName(command: string): string {
  return command[2]!.toLowerCase() + command.slice(3);
}

/** `pPhysicalDevices` -> `physicalDevices`, `ppData` -> `data`. */
function outputName(param: string): string {
  const m = /^p+([A-Z].*)$/.exec(param);
  const base = m ? m[1]! : param;
  return paramName(base[0]!.toLowerCase() + base.slice(1));
}

class Analyzer {
  #reg: Registry;
  #layouts: Layouts;
  #map: TypeMapper;
  /** Struct names whose pNext chain other structs extend -> the first of them (registry order). */
  #chained = new Map<string, string>();

  constructor(reg: Registry, layouts: Layouts, map: TypeMapper) {
    this.#reg = reg;
    this.#layouts = layouts;
    this.#map = map;
    for (const t of reg.types.values()) {
      // The example's link: a core struct where there is one (no vendor suffix), else the first.
      for (const p of t.structExtends ?? []) {
        const had = this.#chained.get(p);
        if (had === undefined || (/[A-Z]{2,}$/.test(had) && !/[A-Z]{2,}$/.test(t.name))) {
          this.#chained.set(p, t.name);
        }
      }
    }
  }

  #category(type: string): string | undefined {
    return this.#layouts.resolve(type)?.category;
  }

  #isStruct(type: string): boolean {
    const c = this.#category(type);
    return c === "struct" || c === "union";
  }

  #ffi(type: string): string {
    if (type === "VkBool32") return "bool";
    return String(this.#layouts.ffiType({ type, pointer: 0, dims: [] }));
  }

  /**
   * The FFI kind of a 64-bit integer that may also be given as a number (docs/api.md, "64-bit values"):
   * `uint64_t`, `VkDeviceSize`, `size_t`, ...; not flags, enums or handles, which stay strict.
   */
  #wide(type: string): string | undefined {
    if (!this.#scalar(type)) return undefined;
    const ffi = this.#ffi(type);
    if (!["u64", "i64", "usize", "isize"].includes(ffi)) return undefined;
    const category = this.#layouts.resolve(type)?.category;
    return category === "bitmask" || category === "enum" ? undefined : ffi;
  }

  /** Whether a value of `type` can be read or written by value (not an external struct such as X11's `Display`). */
  #scalar(type: string): boolean {
    try {
      this.#ffi(type);
      return true;
    } catch {
      return false;
    }
  }

  /** The TypeScript type of one element of kind `kind`. */
  #elementTs(kind: string, type: string): string {
    if (kind === "struct") return `VkStructs["${type}"]`;
    if (kind === "handle") return type;
    const ffi = this.#ffi(type);
    if (ffi === "bool") return "boolean";
    return this.#map.value(type, "result");
  }

  /** An input array's element type: as an output's, and a 64-bit integer also as a number. */
  #inputElementTs(type: string): string {
    const ts = this.#elementTs("scalar", type);
    return this.#wide(type) && !ts.includes("number") ? `${ts} | number` : ts;
  }

  /** Whether output elements of `kind` `element` take a pNext chain: structs other structs extend. */
  #chainable(kind: string, element: string): boolean {
    return kind === "struct" && this.#chained.has(element);
  }

  #elementKind(p: Decl): [string, string] {
    if (p.type === "void" || !this.#scalar(p.type) && !this.#isStruct(p.type)) return ["bytes", ""];
    if (p.type === "char" && p.pointer === 2) return ["strings", ""];
    if (this.#isStruct(p.type)) return ["struct", p.type];
    if (this.#category(p.type) === "handle") return ["handle", p.type];
    return ["scalar", this.#ffi(p.type)];
  }

  analyze(name: string): Analysis {
    const cmd = this.#reg.commands.get(name)!;
    const params = cmd.params;
    const index = new Map(params.map((p, i) => [p.name, i]));
    const roles: (Role | undefined)[] = params.map(() => undefined);
    // Count parameters: value parameters that input arrays are sized by, and count pointers of two-call pairs.
    const countedBy = new Map<number, number[]>();
    const twoCall = new Map<number, number[]>();
    params.forEach((p, i) => {
      if (p.pointer === 0 || !p.len || p.dims.length) return;
      const len = p.len.split(",")[0]!;
      const j = index.get(len);
      if (j === undefined) return;
      const q = params[j]!;
      if (q.pointer === 0 && q.dims.length === 0 && (p.const || p.type === "void")) {
        countedBy.set(j, [...countedBy.get(j) ?? [], i]);
      } else if (q.pointer === 1 && !q.const && !p.const) {
        twoCall.set(j, [...twoCall.get(j) ?? [], i]);
      }
    });
    params.forEach((p, i) => {
      if (roles[i]) return;
      if (twoCall.has(i)) {
        roles[i] = ["tc", this.#ffi(p.type)];
        for (const k of twoCall.get(i)!) {
          const [kind, element] = this.#elementKind(params[k]!);
          roles[k] = this.#chainable(kind, element) ? ["ta", kind, element, i, 1] : ["ta", kind, element, i];
        }
        return;
      }
      if (countedBy.has(i)) {
        const arrays = countedBy.get(i)!;
        // A count that only sizes outputs C writes stays a parameter the caller gives.
        if (arrays.some((k) => params[k]!.const || params[k]!.type === "void")) {
          roles[i] = ["c", this.#ffi(p.type), arrays];
          return;
        }
      }
      roles[i] = this.#role(p, params, index, countedBy);
    });
    const plan: Plan = [0, [], roles as Role[]];
    const successCodes = cmd.successCodes.filter((c) => c !== "VK_SUCCESS");
    const hasTwoCall = twoCall.size > 0;
    const codes = successCodes.filter((c) => !(hasTwoCall && c === "VK_INCOMPLETE"));
    if (cmd.result === "VkResult") {
      plan[0] = 1;
      if (codes.length) plan[1] = ["VK_SUCCESS", ...codes];
    } else if (cmd.result === "VkBool32") plan[0] = 3;
    else if (cmd.result !== "void") plan[0] = 2;
    return {
      plan,
      signature: this.#signature(name, cmd.result, params, plan),
      chainDoc: this.#chainDoc(name, params, plan),
    };
  }

  /**
   * The doc of a command with an output that takes a chain: the rule (the same for one struct and for an
   * array of them), and an example that type-checks where every input is a value or a struct literal.
   */
  #chainDoc(name: string, params: Decl[], plan: Plan): string | undefined {
    const roles = plan[2];
    const k = roles.findIndex((r) =>
      (r[0] === "os" && r[2] === 1) || (r[0] === "oa" && r[5] === 1) || (r[0] === "ta" && r[4] === 1)
    );
    if (k < 0) return undefined;
    const array = roles[k]![0] !== "os";
    const element = String(roles[k]![array ? 2 : 1]);
    const link = this.#chained.get(element)!;
    const out = outputName(params[k]!.name);
    const text = array
      ? [
        `\`${name}\`, idiomatic.`,
        `\`chain\` names structs that extend \`${element}\`, as for a single output struct: every element of`,
        `\`${out}\` gets its own copy of that pNext chain before the command fills the array, and reads`,
        `it back by name in its \`chain\`.`,
      ]
      : [
        `\`${name}\`, idiomatic.`,
        `\`chain\` names structs that extend \`${element}\`: they are linked to the pNext of \`${out}\` for the`,
        `command to fill, and read back by name in its \`chain\` (an output array of such structs takes one the`,
        `same way, each element its own copy).`,
      ];
    const inputs = roles.flatMap((r, i) =>
      ["v", "b", "s", "st", "a", "fix", "buf", "raw"].includes(String(r[0])) ? [params[i]!] : []
    );
    const types = new Set<string>();
    const typed = roles.flatMap((r, i) => {
      if (!["v", "st"].includes(String(r[0]))) return [];
      const p = params[i]!;
      const ts = r[0] === "st" ? `VkStructInputs["${p.type}"]` : this.#map.param(p, name);
      if (r[0] === "st") types.add("VkStructInputs");
      else for (const m of ts.matchAll(/\b(Vk\w+)\b/g)) if (this.#map.declared.has(m[1]!)) types.add(m[1]!);
      return [`${paramName(p.name)}: ${ts}`];
    });
    if (typed.length !== inputs.length) return text.join("\n");
    // Returned alone, or in an object with the result or other outputs (as #signature builds it).
    const outputs = roles.filter((r) => r[0]!.startsWith("o") || r[0] === "ta").length;
    const single = plan[1].length === 0 && plan[0] < 2 && outputs === 1;
    const args = [...inputs.map((p) => paramName(p.name)), `["${link}"]`].map((a) => `    ${a},`);
    return [
      ...text,
      ``,
      array ? `@example Each element with the chain asked for` : `@example The chain asked for`,
      "```ts",
      `import type { ${["VkApi", ...[...types].sort()].join(", ")} } from "@vkdeno/loader";`,
      `export function query(vk: VkApi${typed.map((t) => `, ${t}`).join("")}) {`,
      `  const ${single ? out : `{ ${out} }`} = vk.${idiomaticName(name)}(`,
      ...args,
      `  );`,
      array ? `  return ${out}.map((element) => element.chain.${link});` : `  return ${out}.chain.${link};`,
      `}`,
      "```",
    ].join("\n");
  }

  #role(p: Decl, params: Decl[], index: Map<string, number>, countedBy: Map<number, number[]>): Role {
    const opt = p.optional === true;
    if (p.dims.length) return ["fix", this.#ffi(p.type), p.dims.reduce((a, b) => a * b, 1)];
    if (p.pointer === 0) {
      if (p.type === "VkBool32") return ["b"];
      // A 64-bit integer also taken as a number carries its kind, for the run-time check; a narrower one its
      // own (u32, i32, u16...), for the range test.
      const ffi = this.#ffi(p.type);
      const kind = this.#wide(p.type) ?? (NARROW.has(ffi) ? ffi : undefined);
      // vk.xml allows 0 (VK_NULL_HANDLE for a handle): the default when left out.
      const zero = !opt
        ? undefined
        : ffi === "pointer"
        ? "null"
        : ffi === "u64" || ffi === "i64"
        ? "0n"
        : "0";
      return kind ? ["v", zero, kind] : zero === undefined ? ["v"] : ["v", zero];
    }
    if (p.type === "VkAllocationCallbacks") return ["n"];
    const len = p.len?.split(",")[0];
    const lenIndex = len === undefined ? undefined : index.get(len);
    if (p.const) {
      if (p.type === "char" && p.pointer === 1) return ["s", opt];
      if (p.pointer === 1 && this.#isStruct(p.type) && len === undefined) return ["st", p.type, opt];
      if (p.type === "void" && p.pointer === 1 && len === undefined) return ["a", "bytes", "", opt];
      if (len !== undefined && (p.pointer === 1 || (p.type === "char" && p.pointer === 2))) {
        const [kind, element] = this.#elementKind(p);
        const counted = lenIndex !== undefined && countedBy.has(lenIndex);
        const role: Role = ["a", kind, element, opt || (counted && params[lenIndex!]!.optional === true)];
        // Handles that may be VK_NULL_HANDLE: vk.xml's element-level \`optional\`, or rules written by hand
        // (\`noautovalidity\`: vkFreeCommandBuffers' "valid handle or NULL").
        return kind === "handle" && (p.elementsOptional || p.noautovalidity) ? [...role, 1] : role;
      }
      return ["raw"];
    }
    // Non-const: C writes here.
    if (p.pointer === 2 && p.type === "void") {
      const memory = index.get("memory"), offset = index.get("offset"), size = index.get("size");
      if (memory !== undefined && offset !== undefined && size !== undefined) {
        return ["om", [memory, offset, size]];
      }
      const info = params.findIndex((q) =>
        q.pointer === 1 && q.const && this.#isStruct(q.type) &&
        ["memory", "offset", "size"].every((m) =>
          this.#layouts.layout(q.type).members.some((x) => x.name === m)
        )
      );
      return info >= 0 ? ["om", [info]] : ["op"];
    }
    if (p.pointer !== 1) return ["raw"];
    if (len !== undefined) {
      if (lenIndex !== undefined && params[lenIndex]!.pointer === 0) {
        if (p.type === "void") return ["buf", opt];
        const [kind, element] = this.#elementKind(p);
        // A count vk.xml requires is at least 1 (valid usage): the array type says so.
        const role: Role = ["oa", kind, element, [lenIndex], params[lenIndex]!.optional === true ? 0 : 1];
        return this.#chainable(kind, element) ? [...role, 1] : role;
      }
      const arrow = /^(\w+)->(\w+)$/.exec(len);
      const from = arrow ? index.get(arrow[1]!) : undefined;
      if (arrow && from !== undefined && this.#isStruct(params[from]!.type)) {
        const [kind, element] = this.#elementKind(p);
        const member = this.#layouts.resolve(params[from]!.type)?.members?.find((m) => m.name === arrow[2]);
        const required = member !== undefined && member.optional !== true ? 1 : 0;
        if (kind !== "bytes") {
          const role: Role = ["oa", kind, element, [from, arrow[2]], required];
          return this.#chainable(kind, element) ? [...role, 1] : role;
        }
      }
      return ["raw"];
    }
    if (this.#category(p.type) === "handle") return ["oh"];
    if (this.#isStruct(p.type)) return ["os", p.type, this.#chained.has(p.type) ? 1 : 0];
    if (SCALAR_OUT_EXCLUDED.has(p.type) || !this.#scalar(p.type)) return ["raw"];
    return ["ox", this.#ffi(p.type)];
  }

  #signature(name: string, result: string, params: Decl[], plan: Plan): string {
    const [, codes, roles] = plan;
    const inputs: { name: string; ts: string; optional: boolean }[] = [];
    const outputs: { name: string; ts: string }[] = [];
    let chainOf: string | undefined;
    roles.forEach((role, i) => {
      const p = params[i]!;
      const pn = paramName(p.name);
      switch (role[0]) {
        case "v": {
          const ts = this.#map.param(p, name);
          inputs.push({
            name: pn,
            // A 64-bit integer (not flags or an enum) is also taken as a number.
            ts: role[2] !== undefined && !NARROW.has(String(role[2])) && !ts.includes("number")
              ? `${ts} | number`
              : ts,
            optional: role[1] !== undefined,
          });
          break;
        }
        case "b":
          inputs.push({ name: pn, ts: "boolean", optional: false });
          break;
        case "s":
          inputs.push({ name: pn, ts: "string", optional: role[1] === true });
          break;
        case "st":
          inputs.push({ name: pn, ts: `VkStructInputs["${role[1]}"]`, optional: role[2] === true });
          break;
        case "a": {
          const [, kind, element, opt] = role as [string, string, string, boolean];
          let ts: string;
          if (kind === "struct") ts = `readonly VkStructInputs["${element}"][]`;
          else if (kind === "handle") {
            ts = role[4] === 1 ? `readonly (${element} | null)[]` : `readonly ${element}[]`;
          } else if (kind === "bytes") ts = "BufferSource";
          else if (kind === "strings") ts = "readonly string[]";
          else ts = `ArrayLike<${this.#inputElementTs(p.type)}>`;
          inputs.push({ name: pn, ts, optional: opt });
          break;
        }
        case "fix":
          inputs.push({ name: pn, ts: `ArrayLike<${this.#inputElementTs(p.type)}>`, optional: false });
          break;
        case "buf":
          inputs.push({ name: pn, ts: "BufferSource", optional: role[1] === true });
          break;
        case "raw":
          inputs.push({ name: pn, ts: "Deno.PointerValue", optional: p.optional === true });
          break;
        case "oh":
          outputs.push({ name: outputName(p.name), ts: p.type });
          break;
        case "os":
          if (role[2] === 1 && chainOf === undefined) {
            chainOf = String(role[1]);
            outputs.push({
              name: outputName(p.name),
              ts: `VkStructs["${role[1]}"] & { readonly chain: VkChained<C> }`,
            });
          } else outputs.push({ name: outputName(p.name), ts: `VkStructs["${role[1]}"]` });
          break;
        case "ox":
          outputs.push({ name: outputName(p.name), ts: this.#elementTs("scalar", p.type) });
          break;
        case "om":
          outputs.push({ name: outputName(p.name), ts: "ArrayBuffer" });
          break;
        case "op":
          outputs.push({ name: outputName(p.name), ts: "Deno.PointerValue" });
          break;
        case "oa":
        case "ta": {
          const [, kind, element] = role as [string, string, string];
          const nonEmpty = role[0] === "oa" ? role[4] : 0;
          const chained = (role[0] === "oa" ? role[5] : role[4]) === 1 && chainOf === undefined;
          if (chained) chainOf = element;
          const one = kind === "bytes"
            ? ""
            : chained
            ? `(VkStructs["${element}"] & { readonly chain: VkChained<C> })`
            : wrapUnion(this.#elementTs(kind, kind === "scalar" ? p.type : element));
          const ts = kind === "bytes" ? "Uint8Array" : nonEmpty === 1 ? `[${one}, ...${one}[]]` : `${one}[]`;
          outputs.push({ name: outputName(p.name), ts });
          break;
        }
      }
    });
    // Optional parameters are `?` only where no required one follows.
    let trailing = true;
    for (let i = inputs.length - 1; i >= 0; i--) {
      const input = inputs[i]!;
      if (!input.optional) trailing = false;
      else {
        const nullable = input.ts.endsWith("| null") ? input.ts : `${input.ts} | null`;
        input.ts = trailing ? nullable : `${nullable} | undefined`;
      }
      input.optional = input.optional && trailing;
    }
    const list = inputs.map((x) => `${x.name}${x.optional ? "?" : ""}: ${x.ts}`);
    if (chainOf !== undefined) list.push(`chain?: readonly C[]`);
    const parts: { name: string; ts: string }[] = [];
    if (codes.length) parts.push({ name: "result", ts: codes.map((c) => `"${c}"`).join(" | ") });
    if (plan[0] === 2) parts.push({ name: "value", ts: this.#map.value(result, "result") });
    if (plan[0] === 3) parts.push({ name: "value", ts: "boolean" });
    parts.push(...outputs);
    const ret = parts.length === 0
      ? "void"
      : parts.length === 1
      ? parts[0]!.ts
      : `{ ${parts.map((x) => `readonly ${x.name}: ${x.ts}`).join("; ")} }`;
    const generic = chainOf === undefined ? "" : `<C extends VkChainName<"${chainOf}"> = never>`;
    return `${generic}(${list.join(", ")}) => ${ret}`;
  }
}

/** A multi-line JSDoc comment, indented as an interface member. */
function docBlock(text: string): string {
  return `/**\n${
    text.replace(/\*\//g, "*\\/").split("\n").map((l) => l ? `   * ${l}` : "   *").join("\n")
  }\n   */`;
}

function wrapUnion(ts: string): string {
  return /[|&]/.test(ts) ? `(${ts})` : ts;
}

/** The generated files of the idiomatic API, keyed by file name. */
export interface EmittedIdiomatic {
  files: Map<string, string>;
  counts: Record<string, number>;
}

/**
 * Builds vk_idiomatic.ts (types) and idiomatic_commands.js (the functions, from the plans).
 *
 * @example Usage
 * ```ts ignore
 * const { files } = emitIdiomatic(reg, layouts, map);
 * ```
 */
export function emitIdiomatic(reg: Registry, layouts: Layouts, typesText: string): EmittedIdiomatic {
  // The type names vk_types.ts declares, read from its text so this emitter follows whatever it declares.
  const map = new TypeMapper(reg, layouts);
  for (const m of typesText.matchAll(/^export type (\w+)/gm)) map.declared.add(m[1]!);
  const analyzer = new Analyzer(reg, layouts, map);
  const members: string[] = [];
  const plans = new Map<string, Plan>();
  const used = new Set<string>();
  let aliases = 0;
  for (const name of reg.order) {
    const cmd = reg.commands.get(name)!;
    const { plan, signature, chainDoc } = analyzer.analyze(name);
    for (const m of signature.matchAll(/\b([A-Za-z_]\w*)\b/g)) if (map.declared.has(m[1]!)) used.add(m[1]!);
    const idiom = idiomaticName(name);
    const codes = plan[1].length ? ` Returns its success code (${plan[1].join(", ")}).` : "";
    const text = chainDoc
      ? `${chainDoc.replace(/^(.*?)\n/, `$1${codes}\n`)}`
      : `\`${name}\`, idiomatic.${codes}`;
    members.push(
      `  ${chainDoc ? docBlock(text) : doc(text)}`,
      `  readonly ${idiom}: ${signature};`,
    );
    plans.set(name, plan);
    for (const alias of [...cmd.aliases].sort()) {
      if (!reg.commandTarget.has(alias)) continue;
      aliases++;
      members.push(
        `  ${doc(`\`${alias}\`: alias of {@linkcode VkIdiomaticCommands.${idiom}}.`)}`,
        `  readonly ${idiomaticName(alias)}: VkIdiomaticCommands["${idiom}"];`,
      );
    }
  }
  const files = new Map<string, string>();
  files.set(
    "vk_idiomatic.ts",
    `${
      declarationsHeader(
        reg,
        "Every Vulkan command's idiomatic signature (type-only), as `VkApi` exposes it: named without `vk`, " +
          "arrays for count + pointer pairs, struct literals for struct pointers, outputs returned.",
      )
    }
import type { ${[...used].sort().join(", ")} } from "./vk_types.ts";
import type { VkStructChains, VkStructInputs, VkStructName, VkStructs } from "./vk_structs.ts";

/** The structs that may extend the pNext chain of \`P\` (by name). */
export type VkChainName<P extends keyof VkStructChains> = VkStructChains[P];

/** The pNext chain a command filled, by struct name: one read-back struct per name asked for. */
export type VkChained<C extends VkStructName> = { readonly [K in C]: VkStructs[K] };

/** Every Vulkan command (${reg.order.length}) and alias (${aliases}), the idiomatic way. */
export interface VkIdiomaticCommands {
${members.join("\n")}
}
`,
  );
  const layoutOf = (struct: string) => layouts.layout(layouts.resolve(struct)!.name);
  for (const [name, text] of emitIdiomaticCode(reg, plans, layoutOf)) files.set(name, text);
  return { files, counts: { idiomaticCommands: reg.order.length + aliases } };
}
