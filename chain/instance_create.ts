/**
 * `vkCreateInstance` for one loader: layers prepared (discovery, activation, libraries), drivers loaded,
 * extensions checked, then the chain, the layers' `vkCreateInstance` down to the terminator, which makes
 * every driver's instance (chain/driver_instances.ts). The instance dispatch table is then filled from
 * the top of the chain. The instance's layers get its terminators (chain/layer_terminators.ts).
 *
 * @module
 */

import { COMMAND_INDEX } from "../vk/generated/commands.ts";
import { address, type Pointer, writeU64 } from "../ffi/memory.ts";
import { VkError } from "../vk/errors.ts";
import type { EnvironmentSnapshot } from "../discovery/environment.ts";
import { readDevicePolicy } from "../discovery/device_selection.ts";
import { stampScope } from "../discovery/scan_memo.ts";
import { acquireDrivers, releaseDriver } from "../loading/driver.ts";
import { acquireDirectDrivers, readDirectDriverList } from "../loading/direct_driver.ts";
import type { Logger } from "../loading/log.ts";
import { formatApiVersion } from "../vk/api_version.ts";
import {
  VK_API_VERSION_1_0,
  VK_ERROR_EXTENSION_NOT_PRESENT,
  VK_ERROR_INCOMPATIBLE_DRIVER,
  VK_ERROR_INITIALIZATION_FAILED,
} from "../vk/generated/vk_constants.js";
import { activateMessengers, readMessengerCreateInfos } from "./extensions/debug.ts";
import type { LoaderDevices } from "./device.ts";
import { type InstanceCreateInfo, readInstanceCreateInfo } from "./driver_instances.ts";
import { type GlobalCommands, settingsDevices } from "./global_commands.ts";
import type { ModuleLayerLoader } from "./layer_chain/module_interface.ts";
import { InstanceLayers } from "./layer_chain/instance_layers.ts";
import type { LoaderCallbacks } from "./loader_callbacks.ts";
import { type HandleMaps, LoaderInstance } from "./objects.ts";
import {
  firstRefusedExtension,
  isInstanceExtensionFilterLifted,
  UNBUILT_SURFACE_EXTENSIONS,
} from "./extensions/platform.ts";
import { decidePortability, portabilityError } from "./extensions/portability.ts";
import type { ChainStubs } from "./stubs.ts";
import { fillInstanceCommands } from "./table_fill.ts";
import { InstanceTerminators } from "./layer_terminators.ts";
import { destroyDriverInstances } from "./driver_instances.ts";
import { fillPhysicalSlot, unknownPhysicalDeviceSlots, unknownSlotDef } from "./unknown.ts";
import type { WsiSupport } from "./wsi_interface.ts";

/** What instance creation needs from its loader (chain/loader.ts `Loader` is one). */
export interface InstanceCreationContext {
  /** The environment discovery reads. */
  readonly env: EnvironmentSnapshot;
  /** The log. */
  readonly log: Logger;
  /** Window-system support, if any. */
  readonly wsi: WsiSupport | undefined;
  /** Loader of script-module layers, if any. */
  readonly moduleLayers: ModuleLayerLoader | undefined;
  /** The process's stubs. */
  readonly stubs: ChainStubs;
  /** The loader's handle maps. */
  readonly handleMaps: HandleMaps;
  /** The loader's live instances: a made one is added. */
  readonly instances: Set<LoaderInstance>;
  /** The driver scan and the instance extensions offered. */
  readonly global: GlobalCommands;
  /** Device creation (the device half of the instance's terminators). */
  readonly devices: LoaderDevices;
  /** The terminator link's entry points and the emulations. */
  readonly callbacks: LoaderCallbacks;
}

function slot(name: string): number {
  return COMMAND_INDEX[name]!;
}

/**
 * `vkCreateInstance` on `ctx`: writes the new instance to `*pInstance` and returns a `VkResult`.
 *
 * @example Usage
 * ```ts ignore
 * import { createInstance, type InstanceCreationContext } from "./instance_create.ts";
 * declare const loader: InstanceCreationContext;
 * declare const pCreateInfo: Deno.PointerValue, pInstance: Deno.PointerValue;
 * const result = createInstance(loader, pCreateInfo, null, pInstance);
 * ```
 */
export function createInstance(
  ctx: InstanceCreationContext,
  pCreateInfo: Pointer,
  pAllocator: Pointer,
  pInstance: Pointer,
): number {
  if (pInstance === null) return VK_ERROR_INITIALIZATION_FAILED;
  // The driver and layer results are checked against the same settings files: stamped once per call.
  using _stamps = stampScope();
  const info = readInstanceCreateInfo(pCreateInfo);
  // The create info's messengers hear everything the loader says during the call (A17).
  const made: { instance: Pointer } = { instance: null };
  const done = activateMessengers(ctx.log, readMessengerCreateInfos(info.pNext), () => made.instance);
  try {
    return createWithMessengers(ctx, info, pAllocator, pInstance, made);
  } finally {
    done();
  }
}

function createWithMessengers(
  ctx: InstanceCreationContext,
  info: InstanceCreateInfo,
  pAllocator: Pointer,
  pInstance: Deno.PointerObject,
  made: { instance: Pointer },
): number {
  const pCreateInfo = info.pointer;
  const log = ctx.log;
  let layers: InstanceLayers;
  try {
    layers = InstanceLayers.prepare({
      env: ctx.env,
      log,
      requestedLayers: info.layers,
      apiVersion: info.appApiVersion || VK_API_VERSION_1_0,
      createMessengers: readMessengerCreateInfos(info.pNext),
      moduleLayers: ctx.moduleLayers,
    });
  } catch (error) {
    if (!(error instanceof VkError)) throw error;
    log.error(`vkCreateInstance: ${error.message}`, "layer");
    return error.code;
  }
  checkApiVersion(log, info.appApiVersion);
  const devicePolicy = readDevicePolicy(ctx.env);
  log.logAll(devicePolicy.messages);
  // VK_LUNARG_direct_driver_loading: the application's drivers, with the found ones or alone.
  const direct = readDirectDriverList(info.pNext, info.extensions, log);
  const discovered = direct?.mode === "exclusive"
    ? { drivers: [], ...settingsDevices(ctx.env) }
    : ctx.global.driverDiscovery();
  const found = discovered.drivers;
  // VK_KHR_portability_enumeration: portability drivers only when the application asked for them.
  const portability = decidePortability(found, {
    flags: info.flags,
    enabledExtensions: info.extensions,
  });
  log.logAll(portability.messages);
  // Scanned as the Khronos loader scans them (loader_icd_scan): the direct drivers first, in pDrivers
  // order, then the found ones. Listing drivers reverses that (A16), so with sorting off the direct
  // drivers' devices come last (D10), in reverse pDrivers order.
  const held = direct === undefined ? [] : acquireDirectDrivers(direct, log);
  held.push(...acquireDrivers(portability.used, log));
  const fail = (result: number, text: string) => {
    log.error(text);
    held.forEach(releaseDriver);
    layers.release();
    return result;
  };
  if (held.length === 0) {
    const onlyPortability = portability.used.length === 0 ? portabilityError(portability) : undefined;
    if (onlyPortability) return fail(onlyPortability.code, onlyPortability.message);
    return fail(VK_ERROR_INCOMPATIBLE_DRIVER, "vkCreateInstance: found no drivers");
  }
  const refused = firstRefusedExtension(info.extensions, isInstanceExtensionFilterLifted(ctx.env));
  if (refused !== undefined) {
    return fail(
      VK_ERROR_EXTENSION_NOT_PRESENT,
      `vkCreateInstance: instance extension "${refused}" is filtered out on Linux` +
        (UNBUILT_SURFACE_EXTENSIONS.has(refused)
          ? ""
          : " (VK_LOADER_DISABLE_INST_EXT_FILTER=1 lets it through)"),
    );
  }
  const offered = ctx.global.instanceExtensions(held).map((e) => e.name);
  const missing = layers.unsupportedExtension(info.extensions, offered, "instance");
  if (missing !== undefined) {
    return fail(
      VK_ERROR_EXTENSION_NOT_PRESENT,
      `vkCreateInstance: instance extension "${missing}" is not supported`,
    );
  }
  const surfaces = ctx.wsi?.unsupportedExtensions(
    info.extensions,
    held.map((d) => d.instanceExtensions().map((e) => e.name)),
  ) ?? [];
  if (surfaces.length > 0) {
    return fail(VK_ERROR_EXTENSION_NOT_PRESENT, `vkCreateInstance: no driver supports "${surfaces[0]}"`);
  }
  const inst = new LoaderInstance({
    handleMaps: ctx.handleMaps,
    enabledExtensions: info.extensions,
    apiVersion: info.appApiVersion || VK_API_VERSION_1_0,
    log,
    heldDrivers: held,
    // The settings file's device list rides on the policy (chain/order/configurations.ts applies it).
    devicePolicy: discovered.deviceConfigurations === undefined
      ? devicePolicy
      : { ...devicePolicy, deviceConfigurations: discovered.deviceConfigurations },
    wsi: ctx.wsi,
  });
  inst.layers = layers;
  made.instance = inst.handle;
  const callbacks = ctx.callbacks;
  inst.chain = [{ getInstanceProcAddr: (_i, name) => callbacks.terminatorProcAddr(inst, name) }];
  const result = layers.createInstance(new InstanceTerminators(ctx, inst), {
    pCreateInfo,
    pAllocator,
    loaderInstance: inst.handle,
    instanceTable: inst.table.pointer,
  });
  let failure = result;
  if (result >= 0 && !inst.terminatorReached) {
    log.error(
      `vkCreateInstance: a layer of "${
        layers.enabledLayers.map((l) => l.name).join('", "')
      }" returned success without calling down the chain to the terminator: no driver has an instance`,
      "layer",
    );
    failure = VK_ERROR_INITIALIZATION_FAILED;
  }
  if (failure < 0) {
    // A layer may fail after the drivers' instances were made.
    destroyDriverInstances(inst, pAllocator);
    inst.dispose();
    layers.release();
    held.forEach(releaseDriver);
    return failure;
  }
  // Word 1: the handle instance commands pass down (the loader's own unless a layer wrapped it).
  writeU64(inst.handle, 8, address(layers.topInstance ?? inst.handle));
  // The top of the chain fills the table; the loader's device-layer and layer-extension answers go
  // above it.
  // One native call asks the top for every instance and physical-device command (chain/table_fill.ts).
  const stubs = ctx.stubs;
  const top = layers.top;
  const filled = fillInstanceCommands(stubs, top.getInstanceProcAddr, top.instance, top.answer);
  inst.table.setAll(filled.slots, filled.fns, stubs.errorFunction);
  const overrides = layers.instanceSlotOverrides((name) => inst.table.get(slot(name)));
  for (const [name, fn] of Object.entries(overrides)) inst.table.set(slot(name), fn);
  for (const [name, s] of unknownPhysicalDeviceSlots()) {
    fillPhysicalSlot(inst, name, s, stubs, unknownSlotDef(s));
  }
  layers.messengers.attach(log, inst.handle);
  ctx.instances.add(inst);
  writeU64(pInstance, 0, inst.address);
  log.info(
    `vkCreateInstance: Vulkan ${
      formatApiVersion(inst.apiVersion)
    } instance over ${inst.drivers.length} driver(s)${
      layers.active ? ` and ${layers.enabledLayers.length} layer(s)` : ""
    }`,
  );
  return result;
}

/**
 * What the Khronos loader says about `VkApplicationInfo::apiVersion` (docs/behaviour.md A06): a value
 * below 1.0 other than 0 is an error (creation continues), a non-zero variant a warning.
 */
function checkApiVersion(log: Logger, version: number): void {
  if (version !== 0 && version < VK_API_VERSION_1_0) {
    log.error(
      `vkCreateInstance: VkApplicationInfo::apiVersion "${version}" is below VK_API_VERSION_1_0 ` +
        "(VUID-VkApplicationInfo-apiVersion-04010): treated as 1.0",
      "validation",
    );
  } else if (version >>> 29 !== 0) {
    log.warn(
      `vkCreateInstance: VkApplicationInfo::apiVersion "${formatApiVersion(version)}" has variant "${
        version >>> 29
      }": only variant 0 (Vulkan) is supported`,
      "validation",
    );
  }
}
