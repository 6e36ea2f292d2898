import assert from "node:assert/strict";
import { presentFrames, type PresentReport } from "../../examples/present.ts";
import { Logger, Vulkan, type VulkanCommands } from "../../mod.ts";
import { type RgbaImage, XcbWindow, XlibWindow } from "../../window/x11.ts";
import { startXvfb } from "../../window/xvfb.ts";
import { countColour, decodePng } from "../support/wsi.ts";
import { LAVAPIPE } from "../support/lavapipe.ts";

const SIZE = { width: 96, height: 64 };

/** vkdeno over an explicit environment: lavapipe only, plus `vars`; `log` receives the loader's lines. */
function onVkdeno<T>(vars: Record<string, string>, fn: (vk: VulkanCommands) => T, log?: string[]): T {
  const env = { vars: { VK_DRIVER_FILES: LAVAPIPE, ...vars }, elevated: false };
  const logger = new Logger(env, { write: (line) => log?.push(line) });
  using vk = Vulkan.load({ env, logger });
  return fn(vk as unknown as VulkanCommands);
}

/** Opens a window on a fresh Xvfb, presents `colour` through `run`, and reads the window back. */
async function present(
  kind: "xlib" | "xcb",
  colour: number,
  run: (fn: (vk: VulkanCommands) => PresentReport) => PresentReport,
): Promise<{ report: PresentReport; before: RgbaImage; after: RgbaImage }> {
  await using x = await startXvfb();
  const open = { display: x.display, ...SIZE, background: 0x000000 };
  using win = kind === "xlib" ? XlibWindow.open(open) : XcbWindow.open(open);
  const before = win.readPixels();
  let after: RgbaImage | undefined;
  const report = run((vk) =>
    presentFrames(vk, win, { frames: 4, colour, afterPresent: () => after = win.readPixels() })
  );
  assert.ok(after);
  return { report, before, after };
}

function check(result: Awaited<ReturnType<typeof present>>, colour: number): void {
  const { report, before, after } = result;
  assert.equal(countColour(before.rgba, colour), 0, "the window starts black");
  assert.equal(report.presented, 4);
  assert.match(report.deviceName, /llvmpipe/);
  assert.deepEqual([report.width, report.height], [SIZE.width, SIZE.height]);
  assert.equal(
    countColour(after.rgba, colour, 1),
    SIZE.width * SIZE.height,
    "every pixel has the clear colour",
  );
}

for (const kind of ["xlib", "xcb"] as const) {
  // libvulkan reads its variables from the process, so it runs in a child with its own environment:
  // examples/present.ts itself, which reads the window back through window/x11.ts and writes a PNG.
  Deno.test(`libvulkan + lavapipe presents the clear colour to an ${kind} window under Xvfb (examples/present.ts)`, async () => {
    const colour = kind === "xlib" ? 0x3366cc : 0xff8000;
    await using x = await startXvfb();
    const dir = await Deno.makeTempDir({ prefix: "vkdeno-present-" });
    try {
      const png = `${dir}/shot.png`;
      const args = ["run", "--allow-all", "examples/present.ts", "--loader=libvulkan", "--frames", "4"];
      args.push("--colour", colour.toString(16), "--screenshot", png, ...(kind === "xcb" ? ["--xcb"] : []));
      const run = await new Deno.Command(Deno.execPath(), {
        args,
        cwd: new URL("../..", import.meta.url).pathname,
        env: { DISPLAY: x.display, VK_DRIVER_FILES: LAVAPIPE },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const out = new TextDecoder().decode(run.stdout);
      assert.equal(run.code, 0, out + new TextDecoder().decode(run.stderr));
      assert.match(out, new RegExp(`libvulkan, ${kind}: 4 frames on "llvmpipe`));
      const image = decodePng(await Deno.readFile(png));
      assert.deepEqual([image.width, image.height], [320, 240]);
      assert.equal(countColour(image.rgba, colour, 1), 320 * 240);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });

  Deno.test(`vkdeno + lavapipe presents the clear colour to an ${kind} window under Xvfb`, async () => {
    const colour = kind === "xlib" ? 0x22aa44 : 0xcc3399;
    check(await present(kind, colour, (fn) => onVkdeno({}, fn)), colour);
  });
}

Deno.test("vkdeno + lavapipe presents to an xlib window through the Khronos validation layer", async () => {
  const colour = 0x8040c0;
  const messages: string[] = [];
  const result = await present(
    "xlib",
    colour,
    (fn) =>
      onVkdeno({ VK_INSTANCE_LAYERS: "VK_LAYER_KHRONOS_validation" }, (vk) => {
        return fn(vk);
      }),
  );
  check(result, colour);
  assert.deepEqual(messages, []);
});
