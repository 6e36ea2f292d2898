/**
 * window/xdg_shell.ts holds the xdg-shell interface tables libwayland-client marshals with: every request and
 * event of the version-1 interfaces it describes, in protocol order (the opcode is the index), with the wire
 * signature and argument interfaces of the installed `xdg-shell.xml` (Debian package "wayland-protocols").
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { XDG_SHELL } from "../../window/xdg_shell.ts";

const XDG_XML = "/usr/share/wayland-protocols/stable/xdg-shell/xdg-shell.xml";
const hasXml = (() => {
  try {
    return Deno.statSync(XDG_XML).isFile;
  } catch {
    return false;
  }
})();
Deno.test({
  name: `window/xdg_shell.ts's tables are xdg-shell.xml's version-1 messages${
    hasXml ? "" : ' (skipped: Debian package "wayland-protocols" not installed)'
  }`,
  ignore: !hasXml,
  fn() {
    const xml = Deno.readTextFileSync(XDG_XML);
    const codes: Record<string, string> = {
      uint: "u",
      int: "i",
      fixed: "f",
      string: "s",
      object: "o",
      new_id: "n",
    };
    Object.assign(codes, { array: "a", fd: "h" });
    for (const iface of XDG_SHELL) {
      const body = xml.split(`<interface name="${iface.name}"`)[1]!.split("</interface>")[0]!;
      for (const kind of ["request", "event"] as const) {
        const expected = [
          ...body.matchAll(new RegExp(`<${kind} name="(\\w+)"([^>]*)>([\\s\\S]*?)</${kind}>`, "g")),
        ]
          .filter((m) => !/since="([2-9])"/.test(m[2]!))
          .map((m) => {
            const args = [...m[3]!.matchAll(/<arg ([^>]*?)\/?>/g)].map((a) => a[1]!);
            const signature = args.map((a) =>
              (/allow-null="true"/.test(a) ? "?" : "") + codes[/type="(\w+)"/.exec(a)![1]!]!
            ).join("");
            const types = args.map((a) => /interface="(\w+)"/.exec(a)?.[1] ?? null);
            return { name: m[1]!, signature, types };
          });
        const ours = kind === "request" ? iface.requests : iface.events;
        assertEquals(ours.map((r) => [r.name, r.signature]), expected.map((r) => [r.name, r.signature]));
        // A type we leave null is one for objects never created here (popups, positioners).
        ours.forEach((r, i) =>
          r.types.forEach((t, k) =>
            assert(t === null || t === expected[i]!.types[k], `${iface.name}.${r.name}`)
          )
        );
      }
    }
  },
});
