/**
 * The cache of parsed layer manifests, kept by path, kind and file stamp, so a scan after a change parses only
 * what changed: per process, and across processes in the persistent cache (persistent_manifests.ts).
 *
 * @example Reading one manifest through the cache
 * ```ts
 * import { readLayerManifestCached } from "./layer_manifest_cache.ts";
 * const counts = { parsed: 0, cached: 0 };
 * const read = readLayerManifestCached("/nonexistent.json", false, 64, true, Date.now(), counts);
 * console.log(read.fileReason !== undefined, counts.parsed); // true 1
 * ```
 *
 * @module
 */

import type { FileStamp } from "../ffi/file_stamp.ts";
import { type LayerManifestResult, type LayerMessage, parseLayerManifest } from "./layer_manifest.ts";
import { readStampedManifest } from "./manifest_file.ts";
import { clearScanMemos, observePath, RACY_WINDOW_MS } from "./scan_memo.ts";
import { PersistentManifests, type PersistentManifestScan } from "./persistent_manifests.ts";

/**
 * One manifest file as read: its layers, skipped layers and messages, or why the whole file was skipped.
 *
 * @example Usage
 * ```ts
 * import type { LayerFileRead } from "./layer_manifest_cache.ts";
 * const read: LayerFileRead = { result: { layers: [], skipped: [], messages: [] }, fileReason: "it is empty" };
 * ```
 */
export interface LayerFileRead {
  /** The manifest's layers (empty when `fileReason` is set). */
  readonly result: LayerManifestResult;
  /** Why the whole file was skipped (unreadable, not JSON, no layer), if it was. */
  readonly fileReason?: string;
}

/**
 * How many manifests one scan parsed and how many it took from the cache; {@linkcode readLayerManifestCached}
 * adds to them.
 *
 * @example Usage
 * ```ts
 * import type { LayerManifestReadCounts } from "./layer_manifest_cache.ts";
 * const counts: LayerManifestReadCounts = { parsed: 0, cached: 0 };
 * ```
 */
export interface LayerManifestReadCounts {
  /** Manifests read and parsed. */
  parsed: number;
  /** Manifests given again from the cache. */
  cached: number;
}

interface CacheEntry extends LayerFileRead {
  /** The file's stamp when it was read (kind, device, inode, size, times). */
  readonly stamp: string;
}

const manifestCache = new Map<string, CacheEntry>();

/** The modules whose code makes a layer manifest's record from its bytes. */
const PARSER_SOURCES = [
  "./layer_manifest_cache.ts",
  "./persistent_manifests.ts",
  "./manifest_file.ts",
  "./jsonc.ts",
  "./layer_manifest.ts",
  "./layer_manifest_fields.ts",
  "./layer_manifest_types.ts",
  "./message.ts",
  "../vk/api_version.ts",
  "./platforms.ts",
].map((path) => new URL(path, import.meta.url));

const persistentManifests = new PersistentManifests<LayerFileRead>("layer-manifests", PARSER_SOURCES);

/**
 * One scan's use of the layer manifests in the persistent cache (`undefined` when it is off); pass it to
 * {@linkcode readLayerManifestCached} for each file, then call its `finish`.
 *
 * @example Usage
 * ```ts
 * import { persistentLayerManifests } from "./layer_manifest_cache.ts";
 * const scan = persistentLayerManifests();
 * scan?.finish();
 * ```
 */
export function persistentLayerManifests(): PersistentManifestScan<LayerFileRead> | undefined {
  return persistentManifests.scan();
}

/**
 * Forgets every cached manifest, and the kept scans built on them (scan_memo.ts); tests use it to compare
 * warm and cold results.
 *
 * @example Usage
 * ```ts
 * import { clearLayerManifestCache } from "./layer_manifest_cache.ts";
 * clearLayerManifestCache();
 * ```
 */
export function clearLayerManifestCache(): void {
  manifestCache.clear();
  persistentManifests.forget();
  clearScanMemos();
}

/**
 * Reads the layer manifest at `path` as found implicit or explicit, from the cache when `useCache` is set
 * and the file's stamp is unchanged (this process's, else `persistent`'s), else by parsing it (and keeping it
 * unless it changed within the racy window before `now`). Stamps the file for the scan memo either way, and
 * counts the read in `counts`.
 *
 * @example Usage
 * ```ts
 * import { readLayerManifestCached } from "./layer_manifest_cache.ts";
 * const counts = { parsed: 0, cached: 0 };
 * readLayerManifestCached("/etc/vulkan/implicit_layer.d/x.json", true, 64, true, Date.now(), counts);
 * ```
 */
export function readLayerManifestCached(
  path: string,
  implicit: boolean,
  pointerBits: 32 | 64,
  useCache: boolean,
  now: number,
  counts: LayerManifestReadCounts,
  persistent?: PersistentManifestScan<LayerFileRead>,
): LayerFileRead {
  const key = (implicit ? "i:" : "e:") + path;
  // Also stamps the file for the scan memo (scan_memo.ts).
  const stamp = observePath(path);
  if (!useCache || stamp.kind !== "file") {
    counts.parsed++;
    return readLayerFile(path, implicit, pointerBits, stamp).read;
  }
  const cached = manifestCache.get(key);
  if (cached !== undefined && cached.stamp === stamp.text) {
    counts.cached++;
    return cached;
  }
  const persistentKey = `${pointerBits}${key}`;
  let entry = persistent?.get(persistentKey, stamp);
  if (entry !== undefined) {
    counts.cached++;
  } else {
    const file = readLayerFile(path, implicit, pointerBits, stamp);
    entry = file.read;
    counts.parsed++;
    // Only what the file's bytes made: a file this process could not read may be readable by another.
    if (file.fromBytes) persistent?.add(persistentKey, stamp, entry, now);
  }
  // A file written within the racy window may change again within the same tick unseen.
  if (now - stamp.changedMs > RACY_WINDOW_MS) {
    manifestCache.set(key, { stamp: stamp.text, ...entry });
  } else {
    manifestCache.delete(key);
  }
  return entry;
}

function readLayerFile(
  path: string,
  implicit: boolean,
  pointerBits: 32 | 64,
  stamp: FileStamp,
): { read: LayerFileRead; fromBytes: boolean } {
  const { file, fromBytes } = readStampedManifest(path, stamp);
  if (!file.ok) {
    return {
      read: { result: { layers: [], skipped: [], messages: [] }, fileReason: file.reason },
      fromBytes,
    };
  }
  const parsed = parseLayerManifest(file.value, {
    manifestPath: path,
    implicit,
    pointerBits,
    members: file.members,
  });
  const warnings: LayerMessage[] = file.warnings.map((w) => ({
    level: "warn",
    category: "layer",
    text: `Layer manifest "${path}": ${w}`,
  }));
  return { read: { result: { ...parsed, messages: [...warnings, ...parsed.messages] } }, fromBytes };
}
