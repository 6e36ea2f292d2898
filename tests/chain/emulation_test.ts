/**
 * The loader's emulation of `VK_KHR_get_physical_device_properties2` queries for drivers that lack them
 * (LDP_LOADER_8): each `*2` query answered through its 1.0 original, into the embedded 1.0 struct, the
 * caller's `sType`/`pNext` left alone. The mock driver always has the `*2` entry points, so these tests
 * drive the emulation bodies with a stand-in driver whose originals are TypeScript functions.
 */

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { COMMAND_INDEX } from "../../vk/generated/commands.ts";
import { Arena, type Pointer, readU32, writeU32 } from "../../ffi/memory.ts";
import { writeStruct } from "../../api/structs.ts";
import { emulatedSlots, emulation } from "../../chain/emulation.ts";
import { HandleMaps, type TermPhysicalDevice } from "../../chain/objects.ts";
import { addr } from "../support/chain.ts";
import { handleKey } from "../../vk/handle_key.ts";
import type {
  VkFormat,
  VkImageCreateFlags,
  VkImageTiling,
  VkImageType,
  VkImageUsageFlags,
} from "../../mod.ts";

type Fn = (...args: unknown[]) => unknown;

/** The loader objects the emulation bodies look the driver up in. */
const handleMaps = new HandleMaps();

function withDriver(originals: Record<string, Fn>, body: (pd: Pointer, arena: Arena) => void): void {
  using arena = new Arena();
  const pd = arena.pointer(arena.alloc(8));
  const stand = { driverInstance: { fn: (name: string) => originals[name] ?? null } };
  handleMaps.driverPhysicalDevices.set(handleKey(pd), stand as unknown as TermPhysicalDevice);
  try {
    body(pd, arena);
  } finally {
    handleMaps.driverPhysicalDevices.delete(handleKey(pd));
  }
}

function run(name: string, ...args: unknown[]): unknown {
  return emulation(COMMAND_INDEX[name]!, handleMaps)!(...args);
}

Deno.test("every get_physical_device_properties2 query and the tool query can be emulated", () => {
  const names = [
    "vkGetPhysicalDeviceFeatures2KHR",
    "vkGetPhysicalDeviceProperties2KHR",
    "vkGetPhysicalDeviceFormatProperties2KHR",
    "vkGetPhysicalDeviceImageFormatProperties2KHR",
    "vkGetPhysicalDeviceQueueFamilyProperties2KHR",
    "vkGetPhysicalDeviceMemoryProperties2KHR",
    "vkGetPhysicalDeviceSparseImageFormatProperties2KHR",
    "vkGetPhysicalDeviceToolPropertiesEXT",
  ];
  assertEquals(names.filter((n) => !emulatedSlots().has(COMMAND_INDEX[n]!)), []);
  assertEquals(emulation(COMMAND_INDEX.vkCmdDraw!, handleMaps), undefined);
});

Deno.test("single-struct queries land in the embedded 1.0 struct, sType and pNext untouched", () => {
  const seen: string[] = [];
  withDriver({
    vkGetPhysicalDeviceProperties: (pd, p) => {
      seen.push(`props ${addr(pd as Pointer) !== 0n}`);
      writeU32(p as Pointer, 0, 0x00403000);
    },
    vkGetPhysicalDeviceFeatures: (_pd, p) => writeU32(p as Pointer, 0, 1),
    vkGetPhysicalDeviceMemoryProperties: (_pd, p) => writeU32(p as Pointer, 0, 3),
    vkGetPhysicalDeviceFormatProperties: (_pd, format, p) => {
      seen.push(`format ${format}`);
      writeU32(p as Pointer, 0, 0xff);
    },
  }, (pd, arena) => {
    const next = arena.pointer(arena.alloc(16));
    const props = writeStruct(arena, "VkPhysicalDeviceProperties2", { pNext: next });
    run("vkGetPhysicalDeviceProperties2", pd, props);
    assertEquals([
      readU32(props, 0),
      addr(new Deno.UnsafePointerView(props!).getPointer(8)),
      readU32(props, 16),
    ], [
      1000059001,
      addr(next),
      0x00403000,
    ]);
    const features = writeStruct(arena, "VkPhysicalDeviceFeatures2", {});
    run("vkGetPhysicalDeviceFeatures2", pd, features);
    assertEquals(readU32(features, 16), 1);
    const memory = writeStruct(arena, "VkPhysicalDeviceMemoryProperties2", {});
    run("vkGetPhysicalDeviceMemoryProperties2", pd, memory);
    assertEquals(readU32(memory, 16), 3);
    const format = writeStruct(arena, "VkFormatProperties2", {});
    run("vkGetPhysicalDeviceFormatProperties2", pd, 37, format);
    assertEquals(readU32(format, 16), 0xff);
  });
  assertEquals(seen, ["props true", "format 37"]);
});

Deno.test("image format queries unpack VkPhysicalDeviceImageFormatInfo2 into the 1.0 parameters", () => {
  let args: unknown[] = [];
  withDriver({
    vkGetPhysicalDeviceImageFormatProperties: (...a) => {
      args = a.slice(1, 6);
      writeU32(a[6] as Pointer, 0, 64);
      return -11;
    },
  }, (pd, arena) => {
    const info = writeStruct(arena, "VkPhysicalDeviceImageFormatInfo2", {
      format: 44 as VkFormat,
      type: 1 as VkImageType,
      tiling: 0 as VkImageTiling,
      usage: 0x4 as VkImageUsageFlags,
      flags: 0x8 as VkImageCreateFlags,
    });
    const out = writeStruct(arena, "VkImageFormatProperties2", {});
    assertEquals(run("vkGetPhysicalDeviceImageFormatProperties2", pd, info, out), -11);
    assertEquals(args, [44, 1, 0, 0x4, 0x8]);
    assertEquals(readU32(out, 16), 64);
  });
});

Deno.test("array queries keep the two-call idiom and copy into the *2 stride", () => {
  withDriver({
    vkGetPhysicalDeviceQueueFamilyProperties: (_pd, pCount, pOut) => {
      if (pOut === null) return writeU32(pCount as Pointer, 0, 3);
      const n = Math.min(readU32(pCount as Pointer, 0), 3);
      for (let i = 0; i < n; i++) writeU32(pOut as Pointer, i * 24, 0x10 + i);
      writeU32(pCount as Pointer, 0, n);
    },
  }, (pd, arena) => {
    const count = arena.pointer(arena.alloc(4));
    run("vkGetPhysicalDeviceQueueFamilyProperties2", pd, count, null);
    assertEquals(readU32(count, 0), 3);
    writeU32(count, 0, 2);
    const out = arena.pointer(arena.alloc(40 * 3));
    for (let i = 0; i < 3; i++) writeU32(out, i * 40, 1000059005);
    run("vkGetPhysicalDeviceQueueFamilyProperties2", pd, count, out);
    assertEquals(readU32(count, 0), 2);
    assertEquals([0, 1, 2].map((i) => [readU32(out, i * 40), readU32(out, i * 40 + 16)]), [
      [1000059005, 0x10],
      [1000059005, 0x11],
      [1000059005, 0],
    ]);
  });
});
