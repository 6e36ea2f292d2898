/**
 * VK_LAYER_VKDENO_object_lifetimes on lavapipe through the reference loader: a crafted script that leaks
 * one buffer and uses another after destroying it. The use must be reported and skipped (the driver
 * never sees the dead handle), the leak reported at vkDestroyDevice with the call that created it.
 */
import assert from "node:assert/strict";
import { Arena, type Pointer, readPointer, writePointer } from "../../ffi/memory.ts";
import { allocStruct, check, enumerate, writeStruct } from "../../api/structs.ts";
import { type ValidationMessage, VK_ERROR_VALIDATION_FAILED_EXT } from "../../layers/layer.ts";
import { installLayers } from "../../layers/top.ts";
import { openLibvulkan } from "../support/libvulkan.ts";
import { referenceLoaderTest } from "../support/ts_layer_harness.ts";
import { asHandle, readHandle } from "../../vk/handle.ts";
import { VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER } from "../../mod.ts";

// deno-lint-ignore no-explicit-any
type Commands = Record<string, (...args: any[]) => any>;

referenceLoaderTest(
  "object_lifetimes reports a use after destroy (skipping it) and a leaked buffer with its creating call",
  import.meta,
  () => {
    const messages: ValidationMessage[] = [];
    using base = openLibvulkan();
    using vk = installLayers(base, {
      layers: ["VK_LAYER_VKDENO_object_lifetimes"],
      onMessage: (m) => void messages.push(m),
    });
    const v = vk as unknown as Commands;
    using arena = new Arena();
    const slot = () => arena.pointer(arena.alloc(8));
    const pInstance = slot();
    check(
      v.vkCreateInstance!(writeStruct(arena, "VkInstanceCreateInfo", {}), null, pInstance),
      "vkCreateInstance",
    );
    const instance = readPointer(pInstance, 0);
    const [physicalDevice] = enumerate(v.vkEnumeratePhysicalDevices!, [instance]);
    const pDevice = slot();
    check(
      v.vkCreateDevice!(
        physicalDevice,
        writeStruct(arena, "VkDeviceCreateInfo", {
          pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
        }),
        null,
        pDevice,
      ),
      "vkCreateDevice",
    );
    const device = readPointer(pDevice, 0);
    const d = vk.deviceTable(device) as Commands;
    const buffer = () => {
      const out = slot();
      const info = writeStruct(arena, "VkBufferCreateInfo", {
        size: 256n,
        usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
      });
      check(d.vkCreateBuffer!(device, info, null, out), "vkCreateBuffer");
      return readPointer(out, 0);
    };
    const leaked = buffer();
    const freed = buffer();
    d.vkDestroyBuffer!(device, freed, null);
    // lavapipe would read freed memory here: the layer must stop the call.
    const requirements = allocStruct(arena, "VkMemoryRequirements");
    d.vkGetBufferMemoryRequirements!(device, freed, requirements);
    assert.equal(d.vkBindBufferMemory!(device, freed, null, 0n), VK_ERROR_VALIDATION_FAILED_EXT);
    assert.deepEqual(messages.map((m) => [m.id, m.command]), [
      ["ObjectLifetimes-UseAfterDestroy", "vkGetBufferMemoryRequirements"],
      ["ObjectLifetimes-UseAfterDestroy", "vkBindBufferMemory"],
    ]);
    const freedText = `0x${Deno.UnsafePointer.value(freed).toString(16)}`;
    assert.match(
      messages[0]!.text,
      new RegExp(
        `^VkBuffer ${freedText} used in vkGetBufferMemoryRequirements \\(buffer, call #\\d+\\) after vkDestroyBuffer destroyed it \\(call #\\d+\\); it was created by vkCreateBuffer \\(call #\\d+\\)$`,
      ),
    );
    messages.length = 0;
    const state = vk.chassis.instances[0]!.state!;
    d.vkDestroyDevice!(device, null);
    v.vkDestroyInstance!(instance, null);
    const leakedText = `0x${Deno.UnsafePointer.value(leaked).toString(16)}`;
    assert.deepEqual(messages.map((m) => [m.id, m.severity, m.text.replace(/#\d+/, "#N")]), [[
      "ObjectLifetimes-Leak",
      "error",
      `VkBuffer ${leakedText} created by vkCreateBuffer (call #N) is still alive at vkDestroyDevice of VkDevice 0x${
        Deno.UnsafePointer.value(device).toString(16)
      }`,
    ]]);
    assert.equal(state.size, 0);
    assert.equal(vk.chassis.instances.length, 0);
  },
);

Deno.test("object_lifetimes finds a destroyed buffer two pointers deep in a descriptor write", () => {
  const calls: string[] = [];
  const base = {
    vkCreateBuffer: (
      _d: Pointer,
      _i: Pointer,
      _a: Pointer,
      out: Pointer,
    ) => (writePointer(out, 0, Deno.UnsafePointer.create(0x5000n)), 0),
    vkDestroyBuffer: () => void calls.push("destroy"),
    vkUpdateDescriptorSets: () => void calls.push("update"),
  };
  const messages: ValidationMessage[] = [];
  using layered = installLayers(base, {
    layers: ["VK_LAYER_VKDENO_object_lifetimes"],
    onMessage: (m) => void messages.push(m),
  });
  const vk = layered as unknown as Commands;
  using arena = new Arena();
  const out = arena.pointer(arena.alloc(8));
  const device = Deno.UnsafePointer.create(0x900n);
  vk.vkCreateBuffer!(device, null, null, out);
  const buffer = readHandle("VkBuffer", out);
  vk.vkDestroyBuffer!(device, buffer, null);
  const write = writeStruct(arena, "VkWriteDescriptorSet", {
    dstSet: asHandle("VkDescriptorSet", Deno.UnsafePointer.create(0x6000n)),
    descriptorType: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
    pBufferInfo: [{ buffer, offset: 0n, range: 64n }],
  });
  vk.vkUpdateDescriptorSets!(device, 1, write, 0, null);
  assert.deepEqual(calls, ["destroy"]);
  assert.equal(messages.length, 1);
  assert.match(
    messages[0]!.text,
    /^VkBuffer 0x5000 used in vkUpdateDescriptorSets \(pDescriptorWrites\[0\]\.pBufferInfo\[0\]\.buffer, call #3\)/,
  );
});
