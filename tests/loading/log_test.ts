/** The loader log: VK_LOADER_DEBUG filtering, line format, sinks, VkError. */

import assert from "node:assert/strict";
import { formatLogLine, LOG_BITS, Logger, parseLoaderDebug } from "../../loading/log.ts";
import { resultCode, resultName, VkError } from "../../vk/errors.ts";
import type { EnvironmentSnapshot } from "../../discovery/environment.ts";

function capture(vars: Record<string, string>, elevated = false) {
  const lines: string[] = [];
  const env: EnvironmentSnapshot = { vars, elevated };
  return { lines, log: new Logger(env, { write: (l) => lines.push(l) }) };
}

Deno.test("VK_LOADER_DEBUG unset prints nothing", () => {
  const { lines, log } = capture({});
  log.error("a", "driver");
  log.warn("b");
  log.info("c", "layer");
  log.debug("d");
  assert.deepEqual(lines, []);
});

Deno.test("VK_LOADER_DEBUG kinds are exclusive: warn shows warnings, not errors", () => {
  const { lines, log } = capture({ VK_LOADER_DEBUG: "warn" });
  log.error("an error");
  log.warn("a warning");
  log.info("info");
  assert.deepEqual(lines, ["WARNING:          a warning"]);
});

Deno.test("VK_LOADER_DEBUG tokens are prefixes matched in the loader's order", () => {
  assert.equal(parseLoaderDebug("e"), LOG_BITS.error);
  assert.equal(parseLoaderDebug("d"), LOG_BITS.debug);
  assert.equal(parseLoaderDebug("dr"), LOG_BITS.driver);
  assert.equal(parseLoaderDebug("i"), LOG_BITS.info);
  assert.equal(parseLoaderDebug("implem"), LOG_BITS.driver);
  assert.equal(parseLoaderDebug("icd"), LOG_BITS.driver);
  assert.equal(parseLoaderDebug("p"), LOG_BITS.perf);
  assert.equal(parseLoaderDebug("warn,layer"), LOG_BITS.warn | LOG_BITS.layer);
  assert.equal(parseLoaderDebug("all"), 0xff);
});

Deno.test("VK_LOADER_DEBUG tokens are case-sensitive, untrimmed, and longer tokens do not match", () => {
  assert.equal(parseLoaderDebug("WARN"), 0);
  assert.equal(parseLoaderDebug(" warn"), 0);
  assert.equal(parseLoaderDebug("errors"), 0);
  assert.equal(parseLoaderDebug(""), 0);
  assert.equal(parseLoaderDebug("bogus,info"), LOG_BITS.info);
});

Deno.test("VK_LOADER_DEBUG is honoured for an elevated process", () => {
  const { lines, log } = capture({ VK_LOADER_DEBUG: "error" }, true);
  log.error("shown");
  assert.equal(lines.length, 1);
});

Deno.test("a category enables its messages of every severity", () => {
  const { lines, log } = capture({ VK_LOADER_DEBUG: "driver" });
  log.debug("searching", "driver");
  log.info("found", "driver");
  log.info("found layer", "layer");
  log.log({ category: "driver", text: "bare" });
  assert.deepEqual(lines, [
    "DEBUG | DRIVER:   searching",
    "INFO | DRIVER:    found",
    "DRIVER:           bare",
  ]);
});

Deno.test("line tags name only enabled categories and pad to 18 columns", () => {
  const { lines, log } = capture({ VK_LOADER_DEBUG: "warn,debug" });
  log.warn("w", "driver");
  log.debug("d", "layer");
  assert.deepEqual(lines, ["WARNING:          w", "DEBUG:            d"]);
  assert.equal(formatLogLine({ level: "warn", category: "driver", text: "m" }), "WARNING | DRIVER: m");
  assert.equal(formatLogLine({ level: "error", text: "m" }), "ERROR:            m");
  assert.equal(formatLogLine({ level: "info", category: "perf", text: "m" }), "INFO | PERF:      m");
});

Deno.test("discovery messages log in order through logAll", () => {
  const { lines, log } = capture({ VK_LOADER_DEBUG: "all" });
  log.logAll([
    { level: "info", category: "driver", text: "Searching for driver manifest files" },
    { level: "warn", category: "general", text: "x" },
  ]);
  assert.deepEqual(lines, ["INFO | DRIVER:    Searching for driver manifest files", "WARNING:          x"]);
});

Deno.test("sinks see every message whatever VK_LOADER_DEBUG says, until detached", () => {
  const { lines, log } = capture({});
  const seen: string[] = [];
  const detach = log.addSink((r) => seen.push(`${r.bits}:${r.text}`));
  log.debug("one", "layer");
  log.error("two");
  detach();
  log.error("three");
  assert.deepEqual(seen, [`${LOG_BITS.debug | LOG_BITS.layer}:one`, `${LOG_BITS.error}:two`]);
  assert.deepEqual(lines, []);
  assert.equal(log.sinkCount, 0);
});

Deno.test("a throwing sink is reported and does not stop the others", () => {
  const { lines, log } = capture({});
  const seen: string[] = [];
  log.addSink(() => {
    throw new Error("messenger broke");
  });
  log.addSink((r) => seen.push(r.text));
  log.info("hello");
  assert.deepEqual(seen, ["hello"]);
  assert.deepEqual(lines, ["ERROR:            Log sink threw: Error: messenger broke"]);
});

Deno.test("fatal messages print even when nothing is enabled, once when errors are", () => {
  const off = capture({});
  off.log.fatal("bad handle");
  assert.deepEqual(off.lines, ["ERROR:            bad handle"]);
  const on = capture({ VK_LOADER_DEBUG: "error" });
  on.log.fatal("bad handle");
  assert.deepEqual(on.lines, ["ERROR:            bad handle"]);
});

Deno.test("VkError carries the VkResult name and code", () => {
  const byName = new VkError(
    "VK_ERROR_LAYER_NOT_PRESENT",
    'Cannot create instance: layer "VK_LAYER_x" not found',
  );
  assert.ok(byName instanceof Error);
  assert.equal(byName.name, "VkError");
  assert.equal(byName.code, -6);
  assert.equal(byName.result, "VK_ERROR_LAYER_NOT_PRESENT");
  const byCode = new VkError(-9, "m");
  assert.equal(byCode.result, "VK_ERROR_INCOMPATIBLE_DRIVER");
  assert.equal(new VkError(-424242, "m").result, "VkResult(-424242)");
  assert.throws(() => new VkError("VK_NOT_A_RESULT", "m"), /Unknown VkResult "VK_NOT_A_RESULT"/);
  assert.equal(resultName(5), "VK_INCOMPLETE");
  assert.equal(resultCode("VK_SUBOPTIMAL_KHR"), 1000001003);
});

Deno.test("VkError.check passes positive results and throws for negative ones", () => {
  assert.equal(VkError.check(5, "vkEnumeratePhysicalDevices"), 5);
  assert.throws(
    () => VkError.check(-3, "vkCreateInstance"),
    (e: unknown) =>
      e instanceof VkError && e.code === -3 &&
      e.message === 'Command "vkCreateInstance" failed with "VK_ERROR_INITIALIZATION_FAILED"',
  );
});
