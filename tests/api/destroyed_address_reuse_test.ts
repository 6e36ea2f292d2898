// VkApi's destroy checks and a driver handing a new object the address of a destroyed one (lavapipe reuses
// buffer addresses at once; docs/behaviour.md V11): a handle a create command returned is live, whichever
// object or command made it, while the handle destroyed before is still refused, and a scope never destroys
// an object it did not make.
import { deepEqual as assertEquals, ok as assert, throws as assertThrows } from "node:assert/strict";
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
import { openLibvulkan } from "../support/libvulkan.ts";

const LAVAPIPE = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";
const noLavapipe = (() => {
  try {
    return !Deno.statSync(LAVAPIPE).isFile;
  } catch {
    return true;
  }
})();

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

/** Runs `body` with a device on lavapipe through vkdeno (plain and checked) and through libvulkan. */
function onEachLoader(body: (raw: VkCommandSource, device: VkDevice, loader: string) => void): void {
  const run = (raw: VkCommandSource, loader: string) => {
    const vk = VkApi.of(raw);
    const instance = vk.createInstance({});
    const [gpu] = vk.enumeratePhysicalDevices(instance);
    const device = vk.createDevice(gpu!, {
      pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
    });
    try {
      body(raw, device, loader);
    } finally {
      vk.destroyDevice(device);
      vk.destroyInstance(instance);
    }
  };
  for (const checked of ["0", "1"]) {
    using raw = Vulkan.load({
      env: { vars: { VK_DRIVER_FILES: LAVAPIPE, VKDENO_CHECKED: checked }, elevated: false },
    });
    run(raw, checked === "1" ? "vkdeno (VKDENO_CHECKED=1)" : "vkdeno");
  }
  const old = Deno.env.get("VK_DRIVER_FILES");
  Deno.env.set("VK_DRIVER_FILES", LAVAPIPE);
  try {
    using raw = openLibvulkan();
    run(raw, "libvulkan");
  } finally {
    if (old === undefined) Deno.env.delete("VK_DRIVER_FILES");
    else Deno.env.set("VK_DRIVER_FILES", old);
  }
}

/**
 * Destroys buffers through `vk` and makes new ones with `make` until one lands at a destroyed address;
 * returns that new one and the destroyed handle that had its address.
 */
function reuse(vk: VkApi, device: VkDevice, make: () => VkBuffer): { fresh: VkBuffer; old: VkBuffer } {
  const destroyed = new Map<bigint, VkBuffer>();
  for (let i = 0; i < 256; i++) {
    const b = make();
    const old = destroyed.get(address(b));
    if (old !== undefined) return { fresh: b, old };
    vk.destroyBuffer(device, b);
    destroyed.set(address(b), b);
  }
  throw new Error("the driver gave no destroyed buffer's address to a new buffer in 256 tries");
}

Deno.test({
  name: "a buffer made at a destroyed buffer's address is live to VkApi, whichever object or command made it",
  ignore: noLavapipe,
  fn: () =>
    onEachLoader((raw, device, loader) => {
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
        const { fresh } = reuse(vk, device, make);
        const what = `${loader}, made through ${by}`;
        assertEquals(vk.getBufferMemoryRequirements(device, fresh).size >= 256n, true, what);
        vk.destroyBuffer(device, fresh); // threw "was destroyed already (through VkApi)" before
        assertThrows(() => vk.destroyBuffer(device, fresh), /vkDestroyBuffer: buffer .*destroyed/, what);
      }
    }),
});

Deno.test({
  name: "the destroyed handle is still refused once its address holds a new buffer, which lives on",
  ignore: noLavapipe,
  fn: () =>
    onEachLoader((raw, device, loader) => {
      const { source, destroys } = spied(raw);
      const vk = VkApi.of(source);
      const { fresh, old } = reuse(vk, device, () => vk.createBuffer(device, INFO));
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
  ignore: noLavapipe,
  fn: () =>
    onEachLoader((raw, device, loader) => {
      const { source, destroys } = spied(raw);
      const vk = VkApi.of(source);
      let fresh: VkBuffer | undefined;
      {
        using scope = vk.scope();
        const mine = scope.createBuffer(device, INFO);
        const k = address(mine);
        vk.destroyBuffer(device, mine); // early, through the VkApi the scope shares its state with
        // Buffers elsewhere stay alive meanwhile, so the allocator moves on to the freed address.
        const elsewhere: VkBuffer[] = [];
        for (let i = 0; i < 256 && fresh === undefined; i++) {
          const b = vk.createBuffer(device, INFO);
          if (address(b) === k) fresh = b;
          else elsewhere.push(b);
        }
        for (const b of elsewhere) vk.destroyBuffer(device, b);
        assert(fresh !== undefined, `${loader}: no buffer landed at the destroyed one's address`);
      }
      const k = address(fresh);
      assertEquals(destroys.get(k), 1, `${loader}: the scope destroyed a buffer it did not make`);
      vk.destroyBuffer(device, fresh);
      assertEquals(destroys.get(k), 2, loader);
    }),
});
