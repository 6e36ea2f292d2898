/**
 * A complete TypeScript layer: skips empty dispatches, counts dispatches per command buffer (a sub-state
 * slot), and times submissions with a command it does not intercept. `deno run -A examples/my_layer.ts`
 * @module
 */
import { defineLayer, installLayers } from "../layers/mod.ts";
import type { VkCommandBuffer, VkQueue } from "../mod.ts";

/** Dispatch counts per command buffer and submit-to-idle times. */
export const myLayer = defineLayer({
  name: "VK_LAYER_EXAMPLE_dispatch_timer",
  description: "Dispatch counts and submit-to-idle times",
  usesState: true,
  create(env) {
    const state = env.state!;
    const dispatches = state.createSlot<number>("VK_LAYER_EXAMPLE_dispatch_timer");
    return {
      intercepts: {
        vkCmdDispatch: {
          preCallValidate(ctx, _cb: VkCommandBuffer, x: number, y: number, z: number) {
            if (x * y * z > 0) return false;
            env.report("EXAMPLE-EmptyDispatch", `${x}x${y}x${z} groups: skipped`, {
              severity: "warning",
              command: ctx.command,
            });
            return true; // the driver never sees it
          },
          preCallRecord(_ctx, cb: VkCommandBuffer) {
            state.get(cb)?.setSubState(dispatches, (state.get(cb)?.getSubState(dispatches) ?? 0) + 1);
          },
        },
        vkEndCommandBuffer: {
          postCallRecord: (_ctx, cb: VkCommandBuffer) =>
            env.write(`${state.get(cb)?.getSubState(dispatches) ?? 0} dispatches`),
        },
        vkQueueSubmit: {
          postCallRecord(ctx, queue: VkQueue) {
            const start = performance.now();
            ctx.dispatch.vkQueueWaitIdle(queue); // not intercepted: straight to the next link
            env.write(
              `submit returned ${ctx.result}, idle ${(performance.now() - start).toFixed(2)} ms later`,
            );
          },
        },
      },
    };
  },
});
export default myLayer;

if (import.meta.main) {
  const { Vulkan } = await import("../mod.ts");
  const { runCompute } = await import("./compute.ts");
  using base = Vulkan.load();
  using vk = installLayers(base, { layers: [myLayer] });
  console.log(`${runCompute(vk, { count: 1 << 20 }).wrong} wrong values`);
}
