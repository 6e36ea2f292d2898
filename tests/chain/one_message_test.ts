/**
 * One message per fault (docs/behaviour.md V01): the same warning about the
 * same unchanged manifest or driver is printed once per process, not once per global call. The Khronos
 * loader re-reads every manifest and re-asks every driver on each global call and prints the warning each
 * time: there vkdeno differs on purpose and the test counts both. Once the file changes, the warning is
 * news again.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { MockEnvironment } from "../support/mock.ts";
import { khronosProbe, only, vkdenoProbe } from "../support/conform.ts";
import { createInstance, load, u32Slot } from "../support/chain.ts";

function count(lines: readonly string[], pattern: RegExp): number {
  return lines.filter((l) => pattern.test(l)).length;
}

async function faultyEnvironment(): Promise<MockEnvironment> {
  const env = await MockEnvironment.create();
  await env.addDriver({ name: "good", variant: "export", physicalDevices: [{ name: "Good0" }] });
  await env.addDriver({
    name: "failing",
    enumeratePhysicalDevicesResult: -3,
    physicalDevices: [{ name: "Failing0" }],
  });
  // a manifest with a defect the loader warns about and skips: no library_path
  await env.addDriver({ name: "bad" }, {
    manifestText: `{"file_format_version": "1.0.1", "ICD": {"api_version": "1.3.0"}}`,
  });
  return env;
}

Deno.test("one message per fault: a failing vkEnumeratePhysicalDevices and a bad manifest are each logged once in a run", async () => {
  await using env = await faultyEnvironment();
  const ours = vkdenoProbe(env);
  const theirs = await khronosProbe(env);
  // vkdeno skips the failing driver and the bad manifest and goes on with the good driver, as the current
  // Khronos loader does (Vulkan-Loader PR #1468, 2024: "skip over drivers that return non-VK_SUCCESS").
  // Debian's libvulkan1 1.3.239 predates it and fails the whole call.
  assertEquals(only(ours.lines, "device"), ["devices result=0 count=1", "device Good0"]);
  const theirsDevices = only(theirs.lines, "device");
  assert(
    JSON.stringify(theirsDevices) === JSON.stringify(only(ours.lines, "device")) ||
      JSON.stringify(theirsDevices) === JSON.stringify(["devices result=-3 count=0"]),
    theirsDevices.join("\n"),
  );
  const failing = /Driver "failing\.json": vkEnumeratePhysicalDevices failed/;
  const bad = /Skipping driver manifest ".*\/bad\.json": field "ICD\.library_path" is missing/;
  assertEquals(count(ours.log, failing), 1, ours.log.join("\n"));
  assertEquals(count(ours.log, bad), 1, ours.log.join("\n"));
  // the Khronos loader re-reads the manifests on every global call and says so each time
  const theirsBad = count(theirs.log, /bad\.json/);
  assert(theirsBad > 1, `libvulkan printed the bad manifest ${theirsBad} times`);
});

Deno.test("one message per fault: the same warning is printed again once the manifest changed", async () => {
  await using env = await faultyEnvironment();
  using l = load(env.snapshot({ VK_LOADER_DEBUG: "warn" }));
  const enumerate = () => {
    const n = u32Slot(l);
    assertEquals(l.vk.vkEnumerateInstanceExtensionProperties(null, n.pointer, null), 0);
  };
  const bad = /bad\.json": field "ICD\.library_path" is missing/;
  enumerate();
  enumerate();
  const created = createInstance(l);
  assertEquals(created.result, 0);
  l.vk.vkDestroyInstance(created.instance, null);
  assertEquals(count(l.lines, bad), 1, l.lines.join("\n"));
  // an edit that keeps the defect: the file changed, so the warning is printed again, once
  const path = env.drivers.find((d) => d.name === "bad")!.manifestPath;
  Deno.writeTextFileSync(path, `{"file_format_version": "1.0.1", "ICD": {"api_version": "1.2.0"}}\n`);
  enumerate();
  enumerate();
  assertEquals(count(l.lines, bad), 2, l.lines.join("\n"));
});
