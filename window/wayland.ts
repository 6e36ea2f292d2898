/**
 * A Wayland window through libwayland-client and the xdg-shell protocol, for `vkCreateWaylandSurfaceKHR`:
 * connects, binds wl_compositor and xdg_wm_base, makes a wl_surface an xdg_toplevel and waits for its first
 * configure. A developer tool like window/x11.ts (needs `--allow-ffi`); events arrive through one dispatcher
 * callback on the main thread, whenever {@linkcode WaylandWindow.poll} or a round trip dispatches them.
 *
 * @module
 */

import { buildInterfaces, opcode } from "./xdg_shell.ts";

const WAYLAND_SYMBOLS = {
  wl_display_connect: { parameters: ["buffer"], result: "pointer" }, // const char *name (NULL: WAYLAND_DISPLAY)
  wl_display_disconnect: { parameters: ["pointer"], result: "void" },
  wl_display_roundtrip: { parameters: ["pointer"], result: "i32" },
  wl_display_dispatch_pending: { parameters: ["pointer"], result: "i32" },
  wl_display_flush: { parameters: ["pointer"], result: "i32" },
  wl_display_get_error: { parameters: ["pointer"], result: "i32" },
  // struct wl_proxy *wl_proxy_marshal_array_flags(struct wl_proxy *proxy, uint32_t opcode,
  //   const struct wl_interface *interface, uint32_t version, uint32_t flags, union wl_argument *args)
  wl_proxy_marshal_array_flags: {
    parameters: ["pointer", "u32", "pointer", "u32", "u32", "buffer"],
    result: "pointer",
  },
  // int wl_proxy_add_dispatcher(struct wl_proxy *, wl_dispatcher_func_t, const void *, void *data)
  wl_proxy_add_dispatcher: { parameters: ["pointer", "function", "pointer", "pointer"], result: "i32" },
  wl_proxy_get_version: { parameters: ["pointer"], result: "u32" },
  wl_proxy_destroy: { parameters: ["pointer"], result: "void" },
  wl_registry_interface: { type: "pointer" },
  wl_compositor_interface: { type: "pointer" },
  wl_surface_interface: { type: "pointer" },
  wl_seat_interface: { type: "pointer" },
  wl_output_interface: { type: "pointer" },
} as const;

type WaylandLibrary = Deno.DynamicLibrary<typeof WAYLAND_SYMBOLS>;

// int (*wl_dispatcher_func_t)(const void *data, void *target, uint32_t opcode, const struct wl_message *,
//   union wl_argument *args)
const DISPATCHER = {
  parameters: ["pointer", "pointer", "u32", "pointer", "pointer"],
  result: "i32",
} as const;

const WL_MARSHAL_FLAG_DESTROY = 1;
const WL_DISPLAY_GET_REGISTRY = 1;
const WL_REGISTRY_BIND = 0;
const WL_COMPOSITOR_CREATE_SURFACE = 0;
const WL_SURFACE_DESTROY = 0;
const WL_SURFACE_COMMIT = 6;

/** What {@linkcode WaylandWindow.open} accepts. */
export interface WaylandWindowOptions {
  /** The display: a socket name in `XDG_RUNTIME_DIR` or an absolute path; `WAYLAND_DISPLAY` when left out. */
  display?: string;
  /** Width in pixels; 256 when left out. */
  width?: number;
  /** Height in pixels; 256 when left out. */
  height?: number;
  /** The toplevel's title; "vkdeno" when left out. */
  title?: string;
}

const encoder = new TextEncoder();
const cstring = (s: string) => encoder.encode(s + "\0");

/**
 * A toplevel window on a Wayland compositor; `display` and `surface` go into
 * `VkWaylandSurfaceCreateInfoKHR`. The client picks a Wayland window's size: the surface reports no
 * current extent, so the swapchain's extent is {@linkcode WaylandWindow.width} x
 * {@linkcode WaylandWindow.height}, which {@linkcode WaylandWindow.resize} changes, and a compositor's
 * configure with a size (a tiling or kiosk shell) changes as well.
 *
 * @example Open and close
 * ```ts ignore
 * import { WaylandWindow } from "@vkdeno/loader/window";
 * using win = WaylandWindow.open({ display: "wayland-1", width: 320, height: 240 });
 * console.log(win.surface !== null); // true
 * ```
 */
export class WaylandWindow implements Disposable {
  #lib: WaylandLibrary;
  #display: Deno.PointerObject | null;
  #dispatcher: Deno.UnsafeCallback<typeof DISPATCHER>;
  #proxies: {
    registry: Deno.PointerValue;
    compositor: Deno.PointerValue;
    wmBase: Deno.PointerValue;
    surface: Deno.PointerValue;
    xdgSurface: Deno.PointerValue;
    toplevel: Deno.PointerValue;
  } = { registry: null, compositor: null, wmBase: null, surface: null, xdgSurface: null, toplevel: null };
  #interfaces: Record<string, bigint>;
  #globals = new Map<string, { name: number; version: number }>();
  #configured = false;
  #closed = false;
  #width: number;
  #height: number;
  #args = new BigUint64Array(8); // union wl_argument[]: 8 bytes each

  private constructor(
    lib: WaylandLibrary,
    display: Deno.PointerObject,
    size: { width: number; height: number },
  ) {
    this.#lib = lib;
    this.#display = display;
    this.#width = size.width;
    this.#height = size.height;
    const s = lib.symbols;
    const addr = (p: Deno.PointerValue) => BigInt(Deno.UnsafePointer.value(p));
    this.#interfaces = buildInterfaces({
      wl_surface: addr(s.wl_surface_interface),
      wl_seat: addr(s.wl_seat_interface),
      wl_output: addr(s.wl_output_interface),
    });
    this.#dispatcher = new Deno.UnsafeCallback(DISPATCHER, (_data, target, code, _message, args) => {
      this.#dispatch(target, code, args);
      return 0;
    });
  }

  /**
   * Connects to the compositor, creates an xdg_toplevel of `width` x `height` and waits for the
   * compositor's first configure (after which the surface may be presented to).
   *
   * @example Usage
   * ```ts ignore
   * import { WaylandWindow } from "@vkdeno/loader/window";
   * using win = WaylandWindow.open({ width: 320, height: 240, title: "cube" });
   * ```
   * @throws {Error} If libwayland-client cannot be loaded, the connection fails, or the compositor offers
   *   no wl_compositor or xdg_wm_base.
   */
  static open(options: WaylandWindowOptions = {}): WaylandWindow {
    const { width = 256, height = 256, title = "vkdeno" } = options;
    const name = options.display ?? Deno.env.get("WAYLAND_DISPLAY");
    if (!name) {
      throw new TypeError('Cannot open a Wayland window: no display given and "WAYLAND_DISPLAY" is not set');
    }
    let lib: WaylandLibrary;
    try {
      lib = Deno.dlopen("libwayland-client.so.0", WAYLAND_SYMBOLS);
    } catch (cause) {
      throw new Error(
        `Cannot load library "libwayland-client.so.0": ${
          (cause as Error).message
        } (Debian package "libwayland-client0")`,
        { cause },
      );
    }
    const display = lib.symbols.wl_display_connect(cstring(name));
    if (display === null) {
      lib.close();
      throw new Error(`Cannot connect to Wayland display "${name}": wl_display_connect returned NULL`);
    }
    const win = new WaylandWindow(lib, display, { width, height });
    try {
      win.#setUp(title);
    } catch (e) {
      win.close();
      throw e;
    }
    return win;
  }

  #setUp(title: string): void {
    const s = this.#lib.symbols;
    const p = this.#proxies;
    p.registry = this.#marshal(this.display, WL_DISPLAY_GET_REGISTRY, s.wl_registry_interface, 1, [0n]);
    this.#listen(p.registry);
    this.#roundtrip();
    const compositor = this.#globals.get("wl_compositor");
    const wmBase = this.#globals.get("xdg_wm_base");
    if (!compositor || !wmBase) {
      const missing = [compositor ? "" : "wl_compositor", wmBase ? "" : "xdg_wm_base"].filter(Boolean);
      throw new Error(`Cannot open a Wayland window: the compositor offers no ${missing.join(" or ")}`);
    }
    p.compositor = this.#bind(
      compositor,
      s.wl_compositor_interface,
      "wl_compositor",
      Math.min(compositor.version, 4),
    );
    p.wmBase = this.#bind(wmBase, this.#pointer("xdg_wm_base"), "xdg_wm_base", 1);
    this.#listen(p.wmBase);
    p.surface = this.#marshal(p.compositor, WL_COMPOSITOR_CREATE_SURFACE, s.wl_surface_interface, 0, [0n]);
    p.xdgSurface = this.#marshal(
      p.wmBase,
      opcode("xdg_wm_base", "get_xdg_surface"),
      this.#pointer("xdg_surface"),
      0,
      [0n, this.#value(p.surface)],
    );
    this.#listen(p.xdgSurface);
    p.toplevel = this.#marshal(
      p.xdgSurface,
      opcode("xdg_surface", "get_toplevel"),
      this.#pointer("xdg_toplevel"),
      0,
      [0n],
    );
    this.#listen(p.toplevel);
    const titleText = cstring(title);
    this.#marshal(p.toplevel, opcode("xdg_toplevel", "set_title"), null, 0, [
      this.#value(Deno.UnsafePointer.of(titleText)),
    ]);
    this.#setGeometry();
    this.#marshal(p.surface, WL_SURFACE_COMMIT, null, 0, []);
    for (let i = 0; i < 100 && !this.#configured && !this.#closed; i++) this.#roundtrip();
    if (!this.#configured) {
      throw new Error("Cannot open a Wayland window: the compositor sent no xdg_surface.configure");
    }
  }

  /** The `wl_display*` (for `VkWaylandSurfaceCreateInfoKHR.display`). */
  get display(): Deno.PointerObject {
    if (this.#display === null) throw new TypeError("Cannot use a Wayland window after close()");
    return this.#display;
  }

  /** The `wl_surface*` (for `VkWaylandSurfaceCreateInfoKHR.surface`). */
  get surface(): Deno.PointerObject {
    const surface = this.#proxies.surface;
    if (this.#display === null || surface === null) {
      throw new TypeError("Cannot use a Wayland window after close()");
    }
    return surface;
  }

  /** Width in pixels: what the swapchain should be. */
  get width(): number {
    return this.#width;
  }

  /** Height in pixels: what the swapchain should be. */
  get height(): number {
    return this.#height;
  }

  /** Whether the compositor asked the window to close (xdg_toplevel.close). */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Gives the window a new size: the window geometry follows now, the surface with the next swapchain's
   * first present (a Wayland surface takes the size of the buffers attached to it). 0 x 0 stands for a
   * window with nothing to show (the swapchain cannot have that extent).
   */
  resize(width: number, height: number): void {
    this.#width = width;
    this.#height = height;
    if (width > 0 && height > 0) this.#setGeometry(); // no area: no buffers, so no geometry either
    this.#lib.symbols.wl_display_flush(this.display);
  }

  /** Dispatches the events already received (pings, configures, close) and sends queued requests. */
  poll(): void {
    const s = this.#lib.symbols;
    s.wl_display_dispatch_pending(this.display);
    s.wl_display_flush(this.display);
    this.#checkError();
  }

  /** Destroys the toplevel, surface and globals, disconnects and unloads libwayland-client. Safe to call twice. */
  close(): void {
    if (this.#display === null) return;
    const p = this.#proxies;
    const destroy = (proxy: Deno.PointerValue, code: number) => {
      if (proxy !== null) this.#marshal(proxy, code, null, 0, [], WL_MARSHAL_FLAG_DESTROY);
    };
    destroy(p.toplevel, opcode("xdg_toplevel", "destroy"));
    destroy(p.xdgSurface, opcode("xdg_surface", "destroy"));
    destroy(p.surface, WL_SURFACE_DESTROY);
    destroy(p.wmBase, opcode("xdg_wm_base", "destroy"));
    const s = this.#lib.symbols;
    if (p.compositor !== null) s.wl_proxy_destroy(p.compositor); // wl_compositor has no destructor request
    if (p.registry !== null) s.wl_proxy_destroy(p.registry);
    this.#proxies = {
      registry: null,
      compositor: null,
      wmBase: null,
      surface: null,
      xdgSurface: null,
      toplevel: null,
    };
    s.wl_display_roundtrip(this.#display);
    s.wl_display_disconnect(this.#display);
    this.#display = null;
    this.#dispatcher.close();
    this.#lib.close();
  }

  /** Same as {@linkcode WaylandWindow.close}. */
  [Symbol.dispose](): void {
    this.close();
  }

  #pointer(name: string): Deno.PointerValue {
    return Deno.UnsafePointer.create(this.#interfaces[name]!);
  }

  #value(p: Deno.PointerValue): bigint {
    return BigInt(Deno.UnsafePointer.value(p));
  }

  #marshal(
    proxy: Deno.PointerValue,
    code: number,
    iface: Deno.PointerValue,
    version: number,
    args: bigint[],
    flags = 0,
  ): Deno.PointerValue {
    const s = this.#lib.symbols;
    this.#args.fill(0n);
    args.forEach((a, i) => this.#args[i] = a);
    // A new object gets the version of the one creating it unless a bind names its own.
    const v = version === 0 && iface !== null ? s.wl_proxy_get_version(proxy) : version;
    const created = s.wl_proxy_marshal_array_flags(proxy, code, iface, v, flags, this.#args);
    if (iface !== null && created === null) {
      throw new Error(`Cannot create a Wayland object: request ${code} failed (${this.#errorText()})`);
    }
    return created;
  }

  #bind(
    global: { name: number },
    iface: Deno.PointerValue,
    name: string,
    version: number,
  ): Deno.PointerValue {
    const nameText = cstring(name);
    // wl_registry.bind(uint name, new_id id) with an untyped new_id: "usun" on the wire.
    return this.#marshal(this.#proxies.registry, WL_REGISTRY_BIND, iface, version, [
      BigInt(global.name),
      this.#value(Deno.UnsafePointer.of(nameText)),
      BigInt(version),
      0n,
    ]);
  }

  #listen(proxy: Deno.PointerValue): void {
    this.#lib.symbols.wl_proxy_add_dispatcher(proxy, this.#dispatcher.pointer, null, null);
  }

  #setGeometry(): void {
    const code = opcode("xdg_surface", "set_window_geometry");
    this.#marshal(this.#proxies.xdgSurface, code, null, 0, [
      0n,
      0n,
      BigInt(this.#width),
      BigInt(this.#height),
    ]);
  }

  #roundtrip(): void {
    if (this.#lib.symbols.wl_display_roundtrip(this.display) < 0) this.#checkError();
  }

  #errorText(): string {
    const code = this.#display === null ? 0 : this.#lib.symbols.wl_display_get_error(this.#display);
    return code === 0 ? "no error" : `error ${code}`;
  }

  #checkError(): void {
    const code = this.#lib.symbols.wl_display_get_error(this.display);
    if (code !== 0) throw new Error(`Wayland connection failed: error ${code} (${this.#errorText()})`);
  }

  #dispatch(target: Deno.PointerValue, code: number, args: Deno.PointerValue): void {
    const p = this.#proxies;
    const view = args === null ? null : new Deno.UnsafePointerView(args);
    const u32 = (i: number) => view!.getUint32(8 * i);
    const i32 = (i: number) => view!.getInt32(8 * i);
    const same = (a: Deno.PointerValue) => a !== null && Deno.UnsafePointer.equals(a, target);
    if (same(p.registry)) {
      if (code !== 0) return; // global_remove: nothing bound here goes away on a headless compositor
      const iface = Deno.UnsafePointerView.getCString(Deno.UnsafePointer.create(view!.getBigUint64(8))!);
      if (!this.#globals.has(iface)) this.#globals.set(iface, { name: u32(0), version: u32(2) });
    } else if (same(p.wmBase)) {
      this.#marshal(p.wmBase, opcode("xdg_wm_base", "pong"), null, 0, [BigInt(u32(0))]); // ping
    } else if (same(p.xdgSurface)) {
      this.#marshal(p.xdgSurface, opcode("xdg_surface", "ack_configure"), null, 0, [BigInt(u32(0))]);
      this.#configured = true;
    } else if (same(p.toplevel)) {
      if (code === 1) {
        this.#closed = true;
      } else if (i32(0) > 0 && i32(1) > 0) {
        // A size from the compositor (0 x 0 leaves it to the client).
        this.#width = i32(0);
        this.#height = i32(1);
      }
    }
  }
}
