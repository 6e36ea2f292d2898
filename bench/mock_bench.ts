/**
 * The testing kit's mock driver against a real driver: the cost of one mock command
 * (`vkCmdSetLineWidth`, recorded by a TypeScript callback behind the dispatch stub) and of a mock instance +
 * device creation, each beside the same work on lavapipe through libvulkan (the reference; vkdeno's own
 * per-call cost on lavapipe is the "Per call" section's). A mock command runs JavaScript (a
 * `Deno.UnsafeCallback` behind the stub), so it costs more than a C driver's; what matters for `deno test` is
 * that thousands of calls take milliseconds. Creation asks the mock's `vkGetDeviceProcAddr` for every device
 * command (answers kept per device configuration) and allocates JavaScript objects, so its p75 includes
 * garbage collection; the best time shows the work itself.
 */
import { Vulkan } from "../mod.ts";
import { openLibvulkan } from "../tests/support/libvulkan.ts";
import { MockDriver, mockEnvironment } from "../testing/mod.ts";
import { BenchDevice, setBenchEnvironment } from "./_vulkan.ts";

const CALLS = 1000;

setBenchEnvironment();
const reference = openLibvulkan();
const onLavapipe = Vulkan.load();
const mock = new MockDriver();
const isolated = mockEnvironment();
const onMock = Vulkan.load({ drivers: [mock], env: isolated.env });

const devices = {
  reference: BenchDevice.create(reference),
  lavapipe: BenchDevice.create(onLavapipe),
  mock: BenchDevice.create(onMock),
};

for (
  const [name, label, baseline] of [
    ["reference", "lavapipe through libvulkan (reference)", true],
    ["mock", "mock driver through vkdeno", false],
  ] as const
) {
  const d = devices[name];
  const cmd = d.recording();
  const setLineWidth = d.table.vkCmdSetLineWidth!;
  Deno.bench({
    name: `vkCmdSetLineWidth: ${label} (x${CALLS})`,
    group: "one command",
    baseline,
    fn(b) {
      cmd.restart();
      b.start();
      for (let i = 0; i < CALLS; i++) setLineWidth(cmd.commandBuffer, 1);
      b.end();
    },
  });
}

for (
  const [label, vk, baseline] of [
    ["lavapipe through libvulkan (reference)", reference, true],
    ["lavapipe through vkdeno", onLavapipe, false],
    ["mock driver through vkdeno", onMock, false],
  ] as const
) {
  Deno.bench({
    name: `instance + device: ${label}`,
    group: "instance and device creation",
    baseline,
    fn() {
      using d = BenchDevice.create(vk);
      void d;
    },
  });
}

globalThis.addEventListener("unload", () => {
  for (const d of Object.values(devices)) d[Symbol.dispose]();
  onMock.dispose();
  mock.dispose();
  isolated.remove();
});
