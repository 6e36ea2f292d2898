/** The mock driver: what its devices report, its objects, memory, sync, faults, overrides and call log. */
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import {
  allocStruct,
  create,
  enumerate,
  readPointer,
  readStruct,
  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
  VK_ERROR_DEVICE_LOST,
  VK_ERROR_EXTENSION_NOT_PRESENT,
  VK_ERROR_FEATURE_NOT_PRESENT,
  VK_ERROR_MEMORY_MAP_FAILED,
  VK_ERROR_OUT_OF_DEVICE_MEMORY,
  VK_ERROR_UNKNOWN,
  VK_INCOMPLETE,
  VK_NOT_READY,
  VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
  VK_SUCCESS,
  VK_TIMEOUT,
  VkScope,
  Vulkan,
  writeStruct,
} from "../../mod.ts";
import type { VkDevice, VkPhysicalDevice, VulkanCommands } from "../../mod.ts";
import { MockDriver, type MockDriverOptions, mockEnvironment } from "../../testing/mod.ts";
import { hasLavapipe, LAVAPIPE } from "../support/lavapipe.ts";

const isolated = mockEnvironment();
globalThis.addEventListener("unload", () => isolated.remove());

/** A loader over `mock` alone, an instance, its first device and a device with one queue. */
function open(vk: VulkanCommands, scope: VkScope, deviceInfo: Record<string, unknown> = {}) {
  const a = scope.arena;
  const instance = scope.create("vkCreateInstance", [writeStruct(a, "VkInstanceCreateInfo", {}), null]);
  const gpus = enumerate(vk.vkEnumeratePhysicalDevices, [instance]);
  const pQueueCreateInfos = [{ queueFamilyIndex: 0, pQueuePriorities: [1] }];
  const info = writeStruct(a, "VkDeviceCreateInfo", { pQueueCreateInfos, ...deviceInfo });
  const device = scope.create("vkCreateDevice", [gpus[0]!, info, null]);
  return { vk, instance, gpus, device, queue: scope.create("vkGetDeviceQueue", [device, 0, 0]) };
}

function load(options: MockDriverOptions = {}) {
  const mock = new MockDriver({ onProblem: () => {}, ...options });
  const vk = Vulkan.load({ drivers: [mock], env: isolated.env });
  return { mock, vk, [Symbol.dispose]: () => (vk.dispose(), mock.dispose()) };
}

Deno.test("a mock's devices report what their options say", () => {
  using t = load({
    devices: [
      { name: "Big", type: "discrete-gpu", vendorID: 0x10de, deviceID: 7, extensions: ["VK_KHR_swapchain"] },
      {
        name: "Small",
        type: "cpu",
        queueFamilies: [{ queueFlags: ["VK_QUEUE_COMPUTE_BIT"], queueCount: 3 }],
        memoryHeaps: [{ size: 1n << 20n, flags: 1 }],
        memoryTypes: [{ heapIndex: 0, propertyFlags: 0x7 }],
      },
    ],
  });
  using scope = new VkScope(t.vk);
  const { vk, gpus } = open(t.vk, scope);
  const a = scope.arena;
  const read = (gpu: VkPhysicalDevice) => {
    const p = allocStruct(a, "VkPhysicalDeviceProperties");
    vk.vkGetPhysicalDeviceProperties(gpu, p);
    const { deviceName, deviceType, vendorID, deviceID } = readStruct("VkPhysicalDeviceProperties", p);
    const families = enumerate(vk.vkGetPhysicalDeviceQueueFamilyProperties, [gpu], {
      struct: "VkQueueFamilyProperties",
    }).map((f) => [f.queueFlags, f.queueCount]);
    const m = allocStruct(a, "VkPhysicalDeviceMemoryProperties");
    vk.vkGetPhysicalDeviceMemoryProperties(gpu, m);
    const mem = readStruct("VkPhysicalDeviceMemoryProperties", m);
    const extensions = enumerate(vk.vkEnumerateDeviceExtensionProperties, [gpu, null], {
      struct: "VkExtensionProperties",
    }).map((e) => e.extensionName);
    return [
      deviceName,
      deviceType,
      vendorID,
      deviceID,
      families,
      mem.memoryHeapCount,
      mem.memoryHeaps[0]!.size,
      extensions,
    ];
  };
  assertEquals(read(gpus[0]!), ["Big", 2, 0x10de, 7, [[7, 1]], 2, 256n << 20n, ["VK_KHR_swapchain"]]);
  assertEquals(read(gpus[1]!), ["Small", 4, 0x10005, 1, [[2, 3]], 1, 1n << 20n, []]);
});

Deno.test("vkCreateDevice refuses an extension or a feature the device lacks, naming it", () => {
  const problems: string[] = [];
  using t = load({
    devices: [{ name: "Plain", features: { VkPhysicalDeviceFeatures: { geometryShader: false } } }],
  });
  using scope = new VkScope(t.vk);
  const vk = t.vk;
  const a = scope.arena;
  const instance = scope.create("vkCreateInstance", [writeStruct(a, "VkInstanceCreateInfo", {}), null]);
  const [gpu] = enumerate(vk.vkEnumeratePhysicalDevices, [instance]);
  const pQueueCreateInfos = [{ queueFamilyIndex: 0, pQueuePriorities: [1] }];
  const out = a.pointer(a.alloc(8));
  const ext = writeStruct(a, "VkDeviceCreateInfo", {
    pQueueCreateInfos,
    ppEnabledExtensionNames: ["VK_KHR_swapchain"],
  });
  assertEquals(vk.vkCreateDevice(gpu!, ext, null, out), VK_ERROR_EXTENSION_NOT_PRESENT);
  const pEnabledFeatures = { geometryShader: 1 };
  const feat = writeStruct(a, "VkDeviceCreateInfo", { pQueueCreateInfos, pEnabledFeatures });
  assertEquals(vk.vkCreateDevice(gpu!, feat, null, out), VK_ERROR_FEATURE_NOT_PRESENT);
  // The loader refuses the extension itself (no driver offers it); the mock names the missing feature.
  problems.push(...t.mock.problems);
  assertEquals(problems, [
    'Mock driver "vkdeno-mock": vkCreateDevice: "Plain" does not support feature(s) VkPhysicalDeviceFeatures.geometryShader',
  ]);
});

Deno.test("objects are tracked: live ones are listed, a device destroyed with live objects is reported", () => {
  using t = load();
  {
    using scope = new VkScope(t.vk);
    const { device } = open(t.vk, scope);
    const a = scope.arena;
    const info = writeStruct(a, "VkBufferCreateInfo", {
      size: 64n,
      usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
    });
    const out = a.pointer(a.alloc(8));
    assertEquals(t.vk.vkCreateBuffer(device, info, null, out), VK_SUCCESS); // leaked on purpose
    scope.create("vkCreateSampler", [device, writeStruct(a, "VkSamplerCreateInfo", {}), null]);
    assertEquals(t.mock.liveObjects().map((o) => o.type).sort(), ["VkBuffer", "VkSampler"]);
  }
  assertEquals(t.mock.liveObjects(), []);
  assertEquals(t.mock.problems.length, 1);
  assert(t.mock.problems[0]!.includes("1 object(s)") && t.mock.problems[0]!.includes("VkBuffer x1"));
});

Deno.test("memory: host-visible memory maps to bytes that stay; other types refuse; a full heap runs out", () => {
  using t = load({
    devices: [{
      memoryHeaps: [{ size: 1024n, flags: 1 }, { size: 4096n }],
      memoryTypes: [{ heapIndex: 0, propertyFlags: 1 }, { heapIndex: 1, propertyFlags: 6 }],
    }],
  });
  using scope = new VkScope(t.vk);
  const { vk, device } = open(t.vk, scope);
  const a = scope.arena;
  const alloc = (size: bigint, type: number) => {
    const out = a.pointer(a.alloc(8));
    const r = vk.vkAllocateMemory(
      device,
      writeStruct(a, "VkMemoryAllocateInfo", { allocationSize: size, memoryTypeIndex: type }),
      null,
      out,
    );
    return [r, readPointer(out)] as const;
  };
  const [r1, host] = alloc(256n, 1);
  assertEquals(r1, VK_SUCCESS);
  const ppData = a.pointer(a.alloc(8));
  assertEquals(vk.vkMapMemory(device, host as never, 0n, 256n, 0, ppData), VK_SUCCESS);
  new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(readPointer(ppData)!, 256)).set([1, 2, 3]);
  vk.vkUnmapMemory(device, host as never);
  assertEquals(vk.vkMapMemory(device, host as never, 1n, 0xffffffffffffffffn, 0, ppData), VK_SUCCESS);
  assertEquals([...new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(readPointer(ppData)!, 2))], [2, 3]);
  vk.vkUnmapMemory(device, host as never);
  const [r2, local] = alloc(1024n, 0);
  assertEquals(r2, VK_SUCCESS);
  assertEquals(vk.vkMapMemory(device, local as never, 0n, 16n, 0, ppData), VK_ERROR_MEMORY_MAP_FAILED);
  assertEquals(alloc(1n, 0)[0], VK_ERROR_OUT_OF_DEVICE_MEMORY); // heap 0 is full
  vk.vkFreeMemory(device, local as never, null);
  assertEquals(alloc(1024n, 0)[0], VK_SUCCESS); // freed memory is available again
  vk.vkFreeMemory(device, host as never, null);
  assert(t.mock.problems.some((p) => p.includes("not HOST_VISIBLE")));
});

Deno.test("fences: a submission signals its fence; waiting on one nothing signals times out with a report", () => {
  using t = load();
  using scope = new VkScope(t.vk);
  const { vk, device, queue } = open(t.vk, scope);
  const a = scope.arena;
  const fence = scope.create("vkCreateFence", [device, writeStruct(a, "VkFenceCreateInfo", {}), null]);
  const fences = a.pointerArray([fence]);
  assertEquals(vk.vkGetFenceStatus(device, fence), VK_NOT_READY);
  assertEquals(vk.vkWaitForFences(device, 1, fences, 1, 1000n), VK_TIMEOUT);
  assert(t.mock.problems[0]!.includes("that no submission signals"));
  assertEquals(vk.vkQueueSubmit(queue, 0, null, fence), VK_SUCCESS);
  assertEquals(vk.vkWaitForFences(device, 1, fences, 1, 0xffffffffffffffffn), VK_SUCCESS);
  assertEquals(vk.vkResetFences(device, 1, fences), VK_SUCCESS);
  assertEquals(vk.vkGetFenceStatus(device, fence), VK_NOT_READY);
  assertEquals(vk.vkDeviceWaitIdle(device), VK_SUCCESS);
});

const TOP = VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT;

Deno.test("command buffers record their commands; submitting one still recording is reported", () => {
  using t = load();
  using scope = new VkScope(t.vk);
  const { vk, device, queue } = open(t.vk, scope);
  const a = scope.arena;
  const commandPool = scope.create("vkCreateCommandPool", [
    device,
    writeStruct(a, "VkCommandPoolCreateInfo", {}),
    null,
  ]);
  const info = writeStruct(a, "VkCommandBufferAllocateInfo", { commandPool, commandBufferCount: 1 });
  const cmd = scope.createMany("vkAllocateCommandBuffers", [device, info], 1)[0]!;
  assertEquals(vk.vkBeginCommandBuffer(cmd, writeStruct(a, "VkCommandBufferBeginInfo", {})), VK_SUCCESS);
  vk.vkCmdDispatch(cmd, 1, 1, 1);
  vk.vkCmdPipelineBarrier(cmd, TOP, TOP, 0, 0, null, 0, null, 0, null);
  assertEquals(t.mock.recordedCommands(cmd), ["vkCmdDispatch", "vkCmdPipelineBarrier"]);
  vk.vkQueueSubmit(queue, 1, writeStruct(a, "VkSubmitInfo", { pCommandBuffers: [cmd] }), null);
  assert(t.mock.problems.some((p) => p.includes("is recording, not executable")));
  vk.vkEndCommandBuffer(cmd);
  vk.vkCmdDraw(cmd, 3, 1, 0, 0);
  assert(t.mock.problems.some((p) => p.includes("vkCmdDraw: command buffer") && p.includes("not recording")));
});

Deno.test("a device gives the commands of its own Vulkan version: vkCmdPipelineBarrier2 on a 1.3 device", () => {
  using t = load();
  using scope = new VkScope(t.vk);
  const { vk, device } = open(t.vk, scope);
  const a = scope.arena;
  const name = a.cstring("vkCmdPipelineBarrier2");
  assert(vk.vkGetDeviceProcAddr(device, name) !== null, "no vkCmdPipelineBarrier2 on a Vulkan 1.3 device");
  const commandPool = scope.create("vkCreateCommandPool", [
    device,
    writeStruct(a, "VkCommandPoolCreateInfo", {}),
    null,
  ]);
  const info = writeStruct(a, "VkCommandBufferAllocateInfo", { commandPool, commandBufferCount: 1 });
  const cmd = scope.createMany("vkAllocateCommandBuffers", [device, info], 1)[0]!;
  vk.vkBeginCommandBuffer(cmd, writeStruct(a, "VkCommandBufferBeginInfo", {}));
  vk.vkCmdPipelineBarrier2(cmd, writeStruct(a, "VkDependencyInfo", {}));
  assertEquals(t.mock.recordedCommands(cmd), ["vkCmdPipelineBarrier2"]);
});

Deno.test("an unimplemented command fails with a message naming it and the configured result", () => {
  const seen: string[] = [];
  using t = load({ onProblem: (m) => seen.push(m), unimplementedResult: VK_ERROR_FEATURE_NOT_PRESENT });
  using scope = new VkScope(t.vk);
  const { vk, device } = open(t.vk, scope);
  const out = scope.arena.pointer(scope.arena.alloc(64));
  assertEquals(vk.vkGetDeviceFaultInfoEXT === undefined, false);
  assertEquals(vk.vkGetImageSubresourceLayout(device, null as never, out, out), undefined);
  assertEquals(seen, [
    'Mock driver "vkdeno-mock": vkGetImageSubresourceLayout is not implemented by the mock (give it a behaviour with override("vkGetImageSubresourceLayout", ...))',
  ]);
  assertEquals(vk.vkGetEventStatus(device, null as never), VK_ERROR_FEATURE_NOT_PRESENT);
  assert(
    seen[1]!.includes(
      "vkGetEventStatus is not implemented by the mock: returning VK_ERROR_FEATURE_NOT_PRESENT",
    ),
  );
});

Deno.test('unimplemented: "absent" leaves a command out of the device, as a driver without it', () => {
  using t = load({ unimplemented: "absent" });
  using scope = new VkScope(t.vk);
  const { device } = open(t.vk, scope);
  const table = (t.vk as unknown as { deviceTable(d: VkDevice): Record<string, unknown> }).deviceTable(
    device,
  );
  assertEquals(["vkCmdDraw" in table, "vkCreateBuffer" in table, "vkGetEventStatus" in table], [
    true,
    true,
    false,
  ]);
});

Deno.test("faults: the Nth call, a predicate on decoded arguments, a count; a removed fault stops", () => {
  using t = load();
  using scope = new VkScope(t.vk);
  const { vk, device } = open(t.vk, scope);
  const a = scope.arena;
  const create = (size: bigint) => {
    const out = a.pointer(a.alloc(8));
    const r = vk.vkCreateBuffer(
      device,
      writeStruct(a, "VkBufferCreateInfo", { size, usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT }),
      null,
      out,
    );
    const buffer = readPointer(out);
    if (r === VK_SUCCESS) vk.vkDestroyBuffer(device, buffer as never, null);
    return r;
  };
  const second = t.mock.fail("vkCreateBuffer", VK_ERROR_OUT_OF_DEVICE_MEMORY, { call: 2 });
  assertEquals([create(1n), create(1n), create(1n)], [VK_SUCCESS, VK_ERROR_OUT_OF_DEVICE_MEMORY, VK_SUCCESS]);
  assertEquals(second.hits, 1);
  const big = t.mock.fail("vkCreateBuffer", VK_ERROR_UNKNOWN, {
    when: (args) => BigInt((args.pCreateInfo as { size: string }).size) > 1000n,
    times: 2,
  });
  assertEquals([create(10n), create(5000n), create(5000n), create(5000n)], [
    0,
    VK_ERROR_UNKNOWN,
    VK_ERROR_UNKNOWN,
    0,
  ]);
  assertEquals(big.hits, 2);
  const every = t.mock.fail("vkCreateBuffer", VK_ERROR_UNKNOWN);
  assertEquals(create(1n), VK_ERROR_UNKNOWN);
  every.remove();
  assertEquals(create(1n), VK_SUCCESS);
  assertEquals(t.mock.callCount("vkCreateBuffer"), 9);
});

Deno.test("a list asked for with less room than it has is filled to the room and answers VK_INCOMPLETE", () => {
  using t = load({ devices: [{ extensions: ["VK_KHR_swapchain", "VK_KHR_maintenance1"] }] });
  using scope = new VkScope(t.vk);
  const { vk, gpus } = open(t.vk, scope);
  const count = new Uint32Array([1]);
  // Room for one VkExtensionProperties (260 bytes); the second entry's place holds a sentinel.
  const out = new Uint8Array(2 * 260).fill(0xab);
  const result = vk.vkEnumerateDeviceExtensionProperties(
    gpus[0]!,
    null,
    Deno.UnsafePointer.of(count),
    Deno.UnsafePointer.of(out),
  );
  assertEquals([result, count[0]], [VK_INCOMPLETE, 1]);
  assertEquals(new TextDecoder().decode(out.subarray(0, 16)), "VK_KHR_swapchain");
  assert(out.subarray(260).every((b) => b === 0xab), "an entry was written past the room given");
});

Deno.test("override replaces a command; next() runs the mock's own", () => {
  using t = load();
  using scope = new VkScope(t.vk);
  const { vk, device } = open(t.vk, scope);
  const sizes: string[] = [];
  t.mock.override("vkCreateBuffer", (call) => {
    sizes.push(String((call.decoded.pCreateInfo as { size: string }).size));
    return call.call === 1 ? VK_ERROR_UNKNOWN : call.next();
  });
  const a = scope.arena;
  const out = a.pointer(a.alloc(8));
  const info = writeStruct(a, "VkBufferCreateInfo", { size: 48n, usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT });
  assertEquals(vk.vkCreateBuffer(device, info, null, out), VK_ERROR_UNKNOWN);
  assertEquals(vk.vkCreateBuffer(device, info, null, out), VK_SUCCESS);
  vk.vkDestroyBuffer(device, readPointer(out) as never, null);
  assertEquals(sizes, ["48", "48"]);
});

Deno.test("the call log holds each call's decoded arguments and result", () => {
  using t = load({ record: true });
  using scope = new VkScope(t.vk);
  const { device } = open(t.vk, scope);
  scope.create("vkCreateBuffer", [
    device,
    writeStruct(scope.arena, "VkBufferCreateInfo", {
      size: 4096n,
      usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
    }),
    null,
  ]);
  const call = t.mock.calls.find((c) => c.command === "vkCreateBuffer")!;
  const info = call.args.pCreateInfo as Record<string, unknown>;
  assertEquals([info.sType, info.size, info.usage, call.result], [
    "VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO",
    "4096",
    "0x20",
    "VK_SUCCESS",
  ]);
  assert(typeof call.args.pBuffer === "string" && call.args.pBuffer.startsWith("0x"));
});

Deno.test("a lost device answers VK_ERROR_DEVICE_LOST to every later call; destroying still works", () => {
  using t = load();
  {
    using scope = new VkScope(t.vk);
    const { vk, device, queue } = open(t.vk, scope);
    const a = scope.arena;
    const fence = scope.create("vkCreateFence", [device, writeStruct(a, "VkFenceCreateInfo", {}), null]);
    assertEquals(t.mock.loseDevice(device), 1);
    assertEquals(vk.vkQueueSubmit(queue, 0, null, fence), VK_ERROR_DEVICE_LOST);
    assertEquals(vk.vkDeviceWaitIdle(device), VK_ERROR_DEVICE_LOST);
    const out = a.pointer(a.alloc(8));
    assertEquals(
      vk.vkCreateBuffer(device, writeStruct(a, "VkBufferCreateInfo", { size: 4n }), null, out),
      VK_ERROR_DEVICE_LOST,
    );
    assertEquals(t.mock.counts.lostDevices, 1);
  }
  assertEquals(t.mock.counts, { instances: 0, devices: 0, lostDevices: 0 });
});

Deno.test("a mock and another mock side by side: each device answers from its own driver", () => {
  using a = new MockDriver({ name: "mock-a", devices: [{ name: "A" }] });
  using b = new MockDriver({ name: "mock-b", devices: [{ name: "B1" }, { name: "B2" }] });
  using vk = Vulkan.load({ drivers: [a, b], env: isolated.env });
  using scope = new VkScope(vk);
  const instance = scope.create("vkCreateInstance", [
    writeStruct(scope.arena, "VkInstanceCreateInfo", {}),
    null,
  ]);
  const names = enumerate(vk.vkEnumeratePhysicalDevices, [instance]).map((gpu) => {
    const p = allocStruct(scope.arena, "VkPhysicalDeviceProperties");
    vk.vkGetPhysicalDeviceProperties(gpu, p);
    return readStruct("VkPhysicalDeviceProperties", p).deviceName;
  });
  assertEquals(names.sort(), ["A", "B1", "B2"]);
});

Deno.test({
  name: "a mock beside the real lavapipe driver",
  ignore: !hasLavapipe,
  fn() {
    using mock = new MockDriver({ devices: [{ name: "Mock beside lavapipe" }] });
    using vk = Vulkan.load({ drivers: [mock, LAVAPIPE], env: isolated.env });
    using scope = new VkScope(vk);
    const instance = scope.create("vkCreateInstance", [
      writeStruct(scope.arena, "VkInstanceCreateInfo", {}),
      null,
    ]);
    const names = enumerate(vk.vkEnumeratePhysicalDevices, [instance]).map((gpu) => {
      const p = allocStruct(scope.arena, "VkPhysicalDeviceProperties");
      vk.vkGetPhysicalDeviceProperties(gpu, p);
      return readStruct("VkPhysicalDeviceProperties", p).deviceName;
    });
    assert(
      names.includes("Mock beside lavapipe") && names.some((n) => n.startsWith("llvmpipe")),
      names.join(),
    );
  },
});

Deno.test("the loader settings file applies to mocks: device_configurations picks and orders them by UUID", () => {
  const uuid = (n: number) => Array.from({ length: 16 }, (_, i) => (i === 15 ? n : 0xa0 + i));
  const device = (name: string, n: number) => ({
    name,
    properties: { VkPhysicalDeviceIDProperties: { deviceUUID: uuid(n), driverUUID: uuid(0x40 + n) } },
  });
  using mock = new MockDriver({ devices: [device("M1", 1), device("M2", 2), device("M3", 3)] });
  const entry = (n: number) => ({ deviceUUID: uuid(n), driverUUID: uuid(0x40 + n), driverVersion: 1 });
  const settings = {
    file_format_version: "1.0.0",
    settings: { device_configurations: [entry(3), entry(1)] },
  };
  using env = mockEnvironment({
    drivers: [mock],
    files: { "etc/vulkan/loader_settings.d/vk_loader_settings.json": JSON.stringify(settings) },
  });
  using vk = Vulkan.load({ env: env.env });
  using scope = new VkScope(vk);
  const instance = scope.create("vkCreateInstance", [
    writeStruct(scope.arena, "VkInstanceCreateInfo", {}),
    null,
  ]);
  const names = enumerate(vk.vkEnumeratePhysicalDevices, [instance]).map((gpu) => {
    const p = allocStruct(scope.arena, "VkPhysicalDeviceProperties");
    vk.vkGetPhysicalDeviceProperties(gpu, p);
    return readStruct("VkPhysicalDeviceProperties", p).deviceName;
  });
  assertEquals(names, ["M3", "M1"]);
});

Deno.test("reuseHandles: a new buffer takes the most recently destroyed one's handle; without it each is new", () => {
  for (const reuseHandles of [true, false]) {
    using t = load({ reuseHandles });
    using scope = new VkScope(t.vk);
    const { device } = open(t.vk, scope);
    const info = writeStruct(scope.arena, "VkBufferCreateInfo", {
      size: 64n,
      usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
    });
    const [a, b] = [0, 1].map(() => create(t.vk, "vkCreateBuffer", [device, info, null]));
    for (const x of [a!, b!]) t.vk.vkDestroyBuffer(device, x, null);
    const [c, d, e] = [0, 1, 2].map(() => create(t.vk, "vkCreateBuffer", [device, info, null]));
    const value = (h: unknown) => Deno.UnsafePointer.value(h as Deno.PointerValue);
    const [va, vb, vc, vd, ve] = [a, b, c, d, e].map(value);
    if (reuseHandles) assertEquals([vc, vd], [vb, va], "latest destroyed first");
    else assertEquals(new Set([va, vb, vc, vd]).size, 4, "every handle new");
    assert(![va, vb, vc, vd].includes(ve));
    for (const x of [c!, d!, e!]) t.vk.vkDestroyBuffer(device, x, null);
  }
});
