/**
 * A mock's manifest is a driver to the Khronos loader too: libvulkan.so.1, loaded in the same process, opens
 * the kit's emitted library and drives the mock through it (in a child process, whose environment names the
 * manifest).
 */
import { deepStrictEqual as assertEquals } from "node:assert/strict";

const root = new URL("../../", import.meta.url);
const hasLibvulkan = ["/usr/lib/x86_64-linux-gnu/libvulkan.so.1", "/usr/lib/aarch64-linux-gnu/libvulkan.so.1"]
  .some((p) => {
    try {
      return Deno.statSync(p).isFile;
    } catch {
      return false;
    }
  });

const CHILD = `
import { allocStruct, enumerate, readStruct, VkScope, writeStruct } from "${new URL("mod.ts", root).href}";
import { MockDriver } from "${new URL("testing/mod.ts", root).href}";
import { openLibvulkan } from "${new URL("tests/support/libvulkan.ts", root).href}";
using mock = new MockDriver({ name: "kit-mock", devices: [{ name: "Seen by libvulkan" }], record: true });
using manifest = mock.writeManifest();
Deno.env.set("VK_DRIVER_FILES", manifest.manifestPath);
using vk = openLibvulkan();
const names = [];
{
  using scope = new VkScope(vk);
  const instance = scope.create("vkCreateInstance", [writeStruct(scope.arena, "VkInstanceCreateInfo", {}), null]);
  for (const gpu of enumerate(vk.vkEnumeratePhysicalDevices, [instance])) {
    const p = allocStruct(scope.arena, "VkPhysicalDeviceProperties");
    vk.vkGetPhysicalDeviceProperties(gpu, p);
    names.push(readStruct("VkPhysicalDeviceProperties", p).deviceName);
  }
}
console.log(JSON.stringify({ names, created: mock.callCount("vkCreateInstance"), problems: mock.problems }));
`;

Deno.test({
  name: "libvulkan.so.1 loads a mock through the manifest the kit wrote",
  ignore: !hasLibvulkan,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "vkdeno_kit_libvulkan_" });
    try {
      await Deno.writeTextFile(`${dir}/child.ts`, CHILD);
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--allow-all", "--no-lock", `${dir}/child.ts`],
        env: { NODEVICE_SELECT: "1", VK_LOADER_LAYERS_DISABLE: "~implicit~" },
      }).output();
      const text = new TextDecoder().decode(out.stdout);
      assertEquals(out.code, 0, text + new TextDecoder().decode(out.stderr));
      assertEquals(JSON.parse(text.trim().split("\n").at(-1)!), {
        names: ["Seen by libvulkan"],
        created: 1,
        problems: [],
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
