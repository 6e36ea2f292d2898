/**
 * LP64 (x86-64 and aarch64 SysV) sizes, alignments and struct layouts, and the Deno FFI type of a C type.
 * Both ABIs agree on everything vk.xml uses: 8-byte pointers and 64-bit integers aligned to 8, enums as
 * 32-bit ints, bit-fields packed into units of their declared type.
 *
 * @module
 */
import type { Decl, Registry, TypeDecl } from "./_gen_registry.ts";

/** Size and alignment of a C type. */
export interface SizeAlign {
  size: number;
  align: number;
}

/** A laid-out member. */
export interface MemberLayout {
  name: string;
  type: string;
  offset: number;
  size: number;
  pointer: number;
  const: boolean;
  count?: number;
  len?: string;
  bits?: number;
  bitOffset?: number;
  noautovalidity?: boolean;
}

/** A laid-out struct or union. */
export interface StructLayout {
  name: string;
  size: number;
  align: number;
  union: boolean;
  sType?: number;
  sTypeName?: string;
  members: MemberLayout[];
}

const PRIMITIVES: Record<string, SizeAlign> = {
  char: { size: 1, align: 1 },
  int8_t: { size: 1, align: 1 },
  uint8_t: { size: 1, align: 1 },
  int16_t: { size: 2, align: 2 },
  uint16_t: { size: 2, align: 2 },
  int32_t: { size: 4, align: 4 },
  uint32_t: { size: 4, align: 4 },
  int: { size: 4, align: 4 },
  float: { size: 4, align: 4 },
  int64_t: { size: 8, align: 8 },
  uint64_t: { size: 8, align: 8 },
  double: { size: 8, align: 8 },
  size_t: { size: 8, align: 8 },
};

/** Platform types used by value; the rest (Display, wl_surface, ...) only appear behind pointers. */
const EXTERNAL: Record<string, SizeAlign & { ffi: Deno.NativeType }> = {
  Window: { size: 8, align: 8, ffi: "u64" },
  VisualID: { size: 8, align: 8, ffi: "u64" },
  RROutput: { size: 8, align: 8, ffi: "u64" },
  xcb_window_t: { size: 4, align: 4, ffi: "u32" },
  xcb_visualid_t: { size: 4, align: 4, ffi: "u32" },
  zx_handle_t: { size: 4, align: 4, ffi: "u32" },
  DWORD: { size: 4, align: 4, ffi: "u32" },
  HINSTANCE: { size: 8, align: 8, ffi: "pointer" },
  HWND: { size: 8, align: 8, ffi: "pointer" },
  HMONITOR: { size: 8, align: 8, ffi: "pointer" },
  HANDLE: { size: 8, align: 8, ffi: "pointer" },
  LPCWSTR: { size: 8, align: 8, ffi: "pointer" },
  GgpStreamDescriptor: { size: 4, align: 4, ffi: "u32" },
  GgpFrameToken: { size: 4, align: 4, ffi: "u32" },
  NvSciSyncAttrList: { size: 8, align: 8, ffi: "pointer" },
  NvSciSyncObj: { size: 8, align: 8, ffi: "pointer" },
  NvSciBufAttrList: { size: 8, align: 8, ffi: "pointer" },
  NvSciBufObj: { size: 8, align: 8, ffi: "pointer" },
  NvSciSyncFence: { size: 48, align: 8, ffi: "pointer" },
};

const PRIMITIVE_FFI: Record<string, Deno.NativeType> = {
  char: "i8",
  int8_t: "i8",
  uint8_t: "u8",
  int16_t: "i16",
  uint16_t: "u16",
  int32_t: "i32",
  uint32_t: "u32",
  int: "i32",
  float: "f32",
  int64_t: "i64",
  uint64_t: "u64",
  double: "f64",
  size_t: "usize",
};

/** Computes layouts with memoization; throws for a type it cannot size. */
export class Layouts {
  #reg: Registry;
  #memo = new Map<string, StructLayout>();
  #busy = new Set<string>();

  constructor(reg: Registry) {
    this.#reg = reg;
  }

  /** Follows type aliases to the declaration. */
  resolve(name: string): TypeDecl | undefined {
    let t = this.#reg.types.get(name);
    for (let i = 0; i < 8 && t?.alias; i++) t = this.#reg.types.get(t.alias);
    return t;
  }

  /** The size and alignment of a non-pointer, non-array value of type `name`. */
  sizeOf(name: string): SizeAlign {
    const p = PRIMITIVES[name];
    if (p) return p;
    const ext = EXTERNAL[name];
    if (ext) return { size: ext.size, align: ext.align };
    if (this.#reg.videoEnums.has(name)) return { size: 4, align: 4 };
    const t = this.resolve(name);
    if (!t) throw new TypeError(`Cannot size type "${name}": not in the registry`);
    switch (t.category) {
      case "handle":
      case "funcpointer":
        return { size: 8, align: 8 };
      case "enum":
        return this.#reg.enumGroups.get(t.name)?.bitwidth === 64
          ? { size: 8, align: 8 }
          : { size: 4, align: 4 };
      case "bitmask":
      case "basetype":
        if (t.pointerTypedef) return { size: 8, align: 8 };
        if (!t.underlying) throw new TypeError(`Cannot size type "${name}": opaque`);
        return this.sizeOf(t.underlying);
      case "struct":
      case "union": {
        const l = this.layout(t.name);
        return { size: l.size, align: l.align };
      }
    }
    throw new TypeError(`Cannot size type "${name}": category "${t.category}"`);
  }

  /** Lays out a struct or union (by its non-alias name). */
  layout(name: string): StructLayout {
    const memo = this.#memo.get(name);
    if (memo) return memo;
    const t = this.#reg.types.get(name);
    if (!t?.members) throw new TypeError(`Cannot lay out "${name}": not a struct or union`);
    if (this.#busy.has(name)) throw new TypeError(`Cannot lay out "${name}": it contains itself`);
    this.#busy.add(name);
    const union = t.category === "union";
    let bitPos = 0; // struct end in bits, so bit-fields can share a unit
    let size = 0;
    let align = 1;
    const members: MemberLayout[] = [];
    for (const m of t.members) {
      const base = m.pointer > 0 ? { size: 8, align: 8 } : this.sizeOf(m.type);
      const count = m.dims.reduce((a, b) => a * b, 1);
      const out: MemberLayout = {
        name: m.name,
        type: m.type,
        offset: 0,
        size: base.size * count,
        pointer: m.pointer,
        const: m.const,
      };
      if (m.dims.length > 0) out.count = count;
      if (m.len !== undefined) out.len = m.len;
      // sType's and pNext's own are left out: the chain's rules are each extending struct's.
      if (m.noautovalidity && m.name !== "sType" && m.name !== "pNext") out.noautovalidity = true;
      align = Math.max(align, base.align);
      if (m.bits !== undefined && !union) {
        const unitBits = base.size * 8;
        if (Math.floor(bitPos / unitBits) !== Math.floor((bitPos + m.bits - 1) / unitBits)) {
          bitPos = Math.ceil(bitPos / unitBits) * unitBits;
        }
        const unitStart = Math.floor(bitPos / unitBits) * unitBits;
        out.offset = unitStart / 8;
        out.size = base.size;
        out.bits = m.bits;
        out.bitOffset = bitPos - unitStart;
        bitPos += m.bits;
      } else if (union) {
        out.offset = 0;
        size = Math.max(size, out.size);
      } else {
        const offset = Math.ceil(Math.ceil(bitPos / 8) / base.align) * base.align;
        out.offset = offset;
        bitPos = (offset + out.size) * 8;
      }
      members.push(out);
    }
    if (!union) size = Math.ceil(bitPos / 8);
    size = Math.ceil(size / align) * align;
    const layout: StructLayout = { name, size, align, union, members };
    const sTypeMember = t.members.find((m) => m.name === "sType" && m.values);
    if (sTypeMember?.values) {
      const v = this.#reg.enumValues.get(sTypeMember.values);
      if (v !== undefined) {
        layout.sType = v;
        layout.sTypeName = sTypeMember.values;
      }
    }
    this.#busy.delete(name);
    this.#memo.set(name, layout);
    return layout;
  }

  /** The Deno FFI type for a parameter or result of C type `d`. */
  ffiType(d: Pick<Decl, "type" | "pointer" | "dims">): Deno.NativeType | "void" {
    if (d.pointer > 0 || d.dims.length > 0) return "pointer";
    if (d.type === "void") return "void";
    if (d.type === "VkResult") return "i32";
    const p = PRIMITIVE_FFI[d.type];
    if (p) return p;
    const ext = EXTERNAL[d.type];
    if (ext) return ext.ffi;
    const t = this.resolve(d.type);
    if (!t) throw new TypeError(`No FFI type for "${d.type}": not in the registry`);
    switch (t.category) {
      case "handle":
      case "funcpointer":
        return "pointer";
      case "enum":
        return this.#reg.enumGroups.get(t.name)?.bitwidth === 64 ? "u64" : "u32";
      case "bitmask":
      case "basetype":
        if (t.pointerTypedef) return "pointer";
        if (!t.underlying) throw new TypeError(`No FFI type for "${d.type}": opaque`);
        return this.ffiType({ type: t.underlying, pointer: 0, dims: [] });
    }
    throw new TypeError(`No FFI type for "${d.type}": structs are not passed by value in Vulkan commands`);
  }
}
