/**
 * Regex patterns of property filters are run by PostgreSQL (`~`), whose syntax differs from
 * JavaScript's; a pattern it cannot compile would fail every read that uses it. So patterns are
 * checked by PostgreSQL itself when filters are written (`property_regex_is_valid`, migration
 * `property_filter_functions`), in one statement, and a bad one is a 400, never a 500 later.
 * PostHog answers a bad pattern with no match at evaluation (posthog-behavior.md §3.5); refusing it
 * up front is stricter and says why. ClickHouse runs patterns with re2, whose syntax differs again
 * (no backreferences or lookaround): `./to-clickhouse.ts` `checkClickHouseRegexPatterns` is its check.
 */
import { ValidationError } from "../../core/errors.js";
import type { PrismaClient } from "../../generated/prisma/client.js";
import { eventFiltersOf } from "./behavioral.js";
import { type PropertyFilter, type PropertyNode, walkNodes } from "./property-filters.js";

const REGEX_OPERATORS = new Set(["regex", "not_regex"]);

/** The regex patterns of a tree (behavioral criteria's `event_filters` included), each once, in tree order. */
export function regexPatterns(root: PropertyNode): string[] {
  return patterns(root, new Set());
}

function patterns(root: PropertyNode, found: Set<string>): string[] {
  for (const node of walkNodes(root)) {
    if (node.type === "behavioral") {
      const filters = eventFiltersOf(node["event_filters"]);
      if (filters) patterns(filters, found);
      continue;
    }
    const filter = node as PropertyFilter;
    if (!REGEX_OPERATORS.has(String(filter.operator))) continue;
    for (const value of Array.isArray(filter.value) ? filter.value : [filter.value]) {
      if (value !== undefined && value !== null) found.add(String(value));
    }
  }
  return [...found];
}

/**
 * Refuses a tree holding a regex PostgreSQL cannot compile.
 * @throws ValidationError code `invalid_regex`, `attr` as given, naming the first bad pattern.
 */
export async function checkRegexPatterns(
  db: Pick<PrismaClient, "$queryRaw">,
  root: PropertyNode,
  attr: string,
): Promise<void> {
  const all = regexPatterns(root);
  if (all.length === 0) return;
  const [bad] = await db.$queryRaw<Array<{ pattern: string }>>`
    SELECT p AS pattern FROM unnest(${all}::text[]) WITH ORDINALITY AS t(p, n)
    WHERE NOT property_regex_is_valid(p) ORDER BY n LIMIT 1`;
  if (bad) {
    throw new ValidationError(`Invalid regular expression: ${bad.pattern}`, { attr, code: "invalid_regex" });
  }
}
