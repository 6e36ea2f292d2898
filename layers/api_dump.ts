/**
 * `VK_LAYER_VKDENO_api_dump`: every Vulkan call with its decoded parameters, its result and the time the rest
 * of the chain took, as text or JSON lines (settings and output: docs/internals.md).
 *
 * @example Usage
 * ```ts ignore
 * import { installLayers } from "./top.ts";
 * using vk = installLayers(base, {
 *   layers: ["VK_LAYER_VKDENO_api_dump"],
 *   settings: { VK_LAYER_VKDENO_api_dump: { format: "json" } },
 * });
 * ```
 *
 * @module
 */
import { COMMAND_INDEX } from "../vk/generated/commands.ts";
import type { ParamInfo } from "../vk/generated/types.ts";
import { decodeCall, decodeResult } from "./decode.ts";
import { type CallContext, type CommandHooks, defineLayer, type TsLayer } from "./layer.ts";

function cType(p: ParamInfo): string {
  const stars = "*".repeat(p.pointer);
  return `${p.const ? "const " : ""}${p.type}${stars}${p.array !== undefined ? `[${p.array}]` : ""}`;
}

function json(value: unknown): string {
  return JSON.stringify(value, (_k, v) => typeof v === "bigint" ? v.toString() : v);
}

/** The api_dump layer. */
export const apiDumpLayer: TsLayer = defineLayer({
  name: "VK_LAYER_VKDENO_api_dump",
  description: "Every call with decoded parameters, result and timing, as text or JSON lines (vkdeno)",
  implementationVersion: 1,
  settings: {
    format: {
      type: "enum",
      values: ["text", "json"],
      default: "text",
      description: "Text lines or JSON lines",
    },
    timing: {
      type: "bool",
      default: true,
      description: "Each call's duration (false: stable output for diffs)",
    },
    file: { type: "string", default: "", description: "A file to append to instead of the output" },
  },
  create(env) {
    const { format, timing } = env.settings;
    const file = env.settings.file === "" ? undefined : env.settings.file;
    const write = file === undefined
      ? env.write
      : (line: string) => Deno.writeTextFileSync(file, line + "\n", { append: true });
    const started: number[] = [];
    const hooks: CommandHooks = {
      preCallRecord() {
        // Last thing before the next link, so decoding is not counted.
        started.push(performance.now());
      },
      postCallRecord(ctx: CallContext, ...args: unknown[]) {
        const us = (performance.now() - (started.pop() ?? performance.now())) * 1000;
        const info = ctx.info;
        const decoded = decodeCall(info, args);
        const result = decodeResult(info.result, ctx.result);
        if (format === "json") {
          const line: Record<string, unknown> = { serial: ctx.serial, command: ctx.command, args: decoded };
          if (info.result !== "void") line.result = result;
          if (timing) line.us = Math.round(us * 10) / 10;
          write(json(line));
          return;
        }
        const names = info.params.map((p) => p.name).join(", ");
        const returns = info.result === "void"
          ? "returns void"
          : `returns ${info.result} ${typeof result === "string" ? result : json(result)}${
            typeof ctx.result === "number" && info.result === "VkResult" ? ` (${ctx.result})` : ""
          }`;
        const lines = [`${ctx.command}(${names}) ${returns}${timing ? ` in ${us.toFixed(1)} us` : ""}:`];
        for (const p of info.params) {
          const v = decoded[p.name];
          lines.push(`    ${p.name}: ${cType(p)} = ${typeof v === "string" ? v : json(v)}`);
        }
        write(lines.join("\n"));
      },
    };
    const intercepts: Record<string, CommandHooks> = {};
    for (const name of Object.keys(COMMAND_INDEX)) intercepts[name] = hooks;
    return { intercepts };
  },
});

export default apiDumpLayer;
