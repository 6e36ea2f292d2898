/**
 * examples/my_layer.ts does what it says: skips empty dispatches with a warning, counts dispatches per
 * command buffer, and times submissions through a command it does not intercept, on the compute example.
 */
import assert from "node:assert/strict";
import { runCompute } from "../../examples/compute.ts";
import { myLayer } from "../../examples/my_layer.ts";
import type { ValidationMessage } from "../../layers/layer.ts";
import { installLayers } from "../../layers/top.ts";
import { openLibvulkan } from "../support/libvulkan.ts";
import { referenceLoaderTest } from "../support/ts_layer_harness.ts";

Deno.test("my_layer skips an empty dispatch and reports it", () => {
  const calls: number[] = [];
  const base = {
    vkCmdDispatch: (_cb: Deno.PointerValue, x: number, _y: number, _z: number) => void calls.push(x),
  };
  const messages: ValidationMessage[] = [];
  using vk = installLayers(base, {
    layers: [myLayer],
    onMessage: (m) => void messages.push(m),
    output: () => {},
  });
  vk.vkCmdDispatch(null, 0, 1, 1);
  vk.vkCmdDispatch(null, 4, 1, 1);
  assert.deepEqual(calls, [4]);
  assert.deepEqual(messages.map((m) => [m.severity, m.id, m.text]), [
    ["warning", "EXAMPLE-EmptyDispatch", "0x1x1 groups: skipped"],
  ]);
});

referenceLoaderTest(
  "my_layer counts the compute example's dispatches and times its submission",
  import.meta,
  () => {
    const lines: string[] = [];
    {
      using base = openLibvulkan();
      using vk = installLayers(base, { layers: [myLayer], output: (l) => void lines.push(l) });
      assert.equal(runCompute(vk as never, { count: 4096 }).wrong, 0);
    }
    assert.equal(lines.length, 2);
    assert.equal(lines[0], "1 dispatches");
    assert.match(lines[1]!, /^submit returned 0, idle [0-9.]+ ms later$/);
  },
);
