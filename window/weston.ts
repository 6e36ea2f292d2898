/**
 * Starts a private headless weston (a Wayland compositor with no screen) for tests and examples that need
 * a Wayland window on a machine without one, as window/xvfb.ts does for X11.
 *
 * @module
 */

/** What {@linkcode startWeston} accepts. */
export interface WestonOptions {
  /** Output width; 640 when left out. */
  width?: number;
  /** Output height; 480 when left out. */
  height?: number;
  /** Path of the weston binary; `weston` from `PATH` when left out. */
  binary?: string;
}

/** A running weston: `display` is its socket's absolute path; dispose it to stop the compositor. */
export interface Weston extends AsyncDisposable {
  /** The socket's absolute path, for `WAYLAND_DISPLAY` or `wl_display_connect` (no `XDG_RUNTIME_DIR` needed). */
  readonly display: string;
  /** Stops the compositor, waits for it to exit and removes its runtime folder. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Starts `weston --backend=headless-backend.so` with a fresh runtime folder (mode 0700, as weston
 * requires) and waits until its socket accepts connections.
 *
 * @example Usage
 * ```ts ignore
 * import { startWeston } from "./weston.ts";
 * await using w = await startWeston();
 * console.log(w.display); // "/tmp/vkdeno-weston-xxxx/wayland-vkdeno"
 * ```
 * @throws {Error} If weston cannot be started or exits before its socket appears.
 */
export async function startWeston(options: WestonOptions = {}): Promise<Weston> {
  const { width = 640, height = 480, binary = "weston" } = options;
  const runtime = await Deno.makeTempDir({ prefix: "vkdeno-weston-" });
  await Deno.chmod(runtime, 0o700);
  const socket = "wayland-vkdeno";
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(binary, {
      args: [
        "--backend=headless-backend.so",
        `--socket=${socket}`,
        `--width=${width}`,
        `--height=${height}`,
        "--idle-time=0",
        "--no-config",
      ],
      env: { XDG_RUNTIME_DIR: runtime },
      stdout: "null",
      stderr: "piped",
      stdin: "null",
    }).spawn();
  } catch (cause) {
    await Deno.remove(runtime, { recursive: true });
    throw new Error(`Cannot start "${binary}": ${(cause as Error).message} (Debian package "weston")`, {
      cause,
    });
  }
  const stderr = new Response(child.stderr).text();
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    return s;
  });
  const path = `${runtime}/${socket}`;
  // The socket file exists once weston listens; its ".lock" file comes first, so wait for the socket itself.
  for (let i = 0; i < 200 && !exited; i++) {
    const info = await Deno.lstat(path).catch(() => null);
    if (info?.isSocket) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    try {
      child.kill("SIGTERM");
    } catch {
      // Already exited.
    }
    await status;
    await stderr;
    await Deno.remove(runtime, { recursive: true }).catch(() => {});
  };
  if (exited || !(await Deno.lstat(path).catch(() => null))?.isSocket) {
    await stop();
    const text = (await stderr).trim().slice(-300);
    throw new Error(`Cannot start "${binary}": its socket "${path}" never appeared (${text})`);
  }
  return { display: path, stop, [Symbol.asyncDispose]: stop };
}
