// A scope keeps its record of an object until a destroy command of the object's own type ends it
// (docs/behaviour.md V11): a destroy of another kind given the object's handle (a fence to vkDestroyBuffer)
// throws (checked) or reaches the driver (plain), and either way the scope still destroys the object at its end.
import { deepEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import { type VkBuffer, Vulkan } from "../../mod.ts";
import { MockDriver } from "../../testing/mod.ts";
import { withVkDevice } from "../support/vk_device.ts";

Deno.test("a destroy of another kind leaves the scope's object to the scope's end (plain and checked)", () => {
  for (const checked of [false, true]) {
    const problems: string[] = [];
    using mock = new MockDriver({ onProblem: (m) => problems.push(m) });
    using manifest = mock.writeManifest();
    using raw = Vulkan.load({
      env: { vars: { VK_DRIVER_FILES: manifest.manifestPath }, elevated: false },
      checked,
    });
    withVkDevice(raw, (vk, device) => {
      using scope = vk.scope();
      const fence = scope.createFence(device, {});
      const wrong = () => scope.destroyBuffer(device, fence as unknown as VkBuffer);
      if (checked) {
        assertThrows(wrong, /^TypeError: vkDestroyBuffer: buffer 0x[0-9a-f]+ is a VkFence, not a VkBuffer/);
      } else wrong();
      // Still live to VkApi: a command on it is passed on.
      assertEquals(vk.getFenceStatus(device, fence), "VK_NOT_READY");
      scope.dispose();
      assertEquals(mock.liveObjects().filter((o) => o.type === "VkFence"), [], checked ? "checked" : "plain");
    });
    // Plain, the driver was given the fence as a buffer (and said so); nothing else went wrong.
    assertEquals(
      problems.map((p) => p.replace(/0x[0-9a-f]+/, "0x...")),
      checked ? [] : [
        'Mock driver "vkdeno-mock": vkDestroyBuffer: buffer "0x..." is not a live VkBuffer',
      ],
    );
  }
});
