/**
 * Errors of the public API that carry a `VkResult` (`VkError`), and `VkResult` names.
 *
 * @module
 */

import { ENUM_VALUES, RESULT_NAMES } from "./generated/enums.ts";

/**
 * The name of a `VkResult` code, e.g. `-6` → `"VK_ERROR_LAYER_NOT_PRESENT"`;
 * unknown codes read `"VkResult(<code>)"`.
 *
 * @example Usage
 * ```ts
 * import { resultName } from "@vkdeno/loader";
 * console.log(resultName(-6)); // "VK_ERROR_LAYER_NOT_PRESENT"
 * ```
 */
export function resultName(code: number): string {
  return RESULT_NAMES[code] ?? `VkResult(${code})`;
}

/**
 * The code of a `VkResult` name, e.g. `"VK_ERROR_LAYER_NOT_PRESENT"` → `-6`.
 *
 * @example Usage
 * ```ts
 * import { resultCode } from "./errors.ts";
 * console.log(resultCode("VK_INCOMPLETE")); // 5
 * ```
 * @throws {RangeError} If the name is not a `VkResult`.
 */
export function resultCode(name: string): number {
  const code = Object.hasOwn(ENUM_VALUES.VkResult!, name) ? ENUM_VALUES.VkResult![name] : undefined;
  if (typeof code !== "number" || RESULT_NAMES[code] === undefined) {
    throw new RangeError(`Unknown VkResult "${name}"`);
  }
  return code;
}

/**
 * An error carrying a `VkResult`: its name in {@linkcode VkError.result} and
 * its value in {@linkcode VkError.code}.
 *
 * @example Usage
 * ```ts
 * import { VkError } from "@vkdeno/loader";
 * const e = new VkError("VK_ERROR_LAYER_NOT_PRESENT", 'Cannot create instance: layer "VK_LAYER_foo" not found');
 * console.log(e.result, e.code); // "VK_ERROR_LAYER_NOT_PRESENT" -6
 * ```
 */
export class VkError extends Error {
  /** The `VkResult` name, e.g. `"VK_ERROR_INITIALIZATION_FAILED"`. */
  readonly result: string;
  /** The `VkResult` value, e.g. `-3`. */
  readonly code: number;

  /**
   * An error for a `VkResult`.
   *
   * @param result The `VkResult`, by name or by code.
   * @param message A sentence naming the thing at fault.
   * @throws {RangeError} If `result` is a name that is not a `VkResult`.
   */
  constructor(result: string | number, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "VkError";
    if (typeof result === "number") {
      this.code = result;
      this.result = resultName(result);
    } else {
      this.code = resultCode(result);
      this.result = result;
    }
  }

  /**
   * Returns `code` when it is not an error (>= 0, including positive results
   * such as `VK_INCOMPLETE`), else throws a {@linkcode VkError}.
   *
   * @example Usage
   * ```ts
   * import { VkError } from "@vkdeno/loader";
   * VkError.check(0, "vkCreateInstance"); // 0
   * try {
   *   VkError.check(-9, "vkCreateInstance");
   * } catch (e) {
   *   console.log((e as VkError).message); // 'Command "vkCreateInstance" failed with "VK_ERROR_INCOMPATIBLE_DRIVER"'
   * }
   * ```
   * @throws {VkError} If `code` is negative.
   */
  static check(code: number, command: string): number {
    if (code < 0) throw new VkError(code, `Command "${command}" failed with "${resultName(code)}"`);
    return code;
  }
}
