/**
 * `VkDeviceGroupDeviceCreateInfo` in `vkCreateDevice`: each level of the chain gets the physical-device
 * handles of the level below (application -> terminator -> driver), in a copy of the create info; the
 * application's structs are never written.
 */

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { Arena, readPointer, readU32 } from "../../ffi/memory.ts";
import { writeStruct } from "../../api/structs.ts";
import { replaceGroupDevices } from "../../chain/device.ts";
import { MockEnvironment } from "../support/mock.ts";
import {
  addr,
  calls,
  createDevice,
  createInstance,
  fields,
  load,
  physicalDevices,
} from "../support/chain.ts";

Deno.test("the group struct is copied with mapped handles; the pNext chain is relinked; the original stays", () => {
  using arena = new Arena();
  const handles = [arena.pointer(arena.alloc(8)), arena.pointer(arena.alloc(8))];
  const features = writeStruct(arena, "VkPhysicalDeviceFeatures2", {});
  const group = writeStruct(arena, "VkDeviceGroupDeviceCreateInfo", {
    pNext: features,
    physicalDeviceCount: 2,
    pPhysicalDevices: arena.pointerArray(handles),
  });
  const timeline = writeStruct(arena, "VkPhysicalDeviceTimelineSemaphoreFeatures", { pNext: group });
  const ci = writeStruct(arena, "VkDeviceCreateInfo", {
    pNext: timeline,
    pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
  });
  const mapped = new Map([[addr(handles[0]!), 0x1000n], [addr(handles[1]!), 0x2000n]]);
  using scratch = new Arena();
  const copy = replaceGroupDevices(scratch, ci, (h) => {
    const m = mapped.get(h);
    return m === undefined ? undefined : Deno.UnsafePointer.create(m);
  });
  const next = (p: Deno.PointerValue) => readPointer(p, 8);
  assertEquals(addr(copy) !== addr(ci), true);
  assertEquals(readU32(copy, 20), 1); // queueCreateInfoCount kept
  const copiedTimeline = next(copy);
  const copiedGroup = next(copiedTimeline);
  assertEquals(addr(copiedTimeline) !== addr(timeline) && addr(copiedGroup) !== addr(group), true);
  assertEquals(addr(next(copiedGroup)), addr(features)); // the rest of the chain is shared
  const list = readPointer(copiedGroup, 24);
  assertEquals([addr(readPointer(list, 0)), addr(readPointer(list, 8))], [0x1000n, 0x2000n]);
  // The application's structs are unchanged.
  assertEquals(addr(next(ci)), addr(timeline));
  const original = readPointer(group, 24);
  assertEquals([addr(readPointer(original, 0)), addr(readPointer(original, 8))], handles.map(addr));
  // No group struct, or no handle the map knows: the original pointer.
  assertEquals(addr(replaceGroupDevices(scratch, features, () => undefined)), addr(features));
  assertEquals(addr(replaceGroupDevices(scratch, ci, () => undefined)), addr(ci));
});

Deno.test("vkCreateDevice with a device group of the application's handle succeeds on the driver", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ physicalDevices: [{}] });
  using l = load(env.snapshot());
  const { instance } = createInstance(l);
  const [pd] = physicalDevices(l, instance);
  const group = writeStruct(l.arena, "VkDeviceGroupDeviceCreateInfo", {
    physicalDeviceCount: 1,
    pPhysicalDevices: l.arena.pointerArray([pd!]),
  });
  const { result, device } = createDevice(l, pd!, { pNext: group });
  assertEquals(result, 0);
  assertEquals(fields(calls(env.callLog(), "vkCreateDevice")[0]!).pnext, "1000070001");
  // The application's group struct still lists its own handle.
  assertEquals(addr(readPointer(readPointer(group, 24), 0)), addr(pd!));
  l.vk.vkDestroyDevice(device, null);
  l.vk.vkDestroyInstance(instance, null);
});
