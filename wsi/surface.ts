/**
 * Loader-owned `VkSurfaceKHR` containers (docs/behaviour.md W02): the `VkIcdSurface*` head drivers read, then
 * one slot per driver for its own surface.
 *
 * @module
 */
import { address, Arena, nativeBytes, pointerFromAddress } from "../ffi/memory.ts";
import { STRUCTS } from "../vk/generated/structs.ts";

/** The window systems whose surfaces the loader contains. */
export type SurfacePlatform = "wayland" | "xcb" | "xlib" | "display" | "headless";

/** `VkIcdWsiPlatform` values of `vk_icd.h`. */
export const VK_ICD_WSI_PLATFORM: Readonly<Record<SurfacePlatform, number>> = {
  wayland: 1,
  xcb: 3,
  xlib: 4,
  display: 8,
  headless: 9,
};

/** One `vkCreate*Surface*` command: its platform, extension and how its create info maps to the container. */
export interface SurfaceCreateCommand {
  /** The platform written into `VkIcdSurfaceBase`. */
  readonly platform: SurfacePlatform;
  /** The instance extension that provides the command. */
  readonly extension: string;
  /** The create-info struct passed as `pCreateInfo`. */
  readonly createInfo: string;
  /** `[create-info member, offset in VkIcdSurface*]` pairs, copied byte for byte. */
  readonly fields: readonly (readonly [string, number])[];
  /** `sizeof(VkIcdSurface*)` in `vk_icd.h`. */
  readonly icdSize: number;
}

/** The surface creation commands the loader handles, with their `VkIcdSurface*` layouts. */
export const SURFACE_CREATE_COMMANDS: Readonly<Record<string, SurfaceCreateCommand>> = {
  vkCreateXlibSurfaceKHR: {
    platform: "xlib",
    extension: "VK_KHR_xlib_surface",
    createInfo: "VkXlibSurfaceCreateInfoKHR",
    fields: [["dpy", 8], ["window", 16]],
    icdSize: 24,
  },
  vkCreateXcbSurfaceKHR: {
    platform: "xcb",
    extension: "VK_KHR_xcb_surface",
    createInfo: "VkXcbSurfaceCreateInfoKHR",
    fields: [["connection", 8], ["window", 16]],
    icdSize: 24,
  },
  vkCreateWaylandSurfaceKHR: {
    platform: "wayland",
    extension: "VK_KHR_wayland_surface",
    createInfo: "VkWaylandSurfaceCreateInfoKHR",
    fields: [["display", 8], ["surface", 16]],
    icdSize: 24,
  },
  vkCreateHeadlessSurfaceEXT: {
    platform: "headless",
    extension: "VK_EXT_headless_surface",
    createInfo: "VkHeadlessSurfaceCreateInfoEXT",
    fields: [],
    icdSize: 4,
  },
  vkCreateDisplayPlaneSurfaceKHR: {
    platform: "display",
    extension: "VK_KHR_display",
    createInfo: "VkDisplaySurfaceCreateInfoKHR",
    fields: [
      ["displayMode", 8],
      ["planeIndex", 16],
      ["planeStackIndex", 20],
      ["transform", 24],
      ["globalAlpha", 28],
      ["alphaMode", 32],
      ["imageExtent", 36],
    ],
    icdSize: 48,
  },
};

/** Bytes before the first driver slot: room for the largest `VkIcdSurface*` (`VkIcdSurfaceDisplay`, 48). */
export const SURFACE_SLOTS_OFFSET = 64;

function member(structName: string, name: string): { offset: number; size: number } {
  const m = STRUCTS[structName]?.members.find((x) => x.name === name);
  if (!m) throw new TypeError(`Struct "${structName}" has no member "${name}"`);
  return m;
}

/**
 * One loader-owned surface: a `VkIcdSurface*` head and a slot per driver.
 *
 * @example Inspect a headless container
 * ```ts
 * import { SurfaceTable } from "./surface.ts";
 * using table = new SurfaceTable(2);
 * const surface = table.createEmpty("headless");
 * console.log(surface.platform, surface.forDriver(1) === surface.handle); // "headless" true
 * ```
 */
export class SurfaceContainer {
  /** The window system. */
  readonly platform: SurfacePlatform;
  /** How many driver slots follow the head. */
  readonly driverCount: number;
  #arena: Arena;
  #bytes: Uint8Array;
  #view: DataView;
  #handle: Deno.PointerObject;

  /** @internal Use {@linkcode SurfaceTable.create}. */
  constructor(platform: SurfacePlatform, driverCount: number) {
    this.platform = platform;
    this.driverCount = driverCount;
    this.#arena = new Arena();
    this.#bytes = this.#arena.alloc(SURFACE_SLOTS_OFFSET + 8 * driverCount, 8);
    this.#view = new DataView(this.#bytes.buffer, this.#bytes.byteOffset, this.#bytes.byteLength);
    this.#view.setUint32(0, VK_ICD_WSI_PLATFORM[platform], true);
    this.#handle = this.#arena.pointer(this.#bytes);
  }

  /** The `VkSurfaceKHR` the application holds (the container's address). */
  get handle(): Deno.PointerObject {
    return this.#handle;
  }

  /** The handle as a number. */
  get address(): bigint {
    return address(this.#handle);
  }

  /** The container's bytes (head and slots); a view of live native memory. */
  get bytes(): Uint8Array {
    return this.#bytes;
  }

  /** The surface driver `index` created itself, or 0n when it uses the container. */
  driverSurface(index: number): bigint {
    return this.#view.getBigUint64(SURFACE_SLOTS_OFFSET + 8 * this.#slot(index), true);
  }

  /** Stores the surface driver `index` created (0n clears the slot). */
  setDriverSurface(index: number, surface: bigint): void {
    this.#view.setBigUint64(SURFACE_SLOTS_OFFSET + 8 * this.#slot(index), surface, true);
  }

  /** What driver `index` must be given: its own surface, else the container (LDP_LOADER_11, LDP_LOADER_10). */
  forDriver(index: number): Deno.PointerObject {
    const own = this.driverSurface(index);
    return own === 0n ? this.#handle : pointerFromAddress(own)!;
  }

  /** Frees the container's memory; the handle must not reach a driver afterwards. */
  free(): void {
    this.#arena.dispose();
  }

  #slot(index: number): number {
    if (!Number.isInteger(index) || index < 0 || index >= this.driverCount) {
      throw new RangeError(
        `Driver index "${index}" is out of range for a surface with ${this.driverCount} slots`,
      );
    }
    return index;
  }
}

/**
 * The surfaces of one instance, keyed by handle.
 *
 * @example Create, look up, destroy
 * ```ts
 * import { SurfaceTable } from "./surface.ts";
 * using table = new SurfaceTable(1);
 * const s = table.createEmpty("headless");
 * console.log(table.surfaceForDriver(s.handle, 0) === s.handle); // true
 * table.destroy(s.handle);
 * ```
 */
export class SurfaceTable implements Disposable {
  /** Driver slots in every container (the instance's driver count). */
  readonly driverCount: number;
  #surfaces = new Map<bigint, SurfaceContainer>();

  /** An empty table whose containers get `driverCount` slots. */
  constructor(driverCount: number) {
    this.driverCount = driverCount;
  }

  /** How many surfaces are alive. */
  get size(): number {
    return this.#surfaces.size;
  }

  /**
   * Creates a container for `command` (`vkCreateXlibSurfaceKHR`, ...), copying
   * the platform fields from the application's create info.
   *
   * @example Usage
   * ```ts ignore
   * const container = table.create("vkCreateXcbSurfaceKHR", pCreateInfo);
   * ```
   * @throws {TypeError} If `command` is not a surface creation command or `pCreateInfo` is null.
   */
  create(command: string, pCreateInfo: Deno.PointerValue): SurfaceContainer {
    const info = SURFACE_CREATE_COMMANDS[command];
    if (!info) throw new TypeError(`Command "${command}" does not create a surface`);
    if (pCreateInfo === null) {
      throw new TypeError(`Cannot create a surface with "${command}": pCreateInfo is NULL`);
    }
    const container = this.createEmpty(info.platform);
    for (const [name, icdOffset] of info.fields) {
      const m = member(info.createInfo, name);
      container.bytes.set(nativeBytes(pCreateInfo, m.size, m.offset), icdOffset);
    }
    return container;
  }

  /** Creates a container with the platform set and every other field zero. */
  createEmpty(platform: SurfacePlatform): SurfaceContainer {
    const container = new SurfaceContainer(platform, this.driverCount);
    this.#surfaces.set(container.address, container);
    return container;
  }

  /** The container behind a handle, or undefined when this instance did not create it. */
  get(surface: Deno.PointerValue | bigint): SurfaceContainer | undefined {
    return this.#surfaces.get(typeof surface === "bigint" ? surface : address(surface));
  }

  /**
   * The handle to give driver `driverIndex` in place of `surface`: its own
   * surface, the container, or `surface` unchanged when it is not ours (NULL,
   * or a handle this instance never made: the driver then reports the error).
   */
  surfaceForDriver(surface: Deno.PointerValue | bigint, driverIndex: number): Deno.PointerValue {
    const container = this.get(surface);
    if (container) return container.forDriver(driverIndex);
    return typeof surface === "bigint" ? pointerFromAddress(surface) : surface;
  }

  /** Forgets and frees a container (after its driver surfaces were destroyed); returns it, or undefined. */
  destroy(surface: Deno.PointerValue | bigint): SurfaceContainer | undefined {
    const container = this.get(surface);
    if (!container) return undefined;
    this.#surfaces.delete(container.address);
    container.free();
    return container;
  }

  /** Frees every container (instance destruction). */
  dispose(): void {
    for (const c of this.#surfaces.values()) c.free();
    this.#surfaces.clear();
  }

  /** Same as {@linkcode SurfaceTable.dispose}. */
  [Symbol.dispose](): void {
    this.dispose();
  }
}
