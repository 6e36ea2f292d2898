// Output arrays of chainable structs take a pNext chain the way single output structs do: the trailing
// `chain` names the structs every element gets, each element its own copy written before the second call of
// the two-call idiom, read back into its own `chain`; names that do not extend the element are type errors.
import {
  deepEqual as assertEquals,
  notEqual as assertNotEqual,
  throws as assertThrows,
} from "node:assert/strict";
import {
  Arena,
  readStruct,
  VK_QUEUE_GLOBAL_PRIORITY_HIGH,
  VK_QUEUE_GLOBAL_PRIORITY_LOW,
  VK_QUEUE_GLOBAL_PRIORITY_MEDIUM,
  VkApi,
  type VkCommandSource,
  type VkPhysicalDevice,
  Vulkan,
  writeStruct,
  writeStructArray,
} from "../../mod.ts";
import { MockDriver, mockEnvironment } from "../../testing/mod.ts";
import { onBothLoaders } from "../support/libvulkan_half.ts";
import { hasLavapipe } from "../support/lavapipe.ts";

const FAMILY = "VkQueueFamilyProperties2";
const PRIORITY = "VkQueueFamilyGlobalPriorityProperties";
const CHECKPOINT = "VkQueueFamilyCheckpointPropertiesNV";

/**
 * `vkGetPhysicalDeviceQueueFamilyProperties2` as C does it, through the raw command: count, then elements
 * whose sType and pNext (one global-priority and one checkpoint struct each) are written with `writeStruct`.
 */
function byHand(raw: VkCommandSource, gpu: VkPhysicalDevice) {
  const fn = (raw as unknown as Record<string, (...a: unknown[]) => unknown>)
    .vkGetPhysicalDeviceQueueFamilyProperties2!;
  using arena = new Arena();
  const bytes = arena.alloc(4, 4);
  const count = new Uint32Array(bytes.buffer, bytes.byteOffset, 1);
  const pCount = arena.pointer(bytes);
  fn(gpu, pCount, null);
  const n = count[0]!;
  const chains = Array.from({ length: n }, () => {
    const checkpoint = writeStruct(arena, CHECKPOINT, {});
    const priority = writeStruct(arena, PRIORITY, { pNext: checkpoint });
    return { priority, checkpoint };
  });
  const families = writeStructArray(arena, FAMILY, chains.map((c) => ({ pNext: c.priority })));
  fn(gpu, pCount, families);
  const size = 40;
  return chains.slice(0, count[0]).map((c, i) => ({
    queueFamilyProperties:
      readStruct(FAMILY, Deno.UnsafePointer.offset(families, i * size)).queueFamilyProperties,
    // VkApi hands out no pNext of what it read back (docs/behaviour.md V16): its chain lay in VkApi's memory.
    [PRIORITY]: { ...readStruct(PRIORITY, c.priority), pNext: null },
    [CHECKPOINT]: { ...readStruct(CHECKPOINT, c.checkpoint), pNext: null },
  }));
}

/** The same through the idiomatic API, in the shape `byHand` returns. */
function idiomatic(vk: VkApi, gpu: VkPhysicalDevice) {
  return vk.getPhysicalDeviceQueueFamilyProperties2(gpu, [PRIORITY, CHECKPOINT]).map((f) => ({
    queueFamilyProperties: f.queueFamilyProperties,
    [PRIORITY]: f.chain[PRIORITY],
    [CHECKPOINT]: f.chain[CHECKPOINT],
  }));
}

Deno.test("each element of a two-call struct array gets its own copy of the chain, read back per element", () => {
  // Three families reporting different global priorities: a chain shared between elements, or read from
  // the wrong element, shows up as equal values.
  const priorities = [
    [VK_QUEUE_GLOBAL_PRIORITY_MEDIUM],
    [VK_QUEUE_GLOBAL_PRIORITY_LOW, VK_QUEUE_GLOBAL_PRIORITY_MEDIUM, VK_QUEUE_GLOBAL_PRIORITY_HIGH],
    [VK_QUEUE_GLOBAL_PRIORITY_LOW, VK_QUEUE_GLOBAL_PRIORITY_HIGH],
  ];
  using mock = new MockDriver({
    devices: [{
      queueFamilies: priorities.map((p, i) => ({
        queueFlags: ["VK_QUEUE_COMPUTE_BIT"],
        queueCount: i + 1,
        chain: { [PRIORITY]: { priorityCount: p.length, priorities: p } },
      })),
    }],
  });
  using isolated = mockEnvironment();
  using raw = Vulkan.load({ drivers: [mock], env: isolated.env });
  using vk = VkApi.of(raw).scope();
  const instance = vk.createInstance({ pApplicationInfo: { apiVersion: vk.enumerateInstanceVersion() } });
  const [gpu] = vk.enumeratePhysicalDevices(instance);
  const families = vk.getPhysicalDeviceQueueFamilyProperties2(gpu!, [PRIORITY]);
  assertEquals(
    families.map((f) => [f.queueFamilyProperties.queueCount, f.chain[PRIORITY].priorities.slice(0, 3)]),
    [
      [1, [256, 0, 0]],
      [2, [128, 256, 512]],
      [3, [128, 512, 0]],
    ],
  );
  assertEquals(families.map((f) => f.chain[PRIORITY].priorityCount), [1, 3, 2]);
  assertEquals(idiomatic(vk, gpu!), byHand(raw, gpu!));
  // No chain asked for: each element's chain is empty, as for a single output struct.
  assertEquals(vk.getPhysicalDeviceQueueFamilyProperties2(gpu!).map((f) => f.chain), [{}, {}, {}]);
  assertEquals(vk.getPhysicalDeviceQueueFamilyProperties2KHR(gpu!, [PRIORITY])[1]!.chain, families[1]!.chain);
});

Deno.test({
  name: "on lavapipe the per-element chain matches the raw two-call written by hand, on both loaders",
  ignore: !hasLavapipe,
  fn: (t) =>
    onBothLoaders(t, (raw, loader) => {
      using vk = VkApi.of(raw).scope();
      const instance = vk.createInstance({ pApplicationInfo: { apiVersion: vk.enumerateInstanceVersion() } });
      const [gpu] = vk.enumeratePhysicalDevices(instance);
      const got = idiomatic(vk, gpu!);
      assertNotEqual(got.length, 0, loader);
      // Each element's chain came back with its sType: the links were written, not left out.
      assertEquals(got.map((f) => f[PRIORITY].sType), got.map(() => 1000388001), loader);
      assertEquals(got, byHand(raw, gpu!), loader);
    }),
});

Deno.test("an array chain that is not a list of struct names throws naming the command and the parameter", () => {
  const vk = VkApi.of({
    vkGetPhysicalDeviceQueueFamilyProperties2: () => undefined,
  } as unknown as VkCommandSource);
  const gpu = null as unknown as VkPhysicalDevice;
  assertThrows(() => vk.getPhysicalDeviceQueueFamilyProperties2(gpu, "x" as never), {
    name: "TypeError",
    message:
      /"vkGetPhysicalDeviceQueueFamilyProperties2": parameter "chain" expected an array of struct names/,
  });
  assertThrows(() => vk.getPhysicalDeviceQueueFamilyProperties2(gpu, ["VkNoSuchStruct" as never]), {
    name: "TypeError",
    message:
      /"vkGetPhysicalDeviceQueueFamilyProperties2": parameter "chain" has an unknown struct "VkNoSuchStruct"/,
  });
});

// Type-checked only: `deno test` fails to compile if an expectation below stops holding.
export function chainTypes(vk: VkApi, gpu: VkPhysicalDevice): void {
  const families = vk.getPhysicalDeviceQueueFamilyProperties2(gpu, [PRIORITY]);
  const count: number = families[0]!.chain.VkQueueFamilyGlobalPriorityProperties.priorityCount;
  // @ts-expect-error VkPhysicalDeviceDriverProperties extends VkPhysicalDeviceProperties2, not the family.
  vk.getPhysicalDeviceQueueFamilyProperties2(gpu, ["VkPhysicalDeviceDriverProperties"]);
  // @ts-expect-error a struct not asked for is not in the chain.
  families[0]!.chain.VkQueueFamilyCheckpointPropertiesNV;
  // @ts-expect-error no chain asked for: the chain is empty.
  vk.getPhysicalDeviceQueueFamilyProperties2(gpu)[0]!.chain.VkQueueFamilyGlobalPriorityProperties;
  void count;
}
