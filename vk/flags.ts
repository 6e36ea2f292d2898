/**
 * `flags(A, B)`: combines flag bits of one type, keeping the type (`A | B` in TypeScript is a bare number).
 *
 * @module
 */
import type { VkBits } from "./generated/vk_types.ts";

/**
 * Combines bits of one FlagBits type into a flags value of that type: what `A | B` is in C. TypeScript's
 * `|` returns a bare `number`, which no `*Flags` parameter or member accepts (each takes only its own
 * bits), so this is the typed way to OR them; bits of another type fail `deno check`. A single bit needs
 * no call (`usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT`), and no flags are `0` (`0n` for 64-bit flags).
 * 64-bit bits (`VK_PIPELINE_STAGE_2_*`) combine to a bigint.
 *
 * @example Usage
 * ```ts
 * import {
 *   flags,
 *   VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
 *   VK_BUFFER_USAGE_TRANSFER_DST_BIT,
 *   type VkBufferUsageFlags,
 * } from "@vkdeno/loader";
 * const usage: VkBufferUsageFlags = flags(VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
 * console.log(usage); // 34
 * ```
 */
export function flags<N extends string>(...bits: readonly (VkBits<N> | 0)[]): VkBits<N>;
/**
 * Combines 64-bit bits of one FlagBits type (`VK_PIPELINE_STAGE_2_*`, `VK_ACCESS_2_*`) into a bigint flags
 * value of that type.
 *
 * @example Usage
 * ```ts
 * import { flags, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_2_COPY_BIT } from "@vkdeno/loader";
 * console.log(flags(VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_2_COPY_BIT)); // 4294969344n
 * ```
 */
export function flags<N extends string>(...bits: readonly (VkBits<N, bigint> | 0n)[]): VkBits<N, bigint>;
export function flags(...bits: readonly (number | bigint)[]): number | bigint {
  if (typeof bits[0] === "bigint") {
    let all = 0n;
    for (const bit of bits) all |= BigInt(bit);
    return all;
  }
  let all = 0;
  for (const bit of bits) all |= Number(bit);
  return all >>> 0; // unsigned, as VkFlags is: bit 31 stays positive
}
