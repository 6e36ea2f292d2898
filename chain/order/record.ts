/**
 * Reads what the physical-device policy needs (`DeviceRecord`) from a driver, the way the Khronos loader
 * does before sorting (docs/behaviour.md P01, P03).
 *
 * @example In an enumeration terminator
 * ```ts ignore
 * import { readDeviceRecord, supportsProperties2 } from "./record.ts";
 * const record = readDeviceRecord(driverInstance, driverPhysicalDevice, {
 *   properties2: supportsProperties2(appApiVersion, driver.apiVersion, driverInstance.enabledExtensions),
 * });
 * ```
 *
 * @module
 */

import { STRUCTS } from "../../vk/generated/structs.ts";
import { structureType } from "../../vk/names.ts";
import type { DeviceRecord } from "./sort.ts";

/** A driver's instance-level functions, callable from TypeScript (e.g. `DriverInstance.fn`). */
export interface DriverFunctions {
  /** The driver's command `name` (or an alias), or null when it has none. */
  fn(name: string): ((...args: unknown[]) => unknown) | null;
}

/** A {@linkcode DeviceRecord} with the rest of what reports show. */
export interface PhysicalDeviceRecord extends DeviceRecord {
  /** `deviceName`. */
  readonly name: string;
  /** `VkPhysicalDeviceProperties::apiVersion`. */
  readonly apiVersion: number;
}

const GPDP2 = "VK_KHR_get_physical_device_properties2";

function atLeast11(v: number): boolean {
  const major = (v >>> 22) & 0x7f;
  const minor = (v >>> 12) & 0x3ff;
  return major > 1 || (major === 1 && minor >= 1);
}

/**
 * Whether a driver answers `vkGetPhysicalDeviceProperties2` for an instance: the application asked for
 * Vulkan 1.1+ and the driver is 1.1+, or `VK_KHR_get_physical_device_properties2` is enabled on it.
 *
 * @example Usage
 * ```ts
 * import { supportsProperties2 } from "./record.ts";
 * supportsProperties2(0x400000, 0x403000, ["VK_KHR_get_physical_device_properties2"]); // true
 * ```
 */
export function supportsProperties2(
  appApiVersion: number,
  driverApiVersion: number,
  enabledExtensions: readonly string[],
): boolean {
  return (atLeast11(appApiVersion) && atLeast11(driverApiVersion)) || enabledExtensions.includes(GPDP2);
}

/** What {@linkcode readDeviceRecord} reads besides `vkGetPhysicalDeviceProperties`. */
export interface RecordOptions {
  /** Whether the driver answers `vkGetPhysicalDeviceProperties2` for the instance (PCI bus info). */
  readonly properties2: boolean;
  /**
   * Whether to read `driverID` (default true). Of the enumeration's rules only `VK_LOADER_DRIVER_ID_FILTER`
   * needs it: without that filter, a device without `VK_EXT_pci_bus_info` (lavapipe) costs no
   * `vkGetPhysicalDeviceProperties2` call at each enumeration.
   */
  readonly driverID?: boolean;
}

/**
 * Reads one driver physical device's record (cold path: a few FFI calls).
 *
 * @example Usage
 * ```ts ignore
 * const record = readDeviceRecord(driverInstance, handle, { properties2: true });
 * console.log(record.name, record.pciBus, record.driverID);
 * ```
 */
export function readDeviceRecord(
  driver: DriverFunctions,
  physicalDevice: Deno.PointerValue,
  options: RecordOptions,
): PhysicalDeviceRecord {
  const getProperties = driver.fn("vkGetPhysicalDeviceProperties");
  if (!getProperties) {
    throw new TypeError("Cannot read a physical device: the driver has no vkGetPhysicalDeviceProperties");
  }
  const s = takeScratch();
  try {
    return readWith(s, driver, getProperties, physicalDevice, options);
  } finally {
    scratch = s;
  }
}

function readWith(
  s: Scratch,
  driver: DriverFunctions,
  getProperties: (...args: unknown[]) => unknown,
  physicalDevice: Deno.PointerValue,
  options: RecordOptions,
): PhysicalDeviceRecord {
  // Read by offset, not through readStruct: this runs for every device at every vkCreateInstance, and the
  // generic reader would decode the whole struct (limits and sparse properties included).
  const at = propertyOffsets();
  const props = s.props;
  props.fill(0);
  getProperties(physicalDevice, s.pProps);
  const p = new DataView(props.buffer, props.byteOffset, props.byteLength);
  const record = {
    name: cString(props, at.deviceName, 256),
    vendorID: p.getUint32(at.vendorID, true),
    deviceID: p.getUint32(at.deviceID, true),
    deviceType: p.getInt32(at.deviceType, true),
    apiVersion: p.getUint32(at.apiVersion, true),
  };
  const getProperties2 = options.properties2 ? driver.fn("vkGetPhysicalDeviceProperties2") : null;
  if (!getProperties2) return record;
  const enumerateExtensions = driver.fn("vkEnumerateDeviceExtensionProperties");
  // A device that cannot list its extensions is sorted without PCI info, as in the Khronos loader.
  const offered = enumerateExtensions
    ? offersExtensions(s, enumerateExtensions, physicalDevice, options.driverID ?? true)
    : [false, false];
  const wantPci = offered[0];
  const major = (record.apiVersion >>> 22) & 0x7f, minor = (record.apiVersion >>> 12) & 0x3ff;
  const wantDriver = (options.driverID ?? true) && (major > 1 || (major === 1 && minor >= 2) || offered[1]);
  if (!wantPci && !wantDriver) return record;
  // Read by offset too: the generic chain writer and reader showed ~0.05 ms per instance in the profile.
  const l = properties2Layout();
  // Made the first time a device's record needs it (no device of lavapipe's does without a driver id filter).
  let chain = s.chain;
  if (chain === undefined) {
    const made = pinned(l.size);
    chain = s.chain = { ...made, address: BigInt(Deno.UnsafePointer.value(made.pointer)) };
  }
  const buf = chain.bytes;
  buf.fill(0);
  const base = chain.address;
  const v = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  // The chain: properties2 -> [PCI bus info] -> [driver properties], each struct at its own offset.
  const links = [...(wantPci ? [l.pci] : []), ...(wantDriver ? [l.driver] : [])];
  v.setUint32(0, l.sType, true);
  let next = l.pNext;
  for (const link of links) {
    v.setBigUint64(next, base + BigInt(link.at), true);
    v.setUint32(link.at, link.sType, true);
    next = link.at + l.pNext;
  }
  getProperties2(physicalDevice, chain.pointer);
  const out: { pciBus?: DeviceRecord["pciBus"]; driverID?: number } = {};
  if (wantPci) {
    const at = l.pci.at;
    out.pciBus = {
      domain: v.getUint32(at + l.pci.domain, true),
      bus: v.getUint32(at + l.pci.bus, true),
      device: v.getUint32(at + l.pci.device, true),
      function: v.getUint32(at + l.pci.function, true),
    };
  }
  if (wantDriver) out.driverID = v.getInt32(l.driver.at + l.driver.driverID, true);
  return { ...record, ...out };
}

/**
 * The memory one record's queries use, kept with the addresses taken once: a record is read for every
 * device at every instance, and four fresh buffers (the extension list ~40 KB on lavapipe) and their
 * addresses showed in the enumeration's profile.
 */
interface Scratch {
  readonly props: Uint8Array<ArrayBuffer>;
  readonly pProps: Deno.PointerObject;
  readonly count: DataView;
  readonly pCount: Deno.PointerObject;
  /** `VkPhysicalDeviceProperties2` and the structs chained to it. */
  chain:
    | {
      readonly bytes: Uint8Array<ArrayBuffer>;
      readonly pointer: Deno.PointerObject;
      readonly address: bigint;
    }
    | undefined;
  /** The extension list, grown as a device needs. */
  list: Uint8Array<ArrayBuffer> | undefined;
  pList: Deno.PointerObject | undefined;
}

/** Free while no record is being read (a nested read, from a driver calling back, makes its own). */
let scratch: Scratch | undefined;

/** Off the V8 heap (an explicit ArrayBuffer): the address never moves. */
function pinned(size: number): { bytes: Uint8Array<ArrayBuffer>; pointer: Deno.PointerObject } {
  const bytes = new Uint8Array(new ArrayBuffer(size));
  return { bytes, pointer: Deno.UnsafePointer.of(bytes)! };
}

function takeScratch(): Scratch {
  const kept = scratch;
  scratch = undefined;
  if (kept !== undefined) return kept;
  const props = pinned(propertyOffsets().size);
  const count = pinned(4);
  return {
    props: props.bytes,
    pProps: props.pointer,
    count: new DataView(count.bytes.buffer),
    pCount: count.pointer,
    chain: undefined,
    list: undefined,
    pList: undefined,
  };
}

interface Properties2Layout {
  /** Bytes for the three structs, each 8-aligned. */
  readonly size: number;
  readonly sType: number;
  /** Offset of `pNext` in every struct (after `sType`). */
  readonly pNext: number;
  readonly pci: {
    readonly at: number;
    readonly sType: number;
    readonly domain: number;
    readonly bus: number;
    readonly device: number;
    readonly function: number;
  };
  readonly driver: { readonly at: number; readonly sType: number; readonly driverID: number };
}

let layout2: Properties2Layout | undefined;

/** Where `VkPhysicalDeviceProperties2` and the two structs chained to it sit in one buffer. */
function properties2Layout(): Properties2Layout {
  if (layout2) return layout2;
  const member = (struct: string, name: string) => {
    const m = STRUCTS[struct]!.members.find((x) => x.name === name);
    if (!m) throw new RangeError(`Unknown struct member "${struct}.${name}"`);
    return m.offset;
  };
  const align8 = (n: number) => (n + 7) & ~7;
  const PCI = "VkPhysicalDevicePCIBusInfoPropertiesEXT", DRIVER = "VkPhysicalDeviceDriverProperties";
  const pciAt = align8(STRUCTS.VkPhysicalDeviceProperties2!.size);
  const driverAt = pciAt + align8(STRUCTS[PCI]!.size);
  layout2 = {
    size: driverAt + align8(STRUCTS[DRIVER]!.size),
    sType: structureType("VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2"),
    pNext: member("VkPhysicalDeviceProperties2", "pNext"),
    pci: {
      at: pciAt,
      sType: structureType("VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT"),
      domain: member(PCI, "pciDomain"),
      bus: member(PCI, "pciBus"),
      device: member(PCI, "pciDevice"),
      function: member(PCI, "pciFunction"),
    },
    driver: {
      at: driverAt,
      sType: structureType("VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES"),
      driverID: member(DRIVER, "driverID"),
    },
  };
  return layout2;
}

const PCI_BUS_INFO = "VK_EXT_pci_bus_info";
const DRIVER_PROPERTIES = "VK_KHR_driver_properties";
/** `sizeof(VkExtensionProperties)`: `char extensionName[256]; uint32_t specVersion;`. */
const EXTENSION_STRIDE = 260;
const VK_INCOMPLETE = 5;

interface PropertyOffsets {
  readonly size: number;
  readonly apiVersion: number;
  readonly vendorID: number;
  readonly deviceID: number;
  readonly deviceType: number;
  readonly deviceName: number;
}

let offsets: PropertyOffsets | undefined;

/** Where `VkPhysicalDeviceProperties` keeps what a record needs (from the generated layout). */
function propertyOffsets(): PropertyOffsets {
  if (offsets) return offsets;
  const layout = STRUCTS.VkPhysicalDeviceProperties!;
  const of = (name: string) => layout.members.find((m) => m.name === name)!.offset;
  offsets = {
    size: layout.size,
    apiVersion: of("apiVersion"),
    vendorID: of("vendorID"),
    deviceID: of("deviceID"),
    deviceType: of("deviceType"),
    deviceName: of("deviceName"),
  };
  return offsets;
}

/** The NUL-terminated text at `offset` (at most `max` bytes). */
function cString(bytes: Uint8Array, offset: number, max: number): string {
  let end = offset;
  while (end < offset + max && bytes[end] !== 0) end++;
  return decoder.decode(bytes.subarray(offset, end));
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** `VK_EXT_pci_bus_info` and `VK_KHR_driver_properties` as the NUL-terminated bytes a list entry holds. */
const WANTED = [PCI_BUS_INFO, DRIVER_PROPERTIES].map((name) => encoder.encode(name + "\0"));

/**
 * Whether the device offers `VK_EXT_pci_bus_info` and (when `driverID` is asked) `VK_KHR_driver_properties`, from
 * `vkEnumerateDeviceExtensionProperties(device, NULL)`, compared as bytes in place (a device lists ~100-200
 * extensions; decoding each name would cost more than the call). Both false when the list cannot be read.
 */
function offersExtensions(
  s: Scratch,
  enumerateExtensions: (...args: unknown[]) => unknown,
  physicalDevice: Deno.PointerValue,
  driverID: boolean,
): boolean[] {
  const none = [false, false];
  let list: Uint8Array | undefined;
  // The list may grow between the two calls (VK_INCOMPLETE): ask again, a few times at most.
  for (let attempt = 0; attempt < 4; attempt++) {
    s.count.setUint32(0, 0, true);
    if (enumerateExtensions(physicalDevice, null, s.pCount, null) !== 0) return none;
    const n = s.count.getUint32(0, true);
    if (n === 0) return none;
    if (s.list === undefined || s.list.length < n * EXTENSION_STRIDE) {
      const made = pinned(n * EXTENSION_STRIDE);
      s.list = made.bytes;
      s.pList = made.pointer;
    }
    list = s.list;
    const result = enumerateExtensions(physicalDevice, null, s.pCount, s.pList);
    if (result === 0) break;
    if (result !== VK_INCOMPLETE) return none;
    list = undefined;
  }
  if (list === undefined) return none;
  const n = s.count.getUint32(0, true);
  return [offers(list, n, WANTED[0]!), driverID && offers(list, n, WANTED[1]!)];
}

/** Whether one of the first `n` entries of `list` is `want` (NUL included). */
function offers(list: Uint8Array, n: number, want: Uint8Array): boolean {
  const end = want.length - 1;
  for (let i = 0; i < n; i++) {
    const at = i * EXTENSION_STRIDE;
    // Names share their first bytes ("VK_KHR_..."): the terminating NUL's place rules out most at once
    // (the whole scan ~10 us -> ~1 us on lavapipe's list).
    if (list[at + end] !== 0) continue;
    let k = 0;
    while (k < end && list[at + k] === want[k]) k++;
    if (k === end) return true;
  }
  return false;
}
