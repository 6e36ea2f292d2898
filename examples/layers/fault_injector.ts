/**
 * A layer failing chosen calls without touching the application's memory or calling the driver: the
 * `nth` call (default 1) of `command` (default `vkAllocateMemory`) returns `result` (default
 * `VK_ERROR_OUT_OF_DEVICE_MEMORY`, -2), as an out-of-memory driver would. Settings give the three.
 * Manifest: `fault_injector.vkdeno`.
 * @module
 */
import { type CommandHooks, defineLayer, type Intercepts } from "../../layers/mod.ts";

export default defineLayer({
  name: "VK_LAYER_EXAMPLE_fault_injector",
  description: "Fails the nth call of a command with a chosen VkResult",
  settings: {
    command: { type: "string", default: "vkAllocateMemory", description: "The command to fail" },
    nth: { type: "uint32", default: 1, description: "Which of its calls fails (1: the first)" },
    result: { type: "int32", default: -2, description: "The VkResult it returns" },
  },
  create(env) {
    const { command, nth, result } = env.settings;
    let calls = 0;
    // The command is a setting, so its hooks are the untyped ones of any command.
    const hooks: CommandHooks = {
      preCallRecord(ctx) {
        if (++calls !== nth) return;
        env.report("EXAMPLE-Injected", `call ${calls} of ${command} fails with ${result}`, {
          severity: "info",
          command,
        });
        ctx.skip(result);
      },
    };
    return { intercepts: { [command]: hooks } as Intercepts };
  },
});
