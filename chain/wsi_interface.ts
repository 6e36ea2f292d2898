/**
 * What the chain needs from window-system support, defined here so that wsi/ plugs in from above: the
 * public `Vulkan` object hands a {@linkcode WsiSupport} to the loader, and each instance asks it for its
 * terminators once its drivers are known. Without one, an instance has no WSI terminators and surface
 * commands reach the drivers unchanged.
 *
 * @example A loader without window-system support
 * ```ts
 * import type { WsiSupport } from "./wsi_interface.ts";
 * const none: WsiSupport | undefined = undefined;
 * console.log(none === undefined); // true
 * ```
 *
 * @module
 */
import type { LogEntry } from "../loading/log.ts";

/** One driver of the instance, as the WSI terminators need it. */
export interface WsiDriver {
  /** Its position in the instance's driver list: the surface slot it owns. */
  readonly index: number;
  /** The negotiated loader/driver interface version. */
  readonly interfaceVersion: number;
  /** The driver's own `VkInstance`. */
  readonly instance: Deno.PointerValue;
  /** The driver's instance or physical-device level function `name` (its GetInstanceProcAddr), or null. */
  procAddr(name: string): Deno.PointerValue;
  /** A name for messages (its manifest file); `driver <index>` when left out. */
  readonly name?: string;
}

/** A physical device as the driver knows it. */
export interface WsiPhysicalDevice {
  /** The owning driver's {@linkcode WsiDriver.index}. */
  readonly driverIndex: number;
  /** The driver's own `VkPhysicalDevice`. */
  readonly handle: Deno.PointerValue;
}

/** What the WSI terminators of one instance need from it. */
export interface WsiInstanceOptions {
  /** The instance's drivers (those whose `vkCreateInstance` succeeded). */
  readonly drivers: readonly WsiDriver[];
  /** Instance extensions the application enabled. */
  readonly enabledExtensions: Iterable<string>;
  /** Maps the `VkPhysicalDevice` a terminator receives to the driver's; undefined for an unknown handle. */
  physicalDevice(handle: Deno.PointerValue): WsiPhysicalDevice | undefined;
  /** Receives error messages (a driver lacking a command); loading/log.ts's `Logger.log` fits. */
  log?(entry: LogEntry): void;
}

/** The window-system terminators of one instance, and its surfaces. */
export interface InstanceWsi extends Disposable {
  /**
   * The terminator of WSI command `name`: a function, null when its instance extension is not enabled, or
   * undefined when `name` is not a WSI command.
   */
  terminator(name: string): Deno.PointerValue | undefined;
  /** What the device chain puts below the layers for device command `name` of driver `driverIndex`. */
  deviceProcAddr(name: string, driverIndex: number, driverFunction: Deno.PointerValue): Deno.PointerValue;
  /** Releases the terminators and every surface. */
  dispose(): void;
}

/** Window-system support as a loader uses it (wsi/terminators.ts provides `WSI_SUPPORT`). */
export interface WsiSupport {
  /** The terminators of an instance whose drivers are known. */
  forInstance(options: WsiInstanceOptions): InstanceWsi;
  /** The surface extensions in `requested` that none of the drivers' extension lists offers. */
  unsupportedExtensions(requested: Iterable<string>, driverExtensions: Iterable<Iterable<string>>): string[];
  /** Whether device command `name` has a terminator that runs JavaScript (it takes a surface). */
  callsJavaScript(name: string): boolean;
}
