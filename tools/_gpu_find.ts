/**
 * Finding NVIDIA's Vulkan driver manifest for tools/gpu_check.ts, wherever the container image put it.
 *
 * @module
 */

import { join } from "node:path";

/** A manifest candidate and what the search made of it. */
export interface ManifestCandidate {
  path: string;
  /** "nvidia" (chosen kind), "other" (a driver manifest, not NVIDIA's), "invalid" (unreadable or no ICD). */
  status: "nvidia" | "other" | "invalid";
  libraryPath?: string;
  apiVersion?: string;
  fileFormatVersion?: string;
  reason?: string;
}

/** What the search found. */
export interface ManifestSearch {
  /** The chosen manifest, or undefined when none names an NVIDIA library. */
  chosen?: ManifestCandidate;
  candidates: ManifestCandidate[];
}

/** Folders holding driver manifests on common Linux layouts and NVIDIA container images. */
export const ICD_FOLDERS: readonly string[] = [
  "/usr/local/nvidia/share/vulkan/icd.d",
  "/usr/local/nvidia/etc/vulkan/icd.d",
  "/etc/vulkan/icd.d",
  "/usr/share/vulkan/icd.d",
  "/usr/local/share/vulkan/icd.d",
  "/usr/local/etc/vulkan/icd.d",
  "/etc/xdg/vulkan/icd.d",
];

/** Trees walked when the folders above hold no NVIDIA manifest. */
export const WALK_ROOTS: readonly string[] = [
  "/usr/local/nvidia",
  "/etc",
  "/usr/share",
  "/usr/local",
  "/opt",
];

/**
 * Classifies one manifest text: an `ICD` object with a `library_path` naming an NVIDIA library
 * (`libGLX_nvidia`, `libnvidia-*`, or any path with "nvidia" in it) is NVIDIA's.
 *
 * @example Usage
 * ```ts
 * import { classifyManifest } from "./_gpu_find.ts";
 * const text = '{"file_format_version":"1.0.1","ICD":{"library_path":"libGLX_nvidia.so.0","api_version":"1.4.312"}}';
 * console.log(classifyManifest("/etc/vulkan/icd.d/nvidia_icd.json", text).status); // "nvidia"
 * ```
 */
export function classifyManifest(path: string, text: string): ManifestCandidate {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { path, status: "invalid", reason: `not JSON (${(error as Error).message})` };
  }
  const root = json as { file_format_version?: unknown; ICD?: Record<string, unknown> };
  const icd = root?.ICD;
  if (typeof icd !== "object" || icd === null || typeof icd.library_path !== "string") {
    return { path, status: "invalid", reason: 'no "ICD.library_path"' };
  }
  const candidate: ManifestCandidate = {
    path,
    status: /nvidia/i.test(icd.library_path) ? "nvidia" : "other",
    libraryPath: icd.library_path,
  };
  if (typeof icd.api_version === "string") candidate.apiVersion = icd.api_version;
  if (typeof root.file_format_version === "string") candidate.fileFormatVersion = root.file_format_version;
  return candidate;
}

function readText(path: string): string | undefined {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return undefined;
  }
}

function listJson(folder: string): string[] {
  try {
    return [...Deno.readDirSync(folder)]
      .filter((e) => (e.isFile || e.isSymlink) && e.name.endsWith(".json"))
      .map((e) => join(folder, e.name))
      .sort();
  } catch {
    return [];
  }
}

/** Paths of manifest-like files under `root` (depth-limited; `/proc`, `/sys` and the like are never entered). */
function walk(root: string, depth: number, out: string[]): void {
  if (depth < 0 || /^\/(proc|sys|dev|run)(\/|$)/.test(root)) return;
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(root)];
  } catch {
    return;
  }
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(root, e.name);
    if (e.isDirectory) walk(path, depth - 1, out);
    else if (
      e.name.endsWith(".json") && (root.endsWith("/icd.d") || /nvidia.*icd|icd.*nvidia/i.test(e.name))
    ) out.push(path);
  }
}

/** Options of {@linkcode findNvidiaManifest}. */
export interface FindOptions {
  /** Files to try first (from `--driver` or `VK_DRIVER_FILES`). */
  first?: readonly string[];
  /** Default {@linkcode ICD_FOLDERS}. */
  folders?: readonly string[];
  /** Default {@linkcode WALK_ROOTS}. */
  walkRoots?: readonly string[];
  /** Walk depth; default 6. */
  depth?: number;
}

/**
 * Searches for NVIDIA's driver manifest: `first`, then `folders`, then a walk of `walkRoots`.
 *
 * @example Usage
 * ```ts ignore
 * import { findNvidiaManifest } from "./_gpu_find.ts";
 * console.log(findNvidiaManifest().chosen?.path);
 * ```
 */
export function findNvidiaManifest(options: FindOptions = {}): ManifestSearch {
  const candidates: ManifestCandidate[] = [];
  const seen = new Set<string>();
  const consider = (paths: readonly string[]): ManifestCandidate | undefined => {
    for (const path of paths) {
      if (seen.has(path)) continue;
      seen.add(path);
      const text = readText(path);
      if (text === undefined) continue;
      const c = classifyManifest(path, text);
      candidates.push(c);
      if (c.status === "nvidia") return c;
    }
    return undefined;
  };
  let chosen = consider(options.first ?? []);
  for (const folder of options.folders ?? ICD_FOLDERS) chosen ??= consider(listJson(folder));
  if (!chosen) {
    for (const root of options.walkRoots ?? WALK_ROOTS) {
      const found: string[] = [];
      walk(root, options.depth ?? 6, found);
      chosen = consider(found);
      if (chosen) break;
    }
  }
  return chosen ? { chosen, candidates } : { candidates };
}
