/**
 * The idiomatic commands' functions, generated from vk.xml into vk/generated/idiomatic_commands.js (straight-line
 * code per parameter role, so a call does no plan interpretation), by name; and {@linkcode RUNTIME}, the
 * run-time helpers that code calls.
 *
 * @module
 */
import { type CommandFactory, commands } from "../vk/generated/idiomatic_commands.js";
import { RESULT_NAMES } from "../vk/generated/enums.ts";
import { VkError } from "../vk/errors.ts";
import { ENDED_HANDLES } from "../vk/handle.ts";
import { findLayout, layoutOf } from "../vk/struct_layout.ts";
import { FULL, Scratch } from "../ffi/scratch.ts";
import { bytesOf, isBytes } from "../ffi/memory.ts";
import {
  entryOf,
  getPointer,
  type StructEntry,
  writeArrayInto,
  writeChain,
  writeGrowing,
} from "../vk/marshal.ts";

import {
  integerExpected,
  integerHint,
  type IntegerKind,
  integerValue,
  isBitMask,
  isPointerObject,
  isWideNumber,
  readScalar,
  scalarExpects,
  type ScalarKind,
  scalarSize,
  shownValue,
  writeScalar,
} from "../vk/scalar.ts";
import { COMMAND_PARAMS } from "../vk/generated/commands.ts";
import { CallMemory } from "./call_memory.ts";
import type { Check } from "../vk/handle_check_interface.ts";

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
  check: Check,
  called: string,
) => (...args: unknown[]) => unknown;

type Runtime = typeof RUNTIME;

const VK_WHOLE_SIZE = 0xffffffffffffffffn;
function fail(message: string): never {
  throw new TypeError(message);
}

/**
 * Throws for integer `v` that does not fit `kind`, given as parameter `param` of `command` (`place` names it,
 * and an array's element): a RangeError for a number, else a TypeError.
 */
function misfit(place: string, v: unknown, kind: IntegerKind, command: string, param: string): never {
  const type = COMMAND_PARAMS[targetOf(command)]?.find((p) => p.name === param)?.type;
  const mask = type !== undefined && isBitMask(type, param);
  const message = `${place} expected ${integerExpected(kind)}, got ${shownValue(v)}${
    integerHint(v, kind, mask)
  }`;
  if (typeof v === "number" || typeof v === "bigint") throw new RangeError(message);
  return fail(message);
}

function at(command: string, param: string): string {
  return `Cannot call "${command}": parameter "${param}"`;
}

/**
 * A struct writer's error (`Cannot write ... to member "x" of "VkViewport"`) as the command's: the same class,
 * its message after the command and parameter, the writer's error as its cause.
 */
function named(e: unknown, command: string, param: string): unknown {
  if (!(e instanceof TypeError || e instanceof RangeError) || e === FULL) return e;
  const Class = e instanceof RangeError ? RangeError : TypeError;
  return new Class(`${at(command, param)}: ${e.message}`, { cause: e });
}

function elementSize(kind: string, element: string): number {
  if (kind === "struct") return entryOf(element)[2];
  if (kind === "handle") return 8;
  if (kind === "bytes") return 1;
  return scalarSize(element as ScalarKind);
}

let idle: CallMemory | undefined;

/** Handle addresses by handle object: a handle passed in an array every frame costs no new bigint a call. */
const addresses = new WeakMap<Deno.PointerObject, bigint>();
/** The handle whose address was asked for last (a loop passing one handle skips the lookup). */
let lastHandle: Deno.PointerObject | undefined;
let lastAddress = 0n;
function addressOf(h: Deno.PointerObject): bigint {
  if (h === lastHandle) return lastAddress;
  let a = addresses.get(h);
  if (a === undefined) addresses.set(h, a = Deno.UnsafePointer.value(h));
  lastHandle = h;
  lastAddress = a;
  return a;
}
const EMPTY = Object.freeze({});

/**
 * The chain structs (`names`, in order) linked from the pNext of the struct at `offset`, by name. Structs read
 * back through VkApi have a null pNext: theirs pointed into memory the next call reuses, so one spread into a
 * new chain starts it afresh (docs/behaviour.md V16).
 */
function readChain(m: Scratch, offset: number, names: readonly string[] | null): Record<string, unknown> {
  const read: Record<string, unknown> = {};
  let p = getPointer(m, offset + 8);
  for (const type of names ?? []) {
    if (p === null) break;
    const [, reader, size] = entryOf(type);
    const link = Scratch.of(new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(p, size)));
    const value = reader(link, 0);
    p = getPointer(link, 8);
    value.pNext = null;
    read[type] = value;
  }
  return read;
}

/** Writes `values` as consecutive structs of `entry` into `m` (a larger scratch when full): their address. */
function structsAt(
  m: CallMemory,
  entry: StructEntry,
  name: string,
  values: readonly unknown[],
  command: string,
  param: string,
): Deno.PointerObject {
  try {
    return writeGrowing(
      m,
      (s) => writeArrayInto(s, entry, name, values),
      (s) => m.keep(s),
      (s, o) => s.at(o),
    );
  } catch (e) {
    throw named(e, command, param);
  }
}

/** The scalar kinds of integers narrower than 64 bits, whose array elements are range-tested. */
const INTEGER_KINDS: ReadonlySet<ScalarKind> = new Set(["u8", "i8", "u16", "i16", "u32", "i32", "bool"]);
const isUint32 = (x: unknown) => typeof x === "number" && x >>> 0 === x;
const isInt32 = (x: unknown) => typeof x === "number" && (x | 0) === x;
const isNumber = (x: unknown) => typeof x === "number";

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
  /**
   * Handles a `VkApi` destroyed, or destroyed with their parent, with why (api/vk_api.ts fills it): a command
   * given one as a handle parameter or an array's element throws instead of reaching the driver.
   */
  ended: ENDED_HANDLES,
  /**
   * Bumped when a dispatchable handle, a descriptor set or a pool's command buffer is
   * {@linkcode RUNTIME.end}ed: a parameter of those types that saw a handle pass at this epoch skips the
   * lookup while it is unchanged (an ended handle never comes back), so ending a buffer costs them nothing.
   */
  epoch: 0,
  /** Bumped when any handle is {@linkcode RUNTIME.end}ed: the epoch of the other handle parameters. */
  endings: 0,
  /**
   * Records that `h` ended, for `why`; `checked` (a dispatchable handle, a descriptor set or a command
   * buffer) starts a new {@linkcode RUNTIME.epoch}, which ending a buffer or an image need not.
   */
  end(h: object, why: string, checked: boolean): void {
    RUNTIME.ended.set(h, why);
    RUNTIME.endings++;
    if (checked) RUNTIME.epoch++;
  },
  gone(h: unknown, command: string, param: string): never {
    const at = Deno.UnsafePointer.value(h as Deno.PointerValue).toString(16);
    throw new TypeError(`${command}: ${param} 0x${at} ${RUNTIME.ended.get(h as object)}`);
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
      if (e !== FULL) throw named(e, command, param);
      m.top = top;
    }
    return structsAt(m, entry, name, [v], command, param);
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
    switch (kind) {
      case "struct": {
        if (!Array.isArray(v)) return fail(`${at(command, param)} expected an array of "${element}" objects`);
        if (v.length === 0) return null;
        for (let i = 0; i < v.length; i++) {
          if (isPointerObject(v[i])) {
            return fail(`${at(command, param)} element ${i}: expected a "${element}" object, got a pointer`);
          }
        }
        if (v.length === 1) {
          return RUNTIME.struct(m, entry ?? entryOf(element), element, v[0], false, command, param);
        }
        return structsAt(m, entry ?? entryOf(element), element, v, command, param);
      }
      case "handle":
        return RUNTIME.handles(m, element, v, opt, command, param);
      case "bytes":
        return RUNTIME.bytes(m, v, opt, command, param);
      case "strings": {
        if (!Array.isArray(v) || !v.every((s) => typeof s === "string")) {
          return fail(`${at(command, param)} expected an array of strings`);
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
  /** The address of handle `h`, as a bigint (cached per handle object). */
  address: addressOf,
  /**
   * After a struct writer threw `e` at scratch position `top`: the scratch was full ({@linkcode FULL}), so
   * `values` are written again into a larger one (their address); any other error is the caller's, thrown.
   */
  refit(
    m: CallMemory,
    top: number,
    e: unknown,
    entry: StructEntry,
    name: string,
    values: unknown[],
    command: string,
    param: string,
  ) {
    if (e !== FULL) throw named(e, command, param);
    m.top = top;
    return structsAt(m, entry, name, values, command, param);
  },
  /**
   * An input array of handles as a C array; null for an absent optional one. A null element is written as 0
   * where vk.xml lets elements be `VK_NULL_HANDLE` (`nulls`), else refused (docs/behaviour.md V12); an element
   * VkApi ended is refused (V11).
   */
  handles(
    m: CallMemory,
    element: string,
    v: unknown,
    opt: boolean,
    command: string,
    param: string,
    nulls = true,
  ): Deno.PointerObject | null {
    if (!Array.isArray(v)) {
      if (v == null) return opt ? null : fail(`${at(command, param)} expected an array, got ${v}`);
      if (isPointerObject(v)) return v;
      return fail(`${at(command, param)} expected an array of ${element}`);
    }
    const n = v.length;
    let off = -1;
    try {
      off = m.alloc(n * 8, 8);
    } catch (e) {
      if (e !== FULL) throw e;
    }
    const buf = off >= 0 ? undefined : m.bytes(n * 8, 8);
    const words = buf ? new BigUint64Array(buf.buffer, buf.byteOffset, n) : m.u64;
    const first = buf ? 0 : off >> 3;
    for (let i = 0; i < n; i++) {
      const h: unknown = v[i];
      if (h === null || h === undefined) {
        if (nulls) continue;
        const what = `expected a ${element} handle, got ${h} (VK_NULL_HANDLE is not valid here)`;
        return fail(`${at(command, param)} element ${i}: ${what}`);
      }
      if (!isPointerObject(h)) {
        return fail(`${at(command, param)} element ${i}: expected a ${element} handle`);
      }
      // A handle VkApi ended (destroyed, freed, or with its parent) never reaches the driver.
      if (RUNTIME.ended.has(h)) RUNTIME.gone(h, command, `${param}[${i}]`);
      words[first + i] = addressOf(h);
    }
    return buf ? m.pointer(buf) : m.at(off);
  },
  /** An input byte buffer (`ArrayBuffer` or typed array) copied into the call's memory; null for an absent one. */
  bytes(m: CallMemory, v: unknown, opt: boolean, command: string, param: string): Deno.PointerObject | null {
    if (v == null) {
      return opt ? null : fail(`${at(command, param)} expected an ArrayBuffer or typed array, got ${v}`);
    }
    if (isPointerObject(v)) return v;
    if (!isBytes(v)) return fail(`${at(command, param)} expected an ArrayBuffer or typed array`);
    return RUNTIME.copy(m, bytesOf(v), 8);
  },
  /** A copy of `bytes` in the call's memory, aligned to `align`: its address. */
  copy(m: CallMemory, bytes: Uint8Array, align: number): Deno.PointerObject {
    try {
      const off = m.alloc(bytes.byteLength, align < 8 ? 8 : align);
      m.u8.set(bytes, off);
      return m.at(off);
    } catch (e) {
      if (e !== FULL) throw e;
    }
    const buf = m.bytes(bytes.byteLength, align);
    buf.set(bytes);
    return m.pointer(buf);
  },
  /** Numbers (or bigints) as a C array of `kind`; `fixed` >= 0 is the length of a fixed-size array parameter. */
  scalars(m: CallMemory, kind: ScalarKind, v: unknown, fixed: number, command: string, param: string) {
    if (isBytes(v) && !(v instanceof DataView) && !(v instanceof ArrayBuffer) && fixed < 0) {
      // A 32-bit typed array is copied through the scratch's view of its type (no Uint8Array per call).
      const same = v instanceof Uint32Array
        ? m.u32
        : v instanceof Int32Array
        ? m.i32
        : v instanceof Float32Array
        ? m.f32
        : undefined;
      if (same !== undefined && m.top + v.byteLength + 8 <= m.size) {
        const off = m.alloc(v.byteLength, 8);
        const n = (v as Uint32Array).length;
        // A few elements copy faster by a loop than through set() (a builtin call).
        if (n <= 16) { for (let i = 0; i < n; i++) same[(off >> 2) + i] = (v as Uint32Array)[i]!; }
        else same.set(v as Uint32Array & Int32Array & Float32Array, off >> 2);
        return m.at(off);
      }
      return RUNTIME.copy(m, bytesOf(v), Math.min(scalarSize(kind), 8));
    }
    const list = v as ArrayLike<unknown>;
    if (typeof list !== "object" || list === null || typeof list.length !== "number") {
      return fail(`${at(command, param)} expected an array of numbers`);
    }
    const size = scalarSize(kind);
    if (fixed >= 0 && list.length > fixed) {
      return fail(`${at(command, param)} has ${list.length} elements, room for ${fixed}`);
    }
    const n = fixed >= 0 ? fixed : list.length;
    // 32-bit numbers that fit (dynamic offsets, indices, masks) straight into the scratch's views: no view per
    // call; anything else (a bigint, a boolean, a mistake) through the general path below.
    if (
      (kind === "u32" || kind === "i32" || kind === "f32") && Array.isArray(list) &&
      m.top + n * 4 + 8 <= m.size &&
      list.every(kind === "u32" ? isUint32 : kind === "i32" ? isInt32 : isNumber)
    ) {
      const off = m.alloc(n * 4, 8);
      const view = kind === "u32" ? m.u32 : kind === "i32" ? m.i32 : m.f32;
      for (let i = 0; i < list.length; i++) view[(off >> 2) + i] = list[i] as number;
      return m.at(off);
    }
    const buf = m.bytes(size * n, Math.min(size, 8));
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    const integer = INTEGER_KINDS.has(kind);
    for (let i = 0; i < list.length; i++) {
      const x = list[i];
      // An integer element must fit its type, as a parameter must (docs/behaviour.md V14).
      if (integer && integerValue(x, kind as IntegerKind) === undefined) {
        return misfit(`${at(command, param)} element ${i}:`, x, kind as IntegerKind, command, param);
      }
      if (!writeScalar(view, i * size, kind, x)) {
        return fail(
          `${at(command, param)} element ${i}: expected ${scalarExpects(kind)}, got ${shownValue(x)}`,
        );
      }
    }
    return m.pointer(buf);
  },
  /**
   * An integer parameter of `kind` (8 to 32 bits) given as other than a number that fits (the command's own
   * test failed): a boolean or a bigint that fits, as a number, else the error naming command and parameter
   * (docs/behaviour.md V14), where Deno's FFI would name neither (or keep the low bits).
   */
  integer(v: unknown, kind: IntegerKind, command: string, param: string): number {
    return integerValue(v, kind) ?? misfit(at(command, param), v, kind, command, param);
  },
  /**
   * A 64-bit integer parameter given as something other than a bigint (the generated code passes a bigint
   * on without a call): a safe integer number, not negative for an unsigned type, or a pointer's address.
   */
  wide(v: unknown, signed: boolean, command: string, param: string): number | bigint {
    if (typeof v === "bigint" || (typeof v === "number" && isWideNumber(v, signed))) return v;
    if (v === null || isPointerObject(v)) return Deno.UnsafePointer.value(v);
    return fail(
      `${at(command, param)} expected ${scalarExpects(signed ? "i64" : "u64")}, got ${shownValue(v)}`,
    );
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
    out.pNext = null;
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
      value.pNext = null;
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

let factories: Readonly<Record<string, CommandFactory>> | undefined;

/** The generated factories by command name, defined on the first call (not at import: they are 0.6 MB). */
function table(): Readonly<Record<string, CommandFactory>> {
  return factories ??= commands();
}

/**
 * The idiomatic function factory of command or alias `name` (api/README.md): generated into
 * vk/generated/idiomatic_commands.js, so what runs is in a file and a stack trace names it.
 *
 * @example Usage
 * ```ts
 * import { compileCommand, RUNTIME } from "./compile.ts";
 * const draw = compileCommand("vkCmdDraw");
 * const owner = { noteAllocation() {}, allocationSize: () => undefined, noteMapping() {} };
 * console.log(typeof draw(RUNTIME, () => undefined, owner, () => {}, "vkCmdDraw")); // "function"
 * ```
 * @throws {TypeError} If `name` is not a command of vk.xml.
 */
export function compileCommand(name: string): CompiledCommand {
  const factory = Object.hasOwn(table(), name) ? table()[name] : undefined;
  if (!factory) throw new TypeError(`Unknown command "${name}"`);
  return factory as CompiledCommand;
}

/**
 * Whether `name` is a command or alias of vk.xml.
 *
 * @example Usage
 * ```ts
 * import { isCommand } from "./compile.ts";
 * console.log(isCommand("vkCmdDraw"), isCommand("vkNoSuchCommand")); // true false
 * ```
 */
export function isCommand(name: string): boolean {
  return Object.hasOwn(table(), name);
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
  const factory = Object.hasOwn(table(), name) ? table()[name] : undefined;
  if (!factory) return name;
  return `vk${factory.name[0]!.toUpperCase()}${factory.name.slice(1)}`;
}

/**
 * The JavaScript of command `name`'s function (for tests and curious readers).
 *
 * @example Usage
 * ```ts
 * import { commandSource } from "./compile.ts";
 * console.log(commandSource("vkCmdDraw").includes("function cmdDraw")); // true
 * ```
 * @throws {TypeError} If `name` is not a command of vk.xml.
 */
export function commandSource(name: string): string {
  return compileCommand(name).toString();
}
