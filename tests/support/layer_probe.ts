/**
 * Subprocess side of tests/chain/layer_chain/real_layers_test.ts: one instance and device through vkdeno,
 * with the layers asked for, printed as one JSON line.
 *
 * @module
 */

import { Vulkan } from "../../vulkan.ts";
import { COMMANDS } from "../../vk/generated/commands.ts";
import { Logger } from "../../loading/log.ts";
import { LayerLibrary } from "../../loading/layer_library.ts";
import { CallbackOwner } from "../../ffi/callback.ts";
import { Library } from "../../ffi/library.ts";
import { Arena } from "../../ffi/memory.ts";
import { writeStruct } from "../../api/structs.ts";
import { snapshotProcessEnvironment } from "../../discovery/environment.ts";
import { asHandle, readHandle } from "../../vk/handle.ts";

interface ProbeArgs {
  layers?: string[];
  /** Ask vkGetInstanceProcAddr for every command and some unknown names, as Volk does. */
  gipaAll?: boolean;
  enumerate?: boolean;
  device?: boolean;
}

const args: ProbeArgs = JSON.parse(Deno.args[0] ?? "{}");
const lines: string[] = [];
const env = snapshotProcessEnvironment();
const logger = new Logger({ ...env, vars: { ...env.vars, VK_LOADER_DEBUG: "all" } }, {
  write: (l) => lines.push(l),
});
const live = () => ({
  layers: LayerLibrary.liveCount,
  libraries: Library.liveCount,
  callbacks: CallbackOwner.liveCount,
});
const vk = Vulkan.load({ env, logger });
const arena = new Arena();
function cycle(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const slot = arena.pointer(arena.alloc(8));
  out.create = vk.vkCreateInstance(
    writeStruct(arena, "VkInstanceCreateInfo", {
      pApplicationInfo: { apiVersion: (1 << 22) | (3 << 12) },
      ppEnabledLayerNames: args.layers ?? [],
    }),
    null,
    slot,
  );
  if (out.create !== 0) return out;
  const instance = readHandle("VkInstance", slot, 0)!;
  out.during = { openPaths: LayerLibrary.openPaths(), ...live() };
  if (args.gipaAll) {
    let found = 0;
    for (const c of COMMANDS) {
      if (vk.vkGetInstanceProcAddr(instance, c.name) !== null) found++;
    }
    out.gipaFound = found;
    out.gipaUnknown = ["vkGetPhysicalDeviceNotARealFunctionVENDOR", "vkNotAFunctionAtAll"].map((n) =>
      vk.vkGetInstanceProcAddr(instance, n) === null
    );
  }
  if (args.enumerate || args.device) {
    const count = new Uint32Array(1);
    out.enumerate = vk.vkEnumeratePhysicalDevices(
      instance,
      Deno.UnsafePointer.of(count),
      null,
    );
    const list = new BigUint64Array(Math.max(1, count[0]!));
    if (out.enumerate === 0) {
      out.enumerate = vk.vkEnumeratePhysicalDevices(
        instance,
        Deno.UnsafePointer.of(count),
        Deno.UnsafePointer.of(list),
      );
    }
    out.physicalDevices = count[0];
    if (args.device && out.enumerate === 0) {
      const pd = asHandle("VkPhysicalDevice", Deno.UnsafePointer.create(list[0]!))!;
      const n = new Uint32Array(1);
      vk.vkEnumerateDeviceLayerProperties(pd, Deno.UnsafePointer.of(n), null);
      const props = new Uint8Array(520 * Math.max(1, n[0]!));
      vk.vkEnumerateDeviceLayerProperties(
        pd,
        Deno.UnsafePointer.of(n),
        Deno.UnsafePointer.of(props),
      );
      out.deviceLayers = Array.from({ length: n[0]! }, (_, i) => {
        const b = props.subarray(i * 520, i * 520 + 256);
        return new TextDecoder().decode(b.subarray(0, b.indexOf(0)));
      });
      const dslot = arena.pointer(arena.alloc(8));
      out.device = vk.vkCreateDevice(
        pd,
        writeStruct(arena, "VkDeviceCreateInfo", {
          pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
        }),
        null,
        dslot,
      );
      if (out.device === 0) {
        const device = readHandle("VkDevice", dslot, 0)!;
        const queue = arena.pointer(arena.alloc(8));
        vk.vkGetDeviceQueue(device, 0, 0, queue);
        out.deviceWaitIdle = vk.vkDeviceWaitIdle(device);
        vk.vkDestroyDevice(device, null);
      }
    }
  }
  vk.vkDestroyInstance(instance, null);
  return out;
}

// A first cycle lets the loader make the callbacks it keeps for its lifetime; the second is measured.
const warm = cycle();
const before = live();
const out = cycle();
out.warm = warm.create;
out.before = before;
out.after = { openPaths: LayerLibrary.openPaths(), ...live() };
out.layerLines = lines.filter((l) => l.includes("LAYER") && /Insert|Loaded|Cannot|Requested|failed/.test(l));
arena.dispose();
vk.dispose();
console.log(`PROBE ${JSON.stringify(out)}`);
