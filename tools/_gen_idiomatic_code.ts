/**
 * Emits every command's idiomatic function as plain JavaScript (`idiomatic_commands.js`, with a small
 * `.d.ts`): per command a factory `createBuffer(rt, fn, owner, check)` returning the function named after
 * the command, straight-line code per parameter role of its plan (tools/_gen_idiomatic.ts), so what `VkApi`
 * runs is in a file and a stack trace names it. The run-time helpers it calls are api/compile.ts's `RUNTIME`.
 *
 * @module
 */
import type { Registry } from "./_gen_registry.ts";
import { destroyedAt, header } from "./_gen_api_common.ts";

/** A command's plan, as tools/_gen_idiomatic.ts makes it: [result kind, success codes, roles]. */
export type Plan = readonly [number, readonly string[], readonly (readonly unknown[])[]];

const DISPATCHABLE = new Set(["VkInstance", "VkPhysicalDevice", "VkDevice", "VkQueue", "VkCommandBuffer"]);

/**
 * The handles whose end starts a new `rt.epoch` (api/compile.ts): dispatchable ones and a pool's sets and
 * command buffers. A parameter of another handle type is checked against `rt.endings`, bumped by every end.
 */
const EPOCH_TYPES = new Set([...DISPATCHABLE, "VkDescriptorSet"]);

/**
 * The test that `x` is one struct literal (an object, not an array, not a pointer object: those have no
 * prototype), written out at each command's call site rather than called from a shared helper: V8 keeps type
 * feedback per site, and a helper every command calls sees every command's arguments (docs/performance.md).
 * `init`, when given, is assigned to `x` by the first test.
 */
function literalTest(x: string, init?: string): string {
  return `typeof ${
    init ? `(${x} = ${init})` : x
  } === "object" && ${x} !== null && !Array.isArray(${x}) && ${x} instanceof Object`;
}

/** The test that `x` (assigned `init` first) is a pointer object (a handle): an object without a prototype. */
function pointerTest(x: string, init: string): string {
  return `typeof (${x} = ${init}) === "object" && ${x} !== null && !(${x} instanceof Object)`;
}

/**
 * The element count of input array `u` of `kind` (an element kind, or "buf"): read here for the common shape
 * (an array; a `Uint8Array` of bytes; the typed array `view` of scalars), else by the run-time helper, which
 * also refuses what is not an array.
 */
function lengthOf(u: string, kind: string, view: string | undefined, helper: string): string {
  if (kind === "bytes" || kind === "buf") return `${u} instanceof Uint8Array ? ${u}.byteLength : ${helper}`;
  if (view) return `${u} instanceof ${view} ? ${u}.length : ${helper}`;
  return `Array.isArray(${u}) ? ${u}.length : ${helper}`;
}

/** The typed array an input array of 32-bit scalars is copied from without a helper. */
const VIEWS: Readonly<Record<string, string>> = {
  u32: "Uint32Array",
  i32: "Int32Array",
  f32: "Float32Array",
};

/** An integer parameter's test that value `a` (a number) does not fit its kind: a bitwise op and a compare. */
const MISFITS: Readonly<Record<string, (a: string) => string>> = {
  u8: (a) => `(${a} & 0xff) !== ${a}`,
  i8: (a) => `(${a} << 24) >> 24 !== ${a}`,
  u16: (a) => `(${a} & 0xffff) !== ${a}`,
  i16: (a) => `(${a} << 16) >> 16 !== ${a}`,
  u32: (a) => `${a} >>> 0 !== ${a}`,
  i32: (a) => `(${a} | 0) !== ${a}`,
};

/** `vkCreateBuffer` -> `createBuffer`. */
function idiomaticName(command: string): string {
  return command[2]!.toLowerCase() + command.slice(3);
}

/** `pPhysicalDevices` -> `physicalDevices`: the key of an output in a returned object. */
function outputKey(param: string): string {
  const m = /^p+([A-Z].*)$/.exec(param);
  const base = m ? m[1]! : param;
  return base[0]!.toLowerCase() + base.slice(1);
}

/**
 * The JavaScript of command \`name\`'s idiomatic function: a factory taking the run-time helpers (\`rt\`,
 * api/compile.ts's \`RUNTIME\`), the raw command (\`fn\`), the \`VkApi\` it belongs to (\`owner\`), the check
 * of its handle arguments (\`check\`) and, for a command with aliases, the name it is bound under (\`called\`,
 * which its errors name), returning the function named after the command, straight-line code per parameter
 * role.
 */
function commandCode(
  name: string,
  aliased: boolean,
  plan: Plan,
  params: readonly { name: string; type: string; pointer: number }[],
  layoutOf: (struct: string) => { size: number; align: number },
  result: (code: string) => number | undefined,
  isHandle: (type: string) => boolean,
): string {
  const size = (struct: string) => layoutOf(struct).size;
  const [resultKind, codes, roles] = plan;
  const q = JSON.stringify;
  // What the errors name: the command as called, an alias too (fixed when the function is bound).
  const N = aliased ? "called" : q(name);
  const user: string[] = [];
  const entries = new Map<string, string>();
  /** The constant holding struct `struct`'s entry, resolved once when the command is bound. */
  const entry = (struct: string) => {
    let e = entries.get(struct);
    if (e === undefined) entries.set(struct, e = `E${entries.size}`);
    return e;
  };
  const prep: string[] = [];
  /** The factory's own state (`let` lines), kept between calls of the command. */
  const lets: string[] = [];
  const counts: string[] = [];
  const after: string[] = [];
  const outputs: [string, string][] = [];
  const args = roles.map((_, i) => `a${i}`);
  const userOf: string[] = [];
  let reserved = 0;
  let memory = false;
  let chain: string | undefined;
  const slot = (bytes: number) => {
    const off = reserved;
    reserved += (bytes + 7) & ~7;
    return off;
  };
  let twoCall: { count: number; kind: string; off: number; arrays: number[]; chained?: number } | undefined;
  const writers = new Map<string, string>();
  // The handle a destroy or free command ends: VkApi's own check refuses it ended already (api/vk_api.ts).
  const ending = destroyedAt(name, params, isHandle);
  /**
   * The check that handle `x` (parameter `i`, or its array's one element, of handle type `type`) was not ended
   * by VkApi, which throws naming `param`. The handle that passed last is kept with the epoch it passed at
   * (`rt.epoch` or `rt.endings`, by type), so a loop passing one handle skips the lookup.
   */
  const seen = (i: number, x: string, type: string, param: string) => {
    const epoch = EPOCH_TYPES.has(type) ? "rt.epoch" : "rt.endings";
    lets.push(`let seen${i} = null, seenAt${i} = -1;`);
    return [
      `if (${x} !== seen${i} || ${epoch} !== seenAt${i}) {`,
      `if (rt.ended.has(${x})) rt.gone(${x}, ${N}, ${param});`,
      `seen${i} = ${x};`,
      `seenAt${i} = ${epoch};`,
      `}`,
    ];
  };
  /**
   * Parameter `i`, one struct literal `value` (when `test` holds) written by the struct's writer called here,
   * so each command's call site stays monomorphic; anything else (null, a pointer, several elements, a
   * mistake) through the run-time helper `slow`; `all` is what to write again should the scratch be full.
   */
  const literal = (
    i: number,
    struct: string,
    test: string,
    value: string,
    slow: string,
    all: string,
    param: string,
  ) => {
    const e = entry(struct);
    let w = writers.get(struct);
    if (w === undefined) writers.set(struct, w = `W${e.slice(1)}`);
    const { size: bytes, align } = layoutOf(struct);
    return [
      `let a${i};`,
      `if (${test}) {`,
      `const top = m.top;`,
      `try {`,
      `const c = m.alloc(${bytes}, ${Math.max(align, 8)});`,
      `${w}(m, c, ${value}, 0);`,
      `a${i} = m.at(c);`,
      `} catch (e) {`,
      `a${i} = rt.refit(m, top, e, ${e}, ${q(struct)}, ${all}, ${N}, ${param});`,
      `}`,
      `} else a${i} = ${slow};`,
    ];
  };
  roles.forEach((role, i) => {
    const p = params[i]!;
    const P = q(p.name);
    const kind = role[0] as string;
    const takes = ["v", "b", "s", "st", "a", "fix", "buf", "raw"].includes(kind);
    if (takes) {
      userOf[i] = `u${user.length}`;
      user.push(userOf[i]!);
    }
    const u = userOf[i];
    switch (kind) {
      case "v": {
        const value = role[1] === undefined ? u! : `${u} ?? ${role[1]}`;
        // The first, dispatchable, handle has its guard (below); the handle a destroy command ends has VkApi's.
        if (isHandle(p.type) && i !== ending && (i !== 0 || !DISPATCHABLE.has(p.type))) {
          prep.push(...seen(i, u!, p.type, P));
        }
        if (role[2] === undefined) prep.push(`const a${i} = ${value};`);
        else if (Object.hasOwn(MISFITS, String(role[2]))) {
          // A number that fits goes on as is (a shift and a compare); anything else is converted or refused
          // naming the command and parameter, where Deno's FFI would name neither (or keep the low bits).
          const a = `a${i}`;
          const kind = String(role[2]);
          const misfits = MISFITS[kind]!(a);
          const call = `rt.integer(${a}, ${q(kind)}, ${N}, ${P})`;
          prep.push(`let ${a} = ${value};`, `if (typeof ${a} !== "number" || ${misfits}) ${a} = ${call};`);
        } else {
          // A bigint goes on as is; anything else is checked (a number must be a safe integer).
          const signed = role[2] === "i64" || role[2] === "isize";
          prep.push(
            `const a${i} = typeof ${u} === "bigint" ? ${u} : rt.wide(${value}, ${signed}, ${N}, ${P});`,
          );
        }
        break;
      }
      case "b":
        // A boolean goes on as 1 or 0 after a compare or two; 1 and 0 pass too, anything else is refused.
        prep.push(
          `let a${i} = 0;`,
          `if (${u} === true) a${i} = 1;`,
          `else if (${u} !== false) a${i} = rt.integer(${u}, "bool", ${N}, ${P});`,
        );
        break;
      case "n":
        prep.push(`const a${i} = null;`);
        break;
      case "raw":
        prep.push(`const a${i} = ${u} ?? null;`);
        break;
      case "s":
        memory = true;
        prep.push(`const a${i} = rt.str(m, ${u}, ${role[1] === true}, ${N}, ${P});`);
        break;
      case "st": {
        memory = true;
        const struct = String(role[1]);
        const slow = `rt.struct(m, ${entry(struct)}, ${q(struct)}, ${u}, ${role[2] === true}, ${N}, ${P})`;
        prep.push(...literal(i, struct, literalTest(u!), u!, slow, `[${u}]`, P));
        break;
      }
      case "a": {
        memory = true;
        const element = String(role[1]);
        const optional = role[3] === true;
        const generic = `rt.array(m, ${q(element)}, ${q(role[2])}, ${u}, ${optional}, ${N}, ${P}${
          element === "struct" ? `, ${entry(String(role[2]))}` : ""
        })`;
        // The common shapes (one handle, a Uint8Array, a small typed array of the element's type) are written
        // here, where the checks see one command's arguments; anything else goes through the helper.
        const view = element === "scalar" ? VIEWS[String(role[2])] : undefined;
        if (element === "struct") {
          const one = `Array.isArray(${u}) && ${u}.length === 1 && ${literalTest(`e${i}`, `${u}[0]`)}`;
          prep.push(`let e${i};`, ...literal(i, String(role[2]), one, `e${i}`, generic, u!, P));
        } else if (element === "handle") {
          const one = `Array.isArray(${u}) && ${u}.length === 1 && ${pointerTest(`e${i}`, `${u}[0]`)}`;
          prep.push(
            `let a${i}, e${i};`,
            `if (${one} && m.top + 16 <= m.size) {`,
            ...seen(i, `e${i}`, String(role[2]), q(`${p.name}[0]`)),
            `const c = m.alloc(8, 8);`,
            `m.u64[c >> 3] = rt.address(e${i});`,
            `a${i} = m.at(c);`,
            `} else a${i} = rt.handles(m, ${q(role[2])}, ${u}, ${optional}, ${N}, ${P}, ${role[4] === 1});`,
          );
        } else if (element === "bytes") {
          prep.push(
            `let a${i};`,
            `if (${u} instanceof Uint8Array && m.top + ${u}.byteLength + 8 <= m.size) {`,
            `const c = m.alloc(${u}.byteLength, 8);`,
            `m.u8.set(${u}, c);`,
            `a${i} = m.at(c);`,
            `} else a${i} = rt.bytes(m, ${u}, ${optional}, ${N}, ${P});`,
          );
        } else if (view) {
          const at = `m.${role[2]}[(c >> 2) + j]`;
          prep.push(
            `let a${i};`,
            `if (${u} instanceof ${view} && ${u}.length <= 16 && m.top + 72 <= m.size) {`,
            `const c = m.alloc(${u}.length * 4, 8);`,
            `for (let j = 0; j < ${u}.length; j++) ${at} = ${u}[j];`,
            `a${i} = m.at(c);`,
            `} else a${i} = ${generic};`,
          );
        } else prep.push(`const a${i} = ${generic};`);
        break;
      }
      case "fix":
        memory = true;
        prep.push(`const a${i} = rt.scalars(m, ${q(role[1])}, ${u}, ${role[2]}, ${N}, ${P});`);
        break;
      case "buf":
        memory = true;
        prep.push(`const b${i} = rt.buffer(m, ${u}, ${role[1] === true}, ${N}, ${P});`);
        prep.push(`const a${i} = b${i} === null ? null : m.pointer(b${i});`);
        after.push(`rt.back(b${i}, ${u});`);
        break;
      case "c":
        break;
      case "oh": {
        memory = true;
        const off = slot(8);
        prep.push(`const a${i} = m.at(${off});`);
        after.push(`const o${i} = rt.handle(m, ${off});`);
        const st = roles.findIndex((r) => r[0] === "st");
        if (p.type === "VkDeviceMemory" && st >= 0) {
          after.push(`owner.noteAllocation(o${i}, ${userOf[st]}?.allocationSize);`);
        }
        outputs.push([outputKey(p.name), `o${i}`]);
        break;
      }
      case "ox":
      case "op": {
        memory = true;
        const off = slot(8);
        prep.push(`const a${i} = m.at(${off});`);
        after.push(`const o${i} = rt.scalar(m, ${off}, ${q(kind === "op" ? "pointer" : role[1])});`);
        outputs.push([outputKey(p.name), `o${i}`]);
        break;
      }
      case "os": {
        memory = true;
        const off = slot(size(String(role[1])));
        const takesChain = role[2] === 1 && chain === undefined;
        if (takesChain) chain = `c${i}`;
        const e = entry(String(role[1]));
        prep.push(
          `rt.outStruct(m, ${e}, ${q(role[1])}, ${off}, ${takesChain ? chain : "null"}, ${N});`,
        );
        prep.push(`const a${i} = m.at(${off});`);
        after.push(`const o${i} = rt.readStruct(m, ${e}, ${off}, ${takesChain ? chain : "false"});`);
        outputs.push([outputKey(p.name), `o${i}`]);
        break;
      }
      case "om": {
        memory = true;
        const off = slot(8);
        prep.push(`const a${i} = m.at(${off});`);
        const spec = role[1] as number[];
        const [mem, at, size] = spec.length === 3
          ? spec.map((k) => `a${k}`)
          : [`${userOf[spec[0]!]}.memory`, `${userOf[spec[0]!]}.offset ?? 0n`, `${userOf[spec[0]!]}.size`];
        after.push(`const o${i} = rt.mapped(owner, m, ${off}, ${mem}, ${at}, ${size}, ${N});`);
        outputs.push([outputKey(p.name), `o${i}`]);
        break;
      }
      case "oa": {
        memory = true;
        const spec = role[3] as [number, string?];
        const n = spec.length === 1
          ? `rt.size(a${spec[0]})`
          : `rt.memberCount(${userOf[spec[0]]}, ${q(params[spec[0]]!.type)}, ${q(spec[1])})`;
        const chained = role[5] === 1 && chain === undefined;
        if (chained) {
          chain = `c${i}`;
          prep.push(`const l${i} = rt.links(${chain}, ${N});`);
        }
        prep.push(`const n${i} = ${n};`);
        prep.push(
          chained
            ? `const b${i} = rt.outChained(m, ${q(role[2])}, n${i}, l${i});`
            : `const b${i} = rt.outArray(m, ${q(role[1])}, ${q(role[2])}, n${i});`,
        );
        prep.push(`const a${i} = m.pointer(b${i});`);
        after.push(
          chained
            ? `const o${i} = rt.readChained(${q(role[2])}, b${i}, n${i}, ${chain});`
            : `const o${i} = rt.readArray(${q(role[1])}, ${q(role[2])}, b${i}, n${i});`,
        );
        outputs.push([outputKey(p.name), `o${i}`]);
        break;
      }
      case "tc":
        memory = true;
        twoCall = { count: i, kind: String(role[1]), off: slot(8), arrays: [] };
        break;
      case "ta":
        twoCall!.arrays.push(i);
        if (role[4] === 1 && chain === undefined) {
          chain = `c${i}`;
          twoCall!.chained = i;
          prep.push(`const l${i} = rt.links(${chain}, ${N});`);
        }
        outputs.push([outputKey(p.name), `o${i}`]);
        break;
      default:
        throw new TypeError(`Unknown role "${kind}" in the plan of "${name}"`);
    }
  });
  // Counts after the arrays they are read from (they precede them in C order).
  roles.forEach((role, i) => {
    if (role[0] !== "c") return;
    const arrays = role[2] as number[];
    const kinds = arrays.map((k) => roles[k]![0] === "buf" ? "buf" : String(roles[k]![1]));
    arrays.forEach((k, j) => {
      const u = userOf[k]!;
      const helper = `rt.len(${u}, ${q(kinds[j])}, ${N}, ${q(params[k]!.name)})`;
      const view = kinds[j] === "scalar" ? VIEWS[String(roles[k]![2])] : undefined;
      counts.push(`const n${i}_${j} = ${lengthOf(u, kinds[j]!, view, helper)};`);
      if (j > 0) {
        counts.push(
          `if (n${i}_${j} !== n${i}_0 && ${userOf[k]} != null) rt.mismatch(${N}, ${
            q(params[arrays[0]!]!.name)
          }, n${i}_0, ${q(params[k]!.name)}, n${i}_${j});`,
        );
      }
    });
    const wide = ["u64", "i64"].includes(String(role[1]));
    counts.push(`const a${i} = ${wide ? `BigInt(n${i}_0)` : `n${i}_0`};`);
  });
  // Counts must be known before output arrays sized by them: move count lines ahead of "oa" sizing.
  const call = `fn(${args.join(", ")})`;
  // The command source's handle checks (null, not a handle, a destroyed device), before the call and apart
  // from it: the raw command is called here, a call site of its own (api/vk_api.ts).
  const checked = params.some((p) => p.pointer === 0 && isHandle(p.type));
  const checkLine = checked ? `check(${args.slice(0, 8).join(", ")});` : "";
  const check = resultKind === 1 ? `if (r < 0) rt.fail(r, ${N});` : "";
  const body: string[] = [];
  body.push(...counts.length ? reorder(prep, counts) : prep);
  if (twoCall) {
    const t = twoCall;
    const read = t.kind === "usize"
      ? `Number(m.view.getBigUint64(${t.off}, true))`
      : `m.view.getUint32(${t.off}, true)`;
    body.push(`const a${t.count} = m.at(${t.off});`);
    body.push(`let r, ${t.arrays.map((k) => `a${k}, o${k}`).join(", ")};`);
    if (checkLine) body.push(checkLine);
    body.push(`for (let attempt = 0; ; attempt++) {`);
    body.push(`m.view.setBigUint64(${t.off}, 0n, true);`);
    body.push(...t.arrays.map((k) => `a${k} = null;`));
    body.push(`r = ${call};`, check);
    body.push(`const n = ${read};`);
    const empty = (k: number) => roles[k]![1] === "bytes" ? "new Uint8Array(0)" : "[]";
    body.push(`if (n === 0) { ${t.arrays.map((k) => `o${k} = ${empty(k)};`).join(" ")} break; }`);
    for (const k of t.arrays) {
      body.push(
        k === t.chained
          ? `const b${k} = rt.outChained(m, ${q(roles[k]![2])}, n, l${k});`
          : `const b${k} = rt.outArray(m, ${q(roles[k]![1])}, ${q(roles[k]![2])}, n);`,
      );
      body.push(`a${k} = m.pointer(b${k});`);
    }
    body.push(`r = ${call};`, check);
    body.push(`if (r === 5 && attempt < 16) continue;`);
    body.push(`const got = Math.min(${read}, n);`);
    for (const k of t.arrays) {
      body.push(
        k === t.chained
          ? `o${k} = rt.readChained(${q(roles[k]![2])}, b${k}, got, ${chain});`
          : `o${k} = rt.readArray(${q(roles[k]![1])}, ${q(roles[k]![2])}, b${k}, got);`,
      );
    }
    body.push(`break;`, `}`);
    // Still VK_INCOMPLETE after 16 rounds: the count keeps growing.
    if (resultKind === 1) body.push(`if (r === 5) rt.fail(5, ${N});`);
  } else {
    if (checkLine) body.push(checkLine);
    body.push(`${resultKind === 0 ? "" : "const r = "}${call};`);
    if (check) body.push(check);
  }
  body.push(...after);
  const parts: [string, string][] = [];
  if (codes.length) {
    const known = codes.map((c) => [result(c), c] as const).filter(([v]) => v !== undefined);
    parts.push(["result", `${known.map(([v, c]) => `r === ${v} ? ${q(c)} : `).join("")}rt.name(r)`]);
  }
  if (resultKind === 2) parts.push(["value", "r"]);
  if (resultKind === 3) parts.push(["value", "r !== 0"]);
  parts.push(...outputs);
  if (parts.length === 1) body.push(`return ${parts[0]![1]};`);
  else if (parts.length > 1) body.push(`return { ${parts.map(([k, v]) => `${q(k)}: ${v}`).join(", ")} };`);
  if (chain !== undefined) user.push(chain);
  const fnName = idiomaticName(name);
  // A dispatchable handle a VkApi destroyed (or destroyed with its parent) never reaches the driver. The handle
  // that passed last is kept with the epoch it passed at: a loop on one command buffer skips the lookup.
  const ends = roles[0]?.[0] === "v" && DISPATCHABLE.has(params[0]!.type);
  const guard = ends
    ? `if (u0 !== passed || rt.epoch !== passedAt) {
if (rt.ended.has(u0)) rt.gone(u0, ${N}, ${q(params[0]!.name)});
passed = u0;
passedAt = rt.epoch;
}
`
    : "";
  const prelude = [...entries].map(([struct, e]) =>
    `const ${e} = rt.entry(${q(struct)});\n${
      writers.has(struct) ? `const ${writers.get(struct)} = ${e}[0];\n` : ""
    }`
  ).join("");
  const inner = !memory && !twoCall ? body.join("\n") : `const m = rt.enter(${reserved});
try {
${body.join("\n")}
} finally {
rt.leave(m);
}`;
  return `/** \`${name}\`, idiomatic: bound to its raw command \`fn\` (api/compile.ts). */
function ${fnName}(rt, fn${/\bowner\b/.test(inner) ? ", owner" : checked || aliased ? ", _owner" : ""}${
    checked ? ", check" : aliased ? ", _check" : ""
  }${aliased ? ", called" : ""}) {
${prelude}${ends ? "let passed = null, passedAt = -1;\n" : ""}${
    lets.map((l) => `${l}\n`).join("")
  }return function ${fnName}(${user.join(", ")}) {
${guard}${inner}
};
}`;
}

/** Puts the count lines before the first line that reads a count (an output array sized by one). */
function reorder(prep: string[], counts: string[]): string[] {
  const first = prep.findIndex((l) => /^const n\d+ = rt\.size\(a\d+\)/.test(l));
  if (first < 0) return [...prep, ...counts];
  return [...prep.slice(0, first), ...counts, ...prep.slice(first)];
}

/**
 * idiomatic_commands.js and its declarations: one factory per command, and the table `commands` (command
 * and alias name -> factory).
 */
export function emitIdiomaticCode(
  reg: Registry,
  plans: ReadonlyMap<string, Plan>,
  layoutOf: (struct: string) => { size: number; align: number },
): Map<string, string> {
  const result = (code: string) => reg.enumValues.get(code);
  const isHandle = (type: string) => reg.types.get(type)?.category === "handle";
  const code: string[] = [];
  const table: string[] = [];
  for (const name of [...plans.keys()].sort()) {
    const cmd = reg.commands.get(name)!;
    const aliases = cmd.aliases.filter((alias) => reg.commandTarget.has(alias));
    code.push(
      commandCode(name, aliases.length > 0, plans.get(name)!, cmd.params, layoutOf, result, isHandle),
    );
    table.push(`${name}: ${idiomaticName(name)},`);
    for (const alias of aliases) table.push(`${alias}: ${idiomaticName(name)},`);
  }
  const files = new Map<string, string>();
  files.set(
    "idiomatic_commands.js",
    `// @ts-self-types="./idiomatic_commands.d.ts"
${
      header(
        reg,
        "Every command's idiomatic function (tools/_gen_idiomatic_code.ts); `VkApi` binds them on first use.",
      )
    }
/**
 * Defines every command's factory and returns command or alias name -> the factory of its idiomatic
 * function. Called once, by the first \`VkApi\` command bound: V8 sets up the functions inside a function only
 * when that one first runs, so importing this file costs little more than reading it (docs/performance.md).
 */
export function commands() {
${code.join("\n\n")}

return {
${table.sort().join("\n")}
};
}
`,
  );
  files.set(
    "idiomatic_commands.d.ts",
    `${header(reg, "Declarations of idiomatic_commands.js: its table.")}
/**
 * A command's idiomatic function, given the run-time helpers, the raw command, its \`VkApi\`, the check of
 * its handle arguments to run before the call and the name it is called by (an alias too), which its errors name.
 */
export type CommandFactory = (
  rt: unknown,
  fn: (...args: never[]) => unknown,
  owner: unknown,
  check: (...args: unknown[]) => void,
  called: string,
) => (...args: unknown[]) => unknown;

/** Defines every command's factory; returns command or alias name -> the factory of its idiomatic function. */
export declare function commands(): Readonly<Record<string, CommandFactory>>;
`,
  );
  return files;
}
