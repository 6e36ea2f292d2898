/**
 * A layer counting every Vulkan call by command, printing the most frequent ones when its instance is
 * destroyed (its object is disposed then, in either placement). Settings: `top` (how many commands to
 * print, default 10). Manifest: `call_counter.vkdeno`.
 * @module
 */
import { defineLayer, everyCommand } from "../../layers/mod.ts";

/** Calls by command name, for every layer object made (the last one's, for a test to read). */
export const counts: Map<string, number> = new Map();

export default defineLayer({
  name: "VK_LAYER_EXAMPLE_call_counter",
  description: "Counts Vulkan calls by command",
  create(env) {
    counts.clear();
    return {
      intercepts: everyCommand({
        preCallRecord: (ctx) => void counts.set(ctx.command, (counts.get(ctx.command) ?? 0) + 1),
      }),
      dispose() {
        const top = Number(env.settings.top ?? 10);
        const sorted = [...counts].sort((a, b) => b[1] - a[1]).slice(0, top);
        for (const [command, n] of sorted) env.write(`${String(n).padStart(8)} ${command}`);
      },
    };
  },
});
