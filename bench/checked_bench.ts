/**
 * Checked mode's cost per call on lavapipe (docs/behaviour.md V08): `vkCmdSetLineWidth` and `vkGetDeviceQueue`
 * through libvulkan's export, vkdeno with checked mode off (the bare native stub, as before checked mode
 * existed) and on (`Vulkan.load({ checked: true })`); and a buffer created and destroyed, with no allocation
 * callbacks and with TypeScript ones (which checked mode holds while the buffer lives, V10).
 */

import {
  Arena,
  makeCallback,
  VK_BUFFER_USAGE_TRANSFER_DST_BIT,
  type VkCallback,
  Vulkan,
  writeStruct,
} from "../mod.ts";
import { type Measured, Subject } from "./_percall.ts";
import { type PairedCase, type PairedGroup, runPaired, type Target } from "./_paired.ts";
import { type Commands, setBenchEnvironment } from "./_vulkan.ts";
import { openLibvulkan } from "../tests/support/libvulkan.ts";

const COMMANDS: Measured[] = ["vkCmdSetLineWidth", "vkGetDeviceQueue"];
const REF = "libvulkan export (reference)";
const OFF = "vkdeno, checked mode off (default)";
const ON = "vkdeno, checked mode on";

/** A case creating and destroying a 256-byte buffer on `subject`'s device through its public commands. */
function createDestroy(
  name: string,
  subject: Subject,
  arena: Arena,
  pAllocator: Deno.PointerValue,
): PairedCase {
  const info = writeStruct(arena, "VkBufferCreateInfo", {
    size: 256n,
    usage: VK_BUFFER_USAGE_TRANSFER_DST_BIT,
  });
  const slot = new BigUint64Array(1);
  const pBuffer = Deno.UnsafePointer.of(slot);
  const { vkCreateBuffer, vkDestroyBuffer } = subject.vk;
  const device = subject.device.device;
  return {
    name,
    run(n) {
      for (let i = 0; i < n; i++) {
        if (vkCreateBuffer!(device, info, pAllocator, pBuffer) !== 0) {
          throw new Error("vkCreateBuffer failed");
        }
        vkDestroyBuffer!(device, Deno.UnsafePointer.create(slot[0]!), pAllocator);
      }
    },
  };
}

/** Allocation callbacks in TypeScript over libc (what an application tracking its driver memory writes). */
class Allocator {
  readonly pointer: Deno.PointerObject;
  readonly #libc = Deno.dlopen("libc.so.6", {
    aligned_alloc: { parameters: ["usize", "usize"], result: "pointer" },
    realloc: { parameters: ["pointer", "usize"], result: "pointer" },
    free: { parameters: ["pointer"], result: "void" },
  });
  readonly #callbacks: VkCallback[];

  constructor(arena: Arena) {
    const c = this.#libc.symbols;
    const up = (size: number | bigint, align: number | bigint) =>
      (BigInt(size) + BigInt(align) - 1n) / BigInt(align) * BigInt(align);
    const allocation = makeCallback(
      "PFN_vkAllocationFunction",
      (_user, size, align) => c.aligned_alloc(BigInt(align), up(size, align)),
    );
    const reallocation = makeCallback(
      "PFN_vkReallocationFunction",
      (_user, p, size) => c.realloc(p, BigInt(size)),
    );
    const free = makeCallback("PFN_vkFreeFunction", (_user, p) => c.free(p));
    this.#callbacks = [allocation, reallocation, free];
    this.pointer = writeStruct(arena, "VkAllocationCallbacks", {
      pfnAllocation: allocation.pointer,
      pfnReallocation: reallocation.pointer,
      pfnFree: free.pointer,
    });
  }

  dispose(): void {
    for (const cb of this.#callbacks) cb.dispose();
    this.#libc.close();
  }
}

if (import.meta.main) {
  await runPaired("bench/checked_bench.ts", () => {
    setBenchEnvironment({ VKDENO_CHECKED: undefined });
    const libvulkan = openLibvulkan();
    const plain = Vulkan.load({ checked: false });
    const checked = Vulkan.load({ checked: true });
    const ref = new Subject("libvulkan", libvulkan);
    const off = new Subject("vkdeno", plain as unknown as Commands);
    const on = new Subject("vkdeno checked", checked as unknown as Commands);
    const groups: PairedGroup[] = [];
    const targets: Target[] = [];
    for (const command of COMMANDS) {
      const group = `${command}, no layers`;
      groups.push({
        name: group,
        baseline: REF,
        cases: [ref.publicCase(REF, command), off.publicCase(OFF, command), on.publicCase(ON, command)],
      });
      targets.push({
        label: `${group}: checked off / libvulkan export`,
        group,
        case: OFF,
        against: REF,
        op: "<=",
        limit: 1.05,
      });
    }
    const arena = new Arena();
    const allocator = new Allocator(arena);
    for (
      const [suffix, pAllocator] of [["no allocation callbacks", null], [
        "TypeScript allocation callbacks",
        allocator.pointer,
      ]] as const
    ) {
      groups.push({
        name: `vkCreateBuffer + vkDestroyBuffer, ${suffix}`,
        baseline: REF,
        cases: [
          createDestroy(REF, ref, arena, pAllocator),
          createDestroy(OFF, off, arena, pAllocator),
          createDestroy(ON, on, arena, pAllocator),
        ],
      });
    }
    return Promise.resolve({
      groups,
      targets,
      dispose() {
        for (const s of [on, off, ref]) s[Symbol.dispose]();
        allocator.dispose();
        arena.dispose();
        checked.dispose();
        plain.dispose();
        libvulkan[Symbol.dispose]();
      },
    });
  });
}
