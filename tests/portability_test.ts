/**
 * VK_KHR_portability_enumeration as pure decisions (chain/portability.ts): which drivers an instance uses
 * for flag only, extension only, both and neither, with mixed drivers; the per-driver flag stripping; and
 * one distinct message per misuse.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import {
  decidePortability,
  driverPortabilityInfo,
  PORTABILITY_ENUMERATION_EXTENSION as EXT,
  portabilityError,
  VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR as FLAG,
} from "../chain/portability.ts";

const REGULAR = { fileName: "lvp_icd.x86_64.json", isPortabilityDriver: false };
const PORTABLE = { fileName: "MoltenVK_icd.json", isPortabilityDriver: true };
const PORTABLE2 = { fileName: "kosmickrisp_icd.json", isPortabilityDriver: true };
const MIXED = [PORTABLE, REGULAR, PORTABLE2];

const BOTH = { flags: FLAG, enabledExtensions: ["VK_KHR_surface", EXT] };
const FLAG_ONLY = { flags: FLAG, enabledExtensions: ["VK_KHR_surface"] };
const EXT_ONLY = { flags: 0, enabledExtensions: [EXT] };
const NEITHER = { flags: 0, enabledExtensions: [] };

const fileNames = (list: readonly { fileName: string }[]) => list.map((d) => d.fileName);

Deno.test("portability drivers are used when the flag is set and the extension enabled", () => {
  const d = decidePortability(MIXED, BOTH);
  assert(d.enumeratePortability);
  assertEquals(fileNames(d.used), fileNames(MIXED));
  assertEquals(d.skipped, []);
  assertEquals(d.messages.map((m) => m.level), ["info"]);
  assertEquals(portabilityError(d), undefined);
});

Deno.test("flag without the extension: portability drivers left out, VUID warning even with other drivers", () => {
  const d = decidePortability(MIXED, FLAG_ONLY);
  assert(!d.enumeratePortability);
  assertEquals(fileNames(d.used), [REGULAR.fileName]);
  assertEquals(fileNames(d.skipped.map((s) => s.driver)), [PORTABLE.fileName, PORTABLE2.fileName]);
  const warn = d.messages.filter((m) => m.level === "warn");
  assertEquals(warn.length, 1);
  assert(warn[0]!.text.includes("VUID-VkInstanceCreateInfo-flags-06559"), warn[0]!.text);
  assertEquals(
    d.skipped[0]!.why,
    `it is a portability driver ("is_portability_driver": true) and "${EXT}" is not enabled`,
  );
  // Invalid usage is reported even when there is no portability driver at all.
  assert(decidePortability([REGULAR], FLAG_ONLY).messages.some((m) => m.text.includes("06559")));
});

Deno.test("extension without the flag: portability drivers left out, one warning naming them", () => {
  const d = decidePortability(MIXED, EXT_ONLY);
  assertEquals(fileNames(d.used), [REGULAR.fileName]);
  const warn = d.messages.filter((m) => m.level === "warn");
  assertEquals(warn.length, 1);
  assert(warn[0]!.text.includes('"MoltenVK_icd.json", "kosmickrisp_icd.json"'), warn[0]!.text);
  assert(warn[0]!.text.includes("lacks VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR"), warn[0]!.text);
  assertEquals(decidePortability([REGULAR], EXT_ONLY).messages, []);
});

Deno.test("neither flag nor extension: portability drivers left out quietly (info lines only)", () => {
  const d = decidePortability(MIXED, NEITHER);
  assertEquals(fileNames(d.used), [REGULAR.fileName]);
  assertEquals(d.messages.map((m) => m.level), ["info", "info"]);
  assertEquals(
    d.messages[0]!.text,
    'Driver "MoltenVK_icd.json" not used: it is a portability driver ("is_portability_driver": true) and ' +
      `VkInstanceCreateInfo.flags lacks VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR and "${EXT}" is not enabled`,
  );
  assertEquals(decidePortability([REGULAR], NEITHER).messages, []);
});

Deno.test("only portability drivers: each misuse fails with VK_ERROR_INCOMPATIBLE_DRIVER and its own message", () => {
  const errors = [FLAG_ONLY, EXT_ONLY, NEITHER].map((request) => {
    const d = decidePortability([PORTABLE], request);
    assertEquals(d.used, []);
    const e = portabilityError(d)!;
    assertEquals([e.result, e.code], ["VK_ERROR_INCOMPATIBLE_DRIVER", -9]);
    assert(
      e.message.startsWith(
        'Cannot create instance: the only drivers found are portability drivers ("MoltenVK_icd.json")',
      ),
    );
    return e.message;
  });
  assertEquals(new Set(errors).size, 3);
  assert(
    errors[0]!.includes("VUID-VkInstanceCreateInfo-flags-06559") &&
      errors[0]!.endsWith("enable the extension to use them"),
  );
  assert(errors[1]!.endsWith("set the flag to use them"), errors[1]);
  assert(
    errors[2]!.includes("set VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR") &&
      errors[2]!.includes(`"${EXT}"`),
  );
  assertEquals(portabilityError(decidePortability([PORTABLE], BOTH)), undefined);
  assertEquals(portabilityError(decidePortability([], NEITHER)), undefined);
});

Deno.test("the flag counts only as bit 0x1; other flag bits do not opt in", () => {
  assert(!decidePortability([PORTABLE], { flags: 0x2, enabledExtensions: [EXT] }).enumeratePortability);
  assert(decidePortability([PORTABLE], { flags: 0x3, enabledExtensions: [EXT] }).enumeratePortability);
});

Deno.test("the portability flag is stripped for drivers without the extension and kept for those with it", () => {
  const without = driverPortabilityInfo(BOTH, {
    fileName: "lvp.json",
    instanceExtensions: ["VK_KHR_surface"],
  });
  assertEquals([without.flags, without.flagStripped, without.passExtension], [0, true, false]);
  assert(without.message?.text.includes('Driver "lvp.json" does not advertise'));
  const withExt = driverPortabilityInfo(BOTH, { fileName: "mvk.json", instanceExtensions: [EXT] });
  assertEquals([withExt.flags, withExt.flagStripped, withExt.passExtension, withExt.message], [
    FLAG,
    false,
    true,
    undefined,
  ]);
  const otherBits = driverPortabilityInfo({ flags: FLAG | 0x4, enabledExtensions: [EXT] }, {
    fileName: "lvp.json",
    instanceExtensions: [],
  });
  assertEquals(otherBits.flags, 0x4);
  const unset = driverPortabilityInfo(NEITHER, { fileName: "mvk.json", instanceExtensions: [EXT] });
  assertEquals([unset.flags, unset.flagStripped, unset.passExtension], [0, false, false]);
});
