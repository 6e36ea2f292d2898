// A 16-bit integer parameter of an idiomatic command (vkCmdSetLineStipple's `lineStipplePattern`, the only
// parameter narrower than 32 bits in vk.xml) takes a number that fits, as a struct member does
// (docs/behaviour.md V14): anything else throws before the driver is called, naming the command, the parameter,
// the range and the value, where Deno's FFI would keep the low bits of a number too large.
import { deepStrictEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import { VK_API_VERSION_1_4, Vulkan } from "../../mod.ts";
import { MockDriver, mockEnvironment } from "../../testing/mod.ts";
import { recording, withVkDevice } from "../support/vk_device.ts";

const isolated = mockEnvironment();
globalThis.addEventListener("unload", () => isolated.remove());

const expected = (got: string) =>
  `Cannot call "vkCmdSetLineStipple": parameter "lineStipplePattern" expected an integer from 0 to 65535 (uint16_t), got ${got}`;

Deno.test("a 16-bit parameter that does not fit throws naming the command and parameter; the driver is not called", () => {
  // vkCmdSetLineStipple is Vulkan 1.4 core.
  using mock = new MockDriver({
    devices: [{ apiVersion: VK_API_VERSION_1_4 }],
    record: true,
    onProblem: () => {},
  });
  using raw = Vulkan.load({ drivers: [mock], env: isolated.env });
  withVkDevice(raw, (vk, device) => {
    const { commandPool, cb } = recording(vk, device);
    for (const [pattern, shown] of [[0x10000, "65536"], [-1, "-1"], [0.5, "0.5"], [0xffffn + 1n, "65536n"]]) {
      assertThrows(() => vk.cmdSetLineStipple(cb, 1, pattern as number), {
        name: "RangeError",
        message: expected(String(shown)),
      });
    }
    assertThrows(() => vk.cmdSetLineStipple(cb, 1, "1" as unknown as number), {
      name: "TypeError",
      message: expected('"1"'),
    });
    assertEquals(mock.callCount("vkCmdSetLineStipple"), 0);
    // What fits goes on: 0, the largest uint16_t, a bigint and a boolean.
    for (const pattern of [0, 0xffff, 7n, true]) vk.cmdSetLineStipple(cb, 1, pattern as number);
    assertEquals(
      mock.calls.filter((c) => c.command === "vkCmdSetLineStipple").map((c) => c.args.lineStipplePattern),
      [0, 0xffff, 7, 1],
    );
    vk.endCommandBuffer(cb);
    vk.destroyCommandPool(device, commandPool);
  });
});
