// Loader log messages reach debug-utils and debug-report messengers (chain/extensions/debug.ts).
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { CallbackOwner } from "../../../ffi/callback.ts";
import { fnFromPointer } from "../../../ffi/library.ts";
import { Arena, readCString, readPointer, readU32, readU64 } from "../../../ffi/memory.ts";
import { readStruct, writeStruct } from "../../../api/structs.ts";
import {
  DebugMessengers,
  MESSAGE_TYPE,
  messageSeverityAndType,
  readMessengerCreateInfos,
  REPORT_FLAGS,
  SEVERITY,
} from "../../../chain/extensions/debug.ts";
import { LOG_BITS, Logger } from "../../../loading/log.ts";
import { addr, createDevice, load, physicalDevices } from "../../support/chain.ts";
import { MockEnvironment } from "../../support/mock.ts";
import { asHandle } from "../../../vk/handle.ts";
import { readHandle } from "../../../vk/handle.ts";
import type {
  VkDebugReportFlagsEXT,
  VkDebugUtilsMessageSeverityFlagsEXT,
  VkDebugUtilsMessageTypeFlagsEXT,
} from "../../../mod.ts";
import { hasLavapipe, LAVAPIPE } from "../../support/lavapipe.ts";

interface Seen {
  kind: "utils" | "report";
  severity: number;
  type: number;
  idName: string;
  message: string;
  objects: bigint[];
  userData: bigint;
}

/** An application's messenger callbacks, recording what they get. */
class AppMessengers implements Disposable {
  readonly seen: Seen[] = [];
  readonly callbacks = new CallbackOwner();
  readonly utils: Deno.PointerObject;
  readonly report: Deno.PointerObject;

  constructor() {
    this.utils = this.callbacks.create(
      { parameters: ["u32", "u32", "pointer", "pointer"], result: "u32" },
      (severity, type, data, user) => {
        const d = readStruct("VkDebugUtilsMessengerCallbackDataEXT", data);
        const count = d.objectCount as number;
        const objects: bigint[] = [];
        const list = readPointer(data, 88);
        for (let i = 0; i < count; i++) {
          assertEquals(readU32(list, i * 40 + 16), 1); // VK_OBJECT_TYPE_INSTANCE
          objects.push(readU64(list, i * 40 + 24));
        }
        this.seen.push({
          kind: "utils",
          severity,
          type,
          idName: readCString(readPointer(data, 24)),
          message: readCString(readPointer(data, 40)),
          objects,
          userData: Deno.UnsafePointer.value(user),
        });
        return 0;
      },
      { name: "app utils messenger", onError: 0 },
    ).pointer as Deno.PointerObject;
    this.report = this.callbacks.create(
      { parameters: ["u32", "u32", "u64", "usize", "i32", "pointer", "pointer", "pointer"], result: "u32" },
      (flags, objectType, object, _location, _code, prefix, message, user) => {
        assertEquals(objectType, 1);
        this.seen.push({
          kind: "report",
          severity: flags,
          type: 0,
          idName: readCString(prefix),
          message: readCString(message),
          objects: [BigInt(object)],
          userData: Deno.UnsafePointer.value(user),
        });
        return 0;
      },
      { name: "app report callback", onError: 0 },
    ).pointer as Deno.PointerObject;
  }

  [Symbol.dispose](): void {
    this.callbacks.dispose();
  }
}

const quiet = { vars: {}, elevated: false };
const ALL_SEVERITIES = 0x1111 as VkDebugUtilsMessageSeverityFlagsEXT;
const ALL_TYPES = 0x7 as VkDebugUtilsMessageTypeFlagsEXT;

Deno.test("log levels and categories map to debug-utils severities and types", () => {
  const of = (level: "error" | "warn" | "info" | "debug", category?: "perf" | "layer" | "validation") => {
    const bits = LOG_BITS[level] | (category ? LOG_BITS[category] : 0);
    return messageSeverityAndType({ level, category, text: "", bits });
  };
  assertEquals(of("error"), { severity: SEVERITY.error, type: MESSAGE_TYPE.general });
  assertEquals(of("warn", "perf"), { severity: SEVERITY.warning, type: MESSAGE_TYPE.performance });
  assertEquals(of("info", "layer"), { severity: SEVERITY.info, type: MESSAGE_TYPE.general });
  assertEquals(of("debug", "validation"), { severity: SEVERITY.verbose, type: MESSAGE_TYPE.validation });
});

Deno.test("create-info messengers get every loader message while active, filtered by severity, and none after", () => {
  using app = new AppMessengers();
  using arena = new Arena();
  const info = writeStruct(arena, "VkInstanceCreateInfo", {
    pNext: [
      {
        type: "VkDebugUtilsMessengerCreateInfoEXT",
        messageSeverity: (SEVERITY.warning | SEVERITY.error) as VkDebugUtilsMessageSeverityFlagsEXT,
        messageType: ALL_TYPES,
        pfnUserCallback: app.utils,
        pUserData: Deno.UnsafePointer.create(0x1234n),
      },
      {
        type: "VkDebugReportCallbackCreateInfoEXT",
        flags: (REPORT_FLAGS.error | REPORT_FLAGS.debug) as VkDebugReportFlagsEXT,
        pfnCallback: app.report,
        pUserData: Deno.UnsafePointer.create(0x5678n),
      },
    ],
  });
  assertEquals(readMessengerCreateInfos(readPointer(info, 8)).map((m) => m.kind), ["utils", "report"]);
  // VK_LOADER_DEBUG is unset: nothing printed, messengers still see everything.
  const printed: string[] = [];
  const log = new Logger(quiet, { write: (l) => printed.push(l) });
  using messengers = new DebugMessengers();
  const instance = Deno.UnsafePointer.create(0xabc0n);
  const done = messengers.activateCreateInfo(info, log, instance);
  log.warn('Layer "VK_LAYER_x" skipped', "layer");
  log.info("not for the utils messenger");
  log.error('Cannot load driver "x.json"', "driver");
  log.debug("for the report callback");
  done();
  log.error("after the create call: nobody");
  assertEquals(printed, []);
  assertEquals(app.seen.map((s) => [s.kind, s.severity, s.message]), [
    ["utils", SEVERITY.warning, 'Layer "VK_LAYER_x" skipped'],
    ["utils", SEVERITY.error, 'Cannot load driver "x.json"'],
    ["report", REPORT_FLAGS.error, 'Cannot load driver "x.json"'],
    ["report", REPORT_FLAGS.debug, "for the report callback"],
  ]);
  for (const s of app.seen) {
    assertEquals(s.idName, "Loader Message");
    assertEquals(s.objects, [0xabc0n]);
    assertEquals(s.userData, s.kind === "utils" ? 0x1234n : 0x5678n);
  }
});

Deno.test("a create info without messengers attaches nothing", () => {
  using arena = new Arena();
  const log = new Logger(quiet, { write: () => {} });
  using messengers = new DebugMessengers();
  const done = messengers.activateCreateInfo(writeStruct(arena, "VkInstanceCreateInfo", {}), log, null);
  assertEquals(log.sinkCount, 0);
  done();
});

Deno.test("messengers made through the terminators get loader messages until destroyed", () => {
  using app = new AppMessengers();
  using arena = new Arena();
  const log = new Logger(quiet, { write: () => {} });
  const messengers = new DebugMessengers();
  const t = messengers.terminators();
  const instance = Deno.UnsafePointer.create(0xdef0n);
  messengers.attach(log, instance);
  const create = fnFromPointer(t.vkCreateDebugUtilsMessengerEXT!, {
    parameters: ["pointer", "pointer", "pointer", "pointer"],
    result: "i32",
  });
  const handle = new BigUint64Array(1);
  const info = writeStruct(arena, "VkDebugUtilsMessengerCreateInfoEXT", {
    messageSeverity: ALL_SEVERITIES,
    messageType: ALL_TYPES,
    pfnUserCallback: app.utils,
  });
  assertEquals(create.call(instance, info, null, Deno.UnsafePointer.of(handle)), 0);
  assert(handle[0] !== 0n);
  assertEquals(messengers.size, 1);
  log.info('Insert instance layer "VK_LAYER_a"', "layer");
  // vkSubmitDebugUtilsMessageEXT hands the application's own data to the messengers.
  const submit = fnFromPointer(t.vkSubmitDebugUtilsMessageEXT!, {
    parameters: ["pointer", "u32", "u32", "pointer"],
    result: "void",
  });
  submit.call(
    instance,
    SEVERITY.warning,
    MESSAGE_TYPE.validation,
    writeStruct(arena, "VkDebugUtilsMessengerCallbackDataEXT", {
      pMessageIdName: "app",
      pMessage: "submitted",
    }),
  );
  const destroy = fnFromPointer(t.vkDestroyDebugUtilsMessengerEXT!, {
    parameters: ["pointer", "u64", "pointer"],
    result: "void",
  });
  destroy.call(instance, handle[0]!, null);
  assertEquals(messengers.size, 0);
  log.error("after destroy");
  assertEquals(app.seen.map((s) => [s.idName, s.message, s.type]), [
    ["Loader Message", 'Insert instance layer "VK_LAYER_a"', MESSAGE_TYPE.general],
    ["app", "submitted", MESSAGE_TYPE.validation],
  ]);
  const live = CallbackOwner.liveCount;
  messengers.dispose();
  assertEquals(CallbackOwner.liveCount, live - 6);
  assertEquals(log.sinkCount, 0);
});

Deno.test({
  name:
    "messengers in VkInstanceCreateInfo.pNext hear the loader during vkCreateInstance and vkDestroyInstance only",
}, async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "drv" });
  await env.addLayer({ name: "VK_LAYER_MOCK_a" });
  using app = new AppMessengers();
  // VK_LOADER_DEBUG=error: only errors printed, the messenger still hears everything.
  using l = load(env.snapshot({ VK_LOADER_DEBUG: "error" }));
  const { arena, vk } = l;
  const ci = writeStruct(arena, "VkInstanceCreateInfo", {
    pNext: {
      type: "VkDebugUtilsMessengerCreateInfoEXT",
      messageSeverity: ALL_SEVERITIES,
      messageType: ALL_TYPES,
      pfnUserCallback: app.utils,
    },
    ppEnabledLayerNames: ["VK_LAYER_MOCK_a", "VK_LAYER_MOCK_missing"],
  });
  const out = arena.pointer(arena.alloc(8));
  // A failed create still reports why.
  assertEquals(vk.vkCreateInstance(ci, null, out), -6);
  assert(
    app.seen.some((s) => s.message.includes('"VK_LAYER_MOCK_missing"')),
    app.seen.map((s) => s.message).join("\n"),
  );
  app.seen.length = 0;
  const good = writeStruct(arena, "VkInstanceCreateInfo", {
    pNext: readPointer(ci, 8),
    ppEnabledLayerNames: ["VK_LAYER_MOCK_a"],
  });
  assertEquals(vk.vkCreateInstance(good, null, out), 0);
  const instance = readPointer(out, 0);
  assert(
    app.seen.some((s) => s.message.includes('Insert instance layer "VK_LAYER_MOCK_a"')),
    app.seen.map((s) => s.message).join("\n"),
  );
  assert(app.seen.every((s) => s.idName === "Loader Message"));
  assert(
    app.seen.some((s) => s.objects[0] === addr(instance)),
    app.seen.map((s) => `${s.objects} ${s.message}`).join("\n") + ` ${addr(instance)}`,
  );
  assert(l.lines.every((line) => line.startsWith("ERROR")), l.lines.join("\n"));
  // Between create and destroy the create info's messenger is not active.
  app.seen.length = 0;
  assertEquals(vk.vkEnumeratePhysicalDevices(asHandle("VkInstance", instance)!, null, null), -3);
  assertEquals(app.seen.length, 0);
  // During destroy it is again: a device left alive makes the loader warn.
  const [pd] = physicalDevices(l, asHandle("VkInstance", instance)!);
  assertEquals(createDevice(l, pd!).result, 0);
  vk.vkDestroyInstance(asHandle("VkInstance", instance), null);
  assert(
    app.seen.some((s) => s.severity === SEVERITY.warning && s.message.includes("not destroyed")),
    app.seen.map((s) => s.message).join("\n"),
  );
});

Deno.test({
  name:
    "a messenger made with vkCreateDebugUtilsMessengerEXT hears the loader until it is destroyed (lavapipe)",
  ignore: !hasLavapipe,
}, () => {
  using app = new AppMessengers();
  using l = load({
    vars: { VK_DRIVER_FILES: LAVAPIPE, VK_LOADER_DEBUG: "error" },
    elevated: false,
  });
  const { arena, vk } = l;
  const out = arena.pointer(arena.alloc(8));
  const info = writeStruct(arena, "VkInstanceCreateInfo", {
    ppEnabledExtensionNames: ["VK_EXT_debug_utils"],
  });
  assertEquals(vk.vkCreateInstance(info, null, out), 0);
  const instance = readPointer(out, 0);
  const handle = arena.pointer(arena.alloc(8));
  const create = writeStruct(arena, "VkDebugUtilsMessengerCreateInfoEXT", {
    messageSeverity: ALL_SEVERITIES,
    messageType: ALL_TYPES,
    pfnUserCallback: app.utils,
  });
  assertEquals(vk.vkCreateDebugUtilsMessengerEXT(asHandle("VkInstance", instance)!, create, null, handle), 0);
  // A loader error (a NULL count) reaches the messenger, naming the instance.
  assertEquals(vk.vkEnumeratePhysicalDevices(asHandle("VkInstance", instance)!, null, null), -3);
  const heard = app.seen.filter((s) => s.idName === "Loader Message" && s.message.includes("NULL"));
  assertEquals(heard.length, 1, app.seen.map((s) => s.message).join("\n"));
  assertEquals(heard[0]!.severity, SEVERITY.error);
  assertEquals(heard[0]!.objects, [addr(instance)]);
  vk.vkDestroyDebugUtilsMessengerEXT(
    asHandle("VkInstance", instance)!,
    readHandle("VkDebugUtilsMessengerEXT", handle, 0),
    null,
  );
  const before = app.seen.length;
  assertEquals(vk.vkEnumeratePhysicalDevices(asHandle("VkInstance", instance)!, null, null), -3);
  assertEquals(app.seen.length, before);
  vk.vkDestroyInstance(asHandle("VkInstance", instance), null);
});

Deno.test("terminator messengers are made in drivers that have the command too, and undone when one fails", () => {
  using arena = new Arena();
  using fakes = new CallbackOwner();
  const calls: string[] = [];
  const driver = (name: string, result: number) => {
    const create = fakes.create(
      { parameters: ["pointer", "pointer", "pointer", "pointer"], result: "i32" },
      (instance, _info, _allocator, pHandle) => {
        calls.push(`${name} create instance=${addr(instance)}`);
        if (result === 0) {
          new DataView(new Deno.UnsafePointerView(pHandle!).getArrayBuffer(8)).setBigUint64(0, 0x42n, true);
        }
        return result;
      },
      { name: `${name} create`, onError: -3 },
    ).pointer;
    const destroy = fakes.create(
      { parameters: ["pointer", "u64", "pointer"], result: "void" },
      (_instance, handle) => {
        calls.push(`${name} destroy ${BigInt(handle)}`);
      },
      { name: `${name} destroy` },
    ).pointer;
    return {
      handle: Deno.UnsafePointer.create(name === "a" ? 0xa0n : 0xb0n),
      procAddr: (command: string) =>
        command === "vkCreateDebugUtilsMessengerEXT"
          ? create
          : command === "vkDestroyDebugUtilsMessengerEXT"
          ? destroy
          : null,
    };
  };
  const info = writeStruct(arena, "VkDebugUtilsMessengerCreateInfoEXT", {
    messageSeverity: ALL_SEVERITIES,
    messageType: ALL_TYPES,
    pfnUserCallback: null,
  });
  const handle = new BigUint64Array(1);
  const call = (t: Record<string, Deno.PointerObject>, name: string) =>
    fnFromPointer(t[name]!, { parameters: ["pointer", "pointer", "pointer", "pointer"], result: "i32" });
  {
    using messengers = new DebugMessengers();
    const t = messengers.terminators(() => [driver("a", 0), { handle: null, procAddr: () => null }]);
    assertEquals(
      call(t, "vkCreateDebugUtilsMessengerEXT").call(null, info, null, Deno.UnsafePointer.of(handle)),
      0,
    );
    assertEquals(messengers.size, 1);
    fnFromPointer(t.vkDestroyDebugUtilsMessengerEXT!, {
      parameters: ["pointer", "u64", "pointer"],
      result: "void",
    })
      .call(null, handle[0]!, null);
    assertEquals(calls, ["a create instance=160", "a destroy 66"]);
    assertEquals(messengers.size, 0);
  }
  calls.length = 0;
  {
    using messengers = new DebugMessengers();
    const t = messengers.terminators(() => [driver("a", 0), driver("b", -1)]);
    assertEquals(
      call(t, "vkCreateDebugUtilsMessengerEXT").call(null, info, null, Deno.UnsafePointer.of(handle)),
      -1,
    );
    assertEquals(calls, ["a create instance=160", "b create instance=176", "a destroy 66"]);
    assertEquals(messengers.size, 0);
  }
});
