/**
 * The chassis rules: hook order across validation objects, skip-on-validate, the shared state tracker
 * and its destroy order, sub-state slots, and what the top-of-chain host leaves untouched. Driven by
 * plain JavaScript "next links", no driver needed.
 */
import type { VkCommandBuffer } from "../../vk/generated/vk_types.ts";
import assert from "node:assert/strict";
import { Arena, type Pointer, readPointer, writePointer } from "../../ffi/memory.ts";
import { writeStruct } from "../../api/structs.ts";
import { Chassis } from "../../layers/chassis.ts";
import { type CommandHooks, defineLayer, VK_ERROR_VALIDATION_FAILED_EXT } from "../../layers/layer.ts";
import { installLayers } from "../../layers/top.ts";
import { readHandle } from "../../vk/handle.ts";
import { VK_ERROR_DEVICE_LOST, VK_ERROR_OUT_OF_DEVICE_MEMORY } from "../../mod.ts";

/** A layer whose hooks log `<tag>.<phase>` for the given commands. */
function tracer(tag: string, log: string[], commands: string[], options: { skip?: boolean } = {}) {
  return defineLayer({
    name: `VK_LAYER_test_${tag}`,
    description: tag,
    create: () => {
      const hooks: CommandHooks = {
        preCallValidate: () => {
          log.push(`${tag}.validate`);
          return options.skip === true;
        },
        preCallRecord: () => void log.push(`${tag}.pre`),
        postCallRecord: (ctx) => void log.push(`${tag}.post=${String(ctx.result)}`),
      };
      return { intercepts: Object.fromEntries(commands.map((c) => [c, hooks])) };
    },
  });
}

Deno.test("chassis runs validate, then pre-record, then the next link, then post-record, objects in order", () => {
  const log: string[] = [];
  const next = {
    vkQueueWaitIdle: (_q: Pointer) => {
      log.push("next");
      return 0;
    },
  };
  using chassis = new Chassis(
    [tracer("a", log, ["vkQueueWaitIdle"]), tracer("b", log, ["vkQueueWaitIdle"])],
    next,
  );
  const fn = chassis.wrap("vkQueueWaitIdle", () => next.vkQueueWaitIdle);
  assert.deepEqual(fn(null), 0);
  assert.deepEqual(log, ["a.validate", "b.validate", "a.pre", "b.pre", "next", "a.post=0", "b.post=0"]);
});

Deno.test("a validator asking to skip stops the call after every validator ran", () => {
  const log: string[] = [];
  const next = {
    vkQueueWaitIdle: () => void log.push("next"),
    vkCmdSetLineWidth: () => void log.push("next"),
  };
  const layers = [
    tracer("a", log, ["vkQueueWaitIdle", "vkCmdSetLineWidth"], { skip: true }),
    tracer("b", log, ["vkQueueWaitIdle", "vkCmdSetLineWidth"]),
  ];
  using chassis = new Chassis(layers, next);
  assert.deepEqual(
    chassis.wrap("vkQueueWaitIdle", () => next.vkQueueWaitIdle)(null),
    VK_ERROR_VALIDATION_FAILED_EXT,
  );
  assert.deepEqual(log, ["a.validate", "b.validate"]);
  log.length = 0;
  assert.equal(chassis.wrap("vkCmdSetLineWidth", () => next.vkCmdSetLineWidth)(null, 1), undefined);
  assert.deepEqual(log, ["a.validate", "b.validate"]);
});

Deno.test("each call's context starts fresh: no skip, result, argument, scratch or memory of the call before", () => {
  const seen: string[] = [];
  const next = { vkQueueWaitIdle: (q: Pointer) => (seen.push(`next ${q === null ? "null" : "queue"}`), 0) };
  let call = 0;
  const layer = defineLayer({
    name: "VK_LAYER_test_fresh",
    description: "fresh",
    create: () => ({
      intercepts: {
        vkQueueWaitIdle: {
          preCallRecord(ctx) {
            call++;
            seen.push(`pre ${call} serial=${ctx.serial} skipped=${ctx.skipped} scratch=${ctx.scratch.size}`);
            ctx.scratch.set(layer, call);
            if (call === 1) ctx.skip(VK_ERROR_DEVICE_LOST);
            if (call === 2) ctx.setArgument("queue", null), ctx.memory.alloc(8);
          },
          postCallRecord(ctx) {
            seen.push(`post ${call} result=${String(ctx.result)} scratch=${String(ctx.scratch.get(layer))}`);
            ctx.result = VK_ERROR_OUT_OF_DEVICE_MEMORY;
          },
        },
      },
    }),
  });
  using chassis = new Chassis([layer], next);
  const wait = chassis.wrap("vkQueueWaitIdle", () => next.vkQueueWaitIdle);
  const queue = Deno.UnsafePointer.create(0x40n);
  assert.deepEqual([wait(queue), wait(queue), wait(queue)], [
    VK_ERROR_DEVICE_LOST,
    VK_ERROR_OUT_OF_DEVICE_MEMORY,
    VK_ERROR_OUT_OF_DEVICE_MEMORY,
  ]);
  assert.deepEqual(seen, [
    "pre 1 serial=1 skipped=false scratch=0",
    "pre 2 serial=2 skipped=false scratch=0",
    "next null",
    "post 2 result=0 scratch=2",
    "pre 3 serial=3 skipped=false scratch=0",
    "next queue",
    "post 3 result=0 scratch=3",
  ]);
});

Deno.test("a hook calling its own command again gets a context of its own", () => {
  const next = { vkCmdSetLineWidth: () => {} };
  const widths: string[] = [];
  let wrapped: (commandBuffer: null, width: number) => void = () => {};
  const layer = defineLayer({
    name: "VK_LAYER_test_reentrant",
    description: "reentrant",
    create: () => ({
      intercepts: {
        vkCmdSetLineWidth: {
          preCallRecord(ctx, _commandBuffer, width) {
            if (width === 1) wrapped(null, 2);
            widths.push(`${width}: args ${ctx.args[1]}, serial ${ctx.serial}`);
          },
        },
      },
    }),
  });
  using chassis = new Chassis([layer], next);
  wrapped = chassis.wrap("vkCmdSetLineWidth", () => next.vkCmdSetLineWidth) as typeof wrapped;
  wrapped(null, 1);
  assert.deepEqual(widths, ["2: args 2, serial 2", "1: args 1, serial 1"]);
});

/** A fake driver making handles 0x1000, 0x1010, ... for create/allocate commands. */
function fakeDevice() {
  let nextHandle = 0x1000n;
  const make = (out: Pointer, count = 1) => {
    for (let i = 0; i < count; i++) writePointer(out, i * 8, Deno.UnsafePointer.create(nextHandle += 0x10n));
    return 0;
  };
  return {
    vkCreateBuffer: (_d: Pointer, _info: Pointer, _a: Pointer, pBuffer: Pointer) => make(pBuffer),
    vkDestroyBuffer: () => {},
    vkCreateCommandPool: (_d: Pointer, _info: Pointer, _a: Pointer, pPool: Pointer) => make(pPool),
    vkDestroyCommandPool: () => {},
    vkAllocateCommandBuffers: (_d: Pointer, info: Pointer, pBuffers: Pointer) =>
      make(pBuffers, new Deno.UnsafePointerView(info!).getUint32(28)),
  };
}

Deno.test("state tracker records creation before and destruction after the other validation objects", () => {
  const seen: string[] = [];
  const device = Deno.UnsafePointer.create(0x900n);
  const probe = defineLayer({
    name: "VK_LAYER_test_probe",
    description: "reads state",
    usesState: true,
    create: (env) => ({
      intercepts: {
        vkCreateBuffer: {
          postCallRecord: (_ctx, _d, _i, _a, pBuffer: Pointer) => {
            seen.push(`create: ${env.state!.get(readPointer(pBuffer, 0))?.createdBy.command}`);
          },
        },
        vkDestroyBuffer: {
          preCallRecord: (_ctx, _d, buffer: Pointer) =>
            void seen.push(`pre-destroy alive: ${env.state!.get(buffer) !== undefined}`),
          postCallRecord: (_ctx, _d, buffer: Pointer) => {
            seen.push(
              `post-destroy: alive ${env.state!.get(buffer) !== undefined}, by ${
                env.state!.destroyed(buffer)?.destroyedBy?.command
              }`,
            );
          },
        },
      },
    }),
  });
  const next = fakeDevice();
  using chassis = new Chassis([probe], next);
  using arena = new Arena();
  const out = arena.pointer(arena.alloc(8));
  chassis.wrap("vkCreateBuffer", () => next.vkCreateBuffer)(device, null, null, out);
  const buffer = readPointer(out, 0);
  chassis.wrap("vkDestroyBuffer", () => next.vkDestroyBuffer)(device, buffer, null);
  assert.deepEqual(seen, [
    "create: vkCreateBuffer",
    "pre-destroy alive: true",
    "post-destroy: alive false, by vkDestroyBuffer",
  ]);
});

Deno.test("destroying a command pool ends its command buffers, and their sub-states hear it in slot order", () => {
  const heard: string[] = [];
  const slots = (tag: string) =>
    defineLayer({
      name: `VK_LAYER_test_slot_${tag}`,
      description: tag,
      usesState: true,
      create: (env) => {
        const slot = env.state!.createSlot<string>(tag, (o, v) => void heard.push(`${tag}:${o.type}:${v}`));
        return {
          intercepts: {
            vkAllocateCommandBuffers: {
              postCallRecord: (_ctx, _d, _info, pBuffers: Pointer) => {
                for (let i = 0; i < 2; i++) {
                  env.state!.get(readPointer(pBuffers, i * 8))?.setSubState(slot, `cb${i}`);
                }
              },
            },
          },
        };
      },
    });
  const next = fakeDevice();
  using chassis = new Chassis([slots("first"), slots("second")], next);
  using arena = new Arena();
  const device = Deno.UnsafePointer.create(0x900n);
  const poolOut = arena.pointer(arena.alloc(8));
  chassis.wrap("vkCreateCommandPool", () => next.vkCreateCommandPool)(device, null, null, poolOut);
  const pool = readHandle("VkCommandPool", poolOut)!;
  const cbs = arena.pointer(arena.alloc(16));
  const info = writeStruct(arena, "VkCommandBufferAllocateInfo", {
    commandPool: pool,
    commandBufferCount: 2,
  });
  chassis.wrap("vkAllocateCommandBuffers", () => next.vkAllocateCommandBuffers)(device, info, cbs);
  const state = chassis.adopted!.state!;
  const cb0 = state.get(readPointer(cbs, 0))!;
  assert.deepEqual(cb0.type, "VkCommandBuffer");
  assert.deepEqual(cb0.parent?.type, "VkCommandPool");
  chassis.wrap("vkDestroyCommandPool", () => next.vkDestroyCommandPool)(device, pool, null);
  assert.deepEqual(state.size, 0);
  assert.deepEqual(state.destroyed(readPointer(cbs, 8))?.destroyedBy?.command, "vkDestroyCommandPool");
  assert.deepEqual(heard, [
    "first:VkCommandBuffer:cb0",
    "second:VkCommandBuffer:cb0",
    "first:VkCommandBuffer:cb1",
    "second:VkCommandBuffer:cb1",
  ]);
});

Deno.test("top of chain: commands no layer intercepts are the very same functions", () => {
  const base = {
    vkCmdSetLineWidth: (_cb: Pointer, _w: number) => {},
    vkCmdDraw: (_cb: Pointer, _v: number, _i: number, _fv: number, _fi: number) => {},
  };
  const idle = defineLayer({
    name: "VK_LAYER_test_idle",
    description: "idle",
    create: () => ({ intercepts: {} }),
  });
  using vk = installLayers(base, { layers: [idle] });
  // No validation object exists before the first call on a handle: it says what is intercepted.
  vk.vkCmdSetLineWidth(null, 1);
  assert.equal(vk.vkCmdSetLineWidth, base.vkCmdSetLineWidth);
  assert.equal(vk.vkCmdDraw, base.vkCmdDraw);
  const log: string[] = [];
  using traced = installLayers(base, { layers: [tracer("t", log, ["vkCmdSetLineWidth"])] });
  traced.vkCmdSetLineWidth(null, 2);
  assert.ok(traced.vkCmdSetLineWidth !== base.vkCmdSetLineWidth);
  assert.equal(traced.vkCmdDraw, base.vkCmdDraw);
  assert.deepEqual(log, ["t.validate", "t.pre", "t.post=undefined"]);
});

Deno.test("a layer calls a command it does not intercept through the dispatch object", () => {
  const calls: string[] = [];
  const base = {
    vkQueuePresentKHR: (_q: Pointer, _info: Pointer) => {
      calls.push("present");
      return 0;
    },
    vkCmdDraw: (_cb: Pointer, v: number) => void calls.push(`draw ${v}`),
  };
  const overlay = defineLayer({
    name: "VK_LAYER_test_overlay",
    description: "draws before present",
    create: () => ({
      intercepts: {
        vkQueuePresentKHR: {
          preCallRecord: (ctx) => ctx.dispatch.vkCmdDraw(null as unknown as VkCommandBuffer, 3, 1, 0, 0),
        },
      },
    }),
  });
  using vk = installLayers(base, { layers: [overlay] });
  assert.deepEqual(vk.vkQueuePresentKHR(null, null), 0);
  assert.deepEqual(calls, ["draw 3", "present"]);
});

Deno.test("the tracker follows instances, physical devices, devices and queues, and ends them with their parent", () => {
  const h = (v: bigint) => Deno.UnsafePointer.create(v);
  const next = {
    vkCreateInstance: (_i: Pointer, _a: Pointer, out: Pointer) => (writePointer(out, 0, h(0x100n)), 0),
    vkEnumeratePhysicalDevices: (_i: Pointer, pCount: Pointer, out: Pointer) => {
      if (out !== null) writePointer(out, 0, h(0x200n));
      new DataView(Deno.UnsafePointerView.getArrayBuffer(pCount!, 4)).setUint32(0, 1, true);
      return 0;
    },
    vkCreateDevice: (
      _pd: Pointer,
      _i: Pointer,
      _a: Pointer,
      out: Pointer,
    ) => (writePointer(out, 0, h(0x300n)), 0),
    vkGetDeviceQueue: (_d: Pointer, _f: number, _q: number, out: Pointer) => writePointer(out, 0, h(0x400n)),
    vkDestroyDevice: () => {},
    vkDestroyInstance: () => {},
  };
  const tracked = defineLayer({
    name: "VK_LAYER_test_tracked",
    description: "t",
    usesState: true,
    create: () => ({ intercepts: {} }),
  });
  using chassis = new Chassis([tracked], next);
  const call = (name: keyof typeof next, ...args: unknown[]) =>
    chassis.wrap(name, () => next[name] as (...a: unknown[]) => unknown)(...args);
  using arena = new Arena();
  const out = arena.pointer(arena.alloc(8));
  const count = arena.pointer(arena.alloc(4));
  call("vkCreateInstance", null, null, out);
  call("vkEnumeratePhysicalDevices", h(0x100n), count, null);
  call("vkEnumeratePhysicalDevices", h(0x100n), count, out);
  call("vkCreateDevice", h(0x200n), null, null, out);
  call("vkGetDeviceQueue", h(0x300n), 0, 0, out);
  call("vkGetDeviceQueue", h(0x300n), 0, 0, out);
  const state = chassis.instances[0]!.state!;
  assert.deepEqual(state.objects().map((o) => o.type), [
    "VkInstance",
    "VkPhysicalDevice",
    "VkDevice",
    "VkQueue",
  ]);
  const queue = state.get(h(0x400n))!;
  assert.equal(queue.ancestor("VkInstance")?.key, 0x100);
  assert.equal(queue.implicit, true);
  call("vkDestroyDevice", h(0x300n), null);
  assert.deepEqual(state.objects().map((o) => o.type), ["VkInstance", "VkPhysicalDevice"]);
  assert.equal(state.destroyed(h(0x400n))?.destroyedBy?.command, "vkDestroyDevice");
  call("vkDestroyInstance", h(0x100n), null);
  assert.equal(state.size, 0);
});

Deno.test("top of chain: vkGetDeviceProcAddr answers an intercepted command with an entry point that runs the layers", () => {
  const log: string[] = [];
  const native = Deno.UnsafePointer.create(0x1234n);
  const base = {
    vkGetDeviceProcAddr: (_d: Pointer, _name: Pointer | string) => native,
    vkCmdSetLineWidth: (_cb: Pointer, w: number) => void log.push(`next ${w}`),
  };
  using vk = installLayers(base, { layers: [tracer("t", log, ["vkCmdSetLineWidth"])] });
  assert.equal(vk.vkGetDeviceProcAddr(null, "vkCmdDraw"), native);
  const entry = vk.vkGetDeviceProcAddr(null, "vkCmdSetLineWidth");
  assert.notEqual(entry, native);
  const fn = new Deno.UnsafeFnPointer(entry as Deno.PointerObject<never>, {
    parameters: ["pointer", "f32"],
    result: "void",
  });
  fn.call(null, 3);
  assert.deepEqual(log, ["t.validate", "t.pre", "next 3", "t.post=undefined"]);
});

Deno.test("an intercept that names no Vulkan command draws one warning per layer and name when the layer makes its object", () => {
  const messages: string[] = [];
  const layer = defineLayer({
    name: "VK_LAYER_test_typo",
    description: "typo",
    create: () => ({ intercepts: { vkQueueWaitIdle: {}, vkQueueWaitIdel: {} } as never }),
  });
  const next = { vkCreateInstance: () => 0, vkQueueWaitIdle: () => 0 };
  using chassis = new Chassis([layer], next, {
    onMessage: (m) => void messages.push(`${m.layer} ${m.severity} [${m.id}]: ${m.text}`),
  });
  const create = chassis.wrap("vkCreateInstance", () => next.vkCreateInstance);
  create(null, null, null);
  create(null, null, null);
  assert.deepEqual(messages, [
    'VK_LAYER_test_typo warning [Layer-UnknownIntercept]: intercepts "vkQueueWaitIdel", which is no Vulkan command this loader knows: its hooks never run',
  ]);
});
