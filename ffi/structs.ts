/**
 * Struct helpers for calling Vulkan commands from TypeScript (write, allocate, read, enumerate, check,
 * versions): the one path they are imported by, over one module per idea.
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
