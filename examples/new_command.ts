/**
 * An application calling a command no driver has: `vkExampleDoThingVKDENO` of the made-up device
 * extension `VK_VKDENO_example`, which the TypeScript layer `examples/layers/thing_counter.ts` provides.
 * The layer runs in the native chain (its manifest found through `VK_ADD_LAYER_PATH`, like a C layer's), or
 * with `--placement=script` in front of the application (`installLayers`); the application's code is the
 * same. `deno run --allow-read --allow-env --allow-ffi examples/new_command.ts [--placement=script]`
 * @module
 */
import { snapshotProcessEnvironment, VkApi, Vulkan, type VulkanCommands } from "../mod.ts";
import { importLayerModules, installLayers } from "../layers/mod.ts";
import thingCounter, {
  EXAMPLE_EXTENSION,
  vkExampleDoThingVKDENO,
  vkGetPhysicalDeviceThingLimitVKDENO,
} from "./layers/thing_counter.ts";

/** What {@linkcode doThings} saw. */
export interface ThingReport {
  /** The extension as `vkEnumerateDeviceExtensionProperties(gpu, layerName)` lists it. */
  readonly listed: boolean;
  /** `vkGetPhysicalDeviceThingLimitVKDENO`'s answer. */
  readonly limit: number;
  /** The totals written by three `vkExampleDoThingVKDENO` calls (1, 2, 3). */
  readonly totals: number[];
  /** What a call with an amount of 0 returns (`VK_ERROR_VALIDATION_FAILED_EXT`). */
  readonly refused: number;
}

/**
 * Makes an instance with the layer and a device with `VK_VKDENO_example`, and calls the layer's commands:
 * bound with `getUnknownCommand` (typed by the layer's declarations), and through `vkGetDeviceProcAddr`
 * and `Deno.UnsafeFnPointer`, as a C application would.
 */
export function doThings(raw: Vulkan & VulkanCommands): ThingReport {
  using vk = VkApi.of(raw).scope();
  const instance = vk.createInstance({ ppEnabledLayerNames: [thingCounter.name] });
  const gpu = vk.enumeratePhysicalDevices(instance)[0]!;
  const listed = vk.enumerateDeviceExtensionProperties(gpu, thingCounter.name)
    .some((e) => e.extensionName === EXAMPLE_EXTENSION);
  const device = vk.createDevice(gpu, {
    pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
    ppEnabledExtensionNames: [EXAMPLE_EXTENSION],
  });
  // Typed from the declarations: (device, amount: number, pTotal) => number.
  const limitOf = raw.getUnknownCommand(
    vkGetPhysicalDeviceThingLimitVKDENO.name,
    vkGetPhysicalDeviceThingLimitVKDENO,
  );
  const doThing = raw.getUnknownCommand(vkExampleDoThingVKDENO.name, vkExampleDoThingVKDENO);
  if (limitOf === null || doThing === null) {
    throw new Error(`${EXAMPLE_EXTENSION}'s commands are not provided`);
  }
  const total = new Uint32Array(1);
  const totals: number[] = [];
  for (const amount of [1, 2]) {
    doThing(device, amount, Deno.UnsafePointer.of(total));
    totals.push(total[0]!);
  }
  // The C way: the proc address, called through an FFI function pointer.
  const pointer = raw.vkGetDeviceProcAddr(device, vkExampleDoThingVKDENO.name);
  if (pointer === null) throw new Error(`vkGetDeviceProcAddr gave NULL for ${vkExampleDoThingVKDENO.name}`);
  const fn = new Deno.UnsafeFnPointer(pointer as Deno.PointerObject<never>, vkExampleDoThingVKDENO);
  fn.call(device, 3, Deno.UnsafePointer.of(total));
  totals.push(total[0]!);
  const refused = doThing(device, 0, Deno.UnsafePointer.of(total));
  return { listed, limit: limitOf(gpu), totals, refused };
}

if (import.meta.main) {
  const script = Deno.args.includes("--placement=script");
  const process = snapshotProcessEnvironment();
  // The native chain finds the layer's manifest as it finds a C layer's; its module is imported first.
  const env = script ? process : {
    ...process,
    vars: { ...process.vars, VK_ADD_LAYER_PATH: new URL("./layers", import.meta.url).pathname },
  };
  const { layers, errors } = await importLayerModules(env, { layers: [thingCounter.name] });
  for (const error of errors) console.error(error);
  using base = Vulkan.load({ env, layerModules: layers });
  using wrapped = script ? installLayers(base, { layers: [thingCounter] }) : null;
  const report = doThings(wrapped ?? base);
  console.log(`${script ? "script" : "native chain"}: ${JSON.stringify(report)}`);
}
