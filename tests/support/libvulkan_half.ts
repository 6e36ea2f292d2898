/**
 * The libvulkan half of a test that runs on both loaders. libvulkan reads `VK_DRIVER_FILES` from the process
 * environment, which all test modules of one `deno test --parallel` share (they run as threads of one
 * process), so no test sets it: the test runs its libvulkan half again in a child `deno test` of that one
 * test, whose environment holds the variables.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { type VkCommandSource, Vulkan } from "../../mod.ts";
import { DENO_DIR } from "./deno_dir.ts";
import { LAVAPIPE } from "./lavapipe.ts";
import { openLibvulkan } from "./libvulkan.ts";

const CHILD = "VKDENO_TEST_LIBVULKAN_HALF";

/** True in the child: the test runs only its libvulkan half, under the variables its parent gave. */
export const inLibvulkanHalf: boolean = Deno.env.get(CHILD) === "1";

/**
 * Runs the test of `t` again in a child `deno test` whose environment holds only `vars` (plus `PATH`, Deno's
 * cache folder and the child flag), and throws with the child's output unless exactly that test passed.
 *
 * @example Usage
 * ```ts ignore
 * Deno.test("libvulkan on lavapipe", async (t) => {
 *   if (inLibvulkanHalf) check();
 *   else await runLibvulkanHalf(t, { VK_DRIVER_FILES: LAVAPIPE });
 * });
 * ```
 */
export async function runLibvulkanHalf(t: Deno.TestContext, vars: Record<string, string>): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["test", "--allow-all", "--no-check", "--filter", t.name, fileURLToPath(t.origin)],
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", DENO_DIR, NO_COLOR: "1", [CHILD]: "1", ...vars },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  if (!out.success || !/\| 1 passed \| 0 failed/.test(text)) {
    throw new Error(`The libvulkan half of "${t.name}" failed in its child process:\n${text}`);
  }
}

/**
 * Runs `body` over lavapipe with each loader's command object: vkdeno's in this process, libvulkan's in a
 * child of test `t` ({@linkcode runLibvulkanHalf}).
 *
 * @example Usage
 * ```ts ignore
 * Deno.test("same on both loaders", (t) => onBothLoaders(t, (raw, loader) => check(raw, loader)));
 * ```
 */
export async function onBothLoaders(
  t: Deno.TestContext,
  body: (raw: VkCommandSource, loader: string) => void,
): Promise<void> {
  if (!inLibvulkanHalf) {
    using raw = Vulkan.load({ env: { vars: { VK_DRIVER_FILES: LAVAPIPE }, elevated: false } });
    body(raw, "vkdeno");
  }
  await onLibvulkan(t, { VK_DRIVER_FILES: LAVAPIPE }, () => {
    using raw = openLibvulkan();
    body(raw, "libvulkan");
  });
}

/**
 * Runs `body` in a child of test `t` whose environment holds `vars` ({@linkcode runLibvulkanHalf}); in that
 * child, runs it.
 *
 * @example Usage
 * ```ts ignore
 * Deno.test("libvulkan on lavapipe", (t) => onLibvulkan(t, { VK_DRIVER_FILES: LAVAPIPE }, () => check()));
 * ```
 */
export async function onLibvulkan(
  t: Deno.TestContext,
  vars: Record<string, string>,
  body: () => void,
): Promise<void> {
  if (inLibvulkanHalf) body();
  else await runLibvulkanHalf(t, vars);
}
