/**
 * The key of the process-wide handle maps: a handle's address. Each loader object keeps the map of its
 * kind beside its class (`instances` in instance.ts, the physical-device maps beside them,
 * `devices` in device.ts): terminators and trampolines receive bare handles from C and look them up there.
 *
 * @module
 */

/** The address of a handle (0n for null). */
export function key(handle: Deno.PointerValue | unknown): bigint {
  return handle === null || handle === undefined
    ? 0n
    : BigInt(Deno.UnsafePointer.value(handle as Deno.PointerValue));
}
