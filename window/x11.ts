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
 * One module per window kind: window/x11_xlib.ts and window/x11_xcb.ts, over what they share in
 * window/x11_window.ts; this module is the path examples and tests import them by.
 *
 * @module
 */

export type { RgbaImage, X11WindowOptions } from "./x11_window.ts";
export { XIMAGE_OFFSETS, XlibWindow } from "./x11_xlib.ts";
export { XCB_OFFSETS, XcbWindow } from "./x11_xcb.ts";
