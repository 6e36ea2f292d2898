/**
 * Emits vk_structs.ts: every struct and union typed, read and input forms, pNext extension rules.
 *
 * @module
 */
import type { Decl, Registry } from "./_gen_registry.ts";
import type { Layouts } from "./_gen_layout.ts";
import {
  BIGINT_PRIMITIVES,
  byName,
  declarationsHeader,
  doc,
  NUMBER_PRIMITIVES,
  type TypeMapper,
  wrap,
} from "./_gen_api_common.ts";

const FLOAT_TYPES = new Set(["float", "double"]);

/**
 * vk_structs.ts: for every struct and union, its read form as an interface of its own name (what
 * `readStruct` returns: every member present), its input form in `VkStructInputs` (what `writeStruct`
 * takes: members optional, pointers given as objects, arrays or strings), and `VkStructChains` (which
 * structs may extend a struct's pNext chain).
 */
export function emitStructs(
  reg: Registry,
  layouts: Layouts,
  map: TypeMapper,
): { text: string; count: number } {
  const all = [...reg.types.values()].filter((t) => t.category === "struct" || t.category === "union")
    .sort(byName);
  const used = new Set<string>();
  const named = (ts: string) => {
    for (const m of ts.matchAll(/\b([A-Za-z_]\w*)\b/g)) if (map.declared.has(m[1]!)) used.add(m[1]!);
    return ts;
  };
  const isStruct = (type: string) => {
    const t = layouts.resolve(type);
    return t?.category === "struct" || t?.category === "union";
  };
  // Element type of an in-place member, read form (as vk/struct_value.ts returns it).
  const readElement = (m: Decl): string => {
    const t = layouts.resolve(m.type);
    if (isStruct(m.type)) return m.type;
    if (t?.category === "handle") return named(`${m.type} | null`);
    if (t?.category === "funcpointer") return "Deno.PointerValue";
    if (FLOAT_TYPES.has(m.type)) return "number";
    if (t && map.declared.has(m.type)) return named(m.type);
    if (reg.videoEnums.has(m.type)) return "number";
    return layouts.sizeOf(m.type).size === 8 ? "bigint" : "number";
  };
  const readMember = (m: Decl): string => {
    if (m.bits !== undefined) return "number";
    if (m.pointer > 0) return "Deno.PointerValue";
    if (m.dims.length) return m.type === "char" ? "string" : `${wrap(readElement(m))}[]`;
    return readElement(m);
  };
  // Input form of one in-place element (as vk/struct_input.ts accepts it).
  const inputElement = (m: Decl): string => {
    const t = layouts.resolve(m.type);
    if (isStruct(m.type)) return `VkStructInputs["${m.type}"]`;
    if (t?.category === "handle") return named(`${m.type} | null`);
    // A callback member takes \`makeCallback(N, fn).pointer\` or a raw pointer, not another PFN's callback.
    if (t?.category === "funcpointer") return named(`VkFunctionPointer<"${t.name}">`);
    if (FLOAT_TYPES.has(m.type)) return "number";
    if (m.type === "VkBool32") return "VkBool32 | boolean";
    const wide = layouts.sizeOf(m.type).size === 8;
    if (t && map.declared.has(m.type)) {
      // Enums and flags stay strict; other 64-bit integers also take a (safe integer) number.
      return named(wide && t.category === "basetype" ? `${m.type} | number` : m.type);
    }
    if (reg.videoEnums.has(m.type)) return "number";
    return wide ? "bigint | number" : "number";
  };
  const inputMember = (struct: string, m: Decl): string => {
    if (m.bits !== undefined) return "number";
    if (m.name === "pNext" && m.pointer > 0) {
      return chains.has(struct) ? `VkChain<"${struct}">` : "VkRawPointer";
    }
    if (m.pointer === 0) {
      // A handle the spec requires valid takes no null (docs/behaviour.md V13), as the writer.
      if (
        !m.dims.length && requiredOf(struct).has(m.name) && layouts.resolve(m.type)?.category === "handle"
      ) {
        return named(m.type);
      }
      if (!m.dims.length) return inputElement(m);
      if (m.type === "char") return "string";
      const e = inputElement(m);
      return isStruct(m.type) ? `readonly ${wrap(e)}[]` : `readonly ${wrap(e)}[] | ArrayBufferView`;
    }
    if (m.type === "char" && m.pointer === 1) return "string | VkRawPointer";
    if (m.type === "char" && m.pointer === 2) return "readonly string[] | VkRawPointer";
    if (isStruct(m.type)) {
      const e = `VkStructInputs["${m.type}"]`;
      return m.pointer === 1
        ? `${e} | readonly ${e}[] | VkRawPointer`
        : `readonly (${e} | VkRawPointer)[] | VkRawPointer`;
    }
    if (m.type === "void" && m.pointer === 1) return "VkRawPointer | ArrayBufferView | ArrayBuffer";
    if (m.pointer > 1) return "readonly VkRawPointer[] | VkRawPointer";
    const t = layouts.resolve(m.type);
    const scalar = map.declared.has(m.type) || reg.videoEnums.has(m.type) || NUMBER_PRIMITIVES.has(m.type) ||
      BIGINT_PRIMITIVES.has(m.type) || m.type === "size_t";
    // A handle array's elements may be null only where vk.xml says so (docs/behaviour.md V12), as the writer.
    const e = t?.category === "handle"
      ? named(m.elementsOptional || m.noautovalidity ? `${m.type} | null` : m.type)
      : t?.category === "funcpointer" || !scalar
      ? "VkRawPointer"
      : inputElement({ ...m, pointer: 0 });
    return `readonly ${wrap(e)}[] | ArrayBufferView | ArrayBuffer | VkRawPointer`;
  };

  // Which members a literal must give: those whose zero value the spec's implicit valid usage forbids.
  // vk.xml marks a member that may be zero (or null) \`optional\`; the rest must be a valid handle, a
  // non-null pointer, non-zero flags, a defined enum value or a valid callback, unless the member is
  // \`noautovalidity\` (rules written by hand, often "ignored unless ..."). Counts are filled from their
  // arrays, and an array is required only when its count member is (\`pQueueCreateInfos\`, not
  // \`ppEnabledLayerNames\`). Numbers, VkBool32 and enums with a zero value are valid as zero.
  const requiredMemo = new Map<string, Set<string>>();
  const requiredOf = (struct: string): Set<string> => {
    const canonical = layouts.resolve(struct)!;
    const memo = requiredMemo.get(canonical.name);
    if (memo) return memo;
    const required = new Set<string>();
    requiredMemo.set(canonical.name, required);
    if (canonical.category === "union" || canonical.returnedOnly) return required;
    const members = canonical.members ?? [];
    const counts = new Set(members.flatMap((m) => m.len ? [m.len.split(",")[0]!] : []));
    const byName = new Map(members.map((m) => [m.name, m]));
    for (const m of members) {
      if (m.name === "sType" || m.name === "pNext" || m.optional || m.noautovalidity) continue;
      if (m.bits !== undefined || m.dims.length || counts.has(m.name)) continue;
      const t = layouts.resolve(m.type);
      let must = false;
      if (m.pointer > 0) {
        // The count a \`len\` names (\`queueCreateInfoCount\`, or \`codeSize\` inside pCode's latexmath).
        const ref = m.len?.match(/[A-Za-z_]\w*/g)?.find((w) => byName.has(w));
        must = ref === undefined || !byName.get(ref)!.optional;
      } else if (t?.category === "handle" || t?.category === "funcpointer" || t?.category === "bitmask") {
        must = true;
      } else if (t?.category === "enum") {
        const group = reg.enumGroups.get(t.name);
        // FlagBits by value (a shader stage) must be a bit; an enum must be one of its values.
        must = group !== undefined &&
          (group.bitmask || !group.names.some((n) => reg.enumValues.get(n) === 0));
      } else if (isStruct(m.type)) {
        must = requiredOf(m.type).size > 0;
      }
      if (must) required.add(m.name);
    }
    return required;
  };

  // The literal a user writes, for a struct's documentation: the required members with a sample value,
  // then the optional ones by name (counts, sType and pNext chains are filled in by writeStruct).
  const sample = (m: Decl, required: boolean): string => {
    const t = layouts.resolve(m.type);
    const group = t ? reg.enumGroups.get(t.category === "bitmask" ? (t.flagBits ?? "") : t.name) : undefined;
    if (m.pointer > 0) {
      if (m.type === "char") return m.pointer === 1 ? `"..."` : `["..."]`;
      if (isStruct(m.type)) return m.len ? `[{ ... }]` : `{ ... }`;
      if (t?.category === "handle") return `[${m.type.slice(2, 3).toLowerCase()}${m.type.slice(3)}]`;
      return m.len ? "[...]" : "pointer";
    }
    if (t?.category === "handle") return `${m.type.slice(2, 3).toLowerCase()}${m.type.slice(3)}`;
    if (t?.category === "funcpointer") return `makeCallback("${t.name}", fn).pointer`;
    if (group?.names.length) {
      // An optional member shows its zero (VK_SHARING_MODE_EXCLUSIVE, or 0 for flags); a required one a value.
      const zero = group.names.find((n) => reg.enumValues.get(n) === 0 || reg.enumValues64.get(n) === 0n);
      if (!required) {
        return zero ?? (t?.category === "bitmask" ? (group.bitwidth === 64 ? "0n" : "0") : group.names[0]!);
      }
      return group.names.find((n) => n !== zero) ?? group.names[0]!;
    }
    if (t?.category === "bitmask") return map.is64(t) ? "0n" : "0";
    if (isStruct(m.type)) return `{ ... }`;
    return layouts.sizeOf(m.type).size === 8 && !FLOAT_TYPES.has(m.type) ? "0n" : "0";
  };
  const literalExample = (name: string, returnedOnly: boolean, members: readonly Decl[]): string[] => {
    if (returnedOnly) {
      return [
        " * @example Output (returned only)",
        " * \`\`\`ts ignore",
        ` * const out = allocStruct(arena, "${name}");`,
        ` * // ... a command fills it ...`,
        ` * const value = readStruct("${name}", out);`,
        " * \`\`\`",
      ];
    }
    const required = requiredOf(name);
    const names = new Set(members.map((m) => m.name));
    // Counts are filled from the arrays that name them in \`len\` (\`codeSize\` inside pCode's latexmath too).
    const counts = new Set(
      members.flatMap((m) => (m.len?.match(/[A-Za-z_]\w*/g) ?? []).filter((w) => names.has(w))),
    );
    // Only the required members: the optional ones are the type's other members, listed right below it (a
    // full literal per struct made \`deno doc mod.ts\` several times longer).
    const shown = members.filter((m) =>
      m.name !== "sType" && m.name !== "pNext" && !counts.has(m.name) && m.bits === undefined &&
      required.has(m.name)
    );
    if (!shown.length) return [];
    return [
      " * @example Literal (its required members; the others are optional, zero when left out)",
      " * \`\`\`ts ignore",
      ` * writeStruct(arena, "${name}", {`,
      ...shown.map((m) => ` *   ${m.name}: ${sample(m, true)},`),
      " * });",
      " * \`\`\`",
    ];
  };

  // Parent -> the structs (and their aliases) that may extend its pNext chain.
  const aliasesOf = new Map<string, string[]>();
  for (const t of all) {
    if (!t.alias) continue;
    const target = layouts.resolve(t.name)!.name;
    aliasesOf.set(target, [...(aliasesOf.get(target) ?? []), t.name]);
  }
  const chains = new Map<string, Set<string>>();
  for (const t of all) {
    if (t.alias || !t.structExtends) continue;
    for (const parent of t.structExtends) {
      const p = layouts.resolve(parent)?.name;
      if (!p) continue;
      for (const name of [p, ...(aliasesOf.get(p) ?? [])]) {
        const set = chains.get(name) ?? new Set<string>();
        for (const n of [t.name, ...(aliasesOf.get(t.name) ?? [])]) set.add(n);
        chains.set(name, set);
      }
    }
  }

  const readLines: string[] = [];
  const inputLines: string[] = [];
  const nameLines: string[] = [];
  const canonicalLines: string[] = [];
  let count = 0;
  for (const t of all) {
    count++;
    nameLines.push(`  /** Read form of \`${t.name}\`. */`, `  ${t.name}: ${t.name};`);
    canonicalLines.push(
      `  /** Canonical name of \`${t.name}\`. */`,
      `  ${t.name}: "${layouts.resolve(t.name)!.name}";`,
    );
    if (t.alias) {
      readLines.push(doc(`Alias of {@linkcode ${t.alias}}.`), `export type ${t.name} = ${t.alias};`);
      inputLines.push(
        `  /** Input form of \`${t.name}\` (alias of ${t.alias}). */`,
        `  ${t.name}: VkStructInputs["${layouts.resolve(t.name)!.name}"];`,
      );
      continue;
    }
    const members = t.members ?? [];
    const layout = layouts.layout(t.name);
    const kind = t.category === "union" ? "Union" : "Struct";
    const example = literalExample(t.name, t.returnedOnly === true, members);
    const ext = t.structExtends ? `; extends the pNext chain of ${t.structExtends.join(", ")}` : "";
    readLines.push(
      "/**",
      ` * ${kind} \`${t.name}\` (${layout.size} bytes${ext}), as {@linkcode readStruct} returns it` +
        (t.returnedOnly
          ? "; only commands write it."
          : `; {@linkcode writeStruct} takes it as \`VkStructInputs["${t.name}"]\` (` +
            (example.length
              ? "the example's members are required, the others zero when left out"
              : "every member optional, zero when left out") +
            "; counts come from their arrays, sType is automatic, pNext takes extending structs as `{ type, ...members }`)."),
      " *",
      ...example,
      " * @category Structs",
      " */",
      // A type literal, not an interface: it stays assignable to \`Record<string, unknown>\` (generic code).
      `export type ${t.name} = {`,
      ...members.map((m) => `  ${m.name}: ${readMember(m)};`),
      `};`,
    );
    inputLines.push(
      `  /** \`${t.name}\` as {@linkcode writeStruct} takes it: members the spec requires non-zero are required, absent ones are zero, sType is automatic. */`,
      `  ${t.name}: {`,
      ...members.map((m) =>
        `    ${m.name}${requiredOf(t.name).has(m.name) ? "" : "?"}: ${named(inputMember(t.name, m))};`
      ),
      `  };`,
    );
  }
  const chainLines = [...chains.entries()].sort((a, b) => a[0] < b[0] ? -1 : 1).map(([p, set]) =>
    `  /** Structs that may extend the pNext chain of \`${p}\`. */\n  ${p}: ${
      [...set].sort().map((n) => `"${n}"`).join(" | ")
    };`
  );
  const text = `${
    declarationsHeader(
      reg,
      "Every Vulkan struct and union, typed (type-only): the read form under its own name, the input form in " +
        "`VkStructInputs`, pNext extension rules in `VkStructChains`.",
    )
  }
import type { ${[...used].sort().join(", ")} } from "./vk_types.ts";

${readLines.join("\n")}

/** Every struct and union name (aliases included) -> its read form. */
export interface VkStructs {
${nameLines.join("\n")}
}

/** A struct or union name vk.xml knows (aliases included). */
export type VkStructName = keyof VkStructs;

/** Struct or union name (aliases included) -> its canonical name (the brand of its pointers). */
export interface VkStructCanonical {
${canonicalLines.join("\n")}
}

/**
 * Every struct and union name -> the plain object {@linkcode writeStruct} takes for it: members optional
 * (absent ones are zero), \`sType\` automatic, pointer members given as a pointer or as what they point to
 * (an object or array of objects, a string, a string array, an array or typed array of scalars or handles),
 * count members filled from the arrays they count.
 */
export interface VkStructInputs {
${inputLines.join("\n")}
}

/** Struct name -> the names of the structs that may extend its pNext chain (vk.xml \`structextends\`). */
export interface VkStructChains {
${chainLines.join("\n")}
}

/**
 * One struct extending \`P\` in its pNext chain (vk.xml \`structextends\`): the struct's name in \`type\`, its
 * members beside it, and optionally the rest of the chain in its own \`pNext\`.
 */
export type VkExtendingStruct<N extends VkStructName, P extends keyof VkStructChains> =
  & { readonly type: N; readonly pNext?: VkChain<P> }
  & Omit<VkStructInputs[N], "sType" | "pNext">;

/** Any struct that may extend the pNext chain of \`P\`. */
export type VkExtendingStructOf<P extends keyof VkStructChains> = {
  [N in VkStructChains[P]]: N extends VkStructName ? VkExtendingStruct<N, P> : never;
}[VkStructChains[P]];

/** @deprecated Use {@linkcode VkExtendingStruct} ("link" names a link of the layer chain). */
export type VkChainLink<N extends VkStructName, P extends keyof VkStructChains> = VkExtendingStruct<N, P>;

/** @deprecated Use {@linkcode VkExtendingStructOf} ("link" names a link of the layer chain). */
export type VkChainLinkOf<P extends keyof VkStructChains> = VkExtendingStructOf<P>;

/** One struct of the pNext chain of \`P\` as {@linkcode readChain} returns it: \`type\` names which struct it is. */
export type VkChainRead<P extends keyof VkStructChains> = {
  [N in VkStructChains[P]]: N extends VkStructName ? VkStructs[N] & { readonly type: N } : never;
}[VkStructChains[P]];

/**
 * The pNext member of \`P\` as {@linkcode writeStruct} takes it: a pointer, one struct, or a list of structs
 * (linked in order; a raw pointer may end the list). Only structs that extend \`P\` are accepted.
 */
export type VkChain<P extends keyof VkStructChains> =
  | Deno.PointerValue
  | VkExtendingStructOf<P>
  | readonly (VkExtendingStructOf<P> | Deno.PointerObject)[];
`;
  return { text, count };
}
