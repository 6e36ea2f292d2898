/**
 * Struct helpers for calling Vulkan commands from TypeScript, driven by the generated layouts of
 * `ffi/generated/structs.ts`:
 *
 * - {@linkcode writeStruct} writes a plain object as a C struct in an {@linkcode Arena}: `sType` filled in,
 *   nested structs, strings, arrays and pNext chains allocated in the same arena, count members
 *   (`enabledExtensionCount`) filled from the arrays they count;
 * - {@linkcode allocStruct} allocates output structs with `sType` set, {@linkcode readStruct} reads them back
 *   (char arrays as strings, fixed arrays as arrays, 64-bit integers as bigints, handles as pointers);
 * - {@linkcode enumerate} runs the two-call enumeration idiom, {@linkcode check} turns a negative `VkResult`
 *   into a {@linkcode VkError}, and {@linkcode makeApiVersion} / {@linkcode formatApiVersion} pack versions.
 *
 * Raw commands keep returning `VkResult` as in C; only these helpers throw.
 *
 * This module is the one path they are imported by; each idea has its own module: writing
 * (`ffi/struct_write.ts`), reading and pNext chains (`ffi/struct_read.ts`), command helpers
 * (`ffi/enumerate.ts`), versions (`ffi/api_version.ts`), over the layout lookups, writer and reader of
 * `ffi/_struct_layout.ts`, `ffi/_struct_writer.ts` and `ffi/_struct_reader.ts`.
 *
 * @module
 */
export { resultName } from "./errors.ts";
export type { RuntimeStructName } from "./_struct_layout.ts";
export type { StructField, StructValue } from "./_struct_reader.ts";
export type { ChainInput, StructInput } from "./_struct_writer.ts";
export {
  allocStruct,
  type AllocStructOptions,
  type ChainFor,
  type StructPointer,
  writeStruct,
  writeStructArray,
} from "./struct_write.ts";
export {
  type ChainRead,
  readChain,
  readStruct,
  readStructArray,
  type ReadStructOptions,
  sizeOfStruct,
} from "./struct_read.ts";
export { check, enumerate, type EnumerateCommand, type EnumerateOptions } from "./enumerate.ts";
export { formatApiVersion, makeApiVersion } from "./api_version.ts";
