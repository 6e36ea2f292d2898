/**
 * The persistent cache: bytes one process made, kept in a file of the platform cache folder (ffi/host.ts
 * `cacheFolderOf`) for the next process, under a key that names everything they were made from. A missing,
 * stale, corrupt or unreadable entry is made again; one that cannot be written is not kept (docs/performance.md).
 *
 * @module
 */

import { fileStamp } from "./file_stamp.ts";
import { CACHE_VARIABLE, cacheFolderOf } from "./host.ts";

/** The first bytes of an entry, with the format's version: another version's entries are made again. */
const MAGIC = "vkdeno-cache 1\n";
/** The header: magic, then key length, payload length and checksum as 32-bit words. */
const HEADER = MAGIC.length + 12;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function granted(descriptor: Deno.PermissionDescriptor): boolean {
  try {
    return Deno.permissions.querySync(descriptor).state === "granted";
  } catch {
    return false;
  }
}

/**
 * The persistent cache's folder for this process, or `undefined` when it is off: `VKDENO_CACHE=0`, no
 * platform cache folder, or no permission to read the variables or the folder (asked without a prompt; the
 * log says so). Without permission to write it, entries are read but not written.
 *
 * @example Usage
 * ```ts
 * import { persistentCacheFolder } from "./persistent_cache.ts";
 * console.log(persistentCacheFolder() ?? "off");
 * ```
 */
export function persistentCacheFolder(): string | undefined {
  const folder = cacheFolderOf((name) =>
    granted({ name: "env", variable: name }) ? Deno.env.get(name) : name === CACHE_VARIABLE ? "0" : undefined
  );
  if (folder === undefined) return undefined;
  if (granted({ name: "read", path: folder })) return folder;
  noteCache(
    folder,
    `not used (no read permission: run deno with --allow-read or --allow-read=${folder})`,
    true,
  );
  return undefined;
}

/**
 * What code made an entry: the stamps of the modules at `urls` (local files), or their URLs (a published
 * version's URL names the version). A key includes it, so an edited emitter is never served its old bytes.
 *
 * @example Usage
 * ```ts
 * import { codeIdentity } from "./persistent_cache.ts";
 * console.log(codeIdentity([new URL(import.meta.url)]).length > 0); // true
 * ```
 */
export function codeIdentity(urls: readonly URL[]): string {
  let text = "";
  for (const url of urls) {
    text += url.protocol === "file:"
      ? `${url.pathname}@${fileStamp(decodeURIComponent(url.pathname)).text}\n`
      : `${url.href}\n`;
  }
  return text;
}

/**
 * A 32-bit checksum of `bytes`: FNV-1a over its 32-bit words (little-endian), then over the tail bytes. It
 * runs in V8's interpreter at every warm start (~60,000 words: 0.5-2.3 ms, docs/performance.md states it).
 */
function checksum(bytes: Uint8Array): number {
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length >>> 2);
  let h = 0x811c9dc5;
  for (let i = 0; i < words.length; i++) h = Math.imul(h ^ words[i]!, 0x01000193);
  for (let i = words.length << 2; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

/** The payload of the entry in `file` when it is whole and made for `key`; else `undefined`. */
function readEntry(file: string, key: string): Uint8Array | undefined {
  let data: Uint8Array;
  try {
    data = Deno.readFileSync(file);
  } catch {
    return undefined;
  }
  if (data.length < HEADER || decoder.decode(data.subarray(0, MAGIC.length)) !== MAGIC) return undefined;
  const view = new DataView(data.buffer, data.byteOffset + MAGIC.length, 12);
  const keyLength = view.getUint32(0, true), length = view.getUint32(4, true);
  // The payload starts on a 4-byte boundary, for the checksum's words.
  const at = (HEADER + keyLength + 3) & ~3;
  if (data.length !== at + length) return undefined;
  if (decoder.decode(data.subarray(HEADER, HEADER + keyLength)) !== key) return undefined;
  const payload = data.slice(at);
  return checksum(payload) === view.getUint32(8, true) ? payload : undefined;
}

/** Writes the entry to a file of its own, then renames it over `file`: a reader sees the old or the new one. */
function writeEntry(folder: string, file: string, key: string, payload: Uint8Array): boolean {
  const keyBytes = encoder.encode(key);
  const at = (HEADER + keyBytes.length + 3) & ~3;
  const data = new Uint8Array(at + payload.length);
  data.set(encoder.encode(MAGIC));
  const view = new DataView(data.buffer, MAGIC.length, 12);
  view.setUint32(0, keyBytes.length, true);
  view.setUint32(4, payload.length, true);
  view.setUint32(8, checksum(payload), true);
  data.set(keyBytes, HEADER);
  data.set(payload, at);
  const temp = `${file}.${Deno.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    Deno.mkdirSync(folder, { recursive: true });
    Deno.writeFileSync(temp, data);
    Deno.renameSync(temp, file);
    return true;
  } catch {
    // A read-only or full folder: the next process makes the bytes again.
    try {
      Deno.removeSync(temp);
    } catch {
      // never written
    }
    return false;
  }
}

/**
 * The bytes kept as `name` in the process's {@linkcode persistentCacheFolder} when they were made for `key`
 * (a string naming everything they are made from); else `make()`'s, kept for the next process. Never throws
 * for the cache's sake: with the cache off, or when the entry cannot be read or written, it is `make()`.
 *
 * @example Usage
 * ```ts
 * import { cachedBytes } from "./persistent_cache.ts";
 * const bytes = cachedBytes("example", "v1", () => new Uint8Array([1, 2, 3]));
 * console.log(bytes.length); // 3
 * ```
 */
export function cachedBytes(name: string, key: string, make: () => Uint8Array): Uint8Array {
  return cachedBytesIn(persistentCacheFolder(), name, key, make);
}

/**
 * {@linkcode cachedBytes} over the cache in `folder` (`undefined`: off).
 *
 * @example Usage
 * ```ts
 * import { cachedBytesIn } from "./persistent_cache.ts";
 * console.log(cachedBytesIn(undefined, "example", "v1", () => new Uint8Array([1, 2, 3])).length); // 3
 * ```
 */
export function cachedBytesIn(
  folder: string | undefined,
  name: string,
  key: string,
  make: () => Uint8Array,
): Uint8Array {
  if (folder === undefined) return make();
  const kept = readCacheEntry(folder, name, key);
  if (kept !== undefined) {
    noteCacheUse(folder, name, "read");
    return kept;
  }
  const made = make();
  noteCacheUse(folder, name, writeCacheEntry(folder, name, key, made) ? "written" : "not written");
  return made;
}

/**
 * The payload kept as `name` in `folder` when it was made for `key` and is whole; else `undefined`.
 *
 * @example Usage
 * ```ts
 * import { readCacheEntry } from "./persistent_cache.ts";
 * console.log(readCacheEntry("/nonexistent", "example", "v1")); // undefined
 * ```
 */
export function readCacheEntry(folder: string, name: string, key: string): Uint8Array | undefined {
  return readEntry(`${folder}/${name}`, key);
}

/**
 * Keeps `payload` as `name` in `folder` for `key`, through a temp file and a rename; false (nothing written)
 * when the folder cannot be written.
 *
 * @example Usage
 * ```ts
 * import { writeCacheEntry } from "./persistent_cache.ts";
 * console.log(writeCacheEntry("/proc/vkdeno-cache", "example", "v1", new Uint8Array([1]))); // false
 * ```
 */
export function writeCacheEntry(folder: string, name: string, key: string, payload: Uint8Array): boolean {
  return granted({ name: "write", path: folder }) && writeEntry(folder, `${folder}/${name}`, key, payload);
}

/**
 * What became of an entry: its kept bytes were `read`, or they were made again and `written` for the next
 * process, or made again and `not written` (the folder could not be written).
 */
export type CacheUse = "read" | "written" | "not written";

/**
 * What {@linkcode takeCacheUses} has not taken yet (an entry's use, or a `why` that ends the folder's text), and
 * every text ever noted: each is logged once per process.
 */
const pending: [folder: string, text: string, why: boolean][] = [];
const noted = new Set<string>();

function noteCache(folder: string, text: string, why = false): void {
  const key = `${folder}\0${text}`;
  if (noted.has(key)) return;
  noted.add(key);
  pending.push([folder, text, why]);
}

/**
 * Notes that entry `name` of `folder` was used so, for the log ({@linkcode takeCacheUses}); a use already
 * noted in this process is not noted again.
 *
 * @example Usage
 * ```ts
 * import { noteCacheUse, takeCacheUses } from "./persistent_cache.ts";
 * noteCacheUse("/tmp/example-cache", "example", "read");
 * console.log(takeCacheUses()); // [ "/tmp/example-cache: example read" ]
 * ```
 */
export function noteCacheUse(folder: string, name: string, use: CacheUse): void {
  noteCache(folder, `${name} ${use}`);
  // Without write permission nothing can be kept: said once, after the first entry not written.
  if (use === "not written" && !granted({ name: "write", path: folder })) {
    const grant = `run deno with --allow-write or --allow-write=${folder}`;
    noteCache(folder, `none written (no write permission: ${grant})`, true);
  }
}

/**
 * The entry uses noted since the last call, one text per folder (`<folder>: <entry> <use>, ...`, in the
 * order they happened, then `; ` and why the folder was not used or written, once per process), and forgets
 * them: the loader logs each (docs/api.md, "Persistent cache").
 *
 * @example Usage
 * ```ts
 * import { takeCacheUses } from "./persistent_cache.ts";
 * takeCacheUses();
 * console.log(takeCacheUses()); // []
 * ```
 */
export function takeCacheUses(): string[] {
  if (pending.length === 0) return [];
  const byFolder = new Map<string, { uses: string[]; whys: string[] }>();
  for (const [folder, text, why] of pending.splice(0)) {
    const texts = byFolder.get(folder) ?? { uses: [], whys: [] };
    (why ? texts.whys : texts.uses).push(text);
    byFolder.set(folder, texts);
  }
  return Array.from(byFolder, ([folder, { uses, whys }]) => {
    const parts = uses.length > 0 ? [uses.join(", "), ...whys] : whys;
    return `${folder}: ${parts.join("; ")}`;
  });
}
