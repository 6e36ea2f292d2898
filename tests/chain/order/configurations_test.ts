/**
 * The loader settings file's `device_configurations` (docs/behaviour.md G10, D08; the Khronos loader's
 * `loader_apply_settings_device_configurations`, Vulkan-Loader PRs #1826 and #2011): the list selects and
 * orders the physical devices, matched by deviceUUID + driverUUID + driverVersion; an empty list shows
 * none; a malformed entry is skipped with a warning naming it; a group holding a hidden device is not
 * reported; the driver variables are ignored while the list is present; a 1.0 application still gets the
 * matching (its instance is raised to 1.1). Debian's libvulkan1 1.3.239 predates the settings file, so these
 * run vkdeno only, against the loader's documented and coded behaviour.
 */

import { deepStrictEqual as assertEquals, match as assertMatch, ok as assert } from "node:assert/strict";
import { MockEnvironment } from "../../support/mock.ts";
import type { MockDriverConfig } from "../../support/mock_config.ts";
import { readLoaderSettings } from "../../../discovery/settings_file.ts";
import { buildInspectReport, formatInspectReport } from "../../../discovery/inspect.ts";
import { only, type ProbeOptions, vkdenoProbe } from "../../support/conform.ts";
import { createInstance, load, u32Slot } from "../../support/chain.ts";
import { collectInfo } from "../../../examples/info.ts";
import { Vulkan, type VulkanCommands } from "../../../vulkan.ts";

const FILE = "vulkan/loader_settings.d/vk_loader_settings.json";
const SYSTEM = { system: "usr/share/vulkan/icd.d" } as const;
/** The mock's default `driverVersion`, 1.0.0 packed. */
const DRIVER_VERSION = 1 << 22;

/** A device UUID of 32 hex digits ending in `n`. */
function uuid(n: number): string {
  return `a0a1a2a3a4a5a6a7a8a9aaabacadae${n.toString(16).padStart(2, "0")}`;
}

function bytes(hex: string): number[] {
  return Array.from({ length: 16 }, (_, i) => Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16));
}

/** A settings entry naming the mock device with `uuid(n)` (the mock's driverUUID is its UUID with byte 0 ^ 0xff). */
function entry(n: number, name?: string, driverVersion = DRIVER_VERSION): Record<string, unknown> {
  const device = bytes(uuid(n));
  const driver = [...device];
  driver[0] = driver[0]! ^ 0xff;
  return { deviceUUID: device, driverUUID: driver, driverVersion, ...(name ? { deviceName: name } : {}) };
}

/** Writes the settings file (one global entry) under $HOME/.local/share; returns its path. */
function writeSettings(env: MockEnvironment, settings: Record<string, unknown>): string {
  const path = env.path(`home/.local/share/${FILE}`);
  Deno.mkdirSync(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  Deno.writeTextFileSync(path, JSON.stringify({ file_format_version: "1.0.0", settings }, null, 2));
  return path;
}

/** Two drivers in the system folder: "a" with A1, A2 and "b" with B3 (UUIDs end in the digit). */
async function twoDrivers(env: MockEnvironment, extra: Partial<MockDriverConfig> = {}): Promise<void> {
  await env.addDriver({
    name: "a",
    physicalDevices: [{ name: "A1", uuid: uuid(1) }, { name: "A2", uuid: uuid(2) }],
    ...extra,
  }, { placement: SYSTEM });
  await env.addDriver({ name: "b", physicalDevices: [{ name: "B3", uuid: uuid(3) }], ...extra }, {
    placement: SYSTEM,
  });
}

function probe(env: MockEnvironment, o: ProbeOptions = {}) {
  const r = vkdenoProbe(env, o);
  return {
    devices: only(r.lines, "device ").map((l) => l.slice(7)),
    result: only(r.lines, "devices result=")[0],
    groupsResult: only(r.lines, "groups result=")[0],
    groups: only(r.lines, "group ").map((l) => l.slice(6)),
    log: r.log,
  };
}

Deno.test("device_configurations: the list decides which devices are enumerated and in what order", async () => {
  await using env = await MockEnvironment.create();
  await twoDrivers(env);
  // Without the list: all three, in the loader's order.
  assertEquals(probe(env).devices.sort(), ["A1", "A2", "B3"]);
  // The list's order wins over the sort, whatever driver the devices belong to; A2 is hidden.
  writeSettings(env, { device_configurations: [entry(3, "B3"), entry(1, "A1")] });
  const p = probe(env);
  assertEquals(p.devices, ["B3", "A1"]);
  assertEquals(p.result, "devices result=0 count=2");
  assert(
    p.log.some((l) => /Physical device "A2" hidden by the loader settings file/.test(l)),
    p.log.join("\n"),
  );
  assert(p.log.some((l) => /\[0\] "B3": device_configurations\[0\]/.test(l)), p.log.join("\n"));
  writeSettings(env, { device_configurations: [entry(2), entry(3), entry(1)] });
  assertEquals(probe(env).devices, ["A2", "B3", "A1"]);
  // The count query gives the matched count (the Khronos loader gives min(entries, devices), an upper
  // bound: 2 here; vkdeno's exact count is within the two-call contract, see chain/order/configurations.ts).
  writeSettings(env, { device_configurations: [entry(3), entry(9, "Gone")] });
  {
    using l = load(env.snapshot());
    const { result, instance } = createInstance(l);
    assertEquals(result, 0);
    const count = u32Slot(l);
    assertEquals(l.vk.vkEnumeratePhysicalDevices(instance, count.pointer, null), 0);
    assertEquals(count.read(), 1);
    l.vk.vkDestroyInstance(instance, null);
  }
  // driverVersion is part of the match: a different one names no device; the rest still apply.
  const path = writeSettings(env, {
    device_configurations: [entry(1, "A1", DRIVER_VERSION + 1), entry(3, "B3")],
  });
  const q = probe(env);
  assertEquals(q.devices, ["B3"]);
  assert(
    q.log.some((l) =>
      l.includes(`The loader settings file "${path}" names a physical device that is not present`)
    ),
    q.log.join("\n"),
  );
});

Deno.test("device_configurations: an empty list shows no device; a list matching none fails the enumeration", async () => {
  await using env = await MockEnvironment.create();
  await twoDrivers(env);
  writeSettings(env, { device_configurations: [] });
  const empty = probe(env);
  assertEquals(empty.devices, []);
  assertEquals(empty.result, "devices result=0 count=0");
  assertEquals(empty.groups, []);
  // Named devices, none present: VK_ERROR_INITIALIZATION_FAILED, as the Khronos loader returns.
  writeSettings(env, { device_configurations: [entry(9, "Gone")] });
  const none = probe(env);
  assertEquals(none.result, "devices result=-3 count=0");
  // The group enumeration fails alike (the Khronos loader's group path reuses the device list's function).
  assertEquals(none.groupsResult, "groups result=-3 count=0");
  assert(none.log.some((l) => /None of the device_configurations .* matches a physical device/.test(l)));
  // A settings file without the key leaves devices alone (PR #1826: "has devices" is its own setting).
  writeSettings(env, { stderr_log: ["error"] });
  assertEquals(probe(env).devices.length, 3);
});

Deno.test("device_configurations: a malformed entry is skipped with one warning naming it; the rest apply", async () => {
  await using env = await MockEnvironment.create();
  await twoDrivers(env);
  const path = writeSettings(env, {
    device_configurations: [
      {
        deviceUUID: [1, 2, 3],
        driverUUID: entry(1).driverUUID,
        driverVersion: DRIVER_VERSION,
        deviceName: "Short",
      },
      "not an entry",
      { ...entry(3), driverVersion: "1.0.0" },
      entry(2, "A2"),
    ],
  });
  const settings = readLoaderSettings(env.snapshot()).settings;
  assertEquals(settings?.deviceConfigurations?.map((c) => c.index), [3]);
  assertEquals(settings?.deviceConfigurations?.[0]?.deviceName, "A2");
  const warnings = settings?.warnings ?? [];
  assertMatch(
    warnings[0] ?? "",
    /"settings.device_configurations\[0\]" \("Short"\) "deviceUUID" is not an array of 16/,
  );
  assertMatch(warnings[1] ?? "", /"settings.device_configurations\[1\]" is a string, not an object: skipped/);
  assertMatch(warnings[2] ?? "", /"settings.device_configurations\[2\]" "driverVersion" is a string/);
  assertEquals(warnings.length, 3);
  // Two instances in one process: each warning is printed once (one message per fault).
  const p = probe(env);
  assertEquals(p.devices, ["A2"]);
  const r = vkdenoProbe(env);
  assertEquals(only(r.lines, "device ").map((l) => l.slice(7)), ["A2"]);
  const said = p.log.filter((l) =>
    l.includes(`Loader settings file "${path}": "settings.device_configurations[0]"`)
  );
  assertEquals(said.length, 1, p.log.join("\n"));
  // The inspect report shows the list and the faults.
  const report = formatInspectReport(buildInspectReport(env.snapshot()));
  assertMatch(
    report,
    /device_configurations\[3\]\n\s+reason: \("A2"\): deviceUUID a0a1a2a3-a4a5-a6a7-a8a9-aaabacadae02/,
  );
  assertMatch(report, /"settings.device_configurations\[1\]" is a string, not an object: skipped/);
});

Deno.test("device_configurations: a group holding a hidden device is not reported; groups of shown devices are", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({
    name: "linked",
    physicalDevices: [{ name: "L1", uuid: uuid(1) }, { name: "L2", uuid: uuid(2) }],
    groups: [[0, 1]],
  }, { placement: SYSTEM });
  await env.addDriver({ name: "solo", physicalDevices: [{ name: "S3", uuid: uuid(3) }] }, {
    placement: SYSTEM,
  });
  assertEquals(probe(env).groups.sort(), ["L1,L2 known=yes", "S3 known=yes"]);
  writeSettings(env, { device_configurations: [entry(1), entry(3)] });
  const p = probe(env);
  assertEquals(p.devices, ["L1", "S3"]);
  // L2 is hidden, so the L1+L2 group goes whole (Vulkan-Loader PR #2011), though L1 is shown.
  assertEquals(p.groups, ["S3 known=yes"]);
  assert(p.log.some((l) => /group \d \("L1", "L2"\) not reported: it holds "L2"/.test(l)), p.log.join("\n"));
  writeSettings(env, { device_configurations: [entry(3), entry(2), entry(1)] });
  assertEquals(probe(env).groups.sort(), ["L1,L2 known=yes", "S3 known=yes"]);
  writeSettings(env, { device_configurations: [] });
  assertEquals(probe(env).groups, []);
});

Deno.test("device_configurations: the driver variables are ignored while the list is present, honoured without it", async () => {
  await using env = await MockEnvironment.create();
  await twoDrivers(env);
  const vars = { VK_LOADER_DRIVERS_DISABLE: "b*" };
  assertEquals(probe(env, { vars }).devices.sort(), ["A1", "A2"]);
  const only1 = { VK_DRIVER_FILES: env.path("root/usr/share/vulkan/icd.d/a.json") };
  assertEquals(probe(env, { vars: only1 }).devices.sort(), ["A1", "A2"]);
  const path = writeSettings(env, { device_configurations: [entry(3), entry(1)] });
  const p = probe(env, { vars });
  assertEquals(p.devices, ["B3", "A1"]);
  assert(
    p.log.some((l) =>
      l.includes(`Ignoring env var 'VK_LOADER_DRIVERS_DISABLE' because the loader settings file "${path}"`)
    ),
    p.log.join("\n"),
  );
  assertEquals(probe(env, { vars: only1 }).devices, ["B3", "A1"]);
  assertEquals(
    probe(env, { vars: { VK_LOADER_DRIVERS_SELECT: "a*", VK_ICD_FILENAMES: only1.VK_DRIVER_FILES } }).devices,
    [
      "B3",
      "A1",
    ],
  );
});

Deno.test("device_configurations: a 1.0 application gets the matching (instance raised to 1.1); a 1.0 device cannot match", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({
    name: "a",
    physicalDevices: [
      { name: "A1", uuid: uuid(1) },
      { name: "Old2", uuid: uuid(2), apiVersion: "1.0.0" },
      { name: "A3", uuid: uuid(3) },
    ],
  }, { placement: SYSTEM });
  writeSettings(env, { device_configurations: [entry(3), entry(2, "Old2"), entry(1)] });
  env.clearCallLog();
  const p = probe(env, { apiVersion: "1.0" });
  assertEquals(p.devices, ["A3", "A1"]);
  assert(
    p.log.some((l) => /Physical device "Old2" hidden .*\(a Vulkan 1\.0 device/.test(l)),
    p.log.join("\n"),
  );
  // The driver's instance was made at 1.1 for the 1.0 application.
  const created = env.callLog("a").filter((l) => l.split(" ")[1] === "vkCreateInstance");
  assertMatch(created[0] ?? "", /apiVersion=1\.1\.0/);
  // Without the list a 1.0 application's instance stays 1.0.
  writeSettings(env, { stderr_log: ["error"] });
  env.clearCallLog();
  probe(env, { apiVersion: "1.0" });
  assertMatch(
    env.callLog("a").filter((l) => l.split(" ")[1] === "vkCreateInstance")[0] ?? "",
    /apiVersion=1\.0\.0/,
  );
});

Deno.test("device_configurations: deno task info says which entry placed each device", async () => {
  await using env = await MockEnvironment.create();
  await twoDrivers(env);
  const path = writeSettings(env, { device_configurations: [entry(2), entry(3)] });
  const snapshot = env.snapshot();
  using vk = Vulkan.load({ env: snapshot });
  const report = collectInfo(vk as unknown as VulkanCommands, { env: snapshot });
  assertEquals(report.devices.map((d) => d.name), ["A2", "B3"]);
  assertEquals(report.order, [
    {
      device: 0,
      rule: "settings",
      why: `device_configurations[0] of the loader settings file "${path}" puts it at position 0`,
    },
    {
      device: 1,
      rule: "settings",
      why: `device_configurations[1] of the loader settings file "${path}" puts it at position 1`,
    },
  ]);
});

Deno.test("device_configurations: drivers the application hands over alone are selected by the list too", async () => {
  await using env = await MockEnvironment.create();
  const drv = await env.addDriver({
    name: "given",
    physicalDevices: [{ name: "G1", uuid: uuid(1) }, { name: "G2", uuid: uuid(2) }],
  }, { placement: "none" });
  const snapshot = env.snapshot();
  const names = () => {
    using vk = Vulkan.load({ env: snapshot, drivers: [drv.manifestPath] });
    return collectInfo(vk as unknown as VulkanCommands, { env: snapshot }).devices.map((d) => d.name);
  };
  assertEquals(names().sort(), ["G1", "G2"]);
  // No driver scan reads the file here (driversMode "exclusive"): the list still applies, as the Khronos
  // loader applies it whatever drivers it has.
  writeSettings(env, { device_configurations: [entry(2)] });
  assertEquals(names(), ["G2"]);
});
