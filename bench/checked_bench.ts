/**
 * Checked mode's cost per call on lavapipe (docs/behaviour.md V08): `vkCmdSetLineWidth` and `vkGetDeviceQueue`
 * through libvulkan's export, vkdeno with checked mode off (the bare native stub, as before checked mode
 * existed) and on (`Vulkan.load({ checked: true })`); a descriptor update, whose struct checked mode scans for
 * handles; and a buffer created and destroyed, with no allocation callbacks and with TypeScript ones (which
 * checked mode holds while the buffer lives, V10).
 */

import {
  Arena,
  makeCallback,
  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
  VK_BUFFER_USAGE_TRANSFER_DST_BIT,
  VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
  VK_SHADER_STAGE_COMPUTE_BIT,
  VkApi,
  type VkCallback,
  type VkCommandSource,
  Vulkan,
  writeStruct,
} from "../mod.ts";
import { type Measured, Subject } from "./_percall.ts";
import { callLoop, type PairedCase, type PairedGroup, runPaired, type Target } from "./_paired.ts";
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

/**
 * A case writing one storage-buffer descriptor (`vkUpdateDescriptorSets`, one `VkWriteDescriptorSet` with one
 * `VkDescriptorBufferInfo`) on `subject`'s device; `cleanup` gets what destroys its objects.
 */
function descriptorUpdate(name: string, subject: Subject, arena: Arena, cleanup: (() => void)[]): PairedCase {
  const vk = VkApi.of(subject.vk as unknown as VkCommandSource);
  const device = subject.device.device as never;
  const descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  const setLayout = vk.createDescriptorSetLayout(device, {
    pBindings: [{ binding: 0, descriptorType, descriptorCount: 1, stageFlags: VK_SHADER_STAGE_COMPUTE_BIT }],
  });
  const descriptorPool = vk.createDescriptorPool(device, {
    maxSets: 1,
    pPoolSizes: [{ type: descriptorType, descriptorCount: 1 }],
  });
  const [dstSet] = vk.allocateDescriptorSets(device, { descriptorPool, pSetLayouts: [setLayout] });
  const buffer = vk.createBuffer(device, { size: 256n, usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT });
  const write = writeStruct(arena, "VkWriteDescriptorSet", {
    dstSet: dstSet!,
    descriptorType,
    pBufferInfo: [{ buffer, range: 256n }],
  });
  cleanup.push(() => {
    vk.destroyBuffer(device, buffer);
    vk.destroyDescriptorPool(device, descriptorPool);
    vk.destroyDescriptorSetLayout(device, setLayout);
  });
  const update = subject.vk.vkUpdateDescriptorSets!;
  return { name, run: callLoop(`${subject.label} ${name}`, update, [device, 1, write, 0, null]) };
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
    const cleanup: (() => void)[] = [];
    groups.push({
      name: "vkUpdateDescriptorSets, one storage-buffer write",
      baseline: REF,
      cases: [
        descriptorUpdate(REF, ref, arena, cleanup),
        descriptorUpdate(OFF, off, arena, cleanup),
        descriptorUpdate(ON, on, arena, cleanup),
      ],
    });
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
        for (const done of cleanup) done();
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
