/**
 * Writes plain JavaScript objects as Vulkan structs into an {@linkcode Arena}, following the generated
 * layouts: sType filled in, pNext chains linked, strings, arrays and nested structs allocated in the same
 * arena (so they live as long as C may read them), count members filled from the arrays they count.
 *
 * @module
 */
import type { Arena } from "../ffi/memory.ts";
import { isPointerObject, scalarExpects, type ScalarKind, writeScalar } from "./_scalar.ts";
import {
  countMemberOf,
  elementCount,
  findLayout,
  layoutOf,
  type MemberLayout,
  pointeeKind,
  pointeeSize,
  scalarKind,
  type StructLayout,
} from "./_struct_layout.ts";

/** What the writer allocates from: an {@linkcode Arena}, or any allocator with its methods. */
export type StructMemory = Pick<
  Arena,
  "alloc" | "pointer" | "copy" | "cstring" | "cstringArray" | "pointerArray"
>;

/** A struct given as a plain object: member names to values. */
export type StructInput = { readonly [member: string]: unknown };

/** One link of a pNext chain: the struct's name in `type`, its members beside it. */
export type ChainInput = StructInput & { readonly type: string };

const encoder = new TextEncoder();

function isPlainObject(value: unknown): value is StructInput {
  return typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

function isBytes(value: unknown): value is ArrayBufferView | ArrayBuffer {
  return ArrayBuffer.isView(value) || value instanceof ArrayBuffer;
}

function bytesOf(value: ArrayBufferView | ArrayBuffer): Uint8Array {
  return value instanceof ArrayBuffer
    ? new Uint8Array(value)
    : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
}

function where(struct: string, member: MemberLayout): string {
  return `member "${member.name}" of "${struct}"`;
}

/** Writes one scalar element; pointers accept a pointer object, null, or a bigint/number address. */
function writeElement(
  view: DataView,
  offset: number,
  kind: ScalarKind,
  value: unknown,
  what: () => string,
): void {
  if (!writeScalar(view, offset, kind, value)) {
    throw new TypeError(`Cannot write "${String(value)}" to ${what()}: expected ${scalarExpects(kind)}`);
  }
}

/**
 * A struct writer bound to one arena. Public entry points are in `api/structs.ts`.
 */
export class StructWriter {
  #arena: StructMemory;

  constructor(arena: StructMemory) {
    this.#arena = arena;
  }

  /** Allocates `values.length` consecutive structs and writes them; returns the first one's address. */
  array(name: string, values: readonly unknown[]): Deno.PointerObject {
    const layout = layoutOf(name);
    const buf = this.#arena.alloc(layout.size * Math.max(values.length, 1), layout.align);
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    values.forEach((value, i) => {
      if (!isPlainObject(value)) {
        throw new TypeError(`Cannot write element ${i} of "${name}[]": expected an object`);
      }
      this.into(name, layout, value, view, i * layout.size);
    });
    if (values.length === 0) this.#prefill(layout, view, 0);
    return this.#arena.pointer(buf);
  }

  /** Allocates `count` zeroed structs with sType filled in (output structs). */
  zeroed(name: string, count: number): Deno.PointerObject {
    const layout = layoutOf(name);
    const buf = this.#arena.alloc(layout.size * Math.max(count, 1), layout.align);
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    for (let i = 0; i < count; i++) this.#prefill(layout, view, i * layout.size);
    return this.#arena.pointer(buf);
  }

  /** Links a pNext chain (a list, one object, or a pointer) and returns its head. */
  chain(value: unknown, owner: string): Deno.PointerValue {
    if (value === undefined || value === null) return null;
    if (isPointerObject(value)) return value;
    const links = Array.isArray(value) ? value : [value];
    let next: Deno.PointerValue = null;
    for (let i = links.length - 1; i >= 0; i--) {
      const link: unknown = links[i];
      if (isPointerObject(link)) {
        if (i !== links.length - 1) {
          throw new TypeError(`Cannot link pNext of "${owner}": a raw pointer may only end the chain`);
        }
        next = link;
        continue;
      }
      if (!isPlainObject(link) || typeof link.type !== "string") {
        throw new TypeError(`Cannot link pNext of "${owner}": each entry needs a "type" naming its struct`);
      }
      const { type, ...members }: Record<string, unknown> = link;
      if (typeof type !== "string") {
        throw new TypeError(`Cannot link pNext of "${owner}": "type" must be a string`);
      }
      if (next !== null) {
        if (members.pNext !== undefined) {
          throw new TypeError(`Cannot link pNext of "${type}": it is given both in a list and as "pNext"`);
        }
        members.pNext = next;
      }
      next = this.array(type, [members]);
    }
    return next;
  }

  /** Writes `value` as struct `name` at `base` in `view`. */
  into(name: string, layout: StructLayout, value: StructInput, view: DataView, base: number): void {
    for (const key of Object.keys(value)) {
      if (!layout.members.some((m) => m.name === key)) {
        throw new TypeError(`Unknown member "${key}" of "${name}"`);
      }
    }
    this.#prefill(layout, view, base);
    const counts = new Map<string, { length: number; from: string }>();
    for (const member of layout.members) {
      const v = value[member.name];
      if (v === undefined) continue;
      if (member.name === "pNext" && member.pointer > 0) {
        writeElement(view, base + member.offset, "pointer", this.chain(v, name), () => where(name, member));
        continue;
      }
      const length = this.#member(name, member, v, view, base);
      if (length === undefined) continue;
      const count = countMemberOf(layout, member);
      if (!count) continue;
      const total = length * (member.type === "void" ? 1 : count.scale);
      const seen = counts.get(count.name);
      if (seen && seen.length !== total) {
        throw new RangeError(
          `Cannot fill "${count.name}" of "${name}": "${seen.from}" has ${seen.length} and "${member.name}" has ${total}`,
        );
      }
      counts.set(count.name, { length: total, from: member.name });
    }
    for (const [countName, { length }] of counts) {
      if (value[countName] !== undefined) continue;
      const member = layout.members.find((m) => m.name === countName)!;
      writeElement(view, base + member.offset, scalarKind(member), length, () => where(name, member));
    }
  }

  #prefill(layout: StructLayout, view: DataView, base: number): void {
    if (layout.sType === undefined) return;
    const sType = layout.members.find((m) => m.name === "sType");
    if (sType) view.setUint32(base + sType.offset, layout.sType, true);
  }

  /** Writes one member; returns the element count of an array given for a pointer member. */
  #member(
    struct: string,
    member: MemberLayout,
    value: unknown,
    view: DataView,
    base: number,
  ): number | undefined {
    const what = () => where(struct, member);
    const offset = base + member.offset;
    if (member.bits !== undefined) {
      if (typeof value !== "number") throw new TypeError(`Cannot write "${String(value)}" to ${what()}`);
      const shift = member.bitOffset ?? 0;
      const mask = member.bits >= 32 ? 0xffffffff : ((1 << member.bits) - 1) << shift;
      const old = view.getUint32(offset, true);
      view.setUint32(offset, ((old & ~mask) | ((value << shift) & mask)) >>> 0, true);
      return undefined;
    }
    if (member.pointer === 0) {
      this.#inPlace(struct, member, value, view, offset);
      return undefined;
    }
    if (value === null || isPointerObject(value) || typeof value === "bigint") {
      writeElement(view, offset, "pointer", value, what);
      return undefined;
    }
    const { pointer, length } = this.#pointee(struct, member, value);
    writeElement(view, offset, "pointer", pointer, what);
    return length;
  }

  /** A member stored in the struct itself: scalar, handle, nested struct, or fixed array of those. */
  #inPlace(struct: string, member: MemberLayout, value: unknown, view: DataView, offset: number): void {
    const what = () => where(struct, member);
    const nested = findLayout(member.type);
    if (member.count === undefined) {
      if (!nested) return writeElement(view, offset, scalarKind(member), value, what);
      if (!isPlainObject(value)) throw new TypeError(`Cannot write ${what()}: expected an object`);
      return this.into(member.type, nested, value, view, offset);
    }
    const count = elementCount(member);
    if (member.type === "char" && typeof value === "string") {
      const bytes = encoder.encode(value);
      if (bytes.length >= count) {
        throw new RangeError(
          `Cannot write ${what()}: "${value}" needs ${bytes.length + 1} of ${count} bytes`,
        );
      }
      new Uint8Array(view.buffer, view.byteOffset + offset, count).fill(0).set(bytes);
      return;
    }
    const list = isBytes(value) && !(value instanceof DataView)
      ? Array.from(value as unknown as ArrayLike<unknown>)
      : value;
    if (!Array.isArray(list)) throw new TypeError(`Cannot write ${what()}: expected an array`);
    if (list.length > count) {
      throw new RangeError(`Cannot write ${what()}: ${list.length} elements, room for ${count}`);
    }
    const step = member.size / count;
    list.forEach((element, i) => {
      if (!nested) return writeElement(view, offset + i * step, scalarKind(member), element, what);
      if (!isPlainObject(element)) throw new TypeError(`Cannot write ${what()}[${i}]: expected an object`);
      this.into(member.type, nested, element, view, offset + i * step);
    });
  }

  /** Allocates what a pointer member points to; returns its address and element count. */
  #pointee(
    struct: string,
    member: MemberLayout,
    value: unknown,
  ): { pointer: Deno.PointerValue; length: number } {
    const what = () => where(struct, member);
    const arena = this.#arena;
    if (member.type === "char" && member.pointer === 1 && typeof value === "string") {
      return { pointer: arena.cstring(value), length: encoder.encode(value).length };
    }
    if (isBytes(value)) {
      const bytes = bytesOf(value);
      const size = pointeeSize(member);
      return { pointer: arena.copy(bytes, Math.min(Math.max(size, 1), 8)), length: bytes.length / size };
    }
    if (member.type === "char" && member.pointer === 2 && Array.isArray(value)) {
      if (!value.every((s) => typeof s === "string")) {
        throw new TypeError(`Cannot write ${what()}: expected strings`);
      }
      return { pointer: arena.cstringArray(value), length: value.length };
    }
    const nested = findLayout(member.type);
    if (nested && member.pointer === 1) {
      if (Array.isArray(value)) {
        return { pointer: value.length === 0 ? null : this.array(member.type, value), length: value.length };
      }
      if (isPlainObject(value)) return { pointer: this.array(member.type, [value]), length: 1 };
      throw new TypeError(`Cannot write ${what()}: expected an object, an array of objects or a pointer`);
    }
    if (!Array.isArray(value)) {
      throw new TypeError(`Cannot write ${what()}: expected an array, a typed array or a pointer`);
    }
    if (value.length === 0) return { pointer: null, length: 0 };
    if (nested && member.pointer === 2) {
      // Arrays of pointers to structs (`const T* const*`): one allocation per element.
      const list = value.map((v, i) => {
        if (v === null || isPointerObject(v)) return v;
        if (!isPlainObject(v)) throw new TypeError(`Cannot write ${what()}[${i}]: expected an object`);
        return this.array(member.type, [v]);
      });
      return { pointer: arena.pointerArray(list), length: value.length };
    }
    const kind = pointeeKind(member);
    const size = pointeeSize(member);
    const buf = arena.alloc(size * value.length, Math.min(size, 8));
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    value.forEach((v, i) => writeElement(view, i * size, kind, v, what));
    return { pointer: arena.pointer(buf), length: value.length };
  }
}
