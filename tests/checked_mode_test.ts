/**
 * Checked mode is off by default and then changes nothing on the hot path (docs/behaviour.md V08): a device
 * command is the very native dispatch stub, not a wrapper. `VKDENO_CHECKED` of the loader's environment turns
 * it on (not `0`), the `checked` option wins over it, and then device commands check their handles.
 */

import { deepStrictEqual as assertEquals, ok as assert, throws as assertThrows } from "node:assert/strict";
import { COMMAND_INDEX, COMMANDS } from "../ffi/generated/commands.ts";
import { commandDef } from "../ffi/command_ffi.ts";
import { asHandle, Vulkan } from "../mod.ts";
import { loaderOf } from "../vulkan.ts";

const env = (vars: Record<string, string>) => ({ vars, elevated: false });

function stubOf(vk: ReturnType<typeof Vulkan.load>, name: string): unknown {
  const info = COMMANDS[COMMAND_INDEX[name]!]!;
  return loaderOf(vk).stubs.bindDispatch(info.index, commandDef(info));
}

Deno.test("with checked mode off a device command is the bare dispatch stub; on, it checks first", () => {
  using off = Vulkan.load({ env: env({}) });
  assertEquals(off.checked, false);
  assert(off.vkCmdSetLineWidth === stubOf(off, "vkCmdSetLineWidth"));
  assert(off.vkCreateBuffer === stubOf(off, "vkCreateBuffer"));
  using on = Vulkan.load({ env: env({}), checked: true });
  assert(on.vkCmdSetLineWidth !== stubOf(on, "vkCmdSetLineWidth"));
  assertThrows(() => on.vkDeviceWaitIdle(asHandle("VkDevice", Deno.UnsafePointer.create(0x40n)!)), {
    name: "TypeError",
    message: "vkDeviceWaitIdle: device 0x40 is not a VkDevice of this loader",
  });
});

Deno.test("VKDENO_CHECKED of the loader's environment turns checked mode on; the option wins over it", () => {
  for (const [value, expected] of [["1", true], ["yes", true], ["0", false], ["", false]] as const) {
    using vk = Vulkan.load({ env: env({ VKDENO_CHECKED: value }) });
    assertEquals(vk.checked, expected, `VKDENO_CHECKED=${JSON.stringify(value)}`);
  }
  using forced = Vulkan.load({ env: env({ VKDENO_CHECKED: "1" }), checked: false });
  assertEquals(forced.checked, false);
});
