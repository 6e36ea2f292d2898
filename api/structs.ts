/**
 * Struct helpers for calling Vulkan commands from TypeScript (write, allocate, read, enumerate, check,
 * versions): the one path they are imported by, over one module per idea.
 *
 * @module
 */
export { resultName } from "../vk/errors.ts";
export type { RuntimeStructName } from "../vk/struct_layout.ts";
export type { StructField, StructValue } from "../vk/struct_value.ts";
export type { ChainInput, StructInput } from "../vk/struct_input.ts";
export {
  allocStruct,
  type AllocStructOptions,
  type ChainFor,
  type StructPointer,
  writeStruct,
  writeStructArray,
} from "../vk/struct_write.ts";
export {
  type ChainRead,
  readChain,
  readStruct,
  readStructArray,
  type ReadStructOptions,
  sizeOfStruct,
} from "../vk/struct_read.ts";
export { check, enumerate, type EnumerateCommand, type EnumerateOptions } from "./enumerate.ts";
export { formatApiVersion, makeApiVersion } from "../vk/api_version.ts";
