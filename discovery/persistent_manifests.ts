/**
 * Parsed manifests kept across processes in the persistent cache (ffi/persistent_cache.ts): per kind of
 * manifest one entry holding what the last scan that parsed a file read, each record under its file's path
 * and stamp, and given again only to a file with the same stamp (docs/performance.md, "Time to first instance").
 *
 * @example A scan over the cache
 * ```ts
 * import { PersistentManifests } from "./persistent_manifests.ts";
 * const kept = new PersistentManifests<string>("example-manifests", [new URL(import.meta.url)]);
 * const scan = kept.scan(); // undefined when the cache is off
 * scan?.finish();
 * ```
 *
 * @module
 */

import type { FileStamp } from "../ffi/file_stamp.ts";
import {
  codeIdentity,
  noteCacheUse,
  persistentCacheFolder,
  readCacheEntry,
  writeCacheEntry,
} from "../ffi/persistent_cache.ts";
import { RACY_WINDOW_MS } from "./scan_memo.ts";

/** The entries' format; another one's entries are read as missing. */
const FORMAT = "parsed manifests 1";

/** Records by the caller's key (a path and what else the record depends on): the stamp and the record. */
type Records<T> = Map<string, readonly [stamp: string, record: T]>;

interface Opened<T> {
  readonly folder: string;
  readonly key: string;
  records: Records<T>;
}

/**
 * One kind of parsed manifest in the persistent cache. A record must be plain JSON data in which no value is
 * `null` (`undefined` members are written as `null` and read back as `undefined`, so a record read from the
 * cache has the same members as one parsed).
 *
 * @example Usage
 * ```ts
 * import { PersistentManifests } from "./persistent_manifests.ts";
 * const kept = new PersistentManifests<{ name: string }>("example-manifests", []);
 * console.log(typeof kept.scan); // "function"
 * ```
 */
export class PersistentManifests<T> {
  readonly #name: string;
  readonly #sources: readonly URL[];
  /** The entry as read at the first scan (`null`: the cache is off); `undefined` before. */
  #opened: Opened<T> | null | undefined;

  /**
   * The entry `name`, for records made by the modules at `sources` (their stamps are part of the key, so a
   * record parsed by other code is never given).
   */
  constructor(name: string, sources: readonly URL[]) {
    this.#name = name;
    this.#sources = sources;
  }

  /** One scan's use of the entry; `undefined` when the cache is off or this process may not read every file. */
  scan(): PersistentManifestScan<T> | undefined {
    if (this.#opened === undefined) this.#opened = this.#open();
    return this.#opened === null ? undefined : new PersistentManifestScan(this.#name, this.#opened);
  }

  /** Forgets what was read of the entry: the next scan reads it again. */
  forget(): void {
    this.#opened = undefined;
  }

  #open(): Opened<T> | null {
    // A record is given instead of reading its file: only to a process that may read any file.
    if (!readGranted()) return null;
    const folder = persistentCacheFolder();
    if (folder === undefined) return null;
    const key = `${FORMAT}\n${codeIdentity(this.#sources)}`;
    return { folder, key, records: decode<T>(readCacheEntry(folder, this.#name, key)) };
  }
}

/**
 * What one scan takes from the entry and adds to it; {@linkcode PersistentManifestScan.finish} writes the
 * entry again when the scan parsed a file it could keep.
 */
export class PersistentManifestScan<T> {
  readonly #name: string;
  readonly #opened: Opened<T>;
  readonly #used: Records<T> = new Map();
  #added = false;

  /** A scan over an opened entry (made by {@linkcode PersistentManifests.scan}). */
  constructor(name: string, opened: Opened<T>) {
    this.#name = name;
    this.#opened = opened;
  }

  /** The record kept for `key` when it was read from a file with this `stamp`; else `undefined`. */
  get(key: string, stamp: FileStamp): T | undefined {
    const kept = this.#opened.records.get(key);
    if (kept === undefined || kept[0] !== stamp.text || stamp.kind !== "file") return undefined;
    this.#used.set(key, kept);
    return kept[1];
  }

  /**
   * Adds `record`, parsed from the bytes of a file stamped `stamp`, unless the file changed within the racy
   * window before `now` (it may change again unseen) or not every user may read it (a process of another
   * user would have been refused it).
   */
  add(key: string, stamp: FileStamp, record: T, now: number): void {
    if (stamp.kind !== "file" || (stamp.mode & 0o444) !== 0o444) return;
    if (now - stamp.changedMs <= RACY_WINDOW_MS) return;
    this.#used.set(key, [stamp.text, record]);
    this.#added = true;
  }

  /** Writes the entry (this scan's records, replacing the last ones) when a record was added. */
  finish(): void {
    const opened = this.#opened;
    if (!this.#added) {
      if (this.#used.size > 0) noteCacheUse(opened.folder, this.#name, "read");
      return;
    }
    this.#added = false;
    opened.records = this.#used;
    const payload = JSON.stringify(Object.fromEntries(this.#used), (_key, value) => value ?? null);
    const written = writeCacheEntry(opened.folder, this.#name, opened.key, new TextEncoder().encode(payload));
    noteCacheUse(opened.folder, this.#name, written ? "written" : "not written");
  }
}

function readGranted(): boolean {
  try {
    return Deno.permissions.querySync({ name: "read" }).state === "granted";
  } catch {
    return false;
  }
}

/** The entry's records; none when it is missing, or not what {@linkcode PersistentManifestScan.finish} writes. */
function decode<T>(payload: Uint8Array | undefined): Records<T> {
  const records: Records<T> = new Map();
  if (payload === undefined) return records;
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(payload));
  } catch {
    return records;
  }
  if (typeof value !== "object" || value === null) return records;
  for (const [key, kept] of Object.entries(value)) {
    if (!Array.isArray(kept) || kept.length !== 2 || typeof kept[0] !== "string") return new Map();
    records.set(key, [kept[0], undefinedBack(kept[1]) as T]);
  }
  return records;
}

/** `value` with every `null` in it turned back into the `undefined` it was written for. */
function undefinedBack(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value ?? undefined;
  const members = value as Record<string, unknown>;
  for (const key in members) members[key] = undefinedBack(members[key]);
  return value;
}
