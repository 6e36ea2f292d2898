/**
 * An X11 window through libX11 (Xlib), for `vkCreateXlibSurfaceKHR`, and its pixels read back
 * (`XGetImage`). Re-exported by window/x11.ts.
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
  XResizeWindow: { parameters: ["pointer", "u64", "u32", "u32"], result: "i32" },
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

/** XImage field offsets on LP64 (checked against <X11/Xlib.h> by tests/window/x11_test.ts). */
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
 * import { XlibWindow } from "@vkdeno/loader/window";
 * using win = XlibWindow.open({ display: ":99", width: 64, height: 64, background: 0x336699 });
 * const image = win.readPixels();
 * console.log(image.rgba.slice(0, 4)); // Uint8Array [ 51, 102, 153, 255 ]
 * ```
 */
export class XlibWindow implements Disposable {
  #lib: Deno.DynamicLibrary<typeof XLIB_SYMBOLS>;
  #display: Deno.PointerObject | null;
  #window: bigint;
  #width: number;
  #height: number;

  private constructor(
    lib: Deno.DynamicLibrary<typeof XLIB_SYMBOLS>,
    display: Deno.PointerObject,
    window: bigint,
    size: { width: number; height: number },
  ) {
    this.#lib = lib;
    this.#display = display;
    this.#window = window;
    this.#width = size.width;
    this.#height = size.height;
  }

  /** Width in pixels. */
  get width(): number {
    return this.#width;
  }

  /** Height in pixels. */
  get height(): number {
    return this.#height;
  }

  /** `XResizeWindow`, then `XSync`: the server has the new size when this returns. */
  resize(width: number, height: number): void {
    this.#lib.symbols.XResizeWindow(this.display, this.#window, width, height);
    this.sync();
    this.#width = width;
    this.#height = height;
  }

  /**
   * Connects to the display, creates a top-level window, maps it and waits
   * until the server has processed that.
   *
   * @example Usage
   * ```ts ignore
   * import { XlibWindow } from "@vkdeno/loader/window";
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
