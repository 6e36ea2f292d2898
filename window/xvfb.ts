/**
 * Starts a private Xvfb server on a free display number for tests and
 * examples that need an X11 window on a machine without one.
 *
 * @module
 */

/** What {@linkcode startXvfb} accepts. */
export interface XvfbOptions {
  /** Screen width; 640 when left out. */
  width?: number;
  /** Screen height; 480 when left out. */
  height?: number;
  /** Path of the Xvfb binary; `Xvfb` from `PATH` when left out. */
  binary?: string;
}

/** A running Xvfb: `display` is its name (`":3"`); dispose it to kill the server. */
export interface Xvfb extends AsyncDisposable {
  /** The display name to give `XOpenDisplay` / `xcb_connect` or put in `DISPLAY`. */
  readonly display: string;
  /** Kills the server and waits for it to exit. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Starts `Xvfb :N -displayfd 1 -screen 0 WxHx24` on a random display number N (tried again on another
 * when N is taken) and waits until it writes N to the pipe, which it does once it accepts connections.
 * Not the lowest free number: a server on its way out elsewhere may still unlink the socket of a number it
 * just released, under a new server that took that number.
 *
 * @example Usage
 * ```ts ignore
 * import { startXvfb } from "./xvfb.ts";
 * await using x = await startXvfb();
 * console.log(x.display); // ":1"
 * ```
 * @throws {Error} If Xvfb cannot be started or exits before reporting a display.
 */
export async function startXvfb(options: XvfbOptions = {}): Promise<Xvfb> {
  let why = "";
  for (let attempt = 0; attempt < 8; attempt++) {
    const started = await startOn(100 + Math.floor(Math.random() * 30_000), options);
    if (typeof started !== "string") return started;
    why = started;
  }
  throw new Error(`Cannot start "${options.binary ?? "Xvfb"}": ${why}`);
}

/** One try on display `number`: the server, or why it reported no display. */
async function startOn(number: number, options: XvfbOptions): Promise<Xvfb | string> {
  const { width = 640, height = 480, binary = "Xvfb" } = options;
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(binary, {
      args: [`:${number}`, "-displayfd", "1", "-screen", "0", `${width}x${height}x24`, "-nolisten", "tcp"],
      stdout: "piped",
      stderr: "piped",
      stdin: "null",
    }).spawn();
  } catch (cause) {
    throw new Error(`Cannot start "${binary}": ${(cause as Error).message} (Debian package "xvfb")`, {
      cause,
    });
  }
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  if (text.trim() !== String(number)) {
    await child.status;
    await reader.cancel();
    return `it reported no display (${(await stderr).trim().slice(-300)})`;
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
    await child.status;
    await reader.cancel();
    await stderr;
  };
  return { display: `:${number}`, stop, [Symbol.asyncDispose]: stop };
}
