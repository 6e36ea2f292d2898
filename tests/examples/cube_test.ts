/**
 * `./dev cube` as a user runs it, on lavapipe, in windows of a private Xvfb and a private headless weston:
 * the same frame is the same picture, byte for byte, on Xlib, XCB and Wayland through vkdeno and through
 * the Khronos loader; resizes recreate the swapchain (the application's own, and the driver's
 * suboptimal/out-of-date reports); a run under the validation layer reports nothing. Without Xvfb or weston
 * the tests needing them are skipped, their names saying which Debian package is missing.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { openWindow, runCube } from "../../examples/cube.ts";
import { CUBE_FRAG_SPV, CUBE_VERT_SPV } from "../../examples/shaders/cube_spv.ts";
import { compileGlsl } from "../../examples/shaders/embed.ts";
import { Logger, Vulkan, type VulkanCommands } from "../../mod.ts";
import { startWeston } from "../../window/weston.ts";
import { startXvfb } from "../../window/xvfb.ts";
import { decodePng } from "../support/wsi.ts";
import { LAVAPIPE } from "../support/lavapipe.ts";

const root = new URL("../../", import.meta.url).pathname;
const SIZE = 128;
const FRAMES = 8;

/** Whether `binary` is on PATH: the tests that need it are skipped, naming its package, when not. */
function onPath(binary: string): boolean {
  return (Deno.env.get("PATH") ?? "").split(":").some((dir) => {
    try {
      return Deno.statSync(`${dir}/${binary}`).isFile;
    } catch {
      return false;
    }
  });
}
const HAS_XVFB = onPath("Xvfb");
const HAS_WESTON = onPath("weston");
const needs = (x: boolean, w: boolean) =>
  [x && !HAS_XVFB ? 'Debian package "xvfb"' : "", w && !HAS_WESTON ? 'Debian package "weston"' : ""]
    .filter(Boolean);
const skipped = (missing: string[]) =>
  missing.length ? ` (skipped: ${missing.join(" and ")} not installed)` : "";

function pick(...names: string[]): Record<string, string> {
  return Object.fromEntries(
    names.flatMap((n) => Deno.env.get(n) === undefined ? [] : [[n, Deno.env.get(n)!]]),
  );
}

/** `examples/cube.ts` in a child with only the given display variable and lavapipe. */
async function runExampleCube(args: string[], vars: Record<string, string>) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "examples/cube.ts", `--size=${SIZE}`, `--frames=${FRAMES}`, ...args],
    cwd: root,
    env: { ...pick("HOME", "PATH", "DENO_DIR"), VK_DRIVER_FILES: LAVAPIPE, ...vars },
    clearEnv: true,
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  assertEquals(out.code, 0, text);
  return text;
}

/** vkdeno in this process over lavapipe alone. */
function onVkdeno<T>(fn: (vk: VulkanCommands) => T): T {
  const env = { vars: { VK_DRIVER_FILES: LAVAPIPE }, elevated: false };
  using vk = Vulkan.load({ env, logger: new Logger(env, { write: () => {} }) });
  return fn(vk);
}

/** Distinct colours covering at least `min` pixels each. */
function coloursOver(rgba: Uint8Array, min: number): number[] {
  const counts = new Map<number, number>();
  for (let i = 0; i < rgba.length; i += 4) {
    const c = (rgba[i]! << 16) | (rgba[i + 1]! << 8) | rgba[i + 2]!;
    counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  return [...counts].filter(([, n]) => n >= min).map(([c]) => c);
}

const bothMissing = needs(true, true);
Deno.test({
  name: `the same frame is the same picture on xlib, xcb and wayland through vkdeno and libvulkan${
    skipped(bothMissing)
  }`,
  ignore: bothMissing.length > 0,
  async fn() {
    await using x = await startXvfb();
    await using w = await startWeston();
    const dir = await Deno.makeTempDir({ prefix: "vkdeno-cube-" });
    try {
      const shots: { name: string; png: Uint8Array; line: string }[] = [];
      for (const wsi of ["xlib", "xcb", "wayland"] as const) {
        for (const loader of ["vkdeno", "libvulkan"]) {
          const png = `${dir}/${wsi}-${loader}.png`;
          const vars: Record<string, string> = wsi === "wayland"
            ? { WAYLAND_DISPLAY: w.display }
            : { DISPLAY: x.display };
          const text = await runExampleCube(
            [`--wsi=${wsi}`, `--loader=${loader}`, `--screenshot=${png}`],
            vars,
          );
          const line = text.split("\n").find((l) => l.startsWith(`${loader}, ${wsi}: `)) ?? "";
          assert(line.includes(`${FRAMES} frames on "llvmpipe`), text);
          assert(line.includes("0 recreations"), text);
          shots.push({ name: `${wsi}/${loader}`, png: await Deno.readFile(png), line });
        }
      }
      for (const shot of shots) console.log(`${shot.line}; screenshot ${shot.png.length} bytes`);
      const first = shots[0]!;
      for (const shot of shots.slice(1)) {
        assertEquals(shot.png, first.png, `${shot.name}'s screenshot differs from ${first.name}'s`);
      }
      // The picture is the cube: the clear colour in the corners, three lit faces, each a solid colour
      // darkened towards its edges.
      const image = decodePng(first.png);
      assertEquals([image.width, image.height], [SIZE, SIZE]);
      assertEquals([...image.rgba.subarray(0, 3)], [26, 26, 31]); // clear colour 0.1, 0.1, 0.12
      const faces = coloursOver(image.rgba, 200).filter((c) => c !== 0x1a1a1f);
      assert(faces.length >= 2, `only ${faces.length} large uniform areas besides the background`);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

const xMissing = needs(true, false);
Deno.test({
  name:
    `resizing an X11 window recreates the swapchain: followed by the application, or reported by the driver${
      skipped(xMissing)
    }`,
  ignore: xMissing.length > 0,
  async fn() {
    await using x = await startXvfb();
    for (const wsi of ["xlib", "xcb"] as const) {
      const followed = onVkdeno((vk) => {
        using win = openWindow(wsi, { width: SIZE, height: SIZE }, x.display);
        return runCube(vk, win, { frames: 9, resize: true, screenshot: true });
      });
      assertEquals(followed.recreations.resized, 2, `${wsi}: shrunk and grown back`);
      assertEquals([followed.width, followed.height, followed.image?.width], [SIZE, SIZE, SIZE]);
    }
    // The application ignores its window's size: the driver's VK_SUBOPTIMAL_KHR / VK_ERROR_OUT_OF_DATE_KHR
    // is all that recreates.
    const reported = onVkdeno((vk) => {
      using win = openWindow("xcb", { width: SIZE, height: SIZE }, x.display);
      return runCube(vk, win, { frames: 12, resize: true, followWindow: false });
    });
    const { outOfDate, suboptimal, resized } = reported.recreations;
    assertEquals(resized, 0);
    assert(
      outOfDate + suboptimal >= 1,
      `the driver reported nothing: ${JSON.stringify(reported.recreations)}`,
    );
  },
});

const wMissing = needs(false, true);
Deno.test({
  name: `a Wayland window resized, then without area, then back, recreates the swapchain and waits${
    skipped(wMissing)
  }`,
  ignore: wMissing.length > 0,
  async fn() {
    await using w = await startWeston();
    const report = onVkdeno((vk) => {
      using win = openWindow("wayland", { width: SIZE, height: SIZE }, w.display);
      return runCube(vk, win, { frames: 9, resize: true, screenshot: true });
    });
    assertEquals(report.frames, 9);
    assertEquals(report.recreations.resized, 2);
    assert(report.zeroExtentWaits >= 3, `waited ${report.zeroExtentWaits} times without area`);
    assertEquals([report.image?.width, report.image?.height], [SIZE, SIZE]);
  },
});

Deno.test({
  name: `the cube under the Khronos validation layer, resizes included, reports no message${
    skipped(bothMissing)
  }`,
  ignore: bothMissing.length > 0,
  async fn() {
    await using x = await startXvfb();
    await using w = await startWeston();
    for (const [wsi, display] of [["xlib", x.display], ["wayland", w.display]] as const) {
      const report = onVkdeno((vk) => {
        using win = openWindow(wsi, { width: SIZE, height: SIZE }, display);
        return runCube(vk, win, { frames: 9, resize: true, screenshot: true, validate: true });
      });
      assertEquals(report.validationMessages, [], wsi);
      assert(report.recreations.total >= 2, wsi);
    }
  },
});

Deno.test("the embedded cube shaders are their GLSL sources compiled", async () => {
  assertEquals(await compileGlsl(`${root}examples/shaders/cube.vert`), CUBE_VERT_SPV);
  assertEquals(await compileGlsl(`${root}examples/shaders/cube.frag`), CUBE_FRAG_SPV);
});
