/**
 * Reading the Windows registry's values: the `RegistryReader` interface discovery reads through, a reader
 * over a plain tree (tests, tools, any system) and the live reader through advapi32 (Windows only).
 *
 * @module
 */

import { HOST } from "./host.ts";

/** The registry hives discovery reads. */
export type RegistryHive = "HKEY_LOCAL_MACHINE" | "HKEY_CURRENT_USER";

/** `REG_SZ`: a UTF-16 string. */
export const REG_SZ = 1;
/** `REG_DWORD`: a little-endian 32-bit number. */
export const REG_DWORD = 4;

/**
 * One value of a registry key: its name, type and raw data, as `RegEnumValueW` gives them.
 *
 * @example Usage
 * ```ts
 * import { REG_DWORD } from "./registry.ts";
 * import { type RegistryValue } from "@vkdeno/loader/discovery";
 * const value: RegistryValue = { name: "C:\\vk\\icd.json", type: REG_DWORD, data: new Uint8Array(4) };
 * ```
 */
export interface RegistryValue {
  /** The value's name (for the Khronos keys, a manifest's path). */
  readonly name: string;
  /** `REG_DWORD`, `REG_SZ`, ... */
  readonly type: number;
  /** The data's bytes. */
  readonly data: Uint8Array;
}

/**
 * Reads the values of one registry key.
 *
 * @example Usage
 * ```ts
 * import type { RegistryReader } from "@vkdeno/loader/discovery";
 * const none: RegistryReader = { values: () => undefined };
 * ```
 */
export interface RegistryReader {
  /** The key's values in the registry's enumeration order; `undefined` when the key cannot be opened. */
  values(hive: RegistryHive, key: string): readonly RegistryValue[] | undefined;
}

/**
 * What a registry tree holds for one value: a number is a `REG_DWORD`, a string a `REG_SZ`, or any type and
 * bytes.
 */
export type RegistryTreeValue = number | string | { readonly type: number; readonly data: Uint8Array };

/**
 * A registry as plain data: `"HIVE\\key\\path"` to the key's values in order.
 *
 * @example Usage
 * ```ts
 * import type { RegistryTree } from "@vkdeno/loader/discovery";
 * const tree: RegistryTree = { "HKEY_LOCAL_MACHINE\\SOFTWARE\\Khronos\\Vulkan\\Drivers": [["C:\\vk\\a.json", 0]] };
 * ```
 */
export type RegistryTree = Readonly<Record<string, readonly (readonly [string, RegistryTreeValue])[]>>;

/**
 * A reader over a registry tree. Key names match case-insensitively, as the registry's do.
 *
 * @example Usage
 * ```ts
 * import { registryFromTree } from "@vkdeno/loader/discovery";
 * const reader = registryFromTree({ "HKEY_CURRENT_USER\\SOFTWARE\\X": [["a", 0]] });
 * console.log(reader.values("HKEY_CURRENT_USER", "software\\x")?.[0]?.name); // "a"
 * ```
 */
export function registryFromTree(tree: RegistryTree): RegistryReader {
  const keys = new Map(Object.entries(tree).map(([key, values]) => [key.toLowerCase(), values]));
  return {
    values(hive, key) {
      return keys.get(`${hive}\\${key}`.toLowerCase())?.map(([name, value]) => ({
        name,
        ...treeData(value),
      }));
    },
  };
}

function treeData(value: RegistryTreeValue): { type: number; data: Uint8Array } {
  if (typeof value === "number") {
    const data = new Uint8Array(4);
    new DataView(data.buffer).setUint32(0, value >>> 0, true);
    return { type: REG_DWORD, data };
  }
  if (typeof value === "string") {
    const data = new Uint8Array((value.length + 1) * 2);
    const view = new DataView(data.buffer);
    for (let i = 0; i < value.length; i++) view.setUint16(i * 2, value.charCodeAt(i), true);
    return { type: REG_SZ, data };
  }
  return value;
}

const ADVAPI32 = {
  RegOpenKeyExW: { parameters: ["usize", "buffer", "u32", "u32", "buffer"], result: "i32" },
  RegEnumValueW: {
    parameters: ["usize", "u32", "buffer", "buffer", "pointer", "buffer", "buffer", "buffer"],
    result: "i32",
  },
  RegCloseKey: { parameters: ["usize"], result: "i32" },
} as const satisfies Deno.ForeignLibraryInterface;

/** The predefined keys, as the 64-bit headers sign-extend them. */
const HIVE_HANDLES: Record<RegistryHive, bigint> = {
  HKEY_LOCAL_MACHINE: 0xffffffff80000002n,
  HKEY_CURRENT_USER: 0xffffffff80000001n,
};
const KEY_QUERY_VALUE = 0x0001;
const ERROR_SUCCESS = 0;
const ERROR_MORE_DATA = 234;
const MAX_VALUE_NAME = 16384; // characters, the registry's limit

let advapi32: Deno.DynamicLibrary<typeof ADVAPI32> | undefined;

/**
 * The live registry through advapi32 (`RegOpenKeyExW`, `RegEnumValueW`), opened on first use; `undefined`
 * on other systems or without `--allow-ffi`.
 *
 * @example Usage
 * ```ts
 * import { windowsRegistry } from "./registry.ts";
 * const drivers = windowsRegistry()?.values("HKEY_LOCAL_MACHINE", "SOFTWARE\\Khronos\\Vulkan\\Drivers");
 * console.log(drivers?.map((v) => v.name) ?? "not Windows");
 * ```
 */
export function windowsRegistry(): RegistryReader | undefined {
  if (HOST.os !== "windows") return undefined;
  if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") return undefined;
  return { values: readKey };
}

function readKey(hive: RegistryHive, key: string): RegistryValue[] | undefined {
  advapi32 ??= Deno.dlopen("advapi32.dll", ADVAPI32);
  const { RegOpenKeyExW, RegEnumValueW, RegCloseKey } = advapi32.symbols;
  const handleOut = new BigUint64Array(1);
  if (RegOpenKeyExW(HIVE_HANDLES[hive], utf16z(key), 0, KEY_QUERY_VALUE, handleOut) !== ERROR_SUCCESS) {
    return undefined;
  }
  const handle = handleOut[0]!;
  try {
    const out: RegistryValue[] = [];
    const name = new Uint16Array(MAX_VALUE_NAME);
    const nameLength = new Uint32Array(1);
    const type = new Uint32Array(1);
    let data = new Uint8Array(1024);
    const dataLength = new Uint32Array(1);
    for (let index = 0;;) {
      nameLength[0] = MAX_VALUE_NAME;
      dataLength[0] = data.byteLength;
      const result = RegEnumValueW(handle, index, name, nameLength, null, type, data, dataLength);
      if (result === ERROR_MORE_DATA && dataLength[0]! > data.byteLength) {
        data = new Uint8Array(dataLength[0]!);
        continue; // the same index, with room for its data
      }
      if (result !== ERROR_SUCCESS) break; // ERROR_NO_MORE_ITEMS, or a key that went away
      out.push({
        name: String.fromCharCode(...name.subarray(0, nameLength[0]!)),
        type: type[0]!,
        data: data.slice(0, dataLength[0]!),
      });
      index++;
    }
    return out;
  } finally {
    RegCloseKey(handle);
  }
}

function utf16z(text: string): Uint16Array {
  const out = new Uint16Array(text.length + 1);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}
