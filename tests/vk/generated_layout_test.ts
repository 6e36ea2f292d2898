import { deepEqual as assertEquals, ok as assert } from "node:assert/strict";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { STRUCT_ALIASES, STRUCT_COUNT, STRUCTS } from "../../vk/generated/structs.ts";
import type { StructInfo } from "../../vk/generated/types.ts";
import { API_CONSTANTS, ENUMS, ENUMS64 } from "../../vk/generated/enums.ts";
import { HANDLES } from "../../vk/generated/handles.ts";
import { cc } from "../support/c_build.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const CACHE = join(ROOT, ".cache/generated_layout");
const VULKAN = "/usr/include/vulkan";

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Platform headers of the installed Vulkan headers, used when the system header they need is there. */
const PLATFORMS: { define: string; header: string; needs: string[] }[] = [
  { define: "VK_USE_PLATFORM_XLIB_KHR", header: "vulkan_xlib.h", needs: ["/usr/include/X11/Xlib.h"] },
  { define: "VK_USE_PLATFORM_XCB_KHR", header: "vulkan_xcb.h", needs: ["/usr/include/xcb/xcb.h"] },
  {
    define: "VK_USE_PLATFORM_WAYLAND_KHR",
    header: "vulkan_wayland.h",
    needs: ["/usr/include/wayland-client.h"],
  },
  {
    define: "VK_USE_PLATFORM_XLIB_XRANDR_EXT",
    header: "vulkan_xlib_xrandr.h",
    needs: ["/usr/include/X11/Xlib.h", "/usr/include/X11/extensions/Xrandr.h"],
  },
];

/**
 * Structs that grew in the registry after the installed 1.3.239 headers, by appended members: a later
 * extension revision added VkPhysicalDeviceClusterCullingShaderPropertiesHUAWEI::indirectBufferOffsetAlignment,
 * and the registry fixed VkDeviceFaultVendorBinaryHeaderVersionOneEXT, which lacked engineVersion and apiVersion
 * (now an alias of the KHR struct). Their shared members are still compared; only the size and the member list
 * may differ, and only by members appended at the end.
 */
const GROWN_SINCE_HEADERS = new Set([
  "VkPhysicalDeviceClusterCullingShaderPropertiesHUAWEI",
  "VkDeviceFaultVendorBinaryHeaderVersionOneEXT",
]);

interface HeaderStruct {
  members: string[];
  bitfields: Set<string>;
}

/** `typedef VkFoo VkFooKHR;` lines of the installed headers: alias -> target. */
function headerAliases(files: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const file of files) {
    const text = Deno.readTextFileSync(join(VULKAN, file));
    for (const m of text.matchAll(/^typedef (Vk\w+) (Vk\w+);$/gm)) out.set(m[2]!, m[1]!);
  }
  return out;
}

/** Structs and unions the installed headers declare, with their member names (read from the header text). */
function headerStructs(files: string[]): Map<string, HeaderStruct> {
  const out = new Map<string, HeaderStruct>();
  for (const file of files) {
    const text = Deno.readTextFileSync(join(VULKAN, file));
    for (const m of text.matchAll(/typedef (?:struct|union) (\w+) \{([\s\S]*?)\} \1;/g)) {
      const members: string[] = [];
      const bitfields = new Set<string>();
      for (const decl of m[2]!.split(";")) {
        const d = decl.replace(/\/\/.*$/gm, "").trim();
        const name = d.match(/(\w+)\s*(?:\[[^\]]*\]\s*)*(:\s*\d+)?$/);
        if (!d || !name) continue;
        members.push(name[1]!);
        if (name[2]) bitfields.add(name[1]!);
      }
      out.set(m[1]!, { members, bitfields });
    }
  }
  return out;
}

/** Bytes of a zeroed struct with every bit of one bit-field set, as the generated layout predicts them. */
function expectedBitfieldBytes(info: StructInfo, member: string): string {
  const bytes = new Uint8Array(info.size);
  const m = info.members.find((x) => x.name === member)!;
  const start = m.offset * 8 + (m.bitOffset ?? 0);
  for (let bit = start; bit < start + m.bits!; bit++) bytes[bit >> 3]! |= 1 << (bit & 7);
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The generated layout for a header struct name (directly, or through the alias it has become). */
function layoutOf(name: string): StructInfo {
  return STRUCTS[name] ?? STRUCTS[STRUCT_ALIASES[name]!]!;
}

function cProgram(defines: string[], names: string[], headers: Map<string, HeaderStruct>): string {
  const rows: string[] = [];
  const bitfieldDumps: string[] = [];
  for (const name of names) {
    const h = headers.get(name)!;
    rows.push(`  {"${name}", "", sizeof(${name}), _Alignof(${name})},`);
    for (const m of layoutOf(name).members) {
      if (!h.members.includes(m.name)) continue;
      if (h.bitfields.has(m.name)) {
        bitfieldDumps.push(
          `  { ${name} v; memset(&v, 0, sizeof v); v.${m.name} = ~0u; dump("${name}", "${m.name}", &v, sizeof v); }`,
        );
        continue;
      }
      rows.push(
        `  {"${name}", "${m.name}", offsetof(${name}, ${m.name}), sizeof(((${name}*)0)->${m.name})},`,
      );
    }
  }
  return `${defines.map((d) => `#define ${d}\n`).join("")}#include <vulkan/vulkan.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

struct row { const char* type; const char* member; size_t a; size_t b; };
static const struct row rows[] = {
${rows.join("\n")}
};

static void dump(const char* type, const char* member, const void* p, size_t n) {
  printf("B\\t%s\\t%s\\t", type, member);
  for (size_t i = 0; i < n; i++) printf("%02x", ((const unsigned char*)p)[i]);
  printf("\\n");
}

int main(void) {
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    printf("%s\\t%s\\t%s\\t%zu\\t%zu\\n", rows[i].member[0] ? "M" : "S", rows[i].type, rows[i].member, rows[i].a, rows[i].b);
  }
${bitfieldDumps.join("\n")}
  return 0;
}
`;
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("").slice(0, 16);
}

/** Compiles (once per source text, cached under .cache/) and runs the layout program. */
async function runLayoutProgram(source: string): Promise<string> {
  await Deno.mkdir(CACHE, { recursive: true });
  const base = join(CACHE, `layout_${await sha256(source)}`);
  if (!exists(base)) {
    await Deno.writeTextFile(`${base}.c`, source);
    await cc(["-std=c11", "-O0", "-w", "-o", `${base}.tmp`, `${base}.c`]);
    await Deno.rename(`${base}.tmp`, base);
  }
  const run = await new Deno.Command(base, { stdout: "piped", stderr: "piped" }).output();
  if (!run.success) {
    throw new Error(`Layout program "${base}" failed: ${new TextDecoder().decode(run.stderr)}`);
  }
  return new TextDecoder().decode(run.stdout);
}

Deno.test("generated struct layouts match the C compiler on the installed headers", async () => {
  const platforms = PLATFORMS.filter((p) => p.needs.every(exists) && exists(join(VULKAN, p.header)));
  const files = ["vulkan_core.h", ...platforms.map((p) => p.header)];
  const headers = headerStructs(files);
  // Header structs that the registry has since promoted to core are aliases now: check them against the target.
  const names = [...headers.keys()].filter((n) => STRUCTS[n] ?? STRUCTS[STRUCT_ALIASES[n] ?? ""]).sort();
  const source = cProgram(platforms.map((p) => p.define), names, headers);
  const output = await runLayoutProgram(source);

  const problems: string[] = [];
  const seen = new Set<string>();
  let compared = 0;
  for (const line of output.trim().split("\n")) {
    const [kind, type, member, a, b] = line.split("\t") as [string, string, string, string, string];
    const info = layoutOf(type);
    compared++;
    if (kind === "S") {
      seen.add(type);
      if ((info.size !== Number(a) && !GROWN_SINCE_HEADERS.has(type)) || info.align !== Number(b)) {
        problems.push(`${type}: size/align ${info.size}/${info.align}, C says ${a}/${b}`);
      }
    } else if (kind === "M") {
      const m = info.members.find((x) => x.name === member)!;
      if (m.offset !== Number(a) || m.size !== Number(b)) {
        problems.push(`${type}.${member}: offset/size ${m.offset}/${m.size}, C says ${a}/${b}`);
      }
    } else if (kind === "B") {
      const expected = expectedBitfieldBytes(info, member);
      if (expected !== a) problems.push(`${type}.${member}: bit-field bytes ${expected}, C says ${a}`);
    }
  }
  // A struct whose members differ between the registry and the header differs, even if sizes agree.
  for (const name of names) {
    const ours = layoutOf(name).members.map((m) => m.name).join(",");
    const theirs = headers.get(name)!.members.join(",");
    const grown = GROWN_SINCE_HEADERS.has(name) && ours.startsWith(`${theirs},`);
    if (ours !== theirs && !grown) problems.push(`${name}: members ${ours}, header has ${theirs}`);
  }
  for (const name of GROWN_SINCE_HEADERS) {
    if (seen.has(name)) assert(layoutOf(name).members.length > headers.get(name)!.members.length, name);
  }
  // Struct aliases (VkPhysicalDeviceFeatures2KHR) name the same struct in the headers and the generated table.
  let aliases = 0;
  for (const [alias, target] of headerAliases(files)) {
    if (!STRUCT_ALIASES[alias] && !STRUCTS[target]) continue;
    const canonical = (n: string) => STRUCT_ALIASES[n] ?? n;
    if (canonical(alias) !== canonical(target)) {
      problems.push(`${alias}: alias of "${STRUCT_ALIASES[alias]}", header says "${target}"`);
    }
    aliases++;
  }
  console.log(
    `layouts checked against cc: ${seen.size} structs/unions of ${STRUCT_COUNT} generated, ${aliases} aliases, ` +
      `${compared} sizes/offsets/bit-fields compared ` +
      `(platforms: ${platforms.map((p) => p.define).join(", ") || "none"})`,
  );
  assertEquals(problems.slice(0, 40), []);
  assertEquals(seen.size, names.length);
  // The installed 1.3.239 headers define 792 structs and unions outside vulkan_beta.h; all are checked.
  assert(seen.size > 700, `only ${seen.size} structs checked`);
  assert(compared > 1000, `only ${compared} layout values compared`);
});

Deno.test("bit-fields pack into units of their declared type", () => {
  const info = STRUCTS["VkAccelerationStructureInstanceKHR"]!;
  assertEquals(info.size, 64);
  const pick = (name: string) => {
    const m = info.members.find((x) => x.name === name)!;
    return [m.offset, m.bitOffset, m.bits];
  };
  assertEquals(pick("instanceCustomIndex"), [48, 0, 24]);
  assertEquals(pick("mask"), [48, 24, 8]);
  assertEquals(pick("instanceShaderBindingTableRecordOffset"), [52, 0, 24]);
  assertEquals(pick("flags"), [52, 24, 8]);
  assertEquals(pick("accelerationStructureReference"), [56, undefined, undefined]);
  assertEquals(STRUCT_ALIASES["VkAccelerationStructureInstanceNV"], "VkAccelerationStructureInstanceKHR");
});

Deno.test("fixed arrays use API constants and sType values come from the registry", () => {
  const props = STRUCTS["VkExtensionProperties"]!;
  assertEquals(props.members[0], {
    name: "extensionName",
    type: "char",
    offset: 0,
    size: 256,
    pointer: 0,
    const: false,
    count: 256,
    len: "null-terminated",
  });
  assertEquals(STRUCTS["VkTransformMatrixKHR"]!.members[0]!.count, 12);
  assertEquals(STRUCTS["VkInstanceCreateInfo"]!.sType, 1);
  assertEquals(STRUCTS["VkClearValue"]!.union, true);
  assertEquals(STRUCTS["VkClearValue"]!.size, 16);
});

/** The installed headers' text with provisional (VK_ENABLE_BETA_EXTENSIONS) blocks removed. */
function stableHeaderText(file: string): string {
  return Deno.readTextFileSync(join(VULKAN, file)).replace(
    /#ifdef VK_ENABLE_BETA_EXTENSIONS[\s\S]*?#endif/g,
    "",
  );
}

Deno.test("generated enumerants and handles match the installed headers", () => {
  const text = stableHeaderText("vulkan_core.h");
  const values = new Map<string, bigint>();
  const problems: string[] = [];
  let checked = 0;
  const compare = (name: string, value: bigint) => {
    const ours = ENUMS[name] !== undefined ? BigInt(ENUMS[name]!) : ENUMS64[name];
    checked++;
    if (ours !== value) problems.push(`${name}: ${ours}, header says ${value}`);
  };
  for (const m of text.matchAll(/typedef enum (\w+) \{([\s\S]*?)\} \1;/g)) {
    for (const e of m[2]!.matchAll(/^\s+(VK_\w+) = ([^,\n]+),?$/gm)) {
      const v = e[2]!.trim();
      const value = v.startsWith("VK_") ? values.get(v) : BigInt(v);
      if (value === undefined) throw new Error(`Cannot read "${e[1]}" in vulkan_core.h`);
      values.set(e[1]!, value);
      // VK_*_MAX_ENUM are header sentinels, not registry enumerants.
      if (!/_MAX_ENUM(_[A-Z]+)?$/.test(e[1]!)) compare(e[1]!, value);
    }
  }
  for (const e of text.matchAll(/^static const Vk\w+ (VK_\w+) = (\w+)ULL;$/gm)) compare(e[1]!, BigInt(e[2]!));
  assertEquals(problems.slice(0, 20), []);
  assert(checked > 2500, `only ${checked} enumerants checked`);

  let handles = 0;
  for (const h of text.matchAll(/^VK_DEFINE_(NON_DISPATCHABLE_)?HANDLE\((\w+)\)$/gm)) {
    assertEquals(HANDLES[h[2]!]?.dispatchable, h[1] === undefined, h[2]);
    handles++;
  }
  assert(handles > 40, `only ${handles} handles checked`);
  assertEquals(
    API_CONSTANTS["VK_MAX_EXTENSION_NAME_SIZE"],
    Number(text.match(/#define VK_MAX_EXTENSION_NAME_SIZE\s+(\d+)U/)![1]),
  );
  console.log(`enumerants checked against vulkan_core.h: ${checked}; handles: ${handles}`);
});
