/**
 * On Windows (CI runs them under Wine): the live registry read through advapi32 after `reg.exe` wrote it,
 * layer discovery from it, DLLs through `LoadLibraryW`, and the testing kit's mock driver through the
 * dispatch fallback. Elsewhere they are ignored.
 */
import { deepStrictEqual as assertEquals, ok as assert, throws as assertThrows } from "node:assert/strict";
import { HOST } from "../../ffi/host.ts";
import { REG_DWORD, REG_SZ, windowsRegistry } from "../../ffi/registry.ts";
import { Library } from "../../ffi/library.ts";
import { discoverLayers } from "../../discovery/layers.ts";
import { snapshotProcessEnvironment } from "../../discovery/environment.ts";
import { enumerate, VkScope, Vulkan, writeStruct } from "../../mod.ts";
import { MockDriver, mockEnvironment } from "../../testing/mod.ts";

const ignore = HOST.os !== "windows";

async function reg(...args: string[]): Promise<void> {
  const out = await new Deno.Command("reg", { args, stdout: "null", stderr: "piped" }).output();
  if (!out.success) throw new Error(`reg ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
}

Deno.test(
  { name: "advapi32 reads back the values reg.exe wrote, in order, with their types", ignore },
  async () => {
    const key = `SOFTWARE\\vkdeno-test-${Deno.pid}`;
    await reg("add", `HKCU\\${key}`, "/v", "C:\\a.json", "/t", "REG_DWORD", "/d", "0", "/f");
    await reg("add", `HKCU\\${key}`, "/v", "C:\\b.json", "/t", "REG_DWORD", "/d", "1", "/f");
    await reg("add", `HKCU\\${key}`, "/v", "text", "/t", "REG_SZ", "/d", "x", "/f");
    try {
      const values = windowsRegistry()!.values("HKEY_CURRENT_USER", key)!;
      assertEquals(values.map((v) => [v.name, v.type, [...v.data]]), [
        ["C:\\a.json", REG_DWORD, [0, 0, 0, 0]],
        ["C:\\b.json", REG_DWORD, [1, 0, 0, 0]],
        ["text", REG_SZ, [0x78, 0, 0, 0]],
      ]);
      assertEquals(windowsRegistry()!.values("HKEY_CURRENT_USER", `${key}\\missing`), undefined);
    } finally {
      await reg("delete", `HKCU\\${key}`, "/f");
    }
  },
);

Deno.test({
  name: "an implicit layer listed under HKCU's ImplicitLayers is discovered from the live registry",
  ignore,
}, async () => {
  const dir = Deno.makeTempDirSync({ prefix: "vkdeno_win_" });
  const manifest = `${dir}\\layer.json`;
  const name = `VK_LAYER_vkdeno_win_${Deno.pid}`;
  Deno.writeTextFileSync(
    manifest,
    JSON.stringify({
      file_format_version: "1.2.0",
      layer: {
        name,
        type: "GLOBAL",
        library_path: "layer.dll",
        api_version: "1.3.0",
        implementation_version: "1",
        description: "registry test",
        disable_environment: { DISABLE_VKDENO_WIN: "1" },
      },
    }),
  );
  const key = "HKCU\\SOFTWARE\\Khronos\\Vulkan\\ImplicitLayers";
  await reg("add", key, "/v", manifest, "/t", "REG_DWORD", "/d", "0", "/f");
  try {
    const env = snapshotProcessEnvironment();
    assertEquals(env.os, "windows");
    const found = discoverLayers(env);
    const layer = found.layers.find((l) => l.name === name);
    assert(layer !== undefined, `${name} not among ${found.layers.map((l) => l.name)}`);
    assertEquals(layer.manifestPath, manifest);
    assertEquals(layer.libraryPath, "layer.dll");
  } finally {
    await reg("delete", key, "/v", manifest, "/f");
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test(
  { name: "Library opens DLLs with LoadLibraryW and finds exports with GetProcAddress", ignore },
  () => {
    using kernel32 = Library.open("kernel32.dll");
    assert(kernel32.symbolAddress("GetLastError") !== null);
    assertEquals(kernel32.symbolAddress("no_such_export"), null);
    assertThrows(
      () => Library.open("vkdeno_missing.dll"),
      /Cannot load library "vkdeno_missing.dll": LoadLibraryW failed, error 126/,
    );
  },
);

Deno.test({
  name: "the mock driver answers through the dispatch fallback: an instance and its two devices",
  ignore,
}, () => {
  using mock = new MockDriver({ devices: [{ name: "Windows GPU" }, { name: "Second", type: "cpu" }] });
  using isolated = mockEnvironment();
  using vk = Vulkan.load({ drivers: [mock], env: isolated.env });
  assertEquals(vk.native, false);
  using scope = new VkScope(vk);
  const instance = scope.create("vkCreateInstance", [
    writeStruct(scope.arena, "VkInstanceCreateInfo", {}),
    null,
  ]);
  const gpus = enumerate(vk.vkEnumeratePhysicalDevices, [instance]);
  assertEquals(gpus.length, 2);
});
