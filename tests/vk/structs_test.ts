/** Struct helpers: layouts from vk/generated drive writes and reads; sType, pNext, counts, strings. */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { VkError } from "../../vk/errors.ts";
import { Arena, readCString, readPointer } from "../../ffi/memory.ts";
import {
  allocStruct,
  check,
  enumerate,
  formatApiVersion,
  makeApiVersion,
  readChain,
  readStruct,
  readStructArray,
  sizeOfStruct,
  type StructInput,
  writeStruct,
  writeStructArray,
} from "../../api/structs.ts";
import { buildProgram } from "../support/c_build.ts";
import { asHandle } from "../../vk/handle.ts";
import {
  VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
  VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
  VK_VALIDATION_FEATURE_ENABLE_BEST_PRACTICES_EXT,
  VK_VALIDATION_FEATURE_ENABLE_GPU_ASSISTED_RESERVE_BINDING_SLOT_EXT,
  type VkStructureType,
} from "../../mod.ts";
import {
  VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
  VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT,
} from "../../mod.ts";

function assertThrows<E extends Error>(
  fn: () => unknown,
  type: new (...args: never[]) => E,
  includes?: string,
): E {
  try {
    fn();
  } catch (e) {
    assert(e instanceof type, `expected ${type.name}, got ${e}`);
    if (includes !== undefined) assert(e.message.includes(includes), `"${e.message}" lacks "${includes}"`);
    return e;
  }
  throw new Error(`expected ${type.name}, nothing was thrown`);
}

function bytesAt(pointer: Deno.PointerValue, size: number): Uint8Array {
  return new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(pointer!, size)).slice();
}

function cStrings(list: Deno.PointerValue, count: number): string[] {
  return Array.from({ length: count }, (_, i) => readCString(readPointer(list, i * 8)));
}

Deno.test("sType is filled from the registry, an explicit one is kept", () => {
  using arena = new Arena();
  assertEquals(readStruct("VkBufferCreateInfo", writeStruct(arena, "VkBufferCreateInfo", {})).sType, 12);
  assertEquals(readStruct("VkFenceCreateInfo", writeStruct(arena, "VkFenceCreateInfo")).sType, 8);
  assertEquals(
    readStruct(
      "VkBufferCreateInfo",
      writeStruct(arena, "VkBufferCreateInfo", { sType: 7 as VkStructureType }),
    ).sType,
    7,
  );
  const outputs = allocStruct(arena, "VkQueueFamilyProperties2", { count: 3 });
  assertEquals(readStructArray("VkQueueFamilyProperties2", outputs, 3).map((s) => s.sType), [
    1000059005,
    1000059005,
    1000059005,
  ]);
});

Deno.test("nested struct pointers and C strings are allocated in the arena", () => {
  using arena = new Arena();
  const info = readStruct(
    "VkInstanceCreateInfo",
    writeStruct(arena, "VkInstanceCreateInfo", {
      pApplicationInfo: { apiVersion: makeApiVersion(1, 3), pApplicationName: "x", applicationVersion: 7 },
      ppEnabledExtensionNames: ["VK_KHR_surface", "VK_KHR_xcb_surface"],
      ppEnabledLayerNames: ["VK_LAYER_KHRONOS_validation"],
    }),
  );
  const app = readStruct("VkApplicationInfo", info.pApplicationInfo as Deno.PointerValue);
  assertEquals(app.sType, 0);
  assertEquals(app.apiVersion, 0x403000);
  assertEquals(app.applicationVersion, 7);
  assertEquals(readCString(app.pApplicationName as Deno.PointerValue), "x");
  assertEquals(app.pEngineName, null);
  assertEquals(info.enabledExtensionCount, 2);
  assertEquals(cStrings(info.ppEnabledExtensionNames as Deno.PointerValue, 2), [
    "VK_KHR_surface",
    "VK_KHR_xcb_surface",
  ]);
  assertEquals(info.enabledLayerCount, 1);
  assertEquals(cStrings(info.ppEnabledLayerNames as Deno.PointerValue, 1), ["VK_LAYER_KHRONOS_validation"]);
});

Deno.test("count members are filled from the arrays they count, unless given", () => {
  using arena = new Arena();
  const device = readStruct(
    "VkDeviceCreateInfo",
    writeStruct(arena, "VkDeviceCreateInfo", {
      pQueueCreateInfos: [
        { queueFamilyIndex: 0, pQueuePriorities: [1, 0.5] },
        { queueFamilyIndex: 2, pQueuePriorities: new Float32Array([0.25]) },
      ],
    }),
  );
  assertEquals(device.queueCreateInfoCount, 2);
  const queues = readStructArray("VkDeviceQueueCreateInfo", device.pQueueCreateInfos as Deno.PointerValue, 2);
  assertEquals(queues.map((q) => [q.sType, q.queueFamilyIndex, q.queueCount]), [[2, 0, 2], [2, 2, 1]]);
  const priorities = new Float32Array(
    Deno.UnsafePointerView.getArrayBuffer(queues[0]!.pQueuePriorities as Deno.PointerObject, 8),
  );
  assertEquals([...priorities], [1, 0.5]);
  // An explicit count wins (a caller may pass fewer than the array holds).
  const partial = writeStruct(arena, "VkInstanceCreateInfo", {
    ppEnabledExtensionNames: ["a", "b"],
    enabledExtensionCount: 1,
  });
  assertEquals(readStruct("VkInstanceCreateInfo", partial).enabledExtensionCount, 1);
  // codeSize counts bytes of the uint32_t array.
  const module = writeStruct(arena, "VkShaderModuleCreateInfo", {
    pCode: new Uint32Array([0x07230203, 1, 2]),
  });
  assertEquals(readStruct("VkShaderModuleCreateInfo", module).codeSize, 12n);
  // Two arrays sharing one count must agree.
  assertThrows(
    () =>
      writeStruct(arena, "VkSubmitInfo", {
        pWaitSemaphores: [0x1000n, 0x1008n].map((a) =>
          asHandle("VkSemaphore", Deno.UnsafePointer.create(a)!)
        ),
        pWaitDstStageMask: [VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT],
      }),
    RangeError,
  );
  const submit = readStruct(
    "VkSubmitInfo",
    writeStruct(arena, "VkSubmitInfo", {
      pWaitSemaphores: [asHandle("VkSemaphore", Deno.UnsafePointer.create(0x1000n)!)],
      pWaitDstStageMask: [VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT],
      pCommandBuffers: [0x2000n, 0x3000n].map((a) =>
        asHandle("VkCommandBuffer", Deno.UnsafePointer.create(a)!)
      ),
    }),
  );
  assertEquals([submit.waitSemaphoreCount, submit.commandBufferCount, submit.signalSemaphoreCount], [
    1,
    2,
    0,
  ]);
  assertEquals(
    new BigUint64Array(bytesAt(submit.pCommandBuffers as Deno.PointerValue, 16).buffer),
    new BigUint64Array([0x2000n, 0x3000n]),
  );
});

Deno.test("pNext chains link a list in order, nested objects, and raw pointers", () => {
  using arena = new Arena();
  const tail = writeStruct(arena, "VkPhysicalDeviceVulkan11Features", { multiview: 1 });
  const head = writeStruct(arena, "VkPhysicalDeviceFeatures2", {
    features: { robustBufferAccess: 1 },
    pNext: [
      { type: "VkPhysicalDeviceVulkan12Features", timelineSemaphore: 1 },
      { type: "VkPhysicalDeviceVulkan13Features", synchronization2: 1, pNext: tail },
    ],
  });
  const chain = readChain(head);
  assertEquals(chain.map((s) => [s.type, s.sType]), [
    ["VkPhysicalDeviceVulkan12Features", 51],
    ["VkPhysicalDeviceVulkan13Features", 53],
    ["VkPhysicalDeviceVulkan11Features", 49],
  ]);
  assertEquals([chain[0]!.timelineSemaphore, chain[1]!.synchronization2, chain[2]!.multiview], [1, 1, 1]);
  assertEquals(readStruct("VkPhysicalDeviceFeatures2", head).features, {
    ...readStruct("VkPhysicalDeviceFeatures", writeStruct(arena, "VkPhysicalDeviceFeatures", {})),
    robustBufferAccess: 1,
  });
  const nested = writeStruct(arena, "VkInstanceCreateInfo", {
    pNext: {
      type: "VkValidationFeaturesEXT",
      pEnabledValidationFeatures: [
        VK_VALIDATION_FEATURE_ENABLE_GPU_ASSISTED_RESERVE_BINDING_SLOT_EXT,
        VK_VALIDATION_FEATURE_ENABLE_BEST_PRACTICES_EXT,
      ],
      pNext: {
        type: "VkDebugUtilsMessengerCreateInfoEXT",
        messageSeverity: VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        messageType: VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT,
        pfnUserCallback: null,
      },
    },
  });
  assertEquals(readChain(nested).map((s) => s.type), [
    "VkValidationFeaturesEXT",
    "VkDebugUtilsMessengerCreateInfoEXT",
  ]);
  assertEquals(readChain(nested)[0]!.enabledValidationFeatureCount, 2);
  assertThrows(
    // @ts-expect-error not a struct extending VkInstanceCreateInfo: deno check and the run-time check both catch it
    () => writeStruct(arena, "VkInstanceCreateInfo", { pNext: [{ timelineSemaphore: 1 }] }),
    TypeError,
  );
});

Deno.test("allocStruct links an output pNext chain with every sType set", () => {
  using arena = new Arena();
  const props = allocStruct(arena, "VkPhysicalDeviceProperties2", {
    pNext: [{ type: "VkPhysicalDeviceDriverProperties" }, { type: "VkPhysicalDeviceIDProperties" }],
  });
  assertEquals(readStruct("VkPhysicalDeviceProperties2", props).sType, 1000059001);
  assertEquals(readChain(props).map((s) => s.sType), [1000196000, 1000071004]);
});

Deno.test("fixed arrays, char arrays, 64-bit members and floats round-trip", () => {
  using arena = new Arena();
  const input = {
    apiVersion: makeApiVersion(1, 3, 230),
    deviceType: 4,
    deviceName: "llvmpipe (LLVM 15.0.6, 256 bits)",
    pipelineCacheUUID: Array.from({ length: 16 }, (_, i) => i * 3),
    limits: {
      maxComputeWorkGroupCount: [65535, 2, 3],
      bufferImageGranularity: 0x123456789abcdef0n,
      maxSamplerAnisotropy: 16.5,
      pointSizeRange: [1, 64],
      minMemoryMapAlignment: 64n,
      minTexelOffset: -8,
    },
    sparseProperties: { residencyStandard2DBlockShape: 1 },
  } satisfies StructInput;
  const back = readStruct(
    "VkPhysicalDeviceProperties",
    writeStruct(arena, "VkPhysicalDeviceProperties" as string, input),
  );
  assertEquals(back.deviceName, input.deviceName);
  assertEquals(back.pipelineCacheUUID, input.pipelineCacheUUID);
  const limits = back.limits as Record<string, unknown>;
  assertEquals(limits.maxComputeWorkGroupCount, [65535, 2, 3]);
  assertEquals(limits.bufferImageGranularity, 0x123456789abcdef0n);
  assertEquals(limits.maxSamplerAnisotropy, 16.5);
  assertEquals(limits.pointSizeRange, [1, 64]);
  assertEquals(limits.minMemoryMapAlignment, 64n);
  assertEquals(limits.minTexelOffset, -8);
  assertEquals((back.sparseProperties as Record<string, unknown>).residencyStandard2DBlockShape, 1);
  assertThrows(() => writeStruct(arena, "VkLayerProperties", { layerName: "x".repeat(256) }), RangeError);
});

Deno.test("a misspelled member is named first, with the closest member's name, even where it leaves out a required one", () => {
  using arena = new Arena();
  const queue = { queueFamilyIndex: 0, pQueuePriority: [1] };
  const e = assertThrows(
    // @ts-expect-error misspelled member: deno check and the run-time check both catch it
    () => writeStruct(arena, "VkDeviceCreateInfo", { pQueueCreateInfos: [queue] }),
    TypeError,
  );
  assertEquals(
    e.message,
    'pQueueCreateInfos[0]: Unknown member "pQueuePriority" of "VkDeviceQueueCreateInfo" (did you mean ' +
      '"pQueuePriorities"?)',
  );
  // Nothing close: no hint.
  const far = assertThrows(() => writeStruct(arena, "VkExtent2D", { depth: 1 } as never), TypeError);
  assertEquals(far.message, 'Unknown member "depth" of "VkExtent2D"');
});

Deno.test("unknown structs, unknown members and wrong shapes throw", () => {
  using arena = new Arena();
  // @ts-expect-error unknown struct name: deno check and the run-time check both catch it
  assertThrows(() => writeStruct(arena, "VkNoSuchStruct", {}), TypeError, '"VkNoSuchStruct"');
  assertThrows(
    // @ts-expect-error misspelled member: deno check and the run-time check both catch it
    () => writeStruct(arena, "VkInstanceCreateInfo", { enabledExtensionNames: ["a"] }),
    TypeError,
    'Unknown member "enabledExtensionNames" of "VkInstanceCreateInfo"',
  );
  assertThrows(
    // @ts-expect-error wrong member type: deno check and the run-time check both catch it
    () => writeStruct(arena, "VkExtent2D", { width: "wide" }),
    TypeError,
    '"width" of "VkExtent2D"',
  );
  // @ts-expect-error wrong shape: deno check and the run-time check both catch it
  assertThrows(() => writeStruct(arena, "VkDeviceCreateInfo", { pQueueCreateInfos: 3 }), TypeError);
  assertThrows(() => readStruct("VkExtent2D", null), TypeError);
});

Deno.test("aliases of structs resolve to their target's layout", () => {
  using arena = new Arena();
  assertEquals(sizeOfStruct("VkPhysicalDeviceFeatures2KHR"), sizeOfStruct("VkPhysicalDeviceFeatures2"));
  assertEquals(
    readStruct("VkPhysicalDeviceFeatures2KHR", writeStruct(arena, "VkPhysicalDeviceFeatures2KHR")).sType,
    1000059000,
  );
});

Deno.test("check returns success and positive codes, throws VkError for negative ones", () => {
  assertEquals(check(0, "vkCreateInstance"), 0);
  assertEquals(check(1000001003, "vkAcquireNextImageKHR"), 1000001003);
  assertEquals(check(5, "vkEnumeratePhysicalDevices"), 5);
  const e = assertThrows(() => check(-9, "vkCreateInstance"), VkError);
  assertEquals([e.result, e.code], ["VK_ERROR_INCOMPATIBLE_DRIVER", -9]);
  assert(e.message.includes('"vkCreateInstance"'));
});

Deno.test("API versions pack like VK_MAKE_API_VERSION and format as major.minor.patch", () => {
  assertEquals(makeApiVersion(1, 0), 0x400000);
  assertEquals(makeApiVersion(1, 3, 239), 4206831);
  assertEquals(makeApiVersion(1, 2, 0, 7), 0xe0402000);
  assertEquals(formatApiVersion(4206831), "1.3.239");
  assertEquals(formatApiVersion(makeApiVersion(1, 2, 0, 7)), "1.2.0");
  assertThrows(() => makeApiVersion(1, 1024), RangeError);
});

/** A fake two-call command whose list grows between calls (call i sees `lists[i]`), as devices may. */
function fakeEnumerator(lists: number[][]) {
  let call = 0;
  const calls: string[] = [];
  const command = (_instance: unknown, pCount: Deno.PointerObject, pItems: Deno.PointerValue) => {
    const items = lists[Math.min(call++, lists.length - 1)]!;
    const count = new Uint32Array(Deno.UnsafePointerView.getArrayBuffer(pCount, 4));
    if (pItems === null) {
      calls.push("count");
      count[0] = items.length;
      return 0;
    }
    calls.push(`fill ${count[0]}`);
    const n = Math.min(count[0]!, items.length);
    const out = new BigUint64Array(Deno.UnsafePointerView.getArrayBuffer(pItems, 8 * n));
    for (let i = 0; i < n; i++) out[i] = BigInt(items[i]!);
    count[0] = n;
    return n < items.length ? 5 : 0;
  };
  return { command, calls };
}

Deno.test("enumerate runs the two-call idiom and retries on VK_INCOMPLETE", () => {
  const fake = fakeEnumerator([[0x10, 0x20], [0x10, 0x20, 0x30]]);
  const handles = enumerate(fake.command, [null]);
  assertEquals(
    handles.map((h) => Deno.UnsafePointer.value(h)),
    [0x10n, 0x20n, 0x30n].map(Number).map(BigInt),
  );
  assertEquals(fake.calls, ["count", "fill 2", "count", "fill 3"]);
  assertEquals(enumerate(fakeEnumerator([[]]).command, [null]), []);
  const failing = () => -3;
  assertThrows(() => enumerate(failing, [], { name: "vkEnumerateX" }), VkError, '"vkEnumerateX"');
});

Deno.test("enumerate reads struct outputs with their sType prefilled", () => {
  const seen: number[] = [];
  const command = (pCount: Deno.PointerObject, pItems: Deno.PointerValue) => {
    const count = new Uint32Array(Deno.UnsafePointerView.getArrayBuffer(pCount, 4));
    if (pItems === null) {
      count[0] = 2;
      return;
    }
    const size = sizeOfStruct("VkQueueFamilyProperties2");
    for (let i = 0; i < 2; i++) {
      const view = new DataView(Deno.UnsafePointerView.getArrayBuffer(pItems, size, i * size));
      seen.push(view.getUint32(0, true));
      view.setUint32(16, 0x2 | i, true); // queueFamilyProperties.queueFlags
    }
  };
  const families = enumerate(command, [], { struct: "VkQueueFamilyProperties2" });
  assertEquals(seen, [1000059005, 1000059005]);
  assertEquals(families.map((f) => (f.queueFamilyProperties as Record<string, unknown>).queueFlags), [2, 3]);
});

Deno.test("writeStructArray lays structs out at their stride", () => {
  using arena = new Arena();
  const p = writeStructArray(arena, "VkExtent3D", [{ width: 1, height: 2, depth: 3 }, { width: 4 }]);
  assertEquals([...new Uint32Array(bytesAt(p, 24).buffer)], [1, 2, 3, 4, 0, 0]);
});

/** C fills these structs through the installed headers; TypeScript must write the same bytes and read them back. */
const C_LAYOUT_PROBE = String.raw`
#include <stdio.h>
#include <string.h>
#include <vulkan/vulkan.h>
static void dump(const char* name, const void* p, size_t n) {
  printf("%s ", name);
  for (size_t i = 0; i < n; i++) printf("%02x", ((const unsigned char*)p)[i]);
  printf("\n");
}
int main(void) {
  VkPhysicalDeviceProperties props;
  memset(&props, 0, sizeof props);
  props.apiVersion = VK_MAKE_API_VERSION(0, 1, 3, 230);
  props.driverVersion = 0x80000001u;
  props.vendorID = 0x10005;
  props.deviceType = VK_PHYSICAL_DEVICE_TYPE_CPU;
  strcpy(props.deviceName, "llvmpipe (LLVM 15.0.6, 256 bits)");
  for (int i = 0; i < VK_UUID_SIZE; i++) props.pipelineCacheUUID[i] = (uint8_t)(i * 3);
  props.limits.maxComputeWorkGroupCount[0] = 65535;
  props.limits.maxComputeWorkGroupCount[2] = 3;
  props.limits.bufferImageGranularity = 0x123456789abcdef0ull;
  props.limits.maxSamplerAnisotropy = 16.5f;
  props.limits.pointSizeRange[1] = 64.0f;
  props.limits.minMemoryMapAlignment = 64;
  props.limits.minTexelOffset = -8;
  props.limits.nonCoherentAtomSize = 256;
  props.sparseProperties.residencyNonResidentStrict = VK_TRUE;
  dump("VkPhysicalDeviceProperties", &props, sizeof props);

  VkPhysicalDeviceMemoryProperties memory;
  memset(&memory, 0, sizeof memory);
  memory.memoryTypeCount = 2;
  memory.memoryTypes[1].propertyFlags = 6;
  memory.memoryTypes[1].heapIndex = 1;
  memory.memoryHeapCount = 2;
  memory.memoryHeaps[1].size = 1ull << 40;
  memory.memoryHeaps[1].flags = 1;
  dump("VkPhysicalDeviceMemoryProperties", &memory, sizeof memory);

  VkAccelerationStructureInstanceKHR instance;
  memset(&instance, 0, sizeof instance);
  instance.transform.matrix[0][0] = 1.0f;
  instance.transform.matrix[2][3] = -2.5f;
  instance.instanceCustomIndex = 0x123456;
  instance.mask = 0xab;
  instance.instanceShaderBindingTableRecordOffset = 0xfedcba;
  instance.flags = 0x5;
  instance.accelerationStructureReference = 0xdeadbeef00000001ull;
  dump("VkAccelerationStructureInstanceKHR", &instance, sizeof instance);

  VkClearValue clear;
  memset(&clear, 0, sizeof clear);
  clear.depthStencil.depth = 0.5f;
  clear.depthStencil.stencil = 7;
  dump("VkClearValue", &clear, sizeof clear);
  return 0;
}
`;

const C_LAYOUT_VALUES: Record<string, StructInput> = {
  VkPhysicalDeviceProperties: {
    apiVersion: makeApiVersion(1, 3, 230),
    driverVersion: 0x80000001,
    vendorID: 0x10005,
    deviceType: 4,
    deviceName: "llvmpipe (LLVM 15.0.6, 256 bits)",
    pipelineCacheUUID: Array.from({ length: 16 }, (_, i) => i * 3),
    limits: {
      maxComputeWorkGroupCount: [65535, 0, 3],
      bufferImageGranularity: 0x123456789abcdef0n,
      maxSamplerAnisotropy: 16.5,
      pointSizeRange: [0, 64],
      minMemoryMapAlignment: 64n,
      minTexelOffset: -8,
      nonCoherentAtomSize: 256n,
    },
    sparseProperties: { residencyNonResidentStrict: 1 },
  },
  VkPhysicalDeviceMemoryProperties: {
    memoryTypeCount: 2,
    memoryTypes: [{}, { propertyFlags: 6, heapIndex: 1 }],
    memoryHeapCount: 2,
    memoryHeaps: [{}, { size: 1n << 40n, flags: 1 }],
  },
  VkAccelerationStructureInstanceKHR: {
    transform: { matrix: [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -2.5] },
    instanceCustomIndex: 0x123456,
    mask: 0xab,
    instanceShaderBindingTableRecordOffset: 0xfedcba,
    flags: 0x5,
    accelerationStructureReference: 0xdeadbeef00000001n,
  },
  VkClearValue: { depthStencil: { depth: 0.5, stencil: 7 } },
};

Deno.test("written bytes equal what C writes through the installed headers, and read back", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vkdeno_structs_" });
  try {
    await buildProgram(dir, C_LAYOUT_PROBE);
    const out = await new Deno.Command(`${dir}/probe`).output();
    const dumps = new Map(
      new TextDecoder().decode(out.stdout).trim().split("\n").map((line) => {
        const [name, hex] = line.split(" ") as [string, string];
        return [name, Uint8Array.from(hex.match(/../g)!, (h) => parseInt(h, 16))];
      }),
    );
    assertEquals([...dumps.keys()], Object.keys(C_LAYOUT_VALUES));
    using arena = new Arena();
    for (const [name, value] of Object.entries(C_LAYOUT_VALUES)) {
      const c = dumps.get(name)!;
      assertEquals(sizeOfStruct(name), c.length, name);
      assertEquals(bytesAt(writeStruct(arena, name, value), c.length), c, name);
      const back = readStruct(name, c);
      // Writing what was read reproduces the C bytes: every member read back at its C offset and width.
      assertEquals(bytesAt(writeStruct(arena, name, back), c.length), c, name);
    }
    const props = readStruct("VkPhysicalDeviceProperties", dumps.get("VkPhysicalDeviceProperties")!);
    assertEquals(props.deviceName, "llvmpipe (LLVM 15.0.6, 256 bits)");
    assertEquals((props.limits as Record<string, unknown>).bufferImageGranularity, 0x123456789abcdef0n);
    const memory = readStruct(
      "VkPhysicalDeviceMemoryProperties",
      dumps.get("VkPhysicalDeviceMemoryProperties")!,
    );
    assertEquals((memory.memoryHeaps as unknown[])[1], { size: 1n << 40n, flags: 1 });
    const instance = readStruct(
      "VkAccelerationStructureInstanceKHR",
      dumps.get("VkAccelerationStructureInstanceKHR")!,
    );
    assertEquals(
      [
        instance.instanceCustomIndex,
        instance.mask,
        instance.instanceShaderBindingTableRecordOffset,
        instance.flags,
      ],
      [0x123456, 0xab, 0xfedcba, 0x5],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("everything a written struct points to survives garbage collection while its arena lives", async () => {
  const script = `
    import { Arena, readCString, readPointer } from "${new URL("../../ffi/memory.ts", import.meta.url).href}";
    import { readStruct, writeStruct } from "${new URL("../../api/structs.ts", import.meta.url).href}";
    const arena = new Arena();
    const names = Array.from({ length: 64 }, (_, i) => "VK_EXT_name_" + i);
    let info = writeStruct(arena, "VkInstanceCreateInfo", {
      pApplicationInfo: { pApplicationName: "kept alive", apiVersion: 1 << 22 },
      ppEnabledExtensionNames: names,
    });
    const address = Deno.UnsafePointer.value(info);
    info = null;
    for (let round = 0; round < 5; round++) {
      globalThis.gc();
      Array.from({ length: 20000 }, (_, i) => new Uint8Array(64 + (i % 7)));
    }
    const back = readStruct("VkInstanceCreateInfo", Deno.UnsafePointer.create(address));
    const app = readStruct("VkApplicationInfo", back.pApplicationInfo);
    const read = names.map((_, i) => readCString(readPointer(back.ppEnabledExtensionNames, i * 8)));
    console.log(JSON.stringify([readCString(app.pApplicationName), back.enabledExtensionCount, read.join() === names.join()]));
    arena.dispose();
  `;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--v8-flags=--expose-gc", script],
  }).output();
  const text = new TextDecoder().decode(out.stdout).trim();
  assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
  assertEquals(JSON.parse(text), ["kept alive", 64, true]);
});
