/**
 * File names as bytes: listing a folder and opening a file by its byte path through libc, for names that are
 * not valid UTF-8 (docs/behaviour.md M05).
 *
 * @example Reading every file of a folder by its byte name
 * ```ts
 * import { openByBytes, rawDirectoryNames } from "./raw_files.ts";
 * const dir = Deno.makeTempDirSync();
 * Deno.writeTextFileSync(`${dir}/a.json`, "{}");
 * for (const name of rawDirectoryNames(dir) ?? []) {
 *   const file = openByBytes(dir, name);
 *   if (file) {
 *     console.log(Deno.readTextFileSync(file.path)); // "{}"
 *     file.close();
 *   }
 * }
 * Deno.removeSync(dir, { recursive: true });
 * ```
 *
 * @module
 */

import { libcFunctionOf, libcIfGranted } from "./libc.ts";

const SYMBOLS = {
  opendir: { parameters: ["buffer"], result: "pointer" },
  readdir: { parameters: ["pointer"], result: "pointer" },
  closedir: { parameters: ["pointer"], result: "i32" },
  open: { parameters: ["buffer", "i32"], result: "i32" },
  close: { parameters: ["i32"], result: "i32" },
} as const satisfies Deno.ForeignLibraryInterface;

// glibc on x86-64 and aarch64: struct dirent { ino_t d_ino; off_t d_off; unsigned short d_reclen;
// unsigned char d_type; char d_name[256]; } puts the name at byte 19.
const D_NAME = 19;
const O_RDONLY = 0;
const O_CLOEXEC = 0o2000000;

type RawSymbols = { [K in keyof typeof SYMBOLS]: ReturnType<typeof libcFunctionOf<(typeof SYMBOLS)[K]>> };

let libc: RawSymbols | null | undefined;

/** Bound on first use through ffi/libc.ts's dlsym: slow calls, as few are made (only for non-UTF-8 names). */
function symbols(): RawSymbols | null {
  if (libc !== undefined) return libc;
  libc = libcIfGranted() === null ? null : {
    opendir: libcFunctionOf("opendir", SYMBOLS.opendir),
    readdir: libcFunctionOf("readdir", SYMBOLS.readdir),
    closedir: libcFunctionOf("closedir", SYMBOLS.closedir),
    open: libcFunctionOf("open", SYMBOLS.open),
    close: libcFunctionOf("close", SYMBOLS.close),
  };
  return libc;
}

const encoder = new TextEncoder();

function cBytes(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const length = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(length + 1);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Every entry name of folder `dir` as bytes (`.` and `..` left out), or `undefined` when the folder
 * cannot be listed this way (no `--allow-ffi`, not Linux, or `opendir` failed).
 *
 * @example Usage
 * ```ts
 * import { rawDirectoryNames } from "./raw_files.ts";
 * console.log(rawDirectoryNames("/nonexistent")); // undefined
 * ```
 */
export function rawDirectoryNames(dir: string): Uint8Array[] | undefined {
  const c = symbols();
  if (c === null) return undefined;
  const handle = c.opendir(cBytes(encoder.encode(dir)));
  if (handle === null) return undefined;
  const names: Uint8Array[] = [];
  try {
    for (let entry = c.readdir(handle); entry !== null; entry = c.readdir(handle)) {
      const view = new Deno.UnsafePointerView(entry);
      const bytes: number[] = [];
      for (let i = 0; i < 256; i++) {
        const b = view.getUint8(D_NAME + i);
        if (b === 0) break;
        bytes.push(b);
      }
      const name = Uint8Array.from(bytes);
      if (
        !(name.length === 1 && name[0] === 0x2e) &&
        !(name.length === 2 && name[0] === 0x2e && name[1] === 0x2e)
      ) {
        names.push(name);
      }
    }
  } finally {
    c.closedir(handle);
  }
  return names;
}

/** An open file: read it through `path`, then `close()` it. */
export interface RawOpenFile {
  /** `/proc/self/fd/<fd>`: any Deno file function reads the open file through it. */
  readonly path: string;
  /** Closes the descriptor. */
  close(): void;
}

/**
 * Opens `<dir>/<name>` read-only, `name` given as bytes, or answers `undefined` when it cannot be
 * opened (no `--allow-ffi`, missing, no permission).
 *
 * @example Usage
 * ```ts
 * import { openByBytes } from "./raw_files.ts";
 * const file = openByBytes("/etc", new TextEncoder().encode("hostname"));
 * file?.close();
 * ```
 */
export function openByBytes(dir: string, name: Uint8Array): RawOpenFile | undefined {
  const c = symbols();
  if (c === null) return undefined;
  const fd = c.open(cBytes(encoder.encode(dir.endsWith("/") ? dir : `${dir}/`), name), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return undefined;
  let open = true;
  return {
    path: `/proc/self/fd/${fd}`,
    close() {
      if (open) c.close(fd);
      open = false;
    },
  };
}
