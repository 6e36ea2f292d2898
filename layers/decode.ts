/**
 * Decodes a Vulkan call's parameters into JSON-ready values from the generated tables: handles and
 * pointers as `"0x..."`, enums by name, 64-bit integers as decimal strings, strings, structs (their
 * pointer members followed a few levels, arrays by their `len`, pNext chains by sType, with `type` naming
 * each link's struct), and output parameters read back after the call.
 *
 * @example Usage
 * ```ts ignore
 * import { decodeCall } from "./decode.ts";
 * const args = decodeCall(info, callArgs); // { device: "0x5581...", pCreateInfo: { sType: "VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO", ... } }
 * ```
 *
 * @module
 */
import { ENUM_TYPES, ENUM_VALUES, RESULT_NAMES } from "../vk/generated/enums.ts";
import { STRUCT_BY_STYPE, STRUCTS } from "../vk/generated/structs.ts";
import type { MemberInfo } from "../vk/generated/types.ts";
import type { CommandDescription, CommandParameter } from "./layer.ts";
import { readCString } from "../ffi/memory.ts";
import { readStructValue } from "../vk/struct_read.ts";
import { evaluateLen } from "./_commands.ts";
import { isHandleType } from "../vk/handle_type.ts";
import { handleKey, handleText } from "../vk/handle_key.ts";

/** A decoded value: JSON-compatible. */
export type Decoded = null | boolean | number | string | Decoded[] | { [name: string]: Decoded };

/** Options of {@linkcode decodeCall}. */
export interface DecodeOptions {
  /** Whether the call returned, so outputs hold values (default true); before it, outputs show as addresses. */
  after?: boolean;
  /** Most array elements shown (default 16); the rest are summarised. */
  maxArray?: number;
  /** How many pointer levels of structs are followed (default 3). */
  depth?: number;
}

const enumNames = new Map<string, Map<number, string>>();

function enumName(type: string, value: number): string | undefined {
  let names = enumNames.get(type);
  if (!names) {
    names = new Map();
    const values = ENUM_VALUES[type];
    for (const n of ENUM_TYPES[type]?.values ?? []) {
      const v = values?.[n];
      if (typeof v === "number" && !names.has(v)) names.set(v, n);
    }
    enumNames.set(type, names);
  }
  return names.get(value);
}

function pointerText(p: Deno.PointerValue): Decoded {
  return p === null ? null : handleText(handleKey(p));
}

function scalar(type: string, value: unknown): Decoded {
  if (value === null || value === undefined) return null;
  if (typeof value === "object") return isHandleType(type) ? pointerText(value as Deno.PointerValue) : null;
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number" && type === "VkResult") return RESULT_NAMES[value] ?? value;
  if (typeof value === "number" && ENUM_TYPES[type] && !ENUM_TYPES[type]!.bitmask) {
    return enumName(type, value) ?? value;
  }
  if (typeof value === "number" && /Flags/.test(type)) return `0x${value.toString(16)}`;
  return value as number | string | boolean;
}

class Decoder {
  readonly #max: number;
  readonly #depth: number;

  constructor(options: DecodeOptions) {
    this.#max = options.maxArray ?? 16;
    this.#depth = options.depth ?? 3;
  }

  /** `count` elements of `type` at `p` (a pointer member or parameter with pointer depth `pointer`). */
  array(type: string, pointer: number, p: Deno.PointerObject, count: number, depth: number): Decoded {
    const shown = Math.min(count, this.#max);
    const out: Decoded[] = [];
    const view = new Deno.UnsafePointerView(p);
    const struct = STRUCTS[type];
    for (let i = 0; i < shown; i++) {
      if (pointer >= 2) {
        const item = view.getPointer(i * 8);
        out.push(type === "char" ? (item === null ? null : readCString(item)) : pointerText(item));
      } else if (struct) {
        out.push(depth > 0 ? this.struct(type, p, depth - 1, i) : pointerText(p));
      } else if (isHandleType(type)) {
        out.push(pointerText(view.getPointer(i * 8)));
      } else {
        out.push(this.#element(type, view, i));
      }
    }
    if (count > shown) out.push(`... ${count - shown} more`);
    return out;
  }

  #element(type: string, view: Deno.UnsafePointerView, i: number): Decoded {
    switch (type) {
      case "uint64_t":
      case "VkDeviceSize":
      case "VkDeviceAddress":
        return view.getBigUint64(i * 8).toString();
      case "int64_t":
        return view.getBigInt64(i * 8).toString();
      case "float":
        return view.getFloat32(i * 4);
      case "int32_t":
        return view.getInt32(i * 4);
      case "uint8_t":
      case "void":
        return view.getUint8(i);
      case "uint16_t":
        return view.getUint16(i * 2);
      default:
        return scalar(type, view.getUint32(i * 4));
    }
  }

  /** Struct `type` at `p` (element `index`), pointer members followed while depth lasts. */
  struct(type: string, p: Deno.PointerObject, depth: number, index = 0): Decoded {
    const info = STRUCTS[type];
    if (!info) return pointerText(p);
    let raw: Record<string, unknown>;
    try {
      raw = readStructValue(type, p, index);
    } catch {
      return pointerText(p);
    }
    return this.#members(info.members, raw, depth);
  }

  #members(members: readonly MemberInfo[], raw: Record<string, unknown>, depth: number): Decoded {
    const out: Record<string, Decoded> = {};
    for (const m of members) {
      const v = raw[m.name];
      if (m.pointer === 0) {
        if (STRUCTS[m.type] && m.count === undefined && typeof v === "object" && v !== null) {
          out[m.name] = this.#members(STRUCTS[m.type]!.members, v as Record<string, unknown>, depth);
        } else if (Array.isArray(v)) {
          out[m.name] = v.slice(0, this.#max).map((x) =>
            STRUCTS[m.type]
              ? this.#members(STRUCTS[m.type]!.members, x as Record<string, unknown>, depth)
              : scalar(m.type, x)
          );
        } else {
          out[m.name] = scalar(m.type, v);
        }
        continue;
      }
      const p = v as Deno.PointerValue;
      if (p === null) {
        out[m.name] = null;
        continue;
      }
      if (m.name === "pNext") {
        out[m.name] = this.#next(p, depth);
        continue;
      }
      if (m.type === "char" && m.pointer === 1) {
        out[m.name] = readCString(p);
        continue;
      }
      const len = m.len?.split(",")[0];
      const count = len === undefined
        ? 1
        : typeof raw[len] === "number"
        ? raw[len] as number
        : typeof raw[len] === "bigint"
        ? Number(raw[len])
        : undefined;
      if (count === undefined || (m.type === "void" && len !== undefined) || depth <= 0) {
        out[m.name] = pointerText(p);
      } else if (len === undefined && m.pointer === 1 && STRUCTS[m.type]) {
        out[m.name] = this.struct(m.type, p, depth - 1);
      } else if (len === undefined) {
        out[m.name] = pointerText(p);
      } else {
        out[m.name] = this.array(
          m.type,
          m.pointer,
          p,
          m.type === "uint32_t" && /codeSize/.test(len) ? count / 4 : count,
          depth - 1,
        );
      }
    }
    return out;
  }

  /** A pNext struct: the struct its sType names, with `type` added; unknown sTypes as an address. */
  #next(p: Deno.PointerObject, depth: number): Decoded {
    const type = STRUCT_BY_STYPE[new Deno.UnsafePointerView(p).getUint32(0)];
    if (type === undefined || depth <= 0) return pointerText(p);
    const decoded = this.struct(type, p, depth - 1);
    return typeof decoded === "object" && decoded !== null && !Array.isArray(decoded)
      ? { type, ...decoded }
      : decoded;
  }

  param(
    info: CommandDescription,
    param: CommandParameter,
    value: unknown,
    args: readonly unknown[],
    after: boolean,
  ): Decoded {
    if (param.pointer === 0 && param.array === undefined) return scalar(param.type, value);
    const p = value as Deno.PointerValue;
    if (p === null || p === undefined) return null;
    // Outputs hold garbage before the call; show them only after.
    if (!param.const && !after) return pointerText(p);
    if (param.type === "void" || param.type === "VkAllocationCallbacks") return pointerText(p);
    if (param.type === "char" && param.pointer === 1) return readCString(p);
    if (param.array !== undefined) return this.array(param.type, 1, p, param.array, this.#depth);
    if (param.len !== undefined) {
      const count = evaluateLen(info, param.len, args);
      return count === null ? pointerText(p) : this.array(param.type, param.pointer, p, count, this.#depth);
    }
    if (param.pointer === 1 && STRUCTS[param.type]) return this.struct(param.type, p, this.#depth);
    if (param.pointer === 1 && isHandleType(param.type)) {
      return pointerText(new Deno.UnsafePointerView(p).getPointer(0));
    }
    if (param.pointer === 1) return this.#element(param.type, new Deno.UnsafePointerView(p), 0);
    return pointerText(p);
  }
}

/**
 * Decodes the arguments of a call to the command `info`: inputs always, outputs only after the call
 * (`options.after`, the default).
 *
 * @example Usage
 * ```ts
 * import { decodeCall } from "./decode.ts";
 * import { COMMAND_INDEX, COMMANDS } from "../vk/generated/commands.ts";
 * const info = COMMANDS[COMMAND_INDEX.vkCmdSetLineWidth!]!;
 * console.log(decodeCall(info, [null, 2])); // { commandBuffer: null, lineWidth: 2 }
 * ```
 */
export function decodeCall(
  info: CommandDescription,
  args: readonly unknown[],
  options: DecodeOptions = {},
): Record<string, Decoded> {
  const decoder = new Decoder(options);
  const out: Record<string, Decoded> = {};
  info.params.forEach((param, i) => {
    try {
      out[param.name] = decoder.param(info, param, args[i], args, options.after ?? true);
    } catch (error) {
      out[param.name] = `<cannot decode: ${error instanceof Error ? error.message : String(error)}>`;
    }
  });
  return out;
}

/**
 * A command's return value as api_dump shows it (`VkResult` by name).
 *
 * @example Usage
 * ```ts
 * import { decodeResult } from "./decode.ts";
 * console.log(decodeResult("VkResult", -4)); // "VK_ERROR_DEVICE_LOST"
 * ```
 */
export function decodeResult(type: string, value: unknown): Decoded {
  if (type === "void") return null;
  if (typeof value === "object" && value !== null) return pointerText(value as Deno.PointerValue);
  return scalar(type, value);
}
