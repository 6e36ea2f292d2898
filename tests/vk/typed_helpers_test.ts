// Typed helpers: makeCallback (every PFN type, typed decoded arguments, owned lifetime),
// create / createMany (create-and-read-back, VkError naming command and result), VkScope (reverse-order
// destruction with the destroy command vk.xml pairs with each create command).
import { deepEqual as assertEquals, ok as assert, throws as assertThrows } from "node:assert/strict";
import { CallbackOwner } from "../../ffi/callback.ts";
import { CALLBACK_DEFS } from "../../vk/generated/callbacks.ts";
import {
  asHandle,
  create,
  createMany,
  enumerate,
  makeCallback,
  VK_BUFFER_USAGE_TRANSFER_DST_BIT,
  VK_COMMAND_BUFFER_LEVEL_PRIMARY,
  VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
  VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
  VK_EXT_DEBUG_UTILS_EXTENSION_NAME,
  VK_OBJECT_TYPE_BUFFER,
  VK_SUCCESS,
  type VkBuffer,
  type VkCallbackStructs,
  type VkDevice,
  VkError,
  type VkImage,
  type VkResult,
  VkScope,
  Vulkan,
  type VulkanCommands,
  writeStruct,
} from "../../mod.ts";
import { hasLavapipe, LAVAPIPE } from "../support/lavapipe.ts";

Deno.test("makeCallback knows every funcpointer type and rejects other names", () => {
  assertEquals(Object.keys(CALLBACK_DEFS).length >= 10, true);
  for (const type of Object.keys(CALLBACK_DEFS)) {
    using cb = makeCallback(type as "PFN_vkVoidFunction", () => {});
    assert(cb.open && cb.pointer !== null, type);
  }
  assertThrows(() => makeCallback("PFN_vkNoSuch" as "PFN_vkVoidFunction", () => {}), {
    name: "TypeError",
    message: /PFN_vkNoSuch/,
  });
});

Deno.test("a typed callback gets decoded arguments (enum members named), returns booleans as VkBool32, and is closed by using", () => {
  const before = CallbackOwner.liveCount;
  const seen: (VkCallbackStructs["VkDebugUtilsMessengerCallbackDataEXT"] | null)[] = [];
  {
    using cb = makeCallback("PFN_vkDebugUtilsMessengerCallbackEXT", (severity, types, data) => {
      assertEquals([severity, types], [16, 2]);
      seen.push(data);
      return true;
    });
    assertEquals(CallbackOwner.liveCount, before + 1);
    // Call it the way C does, through its pointer, with a struct written in memory.
    const call = new Deno.UnsafeFnPointer(
      cb.pointer as Deno.PointerObject as Deno.PointerObject<never>,
      {
        parameters: ["u32", "u32", "pointer", "pointer"],
        result: "u32",
      } as const,
    );
    using scope = new VkScope({});
    const data = writeStruct(scope.arena, "VkDebugUtilsMessengerCallbackDataEXT", {
      pMessageIdName: "VUID-test",
      pMessage: "hello from C",
      pObjects: [{ objectType: VK_OBJECT_TYPE_BUFFER, objectHandle: 0x1234n, pObjectName: "buf" }],
      pQueueLabels: [{ pLabelName: "q", color: [1, 0, 0, 1] }],
    });
    assertEquals(call.call(16, 2, data, null), 1);
    assertEquals(call.call(16, 2, null, null), 1);
  }
  assertEquals(CallbackOwner.liveCount, before);
  const d = seen[0]!;
  assertEquals(d.pMessage, "hello from C");
  assertEquals(d.pMessageIdName, "VUID-test");
  assertEquals(d.objectCount, 1);
  assertEquals(d.pObjects.map((o) => [o.objectType, o.objectTypeName, o.objectHandle, o.pObjectName]), [[
    VK_OBJECT_TYPE_BUFFER,
    "VK_OBJECT_TYPE_BUFFER",
    0x1234n,
    "buf",
  ]]);
  assertEquals(d.pQueueLabels[0]!.pLabelName, "q");
  assertEquals(d.pQueueLabels[0]!.color, [1, 0, 0, 1]);
  assertEquals(d.pCmdBufLabels, []);
  assertEquals(seen[1], null);
});

Deno.test("a throwing callback returns its onError value to C and reports the throw", () => {
  const reports: string[] = [];
  using cb = makeCallback("PFN_vkDebugUtilsMessengerCallbackEXT", () => {
    throw new Error("boom");
  }, { report: (m) => reports.push(m) });
  const call = new Deno.UnsafeFnPointer(
    cb.pointer as Deno.PointerObject as Deno.PointerObject<never>,
    {
      parameters: ["u32", "u32", "pointer", "pointer"],
      result: "u32",
    } as const,
  );
  assertEquals(call.call(1, 1, null, null), 0);
  assert(reports[0]!.includes("PFN_vkDebugUtilsMessengerCallbackEXT") && reports[0]!.includes("boom"));
});

/** A command object recording calls: creates hand out 0x10, 0x20, ...; destroys are logged. */
function recorder(fail?: number) {
  const log: string[] = [];
  let next = 0x10n;
  const out = (p: Deno.PointerValue) => {
    new Deno.UnsafePointerView(p!).getBigUint64(); // the slot is readable
    new BigUint64Array(Deno.UnsafePointerView.getArrayBuffer(p!, 8))[0] = next;
    next += 0x10n;
  };
  const name = (h: Deno.PointerValue) => `0x${Deno.UnsafePointer.value(h).toString(16)}`;
  const vk: Partial<VulkanCommands> = {
    vkCreateBuffer: (device, _info, _alloc, pBuffer) => {
      if (fail !== undefined) return fail as VkResult;
      out(pBuffer);
      log.push(`create buffer on ${name(device)}`);
      return VK_SUCCESS;
    },
    vkDestroyBuffer: (device, buffer, alloc) =>
      log.push(`destroy ${name(buffer)} on ${name(device)} ${alloc}`),
    vkCreateCommandPool: (_device, _info, _alloc, pPool) => (out(pPool), VK_SUCCESS),
    vkDestroyCommandPool: (_device, pool) => log.push(`destroy pool ${name(pool)}`),
    vkCreateComputePipelines: (_device, _cache, count, _infos, _alloc, pPipelines) => {
      for (let i = 0; i < count; i++) out(Deno.UnsafePointer.offset(pPipelines!, 8 * i));
      return VK_SUCCESS;
    },
    vkDestroyPipeline: (_device, pipeline) => log.push(`destroy pipeline ${name(pipeline)}`),
    vkGetDeviceQueue: (_device, _family, _index, pQueue) => out(pQueue),
  };
  return { vk, log };
}

Deno.test("VkScope destroys what it created in reverse order, with each create command's destroy", () => {
  const { vk, log } = recorder();
  const device = asHandle("VkDevice", Deno.UnsafePointer.create(0xd0n))!;
  {
    using scope = new VkScope(vk);
    const a: VkBuffer = scope.create("vkCreateBuffer", [device, null, null]);
    scope.create("vkCreateCommandPool", [device, null, null]);
    const queue = scope.create("vkGetDeviceQueue", [device, 0, 0]); // no destroy command for queues
    const pipelines = scope.createMany("vkCreateComputePipelines", [device, null, 2, null, null], 2);
    scope.defer(() => log.push("deferred"));
    assertEquals(Deno.UnsafePointer.value(a), 0x10n);
    assertEquals(Deno.UnsafePointer.value(queue), 0x30n);
    assertEquals(pipelines.map((p) => Deno.UnsafePointer.value(p)), [0x40n, 0x50n]);
    log.push("end of block");
  }
  assertEquals(log, [
    "create buffer on 0xd0",
    "end of block",
    "deferred",
    "destroy pipeline 0x50",
    "destroy pipeline 0x40",
    "destroy pool 0x20",
    "destroy 0x10 on 0xd0 null",
  ]);
});

Deno.test("create throws a VkError naming the command and result; createMany checks its count", () => {
  const { vk } = recorder(-2);
  const device = asHandle("VkDevice", Deno.UnsafePointer.create(0xd0n))!;
  assertThrows(
    () => create(vk, "vkCreateBuffer", [device, null, null]),
    (e: unknown) => e instanceof VkError && e.message.includes('"vkCreateBuffer"'),
  );
  try {
    create(vk, "vkCreateBuffer", [device, null, null]);
  } catch (e) {
    assertEquals([(e as VkError).code, (e as VkError).result], [-2, "VK_ERROR_OUT_OF_DEVICE_MEMORY"]);
    assert((e as Error).message.includes("VK_ERROR_OUT_OF_DEVICE_MEMORY"), (e as Error).message);
  }
  assertThrows(() => create({}, "vkCreateBuffer", [device, null, null]), {
    name: "TypeError",
    message: /vkCreateBuffer/,
  });
  assertThrows(
    () => createMany(vk, "vkCreateComputePipelines", [device, null, 0, null, null], 0),
    RangeError,
  );
});

Deno.test({
  name:
    "on lavapipe: a scope creates instance, messenger and device objects, and a TS messenger hears a message",
  ignore: !hasLavapipe,
}, () => {
  const heard: string[] = [];
  const before = CallbackOwner.liveCount;
  {
    using vk = Vulkan.load({ env: { vars: { VK_DRIVER_FILES: LAVAPIPE }, elevated: false } });
    using scope = new VkScope(vk);
    const pfn = scope.callback("PFN_vkDebugUtilsMessengerCallbackEXT", (_severity, _types, data) => {
      heard.push(`${data?.pMessageIdName}: ${data?.pMessage} [${data?.pObjects.map((o) => o.pObjectName)}]`);
      return false;
    });
    const instance = scope.create("vkCreateInstance", [
      writeStruct(scope.arena, "VkInstanceCreateInfo", {
        ppEnabledExtensionNames: [VK_EXT_DEBUG_UTILS_EXTENSION_NAME],
      }),
      null,
    ]);
    scope.create("vkCreateDebugUtilsMessengerEXT", [
      instance,
      writeStruct(scope.arena, "VkDebugUtilsMessengerCreateInfoEXT", {
        messageSeverity: VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
        messageType: VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
        pfnUserCallback: pfn,
      }),
      null,
    ]);
    vk.vkSubmitDebugUtilsMessageEXT(
      instance,
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
      VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
      writeStruct(scope.arena, "VkDebugUtilsMessengerCallbackDataEXT", {
        pMessageIdName: "typed",
        pMessage: "typed messenger",
        pObjects: [{ objectType: VK_OBJECT_TYPE_BUFFER, objectHandle: 1n, pObjectName: "b" }],
      }),
    );
    const [physicalDevice] = enumerate(vk.vkEnumeratePhysicalDevices, [instance]);
    const device = scope.create("vkCreateDevice", [
      physicalDevice!,
      writeStruct(scope.arena, "VkDeviceCreateInfo", {
        pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
      }),
      null,
    ]);
    const buffer = scope.create("vkCreateBuffer", [
      device,
      writeStruct(scope.arena, "VkBufferCreateInfo", { size: 256n, usage: VK_BUFFER_USAGE_TRANSFER_DST_BIT }),
      null,
    ]);
    const pool = scope.create("vkCreateCommandPool", [
      device,
      writeStruct(scope.arena, "VkCommandPoolCreateInfo", { queueFamilyIndex: 0 }),
      null,
    ]);
    const commandBuffers = createMany(vk, "vkAllocateCommandBuffers", [
      device,
      writeStruct(scope.arena, "VkCommandBufferAllocateInfo", {
        commandPool: pool,
        level: VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        commandBufferCount: 2,
      }),
    ], 2);
    assert(buffer !== null && commandBuffers.length === 2 && commandBuffers.every((c) => c !== null));
    assertThrows(
      () =>
        scope.create("vkCreateDevice", [
          physicalDevice!,
          writeStruct(scope.arena, "VkDeviceCreateInfo", {
            pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
            ppEnabledExtensionNames: ["VK_KHR_no_such_extension"],
          }),
          null,
        ]),
      (e: unknown) =>
        e instanceof VkError &&
        e.message === 'Command "vkCreateDevice" failed with "VK_ERROR_EXTENSION_NOT_PRESENT"',
    );
  }
  assertEquals(heard, ["typed: typed messenger [b]"]);
  assertEquals(CallbackOwner.liveCount, before);
});

Deno.test({
  name: "on lavapipe: the driver allocates through TypeScript allocation callbacks (size_t in, pointer out)",
  ignore: !hasLavapipe,
}, () => {
  const libc = Deno.dlopen("libc.so.6", {
    aligned_alloc: { parameters: ["usize", "usize"], result: "pointer" },
    realloc: { parameters: ["pointer", "usize"], result: "pointer" },
    free: { parameters: ["pointer"], result: "void" },
  });
  const counts = { alloc: 0, realloc: 0, free: 0 };
  const roundUp = (size: number | bigint, align: number | bigint) =>
    (BigInt(size) + BigInt(align) - 1n) / BigInt(align) * BigInt(align);
  {
    using vk = Vulkan.load({ env: { vars: { VK_DRIVER_FILES: LAVAPIPE }, elevated: false } });
    using scope = new VkScope(vk);
    const allocator = writeStruct(scope.arena, "VkAllocationCallbacks", {
      pfnAllocation: scope.callback("PFN_vkAllocationFunction", (_user, size, alignment) => {
        counts.alloc++;
        return libc.symbols.aligned_alloc(BigInt(alignment), roundUp(size, alignment));
      }),
      pfnReallocation: scope.callback("PFN_vkReallocationFunction", (_user, original, size) => {
        counts.realloc++;
        return libc.symbols.realloc(original, BigInt(size));
      }),
      pfnFree: scope.callback("PFN_vkFreeFunction", (_user, memory) => {
        counts.free++;
        libc.symbols.free(memory);
      }),
    });
    const instance = scope.create("vkCreateInstance", [
      writeStruct(scope.arena, "VkInstanceCreateInfo"),
      allocator,
    ]);
    assert(instance !== null);
  } // vkDestroyInstance(instance, allocator), then the callbacks close
  libc.close();
  assert(counts.alloc > 0, JSON.stringify(counts));
  assert(counts.free > 0, JSON.stringify(counts));
});

// Type-level cases: checked by `deno check`, never called.
export function helperTypeCases(vk: VulkanCommands, device: VkDevice): void {
  const buffer: VkBuffer = create(vk, "vkCreateBuffer", [device, null, null]);
  // @ts-expect-error vkCreateBuffer makes a VkBuffer, not a VkImage
  const image: VkImage = create(vk, "vkCreateBuffer", [device, null, null]);
  // @ts-expect-error wrong argument count for vkCreateBuffer (the output slot is the helper's)
  create(vk, "vkCreateBuffer", [device, null, null, null]);
  // @ts-expect-error vkCmdDraw makes no handle
  create(vk, "vkCmdDraw", [null, 3, 1, 0, 0]);
  // @ts-expect-error pCreateInfo is a pointer, not a number (arguments are typed per command, not inferred)
  create(vk, "vkCreateBuffer", [device, 1, null]);
  // @ts-expect-error vkAllocateCommandBuffers's first argument is a VkDevice, not a VkBuffer
  createMany(vk, "vkAllocateCommandBuffers", [buffer, null], 1);
  // @ts-expect-error the messenger callback receives a number severity, not a string
  makeCallback("PFN_vkDebugUtilsMessengerCallbackEXT", (severity: string) => severity === "x");
  // @ts-expect-error the messenger callback returns a VkBool32 (or boolean)
  makeCallback("PFN_vkDebugUtilsMessengerCallbackEXT", () => "yes");
  // @ts-expect-error no such callback type
  makeCallback("PFN_vkNoSuchCallback", () => {});
  void [buffer, image, device];
}
