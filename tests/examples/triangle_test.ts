/**
 * `deno task triangle` as a user runs it: on lavapipe, through vkdeno and through the Khronos loader, the
 * PNG holds the triangle (interpolated corner colours inside, the clear colour outside) and both loaders'
 * files have the same pixels.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { compileGlsl, SHADER_MODULES } from "../../examples/shaders/embed.ts";
import { decodePng } from "../support/wsi.ts";
import { LAVAPIPE } from "../support/lavapipe.ts";

const root = new URL("../../", import.meta.url).pathname;
const SIZE = 256;

function pick(...names: string[]): Record<string, string> {
  return Object.fromEntries(
    names.flatMap((n) => Deno.env.get(n) === undefined ? [] : [[n, Deno.env.get(n)!]]),
  );
}

/** Runs `deno task triangle`'s command line; returns its output and the decoded PNG. */
async function runTriangle(loader: string, dir: string, vars: Record<string, string> = {}) {
  const path = `${dir}/${loader}.png`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-env",
      "--allow-ffi",
      "--allow-write",
      "examples/triangle.ts",
      `--loader=${loader}`,
      `--out=${path}`,
      `--size=${SIZE}`,
    ],
    cwd: root,
    // Only what Deno itself needs is kept: no Vulkan variable of the caller reaches either loader.
    env: { ...pick("HOME", "PATH", "DENO_DIR"), VK_DRIVER_FILES: LAVAPIPE, ...vars },
    clearEnv: true,
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  assertEquals(out.code, 0, text);
  return { text, image: decodePng(await Deno.readFile(path)) };
}

/** The colour the shaders give pixel (x, y): barycentric mix of the corners, or undefined outside. */
function expectedColour(x: number, y: number): number[] | undefined {
  // Corners of examples/shaders/triangle.vert in clip space (y down): red top, green right, blue left.
  const [ax, ay, bx, by, cx, cy] = [0, -0.75, 0.75, 0.75, -0.75, 0.75];
  const px = ((x + 0.5) / SIZE) * 2 - 1, py = ((y + 0.5) / SIZE) * 2 - 1;
  const area = (bx - ax) * (cy - ay) - (cx - ax) * (by - ay);
  const red = ((bx - px) * (cy - py) - (cx - px) * (by - py)) / area;
  const green = ((cx - px) * (ay - py) - (ax - px) * (cy - py)) / area;
  const blue = 1 - red - green;
  if (red < 0 || green < 0 || blue < 0) return undefined;
  return [red * 255, green * 255, blue * 255, 255];
}

Deno.test("triangle PNG has the same pixels through vkdeno and libvulkan on lavapipe", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vkdeno_triangle_" });
  try {
    const ours = await runTriangle("vkdeno", dir);
    const theirs = await runTriangle("libvulkan", dir);
    assert(/Device: llvmpipe/.test(ours.text), ours.text);
    assertEquals([ours.image.width, ours.image.height], [SIZE, SIZE]);
    assertEquals([theirs.image.width, theirs.image.height], [SIZE, SIZE]);
    let differing = 0;
    for (let i = 0; i < SIZE * SIZE * 4; i += 4) {
      if (ours.image.rgba.subarray(i, i + 4).some((v, c) => v !== theirs.image.rgba[i + c])) differing++;
    }
    assertEquals(differing, 0, `${differing} of ${SIZE * SIZE} pixels differ`);

    // The triangle is there: the corners keep the clear colour, points inside carry the interpolated
    // corner colours (lavapipe rounds; 2 of 255 is the slack).
    const pixel = (
      x: number,
      y: number,
    ) => [...ours.image.rgba.subarray((y * SIZE + x) * 4, (y * SIZE + x) * 4 + 4)];
    for (const [x, y] of [[0, 0], [SIZE - 1, 0], [0, SIZE - 1], [SIZE - 1, SIZE - 1]] as const) {
      assertEquals(expectedColour(x, y), undefined);
      assertEquals(pixel(x, y), [51, 51, 51, 255], `corner ${x},${y}`);
    }
    for (const [x, y] of [[128, 128], [128, 40], [190, 185], [66, 185], [100, 150]] as const) {
      const want = expectedColour(x, y)!;
      const got = pixel(x, y);
      assert(got.every((v, c) => Math.abs(v - want[c]!) <= 2), `pixel ${x},${y}: ${got} vs ${want}`);
    }
    // Counting covered pixels catches a clipped or half-drawn triangle the point checks would miss.
    let covered = 0;
    for (let i = 0; i < SIZE * SIZE * 4; i += 4) {
      if (ours.image.rgba[i] !== 51 || ours.image.rgba[i + 2] !== 51) covered++;
    }
    const area = 0.5 * (1.5 * SIZE / 2) * (1.5 * SIZE / 2);
    assert(Math.abs(covered - area) < SIZE * 2, `${covered} covered pixels, about ${area} expected`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("triangle runs clean under the Khronos validation layer", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vkdeno_triangle_" });
  try {
    const vars = { VK_INSTANCE_LAYERS: "VK_LAYER_KHRONOS_validation", VK_LOADER_DEBUG: "layer" };
    const run = await runTriangle("vkdeno", dir, vars);
    // The loader's log proves the layer was in the chain; the layer prints what it finds on stdout.
    assert(/Insert instance layer "VK_LAYER_KHRONOS_validation"/.test(run.text), run.text);
    assert(!/Validation (Error|Warning)/.test(run.text), run.text);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("triangle runs in checked mode: the handles inside its structs check clean, the pixels are the same", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vkdeno_triangle_" });
  try {
    const plain = await runTriangle("vkdeno", dir);
    // Pipelines, render pass, framebuffer, barriers, submits: checked mode reads each struct's handles.
    const checked = await runTriangle("vkdeno", dir, { VKDENO_CHECKED: "1" });
    assertEquals(checked.image.rgba, plain.image.rgba);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("embedded triangle shaders equal their GLSL compiled by glslangValidator -V", async () => {
  const embedded = await import("../../examples/shaders/triangle_spv.ts") as Record<string, Uint32Array>;
  for (const { constName, sourceName } of SHADER_MODULES["triangle_spv.ts"]!) {
    const words = await compileGlsl(`${root}examples/shaders/${sourceName}`);
    assertEquals([...words], [...embedded[constName]!], sourceName);
  }
});
