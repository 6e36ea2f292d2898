/**
 * The public command object binds each command on first use (vulkan.ts): nothing is defined per name at
 * import, a command read once becomes an own data property of the object (later reads are a plain property
 * load), names that are not Vulkan commands stay absent, and two loaders bind their own commands.
 */
import assert from "node:assert/strict";
import { Vulkan } from "../../vulkan.ts";
import { COMMAND_INDEX } from "../../vk/generated/commands.ts";

const env = { vars: {}, elevated: false };
type Loose = Record<string, unknown>;

Deno.test("a command is bound on first read and then kept as an own data property", () => {
  using vk = Vulkan.load({ env });
  assert.equal(Object.hasOwn(vk, "vkEnumerateInstanceVersion"), false);
  const version = new Uint32Array(1);
  assert.equal(vk.vkEnumerateInstanceVersion(Deno.UnsafePointer.of(version)), 0);
  assert.ok(version[0]! >>> 22 >= 1, `version ${version[0]}`);
  const own = Object.getOwnPropertyDescriptor(vk, "vkEnumerateInstanceVersion");
  assert.equal(typeof own?.value, "function");
  assert.equal(own?.get, undefined);
  assert.equal(own?.enumerable, false);
  assert.equal(vk.vkEnumerateInstanceVersion, own?.value);
});

Deno.test("every generated name is a command of the object, other names are not", () => {
  using vk = Vulkan.load({ env });
  for (const name of Object.keys(COMMAND_INDEX)) assert.ok(name in vk, name);
  assert.equal(typeof vk.vkCmdDraw, "function");
  assert.equal(typeof (vk as unknown as Loose).vkCmdDrawKHR, "undefined");
  assert.equal("vkNotACommand" in vk, false);
  assert.equal((vk as unknown as Loose).vkNotACommand, undefined);
  assert.throws(
    () => (vk as unknown as Record<string, () => void>).vkNotACommand!(),
    TypeError,
  );
  // Methods and Object.prototype members are found as before.
  assert.equal(typeof vk.deviceTable, "function");
  assert.equal(typeof vk.toString, "function");
  assert.equal(Object.hasOwn(vk, "vkNotACommand"), false);
  // Walking the prototype chain for descriptors (as layers/top.ts does) finds an accessor per command.
  const holder = Object.getPrototypeOf(Vulkan.prototype) as object;
  const d = Object.getOwnPropertyDescriptor(holder, "vkCmdDispatch");
  assert.equal(typeof d?.get, "function");
  assert.equal(d?.get?.call(vk), vk.vkCmdDispatch);
  assert.equal(Object.getOwnPropertyDescriptor(holder, "vkNotACommand"), undefined);
});

Deno.test("reading a command from the prototype binds nothing; each loader binds its own", () => {
  assert.equal((Vulkan.prototype as unknown as Loose).vkCreateInstance, undefined);
  using a = Vulkan.load({ env });
  using b = Vulkan.load({ env });
  assert.notEqual(a.vkCreateInstance, b.vkCreateInstance);
  assert.equal(Object.hasOwn(a, "vkCreateInstance"), true);
  assert.equal(Object.hasOwn(b, "vkDestroyInstance"), false);
});
