/**
 * The reference loader for the project's tests and benchmarks: the public `openLibvulkan` of mod.ts, under the
 * path they have always imported.
 *
 * @module
 */
export { type LibvulkanCommands, openLibvulkan, type OpenLibvulkanOptions } from "../../libvulkan.ts";
