import { deepEqual as assertEquals, ok as assert } from "node:assert/strict";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  COMMAND_ALIAS_COUNT,
  COMMAND_COUNT,
  COMMAND_INDEX,
  COMMAND_PROVIDERS,
  COMMANDS,
} from "../../vk/generated/commands.ts";
import type { CommandInfo } from "../../vk/generated/types.ts";
import { API_CONSTANTS, ENUMS, HEADER_VERSION, RESULT_NAMES } from "../../vk/generated/enums.ts";
import { HANDLES } from "../../vk/generated/handles.ts";
import { EXTENSIONS } from "../../vk/generated/extensions.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const REGISTRY = resolve(ROOT, "tools/registry/vk.xml");

function assertStringIncludes(text: string, part: string): void {
  assert(text.includes(part), `expected "${part}" in:\n${text}`);
}

function forVulkan(attrs: string): boolean {
  const api = attrs.match(/\bapi="([^"]*)"/)?.[1];
  return api === undefined || api.split(",").includes("vulkan");
}

/**
 * Command names straight from vk.xml, without the generator's parser: every <command> for api="vulkan" that a
 * vulkan feature or a vulkan-supported extension requires by one of its names. The rest (SciSync, fault
 * handling, disabled Android swapchain internals) is vulkansc-only or outside the API.
 */
function registryCommands(): { commands: string[]; aliases: Map<string, string> } {
  const xml = Deno.readTextFileSync(REGISTRY);
  const required = new Set<string>();
  for (const m of xml.matchAll(/<(feature|extension)\b([^>]*[^/])>([\s\S]*?)<\/\1>/g)) {
    const attrs = m[2]!;
    const wanted = m[1] === "feature"
      ? forVulkan(attrs)
      : (attrs.match(/\bsupported="([^"]*)"/)?.[1] ?? "").split(",").includes("vulkan");
    if (!wanted) continue;
    for (const r of m[3]!.matchAll(/<require\b([^>]*)>([\s\S]*?)<\/require>/g)) {
      if (!forVulkan(r[1]!)) continue;
      for (const c of r[2]!.matchAll(/<command\b([^>]*)\/>/g)) {
        if (forVulkan(c[1]!)) required.add(c[1]!.match(/\bname="(\w+)"/)![1]!);
      }
    }
  }
  const block = xml.slice(xml.indexOf("<commands"), xml.indexOf("</commands>"));
  const all: string[] = [];
  const allAliases = new Map<string, string>();
  for (const m of block.matchAll(/<command\b([^>]*?)(\/>|>([\s\S]*?)<\/command>)/g)) {
    const attrs = m[1]!;
    if (!forVulkan(attrs)) continue;
    const alias = attrs.match(/\balias="(\w+)"/)?.[1];
    if (alias) allAliases.set(attrs.match(/\bname="(\w+)"/)![1]!, alias);
    else all.push(m[3]!.match(/<proto>[\s\S]*?<name>(\w+)<\/name>/)![1]!);
  }
  const target = (name: string): string => {
    let t = name;
    while (allAliases.has(t)) t = allAliases.get(t)!;
    return t;
  };
  const kept = new Set([...required].map(target));
  const commands = all.filter((c) => kept.has(c));
  const aliases = new Map([...allAliases].filter(([a]) => kept.has(target(a))).map(([a]) => [a, target(a)]));
  assert(all.length - commands.length < 40, `${all.length - commands.length} commands dropped as unrequired`);
  return { commands, aliases };
}

function command(name: string): CommandInfo {
  const info = COMMANDS[COMMAND_INDEX[name] ?? -1];
  if (!info) throw new Error(`Command "${name}" is missing from the generated table`);
  return info;
}

Deno.test("command table holds every api=vulkan command of the registry, aliases folded into their target", () => {
  const { commands, aliases } = registryCommands();
  assert(commands.length > 700, `only ${commands.length} commands read from "${REGISTRY}"`);
  assertEquals(COMMAND_COUNT, commands.length);
  assertEquals(COMMANDS.length, commands.length);
  assertEquals(COMMAND_ALIAS_COUNT, aliases.size);
  assertEquals(Object.keys(COMMAND_INDEX).length, commands.length + aliases.size);
  assertEquals(new Set(COMMANDS.map((c) => c.name)), new Set(commands));
  for (const [alias, target] of aliases) {
    assertEquals(COMMAND_INDEX[alias], COMMAND_INDEX[target], `alias "${alias}" of "${target}"`);
    assert(command(target).aliases.includes(alias));
  }
  // vulkansc-only commands stay out, with or without an api attribute on the <command>.
  assertEquals(COMMAND_INDEX["vkGetCommandPoolMemoryConsumption"], undefined);
  assertEquals(COMMAND_INDEX["vkGetFaultData"], undefined);
  assertEquals(COMMAND_INDEX["vkCreateSemaphoreSciSyncPoolNV"], undefined);
});

Deno.test("command index is the position in the table", () => {
  COMMANDS.forEach((c, i) => assertEquals(c.index, i, c.name));
  for (const [name, i] of Object.entries(COMMAND_INDEX)) {
    const c = COMMANDS[i]!;
    assert(c.name === name || c.aliases.includes(name), `"${name}" -> ${i} ("${c.name}")`);
  }
});

Deno.test("dispatch level follows the first parameter's handle ancestry", () => {
  const expected: Record<string, string> = {
    vkCmdDraw: "device",
    vkGetPhysicalDeviceProperties: "physical_device",
    vkCreateInstance: "global",
    vkCreateDevice: "physical_device",
    vkQueueSubmit: "device",
    vkGetDeviceProcAddr: "device",
    vkEnumerateInstanceVersion: "global",
    vkEnumerateInstanceExtensionProperties: "global",
    vkEnumerateInstanceLayerProperties: "global",
    vkGetInstanceProcAddr: "global",
    vkDestroyInstance: "instance",
    vkEnumeratePhysicalDevices: "instance",
    vkCreateDebugUtilsMessengerEXT: "instance",
    vkDestroySurfaceKHR: "instance",
    vkGetPhysicalDeviceSurfaceSupportKHR: "physical_device",
    vkGetPhysicalDeviceProperties2KHR: "physical_device",
    vkCreateSwapchainKHR: "device",
    vkBeginCommandBuffer: "device",
    vkGetDeviceQueue: "device",
  };
  for (const [name, level] of Object.entries(expected)) assertEquals(command(name).level, level, name);
  for (const c of COMMANDS) {
    assert(["global", "instance", "physical_device", "device"].includes(c.level), c.name);
    if (c.name.startsWith("vkCmd")) assertEquals(c.level, "device", c.name);
  }
});

Deno.test("FFI types map C types to Deno native types", () => {
  assertEquals(command("vkCmdSetLineWidth").ffi, { parameters: ["pointer", "f32"], result: "void" });
  assertEquals(command("vkCmdSetBlendConstants").ffi, { parameters: ["pointer", "pointer"], result: "void" });
  assertEquals(command("vkCmdSetBlendConstants").params[1]!.array, 4);
  assertEquals(command("vkCmdPipelineBarrier").ffi, {
    parameters: ["pointer", "u32", "u32", "u32", "u32", "pointer", "u32", "pointer", "u32", "pointer"],
    result: "void",
  });
  assertEquals(command("vkGetBufferDeviceAddress").ffi, {
    parameters: ["pointer", "pointer"],
    result: "u64",
  });
  assertEquals(command("vkCmdDrawIndirect").ffi, {
    parameters: ["pointer", "pointer", "u64", "u32", "u32"],
    result: "void",
  });
  assertEquals(command("vkCreateInstance").ffi.result, "i32");
  assertEquals(command("vkGetInstanceProcAddr").ffi, {
    parameters: ["pointer", "pointer"],
    result: "pointer",
  });
  // 64-bit flags (VkPipelineStageFlags2) are u64; size_t is usize.
  assertEquals(command("vkCmdWriteTimestamp2").ffi.parameters, ["pointer", "u64", "pointer", "u32"]);
  assertEquals(command("vkGetPipelineCacheData").ffi.parameters, [
    "pointer",
    "pointer",
    "pointer",
    "pointer",
  ]);
  assertEquals(command("vkCmdPushConstants").ffi.parameters, [
    "pointer",
    "pointer",
    "u32",
    "u32",
    "u32",
    "pointer",
  ]);
  assertEquals(command("vkCmdSetDepthBias").ffi.parameters, ["pointer", "f32", "f32", "f32"]);
  for (const c of COMMANDS) {
    assertEquals(c.ffi.parameters.length, c.params.length, c.name);
    c.params.forEach((p, i) => {
      if (p.pointer > 0 || p.array !== undefined || HANDLES[p.type]) {
        assertEquals(c.ffi.parameters[i], "pointer", `${c.name}.${p.name}`);
      }
    });
  }
});

Deno.test("parameters carry pointer depth, const, len and optional", () => {
  const info = command("vkCreateInstance");
  assertEquals(info.params.map((p) => p.name), ["pCreateInfo", "pAllocator", "pInstance"]);
  assertEquals(info.params[0], {
    name: "pCreateInfo",
    type: "VkInstanceCreateInfo",
    pointer: 1,
    const: true,
  });
  assertEquals(info.params[1]!.optional, true);
  const enumerate = command("vkEnumeratePhysicalDevices").params[2]!;
  assertEquals(enumerate.len, "pPhysicalDeviceCount");
  assertEquals(command("vkGetDeviceProcAddr").params[1], {
    name: "pName",
    type: "char",
    pointer: 1,
    const: true,
    len: "null-terminated",
  });
  assertEquals(command("vkQueueSubmit").result, "VkResult");
  assertEquals(command("vkGetDeviceProcAddr").result, "PFN_vkVoidFunction");
});

Deno.test("providers name the core version or extension of each exact name", () => {
  assertEquals(command("vkCmdDraw").providers, ["VK_VERSION_1_0"]);
  assertEquals(command("vkGetPhysicalDeviceProperties2").providers, ["VK_VERSION_1_1"]);
  assertEquals(COMMAND_PROVIDERS["vkGetPhysicalDeviceProperties2KHR"], [
    "VK_KHR_get_physical_device_properties2",
  ]);
  assertEquals(command("vkCreateSwapchainKHR").providers.includes("VK_KHR_swapchain"), true);
  assertEquals(command("vkCmdBeginRendering").providers, ["VK_VERSION_1_3"]);
  assertEquals(command("vkCmdSetLineStipple").providers, ["VK_VERSION_1_4"]);
  assertEquals(Object.keys(COMMAND_PROVIDERS).length, Object.keys(COMMAND_INDEX).length);
  assertEquals(EXTENSIONS["VK_KHR_surface"]?.type, "instance");
  assertEquals(EXTENSIONS["VK_KHR_swapchain"]?.type, "device");
});

Deno.test("handles, enums and constants come from the registry", () => {
  assertEquals(HANDLES["VkInstance"], { dispatchable: true });
  assertEquals(HANDLES["VkQueue"], { dispatchable: true, parent: "VkDevice" });
  assertEquals(HANDLES["VkCommandBuffer"], { dispatchable: true, parent: "VkCommandPool" });
  assertEquals(HANDLES["VkBuffer"], { dispatchable: false, parent: "VkDevice" });
  assertEquals(ENUMS["VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO"], 1);
  assertEquals(ENUMS["VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO"], 47);
  assertEquals(ENUMS["VK_ERROR_OUT_OF_DATE_KHR"], -1000001004);
  assertEquals(ENUMS["VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR"], 1000001000);
  assertEquals(RESULT_NAMES[-7], "VK_ERROR_EXTENSION_NOT_PRESENT");
  assertEquals(RESULT_NAMES[1000001003], "VK_SUBOPTIMAL_KHR");
  assertEquals(API_CONSTANTS["VK_MAX_EXTENSION_NAME_SIZE"], 256);
  assertEquals(API_CONSTANTS["VK_WHOLE_SIZE"], 0xffffffffffffffffn);
  assertEquals(API_CONSTANTS["VK_QUEUE_FAMILY_IGNORED"], 0xffffffff);
  const header = Deno.readTextFileSync(REGISTRY).match(/#define <name>VK_HEADER_VERSION<\/name> (\d+)/)![1];
  assertEquals(HEADER_VERSION, Number(header));
});

async function gen(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", "--allow-run", join(ROOT, "tools/gen.ts"), ...args],
    cwd: ROOT,
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test("gen --check passes on the committed output and fails listing a drifted file", async () => {
  const clean = await gen("--check", "--registry", REGISTRY);
  assertEquals(clean.code, 0, clean.stderr);
  assertStringIncludes(clean.stdout, `VK_HEADER_VERSION ${HEADER_VERSION}`);
  assertStringIncludes(clean.stdout, `commands ${COMMAND_COUNT}`);

  const dir = await Deno.makeTempDir({ prefix: "vkdeno_gen_" });
  try {
    for (const e of Deno.readDirSync(join(ROOT, "vk/generated"))) {
      await Deno.copyFile(join(ROOT, "vk/generated", e.name), join(dir, e.name));
    }
    await Deno.writeTextFile(join(dir, "handles.ts"), "// edited by hand\n", { append: true });
    const drifted = await gen("--check", "--registry", REGISTRY, "--out", dir);
    assertEquals(drifted.code, 1);
    assertStringIncludes(drifted.stderr, join(dir, "handles.ts"));
    assert(!drifted.stderr.includes("commands.ts"), drifted.stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("every command prototype of the installed headers is in the table with the same parameters", () => {
  const platformHeaders = [["vulkan_xlib.h", "/usr/include/X11/Xlib.h"], [
    "vulkan_xcb.h",
    "/usr/include/xcb/xcb.h",
  ]]
    .filter(([, needs]) => {
      try {
        return Deno.statSync(needs!).isFile;
      } catch {
        return false;
      }
    }).map(([h]) => h!);
  let checked = 0;
  for (const file of ["vulkan_core.h", ...platformHeaders]) {
    const text = Deno.readTextFileSync(`/usr/include/vulkan/${file}`)
      .replace(/#ifdef VK_ENABLE_BETA_EXTENSIONS[\s\S]*?#endif/g, "");
    for (const m of text.matchAll(/VKAPI_ATTR [\w\s*]+? VKAPI_CALL (vk\w+)\(([\s\S]*?)\);/g)) {
      const name = m[1]!;
      const info = command(name);
      const params = m[2]!.trim() === "void" ? [] : m[2]!.split(",").map((p) => p.trim());
      assertEquals(info.params.map((p) => p.name), params.map((p) => p.match(/(\w+)(\[\d+\])?$/)![1]), name);
      params.forEach((p, i) => {
        if (p.includes("*") || p.includes("[")) {
          assertEquals(info.ffi.parameters[i], "pointer", `${name}: ${p}`);
        }
      });
      checked++;
    }
  }
  assert(checked > 500, `only ${checked} prototypes checked`);
  console.log(`command prototypes checked against the installed headers: ${checked}`);
});
