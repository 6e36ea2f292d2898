// VkApi's destroy checks and a driver handing a new object the address of a destroyed one (drivers that
// allocate with malloc do; docs/behaviour.md V11): a handle a create command returned is live, whichever
// object or command made it, while the handle destroyed before is still refused, and a scope never destroys
// an object it did not make. The driver is the testing kit's mock with `reuseHandles`, which gives every new
// buffer the most recently destroyed one's address, so each case happens on every run.
import { deepEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import {
  Arena,
  create,
  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
  VkApi,
  type VkBuffer,
  type VkCommandSource,
  type VkDevice,
  Vulkan,
  writeStruct,
} from "../../mod.ts";
import { MockDriver } from "../../testing/mod.ts";
import { openLibvulkan } from "../support/libvulkan.ts";
import { inLibvulkanHalf, runLibvulkanHalf } from "../support/libvulkan_half.ts";
import { withVkDevice } from "../support/vk_device.ts";

const INFO = { size: 256n, usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT };

function address(h: unknown): bigint {
  return BigInt(Deno.UnsafePointer.value(h as Deno.PointerValue));
}

/** Counts the destroy calls reaching the command source, by handle address. */
function spied(raw: VkCommandSource): { source: VkCommandSource; destroys: Map<bigint, number> } {
  const destroys = new Map<bigint, number>();
  const source = new Proxy(raw, {
    get(target, name) {
      const value = Reflect.get(target, name);
      if (name !== "vkDestroyBuffer" || typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const k = address(args[1]);
        destroys.set(k, (destroys.get(k) ?? 0) + 1);
        return value(...args);
      };
    },
  });
  return { source, destroys };
}

/**
 * Runs `body` with a device of an address-reusing mock driver, through vkdeno (plain and checked) and
 * through libvulkan (in a child process of test `t`, whose `VK_DRIVER_FILES` names the folder the child
 * writes its mock's manifest into; tests/support/libvulkan_half.ts).
 */
async function onEachLoader(
  t: Deno.TestContext,
  body: (raw: VkCommandSource, device: VkDevice, loader: string) => void,
): Promise<void> {
  const run = (raw: VkCommandSource, loader: string) =>
    withVkDevice(raw, (_vk, device) => body(raw, device, loader));
  if (inLibvulkanHalf) {
    using mock = new MockDriver({ reuseHandles: true });
    using _manifest = mock.writeManifest({ folder: Deno.env.get("VK_DRIVER_FILES")! });
    using raw = openLibvulkan();
    run(raw, "libvulkan");
    return;
  }
  {
    using mock = new MockDriver({ reuseHandles: true });
    using manifest = mock.writeManifest();
    const env = { vars: { VK_DRIVER_FILES: manifest.manifestPath }, elevated: false };
    for (const checked of [false, true]) {
      using raw = Vulkan.load({ env, checked });
      run(raw, checked ? "vkdeno (checked)" : "vkdeno");
    }
  }
  const folder = Deno.makeTempDirSync({ prefix: "vkdeno_reuse_" });
  try {
    await runLibvulkanHalf(t, { VK_DRIVER_FILES: folder });
  } finally {
    Deno.removeSync(folder, { recursive: true });
  }
}

/** Destroys `buffer` through `vk` and makes a new one with `make`, which the driver gives its address. */
function reuse(vk: VkApi, device: VkDevice, buffer: VkBuffer, make: () => VkBuffer): VkBuffer {
  vk.destroyBuffer(device, buffer);
  const fresh = make();
  assertEquals(address(fresh), address(buffer), "the mock gives a new buffer the destroyed one's address");
  return fresh;
}

Deno.test({
  name: "a buffer made at a destroyed buffer's address is live to VkApi, whichever object or command made it",
  fn: (t) =>
    onEachLoader(t, (raw, device, loader) => {
      const vk = VkApi.of(raw);
      const other = VkApi.of(raw); // a second VkApi over the same commands (another library's, say)
      using arena = new Arena();
      const makers: [string, () => VkBuffer][] = [
        ["the same VkApi", () => vk.createBuffer(device, INFO)],
        ["another VkApi", () => other.createBuffer(device, INFO)],
        [
          "the raw command",
          () =>
            create(raw, "vkCreateBuffer", [
              device,
              writeStruct(arena, "VkBufferCreateInfo", INFO),
              null,
            ]),
        ],
      ];
      for (const [by, make] of makers) {
        const fresh = reuse(vk, device, make(), make);
        const what = `${loader}, made through ${by}`;
        assertEquals(vk.getBufferMemoryRequirements(device, fresh).size >= 256n, true, what);
        vk.destroyBuffer(device, fresh); // threw "was destroyed already (through VkApi)" before
        assertThrows(() => vk.destroyBuffer(device, fresh), /vkDestroyBuffer: buffer .*destroyed/, what);
      }
    }),
});

Deno.test({
  name: "the destroyed handle is still refused once its address holds a new buffer, which lives on",
  fn: (t) =>
    onEachLoader(t, (raw, device, loader) => {
      const { source, destroys } = spied(raw);
      const vk = VkApi.of(source);
      const old = vk.createBuffer(device, INFO);
      const fresh = reuse(vk, device, old, () => vk.createBuffer(device, INFO));
      const k = address(fresh);
      assertThrows(() => vk.destroyBuffer(device, old), /vkDestroyBuffer: buffer .*destroyed/, loader);
      // Any VkApi knows it, not only the one that destroyed it.
      assertThrows(() => VkApi.of(source).destroyBuffer(device, old), /vkDestroyBuffer: buffer .*destroyed/);
      assertEquals(destroys.get(k), 1, `${loader}: the old handle's second destroy reached the driver`);
      vk.destroyBuffer(device, fresh);
      assertEquals(destroys.get(k), 2, loader);
    }),
});

Deno.test({
  name: "a scope skips at its end a buffer destroyed early and never destroys a new one at its address",
  fn: (t) =>
    onEachLoader(t, (raw, device, loader) => {
      const { source, destroys } = spied(raw);
      const vk = VkApi.of(source);
      let fresh: VkBuffer;
      {
        using scope = vk.scope();
        const mine = scope.createBuffer(device, INFO);
        // Destroyed early, through the VkApi the scope shares its state with; the next buffer takes its address.
        fresh = reuse(vk, device, mine, () => vk.createBuffer(device, INFO));
      }
      const k = address(fresh);
      assertEquals(destroys.get(k), 1, `${loader}: the scope destroyed a buffer it did not make`);
      vk.destroyBuffer(device, fresh);
      assertEquals(destroys.get(k), 2, loader);
    }),
});
