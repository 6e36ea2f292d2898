/**
 * `deno task info`: a `vulkaninfo --summary`-like report of the Vulkan instance version, instance layers
 * and extensions, physical devices (with their extensions) and device groups.
 *
 * Options: `--json` prints one JSON object (below; `--order` adds the `order` field); `--loader=vkdeno|libvulkan` picks the loader (default
 * vkdeno; libvulkan is the reference, for comparing); `--portability` creates the instance with
 * `VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR` and `VK_KHR_portability_enumeration`, so portability
 * drivers are listed too. If the instance cannot be created, `--json` prints `{"error":"VK_ERROR_..."}` and
 * the exit code is 1.
 *
 * Each device is listed with the rule that put it at its position (chain/device_order.ts): the
 * `VK_LOADER_DEVICE_SELECT` match, device type, PCI bus, `deviceID ^ vendorID`, the loader order when
 * sorting is off, or `layer` when something above the loader (such as Mesa's device-select layer)
 * reordered the list.
 *
 * ```
 * {"instanceVersion":"M.m.p",
 *  "layers":[{"name","specVersion":"M.m.p","implementationVersion":N,"description"}],
 *  "extensions":[{"name","specVersion":N}],
 *  "devices":[{"name","type":"CPU|DISCRETE_GPU|INTEGRATED_GPU|VIRTUAL_GPU|OTHER","apiVersion":"M.m.p",
 *              "driverVersion":N,"vendorID":N,"deviceID":N,"extensions":["..."]}],
 *  "groups":[{"devices":[index]}],
 *  "order":[ (only with --order){"device":index,"rule":"select|type|pci-bus|pci-bus-missing|id-xor|tie|only|unsorted|layer",
 *            "why":"..."}]}
 * ```
 *
 * @module
 */
import { explainEnumeratedOrder, readDevicePolicy } from "../chain/device_order.ts";
import { readDeviceRecord } from "../chain/device_record.ts";
import { VkError } from "../ffi/errors.ts";
import { type EnvironmentSnapshot, snapshotProcessEnvironment } from "../discovery/environment.ts";
import { address, Arena } from "../ffi/memory.ts";
import {
  allocStruct,
  check,
  enumerate,
  formatApiVersion,
  makeApiVersion,
  readStruct,
  writeStruct,
} from "../ffi/structs.ts";
import { deviceTypeName, type ExampleCommands, openLoader, outSlot } from "./_commands.ts";

/** One instance layer. */
export interface LayerInfo {
  name: string;
  specVersion: string;
  implementationVersion: number;
  description: string;
}

/** One physical device. */
export interface DeviceInfo {
  name: string;
  type: string;
  apiVersion: string;
  driverVersion: number;
  vendorID: number;
  deviceID: number;
  extensions: string[];
}

/** What `deno task info --json` prints. */
export interface InfoReport {
  instanceVersion: string;
  layers: LayerInfo[];
  extensions: { name: string; specVersion: number }[];
  devices: DeviceInfo[];
  /** Device groups, each listing indices into `devices`. */
  groups: { devices: number[] }[];
  /**
   * Why each device is where it is, by index into `devices`; in `--json` output only with `--order`, so the
   * default JSON keeps its documented shape.
   */
  order?: { device: number; rule: string; why: string }[];
}

/** Options of {@linkcode collectInfo}. */
export interface InfoOptions {
  /** Create the instance with the portability flag and `VK_KHR_portability_enumeration`. */
  portability?: boolean;
  /** The environment whose device policy explains the order; default this process's. */
  env?: EnvironmentSnapshot;
}

const PORTABILITY_ENUMERATION = "VK_KHR_portability_enumeration";
const VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR = 0x1;

/**
 * Collects the report with a loader's command object. The instance asks for the loader's own version and,
 * with `options.portability`, portability enumeration (flag and extension), so portability drivers are
 * listed.
 *
 * @example On the reference loader
 * ```ts ignore
 * import { openLibvulkan } from "../tools/libvulkan.ts";
 * import { collectInfo } from "./info.ts";
 * using vk = openLibvulkan();
 * console.log(collectInfo(vk as never).devices.map((d) => d.name));
 * ```
 * @throws {VkError} If a command fails, instance creation included (its `result` names the VkResult).
 */
export function collectInfo(vk: ExampleCommands, options: InfoOptions = {}): InfoReport {
  using arena = new Arena();
  const version = arena.alloc(4, 4);
  check(vk.vkEnumerateInstanceVersion(arena.pointer(version)), "vkEnumerateInstanceVersion");
  const instanceVersion = new Uint32Array(version.buffer, version.byteOffset, 1)[0]!;
  const layers = enumerate(vk.vkEnumerateInstanceLayerProperties, [], {
    struct: "VkLayerProperties",
    name: "vkEnumerateInstanceLayerProperties",
  }).map((l) => ({
    name: l.layerName as string,
    specVersion: formatApiVersion(l.specVersion as number),
    implementationVersion: l.implementationVersion as number,
    description: l.description as string,
  }));
  const extensions = enumerate(vk.vkEnumerateInstanceExtensionProperties, [null], {
    struct: "VkExtensionProperties",
    name: "vkEnumerateInstanceExtensionProperties",
  }).map((e) => ({ name: e.extensionName as string, specVersion: e.specVersion as number }));

  const portability = options.portability === true;
  const instanceSlot = outSlot(arena);
  check(
    vk.vkCreateInstance(
      writeStruct(arena, "VkInstanceCreateInfo", {
        flags: portability ? VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR : 0,
        pApplicationInfo: { pApplicationName: "vkdeno info", apiVersion: instanceVersion },
        ppEnabledExtensionNames: portability ? [PORTABILITY_ENUMERATION] : [],
      }),
      null,
      instanceSlot.pointer,
    ),
    "vkCreateInstance",
  );
  const instance = instanceSlot.read();
  try {
    const handles = enumerate(vk.vkEnumeratePhysicalDevices, [instance], {
      name: "vkEnumeratePhysicalDevices",
    });
    const devices = handles.map((physicalDevice): DeviceInfo => {
      const propsPointer = allocStruct(arena, "VkPhysicalDeviceProperties");
      vk.vkGetPhysicalDeviceProperties(physicalDevice, propsPointer);
      const p = readStruct("VkPhysicalDeviceProperties", propsPointer);
      const deviceExtensions = enumerate(vk.vkEnumerateDeviceExtensionProperties, [physicalDevice, null], {
        struct: "VkExtensionProperties",
        name: "vkEnumerateDeviceExtensionProperties",
      });
      return {
        name: p.deviceName as string,
        type: deviceTypeName(p.deviceType as number),
        apiVersion: formatApiVersion(p.apiVersion as number),
        driverVersion: p.driverVersion as number,
        vendorID: p.vendorID as number,
        deviceID: p.deviceID as number,
        extensions: deviceExtensions.map((e) => e.extensionName as string),
      };
    });
    const indexOf = new Map(handles.map((h, i) => [address(h), i]));
    let groups: { devices: number[] }[];
    if (instanceVersion >= makeApiVersion(1, 1)) {
      groups = enumerate(vk.vkEnumeratePhysicalDeviceGroups, [instance], {
        struct: "VkPhysicalDeviceGroupProperties",
        name: "vkEnumeratePhysicalDeviceGroups",
      }).map((g) => ({
        devices: (g.physicalDevices as Deno.PointerValue[])
          .slice(0, g.physicalDeviceCount as number)
          .map((h) => indexOf.get(address(h)) ?? -1),
      }));
    } else {
      groups = devices.map((_, i) => ({ devices: [i] }));
    }
    const env = options.env ?? snapshotProcessEnvironment();
    const order = deviceOrder(vk, handles, instanceVersion >= makeApiVersion(1, 1), env);
    return { instanceVersion: formatApiVersion(instanceVersion), layers, extensions, devices, groups, order };
  } finally {
    vk.vkDestroyInstance(instance, null);
  }
}

/** The policy's explanation of the order the loader returned (chain/device_order.ts). */
function deviceOrder(
  vk: ExampleCommands,
  handles: Deno.PointerValue[],
  properties2: boolean,
  env: EnvironmentSnapshot,
): InfoReport["order"] {
  const commands = vk as unknown as Record<string, ((...args: unknown[]) => unknown) | undefined>;
  const records = handles.map((h) =>
    readDeviceRecord({ fn: (name) => commands[name] ?? null }, h, { properties2 })
  );
  const policy = readDevicePolicy(env);
  return explainEnumeratedOrder(records, policy, { canSort: properties2 }).map((e, device) => ({
    device,
    rule: e.rule,
    why: e.why,
  }));
}

/**
 * Formats the report as text, in the spirit of `vulkaninfo --summary`.
 *
 * @example Usage
 * ```ts ignore
 * console.log(formatInfo(collectInfo(vk)));
 * ```
 */
export function formatInfo(report: InfoReport): string {
  const lines = [`Vulkan Instance Version: ${report.instanceVersion}`, ""];
  lines.push(`Instance Extensions: count = ${report.extensions.length}`);
  const width = Math.max(0, ...report.extensions.map((e) => e.name.length));
  for (const e of report.extensions) {
    lines.push(`    ${e.name.padEnd(width)} : extension revision ${e.specVersion}`);
  }
  lines.push("", `Instance Layers: count = ${report.layers.length}`);
  for (const l of report.layers) {
    lines.push(`    ${l.name}  ${l.description}  ${l.specVersion}  version ${l.implementationVersion}`);
  }
  lines.push("", "Devices:");
  report.devices.forEach((d, i) => {
    lines.push(
      `GPU${i}:`,
      `    deviceName    = ${d.name}`,
      `    deviceType    = ${d.type}`,
      `    apiVersion    = ${d.apiVersion}`,
      `    driverVersion = ${d.driverVersion}`,
      `    vendorID      = 0x${d.vendorID.toString(16).padStart(4, "0")}`,
      `    deviceID      = 0x${d.deviceID.toString(16).padStart(4, "0")}`,
      `    extensions    = ${d.extensions.length}`,
    );
    const o = report.order?.find((x) => x.device === i);
    if (o) lines.push(`    order         = ${o.rule}: ${o.why}`);
  });
  lines.push("", "Device Groups:");
  report.groups.forEach((g, i) => lines.push(`    Group ${i}: GPU${g.devices.join(", GPU")}`));
  return lines.join("\n");
}

if (import.meta.main) {
  const json = Deno.args.includes("--json");
  const loaderArg = Deno.args.find((a) => a.startsWith("--loader="))?.slice("--loader=".length) ??
    "vkdeno";
  let code = 0;
  try {
    using vk = await openLoader(loaderArg);
    const report = collectInfo(vk, { portability: Deno.args.includes("--portability") });
    const shown = json && !Deno.args.includes("--order") ? { ...report, order: undefined } : report;
    console.log(json ? JSON.stringify(shown) : formatInfo(report));
  } catch (e) {
    if (!(e instanceof VkError)) throw e;
    console.log(json ? JSON.stringify({ error: e.result }) : `Cannot query Vulkan: ${e.message}`);
    code = 1;
  }
  Deno.exit(code);
}
