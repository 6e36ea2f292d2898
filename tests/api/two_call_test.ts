/**
 * Two-call enumerations of the idiomatic API when the driver's list changes between the count call and the
 * fill call: a list that grew (`VK_INCOMPLETE`) is asked for again until it is complete, a list that shrank
 * returns only the entries filled, and one that never stops growing throws `VK_INCOMPLETE` as a `VkError`.
 */

import { deepStrictEqual as assertEquals, ok as assert, throws as assertThrows } from "node:assert/strict";
import { VK_INCOMPLETE, VK_SUCCESS, VkApi, type VkApi as Api, VkError, Vulkan } from "../../mod.ts";
import { MockDriver, mockEnvironment } from "../../testing/mod.ts";

const isolated = mockEnvironment();
globalThis.addEventListener("unload", () => isolated.remove());

/** sizeof(VkExtensionProperties): extensionName[256], specVersion. */
const EXTENSION_SIZE = 260;

/**
 * A mock whose device extension list is `lists[k]` at its k-th `vkEnumerateDeviceExtensionProperties` call
 * (the last list from then on), answered as a driver does: the count, or as many entries as fit.
 */
function changingList(lists: readonly (readonly string[])[]) {
  const mock = new MockDriver({ onProblem: () => {} });
  const vk = Vulkan.load({ drivers: [mock], env: isolated.env });
  const api = VkApi.of(vk);
  const instance = api.createInstance({});
  const [gpu] = api.enumeratePhysicalDevices(instance);
  const calls: { room: number | null; result: number }[] = [];
  mock.override("vkEnumerateDeviceExtensionProperties", ({ args: [, , pCount, pProps] }) => {
    const list = lists[Math.min(calls.length, lists.length - 1)]!;
    const count = new DataView(Deno.UnsafePointerView.getArrayBuffer(pCount as Deno.PointerObject, 4));
    if (pProps === null) {
      count.setUint32(0, list.length, true);
      calls.push({ room: null, result: VK_SUCCESS });
      return VK_SUCCESS;
    }
    const room = count.getUint32(0, true);
    const n = Math.min(room, list.length);
    const out = new Uint8Array(
      Deno.UnsafePointerView.getArrayBuffer(pProps as Deno.PointerObject, n * EXTENSION_SIZE),
    );
    list.slice(0, n).forEach((name, i) => {
      out.fill(0, i * EXTENSION_SIZE, (i + 1) * EXTENSION_SIZE);
      new TextEncoder().encodeInto(name, out.subarray(i * EXTENSION_SIZE, i * EXTENSION_SIZE + 255));
      new DataView(out.buffer).setUint32(i * EXTENSION_SIZE + 256, 1, true);
    });
    count.setUint32(0, n, true);
    const result = n < list.length ? VK_INCOMPLETE : VK_SUCCESS;
    calls.push({ room, result });
    return result;
  });
  const names = (a: Api) => a.enumerateDeviceExtensionProperties(gpu!, null).map((e) => e.extensionName);
  return {
    names: () => names(api),
    calls,
    [Symbol.dispose]() {
      api.destroyInstance(instance);
      vk.dispose();
      mock.dispose();
    },
  };
}

Deno.test("a list that grew between the count call and the fill call is asked for again until complete", () => {
  using t = changingList([["VK_KHR_a", "VK_KHR_b"], ["VK_KHR_a", "VK_KHR_b", "VK_KHR_c"]]);
  assertEquals(t.names(), ["VK_KHR_a", "VK_KHR_b", "VK_KHR_c"]);
  // Counted 2, filled 2 of 3 (VK_INCOMPLETE), counted again, filled all 3.
  assertEquals(t.calls, [
    { room: null, result: VK_SUCCESS },
    { room: 2, result: VK_INCOMPLETE },
    { room: null, result: VK_SUCCESS },
    { room: 3, result: VK_SUCCESS },
  ]);
});

Deno.test("a list that shrank between the count call and the fill call returns only the entries filled", () => {
  using t = changingList([["VK_KHR_a", "VK_KHR_b", "VK_KHR_c"], ["VK_KHR_a"]]);
  assertEquals(t.names(), ["VK_KHR_a"]);
  assertEquals(t.calls, [{ room: null, result: VK_SUCCESS }, { room: 3, result: VK_SUCCESS }]);
});

Deno.test("a list that never stops growing ends in a VkError naming VK_INCOMPLETE", () => {
  using t = changingList(
    Array.from({ length: 64 }, (_, k) => Array.from({ length: k + 1 }, (_, i) => `VK_X_${i}`)),
  );
  assertThrows(() => t.names(), (e) => {
    assert(e instanceof VkError);
    assertEquals(e.result, "VK_INCOMPLETE");
    assert(e.message.includes("vkEnumerateDeviceExtensionProperties"), e.message);
    return true;
  });
  // Each round asked the count and filled what it said; every fill came back short.
  assert(t.calls.length >= 4 && t.calls.length % 2 === 0, String(t.calls.length));
  assert(
    t.calls.every((c, i) =>
      (i % 2 === 0) === (c.room === null) && (c.room === null || c.result === VK_INCOMPLETE)
    ),
  );
});
