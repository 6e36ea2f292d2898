// A struct's pointer member that must be valid whenever the struct is used (docs/behaviour.md V13: vk.xml marks
// it neither `optional` nor `noautovalidity`, and no optional count sizes it) is refused when left out or null,
// with a TypeError naming the struct and the member (and the command and parameter through VkApi), never
// passed to the driver as NULL. A pointer an optional count sizes may still be left out.
import { deepStrictEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import {
  Arena,
  readStruct,
  VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
  type VkApi,
  type VkDevice,
  type VkStructInputs,
  Vulkan,
  writeStruct,
} from "../../mod.ts";
import { MockDriver } from "../../testing/mod.ts";
import { withVkDevice } from "../support/vk_device.ts";

/** Runs `body` on a VkApi device of the testing kit's mock driver, in default and in checked mode. */
function onMockDevice(body: (vk: VkApi, device: VkDevice, mock: MockDriver) => void): void {
  for (const checked of [false, true]) {
    using mock = new MockDriver();
    using manifest = mock.writeManifest();
    using raw = Vulkan.load({
      env: { vars: { VK_DRIVER_FILES: manifest.manifestPath }, elevated: false },
      checked,
    });
    withVkDevice(raw, (vk, device) => body(vk, device, mock));
  }
}

const MISSING_CODE =
  'Cannot write "VkShaderModuleCreateInfo": member "pCode" is a required pointer (vk.xml: not optional), got';

Deno.test("writeStruct refuses a required pointer member left out or null, nested ones too", () => {
  using arena = new Arena();
  assertThrows(() => writeStruct(arena, "VkShaderModuleCreateInfo", { codeSize: 12 } as never), {
    name: "TypeError",
    message: `${MISSING_CODE} undefined`,
  });
  assertThrows(() => writeStruct(arena, "VkShaderModuleCreateInfo", { codeSize: 12, pCode: null } as never), {
    name: "TypeError",
    message: `${MISSING_CODE} null`,
  });
  assertThrows(
    () =>
      writeStruct(arena, "VkComputePipelineCreateInfo", { stage: { stage: 0x20, module: null } } as never),
    {
      name: "TypeError",
      message: /^Cannot write "VkPipelineShaderStageCreateInfo": member "pName" is a required pointer/,
    },
  );
  // pQueueFamilyIndices is sized by the optional queueFamilyIndexCount: null with a count of 0 is valid.
  const info = readStruct(
    "VkBufferCreateInfo",
    writeStruct(arena, "VkBufferCreateInfo", { size: 16n, usage: VK_BUFFER_USAGE_TRANSFER_SRC_BIT }),
  );
  assertEquals([info.size, info.pQueueFamilyIndices], [16n, null]);
  const code = new Uint32Array([0x07230203, 0x10000, 0]);
  const written = readStruct(
    "VkShaderModuleCreateInfo",
    writeStruct(arena, "VkShaderModuleCreateInfo", { pCode: code }),
  );
  assertEquals(written.codeSize, 12n);
});

Deno.test("an idiomatic command with a required pointer member left out throws naming the command and parameter", () => {
  onMockDevice((vk, device, mock) => {
    assertThrows(() => vk.createShaderModule(device, { codeSize: 12 } as never), {
      name: "TypeError",
      message: `Cannot call "vkCreateShaderModule": parameter "pCreateInfo": ${MISSING_CODE} undefined`,
    });
    assertEquals(mock.liveObjects().filter((o) => o.type === "VkShaderModule"), []);
  });
});

const MISSING_BUFFER =
  'Cannot write "VkBufferMemoryRequirementsInfo2": member "buffer" is a required VkBuffer handle (vk.xml: not optional), got';

Deno.test("a required handle member left out or null is refused; its type takes no null; an optional one does", () => {
  using arena = new Arena();
  assertThrows(() => writeStruct(arena, "VkBufferMemoryRequirementsInfo2", { buffer: null } as never), {
    name: "TypeError",
    message: `${MISSING_BUFFER} null`,
  });
  assertThrows(() => writeStruct(arena, "VkBufferMemoryRequirementsInfo2", {} as never), {
    name: "TypeError",
    message: `${MISSING_BUFFER} undefined`,
  });
  // VkMemoryDedicatedAllocateInfo's buffer is optional="true" in vk.xml: null is VK_NULL_HANDLE there.
  const dedicated = readStruct(
    "VkMemoryDedicatedAllocateInfo",
    writeStruct(arena, "VkMemoryDedicatedAllocateInfo", { buffer: null, image: null }),
  );
  assertEquals([dedicated.buffer, dedicated.image], [null, null]);
  // @ts-expect-error VkBufferMemoryRequirementsInfo2's buffer must be a valid VkBuffer (vk.xml: not optional).
  const literal: VkStructInputs["VkBufferMemoryRequirementsInfo2"] = { buffer: null };
  assertThrows(() => writeStruct(arena, "VkBufferMemoryRequirementsInfo2", literal), { name: "TypeError" });
});

Deno.test("an idiomatic command given a null required handle member throws naming the command, parameter, struct and member", () => {
  onMockDevice((vk, device) => {
    // @ts-expect-error VkBufferMemoryRequirementsInfo2's buffer takes no null.
    assertThrows(() => vk.getBufferMemoryRequirements2(device, { buffer: null }), {
      name: "TypeError",
      message: `Cannot call "vkGetBufferMemoryRequirements2": parameter "pInfo": ${MISSING_BUFFER} null`,
    });
  });
});
