// Real layers from Debian packages over lavapipe: the Khronos validation layer (compute example clean, a
// deliberate VUID reaches a debug-utils messenger), Mesa's implicit device-select layer (instance chain only,
// NODEVICE_SELECT), Mesa's overlay layer (interface 0/1), MangoHud and vkBasalt (renamed entry points, $LIB,
// enable variables), and primus-vk (a layer whose failure reaches the application and leaves nothing behind).
// Third-party layers other than validation run in a subprocess (tests/support/layer_probe.ts).
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { Vulkan } from "../../../vulkan.ts";
import { COMMANDS } from "../../../vk/generated/commands.ts";
import { LayerLibrary } from "../../../loading/layer_library.ts";
import { CallbackOwner } from "../../../ffi/callback.ts";
import { Library } from "../../../ffi/library.ts";
import { Arena, readCString, readPointer } from "../../../ffi/memory.ts";
import { writeStruct } from "../../../api/structs.ts";
import { asHandle, readHandle } from "../../../vk/handle.ts";
import {
  flags,
  VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
  VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
  VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT,
  VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
  VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
} from "../../../mod.ts";
import { LAVAPIPE, MULTIARCH_LIB } from "../../support/lavapipe.ts";

const root = new URL("../../..", import.meta.url).pathname;
const has = (path: string) => {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
};
const ignore = !has(LAVAPIPE) ||
  !has("/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json");

/** The environment of a child process: nothing of ours leaks in except PATH, HOME and Deno's cache. */
function childEnv(vars: Record<string, string>): Record<string, string> {
  const denoDir = Deno.env.get("DENO_DIR");
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: Deno.env.get("HOME") ?? "/root",
    ...(denoDir === undefined ? {} : { DENO_DIR: denoDir }),
    VK_DRIVER_FILES: LAVAPIPE,
    ...vars,
  };
}

interface Probe {
  create: number;
  gipaFound?: number;
  gipaUnknown?: boolean[];
  enumerate?: number;
  device?: number;
  deviceLayers?: string[];
  during?: { openPaths: string[]; layers: number; libraries: number; callbacks: number };
  before: { layers: number; libraries: number; callbacks: number };
  after: { openPaths: string[]; layers: number; libraries: number; callbacks: number };
  layerLines: string[];
}

async function probe(vars: Record<string, string>, args: Record<string, unknown>): Promise<Probe> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${root}tests/support/layer_probe.ts`, JSON.stringify(args)],
    clearEnv: true,
    env: childEnv(vars),
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const line = text.split("\n").find((l) => l.startsWith("PROBE "));
  assert(out.success && line, `probe failed: ${text}\n${new TextDecoder().decode(out.stderr)}`);
  return JSON.parse(line.slice(6));
}

/** Before and after the measured cycle, nothing of the layers stays: libraries, layer uses, callbacks. */
function leftNothing(p: Probe): void {
  assertEquals(p.after.openPaths, []);
  assertEquals(
    { layers: p.after.layers, libraries: p.after.libraries, callbacks: p.after.callbacks },
    p.before,
  );
}

Deno.test({
  name: "VK_LAYER_KHRONOS_validation: the compute example runs clean through it",
  ignore,
}, async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${root}examples/compute.ts`],
    clearEnv: true,
    env: childEnv({
      VK_INSTANCE_LAYERS: "VK_LAYER_KHRONOS_validation",
      VK_LOADER_DEBUG: "layer",
      NODEVICE_SELECT: "1",
    }),
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  assert(out.success, `${stdout}\n${stderr}`);
  assert(/all \d+ values correct/.test(stdout), stdout);
  assert(stderr.includes('Insert instance layer "VK_LAYER_KHRONOS_validation"'), stderr);
  assert(stderr.includes('Inserted device layer "VK_LAYER_KHRONOS_validation"'), stderr);
  for (const text of [stdout, stderr]) {
    assert(!/Validation (Error|Warning)|VUID-/.test(text), text);
  }
});

Deno.test({
  name:
    "VK_LAYER_KHRONOS_validation: vkCreateBuffer with size 0 and usage 0 reports VUID-VkBufferCreateInfo-size-00912",
  ignore,
}, () => {
  const env = {
    vars: { VK_DRIVER_FILES: LAVAPIPE, NODEVICE_SELECT: "1", HOME: Deno.env.get("HOME") ?? "/root" },
    elevated: false,
  };
  using vk = Vulkan.load({ env });
  // The process's dispatch stubs load with the first loader and stay: count from here.
  const start = { layers: LayerLibrary.liveCount, libraries: Library.liveCount };
  using arena = new Arena();
  using callbacks = new CallbackOwner();
  const ids: string[] = [];
  const messenger = callbacks.create(
    { parameters: ["u32", "u32", "pointer", "pointer"], result: "u32" },
    (_severity, _type, data) => {
      ids.push(readCString(readPointer(data, 24)));
      return 0;
    },
    { name: "test messenger", onError: 0 },
  );
  const slot = arena.pointer(arena.alloc(8));
  assertEquals(
    vk.vkCreateInstance(
      writeStruct(arena, "VkInstanceCreateInfo", {
        pApplicationInfo: { apiVersion: (1 << 22) | (3 << 12) },
        ppEnabledLayerNames: ["VK_LAYER_KHRONOS_validation"],
        ppEnabledExtensionNames: ["VK_EXT_debug_utils"],
      }),
      null,
      slot,
    ),
    0,
  );
  const instance = readHandle("VkInstance", slot, 0)!;
  // Volk-style lookups of every command and of unknown names go through the layer without a crash.
  const found = COMMANDS.filter((c) => vk.vkGetInstanceProcAddr(instance, c.name) !== null).length;
  assert(found > 100, String(found));
  assertEquals(
    vk.vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceNotARealFunctionVENDOR"),
    null,
  );
  const handle = arena.pointer(arena.alloc(8));
  assertEquals(
    vk.vkCreateDebugUtilsMessengerEXT(
      instance,
      writeStruct(arena, "VkDebugUtilsMessengerCreateInfoEXT", {
        messageSeverity: flags(
          VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
          VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        ),
        messageType: flags(
          VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT,
          VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
          VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        ),
        pfnUserCallback: messenger.pointer,
      }),
      null,
      handle,
    ),
    0,
  );
  const count = new Uint32Array([4]);
  const pds = new BigUint64Array(4);
  assertEquals(
    vk.vkEnumeratePhysicalDevices(
      instance,
      Deno.UnsafePointer.of(count),
      Deno.UnsafePointer.of(pds),
    ),
    0,
  );
  const dslot = arena.pointer(arena.alloc(8));
  assertEquals(
    vk.vkCreateDevice(
      asHandle("VkPhysicalDevice", Deno.UnsafePointer.create(pds[0]!))!,
      writeStruct(arena, "VkDeviceCreateInfo", {
        pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
      }),
      null,
      dslot,
    ),
    0,
  );
  const device = readHandle("VkDevice", dslot, 0)!;
  // The layer calls the messenger (JavaScript) from inside vkCreateBuffer: call it as a callback-capable FFI call.
  const createBuffer = new Deno.UnsafeFnPointer(
    vk.vkGetDeviceProcAddr(device, "vkCreateBuffer") as Deno.PointerObject<never>,
    {
      parameters: ["pointer", "pointer", "pointer", "pointer"],
      result: "i32",
      nonblocking: false,
      callback: true,
    } as const,
  );
  const buffer = arena.pointer(arena.alloc(8));
  createBuffer.call(device, writeStruct(arena, "VkBufferCreateInfo", { size: 0n, usage: 0 }), null, buffer);
  assert(ids.includes("VUID-VkBufferCreateInfo-size-00912"), ids.join("\n"));
  if (readPointer(buffer, 0) !== null) {
    vk.vkDestroyBuffer(device, readHandle("VkBuffer", buffer, 0), null);
  }
  vk.vkDestroyDevice(device, null);
  vk.vkDestroyDebugUtilsMessengerEXT(instance, readHandle("VkDebugUtilsMessengerEXT", handle, 0), null);
  vk.vkDestroyInstance(instance, null);
  assertEquals({ layers: LayerLibrary.liveCount, libraries: Library.liveCount }, start);
});

Deno.test({
  name: "VK_LAYER_MESA_device_select: implicit, on the instance chain only; NODEVICE_SELECT=1 removes it",
  ignore: ignore || !has("/usr/share/vulkan/implicit_layer.d/VkLayer_MESA_device_select.json"),
}, async () => {
  const on = await probe({}, { device: true, gipaAll: true });
  assertEquals([on.create, on.enumerate, on.device], [0, 0, 0]);
  // Volk-style: every command and unknown names through vkGetInstanceProcAddr, without a crash.
  assert(on.gipaFound! > 100, String(on.gipaFound));
  assertEquals(on.gipaUnknown, [true, true]);
  assert(on.during!.openPaths.includes("libVkLayer_MESA_device_select.so"), JSON.stringify(on.during));
  assert(on.layerLines.some((l) => l.includes('Insert instance layer "VK_LAYER_MESA_device_select"')));
  assert(
    on.layerLines.some((l) =>
      l.includes('"VK_LAYER_MESA_device_select"') && l.includes("instance chain only")
    ),
  );
  assert(!on.layerLines.some((l) => l.includes('Inserted device layer "VK_LAYER_MESA_device_select"')));
  assert(on.deviceLayers!.includes("VK_LAYER_MESA_device_select"));
  leftNothing(on);
  const off = await probe({ NODEVICE_SELECT: "1" }, { device: true });
  assertEquals([off.create, off.device], [0, 0]);
  assertEquals(off.during!.openPaths, []);
  assertEquals(off.deviceLayers, []);
});

Deno.test({
  name:
    "VK_LAYER_MESA_overlay: an interface 0/1 layer (no negotiation) loads and a device is made through it",
  ignore: ignore || !has("/usr/share/vulkan/explicit_layer.d/VkLayer_MESA_overlay.json"),
}, async () => {
  const p = await probe({ NODEVICE_SELECT: "1" }, {
    layers: ["VK_LAYER_MESA_overlay"],
    device: true,
    gipaAll: true,
  });
  assert(p.gipaFound! > 100, String(p.gipaFound));
  assertEquals([p.create, p.enumerate, p.device], [0, 0, 0]);
  assert(
    p.layerLines.some((l) => /Loaded layer "VK_LAYER_MESA_overlay" .*\(interface 1\)/.test(l)),
    p.layerLines.join("\n"),
  );
  assert(p.layerLines.some((l) => l.includes('Inserted device layer "VK_LAYER_MESA_overlay"')));
  assertEquals(p.deviceLayers, ["VK_LAYER_MESA_overlay"]);
  leftNothing(p);
});

for (
  const [layer, variable, library] of [
    ["VK_LAYER_VKBASALT_post_processing", "ENABLE_VKBASALT", "/usr/$LIB/vkbasalt/libvkbasalt.so"],
    ["VK_LAYER_MANGOHUD_overlay", "MANGOHUD", "/usr/$LIB/mangohud/libMangoHud.so"],
  ] as const
) {
  Deno.test({
    name: `${layer}: renamed entry points and $LIB; loads when ${variable}=1 and not otherwise`,
    ignore: ignore || !has(library.replace("$LIB", MULTIARCH_LIB)),
  }, async () => {
    const on = await probe({ NODEVICE_SELECT: "1", [variable]: "1" }, { device: true, gipaAll: true });
    assertEquals(on.gipaUnknown, [true, true]);
    assertEquals([on.create, on.device], [0, 0]);
    assertEquals(on.during!.openPaths, [library]);
    assertEquals(on.deviceLayers, [layer]);
    leftNothing(on);
    const off = await probe({ NODEVICE_SELECT: "1" }, { device: true });
    assertEquals(off.during!.openPaths, []);
  });
}

Deno.test({
  name: "primus-vk: its vkEnumeratePhysicalDevices failure reaches the application; nothing stays behind",
  ignore: ignore || !has("/usr/share/vulkan/implicit_layer.d/primus_vk.json"),
}, async () => {
  const p = await probe({ NODEVICE_SELECT: "1", ENABLE_PRIMUS_LAYER: "1" }, { enumerate: true });
  assertEquals(p.create, 0);
  assertEquals(p.during!.openPaths, ["libprimus_vk.so.1"]);
  assert(p.enumerate! < 0, `vkEnumeratePhysicalDevices returned ${p.enumerate}`);
  leftNothing(p);
});
