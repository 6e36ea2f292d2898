/**
 * Discovery computed once per scan and reused while the stamps of every folder and file it looked at are
 * unchanged (docs/behaviour.md L07).
 *
 * @module
 */

import { type FileStamp, fileStamp } from "../ffi/file_stamp.ts";
import type { EnvironmentSnapshot } from "./environment.ts";
import { REGISTRY_KEYS } from "./platforms.ts";

/** Paths changed this recently make a result too young to keep. */
export const RACY_WINDOW_MS = 2000;

/** What one computation looked at. */
class Recording {
  readonly stamps = new Map<string, string>();
  newestMs = -Infinity;
  uncacheable = false;

  add(path: string, text: string, changedMs: number): void {
    // The first stamp counts: if the path changed while the computation ran, the result is stale.
    if (!this.stamps.has(path)) this.stamps.set(path, text);
    if (changedMs > this.newestMs) this.newestMs = changedMs;
  }
}

const open: Recording[] = [];
const memos = new Set<ScanMemo<unknown>>();

/**
 * Stamps `path` for every computation under way, and returns the stamp (so the caller need not `stat`
 * again). Call it before listing or reading the path.
 *
 * @example Usage
 * ```ts
 * import { observePath } from "./scan_memo.ts";
 * console.log(observePath("/nonexistent").kind); // "missing"
 * ```
 */
export function observePath(path: string): FileStamp {
  const stamp = fileStamp(path);
  for (const r of open) r.add(path, stamp.text, stamp.changedMs);
  return stamp;
}

/**
 * Marks every computation under way as not reusable (it read something stamps do not cover, such as a
 * driver package's resolved links).
 *
 * @example Usage
 * ```ts
 * import { markUncacheable } from "./scan_memo.ts";
 * markUncacheable();
 * ```
 */
export function markUncacheable(): void {
  for (const r of open) r.uncacheable = true;
}

/**
 * A key for a snapshot: every field, so two equal snapshots share results and a changed one does not.
 *
 * @example Usage
 * ```ts
 * import { snapshotKey } from "./scan_memo.ts";
 * snapshotKey({ vars: { A: "1" }, elevated: false }) === snapshotKey({ vars: { A: "1" }, elevated: false }); // true
 * ```
 */
export function snapshotKey(env: EnvironmentSnapshot): string {
  // Built at every call (~5 us), not kept per object: a caller may have changed its `vars` in place. Inside
  // a stamp scope (one vkCreateInstance, which asks two or three memos) the snapshot stays as it is.
  const kept = scopedKeys?.get(env);
  if (kept !== undefined) return kept;
  const made = JSON.stringify([
    env.vars,
    env.elevated,
    env.root,
    env.cwd,
    env.executablePaths,
    env.os,
    env.bundleResources,
    registryText(env),
  ]);
  scopedKeys?.set(env, made);
  return made;
}

/** The Khronos keys' values, so a registry change is a new key (the registry has no file stamps). */
function registryText(env: EnvironmentSnapshot): string | undefined {
  const registry = env.registry;
  if (registry === undefined) return undefined;
  const parts: unknown[] = [];
  for (const hive of ["HKEY_LOCAL_MACHINE", "HKEY_CURRENT_USER"] as const) {
    for (const key of Object.values(REGISTRY_KEYS)) {
      parts.push(registry.values(hive, key)?.map((v) => [v.name, v.type, [...v.data]]) ?? null);
    }
  }
  return JSON.stringify(parts);
}

interface Entry<T> {
  readonly value: T;
  readonly stamps: ReadonlyMap<string, string>;
  readonly newestMs: number;
}

/**
 * Results of one discovery function, by key.
 *
 * @example Usage
 * ```ts
 * import { ScanMemo } from "./scan_memo.ts";
 * const memo = new ScanMemo<number>();
 * console.log(memo.get("k", () => 1).value); // 1
 * ```
 */
export class ScanMemo<T> {
  readonly #entries = new Map<string, Entry<T>>();
  readonly #max: number;

  /** A memo keeping at most `max` results (the oldest goes first). */
  constructor(max = 16) {
    this.#max = max;
    memos.add(this as ScanMemo<unknown>);
  }

  /**
   * The kept result for `key` when every stamp it depends on is unchanged (`reused: true`), or the
   * result of `compute()` (kept when it may be).
   */
  get(key: string, compute: () => T): { readonly value: T; readonly reused: boolean } {
    const kept = this.#entries.get(key);
    if (kept !== undefined) {
      if (stillHolds(kept.stamps)) {
        for (const r of open) {
          for (const [path, text] of kept.stamps) r.add(path, text, kept.newestMs);
        }
        return { value: kept.value, reused: true };
      }
      this.#entries.delete(key);
    }
    const recording = new Recording();
    open.push(recording);
    let value: T;
    try {
      value = compute();
    } finally {
      open.splice(open.lastIndexOf(recording), 1);
    }
    if (!recording.uncacheable && recording.newestMs < Date.now() - RACY_WINDOW_MS) {
      if (this.#entries.size >= this.#max) this.#entries.delete(this.#entries.keys().next().value!);
      this.#entries.set(key, { value, stamps: recording.stamps, newestMs: recording.newestMs });
    }
    return { value, reused: false };
  }

  /** Forgets every kept result. */
  clear(): void {
    this.#entries.clear();
  }
}

/** Stamps the memos checked inside the open {@linkcode stampScope} took, by path. */
let scoped: Map<string, string> | undefined;
/** {@linkcode snapshotKey}'s answers inside the open scope, by snapshot object. */
let scopedKeys: Map<EnvironmentSnapshot, string> | undefined;
let scopeDepth = 0;

/**
 * Opens a scope (until disposed) in which a path already stamped by one memo's check is not stamped again
 * by the next memo's: one `vkCreateInstance` checks the driver and the layer results, and both depend on
 * the same six settings files (12 of its 34 `statx` calls). A change between two checks a few microseconds
 * apart is seen by the next scope, as if the two had been one check. A snapshot's {@linkcode snapshotKey}
 * is built once in a scope, too. Scopes nest; the outermost one ends it.
 *
 * @example Usage
 * ```ts
 * import { stampScope } from "./scan_memo.ts";
 * {
 *   using _scope = stampScope();
 *   // discovery calls here share the stamps they check
 * }
 * ```
 */
export function stampScope(): Disposable {
  if (scopeDepth++ === 0) {
    scoped = new Map();
    scopedKeys = new Map();
  }
  let open = true;
  return {
    [Symbol.dispose]() {
      if (!open) return;
      open = false;
      if (--scopeDepth === 0) scoped = scopedKeys = undefined;
    },
  };
}

function stillHolds(stamps: ReadonlyMap<string, string>): boolean {
  const seen = scoped;
  for (const [path, text] of stamps) {
    let now = seen?.get(path);
    if (now === undefined) {
      now = fileStamp(path).text;
      seen?.set(path, now);
    }
    if (now !== text) return false;
  }
  return true;
}

/**
 * Forgets every kept discovery result (tests use it to compare warm and cold results).
 *
 * @example Usage
 * ```ts
 * import { clearScanMemos } from "./scan_memo.ts";
 * clearScanMemos();
 * ```
 */
export function clearScanMemos(): void {
  for (const m of memos) m.clear();
}
