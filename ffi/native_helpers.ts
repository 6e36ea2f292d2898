/**
 * The native helper routines the unwrap object carries beside its stubs (stamping, the stamped
 * `vkGetDeviceQueue`, the device table filler), and their TypeScript fallbacks.
 *
 * @module
 */

import { STUB_SIZE, type StubArch } from "./elf.ts";

/** Little helpers the loader's trampolines call after a stub, so that stamping needs no JavaScript memory access. */
export const UNWRAP_HELPERS = {
  /** `void stamp_out(void** parent, void*** pChild)`: `if (*pChild) **pChild = *parent`. */
  vkdeno_stamp_out: { parameters: ["pointer", "pointer"], result: "void" },
  /** `void stamp_array(void** parent, void*** array, uint32_t n)`: stamps each non-null `array[i]`. */
  vkdeno_stamp_array: { parameters: ["pointer", "pointer", "u32"], result: "void" },
  /** `uint32_t read_u32(const void* p, size_t offset)`. */
  vkdeno_read_u32: { parameters: ["pointer", "usize"], result: "u32" },
  /**
   * `void store_pointer(void** slot, void* value)`: `*slot = value`, a handle written into memory without
   * reading its address in JavaScript (`Deno.UnsafePointer.value` costs ~100 ns in a callback).
   */
  vkdeno_store_pointer: { parameters: ["pointer", "pointer"], result: "void" },
} as const satisfies Record<string, Deno.ForeignFunction>;

/**
 * Native `vkGetDeviceQueue` and `vkGetDeviceQueue2` for a loader's device tables (x86-64 only; elsewhere the
 * loader stamps in TypeScript): each calls the command's next function, kept in a hidden table word after
 * the named slots ({@linkcode stampedQueueCode}), then writes the device's first word (its table) into
 * the new queue, as libvulkan's trampolines do. The table's own slot for the command points here, so the
 * public command is a plain dispatch stub with no JavaScript per call.
 */
export const STAMPED_QUEUE_SYMBOLS = ["vkdeno_get_queue_stamped", "vkdeno_get_queue2_stamped"] as const;

/**
 * The code of stamped-queue helper `which` (0: `vkGetDeviceQueue`, queue pointer in the 4th argument;
 * 1: `vkGetDeviceQueue2`, 3rd argument) calling table word `nextSlot`; undefined where not written (aarch64).
 *
 * @example Usage
 * ```ts
 * import { stampedQueueCode } from "./native_helpers.ts";
 * console.log(stampedQueueCode(0, 1237, "x86_64")?.length); // 48
 * ```
 */
export function stampedQueueCode(which: 0 | 1, nextSlot: number, arch: StubArch): Uint8Array | undefined {
  if (arch !== "x86_64") return undefined;
  const disp = nextSlot * 8;
  const code = [
    0x53, // push rbx
    0x41,
    0x54, // push r12
    0x48,
    0x83,
    0xec,
    0x08, // sub rsp,8 (the call below needs a 16-byte aligned stack)
    0x48,
    0x89,
    0xfb, // mov rbx,rdi (device)
    ...(which === 0 ? [0x49, 0x89, 0xcc] : [0x49, 0x89, 0xd4]), // mov r12,rcx or rdx (pQueue)
    0x48,
    0x8b,
    0x07, // mov rax,[rdi] (the device's table)
    0xff,
    0x90,
    disp & 0xff,
    (disp >> 8) & 0xff,
    (disp >> 16) & 0xff,
    (disp >>> 24) & 0xff, // call [rax+disp32]
    0x49,
    0x8b,
    0x0c,
    0x24, // mov rcx,[r12] (the queue)
    0x48,
    0x85,
    0xc9, // test rcx,rcx
    0x74,
    0x06, // je +6
    0x48,
    0x8b,
    0x03, // mov rax,[rbx]
    0x48,
    0x89,
    0x01, // mov [rcx],rax
    0x48,
    0x83,
    0xc4,
    0x08, // add rsp,8
    0x41,
    0x5c, // pop r12
    0x5b, // pop rbx
    0xc3, // ret
  ];
  const out = new Uint8Array(Math.ceil(code.length / STUB_SIZE) * STUB_SIZE).fill(0xcc);
  out.set(code);
  return out;
}

/** Symbol of the native table filler ({@linkcode fillTableCode}). */
export const FILL_TABLE_SYMBOL = "vkdeno_fill_table";

/** FFI definition of the native table filler. */
export const FILL_TABLE_DEF = {
  parameters: ["pointer", "pointer", "pointer", "u32", "buffer"],
  result: "void",
} as const satisfies Deno.ForeignFunction;

/**
 * The code of `void fill_table(PFN_vkGetDeviceProcAddr gpa, void* handle, const char* const* names,
 * uint32_t count, void** out)`: `out[i] = gpa(handle, names[i])` for each name, in native code, so that
 * filling a device table is one foreign call instead of ~1,000 `UnsafeFnPointer` round trips (~1.5 us
 * each). Undefined where not written (aarch64: the loader loops in TypeScript).
 *
 * @example Usage
 * ```ts
 * import { fillTableCode } from "./native_helpers.ts";
 * console.log(fillTableCode("x86_64")?.length); // 64
 * ```
 */
export function fillTableCode(arch: StubArch): Uint8Array | undefined {
  if (arch !== "x86_64") return undefined;
  const code = [
    0x53, // push rbx
    0x41,
    0x54, // push r12
    0x41,
    0x55, // push r13
    0x41,
    0x56, // push r14
    0x41,
    0x57, // push r15 (five pushes: the stack is 16-byte aligned for the calls)
    0x48,
    0x89,
    0xfb, // mov rbx,rdi (gpa)
    0x49,
    0x89,
    0xf4, // mov r12,rsi (handle)
    0x49,
    0x89,
    0xd5, // mov r13,rdx (names)
    0x41,
    0x89,
    0xce, // mov r14d,ecx (count)
    0x4d,
    0x89,
    0xc7, // mov r15,r8 (out)
    // loop:
    0x45,
    0x85,
    0xf6, // test r14d,r14d
    0x74,
    0x19, // je done
    0x4c,
    0x89,
    0xe7, // mov rdi,r12
    0x49,
    0x8b,
    0x75,
    0x00, // mov rsi,[r13]
    0xff,
    0xd3, // call rbx
    0x49,
    0x89,
    0x07, // mov [r15],rax
    0x49,
    0x83,
    0xc5,
    0x08, // add r13,8
    0x49,
    0x83,
    0xc7,
    0x08, // add r15,8
    0x41,
    0xff,
    0xce, // dec r14d
    0xeb,
    0xe2, // jmp loop
    // done:
    0x41,
    0x5f, // pop r15
    0x41,
    0x5e, // pop r14
    0x41,
    0x5d, // pop r13
    0x41,
    0x5c, // pop r12
    0x5b, // pop rbx
    0xc3, // ret
  ];
  const out = new Uint8Array(Math.ceil(code.length / STUB_SIZE) * STUB_SIZE).fill(0xcc);
  out.set(code);
  return out;
}

/** Helper name to its machine code (each padded to whole stub slots) for `arch`. */
export function helperCode(name: keyof typeof UNWRAP_HELPERS, arch: StubArch): Uint8Array {
  const x86: Record<keyof typeof UNWRAP_HELPERS, number[]> = {
    // mov rax,[rdi]; mov rcx,[rsi]; test rcx,rcx; je +3; mov [rcx],rax; ret
    vkdeno_stamp_out: [
      0x48,
      0x8b,
      0x07,
      0x48,
      0x8b,
      0x0e,
      0x48,
      0x85,
      0xc9,
      0x74,
      0x03,
      0x48,
      0x89,
      0x01,
      0xc3,
    ],
    // mov rax,[rdi]; test edx,edx; je done; loop: mov rcx,[rsi]; test rcx,rcx; je +3; mov [rcx],rax;
    // add rsi,8; dec edx; jne loop; done: ret
    vkdeno_stamp_array: [
      0x48,
      0x8b,
      0x07,
      0x85,
      0xd2,
      0x74,
      0x13,
      0x48,
      0x8b,
      0x0e,
      0x48,
      0x85,
      0xc9,
      0x74,
      0x03,
      0x48,
      0x89,
      0x01,
      0x48,
      0x83,
      0xc6,
      0x08,
      0xff,
      0xca,
      0x75,
      0xed,
      0xc3,
    ],
    // mov eax,[rdi+rsi]; ret
    vkdeno_read_u32: [0x8b, 0x04, 0x37, 0xc3],
    // mov [rdi],rsi; ret
    vkdeno_store_pointer: [0x48, 0x89, 0x37, 0xc3],
  };
  const a64: Record<keyof typeof UNWRAP_HELPERS, number[]> = {
    // ldr x16,[x0]; ldr x17,[x1]; cbz x17,+8; str x16,[x17]; ret
    vkdeno_stamp_out: [0xf9400010, 0xf9400031, 0xb4000051, 0xf9000230, 0xd65f03c0],
    // ldr x16,[x0]; cbz w2,done; loop: ldr x17,[x1],#8; cbz x17,+8; str x16,[x17]; subs w2,w2,#1;
    // b.ne loop; done: ret
    vkdeno_stamp_array: [
      0xf9400010,
      0x340000c2,
      0xf8408431,
      0xb4000051,
      0xf9000230,
      0x71000442,
      0x54ffff81,
      0xd65f03c0,
    ],
    // ldr w0,[x0,x1]; ret
    vkdeno_read_u32: [0xb8616800, 0xd65f03c0],
    // str x1,[x0]; ret
    vkdeno_store_pointer: [0xf9000001, 0xd65f03c0],
  };
  if (arch === "x86_64") {
    const code = x86[name];
    const out = new Uint8Array(Math.ceil(code.length / STUB_SIZE) * STUB_SIZE).fill(0xcc);
    out.set(code);
    return out;
  }
  const words = a64[name];
  const out = new Uint8Array(Math.ceil((words.length * 4) / STUB_SIZE) * STUB_SIZE);
  const dv = new DataView(out.buffer);
  for (let i = 0; i < out.length / 4; i++) dv.setUint32(i * 4, words[i] ?? 0xd4200000, true); // brk #0 padding
  return out;
}

const view = (p: Deno.PointerValue) => new Deno.UnsafePointerView(p as Deno.PointerObject);

/** The helpers in TypeScript, for the fallback mode. */
export const HELPER_FALLBACKS: Record<keyof typeof UNWRAP_HELPERS, (...args: never[]) => unknown> = {
  vkdeno_stamp_out: (parent: Deno.PointerValue, pChild: Deno.PointerValue) => {
    if (parent === null || pChild === null) return;
    const child = view(pChild).getPointer(0);
    if (child === null) return;
    new DataView(Deno.UnsafePointerView.getArrayBuffer(child, 8)).setBigUint64(
      0,
      view(parent).getBigUint64(0),
      true,
    );
  },
  vkdeno_stamp_array: (parent: Deno.PointerValue, array: Deno.PointerValue, n: number) => {
    for (let i = 0; i < n && array !== null; i++) {
      HELPER_FALLBACKS.vkdeno_stamp_out(parent as never, Deno.UnsafePointer.offset(array, i * 8) as never);
    }
  },
  vkdeno_read_u32: (p: Deno.PointerValue, offset: number | bigint) => view(p).getUint32(Number(offset)),
  vkdeno_store_pointer: (slot: Deno.PointerValue, value: Deno.PointerValue) => {
    new DataView(Deno.UnsafePointerView.getArrayBuffer(slot as Deno.PointerObject, 8)).setBigUint64(
      0,
      BigInt(Deno.UnsafePointer.value(value)),
      true,
    );
  },
};
