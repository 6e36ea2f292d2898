/**
 * Why each physical device is where it is in the list a loader returned (`vkEnumeratePhysicalDevices`):
 * the loader settings file's `device_configurations`, `VK_LOADER_DEVICE_SELECT`, the Linux sort (type, PCI
 * bus, ids), or a layer above the loader that reordered it. Works over any command source.
 *
 * @module
 */
import { explainEnumeratedOrder } from "./chain/order/report.ts";
import { explainConfiguredOrder, readDeviceIdentity } from "./chain/order/configurations.ts";
import { readDeviceRecord } from "./chain/order/record.ts";
import { readDevicePolicy } from "./discovery/device_selection.ts";
import { type EnvironmentSnapshot, snapshotProcessEnvironment } from "./discovery/environment.ts";
import { deviceConfigurationsOf, readLoaderSettings } from "./discovery/settings_file.ts";
import type { VkCommands } from "./vk/generated/vk_commands.ts";
import type { VkPhysicalDevice } from "./vk/generated/vk_types.ts";
import { VK_API_VERSION_1_1 } from "./vk/generated/vk_constants.js";

/** One device's place, by index into the list explained. */
export interface DeviceOrderEntry {
  /** Index into the physical devices given. */
  device: number;
  /** The rule that put it there: `select`, `type`, `pci-bus`, `id-xor`, `settings`, `layer`, ... */
  rule: string;
  /** A sentence: why it is at this position. */
  why: string;
}

/** Options of {@linkcode explainDeviceOrder}. */
export interface ExplainDeviceOrderOptions {
  /** The instance's API version (1.1 or later reads the properties the sort and the settings file use). */
  apiVersion: number;
  /** The environment whose device policy and settings file apply; default this process's. */
  env?: EnvironmentSnapshot;
}

/**
 * Explains the order of `physicalDevices` (as `vkEnumeratePhysicalDevices` returned them through
 * `commands`) by the rules of the Khronos loader on Linux, which vkdeno follows.
 *
 * @example Usage
 * ```ts ignore
 * import { explainDeviceOrder, VkApi, Vulkan } from "@vkdeno/loader";
 * using raw = Vulkan.load();
 * using vk = VkApi.of(raw).scope();
 * const apiVersion = vk.enumerateInstanceVersion();
 * const instance = vk.createInstance({ pApplicationInfo: { apiVersion } });
 * const gpus = vk.enumeratePhysicalDevices(instance);
 * console.log(explainDeviceOrder(raw, gpus, { apiVersion })[0]?.rule); // "only"
 * ```
 */
export function explainDeviceOrder(
  commands: Partial<VkCommands>,
  physicalDevices: readonly VkPhysicalDevice[],
  options: ExplainDeviceOrderOptions,
): DeviceOrderEntry[] {
  const env = options.env ?? snapshotProcessEnvironment();
  const properties2 = options.apiVersion >= VK_API_VERSION_1_1;
  const named = commands as Record<string, ((...args: unknown[]) => unknown) | undefined>;
  const fn = (name: string) => named[name] ?? null;
  const records = physicalDevices.map((h) => readDeviceRecord({ fn }, h, { properties2 }));
  // A settings file's device_configurations place devices before any sort (chain/order/configurations.ts).
  const list = deviceConfigurationsOf(readLoaderSettings(env).settings);
  if (list !== undefined && properties2) {
    const driver = { fn, driver: { apiVersion: options.apiVersion } };
    const configured = explainConfiguredOrder(
      physicalDevices.map((h, i) => ({ h, apiVersion: records[i]!.apiVersion })),
      (d) => readDeviceIdentity(driver, d.h, d.apiVersion),
      list,
    );
    if (configured) return configured.map((e, device) => ({ device, rule: e.rule, why: e.why }));
  }
  const policy = readDevicePolicy(env);
  return explainEnumeratedOrder(records, policy, { canSort: properties2 }).map((e, device) => ({
    device,
    rule: e.rule,
    why: e.why,
  }));
}
