/**
 * What the X11 window helpers share (window/x11.ts gathers them): the read-back image and the window options,
 * opening a library and naming the display, and converting read-back pixels to RGBA.
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

/** What `XlibWindow.open` (window/x11_xlib.ts) and `XcbWindow.open` (window/x11_xcb.ts) accept. */
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

/** `ZPixmap`, the image format both window kinds read back in. */
export const ZPIXMAP = 2;
const encoder = new TextEncoder();

/** `s` as a NUL-terminated C string. */
export function cstring(s: string): Uint8Array<ArrayBuffer> {
  return encoder.encode(s + "\0");
}

/** The display to open: `options.display`, else `DISPLAY`. */
export function displayName(options: X11WindowOptions): string {
  const name = options.display ?? Deno.env.get("DISPLAY");
  if (!name) throw new TypeError('Cannot open an X11 window: no display given and "DISPLAY" is not set');
  return name;
}

/** The first of `names` that `Deno.dlopen` opens, with `symbols`. */
export function openLibrary<S extends Deno.ForeignLibraryInterface>(
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
export function toRgba(
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
