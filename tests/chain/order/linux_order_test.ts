/**
 * Physical-device policy as pure functions (chain/order/sort.ts, chain/order/id_filters.ts, chain/order/devices.ts,
 * chain/order/groups.ts, chain/order/report.ts): Linux sort keys, VK_LOADER_DEVICE_SELECT,
 * VK_LOADER_DISABLE_SELECT, the three id filters, groups, and the "why" of each placement.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import fc from "fast-check";
import { orderPhysicalDevices } from "../../../chain/order/devices.ts";
import { orderPhysicalDeviceGroups } from "../../../chain/order/groups.ts";
import { describeDevicePolicy, explainEnumeratedOrder } from "../../../chain/order/report.ts";
import { type DeviceRecord, instanceCanSort, PHYSICAL_DEVICE_TYPE as T } from "../../../chain/order/sort.ts";
import { writeTwoCall } from "../../../vk/two_call.ts";
import { parseDeviceSelect, parseIdFilter, readDevicePolicy } from "../../../discovery/device_selection.ts";
import type { EnvironmentSnapshot } from "../../../discovery/environment.ts";
import { type Pointer, readPointer } from "../../../ffi/memory.ts";
import { allocStruct, readStruct, sizeOfStruct } from "../../../api/structs.ts";
import { MockEnvironment } from "../../support/mock.ts";
import { Vulkan } from "../../../vulkan.ts";
import { collectInfo, formatInfo } from "../../../examples/info.ts";
import type { VulkanCommands } from "../../../mod.ts";
import {
  addr,
  createInstance,
  type InstanceOptions,
  load,
  type Loaded,
  physicalDevices,
  u32Slot,
} from "../../support/chain.ts";
import { asHandle } from "../../../vk/handle.ts";

interface Dev extends DeviceRecord {
  readonly name: string;
}

function env(vars: Record<string, string> = {}, elevated = false): EnvironmentSnapshot {
  return { vars, elevated };
}

function names(order: { devices: readonly { device: Dev }[] }): string[] {
  return order.devices.map((p) => p.device.name);
}

function sortWith(devices: readonly Dev[], vars: Record<string, string> = {}, canSort = true) {
  return orderPhysicalDevices(devices, readDevicePolicy(env(vars)), { canSort });
}

const pci = (domain: number, bus: number, device = 0, fn = 0) => ({ domain, bus, device, function: fn });

const EVERY_TYPE: Dev[] = [
  { name: "cpu", vendorID: 0x10005, deviceID: 0, deviceType: T.cpu },
  { name: "other", vendorID: 1, deviceID: 1, deviceType: T.other },
  { name: "virtual", vendorID: 2, deviceID: 2, deviceType: T.virtual },
  { name: "integrated", vendorID: 0x8086, deviceID: 0x9a49, deviceType: T.integrated },
  { name: "discrete", vendorID: 0x10de, deviceID: 0x2204, deviceType: T.discrete },
];

Deno.test("type order: discrete > integrated > virtual > other > CPU, whatever the input order", () => {
  for (const input of [EVERY_TYPE, [...EVERY_TYPE].reverse(), [2, 0, 4, 1, 3].map((i) => EVERY_TYPE[i]!)]) {
    const order = sortWith(input);
    assertEquals(names(order), ["discrete", "integrated", "virtual", "other", "cpu"]);
    assertEquals(order.devices.map((p) => p.rule), ["type", "type", "type", "type", "type"]);
    assert(order.sorted);
  }
  assertEquals(
    sortWith(EVERY_TYPE).devices[0]!.why,
    'discrete GPU ranks above integrated GPU "integrated" (0x8086:0x9a49)',
  );
});

Deno.test("PCI bus: within a type, devices with bus info come first, ascending domain/bus/device/function", () => {
  const devices: Dev[] = [
    { name: "none", vendorID: 1, deviceID: 1, deviceType: T.discrete },
    { name: "1:00:00.0", vendorID: 1, deviceID: 2, deviceType: T.discrete, pciBus: pci(1, 0) },
    { name: "0:04:00.0", vendorID: 1, deviceID: 3, deviceType: T.discrete, pciBus: pci(0, 4) },
    { name: "0:03:01.0", vendorID: 1, deviceID: 4, deviceType: T.discrete, pciBus: pci(0, 3, 1) },
    { name: "0:03:00.1", vendorID: 1, deviceID: 5, deviceType: T.discrete, pciBus: pci(0, 3, 0, 1) },
    { name: "0:03:00.0", vendorID: 1, deviceID: 6, deviceType: T.discrete, pciBus: pci(0, 3, 0, 0) },
    { name: "integrated", vendorID: 1, deviceID: 7, deviceType: T.integrated, pciBus: pci(0, 0) },
  ];
  const order = sortWith(devices);
  assertEquals(names(order), [
    "0:03:00.0",
    "0:03:00.1",
    "0:03:01.0",
    "0:04:00.0",
    "1:00:00.0",
    "none",
    "integrated",
  ]);
  assertEquals(order.devices.map((p) => p.rule), [
    "pci-bus",
    "pci-bus",
    "pci-bus",
    "pci-bus",
    "pci-bus",
    "pci-bus-missing",
    "type",
  ]);
  assertEquals(order.devices[1]!.why, 'PCI bus 0000:03:00.1 after 0000:03:00.0 of "0:03:00.0" (0x1:0x6)');
  assertEquals(order.devices[5]!.why, 'has no PCI bus info, "1:00:00.0" (0x1:0x2) has (0001:00:00.0)');
});

Deno.test("deviceID ^ vendorID breaks ties, and equal keys keep the input order", () => {
  const devices: Dev[] = [
    { name: "xor 0x30", vendorID: 0x10, deviceID: 0x20, deviceType: T.discrete },
    { name: "xor 0x3", vendorID: 0x1, deviceID: 0x2, deviceType: T.discrete },
    { name: "twin a", vendorID: 0x7, deviceID: 0x7, deviceType: T.cpu },
    { name: "twin b", vendorID: 0x7, deviceID: 0x7, deviceType: T.cpu },
  ];
  const order = sortWith(devices);
  assertEquals(names(order), ["xor 0x3", "xor 0x30", "twin a", "twin b"]);
  assertEquals(order.devices.map((p) => p.rule), ["id-xor", "id-xor", "type", "tie"]);
  assertEquals(order.devices[1]!.why, 'deviceID ^ vendorID 0x30 > 0x3 of "xor 0x3" (0x1:0x2)');
  assertEquals(sortWith([devices[3]!, devices[2]!]).devices.map((p) => p.device.name), ["twin b", "twin a"]);
});

Deno.test("VK_LOADER_DEVICE_SELECT puts the match first, 0x optional, any case, nothing removed", () => {
  for (const value of ["10005:0", "0x10005:0x0", "0X10005:0", " 10005: 0", "10005:0zz"]) {
    const order = sortWith(EVERY_TYPE, { VK_LOADER_DEVICE_SELECT: value });
    assertEquals(names(order), ["cpu", "discrete", "integrated", "virtual", "other"], value);
    assertEquals(order.devices[0]!.rule, "select");
    assertEquals(order.devices[0]!.why, `selected by VK_LOADER_DEVICE_SELECT="${value}"`);
    assert(
      order.devices[1]!.why.startsWith('after "cpu" (0x10005:0x0), which VK_LOADER_DEVICE_SELECT selected;'),
    );
  }
  assertEquals(parseDeviceSelect("10DE:1F91"), { vendorID: 0x10de, deviceID: 0x1f91, text: "10DE:1F91" });
  // Like sscanf("%x:%x") in the Khronos loader: trailing text is ignored (with a warning here).
  assertEquals(parseDeviceSelect("10de:1f91:3")?.ignored, ":3");
  assert(
    readDevicePolicy(env({ VK_LOADER_DEVICE_SELECT: "10005:0zz" })).messages.some((m) =>
      m.level === "warn" && m.text.includes('ignored ("zz")')
    ),
  );
});

Deno.test("VK_LOADER_DEVICE_SELECT: only the first of identical devices is selected", () => {
  const devices: Dev[] = [
    { name: "gpu a", vendorID: 0x10de, deviceID: 1, deviceType: T.discrete, pciBus: pci(0, 2) },
    { name: "cpu", vendorID: 9, deviceID: 9, deviceType: T.cpu },
    { name: "gpu b", vendorID: 0x10de, deviceID: 1, deviceType: T.discrete, pciBus: pci(0, 1) },
  ];
  const order = sortWith(devices, { VK_LOADER_DEVICE_SELECT: "10de:1" });
  assertEquals(names(order), ["gpu a", "gpu b", "cpu"]);
  assertEquals(order.devices.map((p) => p.rule), ["select", "type", "type"]);
});

Deno.test("VK_LOADER_DEVICE_SELECT that matches nothing, or does not parse, warns and changes nothing", () => {
  const plain = names(sortWith(EVERY_TYPE));
  const missing = sortWith(EVERY_TYPE, { VK_LOADER_DEVICE_SELECT: "dead:beef" });
  assertEquals(names(missing), plain);
  assert(
    missing.messages.some((m) =>
      m.level === "warn" && m.text.includes('"dead:beef" matches no physical device')
    ),
  );
  for (const bad of ["10de", "10de:", "xyz:1", "x10de:1", "10de :1", " 10de : 1", "123456789:1"]) {
    const policy = readDevicePolicy(env({ VK_LOADER_DEVICE_SELECT: bad }));
    assertEquals(policy.select, undefined, bad);
    assert(
      policy.messages.some((m) => m.level === "warn" && m.text.includes(`VK_LOADER_DEVICE_SELECT="${bad}"`)),
    );
    assertEquals(names(orderPhysicalDevices(EVERY_TYPE, policy, { canSort: true })), plain);
  }
});

Deno.test("VK_LOADER_DISABLE_SELECT: a non-zero integer keeps the loader order, 0 or text sorts", () => {
  const input = [...EVERY_TYPE];
  for (const value of ["1", "2", "-1", " 7x"]) {
    const order = sortWith(input, { VK_LOADER_DISABLE_SELECT: value });
    assertEquals(names(order), input.map((d) => d.name), value);
    assert(!order.sorted);
    assert(
      order.devices.every((p) =>
        p.rule === "unsorted" && p.why.includes(`VK_LOADER_DISABLE_SELECT="${value}"`)
      ),
    );
  }
  for (const value of ["0", "", "no", "00"]) {
    assertEquals(names(sortWith(input, { VK_LOADER_DISABLE_SELECT: value }))[0], "discrete", value);
  }
});

Deno.test("VK_LOADER_DISABLE_SELECT also disables VK_LOADER_DEVICE_SELECT, with a warning", () => {
  const vars = { VK_LOADER_DISABLE_SELECT: "1", VK_LOADER_DEVICE_SELECT: "10005:0" };
  const policy = readDevicePolicy(env(vars));
  assert(policy.messages.some((m) => m.level === "warn" && m.text.includes("has no effect")));
  assertEquals(
    names(orderPhysicalDevices(EVERY_TYPE, policy, { canSort: true })),
    EVERY_TYPE.map((d) => d.name),
  );
});

Deno.test("without VkPhysicalDeviceProperties2 for the instance, the loader order is kept", () => {
  const order = sortWith(EVERY_TYPE, { VK_LOADER_DEVICE_SELECT: "10005:0" }, false);
  assertEquals(names(order), EVERY_TYPE.map((d) => d.name));
  assert(order.devices[0]!.why.includes("vkGetPhysicalDeviceProperties2"));
});

Deno.test("instanceCanSort: app 1.1 with a 1.1 driver, or gpdp2 enabled on any driver (libvulkan1 1.3.239)", () => {
  const v10 = 1 << 22, v11 = v10 | (1 << 12), v13 = v10 | (3 << 12);
  const gpdp2 = ["VK_KHR_get_physical_device_properties2"];
  assert(!instanceCanSort({ appApiVersion: v10, drivers: [{ apiVersion: v13, enabledExtensions: [] }] }));
  assert(instanceCanSort({ appApiVersion: v10, drivers: [{ apiVersion: v13, enabledExtensions: gpdp2 }] }));
  assert(instanceCanSort({ appApiVersion: v11, drivers: [{ apiVersion: v13, enabledExtensions: [] }] }));
  assert(!instanceCanSort({ appApiVersion: v11, drivers: [{ apiVersion: v10, enabledExtensions: [] }] }));
  assert(instanceCanSort({ appApiVersion: 0, drivers: [{ apiVersion: v10, enabledExtensions: gpdp2 }] }));
  assert(instanceCanSort({
    appApiVersion: v11,
    drivers: [{ apiVersion: v10, enabledExtensions: [] }, { apiVersion: v13, enabledExtensions: [] }],
  }));
  assert(!instanceCanSort({ appApiVersion: v13, drivers: [] }));
});

const FILTERED: Dev[] = [
  { name: "nv", vendorID: 0x10de, deviceID: 0x2204, deviceType: T.discrete, driverID: 4 },
  { name: "amd", vendorID: 0x1002, deviceID: 0x73bf, deviceType: T.discrete, driverID: 1 },
  { name: "intel", vendorID: 0x8086, deviceID: 0x9a49, deviceType: T.integrated, driverID: 6 },
  { name: "lvp", vendorID: 0x10005, deviceID: 0, deviceType: T.cpu, driverID: 13 },
  { name: "old", vendorID: 0x1002, deviceID: 0x6860, deviceType: T.discrete },
];

Deno.test("VK_LOADER_DEVICE_ID_FILTER keeps matching ids and ranges (a-b, a:b, decimal, 0x hex)", () => {
  const cases: [string, string[]][] = [
    ["0x2204", ["nv"]],
    ["8708", ["nv"]],
    ["0x6000-0x7000,0", ["old", "lvp"]],
    ["0x6000:0x7000", ["old"]],
    ["0x9a49, 0x2204", ["nv", "intel"]],
    ["0-0xffffffff", ["nv", "amd", "old", "intel", "lvp"]],
  ];
  for (const [value, expected] of cases) {
    assertEquals(names(sortWith(FILTERED, { VK_LOADER_DEVICE_ID_FILTER: value })), expected, value);
  }
});

Deno.test("VK_LOADER_VENDOR_ID_FILTER and VK_LOADER_DRIVER_ID_FILTER; a device without a driverID fails the latter", () => {
  assertEquals(names(sortWith(FILTERED, { VK_LOADER_VENDOR_ID_FILTER: "0x1002" })), ["amd", "old"]);
  assertEquals(names(sortWith(FILTERED, { VK_LOADER_VENDOR_ID_FILTER: "4098,65541" })), [
    "amd",
    "old",
    "lvp",
  ]);
  const byDriver = sortWith(FILTERED, { VK_LOADER_DRIVER_ID_FILTER: "1-6" });
  assertEquals(names(byDriver), ["nv", "amd", "intel"]);
  const old = byDriver.removed.find((r) => r.device.name === "old")!;
  assertEquals(old.filters, ["VK_LOADER_DRIVER_ID_FILTER"]);
  assert(old.why.includes("driverID is unknown"), old.why);
  const lvp = byDriver.removed.find((r) => r.device.name === "lvp")!;
  assertEquals(lvp.why, 'removed: VK_LOADER_DRIVER_ID_FILTER="1-6" does not match driverID 0xd (13)');
  assertEquals(lvp.inputIndex, 3);
});

Deno.test("every given id filter must match (intersection)", () => {
  const vars = {
    VK_LOADER_VENDOR_ID_FILTER: "0x1002,0x10de",
    VK_LOADER_DEVICE_ID_FILTER: "0x2000-0x7400",
    VK_LOADER_DRIVER_ID_FILTER: "1",
  };
  const order = sortWith(FILTERED, vars);
  assertEquals(names(order), ["amd"]);
  const nv = order.removed.find((r) => r.device.name === "nv")!;
  assertEquals(nv.filters, ["VK_LOADER_DRIVER_ID_FILTER"]);
  const intel = order.removed.find((r) => r.device.name === "intel")!;
  assertEquals(intel.filters, [
    "VK_LOADER_DEVICE_ID_FILTER",
    "VK_LOADER_VENDOR_ID_FILTER",
    "VK_LOADER_DRIVER_ID_FILTER",
  ]);
  assertEquals(order.removed.length, 4);
});

Deno.test("id filters and the select combine: a filtered-out selection selects nothing", () => {
  const order = sortWith(FILTERED, {
    VK_LOADER_VENDOR_ID_FILTER: "0x1002",
    VK_LOADER_DEVICE_SELECT: "10005:0",
  });
  assertEquals(names(order), ["amd", "old"]);
  assert(order.messages.some((m) => m.text.includes("matches no physical device")));
  const kept = sortWith(FILTERED, {
    VK_LOADER_VENDOR_ID_FILTER: "0x1002",
    VK_LOADER_DEVICE_SELECT: "1002:6860",
  });
  assertEquals(names(kept), ["old", "amd"]);
});

Deno.test("id filters still apply with sorting off", () => {
  const order = sortWith(FILTERED, { VK_LOADER_DISABLE_SELECT: "1", VK_LOADER_DRIVER_ID_FILTER: "6,13" });
  assertEquals(names(order), ["intel", "lvp"]);
});

Deno.test("id filter parsing: bad entries warn and are left out; no valid entry removes everything", () => {
  assertEquals(parseIdFilter(" 1 , 0x10-0x20, 5:7 ,, ").ranges, [
    { first: 1, last: 1 },
    { first: 16, last: 32 },
    { first: 5, last: 7 },
  ]);
  assertEquals(parseIdFilter("x, 0xg, 3-, 9-2, 1-2-3, 0x100000000").invalid, [
    "x",
    "0xg",
    "3-",
    "9-2",
    "1-2-3",
    "0x100000000",
  ]);
  const partly = readDevicePolicy(env({ VK_LOADER_VENDOR_ID_FILTER: "0x10de,nvidia" }));
  assertEquals(partly.vendorIdFilter?.ranges, [{ first: 0x10de, last: 0x10de }]);
  assert(partly.messages.some((m) => m.level === "warn" && m.text.includes('entry "nvidia"')));
  const none = sortWith(FILTERED, { VK_LOADER_VENDOR_ID_FILTER: "nvidia" });
  assertEquals(names(none), []);
  assertEquals(none.removed.length, FILTERED.length);
});

Deno.test("id filters: at most 16 entries are used; empty values are unset", () => {
  const many = Array.from({ length: 18 }, (_, i) => String(i)).join(",");
  const parsed = parseIdFilter(many);
  assertEquals(parsed.ranges.length, 16);
  assertEquals(parsed.dropped, ["16", "17"]);
  assert(
    readDevicePolicy(env({ VK_LOADER_DEVICE_ID_FILTER: many })).messages.some((m) =>
      m.text.includes('"16,17"')
    ),
  );
  const policy = readDevicePolicy(env({ VK_LOADER_DEVICE_ID_FILTER: "", VK_LOADER_VENDOR_ID_FILTER: "  " }));
  assertEquals([policy.deviceIdFilter, policy.vendorIdFilter], [undefined, undefined]);
});

Deno.test("id filters are ignored in an elevated process (read with secure getenv)", () => {
  const policy = readDevicePolicy(
    env({ VK_LOADER_VENDOR_ID_FILTER: "1", VK_LOADER_DEVICE_SELECT: "10005:0" }, true),
  );
  assertEquals(policy.vendorIdFilter, undefined);
  assertEquals(policy.select?.vendorID, 0x10005);
});

const A_CPU: Dev = { name: "A-cpu", vendorID: 0x10, deviceID: 1, deviceType: T.cpu, driverID: 13 };
const A_INT: Dev = { name: "A-int", vendorID: 0x10, deviceID: 2, deviceType: T.integrated, driverID: 6 };
const B_OTHER: Dev = { name: "B-other", vendorID: 0x20, deviceID: 1, deviceType: T.other, driverID: 1 };
const B_PCI: Dev = {
  name: "B-pci",
  vendorID: 0x20,
  deviceID: 2,
  deviceType: T.discrete,
  pciBus: pci(0, 3),
  driverID: 1,
};
const B_DISC: Dev = { name: "B-disc", vendorID: 0x20, deviceID: 3, deviceType: T.discrete, driverID: 1 };

function groupNames(vars: Record<string, string>, groups: Dev[][], canSort = true): string[][] {
  return orderPhysicalDeviceGroups(groups, readDevicePolicy(env(vars)), { canSort }).groups.map((g) =>
    g.devices.map((p) => p.device.name)
  );
}

Deno.test("groups: devices sorted inside each group, then groups by their first device", () => {
  const groups = [[A_CPU, A_INT], [B_OTHER], [B_DISC, B_PCI]];
  assertEquals(groupNames({}, groups), [["B-pci", "B-disc"], ["A-int", "A-cpu"], ["B-other"]]);
  const order = orderPhysicalDeviceGroups(groups, readDevicePolicy(env()), { canSort: true });
  assertEquals(order.groups.map((g) => g.inputIndex), [2, 0, 1]);
  assertEquals(
    order.groups[2]!.why,
    'by its first device: other ranks below integrated GPU "A-int" (0x10:0x2)',
  );
});

Deno.test("groups: VK_LOADER_DEVICE_SELECT moves its group first and itself first in it", () => {
  const groups = [[A_INT, A_CPU], [B_OTHER], [B_PCI, B_DISC]];
  assertEquals(groupNames({ VK_LOADER_DEVICE_SELECT: "10:1" }, groups), [["A-cpu", "A-int"], [
    "B-pci",
    "B-disc",
  ], [
    "B-other",
  ]]);
  assertEquals(groupNames({ VK_LOADER_DEVICE_SELECT: "20:3" }, groups), [["B-disc", "B-pci"], [
    "A-int",
    "A-cpu",
  ], [
    "B-other",
  ]]);
});

Deno.test("groups: unsorted with VK_LOADER_DISABLE_SELECT or without properties2", () => {
  const groups = [[A_INT, A_CPU], [B_OTHER], [B_DISC, B_PCI]];
  const input = groups.map((g) => g.map((d) => d.name));
  assertEquals(groupNames({ VK_LOADER_DISABLE_SELECT: "1" }, groups), input);
  assertEquals(groupNames({}, groups, false), input);
});

Deno.test("groups: a group is removed when any of its devices fails an id filter", () => {
  const groups = [[A_INT, A_CPU], [B_OTHER], [B_PCI, B_DISC]];
  const order = orderPhysicalDeviceGroups(
    groups,
    readDevicePolicy(env({ VK_LOADER_DRIVER_ID_FILTER: "1,6" })),
    {
      canSort: true,
    },
  );
  assertEquals(order.groups.map((g) => g.devices.map((p) => p.device.name)), [["B-pci", "B-disc"], [
    "B-other",
  ]]);
  assertEquals(order.removed.map((r) => r.inputIndex), [0]);
  assert(
    order.removed[0]!.why.includes(
      'member "A-cpu" (0x10:0x1): VK_LOADER_DRIVER_ID_FILTER="1,6" does not match',
    ),
  );
});

Deno.test("the same five devices as the libvulkan1 measurement: sorted, selected, unsorted", () => {
  // Loader order of two mock drivers (reverse discovery: driver B, then A), as libvulkan1 1.3.239 gave it.
  const loaderOrder = [B_OTHER, B_PCI, B_DISC, A_CPU, A_INT];
  assertEquals(names(sortWith(loaderOrder)), ["B-pci", "B-disc", "A-int", "B-other", "A-cpu"]);
  assertEquals(names(sortWith(loaderOrder, { VK_LOADER_DEVICE_SELECT: "10:1" })), [
    "A-cpu",
    "B-pci",
    "B-disc",
    "A-int",
    "B-other",
  ]);
  assertEquals(names(sortWith(loaderOrder, { VK_LOADER_DEVICE_SELECT: "20:3" })), [
    "B-disc",
    "B-pci",
    "A-int",
    "B-other",
    "A-cpu",
  ]);
  assertEquals(
    names(sortWith(loaderOrder, { VK_LOADER_DISABLE_SELECT: "1" })),
    loaderOrder.map((d) => d.name),
  );
});

Deno.test("the two-call idiom over a filtered list: count, then VK_INCOMPLETE below it", () => {
  const order = sortWith(FILTERED, { VK_LOADER_VENDOR_ID_FILTER: "0x1002,0x8086" });
  const total = order.devices.length;
  assertEquals(total, 3);
  // What the trampoline answers with (vk/two_call.ts): count, then `capacity` items and VK_INCOMPLETE (5).
  const window = (list: readonly unknown[], capacity: number | undefined) => {
    const count = new Uint32Array([capacity ?? 0]);
    const out = new Uint32Array(8);
    const result = writeTwoCall(
      Deno.UnsafePointer.of(count),
      capacity === undefined ? null : Deno.UnsafePointer.of(out),
      list,
      (i) => out[i] = i + 1,
    );
    return { count: count[0], result, written: [...out].filter((v) => v !== 0).length };
  };
  assertEquals(window(order.devices, undefined), { count: 3, result: 0, written: 0 });
  assertEquals(window(order.devices, 2), { count: 2, result: 5, written: 2 });
  assertEquals(window(order.devices, 3), { count: 3, result: 0, written: 3 });
  assertEquals(window(order.devices, 8), { count: 3, result: 0, written: 3 });
  assertEquals(window([], 0), { count: 0, result: 0, written: 0 });
});

Deno.test("the order log lists each device with its rule's sentence", () => {
  const order = sortWith(EVERY_TYPE, {
    VK_LOADER_DEVICE_SELECT: "10005:0",
    VK_LOADER_VENDOR_ID_FILTER: "0x10005,0x10de",
  });
  const lines = order.messages.map((m) => m.text);
  assertEquals(lines.filter((l) => l.startsWith("Physical device ") && l.includes(" removed: ")).length, 3);
  assert(
    lines.includes('    [0] "cpu" (0x10005:0x0): selected by VK_LOADER_DEVICE_SELECT="10005:0"'),
    lines.join("\n"),
  );
  assert(order.messages.every((m) => m.category === "driver"));
});

const arbDevice: fc.Arbitrary<Dev> = fc.record({
  name: fc.string({ maxLength: 4 }),
  vendorID: fc.integer({ min: 0, max: 3 }),
  deviceID: fc.integer({ min: 0, max: 3 }),
  deviceType: fc.integer({ min: 0, max: 4 }),
  pciBus: fc.option(
    fc.record({
      domain: fc.integer({ min: 0, max: 1 }),
      bus: fc.integer({ min: 0, max: 2 }),
      device: fc.integer({ min: 0, max: 1 }),
      function: fc.integer({ min: 0, max: 1 }),
    }),
    { nil: undefined },
  ),
}, { requiredKeys: ["name", "vendorID", "deviceID", "deviceType"] });

Deno.test("property: the sort is a permutation, keys never decrease, the first match of the select leads", () => {
  const rank: Record<number, number> = { 2: 0, 1: 1, 3: 2, 0: 3, 4: 4 };
  fc.assert(
    fc.property(fc.array(arbDevice, { maxLength: 8 }), fc.integer({ min: 0, max: 3 }), (devices, v) => {
      const order = sortWith(devices, { VK_LOADER_DEVICE_SELECT: `${v}:1` });
      assertEquals(order.devices.map((p) => p.inputIndex).sort((a, b) => a - b), devices.map((_, i) => i));
      const first = devices.findIndex((d) => d.vendorID === v && d.deviceID === 1);
      const rest = order.devices.filter((p) => p.inputIndex !== first).map((p) => p.device);
      if (first >= 0) assertEquals(order.devices[0]!.inputIndex, first);
      const key = (d: Dev) => [
        rank[d.deviceType]!,
        d.pciBus ? 0 : 1,
        d.pciBus?.domain ?? 0,
        d.pciBus?.bus ?? 0,
        d.pciBus?.device ?? 0,
        d.pciBus?.function ?? 0,
        (d.deviceID ^ d.vendorID) >>> 0,
      ];
      for (let i = 1; i < rest.length; i++) {
        const a = key(rest[i - 1]!), b = key(rest[i]!);
        const diff = a.findIndex((x, k) => x !== b[k]);
        assert(diff < 0 || a[diff]! < b[diff]!, JSON.stringify([rest[i - 1], rest[i]]));
      }
    }),
    { numRuns: 300 },
  );
});

Deno.test("explainEnumeratedOrder: a policy order explains itself; another order is flagged as a layer's", () => {
  const policy = readDevicePolicy(env({ VK_LOADER_DEVICE_SELECT: "10005:0" }));
  const sorted = sortWith(EVERY_TYPE, { VK_LOADER_DEVICE_SELECT: "10005:0" }).devices.map((p) => p.device);
  const explained = explainEnumeratedOrder(sorted, policy, { canSort: true });
  assertEquals(explained.map((e) => e.rule), ["select", "type", "type", "type", "type"]);
  const reversed = explainEnumeratedOrder([...sorted].reverse(), policy, { canSort: true });
  assert(reversed.every((e) => e.rule === "layer"));
  assertEquals(
    reversed[0]!.why,
    "reordered above the loader (by a layer): the loader's policy puts it at position 4",
  );
  const unsorted = explainEnumeratedOrder(
    EVERY_TYPE,
    readDevicePolicy(env({ VK_LOADER_DISABLE_SELECT: "1" })),
    {
      canSort: true,
    },
  );
  assert(unsorted.every((e) => e.rule === "unsorted"));
});

// ---------------------------------------------------------------------------------------------------
// End to end: the same rules through vkdeno's enumeration terminators, over mock drivers.
// ---------------------------------------------------------------------------------------------------

function deviceNameOf(l: Loaded, pd: Pointer): string {
  const props = allocStruct(l.arena, "VkPhysicalDeviceProperties");
  l.vk.vkGetPhysicalDeviceProperties(asHandle("VkPhysicalDevice", pd)!, props);
  return readStruct("VkPhysicalDeviceProperties", props).deviceName as string;
}

/** A loader over `env` plus `vars`, one instance at `apiVersion`, and its devices' names in order. */
function enumerateNames(
  env: MockEnvironment,
  vars: Record<string, string> = {},
  options: InstanceOptions = {},
): { names: string[]; lines: string[] } {
  const snapshot = env.snapshot(vars);
  using l = load(snapshot);
  const { result, instance } = createInstance(l, options);
  assertEquals(result, 0);
  try {
    return { names: physicalDevices(l, instance).map((pd) => deviceNameOf(l, pd)), lines: [...l.lines] };
  } finally {
    l.vk.vkDestroyInstance(instance, null);
  }
}

/** Drivers A (discovered first) and B, every device type, with and without PCI bus info, driver IDs. */
async function twoDrivers(): Promise<MockEnvironment> {
  const env = await MockEnvironment.create();
  await env.addDriver({
    name: "A",
    physicalDevices: [
      { name: "A-cpu", type: "cpu", vendorId: 0x10, deviceId: 1, driverId: 13 },
      { name: "A-integrated", type: "integrated", vendorId: 0x10, deviceId: 2, driverId: 6 },
      { name: "A-virtual", type: "virtual", vendorId: 0x10, deviceId: 3, driverId: 6 },
    ],
  });
  await env.addDriver({
    name: "B",
    physicalDevices: [
      { name: "B-other", type: "other", vendorId: 0x20, deviceId: 1, driverId: 1 },
      {
        name: "B-discrete-pci-4",
        type: "discrete",
        vendorId: 0x20,
        deviceId: 2,
        driverId: 1,
        pciBus: pci(0, 4),
      },
      { name: "B-discrete", type: "discrete", vendorId: 0x20, deviceId: 3, driverId: 1 },
      {
        name: "B-discrete-pci-3",
        type: "discrete",
        vendorId: 0x20,
        deviceId: 4,
        driverId: 1,
        pciBus: pci(0, 3, 0, 1),
      },
    ],
  });
  return env;
}

const SORTED = [
  "B-discrete-pci-3",
  "B-discrete-pci-4",
  "B-discrete",
  "A-integrated",
  "A-virtual",
  "B-other",
  "A-cpu",
];
const LOADER_ORDER = [
  "B-other",
  "B-discrete-pci-4",
  "B-discrete",
  "B-discrete-pci-3",
  "A-cpu",
  "A-integrated",
  "A-virtual",
];

Deno.test("through the loader: sorted by type, PCI bus, then IDs, with the order and its reasons logged", async () => {
  await using env = await twoDrivers();
  const { names, lines } = enumerateNames(env);
  assertEquals(names, SORTED);
  assert(lines.some((l) => l.includes("Physical device order (sorted:")), lines.join("\n"));
  assert(
    lines.some((l) =>
      l.includes('[0] "B-discrete-pci-3" (0x20:0x4): PCI bus 0000:03:00.1 before 0000:04:00.0')
    ),
  );
});

Deno.test("through the loader: VK_LOADER_DEVICE_SELECT puts each device first in turn", async () => {
  await using env = await twoDrivers();
  const cases: [string, string][] = [["10:1", "A-cpu"], ["0x20:0x1", "B-other"], ["20:3", "B-discrete"]];
  for (const [select, first] of cases) {
    const { names } = enumerateNames(env, { VK_LOADER_DEVICE_SELECT: select });
    assertEquals(names, [first, ...SORTED.filter((n) => n !== first)], select);
  }
});

Deno.test("through the loader: VK_LOADER_DISABLE_SELECT gives the Khronos loader order (drivers reversed)", async () => {
  await using env = await twoDrivers();
  assertEquals(enumerateNames(env, { VK_LOADER_DISABLE_SELECT: "1" }).names, LOADER_ORDER);
});

Deno.test("through the loader: a 1.0 app is sorted when drivers have properties2, not when none has", async () => {
  await using env = await twoDrivers();
  assertEquals(enumerateNames(env, {}, { apiVersion: "1.0.0" }).names, SORTED);
  await using bare = await MockEnvironment.create();
  for (const name of ["A", "B"]) {
    await bare.addDriver({
      name,
      instanceExtensions: ["VK_KHR_surface"],
      physicalDevices: [{ name: `${name}-cpu`, type: "cpu" }, { name: `${name}-discrete`, type: "discrete" }],
    });
  }
  assertEquals(enumerateNames(bare, {}, { apiVersion: "1.0.0" }).names, [
    "B-cpu",
    "B-discrete",
    "A-cpu",
    "A-discrete",
  ]);
  assertEquals(enumerateNames(bare, {}, { apiVersion: "1.1.0" }).names, [
    "B-discrete",
    "A-discrete",
    "B-cpu",
    "A-cpu",
  ]);
});

Deno.test("through the loader: each id filter, and their intersection", async () => {
  await using env = await twoDrivers();
  const cases: [Record<string, string>, string[]][] = [
    [{ VK_LOADER_VENDOR_ID_FILTER: "0x10" }, ["A-integrated", "A-virtual", "A-cpu"]],
    [{ VK_LOADER_DEVICE_ID_FILTER: "2-3" }, ["B-discrete-pci-4", "B-discrete", "A-integrated", "A-virtual"]],
    [{ VK_LOADER_DRIVER_ID_FILTER: "6,13" }, ["A-integrated", "A-virtual", "A-cpu"]],
    [{ VK_LOADER_DRIVER_ID_FILTER: "1" }, ["B-discrete-pci-3", "B-discrete-pci-4", "B-discrete", "B-other"]],
    [{
      VK_LOADER_VENDOR_ID_FILTER: "16:32",
      VK_LOADER_DEVICE_ID_FILTER: "0x2",
      VK_LOADER_DRIVER_ID_FILTER: "1",
    }, [
      "B-discrete-pci-4",
    ]],
  ];
  for (const [vars, expected] of cases) {
    const { names, lines } = enumerateNames(env, vars);
    assertEquals(names, expected, JSON.stringify(vars));
    assert(lines.some((l) => l.includes(" removed: ")), JSON.stringify(vars));
  }
});

Deno.test("through the loader: VK_LOADER_DRIVER_ID_FILTER removes devices without VkPhysicalDeviceDriverProperties", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({
    name: "old",
    physicalDevices: [
      { name: "old 1.1 device", apiVersion: "1.1.0", type: "discrete", driverId: 13 },
      { name: "new device", type: "integrated", driverId: 13 },
    ],
  });
  const { names, lines } = enumerateNames(env, { VK_LOADER_DRIVER_ID_FILTER: "13" });
  assertEquals(names, ["new device"]);
  assert(
    lines.some((l) => l.includes('"old 1.1 device"') && l.includes("driverID is unknown")),
    lines.join("\n"),
  );
});

Deno.test("through the loader: the two-call idiom counts filtered devices; short arrays get VK_INCOMPLETE", async () => {
  await using env = await twoDrivers();
  using l = load(env.snapshot({ VK_LOADER_VENDOR_ID_FILTER: "0x20" }));
  const { instance } = createInstance(l);
  const count = u32Slot(l);
  assertEquals(l.vk.vkEnumeratePhysicalDevices(instance, count.pointer, null), 0);
  assertEquals(count.read(), 4);
  const two = l.arena.pointer(l.arena.alloc(16));
  const capped = u32Slot(l, 2);
  assertEquals(l.vk.vkEnumeratePhysicalDevices(instance, capped.pointer, two), 5);
  assertEquals(capped.read(), 2);
  const full = physicalDevices(l, instance);
  assertEquals(full.length, 4);
  assertEquals([readPointer(two, 0), readPointer(two, 8)].map(addr), full.slice(0, 2).map(addr));
  assertEquals(full.map((pd) => deviceNameOf(l, pd)), [
    "B-discrete-pci-3",
    "B-discrete-pci-4",
    "B-discrete",
    "B-other",
  ]);
  l.vk.vkDestroyInstance(instance, null);
});

Deno.test("through the loader: a filter that removes every device gives zero devices and groups, VK_SUCCESS", async () => {
  await using env = await twoDrivers();
  using l = load(env.snapshot({ VK_LOADER_VENDOR_ID_FILTER: "0xdead" }));
  const { instance } = createInstance(l);
  const count = u32Slot(l, 9);
  assertEquals(l.vk.vkEnumeratePhysicalDevices(instance, count.pointer, null), 0);
  assertEquals(count.read(), 0);
  const groups = u32Slot(l, 9);
  assertEquals(l.vk.vkEnumeratePhysicalDeviceGroups(instance, groups.pointer, null), 0);
  assertEquals(groups.read(), 0);
  assert(l.lines.some((x) => x.includes('VK_LOADER_VENDOR_ID_FILTER="0xdead" does not match vendorID')));
  l.vk.vkDestroyInstance(instance, null);
});

/** `vkEnumeratePhysicalDeviceGroups` as lists of device names. */
function groupNamesThrough(env: MockEnvironment, vars: Record<string, string> = {}): string[][] {
  using l = load(env.snapshot(vars));
  const { instance } = createInstance(l);
  try {
    const count = u32Slot(l);
    assertEquals(l.vk.vkEnumeratePhysicalDeviceGroups(instance, count.pointer, null), 0);
    const n = count.read();
    const size = sizeOfStruct("VkPhysicalDeviceGroupProperties");
    const p = allocStruct(l.arena, "VkPhysicalDeviceGroupProperties", { count: Math.max(1, n) });
    assertEquals(l.vk.vkEnumeratePhysicalDeviceGroups(instance, count.pointer, p), 0);
    return Array.from({ length: count.read() }, (_, i) => {
      const g = readStruct(
        "VkPhysicalDeviceGroupProperties",
        Deno.UnsafePointer.create(addr(p) + BigInt(i * size)),
      );
      return (g.physicalDevices as Pointer[]).slice(0, g.physicalDeviceCount as number).map((pd) =>
        deviceNameOf(l, pd)
      );
    });
  } finally {
    l.vk.vkDestroyInstance(instance, null);
  }
}

async function groupedDrivers(): Promise<MockEnvironment> {
  const env = await MockEnvironment.create();
  await env.addDriver({
    name: "A",
    physicalDevices: [
      { name: "A-cpu", type: "cpu", vendorId: 0x10, deviceId: 1, driverId: 13 },
      { name: "A-integrated", type: "integrated", vendorId: 0x10, deviceId: 2, driverId: 6 },
    ],
    groups: [[0, 1]],
  });
  await env.addDriver({
    name: "B",
    physicalDevices: [
      { name: "B-other", type: "other", vendorId: 0x20, deviceId: 1, driverId: 1 },
      { name: "B-discrete", type: "discrete", vendorId: 0x20, deviceId: 3, driverId: 1 },
      {
        name: "B-discrete-pci",
        type: "discrete",
        vendorId: 0x20,
        deviceId: 2,
        driverId: 1,
        pciBus: pci(0, 2),
      },
    ],
    groups: [[0], [1, 2]],
  });
  return env;
}

Deno.test("through the loader: groups sorted inside and by their first device; select and disable-select", async () => {
  await using env = await groupedDrivers();
  assertEquals(groupNamesThrough(env), [["B-discrete-pci", "B-discrete"], ["A-integrated", "A-cpu"], [
    "B-other",
  ]]);
  assertEquals(groupNamesThrough(env, { VK_LOADER_DEVICE_SELECT: "10:1" }), [
    ["A-cpu", "A-integrated"],
    ["B-discrete-pci", "B-discrete"],
    ["B-other"],
  ]);
  assertEquals(groupNamesThrough(env, { VK_LOADER_DISABLE_SELECT: "1" }), [
    ["B-other"],
    ["B-discrete", "B-discrete-pci"],
    ["A-cpu", "A-integrated"],
  ]);
});

Deno.test("through the loader: a group with a member the filters reject is left out", async () => {
  await using env = await groupedDrivers();
  assertEquals(groupNamesThrough(env, { VK_LOADER_DRIVER_ID_FILTER: "1,6" }), [[
    "B-discrete-pci",
    "B-discrete",
  ], [
    "B-other",
  ]]);
  assertEquals(groupNamesThrough(env, { VK_LOADER_DEVICE_ID_FILTER: "1" }), [["B-other"]]);
});

Deno.test("describeDevicePolicy: the rules in force, for deno task inspect", () => {
  const on = describeDevicePolicy(readDevicePolicy(env({
    VK_LOADER_DEVICE_SELECT: "10de:2204",
    VK_LOADER_VENDOR_ID_FILTER: "0x10de,4098-4099,bad",
  })));
  assertEquals(on.select, "0x10de:0x2204");
  assertEquals(on.filters, [{
    variable: "VK_LOADER_VENDOR_ID_FILTER",
    value: "0x10de,4098-4099,bad",
    ranges: ["0x10de", "0x1002-0x1003"],
  }]);
  assert(on.lines.includes("    1. VK_LOADER_DEVICE_SELECT: 0x10de:0x2204 first"), on.lines.join("\n"));
  assertEquals(on.warnings.length, 1);
  const off = describeDevicePolicy(readDevicePolicy(env({ VK_LOADER_DISABLE_SELECT: "1" })));
  assert(!off.sorting);
  assert(
    off.lines.some((l) => l.includes('sorting: off (VK_LOADER_DISABLE_SELECT="1")')),
    off.lines.join("\n"),
  );
  assert(off.lines.includes("    id filters: none (every device is listed)"));
});

Deno.test("deno task info explains the order: each device with the rule that placed it", async () => {
  await using env = await twoDrivers();
  const snapshot = env.snapshot({ VK_LOADER_DEVICE_SELECT: "10:2" });
  using vk = Vulkan.load({ env: snapshot });
  const report = collectInfo(vk as unknown as VulkanCommands, { env: snapshot });
  assertEquals(report.devices.map((d) => d.name), [
    "A-integrated",
    ...SORTED.filter((n) => n !== "A-integrated"),
  ]);
  assertEquals(report.order!.map((o) => o.rule), [
    "select",
    "pci-bus",
    "pci-bus",
    "pci-bus-missing",
    "type",
    "type",
    "type",
  ]);
  assertEquals(report.order![0], {
    device: 0,
    rule: "select",
    why: 'selected by VK_LOADER_DEVICE_SELECT="10:2"',
  });
  const text = formatInfo(report);
  assert(text.includes('    order         = select: selected by VK_LOADER_DEVICE_SELECT="10:2"'), text);
});

Deno.test("deno task inspect lists the device-policy variables and the rules in force", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-env",
      new URL("../../../tools/inspect.ts", import.meta.url).pathname,
      "--json",
    ],
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      DENO_DIR: Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME") ?? "/root"}/.cache/deno`,
      HOME: "/nonexistent",
      VK_DRIVER_FILES: "/nonexistent.json",
      VK_LOADER_DEVICE_SELECT: "10de:2204",
      VK_LOADER_DRIVER_ID_FILTER: "1-4",
    },
    clearEnv: true,
  }).output();
  const report = JSON.parse(new TextDecoder().decode(out.stdout));
  assertEquals(report.environment.variables.VK_LOADER_DEVICE_SELECT, "10de:2204");
  assertEquals(report.devicePolicy.select, "0x10de:0x2204");
  assertEquals(report.devicePolicy.filters, [{
    variable: "VK_LOADER_DRIVER_ID_FILTER",
    value: "1-4",
    ranges: ["0x1-0x4"],
  }]);
});
