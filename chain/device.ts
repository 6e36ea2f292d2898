/**
 * Device creation and destruction, owned by one `LoaderDevices` per loader: the `vkCreateDevice` trampoline,
 * the device chain's bottom, the device dispatch table, and `vkDestroyDevice`.
 *
 * @module
 */

import { GET_PROC_ADDR } from "../vk/proc_addr.ts";
import { STRUCT_BY_STYPE, STRUCTS } from "../vk/generated/structs.ts";
import { cstringBuffer } from "../ffi/libc.ts";
import { fnFromPointer } from "../ffi/library.ts";
import {
  address,
  Arena,
  type Pointer,
  pointerFromAddress,
  readCString,
  readPointer,
  readU32,
  readU64,
  writeU32,
  writeU64,
} from "../ffi/memory.ts";
import { handleKey, handleText } from "../vk/handle_key.ts";
import { commandDef } from "../vk/command_ffi.ts";
import { COMMAND_INDEX, COMMANDS } from "../vk/generated/commands.ts";
import type { Logger } from "../loading/log.ts";
import { offsetOf, sizeOf } from "../vk/struct_layout.ts";
import { structureType } from "../vk/names.ts";
import { ICD_LOADER_MAGIC } from "../vk/handle.ts";
import {
  VK_ERROR_EXTENSION_NOT_PRESENT,
  VK_ERROR_INITIALIZATION_FAILED,
  VK_INCOMPLETE,
  VK_SUCCESS,
} from "../vk/generated/vk_constants.js";
import { skipLoaderNodes } from "./layer_chain/nodes.ts";
import { type HandleMaps, LoaderDevice, type LoaderInstance, type TermPhysicalDevice } from "./objects.ts";
import type { ChainStubs } from "./stubs.ts";
import { fillDeviceCommands } from "./table_fill.ts";
import { unknownDeviceSlots } from "./unknown.ts";
import type { WsiSupport } from "./wsi_interface.ts";

/** What {@linkcode LoaderDevices} needs from its loader. */
export interface LoaderDevicesOptions {
  /** The loader's handle maps. */
  readonly handleMaps: HandleMaps;
  /** The process's stubs. */
  readonly stubs: ChainStubs;
  /** The loader's log. */
  readonly log: Logger;
  /** Window-system support, whose terminators take the surface commands; none when left out. */
  readonly wsi?: WsiSupport;
}

/**
 * The devices of one loader: creation through the device chain and destruction.
 *
 * @example Usage
 * ```ts ignore
 * import { LoaderDevices } from "./device.ts";
 * const devices = new LoaderDevices({ handleMaps, stubs, log });
 * devices.createDevice(physicalDevice, pCreateInfo, null, pDevice);
 * ```
 */
export class LoaderDevices {
  readonly #handleMaps: HandleMaps;
  readonly #stubs: ChainStubs;
  readonly #log: Logger;
  readonly #wsi: WsiSupport | undefined;
  /** The names the WSI terminators take, one function for the life of the loader (table_fill.ts keeps its answers). */
  readonly #wsiAsks: ((name: string) => boolean) | undefined;
  /** Devices the terminator made whose chain has not returned yet (innermost last). */
  readonly #inFlight: LoaderDevice[] = [];

  constructor(options: LoaderDevicesOptions) {
    this.#handleMaps = options.handleMaps;
    this.#stubs = options.stubs;
    this.#log = options.log;
    this.#wsi = options.wsi;
    const wsi = options.wsi;
    this.#wsiAsks = wsi ? (name) => wsi.callsJavaScript(name) : undefined;
  }

  /** `vkCreateDevice`: the instance's device chain, then the top's handle to the application. */
  createDevice(physicalDevice: Pointer, pCreateInfo: Pointer, pAllocator: Pointer, pDevice: Pointer): number {
    const tramp = this.#handleMaps.trampPhysicalDevices.get(handleKey(physicalDevice));
    if (!tramp) {
      this.#log.error(`vkCreateDevice: invalid VkPhysicalDevice "${handleText(handleKey(physicalDevice))}"`);
      return VK_ERROR_INITIALIZATION_FAILED;
    }
    if (pDevice === null) return VK_ERROR_INITIALIZATION_FAILED;
    const layers = tramp.instance.layers;
    if (!layers) return VK_ERROR_INITIALIZATION_FAILED;
    const depth = this.#inFlight.length;
    const made = layers.createDevice({ physicalDevice: tramp.next, pCreateInfo, pAllocator });
    // A device the terminator made that never came back up (a layer failed after its down-call).
    while (this.#inFlight.length > depth) this.#inFlight.pop();
    if (made.result < 0) {
      // Logged, as by the Khronos loader ("vkCreateDevice: Failed to create device chain."), docs/behaviour.md G11.
      this.#log.error(`vkCreateDevice: the device chain returned "${made.result}": no device was created`);
      return made.result;
    }
    writeU64(pDevice, 0, address(made.device));
    return made.result;
  }

  /**
   * The terminator of `vkCreateDevice`: the driver's, with the create info rewritten for it (no loader
   * nodes, only its extensions, its own physical-device handles in a device group); the `LoaderDevice`
   * made and its table stamped into the driver's `VkDevice`.
   */
  terminatorCreateDevice(
    physicalDevice: Pointer,
    pCreateInfo: Pointer,
    pAllocator: Pointer,
    pDevice: Pointer,
  ): number {
    const term = this.#handleMaps.termPhysicalDevices.get(handleKey(physicalDevice));
    if (!term) {
      throw new TypeError(
        `vkCreateDevice: invalid VkPhysicalDevice "${handleText(handleKey(physicalDevice))}"`,
      );
    }
    const d = term.driverInstance;
    const fn = d.fn("vkCreateDevice");
    if (!fn) return VK_ERROR_INITIALIZATION_FAILED;
    // The copies only have to live through the driver's call.
    using arena = new Arena();
    const requested = deviceCreateInfoExtensions(pCreateInfo);
    // The driver's list is only needed to check (and filter) what was asked.
    const offered = requested.length === 0 ? [] : driverDeviceExtensions(term);
    const layers = term.instance.layers;
    const missing = layers
      ? layers.unsupportedExtension(requested, offered, "device")
      : requested.find((e) => !offered.includes(e));
    if (missing !== undefined) {
      term.instance.log.error(
        `vkCreateDevice: device extension "${missing}" is offered by neither driver "${d.name}" nor an enabled layer`,
      );
      return VK_ERROR_EXTENSION_NOT_PRESENT;
    }
    const bare = driverDeviceCreateInfo(arena, pCreateInfo, offered);
    const terms = this.#handleMaps.termPhysicalDevices;
    const info = replaceGroupDevices(arena, bare, (h) => terms.get(handleKey(h))?.driverHandle);
    const result = fn(term.driverHandle, info, pAllocator, pDevice) as number;
    if (result < 0) {
      // An error, as in the Khronos loader ("terminator_CreateDevice: Failed in ICD ... vkCreateDevice call").
      term.instance.log.error(
        `Driver "${d.name}" ("${d.driver.manifest.libraryPath}"): vkCreateDevice failed with "${result}"`,
        "driver",
      );
      return result;
    }
    const device = readPointer(pDevice, 0);
    if (!hasLoaderMagic(device)) {
      term.instance.log.error(
        `Driver "${d.name}" returned a VkDevice without ICD_LOADER_MAGIC in its first word: destroying it`,
        "driver",
      );
      const gdpaAddress = d.driver.procAddr(d.handle, "vkGetDeviceProcAddr");
      if (gdpaAddress && device) {
        const destroy = fnFromPointer(gdpaAddress, GET_PROC_ADDR).call(
          device,
          cstringBuffer("vkDestroyDevice"),
        );
        if (destroy) {
          fnFromPointer(destroy, { parameters: ["pointer", "pointer"], result: "void" } as const)
            .call(device, pAllocator);
        }
      }
      writeU64(pDevice, 0, 0n);
      return VK_ERROR_INITIALIZATION_FAILED;
    }
    const ld = new LoaderDevice(term.instance, term, device as Deno.PointerObject);
    ld.enabledExtensions = new Set(requested);
    ld.stamp();
    this.#inFlight.push(ld);
    return result;
  }

  // The device half of an instance's `LoaderTerminators` (chain/layer_chain/bottom.ts), which
  // chain/instance_create.ts `InstanceTerminators` forwards here with its instance.

  /**
   * The down-call to the driver at the bottom of `inst`'s device chains: the driver's function for `name`,
   * or the WSI terminator taking its place; null for a device the loader does not know.
   */
  driverDeviceProcAddr(inst: LoaderInstance, device: Pointer, name: string): Pointer {
    const ld = this.#handleMaps.devices.get(handleKey(device));
    return ld ? bottomProcAddr(inst, ld, name) : null;
  }

  /** An application `VkPhysicalDevice` to the handle the top of the device chain knows. */
  unwrapPhysicalDevice(physicalDevice: Pointer): Pointer {
    return this.#handleMaps.trampPhysicalDevices.get(handleKey(physicalDevice))?.next ?? physicalDevice;
  }

  /** A layer destroyed a device it made through `pfnLayerCreateDevice`: the loader's device goes too. */
  layerDestroyedDevice(device: Pointer): void {
    this.#handleMaps.findDevice(device)?.dispose();
  }

  /** The device dispatch table of a device-level handle (for `vkSetDeviceLoaderData`), or null. */
  deviceDispatchTable(device: Pointer): Pointer {
    return this.#handleMaps.findDevice(device)?.table.pointer ?? null;
  }

  /** A device came back up `inst`'s chain: its table is filled from the chain's top `vkGetDeviceProcAddr`. */
  deviceCreated(inst: LoaderInstance, device: Pointer, getDeviceProcAddr: Pointer): number {
    const ld = this.#inFlight.pop() ?? this.#handleMaps.findDevice(device);
    if (!ld) {
      this.#log.error("vkCreateDevice: the chain returned a VkDevice the loader did not see created");
      return VK_ERROR_INITIALIZATION_FAILED;
    }
    ld.addAlias(device);
    if (getDeviceProcAddr === null) return VK_ERROR_INITIALIZATION_FAILED;
    const gdpa = fnFromPointer(getDeviceProcAddr, GET_PROC_ADDR);
    const top = (name: string) => gdpa.call(device, cstringBuffer(name));
    ld.top = { getDeviceProcAddr: top };
    const bottom = inst.layers?.bottomDeviceProcAddr ?? null;
    if (
      bottom !== null && handleKey(bottom) === handleKey(getDeviceProcAddr) &&
      ld.driverGetDeviceProcAddr !== null
    ) {
      // No device layers: the loader's bottom link answers the driver's functions, except the commands
      // the WSI terminators take; ask the driver directly for the rest, in one native call.
      this.#fillTable(
        ld,
        ld.driverGetDeviceProcAddr,
        ld.handle,
        // What the top (the bottom link) would answer, asked in JavaScript: through the link's C stub,
        // each name cost a foreign call and a callback back into the loader (~6-10 us, 4 names a device).
        (name, driverFunction) => bottomProcAddr(inst, ld, name, driverFunction),
        // The surface-taking commands, which the WSI terminators answer in place of the driver.
        this.#wsiAsks,
      );
    } else {
      this.#fillTable(ld, getDeviceProcAddr, device, top);
    }
    return VK_SUCCESS;
  }

  /**
   * Fills every device slot through `gdpa(handle, name)` in one native call (chain/table_fill.ts); with
   * `slow`, the names it accepts are asked through `procAddr` instead. Unknown device commands taken so
   * far fill their reserved slots through `procAddr`.
   */
  #fillTable(
    ld: LoaderDevice,
    gdpa: Deno.PointerObject,
    handle: Pointer,
    procAddr: (name: string, linked?: Pointer) => Pointer,
    slow?: (name: string) => boolean,
  ): void {
    const empty = this.#stubs.errorFunction;
    ld.setSlots(
      fillDeviceCommands(this.#stubs, gdpa, handle, slow ? { asks: slow, procAddr } : undefined),
      empty,
    );
    for (const [name, slot] of unknownDeviceSlots()) ld.setSlot(slot, procAddr(name), empty);
  }

  /** `vkDestroyDevice`: the driver's (down the device chain), then the loader's table goes. */
  destroyDevice(device: Pointer, pAllocator: Pointer): void {
    if (device === null) return;
    const ld = this.#handleMaps.findDevice(device);
    if (!ld) {
      this.#log.error(`vkDestroyDevice: invalid VkDevice "${handleText(handleKey(device))}"`);
      return;
    }
    const slot = COMMAND_INDEX.vkDestroyDevice!;
    this.#stubs.bindDispatch(slot, commandDef(COMMANDS[slot]!))(device, pAllocator);
    ld.dispose();
  }
}

/** The extensions named in a `VkDeviceCreateInfo`. */
export function deviceCreateInfoExtensions(p: Pointer): string[] {
  if (p === null) return [];
  const s = "VkDeviceCreateInfo";
  const n = readU32(p, offsetOf(s, "enabledExtensionCount"));
  const names = readPointer(p, offsetOf(s, "ppEnabledExtensionNames"));
  const out: string[] = [];
  for (let i = 0; i < n && names !== null; i++) out.push(readCString(readPointer(names, i * 8)));
  return out;
}

/** Whether a driver's dispatchable object starts with `ICD_LOADER_MAGIC`. */
export function hasLoaderMagic(handle: Pointer): boolean {
  return handle !== null && readU64(handle, 0) === ICD_LOADER_MAGIC;
}

/**
 * A copy of `VkDeviceCreateInfo` whose `VkDeviceGroupDeviceCreateInfo` lists other handles (`map` of each
 * address), or the original pointer when it has no such struct (or `map` knows none of them).
 */
export function replaceGroupDevices(
  arena: Arena,
  pCreateInfo: Pointer,
  map: (h: bigint) => Deno.PointerValue | undefined,
): Pointer {
  if (pCreateInfo === null) return null;
  const groupType = structureType("VK_STRUCTURE_TYPE_DEVICE_GROUP_DEVICE_CREATE_INFO");
  const nodes: Pointer[] = [pCreateInfo];
  let found = false;
  for (
    let p = readPointer(pCreateInfo, 8), guard = 0;
    p !== null && guard < 64;
    p = readPointer(p, 8), guard++
  ) {
    nodes.push(p);
    if (readU32(p, 0) === groupType) {
      found = true;
      break;
    }
  }
  if (!found) return pCreateInfo;
  const group = nodes[nodes.length - 1]!;
  const count = readU32(group, offsetOf("VkDeviceGroupDeviceCreateInfo", "physicalDeviceCount"));
  const list = readPointer(group, offsetOf("VkDeviceGroupDeviceCreateInfo", "pPhysicalDevices"));
  const mapped: Deno.PointerValue[] = [];
  let changed = false;
  for (let i = 0; i < count && list !== null; i++) {
    const h = address(readPointer(list, i * 8));
    const m = map(h);
    changed ||= m !== undefined;
    mapped.push(m ?? pointerFromAddress(h));
  }
  if (!changed) return pCreateInfo;
  // Copy every node up to the group struct, relinked, so the caller's memory is never written.
  const copies = nodes.map((p, i) => {
    const name = i === 0 ? "VkDeviceCreateInfo" : STRUCT_BY_STYPE[readU32(p, 0)];
    const size = name ? STRUCTS[name]?.size ?? 16 : 16;
    return arena.copy(new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(p!, size)));
  });
  for (let i = 0; i + 1 < copies.length; i++) writeU64(copies[i]!, 8, address(copies[i + 1]!));
  const lastCopy = copies[copies.length - 1]!;
  writeU64(
    lastCopy,
    offsetOf("VkDeviceGroupDeviceCreateInfo", "pPhysicalDevices"),
    address(arena.pointerArray(mapped)),
  );
  return copies[0]!;
}

/**
 * A copy of a create info (`struct`) whose `pNext` starts after the loader's layer nodes, or the
 * original pointer when it has none: drivers never see the chain-building structs.
 */
export function withoutLoaderNodes(arena: Arena, pCreateInfo: Pointer, struct: string): Pointer {
  if (pCreateInfo === null) return null;
  const next = readPointer(pCreateInfo, 8);
  const bare = skipLoaderNodes(next);
  if (address(bare) === address(next)) return pCreateInfo;
  const copy = arena.copy(new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(pCreateInfo, sizeOf(struct))));
  writeU64(copy, 8, address(bare));
  return copy;
}

/** The device extensions a driver offers for one of its physical devices (NULL layer name). */
export function driverDeviceExtensions(term: TermPhysicalDevice): string[] {
  const fn = term.driverInstance.fn("vkEnumerateDeviceExtensionProperties");
  if (!fn) return [];
  const count = new Uint32Array(new ArrayBuffer(4));
  for (let attempt = 0; attempt < 4; attempt++) {
    if ((fn(term.driverHandle, null, Deno.UnsafePointer.of(count), null) as number) < 0) return [];
    const buf = new Uint8Array(new ArrayBuffer(Math.max(1, count[0]!) * 260));
    const r = fn(term.driverHandle, null, Deno.UnsafePointer.of(count), Deno.UnsafePointer.of(buf)) as number;
    if (r === VK_INCOMPLETE) continue;
    if (r < 0) return [];
    const out: string[] = [];
    for (let i = 0; i < count[0]!; i++) {
      const name = buf.subarray(i * 260, i * 260 + 256);
      const end = name.indexOf(0);
      out.push(new TextDecoder().decode(name.subarray(0, end < 0 ? 256 : end)));
    }
    return out;
  }
  return [];
}

/**
 * What the driver's `vkCreateDevice` gets: the create info without the loader's layer nodes, and with
 * only the device extensions the driver offers (the rest belong to layers, checked before).
 */
export function driverDeviceCreateInfo(
  arena: Arena,
  pCreateInfo: Pointer,
  offered: readonly string[],
): Pointer {
  const bare = withoutLoaderNodes(arena, pCreateInfo, "VkDeviceCreateInfo");
  if (bare === null) return null;
  const s = "VkDeviceCreateInfo";
  const requested = deviceCreateInfoExtensions(bare);
  const kept = requested.filter((e) => offered.includes(e));
  if (kept.length === requested.length) return bare;
  const copy = arena.copy(new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(bare, sizeOf(s))));
  writeU32(copy, offsetOf(s, "enabledExtensionCount"), kept.length);
  writeU64(copy, offsetOf(s, "ppEnabledExtensionNames"), address(arena.cstringArray(kept)));
  return copy;
}

/**
 * What the bottom of `inst`'s device chain answers for `name` on `ld`: the driver's function, or the WSI
 * terminator that takes its place.
 */
function bottomProcAddr(
  inst: LoaderInstance,
  ld: LoaderDevice,
  name: string,
  fn: Pointer = ld.driverProcAddr(name),
): Pointer {
  return inst.wsi ? inst.wsi.deviceProcAddr(name, ld.driverInstance.index, fn) : fn;
}
