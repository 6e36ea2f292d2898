/**
 * A layer reporting the objects a device or instance still has when it is destroyed, naming the call
 * that created each, on the built-in state tracker (`usesState`): an object per instance and one per
 * device, each watching its own destroy. Manifest: `leak_finder.vkdeno`.
 * @module
 */
import { defineLayer, type LayerEnv } from "../../layers/mod.ts";

/** Reports every object still alive under `env.handle` (the instance or device of the object). */
function reportLeaks(env: LayerEnv, command: string): void {
  const object = env.state!.get(env.handle);
  if (!object) return;
  for (const child of object.descendants()) {
    if (child.implicit) continue; // queues, physical devices: not the application's to destroy
    env.report(
      "EXAMPLE-Leak",
      `${child.label} created by ${child.createdBy.command} (call ${child.createdBy.serial}) is still alive`,
      { command },
    );
  }
}

export default defineLayer({
  name: "VK_LAYER_EXAMPLE_leak_finder",
  description: "Reports objects left alive at vkDestroyDevice / vkDestroyInstance",
  usesState: true,
  create: (env) => ({
    intercepts: { vkDestroyInstance: { preCallRecord: (ctx) => reportLeaks(env, ctx.command) } },
  }),
  createDevice: (env) => ({
    intercepts: { vkDestroyDevice: { preCallRecord: (ctx) => reportLeaks(env, ctx.command) } },
  }),
});
