// A struct literal's integer member (8, 16 or 32 bits, a bit-field, an array's element) takes an integer that
// fits, or throws a RangeError naming the struct and the member (and the element's index), never keeping the
// low bits of a number silently (docs/behaviour.md V14). A negative bitwise result for an unsigned bit mask is
// refused too, with the message saying how to make it unsigned.
import { deepStrictEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import { Arena, readStruct, VK_PIPELINE_CACHE_HEADER_VERSION_ONE, Vulkan, writeStruct } from "../../mod.ts";
import { MockDriver, mockEnvironment } from "../../testing/mod.ts";
import { withVkDevice } from "../support/vk_device.ts";

const isolated = mockEnvironment();
globalThis.addEventListener("unload", () => isolated.remove());

const UNSIGNED = "expected an integer from 0 to 4294967295 (uint32_t)";
const SIGNED = "expected an integer from -2147483648 to 2147483647 (int32_t)";

Deno.test("a uint32_t member refuses a number that does not fit 32 bits or is not an integer", () => {
  using arena = new Arena();
  for (const usage of [2 ** 32 + 5, 2 ** 32, -(2 ** 31) - 1, 1.5, NaN, Infinity]) {
    assertThrows(() => writeStruct(arena, "VkBufferCreateInfo", { size: 16n, usage } as never), {
      name: "RangeError",
      message: `Cannot write ${usage} to member "usage" of "VkBufferCreateInfo": ${UNSIGNED}`,
    });
  }
  assertThrows(() => writeStruct(arena, "VkBufferCreateInfo", { size: 16n, usage: 2n ** 32n } as never), {
    name: "RangeError",
    message: `Cannot write 4294967296n to member "usage" of "VkBufferCreateInfo": ${UNSIGNED}`,
  });
  // ~0 and a flag with bit 31 combined by `|` are negative in JavaScript: given for a bit mask (a flags type,
  // a member named ...Mask), refused saying how to fix them; for a count or an index, the range alone.
  const hint = "; `x >>> 0` makes a bitwise result unsigned";
  for (const bits of [~0, 0x80000000 | 1]) {
    assertThrows(() => writeStruct(arena, "VkBufferCreateInfo", { size: 16n, usage: bits } as never), {
      name: "RangeError",
      message: `Cannot write ${bits} to member "usage" of "VkBufferCreateInfo": ${UNSIGNED}${hint}`,
    });
    assertThrows(() => writeStruct(arena, "VkStencilOpState", { writeMask: bits }), {
      name: "RangeError",
      message: `Cannot write ${bits} to member "writeMask" of "VkStencilOpState": ${UNSIGNED}${hint}`,
    });
  }
  assertThrows(() => writeStruct(arena, "VkCommandPoolCreateInfo", { queueFamilyIndex: -1 }), {
    name: "RangeError",
    message: `Cannot write -1 to member "queueFamilyIndex" of "VkCommandPoolCreateInfo": ${UNSIGNED}`,
  });
  // A number given as a string shows quoted, so the message tells the two apart.
  assertThrows(() => writeStruct(arena, "VkBufferCreateInfo", { size: 16n, usage: "70000" } as never), {
    name: "TypeError",
    message: `Cannot write "70000" to member "usage" of "VkBufferCreateInfo": expected a number`,
  });
});

Deno.test("a uint32_t member takes 0 to 2^32 - 1, booleans and bigints in range", () => {
  using arena = new Arena();
  const written = (queueFamilyIndex: unknown) =>
    readStruct(
      "VkCommandPoolCreateInfo",
      writeStruct(arena, "VkCommandPoolCreateInfo", { queueFamilyIndex } as never),
    ).queueFamilyIndex;
  assertEquals(
    [written(0), written(4294967295), written(~0 >>> 0), written(true), written(7n)],
    [0, 4294967295, 4294967295, 1, 7],
  );
});

Deno.test("an int32_t member refuses what does not fit int32_t, in arrays of numbers and nested structs too", () => {
  using arena = new Arena();
  const offset = (x: number) => ({ offset: { x, y: 0 }, extent: { width: 1, height: 1 } });
  assertThrows(() => writeStruct(arena, "VkRect2D", offset(2 ** 31)), {
    name: "RangeError",
    message: `Cannot write 2147483648 to member "x" of "VkOffset2D": ${SIGNED}`,
  });
  assertEquals(readStruct("VkOffset2D", writeStruct(arena, "VkOffset2D", { x: -(2 ** 31), y: -1 })), {
    x: -(2 ** 31),
    y: -1,
  });
  // An array member of uint32_t (pQueueFamilyIndices): each element is checked.
  assertThrows(
    () =>
      writeStruct(
        arena,
        "VkBufferCreateInfo",
        { size: 16n, usage: 1, pQueueFamilyIndices: [0, 0.5] } as never,
      ),
    {
      name: "RangeError",
      message:
        `Cannot write 0.5 to member "pQueueFamilyIndices" of "VkBufferCreateInfo" element 1: ${UNSIGNED}`,
    },
  );
});

Deno.test("an idiomatic command given an out-of-range member throws naming the command and parameter, and the driver is not called", () => {
  using mock = new MockDriver({ record: true, onProblem: () => {} });
  using raw = Vulkan.load({ drivers: [mock], env: isolated.env });
  withVkDevice(raw, (vk, device) => {
    assertThrows(() => vk.createBuffer(device, { size: 16n, usage: 2 ** 32 + 5 } as never), {
      name: "RangeError",
      message:
        `Cannot call "vkCreateBuffer": parameter "pCreateInfo": Cannot write 4294967301 to member "usage" of "VkBufferCreateInfo": ${UNSIGNED}`,
    });
  });
  assertEquals(mock.callCount("vkCreateBuffer"), 0);
});

const range = (min: number, max: number, type: string) =>
  `expected an integer from ${min} to ${max} (${type})`;

Deno.test("a uint8_t member refuses what does not fit 8 bits and takes 0 to 255", () => {
  using arena = new Arena();
  const write = (major: unknown) => writeStruct(arena, "VkConformanceVersion", { major } as never);
  for (const major of [256, -1, 1.5, NaN, 300]) {
    assertThrows(() => write(major), {
      name: "RangeError",
      message: `Cannot write ${major} to member "major" of "VkConformanceVersion": ${
        range(0, 255, "uint8_t")
      }`,
    });
  }
  assertThrows(() => write(256n), { name: "RangeError", message: /Cannot write 256n to member "major"/ });
  assertThrows(() => write("1"), {
    name: "TypeError",
    message: `Cannot write "1" to member "major" of "VkConformanceVersion": expected a number`,
  });
  const back = (major: unknown) => readStruct("VkConformanceVersion", write(major)).major;
  assertEquals([back(0), back(255), back(true), back(255n)], [0, 255, 1, 255]);
  // Its neighbours keep their own bytes.
  const all = writeStruct(arena, "VkConformanceVersion", { major: 255, minor: 0, subminor: 255, patch: 1 });
  assertEquals(readStruct("VkConformanceVersion", all), { major: 255, minor: 0, subminor: 255, patch: 1 });
});

Deno.test("a uint16_t member refuses what does not fit 16 bits and takes 0 to 65535", () => {
  using arena = new Arena();
  const S = "VkPipelineRasterizationLineStateCreateInfo";
  const write = (lineStipplePattern: unknown) => writeStruct(arena, S, { lineStipplePattern } as never);
  for (const pattern of [65536, -1, 0.5, 2 ** 32]) {
    assertThrows(() => write(pattern), {
      name: "RangeError",
      message: `Cannot write ${pattern} to member "lineStipplePattern" of "${S}": ${
        range(0, 65535, "uint16_t")
      }`,
    });
  }
  const back = (pattern: unknown) => readStruct(S, write(pattern)).lineStipplePattern;
  assertEquals([back(0), back(65535), back(0xaaaa)], [0, 65535, 0xaaaa]);
});

Deno.test("a bit-field refuses a value wider than its bits instead of spilling into its neighbour", () => {
  using arena = new Arena();
  const S = "VkAccelerationStructureInstanceKHR";
  const instance = (fields: Record<string, unknown>) => writeStruct(arena, S, fields as never);
  assertThrows(() => instance({ instanceCustomIndex: 2 ** 24, mask: 0 }), {
    name: "RangeError",
    message: `Cannot write 16777216 to member "instanceCustomIndex" of "${S}": ${
      range(0, 16777215, "24-bit field")
    }`,
  });
  for (const [member, value] of [["mask", 256], ["flags", 0x100], ["mask", -1], ["flags", 1.5]] as const) {
    assertThrows(() => instance({ [member]: value }), {
      name: "RangeError",
      message: `Cannot write ${value} to member "${member}" of "${S}": ${range(0, 255, "8-bit field")}`,
    });
  }
  assertThrows(() => instance({ instanceShaderBindingTableRecordOffset: "1" }), {
    name: "TypeError",
    message:
      `Cannot write "1" to member "instanceShaderBindingTableRecordOffset" of "${S}": expected a number`,
  });
  // The largest values that fit stay in their own bits.
  const full = readStruct(
    S,
    instance({
      instanceCustomIndex: 0xffffff,
      mask: 0,
      instanceShaderBindingTableRecordOffset: 0,
      flags: 255,
    }),
  );
  assertEquals(
    [full.instanceCustomIndex, full.mask, full.instanceShaderBindingTableRecordOffset, full.flags],
    [0xffffff, 0, 0, 255],
  );
  const mask = readStruct(S, instance({ instanceCustomIndex: 0, mask: 255, flags: true }));
  assertEquals([mask.instanceCustomIndex, mask.mask, mask.flags], [0, 255, 1]);
});

Deno.test("an array of 8-bit values refuses an element out of range naming its index", () => {
  using arena = new Arena();
  const u8 = range(0, 255, "uint8_t");
  // A fixed array (uint8_t[VK_UUID_SIZE]) from numbers: the element and its index named.
  const uuid = Array.from({ length: 16 }, (_, i) => i * 17);
  const one = { headerVersion: VK_PIPELINE_CACHE_HEADER_VERSION_ONE };
  assertThrows(
    () =>
      writeStruct(arena, "VkPipelineCacheHeaderVersionOne", {
        ...one,
        pipelineCacheUUID: [...uuid.slice(0, 3), 256],
      }),
    {
      name: "RangeError",
      message:
        `Cannot write 256 to member "pipelineCacheUUID" of "VkPipelineCacheHeaderVersionOne" element 3: ${u8}`,
    },
  );
  // From an Int8Array, -1 is not a uint8_t either; a Uint8Array always fits.
  assertThrows(
    () =>
      writeStruct(
        arena,
        "VkPipelineCacheHeaderVersionOne",
        { pipelineCacheUUID: new Int8Array([0, -1]) } as never,
      ),
    {
      name: "RangeError",
      message: /Cannot write -1 to member "pipelineCacheUUID" of "VkPipelineCacheHeaderVersionOne" element 1/,
    },
  );
  for (const given of [uuid, new Uint8Array(uuid)]) {
    const header = writeStruct(arena, "VkPipelineCacheHeaderVersionOne", {
      ...one,
      pipelineCacheUUID: given,
    });
    assertEquals(readStruct("VkPipelineCacheHeaderVersionOne", header).pipelineCacheUUID, uuid);
  }
  // A pointer to uint8_t given as numbers, and a void pointer given as numbers (bytes).
  assertThrows(
    () =>
      writeStruct(arena, "VkPipelineShaderStageModuleIdentifierCreateInfoEXT", { pIdentifier: [1, 2, 300] }),
    {
      name: "RangeError",
      message:
        `Cannot write 300 to member "pIdentifier" of "VkPipelineShaderStageModuleIdentifierCreateInfoEXT" element 2: ${u8}`,
    },
  );
  assertThrows(() => writeStruct(arena, "VkPipelineCacheCreateInfo", { pInitialData: [0, -1] } as never), {
    name: "RangeError",
    message: `Cannot write -1 to member "pInitialData" of "VkPipelineCacheCreateInfo" element 1: ${u8}`,
  });
});

Deno.test("a char array given as numbers takes -128 to 255 (UTF-8 bytes too) and refuses the rest", () => {
  using arena = new Arena();
  const name = [...new TextEncoder().encode("é!"), 0];
  const written = writeStruct(arena, "VkExtensionProperties", { extensionName: name } as never);
  assertEquals(readStruct("VkExtensionProperties", written).extensionName, "é!");
  const signed = writeStruct(arena, "VkExtensionProperties", { extensionName: [-61, -87, 0] } as never);
  assertEquals(readStruct("VkExtensionProperties", signed).extensionName, "é");
  assertThrows(() => writeStruct(arena, "VkExtensionProperties", { extensionName: [104, 256] } as never), {
    name: "RangeError",
    message: `Cannot write 256 to member "extensionName" of "VkExtensionProperties" element 1: ${
      range(-128, 255, "char")
    }`,
  });
});

Deno.test("an idiomatic command given a struct with an 8-bit value out of range throws naming the command", () => {
  using mock = new MockDriver({ record: true, onProblem: () => {} });
  using raw = Vulkan.load({ drivers: [mock], env: isolated.env });
  withVkDevice(raw, (vk, device) => {
    assertThrows(() => vk.createPipelineCache(device, { pInitialData: [1, 2, 256] } as never), {
      name: "RangeError",
      message:
        `Cannot call "vkCreatePipelineCache": parameter "pCreateInfo": Cannot write 256 to member "pInitialData" of "VkPipelineCacheCreateInfo" element 2: ${
          range(0, 255, "uint8_t")
        }`,
    });
  });
  assertEquals(mock.callCount("vkCreatePipelineCache"), 0);
});

const BOOL32 = "expected true or false, or 1 or 0 (VkBool32: VK_TRUE or VK_FALSE)";

Deno.test("a VkBool32 member takes true, false, 1 or 0 and refuses any other value naming the member", () => {
  using arena = new Arena();
  const S = "VkPipelineRasterizationStateCreateInfo";
  const write = (depthClampEnable: unknown) => writeStruct(arena, S, { depthClampEnable } as never);
  for (const value of [2, -1, 1.5, NaN]) {
    assertThrows(() => write(value), {
      name: "RangeError",
      message: `Cannot write ${value} to member "depthClampEnable" of "${S}": ${BOOL32}`,
    });
  }
  assertThrows(() => write(2n), {
    name: "RangeError",
    message: /Cannot write 2n to member "depthClampEnable"/,
  });
  assertThrows(() => write("yes"), {
    name: "TypeError",
    message: `Cannot write "yes" to member "depthClampEnable" of "${S}": expected a boolean`,
  });
  const back = (value: unknown) => readStruct(S, write(value)).depthClampEnable;
  assertEquals([back(true), back(false), back(1), back(0)], [1, 0, 1, 0]);
  // An array of VkBool32 (pColorWriteEnables): each element is checked, named by its index.
  assertThrows(
    () => writeStruct(arena, "VkPipelineColorWriteCreateInfoEXT", { pColorWriteEnables: [true, 2] }),
    {
      name: "RangeError",
      message:
        `Cannot write 2 to member "pColorWriteEnables" of "VkPipelineColorWriteCreateInfoEXT" element 1: ${BOOL32}`,
    },
  );
});

Deno.test("an idiomatic command given a struct with a VkBool32 of 2 throws naming the command; the driver is not called", () => {
  using mock = new MockDriver({ record: true, onProblem: () => {} });
  using raw = Vulkan.load({ drivers: [mock], env: isolated.env });
  withVkDevice(raw, (vk, device) => {
    assertThrows(() => vk.createSampler(device, { anisotropyEnable: 2 }), {
      name: "RangeError",
      message:
        `Cannot call "vkCreateSampler": parameter "pCreateInfo": Cannot write 2 to member "anisotropyEnable" of "VkSamplerCreateInfo": ${BOOL32}`,
    });
  });
  assertEquals(mock.callCount("vkCreateSampler"), 0);
});
