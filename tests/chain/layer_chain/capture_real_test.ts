/**
 * Real capture layers from Debian over lavapipe (docs/behaviour.md A19):
 *
 * - gfxreconstruct (package `gfxreconstruct`): the compute example captured under vkdeno and under
 *   libvulkan (`VK_INSTANCE_LAYERS=VK_LAYER_LUNARG_gfxreconstruct`, `GFXRECON_CAPTURE_FILE`), both captures
 *   converted with `gfxrecon-convert` to JSON lines: the recorded call names are equal, call for call. The
 *   loader's own calls never pass through layers, so the capture holds exactly the application's.
 * - RenderDoc's capture layer (package `renderdoc`): implicit, with `pre_instance_functions`, enabled by
 *   `ENABLE_VULKAN_RENDERDOC_CAPTURE=1`: the compute example runs through it and the layer is in the chain.
 *
 * Each runs in a child process with only the variables it needs; the host's other implicit layers are
 * disabled by name. Without the package the test is skipped, and its name says which package is missing.
 */

import { deepStrictEqual as assertEquals, match as assertMatch, ok as assert } from "node:assert/strict";
import { hostImplicitLayers } from "../../support/conform.ts";
import { LAVAPIPE } from "../../support/lavapipe.ts";

const ROOT = new URL("../../..", import.meta.url).pathname.replace(/\/$/, "");
const GFXR_MANIFEST = "/usr/share/vulkan/explicit_layer.d/VkLayer_gfxreconstruct.json";
const GFXR_CONVERT = "/usr/bin/gfxrecon-convert";
const RENDERDOC_MANIFEST = "/usr/share/vulkan/implicit_layer.d/renderdoc_capture.json";
const RENDERDOC_LAYER = "VK_LAYER_RENDERDOC_Capture";

function has(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Why a test cannot run here, or "" when it can. */
function missing(parts: [string, string][]): string {
  const absent = parts.filter(([path]) => !has(path)).map(([, why]) => why);
  return absent.length === 0 ? "" : ` (skipped: ${absent.join("; ")})`;
}

const lavapipe: [string, string] = [LAVAPIPE, "package mesa-vulkan-drivers (lavapipe) is not installed"];
const gfxrMissing = missing([
  lavapipe,
  [GFXR_MANIFEST, "package gfxreconstruct is not installed"],
  [GFXR_CONVERT, "package gfxreconstruct is not installed (no gfxrecon-convert)"],
]);
const renderdocMissing = missing([lavapipe, [RENDERDOC_MANIFEST, "package renderdoc is not installed"]]);

/**
 * Runs the compute example under `loader` with exactly `vars` (plus PATH, HOME and Deno's cache): it must
 * print a correct result, and under vkdeno also exit 0. The libvulkan reference run is only asked for its
 * result and its log (once, in a loaded full suite, libvulkan with RenderDoc's layer exited non-zero after a
 * correct result; the exit status is in the log line then).
 */
async function compute(loader: "vkdeno" | "libvulkan", vars: Record<string, string>) {
  const denoDir = Deno.env.get("DENO_DIR");
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}/examples/compute.ts`, `--loader=${loader}`],
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: Deno.env.get("HOME") ?? "/root",
      ...(denoDir === undefined ? {} : { DENO_DIR: denoDir }),
      VK_DRIVER_FILES: LAVAPIPE,
      ...vars,
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  const status = `exit code ${out.code}${out.signal ? `, signal ${out.signal}` : ""}`;
  assert(
    out.success || loader === "libvulkan",
    `compute example under ${loader} failed (${status}):\n${text}`,
  );
  assertMatch(
    text,
    /Result: +all \d+ values correct/,
    `compute example under ${loader} (${status}):\n${text}`,
  );
  if (!out.success) console.log(`reference run under libvulkan ended with ${status} after a correct result`);
  return text;
}

/** The Vulkan call names a capture recorded, in order. */
async function capturedCalls(capture: string): Promise<string[]> {
  const jsonl = capture.replace(/\.gfxr$/, ".jsonl");
  const out = await new Deno.Command(GFXR_CONVERT, { args: ["--output", jsonl, capture], stderr: "piped" })
    .output();
  assert(out.success, `gfxrecon-convert failed: ${new TextDecoder().decode(out.stderr)}`);
  const names: string[] = [];
  for (const line of Deno.readTextFileSync(jsonl).split("\n")) {
    if (line.trim() === "") continue;
    const record = JSON.parse(line) as { vkFunc?: { name?: string } };
    if (record.vkFunc?.name) names.push(record.vkFunc.name);
  }
  return names;
}

Deno.test({
  name:
    `gfxreconstruct: the compute example's capture under vkdeno records the same calls as under libvulkan${gfxrMissing}`,
  ignore: gfxrMissing !== "",
  async fn() {
    const dir = Deno.makeTempDirSync({ prefix: "vkdeno_gfxr_" });
    try {
      const calls: Record<string, string[]> = {};
      for (const loader of ["vkdeno", "libvulkan"] as const) {
        const capture = `${dir}/${loader}.gfxr`;
        await compute(loader, {
          VK_INSTANCE_LAYERS: "VK_LAYER_LUNARG_gfxreconstruct",
          VK_LOADER_LAYERS_DISABLE: "~implicit~",
          GFXRECON_CAPTURE_FILE: capture,
          GFXRECON_CAPTURE_FILE_TIMESTAMP: "false",
        });
        calls[loader] = await capturedCalls(capture);
      }
      const ours = calls["vkdeno"]!;
      assert(ours.length > 20, `only ${ours.length} calls captured: ${ours.join(", ")}`);
      assertEquals(ours.slice(0, 3), [
        "vkCreateInstance",
        "vkEnumeratePhysicalDevices",
        "vkEnumeratePhysicalDevices",
      ]);
      assert(ours.includes("vkQueueSubmit") && ours.includes("vkCmdDispatch"), ours.join(", "));
      assertEquals(ours, calls["libvulkan"]);
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    `RenderDoc: the compute example runs through the implicit capture layer, enabled by ENABLE_VULKAN_RENDERDOC_CAPTURE=1${renderdocMissing}`,
  ignore: renderdocMissing !== "",
  async fn() {
    const manifest = JSON.parse(Deno.readTextFileSync(RENDERDOC_MANIFEST));
    // what makes this layer worth testing: implicit, an enable variable, pre-instance functions
    assertEquals(manifest.layer.name, RENDERDOC_LAYER);
    assert(Object.keys(manifest.layer.pre_instance_functions ?? {}).length > 0, "no pre_instance_functions");
    const others = hostImplicitLayers().filter((n) => n !== RENDERDOC_LAYER).join(",");
    const vars = { VK_LOADER_DEBUG: "layer", ...(others ? { VK_LOADER_LAYERS_DISABLE: others } : {}) };
    const inserted = new RegExp(`Insert instance layer "${RENDERDOC_LAYER}"`);
    const on = await compute("vkdeno", { ...vars, ENABLE_VULKAN_RENDERDOC_CAPTURE: "1" });
    assertMatch(on, inserted);
    // without the variable it stays out, and the Khronos loader agrees on both
    const off = await compute("vkdeno", vars);
    assert(!inserted.test(off), "the layer was inserted without ENABLE_VULKAN_RENDERDOC_CAPTURE");
    assertMatch(await compute("libvulkan", { ...vars, ENABLE_VULKAN_RENDERDOC_CAPTURE: "1" }), inserted);
    assert(!inserted.test(await compute("libvulkan", vars)));
  },
});
