/**
 * Reads vk.xml into a plain model for `api="vulkan"`: types, handles, enums, commands and who provides them.
 * Elements whose `api` attribute names only other APIs (vulkansc) are dropped everywhere.
 *
 * @module
 */
import { elements, find, parseXml, textOf, type XmlElement } from "./_gen_xml.ts";

/** A declaration inside `<member>` or `<param>`. */
export interface Decl {
  name: string;
  type: string;
  pointer: number;
  const: boolean;
  dims: number[];
  bits?: number;
  len?: string;
  optional?: boolean;
  /**
   * vk.xml \`optional="false,true"\`: the second value, for the pointed-to elements (an array of handles whose
   * elements may be \`VK_NULL_HANDLE\`).
   */
  elementsOptional?: boolean;
  /** vk.xml \`noautovalidity="true"\`: no implicit valid usage (the member's rules are written by hand). */
  noautovalidity?: boolean;
  values?: string;
}

/** A type from `<types>`. */
export interface TypeDecl {
  name: string;
  category: string;
  alias?: string;
  /** basetype/bitmask: the underlying type; external: the header it needs. */
  underlying?: string;
  /** basetype declared as a pointer typedef. */
  pointerTypedef?: boolean;
  parent?: string;
  dispatchable?: boolean;
  flagBits?: string;
  members?: Decl[];
  returnedOnly?: boolean;
  structExtends?: string[];
  /** funcpointer: the return type (`void`, `VkBool32`, `void*` as pointer 1). */
  proto?: { type: string; pointer: number };
  /** funcpointer: the parameters. */
  params?: Decl[];
}

/** An enumerated type (`<enums type="enum|bitmask">`). */
export interface EnumGroup {
  name: string;
  bitmask: boolean;
  bitwidth: 32 | 64;
  /** Enumerant names in registry order (core first, then extensions). */
  names: string[];
}

/** A non-alias command. */
export interface CommandDecl {
  name: string;
  result: string;
  params: Decl[];
  aliases: string[];
  successCodes: string[];
  errorCodes: string[];
}

/** An extension supported for api="vulkan". */
export interface ExtensionDecl {
  name: string;
  number: number;
  type: "instance" | "device";
  depends?: string;
  promotedTo?: string;
  platform?: string;
  provisional: boolean;
}

/** Everything the emitters need. */
export interface Registry {
  headerVersion: number;
  /** [variant, major, minor] of VK_HEADER_VERSION_COMPLETE. */
  headerVersionComplete: [number, number, number];
  types: Map<string, TypeDecl>;
  enumGroups: Map<string, EnumGroup>;
  /** Every enumerant (incl. aliases, resolved) of 32-bit enums and bitmasks. */
  enumValues: Map<string, number>;
  /** Every enumerant of 64-bit bitmasks. */
  enumValues64: Map<string, bigint>;
  constants: Map<string, { type: string; value: number | bigint }>;
  /** Non-alias commands that a feature or extension of api="vulkan" requires (by any of their names). */
  commands: Map<string, CommandDecl>;
  /** Every command name (incl. aliases) -> the non-alias name. */
  commandTarget: Map<string, string>;
  /** Every command name (incl. aliases) -> the features and extensions requiring that exact name. */
  providers: Map<string, string[]>;
  /** Non-alias names in requirement order: core versions, then extensions by number. */
  order: string[];
  extensions: Map<string, ExtensionDecl>;
  /** Enum names that video.xml declares (StdVideo enums used by value in structs). */
  videoEnums: Set<string>;
  /** Extension constants (`VK_KHR_SURFACE_EXTENSION_NAME`, `VK_KHR_SURFACE_SPEC_VERSION`) -> value. */
  extensionConstants: Map<string, string | number>;
  /** Core versions of api="vulkan" in order (`["1.0", "1.1", ...]`). */
  apiVersions: string[];
}

/** True when an element's `api` attribute (if any) includes "vulkan". */
export function forVulkan(e: XmlElement): boolean {
  const api = e.attrs.api;
  return api === undefined || api.split(",").includes("vulkan");
}

function parseDecl(e: XmlElement, constants: Map<string, { type: string; value: number | bigint }>): Decl {
  let stage = 0; // 0 before <type>, 1 between <type> and <name>, 2 after <name>
  let prefix = "";
  let middle = "";
  let suffix = "";
  let type = "";
  let name = "";
  for (const c of e.children) {
    if (typeof c === "string") {
      if (stage === 0) prefix += c;
      else if (stage === 1) middle += c;
      else suffix += c;
    } else if (c.tag === "type") {
      type = textOf(c).trim();
      stage = 1;
    } else if (c.tag === "name") {
      name = textOf(c).trim();
      stage = 2;
    } else if (c.tag === "enum" && stage === 2) {
      suffix += textOf(c);
    }
  }
  const dims: number[] = [];
  for (const m of suffix.matchAll(/\[\s*([^\]]+?)\s*\]/g)) {
    const token = m[1]!;
    const n = /^\d+$/.test(token) ? Number(token) : constants.get(token)?.value;
    if (typeof n !== "number") throw new SyntaxError(`Unknown array length "${token}" for "${name}"`);
    dims.push(n);
  }
  const decl: Decl = {
    name,
    type,
    pointer: (middle.match(/\*/g) ?? []).length,
    const: /\bconst\b/.test(prefix),
    dims,
  };
  const bits = suffix.match(/:\s*(\d+)/);
  if (bits) decl.bits = Number(bits[1]);
  if (e.attrs.len !== undefined) decl.len = e.attrs.len;
  const optional = e.attrs.optional?.split(",");
  if (optional?.[0] === "true") decl.optional = true;
  if (optional?.[1] === "true") decl.elementsOptional = true;
  if (e.attrs.noautovalidity === "true") decl.noautovalidity = true;
  if (e.attrs.values !== undefined) decl.values = e.attrs.values;
  return decl;
}

function parseConstant(type: string, text: string): number | bigint {
  const t = text.replace(/[()]/g, "").trim();
  const not = t.match(/^~(\d+)(U|ULL)$/);
  if (not) {
    const v = BigInt(not[1]!);
    return not[2] === "ULL" ? (~v) & 0xffffffffffffffffn : Number((~v) & 0xffffffffn);
  }
  if (type === "float") return Number(t.replace(/F$/i, ""));
  const n = Number(t.replace(/U?L*$/i, ""));
  if (Number.isNaN(n)) throw new SyntaxError(`Cannot parse constant value "${text}"`);
  return n;
}

/** The provider name of a `<feature>`: internal features (VK_BASE_VERSION_1_0...) map to VK_VERSION_X_Y. */
function featureProvider(f: XmlElement): string {
  if (f.attrs.apitype === "internal" && f.attrs.number) {
    return `VK_VERSION_${f.attrs.number.replace(".", "_")}`;
  }
  return f.attrs.name!;
}

/**
 * Reads the registry text (and optionally video.xml's text, for StdVideo enum names).
 *
 * @example Usage
 * ```ts ignore
 * import { readRegistry } from "./_gen_registry.ts";
 * const reg = readRegistry(Deno.readTextFileSync("vk.xml"));
 * console.log(reg.commands.size);
 * ```
 */
export function readRegistry(xml: string, videoXml?: string): Registry {
  const root = parseXml(xml);
  const reg: Registry = {
    headerVersion: 0,
    headerVersionComplete: [0, 1, 0],
    types: new Map(),
    enumGroups: new Map(),
    enumValues: new Map(),
    enumValues64: new Map(),
    constants: new Map(),
    commands: new Map(),
    commandTarget: new Map(),
    providers: new Map(),
    order: [],
    extensions: new Map(),
    videoEnums: new Set(),
    extensionConstants: new Map(),
    apiVersions: [],
  };
  if (videoXml) {
    for (const m of videoXml.matchAll(/<enums\s+name="(\w+)"\s+type="enum"/g)) reg.videoEnums.add(m[1]!);
  }
  const sections = elements(root);

  // Constants first: array lengths in members refer to them.
  const aliasEnums: [string, string][] = [];
  for (const group of sections.filter((s) => s.tag === "enums")) {
    if (group.attrs.type !== "constants" && group.attrs.name !== "API Constants") continue;
    for (const e of elements(group, "enum")) {
      if (!forVulkan(e)) continue;
      if (e.attrs.alias) aliasEnums.push([e.attrs.name!, e.attrs.alias]);
      else {reg.constants.set(e.attrs.name!, {
          type: e.attrs.type ?? "uint32_t",
          value: parseConstant(e.attrs.type ?? "", e.attrs.value!),
        });}
    }
  }
  for (const [name, target] of aliasEnums) {
    const t = reg.constants.get(target);
    if (t) reg.constants.set(name, t);
  }

  for (const section of sections.filter((s) => s.tag === "types")) {
    for (const t of elements(section, "type")) {
      if (!forVulkan(t)) continue;
      const category = t.attrs.category ?? (t.attrs.requires ? "external" : "");
      const name = t.attrs.name ?? (find(t, "name") ? textOf(find(t, "name")!).trim() : "");
      if (!name || category === "include" || category === "define") {
        if (category === "define" && name === "VK_HEADER_VERSION") {
          reg.headerVersion = Number(textOf(t).match(/VK_HEADER_VERSION\s+(\d+)/)?.[1] ?? 0);
        } else if (category === "define" && name === "VK_HEADER_VERSION_COMPLETE") {
          const m = textOf(t).match(/\((\w+),\s*(\d+),\s*(\d+),/);
          if (m) reg.headerVersionComplete = [Number(m[1]) || 0, Number(m[2]), Number(m[3])];
        }
        continue;
      }
      const decl: TypeDecl = { name, category };
      if (t.attrs.alias) decl.alias = t.attrs.alias;
      if (category === "external") decl.underlying = t.attrs.requires;
      if (category === "basetype" || category === "bitmask") {
        const under = find(t, "type");
        if (under) decl.underlying = textOf(under).trim();
        if (category === "basetype" && /\*/.test(textOf(t).replace(/#ifdef[\s\S]*?#else/, ""))) {
          decl.pointerTypedef = true;
        }
        const bits = t.attrs.bitvalues ?? t.attrs.requires;
        if (bits) decl.flagBits = bits;
      }
      if (category === "handle") {
        decl.dispatchable = /VK_DEFINE_HANDLE\b/.test(textOf(t));
        if (t.attrs.parent) decl.parent = t.attrs.parent.split(",")[0];
      }
      if (category === "struct" || category === "union") {
        if (!decl.alias) {
          decl.members = elements(t, "member").filter(forVulkan).map((m) => parseDecl(m, reg.constants));
        }
        if (t.attrs.returnedonly === "true") decl.returnedOnly = true;
        if (t.attrs.structextends) decl.structExtends = t.attrs.structextends.split(",");
      }
      if (category === "funcpointer" && !decl.alias) {
        const proto = find(t, "proto");
        if (proto) {
          const d = parseDecl(proto, reg.constants);
          decl.proto = { type: d.type, pointer: d.pointer };
          decl.params = elements(t, "param").map((p) => parseDecl(p, reg.constants));
        }
      }
      reg.types.set(name, decl);
    }
  }

  const pendingAlias = new Map<string, string>(); // enumerant alias -> its target
  const addEnumerant = (groupName: string, e: XmlElement, extNumber?: number) => {
    const group = reg.enumGroups.get(groupName);
    const name = e.attrs.name!;
    if (!group) return;
    const known = reg.enumValues.has(name) || reg.enumValues64.has(name) || pendingAlias.has(name);
    if (known) return;
    if (e.attrs.alias) {
      pendingAlias.set(name, e.attrs.alias);
      group.names.push(name);
      return;
    }
    let value: bigint;
    if (e.attrs.bitpos !== undefined) value = 1n << BigInt(e.attrs.bitpos);
    else if (e.attrs.value !== undefined) value = BigInt(e.attrs.value);
    else if (e.attrs.offset !== undefined) {
      const ext = e.attrs.extnumber !== undefined ? Number(e.attrs.extnumber) : extNumber;
      if (ext === undefined) {
        throw new SyntaxError(`Enumerant "${name}" has an offset but no extension number`);
      }
      value = 1000000000n + BigInt(ext - 1) * 1000n + BigInt(e.attrs.offset);
      if (e.attrs.dir === "-") value = -value;
    } else return;
    group.names.push(name);
    if (group.bitwidth === 64) reg.enumValues64.set(name, value);
    else reg.enumValues.set(name, Number(BigInt.asIntN(32, value)));
  };

  for (const group of sections.filter((s) => s.tag === "enums")) {
    const kind = group.attrs.type;
    if (kind !== "enum" && kind !== "bitmask") continue;
    const name = group.attrs.name!;
    reg.enumGroups.set(name, {
      name,
      bitmask: kind === "bitmask",
      bitwidth: group.attrs.bitwidth === "64" ? 64 : 32,
      names: [],
    });
    for (const e of elements(group, "enum")) if (forVulkan(e)) addEnumerant(name, e);
  }

  for (const section of sections.filter((s) => s.tag === "commands")) {
    const aliases: [string, string][] = [];
    for (const c of elements(section, "command")) {
      if (!forVulkan(c)) continue;
      if (c.attrs.alias) {
        aliases.push([c.attrs.name!, c.attrs.alias]);
        continue;
      }
      const proto = find(c, "proto")!;
      const name = textOf(find(proto, "name")!).trim();
      reg.commands.set(name, {
        name,
        result: textOf(find(proto, "type")!).trim(),
        params: elements(c, "param").filter(forVulkan).map((p) => parseDecl(p, reg.constants)),
        aliases: [],
        successCodes: c.attrs.successcodes?.split(",") ?? [],
        errorCodes: c.attrs.errorcodes?.split(",") ?? [],
      });
      reg.commandTarget.set(name, name);
    }
    // Aliases may chain (alias of an alias); resolve to the non-alias command.
    const direct = new Map(aliases);
    for (const [alias] of aliases) {
      let target = alias;
      for (let i = 0; i < 8 && direct.has(target); i++) target = direct.get(target)!;
      const cmd = reg.commands.get(target);
      if (!cmd) continue;
      cmd.aliases.push(alias);
      reg.commandTarget.set(alias, target);
    }
  }

  const ordered = new Set<string>();
  const requireCommands = (provider: string, block: XmlElement) => {
    for (const r of elements(block, "require")) {
      if (!forVulkan(r)) continue;
      for (const c of elements(r, "command")) {
        if (!forVulkan(c)) continue;
        const name = c.attrs.name!;
        const target = reg.commandTarget.get(name);
        if (!target) continue;
        const list = reg.providers.get(name) ?? [];
        if (!list.includes(provider)) list.push(provider);
        reg.providers.set(name, list);
        ordered.add(target);
      }
    }
  };
  const requireEnums = (block: XmlElement, extNumber?: number) => {
    for (const r of elements(block, "require")) {
      if (!forVulkan(r)) continue;
      for (const e of elements(r, "enum")) {
        if (forVulkan(e) && e.attrs.extends) addEnumerant(e.attrs.extends, e, extNumber);
      }
    }
  };

  for (const f of sections.filter((s) => s.tag === "feature")) {
    if (!forVulkan(f)) continue;
    requireCommands(featureProvider(f), f);
    if (f.attrs.apitype !== "internal" && f.attrs.number && !reg.apiVersions.includes(f.attrs.number)) {
      reg.apiVersions.push(f.attrs.number);
    }
    requireEnums(f);
  }
  const extensionElements = sections.filter((s) => s.tag === "extensions").flatMap((s) =>
    elements(s, "extension")
  ).filter((x) => (x.attrs.supported ?? "").split(",").includes("vulkan"))
    .sort((a, b) => Number(a.attrs.number) - Number(b.attrs.number));
  for (const x of extensionElements) {
    const number = Number(x.attrs.number);
    const ext: ExtensionDecl = {
      name: x.attrs.name!,
      number,
      type: x.attrs.type === "instance" ? "instance" : "device",
      provisional: x.attrs.provisional === "true",
    };
    if (x.attrs.depends) ext.depends = x.attrs.depends;
    if (x.attrs.promotedto) ext.promotedTo = x.attrs.promotedto;
    if (x.attrs.platform) ext.platform = x.attrs.platform;
    reg.extensions.set(ext.name, ext);
    requireCommands(ext.name, x);
    requireEnums(x, number);
    for (const r of elements(x, "require")) {
      if (!forVulkan(r)) continue;
      for (const e of elements(r, "enum")) {
        const v = e.attrs.value;
        if (!forVulkan(e) || e.attrs.extends || v === undefined || !e.attrs.name) continue;
        if (/^"[^"]*"$/.test(v)) reg.extensionConstants.set(e.attrs.name, v.slice(1, -1));
        else if (/^\d+$/.test(v)) reg.extensionConstants.set(e.attrs.name, Number(v));
      }
    }
  }

  for (const [name, target] of pendingAlias) {
    let t = target;
    for (let i = 0; i < 8 && pendingAlias.has(t); i++) t = pendingAlias.get(t)!;
    if (reg.enumValues.has(t)) reg.enumValues.set(name, reg.enumValues.get(t)!);
    else if (reg.enumValues64.has(t)) reg.enumValues64.set(name, reg.enumValues64.get(t)!);
  }

  // A command no vulkan feature or extension requires (SciSync, fault handling, the disabled Android and
  // OHOS swapchain internals) is vulkansc-only or not part of the API; vulkan_core.h omits it as well.
  for (const [name, cmd] of reg.commands) {
    if (ordered.has(name)) continue;
    reg.commands.delete(name);
    for (const n of [name, ...cmd.aliases]) reg.commandTarget.delete(n);
  }
  reg.order = [...ordered];
  return reg;
}
