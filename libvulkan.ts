/**
 * The reference loader, `libvulkan.so.1`, behind the same command-object shape as vkdeno's, so tests,
 * benchmarks and examples run the same code on both loaders.
 *
 * @module
 */
import { COMMAND_INDEX, COMMANDS } from "./vk/generated/commands.ts";
import type { DeviceTable, VulkanCommands } from "./vulkan.ts";
import type { VulkanCommand } from "./chain/stubs.ts";
import { commandDef } from "./vk/command_ffi.ts";
import { platformRules } from "./discovery/platforms.ts";

/** The command object: every Vulkan command by name (as vkdeno's), plus device tables and disposal. */
export type LibvulkanCommands = VulkanCommands & {
  /** The library path given to `Deno.dlopen`. */
  readonly libraryPath: string;
  /** Names libvulkan exports (declared for fast calls). */
  readonly exported: ReadonlySet<string>;
  /**
   * The device-level commands of `device`, taken from `vkGetDeviceProcAddr` (bypassing libvulkan's
   * trampolines) for commands libvulkan does not export, and from its exports otherwise (the exported
   * trampoline is a fast call; an `UnsafeFnPointer` is ~150x slower). Commands the device does not
   * provide are absent.
   */
  deviceTable(device: Deno.PointerValue): DeviceTable;
  /** Closes libvulkan: every Vulkan object must be destroyed first. */
  [Symbol.dispose](): void;
};

/** Options of {@linkcode openLibvulkan}. */
export interface OpenLibvulkanOptions {
  /**
   * Library to open (default the system's loader found by the dynamic linker: `libvulkan.so.1`,
   * `libvulkan.1.dylib` on macOS, `vulkan-1.dll` on Windows).
   */
  path?: string;
}

type SymbolDefs = Record<string, Deno.ForeignFunction & { optional: true }>;

/**
 * Opens `libvulkan.so.1` (the Khronos loader, when installed) and returns its commands in vkdeno's
 * command-object shape, for comparing vkdeno with the reference in tests, benchmarks and examples.
 *
 * @example Instance version through the reference loader
 * ```ts ignore
 * import { openLibvulkan } from "@vkdeno/loader";
 * using vk = openLibvulkan();
 * const version = new Uint32Array(new ArrayBuffer(4));
 * vk.vkEnumerateInstanceVersion(Deno.UnsafePointer.of(version));
 * console.log(version[0]! >>> 22); // 1
 * ```
 * @throws {Error} If the library cannot be opened.
 */
export function openLibvulkan(options: OpenLibvulkanOptions = {}): LibvulkanCommands {
  const libraryPath = options.path ?? platformRules().loaderLibrary;
  const defs: SymbolDefs = {};
  for (const [name, index] of Object.entries(COMMAND_INDEX)) {
    defs[name] = { ...commandDef(COMMANDS[index]!), optional: true };
  }
  let library: Deno.DynamicLibrary<SymbolDefs>;
  try {
    library = Deno.dlopen(libraryPath, defs);
  } catch (cause) {
    throw new Error(`Cannot load the reference loader "${libraryPath}"`, { cause });
  }
  const symbols = library.symbols as Record<string, VulkanCommand | null>;
  const gipa = symbols.vkGetInstanceProcAddr;
  const gdpa = symbols.vkGetDeviceProcAddr;
  if (!gipa || !gdpa) {
    library.close();
    throw new Error(`Cannot use "${libraryPath}" as a Vulkan loader: it exports no vkGetInstanceProcAddr`);
  }
  const exported = new Set(Object.keys(defs).filter((name) => symbols[name] !== null));
  // Instance-level pointers from libvulkan are its own trampolines, valid for every instance, so any live
  // instance can resolve them; the latest one is remembered for that.
  let lastInstance: Deno.PointerValue = null;
  const names = new Map<string, Uint8Array<ArrayBuffer>>();
  const cname = (name: string) => {
    let bytes = names.get(name);
    if (!bytes) {
      // An explicit ArrayBuffer lives off the V8 heap: the address handed to C cannot move.
      bytes = new Uint8Array(new ArrayBuffer(name.length + 1));
      new TextEncoder().encodeInto(name, bytes);
      names.set(name, bytes);
    }
    return Deno.UnsafePointer.of(bytes);
  };
  const commands: Record<string, unknown> = {};
  for (const [name, index] of Object.entries(COMMAND_INDEX)) {
    const info = COMMANDS[index]!;
    const symbol = symbols[name];
    if (symbol) {
      commands[name] = symbol;
      continue;
    }
    let resolved: Deno.UnsafeFnPointer<Deno.ForeignFunction> | undefined;
    commands[name] = (...args: unknown[]) => {
      if (!resolved) {
        const pointer = gipa(lastInstance, cname(name)) as Deno.PointerValue;
        if (pointer === null) {
          throw new TypeError(`Cannot call "${name}": "${libraryPath}" returned no pointer for it`);
        }
        resolved = new Deno.UnsafeFnPointer(
          pointer as Deno.PointerObject<Deno.ForeignFunction>,
          commandDef(info),
        );
      }
      return (resolved.call as VulkanCommand)(...args);
    };
  }
  const createInstance = symbols.vkCreateInstance!;
  commands.vkCreateInstance = (pCreateInfo: unknown, pAllocator: unknown, pInstance: Deno.PointerValue) => {
    const result = createInstance(pCreateInfo, pAllocator, pInstance) as number;
    if (result >= 0 && pInstance !== null) lastInstance = new Deno.UnsafePointerView(pInstance).getPointer();
    return result;
  };
  const destroyInstance = symbols.vkDestroyInstance!;
  commands.vkDestroyInstance = (instance: Deno.PointerValue, pAllocator: unknown) => {
    destroyInstance(instance, pAllocator);
    if (Deno.UnsafePointer.equals(instance, lastInstance)) lastInstance = null;
  };
  commands.deviceTable = (device: Deno.PointerValue): DeviceTable => {
    const table: Record<string, VulkanCommand> = {};
    for (const [name, index] of Object.entries(COMMAND_INDEX)) {
      const info = COMMANDS[index]!;
      if (info.level !== "device") continue;
      const pointer = gdpa(device, cname(name)) as Deno.PointerValue;
      if (pointer === null) continue;
      const symbol = symbols[name];
      if (symbol) {
        table[name] = symbol;
      } else {
        const fn = new Deno.UnsafeFnPointer(
          pointer as Deno.PointerObject<Deno.ForeignFunction>,
          commandDef(info),
        );
        table[name] = fn.call.bind(fn) as VulkanCommand;
      }
    }
    return table;
  };
  Object.defineProperty(commands, "libraryPath", { value: libraryPath });
  Object.defineProperty(commands, "exported", { value: exported });
  commands[Symbol.dispose as unknown as string] = () => library.close();
  return commands as unknown as LibvulkanCommands;
}
