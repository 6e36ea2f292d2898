/**
 * Filling a device's dispatch table through one `vkGetDeviceProcAddr`, natively where the filler exists.
 *
 * @module
 */
import { GET_PROC_ADDR } from "../vk/proc_addr.ts";
import { COMMANDS } from "../vk/generated/commands.ts";
import { fnFromPointer } from "../ffi/library.ts";
import type { ChainStubs } from "./stubs.ts";
import type { Pointer } from "../ffi/memory.ts";

/** The names looked up for every command of a level: its name, then its aliases (per level's rule below). */
interface LevelNames {
  readonly text: readonly string[];
  /** Per command: its slot. */
  readonly slots: Uint32Array;
  /** Per command: where its names start in `text`, and the end of the last one's (`count + 1` entries). */
  readonly firsts: Uint32Array;
}

/** The names as C strings, for a native lookup: made the first time a level is asked from C. */
interface NativeNames {
  /** `const char* names[count]`, kept alive with the strings it points to. */
  readonly array: BigUint64Array<ArrayBuffer>;
  /** Each name, NUL-terminated: views of one buffer. */
  readonly strings: readonly Uint8Array[];
}

/**
 * What a fill found, ready for `DispatchTable.setAll` (ffi/dispatch.ts): per command, its slot and its function's
 * address (the first of its names answered; 0n when none).
 */
export interface FilledCommands {
  /** Per command: its slot. */
  readonly slots: Uint32Array;
  /** Per command: the address (0n for none). */
  readonly fns: BigUint64Array<ArrayBuffer>;
}

/**
 * Tables filled by name: a device's, a driver instance's physical-device slots (names and aliases), and
 * the loader instance's instance and physical-device slots (each command's own name only, as the chain's
 * top is asked for it).
 */
type FilledLevel = "device" | "physical_device" | "instance_table";

const names = new Map<FilledLevel, LevelNames>();
const native = new Map<FilledLevel, NativeNames>();
const indexes = new Map<FilledLevel, ReadonlyMap<string, number>>();
const encoder = new TextEncoder();

function commandNames(level: FilledLevel): LevelNames {
  const made = names.get(level);
  if (made) return made;
  const text: string[] = [];
  const slots: number[] = [];
  const firsts: number[] = [];
  for (const info of COMMANDS) {
    if (level === "instance_table") {
      if (info.level !== "instance" && info.level !== "physical_device") continue;
      slots.push(info.index);
      firsts.push(text.length);
      text.push(info.name);
      continue;
    }
    if (info.level !== level) continue;
    slots.push(info.index);
    firsts.push(text.length);
    text.push(info.name, ...info.aliases);
  }
  firsts.push(text.length);
  const out = { text, slots: Uint32Array.from(slots), firsts: Uint32Array.from(firsts) };
  names.set(level, out);
  return out;
}

/**
 * The level's names in C: made only when C is asked (a first instance without layers asks the loader's own
 * link in TypeScript, and its C names cost ~0.5 ms of CPU there).
 */
function nativeNames(level: FilledLevel): NativeNames {
  const made = native.get(level);
  if (made) return made;
  const text = commandNames(level).text;
  // Every name, NUL-terminated, in one buffer: one pointer object for all of them, the array's entries
  // computed from its address as two 32-bit words, low first (the little-endian hosts stubs exist for). A
  // buffer, a pointer object and a BigInt per name cost ~0.4 ms more of CPU per level's first fill.
  const bytes = new Uint8Array(text.reduce((size, name) => size + name.length * 3 + 1, 0));
  const strings: Uint8Array[] = [];
  const array = new BigUint64Array(new ArrayBuffer(text.length * 8));
  const words = new Uint32Array(array.buffer);
  const base = Number(Deno.UnsafePointer.value(Deno.UnsafePointer.of(bytes)));
  let at = 0;
  text.forEach((name, i) => {
    const end = at + encoder.encodeInto(name, bytes.subarray(at)).written;
    strings.push(bytes.subarray(at, end + 1));
    words[i * 2] = (base + at) % 2 ** 32;
    words[i * 2 + 1] = Math.floor((base + at) / 2 ** 32);
    at = end + 1;
  });
  const out = { array, strings };
  native.set(level, out);
  return out;
}

/** Where each of the level's names is in its `text`: made for the first device's answers. */
function nameIndex(level: FilledLevel): ReadonlyMap<string, number> {
  let index = indexes.get(level);
  if (!index) indexes.set(level, index = new Map(commandNames(level).text.map((name, i) => [name, i])));
  return index;
}

/**
 * Looks up every device-level command through `gdpa(handle, name)`: each command's slot and address (the
 * first of its names the link answers; 0n when none), for `DispatchTable.setAll` (ffi/dispatch.ts). Names
 * that `slow.asks` are asked through `slow.procAddr` instead, given what `gdpa` answered for them (the
 * loader's own answers, such as its WSI terminators, which a native lookup from the driver would miss).
 * `slow.asks` must depend on the name alone: it is asked once per name and kept for that function object,
 * so pass the same one each time.
 *
 * @example Usage
 * ```ts ignore
 * const filled = fillDeviceCommands(stubs, driverGdpa, driverDevice);
 * table.setAll(filled.slots, filled.fns, stubs.errorFunction);
 * ```
 */
export function fillDeviceCommands(
  stubs: ChainStubs,
  gdpa: Deno.PointerObject,
  handle: Pointer,
  slow?: {
    readonly asks: (name: string) => boolean;
    readonly procAddr: (name: string, linked: Pointer) => Pointer;
  },
): FilledCommands {
  return fillCommands("device", stubs, gdpa, handle, slow);
}

/**
 * Looks up every physical-device-level command in a driver through its `vkGetInstanceProcAddr(instance,
 * name)` (each command's name, then its aliases): each slot and function address (0n when none) of the
 * driver instance's table, in one native call.
 *
 * @example Usage
 * ```ts ignore
 * const filled = fillPhysicalDeviceCommands(stubs, driver.getInstanceProcAddr, driverInstance);
 * table.setAll(filled.slots, filled.fns, 0n);
 * ```
 */
export function fillPhysicalDeviceCommands(
  stubs: ChainStubs,
  gipa: Deno.PointerObject,
  instance: Pointer,
): FilledCommands {
  return fillCommands("physical_device", stubs, gipa, instance);
}

/**
 * Asks the top of an instance chain (`gipa(instance, name)`) for every instance and physical-device command
 * by its own name: each slot and answer's address (0n when none), in one native call; or asks
 * `answer(name)` when given (the top is the loader's own link: what `gipa` would answer).
 *
 * @example Usage
 * ```ts ignore
 * const filled = fillInstanceCommands(stubs, topGipa, topInstance);
 * table.setAll(filled.slots, filled.fns, stubs.errorFunction);
 * ```
 */
export function fillInstanceCommands(
  stubs: ChainStubs,
  gipa: Pointer,
  instance: Pointer,
  answer?: (name: string) => Pointer,
): FilledCommands {
  const n = commandNames("instance_table");
  if (gipa === null) return { slots: n.slots, fns: new BigUint64Array(n.slots.length) };
  if (answer !== undefined) {
    // The top is the loader's own link (no layer): its answers are TypeScript, so asking it from C would
    // only add a trip into a callback per name.
    const fns = new BigUint64Array(n.slots.length);
    for (let k = 0; k < fns.length; k++) fns[k] = address(answer(n.text[n.firsts[k]!]!));
    return { slots: n.slots, fns };
  }
  return fillCommands("instance_table", stubs, gipa, instance);
}

/**
 * Every device-level command name's (and alias's) answer from `gdpa(handle, name)`, asked in one native
 * call; `undefined` where the native filler is missing (then ask name by name). The result answers a name
 * (`undefined` for a name outside the generated tables). What the device chain's bottom
 * `vkGetDeviceProcAddr` answers from when a layer asks for each command in turn: one `UnsafeFnPointer`
 * round trip per name made vkCreateDevice under the validation layer ~1.5 ms slower.
 *
 * @example Usage
 * ```ts ignore
 * const answer = deviceCommandAnswers(stubs, driverGdpa, driverDevice);
 * answer?.("vkQueueSubmit");
 * ```
 */
export function deviceCommandAnswers(
  stubs: ChainStubs,
  gdpa: Deno.PointerObject,
  handle: Pointer,
): ((name: string) => Pointer | undefined) | undefined {
  const fill = stubs.unwrap.fillTable;
  if (!fill) return undefined;
  const c = nativeNames("device");
  const index = nameIndex("device");
  const out = new BigUint64Array(c.array.length);
  fill(gdpa, handle, Deno.UnsafePointer.of(c.array), c.array.length, out);
  return (name) => {
    const i = index.get(name);
    if (i === undefined) return undefined;
    return out[i] === 0n ? null : Deno.UnsafePointer.create(out[i]!);
  };
}

/** Per predicate and level: 1 where `asks(name)` of the level's name at that index is true. */
const askedMasks = new WeakMap<(name: string) => boolean, Map<FilledLevel, Uint8Array>>();

/**
 * Which of the level's names `asks` takes, worked out once per predicate (it depends on the name alone):
 * a device fill is made at every vkCreateDevice, and asking ~500 names each time showed in the profile.
 */
function askedNames(level: FilledLevel, n: LevelNames, asks: (name: string) => boolean): Uint8Array {
  let perLevel = askedMasks.get(asks);
  if (!perLevel) askedMasks.set(asks, perLevel = new Map());
  let mask = perLevel.get(level);
  if (!mask) {
    mask = new Uint8Array(n.text.length);
    n.text.forEach((name, i) => mask![i] = asks(name) ? 1 : 0);
    perLevel.set(level, mask);
  }
  return mask;
}

function fillCommands(
  level: FilledLevel,
  stubs: ChainStubs,
  gdpa: Deno.PointerObject,
  handle: Pointer,
  slow?: {
    readonly asks: (name: string) => boolean;
    readonly procAddr: (name: string, linked: Pointer) => Pointer;
  },
): FilledCommands {
  const n = commandNames(level);
  const c = nativeNames(level);
  const out = new BigUint64Array(c.array.length);
  const fill = stubs.unwrap.fillTable;
  if (fill) {
    fill(gdpa, handle, Deno.UnsafePointer.of(c.array), c.array.length, out);
  } else {
    const fn = fnFromPointer(gdpa, GET_PROC_ADDR);
    c.strings.forEach((s, i) => out[i] = BigInt(Deno.UnsafePointer.value(fn.call(handle, s))));
  }
  const asked = slow ? askedNames(level, n, slow.asks) : undefined;
  const fns = new BigUint64Array(n.slots.length);
  // Addresses are copied as their two 32-bit words, in memory order: a BigInt made per name (~1,500 per
  // instance and device) and a pointer object per slot showed in the profile.
  const from = new Uint32Array(out.buffer);
  const to = new Uint32Array(fns.buffer);
  const firsts = n.firsts;
  for (let k = 0; k < fns.length; k++) {
    for (let i = firsts[k]!; i < firsts[k + 1]!; i++) {
      if (asked !== undefined && asked[i] === 1) {
        // `linked`: what the link itself answered, so the loader need not ask it again (~3 us a name).
        const linked = out[i] === 0n ? null : Deno.UnsafePointer.create(out[i]!);
        out[i] = address(slow!.procAddr(n.text[i]!, linked));
      }
      const a = from[i * 2]!, b = from[i * 2 + 1]!;
      if ((a | b) === 0) continue;
      to[k * 2] = a;
      to[k * 2 + 1] = b;
      break;
    }
  }
  return { slots: n.slots, fns };
}

/** A function pointer as an address (0n for null). */
function address(p: Pointer): bigint {
  return p === null ? 0n : BigInt(Deno.UnsafePointer.value(p));
}
