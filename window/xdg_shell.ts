/**
 * The xdg-shell protocol's interface tables (`struct wl_interface` / `struct wl_message` in memory), which
 * libwayland-client needs to marshal xdg requests and demarshal their events. wayland-scanner writes them
 * as C for C programs; this module holds the same data for the interfaces window/wayland.ts uses at version 1
 * (signatures as in `xdg-shell.xml`, checked against the installed XML by the tests).
 *
 * @module
 */

/** One request or event: its name, its wire signature, and the interface of each argument (or null). */
export interface WaylandMessage {
  readonly name: string;
  readonly signature: string;
  /** Per argument: the interface name of a new_id or object argument, null for the others. */
  readonly types: readonly (string | null)[];
}

/** One interface as wayland-scanner describes it. */
export interface WaylandInterface {
  readonly name: string;
  readonly version: number;
  readonly requests: readonly WaylandMessage[];
  readonly events: readonly WaylandMessage[];
}

const m = (name: string, signature: string, types: (string | null)[] = []): WaylandMessage => ({
  name,
  signature,
  types: types.length ? types : [...signature.replace(/[?\d]/g, "")].map(() => null),
});

/**
 * xdg_wm_base, xdg_surface and xdg_toplevel at version 1. Popups and positioners are never created here:
 * their new_id types are left null (libwayland only reads a request's types for the new_id it creates).
 */
export const XDG_SHELL: readonly WaylandInterface[] = [
  {
    name: "xdg_wm_base",
    version: 1,
    requests: [
      m("destroy", ""),
      m("create_positioner", "n", [null]),
      m("get_xdg_surface", "no", ["xdg_surface", "wl_surface"]),
      m("pong", "u"),
    ],
    events: [m("ping", "u")],
  },
  {
    name: "xdg_surface",
    version: 1,
    requests: [
      m("destroy", ""),
      m("get_toplevel", "n", ["xdg_toplevel"]),
      m("get_popup", "n?oo", [null, "xdg_surface", null]),
      m("set_window_geometry", "iiii"),
      m("ack_configure", "u"),
    ],
    events: [m("configure", "u")],
  },
  {
    name: "xdg_toplevel",
    version: 1,
    requests: [
      m("destroy", ""),
      m("set_parent", "?o", ["xdg_toplevel"]),
      m("set_title", "s"),
      m("set_app_id", "s"),
      m("show_window_menu", "ouii", ["wl_seat", null, null, null]),
      m("move", "ou", ["wl_seat", null]),
      m("resize", "ouu", ["wl_seat", null, null]),
      m("set_max_size", "ii"),
      m("set_min_size", "ii"),
      m("set_maximized", ""),
      m("unset_maximized", ""),
      m("set_fullscreen", "?o", ["wl_output"]),
      m("unset_fullscreen", ""),
      m("set_minimized", ""),
    ],
    events: [m("configure", "iia"), m("close", "")],
  },
];

/** Opcodes of the requests window/wayland.ts sends, by interface and request name. */
export function opcode(interfaceName: string, request: string): number {
  const at = XDG_SHELL.find((i) => i.name === interfaceName)?.requests.findIndex((r) => r.name === request);
  if (at === undefined || at < 0) throw new RangeError(`No request "${interfaceName}.${request}"`);
  return at;
}

const encoder = new TextEncoder();
/** Memory the tables live in: C's static data, so kept for the process's life. */
const kept: Uint8Array[] = [];

function keep(bytes: Uint8Array): bigint {
  kept.push(bytes);
  return BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(bytes as Uint8Array<ArrayBuffer>)));
}

function cstring(s: string): bigint {
  return keep(encoder.encode(s + "\0"));
}

/**
 * Writes `XDG_SHELL` as `struct wl_interface` tables; `external` gives the address of every other interface
 * the tables name (libwayland-client's own `wl_surface_interface`, ...). Returns each xdg interface's
 * address.
 */
export function buildInterfaces(external: Readonly<Record<string, bigint>>): Record<string, bigint> {
  // struct wl_interface { const char *name; int version; int method_count; const struct wl_message
  // *methods; int event_count; const struct wl_message *events; }: 40 bytes on LP64.
  const blocks = new Map(XDG_SHELL.map((i) => [i.name, new Uint8Array(40)]));
  const address: Record<string, bigint> = { ...external };
  for (const [name, block] of blocks) address[name] = keep(block);
  const messages = (list: readonly WaylandMessage[]): bigint => {
    if (list.length === 0) return 0n;
    // struct wl_message { const char *name; const char *signature; const struct wl_interface **types; }
    const table = new Uint8Array(24 * list.length);
    const view = new DataView(table.buffer);
    list.forEach((message, i) => {
      const types = new BigUint64Array(Math.max(1, message.types.length));
      message.types.forEach((t, k) => types[k] = t === null ? 0n : address[t] ?? 0n);
      view.setBigUint64(24 * i, cstring(message.name), true);
      view.setBigUint64(24 * i + 8, cstring(message.signature), true);
      view.setBigUint64(24 * i + 16, keep(new Uint8Array(types.buffer)), true);
    });
    return keep(table);
  };
  for (const iface of XDG_SHELL) {
    const view = new DataView(blocks.get(iface.name)!.buffer);
    view.setBigUint64(0, cstring(iface.name), true);
    view.setInt32(8, iface.version, true);
    view.setInt32(12, iface.requests.length, true);
    view.setBigUint64(16, messages(iface.requests), true);
    view.setInt32(24, iface.events.length, true);
    view.setBigUint64(32, messages(iface.events), true);
  }
  return address;
}
