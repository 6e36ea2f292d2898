// A 32-bit integer parameter of an idiomatic command (a count, an index, flags, an enum) takes a number that
// fits, as a struct member does (docs/behaviour.md V14): anything else throws before the driver is called,
// naming the command, the parameter, the range and the value, where Deno's FFI would name neither; an array's
// element too, naming its index, where the store would keep its low bits.
import { deepStrictEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import {
  VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC,
  VK_PIPELINE_BIND_POINT_COMPUTE,
  VK_STENCIL_FACE_FRONT_AND_BACK,
  Vulkan,
} from "../../mod.ts";
import { MockDriver, mockEnvironment } from "../../testing/mod.ts";
import { recording, withVkDevice } from "../support/vk_device.ts";

const isolated = mockEnvironment();
globalThis.addEventListener("unload", () => isolated.remove());

const expected = (command: string, param: string, got: string, hint = "") =>
  `Cannot call "${command}": parameter "${param}" expected an integer from 0 to 4294967295 (uint32_t), got ${got}${hint}`;

Deno.test("a 32-bit parameter that does not fit throws naming the command and parameter; the driver is not called", () => {
  using mock = new MockDriver({ record: true, onProblem: () => {} });
  using raw = Vulkan.load({ drivers: [mock], env: isolated.env });
  withVkDevice(raw, (vk, device) => {
    const { commandPool, cb } = recording(vk, device);
    // -1 for a count: the range alone; for a bit mask (a flags type, a ...Mask), how to make it unsigned.
    assertThrows(() => vk.cmdDispatch(cb, -1, 1, 1), {
      name: "RangeError",
      message: expected("vkCmdDispatch", "groupCountX", "-1"),
    });
    const hint = "; `x >>> 0` makes a bitwise result unsigned";
    assertThrows(() => vk.cmdSetStencilWriteMask(cb, VK_STENCIL_FACE_FRONT_AND_BACK, ~0), {
      name: "RangeError",
      message: expected("vkCmdSetStencilWriteMask", "writeMask", "-1", hint),
    });
    assertThrows(() => vk.cmdSetStencilWriteMask(cb, (0x80000000 | 1) as never, 0), {
      name: "RangeError",
      message: expected("vkCmdSetStencilWriteMask", "faceMask", String(0x80000000 | 1), hint),
    });
    assertThrows(() => vk.cmdDispatch(cb, 1, 1.5, 1), {
      name: "RangeError",
      message: expected("vkCmdDispatch", "groupCountY", "1.5"),
    });
    assertThrows(() => vk.cmdDispatch(cb, 1, 1, 2 ** 32 + 5), {
      name: "RangeError",
      message: expected("vkCmdDispatch", "groupCountZ", "4294967301"),
    });
    assertThrows(() => vk.cmdDispatch(cb, 1, 1, "2" as unknown as number), {
      name: "TypeError",
      message: expected("vkCmdDispatch", "groupCountZ", '"2"'),
    });
    assertThrows(() => vk.getDeviceQueue(device, 0, 0.5), {
      name: "RangeError",
      message: expected("vkGetDeviceQueue", "queueIndex", "0.5"),
    });
    assertEquals(mock.callCount("vkCmdDispatch"), 0);
    // What fits goes on: the largest uint32_t, and a bigint or a boolean as a struct member takes them.
    vk.cmdDispatch(cb, 2 ** 32 - 1, 1n as unknown as number, true as unknown as number);
    assertEquals(mock.callCount("vkCmdDispatch"), 1);
    vk.endCommandBuffer(cb);
    vk.destroyCommandPool(device, commandPool);
  });
});

Deno.test("an array of 32-bit integers refuses an element that does not fit, naming its index", () => {
  using mock = new MockDriver({ record: true, onProblem: () => {} });
  using raw = Vulkan.load({ drivers: [mock], env: isolated.env });
  withVkDevice(raw, (vk, device) => {
    const binding = {
      binding: 0,
      descriptorType: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC,
      descriptorCount: 1,
    };
    const setLayout = vk.createDescriptorSetLayout(device, { pBindings: [binding] });
    const layout = vk.createPipelineLayout(device, { pSetLayouts: [setLayout] });
    const descriptorPool = vk.createDescriptorPool(device, {
      maxSets: 1,
      pPoolSizes: [{ type: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, descriptorCount: 1 }],
    });
    const [set] = vk.allocateDescriptorSets(device, { descriptorPool, pSetLayouts: [setLayout] });
    const { commandPool, cb } = recording(vk, device);
    const bind = (offset: unknown) =>
      vk.cmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, [set!], [offset as number]);
    const element = (got: string, hint = "") =>
      expected("vkCmdBindDescriptorSets", "pDynamicOffsets", got, hint).replace(
        '"pDynamicOffsets" expected',
        '"pDynamicOffsets" element 0: expected',
      );
    assertThrows(() => bind(2 ** 32 + 256), { name: "RangeError", message: element("4294967552") });
    assertThrows(() => bind(-256), { name: "RangeError", message: element("-256") });
    assertThrows(() => bind(0.5), { name: "RangeError", message: element("0.5") });
    assertEquals(mock.callCount("vkCmdBindDescriptorSets"), 0);
    // What fits goes on, as numbers, a bigint or a Uint32Array.
    bind(2 ** 32 - 256);
    bind(256n);
    vk.cmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, [set!], new Uint32Array([512]));
    assertEquals(
      mock.calls.filter((c) => c.command === "vkCmdBindDescriptorSets").map((c) => c.args.pDynamicOffsets),
      [[2 ** 32 - 256], [256], [512]],
    );
    vk.endCommandBuffer(cb);
    vk.destroyCommandPool(device, commandPool);
    vk.destroyDescriptorPool(device, descriptorPool);
    vk.destroyPipelineLayout(device, layout);
    vk.destroyDescriptorSetLayout(device, setLayout);
  });
});

Deno.test("a VkBool32 parameter takes true, false, 1 or 0 and refuses any other value naming the command and parameter", () => {
  using mock = new MockDriver({ record: true, onProblem: () => {} });
  using raw = Vulkan.load({ drivers: [mock], env: isolated.env });
  const bool32 = (command: string, param: string, got: string) =>
    `Cannot call "${command}": parameter "${param}" expected true or false, or 1 or 0 (VkBool32: VK_TRUE or VK_FALSE), got ${got}`;
  withVkDevice(raw, (vk, device) => {
    const fence = vk.createFence(device, {});
    for (const waitAll of [2, -1, 1.5]) {
      assertThrows(() => vk.waitForFences(device, [fence], waitAll as unknown as boolean, 0n), {
        name: "RangeError",
        message: bool32("vkWaitForFences", "waitAll", String(waitAll)),
      });
    }
    assertThrows(() => vk.waitForFences(device, [fence], "yes" as unknown as boolean, 0n), {
      name: "TypeError",
      message: bool32("vkWaitForFences", "waitAll", '"yes"'),
    });
    assertEquals(mock.callCount("vkWaitForFences"), 0);
    // What the type takes goes on, and 1 and 0 (VK_TRUE, VK_FALSE) too.
    for (const waitAll of [true, false, 1, 0]) vk.waitForFences(device, [fence], waitAll as boolean, 0n);
    assertEquals(
      mock.calls.filter((c) => c.command === "vkWaitForFences").map((c) => c.args.waitAll),
      [1, 0, 1, 0],
    );
    const { commandPool, cb } = recording(vk, device);
    // An array of VkBool32: each element checked, named by its index.
    assertThrows(() => vk.cmdSetColorBlendEnableEXT(cb, 0, [true, 2 as unknown as boolean]), {
      name: "RangeError",
      message: bool32("vkCmdSetColorBlendEnableEXT", "pColorBlendEnables", "2").replace(
        '"pColorBlendEnables" expected',
        '"pColorBlendEnables" element 1: expected',
      ),
    });
    assertEquals(mock.callCount("vkCmdSetColorBlendEnableEXT"), 0);
    vk.endCommandBuffer(cb);
    vk.destroyCommandPool(device, commandPool);
    vk.destroyFence(device, fence);
  });
});
