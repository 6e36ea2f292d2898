/**
 * Filter elements are taken as written (docs/behaviour.md D07): in `VK_LOADER_DRIVERS_SELECT` / `_DISABLE`
 * and `VK_LOADER_LAYERS_ENABLE` / `_DISABLE` / `_ALLOW`, a blank around an element is part of it, so
 * `" name.json"` matches nothing, and a `*` inside an element is a literal character. Side by side with
 * Debian's libvulkan1 1.3.239 (the current Khronos loader agrees).
 */

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { MockEnvironment } from "../support/mock.ts";
import { khronosProbe, only, vkdenoProbe } from "../support/conform.ts";
import { matchesAnyFilter, parseFilterList } from "../../discovery/filter.ts";

Deno.test('VK_LOADER_DRIVERS_DISABLE=" e.json" (a leading blank) disables nothing', async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "e", physicalDevices: [{ name: "E0" }] });
  const o = { vars: { VK_LOADER_DRIVERS_DISABLE: " e.json" } };
  const ours = vkdenoProbe(env, o);
  const theirs = await khronosProbe(env, o);
  assertEquals(only(ours.lines, "device "), ["device E0"]);
  assertEquals(only(ours.lines, "device "), only(theirs.lines, "device "));
});

Deno.test('VK_LOADER_DRIVERS_SELECT="f.json, e.json" selects f.json only', async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "e", physicalDevices: [{ name: "E0" }] });
  await env.addDriver({ name: "f", physicalDevices: [{ name: "F0" }] });
  const o = { vars: { VK_LOADER_DRIVERS_SELECT: "f.json, e.json" } };
  const ours = vkdenoProbe(env, o);
  const theirs = await khronosProbe(env, o);
  assertEquals(only(ours.lines, "device "), ["device F0"]);
  assertEquals(only(ours.lines, "device "), only(theirs.lines, "device "));
});

Deno.test('VK_LOADER_LAYERS_DISABLE="VK_LAYER_NONE, ~all~" disables no layer: " ~all~" is no special token', async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "d", physicalDevices: [{ name: "D0" }] });
  await env.addLayer({ name: "VK_LAYER_MOCK_explicit" });
  await env.addLayer({ name: "VK_LAYER_MOCK_implicit" }, { implicit: true });
  const o = { vars: { VK_LOADER_LAYERS_DISABLE: "VK_LAYER_NONE, ~all~" } };
  const ours = vkdenoProbe(env, o);
  const theirs = await khronosProbe(env, o);
  const mocks = (lines: string[]) => only(lines, "layer VK_LAYER_MOCK_");
  assertEquals(mocks(ours.lines), ["layer VK_LAYER_MOCK_implicit", "layer VK_LAYER_MOCK_explicit"]);
  assertEquals(mocks(ours.lines), mocks(theirs.lines));
});

Deno.test("a filter keeps its blanks and a * inside it is a literal character", () => {
  const { filters } = parseFilterList(" *lvp* ,, intel*", "VK_LOADER_DRIVERS_SELECT");
  assertEquals(filters.map((f) => f.text), [" *lvp* ", " intel*"]);
  assertEquals(matchesAnyFilter(filters, "lvp_icd.x86_64.json"), false);
  assertEquals(matchesAnyFilter(filters, "intel_icd.x86_64.json"), false);
  assertEquals(matchesAnyFilter(filters, " intel_icd.x86_64.json"), true);
  const middle = parseFilterList("lvp*x86_64.json,*a*b*").filters;
  assertEquals(matchesAnyFilter(middle, "lvp_icd.x86_64.json"), false);
  assertEquals(matchesAnyFilter(middle, "lvp*x86_64.json"), true);
  assertEquals(matchesAnyFilter(middle, "xa*by"), true);
  assertEquals(matchesAnyFilter(middle, "xaby"), false);
});
