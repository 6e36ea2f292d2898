/**
 * What api_dump shows for a call's parameters (layers/decode.ts): strings and string arrays, nested and
 * pointed-to structs, arrays sized by `len` (including `pInfo->member`), enums by name, flags in hex,
 * 64-bit values as decimal strings, outputs only after the call.
 */
import assert from "node:assert/strict";
import { COMMAND_INDEX, COMMANDS } from "../../vk/generated/commands.ts";
import { Arena, writePointer } from "../../ffi/memory.ts";
import { writeStruct } from "../../api/structs.ts";
import { decodeCall, decodeResult } from "../../layers/decode.ts";
import { asHandle } from "../../vk/handle.ts";

const info = (name: string) => COMMANDS[COMMAND_INDEX[name]!]!;

Deno.test("decode: an instance create info with its application info and name lists", () => {
  using arena = new Arena();
  const create = writeStruct(arena, "VkInstanceCreateInfo", {
    pApplicationInfo: { pApplicationName: "demo", apiVersion: 4206592 },
    ppEnabledLayerNames: ["VK_LAYER_KHRONOS_validation"],
    ppEnabledExtensionNames: ["VK_KHR_surface", "VK_KHR_xcb_surface"],
  });
  const out = arena.pointer(arena.alloc(8));
  const before = decodeCall(info("vkCreateInstance"), [create, null, out], { after: false });
  const ci = before.pCreateInfo as Record<string, unknown>;
  assert.equal(ci.sType, "VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO");
  assert.equal(ci.flags, "0x0");
  assert.deepEqual(ci.ppEnabledLayerNames, ["VK_LAYER_KHRONOS_validation"]);
  assert.deepEqual(ci.ppEnabledExtensionNames, ["VK_KHR_surface", "VK_KHR_xcb_surface"]);
  assert.equal((ci.pApplicationInfo as Record<string, unknown>).pApplicationName, "demo");
  assert.equal(before.pAllocator, null);
  // Before the call the output is only an address; after it, the handle written there.
  assert.match(before.pInstance as string, /^0x[0-9a-f]+$/);
  writePointer(out, 0, Deno.UnsafePointer.create(0xabcn));
  assert.equal(decodeCall(info("vkCreateInstance"), [create, null, out]).pInstance, "0xabc");
});

Deno.test("decode: outputs counted by a member of an input struct, 64-bit values and enums", () => {
  using arena = new Arena();
  const allocate = writeStruct(arena, "VkCommandBufferAllocateInfo", {
    commandPool: asHandle("VkCommandPool", Deno.UnsafePointer.create(0x10n))!,
    commandBufferCount: 2,
  });
  const out = arena.pointer(arena.alloc(16));
  writePointer(out, 0, Deno.UnsafePointer.create(0x20n));
  writePointer(out, 8, Deno.UnsafePointer.create(0x30n));
  const decoded = decodeCall(info("vkAllocateCommandBuffers"), [null, allocate, out]);
  assert.deepEqual(decoded.pCommandBuffers, ["0x20", "0x30"]);
  assert.equal((decoded.pAllocateInfo as Record<string, unknown>).level, "VK_COMMAND_BUFFER_LEVEL_PRIMARY");
  const bind = decodeCall(info("vkBindBufferMemory"), [null, null, null, 1n << 40n]);
  assert.equal(bind.memoryOffset, "1099511627776");
  assert.equal(decodeResult("VkResult", 5), "VK_INCOMPLETE");
  assert.equal(decodeResult("void", undefined), null);
});

Deno.test("decode: long arrays are cut, with the rest counted", () => {
  using arena = new Arena();
  const handles = arena.pointerArray(
    Array.from({ length: 20 }, (_, i) => Deno.UnsafePointer.create(BigInt(i + 1))),
  );
  const decoded = decodeCall(info("vkFreeCommandBuffers"), [null, null, 20, handles], { maxArray: 4 });
  assert.deepEqual(decoded.pCommandBuffers, ["0x1", "0x2", "0x3", "0x4", "... 16 more"]);
});
