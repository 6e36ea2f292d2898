/**
 * The loader's `VkLayerInstanceCreateInfo` and `VkLayerDeviceCreateInfo` nodes, built in native memory in
 * front of the application's `pNext` chain (docs/behaviour.md LI03-LI06); one set serves one create call.
 *
 * @example Instance nodes for two layers
 * ```ts
 * import { Arena } from "../../ffi/memory.ts";
 * import { buildInstanceNodes, readLayerNodes } from "./nodes.ts";
 * using arena = new Arena();
 * const fake = (n: bigint) => Deno.UnsafePointer.create(n);
 * const nodes = buildInstanceNodes(arena, {
 *   next: null,
 *   links: [
 *     { getInstanceProcAddr: fake(0x2000n), getPhysicalDeviceProcAddr: null },
 *     { getInstanceProcAddr: fake(0x3000n), getPhysicalDeviceProcAddr: null },
 *   ],
 *   setInstanceLoaderData: fake(0x10n),
 *   layerCreateDevice: fake(0x20n),
 *   layerDestroyDevice: fake(0x30n),
 * });
 * console.log(readLayerNodes(nodes.head).map((n) => n.function)); // [3, 2, 1, 0]
 * ```
 *
 * @module
 */

import {
  VK_STRUCTURE_TYPE_DEVICE_GROUP_DEVICE_CREATE_INFO,
  VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO,
  VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO,
} from "../../vk/generated/vk_constants.js";
import { STRUCT_BY_STYPE, STRUCTS } from "../../vk/generated/structs.ts";
import { address, type Arena, readPointer, readU32, writePointer } from "../../ffi/memory.ts";

/** `VkLayerFunction` values. */
export const VK_LAYER_LINK_INFO = 0;
/** `u.pfnSetInstanceLoaderData` / `u.pfnSetDeviceLoaderData`. */
export const VK_LOADER_DATA_CALLBACK = 1;
/** `u.layerDevice.pfnLayerCreateDevice` / `pfnLayerDestroyDevice`. */
export const VK_LOADER_LAYER_CREATE_DEVICE_CALLBACK = 2;
/** `u.loaderFeatures`. */
export const VK_LOADER_FEATURES = 3;
/** `VK_LOADER_FEATURE_PHYSICAL_DEVICE_SORTING` (set by the Windows loader only). */
export const VK_LOADER_FEATURE_PHYSICAL_DEVICE_SORTING = 1;

/** `VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO`. */
export const LOADER_INSTANCE_CREATE_INFO: number = VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO;
/** `VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO`. */
export const LOADER_DEVICE_CREATE_INFO: number = VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO;
const DEVICE_GROUP_DEVICE_CREATE_INFO: number = VK_STRUCTURE_TYPE_DEVICE_GROUP_DEVICE_CREATE_INFO;

/**
 * The first `pNext` node after the loader's own layer nodes (what drivers get).
 *
 * @example A chain without loader nodes is returned as is
 * ```ts
 * import { skipLoaderNodes } from "./nodes.ts";
 * console.log(skipLoaderNodes(null)); // null
 * ```
 */
export function skipLoaderNodes(pNext: Deno.PointerValue): Deno.PointerValue {
  let p = pNext;
  for (let guard = 0; p !== null && guard < 64; guard++) {
    const sType = readU32(p, 0);
    if (sType !== LOADER_INSTANCE_CREATE_INFO && sType !== LOADER_DEVICE_CREATE_INFO) break;
    p = readPointer(p, 8);
  }
  return p;
}

/** Byte offsets (LP64) of `VkLayerInstanceCreateInfo`; the tests check them against vk_layer.h. */
export const LAYER_INSTANCE_CREATE_INFO_LAYOUT = {
  size: 40,
  sType: 0,
  pNext: 8,
  function: 16,
  u: 24,
  /** `u.layerDevice.pfnLayerDestroyDevice`. */
  uSecond: 32,
} as const;
/** Byte offsets (LP64) of `VkLayerDeviceCreateInfo`. */
export const LAYER_DEVICE_CREATE_INFO_LAYOUT = { size: 32, sType: 0, pNext: 8, function: 16, u: 24 } as const;
/** Byte offsets (LP64) of `VkLayerInstanceLink`. */
export const LAYER_INSTANCE_LINK_LAYOUT = {
  size: 24,
  pNext: 0,
  pfnNextGetInstanceProcAddr: 8,
  pfnNextGetPhysicalDeviceProcAddr: 16,
} as const;
/** Byte offsets (LP64) of `VkLayerDeviceLink`. */
export const LAYER_DEVICE_LINK_LAYOUT = {
  size: 24,
  pNext: 0,
  pfnNextGetInstanceProcAddr: 8,
  pfnNextGetDeviceProcAddr: 16,
} as const;

/**
 * One `VkLayerInstanceLink`: what the layer it is handed to calls down into.
 *
 * @example Usage
 * ```ts
 * import type { InstanceLink } from "./nodes.ts";
 * const bottom: InstanceLink = { getInstanceProcAddr: Deno.UnsafePointer.create(0x1000n), getPhysicalDeviceProcAddr: null };
 * ```
 */
export interface InstanceLink {
  /** `pfnNextGetInstanceProcAddr`. */
  readonly getInstanceProcAddr: Deno.PointerValue;
  /** `pfnNextGetPhysicalDeviceProcAddr` (may be null). */
  readonly getPhysicalDeviceProcAddr: Deno.PointerValue;
}

/**
 * One `VkLayerDeviceLink`.
 *
 * @example Usage
 * ```ts
 * import type { DeviceLink } from "./nodes.ts";
 * const bottom: DeviceLink = { getInstanceProcAddr: null, getDeviceProcAddr: null };
 * ```
 */
export interface DeviceLink {
  /** `pfnNextGetInstanceProcAddr`. */
  readonly getInstanceProcAddr: Deno.PointerValue;
  /** `pfnNextGetDeviceProcAddr`. */
  readonly getDeviceProcAddr: Deno.PointerValue;
}

/**
 * Inputs of {@linkcode buildInstanceNodes}.
 *
 * @example Usage
 * ```ts
 * import type { InstanceNodesInput } from "./nodes.ts";
 * const input: InstanceNodesInput = {
 *   next: null, links: [], setInstanceLoaderData: null, layerCreateDevice: null, layerDestroyDevice: null,
 * };
 * ```
 */
export interface InstanceNodesInput {
  /** The application's `VkInstanceCreateInfo.pNext`, appended after the nodes. */
  readonly next: Deno.PointerValue;
  /** One link per layer, in chain order: `links[0]` is what the layer closest to the application calls. */
  readonly links: readonly InstanceLink[];
  /** `PFN_vkSetInstanceLoaderData`. */
  readonly setInstanceLoaderData: Deno.PointerValue;
  /** `PFN_vkLayerCreateDevice`. */
  readonly layerCreateDevice: Deno.PointerValue;
  /** `PFN_vkLayerDestroyDevice`. */
  readonly layerDestroyDevice: Deno.PointerValue;
  /** `VkLoaderFeatureFlags`; 0 on Linux (sorting is flagged by the Windows loader only). */
  readonly loaderFeatures?: number;
}

/**
 * The nodes built: `head` goes into the create info's `pNext`.
 *
 * @example Usage
 * ```ts
 * import type { LayerNodes } from "./nodes.ts";
 * const describe = (n: LayerNodes) => Deno.UnsafePointer.value(n.linkInfo);
 * ```
 */
export interface LayerNodes {
  /** The first node. */
  readonly head: Deno.PointerObject;
  /** The `VK_LAYER_LINK_INFO` node (its `u.pLayerInfo` moves as layers call down). */
  readonly linkInfo: Deno.PointerObject;
  /** The link structs, in chain order. */
  readonly links: readonly Deno.PointerObject[];
}

function dataView(buf: Uint8Array): DataView {
  return new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
}

function put(view: DataView, offset: number, p: Deno.PointerValue | bigint): void {
  view.setBigUint64(offset, typeof p === "bigint" ? p : address(p), true);
}

/** Builds the link list bottom-up and returns the addresses, first link first. */
function buildLinks(
  arena: Arena,
  links: readonly (readonly [Deno.PointerValue, Deno.PointerValue])[],
): Deno.PointerObject[] {
  const L = LAYER_INSTANCE_LINK_LAYOUT; // the device link has the same offsets
  const out: Deno.PointerObject[] = [];
  let below: Deno.PointerValue = null;
  for (let i = links.length - 1; i >= 0; i--) {
    const [a, b] = links[i]!;
    const buf = arena.alloc(L.size, 8);
    const view = dataView(buf);
    put(view, L.pNext, below);
    put(view, L.pfnNextGetInstanceProcAddr, a);
    put(view, L.pfnNextGetPhysicalDeviceProcAddr, b);
    below = arena.pointer(buf);
    out.unshift(below);
  }
  return out;
}

function node(
  arena: Arena,
  size: number,
  sType: number,
  fn: number,
  next: Deno.PointerValue,
  fill: (view: DataView) => void,
): Deno.PointerObject {
  const buf = arena.alloc(size, 8);
  const view = dataView(buf);
  view.setUint32(0, sType, true);
  put(view, 8, next);
  view.setUint32(16, fn, true);
  fill(view);
  return arena.pointer(buf);
}

/**
 * Builds the instance nodes in `arena`, ending in `input.next`.
 *
 * @example Usage
 * ```ts
 * import { Arena } from "../../ffi/memory.ts";
 * import { buildInstanceNodes } from "./nodes.ts";
 * using arena = new Arena();
 * const nodes = buildInstanceNodes(arena, {
 *   next: null, links: [], setInstanceLoaderData: null, layerCreateDevice: null, layerDestroyDevice: null,
 * });
 * ```
 */
export function buildInstanceNodes(arena: Arena, input: InstanceNodesInput): LayerNodes {
  const I = LAYER_INSTANCE_CREATE_INFO_LAYOUT;
  const links = buildLinks(
    arena,
    input.links.map((l) => [l.getInstanceProcAddr, l.getPhysicalDeviceProcAddr]),
  );
  const sType = LOADER_INSTANCE_CREATE_INFO;
  const linkInfo = node(
    arena,
    I.size,
    sType,
    VK_LAYER_LINK_INFO,
    input.next,
    (v) => put(v, I.u, links[0] ?? null),
  );
  const data = node(
    arena,
    I.size,
    sType,
    VK_LOADER_DATA_CALLBACK,
    linkInfo,
    (v) => put(v, I.u, input.setInstanceLoaderData),
  );
  const device = node(arena, I.size, sType, VK_LOADER_LAYER_CREATE_DEVICE_CALLBACK, data, (v) => {
    put(v, I.u, input.layerCreateDevice);
    put(v, I.uSecond, input.layerDestroyDevice);
  });
  const head = node(
    arena,
    I.size,
    sType,
    VK_LOADER_FEATURES,
    device,
    (v) => v.setUint32(I.u, input.loaderFeatures ?? 0, true),
  );
  return { head, linkInfo, links };
}

/**
 * Inputs of {@linkcode buildDeviceNodes}.
 *
 * @example Usage
 * ```ts
 * import type { DeviceNodesInput } from "./nodes.ts";
 * const input: DeviceNodesInput = { next: null, links: [], setDeviceLoaderData: null };
 * ```
 */
export interface DeviceNodesInput {
  /** The application's `VkDeviceCreateInfo.pNext` (already unwrapped, see {@linkcode unwrapDeviceGroup}). */
  readonly next: Deno.PointerValue;
  /** One link per device-chain layer, in chain order. */
  readonly links: readonly DeviceLink[];
  /** `PFN_vkSetDeviceLoaderData`. */
  readonly setDeviceLoaderData: Deno.PointerValue;
}

/**
 * Builds the device nodes in `arena`, ending in `input.next`.
 *
 * @example Usage
 * ```ts
 * import { Arena } from "../../ffi/memory.ts";
 * import { buildDeviceNodes, readLayerNodes } from "./nodes.ts";
 * using arena = new Arena();
 * const nodes = buildDeviceNodes(arena, { next: null, links: [], setDeviceLoaderData: null });
 * console.log(readLayerNodes(nodes.head).map((n) => n.function)); // [1, 0]
 * ```
 */
export function buildDeviceNodes(arena: Arena, input: DeviceNodesInput): LayerNodes {
  const D = LAYER_DEVICE_CREATE_INFO_LAYOUT;
  const links = buildLinks(arena, input.links.map((l) => [l.getInstanceProcAddr, l.getDeviceProcAddr]));
  const sType = LOADER_DEVICE_CREATE_INFO;
  const linkInfo = node(
    arena,
    D.size,
    sType,
    VK_LAYER_LINK_INFO,
    input.next,
    (v) => put(v, D.u, links[0] ?? null),
  );
  const head = node(
    arena,
    D.size,
    sType,
    VK_LOADER_DATA_CALLBACK,
    linkInfo,
    (v) => put(v, D.u, input.setDeviceLoaderData),
  );
  return { head, linkInfo, links };
}

/**
 * A loader node as read back from memory (tests and debugging).
 *
 * @example Usage
 * ```ts
 * import type { LayerNodeView } from "./nodes.ts";
 * const isLink = (n: LayerNodeView) => n.function === 0;
 * ```
 */
export interface LayerNodeView {
  /** `VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO` or `..._DEVICE_CREATE_INFO`. */
  readonly sType: number;
  /** The `VkLayerFunction` of the node. */
  readonly function: number;
  /** The node's address. */
  readonly pointer: Deno.PointerObject;
  /** `u`'s first word (a pointer or, for LOADER_FEATURES, the flags). */
  readonly u: bigint;
  /** `u.layerDevice.pfnLayerDestroyDevice` for instance CREATE_DEVICE_CALLBACK nodes. */
  readonly u2?: bigint;
}

/**
 * Reads the loader nodes at the start of a `pNext` chain (stops at the first
 * struct that is not a loader create info).
 *
 * @example Usage
 * ```ts
 * import { readLayerNodes } from "./nodes.ts";
 * console.log(readLayerNodes(null)); // []
 * ```
 */
export function readLayerNodes(head: Deno.PointerValue): LayerNodeView[] {
  const out: LayerNodeView[] = [];
  let p = head;
  while (p !== null) {
    const sType = readU32(p, 0);
    if (sType !== LOADER_INSTANCE_CREATE_INFO && sType !== LOADER_DEVICE_CREATE_INFO) break;
    const fn = readU32(p, 16);
    const view = new Deno.UnsafePointerView(p);
    const u = fn === VK_LOADER_FEATURES ? BigInt(view.getUint32(24)) : view.getBigUint64(24);
    const u2 = sType === LOADER_INSTANCE_CREATE_INFO && fn === VK_LOADER_LAYER_CREATE_DEVICE_CALLBACK
      ? view.getBigUint64(32)
      : undefined;
    out.push({ sType, function: fn, pointer: p, u, u2 });
    p = readPointer(p, 8);
  }
  return out;
}

/**
 * Copies a `pNext` chain up to and including its `VkDeviceGroupDeviceCreateInfo`
 * with every physical device passed through `unwrap`, so layers and drivers
 * below see their own handles while the application's structs stay untouched.
 * Returns `next` itself when the chain has no device group struct.
 *
 * @example Usage
 * ```ts
 * import { Arena } from "../../ffi/memory.ts";
 * import { unwrapDeviceGroup } from "./nodes.ts";
 * using arena = new Arena();
 * console.log(unwrapDeviceGroup(arena, null, (pd) => pd)); // null
 * ```
 * @throws {TypeError} If a struct before the device group struct has an sType this build does not
 * know (its size is unknown, so it cannot be copied).
 */
export function unwrapDeviceGroup(
  arena: Arena,
  next: Deno.PointerValue,
  unwrap: (physicalDevice: Deno.PointerValue) => Deno.PointerValue,
): Deno.PointerValue {
  const prefix: Deno.PointerObject[] = [];
  let group: Deno.PointerObject | undefined;
  for (let p = next; p !== null; p = readPointer(p, 8)) {
    if (readU32(p, 0) === DEVICE_GROUP_DEVICE_CREATE_INFO) {
      group = p;
      break;
    }
    prefix.push(p);
  }
  if (group === undefined) return next;
  const count = readU32(group, 16);
  const list = readPointer(group, 24);
  const handles: Deno.PointerValue[] = [];
  for (let i = 0; i < count; i++) handles.push(unwrap(readPointer(list, i * 8)));
  let tail: Deno.PointerValue = copyStruct(arena, group, 32);
  writePointer(tail, 24, count === 0 ? null : arena.pointerArray(handles));
  for (let i = prefix.length - 1; i >= 0; i--) {
    const p = prefix[i]!;
    const sType = readU32(p, 0);
    const name = STRUCT_BY_STYPE[sType];
    const size = name === undefined ? undefined : STRUCTS[name]?.size;
    if (size === undefined) {
      throw new TypeError(`Cannot unwrap the device group of a pNext chain holding unknown sType "${sType}"`);
    }
    const copy = copyStruct(arena, p, size);
    writePointer(copy, 8, tail);
    tail = copy;
  }
  return tail;
}

function copyStruct(arena: Arena, p: Deno.PointerObject, size: number): Deno.PointerObject {
  const buf = arena.alloc(size, 8);
  buf.set(new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(p, size)));
  return arena.pointer(buf);
}
