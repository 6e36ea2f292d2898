/**
 * A layer reporting the objects a device or instance still has when it is destroyed, naming the call
 * that created each, on the built-in state tracker (`usesState`). Manifest: `leak_finder.json`.
 * @module
 */
import { defineLayer } from "../../layers/mod.ts";

export default defineLayer({
  name: "VK_LAYER_EXAMPLE_leak_finder",
  description: "Reports objects left alive at vkDestroyDevice / vkDestroyInstance",
  usesState: true,
  create(env) {
    const state = env.state!;
    const leaks = (parent: Deno.PointerValue, command: string) => {
      const object = state.get(parent);
      if (!object) return;
      for (const child of object.descendants()) {
        if (child.implicit) continue; // queues, physical devices: not the application's to destroy
        env.report(
          "EXAMPLE-Leak",
          `${child.label} created by ${child.createdBy.command} (call ${child.createdBy.serial}) is still alive`,
          { command },
        );
      }
    };
    return {
      intercepts: {
        vkDestroyDevice: { preCallRecord: (ctx, device) => leaks(device, ctx.command) },
        vkDestroyInstance: { preCallRecord: (ctx, instance) => leaks(instance, ctx.command) },
      },
    };
  },
});
