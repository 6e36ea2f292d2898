/**
 * The glob filters of `VK_LOADER_DRIVERS_SELECT`, `VK_LOADER_DRIVERS_DISABLE`, `VK_LOADER_LAYERS_ENABLE`
 * and `VK_LOADER_LAYERS_DISABLE` (docs/behaviour.md D07).
 *
 * @example Selecting drivers
 * ```ts
 * import { matchesAnyFilter, parseFilterList } from "./filter.ts";
 * const { filters } = parseFilterList("*lvp*,intel_icd.x86_64.json");
 * matchesAnyFilter(filters, "lvp_icd.x86_64.json"); // true
 * matchesAnyFilter(filters, "radeon_icd.x86_64.json"); // false
 * ```
 *
 * @module
 */

/** How a filter compares. */
export type FilterKind = "all" | "exact" | "prefix" | "suffix" | "substring" | "special";

/**
 * One parsed filter.
 *
 * @example Usage
 * ```ts
 * import type { NameFilter } from "./filter.ts";
 * const filter: NameFilter = { text: "*lvp*", kind: "substring", value: "lvp" };
 * ```
 */
export interface NameFilter {
  /** The filter as written (blanks kept, cut to 255 characters). */
  readonly text: string;
  /** How it compares (see the table in the module documentation). */
  readonly kind: FilterKind;
  /** The lower-cased text compared against names (without the `*`s; the whole `~name~` for `special`). */
  readonly value: string;
}

/**
 * The filters read from one variable, with warnings about what was dropped.
 *
 * @example Usage
 * ```ts
 * import type { FilterList } from "./filter.ts";
 * const none: FilterList = { filters: [], warnings: [] };
 * ```
 */
export interface FilterList {
  /** The filters, in the order written. */
  readonly filters: readonly NameFilter[];
  /** Filters dropped or cut, one sentence each. */
  readonly warnings: readonly string[];
}

/** Most filters read from one variable (the C loader's `MAX_ADDITIONAL_FILTERS`). */
export const MAX_FILTERS = 16;
/** Longest filter text kept. */
export const MAX_FILTER_LENGTH = 255;

/**
 * Parses one filter.
 *
 * @example Usage
 * ```ts
 * import { parseFilter } from "./filter.ts";
 * parseFilter("*LVP"); // { text: "*LVP", kind: "suffix", value: "lvp" }
 * ```
 */
export function parseFilter(text: string): NameFilter {
  const lower = text.toLowerCase();
  if (lower === "*" || lower === "**" || lower === "~all~") return { text, kind: "all", value: "" };
  if (lower.length > 2 && lower.startsWith("~") && lower.endsWith("~")) {
    return { text, kind: "special", value: lower };
  }
  const starts = lower.startsWith("*");
  const ends = lower.endsWith("*");
  if (starts && ends) return { text, kind: "substring", value: lower.slice(1, -1) };
  if (starts) return { text, kind: "suffix", value: lower.slice(1) };
  if (ends) return { text, kind: "prefix", value: lower.slice(0, -1) };
  return { text, kind: "exact", value: lower };
}

/**
 * Parses a comma-separated filter variable. `variable` only names the source
 * in warnings. An unset or empty variable gives no filters; empty elements
 * are skipped; blanks belong to the element they stand in, as the Khronos
 * loader reads them (docs/behaviour.md D07), so `" b"` does not match `b`.
 *
 * @example Usage
 * ```ts
 * import { parseFilterList } from "./filter.ts";
 * parseFilterList("a*,,*b", "VK_LOADER_DRIVERS_DISABLE").filters.map((f) => f.kind); // ["prefix", "suffix"]
 * parseFilterList("a, b").filters.map((f) => f.text); // ["a", " b"]
 * ```
 */
export function parseFilterList(value: string | undefined, variable = "filter"): FilterList {
  const filters: NameFilter[] = [];
  const warnings: string[] = [];
  if (value === undefined) return { filters, warnings };
  for (let text of value.split(",")) {
    if (text === "") continue;
    if (filters.length === MAX_FILTERS) {
      warnings.push(
        `Filter "${text}" of env var '${variable}' ignored: at most ${MAX_FILTERS} filters are read`,
      );
      continue;
    }
    if (text.length > MAX_FILTER_LENGTH) {
      warnings.push(
        `Filter "${text.slice(0, 40)}..." of env var '${variable}' cut to ${MAX_FILTER_LENGTH} characters`,
      );
      text = text.slice(0, MAX_FILTER_LENGTH);
    }
    filters.push(parseFilter(text));
  }
  return { filters, warnings };
}

/**
 * True when `name` matches `filter` (case-insensitive). `special` filters
 * match nothing here: their meaning belongs to the caller.
 *
 * @example Usage
 * ```ts
 * import { matchesFilter, parseFilter } from "./filter.ts";
 * matchesFilter(parseFilter("intel*"), "Intel_icd.x86_64.json"); // true
 * ```
 */
export function matchesFilter(filter: NameFilter, name: string): boolean {
  const lower = name.toLowerCase();
  switch (filter.kind) {
    case "all":
      return true;
    case "exact":
      return lower === filter.value;
    case "prefix":
      return lower.startsWith(filter.value);
    case "suffix":
      return lower.endsWith(filter.value);
    case "substring":
      return lower.includes(filter.value);
    case "special":
      return false;
  }
}

/**
 * True when any filter matches `name`.
 *
 * @example Usage
 * ```ts
 * import { matchesAnyFilter, parseFilterList } from "./filter.ts";
 * matchesAnyFilter(parseFilterList("~all~").filters, "anything.json"); // true
 * ```
 */
export function matchesAnyFilter(filters: readonly NameFilter[], name: string): boolean {
  return filters.some((filter) => matchesFilter(filter, name));
}
