/**
 * VK_LAYER_VKDENO_api_dump over the compute example on lavapipe (reference loader): every call of the
 * example in order with decoded parameters and results, as JSON lines and as text, with timing.
 */
import assert from "node:assert/strict";
import { runCompute } from "../../examples/compute.ts";
import { installLayers } from "../../layers/top.ts";
import { openLibvulkan } from "../support/libvulkan.ts";
import { referenceLoaderTest } from "../support/ts_layer_harness.ts";

interface DumpLine {
  serial: number;
  command: string;
  args: Record<string, unknown>;
  result?: unknown;
  us?: number;
}

function dumpCompute(settings: Record<string, unknown>): string[] {
  const lines: string[] = [];
  using base = openLibvulkan();
  using vk = installLayers(base, {
    layers: ["VK_LAYER_VKDENO_api_dump"],
    output: (line) => void lines.push(line),
    settings: { VK_LAYER_VKDENO_api_dump: settings },
  });
  assert.equal(runCompute(vk as never, { count: 4096 }).wrong, 0);
  return lines;
}

referenceLoaderTest(
  "api_dump writes every call of the compute example as a JSON line with decoded arguments, result and time",
  import.meta,
  () => {
    const dump = dumpCompute({ format: "json" }).map((l) => JSON.parse(l) as DumpLine);
    const commands = dump.map((l) => l.command);
    // Global commands other than vkCreateInstance pass no layer (docs/layers.md).
    assert.equal(commands[0], "vkCreateInstance");
    assert.equal(commands.at(-1), "vkDestroyInstance");
    assert.deepEqual(dump.map((l) => l.serial), dump.map((_, i) => i + 1));
    assert.ok(dump.every((l) => typeof l.us === "number" && l.us >= 0));
    const find = (command: string) => dump.find((l) => l.command === command)!;

    const create = find("vkCreateInstance");
    assert.equal(create.result, "VK_SUCCESS");
    const app = (create.args.pCreateInfo as Record<string, Record<string, unknown>>).pApplicationInfo!;
    assert.equal(app.pApplicationName, "vkdeno compute demo");
    assert.match(create.args.pInstance as string, /^0x[0-9a-f]+$/);

    const buffer = find("vkCreateBuffer");
    assert.deepEqual(
      { ...(buffer.args.pCreateInfo as object), pNext: null },
      {
        sType: "VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO",
        pNext: null,
        flags: "0x0",
        size: "16384",
        usage: "0x20",
        sharingMode: "VK_SHARING_MODE_EXCLUSIVE",
        queueFamilyIndexCount: 0,
        pQueueFamilyIndices: null,
      },
    );
    // The buffer handle written by the driver is the one later destroyed.
    assert.equal(find("vkDestroyBuffer").args.buffer, buffer.args.pBuffer);

    const dispatch = find("vkCmdDispatch");
    assert.deepEqual({ ...dispatch.args, commandBuffer: 0 }, {
      commandBuffer: 0,
      groupCountX: 16,
      groupCountY: 1,
      groupCountZ: 1,
    });
    assert.equal("result" in dispatch, false);
    const submit = find("vkQueueSubmit");
    const submits = submit.args.pSubmits as { pCommandBuffers: string[] }[];
    assert.deepEqual(submits[0]!.pCommandBuffers, [dispatch.args.commandBuffer]);
    assert.equal(find("vkWaitForFences").result, "VK_SUCCESS");
    // Output structs are read back after the call, pNext chains link by link.
    const props = find("vkGetPhysicalDeviceProperties2").args.pProperties as Record<
      string,
      Record<string, unknown>
    >;
    assert.equal(props.pNext!.type, "VkPhysicalDeviceDriverProperties");
    assert.equal(props.pNext!.driverID, "VK_DRIVER_ID_MESA_LLVMPIPE");
    const bind = find("vkCmdBindPipeline");
    assert.equal(bind.args.pipelineBindPoint, "VK_PIPELINE_BIND_POINT_COMPUTE");
  },
);

referenceLoaderTest(
  "api_dump text output names each parameter with its C type and value",
  import.meta,
  () => {
    const text = dumpCompute({ timing: false }).join("\n");
    assert.match(
      text,
      /^vkCmdDispatch\(commandBuffer, groupCountX, groupCountY, groupCountZ\) returns void:\n {4}commandBuffer: VkCommandBuffer = 0x[0-9a-f]+\n {4}groupCountX: uint32_t = 16\n {4}groupCountY: uint32_t = 1\n {4}groupCountZ: uint32_t = 1$/m,
    );
    assert.match(
      text,
      /^vkCreateFence\(device, pCreateInfo, pAllocator, pFence\) returns VkResult VK_SUCCESS \(0\):$/m,
    );
    assert.match(text, /^ {4}pAllocator: const VkAllocationCallbacks\* = null$/m);
    assert.doesNotMatch(text, / in [0-9.]+ us:/);
  },
);
