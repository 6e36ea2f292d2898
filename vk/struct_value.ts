/**
 * What a struct read back is: a plain object of its members (the readers are generated into
 * `generated/struct_*.js`; `struct_read.ts` and the idiomatic API call them).
 *
 * @module
 */

/** A value read back from a struct member. */
export type StructField = number | bigint | string | Deno.PointerValue | StructValue | readonly StructField[];

/** A struct read back as a plain object. */
export interface StructValue {
  /** A member's value, by the member's name in vk.xml. */
  [member: string]: StructField;
}
