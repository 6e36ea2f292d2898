/**
 * Side-by-side runs for the conformance tests (the rules of docs/behaviour.md): the same mock environment seen by the Khronos
 * loader (`conform_client`, linked against libvulkan.so.1) and by vkdeno, printed in the same line format
 * (see tests/support/mock/conform_client.c), so a test compares what an application would see, line by line.
 *
 * @module
 */

import { createInstance, load, type Loaded, u32Slot } from "./chain.ts";
import type { MockEnvironment } from "./mock.ts";
import { type Pointer, readCString, readPointer, readU32 } from "../../ffi/memory.ts";
import { asHandle, readHandle } from "../../vk/handle.ts";

/** What the probe does: extensions to enable, layers the application asks for, its apiVersion. */
export interface ProbeOptions {
  readonly enable?: readonly string[];
  readonly appLayers?: readonly string[];
  readonly apiVersion?: "1.0" | "1.3";
  /** Extra variables on top of the environment's snapshot. */
  readonly vars?: Readonly<Record<string, string>>;
  /** Variables set to the empty string on both sides (in `vars`, an empty value removes a variable). */
  readonly emptyVars?: readonly string[];
}

/** One side's output: the probe lines and the loader's log (stderr for libvulkan, the log for vkdeno). */
export interface ProbeResult {
  readonly lines: string[];
  readonly log: string[];
}

/** Names of the host's implicit layers (the Khronos loader also searches the real system folders). */
export function hostImplicitLayers(): string[] {
  const names: string[] = [];
  for (
    const dir of [
      "/etc/vulkan/implicit_layer.d",
      "/usr/local/share/vulkan/implicit_layer.d",
      "/usr/share/vulkan/implicit_layer.d",
    ]
  ) {
    let entries: Deno.DirEntry[] = [];
    try {
      entries = [...Deno.readDirSync(dir)];
    } catch {
      continue;
    }
    for (const e of entries.filter((e) => e.name.endsWith(".json"))) {
      try {
        const json = JSON.parse(Deno.readTextFileSync(`${dir}/${e.name}`));
        for (const layer of json.layers ?? [json.layer]) if (layer?.name) names.push(layer.name);
      } catch {
        // an unreadable host manifest is the host's business
      }
    }
  }
  return names;
}

/** The snapshot variables both sides get: the host's implicit layers disabled by name. */
function probeVars(env: MockEnvironment, o: ProbeOptions): Record<string, string> {
  const host = hostImplicitLayers().join(",");
  const vars = { ...(host ? { VK_LOADER_LAYERS_DISABLE: host } : {}), ...o.vars };
  const out = { ...env.snapshot(vars).vars };
  for (const name of o.emptyVars ?? []) out[name] = "";
  return out;
}

/** Runs `conform_client` under the Khronos loader. */
export async function khronosProbe(env: MockEnvironment, o: ProbeOptions = {}): Promise<ProbeResult> {
  const args: string[] = [];
  if (o.enable?.length) args.push(`enable=${o.enable.join(",")}`);
  if (o.appLayers?.length) args.push(`app_layers=${o.appLayers.join(",")}`);
  if (o.apiVersion === "1.0") args.push("api=1.0");
  const out = await new Deno.Command(env.build.programs.conform_client, {
    args,
    clearEnv: true,
    env: { VK_LOADER_DEBUG: "all", ...probeVars(env, o), PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  const lines = dec.decode(out.stdout).split("\n").filter((l) => l !== "");
  const log = dec.decode(out.stderr).split("\n").filter((l) => l !== "");
  if (!out.success) {
    throw new Error(`conform_client exited ${out.code}:\n${lines.join("\n")}\n${log.join("\n")}`);
  }
  return { lines, log };
}

function names(l: Loaded, call: (count: Deno.PointerObject, arr: Pointer) => number, size: number): string[] {
  const count = u32Slot(l);
  if (call(count.pointer, null) !== 0) return [];
  const arr = l.arena.pointer(l.arena.alloc(size * Math.max(1, count.read())));
  call(count.pointer, arr);
  return Array.from(
    { length: count.read() },
    (_, i) => readCString(Deno.UnsafePointer.offset(arr!, i * size)),
  );
}

/** The same steps through vkdeno, in-process. */
export function vkdenoProbe(env: MockEnvironment, o: ProbeOptions = {}): ProbeResult {
  const snapshot = { ...env.snapshot(), vars: probeVars(env, o) };
  using l = load(snapshot);
  const lines: string[] = [];
  const vk = l.vk;
  // VkExtensionProperties: char[256] name + u32 = 260 bytes; VkLayerProperties: 256 + 4 + 4 + 256 = 520.
  for (const n of names(l, (c, a) => vk.vkEnumerateInstanceExtensionProperties(null, c, a), 260)) {
    lines.push(`instance_extension ${n}`);
  }
  for (const n of names(l, (c, a) => vk.vkEnumerateInstanceLayerProperties(c, a), 520)) {
    lines.push(`layer ${n}`);
  }
  const created = createInstance(l, {
    apiVersion: o.apiVersion === "1.0" ? "1.0.0" : "1.3.0",
    extensions: [...(o.enable ?? [])],
    layers: [...(o.appLayers ?? [])],
  });
  lines.push(`create_instance result=${created.result}`);
  if (created.result !== 0) return { lines, log: l.lines };
  const instance = created.instance;

  const count = u32Slot(l);
  let r = vk.vkEnumeratePhysicalDevices(instance, count.pointer, null) as number;
  let devices: Pointer[] = [];
  if (r === 0) {
    const arr = l.arena.pointer(l.arena.alloc(8 * Math.max(1, count.read())));
    r = vk.vkEnumeratePhysicalDevices(instance, count.pointer, arr) as number;
    if (r === 0) devices = Array.from({ length: count.read() }, (_, i) => readPointer(arr, i * 8));
  }
  lines.push(`devices result=${r} count=${devices.length}`);
  // VkPhysicalDeviceProperties: five u32 fields, then char deviceName[256] at offset 20.
  const props = l.arena.pointer(l.arena.alloc(1024));
  const deviceNames = devices.map((d) => {
    vk.vkGetPhysicalDeviceProperties(asHandle("VkPhysicalDevice", d)!, props);
    return readCString(Deno.UnsafePointer.offset(props!, 20));
  });
  for (const n of deviceNames) lines.push(`device ${n}`);

  // VkPhysicalDeviceGroupProperties: sType, pNext @8, physicalDeviceCount @16, physicalDevices[32] @24; 288 bytes.
  const groupCount = u32Slot(l);
  r = vk.vkEnumeratePhysicalDeviceGroups(instance, groupCount.pointer, null) as number;
  const groups: string[] = [];
  if (r === 0) {
    const n = groupCount.read();
    const buf = l.arena.alloc(288 * Math.max(1, n));
    const view = new DataView(buf.buffer, buf.byteOffset);
    for (let i = 0; i < n; i++) view.setUint32(288 * i, 1000070000, true); // PHYSICAL_DEVICE_GROUP_PROPERTIES
    const arr = l.arena.pointer(buf);
    r = vk.vkEnumeratePhysicalDeviceGroups(instance, groupCount.pointer, arr) as number;
    if (r === 0) {
      for (let i = 0; i < groupCount.read(); i++) {
        const members = readU32(arr, 288 * i + 16);
        const parts: string[] = [];
        let known = true;
        for (let k = 0; k < members; k++) {
          const handle = Deno.UnsafePointer.value(readPointer(arr, 288 * i + 24 + 8 * k));
          const at = devices.findIndex((d) => Deno.UnsafePointer.value(d) === handle);
          if (at < 0) known = false;
          parts.push(at < 0 ? "?" : deviceNames[at]!);
        }
        groups.push(`group ${parts.join(",")} known=${known ? "yes" : "no"}`);
      }
    }
  }
  lines.push(`groups result=${r} count=${groups.length}`, ...groups);

  // VkDeviceQueueCreateInfo (40 bytes) + VkDeviceCreateInfo (72 bytes), one queue of family 0.
  const priority = l.arena.alloc(4);
  new DataView(priority.buffer, priority.byteOffset).setFloat32(0, 1, true);
  const qci = l.arena.alloc(40);
  const q = new DataView(qci.buffer, qci.byteOffset);
  q.setUint32(0, 2, true);
  q.setUint32(24, 1, true);
  q.setBigUint64(32, BigInt(Deno.UnsafePointer.value(l.arena.pointer(priority))), true);
  const dci = l.arena.alloc(72);
  const d = new DataView(dci.buffer, dci.byteOffset);
  d.setUint32(0, 3, true);
  d.setUint32(20, 1, true);
  d.setBigUint64(24, BigInt(Deno.UnsafePointer.value(l.arena.pointer(qci))), true);
  const out = l.arena.pointer(l.arena.alloc(8));
  devices.forEach((pd, i) => {
    const result = vk.vkCreateDevice(
      asHandle("VkPhysicalDevice", pd)!,
      l.arena.pointer(dci),
      null,
      out,
    ) as number;
    lines.push(`create_device ${deviceNames[i]} result=${result}`);
    if (result === 0) vk.vkDestroyDevice(readHandle("VkDevice", out, 0), null);
  });
  vk.vkDestroyInstance(instance, null);
  lines.push("ok");
  return { lines, log: l.lines };
}

/** Lines of `lines` that start with `prefix`. */
export function only(lines: readonly string[], prefix: string): string[] {
  return lines.filter((l) => l.startsWith(prefix));
}
