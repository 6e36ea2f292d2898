/**
 * Commands the generated tables do not know (newer extensions, vendor experiments): each gets a reserved
 * stub slot, process-wide, the first time a name is resolved through an instance (LOADER_BEHAVIOUR.md
 * A11, A12).
 *
 * A driver with interface >= 4 and `vk_icdGetPhysicalDeviceProcAddr` that answers the name makes it a
 * physical-device command: the application gets the trampoline unwrap stub of a physical-device slot, the
 * instance tables point that slot at its terminator unwrap stub, and each driver's function table at the
 * driver's function. Otherwise a driver's `vk_icdGetInstanceProcAddr` that answers makes it a device
 * command: the application gets the dispatch stub of a device slot and every device's table points that
 * slot at the device's `vkGetDeviceProcAddr` answer.
 *
 * The name -> slot maps are per process, because the stubs they index are (chain/stubs.ts), as the Khronos
 * loader's unknown-function trampolines are per process: the same name has the same slot in every loader.
 * What the slots hold is per loader object: new instances and devices fill every taken slot when they are
 * made, and a loader's live ones are filled the first time a name is resolved through that loader (its
 * {@linkcode HandleRegistry}), so one loader never reaches into another's objects.
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
import type { DriverInstance, HandleRegistry, LoaderInstance } from "./objects.ts";

const deviceSlots = new Map<string, number>();
const physicalSlots = new Map<string, number>();
/** The slots each loader's live objects hold (filled once per loader, at the first resolution through it). */
const filledIn = new WeakMap<HandleRegistry, Set<number>>();

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
  if (known !== undefined) {
    fillLive(instance.registry, name, { kind: "physical_device", slot: known }, stubs);
    return { kind: "physical_device", slot: known };
  }
  const knownDevice = deviceSlots.get(name);
  if (knownDevice !== undefined) {
    fillLive(instance.registry, name, { kind: "device", slot: knownDevice }, stubs);
    return { kind: "device", slot: knownDevice };
  }
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
    fillLive(instance.registry, name, { kind: "physical_device", slot }, stubs);
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
  fillLive(instance.registry, name, { kind: "device", slot }, stubs);
  instance.log.debug(`Unknown device function "${name}" takes slot ${slot}`);
  return { kind: "device", slot };
}

/**
 * The slot of an unknown physical-device command for a layer's `vk_layerGetPhysicalDeviceProcAddr` through
 * a loader (its live objects filled first), or undefined when the name has none.
 */
export function unknownPhysicalDeviceSlotIn(
  registry: HandleRegistry,
  name: string,
  stubs: ChainStubs,
): number | undefined {
  const slot = physicalSlots.get(name);
  if (slot !== undefined) fillLive(registry, name, { kind: "physical_device", slot }, stubs);
  return slot;
}

/** Points the slot of `unknown` at `name`'s functions in every live object of one loader, once. */
function fillLive(registry: HandleRegistry, name: string, unknown: UnknownCommand, stubs: ChainStubs): void {
  let filled = filledIn.get(registry);
  if (!filled) filledIn.set(registry, filled = new Set());
  if (filled.has(unknown.slot)) return;
  filled.add(unknown.slot);
  if (unknown.kind === "physical_device") {
    const d = unknownSlotDef(unknown.slot);
    for (const inst of registry.instances.values()) fillPhysicalSlot(inst, name, unknown.slot, stubs, d);
    return;
  }
  const empty = stubs.errorFunction;
  for (const device of new Set(registry.devices.values())) {
    device.setSlot(
      unknown.slot,
      device.top ? device.top.getDeviceProcAddr(name) : device.driverProcAddr(name),
      empty,
    );
  }
}
