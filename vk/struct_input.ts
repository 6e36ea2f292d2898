/**
 * What a struct given to a writer is: a plain object of its members, and a pNext struct naming its type (the
 * writers are generated into `generated/struct_*.js`; `struct_write.ts` and the idiomatic API call them).
 *
 * @module
 */

/** A struct given as a plain object: member names to values. */
export type StructInput = { readonly [member: string]: unknown };

/** One extending struct of a pNext chain: the struct's name in `type`, its members beside it. */
export type ChainInput = StructInput & { readonly type: string };
