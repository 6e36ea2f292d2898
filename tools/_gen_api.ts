/**
 * Emits the typed public API from the registry model: `vk_constants.js` + `.d.ts` (every enumerant, API
 * constant, extension name and `VK_API_VERSION_*` as a value) and the type-only modules `vk_types.ts`
 * (handles, enums, flags, base types) and `vk_commands.ts` (every command's signature), then the structs
 * (tools/_gen_api_structs.ts) and callbacks and create helpers (tools/_gen_api_helpers.ts). Types are erased
 * at run time, so only the constants and two small tables cost anything at import.
 *
 * @module
 */
import type { Decl, Registry } from "./_gen_registry.ts";
import { commandLevel } from "./_gen_emit.ts";
import type { Layouts } from "./_gen_layout.ts";
import {
  byName,
  declarationsHeader,
  doc,
  docIn,
  header,
  literal,
  paramName,
  TypeMapper,
} from "./_gen_api_common.ts";
import { emitStructs } from "./_gen_api_structs.ts";
import { emitHelpers } from "./_gen_api_helpers.ts";

export { TypeMapper };

/** The generated files of the typed API, keyed by file name. */
export interface EmittedApi {
  files: Map<string, string>;
  counts: Record<string, number>;
}

/**
 * Builds vk_constants.ts, vk_types.ts and vk_commands.ts.
 *
 * @example Usage
 * ```ts ignore
 * const { files } = emitApi(reg, new Layouts(reg));
 * ```
 */
export function emitApi(reg: Registry, layouts: Layouts): EmittedApi {
  const files = new Map<string, string>();
  const map = new TypeMapper(reg, layouts);

  // ---- vk_types.ts
  const typeLines: string[] = [];
  map.declared.add("VkPointer");
  map.declared.add("VkRawPointer");
  map.declared.add("VkStructPointer");
  map.declared.add("VkCallbackPointer");
  map.declared.add("VkFunctionPointer");
  const handles = [...reg.types.values()].filter((t) => t.category === "handle").sort(byName);
  const handleNames: string[] = [];
  for (const t of handles) {
    const target = layouts.resolve(t.name)!;
    map.declared.add(t.name);
    if (t.alias) {
      typeLines.push(doc(`Alias of {@linkcode ${t.alias}}.`), `export type ${t.name} = ${t.alias};`);
      continue;
    }
    const kind = target.dispatchable ? "dispatchable" : "non-dispatchable";
    const parent = target.parent ? `, child of {@linkcode ${target.parent}}` : "";
    typeLines.push(
      docIn(
        "Handles",
        `Handle \`${t.name}\` (${kind}${parent}): a pointer branded with its type, so neither another handle ` +
          `nor a raw pointer is assignable (\`asHandle("${t.name}", pointer)\` converts one); ` +
          `\`VK_NULL_HANDLE\` is \`null\`, taken where vk.xml marks the parameter optional.`,
      ),
      `export type ${t.name} = Deno.PointerObject & { readonly [handleType]: "${t.name}" };`,
    );
    handleNames.push(t.name);
  }
  let enumCount = 0;
  const enumNames: string[] = [];
  const flagsNames: string[] = [];
  const enumTypes = [...reg.types.values()].filter((t) => t.category === "enum").sort(byName);
  for (const t of enumTypes) map.declared.add(t.name);
  for (const t of enumTypes) {
    enumCount++;
    if (t.alias) {
      typeLines.push(doc(`Alias of {@linkcode ${t.alias}}.`), `export type ${t.name} = ${t.alias};`);
      continue;
    }
    const group = reg.enumGroups.get(t.name);
    if (!group || group.bitmask) {
      const wide = group?.bitwidth === 64;
      typeLines.push(
        docIn(
          "Flags",
          `Bits of \`${t.name}\`${
            wide ? " (64-bit)" : ""
          }: its \`VK_*_BIT\` constants, branded so that no other ` +
            `type's bits are accepted; combine them with \`flags(A, B)\`.`,
        ),
        `export type ${t.name} = VkBits<"${t.name}"${wide ? ", bigint" : ""}>;`,
      );
      continue;
    }
    const values = [...new Set(group.names.map((n) => reg.enumValues.get(n)).filter((v) => v !== undefined))];
    enumNames.push(t.name);
    typeLines.push(
      docIn(
        "Enums",
        `Enum \`${t.name}\`: one of its \`VK_*\` constants (${values.length} values), branded so that another ` +
          `enum's constant or a bare number is refused.`,
      ),
      `export type ${t.name} = VkEnum<"${t.name}", ${
        values.length ? values.map((v) => literal(v!)).join(" | ") : "number"
      }>;`,
    );
  }
  const bitmasks = [...reg.types.values()].filter((t) => t.category === "bitmask").sort(byName);
  for (const t of bitmasks) map.declared.add(t.name);
  for (const t of bitmasks) {
    if (t.alias) {
      typeLines.push(doc(`Alias of {@linkcode ${t.alias}}.`), `export type ${t.name} = ${t.alias};`);
      continue;
    }
    const wide = map.is64(t);
    const bitsName = t.flagBits ? (map.resolve(t.flagBits)?.name ?? t.flagBits) : t.name;
    const bits = t.flagBits ? `{@linkcode ${t.flagBits}}` : "no bits defined yet";
    if (t.flagBits && reg.enumGroups.get(bitsName)?.names.length) flagsNames.push(t.name, bitsName);
    typeLines.push(
      docIn(
        "Flags",
        `Flags \`${t.name}\`${wide ? " (64-bit)" : ""}: \`${
          wide ? "0n" : "0"
        }\` or a combination of ${bits} ` +
          `(one constant, or several through \`flags(A, B)\`).`,
      ),
      `export type ${t.name} = ${wide ? "0n" : "0"} | VkBits<"${bitsName}"${wide ? ", bigint" : ""}>;`,
    );
  }
  const basetypes = [...reg.types.values()].filter((t) =>
    t.category === "basetype" && (t.pointerTypedef || (t.underlying && t.underlying !== "void"))
  ).sort(byName);
  for (const t of basetypes) map.declared.add(t.name);
  for (const t of basetypes) {
    const ts = t.pointerTypedef ? "Deno.PointerValue" : map.value(t.underlying!, "member");
    typeLines.push(
      doc(`Base type \`${t.name}\` (C \`${t.pointerTypedef ? "pointer" : t.underlying}\`).`),
      `export type ${t.name} = ${ts};`,
    );
  }
  files.set(
    "vk_types.ts",
    `${
      declarationsHeader(
        reg,
        "Vulkan handle, enum, flags and base types (type-only: nothing here exists at run time). Handles are " +
          "distinct branded pointers, enums unions of their values, flags numbers (bigint when 64-bit).",
      )
    }
/**
 * The brand key of handle types: a handle's type name under this key (required in the type, never present
 * at run time), so no handle type is assignable to another and a raw \`Deno.PointerObject\` to none:
 * \`asHandle(type, pointer)\` is the one conversion.
 */
export declare const handleType: unique symbol;

/** The brand key of enum values: the enum's name (required in the type, never present at run time). */
export declare const enumType: unique symbol;

/**
 * A value of enum \`N\` (one of \`V\`): the constants carry the brand, so \`VK_IMAGE_LAYOUT_GENERAL\` (1) is
 * refused where a \`VkDescriptorType\` goes although \`VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER\` is also 1.
 */
export type VkEnum<N extends string, V extends number = number> = V & { readonly [enumType]: N };

/** The brand key of flag bits: the FlagBits type's name (required in the type, never present at run time). */
export declare const flagType: unique symbol;

/**
 * Bits of FlagBits type \`N\` (one bit, or several combined by \`flags\`): \`VK_IMAGE_USAGE_SAMPLED_BIT\` is
 * refused where \`VkBufferUsageFlags\` go. \`V\` is \`bigint\` for 64-bit flags.
 */
export type VkBits<N extends string, V extends number | bigint = number> = V & { readonly [flagType]: N };

/** The brand key of callback pointers: the \`PFN_*\` type's name (required in the type, never present at run time). */
export declare const callbackType: unique symbol;

/**
 * A native function pointer of callback type \`N\` (\`PFN_vkDebugUtilsMessengerCallbackEXT\`), as
 * \`makeCallback(N, fn).pointer\` gives it: a callback member takes only its own \`PFN_*\` type.
 */
export type VkCallbackPointer<N extends string> = Deno.PointerObject & { readonly [callbackType]: N };

/**
 * What a callback member of type \`N\` takes: \`makeCallback(N, fn).pointer\`, or a raw function pointer
 * (a native library's); a callback made for another \`PFN_*\` type, or a handle, is rejected.
 */
export type VkFunctionPointer<N extends string> =
  | (Deno.PointerObject & { readonly [callbackType]?: N; readonly [handleType]?: never })
  | null;

/** The brand key of {@linkcode VkPointer}: the pointee type (optional, never present at run time). */
export declare const pointee: unique symbol;

/**
 * A pointer to values of type \`T\` that a command writes (\`VkPhysicalDevice*\` of
 * vkEnumeratePhysicalDevices): any pointer but a handle is accepted; the type lets helpers such as
 * \`enumerate\` return the handles typed.
 */
export type VkPointer<T> =
  | (Deno.PointerObject & { readonly [pointee]?: T; readonly [handleType]?: never })
  | null;

/**
 * A pointer a struct literal's member takes instead of what it points to (an array, a string, bytes: memory
 * the caller manages): any pointer but a handle, so a handle given where an array of them goes
 * (\`pCommandBuffers: commandBuffer\`) fails \`deno check\`.
 */
export type VkRawPointer = (Deno.PointerObject & { readonly [handleType]?: never }) | null;

/** The brand key of {@linkcode VkStructPointer}: the struct's name (optional, never present at run time). */
export declare const structType: unique symbol;

/**
 * A pointer to struct(s) \`N\` (\`const VkBufferCreateInfo*\`), as \`writeStruct\` / \`allocStruct\` return it:
 * a pointer to another struct or a handle is rejected, an unbranded pointer is accepted.
 */
export type VkStructPointer<N extends string> =
  | (Deno.PointerObject & { readonly [structType]?: N; readonly [handleType]?: never })
  | null;

${typeLines.join("\n")}

/** Every handle type name -> its type (what {@linkcode handleType} brands; \`asHandle\` converts to). */
export interface VkHandleTypes {
${handleNames.map((n) => `  /** {@linkcode ${n}}. */\n  ${n}: ${n};`).join("\n")}
}

/** A handle type name (aliases resolved: \`VkDescriptorUpdateTemplate\`, not its KHR alias). */
export type VkHandleName = keyof VkHandleTypes;

/** Every enum type name -> its type (the names \`enumName\` takes). */
export interface VkEnumTypes {
${enumNames.map((n) => `  /** {@linkcode ${n}}. */\n  ${n}: ${n};`).join("\n")}
}

/** Every flags type with defined bits, and its FlagBits type, by name -> its type (the names \`flagNames\` takes). */
export interface VkFlagsTypes {
${[...new Set(flagsNames)].sort().map((n) => `  /** {@linkcode ${n}}. */\n  ${n}: ${n};`).join("\n")}
}
`,
  );

  // ---- vk_commands.ts
  const used = new Set<string>();
  const note = (ts: string) => {
    for (const m of ts.matchAll(/\b([A-Za-z_]\w*)\b/g)) if (map.declared.has(m[1]!)) used.add(m[1]!);
    return ts;
  };
  const commandLines: string[] = [];
  const commandTypes: string[] = [];
  const deviceNames: string[] = [];
  const allNames: string[] = [];
  const isStruct = (type: string) => ["struct", "union"].includes(map.resolve(type)?.category ?? "");
  // One line per parameter: its C type and what to pass from TypeScript.
  const paramDoc = (p: Decl): string => {
    const c = `${p.const ? "const " : ""}${p.type}${"*".repeat(p.pointer)}${
      p.dims.map((d) => `[${d}]`).join("")
    }`;
    const t = map.resolve(p.type);
    const notes: string[] = [];
    if (p.pointer === 1 && isStruct(p.type)) {
      const n = t!.name;
      notes.push(
        p.const
          ? `\`writeStruct(arena, "${n}", {...})\`${p.len ? " (an array of them)" : ""}`
          : `\`allocStruct(arena, "${n}")\`, read back with \`readStruct\``,
      );
    } else if (p.pointer === 1 && !p.const && t?.category === "handle") {
      notes.push(
        `out: the ${p.type}${p.len ? "s" : ""} made (\`create\` / \`VkScope\` read ${
          p.len ? "them" : "it"
        } back)`,
      );
    } else if (p.len && p.pointer > 0) notes.push(`array of \`${p.len.split(",")[0]}\``);
    if (p.optional) {
      notes.push(t?.category === "handle" || p.pointer > 0 ? "optional (null)" : "optional (0)");
    }
    return `\`${c}\`${notes.length ? `: ${notes.join("; ")}` : ""}`;
  };
  for (const name of reg.order) {
    const cmd = reg.commands.get(name)!;
    const params = cmd.params.map((p) => `${paramName(p.name)}: ${note(map.param(p, name))}`).join(", ");
    const result = cmd.result === "void" ? "void" : note(map.value(cmd.result, "result"));
    const providers = reg.providers.get(name) ?? [];
    const level = commandLevel(reg, layouts, name);
    const codes = cmd.result === "VkResult"
      ? [
        cmd.successCodes.length ? ` * Success codes: ${cmd.successCodes.join(", ")}.` : "",
        cmd.errorCodes.length ? ` * Error codes: ${cmd.errorCodes.join(", ")}.` : "",
      ].filter((l) => l)
      : [];
    const call = `vk.${name}(${cmd.params.map((p) => paramName(p.name)).join(", ")})`;
    commandTypes.push(
      "/**",
      ` * \`${name}\` (${providers.join(", ")}; ${level.replace("_", " ")} level): \`${call}\`${
        cmd.result === "void" ? "" : `, returns \`${cmd.result}\``
      }.`,
      ...codes,
      " *",
      ...cmd.params.map((p) => ` * @param ${paramName(p.name)} ${paramDoc(p).replace(/\*\//g, "*\\/")}`),
      " * @category Commands",
      " */",
      `export type ${name} = (${params}) => ${result};`,
    );
    commandLines.push(`  /** {@linkcode ${name}} */`, `  readonly ${name}: ${name};`);
    allNames.push(name);
    if (level === "device") deviceNames.push(name);
    for (const alias of [...cmd.aliases].sort()) {
      if (!reg.commandTarget.has(alias)) continue;
      commandTypes.push(
        "/**",
        ` * \`${alias}\` (${(reg.providers.get(alias) ?? []).join(", ")}): alias of {@linkcode ${name}}.`,
        " *",
        " * @category Commands",
        " */",
        `export type ${alias} = ${name};`,
      );
      commandLines.push(
        `  /** {@linkcode ${alias}}: alias of \`${name}\` */`,
        `  readonly ${alias}: ${alias};`,
      );
      allNames.push(alias);
      if (level === "device") deviceNames.push(alias);
    }
  }
  files.set(
    "vk_commands.ts",
    `${
      declarationsHeader(
        reg,
        "Every Vulkan command's typed signature, as `Vulkan.load()` exposes it (type-only). Parameter names are " +
          "the spec's; pointers are `Deno.PointerValue`, handles branded, 64-bit values bigint.",
      )
    }
import type { ${[...used].sort().join(", ")} } from "./vk_types.ts";

${commandTypes.join("\n")}

/**
 * Every Vulkan command (${reg.order.length}) and alias (${
      allNames.length - reg.order.length
    }) by name: the commands of
 * \`loadVulkan()\`. Each has a type of its own name (\`deno doc --filter vkCreateBuffer mod.ts\`).
 */
export interface VkCommands {
${commandLines.join("\n")}
}

/** Number of command names (aliases included) in {@linkcode VkCommands}. */
export type VkCommandCount = ${allNames.length};

/** A Vulkan command name or alias. */
export type VkCommandName = keyof VkCommands;

/** Names of the device-level commands (first parameter a VkDevice, VkQueue or VkCommandBuffer). */
export type VkDeviceCommandName =
${deviceNames.map((n) => `  | "${n}"`).join("\n")};
`,
  );

  // ---- vk_constants.js + vk_constants.d.ts: one `export const` declaration in plain JavaScript is the
  // cheapest form to import (no transpiling, no comments to skip: ~4.5 ms for ~5600 names against ~7.5 ms
  // as a documented .ts file); the documented types live in the .d.ts that `@ts-self-types` names. Measured
  // and no cheaper (imported alone, ~3.4 ms and ~3 MiB over an empty script): `var` or `let`, one line,
  // `const` then one `export { ... }` list, short locals exported `as` the names. The cost is the bindings.
  const declLines: string[] = [];
  const values: string[] = [];
  const seen = new Set<string>();
  const add = (name: string, value: number | bigint | string, text: string, type = literal(value)) => {
    if (seen.has(name)) return;
    seen.add(name);
    values.push(`${name} = ${literal(value)}`);
    declLines.push(doc(text), `export declare const ${name}: ${type};`);
  };
  add("VK_HEADER_VERSION", reg.headerVersion, "VK_HEADER_VERSION of the vk.xml these were generated from.");
  for (const v of reg.apiVersions) {
    const [major, minor] = v.split(".").map(Number) as [number, number];
    const packed = ((major << 22) | (minor << 12)) >>> 0;
    add(
      `VK_API_VERSION_${major}_${minor}`,
      packed,
      `Vulkan ${v}: VK_MAKE_API_VERSION(0, ${major}, ${minor}, 0).`,
    );
  }
  for (const [name, c] of reg.constants) add(name, c.value, `API constant (C type \`${c.type}\`).`);
  for (const g of [...reg.enumGroups.values()].sort(byName)) {
    if (!reg.types.has(g.name)) continue;
    for (const n of g.names) {
      const v = g.bitwidth === 64 ? reg.enumValues64.get(n) : reg.enumValues.get(n);
      if (v === undefined) continue;
      const brand = g.bitmask ? `VkBits<"${g.name}", ${literal(v)}>` : `VkEnum<"${g.name}", ${literal(v)}>`;
      add(n, v, `{@linkcode ${g.name}} ${g.bitmask ? "bit" : "value"} (${literal(v)}).`, brand);
    }
  }
  for (const [name, v] of [...reg.extensionConstants].sort((a, b) => a[0] < b[0] ? -1 : 1)) {
    add(name, v, typeof v === "string" ? `Extension name \`${v}\`.` : "Extension spec version.");
  }
  const constantCount = values.length;
  const what =
    "Every Vulkan enumerant, bitmask bit, API constant (`VK_WHOLE_SIZE`, ...), extension name and " +
    "`VK_API_VERSION_*` as a constant";
  files.set(
    "vk_constants.js",
    `// @ts-self-types="./vk_constants.d.ts"
${header(reg, `${what}: the values (types and documentation in vk_constants.d.ts).`)}
export const ${values.join(",\n  ")};
`,
  );
  files.set(
    "vk_constants.d.ts",
    `${declarationsHeader(reg, `${what}.`)}
import type { VkBits, VkEnum } from "./vk_types.ts";

${declLines.join("\n")}
`,
  );

  // ---- vk_structs.ts
  const structs = emitStructs(reg, layouts, map);
  files.set("vk_structs.ts", structs.text);

  // ---- vk_callbacks.ts, callbacks.ts, vk_create.ts, lifecycles.ts
  const helpers = emitHelpers(reg, layouts, map);
  for (const [name, text] of helpers.files) files.set(name, text);

  return {
    files,
    counts: {
      typedCommands: allNames.length,
      apiConstants: constantCount,
      enumTypes: enumCount,
      typedStructs: structs.count,
      callbacks: helpers.callbacks,
      createCommands: helpers.creates,
    },
  };
}
