/**
 * The machine code of one unwrap stub and of the error function an empty slot points to.
 *
 * @module
 */

import { STUB_SIZE, type StubArch } from "./elf.ts";

/** What the error function returns: `VK_ERROR_EXTENSION_NOT_PRESENT`. */
export const UNWRAP_ERROR_RESULT = -7;

/**
 * The machine code of an unwrap stub for slot `index`, {@linkcode STUB_SIZE} bytes.
 *
 * @example x86-64
 * ```ts
 * import { unwrapStubCode } from "./unwrap_stub_code.ts";
 * // mov rax,[rdi+0]; mov rdi,[rdi+8]; jmp [rax+0x10]
 * console.log(unwrapStubCode(2, 0, 8, "x86_64").subarray(0, 14));
 * ```
 * @throws {RangeError} If an offset or the index cannot be encoded.
 */
export function unwrapStubCode(index: number, tableOffset: number, handleOffset: number, arch: StubArch) {
  for (const [what, v] of [["table offset", tableOffset], ["handle offset", handleOffset]] as const) {
    if (!Number.isInteger(v) || v < 0 || v > 120 || v % 8 !== 0) {
      throw new RangeError(`Invalid unwrap ${what} "${v}": expected a multiple of 8 from 0 to 120`);
    }
  }
  if (!Number.isInteger(index) || index < 0 || index > 4095) {
    throw new RangeError(`Invalid unwrap stub index "${index}": expected 0 to 4095`);
  }
  const out = new Uint8Array(STUB_SIZE);
  const dv = new DataView(out.buffer);
  if (arch === "x86_64") {
    out.fill(0xcc);
    // mov rax,[rdi+disp8]; mov rdi,[rdi+disp8]; jmp [rax+disp32]
    out.set([0x48, 0x8b, 0x47, tableOffset, 0x48, 0x8b, 0x7f, handleOffset, 0xff, 0xa0]);
    dv.setInt32(10, index * 8, true);
  } else {
    const words = [
      (0xf9400010 | ((tableOffset / 8) << 10)) >>> 0, // ldr x16, [x0, #A]
      (0xf9400000 | ((handleOffset / 8) << 10)) >>> 0, // ldr x0, [x0, #B]
      (0xf9400210 | (index << 10)) >>> 0, // ldr x16, [x16, #8*index]
      0xd61f0200, // br x16
    ];
    words.forEach((w, i) => dv.setUint32(i * 4, w, true));
  }
  return out;
}

/** The code of the error function: returns -7 in the result register. */
export function errorCode(arch: StubArch): Uint8Array {
  const out = new Uint8Array(STUB_SIZE);
  if (arch === "x86_64") {
    out.fill(0xcc);
    out.set([0xb8, 0xf9, 0xff, 0xff, 0xff, 0xc3]); // mov eax,-7; ret
  } else {
    const dv = new DataView(out.buffer);
    [0x128000c0, 0xd65f03c0, 0xd4200000, 0xd4200000].forEach((w, i) => dv.setUint32(i * 4, w, true)); // movn w0,#6; ret
  }
  return out;
}
