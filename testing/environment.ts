/**
 * {@linkcode mockEnvironment}: a snapshot whose file-system root is a temp folder holding only the test's
 * mock drivers (where discovery looks by default) and files, and whose variables are only the test's.
 *
 * @module
 */
import type { EnvironmentSnapshot } from "../discovery/environment.ts";
import type { MockDriver } from "./driver.ts";
import type { MockManifest } from "./manifest.ts";

/** Options of {@linkcode mockEnvironment}. */
export interface MockEnvironmentOptions {
  /** Environment variables (`VK_LOADER_DEBUG`, `VK_LOADER_DRIVERS_SELECT`, ...); none by default. */
  readonly vars?: Readonly<Record<string, string>>;
  /** Mock drivers whose manifests go into `<root>/usr/share/vulkan/icd.d/`, found like installed drivers. */
  readonly drivers?: readonly MockDriver[];
  /** Files to write under the root, by path relative to it (a settings file, layer manifests, ...). */
  readonly files?: Readonly<Record<string, string>>;
}

/** A temp root and the snapshot that reads it; `using` (or `remove()`) deletes the folder. */
export interface MockEnvironment extends Disposable {
  /** The snapshot to hand to `Vulkan.load({ env })`. */
  readonly env: EnvironmentSnapshot;
  /** The temp folder standing for `/`. */
  readonly root: string;
  /** The manifests written for `options.drivers`, in order. */
  readonly manifests: readonly MockManifest[];
  /** Deletes the temp root. */
  remove(): void;
}

/**
 * Makes a temp root holding the mock drivers' manifests (and `files`), and the snapshot that reads it.
 *
 * @example Two mocks found by discovery, one selected by variable
 * ```ts
 * import { Vulkan } from "@vkdeno/loader";
 * import { MockDriver, mockEnvironment } from "@vkdeno/loader/testing";
 * using a = new MockDriver({ name: "mock-a" });
 * using b = new MockDriver({ name: "mock-b" });
 * using env = mockEnvironment({ drivers: [a, b], vars: { VK_LOADER_DRIVERS_SELECT: "mock-b*" } });
 * using vk = Vulkan.load({ env: env.env });
 * console.log(env.manifests.length); // 2
 * ```
 */
export function mockEnvironment(options: MockEnvironmentOptions = {}): MockEnvironment {
  const root = Deno.makeTempDirSync({ prefix: "vkdeno-mock-root-" });
  const icd = `${root}/usr/share/vulkan/icd.d`;
  Deno.mkdirSync(icd, { recursive: true });
  const manifests = (options.drivers ?? []).map((d) => d.writeManifest({ folder: icd }));
  for (const [path, text] of Object.entries(options.files ?? {})) {
    const full = `${root}/${path.replace(/^\/+/, "")}`;
    Deno.mkdirSync(full.slice(0, full.lastIndexOf("/")), { recursive: true });
    Deno.writeTextFileSync(full, text);
  }
  const remove = () => {
    try {
      Deno.removeSync(root, { recursive: true });
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  };
  return {
    env: { vars: { ...options.vars }, elevated: false, root },
    root,
    manifests,
    remove,
    [Symbol.dispose]: remove,
  };
}
