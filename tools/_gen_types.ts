/**
 * The text of vk/generated/types.ts: the shapes of the generated tables (the module contract in BRIEF.md).
 *
 * @module
 */

/** Source of vk/generated/types.ts, after its generated-file header. */
export const TYPES_TEXT = `

/** Dispatch level of a command: which dispatchable handle (if any) its first parameter descends from. */
export type CommandLevel = "global" | "instance" | "physical_device" | "device";

/** One parameter of a command. */
export interface ParamInfo {
  /** Parameter name in vk.xml. */
  readonly name: string;
  /** C type without qualifiers or pointers (\`VkDevice\`, \`uint32_t\`, \`char\`). */
  readonly type: string;
  /** Pointer depth: 0 for a value, 1 for \`T*\`, 2 for \`T**\` or \`const char* const*\`. */
  readonly pointer: number;
  /** Whether the pointee is const. */
  readonly const: boolean;
  /** vk.xml \`len\` (another parameter, \`null-terminated\`, or both). */
  readonly len?: string;
  /** Whether vk.xml marks the parameter optional (first component of \`optional\`). */
  readonly optional?: boolean;
  /** Fixed array length (\`const float blendConstants[4]\`); such parameters are pointers in C. */
  readonly array?: number;
}

/** One command of vk.xml, aliases folded into it. */
export interface CommandInfo {
  readonly name: string;
  /** Position in COMMANDS and the dispatch table slot shared by the command and its aliases. */
  readonly index: number;
  readonly level: CommandLevel;
  /** C result type (\`VkResult\`, \`void\`, \`PFN_vkVoidFunction\`, ...). */
  readonly result: string;
  readonly params: readonly ParamInfo[];
  /** Deno FFI signature (handles and pointers are "pointer"; 64-bit values "u64"). */
  readonly ffi: { parameters: Deno.NativeType[]; result: Deno.NativeResultType };
  /** Other names of the same command (vkCmdDrawIndirectCountKHR, ...). */
  readonly aliases: readonly string[];
  /** Core versions (VK_VERSION_1_0, ...) and extensions that require this name. */
  readonly providers: readonly string[];
}

/** One member of a struct or union, LP64 layout. */
export interface MemberInfo {
  readonly name: string;
  /** C type without qualifiers or pointers. */
  readonly type: string;
  /** Byte offset; for a bit-field, the offset of its storage unit. */
  readonly offset: number;
  /** Bytes taken (element size times count; the unit size for a bit-field). */
  readonly size: number;
  readonly pointer: number;
  readonly const: boolean;
  /** Element count of a fixed array (product of all dimensions). */
  readonly count?: number;
  /** vk.xml \`len\`. */
  readonly len?: string;
  /** Bit-field width (\`uint32_t mask:8\`). */
  readonly bits?: number;
  /** Bit-field position inside its storage unit, from the least significant bit. */
  readonly bitOffset?: number;
  /**
   * vk.xml \`noautovalidity="true"\`: no implicit valid usage; the spec's own rules say when the member is read
   * (it may hold anything where it is ignored).
   */
  readonly noautovalidity?: boolean;
}

/** Layout of a struct or union. */
export interface StructInfo {
  readonly size: number;
  readonly align: number;
  readonly union: boolean;
  /** VkStructureType value of \`sType\`, when vk.xml fixes it. */
  readonly sType?: number;
  /** Structs whose pNext chain this struct may extend. */
  readonly extends?: readonly string[];
  readonly members: readonly MemberInfo[];
}

/** A handle type. */
export interface HandleInfo {
  /** VK_DEFINE_HANDLE (a pointer to an object whose first word is the dispatch table). */
  readonly dispatchable: boolean;
  /** First parent handle in vk.xml. */
  readonly parent?: string;
  /** The handle this name aliases. */
  readonly alias?: string;
}

/** An enum or FlagBits type. */
export interface EnumTypeInfo {
  readonly bitmask: boolean;
  readonly bitwidth: 32 | 64;
  /** Enumerant names (aliases included), values in ENUM_VALUES (and ENUMS or ENUMS64). */
  readonly values: readonly string[];
}

/** An extension. */
export interface ExtensionInfo {
  readonly number: number;
  readonly type: "instance" | "device";
  /** vk.xml \`depends\` expression (\`VK_KHR_surface+VK_VERSION_1_1\`, ...). */
  readonly depends?: string;
  readonly promotedTo?: string;
  readonly platform?: string;
  readonly provisional?: boolean;
}
`;
