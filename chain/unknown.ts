/**
 * Commands the generated tables do not know: each gets a reserved stub slot, process-wide, the first time a
 * name is resolved through an instance (docs/behaviour.md A11, A12).
 *
 * @module
 */

import type { ChainStubs } from "./stubs.ts";
import {
  UNKNOWN_DEVICE_BASE,
  UNKNOWN_DEVICE_SLOTS,
  UNKNOWN_PHYSICAL_DEVICE_BASE,
  UNKNOWN_PHYSICAL_DEVICE_SLOTS,
} from "./stubs.ts";
import type { DriverInstance, HandleMaps, LoaderInstance } from "./objects.ts";

const deviceSlots = new Map<string, number>();
const physicalSlots = new Map<string, number>();
/** Every loader's handle maps, weakly (a dropped loader's go with it). */
const allHandleMaps = new Set<WeakRef<HandleMaps>>();

/**
 * Has the live objects of `handleMaps` filled whenever an unknown-command slot is taken, through any loader.
 *
 * @example Usage
 * ```ts
 * import { trackUnknownSlots } from "./unknown.ts";
 * import { HandleMaps } from "./objects.ts";
 * trackUnknownSlots(new HandleMaps());
 * ```
 */
export function trackUnknownSlots(handleMaps: HandleMaps): void {
  allHandleMaps.add(new WeakRef(handleMaps));
}

/** A resolved unknown command. */
export interface UnknownCommand {
  readonly kind: "physical_device" | "device";
  /** Its slot in every dispatch table. */
  readonly slot: number;
}

/** Unknown device commands with their slots. */
export function unknownDeviceSlots(): Iterable<[string, number]> {
  return deviceSlots.entries();
}

/** The slot of an unknown physical-device command, when it has one. */
export function unknownPhysicalDeviceSlot(name: string): number | undefined {
  return physicalSlots.get(name);
}

/** Unknown physical-device commands with their slots. */
export function unknownPhysicalDeviceSlots(): Iterable<[string, number]> {
  return physicalSlots.entries();
}

/** A driver's function for an unknown physical-device command (its GPDPA, else its GIPA). */
export function driverPhysicalDeviceFunction(d: DriverInstance, name: string): Deno.PointerValue {
  return (d.driver.classifiesPhysicalDeviceFunctions
    ? d.driver.physicalDeviceProcAddr(d.handle, name)
    : null) ??
    d.procAddr(name);
}

/** Points an instance's table and its drivers' tables at a physical-device slot. */
export function fillPhysicalSlot(
  instance: LoaderInstance,
  name: string,
  slot: number,
  stubs: ChainStubs,
  def: Deno.ForeignFunction,
): void {
  const empty = stubs.errorFunction;
  // LI08: the first layer with a vk_layerGetPhysicalDeviceProcAddr answers for the chain (down to the terminator).
  instance.table.set(
    slot,
    instance.layers?.physicalDeviceProcAddr(name) ?? stubs.terminatorAddress(slot, def),
  );
  for (const d of instance.drivers) d.table.set(slot, driverPhysicalDeviceFunction(d, name) ?? empty);
}

const defs = new Map<number, Deno.ForeignFunction>();

/** The definition an unknown slot was first resolved with (the fallback stubs need one). */
export function unknownSlotDef(slot: number): Deno.ForeignFunction {
  return defs.get(slot) ??
    { parameters: ["pointer", "pointer", "pointer", "pointer", "pointer"], result: "pointer" };
}

/**
 * Resolves an unknown name through `instance`'s drivers, taking a slot on first success.
 * `undefined` when no driver knows it, or the slots are exhausted (logged).
 *
 * @example Usage
 * ```ts ignore
 * const unknown = resolveUnknown(instance, "vkGetPhysicalDeviceFooVENDOR", stubs);
 * ```
 */
export function resolveUnknown(
  instance: LoaderInstance,
  name: string,
  stubs: ChainStubs,
  def?: Deno.ForeignFunction,
): UnknownCommand | undefined {
  const known = physicalSlots.get(name);
  if (known !== undefined) return { kind: "physical_device", slot: known };
  const knownDevice = deviceSlots.get(name);
  if (knownDevice !== undefined) return { kind: "device", slot: knownDevice };
  const physical =
    instance.drivers.some((d) =>
      d.driver.classifiesPhysicalDeviceFunctions && d.driver.physicalDeviceProcAddr(d.handle, name) !== null
    ) || (instance.layers?.active === true && instance.layers.physicalDeviceProcAddr(name) !== null);
  if (physical) {
    if (physicalSlots.size >= UNKNOWN_PHYSICAL_DEVICE_SLOTS) {
      instance.log.error(`Exhausted the unknown physical device function array: cannot resolve "${name}"`);
      return undefined;
    }
    const slot = UNKNOWN_PHYSICAL_DEVICE_BASE + physicalSlots.size;
    const d = def ?? unknownSlotDef(slot);
    defs.set(slot, d);
    physicalSlots.set(name, slot);
    fillLive(instance.handleMaps, name, { kind: "physical_device", slot }, stubs);
    instance.log.debug(`Unknown physical-device function "${name}" takes slot ${slot}`);
    return { kind: "physical_device", slot };
  }
  // A device command when a driver knows the name, or the top of the instance chain (a layer's extension).
  const answered = instance.drivers.some((d) => d.procAddr(name) !== null) ||
    (instance.layers?.active === true && instance.layers.getInstanceProcAddr(name) !== null);
  if (!answered) return undefined;
  if (deviceSlots.size >= UNKNOWN_DEVICE_SLOTS) {
    instance.log.error(`Exhausted the unknown device function array: cannot resolve "${name}"`);
    return undefined;
  }
  const slot = UNKNOWN_DEVICE_BASE + deviceSlots.size;
  if (def) defs.set(slot, def);
  deviceSlots.set(name, slot);
  fillLive(instance.handleMaps, name, { kind: "device", slot }, stubs);
  instance.log.debug(`Unknown device function "${name}" takes slot ${slot}`);
  return { kind: "device", slot };
}

/** Points a newly taken slot at `name`'s functions in the live objects of `taker` and every other loader. */
function fillLive(taker: HandleMaps, name: string, unknown: UnknownCommand, stubs: ChainStubs): void {
  const live = new Set<HandleMaps>([taker]);
  for (const ref of allHandleMaps) {
    const handleMaps = ref.deref();
    if (handleMaps === undefined) allHandleMaps.delete(ref);
    else live.add(handleMaps);
  }
  const empty = stubs.errorFunction;
  const d = unknownSlotDef(unknown.slot);
  for (const handleMaps of live) {
    if (unknown.kind === "physical_device") {
      for (const inst of handleMaps.instances.values()) fillPhysicalSlot(inst, name, unknown.slot, stubs, d);
      continue;
    }
    for (const device of new Set(handleMaps.devices.values())) {
      device.setSlot(
        unknown.slot,
        device.top ? device.top.getDeviceProcAddr(name) : device.driverProcAddr(name),
        empty,
      );
    }
  }
}
