/**
 * A file's stamp: what `stat` says about a path, as one comparable string (libc `statx` where FFI is
 * allowed, else `Deno.statSync`).
 *
 * @module
 */

import { libcIfGranted, type LibcSymbols } from "./libc.ts";

/** What a path is, as far as a stamp tells. */
export type FileKind = "file" | "folder" | "other" | "missing" | "not a folder" | "error";

/**
 * One `stat` of a path.
 *
 * @example Usage
 * ```ts
 * import { fileStamp, type FileStamp } from "./file_stamp.ts";
 * const s: FileStamp = fileStamp("/nonexistent");
 * console.log(s.kind); // "missing"
 * ```
 */
export interface FileStamp {
  /** Everything below in one string: equal strings mean an unchanged path. */
  readonly text: string;
  /** The kind; `missing` for ENOENT, `not a folder` for ENOTDIR (a file where a folder was expected). */
  readonly kind: FileKind;
  /** Size in bytes (0 unless `kind` is `file`, `folder` or `other`). */
  readonly size: number;
  /** The later of the modification and change times, in milliseconds since the epoch (`-Infinity` when none). */
  readonly changedMs: number;
  /** `st_mode`: the type and permission bits (0 when the path could not be stamped). */
  readonly mode: number;
}

// struct statx (linux/stat.h, the same on every architecture): stx_mode u16 at 28, stx_ino u64 at 32,
// stx_size u64 at 40, stx_ctime at 96, stx_mtime at 112 ({ i64 tv_sec; u32 tv_nsec; }), stx_dev_major and
// stx_dev_minor u32 at 136 and 140.
const STATX_SIZE = 256;
const AT_FDCWD = -100;
const STATX_BASIC_STATS = 0x7ff;
const ENOENT = 2;
const ENOTDIR = 20;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

interface Statx {
  statx: LibcSymbols["statx"];
  /** errno's address: thread-local, and FFI calls run on this thread, so it is asked once. */
  errno: Deno.UnsafePointerView | null;
}

let libc: Statx | null | undefined;

function symbols(): Statx | null {
  if (libc !== undefined) return libc;
  libc = null;
  const c = libcIfGranted();
  if (c === null) return libc;
  try {
    // Tried once: a glibc before 2.28 has no statx, and the call throws (Deno.statSync instead).
    c.statx(AT_FDCWD, cPath("/"), 0, STATX_BASIC_STATS, buffer);
    const where = c.__errno_location();
    libc = { statx: c.statx, errno: where === null ? null : new Deno.UnsafePointerView(where) };
  } catch {
    libc = null;
  }
  return libc;
}

const buffer = new Uint8Array(STATX_SIZE);
/** The buffer as 32-bit words (little-endian hosts: x86-64 and aarch64 Linux). */
const words = new Uint32Array(buffer.buffer);
const encoder = new TextEncoder();
/** Encoded paths: discovery stamps the same few paths at every scan. */
const encoded = new Map<string, Uint8Array<ArrayBuffer>>();
const MAX_ENCODED = 4096;

function cPath(path: string): Uint8Array<ArrayBuffer> {
  let bytes = encoded.get(path);
  if (bytes === undefined) {
    const text = encoder.encode(path);
    bytes = new Uint8Array(text.length + 1);
    bytes.set(text);
    if (encoded.size >= MAX_ENCODED) encoded.clear();
    encoded.set(path, bytes);
  }
  return bytes;
}

function failed(kind: FileKind, detail: string | number): FileStamp {
  return { text: `!${detail}`, kind, size: 0, changedMs: -Infinity, mode: 0 };
}

function kindOfMode(mode: number): FileKind {
  const type = mode & S_IFMT;
  return type === S_IFREG ? "file" : type === S_IFDIR ? "folder" : "other";
}

function viaStatx(lib: NonNullable<typeof libc>, path: string): FileStamp {
  if (path.includes("\0")) return failed("error", "NUL in path");
  if (lib.statx(AT_FDCWD, cPath(path), 0, STATX_BASIC_STATS, buffer) !== 0) {
    const errno = lib.errno === null ? 0 : lib.errno.getInt32(0);
    return failed(errno === ENOENT ? "missing" : errno === ENOTDIR ? "not a folder" : "error", errno);
  }
  // 32-bit words, not BigInts: this runs for every path of every kept scan at every vkCreateInstance.
  const w = words;
  const mode = w[7]! & 0xffff;
  const size = w[10]! + w[11]! * 2 ** 32;
  const cs = w[24]! + (w[25]! | 0) * 2 ** 32, cn = w[26]!;
  const ms = w[28]! + (w[29]! | 0) * 2 ** 32, mn = w[30]!;
  return {
    text: `${mode}:${w[34]}.${w[35]}:${w[8]}.${w[9]}:${size}:${ms}.${mn}:${cs}.${cn}`,
    kind: kindOfMode(mode),
    size,
    changedMs: Math.max(ms * 1000 + mn / 1e6, cs * 1000 + cn / 1e6),
    mode,
  };
}

function viaDeno(path: string): FileStamp {
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return failed("missing", ENOENT);
    if (error instanceof Deno.errors.NotADirectory) return failed("not a folder", ENOTDIR);
    return failed("error", error instanceof Error ? error.name : "unknown");
  }
  const m = info.mtime?.getTime() ?? -1, c = info.ctime?.getTime() ?? -1;
  return {
    text: `${info.mode}:${info.dev}:${info.ino}:${info.size}:${m}:${c}:${info.isFile}:${info.isDirectory}`,
    kind: info.isFile ? "file" : info.isDirectory ? "folder" : "other",
    size: info.size,
    changedMs: Math.max(m, c),
    mode: info.mode ?? 0,
  };
}

/**
 * Stamps `path` (following symbolic links, as opening it would). Never throws.
 *
 * @example Usage
 * ```ts
 * import { fileStamp } from "./file_stamp.ts";
 * const a = fileStamp("/etc/hostname");
 * console.log(a.text === fileStamp("/etc/hostname").text); // true while the file is unchanged
 * ```
 */
export function fileStamp(path: string): FileStamp {
  const lib = symbols();
  return lib ? viaStatx(lib, path) : viaDeno(path);
}
