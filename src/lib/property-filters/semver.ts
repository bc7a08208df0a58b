/**
 * Semantic-version operators of PostHog's flag engine (`semver_eq|neq|gt|gte|lt|lte`,
 * `semver_tilde|caret|wildcard`; `rust/feature-flags/src/properties/property_matching.rs` and the
 * operator table of `docs/internal/feature-flags/flag-evaluation-engine.md`; posthog-behavior.md
 * §3.5 [newer]). A version is `major[.minor[.patch]]` with an optional leading `v`; missing parts
 * are 0 and anything after the numbers (pre-release, build) is ignored. Each operator becomes a
 * half-open range `[lower, upper)` of versions, compared as numeric triples.
 */

/** The semver operators. */
export const SEMVER_OPERATORS = [
  "semver_eq",
  "semver_neq",
  "semver_gt",
  "semver_gte",
  "semver_lt",
  "semver_lte",
  "semver_tilde",
  "semver_caret",
  "semver_wildcard",
] as const;

/** A version as `[major, minor, patch]`. */
export type Version = [number, number, number];

/** What a semver filter matches: versions `>= lower` (when set) and `< upper` (when set); `neq` negates `eq`. */
export interface SemverRange {
  lower?: { version: Version; inclusive: boolean };
  upper?: { version: Version; inclusive: boolean };
  negate: boolean;
}

/** The version pattern, also used by the SQL side (PostgreSQL ARE syntax is the same here). */
export const VERSION_PATTERN = "^\\s*v?(\\d+)(?:\\.(\\d+))?(?:\\.(\\d+))?";
const VERSION = new RegExp(VERSION_PATTERN);
const WILDCARD = /^\s*v?(\d+)(?:\.(\d+|\*))?(?:\.\*)?\s*$/;

function version(text: string): Version | null {
  const match = VERSION.exec(text);
  if (!match) return null;
  return [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)];
}

/**
 * The range a semver filter value matches under `operator`, or null when the value is not a version
 * (for `semver_wildcard`: `1.*` or `1.2.*`).
 */
export function parseSemver(operator: string, text: string): SemverRange | null {
  if (operator === "semver_wildcard") {
    const match = WILDCARD.exec(text);
    if (!match || !text.includes("*")) return null;
    const major = Number(match[1]);
    if (match[2] === undefined || match[2] === "*") {
      return {
        lower: { version: [major, 0, 0], inclusive: true },
        upper: { version: [major + 1, 0, 0], inclusive: false },
        negate: false,
      };
    }
    const minor = Number(match[2]);
    return {
      lower: { version: [major, minor, 0], inclusive: true },
      upper: { version: [major, minor + 1, 0], inclusive: false },
      negate: false,
    };
  }
  const v = version(text);
  return v === null ? null : semverRange(operator, v);
}

/**
 * The range a non-wildcard semver operator matches around version `v` (`semver_eq` … `semver_caret`),
 * or null for any other operator.
 */
export function semverRange(operator: string, v: Version): SemverRange | null {
  const [major, minor, patch] = v;
  switch (operator) {
    case "semver_eq":
    case "semver_neq":
      return {
        lower: { version: v, inclusive: true },
        upper: { version: v, inclusive: true },
        negate: operator === "semver_neq",
      };
    case "semver_gt":
      return { lower: { version: v, inclusive: false }, negate: false };
    case "semver_gte":
      return { lower: { version: v, inclusive: true }, negate: false };
    case "semver_lt":
      return { upper: { version: v, inclusive: false }, negate: false };
    case "semver_lte":
      return { upper: { version: v, inclusive: true }, negate: false };
    case "semver_tilde":
      return {
        lower: { version: v, inclusive: true },
        upper: { version: [major, minor + 1, 0], inclusive: false },
        negate: false,
      };
    case "semver_caret": {
      // ^1.2.3 → <2.0.0; ^0.2.3 → <0.3.0; ^0.0.3 → <0.0.4 (npm's caret rule).
      const upper: Version =
        major > 0 ? [major + 1, 0, 0] : minor > 0 ? [0, minor + 1, 0] : [0, 0, patch + 1];
      return {
        lower: { version: v, inclusive: true },
        upper: { version: upper, inclusive: false },
        negate: false,
      };
    }
    default:
      return null;
  }
}

/** Negative, zero or positive as version `a` sorts before, with or after `b`. */
export function compareVersions(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** True when version `v` is in `range` (`neq` negated). */
export function semverRangeContains(range: SemverRange, v: Version): boolean {
  const { lower, upper } = range;
  let inside = true;
  if (lower) {
    const c = compareVersions(v, lower.version);
    inside = lower.inclusive ? c >= 0 : c > 0;
  }
  if (inside && upper) {
    const c = compareVersions(v, upper.version);
    inside = upper.inclusive ? c <= 0 : c < 0;
  }
  return range.negate ? !inside : inside;
}

/**
 * A version as PostHog's flag evaluation reads it from a property: trimmed, one leading `v`/`V`
 * dropped, everything from the first `-` or `+` (pre-release, build) ignored, then up to three
 * dot-separated numbers, an empty or missing one read as 0 and a fourth ignored; null when a part
 * is not digits or nothing is left. This is posthog-node's `parseFeatureFlagSemver` where it
 * decides, and the Rust service's `to_semver_representation` (leading zeros stripped) where
 * posthog-node defers to the server.
 */
export function parsePropertyVersion(text: string): Version | null {
  const core = text.trim().replace(/^[vV]/, "").split("-")[0]!.split("+")[0]!;
  if (core === "" || core.startsWith(".")) return null;
  const parts = core.split(".");
  const result: Version = [0, 0, 0];
  for (let i = 0; i < 3; i++) {
    const part = parts[i];
    if (part === undefined || part === "") continue;
    if (!/^\d+$/.test(part)) return null;
    result[i] = Number(part);
  }
  return result;
}
