/**
 * A small handwritten reader for JSON with comments (JSONC), for manifests and the settings file that are
 * not strict JSON: counts comments and trailing commas, keeps the first of repeated members (as the Khronos
 * loader's reader does, docs/behaviour.md M07) and names them, names the first defect.
 *
 * @example Reading a commented object
 * ```ts
 * import { readJsonc } from "./jsonc.ts";
 * const r = readJsonc('{ "a": [1, 2,], // note\n }');
 * if (r.ok) console.log(r.value, r.comments, r.trailingCommas); // { a: [1, 2] } 1 1
 * else console.log(`${r.defect} at offset ${r.offset}`);
 * ```
 *
 * @module
 */

/**
 * What {@linkcode readJsonc} found wrong, as a lower-case phrase.
 *
 * @example Usage
 * ```ts
 * import type { JsoncDefect } from "./jsonc.ts";
 * const defect: JsoncDefect = "close brace expected";
 * ```
 */
export type JsoncDefect =
  | "invalid symbol"
  | "property name expected"
  | "value expected"
  | "colon expected"
  | "comma expected"
  | "close brace expected"
  | "close bracket expected"
  | "end of file expected"
  | "unexpected end of comment"
  | "unexpected end of string"
  | "unexpected end of number"
  | "invalid unicode"
  | "invalid escape character"
  | "invalid character"
  | "nesting is too deep";

/**
 * A text that read: its value and the extensions to strict JSON it used.
 *
 * @example Usage
 * ```ts
 * import type { JsoncValue } from "./jsonc.ts";
 * const r: JsoncValue = { ok: true, value: {}, comments: 0, trailingCommas: 0, repeatedKeys: [], members: [] };
 * ```
 */
export interface JsoncValue {
  /** Always true: the text read. */
  readonly ok: true;
  /** The top-level value. */
  readonly value: unknown;
  /** How many comments the text holds (those before any ignored trailing text). */
  readonly comments: number;
  /** How many commas stand just before a closing brace or bracket. */
  readonly trailingCommas: number;
  /** Keys repeated inside one object, each named once, in the order first repeated; the first value is kept. */
  readonly repeatedKeys: readonly string[];
  /**
   * The top-level object's members in text order, repeated names included, each with its own value (a
   * layer manifest of file version 1.0.0 repeats `layer`); empty when the top-level value is no object.
   */
  readonly members: readonly (readonly [string, unknown])[];
  /** Where text after the top-level object's closing brace starts being ignored (just after the brace). */
  readonly ignoredFrom?: number;
}

/**
 * A text that did not read: the first defect and where it is.
 *
 * @example Usage
 * ```ts
 * import type { JsoncError } from "./jsonc.ts";
 * const r: JsoncError = { ok: false, defect: "value expected", offset: 7 };
 * ```
 */
export interface JsoncError {
  /** Always false: the text has a defect. */
  readonly ok: false;
  /** What is wrong. */
  readonly defect: JsoncDefect;
  /** UTF-16 offset of the token at fault (the text's length for an early end). */
  readonly offset: number;
}

/** The result of {@linkcode readJsonc}. */
export type JsoncResult = JsoncValue | JsoncError;

/**
 * Deepest nesting of arrays and objects read. Far beyond any manifest, and it keeps the reader's recursion
 * well inside the engine's stack.
 */
export const MAX_JSONC_DEPTH = 1000;

/**
 * Reads `text` as one JSONC value. Never throws.
 *
 * @example Usage
 * ```ts
 * import { readJsonc } from "./jsonc.ts";
 * const r = readJsonc('{"a": 1');
 * console.log(r.ok ? r.value : `${r.defect} at ${r.offset}`); // "close brace expected at 7"
 * ```
 */
export function readJsonc(text: string): JsoncResult {
  const reader = new Reader(text);
  try {
    const value = reader.document();
    return {
      ok: true,
      value,
      comments: reader.comments,
      trailingCommas: reader.trailingCommas,
      repeatedKeys: reader.repeatedKeys,
      members: reader.members,
      ...(reader.ignoredFrom === undefined ? {} : { ignoredFrom: reader.ignoredFrom }),
    };
  } catch (error) {
    if (error instanceof Defect) return { ok: false, defect: error.defect, offset: error.offset };
    // The depth limit should make this unreachable; a stack overflow still must not escape.
    if (error instanceof RangeError) return { ok: false, defect: "nesting is too deep", offset: reader.pos };
    throw error;
  }
}

/** Thrown inside the reader to unwind to {@linkcode readJsonc} at the first defect. */
class Defect {
  constructor(readonly defect: JsoncDefect, readonly offset: number) {}
}

// Character codes the reader compares against.
const TAB = 0x09;
const LINE_FEED = 0x0a;
const VERTICAL_TAB = 0x0b;
const FORM_FEED = 0x0c;
const CARRIAGE_RETURN = 0x0d;
const SPACE = 0x20;
const QUOTE = 0x22;
const STAR = 0x2a;
const PLUS = 0x2b;
const COMMA = 0x2c;
const MINUS = 0x2d;
const DOT = 0x2e;
const SLASH = 0x2f;
const ZERO = 0x30;
const NINE = 0x39;
const COLON = 0x3a;
const UPPER_E = 0x45;
const OPEN_BRACKET = 0x5b;
const BACKSLASH = 0x5c;
const CLOSE_BRACKET = 0x5d;
const LOWER_E = 0x65;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

const ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

function isDigit(c: number): boolean {
  return c >= ZERO && c <= NINE;
}

function isSpace(c: number): boolean {
  return c === SPACE || c === TAB || c === LINE_FEED || c === CARRIAGE_RETURN ||
    c === VERTICAL_TAB || c === FORM_FEED;
}

/** Characters that end a bare word such as `true` or a stray symbol. */
function endsWord(c: number): boolean {
  return Number.isNaN(c) || isSpace(c) || c === OPEN_BRACE || c === CLOSE_BRACE ||
    c === OPEN_BRACKET || c === CLOSE_BRACKET || c === QUOTE || c === COLON ||
    c === COMMA || c === SLASH;
}

class Reader {
  pos = 0;
  comments = 0;
  trailingCommas = 0;
  readonly repeatedKeys: string[] = [];
  readonly members: [string, unknown][] = [];
  ignoredFrom: number | undefined;
  #depth = 0;

  constructor(readonly text: string) {}

  document(): unknown {
    const value = this.value();
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      // After the top-level object only comments and spaces are read; the first anything else ends the
      // reading, so an unclosed comment there is ignored text too.
      const end = this.pos;
      try {
        if (this.peek() === undefined) return value;
      } catch (error) {
        if (!(error instanceof Defect)) throw error;
      }
      this.ignoredFrom = end;
      return value;
    }
    const next = this.peek();
    if (next !== undefined) this.unexpected("end of file expected");
    return value;
  }

  /**
   * Skips spaces and comments and returns the next character code, or undefined at the end. A stray word
   * or symbol is a defect here, wherever it stands.
   */
  peek(): number | undefined {
    const text = this.text;
    for (;;) {
      const c = text.charCodeAt(this.pos);
      if (isSpace(c)) {
        this.pos++;
      } else if (c === SLASH && text.charCodeAt(this.pos + 1) === SLASH) {
        this.comments++;
        this.pos += 2;
        while (this.pos < text.length) {
          const d = text.charCodeAt(this.pos);
          if (d === LINE_FEED || d === CARRIAGE_RETURN) break;
          this.pos++;
        }
      } else if (c === SLASH && text.charCodeAt(this.pos + 1) === STAR) {
        const close = text.indexOf("*/", this.pos + 2);
        if (close < 0) throw new Defect("unexpected end of comment", this.pos);
        this.comments++;
        this.pos = close + 2;
      } else if (Number.isNaN(c)) {
        return undefined;
      } else {
        return c;
      }
    }
  }

  /** A defect at the next token: `defect`, or `invalid symbol` when that token is a stray word or symbol. */
  unexpected(defect: JsoncDefect): never {
    throw new Defect(this.strayAt() ? "invalid symbol" : defect, this.pos);
  }

  /**
   * Whether the token at `pos` is no JSON token: a lone slash (comments are skipped before), a minus with
   * no digit after it, or a bare word other than `true`, `false` and `null` (`nul`, `truex`, `'a'`).
   */
  strayAt(): boolean {
    const c = this.text.charCodeAt(this.pos);
    if (c === SLASH) return true;
    if (c === MINUS) return !isDigit(this.text.charCodeAt(this.pos + 1));
    if (endsWord(c) || isDigit(c)) return false;
    const word = this.text.slice(this.pos, this.wordEnd());
    return word !== "true" && word !== "false" && word !== "null";
  }

  wordEnd(): number {
    let end = this.pos;
    while (!endsWord(this.text.charCodeAt(end))) end++;
    return end;
  }

  value(): unknown {
    const c = this.peek();
    switch (c) {
      case OPEN_BRACE:
        return this.object();
      case OPEN_BRACKET:
        return this.array();
      case QUOTE:
        return this.string();
      case MINUS:
        if (!isDigit(this.text.charCodeAt(this.pos + 1))) this.unexpected("value expected");
        return this.number();
      default:
        if (c !== undefined && isDigit(c)) return this.number();
        return this.keyword();
    }
  }

  keyword(): boolean | null {
    const end = this.wordEnd();
    const word = this.text.slice(this.pos, end);
    if (word === "true" || word === "false" || word === "null") {
      this.pos = end;
      return word === "null" ? null : word === "true";
    }
    return this.unexpected("value expected");
  }

  enter(): void {
    if (++this.#depth > MAX_JSONC_DEPTH) throw new Defect("nesting is too deep", this.pos);
  }

  object(): Record<string, unknown> {
    this.enter();
    const topLevel = this.#depth === 1;
    this.pos++; // the opening brace
    const result: Record<string, unknown> = {};
    const seen = new Set<string>();
    let first = true;
    for (;;) {
      let c = this.peek();
      if (c === CLOSE_BRACE) break;
      if (!first) {
        if (c === undefined) this.unexpected("close brace expected");
        if (c !== COMMA) this.unexpected("comma expected");
        this.pos++;
        c = this.peek();
        if (c === CLOSE_BRACE) {
          this.trailingCommas++;
          break;
        }
      }
      if (c === undefined) this.unexpected("close brace expected");
      if (c === COMMA && first) this.unexpected("value expected");
      if (c !== QUOTE) this.unexpected("property name expected");
      const key = this.string();
      if (this.peek() !== COLON) this.unexpected("colon expected");
      this.pos++;
      const item = this.value();
      if (topLevel) this.members.push([key, item]);
      first = false;
      if (seen.has(key)) {
        if (!this.repeatedKeys.includes(key)) this.repeatedKeys.push(key);
        continue;
      }
      seen.add(key);
      if (key === "__proto__") {
        // A plain assignment would set the prototype; JSON.parse makes an own property instead.
        Object.defineProperty(result, key, {
          value: item,
          writable: true,
          enumerable: true,
          configurable: true,
        });
      } else {
        result[key] = item;
      }
    }
    this.pos++; // the closing brace
    this.#depth--;
    return result;
  }

  array(): unknown[] {
    this.enter();
    this.pos++; // the opening bracket
    const result: unknown[] = [];
    let first = true;
    for (;;) {
      let c = this.peek();
      if (c === CLOSE_BRACKET) break;
      if (!first) {
        if (c === undefined) this.unexpected("close bracket expected");
        if (c !== COMMA) this.unexpected("comma expected");
        this.pos++;
        c = this.peek();
        if (c === CLOSE_BRACKET) {
          this.trailingCommas++;
          break;
        }
      }
      if (c === undefined) this.unexpected("close bracket expected");
      if (c === COMMA) this.unexpected("value expected");
      result.push(this.value());
      first = false;
    }
    this.pos++; // the closing bracket
    this.#depth--;
    return result;
  }

  /** A string at `pos` (its opening quote); defects in it are placed at that quote. */
  string(): string {
    const text = this.text;
    const start = this.pos;
    let i = start + 1;
    let out = "";
    let from = i;
    for (;;) {
      if (i >= text.length) throw new Defect("unexpected end of string", start);
      const c = text.charCodeAt(i);
      if (c === QUOTE) break;
      if (c === LINE_FEED || c === CARRIAGE_RETURN) throw new Defect("unexpected end of string", start);
      if (c < 0x20) throw new Defect("invalid character", start);
      if (c !== BACKSLASH) {
        i++;
        continue;
      }
      out += text.slice(from, i);
      const e = text[i + 1];
      if (e === undefined) throw new Defect("unexpected end of string", start);
      if (e === "u") {
        const hex = text.slice(i + 2, i + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new Defect("invalid unicode", start);
        out += String.fromCharCode(parseInt(hex, 16));
        i += 6;
      } else {
        const escaped = ESCAPES[e];
        if (escaped === undefined) throw new Defect("invalid escape character", start);
        out += escaped;
        i += 2;
      }
      from = i;
    }
    this.pos = i + 1;
    return out + text.slice(from, i);
  }

  /** A number at `pos` (a digit, or a minus before one), in JSON's grammar. */
  number(): number {
    const text = this.text;
    const start = this.pos;
    let i = start;
    if (text.charCodeAt(i) === MINUS) i++;
    if (text.charCodeAt(i) === ZERO) {
      i++;
    } else {
      while (isDigit(text.charCodeAt(i))) i++;
    }
    if (text.charCodeAt(i) === DOT) {
      i++;
      if (!isDigit(text.charCodeAt(i))) throw new Defect("unexpected end of number", start);
      while (isDigit(text.charCodeAt(i))) i++;
    }
    const e = text.charCodeAt(i);
    if (e === LOWER_E || e === UPPER_E) {
      i++;
      const sign = text.charCodeAt(i);
      if (sign === PLUS || sign === MINUS) i++;
      if (!isDigit(text.charCodeAt(i))) throw new Defect("unexpected end of number", start);
      while (isDigit(text.charCodeAt(i))) i++;
    }
    this.pos = i;
    return Number(text.slice(start, i)); // 1e999 is Infinity, as JSON.parse reads it
  }
}
