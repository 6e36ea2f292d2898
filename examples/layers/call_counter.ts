/**
 * A layer counting every Vulkan call by command, printing the most frequent ones when its instance is
 * destroyed (its object is disposed then, in either placement). Settings: `top` (how many commands to
 * print, default 10), set as for a Khronos layer: `VK_EXAMPLE_CALL_COUNTER_TOP=3`, the line
 * `example_call_counter.top = 3` in `vk_layer_settings.txt`, or `VkLayerSettingsCreateInfoEXT`.
 * Manifest: `call_counter.vkdeno`.
 * @module
 */
import { defineLayer, everyCommand } from "../../layers/mod.ts";

/** Calls by command name, for every layer object made (the last one's, for a test to read). */
export const counts: Map<string, number> = new Map();

export default defineLayer({
  name: "VK_LAYER_EXAMPLE_call_counter",
  description: "Counts Vulkan calls by command",
  settings: { top: { type: "uint32", default: 10, description: "How many commands to print" } },
  create(env) {
    counts.clear();
    return {
      intercepts: everyCommand({
        preCallRecord: (ctx) => void counts.set(ctx.command, (counts.get(ctx.command) ?? 0) + 1),
      }),
      dispose() {
        const sorted = [...counts].sort((a, b) => b[1] - a[1]).slice(0, env.settings.top);
        for (const [command, n] of sorted) env.write(`${String(n).padStart(8)} ${command}`);
      },
    };
  },
});
