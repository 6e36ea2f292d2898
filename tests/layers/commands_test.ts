/**
 * A layer provides commands, in both placements (over the command object in the script, and as a `.vkdeno`
 * manifest in vkdeno's native chain), on a mock driver that has none of them: a made-up extension's
 * device and physical-device commands (examples/layers/thing_counter.ts, called by examples/new_command.ts)
 * and vk.xml's command the driver lacks; the layer's extensions are listed and can be enabled; a command
 * the layer does not provide stays NULL.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { doThings } from "../../examples/new_command.ts";
import thingCounter, {
  EXAMPLE_EXTENSION,
  vkExampleDoThingVKDENO,
  vkGetPhysicalDeviceThingLimitVKDENO,
} from "../../examples/layers/thing_counter.ts";
import {
  defineCommand,
  defineLayer,
  importLayerModules,
  installLayers,
  provide,
  type TsLayer,
  type ValidationMessage,
} from "../../layers/mod.ts";
import {
  type EnvironmentSnapshot,
  VK_ERROR_VALIDATION_FAILED_EXT,
  VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
  VK_SUCCESS,
  VkApi,
  Vulkan,
  type VulkanCommands,
} from "../../mod.ts";
import { MockDriver, mockEnvironment } from "../../testing/mod.ts";

type Placement = "script" | "native chain";
const PLACEMENTS: readonly Placement[] = ["script", "native chain"];
const EXAMPLE_LAYERS = fileURLToPath(new URL("../../examples/layers", import.meta.url));

/**
 * `layer` placed as `placement` over `mock` (its manifest written for the native chain), the command
 * object handed to `body`.
 */
async function withLayer(
  placement: Placement,
  layer: TsLayer,
  mock: MockDriver,
  body: (vk: Vulkan & VulkanCommands, messages: ValidationMessage[]) => void,
  manifest: Record<string, unknown> = {},
): Promise<void> {
  using isolated = mockEnvironment();
  const native = placement === "native chain";
  let env: EnvironmentSnapshot = isolated.env;
  let modules = [layer];
  if (native && layer === thingCounter) {
    // As an application does: the manifest found, its module imported.
    env = { ...env, vars: { ...env.vars, VK_ADD_LAYER_PATH: EXAMPLE_LAYERS } };
    const imported = await importLayerModules(env, { layers: [layer.name] });
    assert.deepEqual(imported.errors, []);
    modules = imported.layers;
  } else if (native) {
    const dir = `${isolated.root}/layers`;
    Deno.mkdirSync(dir);
    Deno.writeTextFileSync(
      `${dir}/layer.vkdeno`,
      JSON.stringify({
        file_format_version: "1.2.0",
        layer: {
          name: layer.name,
          type: "GLOBAL",
          library_path: "./layer.ts",
          api_version: "1.3.0",
          implementation_version: "1",
          description: layer.description,
          ...manifest,
        },
      }),
    );
    env = { ...env, vars: { ...env.vars, VK_ADD_LAYER_PATH: dir } };
  }
  const messages: ValidationMessage[] = [];
  const onMessage = (m: ValidationMessage) => void messages.push(m);
  using base = Vulkan.load({
    drivers: [mock],
    env,
    layerModules: modules,
    moduleLayerOptions: { onMessage },
  });
  using wrapped = native ? null : installLayers(base, { layers: [layer], onMessage });
  body(wrapped ?? base, messages);
}

/** An instance with `layer` and a device (with `extensions`) made through `vk`, which destroys them. */
function openDevice(vk: VkApi, layer: string, extensions: readonly string[] = []) {
  const instance = vk.createInstance({ ppEnabledLayerNames: [layer] });
  const gpu = vk.enumeratePhysicalDevices(instance)[0]!;
  const device = vk.createDevice(gpu, {
    pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
    ppEnabledExtensionNames: extensions,
  });
  return { instance, gpu, device };
}

for (const placement of PLACEMENTS) {
  Deno.test(`${placement}: the application calls a made-up extension's commands that a layer provides and no driver has`, async () => {
    using mock = new MockDriver({ record: true, unimplemented: "absent" });
    await withLayer(placement, thingCounter, mock, (vk, messages) => {
      assert.deepEqual(doThings(vk), {
        listed: true,
        limit: 1000,
        totals: [1, 3, 6],
        refused: VK_ERROR_VALIDATION_FAILED_EXT,
      });
      assert.deepEqual(messages, []);
    });
    // The driver saw neither the commands nor the extension.
    const commands = new Set(mock.calls.map((c) => c.command));
    assert.ok(commands.has("vkCreateDevice"));
    assert.ok(!commands.has(vkExampleDoThingVKDENO.name));
    const created = mock.calls.find((c) => c.command === "vkCreateDevice")!;
    assert.ok(!JSON.stringify(created.args).includes(EXAMPLE_EXTENSION));
  });

  Deno.test(`${placement}: the proc-addr queries return the layer's commands at their levels only, and NULL once nothing provides them`, async () => {
    using mock = new MockDriver({ unimplemented: "absent" });
    await withLayer(placement, thingCounter, mock, (raw) => {
      using vk = VkApi.of(raw).scope();
      const { instance, device } = openDevice(vk, thingCounter.name, [EXAMPLE_EXTENSION]);
      assert.notEqual(raw.vkGetInstanceProcAddr(instance, vkExampleDoThingVKDENO.name), null);
      assert.notEqual(raw.vkGetInstanceProcAddr(instance, vkGetPhysicalDeviceThingLimitVKDENO.name), null);
      assert.notEqual(raw.vkGetDeviceProcAddr(device, vkExampleDoThingVKDENO.name), null);
      // A physical-device command is no device command.
      assert.equal(raw.vkGetDeviceProcAddr(device, vkGetPhysicalDeviceThingLimitVKDENO.name), null);
      assert.equal(raw.vkGetDeviceProcAddr(device, "vkExampleUndeclaredVKDENO"), null);
      assert.equal(raw.vkGetInstanceProcAddr(null, vkExampleDoThingVKDENO.name), null);
    });
  });

  Deno.test(`${placement}: a layer provides vk.xml's command the driver lacks: its extension is listed and enabled, and a hook answers the call`, async () => {
    using mock = new MockDriver({ record: true, unimplemented: "absent" });
    const layer = defineLayer({
      name: "VK_LAYER_VKDENO_test_host_pointer",
      description: "provides VK_EXT_external_memory_host's query",
      deviceExtensions: [{
        name: "VK_EXT_external_memory_host",
        specVersion: 1,
        entrypoints: ["vkGetMemoryHostPointerPropertiesEXT"],
      }],
      create: () => ({
        intercepts: {
          vkGetMemoryHostPointerPropertiesEXT: {
            preCallRecord(ctx) {
              ctx.setOutput(3, { memoryTypeBits: 5 });
              ctx.skip(VK_SUCCESS);
            },
          },
        },
      }),
    });
    await withLayer(placement, layer, mock, (raw) => {
      using vk = VkApi.of(raw).scope();
      const instance = vk.createInstance({ ppEnabledLayerNames: [layer.name] });
      const gpu = vk.enumeratePhysicalDevices(instance)[0]!;
      assert.deepEqual(
        vk.enumerateDeviceExtensionProperties(gpu, layer.name).map((e) => e.extensionName),
        ["VK_EXT_external_memory_host"],
      );
      const device = vk.createDevice(gpu, {
        pQueueCreateInfos: [{ queueFamilyIndex: 0, pQueuePriorities: [1] }],
        ppEnabledExtensionNames: ["VK_EXT_external_memory_host"],
      });
      assert.notEqual(raw.vkGetDeviceProcAddr(device, "vkGetMemoryHostPointerPropertiesEXT"), null);
      const props = vk.getMemoryHostPointerPropertiesEXT(
        device,
        VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
        new Uint8Array(4096),
      );
      assert.equal(props.memoryTypeBits, 5);
    });
    assert.ok(!mock.calls.some((c) => c.command === "vkGetMemoryHostPointerPropertiesEXT"));
  });

  Deno.test(`${placement}: a throwing implementation and an object without one are reported once each; the call answers VK_ERROR_UNKNOWN (0 for a u64)`, async () => {
    using mock = new MockDriver({ unimplemented: "absent" });
    const poke = defineCommand({
      name: "vkPokeVKDENO",
      level: "device",
      parameters: ["pointer"],
      result: "i32",
    });
    const prod = defineCommand({
      name: "vkProdVKDENO",
      level: "device",
      parameters: ["pointer"],
      result: "u64",
    });
    const layer = defineLayer({
      name: "VK_LAYER_VKDENO_test_poke",
      description: "a throwing command",
      commands: [poke, prod],
      create: () => ({ intercepts: {} }),
      createDevice: () => ({
        intercepts: {},
        commands: [provide(poke, () => {
          throw new RangeError("poked");
        })],
      }),
    });
    await withLayer(placement, layer, mock, (raw, messages) => {
      using vk = VkApi.of(raw).scope();
      const { device } = openDevice(vk, layer.name);
      const call = raw.getUnknownCommand(poke.name, poke)!;
      assert.equal(call(device), -13);
      assert.equal(call(device), -13);
      const missing = raw.getUnknownCommand(prod.name, prod)!;
      assert.equal(missing(device), 0n);
      assert.equal(missing(device), 0n);
      assert.deepEqual(messages.map((m) => [m.id, m.text]), [
        ["Layer-HookThrew", `"vkPokeVKDENO" threw RangeError: poked (reported once)`],
        [
          "Layer-CommandMissing",
          `declares "vkProdVKDENO" but its object for this device does not implement it (provide())`,
        ],
      ]);
    });
  });
}

for (const placement of PLACEMENTS) {
  Deno.test(`${placement}: a device command the instance object implements runs for a device whose own object does not`, async () => {
    using mock = new MockDriver({ unimplemented: "absent" });
    const count = defineCommand({
      name: "vkCountVKDENO",
      level: "device",
      parameters: ["pointer"],
      result: "u32",
    });
    let calls = 0;
    const layer = defineLayer({
      name: "VK_LAYER_VKDENO_test_count",
      description: "a device command in the instance object",
      commands: [count],
      create: () => ({ intercepts: {}, commands: [provide(count, () => ++calls)] }),
      createDevice: () => ({ intercepts: {} }),
    });
    await withLayer(placement, layer, mock, (raw, messages) => {
      using vk = VkApi.of(raw).scope();
      const { device } = openDevice(vk, layer.name);
      const call = raw.getUnknownCommand(count.name, count)!;
      assert.equal(call(device), 1);
      assert.equal(call(device), 2);
      assert.deepEqual(messages, []);
    });
  });
}

Deno.test("native chain: a manifest entrypoint vk.xml lacks and the layer does not declare draws a warning, and stays NULL", async () => {
  using mock = new MockDriver({ unimplemented: "absent" });
  const layer = defineLayer({
    name: "VK_LAYER_VKDENO_test_undeclared",
    description: "lists a command it cannot provide",
    create: () => ({ intercepts: {} }),
  });
  const extension = { name: "VK_VKDENO_undeclared", spec_version: "1", entrypoints: ["vkUndeclaredVKDENO"] };
  await withLayer("native chain", layer, mock, (raw, messages) => {
    using vk = VkApi.of(raw).scope();
    const { device } = openDevice(vk, layer.name, [extension.name]);
    assert.equal(raw.vkGetDeviceProcAddr(device, "vkUndeclaredVKDENO"), null);
    assert.deepEqual(messages.map((m) => [m.severity, m.id]), [["warning", "Layer-UndeclaredCommand"]]);
    assert.match(messages[0]!.text, /lists entrypoint "vkUndeclaredVKDENO", which vk.xml does not have/);
  }, { device_extensions: [extension] });
});

Deno.test("provide() is typed from the declaration: a wrong argument or result type fails deno check", () => {
  const doThing = defineCommand({
    name: "vkTypedVKDENO",
    level: "device",
    parameters: ["pointer", "u32", "pointer"],
    result: "i32",
  });
  provide(doThing, (_device: Deno.PointerValue, amount: number, _pTotal: Deno.PointerValue) => amount);
  // @ts-expect-error: an i32 result is a number
  provide(doThing, () => "done");
  // @ts-expect-error: the u32 parameter is a number
  provide(doThing, (_device, amount: string) => amount.length);
  // @ts-expect-error: three parameters declared, a fourth does not fit
  provide(doThing, (_d, _a, _p, extra: number) => extra);
});

Deno.test("defineCommand refuses vk.xml's commands, other levels, and a first parameter that is no handle", () => {
  assert.throws(
    () => defineCommand({ name: "vkCmdDraw", level: "device", parameters: ["pointer"], result: "void" }),
    /Cannot define command "vkCmdDraw": vk.xml has it/,
  );
  assert.throws(
    // @ts-expect-error: instance-level commands the loader cannot dispatch
    () => defineCommand({ name: "vkFooVKDENO", level: "instance", parameters: ["pointer"], result: "void" }),
    /level "instance" is not "device" or "physical_device"/,
  );
  assert.throws(
    () => defineCommand({ name: "vkFooVKDENO", level: "device", parameters: ["u32"], result: "void" }),
    /the first parameter must be the dispatchable handle/,
  );
});

Deno.test("native chain: the TS layer's extensions are listed for its name and pass vkCreateInstance's check", async () => {
  using mock = new MockDriver({});
  const layer = defineLayer({
    name: "VK_LAYER_VKDENO_test_instance_extension",
    description: "an instance extension of its own",
    instanceExtensions: [{ name: "VK_VKDENO_instance_example", specVersion: 2 }],
    create: () => ({ intercepts: {} }),
  });
  await withLayer("native chain", layer, mock, (raw) => {
    using vk = VkApi.of(raw).scope();
    assert.deepEqual(vk.enumerateInstanceExtensionProperties(layer.name), [
      { extensionName: "VK_VKDENO_instance_example", specVersion: 2 },
    ]);
    vk.createInstance({
      ppEnabledLayerNames: [layer.name],
      ppEnabledExtensionNames: ["VK_VKDENO_instance_example"],
    });
  });
});
