/** Private helpers of the WSI tests: compile and run a small C program, check a colour. */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { inflateSync } from "node:zlib";
import { buildProgram } from "./c_build.ts";

/**
 * Compiles `source` with `cc` in a temp folder, runs it and returns its stdout parsed as
 * `name value` lines.
 */
export async function runC(source: string, libs: string[] = []): Promise<Record<string, number>> {
  const dir = await Deno.makeTempDir({ prefix: "vkdeno-wsi-c-" });
  try {
    await buildProgram(dir, source, libs);
    const run = await new Deno.Command(`${dir}/probe`).output();
    assert.equal(run.code, 0);
    const values: Record<string, number> = {};
    for (const line of new TextDecoder().decode(run.stdout).trim().split("\n")) {
      const [name, value] = line.split(" ");
      values[name!] = Number(value);
    }
    return values;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Counts the pixels of `rgba` within `tolerance` of `rgb` (0xRRGGBB). */
export function countColour(rgba: Uint8Array, rgb: number, tolerance = 2): number {
  const want = [(rgb >> 16) & 0xff, (rgb >> 8) & 0xff, rgb & 0xff];
  let n = 0;
  for (let i = 0; i < rgba.length; i += 4) {
    if (want.every((c, k) => Math.abs(rgba[i + k]! - c) <= tolerance)) n++;
  }
  return n;
}

/** Decodes an 8-bit RGBA PNG whose rows all use filter 0 (what window/png.ts writes). */
export function decodePng(png: Uint8Array): { width: number; height: number; rgba: Uint8Array } {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  let width = 0, height = 0;
  const idat: Uint8Array[] = [];
  for (let at = 8; at < png.length;) {
    const length = view.getUint32(at);
    const type = new TextDecoder().decode(png.subarray(at + 4, at + 8));
    const data = png.subarray(at + 8, at + 8 + length);
    if (type === "IHDR") [width, height] = [view.getUint32(at + 8), view.getUint32(at + 12)];
    if (type === "IDAT") idat.push(data);
    at += 12 + length;
  }
  const raw = new Uint8Array(inflateSync(Buffer.concat(idat)));
  const stride = width * 4;
  const rgba = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    assert.equal(raw[y * (stride + 1)], 0, "filter 0");
    rgba.set(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)), y * stride);
  }
  return { width, height, rgba };
}
