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
 * Each device is listed with the rule that put it at its position (chain/order/sort.ts): the
 * `VK_LOADER_DEVICE_SELECT` match, device type, PCI bus, `deviceID ^ vendorID`, the loader order when
 * sorting is off, `settings` when the loader settings file's `device_configurations` placed it, or `layer`
 * when something above the loader (such as Mesa's device-select layer) reordered the list.
 *
 * ```
 * {"instanceVersion":"M.m.p",
 *  "layers":[{"name","specVersion":"M.m.p","implementationVersion":N,"description"}],
 *  "extensions":[{"name","specVersion":N}],
 *  "devices":[{"name","type":"CPU|DISCRETE_GPU|INTEGRATED_GPU|VIRTUAL_GPU|OTHER","apiVersion":"M.m.p",
 *              "driverVersion":N,"vendorID":N,"deviceID":N,"extensions":["..."]}],
 *  "groups":[{"devices":[index]}],
 *  "order":[ (only with --order){"device":index,"rule":"select|type|pci-bus|pci-bus-missing|id-xor|tie|only|unsorted|settings|layer",
 *            "why":"..."}]}
 * ```
 *
 * @module
 */
import * as vkc from "../mod.ts";
import { explainDeviceOrder, formatApiVersion, VkApi, type VkCommandSource, VkError } from "../mod.ts";
import type { EnvironmentSnapshot } from "../mod.ts";
import { describeDevice } from "./_helpers.ts";
import { loaderArg, openLoader } from "./_loader.ts";

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

/**
 * Collects the report with a loader's command object. The instance asks for the loader's own version and,
 * with `options.portability`, portability enumeration (flag and extension), so portability drivers are
 * listed.
 *
 * @example On the reference loader
 * ```ts ignore
 * import { openLibvulkan } from "../mod.ts";
 * import { collectInfo } from "./info.ts";
 * using vk = openLibvulkan();
 * console.log(collectInfo(vk as never).devices.map((d) => d.name));
 * ```
 * @throws {VkError} If a command fails, instance creation included (its `result` names the VkResult).
 */
export function collectInfo(raw: VkCommandSource, options: InfoOptions = {}): InfoReport {
  using vk = VkApi.of(raw).scope(); // destroys the instance when done, also on a throw
  const instanceVersion = vk.enumerateInstanceVersion();
  const layers = vk.enumerateInstanceLayerProperties().map((l) => ({
    name: l.layerName,
    specVersion: formatApiVersion(l.specVersion),
    implementationVersion: l.implementationVersion,
    description: l.description,
  }));
  const extensions = vk.enumerateInstanceExtensionProperties().map((e) => ({
    name: e.extensionName,
    specVersion: e.specVersion,
  }));
  const portability = options.portability === true;
  const instance = vk.createInstance({
    flags: portability ? vkc.VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR : 0,
    pApplicationInfo: { pApplicationName: "vkdeno info", apiVersion: instanceVersion },
    ppEnabledExtensionNames: portability ? [vkc.VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME] : [],
  });
  const handles = vk.enumeratePhysicalDevices(instance);
  const devices = handles.map((physicalDevice): DeviceInfo => {
    // Instance version 0: VkPhysicalDeviceProperties only, as vulkaninfo --summary shows them.
    const { name, type, apiVersion, driver, vendorID, deviceID } = describeDevice(vk, physicalDevice, 0);
    const extensions = vk.enumerateDeviceExtensionProperties(physicalDevice).map((e) => e.extensionName);
    return { name, type, apiVersion, driverVersion: driver.version, vendorID, deviceID, extensions };
  });
  const indexOf = new Map(handles.map((h, i) => [Deno.UnsafePointer.value(h), i]));
  const properties2 = instanceVersion >= vkc.VK_API_VERSION_1_1;
  const groups = !properties2
    ? devices.map((_, i) => ({ devices: [i] }))
    : vk.enumeratePhysicalDeviceGroups(instance).map((g) => ({
      devices: g.physicalDevices
        .slice(0, g.physicalDeviceCount)
        .map((h) => indexOf.get(Deno.UnsafePointer.value(h)) ?? -1),
    }));
  const env = options.env;
  const order = explainDeviceOrder(raw, handles, { apiVersion: instanceVersion, ...(env ? { env } : {}) });
  return { instanceVersion: formatApiVersion(instanceVersion), layers, extensions, devices, groups, order };
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
  try {
    using vk = await openLoader(loaderArg(Deno.args));
    const report = collectInfo(vk, { portability: Deno.args.includes("--portability") });
    const shown = json && !Deno.args.includes("--order") ? { ...report, order: undefined } : report;
    console.log(json ? JSON.stringify(shown) : formatInfo(report));
  } catch (e) {
    if (!(e instanceof VkError)) throw e;
    console.log(json ? JSON.stringify({ error: e.result }) : `Cannot query Vulkan: ${e.message}`);
    Deno.exitCode = 1;
  }
}
