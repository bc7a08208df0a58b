/**
 * Property operators (posthog-behavior.md §3.5): one filter compiled once into a test of a property
 * bag, its value parsed up front (numbers, dates, versions, regexes).
 *
 * Whose semantics. The engine runs on the server, where every property of the subject is known, so
 * it never answers "inconclusive". Where posthog-node's local evaluator (`@posthog/core`
 * `featureFlagLocalEvaluation.mjs` `matchPropertyValue`, posthog-node 5.x) decides a filter, the
 * engine decides the same way, because SDKs in local-evaluation mode must reach our values (issue 8).
 * Where posthog-node defers to the server, the engine follows the Rust service
 * (`rust/feature-flags/src/properties/property_matching.rs` `match_property`, `partial_props = false`).
 *
 * Missing property (key absent or `undefined`): posthog-node defers; the Rust service answers `false`
 * for every operator except the negative ones, which answer `true`: `is_not`, `not_icontains`,
 * `not_regex`, `not_starts_with`, `not_ends_with`, `not_icontains_multi`, `not_between`,
 * `is_not_set`. `is_set` is `false`; `semver_neq` and the date operators are `false`.
 *
 * Where the two references differ and the engine follows posthog-node (both decide):
 * - `gt`/`gte`/`lt`/`lte`: numbers through `parseFloat` ("12abc" is 12) and, when either side is
 *   not a number, a string comparison; Rust answers `false` unless both sides parse as numbers.
 * - substring and regex operators search `String(value)` (`[object Object]`, `a,b` for a list);
 *   Rust searches JSON text (`{"k":1}`, `["a","b"]`).
 * - `semver_*` ignore pre-release and build parts (Rust's semver crate orders `1.0.0-beta` before
 *   `1.0.0`) and read "1.2.3.4" as 1.2.3 (Rust: not a version).
 * - a number as a date is milliseconds since the epoch (Rust: seconds). A numeric string, which
 *   posthog-node cannot parse, is seconds as in Rust.
 * - a `null` property with `gt`…, the date and semver operators is `false`.
 * Where the engine follows Rust: `is_date_exact` (same instant), `starts_with`… `between`,
 * `icontains_multi` (posthog-node does not know them), integers in `exact` (posthog-node defers).
 *
 * Regexes run on re2js (linear time; RE2 syntax, so lookarounds and backreferences do not compile).
 * A pattern that does not compile makes both `regex` and `not_regex` false, as in both references;
 * an empty pattern matches everything (posthog-node). Dates without an offset are UTC (the Rust
 * service's team time zone is UTC unless set; the engine has none). An unknown operator is `false`:
 * posthog-node defers on it (and only
 * decides a condition or cohort when another filter already decides it, so any answer agrees). A
 * filter without a value is `false` for a missing property (Rust) and compares a present one with
 * the text `null` (posthog-node).
 */
import { RE2JS } from "re2js";
import {
  type FilterDateSpec,
  parseFilterDateSpec,
  parseIsoDate,
  resolveFilterDate,
} from "../../../lib/property-filters/filter-dates.js";
import {
  parsePropertyVersion,
  parseSemver,
  type SemverRange,
  semverRange,
  semverRangeContains,
  type Version,
} from "../../../lib/property-filters/semver.js";
import {
  asciiLower,
  exactText,
  hasProperty,
  isBooleanLike,
  isTruthy,
  looseNumber,
  type Properties,
  searchText,
  strictNumber,
} from "./values.js";

/** A compiled filter: does the bag match, with relative dates measured from `now`? */
export type PropertyTest = (properties: Properties, now: Date) => boolean;

/** A test of one present, non-undefined value. */
type ValueTest = (value: unknown, now: Date) => boolean;

/** Operators that answer `true` for a missing property on the server (Rust `match_property`). */
const TRUE_WHEN_MISSING: ReadonlySet<string> = new Set([
  "is_not",
  "not_icontains",
  "not_regex",
  "not_starts_with",
  "not_ends_with",
  "not_icontains_multi",
  "not_between",
  "is_not_set",
]);

const never: PropertyTest = () => false;

/** `exact` as both references compare (booleans by truthiness, lists as any-of, case-insensitive). */
function exactTest(target: unknown): ValueTest {
  if (isBooleanLike(target)) {
    const truthy = isTruthy(target);
    return (value) => isTruthy(value) === truthy;
  }
  const texts = (Array.isArray(target) ? target : [target]).map((item) => exactText(item).toLowerCase());
  if (texts.length === 1) {
    const only = texts[0]!;
    return (value) => exactText(value).toLowerCase() === only;
  }
  const set = new Set(texts);
  return (value) => set.has(exactText(value).toLowerCase());
}

/** The four comparison operators, as posthog-node compares (see the header). */
function compareTest(operator: string, target: unknown): ValueTest {
  const compare = (a: number | string, b: number | string): boolean =>
    operator === "gt" ? a > b : operator === "gte" ? a >= b : operator === "lt" ? a < b : a <= b;
  const targetNumber = looseNumber(target);
  const targetText = String(target);
  return (value) => {
    if (value === null) return false;
    const number = looseNumber(value);
    return Number.isFinite(targetNumber) && Number.isFinite(number)
      ? compare(number, targetNumber)
      : compare(String(value), targetText);
  };
}

/** A regex search on re2js; a pattern that does not compile matches nothing either way. */
function regexTest(operator: string, target: unknown): ValueTest {
  const pattern = String(target);
  const negate = operator === "not_regex";
  if (pattern === "") return () => !negate;
  let regex: RE2JS;
  try {
    regex = RE2JS.compile(pattern);
  } catch {
    return () => false;
  }
  return (value) => regex.test(searchText(value)) !== negate;
}

/** A property value as an instant (see the header), or null. */
function propertyDate(value: unknown): Date | null {
  if (typeof value === "number") return Number.isFinite(value) ? new Date(value) : null;
  if (typeof value !== "string") return null;
  const iso = parseIsoDate(value);
  if (iso) return iso;
  const parsed = new Date(value);
  if (!Number.isNaN(parsed.getTime())) return parsed;
  const seconds = strictNumber(value);
  return seconds !== null && Number.isFinite(seconds) ? new Date(seconds * 1000) : null;
}

/**
 * A date filter value: relative or ISO 8601 (what validation accepts), else what posthog-node's
 * `new Date(value)` reads (a number as epoch milliseconds, other date texts V8 parses).
 */
function filterDate(target: unknown): FilterDateSpec | null {
  const spec = typeof target === "string" ? parseFilterDateSpec(target) : null;
  if (spec !== null || (typeof target !== "string" && typeof target !== "number")) return spec;
  const parsed = new Date(target);
  return Number.isNaN(parsed.getTime()) ? null : { absolute: parsed };
}

function dateTest(operator: string, target: unknown): ValueTest {
  const spec = filterDate(target);
  if (spec === null) return () => false;
  return (value, now) => {
    const date = propertyDate(value);
    if (date === null) return false;
    const bound = resolveFilterDate(spec, now).getTime();
    const time = date.getTime();
    return operator === "is_date_before"
      ? time < bound
      : operator === "is_date_after"
        ? time > bound
        : time === bound;
  };
}

/**
 * A wildcard value without a `*` (which validation refuses), as posthog-node's
 * `computeWildcardBounds` reads it: its first one or two numbers, "1.2.3" meaning 1.2.x.
 */
function looseWildcard(text: string): SemverRange | null {
  const parts = text.trim().replace(/^[vV]/, "").split(".");
  if (!parts.slice(0, 2).every((part) => /^\d+$/.test(part))) return null;
  const [major, minor] = parts.map(Number) as [number, number | undefined];
  return minor === undefined
    ? semverBetween([major, 0, 0], [major + 1, 0, 0])
    : semverBetween([major, minor, 0], [major, minor + 1, 0]);
}

function semverBetween(lower: Version, upper: Version): SemverRange {
  return {
    lower: { version: lower, inclusive: true },
    upper: { version: upper, inclusive: false },
    negate: false,
  };
}

function semverTest(operator: string, target: unknown): ValueTest {
  let range: SemverRange | null;
  if (operator === "semver_wildcard") {
    range = parseSemver(operator, String(target)) ?? looseWildcard(String(target));
  } else {
    const version = parsePropertyVersion(String(target));
    range = version === null ? null : semverRange(operator, version);
  }
  if (range === null) return () => false;
  const bounds = range;
  return (value) => {
    if (value === null) return false;
    const version = parsePropertyVersion(String(value));
    return version !== null && semverRangeContains(bounds, version);
  };
}

function betweenTest(operator: string, target: unknown): ValueTest {
  const bounds = Array.isArray(target) && target.length === 2 ? target.map(strictNumber) : null;
  const [low, high] = bounds ?? [null, null];
  if (low == null || high == null || Number.isNaN(low) || Number.isNaN(high) || low > high)
    return () => false;
  return (value) => {
    const number = strictNumber(value);
    if (number === null || Number.isNaN(number)) return false;
    return (number >= low && number <= high) === (operator === "between");
  };
}

/** Case-insensitive (ASCII) substring tests: `icontains`, `starts_with`, `ends_with` and negations. */
function textTest(operator: string, target: unknown): ValueTest {
  const negate = operator.startsWith("not_");
  const base = negate ? operator.slice(4) : operator;
  if (base === "icontains_multi") {
    const needles = (Array.isArray(target) ? target : [target]).map((item) => asciiLower(exactText(item)));
    return (value) => {
      const haystack = asciiLower(exactText(value));
      return needles.some((needle) => haystack.includes(needle)) !== negate;
    };
  }
  const needle = asciiLower(searchText(target));
  return (value) => {
    const haystack = asciiLower(searchText(value));
    const found =
      base === "icontains"
        ? haystack.includes(needle)
        : base === "starts_with"
          ? haystack.startsWith(needle)
          : haystack.endsWith(needle);
    return found !== negate;
  };
}

/** The test of a present value for `operator`, or null for an operator the engine does not know. */
function valueTest(operator: string, target: unknown): ValueTest | null {
  switch (operator) {
    case "exact":
      return exactTest(target);
    case "is_not": {
      const exact = exactTest(target);
      return (value, now) => !exact(value, now);
    }
    case "icontains":
    case "not_icontains":
    case "starts_with":
    case "not_starts_with":
    case "ends_with":
    case "not_ends_with":
    case "icontains_multi":
    case "not_icontains_multi":
      return textTest(operator, target);
    case "regex":
    case "not_regex":
      return regexTest(operator, target);
    case "gt":
    case "gte":
    case "lt":
    case "lte":
      return compareTest(operator, target);
    case "is_date_before":
    case "is_date_after":
    case "is_date_exact":
      return dateTest(operator, target);
    case "between":
    case "not_between":
      return betweenTest(operator, target);
    case "semver_eq":
    case "semver_neq":
    case "semver_gt":
    case "semver_gte":
    case "semver_lt":
    case "semver_lte":
    case "semver_tilde":
    case "semver_caret":
    case "semver_wildcard":
      return semverTest(operator, target);
    default:
      return null;
  }
}

/**
 * Compiles one person/group property filter (`{key, value, operator}`; `operator` null or absent is
 * `exact`) into a test of a property bag. Never throws: anything it cannot read tests `false`.
 */
export function compilePropertyTest(filter: Readonly<Record<string, unknown>>): PropertyTest {
  const key = filter["key"];
  const operator = filter["operator"] ?? "exact";
  if ((typeof key !== "string" && typeof key !== "number") || typeof operator !== "string") return never;
  const name = String(key);
  if (operator === "is_set") return (properties) => hasProperty(properties, name);
  if (operator === "is_not_set") return (properties) => !hasProperty(properties, name);
  // A filter without a value: the Rust service answers false when the property is missing;
  // posthog-node compares a present property with the text "null".
  const target = filter["value"] ?? null;
  const test = valueTest(operator, target);
  if (test === null) return never;
  const whenMissing = target !== null && TRUE_WHEN_MISSING.has(operator);
  return (properties, now) => (hasProperty(properties, name) ? test(properties[name], now) : whenMissing);
}
