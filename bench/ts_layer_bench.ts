/**
 * The cost of a TS layer on `vkCmdSetLineWidth` (no layer; intercepting nothing; intercepting the command;
 * intercepting four hot commands): in the script over a C no-op and over lavapipe, and as a native link of
 * the reference loader's chain, beside the floor of any native link (C calling an empty JS callback).
 * Run: `deno bench --allow-all bench/ts_layer_bench.ts`.
 *
 * @module
 */
import { Arena, readPointer } from "../ffi/memory.ts";
import { check, enumerate, writeStruct } from "../api/structs.ts";
import { defineLayer } from "../layers/layer.ts";
import { NativeLayerBridge } from "../layers/native.ts";
import { installLayers } from "../layers/top.ts";
import { openLibvulkan } from "../tests/support/libvulkan.ts";
import { installShim } from "../tests/support/ts_layer_harness.ts";
import { ccSync } from "../tests/support/c_build.ts";
import { readHandle } from "../vk/handle.ts";
import { VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT } from "../mod.ts";
import { LAVAPIPE } from "../tests/support/lavapipe.ts";

type SetLineWidth = (commandBuffer: Deno.PointerValue, lineWidth: number) => void;
type HasSetLineWidth = { vkCmdSetLineWidth: SetLineWidth };

const idle = defineLayer({
  name: "VK_LAYER_bench_idle",
  description: "intercepts nothing",
  create: () => ({ intercepts: {} }),
});
let counted = 0;
const counting = defineLayer({
  name: "VK_LAYER_bench_line_width",
  description: "counts vkCmdSetLineWidth",
  create: () => ({ intercepts: { vkCmdSetLineWidth: { preCallRecord: () => void counted++ } } }),
});

const NOOP_SYMBOLS = {
  vkCmdSetLineWidth: { parameters: ["pointer", "f32"], result: "void" },
  /** Calls `fn(NULL, 1.0f)` `n` times: the floor of a native link, a C -> JS callback doing nothing. */
  callLineWidth: { parameters: ["function", "i32"], result: "void" },
} as const;

function noopLibrary(): Deno.DynamicLibrary<typeof NOOP_SYMBOLS> {
  const dir = Deno.makeTempDirSync({ prefix: "ts_layer_bench_" });
  Deno.writeTextFileSync(
    `${dir}/noop.c`,
    `void vkCmdSetLineWidth(void *cb, float w) { (void)cb; (void)w; }
void callLineWidth(void (*fn)(void *, float), int n) { for (int i = 0; i < n; i++) fn((void *)0, 1.0f); }
`,
  );
  ccSync(["-shared", "-fPIC", "-O2", "-o", `${dir}/noop.so`, `${dir}/noop.c`]);
  const lib = Deno.dlopen(`${dir}/noop.so`, NOOP_SYMBOLS);
  Deno.removeSync(dir, { recursive: true });
  return lib;
}

/** The wrapped objects of a group, checked: the idle layer must hand out the very same function. */
function wrapped(
  base: HasSetLineWidth,
  commandBuffer: Deno.PointerValue,
): { idle: HasSetLineWidth; counting: HasSetLineWidth } {
  const idleVk = installLayers(base, { layers: [idle] }) as unknown as HasSetLineWidth;
  const countingVk = installLayers(base, { layers: [counting] }) as unknown as HasSetLineWidth;
  // The command buffer was made before the layers were installed: the first call on it makes the layers'
  // objects for it (docs/layers.md), and the wrappers hand out their final functions from then on.
  idleVk.vkCmdSetLineWidth(commandBuffer, 1);
  countingVk.vkCmdSetLineWidth(commandBuffer, 1);
  if (idleVk.vkCmdSetLineWidth !== base.vkCmdSetLineWidth) {
    throw new Error("The idle layer wrapped a command");
  }
  return { idle: idleVk, counting: countingVk };
}

// Each iteration makes 1,000 calls, reading the function from the object each time as applications do,
// so the harness's own cost per iteration does not hide a nanosecond. Every loop is its own code: loops
// shared between objects or groups would see several object shapes at one call site and measure V8's
// polymorphic lookups (and lose the inlined fast call) instead.
const CALLS = 1000;

const noop = noopLibrary();
{
  const group = "C no-op";
  const base = noop.symbols;
  const { idle: idleVk, counting: countingVk } = wrapped(base, null);
  Deno.bench(`${group}: no layer (x${CALLS})`, { group, baseline: true }, () => {
    for (let i = 0; i < CALLS; i++) base.vkCmdSetLineWidth(null, 1);
  });
  Deno.bench(`${group}: TS layer intercepting nothing (x${CALLS})`, { group }, () => {
    for (let i = 0; i < CALLS; i++) idleVk.vkCmdSetLineWidth(null, 1);
  });
  Deno.bench(`${group}: TS layer intercepting vkCmdSetLineWidth (x${CALLS})`, { group }, () => {
    for (let i = 0; i < CALLS; i++) countingVk.vkCmdSetLineWidth(null, 1);
  });
  // What every call into a native-chain TS link pays before any layer code runs.
  const empty = new Deno.UnsafeCallback(
    { parameters: ["pointer", "f32"], result: "void" } as const,
    () => {},
  );
  Deno.bench(`${group}: C calling an empty JS callback (x${CALLS})`, { group }, () => {
    noop.symbols.callLineWidth(empty.pointer, CALLS);
  });
}

/** A recording lavapipe command buffer behind the reference loader, or null without a driver. */
function lavapipe(
  instanceLayers = "",
): { vk: HasSetLineWidth; commandBuffer: Deno.PointerValue; restart: () => void } | null {
  Deno.env.set("VK_DRIVER_FILES", LAVAPIPE);
  Deno.env.set("VK_LOADER_LAYERS_DISABLE", "~implicit~");
  Deno.env.set("VK_INSTANCE_LAYERS", instanceLayers);
  // deno-lint-ignore no-explicit-any
  const vk = openLibvulkan() as unknown as Record<string, (...args: any[]) => any>;
  const arena = new Arena();
  const slot = () => arena.pointer(arena.alloc(8));
  const pInstance = slot();
  if (vk.vkCreateInstance!(writeStruct(arena, "VkInstanceCreateInfo", {}), null, pInstance) !== 0) {
    return null;
  }
  const instance = readPointer(pInstance, 0);
  const [physicalDevice] = enumerate(vk.vkEnumeratePhysicalDevices!, [instance]);
  const pDevice = slot();
  const queue = { queueFamilyIndex: 0, pQueuePriorities: [1] };
  const features = { wideLines: 0 };
  check(
    vk.vkCreateDevice!(
      physicalDevice,
      writeStruct(arena, "VkDeviceCreateInfo", { pQueueCreateInfos: [queue], pEnabledFeatures: features }),
      null,
      pDevice,
    ),
    "vkCreateDevice",
  );
  const device = readPointer(pDevice, 0);
  const pPool = slot();
  check(
    vk.vkCreateCommandPool!(
      device,
      writeStruct(arena, "VkCommandPoolCreateInfo", {
        flags: VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
        queueFamilyIndex: 0,
      }),
      null,
      pPool,
    ),
    "vkCreateCommandPool",
  );
  const pCb = slot();
  const allocate = writeStruct(arena, "VkCommandBufferAllocateInfo", {
    commandPool: readHandle("VkCommandPool", pPool),
    commandBufferCount: 1,
  });
  check(vk.vkAllocateCommandBuffers!(device, allocate, pCb), "vkAllocateCommandBuffers");
  const commandBuffer = readPointer(pCb, 0);
  const begin = writeStruct(arena, "VkCommandBufferBeginInfo", {});
  // Recorded commands pile up in the command buffer: start it over now and then.
  const restart = () => {
    vk.vkResetCommandBuffer!(commandBuffer, 0);
    vk.vkBeginCommandBuffer!(commandBuffer, begin);
  };
  restart();
  return { vk: vk as unknown as HasSetLineWidth, commandBuffer, restart };
}

const real = lavapipe();
if (real) {
  const group = "lavapipe via libvulkan";
  const { vk: base, commandBuffer } = real;
  const { idle: idleVk, counting: countingVk } = wrapped(base, commandBuffer);
  let n = 0;
  // Recorded commands pile up in the command buffer: start it over now and then.
  const restart = () => {
    if ((n += CALLS) >= 4096) {
      n = 0;
      real.restart();
    }
  };
  Deno.bench(`${group}: no layer (x${CALLS})`, { group, baseline: true }, () => {
    for (let i = 0; i < CALLS; i++) base.vkCmdSetLineWidth(commandBuffer, 1);
    restart();
  });
  Deno.bench(`${group}: TS layer intercepting nothing (x${CALLS})`, { group }, () => {
    for (let i = 0; i < CALLS; i++) idleVk.vkCmdSetLineWidth(commandBuffer, 1);
    restart();
  });
  Deno.bench(`${group}: TS layer intercepting vkCmdSetLineWidth (x${CALLS})`, { group }, () => {
    for (let i = 0; i < CALLS; i++) countingVk.vkCmdSetLineWidth(commandBuffer, 1);
    restart();
  });
  // A layer intercepting several hot commands: the chassis calls each next function from one shared
  // call site, which V8 then stops inlining as a fast FFI call once it has seen several targets.
  const several = [
    "vkCmdSetLineWidth",
    "vkCmdSetDepthBias",
    "vkCmdSetStencilReference",
    "vkCmdSetStencilWriteMask",
  ];
  const severalVk = installLayers(base, {
    layers: [defineLayer({
      name: "VK_LAYER_bench_several",
      description: "counts several commands",
      create: () => ({
        intercepts: Object.fromEntries(several.map((c) => [c, { preCallRecord: () => void counted++ }])),
      }),
    })],
  }) as unknown as Record<string, (...args: unknown[]) => void>;
  // Run inside the bench, not at load time, so the groups before it still see one target per call site.
  let warmed = false;
  const warm = () => {
    for (let i = 0; i < 3000; i++) {
      severalVk.vkCmdSetDepthBias!(commandBuffer, 0, 0, 0);
      severalVk.vkCmdSetStencilReference!(commandBuffer, 1, 0);
      severalVk.vkCmdSetStencilWriteMask!(commandBuffer, 1, 0);
      if (i % 1000 === 999) real.restart();
    }
    warmed = true;
  };
  Deno.bench(`${group}: TS layer intercepting ${several.length} commands (x${CALLS})`, { group }, () => {
    if (!warmed) warm();
    for (let i = 0; i < CALLS; i++) severalVk.vkCmdSetLineWidth!(commandBuffer, 1);
    restart();
  });
}

// The same, with the TS layer as a native link of the reference loader's chain (C shim -> GIPA/GDPA
// callbacks): an intercepted call crosses C -> JS -> C.
if (real) {
  const dir = Deno.makeTempDirSync({ prefix: "ts_layer_bench_" });
  Deno.env.set("VK_ADD_LAYER_PATH", dir);
  const idleLink = new NativeLayerBridge([idle]);
  const countingLink = new NativeLayerBridge([counting]);
  installShim(dir, "VK_LAYER_bench_idle_link", idleLink);
  installShim(dir, "VK_LAYER_bench_counting_link", countingLink);
  const idleChain = lavapipe("VK_LAYER_bench_idle_link")!;
  const countingChain = lavapipe("VK_LAYER_bench_counting_link")!;
  const group = "lavapipe, TS layer as a native link";
  let n = 0;
  const restart = () => {
    if ((n += CALLS) >= 4096) {
      n = 0;
      real.restart();
      idleChain.restart();
      countingChain.restart();
    }
  };
  Deno.bench(`${group}: no layer (x${CALLS})`, { group, baseline: true }, () => {
    for (let i = 0; i < CALLS; i++) real.vk.vkCmdSetLineWidth(real.commandBuffer, 1);
    restart();
  });
  Deno.bench(`${group}: link intercepting nothing (x${CALLS})`, { group }, () => {
    for (let i = 0; i < CALLS; i++) idleChain.vk.vkCmdSetLineWidth(idleChain.commandBuffer, 1);
    restart();
  });
  Deno.bench(`${group}: link intercepting vkCmdSetLineWidth (x${CALLS})`, { group }, () => {
    for (let i = 0; i < CALLS; i++) countingChain.vk.vkCmdSetLineWidth(countingChain.commandBuffer, 1);
    restart();
  });
}
