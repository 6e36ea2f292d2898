import assert from "node:assert/strict";
import { inflateSync } from "node:zlib";
import { XCB_OFFSETS, XcbWindow, XIMAGE_OFFSETS, XlibWindow } from "../../window/x11.ts";
import { startXvfb } from "../../window/xvfb.ts";
import { encodePng } from "../../window/png.ts";
import { countColour, runC } from "../support/wsi.ts";

Deno.test("XImage and xcb offsets match <X11/Xlib.h> and <xcb/xcb.h>", async () => {
  const ximage = Object.keys(XIMAGE_OFFSETS).map((f) => `P(XImage, ${f});`).join("\n");
  const c = await runC(`
#include <X11/Xlib.h>
#include <xcb/xcb.h>
#include <stdio.h>
#include <stddef.h>
#define P(T, f) printf("%s %zu\\n", #f, offsetof(T, f))
int main(void) {
${ximage}
printf("screen_root %zu\\n", offsetof(xcb_screen_t, root));
printf("screen_root_visual %zu\\n", offsetof(xcb_screen_t, root_visual));
printf("screen_root_depth %zu\\n", offsetof(xcb_screen_t, root_depth));
printf("setup_image_byte_order %zu\\n", offsetof(xcb_setup_t, image_byte_order));
printf("get_image_reply_depth %zu\\n", offsetof(xcb_get_image_reply_t, depth));
return 0;
}`);
  assert.deepEqual(c, { ...XIMAGE_OFFSETS, ...XCB_OFFSETS });
});

Deno.test("an Xlib window under Xvfb reads back its background colour", async () => {
  await using x = await startXvfb({ width: 320, height: 240 });
  using win = XlibWindow.open({ display: x.display, width: 40, height: 30, background: 0x336699 });
  assert.ok(win.window > 0n);
  const image = win.readPixels();
  assert.equal(image.width, 40);
  assert.equal(image.height, 30);
  assert.equal(countColour(image.rgba, 0x336699, 0), 40 * 30);
});

Deno.test("an xcb window under Xvfb reads back its background colour", async () => {
  await using x = await startXvfb({ width: 320, height: 240 });
  using win = XcbWindow.open({ display: x.display, width: 24, height: 20, background: 0xff8000 });
  assert.ok(win.window > 0);
  const image = win.readPixels();
  assert.equal(countColour(image.rgba, 0xff8000, 0), 24 * 20);
  win.close();
  win.close();
});

Deno.test("opening a window on a display that does not exist throws naming the display", () => {
  assert.throws(() => XlibWindow.open({ display: ":4093" }), /Cannot open X display ":4093"/);
  assert.throws(() => XcbWindow.open({ display: ":4093" }), /Cannot open X display ":4093"/);
});

Deno.test("encodePng writes a PNG whose IDAT inflates to filter bytes and the pixels", () => {
  const rgba = new Uint8Array([1, 2, 3, 255, 4, 5, 6, 255, 7, 8, 9, 255, 10, 11, 12, 255]);
  const png = encodePng({ width: 2, height: 2, rgba });
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const view = new DataView(png.buffer);
  const ihdr = 8;
  assert.equal(new TextDecoder().decode(png.subarray(ihdr + 4, ihdr + 8)), "IHDR");
  assert.equal(view.getUint32(ihdr + 8), 2);
  const idat = ihdr + 12 + 13;
  const length = view.getUint32(idat);
  const raw = new Uint8Array(inflateSync(png.subarray(idat + 8, idat + 8 + length)));
  assert.deepEqual([...raw], [0, ...rgba.subarray(0, 8), 0, ...rgba.subarray(8)]);
  assert.throws(() => encodePng({ width: 3, height: 1, rgba }), RangeError);
});

Deno.test("startXvfb names the binary it could not start", async () => {
  await assert.rejects(startXvfb({ binary: "/nonexistent/Xvfb" }), /Cannot start "\/nonexistent\/Xvfb"/);
});
