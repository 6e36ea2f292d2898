/**
 * An X11 window through libxcb, for `vkCreateXcbSurfaceKHR`, and its pixels read back (`xcb_get_image`).
 * Re-exported by window/x11.ts.
 *
 * @module
 */

import {
  cstring,
  displayName,
  openLibrary,
  type RgbaImage,
  toRgba,
  type X11WindowOptions,
  ZPIXMAP,
} from "./x11_window.ts";

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
  // xcb_connection_t *c, xcb_window_t window, uint16_t value_mask, const void *value_list
  xcb_configure_window: { parameters: ["pointer", "u32", "u16", "buffer"], result: COOKIE },
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

/** xcb_screen_t and xcb_setup_t field offsets (checked against <xcb/xcb.h> by tests/window/x11_test.ts). */
export const XCB_OFFSETS = {
  screen_root: 0,
  screen_root_visual: 32,
  screen_root_depth: 38,
  setup_image_byte_order: 30,
  get_image_reply_depth: 1,
} as const;

const XCB_WINDOW_CLASS_INPUT_OUTPUT = 1;
const XCB_CW_BACK_PIXEL = 2;
const XCB_CONFIG_WINDOW_WIDTH = 4;
const XCB_CONFIG_WINDOW_HEIGHT = 8;

/**
 * A window opened through libxcb (`xcb_connect`, `xcb_create_window`,
 * `xcb_map_window`); `connection` and `window` go into
 * `VkXcbSurfaceCreateInfoKHR`.
 *
 * @example Open, read back, close
 * ```ts ignore
 * import { XcbWindow } from "@vkdeno/loader/window";
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
  #width: number;
  #height: number;

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
    this.#width = window.width;
    this.#height = window.height;
  }

  /** Width in pixels. */
  get width(): number {
    return this.#width;
  }

  /** Height in pixels. */
  get height(): number {
    return this.#height;
  }

  /** `xcb_configure_window` (width and height), then a round trip: the server has the new size on return. */
  resize(width: number, height: number): void {
    this.#lib.symbols.xcb_configure_window(
      this.connection,
      this.#window,
      XCB_CONFIG_WINDOW_WIDTH | XCB_CONFIG_WINDOW_HEIGHT,
      new Uint32Array([width, height]),
    );
    this.sync();
    this.#width = width;
    this.#height = height;
  }

  /**
   * Connects to the display, creates a top-level window on the default
   * screen, maps it and waits for a round trip.
   *
   * @example Usage
   * ```ts ignore
   * import { XcbWindow } from "@vkdeno/loader/window";
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
