/**
 * Turns a command's marshalling plan (generated from vk.xml into vk/generated/idiomatic.ts) into one
 * JavaScript function, compiled on the command's first use: straight-line code per parameter role, so a
 * call does no plan interpretation. The run-time helpers the compiled code calls are {@linkcode RUNTIME}.
 *
 * @module
 */
import { IDIOMATIC_PLANS, type IdiomaticPlan } from "../vk/generated/idiomatic.ts";
import { COMMAND_PARAMS } from "../vk/generated/commands.ts";
import { RESULT_NAMES } from "../vk/generated/enums.ts";
import { VkError } from "../vk/errors.ts";
import { findLayout, layoutOf } from "../vk/_struct_layout.ts";
import { FULL, Scratch } from "../ffi/_struct_memory.ts";
import { entryOf, type StructEntry, writeArrayInto, writeGrowing } from "../vk/_struct_marshal.ts";

import { getPointer, writeChain } from "../vk/_struct_runtime.ts";
import {
  isPointerObject,
  readScalar,
  scalarExpects,
  type ScalarKind,
  scalarSize,
  writeScalar,
} from "../vk/_scalar.ts";
import { CallMemory } from "./call_memory.ts";

/** A raw command as a command source holds it. */
export type RawCommand = (...args: never[]) => unknown;

/** What a compiled command needs from the object it belongs to. */
export interface CommandOwner {
  /** Records the size of device memory allocated through the object (for mapping `VK_WHOLE_SIZE`). */
  noteAllocation(memory: Deno.PointerValue, size: unknown): void;
  /** The size of device memory allocated through the object, if known. */
  allocationSize(memory: Deno.PointerValue): bigint | undefined;
  /** Records an ArrayBuffer over mapped `memory`, to detach when the object unmaps or frees it. */
  noteMapping(memory: Deno.PointerValue, mapped: ArrayBuffer): void;
}

/** A compiled command before it is bound to a raw command and an owner. */
export type CompiledCommand = (
  rt: Runtime,
  fn: RawCommand,
  owner: CommandOwner,
) => (...args: unknown[]) => unknown;

type Runtime = typeof RUNTIME;

const VK_WHOLE_SIZE = 0xffffffffffffffffn;
function fail(message: string): never {
  throw new TypeError(message);
}

function at(command: string, param: string): string {
  return `Cannot call "${command}": parameter "${param}"`;
}

function elementSize(kind: string, element: string): number {
  if (kind === "struct") return entryOf(element)[2];
  if (kind === "handle") return 8;
  if (kind === "bytes") return 1;
  return scalarSize(element as ScalarKind);
}

function isBytes(v: unknown): v is ArrayBufferView | ArrayBuffer {
  return ArrayBuffer.isView(v) || v instanceof ArrayBuffer;
}

function bytesOf(v: ArrayBufferView | ArrayBuffer): Uint8Array {
  return v instanceof Uint8Array
    ? v
    : v instanceof ArrayBuffer
    ? new Uint8Array(v)
    : new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}

let idle: CallMemory | undefined;
const EMPTY = Object.freeze({});

/** The chain structs (`names`, in order) linked from the pNext of the struct at `offset`, by name. */
function readChain(m: Scratch, offset: number, names: readonly string[] | null): Record<string, unknown> {
  const read: Record<string, unknown> = {};
  let p = getPointer(m, offset + 8);
  for (const type of names ?? []) {
    if (p === null) break;
    const [, reader, size] = entryOf(type);
    const link = Scratch.of(new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(p, size)));
    read[type] = reader(link, 0);
    p = getPointer(link, 8);
  }
  return read;
}

/** Writes `values` as consecutive structs of `entry` into `m` (a larger scratch when full): their address. */
function structsAt(
  m: CallMemory,
  entry: StructEntry,
  name: string,
  values: readonly unknown[],
): Deno.PointerObject {
  return writeGrowing(m, (s) => writeArrayInto(s, entry, name, values), (s) => m.keep(s), (s, o) => s.at(o));
}

/** The helpers compiled commands call. */
export const RUNTIME = {
  /** A scratch for one call with `reserved` bytes of outputs: the shared one, or a new one while it is in use. */
  enter(reserved: number): CallMemory {
    const m = idle ?? new CallMemory();
    idle = undefined;
    m.reset(reserved);
    return m;
  },
  leave(m: CallMemory): void {
    idle = m;
  },
  fail(code: number, command: string): never {
    throw new VkError(
      code,
      `Command "${command}" failed with "${RESULT_NAMES[code] ?? `VkResult(${code})`}"`,
    );
  },
  name(code: number): string {
    return RESULT_NAMES[code] ?? `VkResult(${code})`;
  },
  /** Struct `name`'s generated writer and reader (resolved once per compiled command). */
  entry(name: string): StructEntry {
    return entryOf(name);
  },
  str(m: CallMemory, v: unknown, opt: boolean, command: string, param: string): Deno.PointerValue {
    if (typeof v === "string") return m.at(m.cstring(v));
    if (v == null && opt) return null;
    if (isPointerObject(v)) return v;
    return fail(`${at(command, param)} expected a string, got ${v === null ? "null" : typeof v}`);
  },
  struct(
    m: CallMemory,
    entry: StructEntry,
    name: string,
    v: unknown,
    opt: boolean,
    command: string,
    param: string,
  ) {
    if (v == null) return opt ? null : fail(`${at(command, param)} expected a "${name}" object, got ${v}`);
    if (isPointerObject(v)) return v;
    if (typeof v !== "object" || Array.isArray(v)) {
      return fail(
        `${at(command, param)} expected a "${name}" object, got ${Array.isArray(v) ? "an array" : typeof v}`,
      );
    }
    const top = m.top;
    try {
      // 8-aligned at least, so the address comes from the scratch's cache.
      const c = m.alloc(entry[2], entry[3] < 8 ? 8 : entry[3]);
      entry[0](m, c, v, 0);
      return m.at(c);
    } catch (e) {
      if (e !== FULL) throw e;
      m.top = top;
    }
    return structsAt(m, entry, name, [v]);
  },
  /** The element count of an input array (bytes for byte buffers); 0 for an absent optional one. */
  len(v: unknown, kind: string, command: string, param: string): number {
    if (v == null) return 0;
    if (kind === "bytes" || kind === "buf") {
      if (isBytes(v)) return v.byteLength;
      return fail(`${at(command, param)} expected an ArrayBuffer or typed array`);
    }
    const n = (v as { length?: unknown }).length;
    if (typeof n === "number" && typeof v === "object") return n;
    return fail(`${at(command, param)} expected an array, got ${typeof v}`);
  },
  mismatch(command: string, a: string, na: number, b: string, nb: number): never {
    throw new RangeError(
      `Cannot call "${command}": parameters "${a}" and "${b}" share one count but have ${na} and ${nb} elements`,
    );
  },
  array(
    m: CallMemory,
    kind: string,
    element: string,
    v: unknown,
    opt: boolean,
    command: string,
    param: string,
    entry?: StructEntry,
  ) {
    if (v == null) return opt ? null : fail(`${at(command, param)} expected an array, got ${v}`);
    if (isPointerObject(v)) return v;
    const where = () => at(command, param);
    switch (kind) {
      case "struct": {
        if (!Array.isArray(v)) return fail(`${where()} expected an array of "${element}" objects`);
        if (v.length === 0) return null;
        for (let i = 0; i < v.length; i++) {
          if (isPointerObject(v[i])) {
            return fail(`${where()} element ${i}: expected a "${element}" object, got a pointer`);
          }
        }
        if (v.length === 1) {
          return RUNTIME.struct(m, entry ?? entryOf(element), element, v[0], false, command, param);
        }
        return structsAt(m, entry ?? entryOf(element), element, v);
      }
      case "handle":
        return RUNTIME.handles(m, element, v, command, param);
      case "bytes":
        if (!isBytes(v)) return fail(`${where()} expected an ArrayBuffer or typed array`);
        return RUNTIME.copy(m, bytesOf(v), 8);
      case "strings": {
        if (!Array.isArray(v) || !v.every((s) => typeof s === "string")) {
          return fail(`${where()} expected an array of strings`);
        }
        if (v.length === 0) return null;
        const list = m.bytes(v.length * 8, 8);
        const words = new BigUint64Array(list.buffer, list.byteOffset, v.length);
        for (let i = 0; i < v.length; i++) words[i] = BigInt(m.base + m.cstring(v[i]!));
        return m.pointer(list);
      }
      default:
        return RUNTIME.scalars(m, element as ScalarKind, v, -1, command, param);
    }
  },
  /** Handles as a C array (null entries as 0). */
  handles(m: CallMemory, element: string, v: unknown, command: string, param: string): Deno.PointerObject {
    if (!Array.isArray(v)) return fail(`${at(command, param)} expected an array of ${element}`);
    const n = v.length;
    const buf = m.bytes(n * 8, 8);
    const inScratch = buf.buffer === m.u8.buffer;
    const words = inScratch ? m.u64 : new BigUint64Array(buf.buffer, buf.byteOffset, n);
    const first = inScratch ? (buf.byteOffset - m.u8.byteOffset) >> 3 : 0;
    for (let i = 0; i < n; i++) {
      const h: unknown = v[i];
      if (h === null || h === undefined) continue;
      if (!isPointerObject(h)) {
        return fail(`${at(command, param)} element ${i}: expected a ${element} handle`);
      }
      words[first + i] = Deno.UnsafePointer.value(h);
    }
    return m.pointer(buf);
  },
  /** A copy of `bytes` in the call's memory, aligned to `align`: its address. */
  copy(m: CallMemory, bytes: Uint8Array, align: number): Deno.PointerObject {
    const buf = m.bytes(bytes.byteLength, align);
    buf.set(bytes);
    return m.pointer(buf);
  },
  /** Numbers (or bigints) as a C array of `kind`; `fixed` >= 0 is the length of a fixed-size array parameter. */
  scalars(m: CallMemory, kind: ScalarKind, v: unknown, fixed: number, command: string, param: string) {
    const where = () => at(command, param);
    if (isBytes(v) && !(v instanceof DataView) && !(v instanceof ArrayBuffer) && fixed < 0) {
      return RUNTIME.copy(m, bytesOf(v), Math.min(scalarSize(kind), 8));
    }
    const list = v as ArrayLike<unknown>;
    if (typeof list !== "object" || list === null || typeof list.length !== "number") {
      return fail(`${where()} expected an array of numbers`);
    }
    const size = scalarSize(kind);
    if (fixed >= 0 && list.length > fixed) {
      return fail(`${where()} has ${list.length} elements, room for ${fixed}`);
    }
    const n = fixed >= 0 ? fixed : list.length;
    const buf = m.bytes(size * n, Math.min(size, 8));
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    for (let i = 0; i < list.length; i++) {
      if (!writeScalar(view, i * size, kind, list[i])) {
        return fail(`${where()} expected ${scalarExpects(kind)}, got ${typeof list[i]}`);
      }
    }
    return m.pointer(buf);
  },
  /** A scratch copy of a buffer C writes into; {@linkcode RUNTIME.back} copies it back after the call. */
  buffer(m: CallMemory, v: unknown, opt: boolean, command: string, param: string): Uint8Array | null {
    if (v == null) return opt ? null : fail(`${at(command, param)} expected an ArrayBuffer or typed array`);
    if (!isBytes(v)) return fail(`${at(command, param)} expected an ArrayBuffer or typed array`);
    const bytes = bytesOf(v);
    const buf = m.bytes(bytes.byteLength, 8);
    buf.set(bytes);
    return buf;
  },
  back(buf: Uint8Array | null, v: unknown): void {
    if (buf && isBytes(v)) bytesOf(v).set(buf);
  },
  /** The chain a caller asked for, checked: one `{ type }` link per struct name; null for none. */
  links(chain: unknown, command: string): { type: string }[] | null {
    if (chain == null) return null;
    if (!Array.isArray(chain)) return fail(`${at(command, "chain")} expected an array of struct names`);
    return chain.map((c) => {
      if (typeof c !== "string" || !findLayout(c)) {
        return fail(`${at(command, "chain")} has an unknown struct "${c}"`);
      }
      return { type: c };
    });
  },
  /** Prepares the output struct at `offset`: sType, and the chain of structs asked for. */
  outStruct(
    m: CallMemory,
    entry: StructEntry,
    name: string,
    offset: number,
    chain: unknown,
    command: string,
  ): void {
    entry[0](m, offset, EMPTY, 0); // its sType
    const links = RUNTIME.links(chain, command);
    if (links !== null) writeChain(m, offset + 8, links, name);
  },
  readStruct(m: CallMemory, entry: StructEntry, offset: number, chain: unknown): unknown {
    const out = entry[1](m, offset);
    if (chain === false) return out;
    out.chain = readChain(m, offset, chain as string[] | null) as never;
    return out;
  },
  /**
   * An output array of `n` chainable structs (sType set), each element's pNext its own copy of the chain
   * `links` ({@linkcode RUNTIME.links}), so C fills one chain per element.
   */
  outChained(m: CallMemory, element: string, n: number, links: { type: string }[] | null): Uint8Array {
    const buf = RUNTIME.outArray(m, "struct", element, n);
    if (links === null || links.length === 0) return buf;
    const size = entryOf(element)[2];
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    const head = m.alloc(8, 8);
    for (let i = 0; i < n; i++) {
      writeChain(m, head, links, element);
      view.setBigUint64(i * size + 8, m.u64[head >> 3]!, true);
    }
    return buf;
  },
  /** The elements of an {@linkcode RUNTIME.outChained} array, each with the chain it was given read back. */
  readChained(element: string, buf: Uint8Array, n: number, chain: unknown): unknown[] {
    const [, read, size] = entryOf(element);
    const s = Scratch.of(buf as Uint8Array<ArrayBuffer>);
    const out: unknown[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const value = read(s, i * size);
      value.chain = readChain(s, i * size, chain as string[] | null) as never;
      out[i] = value;
    }
    return out;
  },
  handle(m: CallMemory, offset: number): Deno.PointerValue {
    return getPointer(m, offset);
  },
  scalar(m: CallMemory, offset: number, kind: ScalarKind): unknown {
    return readScalar(m.view, offset, kind);
  },
  /** An element count given by a parameter (number or bigint). */
  size(v: unknown): number {
    return typeof v === "bigint" ? Number(v) : typeof v === "number" ? v : 0;
  },
  /** The count struct member `member` of the literal `v` gives: its value, or the length of the array it counts. */
  memberCount(v: unknown, struct: string, member: string): number {
    if (v == null || isPointerObject(v)) return 0;
    const value = v as Record<string, unknown>;
    if (value[member] !== undefined) return RUNTIME.size(value[member]);
    const counted = layoutOf(struct).members.find((m) => m.len?.split(",")[0] === member);
    const list = counted ? value[counted.name] : undefined;
    return Array.isArray(list) ? list.length : 0;
  },
  outArray(m: CallMemory, kind: string, element: string, n: number): Uint8Array {
    const size = elementSize(kind, element);
    const buf = m.bytes(size * Math.max(n, 1), Math.min(size, 8));
    if (kind === "struct") {
      const sType = layoutOf(element).sType;
      if (sType !== undefined) {
        const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
        for (let i = 0; i < n; i++) view.setUint32(i * size, sType, true);
      }
    }
    return buf;
  },
  readArray(kind: string, element: string, buf: Uint8Array, n: number): unknown {
    if (kind === "bytes") return buf.slice(0, n);
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    const out: unknown[] = new Array(n);
    if (kind === "struct") {
      const [, read, size] = entryOf(element);
      const s = Scratch.of(buf as Uint8Array<ArrayBuffer>);
      for (let i = 0; i < n; i++) out[i] = read(s, i * size);
    } else if (kind === "handle") {
      for (let i = 0; i < n; i++) out[i] = Deno.UnsafePointer.create(view.getBigUint64(i * 8, true));
    } else {
      const kind = element as ScalarKind;
      const size = scalarSize(kind);
      for (let i = 0; i < n; i++) out[i] = readScalar(view, i * size, kind);
    }
    return out;
  },
  /** The mapped range as an ArrayBuffer: `size`, or for `VK_WHOLE_SIZE` the rest of the allocation. */
  mapped(
    owner: CommandOwner,
    m: CallMemory,
    offset: number,
    memory: Deno.PointerValue,
    start: unknown,
    size: unknown,
    command: string,
  ): ArrayBuffer {
    const p = getPointer(m, offset);
    if (p === null) return fail(`Command "${command}" mapped no memory`);
    let bytes = typeof size === "bigint" ? size : BigInt(RUNTIME.size(size));
    if (bytes === VK_WHOLE_SIZE) {
      const total = owner.allocationSize(memory);
      if (total === undefined) {
        return fail(
          `${
            at(command, "size")
          } is VK_WHOLE_SIZE for memory not allocated through this object: give the size`,
        );
      }
      bytes = total - (typeof start === "bigint" ? start : BigInt(RUNTIME.size(start)));
    }
    const mapped = Deno.UnsafePointerView.getArrayBuffer(p, Number(bytes));
    owner.noteMapping(memory, mapped);
    return mapped;
  },
};

/** `pPhysicalDevices` -> `physicalDevices` (as tools/_gen_idiomatic.ts names outputs). */
export function outputName(param: string): string {
  const m = /^p+([A-Z].*)$/.exec(param);
  const base = m ? m[1]! : param;
  return base[0]!.toLowerCase() + base.slice(1);
}

const compiled = new Map<string, CompiledCommand>();
let resultCodes: Map<string, number> | undefined;
/** `VkResult` name -> value (built on first compile). */
const RESULT_CODES = {
  get(name: string): number | undefined {
    resultCodes ??= new Map(Object.entries(RESULT_NAMES).map(([v, n]) => [n, Number(v)]));
    return resultCodes.get(name);
  },
};

/**
 * The compiled form of command `name` (no alias), built on first use and cached.
 *
 * @example Usage
 * ```ts
 * import { compileCommand, RUNTIME } from "./compile.ts";
 * const draw = compileCommand("vkCmdDraw");
 * console.log(typeof draw(RUNTIME, () => undefined, { noteAllocation() {}, allocationSize: () => undefined, noteMapping() {} })); // "function"
 * ```
 * @throws {TypeError} If `name` is not a command of the registry.
 */
export function compileCommand(name: string): CompiledCommand {
  let c = compiled.get(name);
  if (!c) compiled.set(name, c = build(targetOf(name)));
  return c;
}

/**
 * The plan of command `name`, or undefined if there is no such command (aliases are followed).
 *
 * @example Usage
 * ```ts
 * import { planOf } from "./compile.ts";
 * console.log(planOf("vkCmdDraw")?.[0]); // 0 (returns void)
 * ```
 */
export function planOf(name: string): IdiomaticPlan | undefined {
  const plan = Object.hasOwn(IDIOMATIC_PLANS, name) ? IDIOMATIC_PLANS[name] : undefined;
  return typeof plan === "string" ? planOf(plan) : plan;
}

/**
 * The command an alias names (`vkCmdDrawIndirectCountKHR` -> `vkCmdDrawIndirectCount`), or `name` itself.
 *
 * @example Usage
 * ```ts
 * import { targetOf } from "./compile.ts";
 * console.log(targetOf("vkGetPhysicalDeviceProperties2KHR")); // "vkGetPhysicalDeviceProperties2"
 * ```
 */
export function targetOf(name: string): string {
  const plan = Object.hasOwn(IDIOMATIC_PLANS, name) ? IDIOMATIC_PLANS[name] : undefined;
  return typeof plan === "string" ? plan : name;
}

/**
 * The JavaScript source of command `name`'s function (for tests and curious readers). */
export function commandSource(name: string): string {
  const plan = planOf(name);
  const params = Object.hasOwn(COMMAND_PARAMS, name) ? COMMAND_PARAMS[name] : undefined;
  if (!plan || !params) throw new TypeError(`Unknown command "${name}"`);
  return source(name, plan, params.map((p) => ({ name: p.name, type: p.type })));
}

function build(name: string): CompiledCommand {
  return new Function("rt", "fn", "owner", commandSource(name)) as CompiledCommand;
}

function source(
  name: string,
  plan: IdiomaticPlan,
  params: readonly { name: string; type: string }[],
): string {
  const [resultKind, codes, roles] = plan;
  const q = JSON.stringify;
  const user: string[] = [];
  const entries = new Map<string, string>();
  /** The constant holding struct `struct`'s entry, resolved once when the command is bound. */
  const entry = (struct: string) => {
    let e = entries.get(struct);
    if (e === undefined) entries.set(struct, e = `E${entries.size}`);
    return e;
  };
  const prep: string[] = [];
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
      case "v":
        prep.push(role[1] === undefined ? `const a${i} = ${u};` : `const a${i} = ${u} ?? ${role[1]};`);
        break;
      case "b":
        prep.push(`const a${i} = ${u} ? 1 : 0;`);
        break;
      case "n":
        prep.push(`const a${i} = null;`);
        break;
      case "raw":
        prep.push(`const a${i} = ${u} ?? null;`);
        break;
      case "s":
        memory = true;
        prep.push(`const a${i} = rt.str(m, ${u}, ${role[1] === true}, ${q(name)}, ${P});`);
        break;
      case "st":
        memory = true;
        prep.push(
          `const a${i} = rt.struct(m, ${entry(String(role[1]))}, ${q(role[1])}, ${u}, ${role[2] === true}, ${
            q(name)
          }, ${P});`,
        );
        break;
      case "a":
        memory = true;
        prep.push(
          `const a${i} = rt.array(m, ${q(role[1])}, ${q(role[2])}, ${u}, ${role[3] === true}, ${
            q(name)
          }, ${P}${role[1] === "struct" ? `, ${entry(String(role[2]))}` : ""});`,
        );
        break;
      case "fix":
        memory = true;
        prep.push(`const a${i} = rt.scalars(m, ${q(role[1])}, ${u}, ${role[2]}, ${q(name)}, ${P});`);
        break;
      case "buf":
        memory = true;
        prep.push(`const b${i} = rt.buffer(m, ${u}, ${role[1] === true}, ${q(name)}, ${P});`);
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
        outputs.push([outputName(p.name), `o${i}`]);
        break;
      }
      case "ox":
      case "op": {
        memory = true;
        const off = slot(8);
        prep.push(`const a${i} = m.at(${off});`);
        after.push(`const o${i} = rt.scalar(m, ${off}, ${q(kind === "op" ? "pointer" : role[1])});`);
        outputs.push([outputName(p.name), `o${i}`]);
        break;
      }
      case "os": {
        memory = true;
        const off = slot(layoutOf(String(role[1])).size);
        const takesChain = role[2] === 1 && chain === undefined;
        if (takesChain) chain = `c${i}`;
        const e = entry(String(role[1]));
        prep.push(
          `rt.outStruct(m, ${e}, ${q(role[1])}, ${off}, ${takesChain ? chain : "null"}, ${q(name)});`,
        );
        prep.push(`const a${i} = m.at(${off});`);
        after.push(`const o${i} = rt.readStruct(m, ${e}, ${off}, ${takesChain ? chain : "false"});`);
        outputs.push([outputName(p.name), `o${i}`]);
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
        after.push(`const o${i} = rt.mapped(owner, m, ${off}, ${mem}, ${at}, ${size}, ${q(name)});`);
        outputs.push([outputName(p.name), `o${i}`]);
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
          prep.push(`const l${i} = rt.links(${chain}, ${q(name)});`);
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
        outputs.push([outputName(p.name), `o${i}`]);
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
          prep.push(`const l${i} = rt.links(${chain}, ${q(name)});`);
        }
        outputs.push([outputName(p.name), `o${i}`]);
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
      counts.push(
        `const n${i}_${j} = rt.len(${userOf[k]}, ${q(kinds[j])}, ${q(name)}, ${q(params[k]!.name)});`,
      );
      if (j > 0) {
        counts.push(
          `if (n${i}_${j} !== n${i}_0 && ${userOf[k]} != null) rt.mismatch(${q(name)}, ${
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
  const check = resultKind === 1 ? `if (r < 0) rt.fail(r, ${q(name)});` : "";
  const body: string[] = [];
  body.push(...counts.length ? reorder(prep, counts) : prep);
  if (twoCall) {
    const t = twoCall;
    const read = t.kind === "usize"
      ? `Number(m.view.getBigUint64(${t.off}, true))`
      : `m.view.getUint32(${t.off}, true)`;
    body.push(`let r, a${t.count} = m.at(${t.off}), ${t.arrays.map((k) => `a${k}, o${k}`).join(", ")};`);
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
    if (resultKind === 1) body.push(`if (r === 5) rt.fail(5, ${q(name)});`);
  } else {
    body.push(`${resultKind === 0 ? "" : "const r = "}${call};`);
    if (check) body.push(check);
  }
  body.push(...after);
  const parts: [string, string][] = [];
  if (codes.length) {
    const known = codes.map((c) => [RESULT_CODES.get(c), c] as const).filter(([v]) => v !== undefined);
    parts.push(["result", `${known.map(([v, c]) => `r === ${v} ? ${q(c)} : `).join("")}rt.name(r)`]);
  }
  if (resultKind === 2) parts.push(["value", "r"]);
  if (resultKind === 3) parts.push(["value", "r !== 0"]);
  parts.push(...outputs);
  if (parts.length === 1) body.push(`return ${parts[0]![1]};`);
  else if (parts.length > 1) body.push(`return { ${parts.map(([k, v]) => `${q(k)}: ${v}`).join(", ")} };`);
  if (chain !== undefined) user.push(chain);
  const fnName = name.slice(2, 3).toLowerCase() + name.slice(3);
  const prelude = [...entries].map(([struct, e]) => `const ${e} = rt.entry(${q(struct)});\n`).join("");
  if (!memory && !twoCall) {
    return `${prelude}return function ${fnName}(${user.join(", ")}) {\n${body.join("\n")}\n};`;
  }
  return `${prelude}return function ${fnName}(${user.join(", ")}) {
const m = rt.enter(${reserved});
try {
${body.join("\n")}
} finally {
rt.leave(m);
}
};`;
}

/** Puts the count lines before the first line that reads a count (an output array sized by one). */
function reorder(prep: string[], counts: string[]): string[] {
  const first = prep.findIndex((l) => /^const n\d+ = rt\.size\(a\d+\)/.test(l));
  if (first < 0) return [...prep, ...counts];
  return [...prep.slice(0, first), ...counts, ...prep.slice(first)];
}
