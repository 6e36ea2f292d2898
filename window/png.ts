/**
 * A minimal PNG encoder (8-bit RGBA, no filtering, zlib from `node:zlib`) to
 * turn a window readback into a screenshot file.
 *
 * @module
 */
import { deflateSync } from "node:zlib";
import type { RgbaImage } from "./x11_window.ts";

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/**
 * Encodes an RGBA image as a PNG file.
 *
 * @example Write a 1x1 red pixel
 * ```ts
 * import { encodePng } from "@vkdeno/loader/window";
 * const png = encodePng({ width: 1, height: 1, rgba: new Uint8Array([255, 0, 0, 255]) });
 * console.log(png.length > 8); // true
 * ```
 * @throws {RangeError} If `rgba` does not hold `width * height * 4` bytes.
 */
export function encodePng(image: RgbaImage): Uint8Array {
  const { width, height, rgba } = image;
  if (rgba.length !== width * height * 4) {
    throw new RangeError(`Cannot encode a ${width}x${height} PNG from "${rgba.length}" bytes of RGBA`);
  }
  const header = new Uint8Array(13);
  const hv = new DataView(header.buffer);
  hv.setUint32(0, width);
  hv.setUint32(4, height);
  header.set([8, 6, 0, 0, 0], 8); // bit depth 8, colour type RGBA, deflate, filter set 0, no interlace
  const stride = width * 4;
  const raw = new Uint8Array((stride + 1) * height);
  for (let y = 0; y < height; y++) raw.set(rgba.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
  const parts = [
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", new Uint8Array(deflateSync(raw))),
    chunk("IEND", new Uint8Array(0)),
  ];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}
