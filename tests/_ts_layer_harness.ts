/**
 * Test helpers for TS layers: the reference loader (`libvulkan.so.1`) as a command object whose every
 * call may re-enter JavaScript (`callback: true`), and a tiny C shim library per TS layer so the
 * reference loader can load a {@linkcode NativeLayerBridge} from a manifest like any C layer, placing it
 * anywhere among native layers (here: below the Khronos validation layer).
 *
 * @module
 */
import { COMMAND_INDEX, COMMANDS } from "../ffi/generated/commands.ts";
import type { CommandInfo } from "../ffi/generated/types.ts";
import type { NativeLayerBridge } from "../layers/native.ts";

// deno-lint-ignore no-explicit-any
type Fn = (...args: any[]) => any;

const SHIM_C = `
#include <stddef.h>
typedef void (*PFN_vkVoidFunction)(void);
typedef PFN_vkVoidFunction (*PFN_gpa)(void *, const char *);
static PFN_gpa next_gipa, next_gdpa;
__attribute__((visibility("default"))) void tslayer_set(PFN_gpa gipa, PFN_gpa gdpa) { next_gipa = gipa; next_gdpa = gdpa; }
__attribute__((visibility("default"))) PFN_vkVoidFunction vkGetInstanceProcAddr(void *instance, const char *name) {
  return next_gipa ? next_gipa(instance, name) : NULL;
}
__attribute__((visibility("default"))) PFN_vkVoidFunction vkGetDeviceProcAddr(void *device, const char *name) {
  return next_gdpa ? next_gdpa(device, name) : NULL;
}
`;

/**
 * Builds a C shim for `layerName` in `dir`, writes its manifest there, and points the shim at the
 * bridge's entry points. The returned library must stay open while the loader may call the layer.
 */
export function installShim(dir: string, layerName: string, bridge: NativeLayerBridge): Deno.DynamicLibrary<{
  tslayer_set: { parameters: ["pointer", "pointer"]; result: "void" };
}> {
  const source = `${dir}/${layerName}.c`;
  const library = `${dir}/lib${layerName}.so`;
  Deno.writeTextFileSync(source, SHIM_C);
  const cc = new Deno.Command("cc", { args: ["-shared", "-fPIC", "-O1", "-o", library, source] })
    .outputSync();
  if (!cc.success) throw new Error(`Cannot build the TS layer shim: ${new TextDecoder().decode(cc.stderr)}`);
  Deno.writeTextFileSync(
    `${dir}/${layerName}.json`,
    JSON.stringify({
      file_format_version: "1.1.2",
      layer: {
        name: layerName,
        type: "GLOBAL",
        library_path: library,
        api_version: "1.3.0",
        implementation_version: "1",
        description: "TS layer (test shim)",
      },
    }),
  );
  const lib = Deno.dlopen(library, { tslayer_set: { parameters: ["pointer", "pointer"], result: "void" } });
  lib.symbols.tslayer_set(bridge.getInstanceProcAddr, bridge.getDeviceProcAddr);
  return lib;
}

function def(info: CommandInfo): Deno.ForeignFunction {
  return { parameters: info.ffi.parameters, result: info.ffi.result, callback: true };
}

/** libvulkan's commands, every one allowed to call back into JavaScript, plus `deviceTable(device)`. */
export function openReentrantLibvulkan(): Record<string, Fn> & Disposable & {
  deviceTable(d: unknown): object;
} {
  const wanted = [
    ...new Set(
      COMMANDS.filter((c) => c.level !== "device" || c.providers.includes("VK_VERSION_1_0")).map((c) =>
        c.name
      ),
    ),
  ];
  const defs: Record<string, Deno.ForeignFunction & { optional: true }> = {};
  for (const name of wanted) defs[name] = { ...def(COMMANDS[COMMAND_INDEX[name]!]!), optional: true };
  const lib = Deno.dlopen("libvulkan.so.1", defs);
  const symbols = lib.symbols as Record<string, Fn | null>;
  const gdpa = symbols.vkGetDeviceProcAddr!;
  const commands: Record<string, unknown> = {};
  for (const name of wanted) if (symbols[name]) commands[name] = symbols[name];
  const names: Uint8Array[] = [];
  const cname = (s: string) => {
    const bytes = new Uint8Array(new ArrayBuffer(s.length + 1));
    new TextEncoder().encodeInto(s, bytes);
    names.push(bytes);
    return Deno.UnsafePointer.of(bytes);
  };
  commands.deviceTable = (device: Deno.PointerValue) => {
    const table: Record<string, Fn> = {};
    for (const info of COMMANDS) {
      if (info.level !== "device") continue;
      const p = gdpa(device, cname(info.name)) as Deno.PointerValue;
      if (p === null) continue;
      const fn = new Deno.UnsafeFnPointer(p as Deno.PointerObject<never>, def(info));
      table[info.name] = fn.call.bind(fn) as Fn;
    }
    return table;
  };
  commands[Symbol.dispose as unknown as string] = () => lib.close();
  return commands as Record<string, Fn> & Disposable & { deviceTable(d: unknown): object };
}

/** Environment for the reference loader: lavapipe only, no implicit layers, layers from `dir` too. */
export function referenceLoaderEnv(dir: string): Record<string, string> {
  return {
    VK_DRIVER_FILES: "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json",
    VK_LOADER_LAYERS_DISABLE: "~implicit~",
    VK_ADD_LAYER_PATH: dir,
  };
}

/** Sets `vars` in the process environment (the reference loader reads it) and returns an undo. */
export function setEnv(vars: Record<string, string>): () => void {
  const old = Object.fromEntries(Object.keys(vars).map((k) => [k, Deno.env.get(k)]));
  for (const [k, v] of Object.entries(vars)) Deno.env.set(k, v);
  return () => {
    for (const [k, v] of Object.entries(old)) v === undefined ? Deno.env.delete(k) : Deno.env.set(k, v);
  };
}
