/**
 * The manifest half of the fault catalogue: files that are huge, deeply
 * nested, not UTF-8, symlink loops or unreadable, written into a folder next
 * to one good manifest. Shared by `fault_manifest_test.ts`, the elevated and
 * unprivileged runs, and the side-by-side run against the Khronos loader.
 *
 * @module
 */

/** One awkward manifest file. */
export interface ManifestFault {
  /** Short id, also the file stem. */
  readonly id: string;
  /** What is wrong, for the README table. */
  readonly fault: string;
  /** The manifest's file name in the folder. */
  readonly fileName: string;
  /** The skip reason discovery must give (matched against `reason`). */
  readonly reason: RegExp;
  /** Writes the file (or link, or FIFO) into `dir`; `good` is the text of a valid manifest. */
  readonly write: (dir: string, good: string) => void;
  /** True when only an unprivileged process can meet this fault (root reads any file). */
  readonly needsUnprivileged?: boolean;
}

const encoder = new TextEncoder();

/** Bytes of `good` with a top-level `"pad"` member holding `value` (JSON text) inserted first. */
function padded(good: string, value: string): string {
  return good.replace("{", `{"pad":${value},`);
}

/**
 * The manifest faults. Each `write` leaves the folder's good manifest untouched.
 *
 * @example Usage
 * ```ts ignore
 * import { MANIFEST_FAULTS } from "./reliability_manifests.ts";
 * for (const f of MANIFEST_FAULTS) f.write("/tmp/x", "{}");
 * ```
 */
export const MANIFEST_FAULTS: readonly ManifestFault[] = [
  {
    id: "huge",
    fault: "manifest of 5 MiB (over the 4 MiB limit)",
    fileName: "huge.json",
    reason: /larger than the \d+-byte limit/,
    write: (dir, good) =>
      Deno.writeTextFileSync(`${dir}/huge.json`, padded(good, `"${"x".repeat(5 << 20)}"`)),
  },
  {
    id: "deep",
    fault: "200,000 nested arrays",
    fileName: "deep.json",
    reason: /nesting is too deep|not valid JSON/,
    write: (dir, good) =>
      Deno.writeTextFileSync(`${dir}/deep.json`, padded(good, "[".repeat(200_000) + "]".repeat(200_000))),
  },
  {
    id: "non_utf8",
    fault: "invalid UTF-8 byte (0xFF) inside library_path",
    fileName: "non_utf8.json",
    reason: /not valid UTF-8/,
    write: (dir, good) => {
      const bytes = encoder.encode(good.replace('library_path": "', 'library_path": "\u0001'));
      bytes[bytes.indexOf(1)] = 0xff;
      Deno.writeFileSync(`${dir}/non_utf8.json`, bytes);
    },
  },
  {
    id: "symlink_loop",
    fault: "symlink loop (a.json -> b.json -> a.json)",
    fileName: "loop_a.json",
    reason: /symbolic link loop|too many (levels of )?symbolic links/i,
    write: (dir) => {
      Deno.symlinkSync(`${dir}/loop_b.json`, `${dir}/loop_a.json`);
      Deno.symlinkSync(`${dir}/loop_a.json`, `${dir}/loop_b.json`);
    },
  },
  {
    id: "folder_loop",
    fault: "a *.json symlink to its own folder",
    fileName: "self.json",
    reason: /folder/,
    write: (dir) => Deno.symlinkSync(dir, `${dir}/self.json`),
  },
  {
    id: "dangling",
    fault: "dangling symlink",
    fileName: "dangling.json",
    reason: /does not exist/,
    write: (dir) => Deno.symlinkSync(`${dir}/nowhere/none.json`, `${dir}/dangling.json`),
  },
  {
    id: "io_error",
    fault: "unreadable: read fails with EIO (symlink to /proc/self/mem)",
    fileName: "io_error.json",
    reason: /cannot be read/,
    write: (dir) => Deno.symlinkSync("/proc/self/mem", `${dir}/io_error.json`),
  },
  {
    id: "fifo",
    fault: "a FIFO named *.json (open would block)",
    fileName: "fifo.json",
    reason: /not a regular file/,
    write: (dir) => {
      const r = new Deno.Command("mkfifo", { args: [`${dir}/fifo.json`] }).outputSync();
      if (!r.success) throw new Error(`Cannot make FIFO "${dir}/fifo.json": mkfifo failed`);
    },
  },
  {
    id: "no_permission",
    fault: "unreadable: mode 000 (EACCES, unprivileged reader)",
    fileName: "no_permission.json",
    reason: /cannot be read|permission/i,
    needsUnprivileged: true,
    write: (dir, good) => {
      Deno.writeTextFileSync(`${dir}/no_permission.json`, good);
      Deno.chmodSync(`${dir}/no_permission.json`, 0o000);
    },
  },
];

/**
 * A valid driver manifest naming `libraryPath`.
 *
 * @example Usage
 * ```ts ignore
 * import { goodDriverManifest } from "./reliability_manifests.ts";
 * goodDriverManifest("/usr/lib/libvulkan_lvp.so");
 * ```
 */
export function goodDriverManifest(libraryPath: string, apiVersion = "1.3.0"): string {
  return JSON.stringify(
    { file_format_version: "1.0.1", ICD: { library_path: libraryPath, api_version: apiVersion } },
    null,
    2,
  );
}

/**
 * A valid explicit layer manifest.
 *
 * @example Usage
 * ```ts ignore
 * import { goodLayerManifest } from "./reliability_manifests.ts";
 * goodLayerManifest("VK_LAYER_x", "/tmp/libx.so");
 * ```
 */
export function goodLayerManifest(name: string, libraryPath: string): string {
  return JSON.stringify(
    {
      file_format_version: "1.2.0",
      layer: {
        name,
        type: "GLOBAL",
        library_path: libraryPath,
        api_version: "1.3.0",
        implementation_version: "1",
        description: "reliability test layer",
      },
    },
    null,
    2,
  );
}

/** Whether this process runs as root (file modes do not stop it reading). */
export function runningAsRoot(): boolean {
  return Deno.uid() === 0;
}
