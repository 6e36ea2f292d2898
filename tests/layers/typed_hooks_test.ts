/**
 * Hooks are typed from the generated command signatures: a misspelled command name or a hook taking the
 * wrong argument types fails `deno check` (the `@ts-expect-error` lines below are checked by `deno test`);
 * `everyCommand` intercepts every command, and `COMMAND_NAMES` lists them by level.
 */
import assert from "node:assert/strict";
import {
  COMMAND_NAMES,
  type CommandHooks,
  defineLayer,
  everyCommand,
  installLayers,
  type Intercepts,
  type TsLayer,
  type ValidationObject,
  type VulkanCommandName,
} from "../../layers/mod.ts";
import type { VkDeviceMemory, VkResult } from "../../vk/generated/vk_types.ts";

Deno.test("a misspelled intercept and hooks with wrong argument or result types fail deno check", () => {
  const misspelled = defineLayer({
    name: "VK_LAYER_test_typo",
    description: "typo",
    create: () => ({
      intercepts: {
        // @ts-expect-error: no command "vkAlocateMemory"
        vkAlocateMemory: { preCallRecord: () => {} },
      },
    }),
  });
  const wrongArgument: Intercepts = {
    vkCmdSetLineWidth: {
      // @ts-expect-error: lineWidth is a number, not a string
      preCallRecord: (_ctx, _commandBuffer, _lineWidth: string) => {},
    },
  };
  const wrongReplacement: Intercepts = {
    vkAllocateMemory: {
      preCallRecord(ctx) {
        // @ts-expect-error: allocationSize is a VkDeviceSize (bigint)
        ctx.setArgument(1, { allocationSize: "large" });
        // @ts-expect-error: pMemory receives a VkDeviceMemory, not a number
        ctx.setOutput(3, 7);
        // @ts-expect-error: vkAllocateMemory has four parameters
        ctx.setArgument(4, null);
      },
    },
  };
  const typed: Intercepts = {
    vkAllocateMemory: {
      postCallRecord(ctx, _device, _info, _allocator, pMemory) {
        const result: VkResult | undefined = ctx.result;
        const memory: VkDeviceMemory | null = pMemory === null ? null : null;
        void [result, memory];
      },
    },
  };
  assert.equal(misspelled.name, "VK_LAYER_test_typo");
  assert.ok(wrongArgument.vkCmdSetLineWidth && wrongReplacement.vkAllocateMemory && typed.vkAllocateMemory);
});

Deno.test("everyCommand sees every call of the command object, COMMAND_NAMES lists commands by level", () => {
  const seen: string[] = [];
  const base = {
    vkCmdSetLineWidth: (_cb: Deno.PointerValue, _w: number) => {},
    vkDeviceWaitIdle: (_d: Deno.PointerValue) => 0,
  };
  using vk = installLayers(base, {
    layers: [defineLayer({
      name: "VK_LAYER_test_every",
      description: "every command",
      create: () => ({ intercepts: everyCommand({ preCallRecord: (ctx) => void seen.push(ctx.command) }) }),
    })],
  });
  vk.vkCmdSetLineWidth(null, 1);
  vk.vkDeviceWaitIdle(null);
  assert.deepEqual(seen, ["vkCmdSetLineWidth", "vkDeviceWaitIdle"]);
  assert.ok(COMMAND_NAMES.device.includes("vkCmdDraw"));
  assert.ok(COMMAND_NAMES.instance.includes("vkEnumeratePhysicalDevices"));
  assert.ok(COMMAND_NAMES.physical_device.includes("vkGetPhysicalDeviceProperties2KHR"));
  assert.ok(COMMAND_NAMES.global.includes("vkCreateInstance"));
  assert.ok(!COMMAND_NAMES.device.includes("vkCreateInstance"));
  // The host answers the proc-addr commands: everyCommand leaves them out, and only them.
  const every = everyCommand({});
  const names = Object.values(COMMAND_NAMES).flat();
  assert.deepEqual(
    names.filter((n) => !(n in every)).sort(),
    ["vkGetDeviceProcAddr", "vkGetInstanceProcAddr"],
  );
});

Deno.test("createDevice is given the layer's own instance object, typed as create returns it", () => {
  const layer = defineLayer({
    name: "VK_LAYER_test_typed_objects",
    description: "typed objects",
    create: () => ({ intercepts: {}, devices: [] as string[] }),
    createDevice(env, instance) {
      instance.devices.push(String(env.physicalDevice));
      // @ts-expect-error: the instance object has no member "device"
      instance.device;
      return { intercepts: {} };
    },
  });
  assert.equal(typeof layer.createDevice, "function");
});

Deno.test("extending structs by position are typed: only structs extending the argument's struct, members by name", () => {
  const seen: number[] = [];
  const intercepts: Intercepts = {
    vkCreateDevice: {
      preCallRecord(ctx) {
        ctx.extendChain(1, { type: "VkPhysicalDeviceVulkan11Features", shaderDrawParameters: true });
        // @ts-expect-error: VkBufferCreateInfo does not extend VkDeviceCreateInfo
        ctx.extendChain(1, { type: "VkBufferCreateInfo" });
        // @ts-expect-error: no member "shaderDrawParamters"
        ctx.extendChain(1, { type: "VkPhysicalDeviceVulkan11Features", shaderDrawParamters: true });
        for (const link of ctx.chain(1)) {
          if (link.type === "VkPhysicalDeviceVulkan11Features") seen.push(link.shaderDrawParameters);
          // @ts-expect-error: a VkDeviceCreateInfo chain holds no VkBufferCreateInfo
          if (link.type === "VkBufferCreateInfo") seen.push(0);
        }
      },
    },
  };
  assert.ok(intercepts.vkCreateDevice);
});

Deno.test("a generic hook factory, one hooks object for a command and its alias, defineLayer's own object type and a count output need no cast", () => {
  const counts = new Map<string, number>();
  const counting = <K extends VulkanCommandName>(): CommandHooks<K> => ({
    preCallRecord: (ctx, ..._args) => void counts.set(ctx.command, (counts.get(ctx.command) ?? 0) + 1),
  });
  const draws: CommandHooks<"vkCmdDrawIndirectCount"> = {
    preCallRecord: (_ctx, _commandBuffer, _buffer) => {},
  };
  interface Budget extends ValidationObject {
    readonly limit: bigint;
  }
  const layer = defineLayer({
    name: "VK_LAYER_test_typing",
    description: "typing",
    create: (): Budget => ({
      limit: 1n << 30n,
      intercepts: {
        vkCmdDraw: counting(),
        vkCmdDispatch: counting(),
        vkCmdDrawIndirectCount: draws,
        vkCmdDrawIndirectCountKHR: draws,
        vkEnumeratePhysicalDevices: { preCallRecord: (ctx) => ctx.setOutput(1, 0) },
      },
    }),
    createDevice: (_env, instance) => ({ intercepts: {}, limit: instance.limit }),
  });
  const kept: TsLayer<Budget> = layer;
  const any: TsLayer = layer;
  assert.equal(kept, any);
});
