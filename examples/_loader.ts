/**
 * What every example does before its first Vulkan call: opens the loader named by `--loader=` (vkdeno, or
 * the reference `libvulkan.so.1` through `openLibvulkan`, for comparing), and says how to install a
 * driver when there is none.
 *
 * @module
 */
import type { DeviceTable, VulkanCommands } from "../mod.ts";

/** A loader's command object as the examples take it: every command, device tables, disposal. */
export type LoaderCommands = VulkanCommands & { deviceTable(device: Deno.PointerValue): DeviceTable };

/** No Vulkan driver, or no device that can run the example: the example prints {@linkcode INSTALL_HINT}. */
export class NoDeviceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NoDeviceError";
  }
}

/** The message printed when no Vulkan driver is installed. */
export const INSTALL_HINT =
  "No Vulkan driver found. Install one, for example Mesa's CPU driver (lavapipe):\n" +
  "  sudo apt-get install mesa-vulkan-drivers";

/**
 * The value of `--loader=` in `args` (default `"vkdeno"`).
 *
 * @example Usage
 * ```ts
 * import { loaderArg } from "./_loader.ts";
 * console.log(loaderArg(["--loader=libvulkan"])); // "libvulkan"
 * ```
 */
export function loaderArg(args: readonly string[]): string {
  return args.find((a) => a.startsWith("--loader="))?.slice("--loader=".length) ?? "vkdeno";
}

/**
 * Opens the loader named by a `--loader=` value: `"vkdeno"` (this project's loader) or `"libvulkan"` (the
 * reference, through `openLibvulkan`).
 *
 * @example Usage
 * ```ts ignore
 * import { openLoader } from "./_loader.ts";
 * using vk = await openLoader("libvulkan");
 * ```
 * @throws {TypeError} For another loader name.
 */
export async function openLoader(name: string): Promise<LoaderCommands & Disposable> {
  if (name === "vkdeno") {
    const { Vulkan } = await import("../mod.ts");
    return Vulkan.load();
  }
  if (name === "libvulkan") {
    const { openLibvulkan } = await import("../mod.ts");
    return openLibvulkan();
  }
  throw new TypeError(`Unknown loader "${name}": expected "vkdeno" or "libvulkan"`);
}

/**
 * Runs an example's `main` with the loader named by `--loader=` in `args`, and turns failures into an exit
 * code 1 and one line on stderr ({@linkcode INSTALL_HINT} for a {@linkcode NoDeviceError}). `main` may
 * set `Deno.exitCode` itself.
 *
 * @example Usage
 * ```ts ignore
 * await runExample(Deno.args, (vk, loader) => console.log(loader, runCompute(vk).wrong));
 * ```
 */
export async function runExample(
  args: readonly string[],
  main: (vk: LoaderCommands, loader: string) => void | Promise<void>,
): Promise<void> {
  const loader = loaderArg(args);
  try {
    using vk = await openLoader(loader);
    await main(vk, loader);
  } catch (e) {
    console.error(e instanceof NoDeviceError ? `${INSTALL_HINT}\n(${e.message})` : (e as Error).message);
    Deno.exitCode = 1;
  }
}
