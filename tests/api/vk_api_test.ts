// The idiomatic API (api/): every shape of the generated plans on lavapipe, through vkdeno's loader
// and through libvulkan: results thrown or returned by name, outputs returned (handles, handle arrays sized
// from the inputs, structs with pNext chains, two-call arrays, scalars, mapped memory), inputs as JavaScript
// values (arrays for count + pointer pairs, struct literals, strings, booleans), and scoped destruction.
import { deepEqual as assertEquals, ok as assert, throws as assertThrows } from "node:assert/strict";
import {
  asHandle,
  flags,
  VK_API_VERSION_1_3,
  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
  VK_BUFFER_USAGE_TRANSFER_DST_BIT,
  VK_COMMAND_BUFFER_LEVEL_PRIMARY,
  VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
  VK_FENCE_CREATE_SIGNALED_BIT,
  VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
  VK_SHADER_STAGE_COMPUTE_BIT,
  VK_WHOLE_SIZE,
  VkApi,
  type VkCommandSource,
  VkError,
  Vulkan,
} from "../../mod.ts";
import { onBothLoaders } from "../support/libvulkan_half.ts";
import { commandSource, compileCommand } from "../../api/compile.ts";
import { COMMAND_ALIAS_COUNT, COMMAND_COUNT, COMMAND_INDEX } from "../../vk/generated/commands.ts";
import { hasLavapipe } from "../support/lavapipe.ts";

Deno.test({
  name: "idiomatic commands return outputs, take arrays and literals, and destroy what a scope created",
  ignore: !hasLavapipe,
  fn: (t) =>
    onBothLoaders(t, (raw, loader) => {
      const destroyed: string[] = [];
      const spy = new Proxy(raw, {
        get(target, name) {
          const value = Reflect.get(target, name);
          if (
            typeof name !== "string" || !name.startsWith("vkDestroy") || typeof value !== "function"
          ) return value;
          return (...args: unknown[]) => {
            destroyed.push(name);
            return value(...args);
          };
        },
      });
      {
        using vk = VkApi.of(spy).scope();
        // A command with no pointer in, an output scalar, a string array.
        const version = vk.enumerateInstanceVersion();
        assert(version >= VK_API_VERSION_1_3 || version > 0, loader);
        const extensions = vk.enumerateInstanceExtensionProperties(null);
        assert(extensions.some((e) => e.extensionName === "VK_KHR_get_physical_device_properties2"), loader);
        const instance = vk.createInstance({
          pApplicationInfo: { apiVersion: VK_API_VERSION_1_3, pApplicationName: "idiomatic" },
          ppEnabledExtensionNames: ["VK_KHR_get_physical_device_properties2"],
        });
        // Two-call arrays of handles and structs.
        const gpus = vk.enumeratePhysicalDevices(instance);
        assertEquals(gpus.length, 1, loader);
        const gpu = gpus[0]!;
        const families = vk.getPhysicalDeviceQueueFamilyProperties(gpu);
        assert(families.length >= 1 && families[0]!.queueCount >= 1, loader);
        // A queried struct with the pNext chain asked for.
        const props = vk.getPhysicalDeviceProperties2(gpu, ["VkPhysicalDeviceDriverProperties"]);
        assertEquals(props.properties.deviceName.startsWith("llvmpipe"), true, loader);
        assertEquals(props.chain.VkPhysicalDeviceDriverProperties.driverName, "llvmpipe", loader);
        // An alias reaches the same command.
        assertEquals(vk.getPhysicalDeviceProperties2KHR(gpu).properties.deviceID, props.properties.deviceID);
        const device = vk.createDevice(gpu, {
          pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
        });
        const queue = vk.getDeviceQueue(device, 0, 0);
        assert(queue !== null, loader);
        // One struct in, a handle out; a struct out.
        const size = 4096n;
        const usage = flags(VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
        const buffer = vk.createBuffer(device, { size, usage });
        const reqs = vk.getBufferMemoryRequirements(device, buffer);
        assert(reqs.size >= size, loader);
        const types = vk.getPhysicalDeviceMemoryProperties(gpu).memoryTypes;
        const want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        const memoryTypeIndex = types.findIndex((t, i) =>
          (reqs.memoryTypeBits & (1 << i)) !== 0 && (t.propertyFlags & want) === want
        );
        const memory = vk.allocateMemory(device, { allocationSize: reqs.size, memoryTypeIndex });
        vk.bindBufferMemory(device, buffer, memory, 0n);
        // Mapped memory as an ArrayBuffer of the mapped size, VK_WHOLE_SIZE included.
        const whole = vk.mapMemory(device, memory, 0n, VK_WHOLE_SIZE);
        assertEquals(whole.byteLength, Number(reqs.size), loader);
        new Uint32Array(whole).fill(7);
        vk.unmapMemory(device, memory);
        const part = vk.mapMemory(device, memory, 64n, 16n);
        assertEquals([...new Uint32Array(part)], [7, 7, 7, 7], loader);
        vk.unmapMemory(device, memory);
        // Handle arrays sized from the create info, filled from arrays of struct literals.
        const commandPool = vk.createCommandPool(device, { queueFamilyIndex: 0 });
        const cmds = vk.allocateCommandBuffers(device, {
          commandPool,
          level: VK_COMMAND_BUFFER_LEVEL_PRIMARY,
          commandBufferCount: 3,
        });
        assertEquals(cmds.length, 3, loader);
        assert(cmds.every((c) => c !== null), loader);
        const binding = { binding: 0, descriptorType: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptorCount: 1 };
        const setLayout = vk.createDescriptorSetLayout(device, {
          pBindings: [{ ...binding, stageFlags: VK_SHADER_STAGE_COMPUTE_BIT }],
        });
        const descriptorPool = vk.createDescriptorPool(device, {
          maxSets: 2,
          pPoolSizes: [{ type: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptorCount: 2 }],
        });
        // The count comes from the array the struct counts (descriptorSetCount from pSetLayouts).
        const sets = vk.allocateDescriptorSets(device, {
          descriptorPool,
          pSetLayouts: [setLayout, setLayout],
        });
        assertEquals(sets.length, 2, loader);
        vk.updateDescriptorSets(device, [{
          dstSet: sets[0]!,
          descriptorType: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
          pBufferInfo: [{ buffer, offset: 0n, range: VK_WHOLE_SIZE }],
        }]);
        // Commands recorded with arrays for count + pointer pairs and bytes for a void pointer.
        const cmd = cmds[0]!;
        vk.beginCommandBuffer(cmd, {});
        vk.cmdFillBuffer(cmd, buffer, 0n, VK_WHOLE_SIZE, 3);
        vk.cmdUpdateBuffer(cmd, buffer, 0n, new Uint32Array([1, 2, 3, 4]));
        vk.endCommandBuffer(cmd);
        // Success codes that carry meaning are returned by name; booleans for VkBool32.
        const fence = vk.createFence(device, {});
        assertEquals(vk.getFenceStatus(device, fence), "VK_NOT_READY", loader);
        assertEquals(vk.waitForFences(device, [fence], true, 0n), "VK_TIMEOUT", loader);
        vk.queueSubmit(queue, [{ pCommandBuffers: [cmd] }], fence);
        assertEquals(vk.waitForFences(device, [fence], true, VK_WHOLE_SIZE), "VK_SUCCESS", loader);
        assertEquals(vk.getFenceStatus(device, fence), "VK_SUCCESS", loader);
        const values = new Uint32Array(vk.mapMemory(device, memory, 0n, 32n));
        assertEquals([...values], [1, 2, 3, 4, 3, 3, 3, 3], loader);
        vk.unmapMemory(device, memory);
        const signaled = vk.createFence(device, { flags: VK_FENCE_CREATE_SIGNALED_BIT });
        vk.resetFences(device, [signaled, fence]);
        assertEquals(vk.getFenceStatus(device, signaled), "VK_NOT_READY", loader);
        // A negative VkResult throws a VkError naming the command and the result.
        assertThrows(
          () => vk.createDevice(gpu, { ppEnabledExtensionNames: ["VK_KHR_no_such_extension"] }),
          (e) => {
            assert(e instanceof VkError);
            assertEquals(e.result, "VK_ERROR_EXTENSION_NOT_PRESENT");
            assert(e.message.includes("vkCreateDevice"), e.message);
            return true;
          },
        );
        vk.deviceWaitIdle(device);
        destroyed.length = 0;
      }
      // Last created first; pool-allocated handles go with their pool.
      assertEquals(destroyed, [
        "vkDestroyFence",
        "vkDestroyFence",
        "vkDestroyDescriptorPool",
        "vkDestroyDescriptorSetLayout",
        "vkDestroyCommandPool",
        "vkDestroyBuffer",
        "vkDestroyDevice",
        "vkDestroyInstance",
      ], loader);
    }),
});

Deno.test("misuse of an idiomatic command throws a TypeError naming the command and the parameter", () => {
  using raw = Vulkan.load({ env: { vars: { VK_DRIVER_FILES: "/nonexistent.json" }, elevated: false } });
  const vk = VkApi.of(raw);
  assertThrows(() => vk.createInstance(7 as never), {
    name: "TypeError",
    message: /"vkCreateInstance": parameter "pCreateInfo" expected a "VkInstanceCreateInfo" object/,
  });
  assertThrows(() => vk.enumerateInstanceExtensionProperties(3 as never), {
    name: "TypeError",
    message: /"vkEnumerateInstanceExtensionProperties": parameter "pLayerName" expected a string/,
  });
  assertThrows(() => VkApi.of({}).createInstance({}), {
    name: "TypeError",
    message: /Cannot call "createInstance": the command source has no "vkCreateInstance"/,
  });
  assertThrows(() => vk.defer(() => {}), { name: "TypeError", message: /owns nothing/ });
});

Deno.test("arrays sharing one count must agree, and the count is filled from them", () => {
  const calls: unknown[][] = [];
  const vk = VkApi.of({
    vkCmdBindVertexBuffers: (...args: unknown[]) => void calls.push(args),
  } as unknown as VkCommandSource);
  const b = asHandle("VkBuffer", Deno.UnsafePointer.create(0x1000n)!);
  const cmd = asHandle("VkCommandBuffer", Deno.UnsafePointer.create(0x2000n)!);
  vk.cmdBindVertexBuffers(cmd, 2, [b, b], [0n, 16n]);
  assertEquals(calls[0]!.slice(0, 3), [cmd, 2, 2]);
  assertThrows(() => vk.cmdBindVertexBuffers(cmd, 0, [b], [0n, 1n]), {
    name: "RangeError",
    message: /"pBuffers" and "pOffsets" share one count but have 1 and 2 elements/,
  });
});

Deno.test("a VkBool32 result is returned as the boolean it stands for", () => {
  let answer = 1;
  const vk = VkApi.of({
    vkGetPhysicalDeviceXcbPresentationSupportKHR: () => answer,
  } as unknown as VkCommandSource);
  const gpu = asHandle("VkPhysicalDevice", Deno.UnsafePointer.create(0x3000n)!);
  assertEquals(vk.getPhysicalDeviceXcbPresentationSupportKHR(gpu, 0, null, 0), true);
  answer = 0;
  assertEquals(vk.getPhysicalDeviceXcbPresentationSupportKHR(gpu, 0, null, 0), false);
});

Deno.test("a command with nothing to marshal compiles to a direct call", () => {
  const body = commandSource("vkCmdDraw");
  assert(!body.includes("rt.enter"), body);
  assert(commandSource("vkQueueWaitIdle").includes("rt.fail"));
});

Deno.test("every command and alias compiles to a function", () => {
  let count = 0;
  for (const name of Object.keys(COMMAND_INDEX)) {
    assertEquals(typeof compileCommand(name), "function", name);
    count++;
  }
  assertEquals(count, COMMAND_COUNT + COMMAND_ALIAS_COUNT);
});

Deno.test("a struct literal's mistake throws naming the command and the parameter, the writer's error its cause", () => {
  const calls: unknown[] = [];
  const source = {
    vkCmdSetViewport: (...args: unknown[]) => void calls.push(args),
    vkCmdPipelineBarrier2: (...args: unknown[]) => void calls.push(args),
  };
  const vk = VkApi.of(source as unknown as VkCommandSource);
  const cb = asHandle("VkCommandBuffer", Deno.UnsafePointer.create(0x1000n)!);
  const named = (command: string, param: string, fault: RegExp) => (e: unknown) =>
    e instanceof TypeError && e.message.startsWith(`Cannot call "${command}": parameter "${param}": `) &&
    fault.test(e.message) && e.cause instanceof TypeError;
  // One literal (written by the command's own call of the writer) and two (through the general path).
  assertThrows(
    () => vk.cmdSetViewport(cb, 0, [{ x: 0, z: 1 } as never]),
    named("vkCmdSetViewport", "pViewports", /Unknown member "z" of "VkViewport"/),
  );
  assertThrows(
    () => vk.cmdSetViewport(cb, 0, [{ x: 0 }, { width: "wide" as never }]),
    named("vkCmdSetViewport", "pViewports", /member "width" of "VkViewport": expected a number/),
  );
  assertThrows(
    () => vk.cmdPipelineBarrier2(cb, { pMemoryBarriers: [{ srcStageMask: "all" as never }] }),
    named("vkCmdPipelineBarrier2", "pDependencyInfo", /member "srcStageMask" of "VkMemoryBarrier2"/),
  );
  assertEquals(calls.length, 0, "nothing reached the command");
});
