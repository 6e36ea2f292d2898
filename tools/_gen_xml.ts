/**
 * A small XML reader for the Vulkan registry. vk.xml mixes text and tags inside `<member>` and `<param>`
 * (`const <type>void</type>* <name>pNext</name>`), so the tree keeps text nodes in document order.
 *
 * @module
 */

/** One element: tag, attributes, children (elements and text) in document order. */
export interface XmlElement {
  tag: string;
  attrs: Record<string, string>;
  children: (XmlElement | string)[];
}

const TOKEN =
  /<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<!\[CDATA\[([\s\S]*?)\]\]>|<(\/?)([A-Za-z_][\w:.-]*)((?:\s+[\w:.-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>|([^<]+)/g;
const ATTR = /([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
const ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

function decode(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|\w+);/g, (whole, name: string) => {
    if (name.startsWith("#x")) return String.fromCodePoint(parseInt(name.slice(2), 16));
    if (name.startsWith("#")) return String.fromCodePoint(parseInt(name.slice(1), 10));
    return ENTITIES[name] ?? whole;
  });
}

/**
 * Parses XML text into its root element.
 *
 * @example Usage
 * ```ts
 * import { parseXml } from "./_gen_xml.ts";
 * const root = parseXml('<a x="1">t<b/></a>');
 * console.log(root.attrs.x, root.children.length); // "1" 2
 * ```
 * @throws {SyntaxError} If tags do not nest or the text has no root element.
 */
export function parseXml(text: string): XmlElement {
  const top: XmlElement = { tag: "#document", attrs: {}, children: [] };
  const stack: XmlElement[] = [top];
  for (const m of text.matchAll(TOKEN)) {
    const current = stack[stack.length - 1]!;
    if (m[6] !== undefined) {
      current.children.push(decode(m[6]));
    } else if (m[1] !== undefined) {
      current.children.push(m[1]);
    } else if (m[3] !== undefined) {
      const tag = m[3];
      if (m[2] === "/") {
        if (current.tag !== tag) {
          throw new SyntaxError(`Unexpected closing tag "${tag}" inside "${current.tag}"`);
        }
        stack.pop();
        continue;
      }
      const attrs: Record<string, string> = {};
      for (const a of (m[4] ?? "").matchAll(ATTR)) attrs[a[1]!] = decode(a[2] ?? a[3] ?? "");
      const element: XmlElement = { tag, attrs, children: [] };
      current.children.push(element);
      if (m[5] !== "/") stack.push(element);
    }
  }
  if (stack.length !== 1) throw new SyntaxError(`Unclosed tag "${stack[stack.length - 1]!.tag}"`);
  const root = top.children.find((c): c is XmlElement => typeof c !== "string");
  if (!root) throw new SyntaxError("No root element");
  return root;
}

/** Child elements of `e`, optionally only those with tag `tag`. */
export function elements(e: XmlElement, tag?: string): XmlElement[] {
  return e.children.filter((c): c is XmlElement =>
    typeof c !== "string" && (tag === undefined || c.tag === tag)
  );
}

/** The concatenated text of `e` and its descendants. */
export function textOf(e: XmlElement): string {
  return e.children.map((c) => typeof c === "string" ? c : textOf(c)).join("");
}

/** The first descendant element with tag `tag` (depth first), or undefined. */
export function find(e: XmlElement, tag: string): XmlElement | undefined {
  for (const c of e.children) {
    if (typeof c === "string") continue;
    if (c.tag === tag) return c;
    const inner = find(c, tag);
    if (inner) return inner;
  }
  return undefined;
}
