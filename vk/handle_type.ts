/**
 * Handle type names as vk.xml declares them: whether a name is one, and the type an alias names.
 *
 * @module
 */
import { HANDLES } from "./generated/handles.ts";

/**
 * True for handle type names (`VkBuffer`, aliases included).
 *
 * @example Usage
 * ```ts
 * import { isHandleType } from "./handle_type.ts";
 * console.log(isHandleType("VkBuffer"), isHandleType("VkExtent2D")); // true false
 * ```
 */
export function isHandleType(type: string): boolean {
  return Object.hasOwn(HANDLES, type);
}

/**
 * The handle type an alias names (`VkDescriptorUpdateTemplateKHR` -> `VkDescriptorUpdateTemplate`); any
 * other name as it is.
 *
 * @example Usage
 * ```ts
 * import { canonicalHandle } from "./handle_type.ts";
 * console.log(canonicalHandle("VkDescriptorUpdateTemplateKHR")); // VkDescriptorUpdateTemplate
 * ```
 */
export function canonicalHandle(type: string): string {
  return HANDLES[type]?.alias ?? type;
}
