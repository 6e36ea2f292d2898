/**
 * The handle checks of one loader (docs/behaviour.md V07, V08), without a driver: null where vk.xml does not
 * allow it, a value that is no pointer, an unknown pointer, an optional parameter left null; and checked mode
 * tracking what a command made and destroyed, from the generated parameters alone.
 */

import { deepStrictEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import { HandleChecker } from "../../chain/handle_check.ts";
import { HandleMaps } from "../../chain/objects.ts";
import { handleKey } from "../../vk/handle_key.ts";

const p = (a: bigint) => Deno.UnsafePointer.create(a);

Deno.test("a null, non-pointer or unknown dispatchable handle throws naming command, parameter and fault", () => {
  const checks = new HandleChecker(new HandleMaps(), false);
  assertThrows(() => checks.checkArgs("vkGetPhysicalDeviceProperties", [null, null]), {
    name: "TypeError",
    message: "vkGetPhysicalDeviceProperties: physicalDevice is null",
  });
  assertThrows(() => checks.checkArgs("vkDeviceWaitIdle", [5]), {
    message: "vkDeviceWaitIdle: device is not a handle (a number)",
  });
  assertThrows(() => checks.checkArgs("vkDeviceWaitIdle", [p(0x1234n)]), {
    message: "vkDeviceWaitIdle: device 0x1234 is not a VkDevice of this loader",
  });
  checks.checkArgs("vkDestroyDevice", [null, null]); // optional: VK_NULL_HANDLE is allowed
  checks.checkArgs("vkNoSuchCommand", [null]); // unknown commands are not checked
  // Non-dispatchable handles are checked in checked mode only.
  assertThrows(() => checks.checkArgs("vkDestroyBuffer", [p(0x1234n), p(0x99n), null]), /device 0x1234/);
  checks.close();
});

Deno.test("checked mode knows what a wrapped command made and destroyed, and refuses a destroyed handle", () => {
  const handleMaps = new HandleMaps();
  const checks = new HandleChecker(handleMaps, true);
  // A device the handle maps know, without a driver: only its address and owner identity matter here.
  const device = { address: 0x10n, physicalDevice: {} };
  handleMaps.devices.set(handleKey(0x10n), device as never);
  const made: bigint[] = [];
  const createBuffer = checks.wrap("vkCreateBuffer", (_d, _i, _a, out) => {
    new BigUint64Array(Deno.UnsafePointerView.getArrayBuffer(out as Deno.PointerObject, 8))[0] = 0x500n;
    made.push(0x500n);
    return 0;
  });
  const destroyBuffer = checks.wrap("vkDestroyBuffer", () => undefined);
  const slot = new BigUint64Array(1);
  assertThrows(() => destroyBuffer(p(0x10n), p(0x500n), null), {
    message: "vkDestroyBuffer: buffer 0x500 is not a live VkBuffer of this loader",
  });
  createBuffer(p(0x10n), null, null, Deno.UnsafePointer.of(slot));
  destroyBuffer(p(0x10n), p(0x500n), null);
  assertThrows(() => destroyBuffer(p(0x10n), p(0x500n), null), {
    message: "vkDestroyBuffer: buffer 0x500 was destroyed (vkDestroyBuffer)",
  });
  destroyBuffer(p(0x10n), null, null); // VK_NULL_HANDLE: allowed
  assertEquals(made, [0x500n]);
  checks.close();
});
