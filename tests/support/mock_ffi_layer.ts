/**
 * Drives mock layers directly from Deno, playing the loader: negotiates, builds
 * the `VkLayerInstanceCreateInfo` / `VkLayerDeviceCreateInfo` link chains with a
 * mock driver at the bottom, and supplies the loader callbacks
 * (`pfnSetInstanceLoaderData`, `pfnSetDeviceLoaderData`, `pfnLayerCreateDevice`).
 *
 * @module
 */

import { callable, type DirectDriver, Scratch, symbolAddress, VK } from "./mock_ffi.ts";

const enc = new TextEncoder();

function z(s: string): Uint8Array {
  return enc.encode(s + "\0");
}

function view(b: Uint8Array): DataView {
  return new DataView(b.buffer, b.byteOffset, b.byteLength);
}

function addr(p: Deno.PointerValue): bigint {
  return p === null ? 0n : Deno.UnsafePointer.value(p);
}

const LAYER_SYMBOLS = {
  mock_layer_configure: { parameters: ["buffer"], result: "void" },
  mock_layer_log: { parameters: [], result: "pointer" },
  vkNegotiateLoaderLayerInterfaceVersion: { parameters: ["buffer"], result: "i32", optional: true },
  MockLayer_NegotiateLoaderLayerInterfaceVersion: { parameters: ["buffer"], result: "i32", optional: true },
  vkGetInstanceProcAddr: { parameters: ["pointer", "buffer"], result: "pointer", optional: true },
  vkGetDeviceProcAddr: { parameters: ["pointer", "buffer"], result: "pointer", optional: true },
  MockLayer_GetInstanceProcAddr: { parameters: ["pointer", "buffer"], result: "pointer", optional: true },
  MockLayer_GetDeviceProcAddr: { parameters: ["pointer", "buffer"], result: "pointer", optional: true },
  vk_layerGetPhysicalDeviceProcAddr: { parameters: ["pointer", "buffer"], result: "pointer", optional: true },
  MockLayer_PreEnumerateInstanceVersion: { parameters: ["pointer", "buffer"], result: "i32" },
  MockLayer_PreEnumerateInstanceExtensionProperties: {
    parameters: ["pointer", "pointer", "buffer", "pointer"],
    result: "i32",
  },
} as const satisfies Deno.ForeignLibraryInterface;

/** A mock layer library opened with `Deno.dlopen`. */
export class DirectLayer implements Disposable {
  readonly lib: Deno.DynamicLibrary<typeof LAYER_SYMBOLS>;
  /** Entry points the negotiation handed back (interface 2), else null. */
  negotiated:
    | { version: number; gipa: Deno.PointerValue; gdpa: Deno.PointerValue; gpdpa: Deno.PointerValue }
    | null = null;

  readonly path: string;

  private constructor(path: string, lib: Deno.DynamicLibrary<typeof LAYER_SYMBOLS>) {
    this.path = path;
    this.lib = lib;
  }

  static open(path: string): DirectLayer {
    return new DirectLayer(path, Deno.dlopen(path, LAYER_SYMBOLS));
  }

  /** Exported symbols, of the loader-facing ones. */
  exported(): string[] {
    const names = [
      "vkNegotiateLoaderLayerInterfaceVersion",
      "MockLayer_NegotiateLoaderLayerInterfaceVersion",
      "vkGetInstanceProcAddr",
      "vkGetDeviceProcAddr",
      "MockLayer_GetInstanceProcAddr",
      "MockLayer_GetDeviceProcAddr",
      "vk_layerGetPhysicalDeviceProcAddr",
    ] as const;
    return names.filter((n) => this.lib.symbols[n] !== null);
  }

  /** Negotiates through whichever negotiate export exists; returns `{result, version}` or null. */
  negotiate(offer = 2): { result: number; version: number } | null {
    const fn = this.lib.symbols.vkNegotiateLoaderLayerInterfaceVersion ??
      this.lib.symbols.MockLayer_NegotiateLoaderLayerInterfaceVersion;
    if (!fn) return null;
    const s = new Uint8Array(48);
    const v = view(s);
    v.setUint32(0, 1, true); // LAYER_NEGOTIATE_INTERFACE_STRUCT
    v.setUint32(16, offer, true);
    const result = fn(s);
    const version = v.getUint32(16, true);
    const ptr = (o: number) => Deno.UnsafePointer.create(v.getBigUint64(o, true));
    if (result === VK.SUCCESS) this.negotiated = { version, gipa: ptr(24), gdpa: ptr(32), gpdpa: ptr(40) };
    return { result, version };
  }

  /** The layer's GetInstanceProcAddr: from negotiation, else the (renamed) export. */
  get gipaPointer(): Deno.PointerObject {
    const p = this.negotiated?.gipa ??
      this.#symbolPointer("vkGetInstanceProcAddr") ?? this.#symbolPointer("MockLayer_GetInstanceProcAddr");
    if (!p) throw new Error("Mock layer has no GetInstanceProcAddr");
    return p;
  }

  get gdpaPointer(): Deno.PointerObject {
    const p = this.negotiated?.gdpa ??
      this.#symbolPointer("vkGetDeviceProcAddr") ?? this.#symbolPointer("MockLayer_GetDeviceProcAddr");
    if (!p) throw new Error("Mock layer has no GetDeviceProcAddr");
    return p;
  }

  #symbolPointer(name: string): Deno.PointerObject | null {
    return symbolAddress(this.path, name);
  }

  gipa(instance: Deno.PointerValue, name: string): Deno.PointerValue {
    return callable(this.gipaPointer, { parameters: ["pointer", "buffer"], result: "pointer" }).call(
      instance,
      z(name),
    );
  }

  gdpa(device: Deno.PointerValue, name: string): Deno.PointerValue {
    return callable(this.gdpaPointer, { parameters: ["pointer", "buffer"], result: "pointer" }).call(
      device,
      z(name),
    );
  }

  log(): string[] {
    return new Deno.UnsafePointerView(this.lib.symbols.mock_layer_log()!).getCString().split("\n").filter(
      Boolean,
    );
  }

  [Symbol.dispose](): void {
    this.lib.close();
  }
}

/** What the fake loader's callbacks saw. */
export interface LoaderCallbackCalls {
  setInstanceLoaderData: bigint[];
  setDeviceLoaderData: bigint[];
  layerCreateDevice: number;
  layerDestroyDevice: number;
}

/**
 * Layers stacked over a mock driver, called the way a loader calls them (no loader involved).
 * `layers[0]` is closest to the application.
 */
export class DirectChain implements Disposable {
  readonly scratch: Scratch = new Scratch();
  readonly calls: LoaderCallbackCalls = {
    setInstanceLoaderData: [],
    setDeviceLoaderData: [],
    layerCreateDevice: 0,
    layerDestroyDevice: 0,
  };
  readonly #callbacks: Deno.UnsafeCallback[] = [];
  readonly layers: readonly DirectLayer[];
  readonly driver: DirectDriver;
  /** The stamp the fake loader writes into layer-made dispatchable objects. */
  static readonly STAMP = 0x5EED_0000_1234n;
  #driverInstance: Deno.PointerValue = null;

  constructor(layers: readonly DirectLayer[], driver: DirectDriver) {
    this.layers = layers;
    this.driver = driver;
  }

  #callback<const D extends Deno.UnsafeCallbackDefinition>(
    def: D,
    fn: Deno.UnsafeCallbackFunction<D["parameters"], D["result"]>,
  ): Deno.PointerObject {
    const cb = new Deno.UnsafeCallback(def, fn);
    this.#callbacks.push(cb as unknown as Deno.UnsafeCallback);
    return cb.pointer as Deno.PointerObject;
  }

  #driverGipa(): Deno.PointerObject {
    return this.driver.gipaPointer();
  }

  #driverGpdpa(): Deno.PointerValue {
    return this.driver.gpdpaPointer();
  }

  /** Calls the top layer's `vkCreateInstance` with a link chain ending at the driver. */
  createInstance(
    options: { apiVersion?: string; extensions?: readonly string[]; callbacks?: boolean } = {},
  ): { result: number; instance: Deno.PointerValue } {
    const s = this.scratch;
    const withCallbacks = options.callbacks ?? true;
    // links[i] is what layer i reads: the next entity's entry points
    const links = this.layers.map(() => s.alloc(24));
    this.layers.forEach((_, i) => {
      const v = view(links[i]!);
      v.setBigUint64(0, i + 1 < links.length ? addr(s.ptr(links[i + 1]!)) : 0n, true);
      const next = this.layers[i + 1];
      v.setBigUint64(8, addr(next ? next.gipaPointer : this.#driverGipa()), true);
      v.setBigUint64(16, addr(next ? (next.negotiated?.gpdpa ?? null) : this.#driverGpdpa()), true);
    });
    const nodes: Uint8Array[] = [];
    const node = (fn: number, a: bigint, b = 0n) => {
      const n = s.alloc(40);
      const v = view(n);
      v.setUint32(0, VK.STYPE_LOADER_INSTANCE_CREATE_INFO, true);
      v.setUint32(16, fn, true);
      v.setBigUint64(24, a, true);
      v.setBigUint64(32, b, true);
      nodes.push(n);
    };
    node(0, addr(s.ptr(links[0]!)));
    if (withCallbacks) {
      node(
        1,
        addr(this.#callback({ parameters: ["pointer", "pointer"], result: "i32" }, (_instance, object) => {
          this.calls.setInstanceLoaderData.push(addr(object));
          new DataView(new Deno.UnsafePointerView(object!).getArrayBuffer(8)).setBigUint64(
            0,
            DirectChain.STAMP,
            true,
          );
          return VK.SUCCESS;
        })),
      );
      node(
        2,
        addr(this.#callback(
          {
            parameters: ["pointer", "pointer", "pointer", "pointer", "pointer", "pointer", "pointer"],
            result: "i32",
          },
          (_instance, pd, ci, alloc, pDevice, _layerGipa, nextGdpa) => {
            this.calls.layerCreateDevice++;
            const create = this.driver.fn(this.#driverInstance, "vkCreateDevice", {
              parameters: ["pointer", "pointer", "pointer", "pointer"],
              result: "i32",
            });
            const r = create.call(pd, ci, alloc, pDevice);
            const gdpa = this.driver.gipa(this.#driverInstance, "vkGetDeviceProcAddr");
            new DataView(new Deno.UnsafePointerView(nextGdpa!).getArrayBuffer(8)).setBigUint64(
              0,
              addr(gdpa),
              true,
            );
            return r;
          },
        )),
        addr(
          this.#callback(
            { parameters: ["pointer", "pointer", "pointer"], result: "void" },
            (device, alloc, destroy) => {
              this.calls.layerDestroyDevice++;
              callable(destroy!, { parameters: ["pointer", "pointer"], result: "void" }).call(device, alloc);
            },
          ),
        ),
      );
    }
    for (let i = 0; i + 1 < nodes.length; i++) {
      view(nodes[i]!).setBigUint64(8, addr(s.ptr(nodes[i + 1]!)), true);
    }
    const app = s.alloc(48);
    view(app).setUint32(44, ((1 << 22) | (3 << 12)) >>> 0, true);
    if (options.apiVersion) {
      const [a = 0, b = 0, c = 0] = options.apiVersion.split(".").map(Number);
      view(app).setUint32(44, ((a << 22) | (b << 12) | c) >>> 0, true);
    }
    const ci = s.alloc(64);
    const cv = view(ci);
    cv.setUint32(0, VK.STYPE_INSTANCE_CREATE_INFO, true);
    cv.setBigUint64(8, addr(s.ptr(nodes[0]!)), true);
    cv.setBigUint64(24, addr(s.ptr(app)), true);
    const exts = options.extensions ?? [];
    cv.setUint32(48, exts.length, true);
    cv.setBigUint64(56, addr(s.cstrArray(exts)), true);
    const out = s.alloc(8);
    const create = callable(this.layers[0]!.gipa(null, "vkCreateInstance")!, {
      parameters: ["pointer", "pointer", "buffer"],
      result: "i32",
    });
    const result = create.call(s.ptr(ci), null, out);
    const instance = Deno.UnsafePointer.create(view(out).getBigUint64(0, true));
    // without a loader the layers see the driver's own instance
    this.#driverInstance = instance;
    return { result, instance };
  }

  /** A function as the application would get it: the top layer's GIPA. */
  fn<const D extends Deno.UnsafeCallbackDefinition>(
    instance: Deno.PointerValue,
    name: string,
    def: D,
  ): Deno.UnsafeFnPointer<D> {
    const p = this.layers[0]!.gipa(instance, name);
    if (p === null) throw new Error(`Top layer returned NULL for "${name}"`);
    return callable(p, def);
  }

  /** `vkEnumeratePhysicalDevices` through the top layer. */
  enumeratePhysicalDevices(instance: Deno.PointerObject): Deno.PointerObject[] {
    const fn = this.fn(instance, "vkEnumeratePhysicalDevices", {
      parameters: ["pointer", "buffer", "pointer"],
      result: "i32",
    });
    const count = new Uint32Array(1);
    fn.call(instance, new Uint8Array(count.buffer), null);
    const list = this.scratch.alloc(8 * count[0]!);
    const r = fn.call(instance, new Uint8Array(count.buffer), this.scratch.ptr(list));
    if (r !== VK.SUCCESS) throw new Error(`vkEnumeratePhysicalDevices failed: ${r}`);
    const v = view(list);
    return Array.from(
      { length: count[0]! },
      (_, i) => Deno.UnsafePointer.create(v.getBigUint64(i * 8, true))!,
    );
  }

  /** Device name through the top layer's `vkGetPhysicalDeviceProperties`. */
  deviceName(instance: Deno.PointerObject, pd: Deno.PointerObject): string {
    const out = this.scratch.alloc(1024);
    this.fn(instance, "vkGetPhysicalDeviceProperties", { parameters: ["pointer", "pointer"], result: "void" })
      .call(pd, this.scratch.ptr(out));
    const end = out.indexOf(0, 20);
    return new TextDecoder().decode(out.subarray(20, end));
  }

  /** `vkCreateDevice` through the top layer, with a device link chain ending at the driver. */
  createDevice(
    instance: Deno.PointerObject,
    pd: Deno.PointerObject,
    options: { extensions?: readonly string[] } = {},
  ): {
    result: number;
    device: Deno.PointerValue;
  } {
    const s = this.scratch;
    const links = this.layers.map(() => s.alloc(24));
    const driverGdpa = this.driver.gipa(instance, "vkGetDeviceProcAddr");
    this.layers.forEach((_, i) => {
      const v = view(links[i]!);
      v.setBigUint64(0, i + 1 < links.length ? addr(s.ptr(links[i + 1]!)) : 0n, true);
      const next = this.layers[i + 1];
      v.setBigUint64(8, addr(next ? next.gipaPointer : this.#driverGipa()), true);
      v.setBigUint64(16, addr(next ? next.gdpaPointer : driverGdpa), true);
    });
    const link = s.alloc(32);
    const lv = view(link);
    lv.setUint32(0, VK.STYPE_LOADER_DEVICE_CREATE_INFO, true);
    lv.setUint32(16, 0, true);
    lv.setBigUint64(24, addr(s.ptr(links[0]!)), true);
    const data = s.alloc(32);
    const dv = view(data);
    dv.setUint32(0, VK.STYPE_LOADER_DEVICE_CREATE_INFO, true);
    dv.setUint32(16, 1, true);
    dv.setBigUint64(
      24,
      addr(this.#callback({ parameters: ["pointer", "pointer"], result: "i32" }, (_device, object) => {
        this.calls.setDeviceLoaderData.push(addr(object));
        new DataView(new Deno.UnsafePointerView(object!).getArrayBuffer(8)).setBigUint64(
          0,
          DirectChain.STAMP,
          true,
        );
        return VK.SUCCESS;
      })),
      true,
    );
    lv.setBigUint64(8, addr(s.ptr(data)), true);
    const prio = s.alloc(4);
    new Float32Array(prio.buffer).fill(1);
    const q = s.alloc(40);
    const qv = view(q);
    qv.setUint32(0, VK.STYPE_DEVICE_QUEUE_CREATE_INFO, true);
    qv.setUint32(24, 1, true);
    qv.setBigUint64(32, addr(s.ptr(prio)), true);
    const ci = s.alloc(72);
    const cv = view(ci);
    cv.setUint32(0, VK.STYPE_DEVICE_CREATE_INFO, true);
    cv.setBigUint64(8, addr(s.ptr(link)), true);
    cv.setUint32(20, 1, true);
    cv.setBigUint64(24, addr(s.ptr(q)), true);
    const exts = options.extensions ?? [];
    cv.setUint32(48, exts.length, true);
    cv.setBigUint64(56, addr(s.cstrArray(exts)), true);
    const out = s.alloc(8);
    const result = this.fn(instance, "vkCreateDevice", {
      parameters: ["pointer", "pointer", "pointer", "buffer"],
      result: "i32",
    })
      .call(pd, s.ptr(ci), null, out);
    return { result, device: Deno.UnsafePointer.create(view(out).getBigUint64(0, true)) };
  }

  /** A device function through the top layer's GetDeviceProcAddr. */
  deviceFn<const D extends Deno.UnsafeCallbackDefinition>(
    device: Deno.PointerValue,
    name: string,
    def: D,
  ): Deno.UnsafeFnPointer<D> | null {
    const p = this.layers[0]!.gdpa(device, name);
    return p === null ? null : callable(p, def);
  }

  [Symbol.dispose](): void {
    for (const cb of this.#callbacks) cb.close();
  }
}
