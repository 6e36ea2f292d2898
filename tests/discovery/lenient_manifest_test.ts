/**
 * Lenient manifest fields (docs/behaviour.md M06): a manifest the Khronos loader uses, vkdeno uses too, with a
 * warning naming the field. A field of the wrong type is ignored with a warning; the manifest is skipped
 * only when it cannot be used without that field. Each case runs a mock driver under both loaders.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { MockEnvironment } from "../support/mock.ts";
import { khronosProbe, only, vkdenoProbe } from "../support/conform.ts";

interface Case {
  readonly name: string;
  /** The manifest text; `${libraryPath}` is replaced by the mock library's path. */
  readonly text: string;
  /** A piece of the warning vkdeno logs. */
  readonly warning: RegExp;
}

const CASES: Case[] = [
  {
    name: "driver api_version given as a JSON number (1.2)",
    text: `{"file_format_version": "1.0.1", "ICD": {"library_path": "\${libraryPath}", "api_version": 1.2}}`,
    warning: /field "ICD\.api_version" is the number 1\.2, expected a string; read as "1\.2"/,
  },
  {
    name: '"is_portability_driver": "true" (a string: an ordinary driver)',
    text: `{"file_format_version": "1.0.1", "ICD": {"library_path": "\${libraryPath}", "api_version": "1.3.0",
      "is_portability_driver": "true"}}`,
    warning:
      /field "ICD\.is_portability_driver" is "true", expected true or false; ignored \(an ordinary driver\)/,
  },
  {
    name: "text after the closing brace of the top-level object",
    text:
      `{"file_format_version": "1.0.1", "ICD": {"library_path": "\${libraryPath}", "api_version": "1.3.0"}}
    }} and a note the packager left`,
    warning:
      /file has text after the closing brace of its top-level object \(from line \d+, column \d+\); it is ignored/,
  },
];

for (const c of CASES) {
  Deno.test(`lenient manifest: ${c.name} is used, as by the Khronos loader, with a warning naming it`, async () => {
    await using env = await MockEnvironment.create();
    await env.addDriver({ name: "lenient", physicalDevices: [{ name: "Lenient0" }] }, {
      manifestText: c.text,
    });
    await env.addDriver({ name: "plain", variant: "export", physicalDevices: [{ name: "Plain0" }] });
    const ours = vkdenoProbe(env);
    const theirs = await khronosProbe(env);
    assertEquals(only(ours.lines, "device ").sort(), ["device Lenient0", "device Plain0"]);
    assertEquals(only(ours.lines, "device ").sort(), only(theirs.lines, "device ").sort());
    const warnings = ours.log.filter((l) => c.warning.test(l));
    assertEquals(warnings.length, 1, `one warning matching ${c.warning}:\n${ours.log.join("\n")}`);
    assert(warnings[0]!.includes("lenient.json"), warnings[0]);
  });
}
