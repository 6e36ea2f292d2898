// The device order at the application's second enumeration call: the same devices and the same policy get
// the first call's decision and its log lines again; a new device or another policy is decided afresh.
import { deepStrictEqual as assertEquals } from "node:assert/strict";
import {
  applyDevicePolicy,
  type PolicyDriverInstance,
  type PolicyInstance,
} from "../../../chain/order/policy.ts";
import { PHYSICAL_DEVICE_TYPE as T } from "../../../chain/order/sort.ts";
import { readDevicePolicy } from "../../../discovery/device_selection.ts";
import { writeI32 } from "../../../ffi/memory.ts";
import type { LogEntry } from "../../../loading/log.ts";
import { offsetOf } from "../../../vk/struct_layout.ts";

const V1_1 = (1 << 22) | (1 << 12);
const PROPS = "VkPhysicalDeviceProperties";

/** One driver whose devices are `types[handle]`, named "dev<handle>"; counts its property reads. */
function driver(types: Record<number, number>): PolicyDriverInstance & { reads: number } {
  const d = {
    index: 0,
    enabledExtensions: [] as string[],
    driver: { apiVersion: V1_1 },
    reads: 0,
    fn(name: string): ((...args: unknown[]) => unknown) | null {
      if (name !== "vkGetPhysicalDeviceProperties") return null;
      return (pd, p) => {
        d.reads++;
        const handle = Number(Deno.UnsafePointer.value(pd as Deno.PointerValue));
        writeI32(p as Deno.PointerObject, offsetOf(PROPS, "deviceType"), types[handle]!);
        const name = new TextEncoder().encode(`dev${handle}\0`);
        new Uint8Array(
          Deno.UnsafePointerView.getArrayBuffer(p as Deno.PointerObject, 256, offsetOf(PROPS, "deviceName")),
        )
          .set(name);
        return undefined;
      };
    },
  };
  return d;
}

function setup(vars: Record<string, string> = {}) {
  const d = driver({ 1: T.cpu, 2: T.discrete, 3: T.integrated });
  const lines: LogEntry[] = [];
  const inst: PolicyInstance = {
    apiVersion: V1_1,
    devicePolicy: readDevicePolicy({ vars, elevated: false }),
    drivers: [d],
    log: { logAll: (entries) => void lines.push(...entries) },
  };
  const term = (h: number) => ({ driverInstance: d, driverHandle: Deno.UnsafePointer.create(BigInt(h)) });
  const names = (list: readonly { driverHandle: Deno.PointerValue }[] | undefined) =>
    list?.map((t) => `dev${Deno.UnsafePointer.value(t.driverHandle)}`);
  return { d, lines, inst, term, names };
}

Deno.test("the second call with the same devices gets the same order and logs it again", () => {
  const { d, lines, inst, term, names } = setup();
  const terms = [term(1), term(2)];
  assertEquals(names(applyDevicePolicy(inst, terms)), ["dev2", "dev1"]);
  const first = lines.splice(0);
  assertEquals(first.some((e) => e.text.startsWith("Physical device order (sorted")), true);
  const reads = d.reads;
  // A new array holding the same objects: what the terminator builds at each call.
  const again = applyDevicePolicy(inst, [...terms]);
  assertEquals(names(again), ["dev2", "dev1"]);
  assertEquals(lines, first);
  assertEquals(d.reads, reads);
  // The caller owns what it gets: changing it leaves the next answer alone.
  again!.reverse();
  assertEquals(names(applyDevicePolicy(inst, terms)), ["dev2", "dev1"]);
});

Deno.test("a device that appears between calls is placed, one that goes is left out", () => {
  const { inst, term, names } = setup();
  const [a, b, c] = [term(1), term(2), term(3)];
  assertEquals(names(applyDevicePolicy(inst, [a, b])), ["dev2", "dev1"]);
  assertEquals(names(applyDevicePolicy(inst, [a, c])), ["dev3", "dev1"]);
  assertEquals(names(applyDevicePolicy(inst, [a, b, c])), ["dev2", "dev3", "dev1"]);
  assertEquals(names(applyDevicePolicy(inst, [a, c])), ["dev3", "dev1"]);
  assertEquals(names(applyDevicePolicy(inst, [c, a])), ["dev3", "dev1"]);
});

Deno.test("another policy for the same devices is decided afresh", () => {
  const { inst, term, names, lines } = setup();
  const terms = [term(1), term(2)];
  assertEquals(names(applyDevicePolicy(inst, terms)), ["dev2", "dev1"]);
  lines.length = 0;
  const unsorted = readDevicePolicy({ vars: { VK_LOADER_DISABLE_SELECT: "1" }, elevated: false });
  assertEquals(names(applyDevicePolicy(inst, terms, unsorted)), ["dev1", "dev2"]);
  assertEquals(lines.some((e) => e.text.startsWith("Physical device order (sorted")), false);
});
