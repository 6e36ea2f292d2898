/**
 * Being told when the drivers, layers or loader settings a process would find change, in the search locations
 * the environment uses (docs/behaviour.md V05).
 *
 * @example Watching a snapshot's locations
 * ```ts ignore
 * import { DiscoveryWatcher } from "./watch.ts";
 * import { snapshotProcessEnvironment } from "./environment.ts";
 * for await (const changes of new DiscoveryWatcher(snapshotProcessEnvironment())) {
 *   for (const c of changes) console.log(c.change, c.kind, c.path);
 * }
 * ```
 *
 * @module
 */

import type { FSWatcher } from "node:fs";
import type { EnvironmentSnapshot } from "./environment.ts";
import { discoverDrivers } from "./drivers.ts";
import { discoverLayers } from "./layers.ts";
import { PACKAGE_METADATA_PATH } from "./packages.ts";
import { dirName, joinPath } from "./search_paths.ts";
import { readLoaderSettings } from "./settings_file.ts";

/** What kind of file changed. */
export type DiscoveryChangeKind =
  | "driver"
  | "driver package"
  | "implicit layer"
  | "explicit layer"
  | "settings";

/**
 * One change.
 *
 * @example Usage
 * ```ts
 * import type { DiscoveryChange } from "@vkdeno/loader";
 * const c: DiscoveryChange = { kind: "driver", change: "added", path: "/usr/share/vulkan/icd.d/lvp.json" };
 * ```
 */
export interface DiscoveryChange {
  /** What the file is. */
  readonly kind: DiscoveryChangeKind;
  /** What happened to it. */
  readonly change: "added" | "removed" | "edited";
  /** The manifest or settings file; for a driver package, its folder. */
  readonly path: string;
}

/** The module a layer's `library_path` names when it is a TypeScript or JavaScript file. */
function scriptModule(libraryPath: string | undefined): string | undefined {
  return libraryPath !== undefined && /\.(ts|mts|js|mjs)$/.test(libraryPath) ? libraryPath : undefined;
}

/**
 * What discovery sees, file by file: the key is the path, the value its kind and contents.
 *
 * @example Usage
 * ```ts
 * import { discoveryState } from "./watch.ts";
 * console.log(discoveryState({ vars: {}, elevated: false, root: "/nonexistent" }).size); // 0
 * ```
 */
export function discoveryState(
  env: EnvironmentSnapshot,
): Map<string, { readonly kind: DiscoveryChangeKind; readonly contents: string }> {
  const state = new Map<string, { kind: DiscoveryChangeKind; contents: string }>();
  const add = (path: string, kind: DiscoveryChangeKind) => {
    if (!state.has(path)) state.set(path, { kind, contents: fingerprint(path) });
  };
  for (const c of discoverDrivers(env).candidates) {
    const pkg = c.origin.package;
    if (pkg === undefined) {
      add(c.manifestPath, "driver");
      continue;
    }
    // A package is one thing, keyed by its folder: there while the folder is, edited when its metadata or
    // manifest is.
    if (state.has(pkg) || !isFolder(pkg)) continue;
    const contents = `${fingerprint(joinPath(pkg, PACKAGE_METADATA_PATH))}\0${fingerprint(c.manifestPath)}`;
    state.set(pkg, { kind: "driver package", contents });
  }
  for (const c of discoverLayers(env).candidates) {
    const module = scriptModule(c.layer?.libraryPath);
    if (module === undefined || state.has(c.manifestPath)) {
      add(c.manifestPath, c.implicit ? "implicit layer" : "explicit layer");
      continue;
    }
    // A TypeScript layer's module is part of the layer: editing it edits the layer (reload it in a new loader).
    const contents = `${fingerprint(c.manifestPath)}\0${fingerprint(module)}`;
    state.set(c.manifestPath, { kind: c.implicit ? "implicit layer" : "explicit layer", contents });
  }
  for (const l of readLoaderSettings(env).searched) {
    if (l.status === "used" || l.status === "skipped") add(l.path, "settings");
  }
  return state;
}

/**
 * The changes from one {@linkcode discoveryState} to the next: removed files first, then added, then edited.
 *
 * @example Usage
 * ```ts
 * import { diffDiscoveryStates } from "./watch.ts";
 * const a = new Map([["/a.json", { kind: "driver" as const, contents: "1" }]]);
 * console.log(diffDiscoveryStates(a, new Map())); // [ { kind: "driver", change: "removed", path: "/a.json" } ]
 * ```
 */
export function diffDiscoveryStates(
  before: ReadonlyMap<string, { readonly kind: DiscoveryChangeKind; readonly contents: string }>,
  after: ReadonlyMap<string, { readonly kind: DiscoveryChangeKind; readonly contents: string }>,
): DiscoveryChange[] {
  const out: DiscoveryChange[] = [];
  for (const [path, v] of before) if (!after.has(path)) out.push({ kind: v.kind, change: "removed", path });
  for (const [path, v] of after) if (!before.has(path)) out.push({ kind: v.kind, change: "added", path });
  for (const [path, v] of after) {
    const old = before.get(path);
    if (old !== undefined && old.contents !== v.contents) out.push({ kind: v.kind, change: "edited", path });
  }
  return out;
}

/**
 * The folders to watch for a snapshot: every location driver, layer and settings discovery searches (a
 * file entry's folder), each replaced by its nearest existing parent when it does not exist yet.
 *
 * @example Usage
 * ```ts
 * import { watchFolders } from "./watch.ts";
 * console.log(watchFolders({ vars: { VK_DRIVER_FILES: "/nonexistent/a.json" }, elevated: false }).includes("/"));
 * ```
 */
export function watchFolders(env: EnvironmentSnapshot): string[] {
  const wanted = new Set<string>();
  const drivers = discoverDrivers(env);
  for (const r of drivers.locations) {
    wanted.add(r.location.isFile ? dirName(r.location.path) : r.location.path);
  }
  for (const c of drivers.candidates) {
    if (c.origin.package === undefined) continue;
    wanted.add(c.origin.package);
    wanted.add(dirName(c.origin.package));
    wanted.add(dirName(c.manifestPath));
  }
  const layers = discoverLayers(env);
  for (const r of [...layers.locations.implicit, ...layers.locations.explicit]) {
    wanted.add(r.location.isFile ? dirName(r.location.path) : r.location.path);
  }
  for (const c of layers.candidates) {
    const module = scriptModule(c.layer?.libraryPath);
    if (module !== undefined) wanted.add(dirName(module));
  }
  for (const l of readLoaderSettings(env).searched) wanted.add(dirName(l.path));
  const settings = readLoaderSettings(env).settings;
  for (const layer of settings?.layers ?? []) if (layer.path !== undefined) wanted.add(dirName(layer.path));
  for (const driver of settings?.additionalDrivers ?? []) wanted.add(dirName(driver));
  const out = new Set<string>();
  for (const path of wanted) {
    const existing = nearestExisting(path);
    if (existing !== undefined) out.add(existing);
  }
  return [...out].sort();
}

/**
 * Options of {@linkcode DiscoveryWatcher}.
 *
 * @example Usage
 * ```ts
 * import type { DiscoveryWatchOptions } from "@vkdeno/loader";
 * const o: DiscoveryWatchOptions = { debounceMs: 50 };
 * ```
 */
export interface DiscoveryWatchOptions {
  /** Quiet time after the last event before discovery runs again (default 100 ms). */
  readonly debounceMs?: number;
  /** Stops the watcher. */
  readonly signal?: AbortSignal;
}

/** `node:fs`'s `watch`, once the first watcher has imported it. */
let fsWatch: typeof import("node:fs").watch | undefined;
/** The import of `node:fs` under way, started by the first watcher. */
let fsLoading: Promise<void> | undefined;

function loadFsWatch(): Promise<void> {
  fsLoading ??= import("node:fs").then((fs) => {
    fsWatch = fs.watch;
  });
  return fsLoading;
}

/**
 * An async iterable of change batches for one environment snapshot (see the module documentation).
 *
 * @example Usage
 * ```ts ignore
 * import { DiscoveryWatcher } from "@vkdeno/loader";
 * using watcher = new DiscoveryWatcher({ vars: { HOME: "/home/me" }, elevated: false });
 * const { value } = await watcher.next();
 * console.log(value);
 * ```
 */
export class DiscoveryWatcher implements AsyncIterableIterator<DiscoveryChange[]>, Disposable {
  readonly #env: EnvironmentSnapshot;
  readonly #debounceMs: number;
  #state: ReturnType<typeof discoveryState>;
  #watchers = new Map<string, FSWatcher>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #queue: DiscoveryChange[][] = [];
  #waiting: ((result: IteratorResult<DiscoveryChange[]>) => void) | undefined;
  #closed = false;
  #onAbort = () => this.close();
  #signal: AbortSignal | undefined;

  /** Starts watching the locations `env` leads to; the current state is the baseline. */
  constructor(env: EnvironmentSnapshot, options?: DiscoveryWatchOptions) {
    options ??= {};
    this.#env = env;
    this.#debounceMs = options.debounceMs ?? 100;
    this.#state = discoveryState(env);
    this.#signal = options.signal;
    if (this.#signal?.aborted) {
      this.#closed = true;
      return;
    }
    this.#signal?.addEventListener("abort", this.#onAbort);
    if (fsWatch !== undefined) {
      this.#rewatch();
      return;
    }
    loadFsWatch().then(() => {
      this.#rewatch();
      this.#schedule(); // what changed while node:fs loaded
    }, () => this.close());
  }

  /**
   * The folders watched: while `node:fs` still loads (just after the watcher is made), the folders it
   * is setting up watches for (changes made meanwhile are caught by a rescan once they are in place).
   */
  get folders(): string[] {
    if (fsWatch === undefined && !this.#closed) return watchFolders(this.#env);
    return [...this.#watchers.keys()];
  }

  /** True once stopped. */
  get closed(): boolean {
    return this.#closed;
  }

  #rewatch(): void {
    const watch = fsWatch;
    if (this.#closed || watch === undefined) return;
    const folders = new Set(watchFolders(this.#env));
    for (const [folder, w] of this.#watchers) {
      if (folders.has(folder)) continue;
      w.close();
      this.#watchers.delete(folder);
    }
    for (const folder of folders) {
      if (this.#watchers.has(folder)) continue;
      let w: FSWatcher;
      try {
        w = watch(folder, { persistent: false }, () => this.#event(w));
      } catch {
        continue; // gone, or not readable: its parent's watch or the next rescan will tell
      }
      w.on("error", () => {
        w.close();
        this.#watchers.delete(folder);
        this.#schedule();
      });
      w.unref();
      this.#watchers.set(folder, w);
    }
  }

  #event(w: FSWatcher): void {
    // Deno's fs.watch holds the process again after each event: let go each time.
    w.unref();
    queueMicrotask(() => w.unref());
    this.#schedule();
  }

  #schedule(): void {
    if (this.#closed) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    const timer = setTimeout(() => this.#rescan(), this.#debounceMs);
    Deno.unrefTimer(timer);
    this.#timer = timer;
  }

  #rescan(): void {
    this.#timer = undefined;
    if (this.#closed) return;
    const next = discoveryState(this.#env);
    const changes = diffDiscoveryStates(this.#state, next);
    this.#state = next;
    this.#rewatch();
    if (changes.length === 0) return;
    if (this.#waiting !== undefined) {
      const resolve = this.#waiting;
      this.#waiting = undefined;
      resolve({ value: changes, done: false });
    } else this.#queue.push(changes);
  }

  /** The next batch of changes (waits for one). */
  next(): Promise<IteratorResult<DiscoveryChange[]>> {
    const queued = this.#queue.shift();
    if (queued !== undefined) return Promise.resolve({ value: queued, done: false });
    if (this.#closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.#waiting = resolve;
    });
  }

  /** Ends iteration and stops watching. */
  return(): Promise<IteratorResult<DiscoveryChange[]>> {
    this.close();
    return Promise.resolve({ value: undefined, done: true });
  }

  /** This watcher. */
  [Symbol.asyncIterator](): AsyncIterableIterator<DiscoveryChange[]> {
    return this;
  }

  /** Stops watching; a pending `next()` ends the iteration. */
  close(): void {
    if (this.#closed && this.#watchers.size === 0) return;
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const w of this.#watchers.values()) w.close();
    this.#watchers.clear();
    this.#signal?.removeEventListener("abort", this.#onAbort);
    const resolve = this.#waiting;
    this.#waiting = undefined;
    resolve?.({ value: undefined, done: true });
  }

  /** Same as {@linkcode DiscoveryWatcher.close}. */
  [Symbol.dispose](): void {
    this.close();
  }
}

function fingerprint(path: string): string {
  try {
    const info = Deno.statSync(path);
    if (!info.isFile) return `not a file`;
    // Manifests are small: their bytes tell an edit apart even within one mtime tick.
    if (info.size <= 1 << 20) return new TextDecoder().decode(Deno.readFileSync(path));
    return `${info.size}:${info.mtime?.getTime()}:${info.ino}`;
  } catch (error) {
    return error instanceof Error ? error.name : "unreadable";
  }
}

function isFolder(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

function nearestExisting(path: string): string | undefined {
  let p = path;
  for (let i = 0; i < 256; i++) {
    try {
      if (Deno.statSync(p).isDirectory) return p;
    } catch {
      // keep going up
    }
    if (p === "/" || p === "." || p === "") return undefined;
    p = dirName(p);
  }
  return undefined;
}
