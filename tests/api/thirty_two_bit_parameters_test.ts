// A 32-bit integer parameter of an idiomatic command (a count, an index, flags, an enum) takes a number that
// fits, as a struct member does (docs/behaviour.md V14): anything else throws before the driver is called,
// naming the command, the parameter, the range and the value, where Deno's FFI would name neither.
import { deepStrictEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import { VK_COMMAND_BUFFER_LEVEL_PRIMARY, Vulkan } from "../../mod.ts";
import { MockDriver, mockEnvironment } from "../../testing/mod.ts";
import { withVkDevice } from "../support/vk_device.ts";

const isolated = mockEnvironment();
globalThis.addEventListener("unload", () => isolated.remove());

const expected = (command: string, param: string, got: string, hint = "") =>
  `Cannot call "${command}": parameter "${param}" expected an integer from 0 to 4294967295 (uint32_t)${hint}, got ${got}`;

Deno.test("a 32-bit parameter that does not fit throws naming the command and parameter; the driver is not called", () => {
  using mock = new MockDriver({ record: true, onProblem: () => {} });
  using raw = Vulkan.load({ drivers: [mock], env: isolated.env });
  withVkDevice(raw, (vk, device) => {
    const commandPool = vk.createCommandPool(device, { queueFamilyIndex: 0 });
    const [cb] = vk.allocateCommandBuffers(device, {
      commandPool,
      level: VK_COMMAND_BUFFER_LEVEL_PRIMARY,
      commandBufferCount: 1,
    });
    vk.beginCommandBuffer(cb!, {});
    const hint = "; `x >>> 0` makes a bitwise result unsigned";
    assertThrows(() => vk.cmdDispatch(cb!, -1, 1, 1), {
      name: "RangeError",
      message: expected("vkCmdDispatch", "groupCountX", "-1", hint),
    });
    assertThrows(() => vk.cmdDispatch(cb!, 1, 1.5, 1), {
      name: "RangeError",
      message: expected("vkCmdDispatch", "groupCountY", "1.5"),
    });
    assertThrows(() => vk.cmdDispatch(cb!, 1, 1, 2 ** 32 + 5), {
      name: "RangeError",
      message: expected("vkCmdDispatch", "groupCountZ", "4294967301"),
    });
    assertThrows(() => vk.cmdDispatch(cb!, 1, 1, "2" as unknown as number), {
      name: "TypeError",
      message: expected("vkCmdDispatch", "groupCountZ", '"2"'),
    });
    assertThrows(() => vk.getDeviceQueue(device, 0, 0.5), {
      name: "RangeError",
      message: expected("vkGetDeviceQueue", "queueIndex", "0.5"),
    });
    assertEquals(mock.callCount("vkCmdDispatch"), 0);
    // What fits goes on: the largest uint32_t, and a bigint or a boolean as a struct member takes them.
    vk.cmdDispatch(cb!, 2 ** 32 - 1, 1n as unknown as number, true as unknown as number);
    assertEquals(mock.callCount("vkCmdDispatch"), 1);
    vk.endCommandBuffer(cb!);
    vk.destroyCommandPool(device, commandPool);
  });
});
