/**
 * The WSI terminators against mock drivers driven directly (no chain): the terminators are called through
 * their C function pointers, as the layer above them would, and the drivers' call log shows which surface
 * handle each driver received.
 */
import assert from "node:assert/strict";
import { COMMAND_INDEX, COMMANDS } from "../../vk/generated/commands.ts";
import { ENUMS } from "../../vk/generated/enums.ts";
import { Arena } from "../../ffi/memory.ts";
import { allocStruct, readStruct, writeStruct } from "../../api/structs.ts";
import type { LogEntry } from "../../loading/log.ts";
import {
  requiredInstanceExtensions,
  unsupportedSurfaceExtensions,
  wsiCommands,
  WsiTerminators,
} from "../../wsi/terminators.ts";
import type { WsiDriver, WsiPhysicalDevice } from "../../wsi/terminators.ts";
import { MockEnvironment } from "../support/mock.ts";
import { DirectDriver } from "../support/mock_ffi.ts";
import { asHandle, readHandle } from "../../vk/handle.ts";
import {
  VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR,
  VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
  VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR,
} from "../../mod.ts";

const EXTENSIONS = ["VK_KHR_surface", "VK_KHR_xcb_surface", "VK_KHR_xlib_surface", "VK_EXT_headless_surface"];

// deno-lint-ignore no-explicit-any
type Fn = (...args: any[]) => any;

/** Calls a C function pointer with the generated signature of `name`. */
function call(pointer: Deno.PointerValue, name: string): Fn {
  assert.ok(pointer, `no pointer for ${name}`);
  const fn = new Deno.UnsafeFnPointer(
    pointer as Deno.PointerObject<never>,
    COMMANDS[COMMAND_INDEX[name]!]!.ffi,
  );
  return fn.call.bind(fn) as Fn;
}

function hex(p: Deno.PointerValue): string {
  return `0x${BigInt(Deno.UnsafePointer.value(p)).toString(16)}`;
}

interface Scenario extends AsyncDisposable {
  env: MockEnvironment;
  wsi: WsiTerminators;
  drivers: {
    direct: DirectDriver;
    instance: Deno.PointerObject;
    pd: Deno.PointerObject;
    loaderPd: Deno.PointerObject;
  }[];
  logs: LogEntry[];
  arena: Arena;
}

/** Two mock drivers, "old" (interface 2) and "new" (interface 7), one device each, instance created. */
async function scenario(interfaces: number[] = [2, 7], extensions = EXTENSIONS): Promise<Scenario> {
  const env = await MockEnvironment.create();
  const arena = new Arena();
  const drivers: Scenario["drivers"] = [];
  const wsiDrivers: WsiDriver[] = [];
  const byLoaderPd = new Map<bigint, WsiPhysicalDevice>();
  for (const [index, version] of interfaces.entries()) {
    const name = version < 3 ? `old${index}` : `new${index}`;
    const mock = await env.addDriver({ name, interfaceVersion: version, instanceExtensions: extensions });
    const direct = DirectDriver.open(mock.libraryPath);
    const negotiated = direct.negotiate(7)!.version;
    assert.equal(negotiated, version);
    const instance = direct.createInstance({ extensions });
    const pd = direct.enumeratePhysicalDevices(instance)[0]!;
    // The loader's own physical device object: what the layers above pass down.
    const loaderPd = arena.pointer(arena.alloc(16));
    byLoaderPd.set(BigInt(Deno.UnsafePointer.value(loaderPd)), { driverIndex: index, handle: pd });
    drivers.push({ direct, instance, pd, loaderPd });
    wsiDrivers.push({
      index,
      name,
      interfaceVersion: negotiated,
      instance,
      procAddr: (n) => direct.gipa(instance, n),
    });
  }
  const logs: LogEntry[] = [];
  const wsi = new WsiTerminators({
    drivers: wsiDrivers,
    enabledExtensions: extensions,
    physicalDevice: (h) => byLoaderPd.get(BigInt(Deno.UnsafePointer.value(h))),
    log: (e) => logs.push(e),
  });
  env.clearCallLog();
  return {
    env,
    wsi,
    drivers,
    logs,
    arena,
    async [Symbol.asyncDispose]() {
      wsi.dispose();
      for (const d of drivers) {
        d.direct.destroyInstance(d.instance);
        d.direct[Symbol.dispose]();
      }
      arena.dispose();
      await env[Symbol.asyncDispose]();
    },
  };
}

function createSurface(s: Scenario, command: string, info: string, fields: Record<string, unknown>) {
  const pSurface = s.arena.alloc(8);
  const result = call(s.wsi.terminator(command)!, command)(
    null,
    writeStruct(s.arena, info, fields),
    null,
    s.arena.pointer(pSurface),
  );
  assert.equal(result, 0);
  return readHandle("VkSurfaceKHR", s.arena.pointer(pSurface))!;
}

function ownId(log: string[], driver: string, command: string): string {
  const line = log.find((l) => l.startsWith(`${driver} ${command} `));
  assert.ok(line, `${driver} did not log ${command}: ${log.join("\n")}`);
  return /id=(\d+)/.exec(line)![1]!;
}

Deno.test("an interface-2 driver reads the xcb window from the container; an interface-7 driver gets its own surface in every surface command", async () => {
  await using s = await scenario();
  const connection = Deno.UnsafePointer.create(0x1234_5670n);
  const surface = createSurface(s, "vkCreateXcbSurfaceKHR", "VkXcbSurfaceCreateInfoKHR", {
    connection,
    window: 0x42,
  });
  const created = s.env.callLog();
  assert.equal(created.filter((l) => l.includes("vkCreateXcbSurfaceKHR")).length, 1, created.join("\n"));
  const id = ownId(created, "new1", "vkCreateXcbSurfaceKHR");
  const container = s.wsi.surfaces.get(surface)!;
  assert.notEqual(container.driverSurface(1), 0n);
  assert.equal(container.driverSurface(0), 0n);

  const u32 = new Uint32Array(new ArrayBuffer(4));
  const caps = allocStruct(s.arena, "VkSurfaceCapabilitiesKHR");
  for (const { loaderPd } of s.drivers) {
    const support = call(
      s.wsi.terminator("vkGetPhysicalDeviceSurfaceSupportKHR")!,
      "vkGetPhysicalDeviceSurfaceSupportKHR",
    );
    assert.equal(support(loaderPd, 0, surface, Deno.UnsafePointer.of(u32)), 0);
    assert.equal(u32[0], 1);
    const getCaps = call(
      s.wsi.terminator("vkGetPhysicalDeviceSurfaceCapabilitiesKHR")!,
      "vkGetPhysicalDeviceSurfaceCapabilitiesKHR",
    );
    assert.equal(getCaps(loaderPd, surface, caps), 0);
    for (
      const name of ["vkGetPhysicalDeviceSurfaceFormatsKHR", "vkGetPhysicalDeviceSurfacePresentModesKHR"]
    ) {
      assert.equal(
        call(s.wsi.terminator(name)!, name)(loaderPd, surface, Deno.UnsafePointer.of(u32), null),
        0,
      );
      assert.equal(u32[0], 2);
    }
  }
  assert.equal(readStruct("VkSurfaceCapabilitiesKHR", caps).minImageCount, 2);

  // Swapchains: the device chain's bottom gets the terminator in place of the driver's function.
  for (const [index, d] of s.drivers.entries()) {
    const { device } = d.direct.createDevice(d.instance, d.pd, { extensions: ["VK_KHR_swapchain"] });
    const gdpa = call(d.direct.gipa(d.instance, "vkGetDeviceProcAddr"), "vkGetDeviceProcAddr");
    const own = gdpa(device, s.arena.cstring("vkCreateSwapchainKHR"));
    const terminator = s.wsi.deviceProcAddr("vkCreateSwapchainKHR", index, own);
    assert.notEqual(hex(terminator), hex(own));
    assert.equal(s.wsi.deviceProcAddr("vkCreateSwapchainKHR", index, own), terminator, "cached");
    const info = writeStruct(s.arena, "VkSwapchainCreateInfoKHR", {
      imageUsage: VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
      preTransform: VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR,
      compositeAlpha: VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR,
      surface,
      minImageCount: 3,
      imageExtent: { width: 640, height: 480 },
    });
    const pSwapchain = s.arena.pointer(s.arena.alloc(8));
    assert.equal(call(terminator, "vkCreateSwapchainKHR")(device, info, null, pSwapchain), 0);
    // The application's create info is left as it was.
    assert.equal(
      hex(readStruct("VkSwapchainCreateInfoKHR", info).surface as Deno.PointerValue),
      hex(surface),
    );
  }

  const log = s.env.callLog();
  const kinds = (driver: string, command: string) =>
    log.filter((l) => l.startsWith(`${driver} ${command} `)).map((l) => /kind=(\S+)/.exec(l)?.[1]);
  for (
    const command of [
      "vkGetPhysicalDeviceSurfaceSupportKHR",
      "vkGetPhysicalDeviceSurfaceCapabilitiesKHR",
      "vkGetPhysicalDeviceSurfaceFormatsKHR",
      "vkGetPhysicalDeviceSurfacePresentModesKHR",
      "vkCreateSwapchainKHR",
    ]
  ) {
    assert.deepEqual(kinds("old0", command), ["icd:xcb:connection=0x12345670:window=0x42"], command);
    assert.deepEqual(kinds("new1", command), [`own:${id}:xcb`], command);
  }
  // Each driver saw its own physical device, not the loader's.
  const support = log.filter((l) => l.includes("vkGetPhysicalDeviceSurfaceSupportKHR"));
  assert.match(support[0]!, new RegExp(`physicalDevice=${hex(s.drivers[0]!.pd)} `));
  assert.match(support[1]!, new RegExp(`physicalDevice=${hex(s.drivers[1]!.pd)} `));

  s.env.clearCallLog();
  call(s.wsi.terminator("vkDestroySurfaceKHR")!, "vkDestroySurfaceKHR")(null, surface, null);
  const destroyed = s.env.callLog().filter((l) => l.includes("vkDestroySurfaceKHR"));
  assert.equal(destroyed.length, 1);
  assert.match(
    destroyed[0]!,
    new RegExp(`^new1 vkDestroySurfaceKHR instance=${hex(s.drivers[1]!.instance)} .*kind=own:${id}:xcb`),
  );
  assert.equal(s.wsi.surfaces.size, 0);
  assert.deepEqual(s.logs, []);
});

Deno.test("vkDestroySurfaceKHR reaches every driver that made a surface, then frees the container", async () => {
  await using s = await scenario([7, 2, 5]);
  const surface = createSurface(s, "vkCreateXlibSurfaceKHR", "VkXlibSurfaceCreateInfoKHR", { window: 7n });
  const ids = ["new0", "new2"].map((d) => ownId(s.env.callLog(), d, "vkCreateXlibSurfaceKHR"));
  s.env.clearCallLog();
  call(s.wsi.terminator("vkDestroySurfaceKHR")!, "vkDestroySurfaceKHR")(null, surface, null);
  const log = s.env.callLog();
  assert.deepEqual(log.map((l) => /^(\S+) .*kind=(\S+)/.exec(l)!.slice(1).join(" ")), [
    `new0 own:${ids[0]}:xlib`,
    `new2 own:${ids[1]}:xlib`,
  ]);
  assert.equal(s.wsi.surfaces.get(surface), undefined);
  // NULL is a no-op.
  call(s.wsi.terminator("vkDestroySurfaceKHR")!, "vkDestroySurfaceKHR")(null, null, null);
  assert.equal(s.env.callLog().length, 2);
});

Deno.test("headless surfaces through mock drivers: the container for interface 2, the driver's own for 7", async () => {
  await using s = await scenario();
  const surface = createSurface(s, "vkCreateHeadlessSurfaceEXT", "VkHeadlessSurfaceCreateInfoEXT", {});
  const id = ownId(s.env.callLog(), "new1", "vkCreateHeadlessSurfaceEXT");
  const u32 = new Uint32Array(new ArrayBuffer(4));
  const support = call(
    s.wsi.terminator("vkGetPhysicalDeviceSurfaceSupportKHR")!,
    "vkGetPhysicalDeviceSurfaceSupportKHR",
  );
  for (const d of s.drivers) support(d.loaderPd, 0, surface, Deno.UnsafePointer.of(u32));
  const kinds = s.env.callLog().filter((l) => l.includes("SurfaceSupport")).map((l) =>
    /kind=(\S+)/.exec(l)![1]
  );
  assert.deepEqual(kinds, ["icd:headless", `own:${id}:headless`]);
  call(s.wsi.terminator("vkDestroySurfaceKHR")!, "vkDestroySurfaceKHR")(null, surface, null);
});

Deno.test("surface capabilities 2 and formats 2 are emulated through the VK_KHR_surface queries", async () => {
  const extensions = [...EXTENSIONS, "VK_KHR_get_surface_capabilities2"];
  await using s = await scenario([2], extensions);
  const surface = createSurface(s, "vkCreateXcbSurfaceKHR", "VkXcbSurfaceCreateInfoKHR", { window: 9 });
  const info = writeStruct(s.arena, "VkPhysicalDeviceSurfaceInfo2KHR", { surface });
  const caps2 = allocStruct(s.arena, "VkSurfaceCapabilities2KHR");
  const pd = s.drivers[0]!.loaderPd;
  const getCaps2 = "vkGetPhysicalDeviceSurfaceCapabilities2KHR";
  assert.equal(call(s.wsi.terminator(getCaps2)!, getCaps2)(pd, info, caps2), 0);
  const c = readStruct("VkSurfaceCapabilities2KHR", caps2).surfaceCapabilities as Record<string, unknown>;
  assert.deepEqual(c.currentExtent, { width: 640, height: 480 });
  assert.equal(
    readStruct("VkSurfaceCapabilities2KHR", caps2).sType,
    ENUMS.VK_STRUCTURE_TYPE_SURFACE_CAPABILITIES_2_KHR,
  );

  const getFormats2 = call(
    s.wsi.terminator("vkGetPhysicalDeviceSurfaceFormats2KHR")!,
    "vkGetPhysicalDeviceSurfaceFormats2KHR",
  );
  const count = new Uint32Array(new ArrayBuffer(4));
  assert.equal(getFormats2(pd, info, Deno.UnsafePointer.of(count), null), 0);
  assert.equal(count[0], 2);
  const formats = allocStruct(s.arena, "VkSurfaceFormat2KHR", { count: 2 });
  count[0] = 1;
  assert.equal(getFormats2(pd, info, Deno.UnsafePointer.of(count), formats), ENUMS.VK_INCOMPLETE);
  count[0] = 2;
  assert.equal(getFormats2(pd, info, Deno.UnsafePointer.of(count), formats), 0);
  const read = [0, 1].map((i) => readStruct("VkSurfaceFormat2KHR", formats, { index: i }));
  assert.deepEqual(read.map((f) => (f.surfaceFormat as { format: number }).format), [
    ENUMS.VK_FORMAT_B8G8R8A8_UNORM,
    ENUMS.VK_FORMAT_B8G8R8A8_SRGB,
  ]);
  const kinds = s.env.callLog().filter((l) => l.startsWith("old0 vkGetPhysicalDeviceSurface"));
  assert.equal(kinds.length, 4);
  for (const l of kinds) assert.match(l, /kind=icd:xcb:connection=\(nil\):window=0x9$/);
});

Deno.test("VK_KHR_display queries reach the physical device's driver; the *2 ones are emulated", async () => {
  const extensions = ["VK_KHR_surface", "VK_KHR_display", "VK_KHR_get_display_properties2"];
  await using s = await scenario([7], [...extensions]);
  const count = new Uint32Array(new ArrayBuffer(4));
  const d = s.drivers[0]!;
  for (
    const name of ["vkGetPhysicalDeviceDisplayPropertiesKHR", "vkGetPhysicalDeviceDisplayProperties2KHR"]
  ) {
    count[0] = 5;
    assert.equal(call(s.wsi.terminator(name)!, name)(d.loaderPd, Deno.UnsafePointer.of(count), null), 0);
    assert.equal(count[0], 0);
  }
  const log = s.env.callLog();
  assert.deepEqual(log, [
    `new0 vkGetPhysicalDeviceDisplayPropertiesKHR physicalDevice=${hex(d.pd)}`,
    `new0 vkGetPhysicalDeviceDisplayPropertiesKHR physicalDevice=${hex(d.pd)}`,
  ]);
});

Deno.test("surface commands resolve only when their instance extension is enabled", async () => {
  await using s = await scenario([7], ["VK_KHR_surface", "VK_KHR_xlib_surface"]);
  assert.ok(s.wsi.terminator("vkCreateXlibSurfaceKHR"));
  assert.ok(s.wsi.terminator("vkGetPhysicalDeviceSurfaceSupportKHR"));
  assert.equal(s.wsi.terminator("vkCreateXcbSurfaceKHR"), null);
  assert.equal(s.wsi.terminator("vkCreateHeadlessSurfaceEXT"), null);
  assert.equal(s.wsi.terminator("vkGetPhysicalDeviceDisplayPropertiesKHR"), null);
  assert.equal(s.wsi.terminator("vkGetPhysicalDeviceSurfaceCapabilities2KHR"), null);
  // Device-extension commands are the device's business; non-WSI commands are not ours.
  assert.equal(s.wsi.terminator("vkCreateSwapchainKHR"), undefined);
  assert.ok(s.wsi.terminator("vkGetPhysicalDevicePresentRectanglesKHR"));
  assert.equal(s.wsi.terminator("vkCreateBuffer"), undefined);
  assert.deepEqual(requiredInstanceExtensions("vkGetPhysicalDeviceSurfaceFormats2KHR"), [
    "VK_KHR_get_surface_capabilities2",
  ]);
});

Deno.test("asking for a surface extension no driver offers is reported for VK_ERROR_EXTENSION_NOT_PRESENT", () => {
  const drivers = [["VK_KHR_surface", "VK_KHR_xcb_surface"], ["VK_KHR_surface", "VK_EXT_headless_surface"]];
  assert.deepEqual(unsupportedSurfaceExtensions(["VK_KHR_surface", "VK_KHR_xcb_surface"], drivers), []);
  assert.deepEqual(
    unsupportedSurfaceExtensions(["VK_KHR_wayland_surface", "VK_EXT_debug_utils", "VK_KHR_display"], drivers),
    ["VK_KHR_wayland_surface", "VK_KHR_display"],
  );
});

Deno.test("shared swapchains give each create info the driver's surface", async () => {
  await using s = await scenario([2, 7]);
  const a = createSurface(s, "vkCreateHeadlessSurfaceEXT", "VkHeadlessSurfaceCreateInfoEXT", {});
  const b = createSurface(s, "vkCreateXcbSurfaceKHR", "VkXcbSurfaceCreateInfoKHR", { window: 3 });
  const seen: bigint[] = [];
  // A stand-in for the driver's vkCreateSharedSwapchainsKHR that records the surfaces it receives.
  const info = COMMANDS[COMMAND_INDEX.vkCreateSharedSwapchainsKHR!]!;
  const fake = new Deno.UnsafeCallback(
    { parameters: info.ffi.parameters, result: "i32" } as const,
    (_device, count, pInfos) => {
      for (let i = 0; i < (count as number); i++) {
        const v = new Deno.UnsafePointerView(pInfos as Deno.PointerObject);
        seen.push(v.getBigUint64(i * 104 + 24));
      }
      return 0;
    },
  );
  const infos = s.arena.alloc(2 * 104);
  const view = new DataView(infos.buffer, infos.byteOffset);
  view.setBigUint64(24, BigInt(Deno.UnsafePointer.value(a)), true);
  view.setBigUint64(104 + 24, BigInt(Deno.UnsafePointer.value(b)), true);
  for (const index of [0, 1]) {
    const terminator = s.wsi.deviceProcAddr("vkCreateSharedSwapchainsKHR", index, fake.pointer);
    call(terminator, "vkCreateSharedSwapchainsKHR")(null, 2, s.arena.pointer(infos), null, null);
  }
  const own = (surface: Deno.PointerObject) => s.wsi.surfaces.get(surface)!.driverSurface(1);
  const addr = (p: Deno.PointerObject) => BigInt(Deno.UnsafePointer.value(p));
  assert.deepEqual(seen, [addr(a), addr(b), own(a), own(b)]);
  assert.notEqual(own(a), 0n);
  // Other device commands pass through untouched.
  assert.equal(s.wsi.deviceProcAddr("vkQueuePresentKHR", 1, fake.pointer), fake.pointer);
  for (const surface of [a, b]) {
    call(s.wsi.terminator("vkDestroySurfaceKHR")!, "vkDestroySurfaceKHR")(null, surface, null);
  }
  fake.close();
});

Deno.test("a driver without surface queries answers 'no present support' and logs the missing command", () => {
  const logs: LogEntry[] = [];
  const pd = Deno.UnsafePointer.create(0x1000n);
  using wsi = new WsiTerminators({
    drivers: [{ index: 0, name: "bare.json", interfaceVersion: 5, instance: null, procAddr: () => null }],
    enabledExtensions: ["VK_KHR_surface", "VK_EXT_headless_surface"],
    physicalDevice: () => ({ driverIndex: 0, handle: pd }),
    log: (e) => logs.push(e),
  });
  using arena = new Arena();
  const pSurface = arena.alloc(8);
  const create = call(wsi.terminator("vkCreateHeadlessSurfaceEXT")!, "vkCreateHeadlessSurfaceEXT");
  assert.equal(
    create(null, writeStruct(arena, "VkHeadlessSurfaceCreateInfoEXT"), null, arena.pointer(pSurface)),
    0,
  );
  const surface = Deno.UnsafePointer.create(new BigUint64Array(pSurface.buffer, pSurface.byteOffset, 1)[0]!);
  const supported = new Uint32Array(new ArrayBuffer(4));
  supported[0] = 1;
  const support = call(
    wsi.terminator("vkGetPhysicalDeviceSurfaceSupportKHR")!,
    "vkGetPhysicalDeviceSurfaceSupportKHR",
  );
  assert.equal(support(pd, 0, surface, Deno.UnsafePointer.of(supported)), 0);
  assert.equal(supported[0], 0);
  const caps = call(
    wsi.terminator("vkGetPhysicalDeviceSurfaceCapabilitiesKHR")!,
    "vkGetPhysicalDeviceSurfaceCapabilitiesKHR",
  );
  assert.equal(caps(pd, surface, arena.pointer(arena.alloc(64))), ENUMS.VK_ERROR_EXTENSION_NOT_PRESENT);
  assert.deepEqual(logs.map((l) => l.text), [
    'Driver "bare.json" does not provide "vkGetPhysicalDeviceSurfaceSupportKHR"',
    'Driver "bare.json" does not provide "vkGetPhysicalDeviceSurfaceCapabilitiesKHR"',
  ]);
});

Deno.test("every physical-device WSI command reaches the driver with its physical device and its own surface", () => {
  const driverPd = Deno.UnsafePointer.create(0xd0d0n);
  const loaderPd = Deno.UnsafePointer.create(0x1010n);
  const OWN = 0x5eedn;
  const seen = new Map<string, { pd: bigint; surface?: bigint }>();
  const callbacks: Deno.UnsafeCallback[] = [];
  const commands = [...wsiCommands().values()].filter((c) => c.info.level === "physical_device");
  // A driver whose every WSI command is a recording stand-in.
  const procAddr = (name: string): Deno.PointerValue => {
    const command = wsiCommands().get(name);
    if (!command || command.info.level !== "physical_device") return null;
    const cb = new Deno.UnsafeCallback(
      {
        parameters: command.info.ffi.parameters,
        result: command.info.ffi.result,
      } as Deno.UnsafeCallbackDefinition,
      (...args: unknown[]) => {
        const use = command.surface;
        let surface: bigint | undefined;
        if (use && !use.struct) {
          surface = BigInt(Deno.UnsafePointer.value(args[use.param] as Deno.PointerValue));
        }
        if (use?.struct) {
          surface = new Deno.UnsafePointerView(args[use.param] as Deno.PointerObject).getBigUint64(
            use.struct.surfaceOffset,
          );
        }
        seen.set(name, { pd: BigInt(Deno.UnsafePointer.value(args[0] as Deno.PointerValue)), surface });
        return command.info.ffi.result === "void" ? undefined : 0;
      },
    );
    callbacks.push(cb as unknown as Deno.UnsafeCallback);
    return cb.pointer;
  };
  const extensions = new Set(commands.flatMap((c) => requiredInstanceExtensions(c.info.name) ?? []));
  using wsi = new WsiTerminators({
    drivers: [{ index: 0, interfaceVersion: 7, instance: null, procAddr }],
    enabledExtensions: [...extensions, "VK_KHR_surface"],
    physicalDevice: (h) =>
      Deno.UnsafePointer.equals(h, loaderPd) ? { driverIndex: 0, handle: driverPd } : undefined,
  });
  const container = wsi.surfaces.createEmpty("xlib");
  container.setDriverSurface(0, OWN);
  using arena = new Arena();
  const info = writeStruct(arena, "VkPhysicalDeviceSurfaceInfo2KHR", {
    surface: asHandle("VkSurfaceKHR", container.handle),
  });
  for (const { info: command, surface } of commands) {
    const args: unknown[] = command.params.map(() => null);
    command.ffi.parameters.forEach((t: Deno.NativeType, i: number) => {
      if (t === "u32" || t === "i32") args[i] = 0;
      if (t === "u64") args[i] = 0n;
    });
    args[0] = loaderPd;
    if (surface) args[surface.param] = surface.struct ? info : container.handle;
    call(wsi.terminator(command.name)!, command.name)(...args);
    const got = seen.get(command.name);
    assert.ok(got, `${command.name} did not reach the driver`);
    assert.equal(got.pd, 0xd0d0n, command.name);
    if (surface) assert.equal(got.surface, OWN, command.name);
  }
  assert.ok(seen.has("vkGetPhysicalDevicePresentRectanglesKHR"));
  assert.ok(seen.has("vkGetPhysicalDeviceSurfaceCapabilities2EXT"));
  assert.ok(seen.has("vkGetDisplayPlaneCapabilities2KHR"));
  for (const cb of callbacks) cb.close();
});

Deno.test("a driver failing vkCreate*SurfaceKHR undoes the surfaces already made and frees the container", () => {
  const destroyed: bigint[] = [];
  const callbacks: { close(): void }[] = [];
  const def = (name: string) => {
    const ffi = COMMANDS[COMMAND_INDEX[name]!]!.ffi;
    return { parameters: ffi.parameters, result: ffi.result } as Deno.UnsafeCallbackDefinition;
  };
  // Driver "ok" makes surface 0x100+index; driver "full" fails with VK_ERROR_OUT_OF_HOST_MEMORY.
  const driver = (index: number, createResult: number): WsiDriver => ({
    index,
    interfaceVersion: 7,
    instance: null,
    procAddr: (name) => {
      if (name !== "vkCreateHeadlessSurfaceEXT" && name !== "vkDestroySurfaceKHR") return null;
      const cb = new Deno.UnsafeCallback(def(name), (...args: unknown[]) => {
        if (name === "vkDestroySurfaceKHR") {
          destroyed.push(BigInt(Deno.UnsafePointer.value(args[1] as Deno.PointerValue)));
          return undefined;
        }
        if (createResult === 0) {
          const out = new BigUint64Array(
            Deno.UnsafePointerView.getArrayBuffer(args[3] as Deno.PointerObject, 8),
          );
          out[0] = 0x100n + BigInt(index);
        }
        return createResult;
      });
      callbacks.push(cb);
      return cb.pointer;
    },
  });
  using wsi = new WsiTerminators({
    drivers: [driver(0, 0), driver(1, ENUMS.VK_ERROR_OUT_OF_HOST_MEMORY!)],
    enabledExtensions: ["VK_KHR_surface", "VK_EXT_headless_surface"],
    physicalDevice: () => undefined,
  });
  using arena = new Arena();
  const pSurface = arena.alloc(8);
  const create = call(wsi.terminator("vkCreateHeadlessSurfaceEXT")!, "vkCreateHeadlessSurfaceEXT");
  const info = writeStruct(arena, "VkHeadlessSurfaceCreateInfoEXT");
  assert.equal(create(null, info, null, arena.pointer(pSurface)), ENUMS.VK_ERROR_OUT_OF_HOST_MEMORY);
  assert.deepEqual(destroyed, [0x100n]);
  assert.equal(wsi.surfaces.size, 0);
  assert.deepEqual([...pSurface], [0, 0, 0, 0, 0, 0, 0, 0]);
  for (const cb of callbacks) cb.close();
});
