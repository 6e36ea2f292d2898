import assert from "node:assert/strict";
import { presentFrames } from "../examples/present.ts";
import { openLibvulkan } from "../tools/libvulkan.ts";
import { type RgbaImage, XcbWindow, XlibWindow } from "../wsi/x11.ts";
import { startXvfb } from "../wsi/xvfb.ts";
import { countColour } from "./_wsi.ts";

const LAVAPIPE = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";

/** libvulkan reads its variables from the process: pin it to lavapipe for the test's duration. */
function withLavapipe<T>(fn: () => T): T {
  const saved = Deno.env.get("VK_DRIVER_FILES");
  Deno.env.set("VK_DRIVER_FILES", LAVAPIPE);
  try {
    return fn();
  } finally {
    if (saved === undefined) Deno.env.delete("VK_DRIVER_FILES");
    else Deno.env.set("VK_DRIVER_FILES", saved);
  }
}

for (const kind of ["xlib", "xcb"] as const) {
  Deno.test(`libvulkan + lavapipe presents the clear colour to an ${kind} window under Xvfb`, async () => {
    await using x = await startXvfb();
    const colour = kind === "xlib" ? 0x3366cc : 0xff8000;
    const open = { display: x.display, width: 96, height: 64, background: 0x000000 };
    using win = kind === "xlib" ? XlibWindow.open(open) : XcbWindow.open(open);
    const before = win.readPixels();
    assert.equal(countColour(before.rgba, colour), 0);
    let after: RgbaImage | undefined;
    const report = withLavapipe(() => {
      using vk = openLibvulkan();
      return presentFrames(vk, win, {
        frames: 4,
        colour,
        afterPresent: () => after = win.readPixels(),
      });
    });
    assert.equal(report.presented, 4);
    assert.match(report.deviceName, /llvmpipe/);
    assert.deepEqual([report.width, report.height], [96, 64]);
    assert.ok(after);
    assert.equal(countColour(after.rgba, colour, 1), 96 * 64);
  });
}
