/**
 * vkdeno: a Vulkan loader written in TypeScript for Deno.
 *
 * Discovers Vulkan drivers and layers from their JSON manifests, loads them with
 * `Deno.dlopen`, builds the instance and device call chains, and hands scripts
 * every Vulkan command at the cost of one C call.
 *
 * @example Discovery snapshot
 * ```ts
 * import { snapshotProcessEnvironment } from "@vkdeno/loader";
 * const env = snapshotProcessEnvironment();
 * console.log(env.elevated);
 * ```
 *
 * @module
 */
export type { EnvironmentSnapshot } from "./discovery/environment.ts";
export { snapshotProcessEnvironment } from "./discovery/environment.ts";
