/**
 * Drives a mock driver library directly from Deno, without any loader: enough
 * FFI (hand-laid x86-64 structs, `Deno.UnsafeFnPointer`) to negotiate, create
 * an instance, enumerate devices and make a device. Slow, and fine for tests.
 *
 * @module
 */

const enc = new TextEncoder();

/** Struct sizes and sTypes used here (x86-64, from vulkan_core.h). */
export const VK = {
  SUCCESS: 0,
  INCOMPLETE: 5,
  ERROR_INITIALIZATION_FAILED: -3,
  ERROR_LAYER_NOT_PRESENT: -6,
  ERROR_EXTENSION_NOT_PRESENT: -7,
  ERROR_INCOMPATIBLE_DRIVER: -9,
  ICD_LOADER_MAGIC: 0x01CDC0DEn,
  STYPE_APPLICATION_INFO: 0,
  STYPE_INSTANCE_CREATE_INFO: 1,
  STYPE_DEVICE_QUEUE_CREATE_INFO: 2,
  STYPE_DEVICE_CREATE_INFO: 3,
  STYPE_COMMAND_POOL_CREATE_INFO: 39,
  STYPE_COMMAND_BUFFER_ALLOCATE_INFO: 40,
  STYPE_COMMAND_BUFFER_BEGIN_INFO: 42,
  STYPE_LOADER_INSTANCE_CREATE_INFO: 47,
  STYPE_LOADER_DEVICE_CREATE_INFO: 48,
  STYPE_SWAPCHAIN_CREATE_INFO_KHR: 1000001000,
  STYPE_XCB_SURFACE_CREATE_INFO_KHR: 1000005000,
  STYPE_PHYSICAL_DEVICE_PROPERTIES_2: 1000059001,
  STYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES: 1000070000,
  STYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES: 1000196000,
  STYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT: 1000212000,
  STYPE_HEADLESS_SURFACE_CREATE_INFO_EXT: 1000256000,
} as const;

/** Packs "1.3.0" the way VK_MAKE_API_VERSION does. */
export function packVersion(text: string): number {
  const [a = 0, b = 0, c = 0] = text.split(".").map(Number);
  return ((a << 22) | (b << 12) | c) >>> 0;
}

/** Unpacks a version to "M.m.p". */
export function versionText(v: number): string {
  return `${v >>> 22}.${(v >>> 12) & 0x3ff}.${v & 0xfff}`;
}

/** Native memory kept alive for as long as this object is. */
export class Scratch {
  readonly #keep: Uint8Array[] = [];

  /** A zeroed buffer of `size` bytes. */
  alloc(size: number): Uint8Array {
    const b = new Uint8Array(Math.max(8, size));
    this.#keep.push(b);
    return b;
  }

  ptr(buf: Uint8Array): Deno.PointerObject {
    return Deno.UnsafePointer.of(buf)!;
  }

  cstr(s: string): Deno.PointerObject {
    const b = this.alloc(enc.encode(s).length + 1);
    b.set(enc.encode(s));
    return this.ptr(b);
  }

  /** const char* const* */
  cstrArray(list: readonly string[]): Deno.PointerValue {
    if (list.length === 0) return null;
    const b = this.alloc(8 * list.length);
    const v = new DataView(b.buffer);
    list.forEach((s, i) => v.setBigUint64(i * 8, Deno.UnsafePointer.value(this.cstr(s)), true));
    return this.ptr(b);
  }
}

function view(b: Uint8Array): DataView {
  return new DataView(b.buffer, b.byteOffset, b.byteLength);
}

function setPtr(v: DataView, off: number, p: Deno.PointerValue): void {
  v.setBigUint64(off, p === null ? 0n : Deno.UnsafePointer.value(p), true);
}

function cstring(b: Uint8Array, off: number, max: number): string {
  const end = b.indexOf(0, off);
  return new TextDecoder().decode(b.subarray(off, end < 0 || end > off + max ? off + max : end));
}

const libc = Deno.dlopen("libc.so.6", {
  dlopen: { parameters: ["buffer", "i32"], result: "pointer" },
  dlsym: { parameters: ["pointer", "buffer"], result: "pointer" },
  dlclose: { parameters: ["pointer"], result: "i32" },
});

/** The address of an exported symbol of a library (dlopen + dlsym), or null. */
export function symbolAddress(path: string, name: string): Deno.PointerValue {
  const handle = libc.symbols.dlopen(enc.encode(path + "\0"), 2 /* RTLD_NOW */);
  if (handle === null) return null;
  const p = libc.symbols.dlsym(handle, enc.encode(name + "\0"));
  libc.symbols.dlclose(handle);
  return p;
}

/** Makes a C function pointer callable (cold path). */
export function callable<const D extends Deno.UnsafeCallbackDefinition>(
  p: Deno.PointerObject,
  def: D,
): Deno.UnsafeFnPointer<D> {
  return new Deno.UnsafeFnPointer(p as Deno.PointerObject<Omit<D, "nonblocking">>, def);
}

/** A pointer as a comparable number (assert.deepStrictEqual sees every pointer object as `{}`). */
export function addressOf(p: Deno.PointerValue): bigint {
  return p === null ? 0n : Deno.UnsafePointer.value(p);
}

/** The first word of a dispatchable object. */
export function loaderWord(handle: Deno.PointerObject): bigint {
  return new Deno.UnsafePointerView(handle).getBigUint64(0);
}

/** What `vkGetPhysicalDeviceProperties2` reported (with driver and PCI structs chained). */
export interface MockDeviceProperties {
  apiVersion: string;
  vendorId: number;
  deviceId: number;
  deviceType: number;
  name: string;
  driverId: number;
  driverName: string;
  driverInfo: string;
  pci: { domain: number; bus: number; device: number; function: number };
}

const CONTROL_SYMBOLS = {
  mock_icd_configure: { parameters: ["buffer"], result: "void" },
  mock_icd_log: { parameters: [], result: "pointer" },
  mock_icd_log_clear: { parameters: [], result: "void" },
  mock_icd_variant: { parameters: [], result: "pointer" },
  mock_icd_negotiated_version: { parameters: [], result: "u32" },
  vk_icdGetInstanceProcAddr: { parameters: ["pointer", "buffer"], result: "pointer", optional: true },
  vk_icdNegotiateLoaderICDInterfaceVersion: { parameters: ["buffer"], result: "i32", optional: true },
  vk_icdGetPhysicalDeviceProcAddr: { parameters: ["pointer", "buffer"], result: "pointer", optional: true },
  vk_icdEnumerateAdapterPhysicalDevices: {
    parameters: ["pointer", "u64", "buffer", "buffer"],
    result: "i32",
    optional: true,
  },
  vkGetInstanceProcAddr: { parameters: ["pointer", "buffer"], result: "pointer", optional: true },
  vkCreateInstance: { parameters: ["pointer", "pointer", "buffer"], result: "i32", optional: true },
  vkEnumerateInstanceExtensionProperties: {
    parameters: ["pointer", "buffer", "pointer"],
    result: "i32",
    optional: true,
  },
} as const satisfies Deno.ForeignLibraryInterface;

function z(s: string): Uint8Array {
  return enc.encode(s + "\0");
}

/**
 * One mock driver library opened with `Deno.dlopen`, driven like a loader would.
 *
 * @example Negotiate and list devices
 * ```ts
 * import { MockEnvironment } from "./mock.ts";
 * import { DirectDriver } from "./mock_ffi.ts";
 * await using env = await MockEnvironment.create();
 * const drv = await env.addDriver();
 * using d = DirectDriver.open(drv.libraryPath);
 * d.negotiate(7);
 * const instance = d.createInstance();
 * console.log(d.enumeratePhysicalDevices(instance).length); // 1
 * ```
 */
export class DirectDriver implements Disposable {
  readonly lib: Deno.DynamicLibrary<typeof CONTROL_SYMBOLS>;
  readonly path: string;
  readonly scratch: Scratch = new Scratch();

  private constructor(path: string, lib: Deno.DynamicLibrary<typeof CONTROL_SYMBOLS>) {
    this.path = path;
    this.lib = lib;
  }

  static open(path: string): DirectDriver {
    return new DirectDriver(path, Deno.dlopen(path, CONTROL_SYMBOLS));
  }

  /** The driver's GetInstanceProcAddr as a C function pointer (what a loader puts in a link). */
  gipaPointer(): Deno.PointerObject {
    const p = symbolAddress(this.path, "vk_icdGetInstanceProcAddr") ??
      symbolAddress(this.path, "vkGetInstanceProcAddr");
    if (p === null) throw new Error(`Mock driver "${this.path}" exports no GetInstanceProcAddr`);
    return p;
  }

  /** The driver's `vk_icdGetPhysicalDeviceProcAddr` as a C function pointer, or null. */
  gpdpaPointer(): Deno.PointerValue {
    return symbolAddress(this.path, "vk_icdGetPhysicalDeviceProcAddr") ??
      this.gipa(null, "vk_icdGetPhysicalDeviceProcAddr");
  }

  /** Which symbols this library exports, of the loader interface ones. */
  exported(): string[] {
    const names = [
      "vk_icdGetInstanceProcAddr",
      "vk_icdNegotiateLoaderICDInterfaceVersion",
      "vk_icdGetPhysicalDeviceProcAddr",
      "vk_icdEnumerateAdapterPhysicalDevices",
      "vkGetInstanceProcAddr",
      "vkCreateInstance",
      "vkEnumerateInstanceExtensionProperties",
    ] as const;
    return names.filter((n) => this.lib.symbols[n] !== null);
  }

  variant(): string {
    return new Deno.UnsafePointerView(this.lib.symbols.mock_icd_variant()!).getCString();
  }

  /** Replaces the configuration (same text as the `.conf` file). */
  configure(text: string): void {
    this.lib.symbols.mock_icd_configure(z(text));
  }

  /** This library copy's in-memory call log. */
  log(): string[] {
    return new Deno.UnsafePointerView(this.lib.symbols.mock_icd_log()!).getCString().split("\n").filter(
      Boolean,
    );
  }

  /**
   * Negotiates like a loader: the exported function, else (v7) the one GIPA(NULL) returns.
   * Returns `{ result, version }`, or null when the driver has no negotiation at all.
   */
  negotiate(offer: number): { result: number; version: number } | null {
    const v = new Uint32Array([offer]);
    const exported = this.lib.symbols.vk_icdNegotiateLoaderICDInterfaceVersion;
    if (exported) return { result: exported(new Uint8Array(v.buffer)), version: v[0]! };
    const p = this.gipa(null, "vk_icdNegotiateLoaderICDInterfaceVersion");
    if (p === null) return null;
    const fn = callable(p, { parameters: ["buffer"], result: "i32" });
    return { result: fn.call(new Uint8Array(v.buffer)), version: v[0]! };
  }

  /** `vk_icdGetInstanceProcAddr`, or the exported `vkGetInstanceProcAddr` of a v0 driver. */
  gipa(instance: Deno.PointerValue, name: string): Deno.PointerValue {
    const fn = this.lib.symbols.vk_icdGetInstanceProcAddr ?? this.lib.symbols.vkGetInstanceProcAddr;
    if (!fn) throw new Error("Mock driver exports no GetInstanceProcAddr");
    return fn(instance, z(name));
  }

  /** `vk_icdGetPhysicalDeviceProcAddr`: exported, else through GIPA(NULL). */
  gpdpa(instance: Deno.PointerValue, name: string): Deno.PointerValue {
    const exported = this.lib.symbols.vk_icdGetPhysicalDeviceProcAddr;
    if (exported) return exported(instance, z(name));
    const p = this.gipa(null, "vk_icdGetPhysicalDeviceProcAddr");
    if (p === null) throw new Error("Mock driver has no vk_icdGetPhysicalDeviceProcAddr");
    return callable(p, { parameters: ["pointer", "buffer"], result: "pointer" }).call(
      instance,
      z(name),
    );
  }

  /** A function the driver returns from GIPA, callable; throws when NULL. */
  fn<const D extends Deno.UnsafeCallbackDefinition>(
    instance: Deno.PointerValue,
    name: string,
    def: D,
  ): Deno.UnsafeFnPointer<D> {
    const p = this.gipa(instance, name);
    if (p === null) throw new Error(`Mock driver returned NULL for "${name}"`);
    return callable(p, def);
  }

  /** Calls `vkCreateInstance`; returns the handle or throws with the VkResult. */
  createInstance(
    options: { apiVersion?: string; extensions?: readonly string[]; appName?: string; flags?: number } = {},
  ): Deno.PointerObject {
    const r = this.tryCreateInstance(options);
    if (r.result !== VK.SUCCESS || r.instance === null) {
      throw new Error(`vkCreateInstance failed: ${r.result}`);
    }
    return r.instance;
  }

  /** Calls `vkCreateInstance` and returns its result. */
  tryCreateInstance(
    options: { apiVersion?: string; extensions?: readonly string[]; appName?: string; flags?: number } = {},
  ): { result: number; instance: Deno.PointerValue } {
    const s = this.scratch;
    const app = s.alloc(48);
    const av = view(app);
    av.setUint32(0, VK.STYPE_APPLICATION_INFO, true);
    setPtr(av, 16, s.cstr(options.appName ?? "mock test"));
    av.setUint32(44, packVersion(options.apiVersion ?? "1.3.0"), true);
    const ci = s.alloc(64);
    const cv = view(ci);
    cv.setUint32(0, VK.STYPE_INSTANCE_CREATE_INFO, true);
    cv.setUint32(16, options.flags ?? 0, true);
    setPtr(cv, 24, s.ptr(app));
    const exts = options.extensions ?? [];
    cv.setUint32(48, exts.length, true);
    setPtr(cv, 56, s.cstrArray(exts));
    const out = s.alloc(8);
    const create = this.lib.symbols.vkCreateInstance
      ? (a: Deno.PointerValue, b: Deno.PointerValue, c: Uint8Array) =>
        this.lib.symbols.vkCreateInstance!(a, b, c)
      : (a: Deno.PointerValue, b: Deno.PointerValue, c: Uint8Array) =>
        this.fn(null, "vkCreateInstance", { parameters: ["pointer", "pointer", "buffer"], result: "i32" })
          .call(a, b, c);
    const result = create(s.ptr(ci), null, out);
    return { result, instance: Deno.UnsafePointer.create(view(out).getBigUint64(0, true)) };
  }

  destroyInstance(instance: Deno.PointerObject): void {
    this.fn(instance, "vkDestroyInstance", { parameters: ["pointer", "pointer"], result: "void" }).call(
      instance,
      null,
    );
  }

  /** Instance extensions through `vkEnumerateInstanceExtensionProperties(NULL)`. */
  instanceExtensions(): string[] {
    const fn = this.fn(null, "vkEnumerateInstanceExtensionProperties", {
      parameters: ["pointer", "buffer", "pointer"],
      result: "i32",
    });
    const count = new Uint32Array(1);
    fn.call(null, new Uint8Array(count.buffer), null);
    const props = this.scratch.alloc(260 * count[0]!);
    fn.call(null, new Uint8Array(count.buffer), this.scratch.ptr(props));
    return Array.from({ length: count[0]! }, (_, i) => cstring(props, i * 260, 256));
  }

  /** `vkEnumeratePhysicalDevices`, two-call idiom; throws on an error result. */
  enumeratePhysicalDevices(instance: Deno.PointerObject): Deno.PointerObject[] {
    const fn = this.fn(instance, "vkEnumeratePhysicalDevices", {
      parameters: ["pointer", "buffer", "pointer"],
      result: "i32",
    });
    const count = new Uint32Array(1);
    let r = fn.call(instance, new Uint8Array(count.buffer), null);
    if (r !== VK.SUCCESS) throw new Error(`vkEnumeratePhysicalDevices failed: ${r}`);
    const list = this.scratch.alloc(8 * count[0]!);
    r = fn.call(instance, new Uint8Array(count.buffer), this.scratch.ptr(list));
    if (r !== VK.SUCCESS) throw new Error(`vkEnumeratePhysicalDevices failed: ${r}`);
    const v = view(list);
    return Array.from(
      { length: count[0]! },
      (_, i) => Deno.UnsafePointer.create(v.getBigUint64(i * 8, true))!,
    );
  }

  /** `vkEnumeratePhysicalDeviceGroups`: each group's device handles. */
  enumeratePhysicalDeviceGroups(instance: Deno.PointerObject): Deno.PointerObject[][] {
    const fn = this.fn(instance, "vkEnumeratePhysicalDeviceGroups", {
      parameters: ["pointer", "buffer", "pointer"],
      result: "i32",
    });
    const count = new Uint32Array(1);
    fn.call(instance, new Uint8Array(count.buffer), null);
    const size = 288;
    const list = this.scratch.alloc(size * count[0]!);
    const v = view(list);
    for (let i = 0; i < count[0]!; i++) {
      v.setUint32(i * size, VK.STYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES, true);
    }
    const r = fn.call(instance, new Uint8Array(count.buffer), this.scratch.ptr(list));
    if (r !== VK.SUCCESS) throw new Error(`vkEnumeratePhysicalDeviceGroups failed: ${r}`);
    return Array.from({ length: count[0]! }, (_, g) => {
      const n = v.getUint32(g * size + 16, true);
      return Array.from(
        { length: n },
        (_, k) => Deno.UnsafePointer.create(v.getBigUint64(g * size + 24 + 8 * k, true))!,
      );
    });
  }

  /** `vkGetPhysicalDeviceProperties2` with driver and PCI bus structs chained. */
  properties(instance: Deno.PointerObject, pd: Deno.PointerObject): MockDeviceProperties {
    const s = this.scratch;
    const pci = s.alloc(32);
    view(pci).setUint32(0, VK.STYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT, true);
    const drv = s.alloc(536);
    view(drv).setUint32(0, VK.STYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES, true);
    setPtr(view(drv), 8, s.ptr(pci));
    const p2 = s.alloc(840);
    view(p2).setUint32(0, VK.STYPE_PHYSICAL_DEVICE_PROPERTIES_2, true);
    setPtr(view(p2), 8, s.ptr(drv));
    this.fn(instance, "vkGetPhysicalDeviceProperties2", {
      parameters: ["pointer", "pointer"],
      result: "void",
    })
      .call(pd, s.ptr(p2));
    const v = view(p2);
    const dv = view(drv);
    const pv = view(pci);
    return {
      apiVersion: versionText(v.getUint32(16, true)),
      vendorId: v.getUint32(24, true),
      deviceId: v.getUint32(28, true),
      deviceType: v.getUint32(32, true),
      name: cstring(p2, 36, 256),
      driverId: dv.getUint32(16, true),
      driverName: cstring(drv, 20, 256),
      driverInfo: cstring(drv, 276, 256),
      pci: {
        domain: pv.getUint32(16, true),
        bus: pv.getUint32(20, true),
        device: pv.getUint32(24, true),
        function: pv.getUint32(28, true),
      },
    };
  }

  /** Queue families as `{flags, count}`. */
  queueFamilies(instance: Deno.PointerObject, pd: Deno.PointerObject): { flags: number; count: number }[] {
    const fn = this.fn(instance, "vkGetPhysicalDeviceQueueFamilyProperties", {
      parameters: ["pointer", "buffer", "pointer"],
      result: "void",
    });
    const count = new Uint32Array(1);
    fn.call(pd, new Uint8Array(count.buffer), null);
    const out = this.scratch.alloc(24 * count[0]!);
    fn.call(pd, new Uint8Array(count.buffer), this.scratch.ptr(out));
    const v = view(out);
    return Array.from(
      { length: count[0]! },
      (_, i) => ({ flags: v.getUint32(i * 24, true), count: v.getUint32(i * 24 + 4, true) }),
    );
  }

  /** Memory types and heaps. */
  memory(instance: Deno.PointerObject, pd: Deno.PointerObject): {
    types: { propertyFlags: number; heapIndex: number }[];
    heaps: { size: bigint; flags: number }[];
  } {
    const out = this.scratch.alloc(520);
    this.fn(instance, "vkGetPhysicalDeviceMemoryProperties", {
      parameters: ["pointer", "pointer"],
      result: "void",
    })
      .call(pd, this.scratch.ptr(out));
    const v = view(out);
    const types = Array.from({ length: v.getUint32(0, true) }, (_, i) => ({
      propertyFlags: v.getUint32(4 + i * 8, true),
      heapIndex: v.getUint32(8 + i * 8, true),
    }));
    const heaps = Array.from({ length: v.getUint32(260, true) }, (_, i) => ({
      size: v.getBigUint64(264 + i * 16, true),
      flags: v.getUint32(272 + i * 16, true),
    }));
    return { types, heaps };
  }

  /** Device extension names. */
  deviceExtensions(instance: Deno.PointerObject, pd: Deno.PointerObject): string[] {
    const fn = this.fn(instance, "vkEnumerateDeviceExtensionProperties", {
      parameters: ["pointer", "pointer", "buffer", "pointer"],
      result: "i32",
    });
    const count = new Uint32Array(1);
    fn.call(pd, null, new Uint8Array(count.buffer), null);
    const props = this.scratch.alloc(260 * count[0]!);
    fn.call(pd, null, new Uint8Array(count.buffer), this.scratch.ptr(props));
    return Array.from({ length: count[0]! }, (_, i) => cstring(props, i * 260, 256));
  }

  /** `vkCreateDevice` with one queue family; returns the result and handle. */
  createDevice(
    instance: Deno.PointerObject,
    pd: Deno.PointerObject,
    options: { family?: number; queues?: number; extensions?: readonly string[] } = {},
  ): { result: number; device: Deno.PointerValue } {
    const s = this.scratch;
    const prio = s.alloc(4 * (options.queues ?? 1));
    new Float32Array(prio.buffer).fill(1);
    const q = s.alloc(40);
    const qv = view(q);
    qv.setUint32(0, VK.STYPE_DEVICE_QUEUE_CREATE_INFO, true);
    qv.setUint32(20, options.family ?? 0, true);
    qv.setUint32(24, options.queues ?? 1, true);
    setPtr(qv, 32, s.ptr(prio));
    const ci = s.alloc(72);
    const cv = view(ci);
    cv.setUint32(0, VK.STYPE_DEVICE_CREATE_INFO, true);
    cv.setUint32(20, 1, true);
    setPtr(cv, 24, s.ptr(q));
    const exts = options.extensions ?? [];
    cv.setUint32(48, exts.length, true);
    setPtr(cv, 56, s.cstrArray(exts));
    const out = s.alloc(8);
    const result = this.fn(instance, "vkCreateDevice", {
      parameters: ["pointer", "pointer", "pointer", "buffer"],
      result: "i32",
    })
      .call(pd, s.ptr(ci), null, out);
    return { result, device: Deno.UnsafePointer.create(view(out).getBigUint64(0, true)) };
  }

  /** A device-level function through the driver's `vkGetDeviceProcAddr`; null when NULL. */
  deviceFn<const D extends Deno.UnsafeCallbackDefinition>(
    instance: Deno.PointerObject,
    device: Deno.PointerObject,
    name: string,
    def: D,
  ): Deno.UnsafeFnPointer<D> | null {
    const gdpa = this.fn(instance, "vkGetDeviceProcAddr", {
      parameters: ["pointer", "buffer"],
      result: "pointer",
    });
    const p = gdpa.call(device, z(name));
    return p === null ? null : callable(p, def);
  }

  [Symbol.dispose](): void {
    this.lib.close();
  }
}
