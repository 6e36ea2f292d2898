/**
 * `VkScope` knows objects destroyed early (docs/behaviour.md V11): `scope.destroy(handle)` destroys one now
 * and the scope's end skips it; a second destroy through the scope throws instead of reaching the driver.
 * And `enumerate` refuses a struct its command does not fill (V07).
 */

import { deepStrictEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import { VkScope } from "../../api/scope.ts";
import { enumerate } from "../../api/enumerate.ts";
import { registerCommand } from "../../vk/handle_check_interface.ts";
import type { CommandSource } from "../../api/create.ts";
import type { VkDevice } from "../../vk/generated/vk_types.ts";

/** A command object whose vkCreateBuffer hands out 0x1000, 0x2000, ... and whose destroys are recorded. */
function fakeDriver() {
  const destroyed: bigint[] = [];
  let next = 0x1000n;
  const vk = {
    vkCreateBuffer: (_d: unknown, _i: unknown, _a: unknown, p: Deno.PointerObject) => {
      new BigUint64Array(Deno.UnsafePointerView.getArrayBuffer(p, 8))[0] = next;
      next += 0x1000n;
      return 0;
    },
    vkDestroyBuffer: (_d: unknown, b: Deno.PointerValue) => {
      destroyed.push(BigInt(Deno.UnsafePointer.value(b)));
    },
  } as unknown as CommandSource;
  return { vk, destroyed };
}

const device = Deno.UnsafePointer.create(0x42n) as VkDevice;

Deno.test("scope.destroy destroys one object now, the scope's end skips it, a second destroy throws", () => {
  const { vk, destroyed } = fakeDriver();
  const scope = new VkScope(vk);
  const a = scope.create("vkCreateBuffer", [device, null, null]);
  const b = scope.create("vkCreateBuffer", [device, null, null]);
  scope.destroy(a);
  assertEquals(destroyed, [0x1000n]);
  assertThrows(() => scope.destroy(a), {
    name: "TypeError",
    message: "vkDestroyBuffer: buffer 0x1000 was destroyed already (VkScope.destroy)",
  });
  assertThrows(() => scope.destroy(Deno.UnsafePointer.create(0x9000n)!), {
    name: "TypeError",
    message: /^VkScope.destroy: 0x9000 is not owned by this scope/,
  });
  scope.dispose();
  assertEquals(destroyed, [0x1000n, 0x2000n]);
  void b;
});

Deno.test("enumerate refuses a struct its command does not fill, before calling it", () => {
  let calls = 0;
  const layers = (_pCount: Deno.PointerObject, _p: Deno.PointerValue) => {
    calls++;
    return 0;
  };
  registerCommand(layers, "vkEnumerateInstanceLayerProperties", undefined);
  assertThrows(() => enumerate(layers as never, [], { struct: "VkExtensionProperties" }), {
    name: "TypeError",
    message:
      "vkEnumerateInstanceLayerProperties: it fills VkLayerProperties structs, not VkExtensionProperties",
  });
  assertThrows(() => enumerate(layers as never, []), {
    name: "TypeError",
    message: /^vkEnumerateInstanceLayerProperties: it fills VkLayerProperties structs: pass/,
  });
  assertEquals(calls, 0);
  assertEquals(enumerate(layers as never, [], { struct: "VkLayerProperties" }), []);
});
