/**
 * Windows to present to and screenshots, for examples and applications (the `./window` entry, also `./wsi`): X11 windows
 * through Xlib or XCB, Wayland windows through libwayland-client and xdg-shell, a PNG encoder for what they
 * read back. Not imported by mod.ts (the PNG encoder loads `node:zlib`).
 *
 * @example A PNG of one red pixel
 * ```ts
 * import { encodePng } from "@vkdeno/loader/window";
 * console.log(encodePng({ width: 1, height: 1, rgba: new Uint8Array([255, 0, 0, 255]) }).length > 8); // true
 * ```
 *
 * @module
 */
export type { RgbaImage, X11WindowOptions } from "./x11.ts";
export { XcbWindow, XlibWindow } from "./x11.ts";
export { WaylandWindow, type WaylandWindowOptions } from "./wayland.ts";
export { encodePng } from "./png.ts";
