/**
 * Small X11 helpers for examples and tests: open a window through libX11
 * (Xlib) or libxcb, hand its connection and window id to
 * `vkCreateXlibSurfaceKHR` / `vkCreateXcbSurfaceKHR`, and read its pixels
 * back to check what was presented.
 *
 * These are developer tools, not part of the loader: they load libX11 and
 * libxcb with `Deno.dlopen` and need `--allow-ffi`. Both assume a TrueColor
 * visual with 24-bit depth and 32 bits per pixel, which Xvfb and every
 * desktop X server default to; anything else is refused with an error.
 *
 * @module
 */

/** Pixels read back from a window: `rgba` holds `width * height * 4` bytes, row after row, alpha 255. */
export interface RgbaImage {
  /** Width in pixels. */
  width: number;
  /** Height in pixels. */
  height: number;
  /** Red, green, blue, alpha bytes per pixel, rows top to bottom. */
  rgba: Uint8Array;
}

/** What {@linkcode XlibWindow.open} and {@linkcode XcbWindow.open} accept. */
export interface X11WindowOptions {
  /** The display name (`":99"`); the `DISPLAY` variable when left out. */
  display?: string;
  /** Width in pixels; 256 when left out. */
  width?: number;
  /** Height in pixels; 256 when left out. */
  height?: number;
  /** Background colour as `0xRRGGBB`; black when left out. */
  background?: number;
}

const ZPIXMAP = 2;
const encoder = new TextEncoder();

function cstring(s: string): Uint8Array<ArrayBuffer> {
  return encoder.encode(s + "\0");
}

function displayName(options: X11WindowOptions): string {
  const name = options.display ?? Deno.env.get("DISPLAY");
  if (!name) throw new TypeError('Cannot open an X11 window: no display given and "DISPLAY" is not set');
  return name;
}

function openLibrary<S extends Deno.ForeignLibraryInterface>(
  names: string[],
  symbols: S,
): Deno.DynamicLibrary<S> {
  const errors: string[] = [];
  for (const name of names) {
    try {
      return Deno.dlopen(name, symbols);
    } catch (e) {
      errors.push(`${name}: ${(e as Error).message}`);
    }
  }
  throw new Error(`Cannot load library "${names[0]}": ${errors.join("; ")}`);
}

/**
 * Converts 32-bit pixels (`bytes_per_line` apart) to RGBA using the visual's
 * channel masks.
 */
function toRgba(
  src: Uint8Array,
  size: { width: number; height: number; stride: number; lsbFirst: boolean },
  masks: [number, number, number],
): RgbaImage {
  const { width, height, stride, lsbFirst } = size;
  const view = new DataView(src.buffer, src.byteOffset, src.byteLength);
  const rgba = new Uint8Array(width * height * 4);
  const shifts = masks.map((m) => 31 - Math.clz32(m & -m));
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const pixel = view.getUint32(y * stride + x * 4, lsbFirst);
      const o = (y * width + x) * 4;
      for (let c = 0; c < 3; c++) rgba[o + c] = ((pixel & masks[c]!) >>> shifts[c]!) & 0xff;
      rgba[o + 3] = 255;
    }
  }
  return { width, height, rgba };
}

const XLIB_SYMBOLS = {
  XInitThreads: { parameters: [], result: "i32" },
  XOpenDisplay: { parameters: ["buffer"], result: "pointer" }, // const char *display_name
  XDefaultScreen: { parameters: ["pointer"], result: "i32" },
  XRootWindow: { parameters: ["pointer", "i32"], result: "u64" },
  XCreateSimpleWindow: {
    parameters: [
      "pointer", // Display *display
      "u64", // Window parent
      "i32", // int x
      "i32", // int y
      "u32", // unsigned int width
      "u32", // unsigned int height
      "u32", // unsigned int border_width
      "u64", // unsigned long border
      "u64", // unsigned long background
    ],
    result: "u64",
  },
  XMapWindow: { parameters: ["pointer", "u64"], result: "i32" },
  XFlush: { parameters: ["pointer"], result: "i32" },
  XSync: { parameters: ["pointer", "i32"], result: "i32" }, // Bool discard
  XGetImage: {
    parameters: [
      "pointer", // Display *display
      "u64", // Drawable d
      "i32", // int x
      "i32", // int y
      "u32", // unsigned int width
      "u32", // unsigned int height
      "u64", // unsigned long plane_mask
      "i32", // int format
    ],
    result: "pointer", // XImage *
  },
  XDestroyImage: { parameters: ["pointer"], result: "i32" },
  XDestroyWindow: { parameters: ["pointer", "u64"], result: "i32" },
  XCloseDisplay: { parameters: ["pointer"], result: "i32" },
} as const;

/** XImage field offsets on LP64 (checked against <X11/Xlib.h> by tests/wsi_x11_test.ts). */
export const XIMAGE_OFFSETS = {
  width: 0,
  height: 4,
  format: 12,
  data: 16,
  byte_order: 24,
  depth: 40,
  bytes_per_line: 44,
  bits_per_pixel: 48,
  red_mask: 56,
  green_mask: 64,
  blue_mask: 72,
} as const;

/**
 * A window opened through libX11 (`XOpenDisplay`, `XCreateSimpleWindow`,
 * `XMapWindow`); `display` and `window` go into `VkXlibSurfaceCreateInfoKHR`.
 *
 * @example Open, read back, close
 * ```ts ignore
 * import { XlibWindow } from "./x11.ts";
 * using win = XlibWindow.open({ display: ":99", width: 64, height: 64, background: 0x336699 });
 * const image = win.readPixels();
 * console.log(image.rgba.slice(0, 4)); // Uint8Array [ 51, 102, 153, 255 ]
 * ```
 */
export class XlibWindow implements Disposable {
  #lib: Deno.DynamicLibrary<typeof XLIB_SYMBOLS>;
  #display: Deno.PointerObject | null;
  #window: bigint;
  /** Width in pixels. */
  readonly width: number;
  /** Height in pixels. */
  readonly height: number;

  private constructor(
    lib: Deno.DynamicLibrary<typeof XLIB_SYMBOLS>,
    display: Deno.PointerObject,
    window: bigint,
    size: { width: number; height: number },
  ) {
    this.#lib = lib;
    this.#display = display;
    this.#window = window;
    this.width = size.width;
    this.height = size.height;
  }

  /**
   * Connects to the display, creates a top-level window, maps it and waits
   * until the server has processed that.
   *
   * @example Usage
   * ```ts ignore
   * import { XlibWindow } from "./x11.ts";
   * using win = XlibWindow.open({ width: 320, height: 240 });
   * ```
   * @throws {Error} If libX11 cannot be loaded or the display cannot be opened.
   */
  static open(options: X11WindowOptions = {}): XlibWindow {
    const name = displayName(options);
    const { width = 256, height = 256, background = 0 } = options;
    const lib = openLibrary(["libX11.so.6", "libX11.so"], XLIB_SYMBOLS);
    // Mesa's WSI talks to the same Display from its own threads.
    lib.symbols.XInitThreads();
    const display = lib.symbols.XOpenDisplay(cstring(name));
    if (display === null) {
      lib.close();
      throw new Error(`Cannot open X display "${name}": XOpenDisplay returned NULL`);
    }
    const s = lib.symbols;
    const root = BigInt(s.XRootWindow(display, s.XDefaultScreen(display)));
    const window = BigInt(
      s.XCreateSimpleWindow(display, root, 0, 0, width, height, 0, 0n, BigInt(background)),
    );
    s.XMapWindow(display, window);
    s.XSync(display, 0);
    return new XlibWindow(lib, display, window, { width, height });
  }

  /** The `Display*` (for `VkXlibSurfaceCreateInfoKHR.dpy`). */
  get display(): Deno.PointerObject {
    if (this.#display === null) throw new TypeError("Cannot use an Xlib window after close()");
    return this.#display;
  }

  /** The window id (for `VkXlibSurfaceCreateInfoKHR.window`). */
  get window(): bigint {
    return this.#window;
  }

  /** `XFlush`: sends queued requests without waiting. */
  flush(): void {
    this.#lib.symbols.XFlush(this.display);
  }

  /** `XSync`: waits until the server has processed every request sent so far. */
  sync(): void {
    this.#lib.symbols.XSync(this.display, 0);
  }

  /**
   * Reads the window's pixels with `XGetImage` (ZPixmap, all planes).
   *
   * @throws {Error} If the server returns no image or an unsupported pixel format.
   */
  readPixels(): RgbaImage {
    const s = this.#lib.symbols;
    this.sync();
    const image = s.XGetImage(
      this.display,
      this.#window,
      0,
      0,
      this.width,
      this.height,
      0xffffffffn,
      ZPIXMAP,
    );
    if (image === null) {
      throw new Error(`Cannot read window "0x${this.#window.toString(16)}": XGetImage returned NULL`);
    }
    try {
      const v = new Deno.UnsafePointerView(image);
      const O = XIMAGE_OFFSETS;
      const bpp = v.getInt32(O.bits_per_pixel);
      const depth = v.getInt32(O.depth);
      if (bpp !== 32 || depth < 24) {
        throw new Error(`Cannot read window "0x${this.#window.toString(16)}": depth ${depth} at ${bpp} bpp`);
      }
      const stride = v.getInt32(O.bytes_per_line);
      const height = v.getInt32(O.height);
      const data = Deno.UnsafePointer.create(v.getBigUint64(O.data));
      if (data === null) throw new Error("XGetImage returned an image without data");
      const bytes = new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(data, stride * height).slice(0));
      const masks: [number, number, number] = [
        Number(v.getBigUint64(O.red_mask)),
        Number(v.getBigUint64(O.green_mask)),
        Number(v.getBigUint64(O.blue_mask)),
      ];
      const lsbFirst = v.getInt32(O.byte_order) === 0;
      return toRgba(bytes, { width: v.getInt32(O.width), height, stride, lsbFirst }, masks);
    } finally {
      s.XDestroyImage(image);
    }
  }

  /** Destroys the window, closes the display connection and unloads libX11. Safe to call twice. */
  close(): void {
    if (this.#display === null) return;
    this.#lib.symbols.XDestroyWindow(this.#display, this.#window);
    this.#lib.symbols.XCloseDisplay(this.#display);
    this.#display = null;
    this.#lib.close();
  }

  /** Same as {@linkcode XlibWindow.close}. */
  [Symbol.dispose](): void {
    this.close();
  }
}

const COOKIE = { struct: ["u32"] } as const; // xcb_void_cookie_t and friends: { unsigned int sequence }

const XCB_SYMBOLS = {
  xcb_connect: { parameters: ["buffer", "pointer"], result: "pointer" }, // const char *displayname, int *screenp
  xcb_connection_has_error: { parameters: ["pointer"], result: "i32" },
  xcb_get_setup: { parameters: ["pointer"], result: "pointer" },
  xcb_setup_roots_iterator: { parameters: ["pointer"], result: { struct: ["pointer", "i32", "i32"] } },
  xcb_screen_next: { parameters: ["buffer"], result: "void" }, // xcb_screen_iterator_t *i
  xcb_generate_id: { parameters: ["pointer"], result: "u32" },
  xcb_create_window: {
    parameters: [
      "pointer", // xcb_connection_t *c
      "u8", // uint8_t depth
      "u32", // xcb_window_t wid
      "u32", // xcb_window_t parent
      "i16", // int16_t x
      "i16", // int16_t y
      "u16", // uint16_t width
      "u16", // uint16_t height
      "u16", // uint16_t border_width
      "u16", // uint16_t _class
      "u32", // xcb_visualid_t visual
      "u32", // uint32_t value_mask
      "buffer", // const void *value_list
    ],
    result: COOKIE,
  },
  xcb_map_window: { parameters: ["pointer", "u32"], result: COOKIE },
  xcb_destroy_window: { parameters: ["pointer", "u32"], result: COOKIE },
  xcb_flush: { parameters: ["pointer"], result: "i32" },
  xcb_get_input_focus: { parameters: ["pointer"], result: COOKIE },
  xcb_get_input_focus_reply: { parameters: ["pointer", COOKIE, "pointer"], result: "pointer" },
  xcb_get_image: {
    parameters: [
      "pointer", // xcb_connection_t *c
      "u8", // uint8_t format
      "u32", // xcb_drawable_t drawable
      "i16", // int16_t x
      "i16", // int16_t y
      "u16", // uint16_t width
      "u16", // uint16_t height
      "u32", // uint32_t plane_mask
    ],
    result: COOKIE,
  },
  xcb_get_image_reply: { parameters: ["pointer", COOKIE, "pointer"], result: "pointer" },
  xcb_get_image_data: { parameters: ["pointer"], result: "pointer" },
  xcb_get_image_data_length: { parameters: ["pointer"], result: "i32" },
  xcb_disconnect: { parameters: ["pointer"], result: "void" },
} as const;

const LIBC_FREE = { free: { parameters: ["pointer"], result: "void" } } as const;

/** xcb_screen_t and xcb_setup_t field offsets (checked against <xcb/xcb.h> by tests/wsi_x11_test.ts). */
export const XCB_OFFSETS = {
  screen_root: 0,
  screen_root_visual: 32,
  screen_root_depth: 38,
  setup_image_byte_order: 30,
  get_image_reply_depth: 1,
} as const;

const XCB_WINDOW_CLASS_INPUT_OUTPUT = 1;
const XCB_CW_BACK_PIXEL = 2;

/**
 * A window opened through libxcb (`xcb_connect`, `xcb_create_window`,
 * `xcb_map_window`); `connection` and `window` go into
 * `VkXcbSurfaceCreateInfoKHR`.
 *
 * @example Open, read back, close
 * ```ts ignore
 * import { XcbWindow } from "./x11.ts";
 * using win = XcbWindow.open({ display: ":99", width: 64, height: 64, background: 0x336699 });
 * console.log(win.readPixels().rgba.slice(0, 4)); // Uint8Array [ 51, 102, 153, 255 ]
 * ```
 */
export class XcbWindow implements Disposable {
  #lib: Deno.DynamicLibrary<typeof XCB_SYMBOLS>;
  #libc: Deno.DynamicLibrary<typeof LIBC_FREE>;
  #connection: Deno.PointerObject | null;
  #window: number;
  #lsbFirst: boolean;
  /** Width in pixels. */
  readonly width: number;
  /** Height in pixels. */
  readonly height: number;

  private constructor(
    libs: { xcb: Deno.DynamicLibrary<typeof XCB_SYMBOLS>; libc: Deno.DynamicLibrary<typeof LIBC_FREE> },
    connection: Deno.PointerObject,
    window: { id: number; width: number; height: number; lsbFirst: boolean },
  ) {
    this.#lib = libs.xcb;
    this.#libc = libs.libc;
    this.#connection = connection;
    this.#window = window.id;
    this.#lsbFirst = window.lsbFirst;
    this.width = window.width;
    this.height = window.height;
  }

  /**
   * Connects to the display, creates a top-level window on the default
   * screen, maps it and waits for a round trip.
   *
   * @example Usage
   * ```ts ignore
   * import { XcbWindow } from "./x11.ts";
   * using win = XcbWindow.open({ width: 320, height: 240 });
   * ```
   * @throws {Error} If libxcb cannot be loaded or the connection fails.
   */
  static open(options: X11WindowOptions = {}): XcbWindow {
    const name = displayName(options);
    const { width = 256, height = 256, background = 0 } = options;
    const xcb = openLibrary(["libxcb.so.1", "libxcb.so"], XCB_SYMBOLS);
    const s = xcb.symbols;
    const screenNumber = new Int32Array(new ArrayBuffer(4));
    const connection = s.xcb_connect(cstring(name), Deno.UnsafePointer.of(screenNumber));
    // xcb_connect never returns NULL; a failed connection is an error object that must still be freed.
    const error = connection === null ? -1 : s.xcb_connection_has_error(connection);
    if (connection === null || error !== 0) {
      if (connection !== null) s.xcb_disconnect(connection);
      xcb.close();
      throw new Error(`Cannot open X display "${name}": xcb_connect failed with error ${error}`);
    }
    const setup = s.xcb_get_setup(connection)!;
    const iterator = new Uint8Array(s.xcb_setup_roots_iterator(setup));
    for (let i = 0; i < screenNumber[0]!; i++) s.xcb_screen_next(iterator);
    const screen = Deno.UnsafePointer.create(new DataView(iterator.buffer).getBigUint64(0, true))!;
    const sv = new Deno.UnsafePointerView(screen);
    const id = s.xcb_generate_id(connection);
    s.xcb_create_window(
      connection,
      0, // XCB_COPY_FROM_PARENT depth
      id,
      sv.getUint32(XCB_OFFSETS.screen_root),
      0,
      0,
      width,
      height,
      0,
      XCB_WINDOW_CLASS_INPUT_OUTPUT,
      sv.getUint32(XCB_OFFSETS.screen_root_visual),
      XCB_CW_BACK_PIXEL,
      new Uint32Array([background]),
    );
    s.xcb_map_window(connection, id);
    const lsbFirst = new Deno.UnsafePointerView(setup).getUint8(XCB_OFFSETS.setup_image_byte_order) === 0;
    const libc = openLibrary(["libc.so.6"], LIBC_FREE);
    const win = new XcbWindow({ xcb, libc }, connection, { id, width, height, lsbFirst });
    win.sync();
    return win;
  }

  /** The `xcb_connection_t*` (for `VkXcbSurfaceCreateInfoKHR.connection`). */
  get connection(): Deno.PointerObject {
    if (this.#connection === null) throw new TypeError("Cannot use an xcb window after close()");
    return this.#connection;
  }

  /** The window id (for `VkXcbSurfaceCreateInfoKHR.window`). */
  get window(): number {
    return this.#window;
  }

  /** `xcb_flush`: sends queued requests without waiting. */
  flush(): void {
    this.#lib.symbols.xcb_flush(this.connection);
  }

  /** A round trip (`xcb_get_input_focus`): every request sent before it has been processed. */
  sync(): void {
    const s = this.#lib.symbols;
    const reply = s.xcb_get_input_focus_reply(this.connection, s.xcb_get_input_focus(this.connection), null);
    if (reply !== null) this.#libc.symbols.free(reply);
  }

  /**
   * Reads the window's pixels with `xcb_get_image` (ZPixmap, all planes).
   * Assumes the 0xRRGGBB channel masks of a 24-bit TrueColor visual.
   *
   * @throws {Error} If the server returns an error or an unsupported depth.
   */
  readPixels(): RgbaImage {
    const s = this.#lib.symbols;
    const cookie = s.xcb_get_image(
      this.connection,
      ZPIXMAP,
      this.#window,
      0,
      0,
      this.width,
      this.height,
      0xffffffff,
    );
    const reply = s.xcb_get_image_reply(this.connection, cookie, null);
    if (reply === null) {
      throw new Error(`Cannot read window "0x${this.#window.toString(16)}": xcb_get_image failed`);
    }
    try {
      const depth = new Deno.UnsafePointerView(reply).getUint8(XCB_OFFSETS.get_image_reply_depth);
      const length = s.xcb_get_image_data_length(reply);
      const stride = this.width * 4;
      if (depth < 24 || length < stride * this.height) {
        throw new Error(
          `Cannot read window "0x${this.#window.toString(16)}": depth ${depth}, ${length} bytes`,
        );
      }
      const data = s.xcb_get_image_data(reply)!;
      const bytes = new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(data, length).slice(0));
      const size = { width: this.width, height: this.height, stride, lsbFirst: this.#lsbFirst };
      return toRgba(bytes, size, [0xff0000, 0x00ff00, 0x0000ff]);
    } finally {
      this.#libc.symbols.free(reply);
    }
  }

  /** Destroys the window, disconnects and unloads libxcb. Safe to call twice. */
  close(): void {
    if (this.#connection === null) return;
    this.#lib.symbols.xcb_destroy_window(this.#connection, this.#window);
    this.sync();
    this.#lib.symbols.xcb_disconnect(this.#connection);
    this.#connection = null;
    this.#lib.close();
    this.#libc.close();
  }

  /** Same as {@linkcode XcbWindow.close}. */
  [Symbol.dispose](): void {
    this.close();
  }
}
