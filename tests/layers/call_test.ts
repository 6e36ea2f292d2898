/**
 * Control of the call, the same in both placements (over the command object in the script, and as a
 * `.ts` layer manifest in vkdeno's native chain), checked against what the mock driver logs it received:
 * a pre hook skips the call with a chosen result, a post hook replaces the result, arguments are replaced
 * (scalars, struct literals), pNext chains are read (the loader's link structs left out) and edited, and a
 * throw becomes one reported message per layer and command while the call goes on.
 */
import assert from "node:assert/strict";
import { Arena, nativeBytes, readPointer } from "../../ffi/memory.ts";
import { readStruct, writeStruct } from "../../api/structs.ts";
import {
  defineLayer,
  type ExtendingStruct,
  installLayers,
  type Intercepts,
  type ValidationMessage,
} from "../../layers/mod.ts";
import {
  VK_ERROR_DEVICE_LOST,
  VK_ERROR_OUT_OF_DEVICE_MEMORY,
  VK_SUCCESS,
  Vulkan,
  type VulkanCommands,
} from "../../mod.ts";
import { createDevice, createInstance, type Loaded, physicalDevices } from "../support/chain.ts";
import { MockEnvironment } from "../support/mock.ts";
import type { VkDevice, VkDeviceMemory, VkPhysicalDevice, VkQueue } from "../../vk/generated/vk_types.ts";

const VULKAN_1_1_FEATURES = 49;
const VULKAN_1_2_FEATURES = 51;
const LAYER = "VK_LAYER_VKDENO_test_control";

type Placement = "script" | "native chain";
const PLACEMENTS: readonly Placement[] = ["script", "native chain"];

interface Run extends Loaded {
  readonly env: MockEnvironment;
  readonly messages: ValidationMessage[];
  readonly instance: Deno.PointerValue;
  readonly physicalDevice: VkPhysicalDevice;
  readonly device: VkDevice;
}

/**
 * A mock driver with the layer `intercepts` placed as `placement`, an instance and a device made through
 * it (`devicePNext` on the device's create info); returns the driver's log lines of `body`'s calls.
 */
async function withLayer(
  placement: Placement,
  intercepts: () => Intercepts,
  body: (run: Run) => void,
  devicePNext: (arena: Arena) => Deno.PointerValue = () => null,
): Promise<void> {
  await using env = await MockEnvironment.create();
  await env.addDriver({});
  const dir = env.path("ts_layers");
  Deno.mkdirSync(dir);
  Deno.writeTextFileSync(
    `${dir}/control.json`,
    JSON.stringify({
      file_format_version: "1.2.0",
      layer: {
        name: LAYER,
        type: "GLOBAL",
        library_path: "./control.ts",
        api_version: "1.3.0",
        implementation_version: "1",
        description: "control of the call",
      },
    }),
  );
  const messages: ValidationMessage[] = [];
  const layer = defineLayer({
    name: LAYER,
    description: "control of the call",
    create: () => ({ intercepts: intercepts() }),
  });
  const native = placement === "native chain";
  const snapshot = env.snapshot(native ? { VK_ADD_LAYER_PATH: dir, VK_INSTANCE_LAYERS: LAYER } : {});
  using base = Vulkan.load({
    env: snapshot,
    layerModules: [layer],
    moduleLayerOptions: { onMessage: (m) => void messages.push(m) },
  });
  using wrapped = native
    ? null
    : installLayers(base, { layers: [layer], onMessage: (m) => void messages.push(m) });
  const vk = (wrapped ?? base) as Vulkan & VulkanCommands;
  using arena = new Arena();
  const loaded = { vk, lines: [], arena, [Symbol.dispose]() {} };
  const { result, instance } = createInstance(loaded);
  assert.equal(result, 0);
  const [physicalDevice] = physicalDevices(loaded, instance);
  const made = createDevice(loaded, physicalDevice!, { pNext: devicePNext(arena) });
  assert.equal(made.result, 0);
  try {
    body({
      ...loaded,
      env,
      messages,
      instance,
      physicalDevice: physicalDevice!,
      device: made.device as VkDevice,
    });
  } finally {
    vk.vkDestroyDevice(made.device as VkDevice, null);
    vk.vkDestroyInstance(instance, null);
  }
}

const driverCalls = (env: MockEnvironment, command: string) =>
  env.callLog().filter((l) => l.split(" ")[1] === command);

for (const placement of PLACEMENTS) {
  Deno.test(`${placement}: a fault injector returns VK_ERROR_OUT_OF_DEVICE_MEMORY from its hook; the driver never sees the call and the application's memory is untouched`, async () => {
    let failNext = true;
    await withLayer(placement, () => ({
      vkAllocateMemory: {
        preCallRecord(ctx) {
          if (failNext) {
            failNext = false;
            ctx.skip(VK_ERROR_OUT_OF_DEVICE_MEMORY);
          }
        },
      },
    }), ({ vk, device, arena, env }) => {
      const info = writeStruct(arena, "VkMemoryAllocateInfo", { allocationSize: 1234n, memoryTypeIndex: 0 });
      const before = nativeBytes(info, 32).slice();
      const out = arena.pointer(arena.alloc(8).fill(0xab));
      env.clearCallLog();
      assert.equal(vk.vkAllocateMemory(device, info, null, out), VK_ERROR_OUT_OF_DEVICE_MEMORY);
      assert.deepEqual(nativeBytes(info, 32), before);
      assert.deepEqual(nativeBytes(out, 8), new Uint8Array(8).fill(0xab));
      assert.deepEqual(driverCalls(env, "vkAllocateMemory"), []);
      // The next allocation goes through.
      assert.equal(vk.vkAllocateMemory(device, info, null, out), 0);
      assert.match(driverCalls(env, "vkAllocateMemory").join("\n"), /size=1234 /);
      vk.vkFreeMemory(device, readPointer(out, 0) as VkDeviceMemory, null);
    });
  });

  Deno.test(`${placement}: a skipping hook fills the outputs; a post hook replaces the result`, async () => {
    await withLayer(placement, () => ({
      vkAllocateMemory: {
        preCallValidate(ctx) {
          ctx.setOutput(3, Deno.UnsafePointer.create(0x5000n) as VkDeviceMemory);
          ctx.skip(VK_SUCCESS);
        },
      },
      vkDeviceWaitIdle: { postCallRecord: (ctx) => void (ctx.result = VK_ERROR_DEVICE_LOST) },
    }), ({ vk, device, arena, env }) => {
      const info = writeStruct(arena, "VkMemoryAllocateInfo", { allocationSize: 64n });
      const out = arena.pointer(arena.alloc(8));
      env.clearCallLog();
      assert.equal(vk.vkAllocateMemory(device, info, null, out), 0);
      assert.equal(Deno.UnsafePointer.value(readPointer(out, 0)), 0x5000n);
      assert.deepEqual(driverCalls(env, "vkAllocateMemory"), []);
      assert.equal(vk.vkDeviceWaitIdle(device), VK_ERROR_DEVICE_LOST);
    });
  });

  Deno.test(`${placement}: a Profiles-style shim writes given members of an output and of the pNext structs the application chained, found by type; the driver's other values stay`, async () => {
    let shim = false;
    await withLayer(placement, () => ({
      vkGetPhysicalDeviceProperties2: {
        postCallRecord(ctx) {
          if (!shim) return;
          ctx.setOutput(1, {
            properties: { deviceName: "Profile GPU", limits: { maxImageDimension2D: 4096 } },
            pNext: [
              { type: "VkPhysicalDeviceDriverProperties", driverName: "profile driver" },
              // Not chained by the application: skipped.
              { type: "VkPhysicalDeviceIDProperties", deviceLUIDValid: true },
            ],
          });
        },
      },
    }), ({ vk, physicalDevice, arena }) => {
      const query = () => {
        const driver = writeStruct(arena, "VkPhysicalDeviceDriverProperties", {});
        const props = writeStruct(arena, "VkPhysicalDeviceProperties2", { pNext: driver });
        vk.vkGetPhysicalDeviceProperties2(physicalDevice, props);
        return {
          props: readStruct("VkPhysicalDeviceProperties2", props),
          driver: readStruct("VkPhysicalDeviceDriverProperties", driver),
          next: readPointer(driver, 8),
        };
      };
      const plain = query();
      shim = true;
      const shimmed = query();
      assert.equal(shimmed.props.properties.deviceName, "Profile GPU");
      assert.equal(shimmed.props.properties.limits.maxImageDimension2D, 4096);
      assert.equal(shimmed.driver.driverName, "profile driver");
      assert.equal(shimmed.next, null);
      // Everything else is the driver's.
      assert.notEqual(plain.props.properties.limits.maxComputeWorkGroupInvocations, 0);
      assert.deepEqual(
        {
          ...shimmed.props.properties,
          deviceName: "",
          limits: { ...shimmed.props.properties.limits, maxImageDimension2D: 0 },
        },
        {
          ...plain.props.properties,
          deviceName: "",
          limits: { ...plain.props.properties.limits, maxImageDimension2D: 0 },
        },
      );
      assert.deepEqual({ ...shimmed.driver, driverName: "" }, { ...plain.driver, driverName: "" });
    });
  });

  Deno.test(`${placement}: arguments replaced by a hook (a struct literal) reach the driver, not the application's values`, async () => {
    await withLayer(placement, () => ({
      vkAllocateMemory: {
        preCallRecord(ctx, _device, pAllocateInfo) {
          assert.notEqual(pAllocateInfo, null);
          ctx.setArgument(1, { allocationSize: 4096n, memoryTypeIndex: 0 });
        },
        postCallRecord(_ctx, _device, pAllocateInfo) {
          // Later hooks see the replacement.
          assert.equal(new Deno.UnsafePointerView(pAllocateInfo!).getBigUint64(16), 4096n);
        },
      },
    }), ({ vk, device, arena, env }) => {
      const info = writeStruct(arena, "VkMemoryAllocateInfo", { allocationSize: 1234n });
      const before = nativeBytes(info, 32).slice();
      const out = arena.pointer(arena.alloc(8));
      env.clearCallLog();
      assert.equal(vk.vkAllocateMemory(device, info, null, out), 0);
      assert.match(driverCalls(env, "vkAllocateMemory").join("\n"), /size=4096 /);
      assert.deepEqual(nativeBytes(info, 32), before);
      vk.vkFreeMemory(device, readPointer(out, 0) as VkDeviceMemory, null);
    });
  });

  Deno.test(`${placement}: a hook reads vkCreateDevice's pNext chain without the loader's link structs, and its edits reach the driver`, async () => {
    const seen: ExtendingStruct[][] = [];
    let appChain: Deno.PointerValue = null;
    await withLayer(
      placement,
      () => ({
        vkCreateDevice: {
          preCallRecord(ctx, _pd, pCreateInfo) {
            seen.push(ctx.chain("pCreateInfo"));
            appChain = readPointer(pCreateInfo, 8);
            assert.equal(ctx.removeFromChain("pCreateInfo", "VkPhysicalDeviceVulkan12Features"), true);
            ctx.extendChain("pCreateInfo", { type: "VkPhysicalDeviceVulkan11Features", multiview: 1 });
          },
        },
      }),
      ({ env }) => {
        const created = driverCalls(env, "vkCreateDevice");
        assert.equal(created.length, 1);
        const pnext = created[0]!.match(/pnext=(\S*)/)![1]!.split(",").filter((s) => s !== "").map(Number);
        assert.ok(pnext.includes(VULKAN_1_1_FEATURES), created[0]);
        assert.ok(!pnext.includes(VULKAN_1_2_FEATURES), created[0]);
        assert.deepEqual(seen.map((chain) => chain.map((l) => l.type)), [[
          "VkPhysicalDeviceVulkan12Features",
          "VkPhysicalDeviceMemoryPriorityFeaturesEXT",
        ]]);
      },
      (arena) =>
        writeStruct(arena, "VkPhysicalDeviceVulkan12Features", {
          pNext: writeStruct(arena, "VkPhysicalDeviceMemoryPriorityFeaturesEXT", { memoryPriority: 1 }),
        }),
    );
    // The application's chain is as it wrote it.
    assert.notEqual(appChain, null);
  });

  Deno.test(`${placement}: a hook that throws is reported once per layer and command, and the call still goes down (void commands too) or keeps its result`, async () => {
    await withLayer(placement, () => ({
      vkDeviceWaitIdle: {
        preCallValidate() {
          throw new RangeError("injected");
        },
      },
      vkGetDeviceQueue: {
        preCallRecord() {
          throw new TypeError("void");
        },
      },
      vkQueueWaitIdle: {
        postCallRecord() {
          throw new Error("late");
        },
      },
    }), ({ vk, device, arena, messages, env }) => {
      env.clearCallLog();
      assert.equal(vk.vkDeviceWaitIdle(device), VK_SUCCESS);
      assert.equal(vk.vkDeviceWaitIdle(device), VK_SUCCESS);
      assert.equal(driverCalls(env, "vkDeviceWaitIdle").length, 2);
      const out = arena.pointer(arena.alloc(8));
      vk.vkGetDeviceQueue(device, 0, 0, out);
      assert.equal(driverCalls(env, "vkGetDeviceQueue").length, 1);
      const queue = readPointer(out, 0) as VkQueue;
      assert.notEqual(queue, null);
      assert.equal(vk.vkQueueWaitIdle(queue), VK_SUCCESS);
      assert.equal(vk.vkQueueWaitIdle(queue), VK_SUCCESS);
      assert.equal(driverCalls(env, "vkQueueWaitIdle").length, 2);
      const went = "the call went on without it (reported once)";
      assert.deepEqual(messages.map((m) => [m.layer, m.id, m.command, m.text]), [
        [
          LAYER,
          "Layer-HookThrew",
          "vkDeviceWaitIdle",
          `preCallValidate of "vkDeviceWaitIdle" threw RangeError: injected; ${went}`,
        ],
        [
          LAYER,
          "Layer-HookThrew",
          "vkGetDeviceQueue",
          `preCallRecord of "vkGetDeviceQueue" threw TypeError: void; ${went}`,
        ],
        [
          LAYER,
          "Layer-HookThrew",
          "vkQueueWaitIdle",
          `postCallRecord of "vkQueueWaitIdle" threw Error: late; ${went}`,
        ],
      ]);
    });
  });
}

Deno.test("setOutput refuses extending structs it cannot write, naming the struct, the command and what is wrong", async () => {
  const errors: string[] = [];
  const attempt = (write: () => void) => {
    try {
      write();
    } catch (e) {
      errors.push((e as Error).message);
    }
  };
  await withLayer("script", () => ({
    vkGetPhysicalDeviceProperties: {
      postCallRecord: (ctx) =>
        attempt(() => ctx.setOutput(1, { pNext: [{ type: "VkPhysicalDeviceDriverProperties" }] } as never)),
    },
    vkGetPhysicalDeviceProperties2: {
      postCallRecord: (ctx) =>
        attempt(() => ctx.setOutput(1, { pNext: [{ driverName: "no type" }] } as never)),
    },
  }), ({ vk, physicalDevice, arena }) => {
    vk.vkGetPhysicalDeviceProperties(physicalDevice, arena.pointer(arena.alloc(1024, 8)) as never);
    vk.vkGetPhysicalDeviceProperties2(physicalDevice, writeStruct(arena, "VkPhysicalDeviceProperties2", {}));
  });
  assert.deepEqual(errors, [
    'Cannot write extending structs through "VkPhysicalDeviceProperties" of "vkGetPhysicalDeviceProperties": it has no pNext',
    'Cannot write extending struct {"driverName":"no type"} of "VkPhysicalDeviceProperties2" of "vkGetPhysicalDeviceProperties2": expected { type, ...members } of a struct with sType',
  ]);
});
