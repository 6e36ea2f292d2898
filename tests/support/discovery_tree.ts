/**
 * Temp-tree helpers for the discovery tests: each test builds its own tree and
 * snapshot, so the host's manifests never leak in.
 *
 * @module
 */

import type { EnvironmentSnapshot } from "../../discovery/environment.ts";

/** What to put at a path of a temp tree: text, bytes, a folder, or a link. */
export type TreeEntry = string | Uint8Array | { folder: true } | { symlink: string };

/** A temp folder tree that removes itself when disposed. */
export class TempTree implements Disposable {
  readonly root: string;

  constructor(entries: Record<string, TreeEntry> = {}) {
    this.root = Deno.makeTempDirSync({ prefix: "vkdeno_disc_" });
    this.add(entries);
  }

  /** The absolute path of a tree-relative path. */
  path(relative: string): string {
    return relative === "" ? this.root : `${this.root}/${relative.replace(/^\/+/, "")}`;
  }

  /** Writes entries; parents are created. */
  add(entries: Record<string, TreeEntry>): void {
    for (const [relative, entry] of Object.entries(entries)) {
      const full = this.path(relative);
      const parent = full.slice(0, full.lastIndexOf("/"));
      Deno.mkdirSync(parent, { recursive: true });
      if (typeof entry === "string") Deno.writeTextFileSync(full, entry);
      else if (entry instanceof Uint8Array) Deno.writeFileSync(full, entry);
      else if ("folder" in entry) Deno.mkdirSync(full, { recursive: true });
      else Deno.symlinkSync(entry.symlink, full);
    }
  }

  /** A snapshot with `root` set to this tree (so `/usr/share` means `<tree>/usr/share`). */
  snapshot(vars: Record<string, string> = {}, elevated = false): EnvironmentSnapshot {
    return { vars, elevated, root: this.root };
  }

  [Symbol.dispose](): void {
    Deno.removeSync(this.root, { recursive: true });
  }
}

/** A valid driver manifest text. */
export function driverManifest(
  libraryPath: string,
  extra: { version?: string; api?: string; arch?: string; portability?: boolean } = {},
): string {
  const icd: Record<string, unknown> = { library_path: libraryPath, api_version: extra.api ?? "1.3.230" };
  if (extra.arch !== undefined) icd["library_arch"] = extra.arch;
  if (extra.portability !== undefined) icd["is_portability_driver"] = extra.portability;
  return JSON.stringify({ file_format_version: extra.version ?? "1.0.0", ICD: icd }, null, 2);
}
