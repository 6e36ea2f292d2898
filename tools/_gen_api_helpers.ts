/**
 * Emits the typed callbacks (every funcpointer type as the TypeScript function `makeCallback` takes, and the
 * FFI definitions that make it native) and the create/destroy tables of `create` and `VkScope`.
 *
 * @module
 */
import type { Decl, Registry } from "./_gen_registry.ts";
import { lit } from "./_gen_emit.ts";
import type { Layouts } from "./_gen_layout.ts";
import {
  byName,
  declarationsHeader,
  destroyedAt,
  doc,
  header,
  isCString,
  paramName,
  type TypeMapper,
} from "./_gen_api_common.ts";

/**
 * The typed callbacks (every funcpointer type as a TypeScript function taking typed arguments, and the FFI
 * definitions that make them native) and the create/destroy tables of the create-and-read-back helpers.
 */
export function emitHelpers(
  reg: Registry,
  layouts: Layouts,
  map: TypeMapper,
): { files: Map<string, string>; callbacks: number; creates: number } {
  const files = new Map<string, string>();
  const isStruct = (type: string) => {
    const t = layouts.resolve(type);
    return t?.category === "struct" || t?.category === "union";
  };
  /** Returns `ts`, adding the declared type names it mentions to `into` (a file's imports). */
  const noting = (into: Set<string>) => (ts: string) => {
    for (const m of ts.matchAll(/\b([A-Za-z_]\w*)\b/g)) if (map.declared.has(m[1]!)) into.add(m[1]!);
    return ts;
  };
  const used = new Set<string>();
  const named = noting(used);

  // Deep forms: what a callback receives for a `const T*` argument (strings decoded, struct arrays read).
  const deep = new Set<string>();
  const visit = (name: string) => {
    const canonical = layouts.resolve(name)!.name;
    if (deep.has(canonical)) return;
    deep.add(canonical);
    for (const m of reg.types.get(canonical)!.members ?? []) {
      if (m.pointer === 1 && m.name !== "pNext" && isStruct(m.type)) visit(m.type);
    }
  };
  const funcs = [...reg.types.values()].filter((t) => t.category === "funcpointer" && t.params).sort(byName);
  for (const f of funcs) {
    for (const p of f.params!) if (p.pointer === 1 && p.const && isStruct(p.type)) visit(p.type);
  }
  const deepMember = (m: Decl, readForm: string): string => {
    if (m.pointer !== 1 || m.name === "pNext") return readForm;
    if (isCString(m, false)) return "string | null";
    if (!isStruct(m.type)) return readForm;
    const target = layouts.resolve(m.type)!.name;
    const counted = m.len !== undefined && /^[A-Za-z_]\w*$/.test(m.len.split(",")[0]!);
    return counted ? `VkCallbackStructs["${target}"][]` : `VkCallbackStructs["${target}"] | null`;
  };
  // Enum members (not FlagBits) get their name beside them, as vk/vk_callback.ts's readStructDeep adds it.
  const isEnumMember = (m: Decl) =>
    m.name !== "sType" && m.pointer === 0 && !m.dims.length && m.bits === undefined && !/Flag/.test(m.type) &&
    layouts.resolve(m.type)?.category === "enum";
  const enumNames = (name: string): string[] =>
    (reg.types.get(name)!.members ?? []).filter(isEnumMember).map((m) =>
      `    /** The name of \`${m.name}\` (\`enumName("${m.type}", ${m.name})\`). */\n    ${m.name}Name: string;`
    );
  const deepLines: string[] = [];
  for (const name of [...deep].sort()) {
    if (!(reg.types.get(name)!.members ?? []).some((m) => deepMember(m, "") !== "")) {
      if (enumNames(name).length) {
        deepLines.push(
          `  /** \`${name}\` as a callback receives it: its enum members named. */`,
          `  ${name}: ${name} & {`,
          ...enumNames(name),
          `  };`,
        );
        continue;
      }
      deepLines.push(
        `  /** \`${name}\` as a callback receives it (nothing to decode). */`,
        `  ${name}: ${name};`,
      );
      continue;
    }
    deepLines.push(
      `  /** \`${name}\` as a callback receives it: its \`const char*\` strings decoded, the structs it points to read. */`,
      `  ${name}: Omit<${name}, ${
        (reg.types.get(name)!.members ?? []).filter((m) => deepMember(m, "") !== "").map((m) => `"${m.name}"`)
          .join(" | ") || "never"
      }> & {`,
      ...(reg.types.get(name)!.members ?? []).filter((m) => deepMember(m, "") !== "").map((m) =>
        `    ${m.name}: ${deepMember(m, "")};`
      ),
      ...enumNames(name),
      `  };`,
    );
  }

  const fnLines: string[] = [];
  const defRows: string[] = [];
  for (const f of funcs) {
    const params = f.params!.map((p) => {
      let ts: string;
      if (isCString(p, true)) ts = "string | null";
      else if (p.pointer === 1 && p.const && isStruct(p.type)) {
        ts = `VkCallbackStructs["${layouts.resolve(p.type)!.name}"] | null`;
      } else if (p.pointer > 0) ts = "Deno.PointerValue";
      else ts = named(map.value(p.type, "result"));
      return `${paramName(p.name)}: ${ts}`;
    });
    const proto = f.proto!;
    const result = proto.pointer > 0
      ? "Deno.PointerValue"
      : proto.type === "void"
      ? "void"
      : proto.type === "VkBool32"
      ? named("VkBool32 | boolean")
      : named(map.value(proto.type, "result"));
    fnLines.push(
      `  /** \`${f.name}\`: the function C calls, as TypeScript receives it. */`,
      `  ${f.name}: (${params.join(", ")}) => ${result};`,
    );
    const ffi = {
      parameters: f.params!.map((p) => layouts.ffiType(p)),
      result: layouts.ffiType({ type: proto.type, pointer: proto.pointer, dims: [] }),
    };
    const args = f.params!.map((p) =>
      isCString(p, true)
        ? "string"
        : p.pointer === 1 && p.const && isStruct(p.type)
        ? layouts.resolve(p.type)!.name
        : null
    );
    defRows.push(
      `  ${f.name}: { parameters: ${lit(ffi.parameters)}, result: ${lit(ffi.result)}, args: ${
        JSON.stringify(args).replace(/,/g, ", ")
      } },`,
    );
  }
  const deepImports = [...deep].sort();
  const callbackTypes = `${
    declarationsHeader(
      reg,
      "Every Vulkan callback (funcpointer) type as the TypeScript function `makeCallback` takes (type-only): " +
        "strings arrive decoded, structs read as typed objects.",
    )
  }
import type { ${[...used].sort().join(", ")} } from "./vk_types.ts";
import type { ${deepImports.join(", ")} } from "./vk_structs.ts";

/** Callback (funcpointer) type name -> the TypeScript function that implements it. */
export interface VkCallbackFunctions {
${fnLines.join("\n")}
}

/** A callback (funcpointer) type name. */
export type VkCallbackName = keyof VkCallbackFunctions;

${
    funcs.map((f) =>
      `${
        doc(`The TypeScript form of \`${f.name}\` (see {@linkcode VkCallbackFunctions}).`)
      }\nexport type ${f.name} = VkCallbackFunctions["${f.name}"];`
    ).join("\n")
  }

/** Structs a callback receives, by name: decoded strings, pointed-to structs read (one object or an array). */
export interface VkCallbackStructs {
${deepLines.join("\n")}
}
`;
  files.set("vk_callbacks.ts", callbackTypes);
  files.set(
    "callbacks.ts",
    `${header(reg, "FFI definitions of every Vulkan callback (funcpointer) type, for `makeCallback`.")}
/** One callback type: its FFI signature, and per parameter how to decode it (a struct name, "string", or null). */
export interface CallbackDef {
  readonly parameters: readonly Deno.NativeType[];
  readonly result: Deno.NativeResultType;
  readonly args: readonly (string | null)[];
}

/** Callback (funcpointer) type name -> its definition. */
export const CALLBACK_DEFS: Readonly<Record<string, CallbackDef>> = {
${defRows.join("\n")}
};
`,
  );

  // Create-and-read-back: commands returning new handles through their last parameter.
  const singles: [string, string][] = [];
  const manys: [string, string][] = [];
  // Each one's arguments before the output slot, as a tuple: `create` and `VkScope` take `VkCreateArgs[N]`,
  // an interface lookup (inferring from a conditional over every command cost seconds per `deno check`).
  const argRows: string[] = [];
  const createImports = new Set<string>();
  const argNamed = noting(createImports);
  const destroyRows: string[] = [];
  const destroyerOf = new Map<string, { name: string; parent: boolean; allocator: boolean }>();
  const isHandle = (type: string) => layouts.resolve(type)?.category === "handle";
  for (const name of reg.order) {
    const params = reg.commands.get(name)!.params;
    const handleAt = destroyedAt(name, params, isHandle);
    if (handleAt < 0) continue;
    const type = layouts.resolve(params[handleAt]!.type)!.name;
    if (destroyerOf.has(type)) continue;
    destroyerOf.set(type, { name, parent: handleAt === 1, allocator: params.length > handleAt + 1 });
  }
  for (const name of reg.order) {
    const cmd = reg.commands.get(name)!;
    const last = cmd.params.at(-1);
    if (!last || last.pointer !== 1 || last.const || layouts.resolve(last.type)?.category !== "handle") {
      continue;
    }
    const handleType = layouts.resolve(last.type)!.name;
    let kind: "single" | "many" | undefined;
    if (last.len === undefined) kind = "single";
    else {
      const ref = last.len.split(",")[0]!;
      const param = cmd.params.find((p) => p.name === ref);
      if (param ? param.pointer === 0 : ref.includes("->")) kind = "many";
    }
    if (!kind) continue;
    const args = cmd.params.slice(0, -1).map((p) => `${paramName(p.name)}: ${argNamed(map.param(p, name))}`);
    for (const n of [name, ...cmd.aliases].filter((n) => reg.commandTarget.has(n)).sort()) {
      (kind === "single" ? singles : manys).push([n, handleType]);
      createImports.add(handleType);
      argRows.push(`  /** \`${n}\`'s arguments before its output. */\n  ${n}: [${args.join(", ")}];`);
      used.add(handleType);
      const d = destroyerOf.get(handleType);
      if (d) {
        const allocatorAt = cmd.params.findIndex((p) => p.name === "pAllocator");
        destroyRows.push(
          `  ${n}: ${lit({ destroy: d.name, parent: d.parent, allocator: d.allocator, allocatorAt })},`,
        );
      }
    }
  }
  files.set(
    "vk_create.ts",
    `${
      declarationsHeader(
        reg,
        "Which commands create handles and of what type, for `create` / `createMany` / `VkScope` (type-only).",
      )
    }
import type { ${[...createImports].sort().join(", ")} } from "./vk_types.ts";

/** Commands returning one new handle through their last parameter (create, allocate, get) -> its type. */
export interface VkCreateOutputs {
${singles.map(([n, h]) => `  /** \`${n}\` returns a \`${h}\`. */\n  ${n}: ${h};`).join("\n")}
}

/** Commands returning an array of new handles through their last parameter -> the element type. */
export interface VkCreateManyOutputs {
${manys.map(([n, h]) => `  /** \`${n}\` returns \`${h}\`s. */\n  ${n}: ${h};`).join("\n")}
}

/** The commands of {@linkcode VkCreateOutputs} and {@linkcode VkCreateManyOutputs} -> their arguments before the output. */
export interface VkCreateArgs {
${argRows.join("\n")}
}
`,
  );
  files.set(
    "lifecycles.ts",
    `${header(reg, "Create command -> the command that destroys what it made, for `VkScope`.")}
/** How to destroy a handle a create command made: \`destroy(parent?, handle, pAllocator)\`. */
export interface Destroyer {
  /** The destroy or free command. */
  readonly destroy: string;
  /** Whether its first argument is the create command's first (the parent: device or instance). */
  readonly parent: boolean;
  /** Whether the destroy command takes pAllocator. */
  readonly allocator: boolean;
  /** Where the create command's pAllocator is among its arguments (-1: none; destroy gets null then). */
  readonly allocatorAt: number;
}

/** Create command (aliases included) -> how to destroy what it made. */
export const DESTROYERS: Readonly<Record<string, Destroyer>> = {
${destroyRows.join("\n")}
};
`,
  );
  return { files, callbacks: funcs.length, creates: singles.length + manys.length };
}
