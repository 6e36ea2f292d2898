/**
 * Dispatch tables filled in one native call (chain/table_fill.ts) hold what asking name by name holds: the
 * loader instance's table (each instance and physical-device command by its own name; asked in TypeScript
 * when the top of the chain is the loader's own link), a driver's
 * physical-device slots and a device's slots (each command's name, then its aliases, first answer wins),
 * and the answers the device chain's bottom `vkGetDeviceProcAddr` gives layers. Where the native filler is
 * missing (not x86-64) the name-by-name path is the only one and is checked against the same expectation.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { COMMANDS } from "../../vk/generated/commands.ts";
import { DispatchTable } from "../../ffi/dispatch.ts";
import { type Pointer, readCString } from "../../ffi/memory.ts";
import { ChainStubs, chainStubs } from "../../chain/stubs.ts";
import {
  deviceCommandAnswers,
  fillDeviceCommands,
  type FilledCommands,
  fillInstanceCommands,
  fillPhysicalDeviceCommands,
} from "../../chain/table_fill.ts";
import { hasX86_64Helpers } from "../../ffi/host.ts";

/** A made-up address per name (a hash of it, never 0). */
function hashed(name: string): bigint {
  let h = 0;
  for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
  return 0x10000n + BigInt(h);
}

/**
 * A `vkGet*ProcAddr` that answers a made-up address for about half the names (for every name when `all`),
 * and logs every call.
 */
function fakeProcAddr(all = false): {
  pointer: Deno.PointerObject;
  answer(name: string): bigint;
  asked: string[];
  close(): void;
} {
  const asked: string[] = [];
  const answer = (name: string) => all || hashed(name) % 2n === 1n ? hashed(name) : 0n;
  const cb = new Deno.UnsafeCallback(
    { parameters: ["pointer", "pointer"], result: "pointer" } as const,
    (_handle, pName) => {
      const name = readCString(pName);
      asked.push(name);
      const a = answer(name);
      return a === 0n ? null : Deno.UnsafePointer.create(a);
    },
  );
  return { pointer: cb.pointer, answer, asked, close: () => cb.close() };
}

/** What a fill found, as slot -> address (0 for none). */
function filled(f: FilledCommands): Map<number, bigint> {
  assertEquals(f.slots.length, f.fns.length);
  const out = new Map<number, bigint>();
  f.slots.forEach((slot, k) => out.set(slot, f.fns[k]!));
  return out;
}

/** What each slot must hold: the first of its names (own name, then aliases when `aliases`) answered. */
function expected(level: (l: string) => boolean, aliases: boolean, answer: (n: string) => bigint) {
  const out = new Map<number, bigint>();
  for (const c of COMMANDS) {
    if (!level(c.level)) continue;
    const names = aliases ? [c.name, ...c.aliases] : [c.name];
    out.set(c.index, names.map(answer).find((a) => a !== 0n) ?? 0n);
  }
  return out;
}

Deno.test("native table fills hold what asking name by name holds: instance, physical-device and device tables", () => {
  const native = chainStubs();
  const fallback = new ChainStubs({ native: false });
  const gpa = fakeProcAddr();
  const handle = Deno.UnsafePointer.create(0xd0n);
  try {
    const cases = [
      {
        name: "instance",
        fill: (s: ChainStubs) => fillInstanceCommands(s, gpa.pointer, handle),
        want: expected((l) => l === "instance" || l === "physical_device", false, gpa.answer),
      },
      {
        name: "instance, answered by the loader's own link",
        fill: (s: ChainStubs) =>
          fillInstanceCommands(s, gpa.pointer, handle, (name) => {
            const a = gpa.answer(name);
            return a === 0n ? null : Deno.UnsafePointer.create(a);
          }),
        want: expected((l) => l === "instance" || l === "physical_device", false, gpa.answer),
      },
      {
        name: "physical device",
        fill: (s: ChainStubs) => fillPhysicalDeviceCommands(s, gpa.pointer, handle),
        want: expected((l) => l === "physical_device", true, gpa.answer),
      },
      {
        name: "device",
        fill: (s: ChainStubs) => fillDeviceCommands(s, gpa.pointer, handle),
        want: expected((l) => l === "device", true, gpa.answer),
      },
    ];
    for (const c of cases) {
      assert(c.want.size > 50, `${c.name}: too few commands`);
      assertEquals(filled(c.fill(fallback)), c.want, `${c.name}, name by name`);
      assertEquals(filled(c.fill(native)), c.want, `${c.name}, native`);
    }
    assertEquals(native.unwrap.fillTable !== undefined, hasX86_64Helpers() && native.native);
  } finally {
    gpa.close();
  }
});

Deno.test("a link answering every name fills every slot of each table, the first and the last included", () => {
  const gpa = fakeProcAddr(true);
  const handle = Deno.UnsafePointer.create(0xd0n);
  const instanceLevel = (l: string) => l === "instance" || l === "physical_device";
  const levels = [
    ["instance", instanceLevel],
    ["instance, answered by the loader's own link", instanceLevel],
    ["physical device", (l: string) => l === "physical_device"],
    ["device", (l: string) => l === "device"],
  ] as const;
  try {
    for (const stubs of [chainStubs(), new ChainStubs({ native: false })]) {
      const fills = [
        fillInstanceCommands(stubs, gpa.pointer, handle),
        fillInstanceCommands(stubs, gpa.pointer, handle, (name) => Deno.UnsafePointer.create(hashed(name))),
        fillPhysicalDeviceCommands(stubs, gpa.pointer, handle),
        fillDeviceCommands(stubs, gpa.pointer, handle),
      ];
      fills.forEach((fill, k) => {
        const [name, level] = levels[k]!;
        const commands = COMMANDS.filter((c) => level(c.level));
        const where = `${name} table, native ${stubs.native}`;
        // Each command's own name is asked first, so it is what every slot holds.
        assertEquals(filled(fill), new Map(commands.map((c) => [c.index, hashed(c.name)])), where);
        // Through the dispatch table the loader writes them into.
        using table = new DispatchTable(COMMANDS.length);
        table.setAll(fill.slots, fill.fns, 0n);
        for (const c of [commands[0]!, commands.at(-1)!]) {
          assertEquals(Deno.UnsafePointer.value(table.get(c.index)), hashed(c.name), `${where}: ${c.name}`);
        }
      });
    }
  } finally {
    gpa.close();
  }
});

Deno.test("the device chain's bottom answers come from one native fill and equal the driver's own answers", () => {
  const stubs = chainStubs();
  const gpa = fakeProcAddr();
  try {
    const answer = deviceCommandAnswers(stubs, gpa.pointer, Deno.UnsafePointer.create(0xd0n));
    if (!stubs.unwrap.fillTable) {
      assertEquals(answer, undefined);
      return;
    }
    const names = COMMANDS.filter((c) => c.level === "device").flatMap((c) => [c.name, ...c.aliases]);
    // Every name was asked once, in one go.
    assertEquals(gpa.asked, names);
    for (const name of names) {
      const a = answer!(name);
      assertEquals(a === null ? 0n : BigInt(Deno.UnsafePointer.value(a!)), gpa.answer(name), name);
    }
    // Names outside the tables are left to the caller (asked name by name).
    assertEquals(answer!("vkNotACommandOfTheRegistry"), undefined);
  } finally {
    gpa.close();
  }
});

Deno.test("a device fill takes the names its slow predicate accepts from procAddr, asking the predicate once per name", () => {
  const gpa = fakeProcAddr();
  const handle = Deno.UnsafePointer.create(0xd0n);
  // The WSI-like names: the loader's own answer (a distinct address) replaces the driver's.
  const taken = new Set(["vkCreateSwapchainKHR", "vkGetDeviceGroupSurfacePresentModesKHR"]);
  const asked = new Map<string, number>();
  const asks = (name: string) => {
    asked.set(name, (asked.get(name) ?? 0) + 1);
    return taken.has(name);
  };
  const own = (name: string) => 0x7000n + BigInt(name.length);
  // What the link answered for each taken name, handed to procAddr with it.
  const linked = new Map<string, bigint>();
  const procAddr = (name: string, link: Pointer) => {
    linked.set(name, link === null ? 0n : BigInt(Deno.UnsafePointer.value(link)));
    return Deno.UnsafePointer.create(own(name));
  };
  const want = expected((l) => l === "device", true, gpa.answer);
  for (const c of COMMANDS) if (taken.has(c.name)) want.set(c.index, own(c.name));
  try {
    for (const stubs of [chainStubs(), new ChainStubs({ native: false })]) {
      for (let round = 0; round < 2; round++) {
        assertEquals(
          filled(fillDeviceCommands(stubs, gpa.pointer, handle, { asks, procAddr })),
          want,
          `native ${stubs.native}, round ${round}`,
        );
      }
    }
    assertEquals([...linked].sort(), [...taken].map((name) => [name, gpa.answer(name)]).sort());
    // Each device name was put to the predicate once, however many fills followed.
    const names = COMMANDS.filter((c) => c.level === "device").flatMap((c) => [c.name, ...c.aliases]);
    assertEquals(asked.size, names.length);
    assert([...asked.values()].every((n) => n === 1));
  } finally {
    gpa.close();
  }
});
