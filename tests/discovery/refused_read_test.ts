/**
 * A search path Deno refuses to read (a script run without `--allow-read`) is reported on stderr whatever
 * `VK_LOADER_DEBUG` says, once per process, naming the path and the flag to grant (docs/behaviour.md V23);
 * without it, a missing flag looked like a system without drivers (`VK_ERROR_INCOMPATIBLE_DRIVER` alone).
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { MockEnvironment } from "../support/mock.ts";
import { DENO_DIR } from "../support/deno_dir.ts";

const MOD = new URL("../../mod.ts", import.meta.url).href;

/** A user's script: two instances in one process, each printing its device count or the error. */
const SCRIPT = `import { VkApi, Vulkan } from ${JSON.stringify(MOD)};
using raw = Vulkan.load();
const vk = VkApi.of(raw);
for (let i = 0; i < 2; i++) {
  try {
    const instance = vk.createInstance({});
    console.log(vk.enumeratePhysicalDevices(instance).length);
    vk.destroyInstance(instance);
  } catch (error) {
    console.log(String(error));
  }
}
`;

/** A tree with one mock driver in `$XDG_DATA_DIRS/vulkan/icd.d` and an empty `VK_LAYER_PATH` folder. */
async function tree(): Promise<
  { env: MockEnvironment; icd: string; layers: string; vars: Record<string, string> } & AsyncDisposable
> {
  const env = await MockEnvironment.create();
  const driver = await env.addDriver({}, { placement: "xdg_data_dirs" });
  const icd = driver.manifestPath.slice(0, driver.manifestPath.lastIndexOf("/"));
  const layers = env.path("layers");
  Deno.mkdirSync(layers);
  Deno.mkdirSync(env.path("config"));
  Deno.writeTextFileSync(env.path("script.ts"), SCRIPT);
  const vars = {
    ...env.snapshot().vars,
    XDG_CONFIG_DIRS: env.path("config"),
    VK_LAYER_PATH: layers,
    VKDENO_CACHE: "0",
  };
  return { env, icd, layers, vars, [Symbol.asyncDispose]: () => env[Symbol.asyncDispose]() };
}

/** Runs the script with `permissions` and exactly `vars` (nothing inherited but PATH and DENO_DIR). */
async function run(
  t: { env: MockEnvironment; vars: Record<string, string> },
  permissions: string[],
): Promise<{ stdout: string[]; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...permissions, t.env.path("script.ts")],
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", DENO_DIR, NO_COLOR: "1", ...t.vars },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert(out.success, stderr);
  return { stdout: new TextDecoder().decode(out.stdout).trim().split("\n"), stderr };
}

const lines = (stderr: string, kind: string) =>
  stderr.split("\n").filter((l) => l.includes(`Cannot read the ${kind} search paths`));

Deno.test("without --allow-read, stderr names each refused search folder and the flag, once per process, with VK_LOADER_DEBUG unset", async () => {
  await using t = await tree();
  const { stdout, stderr } = await run(t, ["--allow-ffi", "--allow-env"]);
  assertEquals(stdout.length, 2);
  for (const line of stdout) assert(line.includes("VK_ERROR_INCOMPATIBLE_DRIVER"), line);
  const [driver, ...again] = lines(stderr, "driver");
  assertEquals(again, [], stderr);
  assert(driver!.startsWith("WARNING:"), driver);
  assert(driver!.includes(`"${t.icd}"`) && driver!.includes("--allow-read"), driver);
  assert(driver!.includes(`--allow-read=`) && driver!.includes(t.icd), driver);
  const [layer, ...layerAgain] = lines(stderr, "layer");
  assertEquals(layerAgain, [], stderr);
  assert(layer!.includes(`"${t.layers}"`) && layer!.includes("--allow-read"), layer);
});

Deno.test("a manifest file named in VK_DRIVER_FILES that Deno refuses to read is named the same way", async () => {
  await using t = await tree();
  const manifest = t.env.drivers[0]!.manifestPath;
  const { stdout, stderr } = await run(
    { env: t.env, vars: { ...t.vars, VK_DRIVER_FILES: manifest } },
    ["--allow-ffi", "--allow-env"],
  );
  assert(stdout[0]!.includes("VK_ERROR_INCOMPATIBLE_DRIVER"), stdout[0]);
  const [driver] = lines(stderr, "driver");
  assert(driver?.includes(`"${manifest}"`) && driver.includes(`--allow-read=${manifest}`), stderr);
});

Deno.test("read access to a driver folder finds its driver and leaves only the refused layer folder reported", async () => {
  await using t = await tree();
  const { stdout, stderr } = await run(t, ["--allow-ffi", "--allow-env", `--allow-read=${t.icd}`]);
  assertEquals(stdout, ["1", "1"]);
  assert(!lines(stderr, "driver").some((l) => l.includes(t.icd)), stderr);
  assertEquals(lines(stderr, "layer").length, 1, stderr);
});

Deno.test("with --allow-read nothing is reported", async () => {
  await using t = await tree();
  const { stdout, stderr } = await run(t, ["--allow-ffi", "--allow-env", "--allow-read"]);
  assertEquals(stdout, ["1", "1"]);
  assertEquals(stderr.split("\n").filter((l) => l.includes("Cannot read")), [], stderr);
});
