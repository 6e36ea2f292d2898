/**
 * `VK_LAYER_VKDENO_draw_stats`: draws, instances and vertices recorded in each command buffer, printed when
 * its recording ends (output: docs/internals.md).
 *
 * @example Usage
 * ```ts ignore
 * import { installLayers } from "./top.ts";
 * using vk = installLayers(base, { layers: ["VK_LAYER_VKDENO_draw_stats"] });
 * ```
 *
 * @module
 */
import { handleKey, handleText } from "../vk/handle_key.ts";
import { type CommandHooks, defineLayer, type TsLayer } from "./layer.ts";
import type { Pointer } from "../ffi/memory.ts";

/** Counts of one command buffer recording. */
export interface CommandStats {
  /** Draw calls (an indirect draw counts its `drawCount`). */
  draws: number;
  /** Instances drawn, summed over direct draws. */
  instances: number;
  /** Vertices (or indices) times instances, summed over direct draws. */
  vertices: number;
  /** Indirect draws, whose counts sit in GPU buffers. */
  indirect: number;
}

/**
 * Formats a command buffer's counts as the layer prints them.
 *
 * @example Usage
 * ```ts
 * import { formatCommandStats } from "./draw_stats.ts";
 * console.log(formatCommandStats(null, { draws: 1, instances: 1, vertices: 3, indirect: 0 }));
 * // "Command buffer 0x0 ended with 1 draw, 1 instance and 3 vertices"
 * ```
 */
export function formatCommandStats(commandBuffer: Deno.PointerValue, s: CommandStats): string {
  const n = (v: number, word: string) => `${v} ${word}${v === 1 ? "" : "s"}`;
  const indirect = s.indirect > 0 ? `, ${n(s.indirect, "indirect draw")}` : "";
  return `Command buffer ${handleText(handleKey(commandBuffer))} ended with ${n(s.draws, "draw")}, ${
    n(s.instances, "instance")
  } and ${s.vertices} ${s.vertices === 1 ? "vertex" : "vertices"}${indirect}`;
}

/** The draw-call statistics layer. */
export const drawStatsLayer: TsLayer = defineLayer({
  name: "VK_LAYER_VKDENO_draw_stats",
  description: "Draw, instance and vertex counts per command buffer (vkdeno)",
  implementationVersion: 1,
  usesState: true,
  create(env) {
    const state = env.state!;
    const slot = state.createSlot<CommandStats>("VK_LAYER_VKDENO_draw_stats");
    // A command buffer the tracker never saw allocated (a layer enabled late) still gets counted.
    const loose = new Map<number | bigint, CommandStats>();
    const stats = (cb: Pointer): CommandStats => {
      const o = state.get(cb);
      let s = o ? o.getSubState(slot) : loose.get(handleKey(cb));
      if (s === undefined) {
        s = { draws: 0, instances: 0, vertices: 0, indirect: 0 };
        if (o) o.setSubState(slot, s);
        else loose.set(handleKey(cb), s);
      }
      return s;
    };
    const draw = (cb: Pointer, vertices: number, instances: number) => {
      const s = stats(cb);
      s.draws++;
      s.instances += instances;
      s.vertices += vertices * instances;
    };
    const indirect = (cb: Pointer, count: number) => {
      const s = stats(cb);
      s.draws += count;
      s.indirect += count;
    };
    const intercepts: Record<string, CommandHooks> = {
      vkBeginCommandBuffer: {
        preCallRecord: (_ctx, cb: Pointer) =>
          Object.assign(stats(cb), { draws: 0, instances: 0, vertices: 0, indirect: 0 }),
      },
      vkCmdDraw: {
        preCallRecord: (_ctx, cb: Pointer, vertexCount: number, instanceCount: number) =>
          draw(cb, vertexCount, instanceCount),
      },
      vkCmdDrawIndexed: {
        preCallRecord: (_ctx, cb: Pointer, indexCount: number, instanceCount: number) =>
          draw(cb, indexCount, instanceCount),
      },
      vkCmdDrawIndirect: {
        preCallRecord: (_ctx, cb: Pointer, _b: Pointer, _o: bigint, n: number) => indirect(cb, n),
      },
      vkCmdDrawIndexedIndirect: {
        preCallRecord: (_ctx, cb: Pointer, _b: Pointer, _o: bigint, n: number) => indirect(cb, n),
      },
      vkEndCommandBuffer: {
        preCallRecord: (_ctx, cb: Pointer) => {
          env.write(formatCommandStats(cb, stats(cb)));
        },
      },
    };
    return { intercepts };
  },
});

export default drawStatsLayer;
