/**
 * What the top-of-chain host answers for TS layers the loader below does not know: layer and extension
 * enumeration, and create infos with the names the TS layers serve taken out.
 *
 * @module
 */
import { type Arena, readCString, readPointer } from "../ffi/memory.ts";
import { enumerate } from "../api/enumerate.ts";
import { readStructValue } from "../vk/struct_read.ts";
import { writeStruct } from "../vk/struct_write.ts";
import type { TsLayer, TsLayerExtension, VulkanCommand } from "./layer.ts";
import { writeTwoCall } from "../vk/two_call.ts";

const encoder = new TextEncoder();

/** `VkLayerProperties` as read or written. */
export interface LayerProperty {
  readonly layerName: string;
  readonly specVersion: number;
  readonly implementationVersion: number;
  readonly description: string;
}

/** The `VkLayerProperties` a TS layer shows. */
export function layerProperty(layer: TsLayer): LayerProperty {
  return {
    layerName: layer.name,
    specVersion: layer.apiVersion ?? ((1 << 22) | (4 << 12)),
    implementationVersion: layer.implementationVersion ?? 1,
    description: layer.description,
  };
}

function writeString(view: DataView, offset: number, text: string, size: number): void {
  const bytes = encoder.encode(text).subarray(0, size - 1);
  for (let i = 0; i < size; i++) view.setUint8(offset + i, i < bytes.length ? bytes[i]! : 0);
}

/** The two-call idiom's answer for items of `size` bytes, each written through a view of its own bytes. */
function fill<T>(
  pCount: Deno.PointerValue,
  pItems: Deno.PointerValue,
  items: readonly T[],
  size: number,
  write: (view: DataView, offset: number, item: T) => void,
): number {
  return writeTwoCall(pCount, pItems, items, (i, item) => {
    write(new DataView(Deno.UnsafePointerView.getArrayBuffer(pItems!, size, i * size)), 0, item);
  });
}

/** Writes `VkLayerProperties` for `layers` with the two-call idiom. */
export function fillLayers(
  pCount: Deno.PointerValue,
  pProps: Deno.PointerValue,
  layers: readonly LayerProperty[],
): number {
  return fill(pCount, pProps, layers, 520, (view, at, l) => {
    writeString(view, at, l.layerName, 256);
    view.setUint32(at + 256, l.specVersion, true);
    view.setUint32(at + 260, l.implementationVersion, true);
    writeString(view, at + 264, l.description, 256);
  });
}

/** Writes `VkExtensionProperties` for `extensions` with the two-call idiom. */
export function fillExtensions(
  pCount: Deno.PointerValue,
  pProps: Deno.PointerValue,
  extensions: readonly TsLayerExtension[],
): number {
  return fill(pCount, pProps, extensions, 260, (view, at, e) => {
    writeString(view, at, e.name, 256);
    view.setUint32(at + 256, e.specVersion, true);
  });
}

/** Every `VkLayerProperties` an enumeration command returns (its leading arguments in `args`). */
export function readLayers(command: VulkanCommand, args: readonly unknown[]): LayerProperty[] {
  return enumerate(command, [...args], { struct: "VkLayerProperties" }) as unknown as LayerProperty[];
}

/** Every `VkExtensionProperties` an enumeration command returns. */
export function readExtensions(command: VulkanCommand, args: readonly unknown[]): TsLayerExtension[] {
  return (enumerate(command, [...args], { struct: "VkExtensionProperties" }) as {
    extensionName: string;
    specVersion: number;
  }[])
    .map((e) => ({ name: e.extensionName, specVersion: e.specVersion }));
}

/** The names a `const char* const*` member of a create info lists. */
export function namesOf(info: Record<string, unknown>, count: string, list: string): string[] {
  const n = info[count] as number;
  const p = info[list] as Deno.PointerValue;
  const out: string[] = [];
  for (let i = 0; i < n && p !== null; i++) out.push(readCString(readPointer(p, i * 8)));
  return out;
}

/**
 * A copy of the `VkInstanceCreateInfo` / `VkDeviceCreateInfo` at `pCreateInfo` with other layer and
 * extension lists; everything else (pNext included) is shared with the original.
 */
export function withNames(
  arena: Arena,
  struct: "VkInstanceCreateInfo" | "VkDeviceCreateInfo",
  pCreateInfo: Deno.PointerObject,
  names: { layers: string[]; extensions: string[] },
): Deno.PointerObject {
  const info = readStructValue(struct, pCreateInfo);
  const copy: Record<string, unknown> = {
    ...info,
    ppEnabledLayerNames: names.layers,
    ppEnabledExtensionNames: names.extensions,
  };
  delete copy.sType;
  delete copy.enabledLayerCount;
  delete copy.enabledExtensionCount;
  return writeStruct(arena, struct, copy as Parameters<typeof writeStruct>[2]);
}
