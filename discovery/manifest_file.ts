/**
 * Reads one manifest file into a JSON object, never throwing: every failure becomes a reason naming the file
 * (docs/behaviour.md M05, M06); the field helpers the driver and layer parsers share.
 *
 * @example Reading a manifest
 * ```ts
 * import { readManifestFile } from "./manifest_file.ts";
 * const result = readManifestFile("/usr/share/vulkan/icd.d/lvp_icd.x86_64.json");
 * if (result.ok) console.log(result.value["file_format_version"]);
 * else console.log(`Skipping "${result.path}": ${result.reason}`);
 * ```
 *
 * @module
 */

import { formatApiVersion } from "../vk/api_version.ts";
import { openByBytes } from "../ffi/raw_files.ts";
import { MAX_JSONC_DEPTH, readJsonc } from "./jsonc.ts";
import { observePath } from "./scan_memo.ts";
import type { FileStamp } from "../ffi/file_stamp.ts";

/** Manifests whose file name is not valid UTF-8: the lossy path discovery reports -> folder and name bytes. */
const rawFileNames = new Map<string, { readonly dir: string; readonly name: Uint8Array }>();

/**
 * Records that `path` (a folder and a lossily decoded file name, as Deno lists it) stands for the file
 * named by the bytes `name` in `dir`, so {@linkcode readManifestFile} can open it (docs/behaviour.md M05: the
 * Khronos loader reads manifests whatever bytes their names hold).
 *
 * @example Usage
 * ```ts
 * import { registerRawFileName } from "./manifest_file.ts";
 * registerRawFileName("/etc/vulkan/icd.d/bad\uFFFD.json", "/etc/vulkan/icd.d", new Uint8Array([0x62, 0xff]));
 * ```
 */
export function registerRawFileName(path: string, dir: string, name: Uint8Array): void {
  rawFileNames.set(path, { dir, name });
}

/** Largest manifest read, in bytes; real manifests are well under 100 KiB. */
export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

/**
 * A manifest that parsed: its top-level object and any warnings.
 *
 * @example Usage
 * ```ts
 * import type { ManifestFileOk } from "./manifest_file.ts";
 * const ok: ManifestFileOk = { ok: true, path: "/x.json", value: {}, members: [], warnings: [] };
 * ```
 */
export interface ManifestFileOk {
  /** Always true: the file parsed. */
  readonly ok: true;
  /** The path read (as given). */
  readonly path: string;
  /**
   * The top-level JSON object, read as the Khronos loader reads it: of a repeated member, the first value
   * (docs/behaviour.md M07), and member names match whatever their case (`value["library_path"]` finds
   * `"Library_Path"`, M08), in this object and every object in it.
   */
  readonly value: Readonly<Record<string, unknown>>;
  /** The top-level object's members in text order, repeated names included (see `layer`, LM09). */
  readonly members: readonly (readonly [string, unknown])[];
  /** Accepted oddities (comments, trailing commas, byte order mark), one sentence each. */
  readonly warnings: readonly string[];
}

/**
 * A manifest that could not be used, and why.
 *
 * @example Usage
 * ```ts
 * import type { ManifestFileError } from "./manifest_file.ts";
 * const bad: ManifestFileError = { ok: false, path: "/x.json", reason: "file is empty", warnings: [] };
 * ```
 */
export interface ManifestFileError {
  /** Always false: the file cannot be used. */
  readonly ok: false;
  /** The path read (as given). */
  readonly path: string;
  /** Why, as a clause without the file name: `file is not valid JSON: ...`. */
  readonly reason: string;
  /** Oddities noticed before the failure. */
  readonly warnings: readonly string[];
}

/** The result of {@linkcode readManifestFile} and {@linkcode parseManifestText}. */
export type ManifestFileResult = ManifestFileOk | ManifestFileError;

/**
 * Options for {@linkcode readManifestFile}.
 *
 * @example Usage
 * ```ts
 * import type { ReadManifestOptions } from "./manifest_file.ts";
 * const options: ReadManifestOptions = { maxBytes: 65536 };
 * ```
 */
export interface ReadManifestOptions {
  /** Largest file read; defaults to {@linkcode MAX_MANIFEST_BYTES}. */
  readonly maxBytes?: number;
}

/**
 * Reads and parses a manifest file. Never throws.
 *
 * @example Usage
 * ```ts
 * import { readManifestFile } from "./manifest_file.ts";
 * const result = readManifestFile("/nonexistent/a.json");
 * console.log(result.ok ? "parsed" : result.reason); // "file does not exist"
 * ```
 */
export function readManifestFile(path: string, options: ReadManifestOptions = {}): ManifestFileResult {
  const raw = rawFileNames.get(path);
  if (raw !== undefined) {
    // Opened by its bytes, read through /proc/self/fd; results keep the name discovery reports.
    const file = openByBytes(raw.dir, raw.name);
    if (file === undefined) {
      return failure(path, "file name is not valid UTF-8 and the file could not be opened by its bytes");
    }
    try {
      return { ...readManifestFile(file.path, options), path };
    } finally {
      file.close();
    }
  }
  const maxBytes = options.maxBytes ?? MAX_MANIFEST_BYTES;
  let bytes: Uint8Array;
  // Stamped for the scan memo (scan_memo.ts); a missing file is told without a thrown NotFound.
  const stamp = observePath(path);
  if (stamp.kind === "missing") return failure(path, "file does not exist");
  try {
    // Deno's error words the other failures (permission, link loop, a parent that is a file).
    if (stamp.kind === "error" || stamp.kind === "not a folder") Deno.statSync(path);
    if (stamp.kind === "folder") return failure(path, "is a folder, not a file");
    if (stamp.kind !== "file") return failure(path, "is not a regular file");
    const info = stamp;
    if (info.size > maxBytes) {
      return failure(
        path,
        `file is ${info.size} bytes, larger than the ${maxBytes}-byte limit for manifests`,
      );
    }
    bytes = Deno.readFileSync(path);
  } catch (error) {
    return failure(path, fileErrorReason(error));
  }
  if (bytes.byteLength > maxBytes) {
    return failure(path, `file is larger than the ${maxBytes}-byte limit for manifests`);
  }
  return parseManifestText(bytes, path);
}

/**
 * Reads and parses the manifest at `path`, stamped by the caller (for the scan memo): its bytes when the stamp
 * shows a file within {@linkcode MAX_MANIFEST_BYTES}, else through {@linkcode readManifestFile}, which words
 * every failure. `fromBytes`: the result is what the file's bytes parse to, whoever reads them (not a failure
 * to open it), so a later process may be given it (persistent_manifests.ts). Never throws.
 *
 * @example Usage
 * ```ts
 * import { readStampedManifest } from "./manifest_file.ts";
 * import { fileStamp } from "../ffi/file_stamp.ts";
 * const { file, fromBytes } = readStampedManifest("/nonexistent/a.json", fileStamp("/nonexistent/a.json"));
 * console.log(file.ok, fromBytes); // false false
 * ```
 */
export function readStampedManifest(
  path: string,
  stamp: FileStamp,
): { readonly file: ManifestFileResult; readonly fromBytes: boolean } {
  if (stamp.kind === "file" && stamp.size <= MAX_MANIFEST_BYTES) {
    let bytes: Uint8Array | undefined;
    try {
      bytes = Deno.readFileSync(path);
    } catch {
      bytes = undefined;
    }
    if (bytes !== undefined) return { file: parseManifestText(bytes, path), fromBytes: true };
  }
  return { file: readManifestFile(path), fromBytes: false };
}

/**
 * Parses manifest text (bytes are decoded as strict UTF-8). `path` only names
 * the result. Never throws, whatever the input (deep nesting included).
 *
 * @example Usage
 * ```ts
 * import { parseManifestText } from "./manifest_file.ts";
 * const result = parseManifestText('{ "a": 1, // note\n }', "inline.json");
 * console.log(result.ok && result.warnings.length); // 1
 * ```
 */
export function parseManifestText(text: Uint8Array | string, path: string): ManifestFileResult {
  const warnings: string[] = [];
  let source: string;
  if (typeof text === "string") {
    source = text;
  } else {
    try {
      source = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(text);
    } catch {
      return failure(
        path,
        `file is not valid UTF-8 text (first bad byte at offset ${firstInvalidUtf8(text)})`,
      );
    }
  }
  if (source.startsWith("\uFEFF")) {
    source = source.slice(1);
    warnings.push("file starts with a UTF-8 byte order mark, which other loaders may reject");
  }
  if (source.trim() === "") return failure(path, "file is empty", warnings);

  // Fast path: nearly every manifest is strict JSON, which the engine's parser reads at native speed
  // (a JavaScript reader took ~10 ms of a first vkCreateInstance for the host's dozen manifests). Strict
  // JSON has no comments or trailing commas; a repeated key shows as more keys in the text than in the
  // result.
  const strict = strictJsonObject(source);
  if (strict !== undefined) {
    return found(path, strict, Object.entries(strict), warnings);
  }

  const read = readJsonc(source);
  if (!read.ok) {
    const where = read.defect === "nesting is too deep" ? "" : ` at ${position(source, read.offset)}`;
    return failure(path, `file is not valid JSON: ${read.defect}${where}`, warnings);
  }
  const value = read.value;
  // Text after the top-level object is ignored, as the Khronos loader's parser ignores it (it stops at
  // the closing brace); defects inside the object still make the file unusable.
  if (read.ignoredFrom !== undefined) {
    warnings.push(
      `file has text after the closing brace of its top-level object (from ${
        position(source, read.ignoredFrom)
      }); ` +
        "it is ignored, as the Khronos loader ignores it",
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return failure(path, `file holds ${describeJsonType(value)}, expected a JSON object`, warnings);
  }
  if (read.comments > 0) {
    warnings.push(`file has ${plural(read.comments, "comment")}, which the Khronos loader rejects`);
  }
  if (read.trailingCommas > 0) {
    warnings.push(
      `file has ${plural(read.trailingCommas, "trailing comma")}, which the Khronos loader rejects`,
    );
  }
  for (const key of read.repeatedKeys) {
    // Repeated top-level "layer" members are a layer manifest's 1.0.0 form: its parser words them (LM09).
    if (key === "layer" && read.members.filter(([k]) => k === key).length > 1) continue;
    warnings.push(
      `file repeats member ${JSON.stringify(key.slice(0, 80))} in one object; the first value is used, ` +
        "as the Khronos loader does",
    );
  }
  return found(path, value as Record<string, unknown>, read.members, warnings);
}

/**
 * Names the JSON type of a parsed value for messages: `a string`, `a number`,
 * `an array`, `an object`, `a boolean`, `null`, or `nothing` (missing).
 *
 * @example Usage
 * ```ts
 * import { describeJsonType } from "./manifest_file.ts";
 * describeJsonType([1]); // "an array"
 * ```
 */
export function describeJsonType(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string":
      return "a string";
    case "number":
      return "a number";
    case "boolean":
      return "a boolean";
    case "object":
      return "an object";
    default:
      return typeof value;
  }
}

/**
 * A version string split into Vulkan's parts, and packed as
 * `VK_MAKE_API_VERSION` does.
 *
 * @example Usage
 * ```ts
 * import type { ParsedVersion } from "./manifest_file.ts";
 * const v: ParsedVersion = { variant: 0, major: 1, minor: 3, patch: 230, packed: 4206822 };
 * ```
 */
export interface ParsedVersion {
  /** 0 for Vulkan; anything else is another API variant. */
  readonly variant: number;
  /** Major version, 0-127. */
  readonly major: number;
  /** Minor version, 0-1023. */
  readonly minor: number;
  /** Patch version, 0-4095. */
  readonly patch: number;
  /** `variant << 29 | major << 22 | minor << 12 | patch`, as an unsigned 32-bit number. */
  readonly packed: number;
}

/**
 * Parses `"major.minor.patch"` (or `"major.minor"`, patch 0) or the four-part
 * `"variant.major.minor.patch"`. Returns `undefined` for anything else, or when a
 * part is out of its bit range (variant 3 bits, major 7, minor 10, patch 12).
 *
 * @example Usage
 * ```ts
 * import { parseVersionString } from "./manifest_file.ts";
 * parseVersionString("1.3.230")?.packed; // 4206822
 * parseVersionString("1.3.x"); // undefined
 * ```
 */
export function parseVersionString(text: string): ParsedVersion | undefined {
  const parts = text.trim().split(".");
  if (parts.length < 2 || parts.length > 4) return undefined;
  const numbers: number[] = [];
  for (const part of parts) {
    if (!/^[0-9]{1,10}$/.test(part)) return undefined;
    numbers.push(Number(part));
  }
  const [variant, major, minor, patch] = parts.length === 4
    ? numbers as [number, number, number, number]
    : [0, numbers[0] ?? 0, numbers[1] ?? 0, numbers[2] ?? 0];
  if (variant > 7 || major > 127 || minor > 1023 || patch > 4095) return undefined;
  const packed = ((variant << 29) | (major << 22) | (minor << 12) | patch) >>> 0;
  return { variant, major, minor, patch, packed };
}

/**
 * Formats a packed version as `major.minor.patch` (with `variant.` in front
 * when it is not 0).
 *
 * @example Usage
 * ```ts
 * import { formatVersion } from "./manifest_file.ts";
 * formatVersion(4206822); // "1.3.230"
 * ```
 */
export function formatVersion(packed: number): string {
  const variant = packed >>> 29;
  return variant === 0 ? formatApiVersion(packed) : `${variant}.${formatApiVersion(packed)}`;
}

function found(
  path: string,
  value: Record<string, unknown>,
  members: readonly (readonly [string, unknown])[],
  warnings: readonly string[],
): ManifestFileOk {
  return {
    ok: true,
    path,
    value: caseless(value) as Record<string, unknown>,
    members: members.map(([key, member]) => [key, caseless(member)]),
    warnings,
  };
}

/**
 * A view of a parsed JSON object or array in which a member name matches whatever the case of its ASCII
 * letters, the first such member in text order winning, as the Khronos loader's reader looks members up
 * (docs/behaviour.md M08). Objects nested in it are viewed the same way; other values pass unchanged. Views
 * are made when a value is first read, so the parts of a manifest no one reads cost nothing.
 */
function caseless(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  let view = views.get(value);
  if (view === undefined) {
    view = new Proxy(value, Array.isArray(value) ? ARRAY_VIEW : OBJECT_VIEW);
    views.set(value, view);
  }
  return view;
}

const views = new WeakMap<object, object>();

const ARRAY_VIEW: ProxyHandler<object> = {
  get: (target, key, receiver) => caseless(Reflect.get(target, key, receiver)),
};

const OBJECT_VIEW: ProxyHandler<object> = {
  get(target, key, receiver) {
    const name = typeof key === "string" ? memberName(target, key) : undefined;
    return caseless(Reflect.get(target, name ?? key, receiver));
  },
  has: (target, key) =>
    (typeof key === "string" && memberName(target, key) !== undefined) || Reflect.has(target, key),
};

/** The first own key of `target` equal to `key` but for the case of ASCII letters (the order is text order). */
function memberName(target: object, key: string): string | undefined {
  // A parsed object has no enumerable inherited keys; for-in walks its own ones without an array.
  for (const own in target) if (isMemberName(own, key)) return own;
  return undefined;
}

/**
 * True when the member name `key` is `name` as the Khronos loader compares them: the case of ASCII letters
 * aside (docs/behaviour.md M08).
 *
 * @example Usage
 * ```ts
 * import { isMemberName } from "./manifest_file.ts";
 * isMemberName("Library_Path", "library_path"); // true
 * ```
 */
export function isMemberName(key: string, name: string): boolean {
  if (key === name) return true;
  if (key.length !== name.length) return false;
  for (let i = 0; i < key.length; i++) {
    const a = key.charCodeAt(i);
    const b = name.charCodeAt(i);
    if (a === b) continue;
    const lower = a | 0x20; // an ASCII letter in lower case; other characters must be equal
    if (lower !== (b | 0x20) || lower < 0x61 || lower > 0x7a) return false;
  }
  return true;
}

function failure(path: string, reason: string, warnings: readonly string[] = []): ManifestFileError {
  return { ok: false, path, reason, warnings };
}

function fileErrorReason(error: unknown): string {
  if (error instanceof Deno.errors.NotFound) return "file does not exist";
  if (error instanceof Deno.errors.PermissionDenied) return "file cannot be read: permission denied";
  if (error instanceof Deno.errors.IsADirectory) return "is a folder, not a file";
  if (error instanceof Deno.errors.NotADirectory) return "file does not exist (a parent is not a folder)";
  const message = error instanceof Error ? error.message : String(error);
  if (/symbolic links|ELOOP/i.test(message)) return "file cannot be read: symbolic link loop";
  return `file cannot be read: ${message}`;
}

/** `line L, column C` (both from 1; columns count UTF-16 units) of `offset` in `text`. */
function position(text: string, offset: number): string {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return `line ${line}, column ${end - lineStart + 1}`;
}

/**
 * `source` parsed when it is strict JSON holding an object with no key repeated in any object and no
 * top-level key that is an array index (the engine lists those first, out of text order), else undefined.
 */
function strictJsonObject(source: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  if (Object.keys(value).some((key) => ARRAY_INDEX.test(key))) return undefined;
  // Outside strings, strict JSON has exactly one colon per key; the parsed value, written back, has one per
  // key it kept (a repeated key is kept once). Counted with the engine's own string operations, not a loop
  // over matches or a walk of the value: for a large manifest either ran often enough to be compiled by
  // Maglev, and the process's first optimising compile pages in ~2.4 MiB of Deno's code.
  const outside = source.replace(JSON_STRINGS, "");
  // More brackets than the full parser's depth limit could nest deeper than it allows: it decides.
  if (outside.split(/[[{]/).length - 1 > MAX_JSONC_DEPTH) return undefined;
  try {
    const kept = JSON.stringify(value).replace(JSON_STRINGS, "");
    return outside.split(":").length === kept.split(":").length
      ? value as Record<string, unknown>
      : undefined;
  } catch {
    return undefined; // nesting too deep to write back: the full parser says why
  }
}

/** A key the engine orders as an array index (close enough: longer ones only go to the full reader). */
const ARRAY_INDEX = /^(?:0|[1-9][0-9]{0,9})$/;

/** A JSON string (its quotes and escapes included). */
const JSON_STRINGS = /"(?:[^"\\]|\\.)*"/g;

function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] ?? 0;
    const need = b < 0x80
      ? 0
      : b >= 0xc2 && b <= 0xdf
      ? 1
      : b >= 0xe0 && b <= 0xef
      ? 2
      : b >= 0xf0 && b <= 0xf4
      ? 3
      : -1;
    if (need < 0) return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
    }
    i += need + 1;
  }
  // Overlong or surrogate forms pass this coarse check; the decoder still refused them.
  return 0;
}

function plural(count: number, noun: string): string {
  return count === 1 ? `a ${noun}` : `${count} ${noun}s`;
}
