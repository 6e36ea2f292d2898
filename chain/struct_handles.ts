/**
 * Where handles sit inside a command's const struct parameters, from the generated struct layouts: a scan of
 * a call's argument memory that reports each non-null handle with its path (`pDescriptorWrites[0].dstSet`),
 * for checked mode's handle checks (docs/behaviour.md V08, the rules it follows).
 *
 * @module
 */

import { ENUM_VALUES } from "../vk/generated/enums.ts";
import { HANDLES } from "../vk/generated/handles.ts";
import { STRUCT_ALIASES, STRUCT_BY_STYPE, STRUCTS } from "../vk/generated/structs.ts";
import type { MemberInfo, ParamInfo, StructInfo } from "../vk/generated/types.ts";
import { loadPointer, loadU32, pointerAt } from "../ffi/pointer_helpers.ts";
import { type HandleKey, handleKey } from "../vk/handle_key.ts";
import { canonicalHandle } from "../vk/handle_type.ts";

/**
 * Told of each non-null handle a scan finds: its handle type, its map key, and its path for messages
 * (undefined when the scan runs without paths: a check then scans again with them to name a fault).
 */
export type HandleVisitor = (type: string, key: HandleKey, path: string | undefined) => void;

/** Reports the handles inside one call's struct parameters (`args`: the call's arguments). */
export type StructScan = (args: readonly unknown[], visit: HandleVisitor, paths: boolean) => void;

type Base = Deno.PointerObject;

/** Reports the handles of one struct at `base` (or of one member's part of it), naming them under `path`. */
type Walk = (base: Base, path: string | undefined, visit: HandleVisitor) => void;

/** A pNext chain longer than this is taken as a loop and not followed further. */
const MAX_CHAIN = 64;

/**
 * The scan of the handles inside command `command`'s const struct parameters (`params`), or undefined when
 * none of them can hold one. `count(p)` says how many structs parameter `p` passes (from its `len`), or
 * undefined when it cannot be told (the parameter is then not scanned).
 *
 * @example Usage
 * ```ts
 * import { COMMAND_PARAMS } from "../vk/generated/commands.ts";
 * import { structScan } from "./struct_handles.ts";
 * const params = COMMAND_PARAMS.vkUpdateDescriptorSets!;
 * const scan = structScan("vkUpdateDescriptorSets", params, () => () => 0);
 * console.log(scan !== undefined); // true
 * ```
 */
export function structScan(
  command: string,
  params: readonly ParamInfo[],
  count: (p: ParamInfo) => ((args: readonly unknown[]) => number) | undefined,
): StructScan | undefined {
  const walks = new Walks(command);
  const scans: StructScan[] = [];
  params.forEach((p, index) => {
    if (p.pointer !== 1 || !p.const) return;
    const info = structOf(p.type);
    if (info === undefined) return;
    const walk = walks.of(p.type, info);
    if (walk === undefined) return;
    if (p.len === undefined) {
      scans.push((args, visit, paths) => {
        const base = args[index] as Deno.PointerValue | undefined;
        if (base) walk(base, paths ? p.name : undefined, visit);
      });
      return;
    }
    const n = count(p);
    if (n === undefined) return;
    scans.push((args, visit, paths) => {
      const base = args[index] as Deno.PointerValue | undefined;
      if (!base) return;
      const length = n(args);
      for (let i = 0; i < length; i++) {
        walk(i === 0 ? base : pointerAt(base, i * info.size), paths ? `${p.name}[${i}]` : undefined, visit);
      }
    });
  });
  if (scans.length === 0) return undefined;
  if (scans.length === 1) return scans[0];
  return (args, visit, paths) => {
    for (const scan of scans) scan(args, visit, paths);
  };
}

/** The layout of struct (not union) `type`, or undefined. */
function structOf(type: string): StructInfo | undefined {
  const info = STRUCTS[type] ?? STRUCTS[STRUCT_ALIASES[type] ?? ""];
  return info === undefined || info.union ? undefined : info;
}

/** The map key (vk/handle_key.ts) of the handle at `base + offset`: two 32-bit reads, no bigint below 2^53. */
function keyAt(base: Base, offset: number): HandleKey {
  const high = loadU32(base, offset + 4);
  if (high < 0x200000) return high * 0x100000000 + loadU32(base, offset);
  return handleKey(loadPointer(base, offset));
}

/** `path.member`, or undefined when the scan names nothing. */
function pathOf(path: string | undefined, member: string, index?: number): string | undefined {
  if (path === undefined) return undefined;
  return index === undefined ? `${path}.${member}` : `${path}.${member}[${index}]`;
}

/** Whether a member is read, for the members vk.xml marks `noautovalidity` (read by the spec's own rules). */
type Rule = ((base: Base) => boolean) | "always" | "never";

/** The walks of one command's structs, built once per struct type. */
class Walks {
  readonly #command: string;
  /** Per struct: its members' walk (pNext apart), undefined when none holds a handle. */
  readonly #members = new Map<string, Walk | undefined>();
  #rules: Map<string, Rule> | undefined;

  constructor(command: string) {
    this.#command = command;
  }

  /** The walk of struct `type`: its members, then its pNext chain when it is an input struct. */
  of(type: string, info: StructInfo): Walk | undefined {
    const members = this.#membersOf(type, info);
    const pNext = info.members.find((m) => m.name === "pNext" && m.pointer === 1);
    if (pNext === undefined || !pNext.const) return members;
    const chain: Walk = (base, path, visit) => {
      let link = loadPointer(base, pNext.offset);
      for (let i = 0; link !== null && i < MAX_CHAIN; i++) {
        const name = STRUCT_BY_STYPE[loadU32(link, 0)];
        const info = name === undefined ? undefined : structOf(name);
        // A struct vk.xml does not know (a layer's own) is passed over: only its sType and pNext are known.
        const walk = info === undefined ? undefined : this.#membersOf(name!, info);
        walk?.(link, path === undefined ? undefined : `${path}.pNext(${name})`, visit);
        link = loadPointer(link, 8);
      }
    };
    if (members === undefined) return chain;
    return (base, path, visit) => {
      members(base, path, visit);
      chain(base, path, visit);
    };
  }

  #membersOf(type: string, info: StructInfo): Walk | undefined {
    if (this.#members.has(type)) return this.#members.get(type);
    // A struct reached again while it is being built (through a pointer to itself) adds nothing.
    this.#members.set(type, undefined);
    const steps: Walk[] = [];
    for (const m of info.members) {
      if (m.name === "pNext" || m.name === "sType") continue;
      const rule = m.noautovalidity ? this.#rule(type, m.name) : "always";
      if (rule === "never") continue;
      const step = this.#member(info, m);
      if (step === undefined) continue;
      steps.push(
        rule === "always" ? step : (base, path, visit) => {
          if (rule(base)) step(base, path, visit);
        },
      );
    }
    const walk: Walk | undefined = steps.length <= 1 ? steps[0] : (base, path, visit) => {
      for (const step of steps) step(base, path, visit);
    };
    this.#members.set(type, walk);
    return walk;
  }

  /** The walk of member `m` of struct `info`, or undefined when it cannot hold a handle the scan can reach. */
  #member(info: StructInfo, m: MemberInfo): Walk | undefined {
    const isHandle = HANDLES[m.type] !== undefined;
    const type = isHandle ? canonicalHandle(m.type) : m.type;
    const at = m.offset;
    if (m.pointer === 0) {
      const n = m.count ?? 1;
      const fixed = m.count !== undefined;
      if (isHandle) {
        return (base, path, visit) => {
          for (let i = 0; i < n; i++) {
            const key = keyAt(base, at + 8 * i);
            if (key !== 0) visit(type, key, pathOf(path, m.name, fixed ? i : undefined));
          }
        };
      }
      const inner = structOf(type);
      const walk = inner && this.#membersOf(type, inner);
      if (walk === undefined) return undefined;
      const stride = m.size / n;
      return (base, path, visit) => {
        for (let i = 0; i < n; i++) {
          walk(pointerAt(base, at + stride * i), pathOf(path, m.name, fixed ? i : undefined), visit);
        }
      };
    }
    // Pointers: const ones only (the others are outputs), to one element or to `len` of them.
    if (m.pointer !== 1 || !m.const) return undefined;
    const length = lengthOf(info, m);
    if (length === undefined) return undefined;
    const single = m.len === undefined;
    const each = this.#element(type, isHandle, m.name, single);
    if (each === undefined) return undefined;
    return (base, path, visit) => {
      const n = length(base);
      if (n === 0) return;
      const list = loadPointer(base, at);
      if (list === null) return;
      for (let i = 0; i < n; i++) each(list, i, path, visit);
    };
  }

  /** The walk of element `i` of an array of `type` at `list` (member `name`), or undefined when it holds none. */
  #element(
    type: string,
    isHandle: boolean,
    name: string,
    single: boolean,
  ): ((list: Base, i: number, path: string | undefined, visit: HandleVisitor) => void) | undefined {
    if (isHandle) {
      return (list, i, path, visit) => {
        const key = keyAt(list, 8 * i);
        if (key !== 0) visit(type, key, pathOf(path, name, single ? undefined : i));
      };
    }
    const inner = structOf(type);
    const walk = inner && this.of(type, inner);
    if (walk === undefined) return undefined;
    const size = inner!.size;
    return (list, i, path, visit) =>
      walk(i === 0 ? list : pointerAt(list, size * i), pathOf(path, name, single ? undefined : i), visit);
  }

  /**
   * When a `noautovalidity` member is read: by the spec's rules for descriptor writes, and never for every
   * other such member (it may hold anything where the spec ignores it; docs/behaviour.md V08).
   */
  #rule(struct: string, member: string): Rule {
    this.#rules ??= descriptorRules(this.#command);
    return this.#rules.get(`${struct}.${member}`) ?? "never";
  }
}

/** How many elements pointer member `m` points to (its `len` member), or undefined when it cannot be told. */
function lengthOf(info: StructInfo, m: MemberInfo): ((base: Base) => number) | undefined {
  if (m.len === undefined) return () => 1;
  const count = info.members.find((c) => c.name === m.len && c.pointer === 0 && c.count === undefined);
  if (count === undefined || count.bits !== undefined) return undefined;
  const at = count.offset;
  if (count.size === 4) return (base) => loadU32(base, at);
  if (count.size === 8) return (base) => loadU32(base, at + 4) * 0x100000000 + loadU32(base, at);
  return undefined;
}

/**
 * The rules of `VkWriteDescriptorSet` (the spec's valid usage of it and of `VkDescriptorImageInfo`): `dstSet`
 * is ignored by the push-descriptor commands; `pImageInfo`, `pBufferInfo` and `pTexelBufferView` are read only
 * for the descriptor types that use them; `imageView` is read for every image type but `SAMPLER`, which is
 * why `pImageInfo` is read for those only; `sampler` is not read (immutable samplers in the set layout make it
 * ignored, and the write does not say whether the binding has them).
 */
function descriptorRules(command: string): Map<string, Rule> {
  const types = ENUM_VALUES.VkDescriptorType!;
  const typeAt = STRUCTS.VkWriteDescriptorSet!.members.find((m) => m.name === "descriptorType")!.offset;
  const of = (...names: string[]): Rule => {
    const set = new Set(names.map((n) => types[`VK_DESCRIPTOR_TYPE_${n}`]));
    return (base) => set.has(loadU32(base, typeAt));
  };
  return new Map<string, Rule>([
    ["VkWriteDescriptorSet.dstSet", /PushDescriptorSet/.test(command) ? "never" : "always"],
    [
      "VkWriteDescriptorSet.pImageInfo",
      of("COMBINED_IMAGE_SAMPLER", "SAMPLED_IMAGE", "STORAGE_IMAGE", "INPUT_ATTACHMENT"),
    ],
    [
      "VkWriteDescriptorSet.pBufferInfo",
      of("UNIFORM_BUFFER", "STORAGE_BUFFER", "UNIFORM_BUFFER_DYNAMIC", "STORAGE_BUFFER_DYNAMIC"),
    ],
    ["VkWriteDescriptorSet.pTexelBufferView", of("UNIFORM_TEXEL_BUFFER", "STORAGE_TEXEL_BUFFER")],
    ["VkDescriptorImageInfo.imageView", "always"],
  ]);
}
