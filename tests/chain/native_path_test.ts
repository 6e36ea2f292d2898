/**
 * No JavaScript on the device-command path: the command object's device commands are the native stubs
 * themselves, a stub is two instructions jumping through the device's table, and the table slot holds
 * the driver's own function. Plain physical-device commands likewise go stub -> stub -> driver.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { COMMAND_INDEX, COMMANDS } from "../../vk/generated/commands.ts";
import { Library } from "../../ffi/library.ts";
import { readPointer } from "../../ffi/memory.ts";
import { loaderOf } from "../../vulkan.ts";
import { MockEnvironment } from "../support/mock.ts";
import { HOST } from "../../ffi/host.ts";
import { addr, createDevice, createInstance, firstWord, load, physicalDevices } from "../support/chain.ts";

const DEVICE_COMMANDS = [
  "vkCmdDraw",
  "vkCmdSetLineWidth",
  "vkQueueWaitIdle",
  "vkBeginCommandBuffer",
  "vkDeviceWaitIdle",
];

function at(p: bigint, offset = 0): bigint {
  return addr(readPointer(Deno.UnsafePointer.create(p), offset));
}

Deno.test("device commands are native stubs jumping straight into the driver's functions", async () => {
  await using env = await MockEnvironment.create();
  const drv = await env.addDriver({ physicalDevices: [{}] });
  using l = load(env.snapshot());
  const loader = loaderOf(l.vk);
  if (!loader.stubs.native) return; // other architectures take the documented UnsafeFnPointer fallback
  const { instance } = createInstance(l);
  const [pd] = physicalDevices(l, instance);
  const { device } = createDevice(l, pd!);
  using driverLib = Library.open(drv.libraryPath);
  const driverGipa = new Deno.UnsafeFnPointer(
    driverLib.symbolAddress("vk_icdGetInstanceProcAddr") as Deno.PointerObject<never>,
    { parameters: ["pointer", "buffer"], result: "pointer" } as const,
  );
  using stubObject = Library.open(loader.stubs.dispatch.path!);
  const table = firstWord(device);
  for (const name of DEVICE_COMMANDS) {
    const index = COMMAND_INDEX[name]!;
    const info = COMMANDS[index]!;
    const fn = l.vk[name as "vkCmdDraw"];
    // The bound function is the Deno.dlopen symbol of the stub (what DispatchStubs caches), native code.
    assertEquals(
      fn,
      loader.stubs.dispatch.bind(index, { parameters: info.ffi.parameters, result: info.ffi.result }),
    );
    assert(/\[native code\]/.test(Function.prototype.toString.call(fn)), `${name}: ${fn}`);
    // vkGetInstanceProcAddr gives the stub's own symbol address...
    const stub = addr(l.vk.vkGetInstanceProcAddr(instance, name));
    assertEquals(stub, addr(stubObject.symbolAddress(name)));
    // ...whose code is `mov rax,[rdi]; jmp [rax+8*index]` (x86-64) ...
    if (HOST.arch === "x86_64") {
      const code = new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(Deno.UnsafePointer.create(stub)!, 9));
      const disp = new DataView(code.buffer).getInt32(5, true);
      assertEquals([...code.subarray(0, 5)], [0x48, 0x8b, 0x07, 0xff, 0xa0]);
      assertEquals(disp, index * 8);
    }
    // ...and the device table slot it jumps through holds the driver's own function.
    const driverFn = addr(driverGipa.call(null, new TextEncoder().encode(`${name}\0`)));
    assert(driverFn !== 0n);
    assertEquals(at(table, index * 8), driverFn);
    // vkGetDeviceProcAddr hands out the driver's pointer too.
    assertEquals(addr(l.vk.vkGetDeviceProcAddr(device, name)), driverFn);
  }
  l.vk.vkDestroyDevice(device, null);
  l.vk.vkDestroyInstance(instance, null);
});

Deno.test("plain physical-device commands go trampoline stub -> terminator stub -> driver function", async () => {
  await using env = await MockEnvironment.create();
  const drv = await env.addDriver({ physicalDevices: [{}] });
  using l = load(env.snapshot());
  const loader = loaderOf(l.vk);
  if (!loader.stubs.native) return;
  const { instance } = createInstance(l);
  const [pd] = physicalDevices(l, instance);
  using driverLib = Library.open(drv.libraryPath);
  const driverGipa = new Deno.UnsafeFnPointer(
    driverLib.symbolAddress("vk_icdGetInstanceProcAddr") as Deno.PointerObject<never>,
    { parameters: ["pointer", "buffer"], result: "pointer" } as const,
  );
  for (const name of ["vkGetPhysicalDeviceProperties", "vkGetPhysicalDeviceMemoryProperties"]) {
    const index = COMMAND_INDEX[name]!;
    // The application's handle: { instance table, next handle }.
    const instanceTable = at(addr(pd!), 0);
    const term = at(addr(pd!), 8);
    // The instance table's slot is the terminator unwrap stub, not a callback.
    assertEquals(at(instanceTable, index * 8), addr(loader.stubs.unwrap.address(1, index)));
    // The terminator object: { instance table, driver table, driver handle }; the driver table's slot is the driver's.
    assertEquals(at(term, 0), instanceTable);
    const driverTable = at(term, 8);
    const driverFn = addr(driverGipa.call(null, new TextEncoder().encode(`${name}\0`)));
    assertEquals(at(driverTable, index * 8), driverFn);
  }
  l.vk.vkDestroyInstance(instance, null);
});
